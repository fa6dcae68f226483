"""The site's pages but a match's: what an event is besides its matches
(`Event`), and `Site`, the pages of one moment of it: the frame every page
shares, the index and its sections, and the live data."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from csl_game.engine import Points, plus_minus, tie_order
from csl_game.services.report import Report, load_report
from csl_game.services.site import sections as sec
from csl_game.services.site.charts import board_svg
from csl_game.services.site.markup import (
    DEFAULT_TITLE,
    RESULTS_NAME,
    Col,
    counted,
    duration_text,
    esc,
    figures_text,
    html_table,
    iso_time,
    name_html,
    settings_text,
    utc_stamp,
)

__all__ = ["NowMatch", "Event", "Site", "looks_complete", "SCHEDULE_ROWS"]

SCHEDULE_ROWS = 30
"""The most matches the schedule lists (the rest are counted)."""


@dataclass
class NowMatch:
    """A match being played here, as its moves come."""

    index: int
    white: str
    red: str
    moves: list[dict[str, Any]] = field(default_factory=list)
    figures: dict[str, dict[str, float]] = field(default_factory=dict)
    """The last figures each side ('white', 'red') reported."""

    def to_json(self) -> dict[str, Any]:
        return {"match": self.index + 1, "white": self.white, "red": self.red,
                "moves": self.moves, "figures": self.figures}


def looks_complete(docs: Sequence[dict[str, Any]]) -> bool:
    """Whether the matches of a results file look like a whole event: numbered
    from 1 with none missing, and every pair of players met as often with each
    colour (a results file does not say how many matches were planned)."""
    if not docs:
        return False
    indices = sorted(int(d.get("match", 0)) for d in docs)
    if indices != list(range(len(docs))):
        return False
    names = {d[side]["name"] for d in docs for side in ("white", "red")}
    pairs: dict[tuple[str, str], int] = {}
    for d in docs:
        key = (d["white"]["name"], d["red"]["name"])
        pairs[key] = pairs.get(key, 0) + 1
    everyone = [(a, b) for a in names for b in names if a != b]
    counts = {pairs.get(p, 0) for p in everyone}
    return len(counts) == 1 and 0 not in counts


@dataclass
class Event:
    """What a site shows besides the finished matches: the plan and the pace."""

    title: str = DEFAULT_TITLE
    state: str = "final"
    total: int | None = None
    """Matches planned (None: not known, as for a results file)."""
    schedule: list[tuple[int, str, str]] = field(default_factory=list)
    """(index, White, Red) of every planned match."""
    players: list[str] = field(default_factory=list)
    """The players' names, for standings before any match has ended."""
    playing: list[int] = field(default_factory=list)
    """Indices of the matches being played."""
    now: dict[int, NowMatch] = field(default_factory=dict)
    started: float | None = None
    """time.time() when this run's first match began."""
    done_here: int = 0
    """Matches that ended in this run (not resumed ones)."""
    note: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    cut: int = 0
    """Characters of the results file's last line, cut off while it was written
    (the match it held is not shown: every page says so)."""

    def snapshot(self) -> Event:
        """A copy a thread may render while this one changes (its lists are
        replaced, never changed in place; the matches being played are copied)."""
        return replace(self, playing=list(self.playing), now={
            i: NowMatch(m.index, m.white, m.red, list(m.moves),
                        {k: dict(v) for k, v in m.figures.items()})
            for i, m in self.now.items()})


