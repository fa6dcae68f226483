"""The joiner's state machine (csl_game.online.joiner) with no sockets at all:
made-up host messages and a made-up clock. It takes nothing from the host that
its own board contradicts (a move it never sent, a rewritten history, a colour
it did not ask for, a result the board does not show, a forfeit its side could
not have come to), waits for a welcome only so long, and reconnects backing off
within the reconnect window counted from the loss."""

from __future__ import annotations

import random

import pytest

from csl_game.engine import (
    BoardUpdated,
    ForfeitReason,
    InvalidPlay,
    MatchOver,
    MatchResult,
    MatchStarted,
    MovePerformed,
    NextTurn,
)
from csl_game.errors import InvalidMoveError
from csl_game.model.board import PColor, PShape, Winner
from csl_game.online.joiner import (
    ALIVE_S,
    Back,
    Failed,
    JoinerState,
    Lost,
    Phase,
    Step,
    backoff,
    is_definitive,
)
from csl_game.online.protocol import (
    ErrorMsg,
    Hello,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    Result,
    Welcome,
)
from csl_game.thinker.api import MatchConfig
from hostile_host import CONFIG, NAMES, board_of, result

pytestmark = pytest.mark.unit

R, S = PShape.ROUND, PShape.SQUARE
WHITE, RED = PColor.WHITE, PColor.RED
RED_AI = Hello(1, "player", "secret99", "Bob", "ai", RED)
RED_HUMAN = Hello(1, "player", "secret99", "Bob", "human", RED)
SPECTATOR = Hello(1, "spectator")
Moves = tuple[tuple[int, PShape], ...]


def welcome(color: PColor | None = RED, moves: Moves = (), names: tuple[str, str] = NAMES,
            humans: tuple[bool, bool] = (False, False), config: MatchConfig = CONFIG,
            version: int = 1, role: str = "player") -> Welcome:
    return Welcome(version, role if color is not None else "spectator", color, config, names,
                   humans, tuple((c, s, 0.001) for c, s in moves))


def state(hello: Hello = RED_AI, now: float = 0.0, **kw: object) -> JoinerState:
    return JoinerState(hello, now, rng=random.Random(7), **kw)  # type: ignore[arg-type]


def joined(moves: Moves = (), hello: Hello = RED_AI, humans: tuple[bool, bool] = (False, False),
           config: MatchConfig = CONFIG, **kw: object) -> JoinerState:
    """A joiner welcomed at time 0 to a game of `moves`."""
    s = state(hello, **kw)
    step = s.receive(welcome(None if hello.role == "spectator" else RED, moves,
                             humans=humans, config=config), 0.0)
    assert s.failed is None and s.phase is Phase.PLAYING, step.events
    return s


def failure(step: Step[object]) -> str:
    failed = [e for e in step.events if isinstance(e, Failed)]
    assert failed, f"no failure in {step.events}"
    assert step.hangup
    return failed[0].message


def play(s: JoinerState, *moves: tuple[int, PShape], now: float = 0.0) -> None:
    """The host reports `moves`, this side sending its own first."""
    for col, shape in moves:
        assert s.board is not None
        if s.awaiting_move:
            s.move(col, shape)
        step = s.receive(Played(s.board.move_count, col, shape, 0.001), now)
        assert s.failed is None, step.events


# ---------------------------------------------------------------------- the welcome
def test_a_welcome_starts_the_game_as_the_host_has_it() -> None:
    s = state()
    step = s.receive(welcome(moves=((0, R),)), 0.0)
    assert [type(e) for e in step.events] == [MatchStarted, BoardUpdated, NextTurn]
    assert s.color is RED and s.board == board_of(((0, R),)) and s.awaiting_move


