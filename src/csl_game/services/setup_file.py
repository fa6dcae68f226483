"""The setup in one TOML file: board, timing, points, screens and AI players.

```toml
rows = 6
cols = 7
win_sequence = 4
# ... every key of SETTINGS, each optional (missing keys keep their default)

[[engines]]                     # optional: executables speaking the engine protocol
name = "crandom"
command = "./random_engine"

[[players]]
thinker = "minimax"
params = "4"
active = true
```

Every key is a setting of `csl_game.services.limits.SETTINGS`, checked
against its range as the setup screen checks it (`apply_settings`; the screen
checks a setup as typed with `check_setup` or, never waiting, `SetupChecker`).
Reading uses tomllib; writing is done here, as the format is small and flat
(every value a number, a boolean or a string).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from csl_game.engine import SetupProbe
from csl_game.errors import ConfigError, ConfigFileError, SettingError
from csl_game.services.limits import SETTING, Value, setting_values
from csl_game.services.players import (
    PlayerKey,
    check_players,
    player_key,
    player_problems,
    prototype_of,
    report_problem,
)
from csl_game.services.settings import AIEntry, PlayOptions, default_pieces
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.engine_thinker import EngineSpec
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["apply_settings", "DERIVED_BY_UNKNOWN_TRACK", "SetupCheck", "check_setup",
           "SetupChecker", "load_config", "check_config", "dump_config", "save_config"]


def _board_problem(match: Mapping[str, Value]) -> SettingError | None:
    rows, cols, win = (int(match[k]) for k in ("rows", "cols", "win_sequence"))
    if rows < win and cols < win:
        return SettingError("win_sequence", f"{win} in a row cannot fit on a "
                                            f"{rows}x{cols} board")
    if int(match["round_pieces"]) + int(match["square_pieces"]) == 0:
        return SettingError("square_pieces", "each player needs at least one piece")
    return None


def _unknown_track(match: dict[str, Value]) -> dict[str, Value]:
    """The board and time settings the unknown track derives from rows and columns."""
    rows, cols = int(match["rows"]), int(match["cols"])
    derived = MatchConfig.unknown_track(rows, cols)
    return {**match, "win_sequence": derived.win_sequence, "round_pieces": derived.round_pieces,
            "square_pieces": derived.square_pieces, "time_limit_ms": derived.time_limit_ms}


DERIVED_BY_UNKNOWN_TRACK = ("win_sequence", "round_pieces", "square_pieces", "time_limit_ms")
"""Settings that the unknown-track rules set from rows and columns."""


def apply_settings(options: PlayOptions, values: Mapping[str, object]) -> PlayOptions:
    """`options` with the given settings replaced (keys of SETTINGS).

    Raises:
        SettingError: an unknown key, a bad value, or a board nobody can win on.
    """
    groups: dict[str, dict[str, Value]] = {"match": {}, "points": {}, "options": {}}
    for key, value in values.items():
        if key not in SETTING:
            near = difflib.get_close_matches(key, SETTING, n=1)
            raise SettingError(key, "unknown setting" + (f" (did you mean '{near[0]}'?)"
                                                         if near else ""))
        setting = SETTING[key]
        groups[setting.group][setting.attr] = setting.check(value)
    match = {**dataclasses.asdict(options.match), **_pieces_follow(options.match,
                                                                    groups["match"])}
    unknown_track = groups["options"].get("unknown_track", options.unknown_track)
    if unknown_track:
        match = _unknown_track(match)
    problem = _board_problem(match)
    if problem is not None:
        raise problem
    try:
        typed: dict[str, Any] = {k: v if isinstance(v, str) else int(v)
                                 for k, v in match.items()}
        config = MatchConfig(**typed)
    except ConfigError as e:  # a rule the checks above missed
        raise SettingError("rows", str(e)) from None
    resume = groups["options"].get("resume", options.resume)
    results = groups["options"].get("results_file", options.results_file)
    if resume and not results:
        raise SettingError("resume", "needs a results file to resume from")
    points = dataclasses.replace(options.points,
                                 **{k: int(v) for k, v in groups["points"].items()})
    return dataclasses.replace(options, match=config, points=points,
                               **groups["options"])  # type: ignore[arg-type]


def _pieces_follow(old: MatchConfig, given: dict[str, Value]) -> dict[str, Value]:
    """`given`, with the pieces of a new board size when the size changes and
    the pieces are not given and were the old size's own (a quarter of the
    cells each, as every verb's defaults: `play -r 8 -c 9` plays 18 + 18)."""
    if not {"rows", "cols"} & given.keys() or {"round_pieces", "square_pieces"} & given.keys():
        return given
    if (old.round_pieces, old.square_pieces) != default_pieces(old.rows, old.cols):
        return given  # pieces chosen for that board: kept
    rows, cols = int(given.get("rows", old.rows)), int(given.get("cols", old.cols))
    rounds, squares = default_pieces(rows, cols)
    return {**given, "round_pieces": rounds, "square_pieces": squares}


