"""What the game remembers: preferences, the last setup and scores, in the user's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.userdata import Preferences, Score, UserData, user_dir

pytestmark = pytest.mark.unit


def test_tests_never_use_the_real_folder(user_home: Path) -> None:
    assert user_dir() == user_home
    assert UserData().folder == user_home


def test_preferences_are_remembered(user_home: Path) -> None:
    data = UserData()
    assert data.preferences() == Preferences()
    data.update_preferences(muted=True)
    data.update_preferences(theme="high-contrast")
    assert UserData().preferences() == Preferences(muted=True, theme="high-contrast")


def test_damaged_files_read_as_defaults(user_home: Path) -> None:
    (user_home / "preferences.json").write_text('{"muted": "yes", "theme": 3}')
    (user_home / "scores.json").write_text("[not json")
    data = UserData()
    assert data.preferences() == Preferences()
    assert data.scores() == {}
    (user_home / "scores.json").write_text('{"Hard": {"wins": -1}, "Easy": {"wins": 2}}')
    assert data.scores() == {"Easy": Score(2, 0, 0)}


def test_scores_are_kept_per_opponent() -> None:
    data = UserData()
    data.record("Hard", False)
    data.record("Hard", None)
    data.record("Easy", True)
    assert UserData().score("Hard") == Score(0, 1, 1)
    assert str(UserData().score("Easy")) == "1 won \u00b7 0 drawn \u00b7 0 lost"


def test_the_last_setup_comes_back(user_home: Path) -> None:
    data = UserData()
    assert data.last_setup(PlayOptions()) is None
    options = PlayOptions(ais=(AIEntry("negamax", "depth=3"),))
    assert data.save_last_setup(options)
    back = data.last_setup(PlayOptions())
    assert back is not None and back.ais == options.ais
    (user_home / "last-setup.toml").write_text("rows = [")
    assert data.last_setup(PlayOptions()) is None, "a damaged file is ignored"


def test_an_unwritable_folder_only_forgets(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    data = UserData(blocker / "sub")
    assert not data.save_preferences(Preferences(muted=True))
    assert data.preferences() == Preferences()
