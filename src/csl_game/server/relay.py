"""Several server processes on one PostgreSQL database: its LISTEN/NOTIFY and its locks.

PostgreSQL is already the database of a real deployment, so its own pub/sub
carries the processes' messages: no broker to run beside it. Each process
has a number (`me`) and a channel of its own (``csl_<me>``), and all listen
to ``csl_all``. A process is alive while it holds its life lock (a session
advisory lock on its listening connection): when it ends, or is killed, or
its connection to the database is lost, PostgreSQL lets the lock go, and
another process can take it: that is how the others learn it is gone. Which
process owns each live game is a row of the `owners` table
(csl_game.server.store.CLUSTER_SCHEMA), taken over in one UPDATE, so each
game has one owner. Each process's part of the lobby is a row of `lobbies`.

`Relay` is the I/O only (psycopg 3's connections on the event loop: its
async API for the queries, and libpq's own calls, psycopg.pq, for the
notifications heard and sent, the most frequent); what the messages mean is
csl_game.server.cluster's. A notification's
payload is at most 8,000 bytes: a longer message (a long game's whole
state) is kept in the `relayed` table and its row's number sent instead; its
receiver reads it (and deletes it) in turn, so messages keep their order.
Messages to all are short.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

from csl_game.server.store import SCHEMA_LOCK

__all__ = ["Relay", "MAX_PAYLOAD"]

log = logging.getLogger(__name__)
LIFE_LOCK = SCHEMA_LOCK + 1
"""The advisory locks' class of the processes' life locks (the second key is the process)."""
PAIRING_LOCK = SCHEMA_LOCK + 2
"""The advisory lock of the process that pairs the ladder's bots."""
MAX_PAYLOAD = 7999
ALL = "csl_all"


_NOTIFY = (b"SELECT pg_notify(m ->> 0, m ->> 1) FROM json_array_elements($1::json) "
           b"WITH ORDINALITY AS t(m, n) ORDER BY n")


def channel(process: int) -> str:
    return f"csl_{process}"


