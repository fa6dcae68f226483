"""What the engine-testing verbs (sprt, session, league) share beside the
match options: the book as the run plays it (--openings-order, -start,
-plies), the node limit given to the thinkers that take one (--nodes), and
what is written as each game ends (--pgnout's PGN, --log's lines)."""

from __future__ import annotations

import argparse
import inspect
import logging
import os
import shlex
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import TextIO

from csl_game.engine import (
    Opening,
    PostMatch,
    Session,
    SessionEvent,
    SessionStarted,
    record_to_json,
)
from csl_game.errors import UsageError
from csl_game.model.notation import format_moves
from csl_game.services.league import make_openings
from csl_game.services.openings import arrange, read_book
from csl_game.services.report import load_report
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["lab_book", "give_nodes", "takes_nodes", "LabOutput", "DRAWN_PLIES"]

DRAWN_PLIES = 2
"""Plies of the openings drawn when there is no book (--openings-plies' default)."""
_MAX_DRAWN_PLIES = 2


def lab_book(args: argparse.Namespace, config: MatchConfig,
             drawn: bool = True) -> list[Opening] | None:
    """The openings of the run: --openings FILE arranged by --openings-order,
    --openings-start and --openings-plies; without a file, with `drawn`,
    every opening of --openings-plies moves (each side's own shape)
    shuffled by --seed, from --openings-start; without, None (no book).

    Raises:
        ConfigError, UsageError: a bad book or value (one line).
    """
    seed = getattr(args, "seed", 1)
    plies, start = args.openings_plies, args.openings_start
    if args.openings:
        return arrange(read_book(args.openings, config), args.openings_order, start, plies,
                       seed)
    if not drawn:
        given = [flag for flag, value in (("--openings-plies", plies),
                                          ("--openings-start", start)) if value is not None]
        if args.openings_order != "sequential":
            given.append("--openings-order")
        if given:
            raise UsageError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} "
                             "an opening book: --openings FILE")
        return None
    plies = DRAWN_PLIES if plies is None else plies
    if not 0 <= plies <= _MAX_DRAWN_PLIES:
        raise UsageError(f"--openings-plies without --openings must be from 0 to "
                         f"{_MAX_DRAWN_PLIES} (the openings drawn), got {plies}")
    return arrange(make_openings(config, plies, seed), "sequential", start)


def takes_nodes(proto: ThinkerPrototype) -> bool:
    """Whether the thinker's class says it takes ``nodes=N`` (its
    `takes_nodes`), read without running its code; a thinker of a
    --thinkers file is not imported here, so it does not."""
    cls = proto.thinker_class
    return isinstance(cls, type) and inspect.getattr_static(cls, "takes_nodes", False) is True


def give_nodes(players: Sequence[object], nodes: int | None, out: TextIO | None = None) -> None:
    """Add ``nodes=N`` to the parameters of each thinker that takes it (unless
    its parameters set nodes already); a note on `out` (standard error) names
    the thinkers that play by the clock instead.

    Raises:
        UsageError: N below 1.
    """
    if nodes is None:
        return
    if nodes < 1:
        raise UsageError(f"--nodes must be at least 1, got {nodes}")
    by_clock: list[str] = []
    for player in players:
        if not isinstance(player, ThinkerPrototype):
            continue
        if not takes_nodes(player):
            by_clock.append(player.requested_name)
        elif "nodes=" not in player.params.replace(" ", "").lower():
            player.params = f"{player.params} nodes={nodes}".strip()
    if by_clock:
        print(f"csl-game: note: --nodes {nodes}: {', '.join(dict.fromkeys(by_clock))} take "
              "no node limit (negamax and mcts do) and play by the clock",
              file=out or sys.stderr, flush=True)


def _stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        where = "" if record.name == _LAB else f"{record.levelname.lower()}: {record.name}: "
        return f"{_stamp()} {where}{record.getMessage()}"


_LAB = "csl_game.lab"


class LabOutput:
    """--pgnout and --log of one run: each game appended to the PGN file as it
    ends (each game whole, on disk before the next), and the log's lines."""

    def __init__(self, args: argparse.Namespace, stack: ExitStack) -> None:
        """Open the files (closed with `stack`) and log the command.

        Raises:
            UsageError: a file cannot be opened for writing (one line).
        """
        self.verb = args.verb
        self.pgn: TextIO | None = None
        self.logger: logging.Logger | None = None
        if args.pgnout:
            self.pgn = _open(args.pgnout, "PGN file")
            stack.callback(self.pgn.close)
        if args.log:
            self._start_log(_open(args.log, "log file"), stack)
            command = getattr(args, "command_line", None) or [args.verb]
            self.say(f"started: csl-game {shlex.join(command)} "
                     f"(pid {os.getpid()})")

    def _start_log(self, file: TextIO, stack: ExitStack) -> None:
        handler = logging.StreamHandler(file)
        handler.setFormatter(_Formatter())
        self.logger = logging.getLogger(_LAB)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False  # the run's lines go to the file only
        engine = logging.getLogger("csl_game")  # its diagnostics, as --log-level lets them
        # undone last first: the handlers go, then the file is flushed and closed
        stack.callback(file.close)
        stack.callback(handler.flush)
        for logger in (self.logger, engine):
            logger.addHandler(handler)
            stack.callback(logger.removeHandler, handler)

    def say(self, text: str) -> None:
        """A line of the log (nothing without --log)."""
        if self.logger is not None:
            self.logger.info(text)
            for handler in self.logger.handlers:
                handler.flush()

    def follow(self, session: Session) -> None:
        """Write each game of `session` as it ends."""
        def on_event(event: SessionEvent) -> None:
            if isinstance(event, SessionStarted):
                self.say(f"playing {event.total_matches} games: {', '.join(event.players)}")
            if not isinstance(event, PostMatch):
                return
            record, fixture = event.record, session.fixtures[event.index]
            doc = record_to_json(event.index, session.info(record.white),
                                 session.info(record.red), record.result, session.config,
                                 book=len(fixture.opening))
            if self.pgn is not None:
                self._write_pgn(load_report([doc]).pgn(f"csl-game {self.verb}"))
            res = record.result
            how = f" ({res.forfeit.name.lower()}: {res.detail})" if res.forfeit else \
                f" ({res.adjudicated})" if res.adjudicated else ""
            self.say(f"game {event.index + 1} ended: {session.names[record.white]} (White) vs "
                     f"{session.names[record.red]} (Red) from [{format_moves(fixture.opening)}]"
                     f": {res.winner.name.lower()}{how} in {len(res.moves)} moves")

        session.subscribe(on_event)

    def _write_pgn(self, text: str) -> None:
        assert self.pgn is not None
        try:
            self.pgn.write(text + "\n")
            self.pgn.flush()
            os.fsync(self.pgn.fileno())
        except OSError as e:
            raise UsageError(f"cannot write PGN file {self.pgn.name}: {e.strerror or e}") \
                from None


def _open(path: str, what: str) -> TextIO:
    try:
        return open(path, "a", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {what} {path}: {e.strerror or e}") from None
