"""The game server's store in PostgreSQL (psycopg 3), for a real deployment,
and the tables and locks of several processes sharing it.

PostgreSQL runs the same SQL as SQLite (csl_game.server.store), placeholders
aside; its own tables say which process owns each live game
(csl_game.server.relay, csl_game.server.cluster).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from csl_game.server.store import SCHEMA, Store

__all__ = ["PostgresStore", "CLUSTER_SCHEMA", "SCHEMA_LOCK"]

CLUSTER_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS owners (
        game TEXT PRIMARY KEY,
        code TEXT UNIQUE,
        process BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS owners_process ON owners (process)",
    """CREATE TABLE IF NOT EXISTS lobbies (
        process BIGINT PRIMARY KEY,
        doc TEXT NOT NULL)""",
)
"""PostgreSQL's own tables, for several processes (csl_game.server.relay): which
process owns each live game, and each process's part of the lobby."""

SCHEMA_LOCK = 0x43534C
"""The advisory lock's class taken to make the tables (csl_game.server.relay keeps others)."""


class PostgresStore(Store):
    """The store in a PostgreSQL database, by its URL (psycopg 3)."""

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        import psycopg  # only a PostgreSQL deployment needs it (csl-game[server])

        self.url = url
        self._db = psycopg.connect(url, autocommit=True)
        self._lock = threading.Lock()
        self.create_schema()

    def create_schema(self) -> None:
        """The tables, made by one process at a time (several may start at once)."""
        with self._cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s, 0)", (SCHEMA_LOCK,))
            for statement in (*SCHEMA, *CLUSTER_SCHEMA):
                cur.execute(statement)

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock, self._db.transaction(), self._db.cursor() as cur:
            yield cur

    def _moves(self, cur: Any, moved: list[tuple[Any, ...]]) -> None:
        """The moves in one statement, their columns as arrays: psycopg's
        executemany sends a statement a row, which took twice the CPU at a
        busy server's batch of 80 moves (benchmarks/store_moves.py)."""
        if moved:
            cur.execute("INSERT INTO moves (game, ply, col, shape, ms) SELECT * FROM unnest("
                        "%s::text[], %s::int[], %s::int[], %s::text[], %s::float8[])",
                        [list(column) for column in zip(*moved)])
            moved.clear()

    def close(self) -> None:
        with self._lock:
            self._db.close()
