"""The game server under load: concurrent games between scripted clients,
and spectators watching them, on loopback.

The server runs in a process of its own (the one `csl-game server` runs:
the hub, aiohttp, an SQLite database in a temporary folder, every move
judged and written), with the edge's per-address limits raised, since every
client comes from 127.0.0.1. The clients run in processes of their own
(--client-processes, one by default), each on one event loop, sharing out
GAMES pairs of players, each pair playing friend games one after
another (the first player creates a game, the second joins it by its code,
both play random legal moves, at once or, with --pace P, each after a
random wait of 0 to 2P seconds, an offered load of about GAMES / P moves a
second), so GAMES games are always in progress; and SPECTATORS watchers,
spread over the pairs, each watching its pair's current game. It reports
moves per second (moves the server judged and sent to both players and
every watcher), the latency of a move (from a player sending it to that
player receiving the server's echo of it: median, p99, max), the watchers'
messages per second, the server processes' CPU time per move (user and
system, all their threads) over the SECONDS of play, when the offered load
is steady (the moves made then), and over the whole run, the games still in
progress then played to their ends with no new ones (a tail of some 30
moves at --pace 1, where the connections' pings and ticks go on for fewer
and fewer moves), and their memory (peak resident set).

    python benchmarks/server_load.py [--games 1000] [--spectators 5000] [--seconds 30]
                                     [--pace 0] [--client-processes 1] [--write-every S]
                                     [--db postgresql://... [--processes N [--deal random]]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import resource
import secrets
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
import psutil

from csl_game.model.board import PShape, Winner
from csl_game.server import (
    ClusterHub,
    Hub,
    Limits,
    PostgresStore,
    ServerOptions,
    SqliteStore,
    serve,
    server_loop,
    tune_gc,
)
from csl_game.thinker.api import MatchConfig


def _serve(where: str, ports: Any, write_every_s: float) -> None:
    """A server process: on an SQLite file in the folder `where`, or one of
    several on the PostgreSQL database `where` names (a ClusterHub)."""
    tune_gc()  # as run_server, which `csl-game server` runs

    store = PostgresStore(where) if "://" in where else SqliteStore(Path(where) / "load.sqlite3")

    async def main() -> None:
        limits = Limits(per_address=100_000, total=100_000, burst=100_000,
                        messages_per_s=1000.0, message_burst=1000.0)
        # every client is on loopback: one address making all the games
        options = ServerOptions(config=MatchConfig(), limits=limits,
                                max_waiting_per_address=100_000, write_every_s=write_every_s)
        hub = ClusterHub(store, options, where) if isinstance(store, PostgresStore) else \
            Hub(store, options)
        served = await serve(hub, "127.0.0.1", 0)
        ports.put(served.port)
        await asyncio.Event().wait()
    with asyncio.Runner(loop_factory=server_loop(store)) as runner:
        runner.run(main())


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.timed = 0
        """Moves made in the SECONDS of play (the rest are the games' ends)."""
        self.games = 0
        self.watched = 0
        self.errors: list[str] = []


class Player:
    """One scripted player: a WebSocket with a session cookie of its own."""

    def __init__(self, http: aiohttp.ClientSession, url: str, stats: Stats) -> None:
        self.http, self.url, self.stats = http, url, stats
        self.cookie = secrets.token_urlsafe(24)
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def connect(self, name: str) -> None:
        self.ws = await self.http.ws_connect(self.url, headers={"Cookie":
                                                                f"csl_session={self.cookie}"},
                                             max_msg_size=1 << 22)
        await self.send({"type": "hello", "version": 1, "name": name})
        asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type is aiohttp.WSMsgType.TEXT:
                doc = json.loads(msg.data)
                if doc["type"] == "error":
                    self.stats.errors.append(doc["message"])
                elif doc["type"] != "welcome":
                    self.inbox.put_nowait(doc)

    async def send(self, doc: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(doc))

    async def next(self, *kinds: str) -> dict[str, Any]:
        """The next message of one of `kinds` (what comes before it is not needed).

        Raises:
            TimeoutError: none within a minute (counted as a stall).
        """
        async with asyncio.timeout(60):
            while True:
                doc = await self.inbox.get()
                if doc["type"] in kinds:
                    return doc


async def play_pair(pair: int, a: Player, b: Player, watchers: list[Any], stats: Stats,
                    until: float, pace: float) -> None:
    """Friend games between `a` and `b` one after another until `until`."""
    while time.monotonic() < until:
        await a.send({"type": "create", "opponent": "friend", "color": "white"})
        state = await a.next("game")
        game, code = state["game"], state["code"]
        await b.send({"type": "join", "code": code})
        await asyncio.gather(a.next("game"), b.next("game"))  # both seats taken
        for w in watchers:
            await w.send_str(json.dumps({"type": "watch", "game": game}))
        board = MatchConfig().new_board()
        players = (a, b)
        while True:
            ply = board.move_count
            mover = players[ply % 2]
            col = random.choice([c for c in range(board.cols) if not board.is_column_full(c)])
            shapes = [s for s in PShape if board.piece_count(board.turn, s) > 0]
            shape = random.choice(shapes)
            if pace > 0:
                await asyncio.sleep(random.uniform(0, 2 * pace))
            sent = time.monotonic()
            await mover.send({"type": "move", "game": game, "ply": ply, "col": col,
                              "shape": shape.name.lower()})
            await mover.next("played")
            stats.latencies.append(time.monotonic() - sent)
            stats.moves += 1
            stats.timed += time.monotonic() < until
            await players[(ply + 1) % 2].next("played")
            board.do_move(shape, col)
            if board.check_winner() is not Winner.NONE:
                await asyncio.gather(a.next("result"), b.next("result"))
                stats.games += 1
                break


async def watcher(http: aiohttp.ClientSession, url: str, stats: Stats,
                  ready: list[Any]) -> None:
    ws = await http.ws_connect(url, max_msg_size=1 << 22)
    ready.append(ws)
    async for msg in ws:
        if msg.type is aiohttp.WSMsgType.TEXT:
            stats.watched += 1


def _cpu(pid: int) -> float:
    """Seconds of CPU the process `pid` has used (user and system, all its threads)."""
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def sample_memory(pids: list[int], peak: list[int], stop: threading.Event) -> None:
    """The peak of the server processes' resident memory, summed."""
    procs = [psutil.Process(pid) for pid in pids]
    while not stop.is_set():
        try:
            peak[0] = max(peak[0], sum(p.memory_info().rss for p in procs))
        except psutil.Error:
            return
        stop.wait(0.2)


async def clients(games: int, spectators: int, seconds: float, pace: float,
                  ports: list[int], start: Any, connected: Any, results: Any,
                  finish: Any, deal: str = "turns", seed: int = 0) -> None:
    """One client process's share: connect, say so on `connected`, wait for
    `start`, play for `seconds`, put the figures on `results`, and close the
    connections once `finish` is set (after the server's CPU is read: what
    the server does when its clients leave is no move's cost). With several
    server processes, the players and watchers are dealt out among them in
    turn (`deal` "turns": a game's two players are on two processes, so
    every move of one of them crosses, and its watchers on one, the same
    for every game when GAMES is even), or each to one at random ("random",
    as a balancer deals clients who come and go: a game's players and its
    watchers anywhere)."""
    stats = Stats()
    urls = [f"ws://127.0.0.1:{port}/ws" for port in ports]
    if deal == "random":
        dealer = random.Random(seed)
        urls_of = [urls[dealer.randrange(len(urls))] for _ in range(2 * games + spectators)]
    else:  # the players in turn, then the watchers in turn
        urls_of = [urls[i % len(urls)] for n in (2 * games, spectators) for i in range(n)]
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=conn) as http:
        players = [Player(http, urls_of[i], stats) for i in range(2 * games)]
        for i in range(0, len(players), 200):
            await asyncio.gather(*(p.connect(f"P{i + j}") for j, p in
                                   enumerate(players[i:i + 200])))
        watching: list[Any] = []
        tasks = [asyncio.create_task(watcher(http, urls_of[2 * games + i], stats, watching))
                 for i in range(spectators)]
        while len(watching) < spectators:
            await asyncio.sleep(0.1)
        by_pair: list[list[Any]] = [[] for _ in range(games)]
        for i, ws in enumerate(watching):
            by_pair[i % games].append(ws)
        connected.put(True)
        await asyncio.to_thread(start.wait)
        until = time.monotonic() + seconds
        done = await asyncio.gather(*(play_pair(i, players[2 * i], players[2 * i + 1],
                                                by_pair[i], stats, until, pace)
                                      for i in range(games)), return_exceptions=True)
        stats.errors += [f"a pair stalled: {e!r}" for e in done if isinstance(e, BaseException)]
        results.put(vars(stats))
        await asyncio.to_thread(finish.wait)
        for t in tasks:
            t.cancel()


