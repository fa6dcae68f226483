"""The game server's database: bots, games and their moves, behind one small interface.

`Store` is what the server needs of a database; `SqliteStore` keeps it in a
file with the standard library's sqlite3 (nothing to install), `PostgresStore`
in a PostgreSQL server (psycopg 3) for a real deployment. Both run the same
SQL (placeholders aside). Calls block: the server makes them on one thread of
its own (`csl_game.server.hub`), never on the event loop.

A game's moves are written as they are played, so a restart resumes every
game in progress where it stood; a finished game keeps its result as the
results file records it (`csl_game.engine.result_to_json`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Store", "SqliteStore", "PostgresStore", "GameRow", "open_store", "SCHEMA"]

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS bots (
        name TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        white TEXT NOT NULL,
        red TEXT NOT NULL,
        settings TEXT NOT NULL,
        moves TEXT NOT NULL,
        state TEXT NOT NULL,
        result TEXT,
        created DOUBLE PRECISION NOT NULL,
        ended DOUBLE PRECISION)""",
    "CREATE INDEX IF NOT EXISTS games_state ON games (state)",
    """CREATE TABLE IF NOT EXISTS analyses (
        id TEXT PRIMARY KEY,
        doc TEXT NOT NULL)""",
)
"""The tables: one row a bot (its token only hashed), one row a game."""


@dataclass(frozen=True)
class GameRow:
    """One game as the database keeps it."""

    id: str
    kind: str
    """'ladder' (two bots), 'friend', 'open' or 'ai'."""
    white: str
    red: str
    settings: dict[str, Any]
    """The game's settings, as `csl_game.online.protocol.config_json` gives them."""
    moves: list[dict[str, Any]]
    """Moves so far: {"col", "shape", "ms"}."""
    state: str
    """'playing' or 'over'."""
    result: dict[str, Any] | None
    """The result as the results file records it, once over."""
    created: float
    ended: float | None = None


class Store(ABC):
    """What the server keeps: bots (name and hashed token) and games."""

    placeholder = "?"

    @abstractmethod
    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        """A cursor in a transaction, committed when the block ends."""

    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def _run(self, text: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._cursor() as cur:
            cur.execute(self._sql(text), tuple(params))
            return list(cur.fetchall()) if cur.description else []

    def create_schema(self) -> None:
        for statement in SCHEMA:
            self._run(statement)

    # ------------------------------------------------------------ bots
    def add_bot(self, name: str, token_hash: str) -> bool:
        """Register a bot; False when the name is taken."""
        if self.bot_hash(name) is not None:
            return False
        self._run("INSERT INTO bots (name, token_hash, created) VALUES (?, ?, ?)",
                  (name, token_hash, time.time()))
        return True

    def bot_hash(self, name: str) -> str | None:
        rows = self._run("SELECT token_hash FROM bots WHERE name = ?", (name,))
        return str(rows[0][0]) if rows else None

    def bots(self) -> list[str]:
        return [str(r[0]) for r in self._run("SELECT name FROM bots ORDER BY name")]

    # ------------------------------------------------------------ games
    def add_game(self, row: GameRow) -> None:
        self._run("INSERT INTO games (id, kind, white, red, settings, moves, state, result, "
                  "created, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (row.id, row.kind, row.white, row.red, json.dumps(row.settings),
                   json.dumps(row.moves), row.state,
                   None if row.result is None else json.dumps(row.result), row.created,
                   row.ended))

    def save_moves(self, game_id: str, moves: list[dict[str, Any]]) -> None:
        self._run("UPDATE games SET moves = ? WHERE id = ?", (json.dumps(moves), game_id))

    def set_players(self, game_id: str, white: str, red: str) -> None:
        self._run("UPDATE games SET white = ?, red = ? WHERE id = ?", (white, red, game_id))

    def save_seats(self, game_id: str, seats: list[str]) -> None:
        """Who sits where (kept with the settings, so a restart knows the players)."""
        rows = self._run("SELECT settings FROM games WHERE id = ?", (game_id,))
        if rows:
            settings = {**json.loads(rows[0][0]), "seats": seats}
            self._run("UPDATE games SET settings = ? WHERE id = ?",
                      (json.dumps(settings), game_id))

    def drop_game(self, game_id: str) -> None:
        """A game that never started (nobody took the second seat)."""
        self._run("UPDATE games SET state = 'dropped', ended = ? WHERE id = ?",
                  (time.time(), game_id))

    def finish_game(self, game_id: str, moves: list[dict[str, Any]],
                    result: dict[str, Any]) -> None:
        self._run("UPDATE games SET moves = ?, state = 'over', result = ?, ended = ? "
                  "WHERE id = ?", (json.dumps(moves), json.dumps(result), time.time(),
                                   game_id))

    def save_analysis(self, game_id: str, doc: dict[str, Any]) -> None:
        """A finished game's analysis (csl_game.server.analysis), kept once made."""
        if self.analysis(game_id) is None:
            self._run("INSERT INTO analyses (id, doc) VALUES (?, ?)", (game_id, json.dumps(doc)))

    def analysis(self, game_id: str) -> dict[str, Any] | None:
        rows = self._run("SELECT doc FROM analyses WHERE id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None

    def game(self, game_id: str) -> GameRow | None:
        rows = self._run(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _row(rows[0]) if rows else None

    def games(self, state: str, kind: str | None = None, limit: int = 100_000) -> list[GameRow]:
        """Games in `state` ('playing' or 'over'), of `kind` if given, oldest first."""
        where = "state = ?" + (" AND kind = ?" if kind else "")
        params: tuple[Any, ...] = (state, kind) if kind else (state,)
        rows = self._run(f"SELECT {_COLUMNS} FROM games WHERE {where} ORDER BY created "
                         f"LIMIT {int(limit)}", params)
        return [_row(r) for r in rows]

    def close(self) -> None:  # noqa: B027 (a store holding nothing open needs nothing)
        """Close the connection."""


_COLUMNS = "id, kind, white, red, settings, moves, state, result, created, ended"


def _row(r: tuple[Any, ...]) -> GameRow:
    return GameRow(str(r[0]), str(r[1]), str(r[2]), str(r[3]), json.loads(r[4]),
                   json.loads(r[5]), str(r[6]), None if r[7] is None else json.loads(r[7]),
                   float(r[8]), None if r[9] is None else float(r[9]))


class SqliteStore(Store):
    """The store in an SQLite file (write-ahead log, one connection, one lock)."""

    def __init__(self, path: Path | str) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self.create_schema()

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()


class PostgresStore(Store):
    """The store in a PostgreSQL database, by its URL (psycopg 3)."""

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        import psycopg  # only a PostgreSQL deployment needs it (csl-game[server])

        self._db = psycopg.connect(url, autocommit=True)
        self._lock = threading.Lock()
        self.create_schema()

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock, self._db.transaction(), self._db.cursor() as cur:
            yield cur

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_store(where: str) -> Store:
    """The store `where` names: a postgresql:// URL, else an SQLite file's path."""
    if where.startswith(("postgresql://", "postgres://")):
        return PostgresStore(where)
    return SqliteStore(where)