class Site:
    """The pages of a site, from its matches and its event."""

    def __init__(self, docs: Sequence[dict[str, Any]], points: Points, event: Event,
                 version: int) -> None:
        self.docs = sorted(docs, key=lambda d: int(d.get("match", 0)))
        self.points, self.event, self.version = points, event, version
        # as `report` reads it: players tied on points listed by name (tie_order)
        self.report = load_report(docs, points) if docs else None
        self.played = [int(d.get("match", 0)) for d in self.docs]

    @property
    def live(self) -> bool:
        return self.event.state in ("starting", "live")

    @property
    def complete(self) -> bool:
        """Every match of the event was played (a winner can be named)."""
        if self.event.state != "final" or not self.docs:
            return False
        if self.event.total is not None:
            return len(set(self.played)) >= self.event.total
        return looks_complete(self.docs)

    # -------------------------------------------------------------- common parts
    def state_text(self) -> str:
        ev, played = self.event, len(self.docs)
        matches = counted(ev.total or played, "match")
        done = f"{played} of {matches}" if ev.total else matches
        if ev.state == "starting" and not ev.total:
            return "Starting: the players are being set up. This page updates itself."
        if ev.state == "starting":
            return (f"Starting: {counted(ev.total or 0, 'match')} to play, none ended yet. "
                    "This page updates itself.")
        if ev.state == "live":
            return f"Live: {done} played. This page updates itself."
        if ev.state == "stopped":
            return (f"Stopped after {done}: the session ended before its last match. "
                    "These pages are final.")
        if ev.total and played < ev.total:
            return f"Final: {done} played (the rest were not needed)."
        if ev.total:
            return f"Final: all {matches} played."
        return f"Final: the results of {matches}."

    def _cut(self) -> str:
        if not self.event.cut:
            return ""
        return ('<p class="note" id="site-cut">The results file\'s last line was cut off '
                f"({self.event.cut} characters without an end of line: the program stopped "
                "while writing it); the match it held is not shown.</p>")

    def page(self, title: str, body: str, kind: str, heading: str = "",
             extra: str = "", match: int | None = None, sections: str = "") -> str:
        """A page; with `sections`, a live one kept by its sections, whose
        changes a live reader loads from `<sections>-live.js`."""
        stamp = utc_stamp(time.time())
        attrs = (f' data-page="{kind}" data-version="{self.version}"'
                 + (f' data-sections="{sections}"' if sections else "")
                 + (f' data-match="{match + 1}"' if match is not None else "")
                 + (' data-live="1"' if self.live else "") + f' data-state="{self.event.state}"')
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{esc(title)}</title>"
                '<link rel="icon" href="favicon.svg" type="image/svg+xml">'
                '<link rel="stylesheet" href="style.css">'
                '<script src="site.js" defer></script></head>'
                f"<body{attrs}>"
                '<a class="skip" href="#main">Skip to the content</a>'
                f"<header>{heading or f'<h1>{esc(title)}</h1>'}"
                f'<p class="state" id="site-state">{esc(self.state_text())}</p>{self._cut()}'
                f'{extra}</header>'
                f'<main id="main" tabindex="-1">{body}</main>'
                f'<footer><p id="written">Written by csl-game at {stamp}.</p></footer>'
                '<div class="sr-only" id="announce" role="status" aria-live="polite"></div>'
                "</body></html>\n")

    # -------------------------------------------------------------- the index
    def index_sections(self) -> list[tuple[str, str]]:
        """(id, HTML) of each section of the index, in order."""
        sections = [("summary", self._summary())]
        if self.complete and self.report is not None:
            sections.append(("winner", self._winner(self.report)))
        if self.live and (self.event.playing or self.event.note):
            sections.append(("now", self._now()))
        sections.append(("standings", self._standings()))
        if self.live and self._remaining():
            sections.append(("schedule", self._schedule()))
        if self.report is not None:
            sections += [("crosstable", sec.crosstable(self, self.report)),
                         ("matches", sec.matches(self)),
                         ("statistics", sec.statistics(self)),
                         ("plots", sec.plots(self, self.report,
                                             not sec.plots_on_a_page(self)))]
        sections.append(("data", self._downloads()))
        return [(ident, html_) for ident, html_ in sections if html_]

    def index(self, sections: list[tuple[str, str]] | None = None) -> str:
        """The index (of `sections`, index_sections() as a live page cut them)."""
        if sections is None:
            sections = self.index_sections()
        body = "".join(html_ for _, html_ in sections)
        links = [("standings", "Standings")]
        if self.live and self._remaining():
            links.append(("schedule", "Schedule"))
        if self.report is not None:
            links += [("crosstable", "Crosstable"), ("matches", "Matches"),
                      ("statistics", "Statistics"), ("plots", "Plots")]
        links.append(("data", "Data"))
        nav = ('<nav class="sections" aria-label="Sections of this page"><ul>'
               + "".join(f'<li><a href="#{i}">{t}</a></li>' for i, t in links) + "</ul></nav>")
        return self.page(self.event.title, body, "index", extra=nav, sections="index")

    def matches_sections(self, page: int) -> list[tuple[str, str]]:
        """The sections of the page of matches `page` (from 0; sections.MATCHES_PER_PAGE each)."""
        return sec.matches_page_body(self, page)

    def plots_sections(self) -> list[tuple[str, str]]:
        assert self.report is not None
        return [("plots", sec.plots(self, self.report))]

    def sub_page(self, name: str, heading: str, sections: list[tuple[str, str]]) -> str:
        """A page of the index's (a page of matches, the plots): live as the index."""
        crumb = (f'<p class="crumb"><a href="index.html">{esc(self.event.title)}</a></p>'
                 f"<h1>{esc(heading)}</h1>")
        return self.page(f"{heading} \u2013 {self.event.title}",
                         "".join(h for _, h in sections), "list", crumb,
                         sections=name[:-len(".html")])

    def _summary(self) -> str:
        settings = self.event.settings or (self.docs[0].get("settings", {}) if self.docs
                                           else {})
        if not settings and not self.docs:
            return ""
        return (f'<section id="summary" class="summary"><p class="settings">'
                f"{esc(settings_text(settings))}.</p></section>")

    def _winner(self, report: Report) -> str:
        first = [s for s in report.table if s.position == 1]
        if not first:
            return ""
        if len(first) == 1:
            s = first[0]
            text = (f"<strong>{name_html(s.name)}</strong> wins with {s.points} points "
                    f"({s.wins} won, {s.draws} drawn, {s.losses} lost).")
        else:
            text = ("Tied for first place with " + f"{first[0].points} points: "
                    + ", ".join(f"<strong>{name_html(s.name)}</strong>" for s in first) + ".")
        note = f" {esc(self.event.note)}" if self.event.note else ""
        return (f'<section id="winner" class="winner" aria-labelledby="winner-h">'
                '<h2 id="winner-h">Winner</h2>'
                f"<p>{text}{note}</p></section>")

    def _now(self) -> str:
        cards = []
        for index in self.event.playing:
            now = self.event.now.get(index)
            white, red = self._pairing(index)
            figures = ""
            board = ""
            if now is not None:
                board = board_svg(self.event.settings, now.moves, len(now.moves), (),
                                  f"Match {index + 1} after {len(now.moves)} moves")
                figures = "".join(
                    f'<p class="figs {side}"><span class="who">{side.title()} ({name_html(name)})'
                    f'</span> <span class="val">'
                    f'{esc(figures_text(now.figures.get(side, {})) or "no figures reported")}'
                    "</span></p>" for side, name in (("white", white), ("red", red)))
                figures = (f'<p class="moves-n">{len(now.moves)} moves so far</p>' + figures)
            else:
                figures = ('<p class="moves-n">Played in a worker process: its moves '
                           "appear when it ends.</p>")
            cards.append(f'<li class="card now-card" data-match="{index + 1}">'
                         f"<h3>Match {index + 1}: {name_html(white)} (White) vs {name_html(red)} (Red)"
                         "</h3>"
                         f'<div class="now-board">{board}</div>{figures}</li>')
        note = f'<p class="note">{esc(self.event.note)}</p>' if self.event.note else ""
        return ('<section id="now" aria-labelledby="now-h"><h2 id="now-h">Now playing</h2>'
                f'{note}<ul class="cards-list" id="now-list">{"".join(cards)}</ul></section>')

    def _pairing(self, index: int) -> tuple[str, str]:
        for i, white, red in self.event.schedule:
            if i == index:
                return white, red
        return "?", "?"

    def _remaining(self) -> list[tuple[int, str, str]]:
        done = set(self.played)
        return [s for s in self.event.schedule if s[0] not in done]

    def _eta(self) -> tuple[float | None, float | None]:
        """(seconds a match takes at the pace so far, seconds left), or None."""
        ev = self.event
        if not ev.started or not ev.done_here:
            return None, None
        # the matches being played count as half played: early on, with two
        # workers, the first match to end leaves the other about done, and
        # the matches ended alone would make the pace up to twice too slow
        done = set(self.played)
        playing = sum(1 for i in ev.playing if i not in done)
        pace = (time.time() - ev.started) / (ev.done_here + playing / 2)
        return pace, pace * len(self._remaining())

    def _schedule(self) -> str:
        rest = self._remaining()
        playing = set(self.event.playing)
        rows = [[esc(i + 1), name_html(white), name_html(red), "playing" if i in playing else "to play"]
                for i, white, red in rest[:SCHEDULE_ROWS]]
        more = (f'<p class="note">And {counted(len(rest) - SCHEDULE_ROWS, "match")} more.</p>'
                if len(rest) > SCHEDULE_ROWS else "")
        pace, left = self._eta()
        if left is None:
            eta = "How long they will take is known once a match has ended."
        else:
            end = time.time() + left
            assert pace is not None
            eta = (f"At the pace so far (a match every {duration_text(pace)}), about "
                   f'{duration_text(left)} more: done around <time datetime="{iso_time(end)}" '
                   f'class="eta">{datetime.fromtimestamp(end, UTC).strftime("%H:%M UTC")}'
                   "</time>.")
        cols = [Col("Match", True), Col("White"), Col("Red"), Col("Status", label="")]
        return ('<section id="schedule" aria-labelledby="schedule-h">'
                f'<h2 id="schedule-h">Schedule</h2><p class="eta-line">'
                f"{counted(len(rest), 'match')} to play. {eta}</p>"
                + html_table(cols, rows, "The matches still to play, in the order they start",
                         row_header=0, ident="schedule") + more + "</section>")

    def _standings(self) -> str:
        rows = []
        if self.report is None and not self.event.players:
            return ('<section id="standings" aria-labelledby="standings-h">'
                    '<h2 id="standings-h">Standings</h2><p>The players are being set up; '
                    "the standings and the schedule follow.</p></section>")
        if self.report is None:
            names = sorted(self.event.players, key=tie_order)
            rows = [["1", name_html(n), "0", "0", "0", "0", "&ndash;", "&ndash;"] for n in names]
        else:
            ratings = self.report.ratings()
            elo = {r.name: r for r in ratings}
            for s in self.report.table:
                r = elo.get(s.name)
                score = (s.wins + s.draws / 2) / s.played if s.played else 0.0
                rows.append([esc(s.position), name_html(s.name), esc(s.points), esc(s.wins),
                             esc(s.draws), esc(s.losses), f"{100 * score:.1f} %",
                             "&ndash;" if r is None else esc(plus_minus(r))])
        cols = [Col("#", True, ""), Col("Player", label=""), Col("Points", True, "Pts"),
                Col("W", True), Col("D", True), Col("L", True), Col("Score", True, ""),
                Col("Elo (95 %)", True, "Elo")]
        return ('<section id="standings" aria-labelledby="standings-h">'
                '<h2 id="standings-h">Standings</h2>' + html_table(
                    cols, rows, "Standings: points, wins, draws and losses, score, and "
                    "maximum-likelihood Elo with half its 95 % interval", ident="standings")
                + "</section>")

    def _downloads(self) -> str:
        return ('<section id="data" aria-labelledby="data-h"><h2 id="data-h">Data</h2>'
                f'<ul><li><a href="{RESULTS_NAME}" download>The results file '
                f"({RESULTS_NAME})</a>: every match, a JSON line each, as "
                "<code>csl-game report</code> reads it (its standings, ratings, replays).</li>"
                "<li>Each match's page offers its moves as text and as JSON.</li></ul>"
                "</section>")

    # -------------------------------------------------------------- beside a match (match_page.py)
    def neighbours(self, index: int) -> tuple[int | None, int | None]:
        before = [i for i in self.played if i < index]
        after = [i for i in self.played if i > index]
        return (max(before) if before else None), (min(after) if after else None)

    # -------------------------------------------------------------- live data
    def live_data(self, index_version: int) -> dict[str, Any]:
        """What live.js says: how far the event is, the version of the index's
        sections (index-live.js), the matches played and being played."""
        ev = self.event
        pace, left = self._eta()
        return {"version": self.version, "index": index_version, "state": ev.state,
                "title": ev.title,
                "text": self.state_text(), "played": [i + 1 for i in self.played],
                "total": ev.total, "playing": [i + 1 for i in ev.playing],
                "now": [ev.now[i].to_json() for i in ev.playing if i in ev.now],
                "settings": ev.settings, "updated": iso_time(time.time()),
                "beat": time.time(), "pace_s": pace, "left_s": left,
                "eta": iso_time(time.time() + left) if left is not None else None}
