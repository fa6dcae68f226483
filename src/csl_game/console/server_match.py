"""``match --connect URL``: a game on a game server, played from the terminal.

This side is a person typing moves, or a thinker (-W or -R) run in a worker
process here, as in a local match. With ``--code`` it takes the free seat of
that game; without, it opens a challenge in the server's lobby (the colour
-W/-R chose, else either) and waits for someone to accept it. As with direct
play, it trusts nothing the server says that its own board contradicts
(csl_game.server.BotGame): an illegal or unexpected move, a move of its own
it did not send, or a result the board does not show ends the game here.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import threading
from typing import Any, TextIO

import aiohttp

from csl_game.console.human import move_prompt, try_move
from csl_game.console.render import render_board
from csl_game.engine import explain
from csl_game.errors import InputEnded, InvalidMoveError, NetworkError
from csl_game.model.board import Board, PColor, PShape
from csl_game.server import Answer, BotError, BotGame, SeatThinker, decode_event, ws_url
from csl_game.server.game import SHAPES
from csl_game.server.messages import VERSION, game_state
from csl_game.services.narration import terminal_safe
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_server_match"]


class _Seat:
    """This side's seat as console.human sees it: the board, names, a move to submit."""

    def __init__(self, game: BotGame) -> None:
        self.game = game
        self.chosen: tuple[int, PShape] | None = None

    @property
    def board(self) -> Board:
        return self.game.board

    def name(self, color: PColor) -> str:
        return self.game.state.white if color is PColor.WHITE else self.game.state.red

    def submit_move(self, col: int, shape: PShape) -> None:
        problem = self.board.move_problem(shape, col)
        if problem is not None:
            raise InvalidMoveError(explain(problem, self.board), problem)
        self.chosen = (col, shape)


class _Lines:
    """The terminal's lines, read on a daemon thread (None once input ended)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = loop
        threading.Thread(target=self._read, daemon=True, name="csl-stdin").start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._loop.call_soon_threadsafe(self.queue.put_nowait, line)
        self._loop.call_soon_threadsafe(self.queue.put_nowait, None)


class _Console:
    def __init__(self, url: str, code: str | None, color: PColor | None,
                 thinker: str | None, params: str, paths: tuple[str, ...],
                 out: TextIO, in_process: bool = False) -> None:
        self.url, self.code, self.color = url, code, color
        self.in_process = in_process
        self.thinker, self.params, self.paths, self.out = thinker, params, paths, out
        self.name = (ThinkerPrototype(thinker, params, paths=paths).default_name
                     if thinker else "Console")[:40]
        self.game: BotGame | None = None
        self.thinker_seat: SeatThinker | None = None
        self.lines: _Lines | None = None
        self.moving: asyncio.Task[None] | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None

    def say(self, text: str) -> None:
        print(terminal_safe(text), file=self.out, flush=True)

    async def send(self, **doc: Any) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(doc))

    async def run(self) -> dict[str, Any]:
        cookie = secrets.token_urlsafe(24)  # who this side is, for a reconnect
        async with aiohttp.ClientSession() as http, http.ws_connect(
                ws_url(self.url), headers={"Cookie": f"csl_session={cookie}"},
                heartbeat=30.0) as ws:
            self.ws = ws
            await self.send(type="hello", version=VERSION, name=self.name)
            if self.code:
                await self.send(type="join", code=self.code)
            else:
                await self.send(type="create", opponent="open", color=(
                    "random" if self.color is None else self.color.name.lower()))
            async for msg in ws:
                if msg.type is not aiohttp.WSMsgType.TEXT:
                    break
                result = await self.on_message(msg.data)
                if result is not None:
                    return result
        raise NetworkError(f"the server at {self.url} closed the connection")

    async def on_message(self, text: str) -> dict[str, Any] | None:
        kind, doc = decode_event(text)
        if kind == "error":
            if self.game is None:
                raise BotError(f"the server refused: {doc['message']}")
            self.say(f"server: {doc['message']}")
        elif kind == "ping":
            await self.send(type="pong")
        elif kind == "game":
            self.on_game(doc)
        elif kind == "played" and self.game is not None and doc["game"] == self.game.state.game:
            self.game.played(doc["ply"], doc["col"], SHAPES[doc["shape"]])
            self.say(render_board(self.game.board))
        elif kind == "result" and self.game is not None and doc["game"] == self.game.state.game:
            self.game.check_result(doc["result"])
            return dict(doc["result"])
        self.move_if_due()
        return None

    def on_game(self, doc: dict[str, Any]) -> None:
        state = game_state(doc)
        if state.color is None:
            return
        if self.game is None:
            self.game = BotGame(state)
        else:
            self.game.resume(state)
        if not (state.white and state.red):
            self.say(f"Waiting for an opponent: they accept the challenge in the lobby at "
                     f"{self.url}, or join with: csl-game match --connect {self.url} "
                     f"--code {state.code}")
            return
        self.say(f"{state.white} (White) - {state.red} (Red); you play "
                 f"{state.color.name.lower()}")
        self.say(render_board(self.game.board))

    def move_if_due(self) -> None:
        game = self.game
        if game is None or not (game.state.white and game.state.red) or not game.my_turn \
                or game.sent is not None or (self.moving and not self.moving.done()):
            return
        self.moving = asyncio.create_task(self.move(game))

    async def move(self, game: BotGame) -> None:
        ply = game.board.move_count
        answer: Answer
        if self.thinker:
            if self.thinker_seat is None:
                self.thinker_seat = SeatThinker(ThinkerPrototype(
                    self.thinker, self.params, game.state.config, self.paths), self.in_process)
            answer = await self.thinker_seat.answer(game.board)
        else:
            answer = (*await self.ask(game), 0.0)
        await self.send(**game.answered(ply, answer))

    async def ask(self, game: BotGame) -> tuple[int, PShape]:
        if self.lines is None:
            self.lines = _Lines(asyncio.get_running_loop())
        seat = _Seat(game)
        prompt, default = move_prompt(seat)
        while seat.chosen is None:
            print(prompt, end="", file=self.out, flush=True)
            line = await self.lines.queue.get()
            if line is None:
                raise InputEnded("input ended before the game did")
            refusal = try_move(seat, line, default)
            if refusal is not None:
                self.say(refusal)
        return seat.chosen

    def close(self) -> None:
        if self.moving is not None:
            self.moving.cancel()
        if self.thinker_seat is not None:
            self.thinker_seat.close()


def run_server_match(url: str, code: str | None, color: PColor | None, thinker: str | None,
                     params: str, paths: tuple[str, ...], json_out: bool,
                     in_process: bool = False) -> int:
    """Play one game on the server at `url`; 0 when it ended (whoever won).

    Raises:
        BotError: the server refused, or contradicted this side's board.
        NetworkError: the server closed the connection before the end.
        InputEnded: the terminal's input ended while a person was to move.
    """
    out = sys.stderr if json_out else sys.stdout
    console = _Console(url, code, color, thinker, params, paths, out, in_process)
    try:
        result = asyncio.run(console.run())
    except (aiohttp.ClientError, OSError) as e:
        raise NetworkError(f"cannot reach the server at {url}: {e}") from None
    finally:
        console.close()
    winner = result.get("winner")
    said = "a draw" if winner == "draw" else f"{winner} ({result.get('winner_name')}) won"
    why = f": {result['forfeit'].replace('_', ' ')}" if result.get("forfeit") else ""
    print(terminal_safe(f"Game over: {said}{why}"), file=out, flush=True)
    if json_out:
        print(json.dumps(result))
    return 0
