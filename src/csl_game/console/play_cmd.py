"""The ``play`` verb: the window's setup from the command line, checked before
any window opens.

The GUI's defaults, then the --config setup file, then --ai, --level and the
board and tournament flags; a bad value or a thinker that refuses its
parameters is bad input here (one line, exit 2), so a window opens only on a
setup that can be played.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace

from csl_game.console.playing import results_paths, say_sandbox
from csl_game.errors import SettingError, UsageError
from csl_game.services import settings as cfg
from csl_game.services.flag_values import points_of, unknown_track_config
from csl_game.services.options import flag_text, options_of

__all__ = ["run_play", "play_options"]


def run_play(args: argparse.Namespace, open_window: Callable[[cfg.PlayOptions], int]) -> int:
    """Open the window (`open_window`, the command line's: pygame loads only
    then) on the setup the arguments make; its exit status.

    Raises:
        CslError: bad input, found before any window opens.
    """
    options = play_options(args)
    if options.thinker_paths and not options.in_process:
        say_sandbox()  # contestants' files: whether their code runs in a sandbox here
    return open_window(options)


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
        from csl_game.services.addresses import parse_address

        try:
            parse_address(args.listen, bare=True)
        except ValueError as e:
            raise UsageError(f"--listen {e}") from None
        flags.update(listen=args.listen)
    return flags


def play_options(args: argparse.Namespace) -> cfg.PlayOptions:
    """The GUI defaults, then the --config file, then --ai and the board flags.

    Without a flag that says what to play (players, a setup file, a setting),
    the window opens on the home screen; with only settings, on the setup
    screen; with players, on their game.
    """
    from csl_game.services.players import player_problems
    from csl_game.services.setup_file import apply_settings, check_config, load_config

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
