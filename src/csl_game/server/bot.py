"""A bot: a thinker on its owner's machine, playing the server's ladder.

`run_bot` connects to the server's WebSocket, says who it is (registering
where the server lets it, the token then saved in the owner's data folder),
and plays every game the server pairs it in: each game's thinker runs in a
worker process of its own, as in a local match, and its answer is judged
here before it is sent (csl_game.server.thinking, as the server's AI and
the console do). The bot trusts nothing the
server says that its own board contradicts (`BotGame`): every move must be
the one due and legal, its own moves the ones it sent, a resumed game must
extend the game it had, and a result must agree with the board
(csl_game.online.verify's checks, as a joiner checks a host). A dropped
connection is tried again (1, 2, 4, 8, 8 ... s) until `stop` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from csl_game.engine import Forfeit, ForfeitReason, MatchResult, SetupProbe, worker_pool
from csl_game.errors import CslError, ProtocolError
from csl_game.model.board import Board, PColor, PShape, Winner
from csl_game.online.protocol import result_from_doc
from csl_game.online.verify import Contradiction, check_ending, check_names_and_settings
from csl_game.server.clock import could_still_win
from csl_game.server.game import SHAPES
from csl_game.server.messages import VERSION, GameState, decode_event, game_state
from csl_game.server.thinking import Answer, SeatThinker, answer_doc
from csl_game.services.userdata import user_dir
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["BotSpec", "BotGame", "BotError", "run_bot", "saved_token", "ws_url"]

log = logging.getLogger(__name__)
TOKENS = "server-tokens.json"


class BotError(CslError):
    """The server refused the bot, or said something its board contradicts."""


@dataclass(frozen=True)
class BotSpec:
    url: str
    thinker: str
    params: str = ""
    name: str = ""
    token: str = ""
    games: int = 1
    paths: tuple[str, ...] = ()
    in_process: bool = False
    """Think on a thread of this process (for debugging a thinker), not in a worker."""


def ws_url(url: str) -> str:
    """The WebSocket address of the server at `url` (http -> ws, https -> wss).

    Raises:
        BotError: `url` is no http(s) or ws(s) address.
    """
    for web, sock in (("http://", "ws://"), ("https://", "wss://"), ("ws://", "ws://"),
                      ("wss://", "wss://")):
        if url.startswith(web):
            rest = url[len(web):].rstrip("/")
            if not rest or "/" in rest.split("?")[0].removesuffix("/ws"):
                break
            return sock + rest.removesuffix("/ws") + "/ws"
    raise BotError(f"{url!r} is no server address (http://host:port or https://host)")


def _tokens_file() -> Path:
    return user_dir() / TOKENS


def saved_token(url: str, name: str) -> str:
    try:
        doc = json.loads(_tokens_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    token = doc.get(f"{ws_url(url)} {name}") if isinstance(doc, dict) else None
    return token if isinstance(token, str) else ""


def _save_token(url: str, name: str, token: str) -> None:
    """Add the token to the owner's file. Several bots of one owner may register
    at once: each takes the file's lock (a folder beside it, made atomically on
    every system) to read, add and write, and the file is replaced whole, so
    no token is lost and no reader sees half a file."""
    path = _tokens_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + 10
    while True:
        try:
            lock.mkdir()
            break
        except FileExistsError:
            with contextlib.suppress(OSError):  # a lock left by a bot that was killed
                if time.time() - lock.stat().st_mtime > 30:
                    lock.rmdir()
                    continue
            if time.monotonic() > deadline:
                raise BotError(f"{lock} is held by another bot for over 10 s; "
                               "remove it if no bot is starting") from None
            time.sleep(0.02)
    try:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            doc = doc if isinstance(doc, dict) else {}
        except (OSError, ValueError):
            doc = {}
        doc[f"{ws_url(url)} {name}"] = token
        temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
        os.replace(temp, path)
    finally:
        with contextlib.suppress(OSError):
            lock.rmdir()


@dataclass
class BotGame:
    """One game the bot plays, checked against its own board."""

    state: GameState
    board: Board = field(init=False)
    sent: tuple[int, PShape] | None = None
    reported: dict[int, ForfeitReason] = field(default_factory=dict)
    """This side's forfeits, by ply (its thinker failed here)."""
    thinker: SeatThinker | None = None
    thinking: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.board = self.state.config.new_board()
        for col, shape, _ in self.state.moves:
            self._put(col, shape)

    def _put(self, col: int, shape: PShape) -> None:
        if self.board.move_problem(shape, col) is not None:
            raise BotError(f"game {self.state.game}: the server played an illegal move "
                           f"(column {col}, {shape.name.lower()}) at move {self.board.move_count}")
        self.board.do_move(shape, col)

    def resume(self, state: GameState) -> None:
        """The server's game again (after a reconnect): it must extend ours."""
        ours = [(m.col, m.piece.shape) for m in self.board.history]
        theirs = [(c, s) for c, s, _ in state.moves]
        if theirs[:len(ours)] != ours:
            raise BotError(f"game {state.game}: the server's moves are not the game played")
        if state.config != self.state.config or state.color != self.state.color:
            raise BotError(f"game {state.game}: the server changed the game's settings")
        for col, shape in theirs[self.board.move_count:]:
            self._put(col, shape)
        self.state = state
        self.sent = None  # a move sent before the loss was either played or is asked again

    @property
    def my_turn(self) -> bool:
        return self.state.color is self.board.turn and not self.over

    @property
    def over(self) -> bool:
        return self.board.check_winner() is not Winner.NONE

    def played(self, ply: int, col: int, shape: PShape) -> None:
        if ply != self.board.move_count:
            raise BotError(f"game {self.state.game}: move {ply} came at move "
                           f"{self.board.move_count}")
        if self.board.turn is self.state.color and self.sent != (col, shape):
            raise BotError(f"game {self.state.game}: the server played a move for this bot "
                           "that it did not send")
        self._put(col, shape)
        self.sent = None

    def answered(self, ply: int, answer: Answer) -> dict[str, Any]:
        """This side answers move `ply` (a move, or its thinker's forfeit): the
        message to send, and what a later result is checked against."""
        if isinstance(answer, Forfeit):
            self.reported[ply] = answer.reason
        else:
            self.sent = answer[:2]
        return answer_doc(self.state.game, ply, answer)

    def check_result(self, doc: dict[str, Any]) -> None:
        """The game's result agrees with the board (csl_game.online.verify, as a
        joiner checks a host): its players and settings, its moves the ones
        played, a win on the board with its line, a draw on a finished board,
        or a loss off the board its loser could come to: this side resigns
        never and forfeits only by time, by leaving, or as it said; a thinker
        fails only on its own turn.

        Raises:
            BotError: it does not agree.
        """
        try:
            result, config = result_from_doc(doc)
            check_names_and_settings(result, config, (self.state.white, self.state.red),
                                     self.state.config)
            if self._drawn_on_time(result):
                return
            loser = check_ending(self.board, result)
            if loser is not None:
                self._check_loser(loser, result.forfeit, result.resigned)
        except ProtocolError as e:  # a Contradiction is one
            raise BotError(f"game {self.state.game}: the result does not agree with the "
                           f"game: {e}") from None

    def _drawn_on_time(self, result: MatchResult) -> bool:
        """A draw on time (csl_game.server.clock): the side to move ran out of
        time and the other could no longer win; False for any other result.

        Raises:
            Contradiction: a draw on time the board does not allow.
        """
        if result.winner is not Winner.DRAW or result.forfeit is not ForfeitReason.TIMEOUT:
            return False
        if tuple(m.move for m in result.moves) != self.board.history:
            raise Contradiction("a draw on time whose moves are not the game played")
        if self.board.check_winner() is not Winner.NONE \
                or could_still_win(self.board, self.board.turn.other):
            raise Contradiction(f"a draw on time, where {self.board.turn.other} could still "
                                "win or the game was over")
        return True

    def _check_loser(self, loser: PColor, reason: ForfeitReason | None,
                     resigned: bool) -> None:
        mine = self.state.color
        if resigned or reason is None:
            if loser is mine:
                raise Contradiction(f"a resignation of {loser}, this side, which did not "
                                    "resign")
            return
        if reason is ForfeitReason.DISCONNECTED:
            return
        said = reason.name.lower()
        if self.board.turn is not loser:
            raise Contradiction(f"a forfeit of {loser} ({said}) when {self.board.turn} "
                                "was to move")
        if loser is mine and reason is not ForfeitReason.TIMEOUT \
                and self.reported.get(self.board.move_count) is not reason:
            raise Contradiction(f"a forfeit of {loser}, this side ({said}), that it never "
                                "reported")


