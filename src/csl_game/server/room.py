"""One game's room on the server, without I/O: its seats, players, watchers and clock.

A `Room` is fed what happens to its game, each call with the time: a player
sits or comes back (`sit`), someone watches (`watch`), a connection ends
(`left`), a move, a forfeit or a resignation arrives (`move`, `forfeit`),
the server's AI answers (`ai_answer`), and the clock (`wake`). Each call
returns a `RoomStep`: each message to send, encoded once with the receivers
it goes to, the writes for the database (a move is one appended row), when
the room next needs waking, whether the server's AI is to think, and whether
the room is done. The connections are the driver's, known here only as the
opaque peers it passes in (csl_game.server.hub gives its `Client`s), so every
seat, reconnect and clock is a plain unit test with a made-up time.

Who is timed: a bot, on the server's wall clock from the moment its turn
began (the time limit, the engine's margin and a grace for the network). A
person only by a game's clocks (csl_game.server.clock), if it has them; the
server's AI by its own runner, whose answer is judged, so waiting for a free
thinking slot costs it nothing. People's offers (`offer`: a draw, a
takeback; `decline`) and a claim on a player who left (`claim`) come to the
room too, judged by csl_game.server.offers. A player whose connection ended
has `reconnect_s` to come back before it forfeits (the other side and the
watchers are told at once, and again when it is back); if both are away
when that time is up, the game is aborted: nobody wins a game nobody is at.
A game whose maker leaves before anyone joins is dropped after as long, and
its maker may cancel it; a game nobody joined never reaches the database (it
is stored when its second player sits down).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from csl_game.engine import SHAPE_WORDS, Forfeit, ForfeitReason
from csl_game.errors import ProtocolError
from csl_game.model.board import PColor, PShape, Winner
from csl_game.online.agreements import takeback_plies
from csl_game.online.protocol import config_from_doc, config_json, result_json
from csl_game.server.clock import TimeControl
from csl_game.server.game import Rejected, ServerGame
from csl_game.server.messages import encode, new_code
from csl_game.server.offers import Offers, away_message, claim_detail
from csl_game.server.store import (
    Dropped,
    Finished,
    GameRow,
    Moved,
    NewGame,
    Rated,
    TakenBack,
    Write,
    game_settings,
)
from csl_game.thinker.api import MatchConfig

__all__ = ["Room", "RoomStep", "new_game"]

P = TypeVar("P", bound=Hashable)
_COLORS = (PColor.WHITE, PColor.RED)  # an enum's own iteration is slow, once a move


@dataclass
class RoomStep(Generic[P]):
    """What the driver does after a call to a `Room`."""

    send: list[tuple[tuple[P, ...], str]] = field(default_factory=list)
    """Each message once, with the peers it goes to, in order."""
    entered: list[P] = field(default_factory=list)
    """Peers that sat down or began watching: the driver tells the room when they leave."""
    store: list[Write] = field(default_factory=list)
    """The database's writes, in order."""
    wake: float | None = None
    """When the room next needs `wake(now)` (None: nothing waits on the clock)."""
    think: int | None = None
    """The server's AI is to move at this ply: the driver asks it, then calls `ai_answer`."""
    done: bool = False
    """The game ended (or was dropped): the driver forgets the room."""
    lobby: bool = False
    """What the lobby shows of the room changed."""

    def to(self, peer: P) -> list[str]:
        """The messages for `peer`, in order."""
        return [text for peers, text in self.send if peer in peers]


def new_game(game_id: str, config: MatchConfig, seats: list[str], names: list[str],
             grace_s: float, moves: list[tuple[int, PShape, float]] | None = None,
             control: TimeControl | None = None) -> ServerGame:
    """A game whose players sit in `seats` (each 'bot:NAME', 'web:SESSION' or
    'ai:LEVEL', '' while free), with `moves` played: bots are timed on the wall
    clock, people by `control`'s clocks if it has them."""
    return ServerGame(game_id, config, names, _timed(seats), grace_s, moves=list(moves or []),
                      control=control)


