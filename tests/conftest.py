"""Test-run set-up: the simulated platform of CSL_SIMULATE (tests/platform_sim),
no test reads or writes the real user's config folder, and a `unit` test starts
no process."""

from __future__ import annotations

import functools
import multiprocessing.process
import multiprocessing.util
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if sys.dont_write_bytecode and not sys.pycache_prefix:
    # PYTHONDONTWRITEBYTECODE keeps compiled files out of the tree; without them
    # each test process compiles, and pytest rewrites the asserts of, every test
    # module again (some 8 s of CPU a worker). Keep them outside the tree, in the
    # user's cache folder; the processes the tests start still follow the setting.
    sys.pycache_prefix = str(Path.home() / ".cache" / "csl-game-tests" / "pycache")
    sys.dont_write_bytecode = False

_SIM = Path(__file__).parent / "platform_sim"
sys.path.insert(0, str(_SIM))
import csl_platform_sim  # noqa: E402

from csl_game.services.userdata import HOME_VARIABLE  # noqa: E402

if csl_platform_sim.mode:
    csl_platform_sim.apply()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_SIM), os.environ.get("PYTHONPATH", "")) if p)


END_TO_END = frozenset({"chrome", "pg_url"})
"""The fixtures of the end-to-end tests (a real Chromium, a real PostgreSQL
cluster: what .ci/run installs), which are in the `long` tier."""


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    """A real Chromium for a test module (site_browser.Browser; skips without one)."""
    from site_browser import browser
    with browser() as started:
        yield started


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A PostgreSQL cluster of the test module's own (pg_cluster; skips without one)."""
    from pg_cluster import postgres
    with postgres() as url:
        yield url


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m unit`` alone, a test file that never names the `unit` mark
    holds no unit test: it is not imported (half the files, and the heaviest
    imports: windows, servers, browsers). Every other run checks that rule
    (`pytest_collection_modifyitems`)."""
    if (_unit_alone(config) and collection_path.suffix == ".py"
            and collection_path.name.startswith("test_")
            and not _names_unit(collection_path)):
        return True
    return None


def _unit_alone(config: pytest.Config) -> bool:
    return (config.getoption("markexpr", "") or "").strip() == "unit"


@functools.cache
def _names_unit(path: Path) -> bool:
    return "mark.unit" in path.read_text(encoding="utf-8")


@pytest.hookimpl(tryfirst=True)  # before -m picks the tests by their marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that drives a real browser or a PostgreSQL cluster is `long`. A
    `timing` test that fails runs again, twice at most (pytest-rerunfailures):
    a busy machine can push a check of a few hundred ms over its bound once, a
    fault fails every run. A `unit` test sits in a file that names the mark
    (which ``-m unit`` relies on to import only those files)."""
    unnamed = sorted({str(item.path) for item in items if item.get_closest_marker("unit")
                      and not _names_unit(item.path)})
    if unnamed and not _unit_alone(config):
        raise pytest.UsageError(f"{unnamed[0]} has `unit` tests but never names "
                                "pytest.mark.unit, so -m unit would not collect them")
    for item in items:
        if END_TO_END & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.long)
        if item.get_closest_marker("timing") and not item.get_closest_marker("flaky"):
            item.add_marker(pytest.mark.flaky(reruns=2, reruns_delay=1))


PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn",
                            "os.exec", "os.spawn", "os.system", "os.startfile", "pty.spawn"})
"""The audit events (sys.addaudithook) of starting a process or a program."""

_unit_starts: list[str] | None = None
"""While a `unit` test runs: every process it tried to start; None otherwise."""


class StartsAProcess(BaseException):
    """A `unit` test tried to start a process. A BaseException, so no `except
    Exception` of the code under test takes it for a failure to start one."""


def _refuse_in_unit(what: str) -> None:
    if _unit_starts is not None:
        _unit_starts.append(what)
        raise StartsAProcess(f"a unit test starts no process, and this one started {what}: "
                             "take its `unit` mark away, or give it a fake")


def _process_audit(event: str, args: tuple[Any, ...]) -> None:
    if _unit_starts is not None and event in PROCESS_EVENTS:
        _refuse_in_unit(f"{event} {args[:2]!r}")


sys.addaudithook(_process_audit)