def test_a_white_player_welcomed_as_a_spectator_is_taken_by_its_colour() -> None:
    """csl-game's host names the role of a player seated as White 'spectator'."""
    s = state(Hello(1, "player", "secret99", "Bob", "ai", WHITE))
    s.receive(welcome(WHITE, role="spectator"), 0.0)
    assert s.failed is None and s.color is WHITE and s.awaiting_move


@pytest.mark.parametrize("hello, msg, says", [
    (RED_AI, welcome(WHITE), "a welcome to play White, not Red as asked"),
    (RED_AI, welcome(None), "a welcome to play no colour"),
    (SPECTATOR, welcome(RED), "a welcome as a player (Red) to a spectator"),
    (Hello(1, "player", "c0de", "Bob", "ai", None, {"rows": 6}), welcome(RED),
     "a game of rows 4, not 6 as asked"),
    (RED_AI, welcome(humans=(False, True)), "your player (ai) is a human"),
    (RED_HUMAN, welcome(humans=(False, False)), "your player (human) is an AI"),
    (RED_AI, welcome(version=2), "protocol version 2"),
    (RED_AI, welcome(moves=((0, R), (0, S)) * 2 + ((0, R),)), "an illegal move 5, round at "
     "column 0: the column is full"),
])
def test_a_welcome_that_does_not_answer_the_hello_ends_the_game(hello: Hello, msg: Welcome,
                                                               says: str) -> None:
    s = state(hello)
    message = failure(s.receive(msg, 0.0))
    assert says in message and s.refused and s.finished, message


def test_nothing_but_a_welcome_may_come_first_and_only_once() -> None:
    assert "a 'played' message before the welcome" in failure(
        state().receive(Played(0, 0, R, 0.0), 0.0))
    s = joined()
    assert "a second welcome on one connection" in failure(s.receive(welcome(), 1.0))


def test_pings_are_answered() -> None:
    assert state().receive(Ping(), 1.0).send == [Pong()]
    assert joined().receive(Ping(), 1.0).send == [Pong()]


# ---------------------------------------------------------------------- moves
def test_a_move_must_be_the_one_due_and_legal() -> None:
    assert "move 2 came when move 1 was due" in failure(
        joined().receive(Played(1, 0, R, 0.0), 1.0))
    assert "an illegal move 1, round at column 9: the column does not exist" in failure(
        joined().receive(Played(0, 9, R, 0.0), 1.0))


def test_a_move_of_this_side_it_never_sent_ends_the_game() -> None:
    s = joined(((0, R),))
    message = failure(s.receive(Played(1, 2, S, 0.0), 1.0))
    assert message == ("the host contradicted the game: move 2, your side's (Red), is square "
                       "at column 2, which you never sent")


def test_a_move_of_this_side_other_than_sent_ends_the_game() -> None:
    s = joined(((0, R),))
    assert s.move(2, S).send == [MoveMsg(1, 2, S)]
    assert not s.awaiting_move
    message = failure(s.receive(Played(1, 3, S, 0.0), 1.0))
    assert "move 2, your side's (Red), is square at column 3, not the square at column 2 " \
        "you sent" in message


def test_the_move_this_side_sent_is_played() -> None:
    s = joined(((0, R),))
    s.move(2, S)
    step = s.receive(Played(1, 2, S, 0.5), 1.0)
    assert [type(e) for e in step.events] == [MovePerformed, BoardUpdated, NextTurn]
    performed = step.events[0]
    assert isinstance(performed, MovePerformed) and performed.color is RED


def test_own_moves_are_checked_here_first() -> None:
    s = joined()
    with pytest.raises(InvalidMoveError, match="not your turn"):
        s.move(0, R)
    s = joined(((0, R),))
    with pytest.raises(InvalidMoveError, match="column does not exist"):
        s.move(7, S)
    assert s.awaiting_move


def test_a_spectator_takes_every_legal_move() -> None:
    s = joined(hello=SPECTATOR)
    for ply, col in enumerate([0, 1, 0, 1]):
        s.receive(Played(ply, col, R if ply % 2 == 0 else S, 0.0), 1.0)
    assert s.failed is None and s.ply == 4 and not s.awaiting_move


