"""The ``match`` verb: one match in the terminal, between humans and thinkers
(with ``--listen`` or ``--connect``, over the network: csl_game.console.online_cmd)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from typing import TextIO

from csl_game.console.human import ask_human_move
from csl_game.console.playing import check_thinkers, memory_limit_of, setup_limit_of, warm_pool
from csl_game.console.render import ConsoleListener
from csl_game.engine import (
    Human,
    Match,
    MatchResult,
    Player,
    ResultsWriter,
    RunOptions,
    Session,
    SessionOptions,
    result_to_json,
)
from csl_game.services import narration
from csl_game.services.flag_values import adjudicator_of, match_config
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_match"]


def _player(name: str | None, params: str, mc: MatchConfig, paths: tuple[str, ...]) -> Player:
    if name is None or name.lower() == "human":
        return Human()
    return ThinkerPrototype(name, params, mc, paths)


def _human_input(out: TextIO) -> Callable[[Match], None]:
    def read(prompt: str) -> str:
        print(prompt, end="", file=out, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    return partial(ask_human_move, read=read,
                   say=lambda t: print(narration.terminal_safe(t), file=out, flush=True))


def run_match(args: argparse.Namespace) -> int:
    """Play the match the arguments describe, printing it (the result as JSON
    with --json); 0 when it is over, whoever won.

    Raises:
        CslError: bad input (a thinker refusing its parameters included).
    """
    if args.listen is not None or args.connect is not None:
        from csl_game.console.online_cmd import run_online

        return run_online(args)
    mc = match_config(args)
    paths = tuple(args.thinkers)
    players = [_player(args.white, args.white_params, mc, paths),
               _player(args.red, args.red_params, mc, paths)]
    limit, memory = setup_limit_of(args), memory_limit_of(args)
    out = sys.stderr if args.json else sys.stdout
    listener = ConsoleListener(out)
    ask = _human_input(out)

    def play(match: Match) -> MatchResult:
        match.subscribe(listener.on_match_event)
        return match.run(on_human=ask)

    with ExitStack() as stack:
        pool = warm_pool(args.in_process, stack)  # the probes' workers play the match
        known = check_thinkers(players, ("-W/--white", "-R/--red"), args.in_process, limit,
                               memory, pool, args.network)
        options = SessionOptions(adjudicator=adjudicator_of(args),
                                 run=RunOptions.of(args.in_process, limit, memory,
                                                   known_setups=known, pool=pool))
        results = ResultsWriter(args.results) if args.results else None
        if results is not None:
            stack.callback(results.close)
        session = Session(players, mc, options, results=results)
        session.run(play)
    result = session.records[0].result
    if args.json:
        print(json.dumps(result_to_json(result, mc)), flush=True)
    return 0
