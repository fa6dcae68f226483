"""Tournaments over the network in the terminal: ``session --listen`` broadcasts
one, ``watch`` follows one (each match's board and result, the standings after
each match and at the end)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from csl_game.console.render import ConsoleListener, render_standings
from csl_game.engine import MatchEvent, Session, Standing
from csl_game.errors import NetworkError, UsageError
from csl_game.online.broadcast import Broadcaster
from csl_game.online.client import Failed
from csl_game.online.door import HostLimits, TurnedAway
from csl_game.online.tourney_client import (
    HostedMatch,
    OffScreen,
    StandingsNow,
    TourneyBegun,
    Watched,
    WatchedMatch,
    WatchEvent,
)
from csl_game.services.addresses import parse_address
from csl_game.services.narration import terminal_safe

__all__ = ["start_broadcast", "follow_tournament", "standings_json"]

_STEP = 0.05


def start_broadcast(session: Session, args: argparse.Namespace,
                    out: TextIO | None = None) -> Broadcaster:
    """Listen where --listen says, follow `session` and serve spectators on a
    thread; print the address to give watchers.

    Raises:
        UsageError: a bad --listen, --spectators or --handshake-timeout.
        NetworkError: the address cannot be listened on.
    """
    try:
        address = parse_address(args.listen, bare=True)
    except ValueError as e:
        raise UsageError(f"--listen {e}") from None
    if args.spectators < 1 or args.handshake_timeout <= 0:
        raise UsageError("with --listen, --spectators must be 1 or more and "
                         "--handshake-timeout more than 0")
    limits = HostLimits(handshake_timeout=args.handshake_timeout, spectators=args.spectators)
    broadcaster = Broadcaster(session, address, limits=limits)
    announce(broadcaster, out or sys.stdout)
    broadcaster.serve(_say_refused)
    return broadcaster


def announce(broadcaster: Broadcaster, out: TextIO) -> None:
    """The lines that tell where to watch from."""
    print("\n".join(broadcaster.where_to_watch()), file=out, flush=True)


def _say_refused(event: TurnedAway) -> None:
    print(terminal_safe(f"csl-game: {event.text}"), file=sys.stderr, flush=True)


def standings_json(rows: tuple[Standing, ...] | list[Standing]) -> list[dict[str, object]]:
    """Standings rows as JSON: position, name, points, wins, draws, losses."""
    return [{"position": s.position, "name": s.name, "points": s.points, "wins": s.wins,
             "draws": s.draws, "losses": s.losses} for s in rows]


def follow_tournament(watched: Watched, args: argparse.Namespace) -> int | None:
    """Print a tournament broadcast until its final standings; None when the
    address hosts one match instead (nothing was printed).

    Raises:
        NetworkError: the broadcast cannot be followed (refused, dropped, malformed).
    """
    out = sys.stderr if args.json else sys.stdout
    listener = ConsoleListener(out)
    final: StandingsNow | None = None
    total = 0
    try:
        while final is None:
            for event in watched.poll():
                if isinstance(event, HostedMatch):
                    return None
                if isinstance(event, TourneyBegun):
                    total = event.matches
                if isinstance(event, StandingsNow) and event.final:
                    final = event
                _say(event, listener, total, out)
            if final is None:
                watched.wait(_STEP)
    finally:
        watched.close()
    if args.json:
        print(json.dumps({"matches": total, "played": final.played,
                          "standings": standings_json(final.rows)}), flush=True)
    return 0


def _say(event: MatchEvent | WatchEvent, listener: ConsoleListener,
         total: int, out: TextIO) -> None:
    if isinstance(event, Failed):
        raise NetworkError(event.message)
    if isinstance(event, WatchedMatch):
        print(terminal_safe(f"\nMatch {event.index + 1} of {total}: {event.white} (White) vs "
                            f"{event.red} (Red)"), file=out)
    if isinstance(event, MatchEvent):
        listener.on_match_event(event)
    elif isinstance(event, TourneyBegun):
        mc = event.config
        print(terminal_safe(f"Watching a tournament: {len(event.players)} players "
                            f"({', '.join(event.players)}), {event.matches} matches, "
                            f"{mc.rows}x{mc.cols}, {mc.win_sequence} in a row, "
                            f"{mc.time_limit_ms} ms per move"), file=out)
    elif isinstance(event, OffScreen):
        print(terminal_safe(f"Match {event.index + 1} (played off screen): {event.text}"),
              file=out)
    elif isinstance(event, StandingsNow) and (event.played or event.final):
        title = ("Final standings:" if event.final
                 else f"Standings after {event.played} of {total} matches:")
        print(f"\n{title}", file=out)
        if event.rows:
            print(render_standings(event.rows), file=out)
    out.flush()
