"""What a `create` may ask for, without I/O: the hub's checks before it makes a game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from csl_game.server.game import Rejected
from csl_game.server.messages import PEOPLE_KINDS, Create
from csl_game.server.room import Room
from csl_game.server.seats import Client, ServerOptions

__all__ = ["Waiting", "check_create", "free_bot"]


class Waiting:
    """The games between people waiting for an opponent, and the address each
    was made from: counted as they are made, begin and go, so that a create
    does not look at every game waiting."""

    def __init__(self) -> None:
        self._made_by: dict[str, str] = {}
        self._from: Counter[str] = Counter()

    def made(self, game_id: str, address: str) -> None:
        self._made_by[game_id] = address
        self._from[address] += 1

    def over(self, game_id: str) -> None:
        """`game_id` began or went (nothing if it was not waiting)."""
        address = self._made_by.pop(game_id, None)
        if address is not None:
            self._from[address] -= 1
            if not self._from[address]:
                del self._from[address]

    def made_from(self, address: str) -> int:
        return self._from.get(address, 0)


def check_create(request: Create, client: Client, games: Mapping[str, Room[Any]],
                 seated: Iterable[str], waiting_games: Waiting,
                 options: ServerOptions) -> None:
    """`client`, seated in the games `seated`, may make the game `request`
    asks for, with `games` on the server and `waiting_games` those waiting
    for an opponent.

    Raises:
        Rejected: it may not (with why).
    """
    waiting = sum(1 for game_id in seated if game_id in games and not games[game_id].started)
    from_address = waiting_games.made_from(client.address) \
        if request.opponent in PEOPLE_KINDS else 0
    if not client.identity or client.bot:
        raise Rejected("say hello with your name first")
    if waiting >= options.max_waiting:
        raise Rejected(f"you have {waiting} games waiting for an opponent already")
    if from_address >= options.max_waiting_per_address:
        raise Rejected(f"your address has {options.max_waiting_per_address} games "
                       "waiting for an opponent already")
    if len(games) >= options.max_games:
        raise Rejected("the server holds as many games as it can; try again soon")
    people = request.opponent in PEOPLE_KINDS
    if request.clock is not None and not people:
        raise Rejected("clocks are for games between people: the AI and bots have "
                       f"their limit of {options.config.time_limit_ms} ms a move")
    if request.rated and not (people and client.account):
        raise Rejected("a rated game is between people signed in to their accounts: "
                       "sign in, and challenge a friend or open a challenge")


def free_bot(bots: Mapping[str, Client], busy: Mapping[str, int], name: str) -> Client:
    """The bot called `name` of the connected `bots`, free for one more game
    (`busy`: the games each plays now).

    Raises:
        Rejected: no such bot is connected, or it plays as many games as it takes.
    """
    bot = bots.get(name)
    if bot is None:
        raise Rejected(f"no bot called {name!r} is connected now")
    if busy.get(name, 0) >= bot.capacity:
        raise Rejected(f"{name} plays as many games as it takes ({bot.capacity}); "
                       "try again soon")
    return bot
