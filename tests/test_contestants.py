"""A contestant's code reaches only its own move: hostile thinkers a student
could write in an afternoon, all four in one session of two matches at once
beside honest thinkers, in the sandbox every worker runs in on Linux.

Every match between honest thinkers ends exactly as it does without the
hostile ones (same winner, same moves), no match has a forfeit, no process a
hostile thinker started is alive after the session, and the tournament's
main process never stops. Without the sandbox (CSL_GAME_SANDBOX=off) the
sibling-killer and the sibling-stopper reach other players' workers (so
these tests can fail), and their matches are played again rather than
scored against them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest

from csl_game.sandbox import status

CONTESTANTS = Path(__file__).parent / "contestants"
HONEST = ["sequential", "random 1", "minimax 1"]
HONEST_NAMES = {"Sequential", "Random", "MinimaxD1"}
HOSTILE = {"siblingstopper": "SiblingStopper", "siblingkiller": "SiblingKiller",
           "mainstopper": "MainStopper", "escaper": "Escaper"}
ESCAPEE = "csl-escapee"
LIMIT_MS = "1000"
"""The move time limit (CPU time; the honest thinkers take milliseconds): a
worker another program stopped is found so when its move's time is up."""
SETUP_LIMIT = "2000"
"""Milliseconds of set-up, on the move clock (a loaded machine does not shorten
them): a worker stopped while it sets its thinker up is found so when they are up."""

pytestmark = pytest.mark.skipif(not status().active,
                                reason=f"no sandbox here: {status().reason}")

Outcome = tuple[Any, Any, tuple[tuple[int, int], ...]]


def _session(tmp_path: Path, first: list[str], env: dict[str, str] | None = None,
             said: list[str] | None = None) -> dict[tuple[str, str], Outcome]:
    """Play the players `first` and the honest three, two matches at once; each
    match's outcome by its players' names (raises if the session does not end);
    what the session said on standard error goes to `said`."""
    players = [*first, *HONEST]
    games = tmp_path / f"{first[0].split()[0] if first else 'honest'}.txt"
    games.write_text("\n".join(players) + "\n", encoding="utf-8")
    results = games.with_suffix(".jsonl")
    proc = subprocess.Popen(
        [sys.executable, "-m", "csl_game", "session", "-g", str(games), "--thinkers",
         str(CONTESTANTS), "--workers", "2", "-t", LIMIT_MS, "--setup-time-limit", SETUP_LIMIT,
         "-q", "--results", str(results)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, **(env or {})})
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGCONT)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"the session of {players} did not end: its main process "
                             "was stopped or hung") from None
    assert proc.returncode == 0, err
    if said is not None:
        said.extend(err.splitlines())
    outcomes = {}
    for line in results.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        moves = tuple((m["row"], m["col"]) for m in doc["moves"])
        outcomes[(doc["white"]["name"], doc["red"]["name"])] = (doc["winner"], doc["forfeit"],
                                                                moves)
    assert len(outcomes) == len(players) * (len(players) - 1)
    return outcomes


def _honest(outcomes: dict[tuple[str, str], Outcome]) -> dict[tuple[str, str], Outcome]:
    """The matches between two of the honest three."""
    return {pair: o for pair, o in outcomes.items() if set(pair) <= HONEST_NAMES}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Outcome]:
    """The honest players' matches among themselves."""
    honest = _session(tmp_path_factory.mktemp("baseline"), [])
    assert len(honest) == 6 and all(o[1] is None for o in honest.values())
    return honest


@pytest.fixture(scope="module")
def hostile_session(tmp_path_factory: pytest.TempPathFactory
                    ) -> tuple[dict[tuple[str, str], Outcome], list[str]]:
    """The four hostile thinkers and the honest three in one session (in the
    sandbox none reaches another's match, so one session shows it for each):
    each match's outcome, and what the session said on standard error."""
    said: list[str] = []
    outcomes = _session(tmp_path_factory.mktemp("hostile"), list(HOSTILE), said=said)
    return outcomes, said


def _escapees() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] == ESCAPEE:
            found.append(proc)
    return found


@pytest.mark.parametrize("hostile, name", list(HOSTILE.items()))
def test_a_hostile_thinker_changes_no_other_match(
        baseline: dict[tuple[str, str], Outcome],
        hostile_session: tuple[dict[tuple[str, str], Outcome], list[str]], hostile: str,
        name: str) -> None:
    outcomes, said = hostile_session
    assert not said  # no note of a missing sandbox, no match played again
    mine = {pair for pair in outcomes if name in pair}
    assert len(mine) == 2 * (len(HOSTILE) + len(HONEST) - 1)
    assert set(pair for pair in outcomes if not set(pair) & set(HOSTILE.values())) \
        == set(baseline)
    for pair, outcome in _honest(outcomes).items():
        assert outcome == baseline[pair], pair
    for pair, outcome in outcomes.items():  # its own matches and all others: nothing
        assert outcome[1] is None, (pair, outcome)  # stopped or killed
    assert not _escapees()  # what it started ended with its worker


