"""A tournament's own web site, from the lines of a results file.

`write_site()` writes a self-contained static site into a folder: no network,
no CDN, nothing but HTML, CSS, SVG drawn here and one small script of the
project's own (``site.js``, which steps through a match's moves). It works
from ``file://`` and from any static host:

- ``index.html``: the settings, the standings (points, W/D/L, score and
  maximum-likelihood Elo with its 95 % interval), the crosstable, every match
  with how it ended, and two plots: points over the matches, and the ratings
  with their error bars;
- ``match-N.html`` per match (N as everywhere: from 1, in the session's
  order): the board drawn as in the game, stepping and auto-play (buttons and
  arrow keys), the move list with times, and the thinkers' reported depth and
  score as a graph when the results hold them (csl_game.engine.figures).

Every file is written whole to a temporary name and renamed into place, so a
reader never sees half a page; `SiteWriter` rewrites only the index and the
new match's page as each match ends (live pages refresh themselves). A site is
made to be published: its files are readable by everyone (FILE_MODE, 0644)
and the folders it makes are open to everyone (FOLDER_MODE, 0755), whatever
the umask, so a web server running as another user serves them.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

from csl_game.engine import (
    ForfeitReason,
    Points,
    PostMatch,
    Rating,
    Session,
    SessionEnded,
    SessionEvent,
    record_to_json,
)
from csl_game.errors import ConfigError
from csl_game.services.narration import FORFEIT_WORDS
from csl_game.services.report import Report, load_report
from csl_game.services.tables import Grid

__all__ = ["write_site", "SiteWriter", "follow", "match_page_name", "how_it_ended",
           "REFRESH_SECONDS", "FILE_MODE", "FOLDER_MODE"]

REFRESH_SECONDS = 10
"""How often a live site's pages reload themselves."""
SCORE_CAP = 1000.0
"""Scores beyond this (proven wins and losses) are drawn at it."""
INDEX_EVERY = 1.0
"""Seconds between rewrites of a live site's index (each match's page is written
at once; the index, whose ratings take the longest, at most this often)."""
FILE_MODE = 0o644
"""A site file's mode: its owner writes it, everyone reads it (a temporary
file's own 0600 would keep a web server of another user out)."""
FOLDER_MODE = 0o755
"""The mode of a folder the site makes: everyone may read it and go in."""
_COLORS = {"white": "#f4f1e8", "red": "#c8323c"}
_STROKE = {"white": "#55524a", "red": "#6d1016"}
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")
_STATIC = ("style.css", "site.js")


