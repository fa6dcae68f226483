"""The match engine: turns, events, forfeits, human moves, minimum move time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from csl_game import InvalidMoveError, MatchConfig, PColor, PShape, ThinkerPrototype, Winner
from csl_game.engine import ForfeitReason, ThreadRunner
from csl_game.engine.match import (
    BoardUpdated,
    Human,
    InvalidPlay,
    Match,
    MatchOver,
    MatchStarted,
    MatchState,
    MovePerformed,
    NextTurn,
    ThinkingInfo,
)
from procs import forfeit_within

FAKES = (str(Path(__file__).parent / "fakes"),)
FAST = MatchConfig(time_limit_ms=300)
WALL = MatchConfig(time_limit_ms=300, clock="wall")


def proto(name: str, params: str = "", mc: MatchConfig = FAST) -> ThinkerPrototype:
    return ThinkerPrototype(name, params, mc, FAKES)


def run(white, red, mc: MatchConfig = FAST) -> tuple[Match, list]:
    match = Match(mc, white, red, ThreadRunner)
    events: list = []
    match.subscribe(events.append)
    match.run()
    return match, events


@pytest.mark.timing
@pytest.mark.parametrize("name, params, reason", [
    ("raiser", "", ForfeitReason.EXCEPTION),
    ("sleeper", "", ForfeitReason.TIMEOUT),
    ("nomove", "", ForfeitReason.NO_MOVE),
    ("offboard", "", ForfeitReason.INVALID_COLUMN),
    ("offboard", "neg", ForfeitReason.INVALID_COLUMN),
    ("wrongtype", "", ForfeitReason.EXCEPTION),
    ("oddshape", "", ForfeitReason.NO_PIECES),
    ("badsetup", "x", ForfeitReason.SETUP),
])
@pytest.mark.parametrize("bad_color", list(PColor))
def test_each_forfeit_loses_the_match(name: str, params: str, reason: ForfeitReason,
                                      bad_color: PColor) -> None:
    mc = WALL if name == "sleeper" else FAST  # on the CPU clock a sleeper waits for the backstop
    bad, good = proto(name, params, mc), proto("sequential", mc=mc)
    white, red = (bad, good) if bad_color is PColor.WHITE else (good, bad)
    start = time.perf_counter()
    match, events = run(white, red, mc)
    assert time.perf_counter() - start < forfeit_within(mc)
    assert match.result is not None
    assert match.result.winner is bad_color.other.winner
    assert match.result.forfeit is reason
    invalid = [e for e in events if isinstance(e, InvalidPlay)]
    assert len(invalid) == 1 and invalid[0].color is bad_color and invalid[0].reason is reason


@pytest.mark.unit
def test_exception_detail_carries_the_traceback() -> None:
    match, _ = run(proto("raiser"), proto("sequential"))
    assert match.result is not None
    assert "boom from think" in match.result.detail
    assert "Traceback" in match.result.detail


@pytest.mark.unit
def test_full_column_forfeit() -> None:
    mc = MatchConfig(rows=2, cols=3, win_sequence=3, time_limit_ms=300)
    match, _ = run(proto("columnzero", mc=mc), proto("columnzero", mc=mc), mc)
    assert match.result is not None
    assert match.result.forfeit is ForfeitReason.FULL_COLUMN
    assert match.result.winner is Winner.RED  # White finds column 0 full on move 3


@pytest.mark.unit
def test_no_pieces_forfeit() -> None:
    mc = MatchConfig(rows=6, cols=7, win_sequence=6, round_pieces=2, square_pieces=19,
                     time_limit_ms=300)
    match, _ = run(proto("greedyshape", mc=mc), proto("sequential", mc=mc), mc)
    assert match.result is not None
    assert match.result.forfeit is ForfeitReason.NO_PIECES
    assert match.result.winner is Winner.RED
    assert len(match.result.moves) == 4


def test_late_answer_is_a_timeout_even_if_it_arrives() -> None:
    mc = MatchConfig(time_limit_ms=20, clock="wall")
    match, _ = run(proto("slowpoke", "0.1", mc), proto("sequential", mc=mc), mc)
    assert match.result is not None and match.result.forfeit is ForfeitReason.TIMEOUT


@pytest.mark.unit
def test_event_sequence_of_a_won_game() -> None:
    match, events = run(proto("sequential"), proto("chatty"))
    kinds = [type(e) for e in events]
    assert kinds[0] is MatchStarted and kinds[1] is BoardUpdated and kinds[2] is NextTurn
    assert kinds[-1] is MatchOver
    moves = [e for e in events if isinstance(e, MovePerformed)]
    assert [m.color for m in moves] == [PColor(i % 2) for i in range(len(moves))]
    infos = [e for e in events if isinstance(e, ThinkingInfo)]
    assert infos and infos[0].text == "move 1" and infos[0].color is PColor.RED
    result = events[-1].result
    assert result.winner is not Winner.NONE
    assert len(result.solution) == FAST.win_sequence
    assert [p.move for p in result.moves] == list(match.board.history)


@pytest.mark.unit
def test_min_move_time_delays_the_move() -> None:
    mc = MatchConfig(time_limit_ms=1000, min_move_time_ms=120)
    match = Match(mc, proto("sequential", mc=mc), Human(), ThreadRunner)
    start = time.perf_counter()
    while match.state is not MatchState.WAITING_HUMAN:
        match.update()
        match.wait(0.01)
    assert time.perf_counter() - start >= 0.12
    assert match.board.move_count == 1


@pytest.mark.unit
def test_human_moves_and_refusals() -> None:
    mc = MatchConfig(rows=2, cols=3, win_sequence=3, round_pieces=1, square_pieces=2)
    match = Match(mc, Human("Ann"), Human("Bob"))
    events: list = []
    match.subscribe(events.append)
    with pytest.raises(InvalidMoveError):
        match.submit_move(0, PShape.ROUND)  # not started: nobody is to play yet
    match.update()
    assert match.awaiting_human and match.name(PColor.WHITE) == "Ann"
    match.submit_move(0, PShape.ROUND)
    with pytest.raises(InvalidMoveError, match="does not exist"):
        match.submit_move(3, PShape.ROUND)
    match.submit_move(0, PShape.SQUARE)
    with pytest.raises(InvalidMoveError, match="full"):
        match.submit_move(0, PShape.SQUARE)
    with pytest.raises(InvalidMoveError, match="no pieces"):
        match.submit_move(1, PShape.ROUND)
    assert match.board.move_count == 2
    assert not any(isinstance(e, InvalidPlay) for e in events)


@pytest.mark.unit
def test_close_mid_think_stops_the_job() -> None:
    match = Match(FAST, proto("sleeper"), Human(), ThreadRunner)
    match.update()
    assert match.state is MatchState.THINKING
    match.close()
    assert match.board.move_count == 0


# ----------------------------------------------------------------- undo and resign
def _human_vs(ai: ThinkerPrototype | Human, human_first: bool = True) -> Match:
    players = (Human("You"), ai) if human_first else (ai, Human("You"))
    match = Match(FAST, *players, ThreadRunner)
    match.update()
    return match


def _until(match: Match, done, seconds: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    end = time.perf_counter() + seconds
    while not done():
        assert time.perf_counter() < end, "the match did not get there in time"
        match.update()
        match.wait(0.01)


@pytest.mark.unit
@pytest.mark.parametrize("human_first", [True, False])
def test_undo_takes_back_the_humans_move_and_the_ai_reply(human_first: bool) -> None:
    match = _human_vs(proto("sequential"), human_first)
    _until(match, lambda: match.awaiting_human)
    before = match.board.move_count
    match.submit_move(3, PShape.ROUND if human_first else PShape.SQUARE)
    _until(match, lambda: match.awaiting_human)
    assert match.board.move_count == before + 2
    events: list = []
    match.subscribe(events.append)
    assert match.undo() == 2
    assert match.board.move_count == before and match.awaiting_human
    assert [type(e).__name__ for e in events][:2] == ["MovesTakenBack", "BoardUpdated"]
    assert isinstance(events[-1], NextTurn) and events[-1].is_human


@pytest.mark.timing
def test_undo_while_the_ai_thinks_stops_it_and_takes_back_one_move() -> None:
    match = _human_vs(proto("sleeper", mc=MatchConfig(time_limit_ms=5000)))
    match.submit_move(0, PShape.ROUND)
    match.update()
    assert match.state is MatchState.THINKING
    started = time.perf_counter()
    assert match.undo() == 1
    assert match.board.move_count == 0 and match.awaiting_human
    assert time.perf_counter() - started < 0.5
    match.submit_move(1, PShape.ROUND)  # the match goes on as if nothing was played
    match.update()
    assert match.state is MatchState.THINKING
    match.close()


@pytest.mark.unit
def test_undo_between_humans_takes_back_one_move() -> None:
    match = _human_vs(Human("Other"))
    match.submit_move(0, PShape.ROUND)
    match.submit_move(1, PShape.SQUARE)
    assert match.undo() == 1
    assert match.board.move_count == 1 and match.board.turn is PColor.RED


@pytest.mark.unit
@pytest.mark.parametrize("case, problem", [
    ("no move yet", "no human has moved yet"),
    ("ai vs ai", "only AIs play this match"),
    ("over", "the match is over"),
])
def test_undo_is_refused_with_a_reason(case: str, problem: str) -> None:
    from csl_game.engine.match import Refused

    if case == "ai vs ai":
        match = Match(FAST, proto("sequential"), proto("sequential"), ThreadRunner)
        match.update()
    else:
        match = _human_vs(Human("Other"))
    if case == "over":
        match.resign(PColor.WHITE)
    assert match.undo_problem() == problem
    with pytest.raises(Refused, match=problem):
        match.undo()
    match.close()


@pytest.mark.unit
def test_resigning_gives_the_match_to_the_other_player() -> None:
    match = _human_vs(proto("sleeper", mc=MatchConfig(time_limit_ms=5000)))
    match.submit_move(0, PShape.ROUND)
    match.update()
    match.resign(PColor.WHITE)
    assert match.is_over and match.result is not None
    assert match.result.winner is Winner.RED and match.result.resigned
    assert match.result.forfeit is None
