"""The server's heart: connected clients, live games, the ladder and the database.

The `Hub` runs on the event loop. The web layer (csl_game.server.web) hands
it each client's decoded requests; it answers by putting text on the
client's bounded outbox, which a writer task drains, so a client that reads
slowly loses its connection instead of holding anyone up. Database writes go
to one thread of their own, in order. A ticker enforces the clocks, ends the
games of players gone too long, pairs the bots and sends the lobby.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import random
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from csl_game.engine import ForfeitReason
from csl_game.errors import ProtocolError
from csl_game.model.board import PColor
from csl_game.online.protocol import config_from_doc, config_json, result_from_doc, result_json
from csl_game.server.ai import AiPlayers
from csl_game.server.analysis import Analyses
from csl_game.server.game import Rejected, ServerGame
from csl_game.server.guard import Limits
from csl_game.server.ladder import Ladder
from csl_game.server.messages import (
    BotHello,
    Create,
    Forfeit,
    Hello,
    Join,
    Lobby,
    Move,
    Pong,
    Request,
    Resign,
    Watch,
    decode_request,
    encode,
)
from csl_game.server.seats import Client, LiveGame, ServerOptions
from csl_game.server.store import GameRow, Store

__all__ = ["Hub", "Client", "ServerOptions", "LiveGame", "hash_token", "new_token",
           "game_settings"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def new_token() -> str:
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """A token as the database keeps it (SHA-256: tokens are random, so no salt is needed)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Hub:
    """Every live game and connection of one server process."""

    def __init__(self, store: Store, options: ServerOptions) -> None:
        self.store = store
        self.options = options
        self.games: dict[str, LiveGame] = {}
        self.codes: dict[str, str] = {}
        self.bots: dict[str, Client] = {}
        self.clients: set[Client] = set()
        self.ladder = Ladder()
        self.ai = AiPlayers(options.max_ai_games, options.max_ai_thinking)
        self.analyses = Analyses(store, self.db, options.analysis_ms)
        self._db_thread = ThreadPoolExecutor(1, thread_name_prefix="csl-db")
        self._lobby_dirty = True
        self._known_bots: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._clock = time.monotonic

    @property
    def limits(self) -> Limits:
        return self.options.limits

    # ------------------------------------------------------------ life
    async def db(self, call: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._db_thread, call, *args)

    def _db_later(self, call: Callable[..., Any], *args: Any) -> None:
        """A write that must happen, in order, without waiting for it here."""
        self._db_thread.submit(call, *args)

    async def start(self) -> None:
        """Read the ladder and the games in progress back from the database."""
        self._known_bots = set(await self.db(self.store.bots))
        for row in await self.db(self.store.games, "over", "ladder"):
            if row.result is not None:
                result, _ = result_from_doc(row.result)
                self.ladder.add(row.white, row.red, result, count=True)
        now = self._clock()
        for row in await self.db(self.store.games, "playing"):
            self._resume(row, now)

    def _resume(self, row: GameRow, now: float) -> None:
        config = config_from_doc({"settings": game_settings(row.settings)})
        seats = _seats_of(row)
        game = ServerGame(row.id, config, [row.white, row.red],
                          (not seats[0].startswith("web:"), not seats[1].startswith("web:")),
                          self.options.grace_ms / 1000, ServerGame.moves_from_json(row.moves))
        live = LiveGame(game, row.kind, _code_of(row), seats, created=row.created)
        live.gone = [now if s and not s.startswith("ai:") else None for s in seats]
        self.games[row.id] = live
        self.codes[live.code] = row.id
        if row.kind == "ladder":
            self.ladder.started(row.white, row.red)
        for seat in seats:
            if seat.startswith("ai:"):
                self.ai.add(game, seat[3:])
        if live.started and seats[game.to_move].startswith("ai:"):
            self._ai_turn(live)

    async def run(self) -> None:
        """The ticker: clocks, absent players, pairing, pings and the lobby."""
        last_pair = last_ping = last_lobby = 0.0
        analysing = asyncio.create_task(self.analyses.run())
        self._tasks.add(analysing)
        while True:
            await asyncio.sleep(self.options.tick_s)
            now = self._clock()
            for live in list(self.games.values()):
                self._check_clocks(live, now)
            if now - last_pair >= self.options.pair_every_s:
                last_pair = now
                self._pair()
            if now - last_ping >= self.options.ping_every_s:
                last_ping = now
                ping = encode("ping")
                for client in self.clients:
                    client.send(ping)
            if self._lobby_dirty and now - last_lobby >= self.options.lobby_every_s:
                last_lobby = now
                self._lobby_dirty = False
                self._send_lobby()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for client in list(self.clients):
            client.close()
        await self.ai.close()
        await asyncio.get_running_loop().run_in_executor(None, self._db_thread.shutdown)

    # ------------------------------------------------------------ connections
    def connected(self, client: Client) -> None:
        self.clients.add(client)

    def disconnected(self, client: Client) -> None:
        self.clients.discard(client)
        client.close()
        if client.bot and self.bots.get(client.name) is client:
            del self.bots[client.name]
            self._lobby_dirty = True
        now = self._clock()
        for live in self.games.values():
            live.watchers.discard(client)
            for color in (0, 1):
                if live.players[color] is client:
                    live.players[color] = None
                    live.gone[color] = now

    async def receive(self, client: Client, text: str | bytes) -> None:
        """One message from `client`: decoded, checked, acted on."""
        try:
            request = decode_request(text)
            await self._handle(client, request)
        except (ProtocolError, Rejected) as e:
            client.errors += isinstance(e, ProtocolError)
            client.send(encode("error", message=str(e)[:2000]))
            if client.errors >= self.options.max_errors:
                client.close()

    async def _handle(self, client: Client, request: Request) -> None:
        match request:
            case Hello():
                if client.bot or not client.session:
                    raise ProtocolError("this connection has no session to play under")
                client.name = request.name
                client.send(encode("welcome", name=client.name))
                self._attach(client)
            case BotHello():
                await self._bot_hello(client, request)
            case Lobby():
                client.lobby = True
                client.send(self._lobby_text())
            case Watch():
                live = self.games.get(request.game)
                if live is None:
                    raise Rejected(f"no game {request.game} is being played")
                if client.identity and client.identity in live.seats:
                    self._attach(client)
                    return
                live.watchers.add(client)
                client.send(live.state(None))
            case Create():
                self._create(client, request)
            case Join():
                self._join(client, request.code)
            case Move():
                live, color = self._seat(client, request.game)
                ended = live.game.play(color, request.ply, request.col, request.shape,
                                       self._clock())
                self._after_move(live, ended)
            case Forfeit() | Resign():
                live, color = self._seat(client, request.game)
                if isinstance(request, Forfeit):
                    live.game.forfeit(color, request.reason, request.detail)
                else:
                    live.game.forfeit(color, None, "", resigned=True)
                self._finish(live)
            case Pong():
                pass

    # ------------------------------------------------------------ who is who
    async def _bot_hello(self, client: Client, hello: BotHello) -> None:
        if client.name:
            raise ProtocolError("this connection already said who it is")
        stored = await self.db(self.store.bot_hash, hello.name)
        token = ""
        if stored is None:
            if self.options.register != "open" or hello.token:
                client.send(encode("error", message=f"no bot is registered as {hello.name!r}"
                                   + ("" if self.options.register == "open" else
                                      " (the server's admin adds bots: csl-game server "
                                      "--add-bot NAME)")))
                client.close()
                return
            token = new_token()
            if not await self.db(self.store.add_bot, hello.name, hash_token(token)):
                raise ProtocolError(f"the name {hello.name!r} was taken just now")
            self._known_bots.add(hello.name)
        elif not hmac.compare_digest(stored, hash_token(hello.token)):
            client.send(encode("error", message=f"wrong token for the bot {hello.name!r}"))
            client.close()
            return
        client.bot, client.name, client.capacity = True, hello.name, hello.games
        old = self.bots.get(hello.name)
        if old is not None:  # the bot came back on a new connection: the old one goes
            old.close()
            self.disconnected(old)
        self.bots[hello.name] = client
        client.send(encode("welcome", name=hello.name, **({"token": token} if token else {})))
        self._attach(client)
        self._lobby_dirty = True

    def _attach(self, client: Client) -> None:
        """Give a player who (re)connects its seats in the games it plays."""
        for live in self.games.values():
            for color in (0, 1):
                if live.seats[color] == client.identity:
                    live.players[color] = client
                    live.gone[color] = None
                    client.send(live.state(PColor(color)))
                    if live.started and live.game.to_move == color \
                            and live.game.turn_started is None:
                        live.game.start_clock(self._clock())

    def _seat(self, client: Client, game_id: str) -> tuple[LiveGame, PColor]:
        live = self.games.get(game_id)
        if live is None:
            raise Rejected(f"no game {game_id} is being played")
        for color in PColor:
            if live.players[color] is client:
                if not live.started:
                    raise Rejected("the game waits for its second player")
                return live, color
        raise Rejected(f"you play no side of game {game_id}")

    # ------------------------------------------------------------ making games
    def _new_game(self, kind: str, seats: list[str], names: list[str]) -> LiveGame:
        game_id = secrets.token_urlsafe(9)
        code = secrets.token_urlsafe(9)
        timed = (not seats[0].startswith("web:"), not seats[1].startswith("web:"))
        game = ServerGame(game_id, self.options.config, names, timed,
                          self.options.grace_ms / 1000)
        live = LiveGame(game, kind, code, seats)
        self.games[game_id] = live
        self.codes[code] = game_id
        self._db_later(self.store.add_game, GameRow(
            game_id, kind, names[0], names[1],
            {**config_json(game.config), "seats": seats, "code": code}, [], "playing", None,
            live.created))
        self._lobby_dirty = True
        return live

    def _create(self, client: Client, request: Create) -> None:
        if not client.identity or client.bot:
            raise Rejected("say hello with your name first")
        waiting = sum(1 for live in self.games.values()
                      if not live.started and client.identity in live.seats)
        if waiting >= self.options.max_waiting:
            raise Rejected(f"you have {waiting} games waiting for an opponent already")
        if len(self.games) >= self.options.max_games:
            raise Rejected("the server holds as many games as it can; try again soon")
        color = request.color if request.color is not None else random.choice(list(PColor))
        seats, names = ["", ""], ["", ""]
        seats[color], names[color] = client.identity, client.name
        if request.opponent == "ai":
            level = self.ai.level(request.level)
            if not self.ai.has_room():
                raise Rejected(f"the server's AI players are all busy "
                               f"({self.options.max_ai_games} games); try again soon")
            seats[color.other], names[color.other] = f"ai:{level.name}", f"AI {level.label}"
        live = self._new_game(request.opponent, seats, names)
        live.players[color] = client
        client.send(live.state(color))
        if live.started:
            self.ai.add(live.game, live.seats[color.other][3:])
            self._begin(live)

    def _join(self, client: Client, code: str) -> None:
        if not client.identity or client.bot:
            raise Rejected("say hello with your name first")
        live = self.games.get(self.codes.get(code, ""))
        if live is None or live.kind not in ("friend", "open"):
            raise Rejected("no game is waiting with that code")
        if client.identity in live.seats:
            self._attach(client)
            return
        if live.started:  # a link followed late: watch the game instead
            live.watchers.add(client)
            client.send(live.state(None))
            return
        color = PColor.WHITE if not live.seats[0] else PColor.RED
        live.seats[color], live.game.names[color] = client.identity, client.name
        timed = list(live.game.timed)
        timed[color] = False  # a person, as the one who made the game: never timed
        live.game.timed = (timed[0], timed[1])
        live.players[color] = client
        self._db_later(self.store.set_players, live.game.id, *live.game.names)
        self._db_later(self.store.save_seats, live.game.id, live.seats)
        self._begin(live)

    def _begin(self, live: LiveGame) -> None:
        """Both seats are taken: everyone learns the game, the clock starts."""
        for color in PColor:
            player = live.players[color]
            if player is not None:
                player.send(live.state(color))
        for watcher in live.watchers:
            watcher.send(live.state(None))
        live.game.start_clock(self._clock())
        self._lobby_dirty = True
        self._next_turn(live)

    def _pair(self) -> None:
        free = {name: c.capacity - self.ladder.playing.get(name, 0)
                for name, c in self.bots.items() if not c.closed}
        for white, red in self.ladder.pairings(free):
            live = self._new_game("ladder", [f"bot:{white}", f"bot:{red}"], [white, red])
            live.players = [self.bots[white], self.bots[red]]
            self._begin(live)

    # ------------------------------------------------------------ playing
    def _after_move(self, live: LiveGame, ended: bool) -> None:
        g = live.game
        if g.moves:
            col, shape, elapsed = g.moves[-1]
            text = encode("played", game=g.id, ply=g.ply - 1, col=col,
                          shape=shape.name.lower(), ms=round(elapsed * 1000, 3))
            for client in live.everyone():
                client.send(text)
        if ended:
            self._finish(live)
            return
        self._db_later(self.store.save_moves, g.id, g.moves_json())
        self._next_turn(live)

    def _next_turn(self, live: LiveGame) -> None:
        if live.seats[live.game.to_move].startswith("ai:"):
            self._ai_turn(live)

    def _ai_turn(self, live: LiveGame) -> None:
        task = asyncio.create_task(self._ai_move(live))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ai_move(self, live: LiveGame) -> None:
        g = live.game
        ply = g.ply
        move = await self.ai.think(g)
        if g.result is not None or g.ply != ply or self.games.get(g.id) is not live:
            return
        if isinstance(move, tuple):
            col, shape = move
            g.start_clock(self._clock() - self.ai.last_elapsed(g))
            ended = g.play(g.to_move, ply, col, shape, self._clock())
        else:
            g.forfeit(g.to_move, move.reason, move.detail)
            ended = True
        self._after_move(live, ended)

    def _check_clocks(self, live: LiveGame, now: float) -> None:
        g = live.game
        if g.result is None and live.started and g.expired(now):
            self._finish(live)
            return
        for color in PColor:
            since = live.gone[color]
            if since is not None and now - since > self.options.reconnect_s \
                    and live.started and g.result is None:
                g.forfeit(color, ForfeitReason.DISCONNECTED,
                          f"{g.names[color]} left and did not come back within "
                          f"{self.options.reconnect_s:g} s")
                self._finish(live)
                return
        creator = 0 if live.seats[0] else 1
        since = live.gone[creator]
        if not live.started and since is not None and now - since > self.options.reconnect_s:
            self._db_later(self.store.drop_game, g.id)
            self._drop(live)

    def _finish(self, live: LiveGame) -> None:
        g = live.game
        result = g.result
        if result is None or self.games.get(g.id) is not live:
            return
        doc = result_json(result, g.config)
        text = encode("result", game=g.id, result=doc)
        for client in live.everyone():
            client.send(text)
        self._db_later(self.store.finish_game, g.id, g.moves_json(), doc)
        if live.kind == "ladder":
            self.ladder.ended(g.names[0], g.names[1], result)
        self.ai.remove(g)
        self._drop(live)

    def _drop(self, live: LiveGame) -> None:
        self.games.pop(live.game.id, None)
        self.codes.pop(live.code, None)
        self._lobby_dirty = True

    # ------------------------------------------------------------ the lobby
    def lobby(self) -> dict[str, Any]:
        challenges = [{"game": live.game.id, "code": live.code,
                       "name": live.game.names[0] or live.game.names[1],
                       "free": "white" if not live.seats[0] else "red"}
                      for live in self.games.values() if live.kind == "open" and not live.started]
        games = [{"game": live.game.id, "white": live.game.names[0], "red": live.game.names[1],
                  "ply": live.game.ply, "kind": live.kind}
                 for live in self.games.values() if live.started][:100]
        return {"challenges": challenges[:100], "games": games, "ladder": self.ladder_table()}

    def ladder_table(self) -> list[dict[str, Any]]:
        rows = self.ladder.table(sorted(self._known_bots))
        for row in rows:
            row["online"] = row["name"] in self.bots
        return rows

    def _lobby_text(self) -> str:
        return encode("lobby", **self.lobby())

    def _send_lobby(self) -> None:
        watching = [c for c in self.clients if c.lobby]
        if watching:
            text = self._lobby_text()
            for client in watching:
                client.send(text)



def game_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A stored game's settings without the server's own keys (its seats and code)."""
    return {k: v for k, v in settings.items() if k not in ("seats", "code")}


def _seats_of(row: GameRow) -> list[str]:
    seats = row.settings.get("seats")
    if isinstance(seats, list) and len(seats) == 2 and all(isinstance(s, str) for s in seats):
        return list(seats)
    return ["", ""]


def _code_of(row: GameRow) -> str:
    code = row.settings.get("code")
    return code if isinstance(code, str) else secrets.token_urlsafe(9)