def match_page_name(index: int) -> str:
    """The page of the match with this index (its number is index + 1)."""
    return f"match-{index + 1}.html"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _write(path: Path, text: str) -> None:
    """Write `text` to `path` atomically: a temporary file (made FILE_MODE
    before it takes the name), then a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------ what is shown
def how_it_ended(doc: dict[str, Any]) -> str:
    """A word or two: 'sequence', 'draw', 'timeout', 'crash', 'invalid move', ..."""
    forfeit = doc.get("forfeit")
    if forfeit:
        try:
            return FORFEIT_WORDS[ForfeitReason[str(forfeit).upper()]][0]
        except KeyError:
            return str(forfeit).replace("_", " ")
    if doc.get("resigned"):
        return "resignation"
    return "draw" if doc.get("winner") == "draw" else "sequence"


def _result_text(doc: dict[str, Any]) -> str:
    winner = doc.get("winner")
    if winner == "draw":
        return "Draw"
    if winner in ("white", "red"):
        return f"{winner.title()} ({doc.get('winner_name') or doc[winner]['name']}) won"
    return "Not finished"


def _settings_text(settings: dict[str, Any]) -> str:
    try:
        return (f"{settings['rows']}x{settings['cols']} board, {settings['win_sequence']} in a "
                f"row, {settings['round_pieces']} round + {settings['square_pieces']} square "
                f"pieces each, {settings['time_limit_ms']} ms a move")
    except (KeyError, TypeError):
        return "settings not recorded"


# ------------------------------------------------------------------ SVG
def board_svg(settings: dict[str, Any], moves: Sequence[dict[str, Any]], upto: int,
              solution: Sequence[Sequence[int]] = (), label: str = "") -> str:
    """The board after `upto` moves, as the game draws it: round pieces as
    discs, square ones as squares, white and red; the winning run ringed."""
    rows, cols = int(settings.get("rows", 6)), int(settings.get("cols", 7))
    cell = 40
    width, height = cols * cell + 20, rows * cell + 40
    parts = [f'<svg class="board" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{_e(label)}" xmlns="http://www.w3.org/2000/svg">',
             f'<rect x="5" y="5" width="{cols * cell + 10}" height="{rows * cell + 10}" rx="8" '
             'class="frame"/>']
    for c in range(cols):
        parts.append(f'<text x="{10 + c * cell + cell // 2}" y="{rows * cell + 34}" '
                     f'class="col">{c}</text>')
        for r in range(rows):
            x, y = 10 + c * cell, 10 + (rows - 1 - r) * cell
            parts.append(f'<circle cx="{x + cell / 2}" cy="{y + cell / 2}" r="{cell * 0.42}" '
                         'class="hole"/>')
    won = {tuple(p) for p in solution} if upto == len(moves) else set()
    for i, m in enumerate(moves[:upto]):
        parts.append(_piece(m, rows, cell, (m["row"], m["col"]) in won, i == upto - 1))
    parts.append("</svg>")
    return "".join(parts)


def _piece(m: dict[str, Any], rows: int, cell: int, winning: bool, last: bool) -> str:
    x = 10 + m["col"] * cell + cell / 2
    y = 10 + (rows - 1 - m["row"]) * cell + cell / 2
    fill, stroke = _COLORS.get(m["color"], "#888"), _STROKE.get(m["color"], "#333")
    size = cell * 0.38
    cls = "piece" + (" win" if winning else "") + (" last" if last else "")
    if m["shape"] == "round":
        return (f'<circle cx="{x}" cy="{y}" r="{size}" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="2" class="{cls}"/>')
    return (f'<rect x="{x - size}" y="{y - size}" width="{2 * size}" height="{2 * size}" '
            f'rx="3" fill="{fill}" stroke="{stroke}" stroke-width="2" class="{cls}"/>')


def line_chart(series: Sequence[tuple[str, Sequence[float]]], title: str, x_label: str,
               y_label: str) -> str:
    """Lines over a common x axis (1, 2, ...), with a legend."""
    points = [v for _, values in series for v in values]
    if not points:
        return ""
    n = max(len(values) for _, values in series)
    low, high = min(points + [0.0]), max(points + [0.0])
    if high == low:
        high = low + 1
    w, h, left, bottom = 640, 200, 48, 34

    def px(i: int) -> float:
        return left + (w - left - 10) * (i / max(1, n - 1))

    def py(v: float) -> float:
        return 10 + (h - bottom - 10) * (1 - (v - low) / (high - low))

    parts = [f'<figure><svg class="chart" viewBox="0 0 {w} {h + 22 * len(series)}" role="img" '
             f'aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{left}" y1="{py(0)}" x2="{w - 10}" y2="{py(0)}" class="axis"/>',
             f'<text x="4" y="{py(high) + 4}" class="tick">{high:g}</text>',
             f'<text x="4" y="{py(low) + 4}" class="tick">{low:g}</text>',
             f'<text x="{left}" y="{h - 6}" class="tick">{_e(x_label)} 1</text>',
             f'<text x="{w - 10}" y="{h - 6}" class="tick end">{n}</text>']
    for k, (name, values) in enumerate(series):
        colour = _PALETTE[k % len(_PALETTE)]
        path = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                     'stroke-width="2"/>')
        y = h + 16 + 22 * k
        parts.append(f'<rect x="{left}" y="{y - 10}" width="14" height="4" fill="{colour}"/>'
                     f'<text x="{left + 20}" y="{y}" class="legend">{_e(name)}</text>')
    parts.append(f'</svg><figcaption>{_e(title)} ({_e(y_label)})</figcaption></figure>')
    return "".join(parts)


def ratings_chart(ratings: Sequence[Rating]) -> str:
    """Each player's Elo as a dot with its 95 % interval as a bar."""
    if not ratings:
        return ""
    low = min(r.ci95[0] for r in ratings)
    high = max(r.ci95[1] for r in ratings)
    low, high = min(low, -50.0), max(high, 50.0)
    w, row, left = 640, 26, 170

    def px(v: float) -> float:
        return left + (w - left - 20) * (v - low) / (high - low)

    h = row * len(ratings) + 30
    parts = [f'<figure><svg class="chart" viewBox="0 0 {w} {h}" role="img" '
             'aria-label="Ratings with 95 % intervals" xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{px(0)}" y1="4" x2="{px(0)}" y2="{h - 22}" class="axis"/>',
             f'<text x="{px(0)}" y="{h - 6}" class="tick mid">0</text>',
             f'<text x="{px(low)}" y="{h - 6}" class="tick">{low:+.0f}</text>',
             f'<text x="{px(high)}" y="{h - 6}" class="tick end">{high:+.0f}</text>']
    for i, r in enumerate(ratings):
        y = 16 + i * row
        parts.append(f'<text x="{left - 8}" y="{y + 4}" class="legend end">{_e(r.name)}</text>'
                     f'<line x1="{px(r.ci95[0]):.1f}" y1="{y}" x2="{px(r.ci95[1]):.1f}" '
                     f'y2="{y}" class="bar"/><circle cx="{px(r.elo):.1f}" cy="{y}" r="5" '
                     f'class="dot"><title>{_e(r.name)}: {r.elo:+.0f} '
                     f'[{r.ci95[0]:+.0f}, {r.ci95[1]:+.0f}]</title></circle>')
    parts.append("</svg><figcaption>Elo (maximum likelihood, average 0) with 95 % "
                 "intervals</figcaption></figure>")
    return "".join(parts)


