"""People's accounts on the server: signing up and in, and a player's record.

What the HTTP handlers (csl_game.server.web) ask of the hub's database, with
the password work (Argon2, csl_game.server.accounts) on a thread, never on
the event loop. A session (a browser's cookie, as its hash) is signed in to
at most one account; a WebSocket of that session plays as ``user:NAME``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from csl_game.server.accounts import check_signup, hash_password, password_matches
from csl_game.server.game import Rejected
from csl_game.server.hub import Hub

__all__ = ["sign_up", "log_in", "player_doc"]


async def sign_up(hub: Hub, session: str, name: str, password: str) -> str:
    """A new account `name`, signed in to by `session`: its name.

    Raises:
        Rejected: a bad name or password, or the name is taken.
    """
    check_signup(name, password)
    hashed = await asyncio.get_running_loop().run_in_executor(None, hash_password, password)
    if not await hub.db(hub.store.add_player, name, hashed):
        raise Rejected(f"the name {name!r} is taken")
    await hub.db(hub.store.log_in, session, name)
    return name


async def log_in(hub: Hub, session: str, name: str, password: str) -> str:
    """`session` signs in to the account `name`: its name as it was made.

    Raises:
        Rejected: no such account, or not its password (one answer for both).
    """
    found = await hub.db(hub.store.player, name) if len(password) <= 1024 else None
    stored = found[1] if found is not None else ""
    matches = found is not None and await asyncio.get_running_loop().run_in_executor(
        None, password_matches, stored, password)
    if found is None or not matches:
        raise Rejected("no account has that name and password")
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
