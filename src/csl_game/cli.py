"""The command line: ``csl-game [play|match|session|report|replay|league|info] ...``.

Exit status: 0 when the command did its job (whoever won), 2 for bad usage or
bad input (one line on stderr, no traceback), 130 when interrupted, 141 when
whatever reads standard output stops reading (``csl-game info | head -1``),
1 for anything else.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from types import FrameType
from typing import NoReturn, TextIO

from csl_game import __version__
from csl_game.services import narration
from csl_game.services import settings as cfg
from csl_game.console import ConsoleListener, ask_human_move
from csl_game.thinker.discovery import registry
from csl_game.errors import (ConfigError, CslError, Terminated, UsageError,
                             exit_status)
from csl_game.engine.match import Human, Match, MatchResult, Player
from csl_game.services.presets import LEVELS
from csl_game.engine.results import result_to_json
from csl_game.engine import SETUP_TIME_LIMIT
from csl_game.engine.scheduler import runner_factory
from csl_game.console.session_cmd import (check_thinkers, results_paths, run_session,
                                          setup_limit_of)
from csl_game.services.report import FORMATS
from csl_game.engine.session import Session, SessionOptions
from csl_game.services.setup_file import SettingError, check_limits
from csl_game.engine.standings import Points
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.engine_thinker import EngineSpec
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["main", "build_parser"]

VERBS = ("play", "match", "session", "report", "replay", "info", "league")
REFERENCE = "reference"
"""The report format that writes the reference framework's competition files."""
BROKEN_PIPE = 141
"""The exit status when standard output's reader went away: 128 + SIGPIPE, as
command-line tools end then."""




class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _board_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("board and timing (defaults: 6x7, 4 in a row, 10+11 pieces)")
    g.add_argument("-r", "--rows", type=int, default=None, help="board rows")
    g.add_argument("-c", "--cols", type=int, default=None, help="board columns")
    g.add_argument("-w", "--win-sequence", type=int, default=None,
                   help="pieces in a row needed to win")
    g.add_argument("-o", "--round-pieces", type=int, default=None,
                   help="round pieces per player")
    g.add_argument("-s", "--square-pieces", type=int, default=None,
                   help="square pieces per player")
    g.add_argument("-t", "--time-limit", type=int, default=None, metavar="MS",
                   help="AI time limit per move in ms")
    g.add_argument("-m", "--min-move-time", type=int, default=None, metavar="MS",
                   help="minimum apparent AI move time in ms")
    _common(p)


def _setup_limit_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--setup-time-limit", type=int, default=round(SETUP_TIME_LIMIT * 1000),
                   metavar="MS", help="time a thinker may take to be set up and named, in "
                                      f"its worker (default {SETUP_TIME_LIMIT * 1000:.0f})")


def _points_options(p: argparse.ArgumentParser, default: bool = True) -> None:
    for name, value in (("win", 3), ("draw", 1), ("loss", 0)):
        p.add_argument(f"--points-per-{name}", type=int, default=value if default else None,
                       metavar="N", help=f"tournament points per {name} (default {value})")