# ------------------------------------------------------------------ pages
def _page(title: str, body: str, live: bool, home: bool = False) -> str:
    refresh = f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">' if live else ""
    back = "" if home else '<p class="nav"><a href="index.html">&larr; All matches</a></p>'
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    state = "live: this page reloads itself as matches end" if live else "final"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"{refresh}<title>{_e(title)}</title>"
            '<link rel="stylesheet" href="style.css"></head><body>'
            f"<header><h1>{_e(title)}</h1>{back}</header><main>{body}</main>"
            f'<footer>Written by csl-game at {stamp} ({state}).</footer></body></html>\n')


@dataclass
class _Site:
    docs: list[dict[str, Any]]
    points: Points

    def ordered(self) -> list[dict[str, Any]]:
        return sorted(self.docs, key=lambda d: int(d.get("match", 0)))

    def index(self, live: bool) -> str:
        docs = self.ordered()
        report = load_report(docs, self.points)
        ratings = report.ratings() if docs else []
        elo = {r.name: r for r in ratings}
        body = [f'<p class="settings">{_e(_settings_text(docs[0].get("settings", {})))}; '
                f"{len(docs)} matches played.</p>"]
        standings = []
        for s in report.table:
            r = elo.get(s.name)
            games = s.wins + s.draws + s.losses
            score = (s.wins + s.draws / 2) / games if games else 0.0
            standings.append([_e(s.position), _e(s.name), _e(s.points), _e(s.wins),
                              _e(s.draws), _e(s.losses), f"{100 * score:.1f} %",
                              "-" if r is None else
                              f"{r.elo:+.0f} &plusmn; {(r.ci95[1] - r.ci95[0]) / 2:.0f}"])
        body.append('<section><h2 id="standings">Standings</h2>' + Grid.of(
            ["#", "Player", "Points", "W", "D", "L", "Score", "Elo (95 %)"], standings).html(
            "Standings: points, wins, draws and losses, score, and maximum-likelihood Elo "
            "with half its 95 % interval") + "</section>")
        body.append(self._crosstable(report))
        body.append(self._matches(docs))
        body.append('<section><h2 id="plots">Plots</h2>' + self._points_chart(report, docs)
                    + ratings_chart(ratings) + "</section>")
        return _page("Tournament", "".join(body), live, home=True)

    def _crosstable(self, report: Report) -> str:
        order = [s.player for s in report.table]  # as the standings rank them
        names = [report.players[i].name for i in order]
        scores: dict[tuple[int, int], list[float]] = {}
        for rec in report.records:
            winner = rec.result.winner.name
            white = 1.0 if winner == "WHITE" else 0.5 if winner == "DRAW" else 0.0
            scores.setdefault((rec.white, rec.red), []).append(white)
            scores.setdefault((rec.red, rec.white), []).append(1 - white)
        rows = []
        for i, (player, name) in enumerate(zip(order, names)):
            cells = [_e(i + 1), _e(name)]
            for other in order:
                got = scores.get((player, other))
                cells.append("&mdash;" if player == other else "" if not got else
                             f"{sum(got):g}/{len(got)}")
            rows.append(cells)
        header = ["#", "Player", *(str(j + 1) for j in range(len(names)))]
        return ('<section><h2 id="crosstable">Crosstable</h2>' + Grid.of(
            header, rows, left=(0, 1)).html("Points each player (row) scored against each "
                                            "other (column), out of the games they played")
            + "</section>")

    def _matches(self, docs: Sequence[dict[str, Any]]) -> str:
        rows = []
        for d in docs:
            index = int(d.get("match", 0))
            link = f'<a href="{match_page_name(index)}">{index + 1}</a>'
            rows.append([link, _e(d["white"]["name"]), _e(d["red"]["name"]),
                         _e(_result_text(d)), _e(how_it_ended(d)), _e(len(d.get("moves", ())))])
        return ('<section><h2 id="matches">Matches</h2>' + Grid.of(
            ["Match", "White", "Red", "Result", "How it ended", "Moves"], rows,
            left=(1, 2, 3, 4)).html("Every match, with its result and how it ended",
                                    row_header=0) + "</section>")

    def _points_chart(self, report: Report, docs: Sequence[dict[str, Any]]) -> str:
        names = [p.name for p in report.players]
        totals = [0.0] * len(names)
        series: list[list[float]] = [[] for _ in names]
        by_index = {int(d.get("match", 0)): rec for d, rec in zip(docs, report.records)}
        for index in sorted(by_index):
            rec = by_index[index]
            winner = rec.result.winner.name
            for player, won in ((rec.white, "WHITE"), (rec.red, "RED")):
                totals[player] += (self.points.win if winner == won else self.points.draw
                                   if winner == "DRAW" else self.points.loss)
            for k in range(len(names)):
                series[k].append(totals[k])
        return line_chart(list(zip(names, series)), "Points over the matches", "match",
                          "points")

    def match(self, doc: dict[str, Any], live: bool) -> str:
        index = int(doc.get("match", 0))
        white, red = doc["white"]["name"], doc["red"]["name"]
        moves = list(doc.get("moves", ()))
        settings = doc.get("settings", {})
        final = board_svg(settings, moves, len(moves), doc.get("solution", ()),
                          f"The board after all {len(moves)} moves")
        data = {"settings": settings, "moves": moves, "solution": doc.get("solution", []),
                "white": white, "red": red}
        rows = []
        for i, m in enumerate(moves):
            figures = m.get("figures") or {}
            rows.append([_e(i + 1), _e(f"{m['col']}{m['shape'][0]}"),
                         _e(f"{m['color'].title()} {m['shape']} in column {m['col']}"),
                         _e(f"{m['ms']:.1f}"),
                         _e(" ".join(f"{k}={v:g}" for k, v in figures.items()))])
        detail = doc.get("detail") or ""
        body = [f'<p class="result"><strong>{_e(_result_text(doc))}</strong> &middot; '
                f"{_e(how_it_ended(doc))}{' &middot; ' + _e(detail) if detail else ''}</p>",
                f'<p class="settings">{_e(_settings_text(settings))}</p>',
                '<div class="player" data-match="1">',
                f'<div class="boardbox" id="board">{final}</div>',
                '<div class="controls" role="group" aria-label="Step through the moves">'
                '<button type="button" data-step="first" aria-label="First position">'
                '|&#x25C0;</button><button type="button" data-step="prev" '
                'aria-label="Previous move">&#x25C0;</button><button type="button" '
                'data-step="play" aria-label="Play the moves">&#x25B6; Play</button>'
                '<button type="button" data-step="next" aria-label="Next move">&#x25B6;'
                '</button><button type="button" data-step="last" aria-label="Final position">'
                '&#x25B6;|</button></div>',
                f'<p class="status" id="status" aria-live="polite">After all {len(moves)} '
                "moves.</p></div>",
                self._figures_chart(moves),
                '<section><h2 id="moves">Moves</h2>' + Grid.of(
                    ["#", "Move", "Played", "ms", "Thinker's figures"], rows,
                    left=(1, 2, 4)).html("Every move with its thinking time and what the "
                                         "thinker reported", row_header=0) + "</section>",
                '<script type="application/json" id="match-data">'
                + json.dumps(data).replace("</", "<\\/") + "</script>",
                '<script src="site.js"></script>']
        return _page(f"Match {index + 1}: {white} (White) vs {red} (Red)", "".join(body), live)

    @staticmethod
    def _figures_chart(moves: Sequence[dict[str, Any]]) -> str:
        """White's advantage by the scores the thinkers reported (each scores from
        the mover's side), and each move's search depth, when any were reported."""
        scores, depths = [], []
        for m in moves:
            figures = m.get("figures") or {}
            if "score" in figures:
                sign = 1 if m["color"] == "white" else -1
                # a proven win is scored near a million: drawn at the chart's edge
                scores.append(max(-SCORE_CAP, min(SCORE_CAP, sign * float(figures["score"]))))
            if "depth" in figures:
                depths.append(float(figures["depth"]))
        charts = ""
        if scores:
            charts += line_chart([("White's advantage", scores)], "Evaluation over the game "
                                 f"(the thinkers' own scores, at most \u00b1{SCORE_CAP:g})",
                                 "scored move", "score")
        if depths:
            charts += line_chart([("depth", depths)], "Search depth of each move",
                                 "reported move", "plies")
        return f'<section><h2 id="graphs">Graphs</h2>{charts}</section>' if charts else ""


