"""The host's end of an online match as a state machine, without I/O.

`HostState` is fed what happens to its peers, each known by a number the
driver gives it: a connection opened (`connected`), the bytes it sent
(`receive_data`: cut into lines, bounded in length and rate, decoded), its
end (`closed`), the clock (`tick(now)`), and the host's own doings
(`claim`, `local_move`). Each call returns a `HostStep`: the messages to send
to which peer, the peers to close with a reason (an error line, then the
end), and the `HostEvent`s for the frontend. The seat, the join code and its
guessers, reconnection, pings, time-outs, the per-address bounds and the
checks of each move live here: a new connection of the seat's player takes
the seat from a dropped one, or from one silent for `limits.silent_after`
(half-open), and a move of the old one not played yet goes with it; a
player connecting after the end is told the result (`owes_result`). The
match is the ordinary `Match`, on a game clock that reads the `now` of the
last call and stops while the seat is empty: its events go to
`subscribe()`'s callbacks, and what they tell the
peers leaves with the next step (`pending()` takes it between calls).
Sockets and the clock are the driver's (csl_game.online.host.Host), so every
hostile input is a plain unit test.
"""

from __future__ import annotations

import hmac
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from csl_game import __version__
from csl_game.engine import (
    Forfeit,
    ForfeitReason,
    Human,
    Match,
    MatchEvent,
    MatchOver,
    MoveAnswer,
    MovePerformed,
    Player,
    RunnerFactory,
    unique_names,
)
from csl_game.errors import InvalidMoveError, NetworkError, ProtocolError
from csl_game.model.board import PColor, PShape
from csl_game.online.door import HostLimits, TurnedAway, summaries
from csl_game.online.guard import RefusalLog, WrongCodes
from csl_game.online.host_step import (
    ClaimOffered,
    HostEvent,
    HostStep,
    PlayerBack,
    PlayerJoined,
    PlayerLeft,
)
from csl_game.online.protocol import (
    PROTOCOL_VERSION,
    ClientMessage,
    ForfeitMsg,
    Hello,
    HostMessage,
    LineReader,
    MoveMsg,
    Paused,
    Ping,
    Played,
    Pong,
    Result,
    Resumed,
    Welcome,
    code_problem,
    config_json,
    decode_client,
)
from csl_game.online.seat import GameClock, Seat, SeatPlayer
from csl_game.online.wire import RateLimit
from csl_game.thinker.api import MatchConfig

__all__ = ["HostState", "HostStep", "HostEvent", "PlayerJoined", "PlayerLeft", "PlayerBack",
           "ClaimOffered", "PeerRole", "settings_refusal"]

log = logging.getLogger(__name__)


class PeerRole(Enum):
    PENDING = "pending"
    """Connected, its hello not said yet."""
    SPECTATOR = "spectator"
    SEATED = "seated"


@dataclass(eq=False)
class _Peer:
    id: int
    address: str
    """Whom per-address bounds count it as (`addresses.address_of`)."""
    shown: str
    opened: float
    heard: float
    role: PeerRole = PeerRole.PENDING
    reader: LineReader = field(default_factory=LineReader)
    rate: RateLimit = field(default_factory=RateLimit)


