"""A game on a game server as the window's online board sees it (a `Table`).

The window is one more client of the server (csl_game.server.ServerLink on
a thread of its own): it takes a game's free seat by its join code, or opens
a challenge in the server's lobby and waits for someone to accept it. The
server judges; this end keeps its own board (csl_game.server.BotGame) and
trusts nothing the server says that the board contradicts, as with direct
play: the game then fails here with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from csl_game.engine import (
    BoardUpdated,
    ForfeitReason,
    InvalidPlay,
    MatchOver,
    MatchResult,
    MatchStarted,
    MovePerformed,
    NextTurn,
    explain,
)
from csl_game.errors import InvalidMoveError, ProtocolError
from csl_game.gui.online_table import Action, Happening, Notice, Table, settings_text
from csl_game.model.board import Board, PColor, PShape
from csl_game.online.protocol import result_from_doc
from csl_game.server import BotError, BotGame
from csl_game.server.game import SHAPES
from csl_game.server.link import ServerLink
from csl_game.server.messages import game_state
from csl_game.thinker.api import MatchConfig

__all__ = ["ServerTable"]

LinkMaker = Callable[[str, str, dict[str, Any], str], ServerLink]

class ServerTable(Table):
    """This window's seat in a server's game."""

    opponent = "Opponent"
    """A server pairs strangers (a lobby's challenge): not 'Your friend'."""

    def __init__(self, url: str, name: str, code: str | None,
                 make: LinkMaker = ServerLink) -> None:
        """Connect (in the background) and join `code`'s game, or open a challenge.

        Raises:
            BotError: `url` is no server address.
        """
        self.url, self.name_, self.code = url, name, code
        self._make = make
        first = ({"type": "join", "code": code} if code else
                 {"type": "create", "opponent": "open", "color": "random"})
        self.link = make(url, name, first, "")
        self.local: PColor | None = None
        self.game: BotGame | None = None
        self._resigned = False
        """Whether this side sent its resignation."""
        self._result: MatchResult | None = None
        self._failed: str | None = None
        self._notice: Notice | None = None
        self._started = False
        self._turn, self._spent = -1, 0.0

    # ------------------------------------------------------------ what is shown
    @property
    def config(self) -> MatchConfig:
        assert self.game is not None, "the server sent the game"
        return self.game.state.config

    @property
    def board(self) -> Board:
        assert self.game is not None, "the server sent the game"
        return self.game.board

    @property
    def ready(self) -> bool:
        return self._started

    def name(self, color: PColor) -> str:
        assert self.game is not None
        return self.game.state.white if color is PColor.WHITE else self.game.state.red

    def is_human(self, color: PColor) -> bool:
        return True  # the server's open games are between people (its AI says "AI" in its name)

    @property
    def awaiting_human(self) -> bool:
        game = self.game
        return (self._started and game is not None and self._result is None
                and self._failed is None and game.my_turn and game.sent is None)

    @property
    def notice(self) -> Notice | None:
        return self._notice if self._result is None else None

    @property
    def result(self) -> MatchResult | None:
        return self._result

    @property
    def failed(self) -> str | None:
        return self._failed

    # ------------------------------------------------------------ playing
    def submit_move(self, col: int, shape: PShape) -> None:
        if not self.awaiting_human or self.game is None:
            raise InvalidMoveError("it is not your move")
        problem = self.game.board.move_problem(shape, col)
        if problem is not None:
            raise InvalidMoveError(explain(problem, self.game.board), problem)
        self.game.sent = (col, shape)
        self.link.send({"type": "move", "game": self.game.state.game,
                        "ply": self.game.board.move_count, "col": col,
                        "shape": shape.name.lower()})

    @property
    def can_resign(self) -> bool:
        game = self.game
        return (game is not None and self.local is not None and self._result is None
                and self._failed is None and not game.over)

    def resign(self) -> None:
        """Give the game up: the server judges it lost and says so to both ends."""
        if self.can_resign:
            assert self.game is not None
            self._resigned = True
            self.link.send({"type": "resign", "game": self.game.state.game})

    def _own_resignation(self, result: MatchResult, game: BotGame) -> bool:
        """Whether `result` is this side's resignation, which it sent, of the game
        played here (its moves this board's)."""
        return (self._resigned and result.resigned and self.local is not None
                and result.winner.color is self.local.other
                and tuple(m.move for m in result.moves) == game.board.history)

    def poll(self) -> list[Happening]:
        happened: list[Happening] = []
        for kind, doc in self.link.poll():
            try:
                happened += self._on(kind, doc)
            except (BotError, ProtocolError) as e:
                self._failed = str(e)
                self._notice = Notice("The game cannot go on", str(e), (Action.HOME,))
                self.link.close()
                happened.append(str(e))
                break
        return happened

    def _on(self, kind: str, doc: dict[str, Any]) -> list[Happening]:
        if kind == "game":
            return self._on_game(doc)
        game = self.game
        if kind == "played" and game is not None and doc["game"] == game.state.game:
            color = game.board.turn
            game.played(doc["ply"], doc["col"], SHAPES[doc["shape"]])
            move = game.board.history[-1]
            events: list[Happening] = [MovePerformed(color, self.name(color), move,
                                                     float(doc["ms"]) / 1000),
                                       BoardUpdated(game.board.copy())]
            if not game.over:
                events.append(NextTurn(color.other, self.name(color.other), True))
            return events
        if kind == "result" and game is not None and doc["game"] == game.state.game:
            result, _ = result_from_doc(doc["result"])
            if not self._own_resignation(result, game):
                game.check_result(doc["result"])  # BotGame knows of no resignation of its own
            self._result = result
            events = []
            loser = result.winner.color.other if result.winner.color is not None else None
            if result.forfeit is not None and loser is not None:
                events.append(InvalidPlay(loser, self.name(loser), result.forfeit,
                                          result.detail))
            self.link.close()
            return [*events, MatchOver(result)]
        if kind == "error":
            if game is None:
                self._failed = f"The server refused: {doc['message']}"
            return [f"Server: {doc['message']}"]
        if kind == "closed" and self._result is None and self._failed is None:
            if self.game is None:
                self._failed = doc["message"]
                return [doc["message"]]
            self._notice = Notice("Connection lost", doc["message"],
                                  (Action.RECONNECT, Action.HOME))
            return [f"Connection lost ({doc['message']})"]
        return []

    def _on_game(self, doc: dict[str, Any]) -> list[Happening]:
        state = game_state(doc)
        if state.color is None:
            return []
        if self.game is None:
            self.game = BotGame(state)
            self.local = state.color
        else:
            self.game.resume(state)
        self._notice = None
        if not (state.white and state.red):
            return [f"Your challenge is in the lobby of {self.url}; a friend can also join "
                    f"it with the code {state.code}"]
        if self._started:
            return [BoardUpdated(self.game.board.copy()), "Connected again"]
        self._started = True
        turn = self.game.board.turn
        return [f"The server's game: {settings_text(state.config)}; you play {state.color}",
                MatchStarted(state.config, state.white, state.red),
                BoardUpdated(self.game.board.copy()),
                NextTurn(turn, self.name(turn), True)]

    def act(self, action: Action) -> None:
        if action is Action.RECONNECT and self.game is not None:
            cookie = self.link.cookie
            self.link.close()
            self.link = self._make(self.url, self.name_,
                                   {"type": "watch", "game": self.game.state.game}, cookie)
            self._notice = Notice("Connecting again\u2026", "", (Action.HOME,))

    def tick(self, dt: float) -> None:
        turn = self.game.board.move_count if self.game is not None else -1
        if turn != self._turn:
            self._turn, self._spent = turn, 0.0
        else:
            self._spent += dt

    def thinking_time(self) -> float:
        return self._spent

    def close(self) -> None:
        self.link.close()

_UNUSED = ForfeitReason  # the forfeits a result names are the engine's