def _static(name: str) -> str:
    return files("csl_game.assets").joinpath("site", name).read_text(encoding="utf-8")


def write_site(docs: Sequence[dict[str, Any]], folder: str | Path, points: Points = Points(),
               live: bool = False) -> Path:
    """Write the whole site of these results into `folder` (made if need be).

    Raises:
        ConfigError: no match in `docs`, a malformed line, or `folder` cannot be written.
    """
    writer = SiteWriter(folder, points, live)
    writer.docs.extend(docs)
    writer.write_all()
    return writer.folder


class SiteWriter:
    """Keeps a site up to date as matches end: the static files and every match
    page once, then the index and the new match's page per match."""

    def __init__(self, folder: str | Path, points: Points = Points(), live: bool = True
                 ) -> None:
        self.folder = Path(folder)
        self.docs: list[dict[str, Any]] = []
        self.points, self.live = points, live
        self._index_at = -INDEX_EVERY
        try:
            _make_folder(self.folder)
            for name in _STATIC:
                _write(self.folder / name, _static(name))
        except OSError as e:
            raise ConfigError(f"cannot write the site into {folder}: {e.strerror or e}") \
                from None

    def add(self, doc: dict[str, Any]) -> None:
        """A match ended: its page, and the index anew unless it was rewritten
        less than INDEX_EVERY seconds ago (the next match, or the end, does it)."""
        self.docs.append(doc)
        site = _Site(self.docs, self.points)
        self._put(match_page_name(int(doc.get("match", 0))), site.match(doc, self.live))
        now = time.monotonic()
        if now - self._index_at >= INDEX_EVERY:
            self._put("index.html", site.index(self.live))
            self._index_at = now

    def write_all(self, live: bool | None = None) -> None:
        """Every page (the final write of a live site passes live=False)."""
        if live is not None:
            self.live = live
        if not self.docs:
            raise ConfigError("the results hold no finished match")
        site = _Site(self.docs, self.points)
        for doc in self.docs:
            self._put(match_page_name(int(doc.get("match", 0))), site.match(doc, self.live))
        self._put("index.html", site.index(self.live))

    def _put(self, name: str, text: str) -> None:
        try:
            _write(self.folder / name, text)
        except OSError as e:
            raise ConfigError(f"cannot write {self.folder / name}: {e.strerror or e}") \
                from None