def _tournament_options(p: argparse.ArgumentParser) -> None:
    """What a tournament in the window and in the terminal share."""
    p.add_argument("--results", metavar="FILE",
                   help="append each match's result to FILE as a JSON line as it ends")
    p.add_argument("--resume", metavar="FILE",
                   help="take the matches already in results FILE as played, append the rest")
    p.add_argument("--competition", action="store_true",
                   help="break a tie in first place by the competition rules")
    p.add_argument("--unknown-track", type=int, nargs=2, metavar=("ROWS", "COLS"),
                   help="derive every board and time setting from two numbers")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--thinkers", action="append", default=[], metavar="PATH",
                   help="also look for thinkers in this .py file or folder (repeatable)")
    p.add_argument("--engine", action="append", default=[], metavar='"NAME=COMMAND [ARGS]"',
                   help="an executable speaking the engine protocol (docs/engines.md), "
                        "then a thinker named NAME (repeatable)")
    p.add_argument("--in-process", action="store_true",
                   help="run thinkers on threads of this process (for debugging "
                        "thinkers) instead of isolated worker processes")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="csl-game", description="ColorShapeLinks: Simplexity on any "
                     "board size. Play in a window, or run matches and sessions.")
    parser.add_argument("--version", action="version", version=f"csl-game {__version__}")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser, metavar="VERB")
    play = sub.add_parser("play", help="open the game window (the default verb)")
    play.add_argument("--ai", action="append", default=[], metavar='"THINKER [PARAMS]"',
                      help="an AI player (repeatable): 0 -> human vs human, "
                           "1 -> human vs AI, 2 -> AI vs AI, 3+ -> tournament; a level "
                           f"({', '.join(lv.name for lv in LEVELS)}) stands for its thinker")
    play.add_argument("--level", choices=[lv.name for lv in LEVELS], type=str.lower,
                      help="play against the AI of this difficulty level (the same as "
                           "--ai LEVEL; --ai also takes a level's name)")
    play.add_argument("--config", metavar="FILE",
                      help="the setup (settings and AI players) from a TOML file, as the "
                           "setup screen saves it; --ai and the board flags override it")
    play.add_argument("--auto", action="store_true",
                      help="answer every question with its default and exit at the end")
    play.add_argument("--workers", type=int, default=None, metavar="N",
                      help="tournament matches played at once: one on screen, the others "
                           "in the background (default 1; at most the number of cores "
                           "keeps time limits fair)")
    _tournament_options(play)
    _points_options(play, default=False)
    _board_options(play)
    match = sub.add_parser("match", help="play one match in the terminal")
    match.add_argument("-W", "--white", metavar="THINKER", help="White thinker (default: human)")
    match.add_argument("-R", "--red", metavar="THINKER", help="Red thinker (default: human)")
    match.add_argument("--white-params", default="", metavar="S")
    match.add_argument("--red-params", default="", metavar="S")
    match.add_argument("--json", action="store_true",
                       help="print the result as JSON on stdout (the match goes to stderr)")
    _setup_limit_option(match)
    _board_options(match)
    session = sub.add_parser("session", help="play a complete tournament in the terminal")
    session.add_argument("-g", "--game-file", required=True, metavar="FILE",
                         help="one thinker per line, its parameters after it")
    _points_options(session)
    session.add_argument("--workers", type=int, default=None, metavar="N",
                         help="matches played at once (default: number of cores)")
    _tournament_options(session)
    session.add_argument("--dask", metavar="ADDRESS",
                         help="play the matches on a Dask cluster (needs csl-game[dask])")
    session.add_argument("--quiet", action="store_true", help="print only the final standings")
    session.add_argument("--verbose", action="store_true",
                         help="print every move and board (plays one match at a time)")
    _setup_limit_option(session)
    _board_options(session)
    report = sub.add_parser("report", help="standings and results of a results file")
    report.add_argument("results_file", metavar="RESULTS_FILE")
    report.add_argument("--format", choices=(*FORMATS, REFERENCE), default="md",
                        help="md, csv or json on standard output; reference writes the "
                             "reference framework's standings.md and results/ into "
                             "--output")
    report.add_argument("--table", choices=("standings", "results"), default="standings",
                        help="which table CSV gives")
    report.add_argument("-o", "--output", metavar="DIR", default=".",
                        help="the folder --format reference writes into (default: here)")
    _points_options(report)
    _common(report)
    _replay_parser(sub)
    sub.add_parser("league", add_help=False,
                   help="rank the thinkers: every pair, both colours, several openings "
                        "(csl-game league --help)")
    info = sub.add_parser("info", help="list the known thinkers")
    _common(info)
    return parser


def _replay_parser(sub: argparse._SubParsersAction[_Parser]) -> None:
    replay = sub.add_parser("replay", help="replay a match of a results file or of "
                            "match --json output, in the window or the terminal")
    replay.add_argument("results_file", metavar="RESULTS_FILE")
    replay.add_argument("--match", type=int, metavar="N",
                        help="the match's number, as reports show it (needed when the "
                             "file holds several)")
    replay.add_argument("--list", action="store_true", help="list the file's matches")
    replay.add_argument("--console", action="store_true",
                        help="in the terminal (also without a display): every move and "
                             "board, or step with Enter when at a terminal")
    replay.add_argument("--auto", action="store_true",
                        help="in the window: play the moves one after another and close "
                             "at the end")


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    if args and args[0] not in VERBS and not args[0].startswith("-"):
        raise UsageError(f"unknown command '{args[0]}' (choose from {', '.join(VERBS)})")
    if not args or (args[0] not in VERBS and args[0] not in ("-h", "--help", "--version")):
        args.insert(0, "play")
    parsed = build_parser().parse_args(args)
    if hasattr(parsed, "thinkers"):  # the verbs that find thinkers
        add_engine_sources(parsed, getattr(parsed, "engine", ()))
    return parsed


def add_engine_sources(args: argparse.Namespace, declarations: Sequence[str]) -> None:
    """Put engines (``NAME=COMMAND``) among the thinker sources, after the --thinkers
    paths: from there every verb, and every worker, finds them as thinkers.

    Raises:
        ConfigError: an engine is declared badly.
    """
    sources = [EngineSpec.parse(text).source for text in declarations]
    args.thinkers = [*args.thinkers, *(s for s in sources if s not in args.thinkers)]


_BOARD_FLAGS = {"rows": "-r/--rows", "cols": "-c/--cols", "win_sequence": "-w/--win-sequence",
                "round_pieces": "-o/--round-pieces", "square_pieces": "-s/--square-pieces",
                "time_limit_ms": "-t/--time-limit", "min_move_time_ms": "-m/--min-move-time"}