@pytest.mark.parametrize("hostile, done", [("siblingkiller", "was killed by signal SIGKILL"),
                                           ("siblingstopper", "was stopped by")])
def test_without_the_sandbox_the_victims_play_again(
        tmp_path: Path, baseline: dict[tuple[str, str], Outcome], hostile: str,
        done: str) -> None:
    """With the sandbox off the killer and the stopper do reach their siblings
    (what the sandbox stops is real), but their victims are not blamed: each
    match whose worker was killed or stopped by a signal csl-game did not
    send is played again, and so ends as without them."""
    said: list[str] = []
    for _ in range(3):  # the two matches at once must overlap its first move
        outcomes = _session(tmp_path, [hostile], env={"CSL_GAME_SANDBOX": "off"}, said=said)
        for pair, outcome in _honest(outcomes).items():
            assert outcome == baseline[pair], pair
        if any("is played again" in line for line in said):
            break
    assert said[0].startswith("csl-game: note: thinkers run without a sandbox")
    assert any(f"is played again, not scored: its process {done}" in line for line in said)


def test_an_escaped_helper_ends_with_its_match_though_its_worker_is_kept() -> None:
    """The escaper's helper left its worker's tree (subreaper flag cleared,
    double fork, setsid): init adopted it, and it ends with the match, while
    the worker waits in the pool for the next one."""
    from functools import partial

    from csl_game import MatchConfig, ThinkerPrototype
    from csl_game.engine.match import Match
    from csl_game.engine.runners.process import ProcessRunner, WorkerPool

    mc = MatchConfig(time_limit_ms=3000)
    pool = WorkerPool()
    try:
        match = Match(mc, ThinkerPrototype("escaper", "", mc, (str(CONTESTANTS),)),
                      ThinkerPrototype("sequential", "", mc), partial(ProcessRunner, pool=pool))
        seen: list[int] = []
        match.subscribe(lambda _: seen.extend(p.pid for p in _escapees()) if not seen else None)
        match.run()
        worker = match._runners[0].pid  # type: ignore[union-attr]  # noqa: SLF001
        assert seen  # the helper ran while the match was played
        assert worker is not None and psutil.pid_exists(worker)  # kept for the next match
        assert not [p for p in _escapees() if p.status() != psutil.STATUS_ZOMBIE]
    finally:
        pool.close()


def _says(tmp_path: Path, *extras: tuple[str, ...]) -> list[tuple[int, list[str], str]]:
    """Sessions of the network checker and sequential (two matches each, the
    second played off screen), one per tuple of extra arguments, all at once;
    each one's exit code, what the checker said about the network, and its
    standard error."""
    import socket

    games = tmp_path / "net.txt"
    with socket.create_server(("127.0.0.1", 0)) as listener:
        games.write_text(f"netcheck {listener.getsockname()[1]}\nsequential\n", encoding="utf-8")
        procs = [subprocess.Popen(
            [sys.executable, "-m", "csl_game", "session", "-g", str(games), "--thinkers",
             str(CONTESTANTS), "--workers", "2", "-t", LIMIT_MS, "--verbose", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for extra in extras]
        done = [proc.communicate(timeout=120) for proc in procs]
    return [(proc.returncode, [line for line in out.splitlines() if "network:" in line], err)
            for proc, (out, err) in zip(procs, done)]


def test_a_thinker_has_the_network_only_when_its_player_asks(tmp_path: Path) -> None:
    without, asked, nobody = _says(tmp_path, (), ("--network", "netcheck"),
                                   ("--network", "nobody"))
    code, said, err = without
    assert code == 0, err
    assert said and all("network: no" in line for line in said)
    code, said, err = asked
    assert code == 0, err
    assert said and all("network: yes" in line for line in said)
    code, said, err = nobody
    assert code == 2 and err.strip().splitlines() == [
        "csl-game: error: --network nobody: no player here is nobody (the players: "
        "netcheck, sequential)"]


def test_the_network_choice_holds_for_matches_played_off_screen() -> None:
    """The scheduler's matches make their players anew: the choice goes with them."""
    import socket

    from csl_game import MatchConfig, ThinkerPrototype
    from csl_game.engine import PostMatch, RunOptions, Session, SessionOptions

    mc = MatchConfig(time_limit_ms=3000)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = str(listener.getsockname()[1])
        said: dict[bool, list[str]] = {}
        for allowed in (False, True):
            checker = ThinkerPrototype("netcheck", port, mc, (str(CONTESTANTS),))
            checker.network = allowed
            players = [checker, ThinkerPrototype("sequential", "", mc)]
            session = Session(players, mc, SessionOptions(run=RunOptions(workers=2,
                                                                         foreground=False)))
            session.subscribe(lambda e, a=allowed: said.setdefault(a, []).extend(
                text for _, text in e.info if "network:" in text)
                if isinstance(e, PostMatch) else None)
            session.run()
    assert said[False] and all("network: no" in text for text in said[False])
    assert said[True] and all("network: yes" in text for text in said[True])