def _make_folder(folder: Path) -> None:
    """Make `folder` and the folders missing above it, each FOLDER_MODE (a
    folder that is there already is left as it is).

    Raises:
        OSError: a folder cannot be made.
    """
    missing = []
    at = folder
    while not at.is_dir() and at != at.parent:
        missing.append(at)
        at = at.parent
    for made in reversed(missing):
        made.mkdir(exist_ok=True)
        os.chmod(made, FOLDER_MODE)


def follow(session: Session, folder: str | Path, points: Points = Points(),
           docs: Sequence[dict[str, Any]] = ()) -> SiteWriter:
    """Keep a live site of `session` in `folder`: its matches so far (`docs`, a
    resumed results file's), then each match as it ends; the final pages, no
    longer refreshing themselves, once the session has ended.

    Raises:
        ConfigError: `folder` cannot be written.
    """
    writer = SiteWriter(folder, points, live=True)
    writer.docs.extend(docs)
    if writer.docs:
        writer.write_all()

    def on_event(event: SessionEvent) -> None:
        if isinstance(event, PostMatch):
            writer.add(record_to_json(event.index, session.info(event.record.white),
                                      session.info(event.record.red), event.record.result,
                                      session.config))
        elif isinstance(event, SessionEnded) and writer.docs:
            writer.write_all(live=False)

    session.subscribe(on_event)
    return writer
