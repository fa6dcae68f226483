"""Sessions with more than one worker: matches played off screen while the
screen shows another, recorded as they finish, and the wait for the last ones."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype, Winner
from csl_game.engine import session as session_module
from csl_game.engine.match import Human, MatchResult
from csl_game.engine.session import (Choice, PostMatch, Screen, ScreenPolicy, Session, SessionEvent,
                              SessionState)

FAKES = (str(Path(__file__).parent / "fakes"),)
CONFIG = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                     time_limit_ms=5000, min_move_time_ms=0)


class HeldBackground:
    """Stands in for BackgroundMatches: matches end only when the test says."""

    made: list[HeldBackground] = []

    def __init__(self, players: Sequence[ThinkerPrototype], names: Sequence[str],
                 config: MatchConfig, slots: int, in_process: bool = False) -> None:
        self.names = names
        self.config = config
        self.slots = slots
        self.running: dict[int, tuple[int, int]] = {}
        self.failed: set[int] = set()
        self.ended: dict[int, MatchResult | None] = {}
        self.closed = False
        HeldBackground.made.append(self)

    @property
    def has_room(self) -> bool:
        return len(self.running) < self.slots and not self.closed

    def submit(self, index: int, white: int, red: int) -> None:
        self.running[index] = (white, red)

    def end(self, index: int, winner: Winner = Winner.WHITE, failed: bool = False) -> None:
        """Let match `index` finish (White wins, unless `winner` says otherwise)."""
        white, red = self.running[index]
        self.ended[index] = None if failed else MatchResult(winner, self.names[white],
                                                            self.names[red])

    def finished(self) -> list[tuple[int, MatchResult | None]]:
        out = []
        for index in sorted(self.ended):
            result = self.ended.pop(index)
            del self.running[index]
            if result is None:
                self.failed.add(index)
            out.append((index, result))
        return out

    def wait_any(self) -> None:
        raise AssertionError("a test session never blocks on its background")

    def close(self) -> None:
        self.closed = True
        self.running.clear()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[HeldBackground]]:
    HeldBackground.made.clear()
    monkeypatch.setattr(session_module, "BackgroundMatches", HeldBackground)
    yield HeldBackground


def _players(n: int) -> list[ThinkerPrototype]:
    return [ThinkerPrototype("sequential", "", CONFIG) for _ in range(n)]


def _play_on_screen(session: Session, winner: Winner = Winner.RED) -> None:
    """Begin the match on screen and end it at once with `winner`."""
    match = session.begin_match()
    session.end_match(MatchResult(winner, *match.names))
    match.close()


def test_the_screen_and_the_background_share_out_the_matches(
        held: type[HeldBackground]) -> None:
    session = Session(_players(3), CONFIG, workers=3)
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    session.start()
    bg = held.made[0]
    assert session.parallel and bg.slots == 2
    assert session.current_index == 0 and sorted(bg.running) == [1, 2]
    bg.end(2)
    session.update()
    assert session.record_indices == [2] and sorted(bg.running) == [1, 3]
    assert [e for e in events if isinstance(e, PostMatch)][-1].background
    _play_on_screen(session)
    assert not [e for e in events if isinstance(e, PostMatch)][-1].background
    session.next()
    assert session.current_index == 4, "the screen takes the lowest free match"
    assert sorted(bg.running) == [1, 3], "two off screen at most"
    assert sorted(i for i, _ in session.records_in_order()) == [0, 2]


def test_the_last_screen_waits_for_the_background_then_ends(
        held: type[HeldBackground]) -> None:
    session = Session(_players(3), CONFIG, workers=2)
    session.start()
    bg = held.made[0]
    for _ in range(5):  # the background keeps match 1 for the whole session
        _play_on_screen(session)
        session.next()
    assert sorted(session.record_indices) == [0, 2, 3, 4, 5] and list(bg.running) == [1]
    assert session.waiting and session.state is SessionState.PRE_MATCH
    assert session.screen is Screen.PRE_MATCH
    assert session.choices() == () and session.default_choice is None
    assert session.timeout(ScreenPolicy(auto=True)) is None
    assert session.background_pairings == [(session.names[session.pairings[1][0]],
                                            session.names[session.pairings[1][1]])]
    with pytest.raises(session_module.ConfigError):
        session.begin_match()
    session.update()
    assert session.waiting, "nothing ended yet"
    bg.end(1, Winner.DRAW)
    session.update()
    assert session.state is SessionState.END and bg.closed
    assert [i for i, _ in session.records_in_order()] == list(range(6))
    assert sum(s.draws for s in session.standings()) == 2


def test_a_match_that_failed_off_screen_is_played_on_screen(
        held: type[HeldBackground]) -> None:
    session = Session(_players(3), CONFIG, workers=2)
    session.start()
    bg = held.made[0]
    for _ in range(5):
        _play_on_screen(session)
        session.next()
    assert session.waiting
    bg.end(1, failed=True)
    session.update()
    assert not session.waiting and session.current_index == 1
    assert session.screen is Screen.PRE_MATCH and session.choices() == (Choice.START,)
    assert not bg.running, "a failed match is not handed out again"
    _play_on_screen(session)
    session.next()
    assert session.state is SessionState.END and len(session.records) == 6


def test_one_worker_humans_or_two_players_play_everything_on_screen(
        held: type[HeldBackground]) -> None:
    for session in (Session(_players(3), CONFIG, workers=1),
                    Session([Human(), *_players(2)], CONFIG, workers=2),
                    Session(_players(2), CONFIG, workers=2)):
        assert not session.parallel
        session.start()
        assert session.background_running == 0 and not held.made


def test_workers_below_one_are_refused() -> None:
    with pytest.raises(session_module.ConfigError, match="workers must be at least 1"):
        Session(_players(3), CONFIG, workers=0)


def test_again_keeps_the_workers(held: type[HeldBackground]) -> None:
    again = Session(_players(3), CONFIG, workers=2, in_process=True).again()
    assert again.workers == 2 and again.in_process


def test_a_parallel_run_gives_the_standings_of_a_sequential_one() -> None:
    """Real background matches (threads): the same results, every match once."""
    thinkers = [("minimax", "2"), ("sequential", ""), ("raiser", ""), ("steady", "1")]

    def players() -> list[ThinkerPrototype]:
        return [ThinkerPrototype(t, p, CONFIG, FAKES) for t, p in thinkers]

    expected = Session(players(), CONFIG).run()
    session = Session(players(), CONFIG, workers=2, in_process=True)
    background: list[int] = []
    session.subscribe(lambda e: background.append(e.index)
                      if isinstance(e, PostMatch) and e.background else None)
    assert session.run() == expected
    assert [i for i, _ in session.records_in_order()] == list(range(12))
    assert background, "some matches were played off screen"
