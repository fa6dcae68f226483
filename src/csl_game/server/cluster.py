"""One server in several processes: the hub of a process on a shared PostgreSQL database.

`ClusterHub` is the hub (csl_game.server.hub) with the other processes
beside it, through csl_game.server.relay (PostgreSQL's LISTEN/NOTIFY). Each
live game is a room in one process, its owner, as one process serves it
alone; a client connected to another process reaches it through the relay:

- its process sends the owner what the client said of that game (``C``:
  the client's number there, and its message; the first time, and when it
  changes, who the client is before it, ``W``); the owner's room takes the
  client as a peer like its own (a `Client` whose `via` is that process),
  and sends back each message for such peers once per process (``D``: the receivers'
  numbers and the message), which that process writes to their connections;
  when the client goes, the owner is told (``L``).
- a process that ends, or is killed, lets its life lock go; the others look
  every `check_s`, and one takes its games over from the database (their
  moves), resumes them as after a restart, and says so to all (``T``):
  every process then gives its clients of those games their seats again
  with the new owner (as a reconnect), and the clients of the process that
  ended come back through any other, as after a restart. Each batch of
  writes locks its games' `owners` rows and is refused if another process
  owns one (a process cut off from the database writes nothing after its
  games are taken over, and a takeover reads a game after its last write).
- each process publishes its part of the lobby (its open challenges and its
  games, with their accounts' and bots' seats for /tv) when it changes (``Y``), and each ladder game's result as it ends
  (``F``), so the lobby and the ladder are the same from any process.

What a process does with its own clients and rooms stays the hub's.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from csl_game.errors import ProtocolError
from csl_game.online.protocol import result_from_doc, result_json
from csl_game.server.game import Rejected
from csl_game.server.hub import Hub
from csl_game.server.lobby import lobby_lists
from csl_game.server.messages import (
    Cancel,
    Claim,
    Create,
    Forfeit,
    Join,
    Move,
    Offer,
    Request,
    Resign,
    Watch,
    code_as_made,
    decode_request,
    encode,
    frame,
    request_text,
)
from csl_game.server.relay import Relay
from csl_game.server.room import Room
from csl_game.server.seats import Client, ServerOptions
from csl_game.server.store import GameRow, NewGame, Store, Write
from csl_game.server.writes import game_of

__all__ = ["ClusterHub"]

log = logging.getLogger(__name__)
TIDY_EVERY = 20
"""Checks between two looks for the games nobody owns (`Relay.tidy`)."""
KNOWN = 100_000
"""The other processes' games whose owners a process keeps in mind, at most
(the oldest forgotten first: the `owners` table is asked for one forgotten)."""


class NotOwned(RuntimeError):
    """A batch writes a game another process has taken over (this one lost its lock)."""


class ClusterHub(Hub):
    """The hub of one of several processes serving one database."""

    def __init__(self, store: Store, options: ServerOptions, url: str,
                 check_s: float = 0.5) -> None:
        super().__init__(store, options)
        self.relay = Relay(url)
        self.database.check = self._owned
        self.check_s = check_s
        self.owners: dict[str, int] = {}
        """The owners of games other processes hold, as last learnt (``O``, ``T``)."""
        self._codes: dict[str, str] = {}
        """The games of the join codes of other processes' games being played."""
        self.local: dict[int, Client] = {}
        """This process's connections, by number."""
        self.remote: dict[tuple[int, int], Client] = {}
        """Other processes' clients in this process's rooms, by (process, number)."""
        self._numbers = itertools.count(1)
        self._told: dict[int, dict[int, tuple[Any, ...]]] = {}
        """By this process's connection: who each owner was last told it is (``W``)."""
        self._parts: dict[int, dict[str, Any]] = {}
        """The other processes' parts of the lobby."""
        self._published = ""
        self.pairs = False
        """Whether this process pairs the ladder (one does: a PostgreSQL advisory lock)."""
        self._pairing = False
        self._bot_games: Counter[str] = Counter()
        """The games each bot plays in every process, counted as the pairing
        begins and as a person asks for a game with a bot."""

    @property
    def me(self) -> int:
        return self.relay.me

    # ------------------------------------------------------------ life
    async def start(self) -> None:
        await self.relay.start(self._heard)
        await super().start()
        self._spawn(self._check())
        self._spawn(self._read_lobbies())

    async def _playing(self) -> list[GameRow]:
        """The games this process takes: those of processes that ended, and
        those nobody owns."""
        dead, _ = await self.relay.look(set(), False)
        return await self._rows(await self.relay.take_over(dead) + await self.relay.tidy())

    async def _rows(self, games: list[str]) -> list[GameRow]:
        rows, gone = [], []
        for game_id in games:
            row = await self.db(self.store.game, game_id)
            if row is not None and row.state == "playing" and game_id not in self.games:
                rows.append(row)
            elif game_id not in self.games:
                gone.append(game_id)
        if gone:
            await self.relay.release(gone)
        return rows

    async def close(self) -> None:
        await super().close()  # the writes made before the others may take the games
        await self.relay.close()

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _check(self) -> None:
        """Every `check_s`: the processes that ended, and their games taken over
        (one query unless one did; the games nobody owns every `TIDY_EVERY`)."""
        for checks in itertools.count(1):
            await asyncio.sleep(self.check_s)
            try:
                dead, pairs = await self.relay.look({p for p, _ in self.remote},
                                                    not self.pairs)
                if pairs:
                    self.pairs = True
                    log.info("this process pairs the ladder")
                taken = await self.relay.take_over(dead) if dead else []
                if dead or checks % TIDY_EVERY == 0:
                    taken += await self.relay.tidy()
                for process in dead:
                    self._parts.pop(process, None)
                    for key in [k for k in self.remote if k[0] == process]:
                        self.disconnected(self.remote.pop(key))
                if dead:
                    self._lobby_dirty = True
                rows = await self._rows(taken)
                now = self._clock()
                for row in rows:
                    self._resume(row, now)
                if rows:
                    log.info("took over %d games from processes that ended", len(rows))
                    self.relay.publish(None, "T" + json.dumps(
                        {"process": self.me, "games": [r.id for r in rows]}))
            except Exception:
                log.exception("could not look for processes that ended")

    # ------------------------------------------------------------ this process's clients
    def connected(self, client: Client) -> None:
        client.conn = next(self._numbers)
        self.local[client.conn] = client
        super().connected(client)

    def disconnected(self, client: Client) -> None:
        if client.via == 0:
            self.local.pop(client.conn, None)
            self._told.pop(client.conn, None)
            elsewhere: dict[int, list[str]] = {}
            for game_id in client.rooms:
                owner = self.owners.get(game_id)
                if game_id not in self.games and owner is not None:
                    elsewhere.setdefault(owner, []).append(game_id)
            for owner, games in elsewhere.items():
                self.relay.publish(owner, "L" + json.dumps(
                    {"from": self.me, "conn": client.conn, "games": games}))
        super().disconnected(client)

    async def _handle(self, client: Client, request: Request) -> None:
        if client.via == 0 and await self._relayed(client, request):
            return
        if isinstance(request, Create) and request.opponent == "bot":
            await self._count_bot_games()  # the bot's games in every process
        await super()._handle(client, request)

    async def _relayed(self, client: Client, request: Request) -> bool:
        """Send `request` to the process that owns its game, if another does."""
        match request:
            case Watch(game=game_id) | Move(game=game_id) | Forfeit(game=game_id) | \
                    Resign(game=game_id) | Cancel(game=game_id) | Claim(game=game_id) | \
                    Offer(game=game_id):
                if game_id in self.games:
                    return False
                owner = self.owners.get(game_id)
                if owner is None:
                    found = await self.relay.owner(game=game_id)
                    if found is None:
                        return False
                    owner = found[1]
            case Join(code=code):
                if self._coded(code):
                    return False
                game_id = self._codes.get(code) or self._codes.get(code_as_made(code), "")
                owner = self.owners.get(game_id)
                if owner is None:
                    found = await self.relay.owner(codes=(code, code_as_made(code)))
                    if found is None:
                        return False
                    game_id, owner = found
            case _:
                return False
        if owner == self.me:  # a game of this process it no longer holds
            return False
        _keep(self.owners, game_id, owner)
        if isinstance(request, (Watch, Join)):
            client.rooms.add(game_id)
        self._relay_request(client, owner, request)
        return True

    def _relay_request(self, client: Client, owner: int, request: Request) -> None:
        """`request` to `owner`, after who `client` is if the owner has not
        heard it yet or it changed (it is then a peer there until told it left)."""
        told = self._told.setdefault(client.conn, {})
        who = (client.address, client.session, client.name, client.bot, client.capacity,
               client.account)
        if told.get(owner) != who:
            told[owner] = who
            self.relay.publish(owner, "W" + json.dumps(self._who(client)))
        self.relay.publish(owner, f"C{self.me} {client.conn}\n" + request_text(request))

    # ------------------------------------------------------------ what others say
    def _heard(self, payload: str) -> None:
        kind, body = payload[:1], payload[1:]
        if kind == "D":  # to this process's clients in a game another owns
            head, text = body.split("\n", 1)
            owner, game_id, numbers = head.split(" ")
            data = frame(text)
            for number in numbers.split(","):
                client = self.local.get(int(number))
                if client is not None:
                    client.send_frame(data)
                    if game_id and game_id not in client.rooms:  # a bot's ladder game
                        client.rooms.add(game_id)
                        _keep(self.owners, game_id, int(owner))
                elif game_id:  # gone before it heard: the owner learns it left
                    self.relay.publish(int(owner), "L" + json.dumps(
                        {"from": self.me, "conn": int(number), "games": [game_id]}))
        elif kind == "C":  # a client of another process said this of a game here
            head, text = body.split("\n", 1)
            process, number = head.split(" ")
            client = self.remote.get((int(process), int(number)))
            if client is None:  # (told who it is first: W)
                log.error("a request from a client not introduced: %.200s", payload)
                return
            try:
                request = decode_request(text)
                if not self._handle_now(client, request):  # (a rematch: it waits)
                    self._spawn(self._from_elsewhere(client, request))
            except (ProtocolError, Rejected) as e:
                self._refuse(client, e)
        elif kind == "W":  # who a client of another process is, before its requests
            self._remote(json.loads(body))
        elif kind == "O":  # a new game of another process's (or one it resumed)
            process, game_id, code = body.split(" ", 2)
            if int(process) != self.me:
                _keep(self.owners, game_id, int(process))
                if code:
                    _keep(self._codes, code, game_id)
        elif kind == "E":  # a game another process held ended: its code is free
            game_id, code = body.split(" ", 1)
            if self._codes.get(code) == game_id:
                del self._codes[code]
        elif kind == "L":
            doc = json.loads(body)
            client = self.remote.get((doc["from"], doc["conn"]))
            if client is not None:
                for game_id in doc["games"]:
                    room = self.games.get(game_id)
                    if room is not None:
                        self._apply(room, room.left(client, self._clock()))
                        client.rooms.discard(game_id)
                if not client.rooms:
                    del self.remote[doc["from"], doc["conn"]]
        elif kind == "T":
            self._taken(json.loads(body))
        elif kind == "Y" and body != str(self.me):  # another's part of the lobby changed
            self._spawn(self._read_lobbies())
        elif kind == "A":  # a bot came back through another process: its seats here
            who = json.loads(body)
            if who["from"] != self.me:
                client = self._remote(who)
                super()._attach(client)
        elif kind == "F":
            doc = json.loads(body)
            if doc["from"] != self.me:
                result, _ = result_from_doc(doc["result"])
                self.ladder.add(doc["white"], doc["red"], result, count=True)
                self._known_bots |= {doc["white"], doc["red"]}
                self._lobby_dirty = True

    async def _from_elsewhere(self, client: Client, request: Request) -> None:
        try:
            await self._handle(client, request)
        except (ProtocolError, Rejected) as e:
            self._refuse(client, e)

    def _refuse(self, client: Client, e: Exception) -> None:  # as `receive` answers its own
        self._deliver((client,), encode("error", message=str(e)[:2000]))

    def _remote(self, who: dict[str, Any]) -> Client:
        """The client of another process `who` says (its process, number, address,
        session, name, whether a bot, its games at once, and its account)."""
        key = (int(who["from"]), int(who["conn"]))
        client = self.remote.get(key)
        if client is None:
            client = self.remote[key] = Client(str(who["address"]), via=key[0], conn=key[1])
        client.session, client.name, client.bot = who["session"], who["name"], who["bot"]
        client.capacity, client.account = int(who.get("capacity", 1)), who.get("account", "")
        return client

    def _attach(self, client: Client) -> None:
        """A bot said who it is: its seats here, and the other processes' games."""
        super()._attach(client)
        if client.via == 0:
            self.relay.publish(None, "A" + json.dumps(self._who(client)))

    def _who(self, client: Client) -> dict[str, Any]:
        return {"from": self.me, "conn": client.conn, "address": client.address,
                "session": client.session, "name": client.name, "bot": client.bot,
                "capacity": client.capacity, "account": client.account}

    def _taken(self, doc: dict[str, Any]) -> None:
        """Process `doc["process"]` took `doc["games"]` over: this process's
        clients of those games take their seats there again."""
        owner, games = int(doc["process"]), set(doc["games"])
        now = self._clock()
        for game_id in games:
            if owner == self.me:
                self.owners.pop(game_id, None)
            else:
                _keep(self.owners, game_id, owner)
        for client in list(self.local.values()):
            for game_id in games & client.rooms:
                room = self.games.get(game_id)
                if room is not None:
                    self._apply(room, room.watch(client, client.identity, now))
                elif owner != self.me:
                    self._relay_request(client, owner, Watch(game_id))

    # ------------------------------------------------------------ sending
    def _deliver(self, peers: tuple[Client, ...], text: str, game: str = "") -> None:
        here = tuple(p for p in peers if p.via == 0)
        if here:
            super()._deliver(here, text, game)
        if len(here) < len(peers):
            elsewhere: dict[int, list[str]] = {}
            for peer in peers:
                if peer.via:
                    elsewhere.setdefault(peer.via, []).append(str(peer.conn))
            for process, numbers in elsewhere.items():
                self.relay.publish(process, f"D{self.me} {game} "
                                   + ",".join(numbers) + "\n" + text)

    async def _claimed(self, room: Room[Client]) -> None:
        await self.relay.claim(room.id, room.code)

    def _add_room(self, room: Room[Client]) -> Room[Client]:
        if room.kind == "ladder" and not room.stored:  # made by the pairing, not awaited
            self._spawn(self.relay.claim(room.id, room.code))
        self.relay.publish(None, f"O{self.me} {room.id} {room.code}")  # its owner, to all
        return super()._add_room(room)

    def _forget(self, room: Room[Client]) -> None:
        super()._forget(room)
        self.relay.publish(None, f"E{room.id} {room.code}")
        if not room.stored:  # never written: nothing else would release it
            self._spawn(self.relay.release([room.id]))
        g = room.game
        if room.kind == "ladder" and g.result is not None:  # the others' ladders count it
            self.relay.publish(None, "F" + json.dumps(
                {"from": self.me, "white": g.names[0], "red": g.names[1],
                 "result": result_json(g.result, g.config)}))

    # ------------------------------------------------------------ the ladder
    # ------------------------------------------------------------ writes
    def _owned(self, cur: Any, writes: Sequence[Write]) -> None:
        """On the database's thread, in each batch's transaction: the games it
        writes are still this process's, and their `owners` rows stay locked
        until it commits, so a process taking them over reads them after (a
        new game is nobody else's). Else the batch is refused (NotOwned)."""
        new = {w.row.id for w in writes if isinstance(w, NewGame)}
        games = sorted({game_of(w) for w in writes} - new)
        if games:
            cur.execute("SELECT game, process FROM owners WHERE game = ANY(%s) "
                        "ORDER BY game FOR UPDATE", (games,))
            taken = [str(game) for game, process in cur.fetchall() if process != self.me]
            if taken:
                raise NotOwned(f"another process took over {', '.join(taken)}")

    def _pair(self) -> None:
        if self.pairs and not self._pairing and len(self._pairable()) >= 2:
            self._pairing = True
            self._spawn(self._pair_counted())

    async def _pair_counted(self) -> None:
        """Pair with each bot's games counted in every process (those taken
        over from a process that ended included)."""
        try:
            await self._count_bot_games()
            super()._pair()
        except Exception:
            log.exception("could not pair the ladder")
        finally:
            self._pairing = False

    async def _count_bot_games(self) -> None:
        """Each bot's games in progress in every process: the others' as the
        database has them, this process's from its rooms (not all written)."""
        self._bot_games = Counter(await self.relay.bots_playing())
        for room in self.games.values():
            self._bot_games.update(s[4:] for s in room.seats if s.startswith("bot:"))

    def _busy(self) -> Mapping[str, int]:
        return self._bot_games

    def _pairable(self) -> dict[str, Client]:
        """Every process's bots (their processes list them with their lobbies)."""
        bots = super()._pairable()
        for process, part in self._parts.items():
            for name, capacity, conn in part.get("bots", []):
                if name not in bots:  # (one its process said who it is keeps that)
                    bots[name] = self.remote.get((process, conn)) or self._remote(
                        {"from": process, "conn": conn, "address": "", "session": "",
                         "name": name, "bot": True, "capacity": capacity})
        return bots

    def ladder_table(self) -> list[dict[str, Any]]:
        rows = super().ladder_table()
        elsewhere = {b[0] for part in self._parts.values() for b in part.get("bots", [])}
        for row in rows:
            row["online"] = row["online"] or row["name"] in elsewhere
        return rows

    # ------------------------------------------------------------ the lobby
    def lobby(self) -> dict[str, Any]:
        own = super().lobby()
        for part in self._parts.values():
            for key in ("challenges", "games"):
                own[key] = (own[key] + part.get(key, []))[:100]
        return own

    def being_played(self) -> list[tuple[str, list[str], int]]:
        """This process's games and the others' (their accounts' and bots' seats)."""
        return super().being_played() + [
            (g["game"], part.get("seats", {}).get(g["game"], ["", ""]), int(g["ply"]))
            for part in self._parts.values() for g in part.get("games", [])]

    def _send_lobby(self) -> None:
        lists = lobby_lists(self.games.values())
        seats = {g["game"]: [s if s.startswith(("user:", "bot:")) else "" for s in
                             self.games[g["game"]].seats] for g in lists["games"]}  # for /tv
        part = json.dumps({**lists, "seats": seats, "bots": [
            [name, c.capacity, c.conn] for name, c in self.bots.items() if not c.closed]})
        if part != self._published:
            self._published = part
            self._spawn(self._put_lobby(part))
        super()._send_lobby()

    async def _put_lobby(self, part: str) -> None:
        await self.relay.put_lobby(part)
        self.relay.publish(None, f"Y{self.me}")

    async def _read_lobbies(self) -> None:
        self._parts = {p: json.loads(doc) for p, doc in (await self.relay.lobbies()).items()}
        self._known_bots |= {b[0] for part in self._parts.values() for b in part.get("bots", [])}
        self._lobby_dirty = True


def _keep(known: dict[str, Any], key: str, value: Any) -> None:
    """`known[key] = value`, the oldest forgotten past `KNOWN`."""
    known.pop(key, None)
    known[key] = value
    if len(known) > KNOWN:
        del known[next(iter(known))]