def _within_limits(values: dict[str, int | None], flags: dict[str, str] = _BOARD_FLAGS) -> None:
    """Refuse a value over its limit before a board is made of it (a huge one
    would take all the memory there is)."""
    try:
        check_limits({k: v for k, v in values.items() if v is not None})
    except SettingError as e:
        raise UsageError(f"{flags[e.key]}: {e.problem}") from None


def _match_config(args: argparse.Namespace, time_limit: int, min_move: int) -> MatchConfig:
    base = MatchConfig()
    values = {"rows": args.rows, "cols": args.cols, "win_sequence": args.win_sequence,
              "round_pieces": args.round_pieces, "square_pieces": args.square_pieces,
              "time_limit_ms": args.time_limit, "min_move_time_ms": args.min_move_time}
    _within_limits(values)
    defaults = {"time_limit_ms": time_limit, "min_move_time_ms": min_move}
    chosen = {k: v if v is not None else defaults.get(k, getattr(base, k))
              for k, v in values.items()}
    return MatchConfig(**chosen)


def _check_unknown_track(args: argparse.Namespace) -> None:
    given = [o for o, v in (("-r", args.rows), ("-c", args.cols), ("-w", args.win_sequence),
                            ("-o", args.round_pieces), ("-s", args.square_pieces),
                            ("-t", args.time_limit)) if v is not None]
    if given:
        raise UsageError(f"--unknown-track sets the board and time limit: drop {' '.join(given)}")
    rows, cols = args.unknown_track
    _within_limits({"rows": rows, "cols": cols},
                   {"rows": "--unknown-track ROWS", "cols": "--unknown-track COLS"})


def _match_config_for_session(args: argparse.Namespace) -> MatchConfig:
    if args.unknown_track is None:
        return _match_config(args, cfg.CONSOLE_TIME_LIMIT_MS, cfg.CONSOLE_MIN_MOVE_TIME_MS)
    _check_unknown_track(args)
    min_move = args.min_move_time if args.min_move_time is not None else 0
    _within_limits({"min_move_time_ms": min_move})
    return replace(MatchConfig.unknown_track(*args.unknown_track), min_move_time_ms=min_move)


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

    return partial(ask_human_move, read=read, say=lambda t: print(t, file=out, flush=True))


def cmd_match(args: argparse.Namespace) -> int:
    mc = _match_config(args, cfg.CONSOLE_TIME_LIMIT_MS, cfg.CONSOLE_MIN_MOVE_TIME_MS)
    paths = tuple(args.thinkers)
    players = [_player(args.white, args.white_params, mc, paths),
               _player(args.red, args.red_params, mc, paths)]
    limit = setup_limit_of(args)
    known = check_thinkers(players, ("-W/--white", "-R/--red"), args.in_process, limit)
    out = sys.stderr if args.json else sys.stdout
    options = SessionOptions(runner_factory=runner_factory(args.in_process, None, limit),
                             in_process=args.in_process, setup_limit=limit, known_setups=known)
    session = Session(players, mc, options)
    listener = ConsoleListener(out)
    ask = _human_input(out)

    def play(match: Match) -> MatchResult:
        match.subscribe(listener.on_match_event)
        return match.run(on_human=ask)

    session.run(play)
    result = session.records[0].result
    if args.json:
        print(json.dumps(result_to_json(result, mc)), flush=True)
    return 0


def cmd_session(args: argparse.Namespace) -> int:
    add_engine_sources(args, cfg.read_session_engines(args.game_file))
    return run_session(args, _match_config_for_session(args))


def cmd_report(args: argparse.Namespace) -> int:
    from csl_game.engine.results import duplicates_note, first_lines, read_results
    from csl_game.services.report import load_report

    points = Points(args.points_per_win, args.points_per_draw, args.points_per_loss)
    docs, twice = first_lines(read_results(args.results_file))
    if twice:
        print(f"csl-game: note: {duplicates_note(args.results_file, twice)}", file=sys.stderr)
    if args.format == REFERENCE:
        from csl_game.services.reference import write_reference

        written = write_reference(docs, args.output, points)
        print(f"wrote {written[0]} and {len(written) - 1} match transcripts in "
              f"{written[0].parent / 'results'}")
        return 0
    report = load_report(docs, points)
    print(report.render(args.format, args.table))
    return 0