def test_a_move_in_the_same_read_as_a_reconnects_welcome_is_played() -> None:
    """The driver feeds every message of a read: the one after the welcome too."""
    s = joined(((0, R),))
    s.move(1, S)
    s.lost("reset", 1.0)
    s.tick(1.0)
    s.receive(welcome(moves=((0, R), (1, S))), 1.1)
    s.receive(Played(2, 2, R, 0.0), 1.1)
    assert s.ply == 3 and s.awaiting_move


# ---------------------------------------------------------------------- reconnecting
def reconnecting(moves: Moves = ((0, R), (1, S)), now: float = 10.0) -> JoinerState:
    """A joiner that played `moves` (its own as it sent them) and lost the connection."""
    s = joined()
    play(s, *moves)
    step = s.lost("reset by peer", now)
    assert [type(e) for e in step.events] == [Lost] and step.connect  # at once
    assert s.phase is Phase.REJOINING
    return s


@pytest.mark.parametrize("msg, says", [
    (welcome(moves=((2, R), (1, S))), "a reconnect's welcome whose move 1 is round at column 2, "
     "not round at column 0 as played"),
    (welcome(moves=((0, R),)), "a reconnect's welcome of 1 moves where 2 were played"),
    (welcome(moves=((0, R), (1, S)), names=("Host", "Eve")), "a game of Host against Eve"),
    (welcome(moves=((0, R), (1, S)), config=MatchConfig(rows=4, cols=4, win_sequence=3,
                                                        time_limit_ms=200)), "other settings"),
    (welcome(WHITE, moves=((0, R), (1, S))), "a welcome to play White, not Red as asked"),
    (welcome(moves=((0, R), (1, S), (0, R), (2, S))), "move 4, your side's (Red), is square "
     "at column 2, which you never sent"),
])
def test_a_reconnects_welcome_must_extend_the_game_as_it_stood(msg: Welcome, says: str) -> None:
    s = reconnecting()
    message = failure(s.receive(msg, 10.1))
    assert says in message, message


def test_a_reconnects_welcome_brings_the_moves_made_meanwhile() -> None:
    s = reconnecting()
    step = s.receive(welcome(moves=((0, R), (1, S), (3, R))), 10.1)
    assert isinstance(step.events[0], Back) and s.ply == 3 and s.awaiting_move
    assert any(isinstance(e, MovePerformed) for e in step.events)


def test_a_move_sent_before_a_drop_may_be_sent_again_and_either_is_taken() -> None:
    s = joined(((0, R),))
    s.move(1, S)
    s.lost("reset", 5.0)
    s.receive(welcome(moves=((0, R),)), 5.1)  # it did not arrive: asked again
    assert s.awaiting_move
    s.move(2, S)
    s.receive(Played(1, 1, S, 0.0), 5.2)  # the first one had arrived after all
    assert s.failed is None and s.ply == 2


# ---------------------------------------------------------------------- results
def test_a_result_of_moves_never_played_ends_the_game() -> None:
    s = joined()
    message = failure(s.receive(Result(result(((0, R),), Winner.WHITE), CONFIG), 1.0))
    assert "a result of 1 moves where 0 were played (they differ from move 1)" in message


WON = ((0, R), (0, S), (1, R), (1, S), (2, R))  # White: round pieces on row 0, columns 0-2


