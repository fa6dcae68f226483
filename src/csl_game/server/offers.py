"""What the players of a game between people say besides their moves, without I/O:
a draw offered, a takeback asked, each accepted by the other side's same word
or declined by it, and a win claimed over a player who left.

`Offers` holds the offers standing in one room's game (an offer stands until
the next move, a takeback, or the other side declines it: then it is not
made again before the next move) and judges each word of its players; the
room (csl_game.server.room) tells and stores what comes of it.
`claim_detail` judges a claim on a player who left, whom `away_message`
counts down.
"""

from __future__ import annotations

from csl_game.model.board import PColor
from csl_game.online.agreements import takeback_plies
from csl_game.server.game import Rejected, ServerGame
from csl_game.server.messages import encode

__all__ = ["Offers", "OFFERED", "claim_detail", "away_message"]

OFFERED = {"draw": "for a draw", "takeback": "to take back a move", "rematch": "for a rematch"}
"""What each offer asks, in words."""


class Offers:
    """The offers standing in one game, by what is offered: who offers it."""

    def __init__(self) -> None:
        self.standing: dict[str, PColor] = {}
        self.declined: set[tuple[str, PColor]] = set()
        """The offers declined since the last move, with who made them: not made
        again before the next move (an offer declined is no offer to repeat at once)."""

    def clear(self) -> None:
        """A move was played or taken back: no offer stands any more, and any may be made."""
        self.standing.clear()
        self.declined.clear()

    def say(self, game: ServerGame, seats: list[str], rated: bool, color: PColor,
            what: str) -> bool:
        """`color` offers `what` ('draw' or 'takeback'), or accepts the other's
        (True: the draw is agreed, or the moves go back; False: the offer stands,
        as it may already have).

        Raises:
            Rejected: the game is over, the other side is no person, a rated
                game's takeback, there is nothing to take back, or the other
                side declined this offer since the last move.
        """
        self._check_open(game)
        if (what, color) in self.declined:
            raise Rejected(f"{game.names[color.other]} declined it: ask again after the "
                           "next move")
        if not seats[color.other].startswith(("web:", "user:")):
            raise Rejected(f"{game.names[color.other]} is no person: it answers no offer")
        if what == "takeback" and rated:
            raise Rejected("a rated game takes no move back")
        if what == "takeback" and \
                takeback_plies(self.standing.get(what, color), game.to_move) > game.ply:
            raise Rejected("there is no move of yours to take back")
        if self.standing.get(what) is color.other:
            return True
        self.standing[what] = color
        return False

    def decline(self, game: ServerGame, color: PColor, what: str) -> None:
        """`color` declines the other side's offer of `what`: it stands no more.

        Raises:
            Rejected: the game is over, or the other side offers no such thing.
        """
        self._check_open(game)
        if self.standing.get(what) is not color.other:
            raise Rejected(f"{game.names[color.other]} does not ask {OFFERED[what]}: "
                           "there is nothing to decline")
        del self.standing[what]
        self.declined.add((what, color.other))

    @staticmethod
    def _check_open(game: ServerGame) -> None:
        if game.result is not None:
            raise Rejected("the game is over")


def claim_detail(game: ServerGame, color: PColor, since: float | None, claim_s: float,
                 now: float) -> str:
    """Why `color` wins by its claim: its opponent left at `since` (None: it is
    here), `claim_s` or more before `now`.

    Raises:
        Rejected: the game is over, or the opponent is here or left too recently.
    """
    other = color.other
    if game.result is not None:
        raise Rejected("the game is over")
    if since is None or now - since < claim_s:
        wait = "is here" if since is None else \
            f"may come back for {since + claim_s - now:.0f} s more"
        raise Rejected(f"{game.names[other]} {wait}: there is no win to claim yet")
    return f"{game.names[other]} left; {game.names[color]} claimed the win after " \
        f"{now - since:.0f} s"


def away_message(game: str, color: PColor, since: float | None, reconnect_s: float,
                 claim_s: float, now: float) -> str:
    """`away`: `color`'s player left at `since` (the seconds it has to come
    back, and before the other may claim the win) or, with None, is back."""
    if since is None:
        return encode("away", game=game, color=color.name.lower(), seconds=None)
    return encode("away", game=game, color=color.name.lower(),
                  seconds=round(max(0.0, since + reconnect_s - now), 1),
                  claim=round(max(0.0, since + claim_s - now), 1))
