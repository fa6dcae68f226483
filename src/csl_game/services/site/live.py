"""A session's site kept live as it plays: `LiveSite` (a thread of its own
writes it) and `follow()`."""

from __future__ import annotations

import atexit
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from csl_game.engine import (
    Points,
    PostMatch,
    Session,
    SessionEnded,
    SessionEvent,
    SessionStarted,
    TieBreakRound,
    parse_figures,
    record_to_json,
    settings_json,
)
from csl_game.errors import ConfigError
from csl_game.services.site.markup import DEFAULT_TITLE
from csl_game.services.site.pages import NowMatch
from csl_game.services.site.writer import SiteWriter

if TYPE_CHECKING:
    from csl_game.engine import Match, MatchEvent
    from csl_game.thinker.api import MatchConfig

__all__ = ["LiveSite", "follow", "MOVES_EVERY", "HEARTBEAT"]

MOVES_EVERY = 0.3
"""Seconds between writes of a match played here as its moves come (live.js)."""
HEARTBEAT = 15.0
"""Seconds between writes of live.js while nothing happens, so a reader can
tell a quiet session from one that stopped without a word (killed)."""


class LiveSite:
    """A session's site, kept live by a thread of its own: each match's files
    and the index within a moment of its end (however fast matches end, each
    write takes every match that ended meanwhile), a match played here move by
    move, a heartbeat while nothing happens; and a last write, final or
    stopped, however the session ends (`close`: by the session's end, by its
    verb on the way out, at the latest at exit).

    The session never waits for the site: the thread renders a copy of the
    event; a write that fails is said once on standard error and the session
    goes on.

    Raises:
        ConfigError: `folder` cannot be written.
    """

    def __init__(self, folder: str | Path, points: Points = Points(), *,
                 title: str = DEFAULT_TITLE, docs: Sequence[dict[str, Any]] = (),
                 results_file: str | Path | None = None, config: MatchConfig | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.writer = SiteWriter(folder, points, live=True, title=title,
                                 results_file=results_file)
        self.writer.docs.extend(docs)
        self.event = self.writer.event.snapshot()
        """The event as the session tells it (the thread writes copies of it)."""
        self.event.state = "live" if docs else "starting"
        self.event.settings = {} if config is None else dict(settings_json(config))
        self._warn = warn or _warn
        self._lock = threading.Condition()
        self._pending: list[dict[str, Any]] = []
        self._dirty_index = self._dirty_live = False
        self._closing: str | None = None
        self._closed = False
        self._warned = False
        self._session: Session | None = None
        self._done = {int(d.get("match", 0)) for d in docs}
        """Indices of the matches the site has or is about to write."""
        self._first_free = 0
        self._last_live = time.monotonic()
        self._index_due = 0.0
        """When the next index may be written (a slow write waits as long again)."""
        self.writer.event = self.event.snapshot()
        self.writer.write_all()
        self._thread = threading.Thread(target=self._run, name="csl-site", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    @property
    def folder(self) -> Path:
        return self.writer.folder

    # -------------------------------------------------------------- the session
    def attach(self, session: Session, docs: Sequence[dict[str, Any]] = ()) -> None:
        """Follow `session` (with `docs`, the matches a resumed results file
        holds, unless the site has them): its plan now, then its events."""
        self._session = session
        with self._lock:
            self._pending.extend(d for d in docs if int(d.get("match", 0)) not in self._done)
            self._done.update(int(d.get("match", 0)) for d in docs)
            self._plan(session, names=True)
            self._dirty_index = True
            self._lock.notify()
        session.subscribe(self._on_event)

    def _plan(self, session: Session, names: bool = False) -> None:
        """The matches playing (the first unplayed ones, one a worker), and
        with `names` the schedule, the players and the settings, from `session`."""
        ev = self.event
        if names:
            ev.total = session.total_matches
            ev.players = list(session.names)
            ev.schedule = [(i, session.names[f.white], session.names[f.red])
                           for i, f in enumerate(session.fixtures)]
            ev.settings = _settings_of(session)
        while self._first_free in self._done:
            self._first_free += 1
        playing: list[int] = []
        at = self._first_free
        while len(playing) < max(1, session.workers) and at < session.total_matches:
            if at not in self._done:
                playing.append(at)
            at += 1
        started = ev.started is not None and ev.state in ("starting", "live")
        ev.playing = sorted({*playing, *ev.now}) if started else []

    def _on_event(self, event: SessionEvent) -> None:
        session = self._session
        assert session is not None
        with self._lock:
            if isinstance(event, SessionStarted):
                self.event.started = self.event.started or time.time()
            elif isinstance(event, PostMatch):
                self.event.done_here += 1  # (a resumed file's matches are no PostMatch)
                self._done.add(event.index)
                record = event.record
                self._pending.append(record_to_json(
                    event.index, session.info(record.white), session.info(record.red),
                    record.result, session.config))
                self.event.now.pop(event.index, None)
            elif isinstance(event, TieBreakRound):
                self.event.note = ("A tie-break for first place is being played: "
                                   + ", ".join(event.players) + ".")
            elif isinstance(event, SessionEnded):
                self.event.note = ("First place was settled by a tie-break."
                                   if event.tie_break is not None else "")
                self._closing = "final"
            self._plan(session, names=isinstance(event, SessionStarted))
            self._dirty_index = True
            self._lock.notify()
        if isinstance(event, SessionEnded):
            self.close("final")

    def follow_match(self, match: Match) -> None:
        """Show `match`, played here, move by move on the index."""
        match.subscribe(self._on_match_event)

    def _on_match_event(self, event: MatchEvent) -> None:
        from csl_game.engine import MatchStarted, MovePerformed, ThinkingInfo

        session = self._session
        with self._lock:
            ev = self.event
            index = session.current_index if session is not None else 0
            if isinstance(event, MatchStarted):
                ev.now[index] = NowMatch(index, event.white, event.red)
                ev.playing = sorted({*ev.playing, index})
            now = ev.now.get(index)
            if now is None:
                return
            if isinstance(event, MovePerformed):
                move = event.move
                now.moves.append({"row": move.row, "col": move.col,
                                  "color": move.piece.color.name.lower(),
                                  "shape": move.piece.shape.name.lower(),
                                  "ms": round(event.elapsed * 1000, 3)})
            elif isinstance(event, ThinkingInfo):
                figures = parse_figures(event.text)
                if not figures:
                    return
                now.figures.setdefault(event.color.name.lower(), {}).update(figures)
            elif not isinstance(event, MatchStarted):
                return
            self._dirty_live = True
            self._lock.notify()

    # -------------------------------------------------------------- the thread
    def _run(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._closing:
                        return
                    now = time.monotonic()
                    since = now - self._last_live
                    if (self._pending or self._dirty_index) and now >= self._index_due:
                        break
                    if self._pending or self._dirty_index:  # a slow index: not all the time
                        self._lock.wait(self._index_due - now)
                        continue
                    if since >= (MOVES_EVERY if self._dirty_live else HEARTBEAT):
                        break  # the moves of a match played here, or a heartbeat
                    self._lock.wait((MOVES_EVERY if self._dirty_live else HEARTBEAT) - since)
                docs, self._pending = self._pending, []
                index = self._dirty_index or bool(docs)
                self._dirty_index = self._dirty_live = False
                self._last_live = time.monotonic()
                if docs:
                    if self.event.state == "starting":
                        self.event.state = "live"
                self.writer.event = self.event.snapshot()
            began = time.monotonic()
            try:
                if docs:
                    self.writer.add_all(docs)
                elif index:
                    self.writer.write_index()
                else:
                    self.writer.write_live()
            except ConfigError as e:
                self._say(str(e))
            if index:  # at most half of the time writing (a huge event's index is slow)
                self._index_due = 2 * time.monotonic() - began

    def _say(self, text: str) -> None:
        if not self._warned:
            self._warned = True
            self._warn(f"the web site is not up to date: {text}")

    def close(self, state: str = "stopped") -> None:
        """The last write: every page, final (every match was played) or
        stopped (the session ended before its end: interrupted, or csl-game
        failed); then the pages stop asking for changes. Once; later calls do
        nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._closing = self._closing or state
            self._lock.notify()
        self._thread.join(30)
        atexit.unregister(self.close)
        with self._lock:
            writer = self.writer
            writer.docs.extend(self._pending)
            self._pending = []
            ev = self.event
            played = {int(d.get("match", 0)) for d in writer.docs}
            complete = ev.total is not None and len(played) >= ev.total
            final = self._closing == "final" or complete
            ev.state = "final" if final else "stopped"
            ev.playing, ev.now = [], {}
            if not final:
                ev.note = ""
            writer.event = ev.snapshot()
        try:
            writer.write_all()
        except ConfigError as e:
            self._say(str(e))


def _settings_of(session: Session) -> dict[str, Any]:
    return dict(settings_json(session.config))


def _warn(text: str) -> None:
    print(f"csl-game: warning: {text}", file=sys.stderr, flush=True)


def follow(session: Session, folder: str | Path, points: Points = Points(),
           docs: Sequence[dict[str, Any]] = (), *, title: str = DEFAULT_TITLE,
           results_file: str | Path | None = None, site: LiveSite | None = None) -> LiveSite:
    """Keep a live site of `session` in `folder` (or in `site`, made before the
    session so the site is there from the start): its matches so far (`docs`,
    a resumed results file's), then each match as it ends; the last pages,
    final or stopped, once the session has ended (`close()` them on the way
    out of an interrupted session; exit does it at the latest).

    Raises:
        ConfigError: `folder` cannot be written.
    """
    if site is None:
        site = LiveSite(folder, points, title=title, docs=docs, results_file=results_file)
    else:
        site.attach(session, docs)
        return site
    site.attach(session)
    return site
