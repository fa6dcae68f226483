"""Several server processes on one PostgreSQL database: its LISTEN/NOTIFY and its locks.

PostgreSQL is already the database of a real deployment, so its own pub/sub
carries the processes' messages: no broker to run beside it. Each process
has a number (`me`) and a channel of its own (``csl_<me>``), and all listen
to ``csl_all``. A process is alive while it holds its life lock (a session
advisory lock on its listening connection): when it ends, or is killed, or
its connection to the database is lost, PostgreSQL lets the lock go, and
another process can take it: that is how the others learn it is gone. Which
process owns each live game is a row of the `owners` table
(csl_game.server.postgres.CLUSTER_SCHEMA), taken over in one UPDATE, so each
game has one owner. Each process's part of the lobby is a row of `lobbies`.

`Relay` is the I/O only (psycopg 3's connections on the event loop: its
async API for the queries, and libpq's own calls, psycopg.pq, for the
notifications heard and sent, the most frequent); what the messages mean is
csl_game.server.cluster's. The messages of a batch that follow one
another to one channel go as one notification, as many as fit in its
payload (at most 8,000 bytes), each as its length and then its text, any
text unchanged: fewer notifications for the database to queue and for each
listener to read. A message longer than a payload's room (a long game's
whole state; the games a process took over) goes on in the next
notifications: one transaction's notifications reach each listener
together and in order, so its listener puts the pieces together (by the
sending connection, its backend's process id), whoever it is sent to.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

from csl_game.server.postgres import SCHEMA_LOCK

__all__ = ["Relay", "MAX_PAYLOAD"]

log = logging.getLogger(__name__)
LIFE_LOCK = SCHEMA_LOCK + 1
"""The advisory locks' class of the processes' life locks (the second key is the process)."""
PAIRING_LOCK = SCHEMA_LOCK + 2
"""The advisory lock of the process that pairs the ladder's bots."""
MAX_PAYLOAD = 7999
ALL = "csl_all"
_ROOM = MAX_PAYLOAD - 24
"""A notification's room for its messages' lengths and texts (the rest: its number)."""
GATHER_S = 0.005
"""How long a message may wait for others to go in its batch: at most this
after the batch before (one after a quiet spell goes at once)."""


_NOTIFY = (b"SELECT pg_notify(m ->> 0, m ->> 1) FROM json_array_elements($1::json) "
           b"WITH ORDINALITY AS t(m, n) ORDER BY n")


def _pieces(text: str, room: int) -> list[str]:
    """`text` cut in pieces of at most `room` bytes of UTF-8 (the first of
    `room`, the others of `_ROOM`), never inside a character."""
    if text.isascii():
        return [text[:room]] + [text[i:i + _ROOM] for i in range(room, len(text), _ROOM)]
    data = text.encode("utf-8")
    pieces: list[str] = []
    at = 0
    while True:
        end = at + room
        while end < len(data) and data[end] & 0xC0 == 0x80:  # inside a character
            end -= 1
        pieces.append(data[at:end].decode("utf-8"))
        if end >= len(data):
            return pieces
        at, room = end, _ROOM


class _Listener:
    """The messages of the notifications heard: each payload's number, then
    messages, each its length in characters, ":" and its text; the text of
    the last may go on in the next notifications from the same connection."""

    def __init__(self) -> None:
        self._going_on: dict[int, tuple[int, list[str]]] = {}
        """By sending connection: the characters its message still lacks, and its pieces."""

    def messages(self, sender: int, payload: str) -> list[str]:
        """Those `payload` ends (from the backend `sender`).

        Raises:
            ValueError: `payload` is not in that form.
        """
        messages: list[str] = []
        at = payload.index("\n") + 1
        lacking, pieces = self._going_on.pop(sender, (0, []))
        while lacking or at < len(payload):
            if not lacking:
                colon = payload.index(":", at)
                if not payload[at:colon].isdigit():
                    raise ValueError(f"no length at {at}")
                lacking, at = int(payload[at:colon]), colon + 1
            piece = payload[at:at + lacking]
            pieces.append(piece)
            lacking -= len(piece)
            at += len(piece)
            if lacking and at >= len(payload):  # on in the next notification
                self._going_on[sender] = lacking, pieces
                break
            messages.append("".join(pieces) if len(pieces) > 1 else piece)
            lacking, pieces = 0, []
        return messages


def channel(process: int) -> str:
    return f"csl_{process}"


