"""Sessions with more than one worker: matches played off screen while the
screen shows another, recorded as they finish, and the wait for the last ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype, Winner
from csl_game.engine import (
    Choice,
    Human,
    MatchResult,
    PostMatch,
    RunOptions,
    Screen,
    ScreenPolicy,
    Session,
    SessionEvent,
    SessionOptions,
    SessionState,
)
from csl_game.engine import session as session_module
from held_scheduler import HeldScheduler

FAKES = (str(Path(__file__).parent / "fakes"),)
CONFIG = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                     time_limit_ms=5000, min_move_time_ms=0)


@pytest.fixture
def held() -> Iterator[type[HeldScheduler]]:
    HeldScheduler.made.clear()
    yield HeldScheduler


def _players(n: int) -> list[ThinkerPrototype]:
    return [ThinkerPrototype("sequential", "", CONFIG) for _ in range(n)]


def _play_on_screen(session: Session, winner: Winner = Winner.RED) -> None:
    """Begin the match on screen and end it at once with `winner`."""
    match = session.begin_match()
    session.end_match(MatchResult(winner, *match.names))
    match.close()


def test_the_screen_and_the_background_share_out_the_matches(
        held: type[HeldScheduler]) -> None:
    session = Session(_players(3), CONFIG, SessionOptions(run=RunOptions(workers=3, scheduler_factory=held)))
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    session.start()
    bg = held.made[0]
    assert session.parallel and bg.slots == 2
    assert session.current_index == 0 and bg.indices == [1, 2]
    bg.end(2)
    session.update()
    assert session.record_indices == [2] and bg.indices == [1, 3]
    assert [e for e in events if isinstance(e, PostMatch)][-1].background
    _play_on_screen(session)
    assert not [e for e in events if isinstance(e, PostMatch)][-1].background
    session.next()
    assert session.current_index == 4, "the screen takes the lowest free match"
    assert bg.indices == [1, 3], "two off screen at most"
    assert sorted(i for i, _ in session.records_in_order()) == [0, 2]


def test_the_last_screen_waits_for_the_background_then_ends(
        held: type[HeldScheduler]) -> None:
    session = Session(_players(3), CONFIG, SessionOptions(run=RunOptions(workers=2, scheduler_factory=held)))
    session.start()
    bg = held.made[0]
    for _ in range(5):  # the background keeps match 1 for the whole session
        _play_on_screen(session)
        session.next()
    assert sorted(session.record_indices) == [0, 2, 3, 4, 5] and bg.indices == [1]
    assert session.waiting and session.state is SessionState.PRE_MATCH
    assert session.presenter.screen is Screen.PRE_MATCH
    assert session.presenter.choices() == () and session.presenter.default_choice is None
    assert session.presenter.timeout(ScreenPolicy(auto=True)) is None
    assert session.background_pairings == [(session.names[session.pairings[1][0]],
                                            session.names[session.pairings[1][1]])]
    with pytest.raises(session_module.SessionStateError):
        session.begin_match()
    session.update()
    assert session.waiting, "nothing ended yet"
    bg.end(1, Winner.DRAW)
    session.update()
    assert session.state is SessionState.END and bg.closed
    assert [i for i, _ in session.records_in_order()] == list(range(6))
    assert sum(s.draws for s in session.standings()) == 2


def test_a_match_that_failed_off_screen_is_played_on_screen(
        held: type[HeldScheduler]) -> None:
    session = Session(_players(3), CONFIG, SessionOptions(run=RunOptions(workers=2, scheduler_factory=held)))
    session.start()
    bg = held.made[0]
    for _ in range(5):
        _play_on_screen(session)
        session.next()
    assert session.waiting
    bg.end(1, failed=True)
    session.update()
    assert not session.waiting and session.current_index == 1
    assert session.presenter.screen is Screen.PRE_MATCH and session.presenter.choices() == (Choice.START,)
    assert not bg.running, "a failed match is not handed out again"
    _play_on_screen(session)
    session.next()
    assert session.state is SessionState.END and len(session.records) == 6


def test_one_worker_humans_or_two_players_play_everything_on_screen(
        held: type[HeldScheduler]) -> None:
    one, two = (SessionOptions(run=RunOptions(workers=n, scheduler_factory=held)) for n in (1, 2))
    for session in (Session(_players(3), CONFIG, one),
                    Session([Human(), *_players(2)], CONFIG, two),
                    Session(_players(2), CONFIG, two)):
        assert not session.parallel
        session.start()
        assert session.background_running == 0 and not held.made


@pytest.mark.unit
def test_workers_below_one_are_refused() -> None:
    with pytest.raises(session_module.ConfigError, match="workers must be at least 1"):
        Session(_players(3), CONFIG, SessionOptions(run=RunOptions(workers=0, scheduler_factory=held)))


@pytest.mark.unit
def test_again_keeps_the_workers(held: type[HeldScheduler]) -> None:
    again = Session(_players(3), CONFIG, SessionOptions(run=RunOptions(workers=2, in_process=True, scheduler_factory=held))).again()
    assert again.workers == 2 and again.options.run.in_process


def test_a_parallel_run_gives_the_standings_of_a_sequential_one() -> None:
    """Real background matches (threads): the same results, every match once."""
    thinkers = [("minimax", "2"), ("sequential", ""), ("raiser", ""), ("steady", "1")]

    def players() -> list[ThinkerPrototype]:
        return [ThinkerPrototype(t, p, CONFIG, FAKES) for t, p in thinkers]

    expected = Session(players(), CONFIG).run()
    session = Session(players(), CONFIG, SessionOptions(run=RunOptions(workers=2, in_process=True)))
    background: list[int] = []
    session.subscribe(lambda e: background.append(e.index)
                      if isinstance(e, PostMatch) and e.background else None)
    assert session.run() == expected
    assert [i for i, _ in session.records_in_order()] == list(range(12))
    assert background, "some matches were played off screen"


def test_the_pre_match_list_is_in_match_order_past_match_ten(
        held: type[HeldScheduler]) -> None:
    """Matches 1 to 12 off screen are listed 1, 2, ... 12, not 1, 10, 11, 12, 2."""
    session = Session(_players(5), CONFIG, SessionOptions(run=RunOptions(workers=13, scheduler_factory=held)))
    session.start()
    assert held.made[0].indices == list(range(1, 13))
    fixtures = [session.pairings[i] for i in range(1, 13)]
    assert session.background_pairings == [(session.names[w], session.names[r])
                                           for w, r in fixtures]