def _has_display() -> bool:
    """Whether a window can open: a chosen SDL driver, or a desktop session on
    systems whose windows need one (X11 or Wayland)."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def cmd_replay(args: argparse.Namespace) -> int:
    from csl_game.services.replay import load_replays, numbered, pick_replay

    replays = load_replays(args.results_file)
    if args.list:
        for number, replay in sorted(numbered(replays).items()):
            print(f"{number:>4}  {replay.players}: {narration.game_over(replay.result)}")
        return 0
    replay = pick_replay(replays, args.match)
    if args.console or not _has_display():
        from csl_game.console.replay_cmd import print_replay, step_replay

        if sys.stdin.isatty() and sys.stdout.isatty():
            step_replay(replay, input, sys.stdout)
        else:
            print_replay(replay, sys.stdout)
        return 0
    from csl_game.gui import run_replay  # pygame loads only when a window opens

    return run_replay(replay, auto=args.auto)


def cmd_info(args: argparse.Namespace) -> int:
    reg = registry(tuple(args.thinkers))
    print("Known thinkers:")
    for fqn in sorted(reg.classes, key=reg.short_name):
        doc = (reg.classes[fqn].__doc__ or "").strip().splitlines()
        summary = f"  {doc[0]}" if doc else ""
        print(f"  {reg.short_name(fqn):<14} {fqn}{summary}")
    for problem in reg.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 0


_PLAY_FLAGS = {"rows": "-r/--rows", "cols": "-c/--cols", "win_sequence": "-w/--win-sequence",
               "round_pieces": "-o/--round-pieces", "square_pieces": "-s/--square-pieces",
               "time_limit_ms": "-t/--time-limit", "min_move_time_ms": "-m/--min-move-time",
               "workers": "--workers", "points_per_win": "--points-per-win",
               "points_per_draw": "--points-per-draw", "points_per_loss": "--points-per-loss",
               "results_file": "--results/--resume", "resume": "--resume",
               "competition": "--competition", "unknown_track": "--unknown-track"}


def _play_flags(args: argparse.Namespace) -> dict[str, object]:
    """The settings the command line gives (None: not given)."""
    flags: dict[str, object] = {
        "rows": args.rows, "cols": args.cols, "win_sequence": args.win_sequence,
        "round_pieces": args.round_pieces, "square_pieces": args.square_pieces,
        "time_limit_ms": args.time_limit, "min_move_time_ms": args.min_move_time,
        "workers": args.workers, "points_per_win": args.points_per_win,
        "points_per_draw": args.points_per_draw, "points_per_loss": args.points_per_loss,
        "competition": True if args.competition else None}
    if args.unknown_track is not None:
        _check_unknown_track(args)
        flags.update(rows=args.unknown_track[0], cols=args.unknown_track[1], unknown_track=True)
    path, resume = results_paths(args.results, args.resume)
    if path:
        flags.update(results_file=path, resume=resume)
    return flags


def _play_options(args: argparse.Namespace) -> cfg.PlayOptions:
    """The GUI defaults, then the --config file, then --ai and the board flags."""
    from csl_game.services.setup_file import (SettingError, apply_settings, check_config,
                                              load_config, player_problems)

    options = cfg.PlayOptions(thinker_paths=tuple(args.thinkers))
    if args.config is not None:
        options = load_config(args.config, options)
        check_config(args.config, options)
    flags = _play_flags(args)
    try:
        options = apply_settings(options, {k: v for k, v in flags.items() if v is not None})
    except SettingError as e:
        raise UsageError(f"{_PLAY_FLAGS[e.key]}: {e.problem}") from None
    specs = [*args.ai, *([args.level] if args.level else [])]
    ais = tuple(cfg.parse_ai_spec(spec) for spec in specs)
    problems = player_problems(ais, options)  # bad thinkers are bad input: before any window
    for i, spec in enumerate(specs, 1):
        for key in (f"players[{i}].thinker", f"players[{i}].params"):
            if key in problems:
                raise UsageError(f"--ai {spec!r}: {problems[key]}")
    return replace(options, ais=ais or options.ais, auto=args.auto,
                   in_process=args.in_process,
                   show_setup=not specs and args.config is None)


def cmd_play(args: argparse.Namespace) -> int:
    options = _play_options(args)
    from csl_game.gui import run_gui  # pygame loads only when a window opens

    return run_gui(options)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": cmd_play, "match": cmd_match, "session": cmd_session, "report": cmd_report,
    "replay": cmd_replay, "info": cmd_info}


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
    if argv[:1] == ["league"]:
        from csl_game.console.league_cmd import main as league_main

        return league_main(argv[1:])
    args = _parse(argv)
    registry(tuple(getattr(args, "thinkers", ())))  # a bad --thinkers path is bad input
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
        print("csl-game: terminated (SIGTERM); the results written so far are kept",
              file=sys.stderr, flush=True)
        return exit_status(e)
    except CslError as e:
        status = exit_status(e)
        what = "error" if status == 2 else "cannot go on"  # bad input, or the program's
        print(f"csl-game: {what}: {e}", file=sys.stderr)
        return status


if __name__ == "__main__":
    sys.exit(main())
