"""The server's heart: connected clients, live games, the ladder and the database.

The `Hub` is the I/O around the game rooms (csl_game.server.room): it hands
each room what its clients said with the time, and does what the room's
step says: the writes go to the database (csl_game.server.writes: batched,
on a thread of its own); the messages, once the writes before them are
committed, each made into one frame written as it is to each receiver (a
slow reader loses its connection); each room has one timer, for the next
time it needs waking. A ticker pairs the bots, pings and sends the lobby.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from csl_game.errors import ProtocolError
from csl_game.model.board import PColor
from csl_game.online.protocol import result_from_doc
from csl_game.server.ai import AiPlayers
from csl_game.server.analysis import Analyses
from csl_game.server.clock import TimeControl
from csl_game.server.game import Rejected, public_detail
from csl_game.server.guard import Guesses, Limits
from csl_game.server.ladder import Ladder
from csl_game.server.lobby import lobby_lists
from csl_game.server.making import Waiting, check_create, free_bot
from csl_game.server.messages import (
    PEOPLE_KINDS,
    BotHello,
    Cancel,
    Claim,
    Create,
    Forfeit,
    Hello,
    Join,
    Lobby,
    Move,
    Offer,
    Pong,
    Request,
    Resign,
    Watch,
    code_as_made,
    decode_request,
    encode,
    frame,
    new_code,
)
from csl_game.server.rematch import Rematches
from csl_game.server.room import Room, RoomStep, new_game
from csl_game.server.seats import Client, Pinger, ServerOptions
from csl_game.server.store import GameRow, Store, game_settings
from csl_game.server.timers import Timers
from csl_game.server.trust import hash_token, new_key, new_session, new_token, session_of
from csl_game.server.writes import Database

__all__ = ["Hub", "Client", "ServerOptions", "hash_token", "new_token", "game_settings"]

_T = TypeVar("_T")
log = logging.getLogger(__name__)


class Hub:
    """Every live game and connection of one server process."""

    def __init__(self, store: Store, options: ServerOptions) -> None:
        self.store = store
        self.options = options
        self.games: dict[str, Room[Client]] = {}
        self.codes: dict[str, str] = {}
        self.seated: dict[str, set[str]] = {}
        """The games each identity has a seat in."""
        self.bots: dict[str, Client] = {}
        self.clients: set[Client] = set()
        self.pinger = Pinger(options.ping_every_s, options.silent_s)
        self.ladder = Ladder()
        self.rematches: Rematches[Client] = Rematches(options.rematch_s)
        self.hashing, self.guesses = asyncio.Semaphore(2), Guesses()  # Argon2: 2 at a time
        self.ai = AiPlayers(options.max_ai_games, options.max_ai_thinking)
        self.analyses = Analyses(store, self.db, options.analysis_ms)
        self.database = Database(store, options.write_every_s)
        self._timers: Timers[Room[Client]] = Timers(self._ring, lambda: self._clock())
        self._lobby_dirty = True
        self._lobby_frame: bytes | None = None  # as last sent: made again when it changed
        self._waiting = Waiting()  # people's games waiting for an opponent, by address
        self._session_key = ""
        self._known_bots: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._clock = time.monotonic
        self._closed = False

    def now(self) -> float:  # the time the rooms are fed
        return self._clock()

    @property
    def limits(self) -> Limits:
        return self.options.limits

    def new_session(self) -> str:
        """A new browser session's cookie value (signed with the server's key)."""
        return new_session(self._session_key)

    def session_of(self, cookie: str) -> str:
        """The session `cookie` is, if this server issued it ('' if not)."""
        return session_of(cookie, self._session_key) if self._session_key else ""

    # ------------------------------------------------------------ the database
    async def db(self, call: Callable[..., _T], *args: Any) -> _T:
        """`call(*args)` on the database's thread, after the writes made so far."""
        return await self.database.call(call, *args)

    # ------------------------------------------------------------ life
    async def start(self) -> None:
        """Read the ladder and the games in progress back from the database."""
        self._session_key = await self.db(self.store.secret, "session", new_key)
        self._known_bots = set(await self.db(self.store.bots))
        for row in await self.db(self.store.games, "over", "ladder", 100_000, False):
            if row.result is not None:
                result, _ = result_from_doc(row.result)
                self.ladder.add(row.white, row.red, result, count=True)
        now = self._clock()
        for row in await self._playing():
            self._resume(row, now)

    async def _playing(self) -> list[GameRow]:
        """The games in progress this process resumes (a cluster's: those it claims)."""
        return await self.db(self.store.games, "playing")

    def _resume(self, row: GameRow, now: float) -> None:
        room: Room[Client] = Room.from_row(row, self.options.grace_ms / 1000,
                                           self.options.reconnect_s, self.options.claim_s)
        self._add_room(room)
        if row.kind == "ladder":
            self.ladder.started(row.white, row.red)
        self._apply(room, room.resume(now))

    async def run(self) -> None:
        """The ticker: pairing, pings and the lobby (each game has a timer of its own)."""
        last_pair = last_lobby = 0.0
        analysing = asyncio.create_task(self.analyses.run())
        self._tasks.add(analysing)
        while True:
            await asyncio.sleep(self.options.tick_s)
            now = self._clock()
            if now - last_pair >= self.options.pair_every_s:
                last_pair = now
                self._pair()
            self.pinger.tick(now)
            if self._lobby_dirty and now - last_lobby >= self.options.lobby_every_s:
                last_lobby = now
                self._lobby_dirty = False
                self._lobby_frame = None
                self._send_lobby()

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        self._timers.close()
        for client in list(self.clients):
            client.close()
        await self.ai.close()
        await self.database.close()

    # ------------------------------------------------------------ rooms
    def _add_room(self, room: Room[Client]) -> Room[Client]:
        self.games[room.id] = room
        self.codes[room.code] = room.id
        for seat in room.seats:
            if seat:
                self.seated.setdefault(seat, set()).add(room.id)
        for color in PColor:
            level = room.ai_seat(color)
            if level is not None:
                self.ai.add(room.game, level)
        if room.kind == "bot":
            self.ladder.person_game(room.seats, +1)
        return room

    def _apply(self, room: Room[Client], step: RoomStep[Client]) -> None:
        """Do what `room` said: forget it (before anyone hears it ended), send,
        store, wake it later, ask the AI."""
        if step.done:
            self._forget(room)
        else:
            for client in step.entered:
                client.rooms.add(room.id)
        if step.store:
            self.database.write(step.store)
        if step.send:  # told once stored: a kill -9 loses nothing a player saw
            self.database.after(lambda refused: self._announce(room.id, step.send, refused))
        self._lobby_dirty |= step.lobby
        if step.done:
            return
        if step.wake is not None:  # at that time or before (a move changes no timer)
            self._timers.at(room.id, step.wake, room)
        if step.think is not None:
            task = asyncio.create_task(self._ai_move(room, step.think))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _announce(self, game: str, sends: list[tuple[tuple[Client, ...], str]],
                  refused: set[str]) -> None:
        """A room's messages, once the writes before them are committed (not if refused)."""
        if game in refused:
            log.error("game %s: its writes were refused, so %d messages are not sent",
                      game, len(sends))
            return
        for peers, text in sends:
            self._deliver(peers, text, game)

    def _deliver(self, peers: tuple[Client, ...], text: str, game: str = "") -> None:
        """`text` to `peers`, as one frame (a cluster relays it to other
        processes' peers, saying which `game` it is of)."""
        data = frame(text)
        for client in peers:
            client.send_frame(data)

    async def _claimed(self, room: Room[Client]) -> None:
        """A new game is this process's (a cluster records it before its code is told)."""

    def _ring(self, room: Room[Client]) -> None:
        if self.games.get(room.id) is room:
            self._apply(room, room.wake(self._clock()))

    def _forget(self, room: Room[Client]) -> None:
        self.games.pop(room.id, None)
        self.codes.pop(room.code, None)
        self._timers.cancel(room.id)
        for seat in room.seats:
            self.seated.get(seat, set()).discard(room.id)
            if not self.seated.get(seat, True):
                del self.seated[seat]
        for client in room.peers():
            client.rooms.discard(room.id)
        self._waiting.over(room.id)
        self.rematches.ended(room, self._clock())
        g = room.game
        if room.kind == "bot":
            self.ladder.person_game(room.seats, -1)
        if room.kind == "ladder":
            if g.result is not None:
                self.ladder.ended(g.names[0], g.names[1], g.result)
            else:  # aborted: both left
                self.ladder.abandoned(g.names[0], g.names[1])
        self.ai.remove(g)

    def _room(self, game_id: str) -> Room[Client]:
        room = self.games.get(game_id)
        if room is None:
            raise Rejected(f"no game {game_id} is being played")
        return room

    async def _ai_move(self, room: Room[Client], ply: int) -> None:
        answer = await self.ai.think(room.game)
        if self.games.get(room.id) is room:
            self._apply(room, room.ai_answer(ply, answer, self._clock()))

    # ------------------------------------------------------------ connections
    def connected(self, client: Client) -> None:
        self.clients.add(client)
        self.pinger.add(client)
        if self._closed:  # accepted as the server closed: its close would wait on it
            client.close()

    def disconnected(self, client: Client) -> None:
        self.clients.discard(client)
        client.close()
        if client.bot and self.bots.get(client.name) is client:
            del self.bots[client.name]
            self._lobby_dirty = True
        now = self._clock()
        for game_id in list(client.rooms):
            room = self.games.get(game_id)
            if room is not None:
                self._apply(room, room.left(client, now))
        client.rooms.clear()

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
            case BotHello():
                await self._bot_hello(client, request)
            case Create():
                room, color = self._create(client, request)
                await self._claimed(room)
                self._apply(room, room.open(client, color, self._clock()))
                if request.opponent == "bot":  # the bot is told of its game at once
                    bot = self._pairable()[request.bot]
                    self._apply(room, room.attach(bot, bot.identity, self._clock()))
            case Offer(what="rematch"):
                await self._rematch(client, request, self._clock())
            case _:
                self._handle_now(client, request)

    def _handle_now(self, client: Client, request: Request) -> bool:
        """Act on `request` if it needs no wait (all but a bot's hello, a game
        made and a rematch): whether it did."""
        now = self._clock()
        match request:
            case Hello():  # its seats are taken by watching or joining their games
                if client.bot:
                    raise ProtocolError("this connection is a bot's")
                made = ""
                if not client.session:  # no cookie this server issued: a new session
                    made = self.new_session()
                    client.session = hash_token(made)
                client.name = client.account or request.name  # an account's own name
                client.send(encode("welcome", name=client.name,
                                   **({"session": made} if made else {})))
            case Lobby():
                client.lobby = True
                client.send_frame(self._lobby_now())
            case Watch():
                room = self._room(request.game)
                self._apply(room, room.watch(client, client.identity, now))
            case Join():
                self._join(client, request.code)
            case Move():
                room = self._room(request.game)
                self._apply(room, room.move(client, request.ply, request.col,
                                            request.shape, now))
            case Forfeit():
                room = self._room(request.game)
                self._apply(room, room.forfeit(client, request.reason,
                                               public_detail(request.detail), now))
            case Resign():
                room = self._room(request.game)
                self._apply(room, room.forfeit(client, None, "", now))
            case Cancel():
                room = self._room(request.game)
                self._apply(room, room.cancel(client, client.identity, now))
            case Offer() if request.what != "rematch":
                room = self._room(request.game)
                said = room.decline if request.decline else room.offer
                self._apply(room, said(client, request.what, now))
            case Claim():
                room = self._room(request.game)
                self._apply(room, room.claim(client, now))
            case Pong():
                pass
            case _:
                return False
        return True

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
        now = self._clock()
        for game_id in list(self.seated.get(client.identity, ())):
            room = self.games.get(game_id)
            if room is not None:
                self._apply(room, room.attach(client, client.identity, now))

    # ------------------------------------------------------------ making games
    def _new_room(self, kind: str, seats: list[str], names: list[str],
                  control: TimeControl | None = None) -> Room[Client]:
        game_id = secrets.token_urlsafe(9)
        code = new_code()
        game = new_game(game_id, self.options.config, seats, names,
                        self.options.grace_ms / 1000, control=control)
        return self._add_room(Room(game, kind, code, seats, self.options.reconnect_s,
                                   time.time(), self.options.claim_s))

    def _create(self, client: Client, request: Create) -> tuple[Room[Client], PColor]:
        check_create(request, client, self.games, self.seated.get(client.identity, ()),
                     self._waiting, self.options)
        color = request.color if request.color is not None else random.choice(list(PColor))
        seats, names = ["", ""], ["", ""]
        seats[color], names[color] = client.identity, client.name
        if request.opponent == "bot":
            bot = free_bot(self._pairable(), self._busy(), request.bot)
            seats[color.other], names[color.other] = bot.identity, bot.name
        if request.opponent == "ai":
            level = self.ai.level(request.level)
            if not self.ai.has_room():
                raise Rejected(f"the server's AI players are all busy "
                               f"({self.options.max_ai_games} games); try again soon")
            seats[color.other], names[color.other] = f"ai:{level.name}", f"AI {level.label}"
        room = self._new_room(request.opponent, seats, names, request.clock)
        room.rated = request.rated
        if request.opponent in PEOPLE_KINDS:
            self._waiting.made(room.id, client.address)
        return room, color

    async def _rematch(self, client: Client, offer: Offer, now: float) -> None:
        """`client` asks for a rematch, or declines the other's
        (csl_game.server.rematch): once both asked, it is made."""
        agreed = False
        if offer.decline:
            ended, color = self.rematches.decline(offer.game, client.identity, client, now)
        elif len(self.games) >= self.options.max_games:
            raise Rejected("the server holds as many games as it can; try again soon")
        else:
            ended, color, agreed = self.rematches.ask(offer.game, client.identity, client, now,
                                                      self.ai.has_room())
        here = tuple(p for p in ended.players if p is not None and not p.closed)
        if not agreed:
            self._deliver(here, encode("declined" if offer.decline else "offer",
                                       game=offer.game, what="rematch", color=color.name.lower()))
            return
        room = self._new_room(ended.kind, *ended.swapped(), ended.control)
        await self._claimed(room)
        self._apply(room, room.open(None, PColor.WHITE, self._clock()))
        for peer in here:
            self._apply(room, room.attach(peer, peer.identity, self._clock()))

    def _join(self, client: Client, code: str) -> None:
        if not client.identity or client.bot:
            raise Rejected("say hello with your name first")
        room = self.games.get(self._coded(code) or "")
        if room is None or room.kind not in PEOPLE_KINDS:
            raise Rejected("no game is waiting with that code")
        self._apply(room, room.sit(client, client.identity, client.name, self._clock()))
        if room.started:
            self._waiting.over(room.id)
        if self.games.get(room.id) is room:
            self.seated.setdefault(client.identity, set()).add(room.id)

    def _coded(self, code: str) -> str | None:  # the game of a code as typed, or as made
        return self.codes.get(code) or self.codes.get(code_as_made(code))

    def _pair(self) -> None:
        bots, busy = self._pairable(), self._busy()
        free = {name: c.capacity - busy.get(name, 0) for name, c in bots.items()}
        now = self._clock()
        for white, red in self.ladder.pairings(free):
            room = self._new_room("ladder", [f"bot:{white}", f"bot:{red}"], [white, red])
            self._apply(room, room.open(None, PColor.WHITE, now))
            for name in (white, red):
                self._apply(room, room.attach(bots[name], f"bot:{name}", now))

    def _busy(self) -> Mapping[str, int]:
        """The games each bot plays now (in a cluster, in every process)."""
        return self.ladder.playing

    def _pairable(self) -> dict[str, Client]:
        """The bots the pairing pairs (in a cluster, the pairing process's are all)."""
        return {name: c for name, c in self.bots.items() if not c.closed}

    # ------------------------------------------------------------ the lobby
    def being_played(self) -> list[tuple[str, list[str], int]]:
        """The games being played (a cluster's, of every process): id, seats, moves."""
        return [(r.id, r.seats, r.game.ply) for r in self.games.values() if r.started and not r.done]

    def lobby(self) -> dict[str, Any]:
        """Open challenges, games being played, the ladder's best `lobby_ladder` bots."""
        return {**lobby_lists(self.games.values()),
                "ladder": self.ladder_table()[:self.options.lobby_ladder]}

    def ladder_table(self) -> list[dict[str, Any]]:
        rows = self.ladder.table(sorted(self._known_bots))
        for row in rows:
            row["online"] = row["name"] in self.bots
        return rows

    def _lobby_now(self) -> bytes:
        """The lobby's frame, made once for every asker (at most `lobby_every_s` old)."""
        if self._lobby_frame is None:
            self._lobby_frame = frame(encode("lobby", **self.lobby()))
        return self._lobby_frame

    def _send_lobby(self) -> None:
        watching = [c for c in self.clients if c.lobby]
        if watching:
            data = self._lobby_now()
            for client in watching:
                client.send_frame(data)