def _client_process(games: int, spectators: int, seconds: float, pace: float,
                    ports: list[int], start: Any, connected: Any, results: Any,
                    finish: Any, deal: str, seed: int) -> None:
    asyncio.run(clients(games, spectators, seconds, pace, ports, start, connected, results,
                        finish, deal, seed))


def run(games: int, spectators: int, seconds: float, pace: float, processes: int,
        ports: list[int], pids: list[int], deal: str = "turns") -> Stats:
    """The clients in `processes` processes of their own, the games and
    spectators shared out among them; the server processes' CPU (all of
    them) from the start of play to the end of the last client process's games."""
    peak = [0]
    stop = threading.Event()
    threading.Thread(target=sample_memory, args=(pids, peak, stop), daemon=True).start()
    start, finish = multiprocessing.Event(), multiprocessing.Event()
    connected, results = multiprocessing.Queue(), multiprocessing.Queue()
    procs = [multiprocessing.Process(target=_client_process, daemon=True, args=(
        games // processes + (i < games % processes),
        spectators // processes + (i < spectators % processes),
        seconds, pace, ports, start, connected, results, finish, deal, i))
        for i in range(processes)]
    begun = time.monotonic()
    for proc in procs:
        proc.start()
    for _ in procs:
        connected.get(timeout=600)
    print(f"{2 * games} players and {spectators} spectators connected in "
          f"{time.monotonic() - begun:.1f} s by {processes} client processes; "
          f"memory {peak[0] / 2**20:.0f} MB", flush=True)
    cpu = sum(_cpu(pid) for pid in pids)
    began = time.monotonic()
    start.set()
    time.sleep(seconds)
    stats = Stats()
    stats.cpu_timed = sum(_cpu(pid) for pid in pids) - cpu  # type: ignore[attr-defined]
    for _ in procs:
        part = results.get(timeout=seconds + 600)
        stats.latencies += part["latencies"]
        stats.moves += part["moves"]
        stats.timed += part["timed"]
        stats.games += part["games"]
        stats.watched += part["watched"]
        stats.errors += part["errors"]
    stats.elapsed = time.monotonic() - began  # type: ignore[attr-defined]
    stats.cpu = sum(_cpu(pid) for pid in pids) - cpu  # type: ignore[attr-defined]
    stats.memory = peak[0]  # type: ignore[attr-defined]
    stop.set()
    finish.set()
    for proc in procs:
        proc.join(30)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--spectators", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--client-processes", type=int, default=1,
                        help="processes the clients run in (none in this one)")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="each player waits 0 to 2 PACE s before each move (0: none)")
    parser.add_argument("--write-every", type=float, default=ServerOptions.write_every_s,
                        help="the server's write_every_s: how long a batch of writes gathers "
                        "at most (a move is told once its batch is committed)")
    parser.add_argument("--db", default="",
                        help="a postgresql:// URL: the servers run on it (a fresh database: "
                        "games left in progress there are taken over) instead of SQLite")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes on the --db database")
    parser.add_argument("--deal", choices=["turns", "random"], default="turns",
                        help="how the clients are dealt out among the server processes: in "
                        "turn (a game's two players on two of them, its watchers on one), "
                        "or each at random")
    args = parser.parse_args()
    if args.processes > 1 and not args.db:
        parser.error("--processes N needs --db postgresql://... (they share its database)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    where = args.db or tempfile.mkdtemp(prefix="csl-load-")
    told: Any = multiprocessing.Queue()
    servers = [multiprocessing.Process(target=_serve, args=(where, told, args.write_every),
                                       daemon=True) for _ in range(max(1, args.processes))]
    for server in servers:
        server.start()
    ports = [told.get(timeout=60) for _ in servers]
    try:
        stats = run(args.games, args.spectators, args.seconds, args.pace,
                    max(1, args.client_processes), ports,
                    [s.pid for s in servers if s.pid is not None], args.deal)
    finally:
        for server in servers:
            server.terminate()
            server.join(10)
    lat = sorted(stats.latencies)
    elapsed = stats.elapsed  # type: ignore[attr-defined]
    p99 = lat[int(0.99 * (len(lat) - 1))] if lat else float("nan")
    print(f"{args.games} concurrent games, {args.spectators} spectators, "
          f"{args.seconds:g} s of play and {elapsed:.1f} s to the games' ends, "
          f"{len(servers)} server process(es)"
          f"{f' (clients dealt: {args.deal})' if len(servers) > 1 else ''} on "
          f"{'PostgreSQL' if args.db else 'SQLite'} (this machine: "
          f"{psutil.cpu_count()} cores, shared)")
    print(f"  games finished:   {stats.games}")
    print(f"  moves:            {stats.moves} ({stats.timed / args.seconds:.0f} a second in the "
          f"{args.seconds:g} s of play)")
    print(f"  move latency:     median {statistics.median(lat) * 1000:.1f} ms, "
          f"p99 {p99 * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms")
    print(f"  watchers' messages: {stats.watched} ({stats.watched / elapsed:.0f} a second)")
    cpu = stats.cpu_timed  # type: ignore[attr-defined]
    print(f"  server CPU:       {cpu:.2f} s in the {args.seconds:g} s of play, "
          f"{cpu / max(1, stats.timed) * 1000:.3f} ms a move ({stats.timed} moves)")
    cpu = stats.cpu  # type: ignore[attr-defined]
    print(f"  ... to the end:   {cpu:.2f} s until every game ended, "
          f"{cpu / max(1, stats.moves) * 1000:.3f} ms a move")
    print(f"  server memory:    peak {stats.memory / 2**20:.0f} MB resident")  # type: ignore[attr-defined]
    print(f"  errors:           {len(stats.errors)}"
          + (f" (first: {stats.errors[0]})" if stats.errors else ""))


if __name__ == "__main__":
    main()
