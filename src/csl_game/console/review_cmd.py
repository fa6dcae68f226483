"""``csl-game replay FILE --review``: a match's every move graded, in the terminal."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TextIO

from csl_game.console.progress import WorkProgress
from csl_game.engine import process_runner
from csl_game.errors import UsageError
from csl_game.services.narration import terminal_safe
from csl_game.services.replay import Replay
from csl_game.services.review import Review, ReviewJob
from csl_game.thinker.api import MatchConfig

__all__ = ["run_review", "review_table"]

_PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def run_review(replay: Replay, args: argparse.Namespace) -> int:
    """Review the match of `replay` and print the table (or --json).

    Raises:
        UsageError: a --review-time below 1 ms.
    """
    if args.review_time < 1:
        raise UsageError(f"--review-time must be at least 1 ms, got {args.review_time}")
    config = MatchConfig(*replay.settings)
    moves = [(p.move.col, p.move.piece.shape) for p in replay.moves]
    job = ReviewJob(config, moves, process_runner, args.review_time)
    review: Review | None = None
    try:
        with WorkProgress("reviewing", job.progress[1], args.quiet,
                          amount="{task.completed:.0f}/{task.total:.0f} positions",
                          transient=True) as bar:
            while not job.done:
                review = job.poll()
                bar.update(job.progress[0])
                time.sleep(0.02)
        review = job.poll()
    finally:
        job.close()
    review = review or Review(())
    if args.json:
        print(json.dumps({"match": replay.title, "notation": replay.notation,
                          **review.to_json()}))
    else:
        review_table(replay, review, args.review_time, sys.stdout)
    return 0


def review_table(replay: Replay, review: Review, time_ms: int, out: TextIO) -> None:
    """The title, one row a move (grade, value, the better move and its value,
    the best line) and each player's accuracy."""
    lines = [f"Review of {replay.title} ({time_ms} ms a position)",
             f"{'#':>3}  {'move':<5} {'by':<6} {'grade':<11} {'value':<16} "
             f"{'better':<6} {'its value':<16} best line"]
    for m in review.moves:
        better = "" if m.grade == "best" else m.best.move
        its = "" if m.grade == "best" else m.best.text()
        lines.append(f"{m.ply + 1:>3}. {m.played.move:<5} {m.color.title():<6} "
                     f"{m.grade:<11} {m.played.text():<16} {better:<6} {its:<16} "
                     f"{' '.join(m.line)}")
    for color in ("white", "red"):
        accuracy = review.accuracy(color)
        counts = {g: sum(1 for m in review.moves if m.color == color and m.grade == g)
                  for g in _PLURALS}
        text = "-" if accuracy is None else f"{accuracy:.1f}"
        lines.append(f"{color.title()}: accuracy {text}; " +
                     ", ".join(f"{n} {g if n == 1 else _PLURALS[g]}" for g, n in counts.items()))
    print(terminal_safe("\n".join(lines)), file=out, flush=True)
