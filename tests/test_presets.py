"""Difficulty levels: thinker presets, offered by name on the command line and in setup."""

from __future__ import annotations

import pytest

from csl_game.errors import ConfigError
from csl_game.services.players import player_problems
from csl_game.services.presets import LEVELS, level, level_of, opponent_label
from csl_game.services.settings import AIEntry, PlayOptions, parse_ai_spec


@pytest.mark.parametrize("lv", LEVELS, ids=lambda lv: lv.name)
def test_every_level_is_a_working_built_in_thinker(lv) -> None:  # type: ignore[no-untyped-def]
    entry = AIEntry(lv.thinker, lv.params)
    assert player_problems([entry], PlayOptions()) == {}
    assert level_of(lv.thinker, lv.params) is lv
    assert opponent_label(lv.thinker, lv.params) == lv.label


@pytest.mark.unit
def test_levels_go_from_easy_to_hard() -> None:
    assert [lv.name for lv in LEVELS] == ["easy", "medium", "hard"]
    assert level("HARD").thinker == "negamax"
    with pytest.raises(ConfigError, match="unknown level 'insane' .choose from easy, medium"):
        level("insane")


@pytest.mark.unit
@pytest.mark.parametrize("spec, entry", [
    ("hard", AIEntry("negamax", "")),
    ("Easy", AIEntry("minimax", "1")),
    ("medium", AIEntry("negamax", "depth=3")),
    ("negamax depth=5", AIEntry("negamax", "depth=5")),
])
def test_ai_specs_take_level_names(spec: str, entry: AIEntry) -> None:
    assert parse_ai_spec(spec) == entry


@pytest.mark.unit
def test_other_players_are_named_by_thinker_and_parameters() -> None:
    assert level_of("negamax", "depth=5") is None
    assert opponent_label("negamax", " depth=5 ") == "negamax depth=5"
