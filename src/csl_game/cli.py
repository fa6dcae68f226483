"""The command line: ``csl-game [play|match|watch|session|league|sprt|openings|analyse|
report|replay|info|server|bot] ...``: it parses the arguments and hands them to the verb.

Each verb's options come from the one table (csl_game.services.options); each
verb's body is a module of its own (csl_game.console.*_cmd), imported when the
verb runs, so a verb loads only what it uses (pygame only when a window opens).

Exit status: 0 when the command did its job (whoever won), 2 for bad usage or
bad input (one line on stderr, no traceback), 130 when interrupted, 141 when
whatever reads standard output stops reading (``csl-game info | head -1``),
1 for anything else.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from csl_game import __version__
from csl_game.errors import CslError, Terminated, UsageError, exit_status
from csl_game.interrupts import take_interrupts
from csl_game.services.options import ALIASES, CONSOLE_TIME_LIMIT_MS, VERBS, options_of

if TYPE_CHECKING:
    from csl_game.services.replay import Replay
    from csl_game.services.settings import PlayOptions

__all__ = ["main", "build_parser", "BROKEN_PIPE"]

BROKEN_PIPE = 141
"""The exit status when standard output's reader went away: 128 + SIGPIPE, as
command-line tools end then."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every verb, each verb's options from the one table
    (csl_game.services.options); with `only`, every verb is listed but only
    that one is given its options (a command line names one verb: the other
    twelve cost some 30 ms to build)."""
    parser = _Parser(prog="csl-game", description="ColorShapeLinks: Simplexity on any "
                     "board size. Play in a window, or run matches and sessions.")
    parser.add_argument("--version", action="version", version=f"csl-game {__version__}")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser, metavar="VERB")
    for verb, help in _VERB_HELP.items():
        aliases = [a for a, v in ALIASES.items() if v == verb]
        verb_parser = sub.add_parser(verb, help=help, description=help, aliases=aliases)
        if only is not None and verb != only:
            continue
        note = ("500 ms a move, as the setup screen says" if verb == "play"
                else f"{CONSOLE_TIME_LIMIT_MS} ms a move")
        _add_options(verb_parser, verb, note)
    return parser


def _add_options(parser: argparse.ArgumentParser, verb: str, board_note: str = "") -> None:
    """Give `parser` every option of `verb`, from the table."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in options_of(verb):
        target: Any = parser
        if option.group is not None:
            title = option.group % board_note if "%s" in option.group else option.group
            target = groups.setdefault(option.group, parser.add_argument_group(title))
        # argparse formats help texts with %: "95 % interval" must stay text
        kwargs = dict(option.kwargs, help=option.help_for(verb).replace("%", "%%"))
        if verb in option.metavars:
            kwargs["metavar"] = option.metavars[verb]
        if option.positional:
            target.add_argument(option.dest, **kwargs)
            continue
        if verb in option.required:
            kwargs["required"] = True
        target.add_argument(*option.flags_for(verb), dest=option.dest,
                            default=option.default_for(verb), **kwargs)


_VERB_HELP = {
    "play": "open the game window (the default verb)",
    "match": "play one match in the terminal (--listen and --connect: over the network)",
    "watch": "follow a match hosted with match --listen, read-only",
    "session": "play a complete tournament in the terminal",
    "league": "rank the thinkers: every pair, both colours, several openings",
    "sprt": "test NEW against BASE in game pairs until the SPRT decides (docs/testing.md)",
    "openings": "write an opening book of balanced openings",
    "analyse": "analyse a position: every move's value, proven results, the best line "
               "(alias analyze)",
    "report": "standings and results of a results file",
    "replay": "replay a match of a results file or of match --json output, in the window "
              "or the terminal",
    "info": "list the known thinkers",
    "server": "run the game server: browsers, the app and bots play there; bots climb a "
              "ladder (docs/server.md)",
    "bot": "connect a thinker to a game server, where it plays the ladder",
}


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    if args and args[0] in ALIASES:
        args[0] = ALIASES[args[0]]
    if args and args[0] not in VERBS and not args[0].startswith("-"):
        raise UsageError(f"unknown command '{args[0]}' (choose from {', '.join(VERBS)})")
    if not args or (args[0] not in VERBS and args[0] not in ("-h", "--help", "--version")):
        args.insert(0, "play")
    parser = build_parser(args[0] if args[0] in VERBS else None)
    parsed = parser.parse_args(args)  # --help ends here, having loaded no engine
    parsed.command_line = args  # as given (a run's --log says it)
    if hasattr(parsed, "thinkers"):  # the verbs that find thinkers
        from csl_game.services.flag_values import add_engine_sources

        add_engine_sources(parsed, getattr(parsed, "engine", ()))
    return parsed