@pytest.mark.parametrize("solution, says", [
    (((3, 0), (3, 1), (3, 2)), "a winning line through an empty cell (row 3, column 0)"),
    (((1, 0), (1, 1), (0, 2)), "a winning line whose cells are not in a row"),
    (((1, 0), (1, 1)), "a winning line of 2 cells on a board of 3 in a row"),
    (((0, 0), (1, 0), (2, 0)), "a winning line through an empty cell (row 2, column 0)"),
    (((1, 0), (1, 1), (1, 2)), "an empty cell"),
    (((0, 1), (0, 2), (0, 3)), "an empty cell"),
    (((0, 2), (0, 3), (0, 4)), "off the board"),
])
def test_a_win_must_be_on_the_board(solution: tuple[tuple[int, int], ...], says: str) -> None:
    s = joined()
    play(s, *WON)
    assert s.board is not None and s.board.check_winner() is Winner.WHITE
    message = failure(s.receive(Result(result(WON, Winner.WHITE, solution), CONFIG), 1.0))
    assert says in message, message


def test_a_winning_line_of_the_losers_pieces_ends_the_game() -> None:
    moves = ((0, R), (0, S), (1, R), (0, S), (2, R))  # column 0: White's round, Red's squares
    s = joined()
    play(s, *moves)
    assert s.board is not None and s.board.check_winner() is Winner.WHITE  # row 0: 0, 1, 2
    message = failure(s.receive(Result(result(moves, Winner.WHITE, ((0, 0), (1, 0), (2, 0))),
                                       CONFIG), 1.0))
    assert "a winning line of White through pieces that are not White's" in message


def test_a_win_the_board_does_not_show_ends_the_game() -> None:
    s = joined()
    play(s, (0, R), (1, S))
    message = failure(s.receive(Result(result(((0, R), (1, S)), Winner.RED,
                                              ((0, 0), (0, 1), (0, 2))), CONFIG), 1.0))
    assert "a result of 'red' on a board that shows no winner yet" in message


def test_the_win_the_board_shows_ends_the_match() -> None:
    s = joined()
    play(s, *WON)
    step = s.receive(Result(result(WON, Winner.WHITE, ((0, 0), (0, 1), (0, 2))), CONFIG), 1.0)
    assert [type(e) for e in step.events] == [MatchOver] and s.outcome is not None
    assert s.finished and s.phase is Phase.OVER


def test_a_game_that_ended_while_away_ends_with_the_result_told_on_the_reconnect() -> None:
    """The host's result went out on a connection that had died without a word;
    the reconnect's welcome holds the whole game and the result follows: it is
    the game's, and the joiner hangs up (which tells the host it arrived)."""
    s = reconnecting(((0, R), (0, S), (1, R), (1, S)))
    s.receive(welcome(moves=WON), 10.1)
    step = s.receive(Result(result(WON, Winner.WHITE, ((0, 0), (0, 1), (0, 2))), CONFIG), 10.1)
    assert s.phase is Phase.OVER and s.outcome is not None and step.hangup
    assert isinstance(step.events[-1], MatchOver) and s.failed is None


def test_a_draw_must_be_a_finished_board() -> None:
    few = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=1, square_pieces=1,
                      time_limit_ms=200)
    moves = ((0, R), (3, S), (1, S), (3, R))  # no pieces left, no line
    s = joined(config=few)
    play(s, *moves[:3])
    early = result(moves[:3], Winner.DRAW, config=few)
    assert "a result of 'draw' on a board that shows no winner yet" in failure(
        s.receive(Result(early, few), 1.0))
    s = joined(config=few)
    play(s, *moves)
    s.receive(Result(result(moves, Winner.DRAW, config=few), few), 1.0)
    assert s.outcome is not None and s.failed is None


def test_a_result_of_other_players_or_settings_ends_the_game() -> None:
    s = joined()
    play(s, *WON)
    other = result(WON, Winner.WHITE, ((0, 0), (0, 1), (0, 2)), names=("Host", "Eve"))
    assert "a result of Host against Eve" in failure(s.receive(Result(other, CONFIG), 1.0))


def forfeited(loser: PColor, reason: ForfeitReason | None, moves: Moves,
              resigned: bool = False) -> Result:
    history = result(moves, Winner.NONE).moves
    return Result(MatchResult(loser.other.winner, *NAMES, (), reason, "", history, resigned),
                  CONFIG)