async def _answered(pgconn: Any) -> None:
    """Until the query sent on `pgconn` (psycopg.pq's, non-blocking) is sent
    and its results read.

    Raises:
        RuntimeError: the database refused it (with its message).
    """
    from psycopg import pq

    while pgconn.flush():  # more to send than the socket took
        await _ready(pgconn.socket, writing=True)
    refused = ""
    while True:
        pgconn.consume_input()
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                if refused:
                    raise RuntimeError(refused)
                return
            if result.status == pq.ExecStatus.FATAL_ERROR:
                refused = (result.error_message or b"").decode("utf-8", "replace")
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
    """One process's connections to the others, through PostgreSQL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.me = secrets.randbelow(2**31 - 2) + 1
        self._listening: Any = None
        self._sending: Any = None
        self._asking: Any = None
        self._out: list[tuple[str, str]] = []
        self._more = asyncio.Event()
        self._seq = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._prepared = False
        self._socket = -1
        """The listening connection's socket, watched for notifications."""
        self._reading: asyncio.Task[None] | None = None
        """Reading a long message from its table (the others wait behind it)."""
        self.lost = asyncio.Event()
        """Set when the listening connection is lost: the life lock went with it,
        so the others take this process's games, and it must stop serving them."""

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
        self._asking = await connect()
        self._tasks = [asyncio.create_task(self._send())]
        self._listen(heard)

    async def close(self) -> None:
        """Stop; the life lock goes with the connections (the others take over)."""
        if self._socket >= 0:
            asyncio.get_running_loop().remove_reader(self._socket)
        for task in self._tasks + ([self._reading] if self._reading else []):
            task.cancel()
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
        """Send `payload` to process `to` (None: to every process), soon, in order."""
        self._seq += 1  # PostgreSQL folds equal payloads of one transaction into one
        self._out.append((ALL if to is None else channel(to), f"{self._seq}\n{payload}"))
        self._more.set()

    async def _send(self) -> None:
        while True:
            await self._more.wait()
            self._more.clear()
            batch, self._out = self._out, []
            if not batch:
                continue
            try:
                for i, (to, text) in enumerate(batch):
                    if len(text.encode("utf-8")) > MAX_PAYLOAD:  # too long for a notification
                        spilled = await self._sending.execute(
                            "INSERT INTO relayed (doc) VALUES (%s) RETURNING id", (text,))
                        batch[i] = (to, f"@{(await spilled.fetchone())[0]}")
                # one JSON text of [channel, payload] pairs: json's C encoder makes
                # it, where psycopg would escape two arrays' texts one by one
                await self._notify(json.dumps(batch).encode("utf-8"))
            except Exception:
                log.exception("could not relay %d messages", len(batch))

    async def _notify(self, batch: bytes) -> None:
        """Send the notifications of `batch` (a JSON array of [channel,
        payload] pairs) in one query on the sending connection, made with
        libpq's own calls (psycopg.pq, which psycopg documents for this):
        psycopg's execute, with its cursor, its query conversion and its
        statement cache, cost more than the query itself at a light load.

        Raises:
            RuntimeError: the database refused the query (with its message).
        """
        pgconn = self._sending.pgconn
        if not self._prepared:  # parsed and planned once, as psycopg would
            pgconn.send_prepare(b"csl_notify", _NOTIFY)
            await _answered(pgconn)
            self._prepared = True
        pgconn.send_query_prepared(b"csl_notify", [batch])
        await _answered(pgconn)

    def _listen(self, heard: Callable[[str], None]) -> None:
        """Hear the notifications as libpq reads them, when the listening
        connection's socket is readable: a callback of the event loop's, where
        psycopg's notifies() generator took a task's wake-ups and a timer each."""
        from psycopg import pq

        pgconn = self._listening.pgconn
        self._socket = pgconn.socket
        waiting: list[str] = []  # behind a long message being read from its table

        def readable() -> None:
            try:
                pgconn.consume_input()
                if pgconn.status != pq.ConnStatus.OK:  # ended by the database
                    raise ConnectionError(pgconn.get_error_message() or "closed")
            except Exception as e:  # the connection: psycopg's OperationalError
                asyncio.get_running_loop().remove_reader(self._socket)
                log.error("the database's notifications ended: %s", e)
                self.lost.set()
                return
            while (note := pgconn.notifies()) is not None:
                waiting.append(note.extra.decode("utf-8"))
            if waiting and not self._reading:
                hear()

        def hear() -> None:
            while waiting:
                text = waiting[0]
                if text.startswith("@"):  # read in turn, so messages keep their order
                    self._reading = asyncio.create_task(read(text))
                    return
                tell(waiting.pop(0))

        async def read(text: str) -> None:
            try:
                rows = await self._rows("DELETE FROM relayed WHERE id = %s RETURNING doc",
                                        (int(text[1:]),))
                waiting[0] = str(rows[0][0])
            except Exception:
                log.exception("a relayed message could not be read: %.200s", text)
                waiting.pop(0)
            self._reading = None
            hear()

        def tell(text: str) -> None:
            try:
                heard(text.split("\n", 1)[1])
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

    async def owner(self, game: str = "", code: str = "") -> tuple[str, int] | None:
        """The game of id `game` (or of join code `code`) and its owner, if it lives."""
        rows = await self._rows("SELECT game, process FROM owners WHERE "
                                + ("game = %s" if game else "code = %s"), (game or code,))
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    async def gone(self, processes: set[int]) -> list[int]:
        """Those of `processes` that ended (their life lock is free)."""
        dead = []
        for process in sorted(processes - {self.me}):
            rows = await self._rows("SELECT pg_try_advisory_lock(%s, %s)", (LIFE_LOCK, process))
            if rows[0][0]:
                await self._rows("SELECT pg_advisory_unlock(%s, %s)", (LIFE_LOCK, process))
                dead.append(process)
        return dead

    async def take_over(self, known: set[int]) -> tuple[list[int], list[str]]:
        """The processes that ended (among the games' owners and `known`), and
        the games this process took from them, with the games in progress
        nobody owns (stored before any process claimed them)."""
        owners = {int(r[0]) for r in await self._rows("SELECT DISTINCT process FROM owners")}
        dead = await self.gone(owners | known)
        taken: list[str] = []
        if dead:
            taken = [str(r[0]) for r in await self._rows(
                "UPDATE owners SET process = %s WHERE process = ANY(%s) RETURNING game",
                (self.me, dead))]
            await self._rows("DELETE FROM lobbies WHERE process = ANY(%s)", (dead,))
        taken += [str(r[0]) for r in await self._rows(
            "INSERT INTO owners (game, code, process) SELECT id, settings::json ->> 'code', %s "
            "FROM games WHERE state = 'playing' AND NOT EXISTS "
            "(SELECT 1 FROM owners WHERE owners.game = games.id) "
            "ON CONFLICT DO NOTHING RETURNING game", (self.me,))]
        await self._rows("DELETE FROM owners USING games WHERE owners.process = %s AND "
                         "games.id = owners.game AND games.state <> 'playing'", (self.me,))
        return dead, taken

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

    async def pairing(self) -> bool:
        """Whether this process pairs the ladder (one process does, until it ends)."""
        rows = await self._rows("SELECT pg_try_advisory_lock(%s, 0)", (PAIRING_LOCK,))
        return bool(rows[0][0])

    # ------------------------------------------------------------ the lobby
    async def put_lobby(self, doc: str) -> None:
        """This process's part of the lobby (its games), for the others to read."""
        await self._rows("INSERT INTO lobbies (process, doc) VALUES (%s, %s) ON CONFLICT "
                         "(process) DO UPDATE SET doc = EXCLUDED.doc", (self.me, doc))

    async def lobbies(self) -> dict[int, str]:
        """The other processes' parts of the lobby."""
        return {int(p): str(d) for p, d in await self._rows(
            "SELECT process, doc FROM lobbies WHERE process <> %s", (self.me,))}