@pytest.fixture(autouse=True)
def _unit_starts_no_process(request: pytest.FixtureRequest,
                            monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A `unit` test starts no process: subprocess, os.fork and exec (their audit
    events), multiprocessing's Process.start and its fork server's start (which
    raise none) are refused while it runs, and the test errs even if the code
    under test swallowed the refusal."""
    global _unit_starts
    if request.node.get_closest_marker("unit") is None:
        yield
        return
    start, spawnv = multiprocessing.process.BaseProcess.start, multiprocessing.util.spawnv_passfds

    def refused_start(self: multiprocessing.process.BaseProcess) -> None:
        _refuse_in_unit(f"multiprocessing's Process.start ({self.name})")
        start(self)

    def refused_spawnv(path: str, args: Any, passfds: Any) -> int:
        _refuse_in_unit(f"multiprocessing's spawnv_passfds {args[:2]!r}")
        return int(spawnv(path, args, passfds))

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refused_start)
    monkeypatch.setattr(multiprocessing.util, "spawnv_passfds", refused_spawnv)
    _unit_starts = started = []
    try:
        yield
    finally:
        _unit_starts = None
    if started:
        pytest.fail(f"a unit test starts no process; this one started {started[0]}")


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """How many workers ``-n auto`` (the suite's default) starts: for the
    `unit` tier alone, one a core (up to 4: each worker collects the whole
    suite first, some 4 s of CPU); otherwise two a core (up to 8), as most
    tests wait on processes they start (servers, workers, windows) rather than
    compute: the README's command took 322 s on two workers, 295 s on three and
    279 s on four on two idle cores. PYTEST_XDIST_AUTO_NUM_WORKERS still decides."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    if (config.getoption("markexpr", "") or "").strip() == "unit":
        return min(_cores(), 4)
    return min(2 * _cores(), 8)


SPREAD = ("tests/test_documented_examples.py", "tests/test_isolation.py", "tests/test_clock.py",
          "tests/test_server_ladder.py", "tests/test_gui_results.py", "tests/test_setup_probe.py")
"""Files whose tests go to the workers one by one, not the file to one worker:
each test a long run of its own, none sharing a fixture wider than a test."""

FIRST = ("tests/test_readme_setup.py", "tests/test_done_when.py", "tests/test_packaging.py",
         "tests/test_documented_examples.py",
         "tests/test_server_cluster.py", "tests/test_server_browser_people.py",
         "tests/test_site_large.py", "tests/test_server_browser.py",
         "tests/test_isolation.py",
         "tests/test_server_ladder.py", "tests/test_clock.py", "tests/test_engine_thinker.py",
         "tests/test_online_hostile.py", "tests/test_contestants.py",
         "tests/test_online_tourney.py", "tests/test_gui_player.py", "tests/test_gui_app.py")
"""Files started before all others (the longest first): their long tests would
otherwise come last, one worker running them alone while the other waits."""


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadfile as pytest-xdist does it (a test file to one worker), but
    the files of SPREAD go test by test, and those of FIRST start first, so
    both workers stay busy to the end."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return nodeid if _file(nodeid) in SPREAD else _file(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the queue is whole on the first assignment
                self.ordered = True
                for name in reversed(FIRST):
                    for scope in [s for s in self.workqueue if _file(s) == name][::-1]:
                        self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return Scheduling(config, log)


def pytest_report_header() -> str:
    return f"simulated platform: {csl_platform_sim.mode or 'none (this machine as it is)'}"


@pytest.fixture
def simulated() -> str:
    """The simulated platform mode ('' when none)."""
    return csl_platform_sim.mode


def _fresh_dir(factory: pytest.TempPathFactory, name: str) -> Path:
    """A new empty folder in the run's base temporary folder. pytest's
    `mktemp` numbers its folders by listing every one made so far, some 2 s
    of CPU over the unit tier's 2,500 folders; a random suffix costs nothing."""
    name = re.sub(r"\W", "_", name)[:30]
    return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=factory.getbasetemp()))


@pytest.fixture
def tmp_path(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """pytest's `tmp_path` (a new folder named after the test), made by `_fresh_dir`."""
    return _fresh_dir(tmp_path_factory, request.node.name)


@pytest.fixture(autouse=True)
def user_home(tmp_path_factory: pytest.TempPathFactory,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty folder stands for the user's config folder in every test."""
    home = _fresh_dir(tmp_path_factory, "user-home")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    yield home


@pytest.fixture
def apps() -> Iterator[object]:
    """Windows for a GUI test (gui_events.Apps), all closed when it ends."""
    from gui_events import opened  # pygame only for the tests that use it

    with opened() as opened_apps:
        yield opened_apps
