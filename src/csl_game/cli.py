"""The command line: ``csl-game [play|match|watch|session|report|replay|league|info] ...``.

Exit status: 0 when the command did its job (whoever won), 2 for bad usage or
bad input (one line on stderr, no traceback), 130 when interrupted, 141 when
whatever reads standard output stops reading (``csl-game info | head -1``),
1 for anything else.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import FrameType
from typing import NoReturn, TextIO

from csl_game import __version__
from csl_game.console import ConsoleListener, ask_human_move
from csl_game.console.session_cmd import (
    check_thinkers,
    memory_limit_of,
    results_paths,
    run_session,
    setup_limit_of,
    warm_pool,
)
from csl_game.engine.match import Human, Match, MatchResult, Player
from csl_game.engine.results import ResultsWriter, result_to_json
from csl_game.engine.scheduler import runner_factory
from csl_game.engine.session import Session, SessionOptions
from csl_game.engine.standings import Points
from csl_game.errors import ConfigError, CslError, Terminated, UsageError, exit_status
from csl_game.services import narration
from csl_game.services import settings as cfg
from csl_game.services.options import (
    ALIASES,
    VERBS,
    add_options,
    adjudicator_of,
    flag_text,
    match_config,
    options_of,
    points_of,
    unknown_track_config,
)
from csl_game.services.setup_file import SettingError
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.discovery import registry
from csl_game.thinker.engine_thinker import EngineSpec
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["main", "build_parser"]

REFERENCE = "reference"
"""The report format that writes the reference framework's competition files."""
BROKEN_PIPE = 141
"""The exit status when standard output's reader went away: 128 + SIGPIPE, as
command-line tools end then."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every verb, each verb's options from the one table
    (csl_game.services.options)."""
    parser = _Parser(prog="csl-game", description="ColorShapeLinks: Simplexity on any "
                     "board size. Play in a window, or run matches and sessions.")
    parser.add_argument("--version", action="version", version=f"csl-game {__version__}")
    sub = parser.add_subparsers(dest="verb", parser_class=_Parser, metavar="VERB")
    for verb, help in _VERB_HELP.items():
        aliases = [a for a, v in ALIASES.items() if v == verb]
        verb_parser = sub.add_parser(verb, help=help, description=help, aliases=aliases)
        note = ("500 ms a move, as the setup screen says" if verb == "play"
                else f"{cfg.CONSOLE_TIME_LIMIT_MS} ms a move")
        add_options(verb_parser, verb, note)
    return parser


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
}


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    if args and args[0] in ALIASES:
        args[0] = ALIASES[args[0]]
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


def _match_config_for_session(args: argparse.Namespace) -> MatchConfig:
    if args.unknown_track is None:
        return match_config(args)
    return unknown_track_config(args)


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
                               memory, pool)
        options = SessionOptions(runner_factory=runner_factory(args.in_process, pool, limit,
                                                               memory),
                                 in_process=args.in_process, setup_limit=limit,
                                 memory_limit_mb=memory, known_setups=known, pool=pool,
                                 adjudicator=adjudicator_of(args))
        results = ResultsWriter(args.results) if args.results else None
        if results is not None:
            stack.callback(results.close)
        session = Session(players, mc, options, results=results)
        session.run(play)
    result = session.records[0].result
    if args.json:
        print(json.dumps(result_to_json(result, mc)), flush=True)
    return 0


def cmd_session(args: argparse.Namespace) -> int:
    add_engine_sources(args, cfg.read_session_engines(args.game_file))
    return run_session(args, _match_config_for_session(args))


def cmd_watch(args: argparse.Namespace) -> int:
    from csl_game.console.online_cmd import run_watch

    return run_watch(args)


