"""The ``csl-game`` command as installed: the command line, with the worker
fork server started first when the verb will play thinkers.

Starting the fork server takes a new interpreter a few tenths of a second
(it imports the engine and the built-in thinkers). Started here, before this
process imports the command line and the engine, the two start-ups run side
by side instead of one after the other; a verb that plays no thinker
(``report``, ``info``, ``--version``, ``--help``) starts no server.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main", "plays_thinkers", "INTERRUPTED"]

INTERRUPTED = 130
"""The exit status after Ctrl+C: 128 + SIGINT."""

PLAYING_VERBS = frozenset({"match", "session", "league", "sprt", "analyse", "analyze"})
"""The verbs that run thinkers in worker processes."""


def plays_thinkers(argv: Sequence[str]) -> bool:
    """Whether these arguments name a verb that runs thinkers in worker processes."""
    verb = next((a for a in argv if not a.startswith("-")), None)
    return (verb in PLAYING_VERBS
            and not any(a in ("-h", "--help", "--in-process") for a in argv))


def main() -> int:
    """Run the command line (`csl_game.cli.main`); returns the exit status."""
    if sys.argv[1:] == ["--version"]:  # what the parser would print, without loading it
        from csl_game import __version__

        try:
            print(f"csl-game {__version__}", flush=True)
        except BrokenPipeError:  # nobody reads it: as argparse does, say nothing
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 0
    from csl_game.interrupts import hold

    hold()  # Ctrl+C waits till the command can answer it (interrupts.take_interrupts)
    try:
        if plays_thinkers(sys.argv[1:]):
            from csl_game.forkserver import start_server

            start_server()
        from csl_game.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:  # before the command could say more
        print("csl-game: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED
