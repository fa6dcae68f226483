"""The index's sections about the matches played: the crosstable, the
matches, the statistics and the plots; and, for a large event, the pages
these move to (`matches-K.html`, a hundred matches each, and `plots.html`),
so that no page grows with the event: an index of 40 players (1,560
matches) stays well under 300 KB."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from csl_game.engine import Points
from csl_game.services.report import Report
from csl_game.services.site.charts import Series, line_chart, ratings_chart
from csl_game.services.site.markup import (
    Col,
    counted,
    esc,
    how_it_ended,
    html_table,
    match_page_name,
    name_html,
    result_text,
)


class _Event(Protocol):
    @property
    def total(self) -> int | None: ...


class Site(Protocol):
    """What these sections read of a site (pages.Site)."""

    @property
    def docs(self) -> list[dict[str, Any]]: ...
    @property
    def played(self) -> list[int]: ...
    @property
    def points(self) -> Points: ...
    @property
    def report(self) -> Report | None: ...
    @property
    def event(self) -> _Event: ...

__all__ = ["crosstable", "matches", "statistics", "plots", "MATCHES_PER_PAGE", "RECENT",
           "LINKED_PLAYERS", "CHART_PLAYERS", "CHART_POINTS", "matches_page_name",
           "matches_pages", "matches_page_body", "plots_on_a_page", "PLOTS_PAGE", "rounds"]

MATCHES_PER_PAGE = 100
"""Matches a page of matches lists (`matches-K.html`: matches 100(K-1)+1 to 100K)."""
RECENT = 20
"""Matches the index lists once the matches have pages of their own."""
LINKED_PLAYERS = 12
"""Players up to which each game of the crosstable is a link of its own;
beyond, a cell holds the pair's score (each match is in the pages of matches)."""
CHART_PLAYERS = 10
"""Players drawn in the chart of points (the first in the standings; its
colours are told apart up to this many); the ratings chart shows them all."""
CHART_POINTS = 60
"""Points at most a line of the points chart is drawn through (a chart is a
few hundred pixels wide: more would only weigh)."""
PLOTS_PAGE = "plots.html"
"""The plots' page of their own, beyond LINKED_PLAYERS players."""


def matches_page_name(page: int) -> str:
    """The page (from 0) of matches 100 * page + 1 to 100 * (page + 1)."""
    return f"matches-{page + 1}.html"


def plots_on_a_page(site: Site) -> bool:
    return site.report is not None and len(site.report.players) > LINKED_PLAYERS


