"""Every setting once: its key, its label, its kind and its range.

`SETTINGS` is the one table of limits: the setup screen, the setup file
(csl_game.services.setup_file), the command line's flags
(csl_game.services.options) and the online protocol's messages
(csl_game.online.protocol) all check a value against the same `Setting`, so a
value is valid in one exactly when it is valid in the others. The upper
limits keep a board within 40 x 40 (the competition's 18 x 22 and 9 x 37
fit), so no value makes a board that takes all the memory there is; the
lower ones are MatchConfig's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from csl_game.errors import SettingError
from csl_game.services.defaults import CLOCKS
from csl_game.services.settings import PlayOptions

__all__ = ["Value", "Setting", "SETTINGS", "SETTING", "CLOCKS", "setting_values", "check_limits"]

Value = int | float | bool | str

@dataclass(frozen=True)
class Setting:
    """One setting: its key in the file, its label on screen, kind and range."""

    key: str
    label: str
    kind: type[int] | type[float] | type[bool] | type[str]
    group: str
    """Where it lives: 'match' (MatchConfig), 'points' (Points) or 'options'."""
    attr: str
    low: float = 0
    high: float = 0
    choices: tuple[str, ...] = ()
    """The words a text setting may be (any text when empty)."""

    def check(self, value: object) -> Value:
        """`value` if it is of this setting's kind and in range.

        Raises:
            SettingError: the wrong kind of value, or out of range.
        """
        if self.kind is bool:
            if not isinstance(value, bool):
                raise SettingError(self.key, f"must be true or false, got {value!r}")
            return value
        if self.kind is str:
            if not isinstance(value, str):
                raise SettingError(self.key, f"must be a string, got {value!r}")
            if self.choices and value.strip().lower() not in self.choices:
                raise SettingError(self.key, f"must be {self.describe()}, got {value!r}")
            return value.strip().lower() if self.choices else value.strip()
        whole = self.kind is int
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            raise SettingError(self.key, f"must be {self.describe()}, got {value!r}")
        if not self.low <= value <= self.high:
            raise SettingError(self.key, f"must be {self.describe()}, got {value!r}")
        return int(value) if whole else float(value)

    def parse(self, text: str) -> Value:
        """The value typed in a text entry (numbers only).

        Raises:
            SettingError: not a number of this kind, or out of range.
        """
        text = text.strip()
        if self.kind is str:
            return self.check(text)
        try:
            value: object = int(text) if self.kind is int else float(text)
        except ValueError:
            raise SettingError(self.key, f"must be {self.describe()}, "
                                         f"got '{text}'") from None
        return self.check(value)

    def describe(self) -> str:
        """'a whole number from 1 to 40' or 'a number of seconds from 0 to 10'."""
        if self.kind is str:
            return " or ".join(self.choices) if self.choices else "a file name"
        kind = "a whole number" if self.kind is int else "a number"
        return f"{kind} from {_fmt(self.low)} to {_fmt(self.high)}"

    def format(self, value: Value) -> str:
        """How the value is shown in a text entry."""
        return _fmt(value)

    def get(self, options: PlayOptions) -> Value:
        holder = options if self.group == "options" else getattr(options, self.group)
        value: Value = getattr(holder, self.attr)
        return value


def _fmt(value: Value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


_BOARD_MAX = 40
SETTINGS: tuple[Setting, ...] = (
    Setting("rows", "Rows", int, "match", "rows", 1, _BOARD_MAX),
    Setting("cols", "Columns", int, "match", "cols", 1, _BOARD_MAX),
    Setting("win_sequence", "Win sequence", int, "match", "win_sequence", 1, _BOARD_MAX),
    Setting("round_pieces", "Round pieces per player", int, "match", "round_pieces", 0, 1000),
    Setting("square_pieces", "Square pieces per player", int, "match", "square_pieces",
            0, 1000),
    Setting("time_limit_ms", "AI time limit (ms)", int, "match", "time_limit_ms",
            1, 3_600_000),
    Setting("min_move_time_ms", "Minimum AI move time (ms)", int, "match",
            "min_move_time_ms", 0, 60_000),
    Setting("clock", "What the time limit counts: cpu or wall", str, "match", "clock",
            choices=CLOCKS),
    Setting("time_margin_ms", "Time margin: an answer this late still counts (ms)", int,
            "match", "time_margin_ms", 0, 60_000),
    Setting("last_move_animation_s", "Last-move animation (s)", float, "options",
            "last_move_animation_s", 0, 10),
    Setting("points_per_win", "Points per win", int, "points", "win", -1000, 1000),
    Setting("points_per_draw", "Points per draw", int, "points", "draw", -1000, 1000),
    Setting("points_per_loss", "Points per loss", int, "points", "loss", -1000, 1000),
    Setting("wait_before_match", "Wait for Start before each tournament match", bool,
            "options", "wait_before_match"),
    Setting("wait_after_match", "Wait for OK after each tournament match", bool,
            "options", "wait_after_match"),
    Setting("unblocked_screen_s", "Unblocked screen duration (s)", float, "options",
            "unblocked_screen_s", 0, 60),
    Setting("workers", "Tournament matches played at once", int, "options", "workers", 1, 64),
    Setting("competition", "Break a tie in first place by the competition rules", bool,
            "options", "competition"),
    Setting("unknown_track", "Derive win sequence, pieces and time limit from rows and columns",
            bool, "options", "unknown_track"),
    Setting("results_file", "Results file (a JSON line per match)", str, "options",
            "results_file"),
    Setting("resume", "Resume from the results file", bool, "options", "resume"),
    Setting("site_folder", "Web site folder (kept up to date as matches end)", str, "options",
            "site_folder"),
    Setting("listen", "Broadcast to spectators at [HOST:]PORT", str, "options", "listen"),
)
SETTING = {s.key: s for s in SETTINGS}
"""The settings by key."""


def setting_values(options: PlayOptions) -> dict[str, Value]:
    """Every setting's value in `options`, by key."""
    return {s.key: s.get(options) for s in SETTINGS}


def check_limits(values: Mapping[str, object]) -> None:
    """Refuse values above their setting's maximum (a 40 x 40 board at most, which
    holds the competition's 18 x 22 and 9 x 37), before any board is made: every
    verb shares these limits; the lower ones are MatchConfig's.

    Raises:
        SettingError: keyed by the setting.
    """
    for key, value in values.items():
        setting = SETTING[key]
        if isinstance(value, int) and not isinstance(value, bool) and value > setting.high:
            raise SettingError(key, f"at most {_fmt(setting.high)}, got {_big(value)}")


def _big(value: int) -> str:
    return str(value) if value < 10 ** 12 else f"a {len(str(value))}-digit number"