@pytest.mark.parametrize("hello, humans, moves, loser, reason, resigned, says", [
    # this side (Red, an AI) forfeits only by time, by leaving, or as it said itself
    (RED_AI, (False, False), ((0, R),), RED, ForfeitReason.EXCEPTION, False,
     "a forfeit of your side (exception: raised an exception) that your side never reported"),
    (RED_AI, (False, False), ((0, R),), RED, ForfeitReason.FULL_COLUMN, False,
     "never reported"),
    (RED_AI, (False, False), ((0, R), (1, S)), RED, ForfeitReason.TIMEOUT, False,
     "a forfeit of Red (timeout) when White was to move"),
    (RED_HUMAN, (False, True), ((0, R),), RED, ForfeitReason.TIMEOUT, False,
     "a time-out of Red, a human, who is never timed"),
    # the host's side cannot leave; its human only resigns
    (RED_AI, (False, False), ((0, R),), WHITE, ForfeitReason.DISCONNECTED, False,
     "a forfeit of White, the host's side, for leaving the game"),
    (RED_AI, (True, False), (), WHITE, ForfeitReason.EXCEPTION, False,
     "a forfeit of White, the host's human (exception), who can only resign"),
    (RED_AI, (False, False), (), WHITE, None, True, "a resignation of White, who is not a human"),
    (RED_HUMAN, (True, True), ((0, R),), RED, None, True,
     "a resignation of Red, your side, which did not resign"),
])
def test_a_made_up_forfeit_ends_the_game(hello: Hello, humans: tuple[bool, bool], moves: Moves,
                                         loser: PColor, reason: ForfeitReason | None,
                                         resigned: bool, says: str) -> None:
    s = joined(hello=hello, humans=humans)
    play(s, *moves)
    message = failure(s.receive(forfeited(loser, reason, moves, resigned), 1.0))
    assert says in message, message


@pytest.mark.parametrize("humans, moves, loser, reason, resigned", [
    ((False, False), ((0, R),), RED, ForfeitReason.TIMEOUT, False),
    ((False, False), ((0, R), (1, S)), RED, ForfeitReason.DISCONNECTED, False),
    ((False, False), (), WHITE, ForfeitReason.EXCEPTION, False),
    ((False, False), ((0, R), (1, S)), WHITE, ForfeitReason.MEMORY, False),
    ((True, False), ((0, R),), WHITE, None, True),
])
def test_a_forfeit_that_can_be_is_the_result(humans: tuple[bool, bool], moves: Moves,
                                             loser: PColor, reason: ForfeitReason | None,
                                             resigned: bool) -> None:
    s = joined(humans=humans)
    play(s, *moves)
    step = s.receive(forfeited(loser, reason, moves, resigned), 1.0)
    assert s.failed is None and s.outcome is not None
    assert isinstance(step.events[-1], MatchOver)
    assert [type(e) for e in step.events[:-1]] == ([InvalidPlay] if reason else [])


def test_the_forfeit_this_side_reported_is_the_result() -> None:
    s = joined(((0, R),))
    s.forfeit(ForfeitReason.EXCEPTION, "Traceback ...")
    s.receive(forfeited(RED, ForfeitReason.EXCEPTION, ((0, R),)), 1.0)
    assert s.failed is None and s.outcome is not None


def test_a_forfeit_after_the_game_was_won_ends_the_game() -> None:
    s = joined()
    play(s, *WON)
    message = failure(s.receive(forfeited(RED, ForfeitReason.DISCONNECTED, WON), 1.0))
    assert "a forfeit after the game was over on the board" in message


# ---------------------------------------------------------------------- bounds
def test_a_welcome_must_come_within_the_connect_timeout_pings_or_not() -> None:
    s = state(connect_timeout=10.0)
    for t in range(1, 10):
        assert s.receive(Ping(), float(t)).send == [Pong()]
        assert not s.tick(t + 0.5).events
    assert s.next_deadline() == 10.0
    message = failure(s.tick(10.0))
    assert message == "cannot join the host: no welcome within 10 s"


