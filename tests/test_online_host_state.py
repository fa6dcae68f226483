"""The host's state machine (csl_game.online.hosting) with no sockets at all:
peers made up as numbers, their bytes made up, a made-up clock. A player
joins with the code and plays a whole game judged by the ordinary match; a
wrong code is refused and a guesser slowed; a dropped player gets its seat
back mid-game and the move it sends right after the welcome is played; a
hostile peer is closed and the seated player plays on; silence is an end,
pings keep the peers talking, and a seat left empty may be claimed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from csl_game.engine import (
    ForfeitReason,
    Human,
    MatchEvent,
    MatchOver,
    MoveAnswer,
    ThinkerRunner,
    ThinkJob,
    ThinkOutcome,
)
from csl_game.errors import NetworkError
from csl_game.model.board import Board, PColor, PShape, Winner
from csl_game.online.door import HostLimits, TurnedAway
from csl_game.online.guard import TOLD, WRONG_CODES
from csl_game.online.hosting import (
    ClaimOffered,
    HostState,
    HostStep,
    PeerRole,
    PlayerBack,
    PlayerJoined,
    PlayerLeft,
)
from csl_game.online.protocol import (
    MAX_LINE,
    ClientMessage,
    ErrorMsg,
    ForfeitMsg,
    Hello,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    Result,
    Resumed,
    Welcome,
    encode,
)
from csl_game.thinker.prototype import ThinkerPrototype
from hostile_host import CONFIG

pytestmark = pytest.mark.unit

R, S = PShape.ROUND, PShape.SQUARE
WHITE, RED = PColor.WHITE, PColor.RED
CODE = "secret99"
HOME, AWAY = "192.0.2.1", "198.51.100.7"
BOB = Hello(1, "player", CODE, "Bob", "human")
BOB_AI = Hello(1, "player", CODE, "Bob", "ai")
SPECTATOR = Hello(1, "spectator")
WON = ((0, R), (0, S), (1, R), (1, S), (2, R))  # White: round pieces on row 0, columns 0-2


def host(limits: HostLimits = HostLimits(), **kw: object) -> HostState:
    return HostState(CONFIG, Human(), "Alice", WHITE, CODE, 0.0, limits=limits,
                     **kw)  # type: ignore[arg-type]


def say(s: HostState, peer: int, now: float, *msgs: ClientMessage) -> HostStep:
    return s.receive_data(peer, b"".join(encode(m) for m in msgs), now)


def come(s: HostState, peer: int, now: float, hello: Hello = BOB,
         address: str = HOME) -> HostStep:
    """`peer` connects from `address` and says `hello` at once."""
    first = s.connected(peer, address, f"{address}:{5000 + peer}", now)
    assert not first.close, first
    return say(s, peer, now, hello)


def seated(now: float = 0.0, hello: Hello = BOB, **kw: object) -> HostState:
    """A host whose seat `hello` took (peer 1) at `now`, the match started."""
    s = host(**kw)  # type: ignore[arg-type]
    step = come(s, 1, now, hello)
    [welcome] = step.to(1)
    assert isinstance(welcome, Welcome) and welcome.color is RED, step
    assert step.events == [PlayerJoined("Bob", RED)]
    s.tick(now)  # (the tick that seated it: the match waits, the joiner is told first)
    s.tick(now)
    return s


def board(s: HostState) -> Board:
    assert s.match is not None
    return s.match.board


def played(step: HostStep, peer: int) -> list[tuple[int, int, PShape]]:
    return [(m.ply, m.col, m.shape) for m in step.to(peer) if isinstance(m, Played)]


# ---------------------------------------------------------------------- joining
def test_a_player_with_the_code_takes_the_seat() -> None:
    s = host()
    step = come(s, 1, 0.5)
    [welcome] = step.to(1)
    assert welcome == Welcome(1, "player", RED, CONFIG, ("Alice", "Bob"), (True, True), ())
    assert s.seat is not None and s.seat.peer == 1 and s.role(1) is PeerRole.SEATED
    assert s.match is not None and not s.paused and not step.close


def test_a_whole_game_is_played_and_judged() -> None:
    s = seated()
    events: list[MatchEvent] = []
    s.subscribe(events.append)
    spectator = come(s, 2, 0.1, SPECTATOR)
    assert isinstance(spectator.to(2)[0], Welcome) and s.spectators == 1
    seen: list[tuple[int, int, PShape]] = []
    for ply, (col, shape) in enumerate(WON):
        now = 1.0 + ply
        if ply % 2 == 0:
            step = s.local_move(col, shape, now)
        else:
            say(s, 1, now, MoveMsg(ply, col, shape))
            step = s.tick(now)
        assert played(step, 1) == [(ply, col, shape)] == played(step, 2)
        seen += played(step, 1)
    assert s.is_over and len(seen) == 5
    [result] = [m for m in step.to(1) if isinstance(m, Result)]
    assert result.result.winner is Winner.WHITE and result == step.to(2)[-1]
    assert isinstance(events[-1], MatchOver) and events[-1].result == result.result
    assert come(s, 9, 9.0, SPECTATOR).closes(9) == "the game is over"


def test_a_thinkers_moves_are_sent_as_it_makes_them() -> None:
    """The host's side an AI (its runner made up: it answers at once)."""
    @dataclass(eq=False)
    class Ready(ThinkJob):
        col: int

        def poll(self) -> ThinkOutcome | None:
            return ThinkOutcome(MoveAnswer(self.col, int(R)), 0.01)

        def wait(self, timeout: float | None) -> ThinkOutcome | None:
            return self.poll()

        def cancel(self) -> None:
            pass

    class Rounds(ThinkerRunner):
        name = "Rounds"

        def start(self, board: Board) -> ThinkJob:
            return Ready(board.move_count // 2)

    s = HostState(CONFIG, ThinkerPrototype("sequential", "", CONFIG), "Rounds", WHITE, CODE,
                  0.0, runner_factory=lambda _p, _i: Rounds())
    come(s, 1, 0.0)
    assert s.tick(0.0).send == []  # the joiner is told first
    assert played(s.tick(0.1), 1) == [(0, 0, R)]
    say(s, 1, 0.2, MoveMsg(1, 3, S))
    assert played(s.tick(0.3), 1) == [(1, 3, S)]
    assert played(s.tick(0.4), 1) == [(2, 1, R)]


# ---------------------------------------------------------------------- the code
def test_a_wrong_code_is_refused_and_a_guesser_slowed() -> None:
    s = host()
    told: list[TurnedAway] = []
    for i in range(WRONG_CODES + 5):
        step = come(s, i + 1, 1.0, Hello(1, "player", f"guess{i:03d}", "Eve"), AWAY)
        told += [e for e in step.events if isinstance(e, TurnedAway)]
        says = step.closes(i + 1)
        assert says == "wrong join code" if i < WRONG_CODES else \
            (says or "").startswith("too many wrong join codes from your address: try again in")
    assert len(told) == TOLD and s.seat is None
    step = come(s, 50, 1.0, BOB, AWAY)  # the right code, unread
    assert (step.closes(50) or "").startswith("too many wrong join codes")
    assert come(s, 51, 1.0, BOB, HOME).closes(51) is None  # another address: seated
    assert s.seat is not None and s.seat.peer == 51
    summary = [e for e in s.tick(62.0).events if isinstance(e, TurnedAway) and e.peer == AWAY]
    assert [(e.peer, e.count) for e in summary] == [(AWAY, WRONG_CODES + 6 - TOLD)]


def test_a_guesser_gets_a_code_back_in_time() -> None:
    s = host()
    for i in range(WRONG_CODES):
        come(s, i + 1, 0.0, Hello(1, "player", "nottheone", "Eve"), AWAY)
    assert "too many wrong" in (come(s, 10, 1.0, BOB, AWAY).closes(10) or "")
    assert come(s, 11, 60 / WRONG_CODES + 0.1, BOB, AWAY).closes(11) is None


@pytest.mark.parametrize("hello, says", [
    (Hello(2, "player", CODE, "Bob"), "not version 2"),
    (Hello(1, "player", CODE, "Bob", color=WHITE), "the host plays White"),
    (Hello(1, "player", CODE, "Bob", settings={"rows": 7}),
     "board settings differ from the host's game: rows 7 (the host's: 4)"),
    (SPECTATOR, "the game has not begun"),
])
def test_a_hello_that_cannot_be_taken_is_refused(hello: Hello, says: str) -> None:
    s = host()
    assert says in (come(s, 1, 0.0, hello).closes(1) or "")
    assert s.seat is None and s.role(1) is None


# ---------------------------------------------------------------------- reconnecting
def _away(s: HostState, now: float) -> HostStep:
    step = s.closed(1, now)
    assert step.events == [PlayerLeft("Bob")] and s.paused
    return step


def test_a_dropped_player_comes_back_and_its_move_right_after_the_welcome_counts() -> None:
    s = seated()
    come(s, 2, 0.0, SPECTATOR)
    s.local_move(0, R, 1.0)
    assert [m for m in _away(s, 2.0).to(2)] == [Paused("Bob")]
    say(s, 2, 20.0, Pong())
    assert played(s.tick(20.0), 2) == [] and board(s).move_count == 1  # nothing moves meanwhile
    back = come(s, 3, 25.0)
    assert back.events == [PlayerBack("Bob")] and back.to(2) == [Resumed()]
    [welcome] = back.to(3)
    assert isinstance(welcome, Welcome) and welcome.moves == ((0, R, welcome.moves[0][2]),)
    assert welcome.waiting_for == "" and not s.paused
    step = say(s, 3, 25.0, MoveMsg(1, 2, S))  # in the same poll as the welcome
    assert not step.close
    assert played(s.tick(25.0), 3) == [(1, 2, S)]


def test_a_move_of_the_lost_connection_goes_with_it() -> None:
    """The move came, the connection dropped before it was played: the next
    connection on the seat is welcomed without it and its own move is the one
    played (it may be another player's program, which never sent the first)."""
    s = seated()
    s.local_move(0, R, 1.0)
    say(s, 1, 2.0, MoveMsg(1, 3, S))
    _away(s, 2.0)
    [welcome] = come(s, 3, 3.0).to(3)
    assert isinstance(welcome, Welcome) and len(welcome.moves) == 1
    step = say(s, 3, 3.0, MoveMsg(1, 1, S))
    assert not step.close
    assert played(s.tick(3.0), 3) == [(1, 1, S)]
    assert "not your turn" in (say(s, 3, 4.0, MoveMsg(1, 1, S)).closes(3) or "")


def test_a_silent_connection_gives_way_to_its_player_connecting_again() -> None:
    """A half-open connection says nothing: the seat's player, connecting again
    with the code, its name and kind, takes the seat from it once it has been
    silent `silent_after`; anyone else, or sooner, finds the seat taken."""
    s = seated(limits=HostLimits(silent_after=6.0))
    come(s, 2, 0.0, SPECTATOR)
    s.local_move(0, R, 1.0)
    assert "the seat is taken" in (come(s, 3, 5.9).closes(3) or "")
    assert "the seat is taken" in (come(s, 4, 7.0, Hello(1, "player", CODE, "Eve")).closes(4)
                                   or "")
    assert "the seat is taken" in (come(s, 5, 7.0, BOB_AI).closes(5) or "")
    back = come(s, 6, 7.0)
    assert back.closes(1) == "replaced: its player connected again" and not back.closes(6)
    assert [m for m in back.to(6) if isinstance(m, Welcome)] and back.to(2) == []
    assert not [e for e in back.events if isinstance(e, PlayerLeft | PlayerBack)]
    assert s.seat is not None and s.seat.peer == 6 and not s.paused
    assert say(s, 1, 7.1, MoveMsg(1, 0, S)).send == []  # the old one is not read any more
    say(s, 6, 7.2, MoveMsg(1, 2, S))
    assert played(s.tick(7.2), 6) == [(1, 2, S)]
    say(s, 6, 8.0, Pong())
    assert "the seat is taken" in (come(s, 7, 13.0).closes(7) or "")  # heard 5 s ago


def test_a_player_coming_back_after_the_end_is_told_the_result() -> None:
    """The result went out on a connection that had died without a word: the
    host owes it until a connection of the seat's closes after having it, and
    the player, connecting again, gets the whole game and the result."""
    s = seated()
    come(s, 2, 0.0, SPECTATOR)
    for ply, (col, shape) in enumerate(WON):
        if ply % 2 == 0:
            s.local_move(col, shape, 1.0 + ply)
        else:
            say(s, 1, 1.0 + ply, MoveMsg(ply, col, shape))
            s.tick(1.0 + ply)
    assert s.is_over and s.owes_result
    back = come(s, 3, 40.0)
    welcome, result = back.to(3)
    assert isinstance(welcome, Welcome) and len(welcome.moves) == len(WON)
    assert isinstance(result, Result) and result.result.winner is Winner.WHITE
    assert come(s, 4, 40.0, SPECTATOR).closes(4) == "the game is over"
    assert s.owes_result
    s.closed(3, 41.0)
    assert not s.owes_result


def test_a_result_confirmed_is_not_owed() -> None:
    s = seated()
    for ply, (col, shape) in enumerate(WON):
        if ply % 2 == 0:
            s.local_move(col, shape, 1.0 + ply)
        else:
            say(s, 1, 1.0 + ply, MoveMsg(ply, col, shape))
            s.tick(1.0 + ply)
    assert s.owes_result
    s.closed(1, 6.0)  # the joiner hung up once it had the result
    assert s.is_over and not s.owes_result


def test_the_game_clock_stops_while_the_seat_is_empty() -> None:
    s = seated(hello=BOB_AI)  # timed: 200 ms and 1000 ms for the network
    s.local_move(0, R, 0.0)
    _away(s, 0.5)
    s.tick(100.0)
    come(s, 3, 100.0, BOB_AI)
    s.tick(100.6)
    assert not s.is_over  # 1.1 s of the clock, not 100
    s.tick(101.0)
    assert s.is_over and s.match is not None and s.match.result is not None
    assert s.match.result.forfeit is ForfeitReason.TIMEOUT


def test_a_seat_left_empty_may_be_claimed() -> None:
    s = seated(limits=HostLimits(reconnect_timeout=5.0))
    come(s, 2, 0.0, SPECTATOR)
    with pytest.raises(NetworkError):
        s.claim(1.0)
    _away(s, 1.0)
    assert not s.claimable(5.0) and s.claimable(6.0)
    assert s.tick(6.0).events == [ClaimOffered("Bob", 5.0)]
    assert s.tick(7.0).events == []  # offered once
    step = s.claim(7.0)
    [result] = step.to(2)
    assert isinstance(result, Result) and result.result.forfeit is ForfeitReason.DISCONNECTED
    assert result.result.winner is Winner.WHITE and s.is_over


# ---------------------------------------------------------------------- hostile peers
@pytest.mark.parametrize("data, says", [
    (b"this is no message\n", "not understood"),
    (b"\xff\xfe\n", "not understood"),
    (b"x" * (MAX_LINE + 10), f"a line longer than {MAX_LINE} bytes"),
    (encode(SPECTATOR) + encode(Pong()) * 200, "too many messages"),
    (encode(Pong()), "the first message must be a hello"),
    (encode(BOB), "the seat is taken"),
    (encode(SPECTATOR) + encode(SPECTATOR), "hello was said already"),
    (encode(SPECTATOR) + encode(MoveMsg(1, 0, R)), "spectators cannot move"),
])
def test_a_hostile_peer_is_closed_and_the_player_plays_on(data: bytes, says: str) -> None:
    s = seated()
    s.local_move(0, R, 1.0)
    s.connected(7, AWAY, f"{AWAY}:666", 1.0)
    step = s.receive_data(7, data, 1.0)
    assert says in (step.closes(7) or ""), step
    assert [e.reason for e in step.events if isinstance(e, TurnedAway)] == [step.closes(7)]
    assert s.receive_data(7, encode(BOB), 1.1).send == []  # not read any more
    assert s.seat is not None and s.seat.peer == 1 and not s.paused
    say(s, 1, 2.0, MoveMsg(1, 1, S))
    assert played(s.tick(2.0), 1) == [(1, 1, S)]


@pytest.mark.parametrize("msg, says", [
    (MoveMsg(5, 0, R), "not your turn: 1 moves are played"),
    (MoveMsg(0, 0, R), "not your turn"),
    (ForfeitMsg(1, ForfeitReason.DISCONNECTED), "a player cannot say it left"),
])
def test_a_seated_player_out_of_turn_is_closed(msg: ClientMessage, says: str) -> None:
    s = seated()
    s.local_move(0, R, 1.0)
    assert says in (say(s, 1, 1.0, msg).closes(1) or "")
    assert s.paused and board(s).move_count == 1


def test_an_illegal_move_is_judged_by_the_match() -> None:
    s = seated()
    s.local_move(0, R, 1.0)
    say(s, 1, 1.0, MoveMsg(1, 9, S))
    s.tick(1.0)
    assert s.is_over and s.match is not None and s.match.result is not None
    assert s.match.result.winner is Winner.WHITE and s.match.result.forfeit is not None


def test_waiting_connections_are_bounded_in_all_and_by_address() -> None:
    s = host(HostLimits(max_pending=6, max_pending_per_address=2))
    steps = [s.connected(i, AWAY, f"{AWAY}:{i}", 0.0) for i in range(3)]
    assert "from your address" in (steps[2].closes(2) or "")
    steps = [s.connected(10 + i, f"203.0.113.{i}", "x", 0.0) for i in range(5)]
    assert [st.closes(10 + i) for i, st in enumerate(steps)][:4] == [None] * 4
    assert "too many connections are waiting" in (steps[4].closes(14) or "")
    assert s.connected(20, HOME, "h", 0.0).closes(20) is not None  # full for now
    s.tick(11.0)  # their hellos are overdue
    assert come(s, 21, 11.0, BOB, HOME).closes(21) is None


# ---------------------------------------------------------------------- time
def test_a_silent_connection_is_closed_at_the_handshake_time_out() -> None:
    s = host(HostLimits(handshake_timeout=2.0))
    s.connected(1, AWAY, "a", 0.0)
    assert s.tick(2.0).close == []
    assert s.tick(2.1).close == [(1, "no hello within 2 s")]


def test_pings_go_to_the_joined_and_silence_is_an_end() -> None:
    s = seated(limits=HostLimits(ping_interval=5.0, idle_timeout=12.0))
    come(s, 2, 0.0, SPECTATOR)
    s.connected(3, AWAY, "a", 0.0)
    step = s.tick(5.0)
    assert step.to(1) == [Ping()] == step.to(2) and step.to(3) == []
    assert s.tick(9.0).send == []
    say(s, 1, 9.0, Pong())
    step = s.tick(12.5)
    assert sorted(step.close) == [(2, "no word from you for 12 s"), (3, "no hello within 10 s")]
    assert s.seat is not None and s.seat.peer == 1  # it answered
    step = s.tick(21.5)
    assert step.closes(1) == "no word from you for 12 s"
    assert PlayerLeft("Bob") in step.events and s.paused


def test_a_peer_cut_off_at_the_edge_is_told_as_turned_away() -> None:
    s = seated()
    step = s.closed(1, 1.0, "it reads nothing: more than 1 MiB wait for it")
    assert [e.reason for e in step.events if isinstance(e, TurnedAway)] == \
        ["it reads nothing: more than 1 MiB wait for it"]
    assert PlayerLeft("Bob") in step.events and s.paused


def test_an_error_line_is_never_sent_by_the_state_itself() -> None:
    """Refusals are close actions: the driver sends the one error line."""
    s = host()
    step = come(s, 1, 0.0, Hello(1, "player", "nottheone", "Eve"))
    assert not any(isinstance(m, ErrorMsg) for _, m in step.send)
    assert step.close == [(1, "wrong join code")]
