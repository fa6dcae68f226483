"""What a `create` may ask for, without I/O: the hub's checks before it makes a game."""

from __future__ import annotations

from csl_game.server.game import Rejected
from csl_game.server.messages import Create
from csl_game.server.seats import Client, ServerOptions

__all__ = ["check_create"]


def check_create(request: Create, client: Client, waiting: int, from_address: int,
                 games: int, options: ServerOptions) -> None:
    """`client` may make the game `request` asks for, with `waiting` games of
    its own and `from_address` of its address waiting for an opponent, and
    `games` on the server.

    Raises:
        Rejected: it may not (with why).
    """
    if not client.identity or client.bot:
        raise Rejected("say hello with your name first")
    if waiting >= options.max_waiting:
        raise Rejected(f"you have {waiting} games waiting for an opponent already")
    if from_address >= options.max_waiting_per_address:
        raise Rejected(f"your address has {options.max_waiting_per_address} games "
                       "waiting for an opponent already")
    if games >= options.max_games:
        raise Rejected("the server holds as many games as it can; try again soon")
    people = request.opponent in ("friend", "open")
    if request.clock is not None and not people:
        raise Rejected("clocks are for games between people: the AI and bots have "
                       f"their limit of {options.config.time_limit_ms} ms a move")
    if request.rated and not (people and client.account):
        raise Rejected("a rated game is between people signed in to their accounts: "
                       "sign in, and challenge a friend or open a challenge")
