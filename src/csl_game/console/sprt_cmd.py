"""The ``sprt`` and ``openings`` verbs: test a change to a thinker until the
statistics decide, and write an opening book of balanced openings."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

from csl_game.console.lab import LabOutput, give_nodes, lab_book
from csl_game.console.playing import (
    check_thinkers,
    dask_executor,
    memory_limit_of,
    print_forfeits,
    report_every,
    results_paths,
    resumed_lines,
    setup_limit_of,
    warm_pool,
)
from csl_game.console.progress import WorkProgress
from csl_game.engine import SPRT, Opening, Points, ResultsWriter, default_workers
from csl_game.errors import UsageError
from csl_game.interrupts import take_interrupts
from csl_game.services.flag_values import adjudicator_of, match_config
from csl_game.services.narration import counted, terminal_safe
from csl_game.services.openings import PLAYOUT_DEPTH, format_book, make_book
from csl_game.services.site import follow
from csl_game.services.sprt import SprtRun, SprtState, opening_state, test_json
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_sprt", "run_openings", "book_of", "OPENINGS_DEPTH"]

OPENINGS_DEPTH = PLAYOUT_DEPTH
"""The deepest search of the games that rate each opening of `csl-game openings`."""


def book_of(args: argparse.Namespace, config: MatchConfig) -> list[Opening]:
    """The openings of --openings FILE (as --openings-order, -start and -plies
    arrange them), or every two-move opening (each side's own shape) shuffled
    by the seed: near balanced, and many."""
    book = lab_book(args, config)
    assert book is not None
    return book


def _prototype(spec: str, config: MatchConfig, paths: tuple[str, ...]) -> ThinkerPrototype:
    name, _, params = spec.strip().partition(" ")
    if not name:
        raise UsageError("a thinker is 'NAME [PARAMS]', got an empty one")
    return ThinkerPrototype(name, params.strip(), config, paths)


MAX_ELO_BOUND = {"logistic": 5000.0, "normalized": 500.0}
"""The largest elo0 or elo1 (either sign) a test takes, by model. A logistic
bound of about 6400 Elo expects a score that rounds to 1 in floating point;
from a normalized one of about 700 the t-value iteration finds no answer for
some lopsided counts (pentanomial 0, 0, 0, 2, 1): no LLR either way, and a
test that stops mid-run. Bounds that large decide nothing of use."""


def _sprt(args: argparse.Namespace) -> SPRT:
    limit = MAX_ELO_BOUND.get(args.model, 0.0)
    if max(abs(args.elo0), abs(args.elo1)) > limit:
        raise UsageError(f"elo0 and elo1 must lie within \u00b1{limit:g} ({args.model} Elo), "
                         f"got {args.elo0:g} and {args.elo1:g}")
    try:
        return SPRT(args.elo0, args.elo1, args.alpha, args.beta, args.model)
    except ValueError as e:
        raise UsageError(str(e)) from None


def run_sprt(args: argparse.Namespace) -> int:
    """Play NEW against BASE in game pairs until the SPRT decides; 0 when done.
    Interrupted (Ctrl+C, from the first moment on), it prints the summary so
    far, and the JSON under --json, before the usual exit (130).

    Raises:
        CslError: bad input (one line, exit 2).
    """
    sprt = _sprt(args)
    config = match_config(args)
    out = sys.stderr if args.json else sys.stdout
    runs: list[SprtRun] = []
    started = time.perf_counter()
    try:
        take_interrupts()  # one that came while the command loaded: the summary of none
        state = _test(args, sprt, config, out, runs)
    except KeyboardInterrupt:
        now = runs[0].state() if runs else opening_state(sprt, config, args.adjudicate)
        _finish(now, out, time.perf_counter() - started, interrupted=True)
        if args.json:
            print(json.dumps({**now.to_json(), "result": "interrupted"}), flush=True)
        raise
    _finish(state, out, time.perf_counter() - started)
    if args.json:
        print(json.dumps(state.to_json()))
    return 0


def _test(args: argparse.Namespace, sprt: SPRT, config: MatchConfig, out: TextIO,
          runs: list[SprtRun]) -> SprtState:
    """Set the test up and play it to its verdict; the run goes into `runs` as
    soon as it is made (whose state an interruption prints)."""
    paths = tuple(args.thinkers)
    new, base = (_prototype(s, config, paths) for s in (args.new, args.base))
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    limit, memory = setup_limit_of(args), memory_limit_of(args)
    with ExitStack() as stack:
        lab = LabOutput(args, stack)
        give_nodes([new, base], args.nodes)
        book = book_of(args, config)
        pool = warm_pool(args.in_process or args.dask is not None, stack)
        known = check_thinkers([new, base], ("NEW", "BASE"), args.in_process, limit, memory,
                               pool, args.network)
        path, resume = results_paths(args.results, args.resume)
        docs = resumed_lines(path) if resume else []
        executor = dask_executor(args, stack)
        adjudicator = adjudicator_of(args)
        writer = (ResultsWriter(path, {"sprt": test_json(
            sprt, args.adjudicate, not args.no_swap, getattr(adjudicator, "rules", {}))})
                  if path else None)
        run = SprtRun(new, base, config, sprt, book, args.max_games, workers=workers,
                      in_process=args.in_process, executor=executor, results=writer,
                      setup_limit=limit, memory_limit_mb=memory, known_setups=known,
                      pool=pool, adjudicator=adjudicator, swap=not args.no_swap)
        runs.append(run)
        stack.callback(run.session.abort)
        lab.follow(run.session)
        if docs:
            resumed = run.resume(docs, path)
            print(f"Resumed {resumed} games from {path}", file=out)
            lab.say(f"resumed {resumed} games from {path}")
        site = None
        if args.site:
            site = follow(run.session, args.site, Points(), docs, title=args.title or "SPRT",
                          results_file=path or None)
            stack.callback(site.close)  # final once the session ended, else stopped
        if not args.quiet:
            print(terminal_safe(f"SPRT of NEW {run.session.names[0]} against BASE "
                                f"{run.session.names[1]}: ") + f"elo0 {sprt.elo0:g}, "
                  f"elo1 {sprt.elo1:g}, alpha {sprt.alpha:g}, beta {sprt.beta:g}, "
                  f"{sprt.model}; {len(book)} openings, {config.timing_text('a move')}, "
                  f"{workers} at once", file=out, flush=True)
            run.on_progress(_progress(out, report_every(args)))
        lab.say(f"SPRT of NEW {run.session.names[0]} against BASE {run.session.names[1]}: "
                f"elo0 {sprt.elo0:g}, elo1 {sprt.elo1:g}, alpha {sprt.alpha:g}, beta "
                f"{sprt.beta:g}, {sprt.model}; {len(book)} openings, "
                f"{config.timing_text('a move')}, {workers} at once")
        try:
            state = run.run()
        except KeyboardInterrupt:
            lab.say(f"interrupted: {run.state().line()}")
            raise
        lab.say(f"ended, {state.result}: {state.line()}")
        if site is not None:
            site.close("final")  # a bound crossed, or every game played
        return state


def _progress(out: TextIO, every: int | None = None) -> Callable[[SprtState], None]:
    """A line each time a pair is complete (with `every`: each time that many
    more games are played): rewritten in place on a terminal."""
    live = out.isatty()
    last = [0]

    def show(state: SprtState) -> None:
        step = state.pentanomial.pairs if every is None else state.trinomial.games // every
        if step == last[0]:
            return
        last[0] = step
        print(state.line().ljust(100) if live else state.line(), end="\r" if live else "\n",
              file=out, flush=True)

    return show


def _finish(state: SprtState, out: TextIO, seconds: float, interrupted: bool = False) -> None:
    verdict = {"H1": "H1 accepted: NEW is stronger by at least elo1",
               "H0": "H0 accepted: NEW is not stronger by elo1 (at most elo0)",
               "inconclusive": "inconclusive: --max-games reached before a bound"}[state.result]
    if interrupted:
        verdict = "interrupted: no verdict (the summary so far)"
    print_forfeits(state.forfeits, "games", out)
    print(f"\n{state.line()}\n{verdict} ({seconds:.0f} s)", file=out, flush=True)


def run_openings(args: argparse.Namespace) -> int:
    """Write a book of balanced openings (to --output, or standard output): each
    rated by games played out from it for -t MS, or to --depth N (default 5);
    a bar of the openings found so far on a terminal (standard error), unless -q."""
    config = match_config(args)
    if args.time_limit is not None and args.depth is not None:
        raise UsageError("openings: give -t/--time-limit or --depth, not both")
    if args.depth is not None and args.depth < 2:
        raise UsageError(f"--depth must be 2 or more, got {args.depth}")
    if args.time_limit is not None and args.time_limit < 1:
        raise UsageError(f"-t/--time-limit must be 1 ms or more, got {args.time_limit}")
    depth = None if args.time_limit is not None else (args.depth or OPENINGS_DEPTH)
    search = f"-t {args.time_limit}" if depth is None else f"--depth {depth}"
    with WorkProgress("openings", args.count, args.quiet) as bar:
        book = make_book(config, args.plies, args.count, args.seed, args.band, depth,
                         args.time_limit, progress=lambda kept, drawn: bar.update(
                             kept, f"{counted(drawn, 'opening')} drawn"))
    text = format_book(book, config, f"made by csl-game openings --plies {args.plies} "
                                     f"--count {args.count} --seed {args.seed} {search} "
                                     f"--band {args.band:g}")
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write {args.output}: {e.strerror or e}") from None
        print(f"wrote {len(book)} openings to {args.output}", file=sys.stderr)
    return 0
