"""Sessions: modes, circle-method pairings, standings, the state machine."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from csl_game import ConfigError, MatchConfig, PColor, ThinkerPrototype, Winner
from csl_game.engine import (
    Choice,
    Human,
    MatchRecord,
    MatchResult,
    Points,
    PostMatch,
    PreMatch,
    RunOptions,
    Screen,
    Session,
    SessionEnded,
    SessionOptions,
    SessionStarted,
    SessionState,
    ThreadRunner,
    round_robin,
    standings,
    winner_text,
)
from csl_game.engine.screens import Mode, mode_for
from csl_game.errors import SessionStateError

FAKES = (str(Path(__file__).parent / "fakes"),)


@pytest.mark.unit
@pytest.mark.parametrize("n, mode", [(0, Mode.HUMAN_VS_HUMAN), (1, Mode.HUMAN_VS_AI),
                                     (2, Mode.AI_VS_AI), (3, Mode.TOURNAMENT),
                                     (9, Mode.TOURNAMENT)])
def test_mode_for(n: int, mode: Mode) -> None:
    assert mode_for(n) is mode


@pytest.mark.unit
def test_mode_for_negative() -> None:
    with pytest.raises(ConfigError):
        mode_for(-1)


@pytest.mark.unit
@given(st.integers(min_value=2, max_value=12))
def test_round_robin_complete_plays_each_ordered_pair_once(n: int) -> None:
    pairs = round_robin(n)
    assert len(pairs) == n * (n - 1)
    assert set(pairs) == {(a, b) for a in range(n) for b in range(n) if a != b}


@pytest.mark.unit
@given(st.integers(min_value=2, max_value=12))
def test_round_robin_single_leg(n: int) -> None:
    pairs = round_robin(n, complete=False)
    assert len(pairs) == n * (n - 1) // 2
    assert {frozenset(p) for p in pairs} == {frozenset((a, b)) for a in range(n)
                                             for b in range(a + 1, n)}


@pytest.mark.unit
@given(st.integers(min_value=3, max_value=12))
def test_round_robin_rounds_are_disjoint(n: int) -> None:
    """Circle method: each round of n//2 matches uses every player at most once."""
    per_round = n // 2
    first_leg = round_robin(n, complete=False)
    for r in range(0, len(first_leg), per_round):
        players = [p for pair in first_leg[r:r + per_round] for p in pair]
        assert len(players) == len(set(players))


@pytest.mark.unit
def test_round_robin_colours_are_balanced() -> None:
    whites = Counter(w for w, _ in round_robin(6))
    assert set(whites.values()) == {5}


def _result(winner: Winner) -> MatchResult:
    return MatchResult(winner, "a", "b")


@pytest.mark.unit
def test_standings_share_positions_on_equal_points() -> None:
    names = ["A", "B", "C", "D"]
    recs = [MatchRecord(0, 1, _result(Winner.WHITE)),   # A beats B
            MatchRecord(2, 3, _result(Winner.RED)),     # D beats C
            MatchRecord(1, 2, _result(Winner.DRAW))]    # B draws C
    table = standings(names, recs)
    assert [(s.position, s.name, s.points) for s in table] == [
        (1, "A", 3), (1, "D", 3), (3, "B", 1), (3, "C", 1)]
    assert (table[0].wins, table[0].draws, table[0].losses) == (1, 0, 0)
    assert table[2].played == 2


@pytest.mark.unit
def test_standings_custom_points() -> None:
    recs = [MatchRecord(0, 1, _result(Winner.RED))]
    table = standings(["A", "B"], recs, Points(win=2, draw=1, loss=-1))
    assert [(s.name, s.points) for s in table] == [("B", 2), ("A", -1)]


@pytest.mark.unit
def test_winner_text() -> None:
    assert winner_text(MatchResult(Winner.RED, "x", "MinimaxD3")) == "Winner is Red (MinimaxD3)"
    assert winner_text(MatchResult(Winner.DRAW, "x", "y")) == "It's a draw"


def _protos(names: list[str], mc: MatchConfig) -> list[ThinkerPrototype]:
    return [ThinkerPrototype(n, p, mc, FAKES) for n, _, p in (s.partition(" ") for s in names)]


def test_tournament_state_machine_and_events() -> None:
    mc = MatchConfig(time_limit_ms=500)
    session = Session(_protos(["sequential", "minimax 1", "raiser", "nomove"], mc), mc,
                      SessionOptions(run=RunOptions(runner_factory=ThreadRunner)))
    assert session.mode is Mode.TOURNAMENT and session.total_matches == 12
    events: list = []
    session.subscribe(events.append)
    session.start()
    states = []
    while session.state is not SessionState.END:
        assert session.state is SessionState.PRE_MATCH
        match = session.begin_match()
        white, red = session.pairings[len(session.records)]
        assert match.names == (session.names[white], session.names[red])
        while session.state is SessionState.IN_MATCH:
            session.update()
            match.wait(0.01)
        states.append(session.state)
        session.next()
    assert states == [SessionState.POST_MATCH] * 12
    assert isinstance(events[0], SessionStarted) and isinstance(events[-1], SessionEnded)
    assert sum(isinstance(e, PreMatch) for e in events) == 12
    assert sum(isinstance(e, PostMatch) for e in events) == 12
    table = session.standings()
    by_name = {s.name: s for s in table}
    # raiser and nomove lose every match except against each other (one each)
    assert by_name["Raiser"].points + by_name["NoMove"].points == 6
    assert by_name["Sequential"].losses <= 2 and by_name["MinimaxD1"].points >= 12


def test_two_player_session_swap() -> None:
    mc = MatchConfig()
    session = Session([Human("Ann"), ThinkerPrototype("random", "", mc)], mc)
    assert session.mode is Mode.HUMAN_VS_AI and session.total_matches == 1
    assert session.next_pairing == ("Ann", "Random")
    session.swap()
    assert session.next_pairing == ("Random", "Ann")
    session.start()
    with pytest.raises(SessionStateError):
        session.swap()
    match = session.begin_match()
    match.update()
    match.wait(1)
    while not match.awaiting_human:
        match.update()
        match.wait(0.01)
    assert match.board.move_count == 1 and match.board.turn is PColor.RED
    session.abort()


def test_duplicate_names_are_told_apart() -> None:
    mc = MatchConfig()
    session = Session(_protos(["random", "random", "minimax"], mc), mc)
    session.wait_for_names()  # each thinker names itself in a worker process
    assert session.names == ("Random #1", "Random #2", "MinimaxD3")


@pytest.mark.unit
def test_session_needs_two_players() -> None:
    with pytest.raises(ConfigError):
        Session([Human()], MatchConfig())


@pytest.mark.unit
def test_wrong_transition_is_refused() -> None:
    session = Session([Human(), Human()], MatchConfig())
    with pytest.raises(SessionStateError, match="expected"):
        session.begin_match()


def test_resuming_from_nothing_plays_everything() -> None:
    mc = MatchConfig(time_limit_ms=5000)
    single = Session([Human("Ann"), Human("Bob")], mc)
    assert single.resume([]) == set()
    assert single.presenter.settle() is Screen.PRE_MATCH and single.presenter.choose(Choice.START) is Screen.MATCH
    tournament = Session(_protos(["sequential", "random 1", "minimax 1"], mc), mc)
    tournament.resume([])
    tournament.start()
    assert tournament.current_index == 0 and not tournament.waiting
