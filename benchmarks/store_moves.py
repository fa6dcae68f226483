"""A batch of moves written to PostgreSQL: one statement for the batch (the
moves' columns as arrays, as `PostgresStore` writes them) against one
statement a move (psycopg's `executemany`, as it wrote them before).

The server writes every move of the last `write_every_s` (20 ms) in one
transaction (csl_game.server.writes): a handful at a light load, about 80
at 1,000 games played as fast as the clients can. Each batch here is `apply`
of that many `Moved` writes, one move of each of that many games, timed in
CPU seconds of the writing thread (psycopg's work; the database's own
processes are not counted). The two ways alternate, batch by batch, on one
database and one connection each, and each batch waits 5 ms as the server's
do, so neither has the machine in a better moment.

    python benchmarks/store_moves.py --db postgresql://USER@HOST/DB
    python benchmarks/store_moves.py --db URL --moves 10 --batches 400
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid

from csl_game.server import PostgresStore, Store
from csl_game.server.store import GameRow, Moved, NewGame


class RowByRow(PostgresStore):
    """The store as it wrote moves before: psycopg's executemany, a statement a move."""

    _moves = Store._moves


def games(store: PostgresStore, count: int) -> list[str]:
    ids = [uuid.uuid4().hex[:12] for _ in range(count)]
    store.apply([NewGame(GameRow(id=i, kind="open", white="a", red="b", settings={},
                                 moves=[], state="playing", result=None,
                                 created=time.time())) for i in ids])
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="a postgresql:// URL (tables are added)")
    parser.add_argument("--moves", type=int, default=80, help="moves a batch (80)")
    parser.add_argument("--batches", type=int, default=300, help="batches each way (300)")
    args = parser.parse_args()
    stores = {"one statement a batch": PostgresStore(args.db),
              "one statement a move": RowByRow(args.db)}
    ids = {name: games(store, args.moves) for name, store in stores.items()}
    cpu: dict[str, list[float]] = {name: [] for name in stores}
    for ply in range(args.batches):
        for name, store in stores.items():
            batch = [Moved(game, ply, ply % 7, "round", 12.5) for game in ids[name]]
            start = time.thread_time()
            store.apply(batch)
            cpu[name].append(time.thread_time() - start)
            time.sleep(0.005)
    for store in stores.values():
        store.close()
    means = {name: statistics.fmean(times) for name, times in cpu.items()}
    for name, mean in means.items():
        print(f"{name}: {mean * 1e6:.0f} us of CPU a batch of {args.moves} moves "
              f"(median {statistics.median(cpu[name]) * 1e6:.0f} us)")
    batch, move = means.values()
    print(f"ratio (a batch's statement / a move's): {batch / move:.2f}")


if __name__ == "__main__":
    main()