@dataclass(frozen=True)
class SetupCheck:
    """The options a setup makes, or what is wrong with it."""

    options: PlayOptions | None
    problems: dict[str, str]
    """Problem by key (a setting's key, or ``players[N].field``)."""
    pending: bool = False
    """Some player is still being checked (options is None meanwhile)."""


def _settings(base: PlayOptions, entries: Mapping[str, str | bool],
              ais: Sequence[AIEntry]) -> SetupCheck:
    """`base` with the settings as typed and these players, players not checked yet."""
    values: dict[str, Value] = {}
    problems: dict[str, str] = {}
    for key, entry in entries.items():
        setting = SETTING[key]
        try:
            values[key] = setting.check(entry) if isinstance(entry, bool) else setting.parse(entry)
        except SettingError as e:
            problems[key] = e.problem
    if problems:
        return SetupCheck(None, problems)
    try:
        return SetupCheck(dataclasses.replace(apply_settings(base, values), ais=tuple(ais)), {})
    except SettingError as e:
        return SetupCheck(None, {e.key: e.problem})


def check_setup(base: PlayOptions, entries: Mapping[str, str | bool],
                ais: Sequence[AIEntry]) -> SetupCheck:
    """`base` with the settings as typed (text, or a bool) and these players.

    Every setting with a bad value is reported, and every player's problem
    (on `base`'s board while the settings are bad). Blocks while the players
    are checked: `SetupChecker` does the same without blocking.
    """
    check = _settings(base, entries, ais)
    options = check.options or dataclasses.replace(base, ais=tuple(ais))
    problems = {**check.problems, **player_problems(options.ais, options)}
    return SetupCheck(None if problems else check.options, problems)


class SetupChecker:
    """`check_setup()` for a screen that must never wait: each player is set up
    in a worker process while the screen goes on; `poll()` every frame says
    when an answer came, and `check()` then gives the whole verdict.

    Answers are kept, so a player typed again is not checked again. In
    in-process mode, players are checked at once, in this process.
    """

    def __init__(self) -> None:
        self._probes: dict[PlayerKey, tuple[ThinkerPrototype, SetupProbe]] = {}
        self._known: dict[PlayerKey, tuple[str, str] | None] = {}

    def check(self, base: PlayOptions, entries: Mapping[str, str | bool],
              ais: Sequence[AIEntry]) -> SetupCheck:
        """The verdict as far as it is known (every problem found so far: the
        settings' and the players'); `pending` while a player is checked.

        Raises:
            WorkerStartError: no worker process could be started.
        """
        check = _settings(base, entries, ais)
        options = check.options or dataclasses.replace(base, ais=tuple(ais))
        keys = [player_key(ai, options) for ai in options.ais]
        self._drop_unwanted(set(keys))
        problems, pending = dict(check.problems), False
        for i, key in enumerate(keys, 1):
            known, problem = self._problem(key)
            pending = pending or not known
            if problem is not None:
                problems[f"players[{i}].{problem[0]}"] = problem[1]
        if problems:
            return SetupCheck(None, problems, pending=pending)
        return SetupCheck(None, {}, pending=True) if pending else check

    def _problem(self, key: PlayerKey) -> tuple[bool, tuple[str, str] | None]:
        """(whether the answer is known, the problem if there is one); starts a check."""
        if key not in self._known and key not in self._probes:
            prototype = prototype_of(key)
            if isinstance(prototype, tuple):
                self._known[key] = prototype
            else:
                self._probes[key] = (prototype, SetupProbe(prototype, in_process=key[4]))
                self.poll()
        return key in self._known, self._known.get(key)

    def poll(self) -> bool:
        """Take the answers that came in, without blocking; whether any did."""
        came = False
        for key, (prototype, probe) in list(self._probes.items()):
            report = probe.poll()
            if report is not None:
                del self._probes[key]
                self._known[key] = report_problem(prototype, report)
                came = True
        return came

    def _drop_unwanted(self, wanted: set[PlayerKey]) -> None:
        """Stop checking players no longer in the setup (typed over)."""
        for key in [k for k in self._probes if k not in wanted]:
            self._probes.pop(key)[1].close()

    def close(self) -> None:
        """Stop every check still running."""
        for _, probe in self._probes.values():
            probe.close()
        self._probes.clear()


# ----------------------------------------------------------------- reading
_PLAYER_KEYS = {"thinker": str, "params": str, "active": bool}


def _player(i: int, table: object) -> AIEntry:
    if not isinstance(table, dict):
        raise SettingError(f"players[{i}]", "must be a table ([[players]])")
    for key, value in table.items():
        kind = _PLAYER_KEYS.get(key)
        if kind is None:
            raise SettingError(f"players[{i}].{key}", "unknown key "
                               f"(a player has {', '.join(_PLAYER_KEYS)})")
        if not isinstance(value, kind):
            what = "a string" if kind is str else "true or false"
            raise SettingError(f"players[{i}].{key}", f"must be {what}, got {value!r}")
    if not str(table.get("thinker", "")).strip():
        raise SettingError(f"players[{i}].thinker", "a player needs a thinker name")
    return AIEntry(table["thinker"].strip(), table.get("params", "").strip(),
                   table.get("active", True))