# ------------------------------------------------------------------ the verbs
def cmd_play(args: argparse.Namespace) -> int:
    from csl_game.console.play_cmd import run_play

    return run_play(args, _open_window)


def _open_window(options: PlayOptions) -> int:
    from csl_game.gui import run_gui  # pygame loads only when a window opens

    return run_gui(options)


def cmd_match(args: argparse.Namespace) -> int:
    from csl_game.console.match_cmd import run_match

    return run_match(args)


def cmd_watch(args: argparse.Namespace) -> int:
    from csl_game.console.online_cmd import run_watch

    return run_watch(args)


def cmd_session(args: argparse.Namespace) -> int:
    from csl_game.console.session_cmd import run_session

    return run_session(args)


def cmd_league(args: argparse.Namespace) -> int:
    from csl_game.console.league_cmd import run_league

    return run_league(args)


def cmd_sprt(args: argparse.Namespace) -> int:
    from csl_game.console.sprt_cmd import run_sprt

    return run_sprt(args)


def cmd_openings(args: argparse.Namespace) -> int:
    from csl_game.console.sprt_cmd import run_openings

    return run_openings(args)


def cmd_analyse(args: argparse.Namespace) -> int:
    from csl_game.console.analyse_cmd import run_analyse

    return run_analyse(args)


def cmd_report(args: argparse.Namespace) -> int:
    from csl_game.console.report_cmd import run_report

    return run_report(args)


def cmd_replay(args: argparse.Namespace) -> int:
    from csl_game.console.replay_cmd import run_replay

    def in_window(replay: Replay) -> int:
        from csl_game.gui import run_replay  # pygame loads only when a window opens

        return run_replay(replay, auto=args.auto)

    return run_replay(args, in_window)


def cmd_info(args: argparse.Namespace) -> int:
    from csl_game.console.info_cmd import run_info

    return run_info(args)


def cmd_server(args: argparse.Namespace) -> int:
    from csl_game.console.server_cmd import run_server_verb

    return run_server_verb(args)


def cmd_bot(args: argparse.Namespace) -> int:
    from csl_game.console.bot_cmd import run_bot_verb

    return run_bot_verb(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": cmd_play, "match": cmd_match, "watch": cmd_watch, "session": cmd_session,
    "league": cmd_league, "sprt": cmd_sprt, "openings": cmd_openings, "analyse": cmd_analyse,
    "report": cmd_report, "replay": cmd_replay, "info": cmd_info, "server": cmd_server,
    "bot": cmd_bot}


SUMMARISED = frozenset({"sprt"})
"""The verbs that take Ctrl+C themselves (`take_interrupts`) once they can
print their summary: one that came while the command loaded is held till then."""


# ------------------------------------------------------------------ running one
def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        status = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # a reader gone by now breaks the pipe here, not at exit
        return status
    except BrokenPipeError:
        # Nobody reads standard output any more (`csl-game info | head -1`):
        # stop quietly, and send what is still buffered nowhere, so that
        # Python's own flush at exit finds no broken pipe either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM raises Terminated in the main thread while the command runs."""
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread: the caller handles its signals
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _dispatch(argv: list[str]) -> int:
    args = _parse(argv)
    from csl_game.thinker.discovery import catalog  # not before: the parser needs none of it

    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="csl-game: %(levelname)s: %(name)s: %(message)s")
    catalog(tuple(getattr(args, "thinkers", ())))  # a bad --thinkers path is bad input (read, not run)
    if args.verb not in SUMMARISED:
        take_interrupts()
    return COMMANDS[args.verb](args)


def _main(argv: list[str]) -> int:
    """The command, its errors turned into one line and the exit status that
    `csl_game.errors.exit_status` gives their class."""
    try:
        with _sigterm_unwinds():
            return _dispatch(argv)
    except SystemExit as e:  # --help and friends
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt as e:
        print("csl-game: interrupted", file=sys.stderr)
        return exit_status(e)
    except Terminated as e:
        sys.stdout.flush()
        kept = any(a.startswith(("--results", "--resume", "--site")) for a in argv)
        print("csl-game: terminated (SIGTERM)"
              + ("; the results written so far are kept" if kept else ""),
              file=sys.stderr, flush=True)
        return exit_status(e)
    except CslError as e:
        status = exit_status(e)
        what = "error" if status == 2 else "cannot go on"  # bad input, or the program's
        from csl_game.services import narration

        print(narration.terminal_safe(f"csl-game: {what}: {e}"), file=sys.stderr)
        return status


if __name__ == "__main__":
    sys.exit(main())