def matches_pages(site: Site) -> int:
    """How many pages of matches the event has (0: its matches fit the index)."""
    size = max(site.event.total or 0, max(site.played, default=-1) + 1)
    return 0 if size <= MATCHES_PER_PAGE else -(-size // MATCHES_PER_PAGE)


def crosstable(site: Site, report: Report) -> str:
    linked = len(report.players) <= LINKED_PLAYERS
    # as the standings rank them; a large event's in the players' own order,
    # so that a match's end changes two rows, not the whole table
    order = ([s.player for s in report.table] if linked
             else list(range(len(report.players))))
    names = [report.players[i].name for i in order]
    games: dict[tuple[int, int], list[tuple[int, float, str]]] = {}
    for index, rec in sorted(zip(report.indices, report.records)):
        winner = rec.result.winner.name
        white = 1.0 if winner == "WHITE" else 0.5 if winner == "DRAW" else 0.0
        games.setdefault((rec.white, rec.red), []).append((index, white, "White"))
        games.setdefault((rec.red, rec.white), []).append((index, 1 - white, "Red"))
    rows = []
    for i, (player, name) in enumerate(zip(order, names)):
        cells = [esc(i + 1), name_html(name)]
        for j, other in enumerate(order):
            got = games.get((player, other))
            if player == other:
                cells.append('<span aria-label="no game">&mdash;</span>')
            elif not got:
                cells.append("")
            elif linked and len(got) <= 4:
                cells.append(" ".join(
                    f'<a href="{match_page_name(index)}">{_score(score)}<span '
                    f'class="sr-only">: {_score_word(score)} match {index + 1} as '
                    f"{colour} against {name_html(names[j])}</span></a>"
                    for index, score, colour in got))
            else:
                cells.append(f"{_score(sum(s for _, s, _ in got))}/{len(got)}")
        rows.append(cells)
    cols = [Col("#", True), Col("Player"),
            *(Col(str(j + 1), True) for j in range(len(names)))]
    what = ("in the standings' order, a link to each game" if linked else
            "in the players' order, as points over the games played; each game is in the "
            "matches")
    # each row a part: a match's end sends its two players' rows, not the table
    return ('<section id="crosstable" aria-labelledby="crosstable-h">'
            '<h2 id="crosstable-h">Crosstable</h2>' + html_table(
                cols, rows, "Points each player (row) scored against each other "
                f"(column, numbered as the rows), {what}", cards=False,
                ident="crosstable", parts="x") + "</section>")


def _rows(docs: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for d in docs:
        index = int(d.get("match", 0))
        link = f'<a href="{match_page_name(index)}">Match {index + 1}</a>'
        rows.append([link, name_html(d["white"]["name"]), name_html(d["red"]["name"]),
                     result_text(d), esc(how_it_ended(d)), esc(len(d.get("moves", ())))])
    return rows


def _ids(docs: Sequence[dict[str, Any]]) -> list[str]:
    """Each match's row a part of its own, named by its number."""
    return [f"m{int(d.get('match', 0)) + 1}" for d in docs]


_COLS = [Col("Match", label=""), Col("White"), Col("Red"), Col("Result"),
         Col("How it ended", label="Ended by"), Col("Moves", True)]


def matches(site: Site) -> str:
    """Every match (or, once they have pages, the last RECENT played and the
    pages)."""
    pages = matches_pages(site)
    if not pages:
        return ('<section id="matches" aria-labelledby="matches-h">'
                '<h2 id="matches-h">Matches</h2>' + html_table(
                    _COLS, _rows(site.docs), "Every match, with its result and how it ended",
                    row_header=0, ident="matches", parts=_ids(site.docs)) + "</section>")
    recent = site.docs[-RECENT:][::-1]
    return ('<section id="matches" aria-labelledby="matches-h">'
            '<h2 id="matches-h">Matches</h2>'
            f'<nav aria-label="Pages of matches" class="pages">{_pages_list(site, pages)}</nav>'
            + html_table(_COLS, _rows(recent), f"The last {counted(len(recent), 'match')} "
                         "by number, the latest first; every match is in the pages above",
                         row_header=0, ident="matches", parts=_ids(recent)) + "</section>")


def _pages_list(site: Site, pages: int, here: int | None = None) -> str:
    items = []
    for page in range(pages):
        first = page * MATCHES_PER_PAGE
        last = min(first + MATCHES_PER_PAGE, max(site.event.total or 0,
                                                 max(site.played, default=0) + 1))
        played = sum(first <= i < last for i in site.played)
        words = f"Matches {first + 1}\u2013{last}"
        if page == here:
            items.append(f'<li><a aria-current="page">{words}</a> ({played} played)</li>')
        else:
            items.append(f'<li><a href="{matches_page_name(page)}">{words}</a> '
                         f"({played} played)</li>")
    return f'<ul>{"".join(items)}</ul>'


def rounds(docs: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The matches in rounds: runs of matches, in their order, in which no
    player plays twice (a round robin's rounds, where each plays once)."""
    out: list[list[dict[str, Any]]] = []
    seen: set[str] = set()
    for doc in sorted(docs, key=lambda d: int(d.get("match", 0))):
        names = {doc["white"]["name"], doc["red"]["name"]}
        if not out or names & seen:
            out.append([])
            seen = set()
        out[-1].append(doc)
        seen |= names
    return out


def _rounds_html(docs: Sequence[dict[str, Any]], first: int) -> str:
    """The page's matches a round each, every round but the last folded (a
    reader opens the one wanted): a page of 100 matches stays short on a phone."""
    numbered = [(k + 1, r) for k, r in enumerate(rounds(docs))]
    mine = [(k, [d for d in r if first <= int(d.get("match", 0)) < first + MATCHES_PER_PAGE])
            for k, r in numbered]
    mine = [(k, r) for k, r in mine if r]
    folds = []
    for at, (k, r) in enumerate(mine):
        lo, hi = (int(r[i].get("match", 0)) + 1 for i in (0, -1))
        table = html_table(_COLS, _rows(r), f"Round {k}: matches {lo} to {hi}, with their "
                           "results and how they ended", row_header=0, ident=f"round-{k}",
                           parts=_ids(r))
        folds.append(f'<details class="round" id="round-{k}-d"'
                     f'{" open" if at == len(mine) - 1 else ""}><summary>Round {k}: matches '
                     f"{lo}\u2013{hi} ({counted(len(r), 'match')})</summary>{table}</details>")
    return "".join(folds)


def matches_page_body(site: Site, page: int) -> list[tuple[str, str]]:
    """The sections of a page of matches: the pages, and its matches by round."""
    first, pages = page * MATCHES_PER_PAGE, matches_pages(site)
    docs = [d for d in site.docs if first <= int(d.get("match", 0)) < first + MATCHES_PER_PAGE]
    if docs:
        table = _rounds_html(site.docs, first)
    else:
        table = "<p>None of these matches has been played yet.</p>"
    return [("pages", '<section id="pages" aria-labelledby="pages-h"><h2 id="pages-h">'
             f'Pages of matches</h2><nav aria-label="Pages of matches" class="pages">'
             f"{_pages_list(site, pages, page)}</nav></section>"),
            ("matches", '<section id="matches" aria-labelledby="matches-h">'
             f'<h2 id="matches-h">Matches {first + 1}\u2013{first + MATCHES_PER_PAGE}</h2>'
             f"{table}</section>")]


def statistics(site: Site) -> str:
    docs = site.docs
    n = len(docs)
    if not n:
        return ""
    white = sum(d.get("winner") == "white" for d in docs)
    red = sum(d.get("winner") == "red" for d in docs)
    draws = sum(d.get("winner") == "draw" for d in docs)
    forfeits = sum(bool(d.get("forfeit")) for d in docs)
    lengths = [len(d.get("moves", ())) for d in docs]
    times = [float(m.get("ms", 0.0)) for d in docs for m in d.get("moves", ())]
    wins = [len(d.get("moves", ())) for d in docs
            if not d.get("forfeit") and d.get("winner") in ("white", "red")]

    def pct(k: int) -> str:
        return f"{k} ({100 * k / n:.0f} %)"

    items = [("White won", esc(pct(white))), ("Red won", esc(pct(red))),
             ("Drawn", esc(pct(draws))), ("Lost by a forfeit", esc(pct(forfeits))),
             ("Average length", f"{sum(lengths) / n:.1f} moves"),
             ("Longest match", f"{max(lengths)} moves")]
    if wins:
        items.append(("Shortest win by a sequence", f"{min(wins)} moves"))
    if times:
        items.append(("Average thinking time", f"{sum(times) / len(times):.1f} ms a move"))
    slowest = _slowest_on_the_wall(docs)
    if slowest is not None:
        items.append(("Slowest move on the wall clock", slowest))
    return ('<section id="statistics" aria-labelledby="statistics-h">'
            '<h2 id="statistics-h">Statistics</h2><dl class="stats">'
            + "".join(f"<div><dt>{esc(k)}</dt><dd>{v}</dd></div>" for k, v in items)
            + f'</dl><p class="note">Over the {counted(n, "match")} played.</p></section>')


def plots(site: Site, report: Report, here: bool = True) -> str:
    """The plots (on a page of their own beyond LINKED_PLAYERS players: the
    index then links to it, unless `here`)."""
    if not here:
        return ('<section id="plots" aria-labelledby="plots-h"><h2 id="plots-h">Plots</h2>'
                f'<p><a href="{PLOTS_PAGE}">The points over the matches and the ratings with '
                "their intervals</a>, on a page of their own.</p></section>")
    order = [s.player for s in report.table]  # the legend as the standings rank them
    names = [report.players[i].name for i in order]
    drawn = order[:CHART_PLAYERS]
    totals = {p: 0.0 for p in order}
    series: dict[int, list[tuple[float, float]]] = {p: [] for p in drawn}
    played = sorted(zip(report.indices, report.records), key=lambda r: r[0])
    every = max(1, -(-len(played) // CHART_POINTS))
    for k, (_, rec) in enumerate(played, 1):
        winner = rec.result.winner.name
        for player, won in ((rec.white, "WHITE"), (rec.red, "RED")):
            totals[player] += (site.points.win if winner == won else site.points.draw
                               if winner == "DRAW" else site.points.loss)
        if k % every == 0 or k == len(played) or k == 1:
            for p in drawn:
                series[p].append((float(k), totals[p]))
    title = "Points over the matches (in the standings' order"
    title += (f"; the first {CHART_PLAYERS})" if len(order) > CHART_PLAYERS else ")")
    chart = line_chart([Series(n, tuple(series[p])) for p, n in zip(drawn, names)],
                       title, "matches played")
    rank = {name: i for i, name in enumerate(names)}
    ratings = sorted(report.ratings(), key=lambda r: rank.get(r.name, len(rank)))
    charts = (chart.replace("<figure", '<figure data-part="points"', 1)
              + ratings_chart(ratings).replace("<figure", '<figure data-part="ratings"', 1))
    return ('<section id="plots" aria-labelledby="plots-h"><h2 id="plots-h">Plots</h2>'
            + charts + "</section>")


def _score(score: float) -> str:
    whole, half = divmod(score, 1.0)
    if half:
        return ("" if not whole else f"{whole:g}") + "\u00bd"
    return f"{score:g}"


def _score_word(score: float) -> str:
    return {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(score, f"scored {score:g}")


def _slowest_on_the_wall(docs: Sequence[dict[str, Any]]) -> str | None:
    """The slowest move on the wall clock of the matches `docs`: its time, its
    thinker, its match and what it was charged (None where no move's wall time
    is known: files written before wall times were kept)."""
    best: tuple[float, str, int, float] | None = None
    for d in docs:
        for m in d.get("moves", ()):
            wall = m.get("wall_ms")
            if isinstance(wall, (int, float)) and (best is None or wall > best[0]):
                side = d["white"] if m.get("color") == "white" else d["red"]
                best = (float(wall), str(side["name"]), int(d.get("match", 0)),
                        float(m.get("ms", 0.0)))
    if best is None:
        return None
    wall, name, index, charged = best
    return (f"{wall:.0f} ms, by {name_html(name)} in match {index + 1} "
            f"(charged {charged:.0f} ms on the match&#x27;s clock)")
