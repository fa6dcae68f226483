"""How even the openings of a generated book are: White's score over a book's games.

Writes a book with ``csl-game openings --plies 4 --count 20`` (``--search``
gives other options of the verb: ``"--depth 6"``, ``"-t 2000"``), then plays
each opening twice, once with each colour, between ``negamax`` and
``negamax depth=4`` at 50 ms a move (``csl-game session --openings``: 40
games), and prints White's score (its points over the games, a draw half a
point) and how many openings one colour won both games of; then the same
for a book of openings kept whatever their playouts say (``--band 1``:
only the quick search's filter), to compare with. Openings that give
neither colour the game should leave White near 50 %.

    python benchmarks/book_balance.py [--count 20] [--search "--depth 5"] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAYERS = "negamax\nnegamax depth=4\n"


def csl_game(*argv: str) -> None:
    subprocess.run([sys.executable, "-m", "csl_game", *argv], check=True,
                   stdout=subprocess.DEVNULL)


def measure(folder: Path, name: str, search: list[str], args: argparse.Namespace) -> None:
    book, results = folder / f"{name}.txt", folder / f"{name}.jsonl"
    started = time.perf_counter()
    csl_game("openings", "--plies", str(args.plies), "--count", str(args.count), "--seed",
             str(args.seed), *search, "-o", str(book))
    made = time.perf_counter() - started
    players = folder / "players.txt"
    players.write_text(PLAYERS, encoding="utf-8")
    csl_game("session", "-g", str(players), "--openings", str(book), "-t", str(args.time),
             "--workers", str(args.workers), "-q", "--results", str(results))
    docs = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    white = sum(1.0 if d["winner"] == "white" else 0.5 if d["winner"] == "draw" else 0.0
                for d in docs)
    by_opening: dict[str, list[str]] = {}
    for d in docs:
        forced = " ".join(f"{m['col']}{m['shape'][0]}" for m in d["moves"][:args.plies])
        by_opening.setdefault(forced, []).append(d["winner"])
    one_colour = sum(1 for w in by_opening.values() if len(w) == 2 and w[0] == w[1] != "draw")
    rated = [line.split("#")[1].split()[1].rstrip(",") for line in
             book.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    playouts = sum(float(r.split("/")[0]) for r in rated) / sum(int(r.split("/")[1])
                                                                 for r in rated)
    print(f"{name} ({' '.join(search)}): book of {len(rated)} in {made:.0f} s, White "
          f"{playouts:.0%} in its playouts; {len(docs)} games: White scored "
          f"{white:g} = {white / len(docs):.1%}; one colour won both games of "
          f"{one_colour} of {len(by_opening)} openings", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--search", default="--depth 5", help="how openings rates each opening")
    parser.add_argument("--time", type=int, default=50, help="ms a move in the games")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-unselected", action="store_true",
                        help="skip the book of openings kept whatever their playouts say")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure(Path(tmp), "book", shlex.split(args.search), args)
        if not args.no_unselected:
            measure(Path(tmp), "unselected", [*shlex.split(args.search), "--band", "1"],
                    args)


if __name__ == "__main__":
    main()
