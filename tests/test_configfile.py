"""Config files: every setting and the players, round trips, one-line errors."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csl_game.engine import Points
from csl_game.errors import ConfigFileError, SettingError
from csl_game.services.limits import SETTING, SETTINGS, setting_values
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.setup_file import (
    apply_settings,
    check_config,
    check_setup,
    dump_config,
    load_config,
    save_config,
)
from csl_game.thinker.api import MatchConfig

FAKES = (str(Path(__file__).parent / "fakes"),)


def custom_options() -> PlayOptions:
    return PlayOptions(
        ais=(AIEntry("minimax", "2"), AIEntry("random", "", active=False),
             AIEntry("negamax", 'depth=3 tt=10')),
        match=MatchConfig(rows=8, cols=9, win_sequence=5, round_pieces=17, square_pieces=19,
                          time_limit_ms=1234, min_move_time_ms=56, clock="wall",
                          time_margin_ms=75),
        points=Points(5, 2, -1), last_move_animation_s=0.35, wait_before_match=False,
        wait_after_match=True, unblocked_screen_s=2.25)


@pytest.mark.unit
def test_a_config_file_round_trips(tmp_path: Path) -> None:
    options = custom_options()
    path = tmp_path / "setup.toml"
    save_config(path, options)
    loaded = load_config(path)
    assert loaded == dataclasses.replace(PlayOptions(), ais=options.ais, match=options.match,
                                         points=options.points,
                                         last_move_animation_s=0.35, wait_before_match=False,
                                         unblocked_screen_s=2.25)
    assert setting_values(loaded) == setting_values(options)


@pytest.mark.unit
def test_the_file_names_every_setting_and_player() -> None:
    data = tomllib.loads(dump_config(custom_options()))
    assert set(data) == {s.key for s in SETTINGS} | {"players"}
    assert data["players"][2] == {"thinker": "negamax", "params": "depth=3 tt=10",
                                  "active": True}
    assert data["points_per_loss"] == -1 and data["wait_before_match"] is False


@pytest.mark.unit
@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30))
def test_any_parameter_string_survives_the_file(params: str) -> None:
    options = dataclasses.replace(PlayOptions(), ais=(AIEntry("weird", params),))
    data = tomllib.loads(dump_config(options))
    assert data["players"][0]["params"] == params


@pytest.mark.unit
def test_missing_keys_keep_the_base_values(tmp_path: Path) -> None:
    path = tmp_path / "small.toml"
    path.write_text("cols = 9\n", encoding="utf-8")
    base = PlayOptions(auto=True, thinker_paths=FAKES)
    loaded = load_config(path, base)
    assert loaded.match == dataclasses.replace(base.match, cols=9, round_pieces=13,
                                               square_pieces=14), \
        "the pieces follow the board: a quarter of its cells each, as every verb's"
    assert loaded.ais == () and loaded.auto and loaded.thinker_paths == FAKES


@pytest.mark.parametrize("text, message", [
    ('rows = "six"', "key 'rows': must be a whole number from 1 to 40, got 'six'"),
    ("rows = 0", "key 'rows': must be a whole number from 1 to 40, got 0"),
    ("rows = 6.5", "key 'rows': must be a whole number from 1 to 40, got 6.5"),
    ("time_limit_ms = true", "key 'time_limit_ms': must be a whole number"),
    ("last_move_animation_s = -0.5", "key 'last_move_animation_s': must be a number from "
                                     "0 to 10, got -0.5"),
    ("wait_after_match = 1", "key 'wait_after_match': must be true or false, got 1"),
    ('clock = "sundial"', "key 'clock': must be cpu or wall, got 'sundial'"),
    ("clock = 1", "key 'clock': must be a string, got 1"),
    ("time_margin_ms = -1", "key 'time_margin_ms': must be a whole number from 0 to 60000"),
    ("time_margin_ms = 0.5", "key 'time_margin_ms': must be a whole number"),
    ("rowz = 6", "key 'rowz': unknown setting"),
    ("rows = 3\ncols = 3", "key 'win_sequence': 4 in a row cannot fit on a 3x3 board"),
    ("round_pieces = 0\nsquare_pieces = 0", "key 'square_pieces': each player needs"),
    ("players = 3", "key 'players': must be an array of tables"),
    ('[[players]]\nparams = "2"', "key 'players[1].thinker': a player needs a thinker name"),
    ('[[players]]\nthinker = "random"\n[[players]]\nthinker = "nosuch"',
     "key 'players[2].thinker': unknown thinker 'nosuch'"),
    ('[[players]]\nthinker = "random"\ncolour = "red"',
     "key 'players[1].colour': unknown key (a player has thinker, params, active)"),
    ('[[players]]\nthinker = "random"\nactive = "yes"',
     "key 'players[1].active': must be true or false, got 'yes'"),
    ('[[players]]\nthinker = "negamax"\nparams = "depth=deep"',
     "key 'players[1].params': negamax does not accept 'depth=deep': parameter depth must be a whole number"),
    ('[[players]]\nthinker = "badsetup"', "key 'players[1].params': badsetup does not accept '': cannot parse"),
])
def test_a_bad_file_is_one_line_naming_file_key_and_problem(tmp_path: Path, text: str,
                                                             message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ConfigFileError) as info:  # parsing, or then checking the players
        check_config(path, load_config(path, PlayOptions(thinker_paths=FAKES)))
    assert str(info.value).startswith(f"config file {path}: {message}")
    assert "\n" not in str(info.value)


@pytest.mark.unit
def test_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="cannot read config file .*nope.toml"):
        load_config(tmp_path / "nope.toml")
    path = tmp_path / "broken.toml"
    path.write_text("rows = = 6\n", encoding="utf-8")
    with pytest.raises(ConfigFileError, match=r"broken.toml is not valid TOML: .*line 1"):
        load_config(path)
    with pytest.raises(ConfigFileError, match="cannot write config file"):
        save_config(tmp_path / "no" / "such" / "dir.toml", PlayOptions())


@pytest.mark.unit
def test_apply_settings_checks_each_value() -> None:
    options = apply_settings(PlayOptions(), {"points_per_win": 2, "unblocked_screen_s": 0})
    assert options.points == Points(2, 1, 0) and options.unblocked_screen_s == 0.0
    with pytest.raises(SettingError) as info:
        apply_settings(PlayOptions(), {"cols": 41})
    assert info.value.key == "cols"


def test_check_setup_reports_every_bad_text_and_every_player() -> None:
    base = PlayOptions(thinker_paths=FAKES)
    entries: dict[str, str | bool] = {key: SETTING[key].format(value) if not isinstance(
        value, bool) else value for key, value in setting_values(base).items()}
    good = check_setup(base, entries, [AIEntry("random")])
    assert good.problems == {} and good.options is not None
    assert good.options.ais == (AIEntry("random"),)
    bad = check_setup(base, {**entries, "rows": "x", "cols": ""}, [AIEntry("nosuch")])
    assert bad.options is None
    assert set(bad.problems) == {"rows", "cols", "players[1].thinker"}, "all at once"
    players = check_setup(base, entries, [AIEntry("random"), AIEntry("nosuch")])
    assert list(players.problems) == ["players[2].thinker"]
    board = check_setup(base, {**entries, "win_sequence": "9"}, [])
    assert board.problems == {"win_sequence": "9 in a row cannot fit on a 6x7 board"}


@pytest.mark.unit
def test_setting_text_parsing() -> None:
    rows = SETTING["rows"]
    assert rows.parse(" 12 ") == 12 and rows.format(12) == "12"
    anim = SETTING["last_move_animation_s"]
    assert anim.parse("0.25") == 0.25 and anim.format(1.0) == "1" and anim.format(0.5) == "0.5"
    for text in ("", "1e", "--1", "4.0.1"):
        with pytest.raises(SettingError):
            anim.parse(text)


@pytest.mark.unit
def test_the_clock_and_its_margin_are_settings_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "clock.toml"
    path.write_text('clock = "Wall"\ntime_margin_ms = 40\n', encoding="utf-8")
    loaded = load_config(path)
    assert (loaded.match.clock, loaded.match.time_margin_ms) == ("wall", 40)
    assert loaded.match.time_limit_ms == PlayOptions().match.time_limit_ms
    data = tomllib.loads(dump_config(PlayOptions()))
    assert (data["clock"], data["time_margin_ms"]) == ("cpu", 0)  # the defaults, written
    clock = SETTING["clock"]
    assert clock.parse(" wall ") == "wall" and clock.describe() == "cpu or wall"
    with pytest.raises(SettingError, match="must be cpu or wall, got 'sun'"):
        clock.parse("sun")