class _Bot:
    def __init__(self, spec: BotSpec, say: Callable[[str], None]) -> None:
        self.spec = spec
        self.say = say
        self.name = spec.name or ThinkerPrototype(spec.thinker, spec.params,
                                                  paths=spec.paths).default_name
        self.token = spec.token or saved_token(spec.url, self.name)
        self.games: dict[str, BotGame] = {}
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.welcomed = False
        self.pool = None if spec.in_process else worker_pool()
        """Warm workers of the thinker (`warm`), and those of games that ended."""

    async def warm(self, stop: asyncio.Event) -> None:
        """Before the bot connects (so before the server pairs it): start a
        worker a game it plays at once, each setting the thinker up and then
        waiting in the pool, so that a game's first move waits for no process
        to start (a busy machine stretches that to seconds of the server's
        clock, and once it was past the grace). Ends early when `stop` is set."""
        if self.pool is None:
            return
        pool, prototype = self.pool, ThinkerPrototype(self.spec.thinker, self.spec.params,
                                                      paths=self.spec.paths)

        def set_up() -> None:
            probes = [SetupProbe(prototype, pool=pool) for _ in range(self.spec.games)]
            for probe in probes:
                probe.wait(60)
                probe.close()

        warming: asyncio.Future[Any] = asyncio.get_running_loop().run_in_executor(None, set_up)
        stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        await asyncio.wait({warming, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()

    async def send(self, doc: dict[str, Any]) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.send_str(json.dumps(doc, separators=(",", ":")))

    async def session(self, http: aiohttp.ClientSession) -> None:
        async with http.ws_connect(ws_url(self.spec.url), max_msg_size=1 << 20,
                                   heartbeat=30.0) as ws:
            self.ws = ws
            await self.send({"type": "bot", "version": VERSION, "name": self.name,
                             "token": self.token, "games": self.spec.games})
            async for msg in ws:
                if msg.type is not aiohttp.WSMsgType.TEXT:
                    break
                await self.on_message(msg.data)

    async def on_message(self, text: str) -> None:
        try:
            kind, doc = decode_event(text)
        except ProtocolError as e:
            raise BotError(f"the server sent a message that is none: {e}") from None
        if kind == "error":
            if not self.welcomed:
                raise BotError(f"the server refused the bot: {doc['message']}")
            self.say(f"server: {doc['message']}")
        elif kind == "welcome":
            self.welcomed = True
            if "token" in doc:
                self.token = str(doc["token"])
                _save_token(self.spec.url, self.name, self.token)
                self.say(f"registered as {self.name}; its token is saved in {_tokens_file()}")
            self.say(f"connected to {self.spec.url} as {self.name}")
        elif kind == "ping":
            await self.send({"type": "pong"})
        elif kind == "game":
            await self.on_game(game_state(doc))
        elif kind == "played":
            game = self.games.get(doc["game"])
            if game is not None:
                game.played(doc["ply"], doc["col"], SHAPES[doc["shape"]])
                self.think_if_due(game)
        elif kind == "result":
            game = self.games.pop(doc["game"], None)
            if game is not None:
                game.check_result(doc["result"])
                self.end(game)
                r = doc["result"]
                self.say(f"{r.get('white')} - {r.get('red')}: {r.get('winner')}"
                         + (f" ({r['forfeit']})" if r.get("forfeit") else ""))

    async def on_game(self, state: GameState) -> None:
        if state.color is None:
            return
        game = self.games.get(state.game)
        if game is None:
            game = self.games[state.game] = BotGame(state)
            self.say(f"game {state.game}: {state.white} - {state.red}")
        else:
            game.resume(state)
        if game.thinker is None:  # started now, its worker ready before its first turn
            game.thinker = SeatThinker(ThinkerPrototype(
                self.spec.thinker, self.spec.params, game.state.config, self.spec.paths),
                self.spec.in_process, pool=self.pool)
            game.thinker.start()
        self.think_if_due(game)

    def think_if_due(self, game: BotGame) -> None:
        if game.my_turn and game.sent is None and (game.thinking is None or
                                                   game.thinking.done()):
            game.thinking = asyncio.create_task(self.think(game))

    async def think(self, game: BotGame) -> None:
        if game.thinker is None:
            return
        ply = game.board.move_count
        answer = await game.thinker.answer(game.board)
        if self.games.get(game.state.game) is not game or game.board.move_count != ply:
            return
        if isinstance(answer, Forfeit):  # the whole of it here; the server gets its last line
            self.say(f"game {game.state.game}: the thinker {answer.reason.value}: "
                     f"{answer.detail}")
        await self.send(game.answered(ply, answer))

    def end(self, game: BotGame) -> None:
        if game.thinking is not None:
            game.thinking.cancel()
        if game.thinker is not None:
            game.thinker.close_later()

    def pause(self) -> None:
        """The connection is gone: stop thinking, keep the boards (a reconnect's
        games must extend them)."""
        for game in self.games.values():
            self.end(game)
            game.thinker, game.thinking = None, None

    def close_all(self) -> None:
        self.pause()
        self.games.clear()


async def run_bot(spec: BotSpec, stop: asyncio.Event | None = None,
                  say: Callable[[str], None] = print) -> None:
    """Play the server's games until `stop` is set (or forever).

    Raises:
        BotError: the server refused the bot, or contradicted its board.
    """
    bot = _Bot(spec, say)
    stop = stop or asyncio.Event()
    delay = 0.0
    await bot.warm(stop)
    async with aiohttp.ClientSession() as http:
        while not stop.is_set():
            try:
                session = asyncio.create_task(bot.session(http))
                stopping = asyncio.create_task(stop.wait())
                await asyncio.wait({session, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not session.done():
                    session.cancel()
                    break
                session.result()
                delay = 0.0 if bot.welcomed else delay
            except (TimeoutError, aiohttp.ClientError, OSError) as e:
                say(f"cannot reach {spec.url} ({e.__class__.__name__}); trying again")
            finally:
                bot.pause()
            bot.welcomed = False
            delay = min(8.0, max(1.0, delay * 2))
            try:
                await asyncio.wait_for(stop.wait(), delay)
            except TimeoutError:
                pass
        bot.close_all()
        if bot.pool is not None:
            await asyncio.to_thread(bot.pool.close)
