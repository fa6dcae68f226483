"""A game on a game server as the window's online board sees it (a `Table`).

The window is one more client of the server (csl_game.server.ServerLink on
a thread of its own): it takes a game's free seat by its join code, or opens
a challenge in the server's lobby (with a time control, or none) and waits
for someone to accept it. The server judges and keeps the clocks; this end
keeps its own board (csl_game.server.BotGame) and trusts nothing the server
says that the board contradicts, as with direct play: the game then fails
here with the reason. A draw agreed and a takeback are trusted only when this
side took part in them (csl_game.online.agreements), a rematch only when it
asked for one, with the colours swapped.

Between the server's messages the clock of the side to move runs down here
(`clock_ms`); each `game`, `played` and `result` sets both clocks to what the
server says. The offers (a draw, a takeback, a rematch) stand as the server
tells them (`offers`) until the next move or the other side declines them
(`decline`); an opponent who left is known with its countdown (`away`), and
the win may be claimed once the server allows it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from csl_game.engine import (
    BoardUpdated,
    InvalidPlay,
    MatchOver,
    MatchResult,
    MatchStarted,
    MovePerformed,
    NextTurn,
    explain,
)
from csl_game.errors import InvalidMoveError, ProtocolError
from csl_game.gui.game_clocks import control_words, game_clock_text
from csl_game.gui.keys import SERVER_KEYS
from csl_game.gui.online_table import Action, Happening, Notice, Table, WaitScreen, settings_text
from csl_game.model.board import Board, PColor, PShape
from csl_game.online.agreements import (
    check_agreed_draw,
    check_takeback,
    is_agreed_draw,
    takeback_plies,
)
from csl_game.online.protocol import result_from_doc
from csl_game.online.verify import Contradiction, check_names_and_settings
from csl_game.server import BotError, BotGame
from csl_game.server.clock import TimeControl
from csl_game.server.game import SHAPES
from csl_game.server.link import ServerLink
from csl_game.server.messages import GameState, clock_of, game_state
from csl_game.thinker.api import MatchConfig

__all__ = ["ServerTable", "Away", "OFFERS"]

LinkMaker = Callable[[str, str, dict[str, Any], str], ServerLink]
OFFERS = ("draw", "takeback", "rematch")
"""What one player offers and the other's same message accepts (docs/server.md)."""
_COLORS = {c.name.lower(): c for c in PColor}


@dataclass(frozen=True)
class Away:
    """A player who left a game being played, as the server told it."""

    color: PColor
    until: float
    """When (time.monotonic) it loses unless it is back."""
    claim_at: float
    """From when (time.monotonic) the other may claim the win."""


