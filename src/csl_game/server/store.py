"""The game server's database: bots, games and their moves, behind one small interface.

`Store` is what the server needs of a database; `SqliteStore` keeps it in a
file with the standard library's sqlite3 (nothing to install),
csl_game.server.postgres's `PostgresStore` in a PostgreSQL server (psycopg 3)
for a real deployment. Both run the same SQL (placeholders aside). Calls
block: the server makes them on one thread of its own
(`csl_game.server.hub`), never on the event loop.

The server writes in batches (`apply`: a list of `Write`s in one
transaction). A game's moves are appended as they are played, a row each
(never the game rewritten), so a restart resumes every game in progress
where it stood; a finished game keeps its result as the results file
records it (`csl_game.engine.result_to_json`). A database from before the
moves table keeps its games' moves in the games table's own column, which
is read first.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from csl_game.errors import UsageError
from csl_game.server.glicko import DEFAULT, Glicko, rate

__all__ = ["Store", "SqliteStore", "GameRow", "SCHEMA", "Write",
           "NewGame", "Moved", "Seated", "TakenBack", "Finished", "Rated", "Dropped", "game_settings"]

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
    """CREATE TABLE IF NOT EXISTS moves (
        game TEXT NOT NULL,
        ply INTEGER NOT NULL,
        col INTEGER NOT NULL,
        shape TEXT NOT NULL,
        ms DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game, ply))""",
    """CREATE TABLE IF NOT EXISTS analyses (
        id TEXT PRIMARY KEY,
        doc TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS players (
        key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        pass_hash TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        rd DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        created DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS logins (
        session TEXT PRIMARY KEY,
        player TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS player_games (
        player TEXT NOT NULL,
        game TEXT NOT NULL,
        rating DOUBLE PRECISION,
        rd DOUBLE PRECISION,
        PRIMARY KEY (player, game))""",
)
"""The tables: one row a bot (its token only hashed), one row a game, one row a move."""

_ADD_MOVES = "INSERT INTO moves (game, ply, col, shape, ms) VALUES (?, ?, ?, ?, ?)"

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


@dataclass(frozen=True)
class NewGame:
    """A game was made (its moves, if any, follow as `Moved`)."""

    row: GameRow


@dataclass(frozen=True)
class Moved:
    """Move `ply` of a game was played: one row appended."""

    game: str
    ply: int
    col: int
    shape: str
    ms: float


@dataclass(frozen=True)
class Seated:
    """A game's second player sat down: its names and seats."""

    game: str
    names: list[str]
    seats: list[str]


@dataclass(frozen=True)
class TakenBack:
    """The players agreed to take moves back: a game's moves from `ply` on go."""

    game: str
    ply: int


@dataclass(frozen=True)
class Finished:
    game: str
    result: dict[str, Any]
    """The result as the results file records it."""


@dataclass(frozen=True)
class Rated:
    """A rated game between two players with accounts ended: both are rated
    (Glicko-2, csl_game.server.glicko) by `score`, White's (1, 0.5 or 0)."""

    game: str
    white: str
    red: str
    score: float


@dataclass(frozen=True)
class Dropped:
    """A game that never started (nobody took the second seat)."""

    game: str


Write = NewGame | Moved | Seated | TakenBack | Finished | Rated | Dropped


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

    def secret(self, name: str, make: Callable[[], str]) -> str:
        """The server's secret `name` (its session cookies' key), made by
        `make` the first time: every process of one database shares it."""
        self._run("INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING",
                  (name, make()))
        return str(self._run("SELECT value FROM secrets WHERE name = ?", (name,))[0][0])

    # ------------------------------------------------------------ games
    def add_game(self, row: GameRow) -> None:
        self.apply([NewGame(row)])

    def apply(self, writes: Sequence[Write], check: Callable[[Any, Sequence[Write]], None]
              | None = None) -> None:
        """Make `writes`, in order, in one transaction (after `check(cursor,
        writes)`, which may refuse them by raising)."""
        with self._cursor() as cur:
            if check is not None:
                check(cur, writes)
            moved: list[tuple[Any, ...]] = []
            for write in writes:
                if isinstance(write, Moved):
                    moved.append((write.game, write.ply, write.col, write.shape, write.ms))
                    continue
                self._moves(cur, moved)
                self._write(cur, write)
            self._moves(cur, moved)

    def _moves(self, cur: Any, moved: list[tuple[Any, ...]]) -> None:
        """Rows of the moves table (game, ply, col, shape, ms), added (and `moved` emptied)."""
        if moved:
            cur.executemany(self._sql(_ADD_MOVES), moved)
            moved.clear()

    def _write(self, cur: Any, write: Write) -> None:
        sql = self._sql
        match write:
            case NewGame(row):
                cur.execute(sql("INSERT INTO games (id, kind, white, red, settings, moves, state, "
                                "result, created, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                            (row.id, row.kind, row.white, row.red,
                             orjson.dumps(row.settings).decode(), "[]", row.state,
                             None if row.result is None else orjson.dumps(row.result).decode(),
                             row.created, row.ended))
                self._moves(cur, [(row.id, ply, m["col"], m["shape"], m["ms"])
                                  for ply, m in enumerate(row.moves)])
                seats = row.settings.get("seats") or ()
                cur.executemany(sql("INSERT INTO player_games (player, game) VALUES (?, ?)"),
                                [(seat[5:].casefold(), row.id) for seat in seats
                                 if isinstance(seat, str) and seat.startswith("user:")])
            case Seated(game, names, seats):
                cur.execute(sql("SELECT settings FROM games WHERE id = ?"), (game,))
                found = cur.fetchall()
                if found:
                    settings = {**json.loads(found[0][0]), "seats": seats}
                    cur.execute(sql("UPDATE games SET white = ?, red = ?, settings = ? "
                                    "WHERE id = ?"),
                                (names[0], names[1], orjson.dumps(settings).decode(), game))
            case TakenBack(game, ply):
                cur.execute(sql("DELETE FROM moves WHERE game = ? AND ply >= ?"), (game, ply))
            case Rated():
                self._rate(cur, write)
            case Finished(game, result):
                cur.execute(sql("UPDATE games SET state = 'over', result = ?, ended = ? "
                                "WHERE id = ?"), (orjson.dumps(result).decode(), time.time(), game))
            case Dropped(game):
                cur.execute(sql("UPDATE games SET state = 'dropped', ended = ? WHERE id = ?"),
                            (time.time(), game))

    def _rate(self, cur: Any, rated: Rated) -> None:
        """Both players' new ratings, from their ratings before the game."""
        before = []
        for name in (rated.white, rated.red):
            cur.execute(self._sql("SELECT rating, rd, volatility FROM players WHERE key = ?"),
                        (name.casefold(),))
            found = cur.fetchall()
            before.append(Glicko(*map(float, found[0])) if found else None)
        if None in before:
            return
        white, red = before
        assert white is not None and red is not None
        for name, now in ((rated.white, rate(white, [(red, rated.score)])),
                          (rated.red, rate(red, [(white, 1 - rated.score)]))):
            cur.execute(self._sql("UPDATE players SET rating = ?, rd = ?, volatility = ? "
                                  "WHERE key = ?"),
                        (now.rating, now.rd, now.volatility, name.casefold()))
            cur.execute(self._sql("UPDATE player_games SET rating = ?, rd = ? "
                                  "WHERE player = ? AND game = ?"),
                        (now.rating, now.rd, name.casefold(), rated.game))

    # ------------------------------------------------------------ people's accounts
    def add_player(self, name: str, pass_hash: str) -> bool:
        """An account called `name` (its password only hashed); False when the
        name is taken, in any case."""
        if self.player(name) is not None:
            return False
        self._run("INSERT INTO players (key, name, pass_hash, rating, rd, volatility, created) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)", (name.casefold(), name, pass_hash,
                                                   DEFAULT.rating, DEFAULT.rd,
                                                   DEFAULT.volatility, time.time()))
        return True

    def player(self, name: str) -> tuple[str, str, Glicko] | None:
        """An account's name as it was made, its password's hash and its rating."""
        rows = self._run("SELECT name, pass_hash, rating, rd, volatility FROM players "
                         "WHERE key = ?", (name.casefold(),))
        if not rows:
            return None
        name, pass_hash, *rating = rows[0]
        return str(name), str(pass_hash), Glicko(*map(float, rating))

    def log_in(self, session: str, name: str | None) -> None:
        """The browser session `session` (its hash) is `name`'s (None: nobody's)."""
        self._run("DELETE FROM logins WHERE session = ?", (session,))
        if name is not None:
            self._run("INSERT INTO logins (session, player) VALUES (?, ?)",
                      (session, name.casefold()))

    def logged_in(self, session: str) -> str | None:
        """The account name the session `session` (its hash) is signed in to."""
        rows = self._run("SELECT p.name FROM logins l JOIN players p ON p.key = l.player "
                         "WHERE l.session = ?", (session,))
        return str(rows[0][0]) if rows else None

    def player_games(self, name: str) -> list[tuple[str, float | None, float | None]]:
        """An account's games, oldest first: each id, and the rating and RD it
        gave (None: not rated, or not over)."""
        rows = self._run("SELECT pg.game, pg.rating, pg.rd FROM player_games pg JOIN games g "
                         "ON g.id = pg.game WHERE pg.player = ? ORDER BY g.created",
                         (name.casefold(),))
        return [(str(g), None if r is None else float(r), None if d is None else float(d))
                for g, r, d in rows]

    def save_analysis(self, game_id: str, doc: dict[str, Any]) -> None:
        """A finished game's analysis (csl_game.server.analysis), kept once made."""
        if self.analysis(game_id) is None:
            self._run("INSERT INTO analyses (id, doc) VALUES (?, ?)", (game_id, json.dumps(doc)))

    def analysis(self, game_id: str) -> dict[str, Any] | None:
        rows = self._run("SELECT doc FROM analyses WHERE id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None

    def game(self, game_id: str) -> GameRow | None:
        rows = self._run(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if not rows:
            return None
        moves = self._run("SELECT game, col, shape, ms FROM moves WHERE game = ? ORDER BY ply",
                          (game_id,))
        return _row(rows[0], _by_game(moves))

    def games(self, state: str, kind: str | None = None, limit: int = 100_000,
              moves: bool = True) -> list[GameRow]:
        """Games in `state` ('playing' or 'over'), of `kind` if given, oldest
        first (with their moves, unless `moves` is False)."""
        where = "state = ?" + (" AND kind = ?" if kind else "")
        params: tuple[Any, ...] = (state, kind) if kind else (state,)
        rows = self._run(f"SELECT {_COLUMNS} FROM games WHERE {where} ORDER BY created "
                         f"LIMIT {int(limit)}", params)
        played: dict[str, list[dict[str, Any]]] = {}
        if moves and rows:
            played = _by_game(self._run(
                f"SELECT game, col, shape, ms FROM moves WHERE game IN "
                f"(SELECT id FROM games WHERE {where}) ORDER BY game, ply", params))
        return [_row(r, played) for r in rows]

    def close(self) -> None:  # noqa: B027 (a store holding nothing open needs nothing)
        """Close the connection."""


def game_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A stored game's settings without the server's own keys (its seats, code
    and people's time control)."""
    return {k: v for k, v in settings.items()
            if k not in ("seats", "code", "timecontrol", "rated")}


_COLUMNS = "id, kind, white, red, settings, moves, state, result, created, ended"


def _by_game(rows: list[tuple[Any, ...]]) -> dict[str, list[dict[str, Any]]]:
    """Move rows (game, col, shape, ms), in order, by game."""
    found: dict[str, list[dict[str, Any]]] = {}
    for game, col, shape, ms in rows:
        found.setdefault(str(game), []).append({"col": int(col), "shape": str(shape),
                                                "ms": float(ms)})
    return found


def _row(r: tuple[Any, ...], moves: dict[str, list[dict[str, Any]]]) -> GameRow:
    """A game's row: its moves those of the games table's own column (a
    database from before the moves table) and then its rows of moves."""
    return GameRow(str(r[0]), str(r[1]), str(r[2]), str(r[3]), json.loads(r[4]),
                   json.loads(r[5]) + moves.get(str(r[0]), []), str(r[6]),
                   None if r[7] is None else json.loads(r[7]), float(r[8]),
                   None if r[9] is None else float(r[9]))


class SqliteStore(Store):
    """The store in an SQLite file (write-ahead log, one connection, one lock)."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._held: Any = None
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

    def serve_alone(self) -> None:
        """Hold the file for one serving process (a lock beside it, until `close`):
        SQLite serves one process; several share a PostgreSQL database.

        Raises:
            UsageError: another process serves this file.
        """
        if self.path == ":memory:" or self._held is not None:
            return
        try:
            import fcntl
        except ImportError:  # Windows: not checked
            return
        held = open(self.path + ".server-lock", "a")  # noqa: SIM115 (held until close)
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            held.close()
            raise UsageError(f"--db: {self.path} is served by another csl-game server "
                             "already (SQLite is for one process; several processes share "
                             "a postgresql:// database)") from None
        self._held = held

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self._held is not None:
            self._held.close()
            self._held = None