def _results(pgconn: Any) -> tuple[bool, list[str]]:
    """Read what has come of the answer to the query sent on `pgconn`
    (psycopg.pq's, non-blocking): whether all of it has, and the database's
    messages for what it refused.

    Raises:
        ConnectionError: the connection is lost.
    """
    from psycopg import pq

    pgconn.consume_input()
    if pgconn.status != pq.ConnStatus.OK:
        raise ConnectionError(pgconn.get_error_message() or "closed")
    refused: list[str] = []
    while not pgconn.is_busy():
        result = pgconn.get_result()
        if result is None:
            return True, refused
        if result.status == pq.ExecStatus.FATAL_ERROR:
            refused.append((result.error_message or b"").decode("utf-8", "replace"))
    return False, refused


async def _answered(pgconn: Any) -> None:
    """Until the query sent on `pgconn` (psycopg.pq's, non-blocking) is sent
    and its results read.

    Raises:
        RuntimeError: the database refused it (with its message).
    """
    while pgconn.flush():  # more to send than the socket took
        await _ready(pgconn.socket, writing=True)
    refused: list[str] = []
    while True:
        done, more = _results(pgconn)
        refused += more
        if done:
            if refused:
                raise RuntimeError(refused[-1])
            return
        await _ready(pgconn.socket, writing=False)


