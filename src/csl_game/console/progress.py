"""Progress of a long session: a bar, time left, the forfeits so far and live
standings (rich); and of any other long command's work (`WorkProgress`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from csl_game.engine import MatchResult, Standing, winner_text
from csl_game.services.forfeits import Forfeits
from csl_game.services.narration import terminal_safe
from csl_game.services.tables import Grid

__all__ = ["SessionProgress", "WorkProgress", "standings_table", "leaders_line"]


def standings_table(table: Sequence[Standing], title: str = "Standings") -> Table:
    return Grid.of(("#", "Player", "Pts", "W", "D", "L"),
                   ((s.position, terminal_safe(s.name), s.points, s.wins, s.draws, s.losses)
                    for s in table),
                   title=title).rich()


def _line(white: str, red: str, result: MatchResult) -> str:
    why = f" ({result.forfeit.name.lower().replace('_', ' ')})" if result.forfeit else ""
    return f"{white} (White) vs {red} (Red): {winner_text(result)}{why}"


def leaders_line(done: int, total: int, table: Sequence[Standing], shown: int = 3,
                 noun: str = "Matches") -> str:
    """'Matches 10/30: 1. Negamax 21 pts (7-0-1), 2. ...': the standings' first `shown`."""
    leaders = ", ".join(f"{s.position}. {s.name} {s.points:g} pts ({s.wins}-{s.draws}-{s.losses})"
                        for s in table[:shown])
    more = f", {len(table) - shown} more" if len(table) > shown else ""
    return f"{noun} {done}/{total}: {leaders}{more}"


class SessionProgress:
    """Shows each finished match (with `report_every`: a line of the leaders
    every that many matches instead); on a terminal also a bar and live standings."""

    def __init__(self, total: int, done: int, standings: Callable[[], list[Standing]],
                 quiet: bool = False, out: TextIO | None = None,
                 report_every: int | None = None) -> None:
        self.total, self.done = total, done
        self.report_every = report_every
        self._standings = standings
        self.quiet = quiet
        self.out = out or sys.stdout
        self._console = Console(file=self.out)
        self._live: Live | None = None
        self._progress = Progress(TextColumn("matches"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), TextColumn("left"),
                                  TimeRemainingColumn(), console=self._console)
        self._task = self._progress.add_task("session", total=total, completed=done)
        self.forfeits = Forfeits()
        """The forfeits of the matches played since it began (resumed ones not counted)."""

    def __enter__(self) -> SessionProgress:
        if not self.quiet and self._console.is_terminal:
            self._live = Live(self._render(), console=self._console, refresh_per_second=4)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)

    def _render(self) -> Group:
        summary = self.forfeits.summary()
        lines = () if summary is None else (Text(summary),)
        return Group(self._progress, *lines, standings_table(self._standings()))

    def say(self, line: str) -> None:
        """Print a line above the live display (or plainly when there is none);
        its names shown terminal-safe."""
        line = terminal_safe(line)
        if self._live is not None:
            self._live.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.out, flush=True)

    def record(self, number: int, white: str, red: str, result: MatchResult) -> None:
        """Call once per finished match; `number` is the match's own (its place in
        the session's order, from 1), as results files, reports and replays give it."""
        self.done += 1
        self.forfeits.add(result)
        self._progress.update(self._task, completed=self.done)
        if self.quiet:
            return
        if self.report_every is None:
            self.say(f"Match {number}/{self.total}: {_line(white, red, result)}")
        elif self.done % self.report_every == 0 or self.done == self.total:
            self.say(leaders_line(self.done, self.total, self._standings()))
        if self._live is not None:
            self._live.update(self._render())


class WorkProgress:
    """A long command's progress as a rich bar on standard error: what is being
    done, the bar, how much of it (`amount`, a format of rich's task), the time
    spent and left, and a note. Shown only where standard error is a terminal
    and not `quiet`, so a pipe, a file or -q get nothing; `transient`: the bar
    goes once the work is done (the answer follows on its own)."""

    def __init__(self, what: str, total: float, quiet: bool = False, out: TextIO | None = None,
                 amount: str = "{task.completed:.0f}/{task.total:.0f}",
                 transient: bool = False) -> None:
        console = Console(file=out or sys.stderr)
        self.shown = not quiet and console.is_terminal
        """Whether the bar is on the screen (a terminal, not quiet)."""
        self._progress = Progress(TextColumn(what), BarColumn(), TextColumn(amount),
                                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                                  TextColumn("{task.fields[note]}"), console=console,
                                  transient=transient)
        self._task = self._progress.add_task(what, total=total, note="")

    def __enter__(self) -> WorkProgress:
        if self.shown:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            self._progress.stop()

    def update(self, completed: float, note: str = "") -> None:
        """How much is done (of the total), and a few words beside the bar."""
        self._progress.update(self._task, completed=completed, note=terminal_safe(note))