class HostState:
    """One hosted match, without I/O: the peers, the seat, the spectators and the match.

    Raises:
        ValueError: `code` is no join code (`protocol.code_problem`).
    """

    def __init__(self, config: MatchConfig, local: Player, local_name: str,
                 local_color: PColor, code: str, now: float, *,
                 limits: HostLimits = HostLimits(),
                 runner_factory: RunnerFactory | None = None) -> None:
        if (problem := code_problem(code)) is not None:
            raise ValueError(f"a join code is {problem}")
        self.config = config
        self.code = code
        self.limits = limits
        self.local_color = local_color
        self._local = local
        self._local_name = local_name
        self._factory = runner_factory
        self._now = now
        self.game_clock = GameClock(lambda: self._now)
        """The match's clock: the time of the last call, stopped while the seat is empty."""
        self.match: Match | None = None
        self.names: tuple[str, str] | None = None
        self.seat: Seat | None = None
        self._peers: dict[int, _Peer] = {}
        self._moves: list[tuple[int, PShape, float]] = []
        self._out = HostStep()
        self._subscribers: list[Callable[[MatchEvent], None]] = []
        self._last_ping = now
        self._playing = False
        """Whether the match was there at the end of the last tick (it is
        advanced from the tick after the one that made it: the joiner is told first)."""
        self._wrong_codes = WrongCodes(limits.wrong_codes_per_minute)
        self._refusals = RefusalLog()
        self._told: int | None = None
        """The seat's connection the result went out on, until it confirms it
        (it closes): None when none did, or it did (`owes_result`)."""

    # ------------------------------------------------------------------ reading
    @property
    def remote_color(self) -> PColor:
        return self.local_color.other

    @property
    def paused(self) -> bool:
        """Whether the game waits for the seated player to come back."""
        return self.seat is not None and self.seat.peer is None and not self.is_over

    @property
    def is_over(self) -> bool:
        return self.match is not None and self.match.is_over

    def away_for(self, now: float) -> float:
        """Seconds the seat has been empty at `now` (0 when it is not)."""
        if self.seat is None or self.seat.away_since is None:
            return 0.0
        return now - self.seat.away_since

    def claimable(self, now: float) -> bool:
        """Whether the seat has been empty longer than the reconnect time-out."""
        return self.paused and self.away_for(now) >= self.limits.reconnect_timeout

    @property
    def owes_result(self) -> bool:
        """Whether the game is over and the result went out on a connection of
        the seat's that has not confirmed it by closing (it may be half-open:
        its player, reconnecting, is told the result then)."""
        return self.is_over and self._told is not None

    @property
    def spectators(self) -> int:
        return sum(p.role is PeerRole.SPECTATOR for p in self._peers.values())

    def role(self, peer: int) -> PeerRole | None:
        """What `peer` is here (None: not a peer, or turned away)."""
        found = self._peers.get(peer)
        return found.role if found is not None else None

    def subscribe(self, callback: Callable[[MatchEvent], None]) -> None:
        """Call `callback` with every event of the match (once it starts)."""
        self._subscribers.append(callback)
        if self.match is not None:
            self.match.subscribe(callback)

    # ------------------------------------------------------------------ inputs
    def connected(self, peer: int, address: str, shown: str, now: float) -> HostStep:
        """A new connection, `peer`, from `address` (`shown` as `shown`): it
        has `limits.handshake_timeout` to say hello; beyond `limits.max_pending`
        waiting, or `limits.max_pending_per_address` of its address, it is closed."""
        self._now = now
        new = _Peer(peer, address, shown, now, now)
        waiting = [p for p in self._peers.values() if p.role is PeerRole.PENDING]
        if sum(p.address == address for p in waiting) >= self.limits.max_pending_per_address:
            self._turn_away(new, "too many connections from your address are waiting; "
                                 "try again later")
        elif len(waiting) >= self.limits.max_pending:
            self._turn_away(new, "too many connections are waiting; try again later")
        else:
            self._peers[peer] = new
        return self._take()

    def receive_data(self, peer: int, data: bytes, now: float) -> HostStep:
        """Bytes `peer` sent: each complete line is one message. A line too
        long, too many lines a second, a line that is no message, or anything
        but a hello first closes the peer; so does breaking the game's rules."""
        self._now = now
        found = self._peers.get(peer)
        if found is None:
            return self._take()  # turned away: what it says is not read
        try:
            lines = found.reader.feed(data)
        except ProtocolError as e:
            self._turn_away(found, str(e))
            return self._take()
        if lines:
            found.heard = now
        for line in lines:
            if self._peers.get(peer) is not found:
                break
            if not found.rate.allow(now):
                self._turn_away(found, f"too many messages: at most {found.rate.rate:g} a second")
                break
            self._line(found, line)
        return self._take()

    def closed(self, peer: int, now: float, failure: str | None = None) -> HostStep:
        """`peer`'s connection ended: the peer closed it, or it was cut off at
        the edge for `failure` (a bound of the socket's: it reads nothing),
        which is told as a refusal."""
        self._now = now
        found = self._peers.get(peer)
        if found is not None and failure is not None:
            self._turn_away(found, failure)
        elif found is not None:
            if peer == self._told:
                self._told = None  # its player hung up after the result
            self._forget(found)
        return self._take()

    def tick(self, now: float) -> HostStep:
        """Time passed: hellos and peers overdue, pings, the claim offered,
        refusals summed up; the match goes on as far as it goes now."""
        self._now = now
        limits = self.limits
        for peer in list(self._peers.values()):
            if peer.role is PeerRole.PENDING and now - peer.opened > limits.handshake_timeout:
                self._turn_away(peer, f"no hello within {limits.handshake_timeout:g} s")
            elif peer.role is not PeerRole.PENDING and now - peer.heard > limits.idle_timeout:
                self._turn_away(peer, f"no word from you for {limits.idle_timeout:g} s")
        if now - self._last_ping >= limits.ping_interval:
            self._last_ping = now
            self._broadcast(Ping())
        if self.claimable(now) and self.seat is not None and not self.seat.offered:
            self.seat.offered = True
            self._out.events.append(ClaimOffered(self.seat.name, self.away_for(now)))
        self._out.events += summaries(self._refusals, now)
        match = self.match
        if self._playing and match is not None and not self.paused and not match.is_over:
            match.update()
        self._playing = self.match is not None
        return self._take()

    def claim(self, now: float) -> HostStep:
        """The absent player forfeits: the match ends now.

        Raises:
            NetworkError: the seat is not empty, or the match is not running.
        """
        self._now = now
        if not self.paused or self.match is None or self.seat is None:
            raise NetworkError("only a game whose player is away can be claimed")
        away = self.away_for(now)
        self.match.forfeit(self.seat.color, ForfeitReason.DISCONNECTED,
                           f"{self.seat.name} was away for {away:.0f} s")
        return self._take()

    def local_move(self, col: int, shape: PShape, now: float) -> HostStep:
        """The host's human plays (the match judges it).

        Raises:
            InvalidMoveError: no human of this side is to play, or the move is not legal.
        """
        self._now = now
        if self.match is None or self.paused:
            raise InvalidMoveError("it is not your turn")
        self.match.submit_move(col, shape)
        return self._take()

    def pending(self) -> HostStep:
        """What the match's events since the last call left to send (a move
        the host's human made through `match.submit_move`)."""
        return self._take()

    # ------------------------------------------------------------------ peers
    def _take(self) -> HostStep:
        step, self._out = self._out, HostStep()
        return step

    def _send(self, peer: int, msg: HostMessage) -> None:
        self._out.send.append((peer, msg))

    def _turn_away(self, peer: _Peer, reason: str) -> None:
        if self._refusals.tell(peer.address, reason, self._now):
            log.info("turned away %s: %s", peer.shown, reason)
            self._out.events.append(TurnedAway(peer.shown, reason))
        self._forget(peer)
        self._out.close.append((peer.id, reason))

    def _forget(self, peer: _Peer) -> None:
        self._peers.pop(peer.id, None)
        if self.seat is not None and self.seat.peer == peer.id:
            self._leave()

    def _line(self, peer: _Peer, line: bytes) -> None:
        try:
            msg = decode_client(line)
        except ProtocolError as e:
            self._turn_away(peer, f"not understood: {e}")
            return
        self._message(peer, msg)

    def _message(self, peer: _Peer, msg: ClientMessage) -> None:
        if peer.role is PeerRole.PENDING and not isinstance(msg, Hello):
            self._turn_away(peer, "the first message must be a hello")
        elif isinstance(msg, Hello) and peer.role is PeerRole.PENDING:
            self._hello(peer, msg)
        elif isinstance(msg, Hello):
            self._turn_away(peer, "hello was said already")
        elif isinstance(msg, Pong):
            pass
        elif peer.role is PeerRole.SPECTATOR:
            self._turn_away(peer, "spectators cannot move")
        else:
            self._move(peer, msg)

    def _hello(self, peer: _Peer, hello: Hello) -> None:
        refusal = self._refusal(peer, hello)
        if refusal is not None:
            self._turn_away(peer, refusal)
            return
        if hello.role == "spectator":
            peer.role = PeerRole.SPECTATOR
            self._send(peer.id, self._welcome(None))
            return
        if self.seat is None:
            self._seat(peer, hello)
        else:
            self._seat_again(peer)
        peer.role = PeerRole.SEATED
        self._send(peer.id, self._welcome(self.remote_color))
        if self.is_over and self.match is not None and self.match.result is not None:
            self._send(peer.id, Result(self.match.result, self.config))
            self._told = peer.id

    def _seat_again(self, peer: _Peer) -> None:
        """`peer` takes the seat again: after a drop, or from its silent
        connection (turned away). A move that connection sent and the match has
        not played yet goes with it: the welcome leaves it out, so the player
        is asked again and its answer on this connection is the one played."""
        seat = self.seat
        assert seat is not None
        paused, old = self.paused, seat.peer
        seat.peer, seat.away_since, seat.offered = peer.id, None, False
        if self.is_over:
            return
        seat.answer = None
        if old is not None and (silent := self._peers.get(old)) is not None:
            self._turn_away(silent, "replaced: its player connected again")
        if paused:
            self._broadcast(Resumed())  # to the spectators: the seat is told by its welcome
            self.game_clock.resume()
            self._out.events.append(PlayerBack(seat.name))

    def _refusal(self, peer: _Peer, hello: Hello) -> str | None:
        if hello.version != PROTOCOL_VERSION:
            return (f"this host speaks protocol version {PROTOCOL_VERSION} (csl-game "
                    f"{__version__}), not version {hello.version}: use the same csl-game")
        if hello.role == "spectator":
            if self.is_over:
                return "the game is over"
            if self.match is None:
                return "the game has not begun: watch once a player has joined"
            if self.spectators >= self.limits.spectators:
                return f"no room for more spectators (at most {self.limits.spectators})"
            return None
        wait = self._wrong_codes.wait(peer.address, self._now)
        if wait > 0:  # its code unread: right or wrong, it is not told
            return (f"too many wrong join codes from your address: try again in "
                    f"{math.ceil(wait)} s")
        if not hmac.compare_digest(hello.code.encode("utf-8"), self.code.encode("utf-8")):
            self._wrong_codes.wrong(peer.address, self._now)
            return "wrong join code"
        if self.seat is not None and self.seat.peer is not None and not self.is_over \
                and not self._silent_seat(hello):
            return "the seat is taken: a player is playing already"
        if hello.color is not None and hello.color is not self.remote_color:
            return (f"the host plays {self.local_color}: you would play {self.remote_color}, "
                    f"not {hello.color}")
        return settings_refusal(hello, self.config)

    def _silent_seat(self, hello: Hello) -> bool:
        """Whether `hello` has the seat's credentials (its name and kind; the
        code is checked) and the seat's connection has said nothing for
        `limits.silent_after`: it died without a word, and gives way."""
        seat = self.seat
        assert seat is not None and seat.peer is not None
        held = self._peers.get(seat.peer)
        return (hello.name == seat.name and (hello.kind == "ai") == seat.timed
                and (held is None or self._now - held.heard >= self.limits.silent_after))

    def _seat(self, peer: _Peer, hello: Hello) -> None:
        self.seat = Seat(hello.name, self.remote_color, hello.kind == "ai", peer.id)
        names = [self._local_name, hello.name]
        if self.local_color is PColor.RED:
            names.reverse()
        white_name, red_name = unique_names(names)
        self.names = (white_name, red_name)
        limit = None
        if self.seat.timed:
            limit = (self.config.time_limit_ms + self.limits.network_margin_ms) / 1000
        remote = SeatPlayer(self.names[self.remote_color], self.seat, self.game_clock, limit,
                            f"time limit {self.config.time_limit_ms} ms (and "
                            f"{self.limits.network_margin_ms} ms for the network)")
        white, red = (self._local, remote) if self.local_color is PColor.WHITE \
            else (remote, self._local)
        factory: dict[str, Any] = {} if self._factory is None else \
            {"runner_factory": self._factory}
        self.match = Match(self.config, white, red, clock=self.game_clock, names=self.names,
                           **factory)
        self.match.subscribe(self._on_match_event)
        for callback in self._subscribers:
            self.match.subscribe(callback)
        self._out.events.append(PlayerJoined(self.names[self.remote_color], self.remote_color))

    def _welcome(self, color: PColor | None) -> Welcome:
        assert self.names is not None
        local_human = isinstance(self._local, Human)
        remote_human = self.seat is not None and not self.seat.timed
        humans = (local_human, remote_human) if self.local_color is PColor.WHITE \
            else (remote_human, local_human)
        waiting = self.seat.name if self.paused and self.seat is not None else ""
        return Welcome(PROTOCOL_VERSION, "player" if color is not None else "spectator", color,
                       self.config, self.names, humans, tuple(self._moves), waiting)

    def _move(self, peer: _Peer, msg: MoveMsg | ForfeitMsg) -> None:
        seat = self.seat
        if self.is_over:
            return  # a move that crossed the result on the way
        assert seat is not None and peer.id == seat.peer
        if seat.expected != msg.ply or seat.answer is not None:
            self._turn_away(peer, f"not your turn: {len(self._moves)} moves are played")
            return
        if isinstance(msg, MoveMsg):
            seat.answer = MoveAnswer(msg.col, int(msg.shape))
        elif msg.reason is ForfeitReason.DISCONNECTED:
            self._turn_away(peer, "a player cannot say it left")
            return
        else:
            seat.answer = Forfeit(msg.reason, msg.detail)

    def _leave(self) -> None:
        assert self.seat is not None
        self.seat.peer = None
        if self.is_over:
            return
        self.seat.away_since = self._now
        self.game_clock.pause()
        self._out.events.append(PlayerLeft(self.seat.name))
        self._broadcast(Paused(self.seat.name))

    def _broadcast(self, msg: HostMessage) -> None:
        for peer in self._peers.values():
            if peer.role is not PeerRole.PENDING:
                self._send(peer.id, msg)

    def _on_match_event(self, event: MatchEvent) -> None:
        if isinstance(event, MovePerformed):
            ply = len(self._moves)
            move = (event.move.col, event.move.piece.shape, event.elapsed)
            self._moves.append(move)
            self._broadcast(Played(ply, *move))
        elif isinstance(event, MatchOver):
            self._broadcast(Result(event.result, self.config))
            self._told = self.seat.peer if self.seat is not None else None


def settings_refusal(hello: Hello, config: MatchConfig) -> str | None:
    """Why a joiner asking `hello.settings` cannot play a game of `config` (None: it can)."""
    ours = {**config_json(config), "clock": config.clock,
            "time_margin_ms": config.time_margin_ms}
    differ = [f"{key.replace('_', ' ')} {value} (the host's: {ours[key]})"
              for key, value in (hello.settings or {}).items() if ours[key] != value]
    if not differ:
        return None
    return ("board settings differ from the host's game: " + ", ".join(differ)
            + "; drop those flags to play the host's settings")
