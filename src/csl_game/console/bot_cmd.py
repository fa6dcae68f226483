"""The ``bot`` verb: a thinker on this machine plays a game server's ladder."""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from csl_game.errors import UsageError
from csl_game.server import BotError, BotSpec, run_bot, ws_url
from csl_game.server.messages import MAX_GAMES, NAME_PATTERN
from csl_game.services import narration
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_bot_verb"]


def run_bot_verb(args: argparse.Namespace) -> int:
    """Play until Ctrl+C; 0 when stopped.

    Raises:
        UsageError: a bad address, thinker, name or count.
        BotError: the server refused the bot or contradicted its board.
    """
    try:
        ws_url(args.url)
    except BotError as e:
        raise UsageError(str(e)) from None
    paths = tuple(args.thinkers)
    ThinkerPrototype(args.bot_thinker, args.params, paths=paths)  # an unknown one: exit 2
    if args.name is not None and not NAME_PATTERN.fullmatch(args.name):
        raise UsageError(f"--name: {args.name!r} is no name (letters, digits, spaces and "
                         "_.+-, 1 to 40, starting with a letter or digit)")
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games: from 1 to {MAX_GAMES}, got {args.games}")
    if args.connect_timeout < 0:
        raise UsageError(f"--connect-timeout: 0 or more seconds, got {args.connect_timeout:g}")
    spec = BotSpec(args.url, args.bot_thinker, args.params, args.name or "", args.token or "",
                   args.games, paths, args.in_process)
    if not asyncio.run(_play(spec, args.connect_timeout)):
        raise UsageError(f"{args.url} never answered the bot in {args.connect_timeout:g} s; "
                         "is the server running there? (--connect-timeout 0 keeps trying)")
    return 0


async def _play(spec: BotSpec, timeout: float) -> bool:
    """Play as `run_bot` does; False when the server never welcomed the bot
    within `timeout` seconds (0: no limit). A bot that was connected once
    tries again for ever when the connection drops (a server restarting)."""
    stop = asyncio.Event()
    welcomed = asyncio.Event()

    def say(text: str) -> None:
        if text.startswith(_CONNECTED):
            welcomed.set()
        print(narration.terminal_safe(text), flush=True)

    async def give_up() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(welcomed.wait(), timeout)
        if not welcomed.is_set():
            stop.set()

    watch = asyncio.create_task(give_up()) if timeout else None
    try:
        await run_bot(spec, stop, say=say)
    finally:
        if watch is not None:
            watch.cancel()
    return welcomed.is_set() or not stop.is_set()


_CONNECTED = "connected to "
"""How `run_bot` says the server welcomed the bot."""
