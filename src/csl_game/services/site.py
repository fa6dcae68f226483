"""A tournament's own web site, from the lines of a results file.

`write_site()` writes a self-contained static site into a folder: no network,
no CDN, nothing but HTML, CSS, SVG drawn here and one small script of the
project's own (``site.js``). It works from ``file://`` and from any static
host, on a phone as on a desktop:

- ``index.html``: the title and how far the event is (starting, live, final,
  stopped), the winner once it is over, the matches being played (their board
  as it stands when they are played here), the standings (points, W/D/L,
  score and maximum-likelihood Elo with its 95 % interval), the schedule of
  the matches still to play with the time they should take, the crosstable
  (each game a link to its match), every match with how it ended, the event's
  statistics, two plots (points over the matches, the ratings with their
  error bars) and the data to download;
- ``match-N.html`` per match (N as everywhere: from 1, in the session's
  order): the board drawn as in the game, stepped with buttons, keys, the
  move list or a link (``#move=12``), the thinkers' reported depth and score
  as graphs that mark the move shown, the previous and next match;
- the data behind the pages: ``matches.jsonl`` (the results file: a JSON line
  per match, as ``csl-game report`` reads it), and per match ``match-N.txt``
  (the match as the reference competition's console prints it) and
  ``match-N.json`` (its line);
- ``live.js`` and ``live.json``: how far the event is, written as it goes. A
  live page loads ``live.js`` every POLL_SECONDS and redraws what changed
  (the index its sections, from ``index-live.js``; a match page its links to
  the other matches), so a reader keeps the move, the place and the focus
  they had; a page that is final says so and stops asking.

Every file is written whole to a temporary name and renamed into place, so a
reader never sees half a page (``matches.jsonl`` is appended to, a whole line
at a time, as matches end). `follow()` keeps a session's site live: the
matches' pages as they end, the index within a moment of each, and a last
write, final or stopped, however the session ends (`LiveSite.close`). A site
is made to be published: its files are readable by everyone (FILE_MODE, 0644)
and the folders it makes are open to everyone (FOLDER_MODE, 0755), whatever
the umask, so a web server running as another user serves them.
"""

from __future__ import annotations

import atexit
import hashlib
import html
import json
import math
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from csl_game.engine import (
    ForfeitReason,
    PlayerInfo,
    Points,
    PostMatch,
    Rating,
    Session,
    SessionEnded,
    SessionEvent,
    SessionStarted,
    TieBreakRound,
    parse_figures,
    record_from_json,
    record_to_json,
    settings_json,
)
from csl_game.errors import ConfigError
from csl_game.services.narration import FORFEIT_WORDS
from csl_game.services.report import Report, load_report

if TYPE_CHECKING:
    from csl_game.engine import Match, MatchEvent
    from csl_game.thinker.api import MatchConfig

__all__ = ["write_site", "SiteWriter", "LiveSite", "follow", "match_page_name",
           "how_it_ended", "public_detail", "public_doc", "looks_complete", "board_svg", "line_chart",
           "ratings_chart", "nice_ticks", "DEFAULT_TITLE", "RESULTS_NAME", "POLL_SECONDS",
           "STATES", "FILE_MODE", "FOLDER_MODE"]

DEFAULT_TITLE = "Tournament"
"""The title of a site given none (--title)."""
RESULTS_NAME = "matches.jsonl"
"""The site's copy of the results file (a JSON line per match)."""
POLL_SECONDS = 2
"""How often a live page asks whether the site has changed."""
STATES = ("starting", "live", "final", "stopped")
"""How far a site's event is: no match has ended yet; matches are being
played; every match was played; the session stopped before the end."""
SCORE_CAP = 1000.0
"""Scores beyond this (proven wins and losses) are drawn at it."""
SCHEDULE_ROWS = 30
"""The most matches the schedule lists (the rest are counted)."""
MOVES_EVERY = 0.3
"""Seconds between writes of a match played here as its moves come (live.js)."""
HEARTBEAT = 15.0
"""Seconds between writes of live.js while nothing happens, so a reader can
tell a quiet session from one that stopped without a word (killed)."""
FILE_MODE = 0o644
"""A site file's mode: its owner writes it, everyone reads it (a temporary
file's own 0600 would keep a web server of another user out)."""
FOLDER_MODE = 0o755
"""The mode of a folder the site makes: everyone may read it and go in."""
_COLORS = {"white": "#f4f1e8", "red": "#c8323c"}
_STROKE = {"white": "#55524a", "red": "#6d1016"}
_PALETTE = ("#1f77b4", "#e8590c", "#2b8a3e", "#d6336c", "#7048e8", "#8c564b", "#c2255c",
            "#5c7cfa", "#a08c00", "#0c8599")
_STATIC = ("style.css", "site.js")
_WIDE, _NARROW = 640, 360
"""Charts are drawn twice, for a wide screen and a phone's, so their text reads
at about the same size on both."""
_WORDS = {ForfeitReason.EXCEPTION: "raised an exception",
          ForfeitReason.WORKER_DIED: "process crashed",
          ForfeitReason.PROTOCOL: "broke the protocol"}
"""The site's words where narration's table has one word for several forfeits."""


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