def test_a_first_join_ends_at_its_first_failure() -> None:
    assert failure(state(where="h:1").lost("connection refused", 0.1)) == \
        "cannot join h:1: connection refused"
    s = state(where="h:1")
    assert failure(s.receive(ErrorMsg("the seat is taken: a player is playing already"), 0.1)) \
        == "cannot join h:1: the seat is taken: a player is playing already"
    assert s.refused


def test_a_line_that_is_no_message_ends_the_game() -> None:
    s = joined()
    assert "no message of the protocol: a line that is not JSON" in failure(
        s.malformed("a line that is not JSON", 1.0))
    assert s.refused and not s.tick(100.0).connect


def connect_times(s: JoinerState, start: float, end: float, welcome_each: bool = False,
                  dt: float = 0.01) -> tuple[list[float], float | None]:
    """Tick from `start` to `end`; every new connection fails at once (or is
    welcomed to the game as it stands and then lost, with `welcome_each`).
    The times of the connections opened, and when the joiner gave up."""
    times: list[float] = []
    t = start
    while t < end:
        step = s.tick(t)
        if step.connect:
            times.append(t)
            if welcome_each:
                assert s.board is not None
                moves = tuple((m.col, m.piece.shape) for m in s.board.history)
                s.receive(welcome(moves=moves), t)
                assert s.failed is None and s.phase is Phase.PLAYING
            s.lost("the host closed the connection", t)
        if s.failed is not None:
            return times, t
        t = round(t + dt, 6)
    return times, None


def test_reconnects_back_off_with_jitter_and_stop_at_the_window() -> None:
    s = reconnecting(now=100.0)  # the first try was at once
    s.lost("connection refused", 100.0)
    times, gave_up = connect_times(s, 100.0, 300.0)
    gaps = [b - a for a, b in zip([100.0, *times], times)]
    for gap, nominal in zip(gaps, [1, 2, 4, 8, 8, 8, 8, 8]):
        assert 0.75 * nominal - 0.02 <= gap <= 1.25 * nominal + 0.02, gaps
    assert len(set(round(g / n, 2) for g, n in zip(gaps, [1, 2, 4, 8, 8]))) > 1, "jittered"
    assert gave_up is not None and 220.0 <= gave_up < 220.05  # counted from the loss
    assert s.failed == ("the host did not come back within 120 s (the host closed the "
                        "connection)")
    assert len(times) <= 18


@pytest.mark.parametrize("retry_for, most", [(5.0, 3), (30.0, 6)])
def test_the_window_counts_from_the_loss_through_welcomes(retry_for: float, most: int) -> None:
    """A host that welcomes and then drops the connection, again and again:
    the welcomes do not end the loss, the tries back off, the window ends it."""
    s = joined(((0, R),), retry_for=retry_for)
    assert s.lost("reset", 50.0).connect  # the first try, at once
    s.receive(welcome(moves=((0, R),)), 50.0)
    s.lost("the host closed the connection", 50.0)
    times, gave_up = connect_times(s, 50.0, 50.0 + 3 * retry_for, welcome_each=True)
    assert gave_up == pytest.approx(50.0 + retry_for, abs=0.02)
    assert 1 <= len(times) <= most, times  # then after 1, 2, 4, 8, 8 ... s


def test_a_move_after_a_reconnect_ends_the_loss() -> None:
    s = reconnecting(now=10.0)
    s.receive(welcome(moves=((0, R), (1, S))), 10.1)
    assert s.recovering
    s.receive(Played(2, 2, R, 0.0), 11.0)
    assert not s.recovering
    step = s.lost("reset", 500.0)  # a new loss, a new window
    assert step.connect and s.failed is None


