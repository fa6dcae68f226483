"""A hostile host, faked by the test (a plain socket server on loopback,
tests/hostile_host.py), against ``csl-game match --connect``, ``csl-game
watch`` and the `Joined` a window uses, bounded in count and time. What
contradicts the game as the joiner saw it (a move of its own seat it never
sent, a rewritten history, a colour it did not ask for, a result the board
does not show, a made-up forfeit, impossible standings) ends the game with one
line naming it and exit status 2; a host that never welcomes, breaks the
protocol, drops every connection or goes silent is given up on within the
time-outs, reconnecting with back-off; a move that comes in the same read as a
reconnect's welcome is played; refusals while reconnecting are tried again."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from csl_game.engine import ForfeitReason, MatchOver
from csl_game.model.board import PColor, PShape, Winner
from csl_game.online.client import Failed, Joined
from csl_game.online.protocol import ErrorMsg, Hello, encode
from hostile_host import (
    FakeHost,
    Moves,
    Peer,
    finished,
    match,
    move_of,
    played,
    result,
    result_line,
    standings,
    tournament,
    welcome,
)
from online_procs import Proc
from online_warm import Warm

R, S = PShape.ROUND, PShape.SQUARE
AI = (False, False)
HUMAN_RED = (False, True)
WON = ((0, R), (0, S), (1, R), (1, S), (2, R))  # White: round pieces on row 0, columns 0-2


def _fails_with(proc: Proc, says: str, timeout: float = 20) -> str:
    """The process ends with status 2 and one line on standard error saying `says`."""
    assert proc.finish(timeout) == 2, proc.text()
    errors = [line for line in proc.err if line.startswith("csl-game:")]
    assert len(errors) == 1 and says in errors[0], proc.text()[-2000:]
    assert "Traceback" not in proc.text()
    return errors[0]


def _no_json(proc: Proc) -> None:
    """Nothing on standard output (--json prints the result there, and only there)."""
    assert not "".join(proc.out).strip(), proc.out


def _error(message: str) -> bytes:
    return encode(ErrorMsg(message))


@pytest.fixture(scope="module")
def warm() -> Iterator[Warm]:
    """Joiners and watchers forked from a loaded csl-game (online_warm)."""
    pool = Warm()
    yield pool
    pool.close()


# ---------------------------------------------------------------------- contradictions
def test_a_move_of_the_joiners_seat_it_never_sent(warm: Warm) -> None:
    def script(peer: Peer) -> None:
        peer.send(welcome(humans=HUMAN_RED), played(0, 0, R), played(1, 1, S))
        peer.hold(20)

    with FakeHost(script) as host:
        joiner = warm.join(host.port, "--json")  # a human, who types nothing
        try:
            _fails_with(joiner, "the host contradicted the game: move 2, your side's (Red), is "
                                "square at column 1, which you never sent")
        finally:
            joiner.kill()
    assert "Red (Bob) placed" not in joiner.text()
    _no_json(joiner)


def test_a_move_of_the_joiners_seat_other_than_it_sent(warm: Warm) -> None:
    def script(peer: Peer) -> None:
        peer.send(welcome(humans=AI), played(0, 0, R))
        col, shape = move_of(peer.read(10))
        peer.send(played(1, (col + 1) % 4, shape))
        peer.hold(20)

    with FakeHost(script) as host:
        joiner = warm.join(host.port, "-R", "sequential")
        try:
            _fails_with(joiner, "your side's (Red), is square at column 1, not the square at "
                                "column 0 you sent")
        finally:
            joiner.kill()


def test_a_welcome_to_another_colour_than_asked(warm: Warm) -> None:
    with FakeHost(lambda peer: (peer.send(welcome(PColor.WHITE, humans=AI)),
                                peer.hold(20))) as host:
        joiner = warm.join(host.port, "-R", "sequential", "--json")
        try:
            _fails_with(joiner, "a welcome to play White, not Red as asked")
        finally:
            joiner.kill()
    _no_json(joiner)


def test_a_reconnects_welcome_that_rewrites_the_history(warm: Warm) -> None:
    def script(peer: Peer) -> None:
        if peer.index == 0:
            peer.send(welcome(moves=((0, R), (1, S), (2, R)), humans=HUMAN_RED))
            peer.hold(0.5)
            return  # the connection drops
        peer.send(welcome(moves=((3, R), (1, S), (2, R)), humans=HUMAN_RED))
        peer.hold(20)

    with FakeHost(script, max_connections=5) as host:
        joiner = warm.join(host.port)
        try:
            _fails_with(joiner, "a reconnect's welcome whose move 1 is round at column 3, not "
                                "round at column 0 as played")
        finally:
            joiner.kill()
        assert len(host.connections) == 2


@pytest.mark.parametrize("moves, line, says", [
    ((), result_line(((0, R),), Winner.WHITE, ((0, 0), (0, 1), (0, 2))),
     "a result of 1 moves where 0 were played"),
    (WON, result_line(WON, Winner.WHITE, ((3, 0), (3, 1), (3, 2))),
     "a winning line through an empty cell (row 3, column 0)"),
    (((0, R), (1, S)), result_line(((0, R), (1, S)), Winner.WHITE, ((2, 0), (2, 1), (2, 2))),
     "a result of 'white' on a board that shows no winner yet"),
    (((0, R),), result_line(((0, R),), Winner.WHITE, forfeit=ForfeitReason.EXCEPTION),
     "a forfeit of your side (exception: raised an exception) that your side never reported"),
], ids=["moves never played", "a line on empty cells", "no winner", "a made-up forfeit"])
def test_a_result_the_board_does_not_show(moves: Moves, line: bytes, says: str, warm: Warm) -> None:
    def script(peer: Peer) -> None:
        peer.send(welcome(moves=moves, humans=HUMAN_RED), line)
        peer.hold(20)

    with FakeHost(script) as host:
        joiner = warm.join(host.port, "--json")
        try:
            _fails_with(joiner, f"the host contradicted the game: {says}")
        finally:
            joiner.kill()
    _no_json(joiner)


def _rows(*rows: tuple[int, str, int, int, int, int]) -> list[tuple[int, str, int, int, int,
                                                                     int]]:
    return list(rows)


ZERO = _rows((0, "Ann", 0, 0, 0, 0), (1, "Ben", 0, 0, 0, 0), (2, "Cid", 0, 0, 0, 0))
ANN_BEN = ("Ann", "Ben")


@pytest.mark.parametrize("lines, says", [
    ([match(0), *(played(i, c, s) for i, (c, s) in enumerate(WON)),
      finished(0, result(WON, Winner.WHITE, ((3, 0), (3, 1), (3, 2)), names=ANN_BEN))],
     "a winning line through an empty cell (row 3, column 0)"),
    ([finished(1, result(WON, Winner.WHITE, ((1, 2), (1, 3), (2, 3)), names=ANN_BEN))],
     "a winning line whose cells are not in a row"),
    ([standings(1, _rows((0, "Ann", 999_999_999, 1, 0, 0), (0, "Ann", -999_999_999, 0, 0, 1)))],
     "standings naming Ann twice"),
    ([standings(1, _rows((0, "Ann", 999_999_999, 1, 0, 0), (1, "Ben", -999_999_999, 0, 0, 1),
                         (2, "Cid", 0, 0, 0, 0)))],
     "standings giving Ann 999999999 points for 1 matches"),
    ([standings(1, _rows((0, "Ann", 9, 3, 0, 0), (1, "Ben", 0, 0, 0, 3), (2, "Cid", 0, 0, 0, 0)))],
     "standings where Ann played 3 of 1 matches"),
], ids=["a line on empty cells", "off screen: a line not in a row", "a player twice",
        "points beyond the matches", "games beyond the matches"])
def test_watch_refuses_what_cannot_be(lines: list[bytes], says: str, warm: Warm) -> None:
    def script(peer: Peer) -> None:
        peer.send(tournament(), standings(0, ZERO), *lines)
        peer.hold(20)

    with FakeHost(script) as host:
        watcher = warm.run("watch", f"127.0.0.1:{host.port}", "--json")
        try:
            _fails_with(watcher, f"the broadcast contradicted the tournament: {says}")
        finally:
            watcher.kill()
    _no_json(watcher)


def test_the_window_says_a_contradiction_and_offers_only_home() -> None:
    from csl_game.gui.online_table import Action, JoinedTable

    def script(peer: Peer) -> None:
        peer.send(welcome(humans=HUMAN_RED), played(0, 0, R), played(1, 1, S))
        peer.hold(20)

    with FakeHost(script) as host:
        table = JoinedTable(host.address, Hello(1, "player", "secret99", "Bob", "human"))
        try:
            end = time.monotonic() + 10
            while table.failed is None and time.monotonic() < end:
                table.poll()
                time.sleep(0.01)
            assert table.failed is not None and "which you never sent" in table.failed
            notice = table.notice
            assert notice is not None and notice.title == "The game cannot go on"
            assert "which you never sent" in notice.detail and notice.actions == (Action.HOME,)
        finally:
            table.close()


# ---------------------------------------------------------------------- bounds
def _follow(joined: Joined, seconds: float) -> tuple[list[Any], float]:
    """Poll until the game ends (at most `seconds`): the events, and the time taken."""
    started = time.monotonic()
    events: list[Any] = []
    try:
        while not joined.finished and time.monotonic() - started < seconds:
            events += joined.poll()
            joined.wait(0.02)
    finally:
        joined.close()
    return events, time.monotonic() - started


SPECTATOR = Hello(1, "spectator")


def test_a_host_that_pings_but_never_welcomes_is_given_up_on() -> None:
    with FakeHost(lambda peer: peer.hold(20, ping_every=0.2)) as host:
        events, took = _follow(Joined(host.address, SPECTATOR, connect_timeout=1.0), 10)
    assert isinstance(events[-1], Failed) and "no welcome within 1 s" in events[-1].message
    assert took < 4 and len(host.connections) == 1


def test_a_host_that_never_welcomes_a_reconnect_within_the_window(warm: Warm) -> None:
    def script(peer: Peer) -> None:
        if peer.index == 0:
            peer.send(welcome(humans=HUMAN_RED))
            peer.hold(0.3)
            return
        peer.hold(20, ping_every=0.2)

    with FakeHost(script, max_connections=20) as host:
        joiner = warm.join(host.port, "--reconnect-timeout", "2")
        try:
            _fails_with(joiner, "the host did not come back within 2 s")
        finally:
            joiner.kill()
        assert len(host.connections) == 2, host.connections
        assert host.connections[1] - host.connections[0] < 1.5


def test_a_host_that_breaks_the_protocol_after_its_welcome_is_left() -> None:
    def script(peer: Peer) -> None:
        peer.send(welcome(None), b"this is no message\n")
        peer.hold(5)

    with FakeHost(script) as host:
        events, took = _follow(Joined(host.address, SPECTATOR), 5)
    assert isinstance(events[-1], Failed)
    assert "the host sent what is no message of the protocol" in events[-1].message
    assert len(host.connections) == 1 and took < 2


@pytest.mark.timing
def test_a_host_that_drops_every_connection_is_retried_with_back_off() -> None:
    # jitter drawn short (0.78 and 0.79 of 1 s and 2 s): the third try comes at
    # ~2.4 s, well within the 3 s, so the doubled wait is always seen
    with FakeHost(lambda peer: peer.send(welcome(None)), max_connections=50) as host:
        events, took = _follow(Joined(host.address, SPECTATOR, retry_for=3.0,
                                      rng=random.Random(123)), 15)
        times = list(host.connections)
    assert isinstance(events[-1], Failed)
    assert events[-1].message.startswith("the host did not come back within 3 s")
    assert 2.9 < took < 5, took
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert 3 <= len(times) <= 5, gaps  # 0, at once, ~1 s, ~2 s (each ±25 %)
    assert gaps[0] < 0.5 and 0.7 <= gaps[1] <= 1.5 and (len(gaps) < 3 or gaps[2] >= 1.4), gaps


@pytest.mark.timing
def test_a_host_that_welcomes_and_goes_silent_is_given_up_on() -> None:
    with FakeHost(lambda peer: (peer.send(welcome(None)), peer.hold(20)),
                  max_connections=50) as host:
        events, took = _follow(Joined(host.address, SPECTATOR, retry_for=0.75,
                                      idle_timeout=0.5), 15)
    assert isinstance(events[-1], Failed), events
    assert "did not come back within 0.75 s (no word from the host for 0.5 s)" \
        in events[-1].message
    assert len(host.connections) == 2 and took < 5, (host.connections, took)


# ---------------------------------------------------------------------- reconnecting
def _game_after_a_drop(refusals: list[bytes]) -> tuple[FakeHost, dict[str, Any]]:
    """A host whose first connection drops right after the joiner's first move
    (before it is said to be played); the next connections get `refusals`, then
    a welcome with the host's next move in the same write; the joiner's answer
    ends the game (the host's AI forfeits at its next turn)."""
    seen: dict[str, Any] = {}

    def script(peer: Peer) -> None:
        if peer.index == 0:
            peer.send(welcome(humans=AI), played(0, 0, R))
            seen["first"] = move_of(peer.read(10))
            return  # dropped: the move was taken, but not said to be played
        if peer.index <= len(refusals):
            peer.send(refusals[peer.index - 1])
            return
        moves = ((0, R), seen["first"], (3, R))
        peer.send(welcome(moves=moves[:2], humans=AI) + played(2, 3, R))  # one write
        second = move_of(peer.read(10))
        seen["second"] = second
        peer.send(played(3, *second),
                  result_line((*moves, second), Winner.RED, forfeit=ForfeitReason.EXCEPTION))
        peer.hold(5)

    return FakeHost(script, max_connections=10), seen


def test_a_move_in_the_same_read_as_a_reconnects_welcome_is_played(warm: Warm) -> None:
    host, seen = _game_after_a_drop([])
    with host:
        joiner = warm.join(host.port, "-R", "sequential", "--json")
        try:
            assert joiner.finish(20) == 0, joiner.text()
        finally:
            joiner.kill()
    assert "second" in seen and len(host.connections) == 2
    doc = joiner.json()
    assert doc["forfeit"] == "exception" and doc["winner"] == "red" and len(doc["moves"]) == 4
    assert "Connection lost" in joiner.text() and "Connected again" in joiner.text()


def test_refusals_while_reconnecting_are_tried_again(warm: Warm) -> None:
    host, seen = _game_after_a_drop([_error("the seat is taken: a player is playing already"),
                                     _error("too many connections are waiting; try again "
                                            "later")])
    with host:
        joiner = warm.join(host.port, "-R", "sequential", "--json")
        try:
            assert joiner.finish(30) == 0, joiner.text()
        finally:
            joiner.kill()
        times = list(host.connections)
    assert len(times) == 4 and "second" in seen
    assert times[3] - times[2] >= 1.4, times  # backing off: ~1 s, then ~2 s
    assert joiner.json()["winner"] == "red"


def test_a_definitive_refusal_while_reconnecting_ends_the_game(warm: Warm) -> None:
    host, _ = _game_after_a_drop([_error("wrong join code")])
    with host:
        joiner = warm.join(host.port, "-R", "sequential", "--json")
        try:
            _fails_with(joiner, "cannot rejoin 127.0.0.1:")
        finally:
            joiner.kill()
        assert len(host.connections) == 2
    assert "wrong join code" in joiner.text()
    _no_json(joiner)


def test_the_joiner_follows_a_faithful_fake_host_to_its_result() -> None:
    """The checks let a host that says only what is so through."""
    def script(peer: Peer) -> None:
        moves: list[tuple[int, PShape]] = []
        for col in (0, 1, 2):
            peer.send(played(len(moves), col, R))
            moves.append((col, R))
            if col == 2:
                break
            mine = move_of(peer.read(10))
            peer.send(played(len(moves), *mine))
            moves.append(mine)
        peer.send(result_line(tuple(moves), Winner.WHITE, ((0, 0), (0, 1), (0, 2))))
        peer.hold(5)

    def serve(peer: Peer) -> None:
        peer.send(welcome(humans=AI))
        script(peer)

    with FakeHost(serve) as host:
        joined = Joined(host.address, Hello(1, "player", "secret99", "Bob", "ai", PColor.RED),
                        lambda mc: _sequential(mc))
        events, _ = _follow(joined, 15)
    assert isinstance(events[-1], MatchOver), events[-3:]
    assert joined.outcome is not None and joined.outcome.result.winner is Winner.WHITE


def _sequential(mc: Any) -> Any:
    from csl_game.thinker.prototype import ThinkerPrototype

    return ThinkerPrototype("sequential", "", mc)


@pytest.mark.unit
def test_fake_host_lines_are_json() -> None:
    """(The fake host's own lines are protocol lines.)"""
    for line in (welcome(), played(0, 0, R), result_line((), Winner.DRAW), tournament(),
                 standings(0, ZERO), match(0), finished(0, result((), Winner.DRAW))):
        assert json.loads(line)["type"]
