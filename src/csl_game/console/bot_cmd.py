"""The ``bot`` verb: a thinker on this machine plays a game server's ladder."""

from __future__ import annotations

import argparse
import asyncio

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
    spec = BotSpec(args.url, args.bot_thinker, args.params, args.name or "", args.token or "",
                   args.games, paths, args.in_process)
    asyncio.run(run_bot(spec, say=lambda text: print(narration.terminal_safe(text),
                                                      flush=True)))
    return 0