def _append(path: Path, text: str) -> None:
    """Add `text` (whole lines) to the end of `path` in one write."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0),
                 FILE_MODE)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


# ------------------------------------------------------------------ what is shown
def how_it_ended(doc: dict[str, Any]) -> str:
    """A word or two: 'sequence', 'draw', 'timeout', 'raised an exception',
    'invalid move', ..."""
    forfeit = doc.get("forfeit")
    if forfeit:
        try:
            reason = ForfeitReason[str(forfeit).upper()]
        except KeyError:
            return str(forfeit).replace("_", " ")
        return _WORDS.get(reason) or FORFEIT_WORDS[reason][0]
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


def _forfeiter(doc: dict[str, Any]) -> str:
    """'Red (Sleepy)': the side that forfeited (the one that did not win)."""
    side = {"white": "red", "red": "white"}.get(str(doc.get("winner")))
    if side is None:
        return ""
    return f"{side.title()} ({doc[side]['name']})"


_FRAME = re.compile(r'^(\s*)File "([^"]+)", line (\d+)(.*)$')
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\\/\s\"'<>:]+)+[\\/]([^\\/\s\"'<>:]+)")


def _organisers(path: str) -> bool:
    """Whether a traceback's file is csl-game's, Python's or an installed
    package's (not the thinker's own)."""
    norm = path.replace("\\", "/")
    libraries = tuple(f"{p.rstrip('/')}/lib".replace("\\", "/").lower()
                      for p in (sys.prefix, sys.base_prefix, sys.exec_prefix))
    return (norm.startswith("<") or norm.lower().startswith(libraries)
            or any(part in norm for part in ("/csl_game/", "/site-packages/",
                                             "/dist-packages/", "/lib/python")))


def public_detail(detail: str) -> str:
    """What a forfeit's detail may tell the world: the exception and the
    thinker's own frames of a traceback, every file named without the folders
    it is in (the organiser's paths); csl-game's and Python's frames dropped."""
    out: list[str] = []
    lines = detail.splitlines()
    skip_indent: int | None = None
    for line in lines:
        frame = _FRAME.match(line)
        if frame:
            skip_indent = None
            if _organisers(frame[2]):
                skip_indent = len(frame[1])
                continue
            name = re.split(r"[\\/]", frame[2])[-1]
            out.append(f'{frame[1]}File "{name}", line {frame[3]}{frame[4]}')
            continue
        if skip_indent is not None and len(line) - len(line.lstrip()) > skip_indent:
            continue  # the source line of a dropped frame
        skip_indent = None
        out.append(_PATH.sub(lambda m: m[1], line))
    return "\n".join(out).strip()


def public_doc(doc: dict[str, Any]) -> dict[str, Any]:
    """A results line as the site publishes it: its detail `public_detail`."""
    detail = doc.get("detail")
    if not detail or not isinstance(detail, str):
        return doc
    return {**doc, "detail": public_detail(detail)}


def _settings_text(settings: dict[str, Any]) -> str:
    try:
        return (f"{settings['rows']}x{settings['cols']} board, {settings['win_sequence']} in a "
                f"row, {settings['round_pieces']} round + {settings['square_pieces']} square "
                f"pieces each, {settings['time_limit_ms']} ms a move")
    except (KeyError, TypeError):
        return "settings not recorded"


def _figures_text(figures: dict[str, Any]) -> str:
    return " ".join(f"{k}={v:g}" for k, v in figures.items() if isinstance(v, int | float))


def _count(n: int, noun: str) -> str:
    """'1 match', '2 matches'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}{'es' if noun.endswith('ch') else 's'}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _stamp(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")


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


def nice_ticks(low: float, high: float, most: int = 6, whole: bool = False) -> list[float]:
    """Round values (1, 2, 2.5 or 5 times a power of ten apart; `whole`: whole
    numbers only) from `low` to `high`, at most about `most` of them, 0 among
    them when it is in range."""
    if high <= low:
        return [low]
    step = _step(low, high, most, whole)
    value = math.ceil(low / step - 1e-9) * step
    ticks = []
    while value <= high + 1e-9 * step:
        ticks.append(round(value, 10) + 0.0)
        value += step
    return ticks


def nice_range(low: float, high: float, most: int = 6) -> tuple[float, float]:
    """`low` and `high` widened to the round ticks around them."""
    if high <= low:
        return low, low + 1
    step = _step(low, high, most)
    return math.floor(low / step + 1e-9) * step, math.ceil(high / step - 1e-9) * step


def _step(low: float, high: float, most: int, whole: bool = False) -> float:
    raw = (high - low) / max(1, most - 1)
    power = 10.0 ** math.floor(math.log10(raw))
    steps = [m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0)]
    if whole:
        steps = [float(round(step)) for step in steps if step >= 1 and step == int(step)] \
            or [1.0]
    return next((step for step in steps if step >= raw * (1 - 1e-9)), steps[-1])


def _tick(value: float) -> str:
    return f"{value:g}".replace("-", "\u2212")


@dataclass(frozen=True)
class Series:
    """A line of a chart: its name and its points (x, y)."""

    name: str
    points: tuple[tuple[float, float], ...]


def line_chart(series: Sequence[Series], title: str, x_label: str, *,
               x_range: tuple[float, float] | None = None, cursor: bool = False,
               integer_x: bool = True) -> str:
    """Lines over a common x axis, with round ticks on both axes, a legend in
    the order given, and (`cursor`) a marker the match page moves to the move
    shown; drawn for a wide screen and again for a phone's."""
    values = [p for s in series for p in s.points]
    if not values:
        return ""
    xs = [x for x, _ in values]
    x_low, x_high = x_range or (min(xs), max(xs))
    if x_high <= x_low:
        x_high = x_low + 1
    ys = [y for _, y in values] + [0.0]
    low, high = nice_range(min(ys), max(ys), 5)
    y_ticks = nice_ticks(low, high, 5)
    body = "".join(_line_svg(series, width, x_low, x_high, low, high, y_ticks, x_label,
                             title, cursor, integer_x) for width in (_WIDE, _NARROW))
    return f'<figure class="chart">{body}<figcaption>{_e(title)}</figcaption></figure>'


def _line_svg(series: Sequence[Series], w: int, x_low: float, x_high: float, low: float,
              high: float, y_ticks: Sequence[float], x_label: str, title: str, cursor: bool,
              integer_x: bool) -> str:
    h, left, right, top, bottom = 210, 52, 14, 10, 44
    legend = 22

    def px(x: float) -> float:
        return left + (w - left - right) * (x - x_low) / (x_high - x_low)

    def py(y: float) -> float:
        return top + (h - top - bottom) * (1 - (y - low) / (high - low))

    x_ticks = nice_ticks(x_low, x_high, 9 if w == _WIDE else 6, whole=integer_x)
    size = "wide" if w == _WIDE else "narrow"
    parts = [f'<svg class="chart {size}" viewBox="0 0 {w} {h + legend * len(series)}" '
             f'role="img" aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg"'
             + (f' data-x0="{px(x_low):.2f}" data-x1="{px(x_high):.2f}" '
                f'data-from="{x_low:g}" data-to="{x_high:g}"' if cursor else "") + ">"]
    for t in y_ticks:
        cls = "axis" if t == 0 else "grid"
        parts.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{w - right}" y2="{py(t):.1f}" '
                     f'class="{cls}"/><text x="{left - 6}" y="{py(t) + 4:.1f}" '
                     f'class="tick end">{_tick(t)}</text>')
    for t in x_ticks:
        parts.append(f'<line x1="{px(t):.1f}" y1="{h - bottom}" x2="{px(t):.1f}" '
                     f'y2="{h - bottom + 5}" class="axis"/><text x="{px(t):.1f}" '
                     f'y="{h - bottom + 19}" class="tick mid">{_tick(t)}</text>')
    parts.append(f'<text x="{(left + w - right) / 2:.1f}" y="{h - 6}" class="tick mid">'
                 f"{_e(x_label)}</text>")
    if cursor:
        parts.append(f'<line class="cursor" x1="{px(x_high):.1f}" y1="{top}" '
                     f'x2="{px(x_high):.1f}" y2="{h - bottom}" visibility="hidden"/>')
    for k, s in enumerate(series):
        colour = _PALETTE[k % len(_PALETTE)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        if len(s.points) == 1:
            x, y = s.points[0]
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        else:
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                         'stroke-width="2.5" stroke-linejoin="round"/>')
        y = h + 12 + legend * k
        parts.append(f'<rect x="{left}" y="{y - 7}" width="16" height="5" fill="{colour}"/>'
                     f'<text x="{left + 22}" y="{y}" class="legend">{_e(s.name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def ratings_chart(ratings: Sequence[Rating]) -> str:
    """Each player's Elo as a dot with its 95 % interval as a bar, on an axis
    of round ticks; drawn for a wide screen and again for a phone's."""
    if not ratings:
        return ""
    low, high = nice_range(min(min(r.ci95[0] for r in ratings), -50.0),
                           max(max(r.ci95[1] for r in ratings), 50.0), 6)
    title = "Elo (maximum likelihood, average 0) with 95 % intervals"
    body = "".join(_ratings_svg(ratings, w, low, high, nice_ticks(low, high, n))
                   for w, n in ((_WIDE, 7), (_NARROW, 5)))
    return f'<figure class="chart">{body}<figcaption>{_e(title)}</figcaption></figure>'


def _ratings_svg(ratings: Sequence[Rating], w: int, low: float, high: float,
                 ticks: Sequence[float]) -> str:
    wide = w == _WIDE
    row, left, right = 28, (170 if wide else 12), 22
    top = 8 if wide else 22

    def px(v: float) -> float:
        return left + (w - left - right) * (v - low) / (high - low)

    h = top + (row + (0 if wide else 14)) * len(ratings) + 30
    size = "wide" if wide else "narrow"
    parts = [f'<svg class="chart {size}" viewBox="0 0 {w} {h}" role="img" '
             'aria-label="Ratings with 95 % intervals" xmlns="http://www.w3.org/2000/svg">']
    for t in ticks:
        parts.append(f'<line x1="{px(t):.1f}" y1="4" x2="{px(t):.1f}" y2="{h - 24}" '
                     f'class="{"axis" if t == 0 else "grid"}"/><text x="{px(t):.1f}" '
                     f'y="{h - 8}" class="tick mid">{"+" if t > 0 else ""}{_tick(t)}</text>')
    for i, r in enumerate(ratings):
        if wide:
            y = top + 10 + i * row
            parts.append(f'<text x="{left - 8}" y="{y + 4}" class="legend end">'
                         f"{_e(r.name)}</text>")
        else:
            y = top + 14 + i * (row + 14)
            parts.append(f'<text x="{left}" y="{y - 10}" class="legend">{_e(r.name)} '
                         f"{r.elo:+.0f}</text>")
        parts.append(f'<line x1="{px(r.ci95[0]):.1f}" y1="{y}" x2="{px(r.ci95[1]):.1f}" '
                     f'y2="{y}" class="bar"/><circle cx="{px(r.elo):.1f}" cy="{y}" r="5" '
                     f'class="dot"><title>{_e(r.name)}: {r.elo:+.0f} '
                     f'[{r.ci95[0]:+.0f}, {r.ci95[1]:+.0f}]</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


# ------------------------------------------------------------------ tables
@dataclass(frozen=True)
class _Col:
    """A column: its header, whether it holds numbers, and its label on a card."""

    header: str
    num: bool = False
    label: str | None = None
    """What a phone's card shows before the value ('' for nothing); the header
    when None."""


def _table(cols: Sequence[_Col], rows: Iterable[Sequence[str]], caption: str, *,
           row_header: int = 1, cards: bool = True, ident: str = "") -> str:
    """An HTML table (cells are HTML already); with `cards`, each row is a card
    on a narrow screen (roles keep it a table for screen readers), else the
    table scrolls sideways in a region the keyboard can reach."""
    def cell(i: int, text: str) -> str:
        col = cols[i]
        attrs = (' class="num"' if col.num else "")
        if cards:
            label = col.header if col.label is None else col.label
            attrs += f' data-label="{_e(label)}"' if label else ""
        if i == row_header:
            return f'<th scope="row"{attrs}{" role=rowheader" if cards else ""}>{text}</th>'
        return f'<td{attrs}{" role=cell" if cards else ""}>{text}</td>'

    row_role = ' role="row"' if cards else ""
    head = "".join(f'<th scope="col"{" class=num" if c.num else ""}'
                   f'{" role=columnheader" if cards else ""}>{_e(c.header)}</th>' for c in cols)
    body = "".join(f"<tr{row_role}>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>"
                   for row in rows)
    cap_id = f' id="{ident}-caption"' if ident else ""
    group = ' role="rowgroup"' if cards else ""
    table = (f'<table{" class=cards role=table" if cards else ""}'
             f"{f' aria-labelledby={ident}-caption' if ident and cards else ''}>"
             f"<caption{cap_id}>{_e(caption)}</caption><thead{group}><tr{row_role}>{head}</tr>"
             f"</thead><tbody{group}>{body}</tbody></table>")
    if cards:
        return table
    label = f' aria-labelledby="{ident}-caption"' if ident else f' aria-label="{_e(caption)}"'
    return f'<div class="scroll" tabindex="0" role="region"{label}>{table}</div>'


# ------------------------------------------------------------------ the event's data
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
class _Event:
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

    def snapshot(self) -> _Event:
        """A copy a thread may render while this one changes (its lists are
        replaced, never changed in place; the matches being played are copied)."""
        return replace(self, playing=list(self.playing), now={
            i: NowMatch(m.index, m.white, m.red, list(m.moves),
                        {k: dict(v) for k, v in m.figures.items()})
            for i, m in self.now.items()})


class _Site:
    """The pages of a site, from its matches and its event."""

    def __init__(self, docs: Sequence[dict[str, Any]], points: Points, event: _Event,
                 version: int) -> None:
        self.docs = sorted(docs, key=lambda d: int(d.get("match", 0)))
        self.points, self.event, self.version = points, event, version
        # in the results file's order, as `report` reads it (players tied on
        # points are listed in the order they first appear)
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
        matches = _count(ev.total or played, "match")
        done = f"{played} of {matches}" if ev.total else matches
        if ev.state == "starting" and not ev.total:
            return "Starting: the players are being set up. This page updates itself."
        if ev.state == "starting":
            return (f"Starting: {_count(ev.total or 0, 'match')} to play, none ended yet. "
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

    def page(self, title: str, body: str, kind: str, heading: str = "",
             extra: str = "", match: int | None = None) -> str:
        stamp = _stamp(time.time())
        attrs = (f' data-page="{kind}" data-version="{self.version}"'
                 + (f' data-match="{match + 1}"' if match is not None else "")
                 + (' data-live="1"' if self.live else "") + f' data-state="{self.event.state}"')
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{_e(title)}</title>"
                '<link rel="stylesheet" href="style.css">'
                '<script src="site.js" defer></script></head>'
                f"<body{attrs}>"
                '<a class="skip" href="#main">Skip to the content</a>'
                f"<header>{heading or f'<h1>{_e(title)}</h1>'}"
                f'<p class="state" id="site-state">{_e(self.state_text())}</p>{extra}</header>'
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
            sections += [("crosstable", self._crosstable(self.report)),
                         ("matches", self._matches()),
                         ("statistics", self._statistics()),
                         ("plots", self._plots(self.report))]
        sections.append(("data", self._downloads()))
        return [(ident, _versioned(html_)) for ident, html_ in sections if html_]

    def index(self) -> str:
        body = "".join(html_ for _, html_ in self.index_sections())
        links = [("standings", "Standings")]
        if self.live and self._remaining():
            links.append(("schedule", "Schedule"))
        if self.report is not None:
            links += [("crosstable", "Crosstable"), ("matches", "Matches"),
                      ("statistics", "Statistics"), ("plots", "Plots")]
        links.append(("data", "Data"))
        nav = ('<nav class="sections" aria-label="Sections of this page"><ul>'
               + "".join(f'<li><a href="#{i}">{t}</a></li>' for i, t in links) + "</ul></nav>")
        return self.page(self.event.title, body, "index", extra=nav)

    def _summary(self) -> str:
        settings = self.event.settings or (self.docs[0].get("settings", {}) if self.docs
                                           else {})
        if not settings and not self.docs:
            return ""
        return (f'<section id="summary" class="summary"><p class="settings">'
                f"{_e(_settings_text(settings))}.</p></section>")

    def _winner(self, report: Report) -> str:
        first = [s for s in report.table if s.position == 1]
        if not first:
            return ""
        if len(first) == 1:
            s = first[0]
            text = (f"<strong>{_e(s.name)}</strong> wins with {s.points} points "
                    f"({s.wins} won, {s.draws} drawn, {s.losses} lost).")
        else:
            text = ("Tied for first place with " + f"{first[0].points} points: "
                    + ", ".join(f"<strong>{_e(s.name)}</strong>" for s in first) + ".")
        note = f" {_e(self.event.note)}" if self.event.note else ""
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
                    f'<p class="figs {side}"><span class="who">{side.title()} ({_e(name)})'
                    f'</span> <span class="val">'
                    f'{_e(_figures_text(now.figures.get(side, {})) or "no figures reported")}'
                    "</span></p>" for side, name in (("white", white), ("red", red)))
                figures = (f'<p class="moves-n">{len(now.moves)} moves so far</p>' + figures)
            else:
                figures = ('<p class="moves-n">Played in a worker process: its moves '
                           "appear when it ends.</p>")
            cards.append(f'<li class="card now-card" data-match="{index + 1}">'
                         f"<h3>Match {index + 1}: {_e(white)} (White) vs {_e(red)} (Red)</h3>"
                         f'<div class="now-board">{board}</div>{figures}</li>')
        note = f'<p class="note">{_e(self.event.note)}</p>' if self.event.note else ""
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
        pace = (time.time() - ev.started) / ev.done_here
        return pace, pace * len(self._remaining())

    def _schedule(self) -> str:
        rest = self._remaining()
        playing = set(self.event.playing)
        rows = [[_e(i + 1), _e(white), _e(red), "playing" if i in playing else "to play"]
                for i, white, red in rest[:SCHEDULE_ROWS]]
        more = (f'<p class="note">And {_count(len(rest) - SCHEDULE_ROWS, "match")} more.</p>'
                if len(rest) > SCHEDULE_ROWS else "")
        pace, left = self._eta()
        if left is None:
            eta = "How long they will take is known once a match has ended."
        else:
            end = time.time() + left
            assert pace is not None
            eta = (f"At the pace so far (a match every {_duration(pace)}), about "
                   f'{_duration(left)} more: done around <time datetime="{_iso(end)}" '
                   f'class="eta">{datetime.fromtimestamp(end, UTC).strftime("%H:%M UTC")}'
                   "</time>.")
        cols = [_Col("Match", True), _Col("White"), _Col("Red"), _Col("Status", label="")]
        return ('<section id="schedule" aria-labelledby="schedule-h">'
                f'<h2 id="schedule-h">Schedule</h2><p class="eta-line">'
                f"{_count(len(rest), 'match')} to play. {eta}</p>"
                + _table(cols, rows, "The matches still to play, in the order they start",
                         row_header=0, ident="schedule") + more + "</section>")

    def _standings(self) -> str:
        rows = []
        if self.report is None and not self.event.players:
            return ('<section id="standings" aria-labelledby="standings-h">'
                    '<h2 id="standings-h">Standings</h2><p>The players are being set up; '
                    "the standings and the schedule follow.</p></section>")
        if self.report is None:
            names = self.event.players
            rows = [["1", _e(n), "0", "0", "0", "0", "&ndash;", "&ndash;"] for n in names]
        else:
            ratings = self.report.ratings()
            elo = {r.name: r for r in ratings}
            for s in self.report.table:
                r = elo.get(s.name)
                score = (s.wins + s.draws / 2) / s.played if s.played else 0.0
                rows.append([_e(s.position), _e(s.name), _e(s.points), _e(s.wins),
                             _e(s.draws), _e(s.losses), f"{100 * score:.1f} %",
                             "&ndash;" if r is None else
                             f"{r.elo:+.0f} &plusmn; {(r.ci95[1] - r.ci95[0]) / 2:.0f}"])
        cols = [_Col("#", True, ""), _Col("Player", label=""), _Col("Points", True, "Pts"),
                _Col("W", True), _Col("D", True), _Col("L", True), _Col("Score", True, ""),
                _Col("Elo (95 %)", True, "Elo")]
        return ('<section id="standings" aria-labelledby="standings-h">'
                '<h2 id="standings-h">Standings</h2>' + _table(
                    cols, rows, "Standings: points, wins, draws and losses, score, and "
                    "maximum-likelihood Elo with half its 95 % interval", ident="standings")
                + "</section>")

    def _crosstable(self, report: Report) -> str:
        order = [s.player for s in report.table]  # as the standings rank them
        names = [report.players[i].name for i in order]
        games: dict[tuple[int, int], list[tuple[int, float, str]]] = {}
        for index, rec in sorted(zip(report.indices, report.records)):
            winner = rec.result.winner.name
            white = 1.0 if winner == "WHITE" else 0.5 if winner == "DRAW" else 0.0
            games.setdefault((rec.white, rec.red), []).append((index, white, "White"))
            games.setdefault((rec.red, rec.white), []).append((index, 1 - white, "Red"))
        rows = []
        for i, (player, name) in enumerate(zip(order, names)):
            cells = [_e(i + 1), _e(name)]
            for j, other in enumerate(order):
                got = games.get((player, other))
                if player == other:
                    cells.append('<span aria-label="no game">&mdash;</span>')
                elif not got:
                    cells.append("")
                elif len(got) <= 4:
                    cells.append(" ".join(
                        f'<a href="{match_page_name(index)}">{_score(score)}<span '
                        f'class="sr-only">: {_score_word(score)} match {index + 1} as '
                        f"{colour} against {_e(names[j])}</span></a>"
                        for index, score, colour in got))
                else:
                    total = sum(s for _, s, _ in got)
                    cells.append(f"{total:g}/{len(got)}")
            rows.append(cells)
        cols = [_Col("#", True), _Col("Player"),
                *(_Col(str(j + 1), True) for j in range(len(names)))]
        return ('<section id="crosstable" aria-labelledby="crosstable-h">'
                '<h2 id="crosstable-h">Crosstable</h2>' + _table(
                    cols, rows, "Points each player (row) scored against each other "
                    "(column, numbered as the rows), a link to each game", cards=False,
                    ident="crosstable") + "</section>")

    def _matches(self) -> str:
        rows = []
        for d in self.docs:
            index = int(d.get("match", 0))
            link = f'<a href="{match_page_name(index)}">Match {index + 1}</a>'
            rows.append([link, _e(d["white"]["name"]), _e(d["red"]["name"]),
                         _e(_result_text(d)), _e(how_it_ended(d)), _e(len(d.get("moves", ())))])
        cols = [_Col("Match", label=""), _Col("White"), _Col("Red"), _Col("Result"),
                _Col("How it ended", label="Ended by"), _Col("Moves", True)]
        return ('<section id="matches" aria-labelledby="matches-h">'
                '<h2 id="matches-h">Matches</h2>' + _table(
                    cols, rows, "Every match, with its result and how it ended",
                    row_header=0, ident="matches") + "</section>")

    def _statistics(self) -> str:
        docs = self.docs
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

        items = [("White won", pct(white)), ("Red won", pct(red)), ("Drawn", pct(draws)),
                 ("Lost by a forfeit", pct(forfeits)),
                 ("Average length", f"{sum(lengths) / n:.1f} moves"),
                 ("Longest match", f"{max(lengths)} moves")]
        if wins:
            items.append(("Shortest win by a sequence", f"{min(wins)} moves"))
        if times:
            items.append(("Average thinking time", f"{sum(times) / len(times):.1f} ms a move"))
        return ('<section id="statistics" aria-labelledby="statistics-h">'
                '<h2 id="statistics-h">Statistics</h2><dl class="stats">'
                + "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in items)
                + f'</dl><p class="note">Over the {_count(n, "match")} played.</p></section>')

    def _plots(self, report: Report) -> str:
        order = [s.player for s in report.table]  # the legend as the standings rank them
        names = [report.players[i].name for i in order]
        totals = {p: 0.0 for p in order}
        series: dict[int, list[tuple[float, float]]] = {p: [] for p in order}
        for k, (_, rec) in enumerate(sorted(zip(report.indices, report.records),
                                             key=lambda r: r[0]), 1):
            winner = rec.result.winner.name
            for player, won in ((rec.white, "WHITE"), (rec.red, "RED")):
                totals[player] += (self.points.win if winner == won else self.points.draw
                                   if winner == "DRAW" else self.points.loss)
            for p in order:
                series[p].append((float(k), totals[p]))
        chart = line_chart([Series(n, tuple(series[p])) for p, n in zip(order, names)],
                           "Points over the matches (in the standings' order)",
                           "matches played")
        rank = {name: i for i, name in enumerate(names)}
        ratings = sorted(report.ratings(), key=lambda r: rank.get(r.name, len(rank)))
        return ('<section id="plots" aria-labelledby="plots-h"><h2 id="plots-h">Plots</h2>'
                + chart + ratings_chart(ratings) + "</section>")

    def _downloads(self) -> str:
        return ('<section id="data" aria-labelledby="data-h"><h2 id="data-h">Data</h2>'
                f'<ul><li><a href="{RESULTS_NAME}" download>The results file '
                f"({RESULTS_NAME})</a>: every match, a JSON line each, as "
                "<code>csl-game report</code> reads it (its standings, ratings, replays).</li>"
                "<li>Each match's page offers its moves as text and as JSON.</li></ul>"
                "</section>")

    # -------------------------------------------------------------- a match
    def neighbours(self, index: int) -> tuple[int | None, int | None]:
        before = [i for i in self.played if i < index]
        after = [i for i in self.played if i > index]
        return (max(before) if before else None), (min(after) if after else None)

    def match(self, doc: dict[str, Any], text: bool = True) -> str:
        """The page of a match (`text`: with a link to its text record)."""
        index = int(doc.get("match", 0))
        white, red = doc["white"]["name"], doc["red"]["name"]
        moves = list(doc.get("moves", ()))
        settings = doc.get("settings", {})
        title = f"Match {index + 1}: {white} (White) vs {red} (Red)"
        final = board_svg(settings, moves, len(moves), doc.get("solution", ()),
                          f"The board after all {len(moves)} moves")
        data = {"settings": settings, "moves": moves, "solution": doc.get("solution", []),
                "white": white, "red": red}
        rows = []
        for i, m in enumerate(moves):
            rows.append([_e(i + 1), _e(f"{m['col']}{m['shape'][0]}"),
                         _e(f"{m['color'].title()} {m['shape']} in column {m['col']}"),
                         _e(f"{m['ms']:.1f}"), _e(_figures_text(m.get("figures") or {}))])
        detail = public_detail(doc.get("detail") or "")
        result = [f'<p class="result"><strong>{_e(_result_text(doc))}</strong> &middot; '
                  f"{_e(how_it_ended(doc))}</p>"]
        if doc.get("forfeit"):
            who = _forfeiter(doc)
            lead = f"{who} forfeited: " if who else ""
            if "\n" in detail:
                result.append(f'<div class="detail"><p>{_e(lead)}{_e(how_it_ended(doc))}.</p>'
                              f"<pre>{_e(detail)}</pre></div>")
            else:
                result.append(f'<p class="detail">{_e(lead)}{_e(detail or how_it_ended(doc))}'
                              "</p>")
        if moves:
            player = ('<section id="replay" aria-labelledby="replay-h" class="player">'
                      '<h2 id="replay-h" class="sr-only">The board</h2>'
                      f'<div class="boardbox" id="board">{final}</div>'
                      '<div class="controls" role="group" aria-label="Step through the moves" '
                      'hidden>'
                      '<button type="button" data-step="first" aria-label="First position">'
                      '<span aria-hidden="true">|&#x25C0;</span></button>'
                      '<button type="button" data-step="prev" aria-label="Previous move">'
                      '<span aria-hidden="true">&#x25C0;</span></button>'
                      '<button type="button" data-step="play" class="play">'
                      '<span aria-hidden="true">&#x25B6;</span> Play</button>'
                      '<button type="button" data-step="next" aria-label="Next move">'
                      '<span aria-hidden="true">&#x25B6;</span></button>'
                      '<button type="button" data-step="last" aria-label="Final position">'
                      '<span aria-hidden="true">&#x25B6;|</span></button></div>'
                      f'<p class="status" id="status" aria-live="polite">After all '
                      f"{len(moves)} moves.</p></section>")
        else:
            player = ('<section id="replay" aria-labelledby="replay-h" class="player">'
                      '<h2 id="replay-h" class="sr-only">The board</h2>'
                      f'<div class="boardbox">{final}</div><p class="status">No move was '
                      "played.</p></section>")
        stem = match_page_name(index)[:-len(".html")]
        downloads = ('<section id="data" aria-labelledby="data-h"><h2 id="data-h">Data</h2>'
                     "<ul>" + (f'<li><a href="{stem}.txt" download>The match as text '
                               f"({stem}.txt)</a>, as the reference competition's console "
                               "prints it</li>" if text else "")
                     + f'<li><a href="{stem}.json" download>The match as JSON ({stem}.json)'
                     f"</a>, its line of the results file</li>"
                     f'<li><a href="{RESULTS_NAME}" download>Every match ({RESULTS_NAME})</a>'
                     "</li></ul></section>")
        moves_table = ""
        if moves:
            cols = [_Col("#", True, "Move"), _Col("Move", label=""), _Col("Played", label=""),
                    _Col("ms", True), _Col("Thinker's figures", label="Figures")]
            moves_table = ('<section id="moves" aria-labelledby="moves-h">'
                           '<h2 id="moves-h">Moves</h2>' + _table(
                               cols, rows, "Every move with its thinking time and what the "
                               "thinker reported; choose one to show it", row_header=0,
                               ident="moves") + "</section>")
        body = "".join([*result, f'<p class="settings">{_e(_settings_text(settings))}</p>',
                        player, self._figures_chart(moves), moves_table, downloads,
                        '<script type="application/json" id="match-data">'
                        + json.dumps(data).replace("</", "<\\/") + "</script>"])
        before, after = self.neighbours(index)
        total = f" of {self.event.total}" if self.event.total else ""
        nav = ('<nav class="matchnav" aria-label="Other matches"><ul>'
               '<li><a href="index.html">All matches</a></li>'
               + (f'<li><a rel="prev" href="{match_page_name(before)}" id="prev-match">'
                  f"&larr; Match {before + 1}</a></li>" if before is not None else
                  '<li><a rel="prev" id="prev-match" hidden>&larr;</a></li>')
               + (f'<li><a rel="next" href="{match_page_name(after)}" id="next-match">'
                  f"Match {after + 1} &rarr;</a></li>" if after is not None else
                  '<li><a rel="next" id="next-match" hidden>&rarr;</a></li>')
               + "</ul></nav>")
        heading = (f'<p class="crumb"><a href="index.html">{_e(self.event.title)}</a>'
                   f" &middot; match {index + 1}{total}</p><h1>Match {index + 1}: "
                   f'{_e(white)} <span class="side">(White)</span> vs {_e(red)} '
                   '<span class="side">(Red)</span></h1>')
        return self.page(f"{title} \u2013 {self.event.title}", body, "match", heading, nav,
                         match=index)

    @staticmethod
    def _figures_chart(moves: Sequence[dict[str, Any]]) -> str:
        """White's advantage by the scores the thinkers reported (each scores from
        the mover's side), and each move's search depth, when any were reported;
        both over the move numbers, with a marker at the move shown."""
        scores, depths = [], []
        for n, m in enumerate(moves, 1):
            figures = m.get("figures") or {}
            if "score" in figures:
                sign = 1 if m["color"] == "white" else -1
                # a proven win is scored near a million: drawn at the chart's edge
                scores.append((float(n), max(-SCORE_CAP, min(SCORE_CAP,
                                                             sign * float(figures["score"])))))
            if "depth" in figures:
                depths.append((float(n), float(figures["depth"])))
        span = (1.0, float(max(2, len(moves))))
        charts = ""
        if scores:
            charts += line_chart([Series("White's advantage", tuple(scores))],
                                 "Evaluation over the game: White's advantage by the "
                                 f"thinkers' own scores (drawn at most \u00b1{SCORE_CAP:g})",
                                 "move", x_range=span, cursor=True)
        if depths:
            charts += line_chart([Series("search depth (plies)", tuple(depths))],
                                 "Search depth of each move, in plies", "move",
                                 x_range=span, cursor=True)
        return (f'<section id="graphs" aria-labelledby="graphs-h"><h2 id="graphs-h">Graphs'
                f"</h2>{charts}</section>" if charts else "")

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
                "settings": ev.settings, "updated": _iso(time.time()),
                "beat": time.time(), "pace_s": pace, "left_s": left,
                "eta": _iso(time.time() + left) if left is not None else None}


def _versioned(section: str) -> str:
    """A section with a digest of its content (data-v), which a live index
    compares to redraw only the sections that changed."""
    digest = hashlib.sha1(section.encode("utf-8")).hexdigest()[:12]
    return section.replace("<section", f'<section data-v="{digest}"', 1)


def _score(score: float) -> str:
    return {1.0: "1", 0.5: "\u00bd", 0.0: "0"}.get(score, f"{score:g}")


def _score_word(score: float) -> str:
    return {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(score, f"scored {score:g}")


def _transcript(doc: dict[str, Any]) -> str | None:
    """The match as the reference console prints it, or None (no settings)."""
    from csl_game.services.reference import transcript

    settings = doc.get("settings")
    if not isinstance(settings, dict):
        return None
    try:
        info = {PlayerInfo(**doc["white"]): 0, PlayerInfo(**doc["red"]): 1}
        result = record_from_json(doc, info).result
        return transcript(result, [int(settings[k]) for k in (
            "rows", "cols", "win_sequence", "round_pieces", "square_pieces")])
    except (ConfigError, KeyError, TypeError, ValueError):
        return None


def _static(name: str) -> str:
    return files("csl_game.assets").joinpath("site", name).read_text(encoding="utf-8")


# ------------------------------------------------------------------ writing
def write_site(docs: Sequence[dict[str, Any]], folder: str | Path, points: Points = Points(),
               live: bool = False, title: str = DEFAULT_TITLE) -> Path:
    """Write the whole site of these results into `folder` (made if need be),
    final or `live` (its pages then ask for changes and redraw themselves).

    Raises:
        ConfigError: no match in `docs`, a malformed line, or `folder` cannot be written.
    """
    if not docs:
        raise ConfigError("the results hold no finished match")
    writer = SiteWriter(folder, points, live, title=title)
    writer.docs.extend(docs)
    if looks_complete(docs):
        writer.event.total = len(docs)
    writer.write_all()
    return writer.folder


class SiteWriter:
    """Writes a site: its static files at once, then every page (`write_all`)
    or, as matches end, their files, the index and the live data (`add`)."""

    def __init__(self, folder: str | Path, points: Points = Points(), live: bool = True, *,
                 title: str = DEFAULT_TITLE, results_file: str | Path | None = None) -> None:
        self.folder = Path(folder)
        self.docs: list[dict[str, Any]] = []
        self.points = points
        self.event = _Event(title=title or DEFAULT_TITLE, state="live" if live else "final")
        """What the pages show besides the matches (set by whoever drives the writer)."""
        self.results_file = Path(results_file) if results_file else None
        """The session's own results file: never replaced by the site's copy."""
        self._version = self._index_version = 0
        try:
            _make_folder(self.folder)
            for name in _STATIC:
                _write(self.folder / name, _static(name))
        except OSError as e:
            raise ConfigError(f"cannot write the site into {folder}: {e.strerror or e}") \
                from None

    @property
    def live(self) -> bool:
        return self.event.state in ("starting", "live")

    def _site(self) -> _Site:
        self._version = max(self._version + 1, int(time.time() * 1000))
        return _Site(self.docs, self.points, self.event, self._version)

    def add(self, doc: dict[str, Any]) -> None:
        """A match ended: its files, its line, then the index and the live data."""
        self.add_all([doc])

    def add_all(self, docs: Sequence[dict[str, Any]]) -> None:
        """Matches ended: their files and lines, then the index and live data once."""
        self.docs.extend(docs)
        site = self._site()
        for doc in docs:
            self._match_files(site, doc)
        self._results(docs, whole=False)
        self._index(site)

    def write_all(self, live: bool | None = None, state: str | None = None) -> None:
        """Every file (the last write of a live site passes live=False, or its
        state: 'final' or 'stopped')."""
        if state is not None:
            self.event.state = state
        elif live is not None:
            self.event.state = "live" if live else "final"
        site = self._site()
        for doc in self.docs:
            self._match_files(site, doc)
        self._results(self.docs, whole=True)
        self._index(site)

    def write_index(self) -> None:
        """The index and the live data (the plan or the matches playing changed)."""
        self._index(self._site())

    def write_live(self) -> None:
        """The live data alone (a match played here moved; a heartbeat)."""
        self._put_live(self._site())

    def _match_files(self, site: _Site, doc: dict[str, Any]) -> None:
        stem = match_page_name(int(doc.get("match", 0)))[:-len(".html")]
        text = _transcript(doc)
        if text is not None:
            self._put(f"{stem}.txt", text)
        self._put(f"{stem}.json", json.dumps(public_doc(doc)) + "\n")
        self._put(f"{stem}.html", site.match(doc, text is not None))

    def _results(self, docs: Sequence[dict[str, Any]], whole: bool) -> None:
        """The site's copy of the results file: `docs` added to it, or (`whole`)
        written anew; never when it is the session's own file."""
        path = self.folder / RESULTS_NAME
        if self.results_file is not None and path.exists():
            try:
                if os.path.samefile(path, self.results_file):
                    return
            except OSError:
                pass
        try:
            if whole or not path.exists():
                _write(path, "".join(json.dumps(public_doc(d)) + "\n" for d in sorted(
                    self.docs, key=lambda d: int(d.get("match", 0)))))
            else:
                _append(path, "".join(json.dumps(public_doc(d)) + "\n" for d in docs))
        except OSError as e:
            raise ConfigError(f"cannot write {path}: {e.strerror or e}") from None

    def _index(self, site: _Site) -> None:
        sections = site.index_sections()
        self._put("index-live.js", "window.cslSiteIndex && window.cslSiteIndex("
                  + _script_json({"version": site.version, "sections": sections}) + ");\n")
        self._put("index.html", site.index())
        self._index_version = site.version
        self._put_live(site)

    def _put_live(self, site: _Site) -> None:
        data = site.live_data(self._index_version)
        self._put("live.json", json.dumps(data) + "\n")
        self._put("live.js", "window.cslSiteLive && window.cslSiteLive("
                  + _script_json(data) + ");\n")

    def _put(self, name: str, text: str) -> None:
        try:
            _write(self.folder / name, text)
        except OSError as e:
            raise ConfigError(f"cannot write {self.folder / name}: {e.strerror or e}") \
                from None


def _script_json(data: object) -> str:
    """JSON safe inside a script (no '</' to end it)."""
    return json.dumps(data).replace("</", "<\\/")


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


# ------------------------------------------------------------------ live
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