def cmd_report(args: argparse.Namespace) -> int:
    from csl_game.engine.results import duplicates_note, first_lines, read_results
    from csl_game.services.report import load_report

    points = points_of(args)
    assert points is not None
    if args.serve:
        return _serve_site(args, points)
    docs, twice = first_lines(read_results(args.results_file))
    if twice:
        print(f"csl-game: note: {duplicates_note(args.results_file, twice)}", file=sys.stderr)
    if args.ratings or args.anchor:
        if args.format in (REFERENCE, "pgn", "html"):
            raise UsageError(f"--ratings prints md, csv or json, not {args.format}")
        from csl_game.services.report import parse_anchor

        anchor = parse_anchor(args.anchor) if args.anchor else None
        print(load_report(docs, points).render_ratings(args.format, anchor))
        return 0
    if args.format == REFERENCE:
        from csl_game.services.reference import write_reference

        written = write_reference(docs, args.output, points)
        print(f"wrote {written[0]} and {len(written) - 1} match transcripts in "
              f"{written[0].parent / 'results'}")
        return 0
    if args.format == "html":
        from csl_game.services.site import write_site

        folder = write_site(docs, args.output, points)
        print(f"wrote the site of {len(docs)} matches: {folder / 'index.html'}")
        return 0
    report = load_report(docs, points)
    print(report.render(args.format, args.table))
    return 0


def _serve_site(args: argparse.Namespace, points: Points) -> int:
    """Serve a site folder as it is, or the site of a results file, rebuilt as it grows."""
    import tempfile

    from csl_game.engine.results import first_lines, read_results
    from csl_game.online.wire import lan_address
    from csl_game.services.serve import SiteServer
    from csl_game.services.site import write_site

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535, got {args.port}")
    source = Path(args.results_file)
    rebuild = None
    if source.is_dir():
        if not (source / "index.html").is_file():
            raise ConfigError(f"{source} holds no site (no index.html)")
        folder = source
    else:
        folder = Path(args.output) if args.output != "." else \
            Path(tempfile.mkdtemp(prefix="csl-site-"))
        built_from: tuple[int, float] | None = None

        def rebuild() -> None:
            nonlocal built_from
            stat = source.stat()
            if built_from != (stat.st_size, stat.st_mtime):  # only when the file changed
                built_from = (stat.st_size, stat.st_mtime)
                write_site(first_lines(read_results(source))[0], folder, points, live=True)

        rebuild()
    try:
        server = SiteServer(folder, args.host, args.port, rebuild=rebuild)
    except OSError as e:
        raise ConfigError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") \
            from None
    with server:
        shown = "localhost" if args.host in ("0.0.0.0", "::", "127.0.0.1") else args.host
        print(f"Serving the site of {source} at http://{shown}:{server.port}/", flush=True)
        if args.host in ("0.0.0.0", "::"):
            print(f"  for others on the network: http://{lan_address()}:{server.port}/ "
                  "(Ctrl+C stops)", flush=True)
        server.serve_forever()
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
    if args.review:
        from csl_game.console.review_cmd import run_review

        return run_review(replay, args)
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
    if args.examples is not None:
        return _copy_examples(Path(args.examples))
    reg = registry(tuple(args.thinkers))
    print("Known thinkers:")
    for fqn in sorted(reg.classes, key=reg.short_name):
        doc = (reg.classes[fqn].__doc__ or "").strip().splitlines()
        summary = f"  {doc[0]}" if doc else ""
        print(f"  {reg.short_name(fqn):<14} {fqn}{summary}")
    for problem in reg.problems:
        print(f"warning: {problem}", file=sys.stderr)
    for why in reg.near_misses():
        print(f"not listed: {why}", file=sys.stderr)
    return 0


def _copy_examples(into: Path) -> int:
    """Copy the shipped examples into `into` (made if need be, never overwriting).

    Raises:
        ConfigError: a file of the same name is there, or `into` cannot be written.
    """
    from importlib.resources import as_file, files

    with as_file(files("csl_game.examples")) as root:
        shipped = [p for p in sorted(Path(root).rglob("*")) if p.is_file()
                   and p.suffix in (".py", ".c", ".cs") and p.name != "__init__.py"
                   and "__pycache__" not in p.parts]
        taken = [into / p.relative_to(root) for p in shipped if (into / p.relative_to(root)).exists()]
        if taken:
            raise ConfigError(f"--examples: {taken[0]} is there already; name a new folder")
        try:
            for path in shipped:
                target = into / path.relative_to(root)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        except OSError as e:
            raise ConfigError(f"--examples: cannot write into {into}: {e.strerror or e}") from None
    print(f"Copied {len(shipped)} example files into {into}:")
    for path in shipped:
        print(f"  {(into / path.relative_to(root)).as_posix()}")
    return 0


