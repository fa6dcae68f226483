"""Shared fixtures: no test reads or writes the real user's config folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game.engine.userdata import HOME_VARIABLE


@pytest.fixture(autouse=True)
def user_home(tmp_path_factory: pytest.TempPathFactory,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty folder stands for the user's config folder in every test."""
    home = tmp_path_factory.mktemp("user-home")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    yield home
