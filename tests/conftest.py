"""Test-run set-up: the simulated platform of CSL_SIMULATE (tests/platform_sim),
and no test reads or writes the real user's config folder."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_SIM = Path(__file__).parent / "platform_sim"
sys.path.insert(0, str(_SIM))
import csl_platform_sim  # noqa: E402

from csl_game.services.userdata import HOME_VARIABLE  # noqa: E402

if csl_platform_sim.mode:
    csl_platform_sim.apply()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_SIM), os.environ.get("PYTHONPATH", "")) if p)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A `timing` test that fails runs again, twice at most (pytest-rerunfailures):
    a busy machine can push a check of a few hundred ms over its bound once, a
    fault fails every run."""
    for item in items:
        if item.get_closest_marker("timing") and not item.get_closest_marker("flaky"):
            item.add_marker(pytest.mark.flaky(reruns=2, reruns_delay=1))


def pytest_report_header() -> str:
    return f"simulated platform: {csl_platform_sim.mode or 'none (this machine as it is)'}"


@pytest.fixture
def simulated() -> str:
    """The simulated platform mode ('' when none)."""
    return csl_platform_sim.mode


@pytest.fixture(autouse=True)
def user_home(tmp_path_factory: pytest.TempPathFactory,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty folder stands for the user's config folder in every test."""
    home = tmp_path_factory.mktemp("user-home")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    yield home


@pytest.fixture
def apps() -> Iterator[object]:
    """Windows for a GUI test (gui_events.Apps), all closed when it ends."""
    from gui_events import opened  # pygame only for the tests that use it

    with opened() as opened_apps:
        yield opened_apps