_ENGINE_KEYS = ("name", "command")


def _engine(i: int, table: object) -> str:
    """The thinker source of the engine an ``[[engines]]`` table declares."""
    if not isinstance(table, dict):
        raise SettingError(f"engines[{i}]", "must be a table ([[engines]])")
    for key in (*table, *_ENGINE_KEYS):
        if key not in _ENGINE_KEYS or key not in table:
            problem = "unknown key" if key in table else "missing"
            raise SettingError(f"engines[{i}].{key}",
                               f"{problem} (an engine has a name and a command)")
        if not isinstance(table[key], str):
            raise SettingError(f"engines[{i}].{key}", f"must be a string, got {table[key]!r}")
    try:
        return EngineSpec.parse(f"{table['name']}={table['command']}").source
    except ConfigError as e:
        raise SettingError(f"engines[{i}]", str(e)) from None


def _with_engines(engines: object, base: PlayOptions) -> PlayOptions:
    """`base` with the engines of an ``engines`` array among its thinker sources."""
    if not isinstance(engines, list):
        raise SettingError("engines", "must be an array of tables ([[engines]])")
    sources = [_engine(i, table) for i, table in enumerate(engines, 1)]
    paths = tuple(dict.fromkeys([*base.thinker_paths, *sources]))
    return dataclasses.replace(base, thinker_paths=paths)


def _options_from(data: dict[str, object], base: PlayOptions) -> PlayOptions:
    base = _with_engines(data.pop("engines", []), base)
    players = data.pop("players", [])
    if not isinstance(players, list):
        raise SettingError("players", "must be an array of tables ([[players]])")
    ais = tuple(_player(i, table) for i, table in enumerate(players, 1))
    return dataclasses.replace(apply_settings(base, data), ais=ais)


def load_config(path: str | Path, base: PlayOptions | None = None) -> PlayOptions:
    """`base` (default: the GUI defaults) with the settings and players of a file.

    Keys missing from the file keep `base`'s values; a file without players
    has none (two humans play). The file is parsed and validated only: no
    player is set up here (`check_config` does that, where it is wanted), so
    loading never waits on a thinker.

    Raises:
        ConfigFileError: one line naming the file, the key and the problem.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
        data = tomllib.loads(raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except OSError as e:
        raise ConfigFileError(f"cannot read config file {p}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigFileError(f"config file {p} is not valid TOML: {e}") from None
    try:
        return _options_from(data, base or PlayOptions())
    except SettingError as e:
        raise ConfigFileError(f"config file {p}: key '{e.key}': {e.problem}") from None


def check_config(path: str | Path, options: PlayOptions) -> None:
    """The players of a loaded setup file are known and accept their parameters
    (set up all at once, each in a worker process).

    Raises:
        ConfigFileError: one line naming the file, the player's key and the problem.
        WorkerStartError: no worker process could be started.
    """
    try:
        check_players(options.ais, options)
    except SettingError as e:
        raise ConfigFileError(f"config file {Path(path)}: key '{e.key}': {e.problem}") from None


# ----------------------------------------------------------------- writing
_SECTIONS = {"rows": "# Board", "time_limit_ms": "# AI players' time",
             "last_move_animation_s": "# Animation", "points_per_win": "# Tournament points",
             "wait_before_match": "# Screens between tournament matches",
             "competition": "# Competition rules", "results_file": "# Results"}


def _toml(value: Value | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # a JSON string is a TOML basic string once DEL (which TOML refuses raw) is
        # escaped; characters beyond ASCII stay as they are (TOML has no surrogates)
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    return str(value) if isinstance(value, int) else repr(float(value))


def dump_config(options: PlayOptions) -> str:
    """The TOML text of every setting and player of `options`."""
    lines = ["# ColorShapeLinks setup: csl-game play --config FILE"]
    for key, value in setting_values(options).items():
        if key in _SECTIONS:
            lines += ["", _SECTIONS[key]]
        lines.append(f"{key} = {_toml(value)}")
    for source in options.thinker_paths:
        engine = EngineSpec.from_source(source)
        if engine is not None:
            lines += ["", "[[engines]]", f"name = {_toml(engine.name)}",
                      f"command = {_toml(engine.command)}"]
    for ai in options.ais:
        lines += ["", "[[players]]", f"thinker = {_toml(ai.thinker)}",
                  f"params = {_toml(ai.params)}", f"active = {_toml(ai.active)}"]
    return "\n".join(lines) + "\n"


def save_config(path: str | Path, options: PlayOptions) -> None:
    """Write `options` as a config file.

    Raises:
        ConfigFileError: the file cannot be written.
    """
    p = Path(path)
    try:
        p.write_text(dump_config(options), encoding="utf-8")
    except OSError as e:
        raise ConfigFileError(f"cannot write config file {p}: {e.strerror or e}") from None

