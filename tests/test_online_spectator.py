"""The tournament spectator's state machine (csl_game.online.tourney_client.
WatchState) with no sockets at all: made-up broadcast messages and a made-up
clock. A result must agree with its moves (its winning line of the winner's
pieces on the board, for the match on screen and one played off screen), the
standings must be possible after the matches played, and an answer must come
within the connect time-out."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from csl_game.console.render import ConsoleListener
from csl_game.console.tourney_cmd import _say
from csl_game.engine import ForfeitReason, MatchOver, MovePerformed, Standing
from csl_game.model.board import PShape, Winner
from csl_game.online.joiner import Failed, Step
from csl_game.online.protocol import ErrorMsg, Ping, Played, Pong, Welcome
from csl_game.online.tourney_client import (
    HostedMatch,
    OffScreen,
    StandingsNow,
    TourneyBegun,
    WatchedMatch,
    WatchState,
)
from csl_game.online.tourney_protocol import Finished, MatchMsg, StandingsMsg, Tournament
from hostile_host import CONFIG, NAMES, PLAYERS, result

pytestmark = pytest.mark.unit

R, S = PShape.ROUND, PShape.SQUARE
WON = ((0, R), (0, S), (1, R), (1, S), (2, R))
LINE = ((0, 0), (0, 1), (0, 2))
ANN_BEN = ("Ann", "Ben")
Row = tuple[int, str, int, int, int, int]


def standings(played: int, *rows: Row, final: bool = False) -> StandingsMsg:
    return StandingsMsg(played, final, tuple(Standing(i + 1, p, n, pts, w, d, lo)
                                             for i, (p, n, pts, w, d, lo) in enumerate(rows)))


ZERO = standings(0, (0, "Ann", 0, 0, 0, 0), (1, "Ben", 0, 0, 0, 0), (2, "Cid", 0, 0, 0, 0))
AFTER_ONE = standings(1, (0, "Ann", 3, 1, 0, 0), (2, "Cid", 0, 0, 0, 0), (1, "Ben", 0, 0, 0, 1))


def watching(matches: int = 6) -> WatchState:
    s = WatchState(0.0)
    step = s.receive(Tournament(PLAYERS, matches, CONFIG), 0.1)
    assert [type(e) for e in step.events] == [TourneyBegun]
    s.receive(ZERO, 0.1)
    assert s.failed is None
    return s


def failure(step: Step[object]) -> str:
    failed = [e for e in step.events if isinstance(e, Failed)]
    assert failed and step.hangup, step.events
    return failed[0].message


def on_screen(s: WatchState, moves: tuple[tuple[int, PShape], ...] = WON) -> None:
    s.receive(MatchMsg(0, *ANN_BEN, CONFIG), 1.0)
    for ply, (col, shape) in enumerate(moves):
        step = s.receive(Played(ply, col, shape, 0.0), 1.0)
        assert isinstance(step.events[0], MovePerformed)


def test_a_match_followed_to_its_result_and_the_standings() -> None:
    s = watching()
    on_screen(s)
    step = s.receive(Finished(0, result(WON, Winner.WHITE, LINE, names=ANN_BEN), CONFIG), 2.0)
    assert [type(e) for e in step.events] == [MatchOver]
    step = s.receive(AFTER_ONE, 2.0)
    assert [type(e) for e in step.events] == [StandingsNow] and s.failed is None


def test_a_match_joined_midway_and_an_off_screen_result() -> None:
    s = watching()
    step = s.receive(MatchMsg(0, *ANN_BEN, CONFIG, ((0, R, 0.0), (0, S, 0.0))), 1.0)
    assert isinstance(step.events[0], WatchedMatch) and step.events[0].index == 0
    assert s.board is not None
    step = s.receive(Finished(3, result(WON, Winner.WHITE, LINE, names=("Cid", "Ann")), CONFIG),
                     1.0)
    assert [type(e) for e in step.events] == [OffScreen] and s.failed is None


def test_matches_read_at_once_keep_their_numbers() -> None:
    # A busy watcher reads match 1's end and match 2's start in one poll: the
    # state has moved on to match 2, and match 1 is still printed as match 1.
    s = watching()
    events = [*s.receive(MatchMsg(0, *ANN_BEN, CONFIG), 1.0).events]
    for ply, (col, shape) in enumerate(WON):
        events += s.receive(Played(ply, col, shape, 0.0), 1.0).events
    events += s.receive(Finished(0, result(WON, Winner.WHITE, LINE, names=ANN_BEN), CONFIG),
                        2.0).events
    events += s.receive(AFTER_ONE, 2.0).events
    events += s.receive(MatchMsg(1, "Cid", "Ann", CONFIG), 2.0).events
    assert s.index == 1 and s.failed is None
    out = io.StringIO()
    listener = ConsoleListener(out)
    for event in events:
        _say(event, listener, 6, out)
    text = out.getvalue()
    assert text.index("Match 1 of 6: Ann (White) vs Ben (Red)") < text.index("Game Over") \
        < text.index("Standings after 1 of 6") < text.index("Match 2 of 6: Cid (White) vs Ann")
    assert text.count("Match 1 of 6") == text.count("Match 2 of 6") == 1


@pytest.mark.parametrize("off_screen", [False, True])
@pytest.mark.parametrize("solution, says", [
    (((3, 0), (3, 1), (3, 2)), "a winning line through an empty cell (row 3, column 0)"),
    (((0, 0), (1, 0), (2, 0)), "a winning line through an empty cell (row 2, column 0)"),
    (((0, 0), (0, 1), (1, 1)), "a winning line whose cells are not in a row"),
    ((), "a winning line of 0 cells on a board of 3 in a row"),
])
def test_a_winning_line_must_be_on_the_board(off_screen: bool,
                                             solution: tuple[tuple[int, int], ...],
                                             says: str) -> None:
    s = watching()
    if not off_screen:
        on_screen(s)
    res = result(WON, Winner.WHITE, solution, names=ANN_BEN)
    message = failure(s.receive(Finished(0, res, CONFIG), 2.0))
    assert message == f"the broadcast contradicted the tournament: {says}"


def test_a_result_of_other_moves_or_a_forfeit_of_a_won_game() -> None:
    s = watching()
    on_screen(s, WON[:4])
    res = result(WON, Winner.WHITE, LINE, names=ANN_BEN)
    assert "a result of 5 moves where 4 were played" in failure(
        s.receive(Finished(0, res, CONFIG), 2.0))
    s = watching()
    forfeit = result(WON, Winner.RED, forfeit=ForfeitReason.TIMEOUT, names=("Cid", "Ben"))
    assert "a forfeit after the game was over on the board" in failure(
        s.receive(Finished(2, forfeit, CONFIG), 2.0))
    s = watching()
    illegal = result(WON, Winner.WHITE, LINE, names=ANN_BEN)
    moves = list(illegal.moves)
    moves[1], moves[2] = moves[2], moves[1]  # a White move where Red was to move
    assert "move 2 is Red's round at column 1" in failure(
        s.receive(Finished(2, replace(illegal, moves=tuple(moves)), CONFIG), 2.0))


def test_a_forfeit_off_the_board_is_taken() -> None:
    s = watching()
    res = result(WON[:2], Winner.WHITE, forfeit=ForfeitReason.SETUP, names=("Cid", "Ann"))
    s.receive(Finished(4, res, CONFIG), 1.0)
    assert s.failed is None


@pytest.mark.parametrize("msg, says", [
    (standings(1, (0, "Ann", 999_999_999, 1, 0, 0), (0, "Ann", -999_999_999, 0, 0, 1)),
     "standings naming Ann twice"),
    (standings(1, (0, "Ann", 3, 1, 0, 0), (0, "Ben", 0, 0, 0, 1)),
     "standings naming player 1 twice"),
    (standings(1, (0, "Ann", 999_999_999, 1, 0, 0), (1, "Ben", 0, 0, 0, 1), (2, "Cid", 0, 0, 0, 0)),
     "standings giving Ann 999999999 points for 1 matches"),
    (standings(1, (0, "Ann", 1001, 1, 0, 0), (1, "Ben", 0, 0, 0, 1), (2, "Cid", 0, 0, 0, 0)),
     "standings giving Ann 1001 points for 1 matches"),
    (standings(1, (0, "Ann", 6, 2, 0, 0), (1, "Ben", 0, 0, 0, 1), (2, "Cid", 0, 0, 0, 1)),
     "standings where Ann played 2 of 1 matches"),
    (standings(1, (0, "Ann", 3, 1, 0, 0), (1, "Ben", 3, 1, 0, 0), (2, "Cid", 0, 0, 0, 0)),
     "standings of 2 wins, 0 losses and 2 games played after 1 matches"),
    (standings(2, (0, "Ann", 3, 1, 0, 0), (1, "Ben", 0, 0, 0, 1), (2, "Cid", 0, 0, 0, 0)),
     "standings of 1 wins, 1 losses and 2 games played after 2 matches"),
    (standings(7), "standings after 7 of 6 matches"),
    (standings(1, (5, "Eve", 0, 0, 0, 0)), "standings of player 6 of 3"),
])
def test_standings_that_cannot_be(msg: StandingsMsg, says: str) -> None:
    message = failure(watching().receive(msg, 1.0))
    assert message == f"the broadcast contradicted the tournament: {says}"


def test_standings_go_forward_only() -> None:
    s = watching()
    s.receive(AFTER_ONE, 1.0)
    assert "standings after 0 matches once 1 were played" in failure(s.receive(ZERO, 2.0))
    s = watching()
    s.receive(standings(1, (0, "Ann", 3, 1, 0, 0), (1, "Ben", 0, 0, 0, 1), (2, "Cid", 0, 0, 0, 0),
                        final=True), 1.0)
    assert s.finished and not s.receive(ZERO, 2.0).events  # nothing is read after the end


def test_negative_points_within_the_bounds_are_taken() -> None:
    s = watching()
    s.receive(standings(1, (2, "Cid", 0, 0, 0, 0), (0, "Ann", -1, 1, 0, 0),
                        (1, "Ben", -1000, 0, 0, 1)), 1.0)
    assert s.failed is None


def test_an_answer_must_come_within_the_connect_timeout_pings_or_not() -> None:
    s = WatchState(0.0, connect_timeout=10.0, where="h:1")
    assert s.receive(Ping(), 5.0).send == [Pong()]
    assert not s.tick(9.9).events
    assert failure(s.tick(10.0)) == "cannot watch h:1: no answer within 10 s"


def test_a_silent_broadcast_is_left() -> None:
    s = watching()
    s.receive(Ping(), 5.0)
    assert not s.tick(35.0).events
    assert "no word from it for 30 s" in failure(s.tick(35.01))


def test_a_hosted_match_is_handed_over_and_refusals_are_said() -> None:
    s = WatchState(0.0)
    step = s.receive(Welcome(1, "spectator", None, CONFIG, NAMES, (True, True), ()), 0.5)
    assert step.events == [HostedMatch()] and step.hangup and s.finished
    s = WatchState(0.0, where="h:1")
    assert failure(s.receive(ErrorMsg("no room for more spectators (at most 8)"), 0.5)) == \
        "cannot watch h:1: no room for more spectators (at most 8)"
    s = WatchState(0.0)
    assert "the first message must be a tournament or a welcome" in failure(
        s.receive(Played(0, 0, R, 0.0), 0.5))
    assert "the broadcast sent a wrong message: not JSON" in failure(
        WatchState(0.0).malformed("not JSON", 0.1))