class ServerTable(Table):
    """This window's seat in a server's game."""

    opponent = "Opponent"
    """A server pairs strangers (a lobby's challenge): not 'Your friend'."""

    def __init__(self, url: str, name: str, code: str | None,
                 make: LinkMaker = ServerLink, clock: TimeControl | None = None) -> None:
        """Connect (in the background) and join `code`'s game, or open a challenge
        (with the time control `clock`, or none).

        Raises:
            BotError: `url` is no server address.
        """
        self.url, self.name_, self.code = url, name, code
        self._make = make
        self.asked = clock
        """The time control this side's challenge asks for (None: no clock)."""
        first: dict[str, Any] = {"type": "join", "code": code} if code else {
            "type": "create", "opponent": "open", "color": "random",
            **({"clock": clock.to_doc()} if clock is not None else {})}
        self.link = make(url, name, first, "")
        self.local: PColor | None = None
        self.game: BotGame | None = None
        self.rated = False
        self._resigned = False
        """Whether this side sent its resignation."""
        self._result: MatchResult | None = None
        self._failed: str | None = None
        self._notice: Notice | None = None
        self._started = False
        self._turn, self._spent = -1, 0.0
        self.clock: tuple[int, int] | None = None
        """White's and Red's milliseconds as the server last told them (None: no clock)."""
        self.control: TimeControl | None = None
        """The game's time control, as the server tells it (None: no clock, or not told)."""
        self._clock_at = time.monotonic()
        self.offers: dict[str, PColor] = {}
        """The offers standing, by what is offered: who offers it."""
        self._said: set[str] = set()
        """What this side offered or accepted since the last move."""
        self.declined: set[str] = set()
        """This side's offers the other declined since the last move (the server
        takes them again only after the next move)."""
        self.away: Away | None = None
        self.games = 1
        """Games played at this table (a rematch is the next)."""
        self.join_code = ""
        """The code of this side's challenge while it waits ('' until the server
        tells it, or when joining): a friend can take the seat with it."""

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

    def waiting(self) -> WaitScreen:
        where = self.url  # as the online picker takes it, for a friend to type
        if self.code:
            return WaitScreen("Joining a game", (("Server", where), ("Join code", self.code)),
                              "Waiting for the server\u2026")
        code = (("Join code", self.join_code),) if self.join_code else ()
        return WaitScreen("Seeking an opponent", (("Server", where), *code),
                          "Waiting for someone to accept your challenge\u2026" if code
                          else "Sending your challenge\u2026",
                          f"Your challenge ({control_words(self.control or self.asked)}) is in "
                          "the lobby; a friend can join with the code.")

    def name(self, color: PColor) -> str:
        assert self.game is not None
        return self.game.state.white if color is PColor.WHITE else self.game.state.red

    def is_human(self, color: PColor) -> bool:
        return True  # the server's open games are between people (its AI says "AI" in its name)

    @property
    def playing(self) -> bool:
        """Whether the game is being played (begun, not over, not failed here)."""
        game = self.game
        return (self._started and game is not None and self._result is None
                and self._failed is None and not game.over)

    @property
    def awaiting_human(self) -> bool:
        game = self.game
        return self.playing and game is not None and game.my_turn and game.sent is None

    @property
    def notice(self) -> Notice | None:
        return self._notice if self._result is None else None

    @property
    def result(self) -> MatchResult | None:
        return self._result

    @property
    def failed(self) -> str | None:
        return self._failed

    # ------------------------------------------------------------ clocks
    @property
    def running(self) -> PColor | None:
        """The side whose clock runs now (None: no clock runs)."""
        game = self.game
        return game.board.turn if game is not None and self.clock is not None \
            and self.playing else None

    def clock_ms(self, color: PColor) -> int | None:
        """`color`'s milliseconds left now (None: a game without clocks)."""
        if self.clock is None:
            return None
        left = self.clock[color]
        if color is self.running:
            left -= round((time.monotonic() - self._clock_at) * 1000)
        return max(0, left)

    def _set_clock(self, doc: dict[str, Any]) -> None:
        told = clock_of(doc)
        if told is not None or doc.get("type") == "game":
            self.clock, self._clock_at = told, time.monotonic()

    # ------------------------------------------------------------ offers
    def can_offer(self, what: str) -> bool:
        """Whether this side may offer (or accept) `what` now."""
        theirs = self.offered_by_them(what)
        if what == "rematch":
            return self._result is not None and self._failed is None and "rematch" not in self._said
        if not self.playing or self.local is None or self.offers.get(what) is self.local \
                or what in self.declined:
            return False
        if what == "takeback":
            return not self.rated and (theirs or takeback_plies(self.local, self.board.turn)
                                       <= self.board.move_count)
        return True

    def offered_by_them(self, what: str) -> bool:
        """Whether the other side offers `what` (this side's same message accepts)."""
        return self.local is not None and self.offers.get(what) is self.local.other

    def offered_by_me(self, what: str) -> bool:
        """Whether this side's offer of `what` stands (waiting for the answer)."""
        return self.local is not None and self.offers.get(what) is self.local

    def offer(self, what: str) -> None:
        """Offer (or accept) a draw, a takeback or a rematch."""
        if what in OFFERS and self.can_offer(what) and self.game is not None:
            self._said.add(what)
            self.link.send({"type": what, "game": self.game.state.game})

    def declinable(self) -> tuple[str, ...]:
        """What the other side offers or asks now that this side may decline."""
        return tuple(what for what in OFFERS if self.offered_by_them(what)
                     and (self._result is None) is (what != "rematch") and self._failed is None)

    def decline(self) -> None:
        """Decline every offer and ask of the other side standing (the server says so to both)."""
        for what in self.declinable():
            assert self.game is not None
            self.link.send({"type": what, "game": self.game.state.game, "decline": True})

    def away_left(self) -> tuple[PColor, float, float] | None:
        """The side that left, its seconds to come back, and the seconds before the
        win may be claimed (None: nobody is away, or the game is not being played)."""
        away = self.away
        if away is None or not self.playing:
            return None
        now = time.monotonic()
        return away.color, max(0.0, away.until - now), max(0.0, away.claim_at - now)

    @property
    def can_claim(self) -> bool:
        """Whether the opponent left long enough ago for the win to be claimed."""
        away = self.away
        return (self.playing and away is not None and away.color is not self.local
                and time.monotonic() >= away.claim_at)

    def claim(self) -> None:
        """Claim the win over an opponent who left (the server judges)."""
        if self.can_claim and self.game is not None:
            self.link.send({"type": "claim", "game": self.game.state.game})

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
        return self.playing and self.local is not None

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
        if kind == "error":
            if game is None:
                self._failed = f"The server refused: {doc['message']}"
            return [f"Server: {doc['message']}"]
        if kind == "closed":
            return self._on_closed(doc["message"])
        if game is None or doc.get("game") != game.state.game:
            return []  # another game's news (the one before a rematch)
        if kind == "played":
            return self._on_played(doc, game)
        if kind == "result":
            return self._on_result(doc, game)
        if kind == "offer":
            return self._on_offer(doc["what"], _COLORS[doc["color"]])
        if kind == "declined":
            return self._on_declined(doc["what"], _COLORS[doc["color"]])
        if kind == "away":
            return self._on_away(doc)
        if kind == "aborted" and self._result is None:
            self._failed = f"No game: {doc['reason']}"
            self._notice = Notice("The game ended without a result", doc["reason"],
                                  (Action.HOME,))
            return [self._failed]
        return []

    def _on_played(self, doc: dict[str, Any], game: BotGame) -> list[Happening]:
        color = game.board.turn
        game.played(doc["ply"], doc["col"], SHAPES[doc["shape"]])
        self._set_clock(doc)
        self.offers.clear()  # an offer stands until the next move
        self._said.clear()
        self.declined.clear()
        move = game.board.history[-1]
        events: list[Happening] = [MovePerformed(color, self.name(color), move,
                                                 float(doc["ms"]) / 1000),
                                   BoardUpdated(game.board.copy())]
        if not game.over:
            events.append(NextTurn(color.other, self.name(color.other), True))
        return events

    def _on_result(self, doc: dict[str, Any], game: BotGame) -> list[Happening]:
        result, config = result_from_doc(doc["result"])
        if is_agreed_draw(result, game.board):
            check_names_and_settings(result, config, (game.state.white, game.state.red),
                                     game.state.config)
            check_agreed_draw(game.board, result, "draw" in self._said)
        elif not self._own_resignation(result, game):
            game.check_result(doc["result"])  # BotGame knows of no resignation of its own
        self._result = result
        self._set_clock(doc)
        self.away = None
        self._said.clear()
        self.offers = {k: v for k, v in self.offers.items() if k == "rematch"}
        events: list[Happening] = []
        loser = result.winner.color.other if result.winner.color is not None else None
        if result.forfeit is not None and loser is not None:
            events.append(InvalidPlay(loser, self.name(loser), result.forfeit, result.detail))
        return [*events, MatchOver(result)]

    def _on_offer(self, what: str, color: PColor) -> list[Happening]:
        self.offers[what] = color
        if color is self.local:
            return [f"You offer {_OFFERED[what]}; waiting for {self.name(color.other)}'s answer"]
        return [f"{self.name(color)} offers {_OFFERED[what]}: {_ACCEPT[what]} accepts it, "
                f"{SERVER_KEYS.names('decline')} (Decline) declines it"]

    def _on_declined(self, what: str, color: PColor) -> list[Happening]:
        """`color` declined the other side's `what`: it stands no more (and an
        offer of this side's declined no longer counts as said)."""
        if self.offers.get(what) is color.other:
            del self.offers[what]
        if color is self.local:
            return [f"You declined {_DECLINED[what]}"]
        self._said.discard(what)
        if what == "rematch":  # asked again at will
            return [f"{self.name(color)} declined {_DECLINED[what]}"]
        self.declined.add(what)
        return [f"{self.name(color)} declined {_DECLINED[what]}: ask again after the next move"]

    def _on_away(self, doc: dict[str, Any]) -> list[Happening]:
        color = _COLORS[doc["color"]]
        if doc["seconds"] is None:
            self.away = None
            return [f"{self.name(color)} is back"] if color is not self.local else []
        now = time.monotonic()
        claim = doc.get("claim")
        self.away = Away(color, now + float(doc["seconds"]),
                         now + float(claim if claim is not None else doc["seconds"]))
        if color is self.local:
            return []
        return [f"{self.name(color)} left the game: {float(doc['seconds']):.0f} s to come "
                "back before losing it"]

    def _on_closed(self, message: str) -> list[Happening]:
        if self._result is not None or self._failed is not None:
            return []
        if self.game is None:
            self._failed = message
            return [message]
        self._notice = Notice("Connection lost", message, (Action.RECONNECT, Action.HOME))
        return [f"Connection lost ({message})"]

    def _on_game(self, doc: dict[str, Any]) -> list[Happening]:
        state = game_state(doc)
        if state.color is None:
            return []
        game = self.game
        if game is not None and state.game != game.state.game:
            self._check_rematch(state, game)
            game = None
            self.games += 1
        back = game is not None and len(state.moves) < game.board.move_count
        if game is None:
            self._new_game(state)
        elif back:
            self._take_back(state, game)
        else:
            game.resume(state)
        assert self.game is not None
        self.rated = doc.get("rated") is True
        self.control = state.control
        self._set_clock(doc)
        self._notice = None
        if back:
            turn = self.game.board.turn
            return [BoardUpdated(self.game.board.copy()),
                    f"Moves taken back, as both agreed: {self.name(turn)} to play move "
                    f"{self.game.board.move_count + 1}", NextTurn(turn, self.name(turn), True)]
        if not (state.white and state.red):
            self.join_code = state.code
            return [f"Your challenge is in the lobby of {self.url}; a friend can also join "
                    f"it with the code {state.code}"]
        if self._started:
            return [BoardUpdated(self.game.board.copy()),
                    f"Connected again; {game_clock_text(self.control, self.clock)}"]
        self._started = True
        turn = self.game.board.turn
        return [f"The server's game: {settings_text(state.config, not state.between_people)}; "
                f"{game_clock_text(self.control, self.clock)}; "
                f"you play {state.color}",
                MatchStarted(state.config, state.white, state.red),
                BoardUpdated(self.game.board.copy()),
                NextTurn(turn, self.name(turn), True)]

    def _new_game(self, state: GameState) -> None:
        self.game, self.local = BotGame(state), state.color
        self._result, self._resigned, self._started = None, False, False
        self.offers, self._said, self.away, self.declined = {}, set(), None, set()

    def _check_rematch(self, state: GameState, game: BotGame) -> None:
        """Another game while this one is over: the rematch this side asked for,
        its colours swapped.

        Raises:
            Contradiction: it is none.
        """
        old = game.state
        if self._result is None or "rematch" not in self._said:
            raise Contradiction(f"another game ({state.game}) where no rematch was asked")
        if (state.white, state.red) != (old.red, old.white) or state.color is not \
                (old.color.other if old.color is not None else None) \
                or state.config != old.config or state.moves:
            raise Contradiction("a rematch that is not this game again with the colours swapped")

    def _take_back(self, state: GameState, game: BotGame) -> None:
        """The game with fewer moves: a takeback both sides agreed (checked)."""
        theirs = [(c, int(s)) for c, s, _ in state.moves]
        check_takeback(game.board.history, theirs, self.offers.get("takeback"),
                       game.board.turn, "takeback" in self._said)
        if state.config != game.state.config or state.color != game.state.color:
            raise Contradiction("a takeback that changed the game's settings")
        self.game = BotGame(state)
        self.offers.clear()
        self._said.clear()
        self.declined.clear()

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


_OFFERED = {"draw": "a draw", "takeback": "to take back a move", "rematch": "a rematch"}
_DECLINED = {"draw": "the draw", "takeback": "the takeback", "rematch": "the rematch"}
_ACCEPT = {what: f"{SERVER_KEYS.names(what)} (Accept {what})" for what in OFFERS}
"""How the log says an offer is accepted: its keys (gui/keys.py) and its button."""