def _play_flags(args: argparse.Namespace) -> dict[str, object]:
    """The settings the command line gives, by setting key (None: not given)."""
    flags: dict[str, object] = {o.setting: getattr(args, o.dest) for o in options_of("play")
                                if o.setting is not None}
    flags["competition"] = True if args.competition else None
    points = points_of(args, None)
    if points is not None:
        flags.update(points_per_win=points.win, points_per_draw=points.draw,
                     points_per_loss=points.loss)
    if args.unknown_track is not None:
        unknown_track_config(args)  # the same refusals as the session verb's
        flags.update(rows=args.unknown_track[0], cols=args.unknown_track[1], unknown_track=True)
    path, resume = results_paths(args.results, args.resume)
    if path:
        flags.update(results_file=path, resume=resume)
    if args.site:
        flags.update(site_folder=args.site)
    if args.listen is not None:
        from csl_game.online.wire import parse_address

        try:
            parse_address(args.listen, bare=True)
        except ValueError as e:
            raise UsageError(f"--listen {e}") from None
        flags.update(listen=args.listen)
    return flags


def _play_options(args: argparse.Namespace) -> cfg.PlayOptions:
    """The GUI defaults, then the --config file, then --ai and the board flags.

    Without a flag that says what to play (players, a setup file, a setting),
    the window opens on the home screen; with only settings, on the setup
    screen; with players, on their game.
    """
    from csl_game.services.setup_file import (
        apply_settings,
        check_config,
        load_config,
        player_problems,
    )

    options = cfg.PlayOptions(thinker_paths=tuple(args.thinkers))
    if args.config is not None:
        options = load_config(args.config, options)
        check_config(args.config, options)
    flags = _play_flags(args)
    try:
        options = apply_settings(options, {k: v for k, v in flags.items() if v is not None})
    except SettingError as e:
        dest = next((o.dest for o in options_of("play") if o.setting == e.key), None)
        raise UsageError(f"{flag_text(dest) if dest else e.key}: {e.problem}") from None
    specs = [*args.ai, *([args.level] if args.level else [])]
    ais = tuple(cfg.parse_ai_spec(spec) for spec in specs)
    problems = player_problems(ais, options)  # bad thinkers are bad input: before any window
    for i, spec in enumerate(specs, 1):
        for key in (f"players[{i}].thinker", f"players[{i}].params"):
            if key in problems:
                raise UsageError(f"--ai {spec!r}: {problems[key]}")
    given = bool(specs) or args.config is not None or args.auto or any(
        v is not None for v in flags.values())
    return replace(options, ais=ais or options.ais, auto=args.auto,
                   in_process=args.in_process,
                   show_setup=not specs and args.config is None, show_home=not given)


def cmd_play(args: argparse.Namespace) -> int:
    options = _play_options(args)
    from csl_game.gui import run_gui  # pygame loads only when a window opens

    return run_gui(options)


def cmd_sprt(args: argparse.Namespace) -> int:
    from csl_game.console.sprt_cmd import run_sprt

    return run_sprt(args)


def cmd_openings(args: argparse.Namespace) -> int:
    from csl_game.console.sprt_cmd import run_openings

    return run_openings(args)


def cmd_analyse(args: argparse.Namespace) -> int:
    from csl_game.console.analyse_cmd import run_analyse

    return run_analyse(args)


def cmd_league(args: argparse.Namespace) -> int:
    from csl_game.console.league_cmd import run_league

    return run_league(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": cmd_play, "match": cmd_match, "watch": cmd_watch, "session": cmd_session, "report": cmd_report,
    "replay": cmd_replay, "info": cmd_info, "league": cmd_league,
    "sprt": cmd_sprt, "openings": cmd_openings, "analyse": cmd_analyse}


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
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="csl-game: %(levelname)s: %(name)s: %(message)s")
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
