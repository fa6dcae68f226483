"""The ``server`` verb: run the game server, or register a bot with --add-bot."""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
import sys
from collections.abc import Callable

from csl_game.errors import Terminated, UsageError
from csl_game.server import (
    Served,
    ServerOptions,
    Store,
    add_bot,
    open_store,
    run_server,
    server_loop,
)
from csl_game.server.messages import NAME_PATTERN
from csl_game.services.flag_values import match_config
from csl_game.services.options import flag_text
from csl_game.services.userdata import user_dir

__all__ = ["run_server_verb", "default_db"]


def default_db() -> str:
    """The SQLite file in the user's data folder."""
    return str(user_dir() / "server.sqlite3")


def _store_where(args: argparse.Namespace) -> str:
    where = args.db or default_db()
    if not where.startswith(("postgresql://", "postgres://")) and where != ":memory:" \
            and "://" in where:
        raise UsageError(f"--db: {where!r} is neither a file nor a postgresql:// URL")
    return where


_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                   r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")


def _public_hosts(names: list[str]) -> list[str]:
    """--public-host's names, each checked (a host name, as a browser's Host says it).

    Raises:
        UsageError: a value that is no host name.
    """
    for name in names:
        if len(name) > 253 or not _HOST.fullmatch(name):
            raise UsageError(f"--public-host: {name!r} is no host name (csl.example.org)")
    return [name.lower() for name in names]


def run_server_verb(args: argparse.Namespace) -> int:
    """Serve until Ctrl+C (or print a new bot's token with --add-bot); 0 when done.

    Raises:
        UsageError: a bad flag value (a port, a name, a database).
    """
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: must be from 0 to 65535, got {args.port}")
    if args.grace < 0 or args.max_ai_games < 0:
        bad = "grace" if args.grace < 0 else "max_ai_games"
        raise UsageError(f"{flag_text(bad)}: must be at least 0")
    if args.add_bot is not None and not NAME_PATTERN.fullmatch(args.add_bot):
        raise UsageError(f"--add-bot: {args.add_bot!r} is no name (letters, digits, spaces "
                         "and _.+-, 1 to 40, starting with a letter or digit)")
    config = match_config(args)
    where = _store_where(args)
    try:
        store = open_store(where)
    except (OSError, ImportError, Exception) as e:  # sqlite3/psycopg errors share no base
        if isinstance(e, UsageError):
            raise
        raise UsageError(f"--db: cannot open {where}: {e}") from None
    try:
        if args.add_bot is not None:
            return _add_bot(store, args.add_bot)
        options = ServerOptions(config=config, register=args.register, grace_ms=args.grace,
                                max_ai_games=args.max_ai_games,
                                public_hosts=tuple(_public_hosts(args.public_host)))

        def ready(served: Served) -> None:
            print(f"csl-game server on {served.url} (database {where}; bots: "
                  f"{args.register}; {config.time_limit_ms} ms a move). Ctrl+C stops it.",
                  flush=True)

        try:
            with asyncio.Runner(loop_factory=server_loop(store)) as runner:
                runner.run(_until_stopped(store, options, args.host, args.port, ready))
        except OSError as e:
            raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror}") \
                from None
        return 0
    finally:
        store.close()


async def _until_stopped(store: Store, options: ServerOptions, host: str, port: int,
                         ready: Callable[[Served], None]) -> None:
    """Serve until Ctrl+C or SIGTERM; SIGTERM ends the serving as a stop does
    (the games' writes made, the database's connections ended), then raises
    Terminated, as the CLI's own handler would.

    The CLI's SIGTERM handler raises in the main thread; under uvloop, which
    runs Python's signal handlers inside a callback of its own, that raise
    was caught and logged, and the server went on serving. The loop's own
    signal handling (POSIX: Windows keeps the CLI's handler) sets the stop."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    before = signal.getsignal(signal.SIGTERM)
    try:
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        handled = True
    except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not the main thread
        handled = False  # (nothing sets the stop then)
    try:
        await run_server(store, options, host, port, ready, stop)
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGTERM)
            if before is not None:  # (None: one set outside Python, which cannot be put back)
                signal.signal(signal.SIGTERM, before)
    if stop.is_set():
        raise Terminated


def _add_bot(store: Store, name: str) -> int:
    token = add_bot(store, name)
    if token is None:
        raise UsageError(f"--add-bot: a bot called {name!r} is registered already")
    print(f"bot {name} registered; its token (shown once, kept only hashed):", file=sys.stderr)
    print(token)
    return 0
