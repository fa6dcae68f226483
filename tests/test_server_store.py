"""The server's database on both backends: SQLite, and PostgreSQL on a real
server the test starts (tests/pg_cluster.py; skipped, saying why, where there
is none). The same contract on both; then the server itself on PostgreSQL:
bots play, the server stops, and a new one on the same database keeps the
ladder."""

from __future__ import annotations

import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game.server import GameRow, Store, hash_token, open_store
from csl_game.server.store import Dropped, Finished, Moved, Seated
from online_procs import Proc
from test_server_ladder import get_json, stop, stop_all, wait_json

try:
    from psycopg import IntegrityError as PgIntegrityError
except ImportError:  # no PostgreSQL here: its tests skip
    PgIntegrityError = sqlite3.IntegrityError  # type: ignore[misc,assignment]
REFUSED = (sqlite3.IntegrityError, PgIntegrityError)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        where = str(tmp_path / "games.sqlite3")
    else:
        where = request.getfixturevalue("pg_url")
    opened = open_store(where)
    opened._run("DELETE FROM games")  # the module's cluster is shared by its tests
    opened._run("DELETE FROM moves")
    opened._run("DELETE FROM bots")
    yield opened
    opened.close()


def test_the_store_contract(store: Store) -> None:
    assert store.add_bot("Ann", hash_token("secret"))
    assert not store.add_bot("Ann", hash_token("other"))
    assert store.bot_hash("Ann") == hash_token("secret") and store.bot_hash("Bob") is None
    assert store.bots() == ["Ann"]
    for i, kind in enumerate(("ladder", "friend")):
        store.add_game(GameRow(f"game{i:08d}", kind, "Ann", "Bob", {"rows": 6, "seats": ["a", ""]},
                               [], "playing", None, 100.0 + i))
    store.apply([Moved("game00000000", 0, 3, "round", 1.5),
                 Seated("game00000001", ["Ann", "Cid"], ["a", "b"])])
    store.apply([Moved("game00000000", 1, 2, "square", 0.25)])  # appended, in one transaction
    playing = store.games("playing")
    assert [g.id for g in playing] == ["game00000000", "game00000001"]
    assert playing[0].moves == [{"col": 3, "shape": "round", "ms": 1.5},
                                {"col": 2, "shape": "square", "ms": 0.25}]
    assert playing[1].moves == [] and playing[1].red == "Cid"
    assert store.game("game00000001").settings == {"rows": 6, "seats": ["a", "b"]}  # type: ignore[union-attr]
    assert store.game("game00000000").moves == playing[0].moves  # type: ignore[union-attr]
    with pytest.raises(REFUSED):  # a move stored twice: the whole batch is refused
        store.apply([Finished("game00000000", {"winner": "white", "moves": [1]}),
                     Moved("game00000000", 1, 2, "square", 0.25)])
    assert store.games("over") == []
    store.apply([Finished("game00000000", {"winner": "white", "moves": [1]})])
    over = store.games("over", "ladder")
    assert len(over) == 1 and over[0].result == {"winner": "white", "moves": [1]}
    assert over[0].ended is not None and len(over[0].moves) == 2
    assert store.games("over", moves=False)[0].moves == []
    store.apply([Dropped("game00000001")])
    assert store.games("playing") == [] and store.game("nosuchgame") is None


def test_a_game_added_with_moves_keeps_them_in_order(store: Store) -> None:
    """A game written whole (a game imported, or resumed) adds its moves in
    one go, as each store adds a batch's (PostgreSQL's: in one statement)."""
    moves = [{"col": c, "shape": ("round", "square")[c % 2], "ms": c / 4} for c in (6, 1, 3)]
    store.add_game(GameRow("game00000007", "friend", "Ann", "Bob", {"rows": 6}, moves,
                           "playing", None, 1.0))
    store.apply([Moved("game00000007", 3, 0, "square", 7.0)])
    assert store.game("game00000007").moves == [  # type: ignore[union-attr]
        *moves, {"col": 0, "shape": "square", "ms": 7.0}]


def test_a_database_from_before_the_moves_table_keeps_its_moves(store: Store) -> None:
    store.add_game(GameRow("game00000009", "friend", "Ann", "Bob", {"rows": 6}, [], "playing",
                           None, 1.0))
    store._run("UPDATE games SET moves = ? WHERE id = ?",
               ('[{"col": 1, "shape": "round", "ms": 2.0}]', "game00000009"))
    store.apply([Moved("game00000009", 1, 4, "square", 3.0)])
    assert [m["col"] for m in store.games("playing")[0].moves] == [1, 4]


def test_a_server_on_postgresql_keeps_its_ladder_over_a_restart(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    cleaner = open_store(pg_url)
    cleaner._run("DELETE FROM games")
    cleaner._run("DELETE FROM bots")
    cleaner.close()
    server, url = start_server_at(pg_url)
    bots = [Proc("bot", url, "random", "--name", f"P{i}", "--games", "2")  # two games at once
            for i in (1, 2)]
    try:
        ladder = wait_json(url + "/api/ladder", lambda rows: len(rows) == 2 and all(
            r["games"] >= 2 for r in rows), 60, server.text)
        assert stop(server) in (0, 130), server.text()
        server, url = start_server_at(pg_url)
        again = {r["name"]: r["games"] for r in get_json(url + "/api/ladder")}
        assert all(again[r["name"]] >= r["games"] for r in ladder), (again, ladder)
    finally:
        stop_all(bots, signal.SIGTERM)
        stop(server)


def start_server_at(where: str) -> tuple[Proc, str]:
    return start_servers_at(where, 1)[0]


def start_servers_at(where: str, count: int) -> list[tuple[Proc, str]]:
    """`count` servers on the database at `where`, and their URLs: all started
    at once (each loads while the others do), then each waited for."""
    servers = [Proc("server", "--host", "127.0.0.1", "--port", "0", "--db", where,
                    "--register", "open", "-t", "100") for _ in range(count)]
    try:
        return [(s, s.wait_for(r"on (http://127\.0\.0\.1:\d+)", 30).group(1)) for s in servers]
    except BaseException:
        for server in servers:
            server.kill()
        raise