async def _ready(fd: int, writing: bool) -> None:
    """Until the socket `fd` can be written (`writing`) or read."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def now_ready() -> None:
        if not ready.done():
            ready.set_result(None)
    (loop.add_writer if writing else loop.add_reader)(fd, now_ready)
    try:
        await ready
    finally:
        (loop.remove_writer if writing else loop.remove_reader)(fd)


class Relay:
    """One process's connections to the others, through PostgreSQL.

    Three connections: one listens (the event loop reads its notifications
    as its socket becomes readable), one sends (each batch of messages one
    query, libpq's own calls), one asks (ownership, the lobby: psycopg's
    async API). The sending connection is not watched: a batch's
    answer is read as the next batch is sent, by when it has come (a wait
    only if it has not), so a message sent costs no wake-up of its own."""

    def __init__(self, url: str, gather_s: float = GATHER_S) -> None:
        self.url = url
        self.gather_s = gather_s
        self.me = secrets.randbelow(2**31 - 2) + 1
        self._listening: Any = None
        self._sending: Any = None
        self._asking: Any = None
        self._out: list[tuple[str, str]] = []
        """Messages published and not yet sent: (channel, message) pairs."""
        self._seq = 0
        self._soon: asyncio.Handle | None = None  # the messages are to be sent then
        self._last = float("-inf")  # when the last batch was sent (the loop's clock)
        self._sent = False  # a batch is sent and its answer not all read
        self._watched = ""  # "r" or "w": the sending socket is watched to go on
        self._watched_fd = -1  # (kept: a lost connection has no socket to ask for)
        self._socket = -1
        """The listening connection's socket."""
        self.lost = asyncio.Event()
        """Set when a connection to the database is lost: the life lock may
        have gone with it, so the others take this process's games, and it
        must stop serving them."""

    async def start(self, heard: Callable[[str], None]) -> None:
        """Connect, take the life lock, and call `heard(payload)` for each message
        sent to this process or to all (this process's own to all included)."""
        import psycopg

        def connect() -> Any:  # named, so the database's views say which process is which
            return psycopg.AsyncConnection.connect(self.url, autocommit=True,
                                                   application_name=f"csl-game {self.me}")

        self._listening = await connect()
        await self._listening.execute("SELECT pg_advisory_lock(%s, %s)", (LIFE_LOCK, self.me))
        await self._listening.execute(f"LISTEN {ALL}")
        await self._listening.execute(f"LISTEN {channel(self.me)}")
        self._sending = await connect()
        self._sending.pgconn.send_prepare(b"csl_notify", _NOTIFY)  # parsed and planned once
        await _answered(self._sending.pgconn)
        self._asking = await connect()
        self._listen(heard)
        self._send()

    async def close(self) -> None:
        """Stop; the life lock goes with the connections (the others take over)."""
        if self._out and not self.lost.is_set():
            self._send()  # what waits for its time goes now (unless a batch is unanswered)
        if self._soon is not None:
            self._soon.cancel()
        if self._socket >= 0:
            asyncio.get_running_loop().remove_reader(self._socket)
        self._unwatch()
        if self._asking is not None:
            try:
                await self._asking.execute("DELETE FROM lobbies WHERE process = %s", (self.me,))
            except Exception:  # the database is gone: nothing to tidy
                log.debug("could not remove this process's lobby", exc_info=True)
        for conn in (self._sending, self._asking, self._listening):
            if conn is not None:
                await conn.close()

    # ------------------------------------------------------------ messages
    def publish(self, to: int | None, payload: str) -> None:
        """Send `payload` to process `to` (None: to every process), soon, in order:
        at the loop's next turn, or `gather_s` after the batch before if that
        is later (at a high rate, fewer batches, each of more messages: fewer
        notifications for the database to queue and for the others to wake for)."""
        self._out.append((ALL if to is None else channel(to), payload))
        if self._soon is None:
            loop = asyncio.get_running_loop()
            at = self._last + self.gather_s
            self._soon = loop.call_soon(self._send) if at <= loop.time() \
                else loop.call_at(at, self._send)

    def _send(self) -> None:
        """The messages published so far, as one query, once the batch before
        is answered."""
        if self._soon is not None:
            self._soon.cancel()  # (sent by the answer to the batch before)
            self._soon = None
        if self._watched or not self._out \
                or self._sending is None or self.lost.is_set():
            return  # (what is watched sends them once done)
        try:
            if self._sent and not self._answered():
                self._watch("r")  # not yet: on when it comes
                return
            batch, self._out = self._out, []
            # one JSON text of [channel, payload] pairs: json's C encoder makes
            # it, where psycopg would escape two arrays' texts one by one
            pgconn = self._sending.pgconn
            pgconn.send_query_prepared(b"csl_notify",
                                       [json.dumps(self._notes(batch)).encode("utf-8")])
            self._sent = True
            self._last = asyncio.get_running_loop().time()
            if pgconn.flush():  # more than the socket took: the rest once it has room
                self._watch("w")
        except Exception as e:  # the connection: psycopg's OperationalError
            self._lose(e)

    def _notes(self, batch: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """`batch` as notifications, (channel, payload) pairs: the messages that
        follow one another to one channel in one payload as many as fit (as
        `_Listener` reads them), a long one going on in the next. Each payload
        begins with a number of its own: PostgreSQL folds equal payloads of
        one transaction into one."""
        notes: list[tuple[str, str]] = []
        parts: list[str] = []
        to, room = "", _ROOM
        for dest, text in batch:
            head = f"{len(text)}:"
            if parts and (dest != to or room < len(head) + 1):
                notes.append((to, self._numbered(parts)))
                parts, room = [], _ROOM
            to = dest
            parts.append(head)
            room -= len(head)
            size = len(text) if text.isascii() else len(text.encode("utf-8"))
            if size <= room:
                parts.append(text)
                room -= size
                continue
            *whole, last = _pieces(text, room)  # (two pieces at least)
            for piece in whole:  # each fills a notification
                parts.append(piece)
                notes.append((to, self._numbered(parts)))
                parts = []
            parts.append(last)
            room = _ROOM - len(last.encode("utf-8"))
        if parts:
            notes.append((to, self._numbered(parts)))
        return notes

    def _numbered(self, parts: list[str]) -> str:
        self._seq += 1
        return f"{self._seq}\n" + "".join(parts)

    def _answered(self) -> bool:
        """Whether the batch sent is answered (its answer read: a refusal logged)."""
        done, refused = _results(self._sending.pgconn)
        for message in refused:
            log.error("could not relay messages: %s", message)
        self._sent = not done
        return done

    def _watch(self, how: str) -> None:
        """Go on sending once the sending socket is readable ("r": the answer
        came) or writable ("w": room for the rest of the batch)."""
        loop = asyncio.get_running_loop()
        self._watched_fd = fd = self._sending.pgconn.socket
        (loop.add_reader if how == "r" else loop.add_writer)(fd, self._go_on)
        self._watched = how

    def _unwatch(self) -> None:
        if self._watched:
            loop = asyncio.get_running_loop()
            fd = self._watched_fd
            (loop.remove_reader if self._watched == "r" else loop.remove_writer)(fd)
            self._watched = ""

    def _go_on(self) -> None:
        try:
            if self._watched == "w" and self._sending.pgconn.flush():
                return  # still more to send
        except Exception as e:
            self._lose(e)
            return
        self._unwatch()
        self._send()

    def _lose(self, e: Exception) -> None:
        if self._socket >= 0:
            asyncio.get_running_loop().remove_reader(self._socket)
        self._unwatch()
        log.error("the database's notifications ended: %s", e)
        self.lost.set()

    def _listen(self, heard: Callable[[str], None]) -> None:
        """Hear the notifications as libpq reads them, when the listening
        connection's socket is readable: a callback of the event loop's, where
        psycopg's notifies() generator took a task's wake-ups and a timer each."""
        from psycopg import pq

        pgconn = self._listening.pgconn
        self._socket = pgconn.socket
        listener = _Listener()

        def readable() -> None:
            try:
                pgconn.consume_input()
                if pgconn.status != pq.ConnStatus.OK:  # ended by the database
                    raise ConnectionError(pgconn.get_error_message() or "closed")
            except Exception as e:  # the connection: psycopg's OperationalError
                self._lose(e)
                return
            while (note := pgconn.notifies()) is not None:
                try:
                    messages = listener.messages(note.be_pid, note.extra.decode("utf-8"))
                except ValueError:
                    log.error("a notification not in the relay's form: %.200r", note.extra)
                    continue
                for text in messages:
                    try:
                        heard(text)
                    except Exception:
                        log.exception("a relayed message failed: %.200s", text)

        asyncio.get_running_loop().add_reader(self._socket, readable)
        readable()  # any heard before the reader was added

    # ------------------------------------------------------------ ownership
    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        cur = await self._asking.execute(sql, params)
        return list(await cur.fetchall()) if cur.description else []

    async def claim(self, game: str, code: str) -> None:
        """A new game is this process's."""
        await self._rows("INSERT INTO owners (game, code, process) VALUES (%s, %s, %s)",
                         (game, code, self.me))

    async def release(self, games: list[str]) -> None:
        """Games that ended before the database had them (nobody joined)."""
        await self._rows("DELETE FROM owners WHERE game = ANY(%s) AND process = %s",
                         (games, self.me))

    async def owner(self, game: str = "", codes: tuple[str, ...] = ()) -> tuple[str, int] | None:
        """The game of id `game` (or of a join code among `codes`) and its owner, if it lives."""
        rows = await self._rows("SELECT game, process FROM owners WHERE "
                                + ("game = %s" if game else "code = ANY(%s)"),
                                (game or list(codes),))
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    async def look(self, known: set[int], pair: bool) -> tuple[list[int], bool]:
        """The processes that ended, among the games' owners and `known`: those
        whose life lock no session of this database holds (PostgreSQL's
        pg_locks, which lists each lock held); and, if `pair`, whether this
        process now pairs the ladder (it took the pairing lock). One query,
        as each process asks it every `check_s`.
        """
        rows = await self._rows(
            "SELECT ARRAY(SELECT p FROM (SELECT process AS p FROM owners "
            "UNION SELECT unnest(%s::bigint[])) AS t WHERE p <> %s AND NOT EXISTS "
            "(SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND objsubid = 2 AND classid::bigint = %s AND objid::bigint = p) ORDER BY p), "
            "CASE WHEN %s THEN pg_try_advisory_lock(%s, 0) ELSE false END",
            (sorted(known), self.me, LIFE_LOCK, pair, PAIRING_LOCK))
        return [int(p) for p in rows[0][0]], bool(rows[0][1])

    async def take_over(self, dead: list[int]) -> list[str]:
        """The games of the processes that ended `dead`, now this process's
        (one UPDATE: each game gets one new owner, whoever else looks)."""
        taken = [str(r[0]) for r in await self._rows(
            "UPDATE owners SET process = %s WHERE process = ANY(%s) RETURNING game",
            (self.me, dead))]
        await self._rows("DELETE FROM lobbies WHERE process = ANY(%s)", (dead,))
        return taken

    async def tidy(self) -> list[str]:
        """The games in progress nobody owns (stored by a process that ended
        before it claimed them), now this process's; and the owners' rows of
        this process's games that ended, deleted."""
        taken = [str(r[0]) for r in await self._rows(
            "INSERT INTO owners (game, code, process) SELECT id, settings::json ->> 'code', %s "
            "FROM games WHERE state = 'playing' AND NOT EXISTS "
            "(SELECT 1 FROM owners WHERE owners.game = games.id) "
            "ON CONFLICT DO NOTHING RETURNING game", (self.me,))]
        await self._rows("DELETE FROM owners USING games WHERE owners.process = %s AND "
                         "games.id = owners.game AND games.state <> 'playing'", (self.me,))
        return taken

    async def bots_playing(self) -> dict[str, int]:
        """The games in progress each bot plays that this process does not own
        (every other process's, and those of processes that ended, which
        will be taken over), as the database has them."""
        return {str(name): int(n) for name, n in await self._rows(
            "SELECT substr(seat, 5), count(*) FROM games "
            "LEFT JOIN owners ON owners.game = games.id "
            "CROSS JOIN LATERAL json_array_elements_text(games.settings::json -> 'seats') "
            "AS seat WHERE games.state = 'playing' AND seat LIKE 'bot:%%' "
            "AND owners.process IS DISTINCT FROM %s GROUP BY 1", (self.me,))}

    # ------------------------------------------------------------ the lobby
    async def put_lobby(self, doc: str) -> None:
        """This process's part of the lobby (its games), for the others to read."""
        await self._rows("INSERT INTO lobbies (process, doc) VALUES (%s, %s) ON CONFLICT "
                         "(process) DO UPDATE SET doc = EXCLUDED.doc", (self.me, doc))

    async def lobbies(self) -> dict[int, str]:
        """The other processes' parts of the lobby."""
        return {int(p): str(d) for p, d in await self._rows(
            "SELECT process, doc FROM lobbies WHERE process <> %s", (self.me,))}
