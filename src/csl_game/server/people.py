"""People's accounts on the server: signing up and in, and a player's record.

What the HTTP handlers (csl_game.server.web) ask of the hub's database, with
the password work (Argon2, csl_game.server.accounts) on a thread, never on
the event loop, two at a time at most (each takes 64 MiB for about a third
of a second: many at once would take the machine's memory). A session (a browser's cookie, as its hash) is signed in to
at most one account; a WebSocket of that session plays as ``user:NAME``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from csl_game.server.accounts import check_signup, hash_password, password_matches
from csl_game.server.game import Rejected
from csl_game.server.hub import Hub

__all__ = ["sign_up", "log_in", "player_doc", "best_game"]


async def sign_up(hub: Hub, session: str, name: str, password: str) -> str:
    """A new account `name`, signed in to by `session`: its name.

    Raises:
        Rejected: a bad name or password, or the name is taken.
    """
    check_signup(name, password)
    async with hub.hashing:
        hashed = await asyncio.get_running_loop().run_in_executor(None, hash_password, password)
    if not await hub.db(hub.store.add_player, name, hashed):
        raise Rejected(f"the name {name!r} is taken")
    await hub.db(hub.store.log_in, session, name)
    return name


async def log_in(hub: Hub, session: str, name: str, password: str, address: str) -> str:
    """`session`, from `address`, signs in to the account `name`: its name as
    it was made. Wrong passwords are bounded (`hub.guesses`): past the bound
    the password is not even checked.

    Raises:
        Rejected: no such account, or not its password (one answer for both),
            or too many wrong passwords of late.
    """
    wait = hub.guesses.wait(name, address, hub.now())
    if wait > 0:
        raise Rejected(f"too many wrong passwords for this name: try again in {wait:.0f} s")
    found = await hub.db(hub.store.player, name) if len(password) <= 1024 else None
    stored = found[1] if found is not None else ""
    async with hub.hashing:
        matches = found is not None and await asyncio.get_running_loop().run_in_executor(
            None, password_matches, stored, password)
    if found is None or not matches:
        hub.guesses.failed(name, address, hub.now())
        raise Rejected("no account has that name and password")
    hub.guesses.succeeded(name, address)
    await hub.db(hub.store.log_in, session, found[0])
    return found[0]


async def player_doc(hub: Hub, name: str) -> dict[str, Any] | None:
    """`GET /api/players/NAME`: {"name", "rating", "rd", "games": [ids], "history":
    [{"game", "rating", "rd"}]} (None: no such account)."""
    found = await hub.db(hub.store.player, name)
    if found is None:
        return None
    games = await hub.db(hub.store.player_games, name)
    rating = found[2]
    return {"name": found[0], "rating": round(rating.rating, 2), "rd": round(rating.rd, 2),
            "games": [game for game, _, _ in games],
            "history": [{"game": game, "rating": round(r, 2), "rd": round(d or 0.0, 2)}
                        for game, r, d in games if r is not None]}


async def best_game(hub: Hub, most: int = 200) -> str | None:
    """`/tv`'s game: of the games being played (the first `most`; a cluster's,
    of every process), the one whose players' mean rating is highest: an
    account's Glicko-2 rating, a ladder bot's rating about 1500 (its
    Bradley-Terry Elo, centred on 0, plus 1500), anyone else 1500; the most
    moves breaks a tie. None: no game is being played."""
    played = hub.being_played()[:most]
    if not played:
        return None
    bots = {row["name"]: row["rating"] for row in hub.ladder_table()
            if row.get("rating") is not None}
    accounts: dict[str, float] = {}
    for seat in {seat for _, seats, _ in played for seat in seats if seat.startswith("user:")}:
        found = await hub.db(hub.store.player, seat[5:])
        accounts[seat] = found[2].rating if found is not None else 1500.0

    def rating(seat: str) -> float:
        if seat.startswith("bot:"):
            return 1500.0 + float(bots.get(seat[4:], 0.0))
        return accounts.get(seat, 1500.0)
    best = max(played, key=lambda game: (sum(map(rating, game[1])) / 2, game[2]))
    return best[0]