def test_the_host_heard_for_a_while_after_a_reconnect_ends_the_loss() -> None:
    s = reconnecting(now=10.0)
    s.receive(welcome(moves=((0, R), (1, S))), 10.0)
    for t in (15.0, 19.9):
        s.receive(Ping(), t)
        assert s.recovering and not s.tick(t).events
    s.receive(Ping(), 10.0 + ALIVE_S)
    assert not s.recovering


def test_silence_while_recovering_is_a_loss_again() -> None:
    s = reconnecting(now=10.0)
    s.receive(welcome(moves=((0, R), (1, S))), 10.0)
    assert not s.tick(10.0 + ALIVE_S).events
    step = s.tick(10.0 + ALIVE_S + 0.01)
    assert [type(e) for e in step.events] == [Lost] and step.hangup
    assert "no word from the host for 10 s" in step.events[0].why  # type: ignore[union-attr]


def test_a_silent_host_is_lost_after_the_idle_timeout() -> None:
    s = joined(idle_timeout=30.0)
    s.receive(Ping(), 5.0)
    assert not s.tick(35.0).events
    step = s.tick(35.01)
    assert isinstance(step.events[0], Lost) and step.hangup and step.connect


def test_a_rejoin_must_be_welcomed_within_the_connect_timeout_and_the_window() -> None:
    s = reconnecting(now=10.0)  # connecting again at 10
    s.receive(Ping(), 15.0)
    assert not s.tick(19.99).events and s.phase is Phase.REJOINING
    step = s.tick(20.0)
    assert step.hangup and s.phase is Phase.AWAY and s.failed is None
    s = JoinerState(RED_AI, 0.0, retry_for=4.0)
    s.receive(welcome(), 0.0)
    s.lost("reset", 1.0)
    assert s.phase is Phase.REJOINING
    assert failure(s.tick(5.0)) == "the host did not come back within 4 s (no welcome within 4 s)"


@pytest.mark.parametrize("refusal", ["the seat is taken: a player is playing already",
                                     "too many connections are waiting; try again later",
                                     "no word from you for 30 s"])
def test_a_refusal_while_rejoining_is_tried_again(refusal: str) -> None:
    s = reconnecting(now=10.0)
    step = s.receive(ErrorMsg(refusal), 10.1)
    assert step.hangup and not step.events and s.phase is Phase.AWAY
    t = 10.1
    while not s.tick(t).connect:
        t = round(t + 0.01, 6)
    assert 10.8 <= t <= 11.4 and s.phase is Phase.REJOINING  # after 1 s, ±25 %
    step = s.receive(welcome(moves=((0, R), (1, S))), t)
    assert isinstance(step.events[0], Back) and s.failed is None


@pytest.mark.parametrize("refusal", [
    "wrong join code", "this host speaks protocol version 1 (csl-game 1.0), not version 2",
    "board settings differ from the host's game: rows 7 (the host's: 6)",
    "the host plays Red: you would play White, not Red", "the game is over"])
def test_a_definitive_refusal_while_rejoining_ends_the_game(refusal: str) -> None:
    assert is_definitive(refusal)
    s = reconnecting(now=10.0)
    assert failure(s.receive(ErrorMsg(refusal), 10.1)).endswith(refusal)
    assert s.refused


def test_backoff() -> None:
    rng = random.Random(1)
    assert backoff(0, rng) == 0.0
    for failures, nominal in [(1, 1), (2, 2), (3, 4), (4, 8), (5, 8), (40, 8)]:
        delays = [backoff(failures, rng) for _ in range(50)]
        assert all(0.75 * nominal <= d <= 1.25 * nominal for d in delays)
        assert max(delays) - min(delays) > 0.2 * nominal


def test_paused_and_resumed_are_told() -> None:
    s = joined(hello=SPECTATOR)
    assert s.receive(Paused("Bob"), 1.0).events and s.paused