def _timed(seats: list[str]) -> tuple[bool, bool]:
    return seats[0].startswith("bot:"), seats[1].startswith("bot:")


class Room(Generic[P]):
    """A game being played or waiting for its second player, without I/O."""

    def __init__(self, game: ServerGame, kind: str, code: str, seats: list[str],
                 reconnect_s: float, created: float, claim_s: float = 15.0) -> None:
        self.game = game
        self.kind = kind
        """'ladder', 'friend', 'open' or 'ai'."""
        self.code = code
        self.seats = seats
        """Each colour's identity ('bot:NAME', 'web:SESSION', 'ai:LEVEL'; '' while free)."""
        self.reconnect_s = reconnect_s
        self.claim_s = min(claim_s, reconnect_s)
        """Seconds a player away must be gone before the other may claim the win."""
        self.created = created
        self.players: list[P | None] = [None, None]
        self.gone: list[float | None] = [None, None]
        """Since when each seat's player has been away (None: here, or an AI)."""
        self.watchers: set[P] = set()
        self.done = False
        self.stored = False
        """Whether the database has the game (from when both seats are taken)."""
        self._out: RoomStep[P] = RoomStep()
        self._asked: int | None = None
        """The ply the AI was last asked to think at."""
        self.rated = False
        """Rated (Glicko-2) between two accounts: no takebacks, only accounts sit."""
        self.offers = Offers()
        """Who offers a draw, or asks to take its move back, until the next move."""

    @classmethod
    def from_row(cls, row: GameRow, grace_s: float, reconnect_s: float,
                 claim_s: float = 15.0) -> Room[P]:
        """A game in progress read back from the database (its seats and join
        code are kept with its settings); `resume` it."""
        config = config_from_doc({"settings": game_settings(row.settings)})
        seats = row.settings.get("seats")
        if not (isinstance(seats, list) and len(seats) == 2
                and all(isinstance(s, str) for s in seats)):
            seats = ["", ""]
        code = row.settings.get("code")
        try:
            control = TimeControl.from_doc(row.settings.get("timecontrol"))
        except ProtocolError:
            control = None
        game = new_game(row.id, config, seats, [row.white, row.red], grace_s,
                        ServerGame.moves_from_json(row.moves), control)
        room: Room[P] = cls(game, row.kind,
                            code if isinstance(code, str) else new_code(),
                            list(seats), reconnect_s, row.created, claim_s)
        room.stored = True
        room.rated = row.settings.get("rated") is True
        return room

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def started(self) -> bool:
        seats = self.seats
        return bool(seats[0] and seats[1])

    def ai_seat(self, color: PColor) -> str | None:
        """The level of `color`'s AI seat (None: no AI sits there)."""
        seat = self.seats[color]
        return seat[3:] if seat.startswith("ai:") else None

    def peers(self) -> tuple[P, ...]:
        """Everyone in the room: its players here and its watchers."""
        return (*(p for p in self.players if p is not None), *self.watchers)

    # ------------------------------------------------------------ inputs
    def open(self, peer: P | None, color: PColor, now: float) -> RoomStep[P]:
        """A new game, made by `peer` playing `color` (None: made by the server,
        the ladder's pairing, with both players told by `attach`); it is
        stored once both seats are taken."""
        self._out.lobby = True
        if peer is not None:
            self.players[color] = peer
            self._out.entered.append(peer)
            self._send((peer,), self.state(color, now))
        if self.started:
            self._begin(now)
        return self._take()

    def resume(self, now: float) -> RoomStep[P]:
        """The game was read back from the database (the server restarted):
        its players have `reconnect_s` to come back."""
        self.gone = [now if s and not s.startswith("ai:") else None for s in self.seats]
        return self._take()

    def sit(self, peer: P, identity: str, name: str, now: float) -> RoomStep[P]:
        """`peer`, who is `identity` called `name`, takes its seat again, or
        the free one; a game that began without it is watched instead."""
        if identity in self.seats:
            self._attach(peer, identity, now)
        elif self.started or not identity:
            self._watch(peer, now)
        elif self.rated and not identity.startswith("user:"):
            raise Rejected("a rated game is between accounts: sign in to take its seat")
        else:
            color = PColor.WHITE if not self.seats[0] else PColor.RED
            self.seats[color], self.game.names[color] = identity, name
            self.game.timed = _timed(self.seats)
            self.players[color] = peer
            self.watchers.discard(peer)  # a watcher who takes the free seat plays
            self._out.entered.append(peer)
            self._begin(now)
        return self._take()

    def attach(self, peer: P, identity: str, now: float) -> RoomStep[P]:
        """`peer` said who it is: it is given its seats here (if it has any)."""
        if identity and identity in self.seats:
            self._attach(peer, identity, now)
        return self._take()

    def watch(self, peer: P, identity: str, now: float) -> RoomStep[P]:
        """`peer` watches (a player of the game takes its seat instead)."""
        if identity and identity in self.seats:
            self._attach(peer, identity, now)
        else:
            self._watch(peer, now)
        return self._take()

    def left(self, peer: P, now: float) -> RoomStep[P]:
        """`peer`'s connection ended: the others of a game being played learn
        at once that its player is away, and how long it has to come back."""
        self._out.lobby |= peer in self.watchers
        self.watchers.discard(peer)
        for color in PColor:
            if self.players[color] == peer:
                self.players[color] = None
                self.gone[color] = now
                if self.started and not self.done:
                    self._send(self.peers(), self._away(color, now))
        return self._take()

    def cancel(self, peer: P, identity: str, now: float) -> RoomStep[P]:
        """`peer`, who is `identity`, its maker, takes back a game nobody joined yet.

        Raises:
            Rejected: `identity` plays no side of it, or it began.
        """
        if not identity or identity not in self.seats:
            raise Rejected(f"you play no side of game {self.id}")
        if self.started:
            raise Rejected("the game began: resign it instead")
        self._send(self.peers(), encode("aborted", game=self.id,
                                        reason="its maker cancelled it"))
        self._drop()
        return self._take()

    def offer(self, peer: P, what: str, now: float) -> RoomStep[P]:
        """`peer` offers a draw, or asks to take back its last move (with the
        reply to it, if any): the other side's same message accepts, its
        `decline` declines; an offer stands until then or the next move. The
        other player and the watchers are told (csl_game.server.offers judges).

        Raises:
            Rejected: as `move`; or the game is over, the other side is no
                person, or there is nothing to take back.
        """
        color, g = self._seat_of(peer), self.game
        if not self.offers.say(g, self.seats, self.rated, color, what):
            self._send(self.peers(), encode("offer", game=g.id, what=what,
                                            color=color.name.lower()))
        elif what == "draw":
            g.agree_draw()
            self._finish(now)
        else:
            g.take_back(takeback_plies(color.other, g.to_move), now)
            self.offers.clear()
            self._out.store.append(TakenBack(g.id, g.ply))
            for c in PColor:
                self._send(tuple(p for p in (self.players[c],) if p is not None),
                           self.state(c, now))
            self._send(tuple(self.watchers), self.state(None, now))
        return self._take()

    def decline(self, peer: P, what: str, now: float) -> RoomStep[P]:
        """`peer` declines the other side's offer of `what`: it stands no more,
        and the other player (who offered it) and the watchers are told.

        Raises:
            Rejected: as `move`; or the game is over, or no such offer stands.
        """
        color, g = self._seat_of(peer), self.game
        self.offers.decline(g, color, what)
        self._send(self.peers(), encode("declined", game=g.id, what=what,
                                        color=color.name.lower()))
        return self._take()

    def claim(self, peer: P, now: float) -> RoomStep[P]:
        """`peer` claims the win: its opponent left `claim_s` ago or more.

        Raises:
            Rejected: as `move`; or the opponent is here, or left too recently.
        """
        color, g = self._seat_of(peer), self.game
        detail = claim_detail(g, color, self.gone[color.other], self.claim_s, now)
        g.forfeit(color.other, ForfeitReason.DISCONNECTED, detail)
        self._finish(now)
        return self._take()

    def move(self, peer: P, ply: int, col: int, shape: PShape, now: float) -> RoomStep[P]:
        """`peer` plays move `ply`.

        Raises:
            Rejected: `peer` plays no side, the game has not begun, or it is
                not `peer`'s move `ply` (the move is refused, the game goes on).
        """
        color = self._seat_of(peer)
        before = self.game.ply
        self._after(before, self.game.play(color, ply, col, shape, now), now)
        return self._take()

    def forfeit(self, peer: P, reason: ForfeitReason | None, detail: str,
                now: float) -> RoomStep[P]:
        """`peer` forfeits (its thinker failed on its machine) or, with no
        reason, resigns.

        Raises:
            Rejected: as `move`.
        """
        color = self._seat_of(peer)
        self.game.forfeit(color, reason, detail, resigned=reason is None)
        self._finish(now)
        return self._take()

    def ai_answer(self, ply: int, answer: tuple[int, PShape, float] | Forfeit,
                  now: float) -> RoomStep[P]:
        """The server's AI answered at `ply` (column, shape and its thinking
        time, or its forfeit); an answer for a game that moved on is dropped."""
        g = self.game
        if self.done or g.result is not None or g.ply != ply \
                or self.ai_seat(g.to_move) is None:
            return self._take()
        self._asked = None
        if isinstance(answer, Forfeit):
            g.forfeit(g.to_move, answer.reason, answer.detail)
            self._finish(now)
        else:
            col, shape, elapsed = answer
            g.start_clock(now - elapsed)
            self._after(ply, g.play(g.to_move, ply, col, shape, now), now)
        return self._take()

    def wake(self, now: float) -> RoomStep[P]:
        """Time passed: a timed player out of time, a player away too long,
        a waiting game its maker left."""
        g = self.game
        if self.done:
            return self._take()
        if self.started and (g.expired(now) or g.flagged(now)):
            self._finish(now)
            return self._take()
        for color in PColor:
            since = self.gone[color]
            if since is not None and now - since > self.reconnect_s and self.started:
                if self.gone[color.other] is not None:
                    # both are away (a restart neither came back from): nobody wins
                    self._send(self.peers(), encode(
                        "aborted", game=g.id, reason="both players left and did not "
                        f"come back within {self.reconnect_s:g} s"))
                    self._drop()
                    return self._take()
                g.forfeit(color, ForfeitReason.DISCONNECTED,
                          f"{g.names[color]} left and did not come back within "
                          f"{self.reconnect_s:g} s")
                self._finish(now)
                return self._take()
        maker = self.gone[0 if self.seats[0] else 1]
        if not self.started and maker is not None and now - maker > self.reconnect_s:
            self._drop()
        return self._take()

    # ------------------------------------------------------------ messages
    def state(self, color: PColor | None, now: float) -> str:
        """The game as a player of `color` (None: a watcher) is told it at `now`."""
        g = self.game
        return encode("game", game=g.id, code=self.code if color is not None else "",
                      color=None if color is None else color.name.lower(),
                      white=g.names[0], red=g.names[1], settings=config_json(g.config),
                      moves=g.moves_json(), kind=self.kind, watchers=len(self.watchers),
                      **g.clock_doc(now),
                      **({} if g.control is None else {"timecontrol": g.control.to_doc()}),
                      **({"rated": True} if self.rated else {}))

    # ------------------------------------------------------------ inside
    def _take(self) -> RoomStep[P]:
        step, self._out = self._out, RoomStep()
        step.done = self.done
        step.wake = None if self.done else self._next_wake()
        if not self.done and self.started and self.game.result is None:
            ply = self.game.ply
            if self.ai_seat(self.game.to_move) is not None and self._asked != ply:
                self._asked = step.think = ply
        return step

    def _next_wake(self) -> float | None:
        g = self.game
        times = [since + self.reconnect_s for since in self.gone if since is not None]
        if self.started and g.turn_started is not None:
            if g.timed[g.to_move]:
                times.append(g.turn_started + g.limit_s())
            if g.control is not None and (flag := g.flag_at()) is not None:
                times.append(flag)
        return min(times) if times else None

    def _away(self, color: PColor, now: float) -> str:
        return away_message(self.id, color, self.gone[color], self.reconnect_s, self.claim_s,
                            now)

    def _send(self, peers: tuple[P, ...], text: str) -> None:
        if peers:
            self._out.send.append((peers, text))

    def _seat_of(self, peer: P) -> PColor:
        for color in _COLORS:
            if self.players[color] == peer:
                if not self.started:
                    raise Rejected("the game waits for its second player")
                return color
        raise Rejected(f"you play no side of game {self.id}")

    def _attach(self, peer: P, identity: str, now: float) -> None:
        for color in PColor:
            if self.seats[color] == identity:
                was_away = self.gone[color] is not None
                self.players[color] = peer
                self.watchers.discard(peer)
                self.gone[color] = None
                self._out.entered.append(peer)
                self._send((peer,), self.state(color, now))
                if was_away and self.started:
                    self._send(tuple(p for p in self.peers() if p != peer),
                               self._away(color, now))
                if self.started and self.gone[color.other] is not None:
                    self._send((peer,), self._away(color.other, now))
                if self.started and self.game.to_move == color \
                        and self.game.turn_started is None:
                    self.game.start_clock(now)

    def _watch(self, peer: P, now: float) -> None:
        self.watchers.add(peer)
        self._out.lobby = True  # the lobby counts each game's watchers
        self._out.entered.append(peer)
        self._send((peer,), self.state(None, now))
        if self.started:
            for color in PColor:
                if self.gone[color] is not None:
                    self._send((peer,), self._away(color, now))

    def _begin(self, now: float) -> None:
        """Both seats are taken: everyone learns the game, the clock starts."""
        self.game.start_clock(now)
        for color in PColor:
            player = self.players[color]
            if player is not None:
                self._send((player,), self.state(color, now))
        self._send(tuple(self.watchers), self.state(None, now))
        self._out.lobby = True
        g = self.game
        timing = ({} if g.control is None else {"timecontrol": g.control.to_doc()}) \
            | ({"rated": True} if self.rated else {})
        self._out.store.append(NewGame(GameRow(
            g.id, self.kind, g.names[0], g.names[1],
            {**config_json(g.config), "seats": list(self.seats), "code": self.code, **timing},
            g.moves_json(), "playing", None, self.created)))
        self.stored = True

    def _after(self, before: int, ended: bool, now: float) -> None:
        """A call to the game's `play` at `before` moves returned `ended`: its
        move (if the judge let one be played) is told and stored."""
        g = self.game
        if g.ply > before:
            col, shape, elapsed = g.moves[-1]
            ms = round(elapsed * 1000, 3)
            name = SHAPE_WORDS[shape]
            self.offers.clear()  # an offer stands until the next move
            self._send(self.peers(), encode("played", game=g.id, ply=before, col=col, shape=name,
                                            ms=ms, watchers=len(self.watchers),
                                            **g.clock_doc(now)))
            self._out.store.append(Moved(g.id, before, col, name, ms))
        if ended:
            self._finish(now)

    def _finish(self, now: float) -> None:
        g = self.game
        if g.result is None or self.done:
            return
        doc = result_json(g.result, g.config)
        self._send(self.peers(), encode("result", game=g.id, result=doc, **g.clock_doc(now)))
        self._out.store.append(Finished(g.id, doc))
        if self.rated and all(seat.startswith("user:") for seat in self.seats):
            score = {Winner.WHITE: 1.0, Winner.RED: 0.0}.get(g.result.winner, 0.5)
            self._out.store.append(Rated(g.id, self.seats[0][5:], self.seats[1][5:], score))
        self._end()

    def _drop(self) -> None:
        """The game ends with no result (a stored one is marked dropped)."""
        if self.stored:
            self._out.store.append(Dropped(self.id))
        self._end()

    def _end(self) -> None:
        self.done = True
        self._out.lobby = True
