"""What the flags gave: the board, clock, points and engines of a verb's
arguments, read by the same rules for every verb (the flags themselves are
the table of `csl_game.services.options`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from csl_game.engine import Adjudicator, Points
from csl_game.errors import SettingError, UsageError
from csl_game.services.limits import check_limits
from csl_game.services.options import MATCH_KEYS, check_ranges, flag_text, option
from csl_game.services.settings import CONSOLE_TIME_LIMIT_MS, default_pieces
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.engine_thinker import EngineSpec

__all__ = ["match_config", "adjudicator_of", "clock_settings", "parse_tc", "MAX_TC_SECONDS",
           "unknown_track_config", "points_of", "add_engine_sources"]

_T = TypeVar("_T")


def match_config(args: argparse.Namespace, time_limit_ms: int = CONSOLE_TIME_LIMIT_MS,
                 min_move_ms: int = 0) -> MatchConfig:
    """The board and timing the flags give, their defaults otherwise (the same
    rules for every verb).

    Raises:
        UsageError: a value beyond its limit.
        BoardConfigError: settings that make no playable game.
    """
    values = {k: getattr(args, k, None) for k in MATCH_KEYS}
    check_ranges(values)
    base = MatchConfig()
    rows = values["rows"] if values["rows"] is not None else base.rows
    cols = values["cols"] if values["cols"] is not None else base.cols
    rounds, squares = default_pieces(rows, cols)
    chosen: dict[str, Any] = {"rows": rows, "cols": cols,
              "win_sequence": _given(values["win_sequence"], base.win_sequence),
              "round_pieces": _given(values["round_pieces"], rounds),
              "square_pieces": _given(values["square_pieces"], squares),
              "time_limit_ms": _given(values["time_limit"], time_limit_ms),
              "min_move_time_ms": _given(values["min_move_time"], min_move_ms),
              **clock_settings(args)}
    return MatchConfig(**chosen)


def adjudicator_of(args: argparse.Namespace) -> Adjudicator | None:
    """The adjudicator --adjudicate, --draw and --resign ask for (None without them).

    Raises:
        UsageError: a bad --draw or --resign (one line).
    """
    draw, resign = getattr(args, "draw", None), getattr(args, "resign", None)
    exact = bool(getattr(args, "adjudicate", False))
    if draw or resign:
        from csl_game.services.score_rules import DRAW_KEYS, RESIGN_KEYS, ScoreRules, parse_rule

        return ScoreRules(parse_rule("--draw", draw, DRAW_KEYS) if draw else None,
                          parse_rule("--resign", resign, RESIGN_KEYS) if resign else None,
                          exact)
    if not exact:
        return None
    from csl_game.services.analysis import adjudicate

    return adjudicate


def clock_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The match clock the flags give (`--clock`, `--time-margin`), as MatchConfig
    names it; its defaults for a verb without those flags.

    Raises:
        UsageError: a margin below 0 or over its limit.
    """
    base = MatchConfig()
    clock = getattr(args, "clock", None)
    margin = getattr(args, "time_margin", None)
    if margin is not None and margin < 0:
        raise UsageError(f"{flag_text('time_margin')}: must be at least 0 ms, got {margin}")
    check_ranges({"time_margin": margin})
    game, increment = parse_tc(getattr(args, "tc", None))
    if game and (getattr(args, "connect", None) is not None
                 or (getattr(args, "verb", "") == "match"
                     and getattr(args, "listen", None) is not None)):
        raise UsageError("--tc: a player on another machine keeps a limit per move; "
                         "drop --tc, or play here")
    return {"clock": _given(clock, base.clock),
            "time_margin_ms": _given(margin, base.time_margin_ms),
            "game_time_ms": game, "increment_ms": increment}


MAX_TC_SECONDS = 86_400


def parse_tc(text: str | None) -> tuple[int, int]:
    """(game ms, increment ms) of --tc BASE+INC (seconds; INC may be left out);
    (0, 0) for none.

    Raises:
        UsageError: not BASE[+INC] in seconds, a BASE of 0 or a value over a day.
    """
    if text is None:
        return 0, 0
    base, _, inc = text.strip().partition("+")
    try:
        seconds, extra = float(base), float(inc or 0)
    except ValueError:
        raise UsageError(f"--tc takes BASE+INC in seconds (as 10+0.1), got {text!r}; moves "
                         "per period (40/60) are not supported") from None
    if not (0 < seconds <= MAX_TC_SECONDS and 0 <= extra <= MAX_TC_SECONDS):
        raise UsageError(f"--tc {text}: BASE must be above 0 and both at most a day")
    return max(1, round(seconds * 1000)), round(extra * 1000)


def _given(value: _T | None, default: _T) -> _T:
    return default if value is None else value


def unknown_track_config(args: argparse.Namespace) -> MatchConfig:
    """The board and time limit `--unknown-track ROWS COLS` derives.

    Raises:
        UsageError: a board or time flag given beside it, or a value beyond its limit.
    """
    given = [option(k).flags[0] for k in MATCH_KEYS[:-1] if getattr(args, k) is not None]
    if given:
        raise UsageError(f"--unknown-track sets the board and time limit: drop {' '.join(given)}")
    rows, cols = args.unknown_track
    for value, name, key in ((rows, "ROWS", "rows"), (cols, "COLS", "cols")):
        try:
            check_limits({key: value})
        except SettingError as e:
            raise UsageError(f"--unknown-track {name}: {e.problem}") from None
    min_move = _given(args.min_move_time, 0)
    check_ranges({"min_move_time": min_move})
    return replace(MatchConfig.unknown_track(rows, cols), min_move_time_ms=min_move,
                   **clock_settings(args))


def points_of(args: argparse.Namespace, default: Points | None = Points()) -> Points | None:
    """The points the flags give (`--points W D L`, or each of --points-per-*),
    over `default`; None when neither says anything and `default` is None.

    Raises:
        UsageError: both spellings given.
    """
    each = (args.points_per_win, args.points_per_draw, args.points_per_loss)
    if args.points is not None:
        if any(v is not None for v in each):
            raise UsageError("--points gives all three: drop --points-per-win/-draw/-loss")
        check_ranges(dict(zip(("points_per_win", "points_per_draw", "points_per_loss"),
                              args.points)))
        return Points(*args.points)
    if all(v is None for v in each) and default is None:
        return None
    base = default or Points()
    check_ranges(dict(zip(("points_per_win", "points_per_draw", "points_per_loss"), each)))
    return Points(*(b if v is None else v for v, b in zip(each, (base.win, base.draw,
                                                                  base.loss))))


def add_engine_sources(args: argparse.Namespace, declarations: Sequence[str]) -> None:
    """Put engines (``NAME=COMMAND``) among the thinker sources, after the --thinkers
    paths: from there every verb, and every worker, finds them as thinkers.

    Raises:
        ConfigError: an engine is declared badly.
    """
    sources = [EngineSpec.parse(text).source for text in declarations]
    args.thinkers = [*args.thinkers, *(s for s in sources if s not in args.thinkers)]
