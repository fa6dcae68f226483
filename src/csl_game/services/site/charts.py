"""The site's drawings, as SVG: a board as the game draws it, line charts and
the ratings with their intervals, each on an axis of round ticks."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from csl_game.engine import Rating
from csl_game.services.site.markup import esc, isolate

__all__ = ["board_svg", "nice_ticks", "nice_range", "Series", "line_chart", "ratings_chart"]

_COLORS = {"white": "#f4f1e8", "red": "#c8323c"}
_STROKE = {"white": "#55524a", "red": "#6d1016"}
_PALETTE = ("#1f77b4", "#e8590c", "#2b8a3e", "#d6336c", "#7048e8", "#8c564b", "#c2255c",
            "#5c7cfa", "#a08c00", "#0c8599")
_WIDE, _NARROW = 640, 360
"""Charts are drawn twice, for a wide screen and a phone's, so their text reads
at about the same size on both."""


def board_svg(settings: dict[str, Any], moves: Sequence[dict[str, Any]], upto: int,
              solution: Sequence[Sequence[int]] = (), label: str = "") -> str:
    """The board after `upto` moves, as the game draws it: round pieces as
    discs, square ones as squares, white and red; the winning run ringed."""
    rows, cols = int(settings.get("rows", 6)), int(settings.get("cols", 7))
    cell = 40
    width, height = cols * cell + 20, rows * cell + 40
    parts = [f'<svg class="board" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{esc(label)}" xmlns="http://www.w3.org/2000/svg">',
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


def _short(name: str, most: int = 30) -> str:
    """A name as a chart's label: at most `most` characters (a longer one cut,
    with an ellipsis; the ratings' dots give it whole)."""
    return name if len(name) <= most else name[:most - 1] + "\u2026"


def _tick(value: float) -> str:
    return f"{value:g}".replace("-", "\u2212")


@dataclass(frozen=True)
class Series:
    """A line of a chart: its name and its points (x, y)."""

    name: str
    points: tuple[tuple[float, float], ...]


def line_chart(series: Sequence[Series], title: str, x_label: str, *,
               x_range: tuple[float, float] | None = None, cursor: bool = False,
               integer_x: bool = True, integer_y: bool = False) -> str:
    """Lines over a common x axis, with round ticks on both axes, a legend in
    the order given, and (`cursor`) a marker the match page moves to the move
    shown; `integer_y`: whole values on the y axis, as plies); drawn for a wide
    screen and again for a phone's."""
    values = [p for s in series for p in s.points]
    if not values:
        return ""
    xs = [x for x, _ in values]
    x_low, x_high = x_range or (min(xs), max(xs))
    if x_high <= x_low:
        x_high = x_low + 1
    ys = [y for _, y in values] + [0.0]
    low, high = nice_range(min(ys), max(ys), 5)
    y_ticks = nice_ticks(low, high, 5, whole=integer_y)
    if integer_y:
        low, high = min(low, y_ticks[0]), max(high, y_ticks[-1])
    body = "".join(_line_svg(series, width, x_low, x_high, low, high, y_ticks, x_label,
                             title, cursor, integer_x) for width in (_WIDE, _NARROW))
    return f'<figure class="chart">{body}<figcaption>{esc(title)}</figcaption></figure>'


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
             f'role="img" aria-label="{esc(title)}" xmlns="http://www.w3.org/2000/svg"'
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
                 f"{esc(x_label)}</text>")
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
                     f'<text x="{left + 22}" y="{y}" class="legend">{esc(isolate(_short(s.name)))}</text>')
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
    return f'<figure class="chart">{body}<figcaption>{esc(title)}</figcaption></figure>'


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
                         f"{esc(isolate(_short(r.name, 19)))}</text>")
        else:
            y = top + 14 + i * (row + 14)
            parts.append(f'<text x="{left}" y="{y - 10}" class="legend">{esc(isolate(_short(r.name)))} '
                         f"{r.elo:+.0f}</text>")
        parts.append(f'<line x1="{px(r.ci95[0]):.1f}" y1="{y}" x2="{px(r.ci95[1]):.1f}" '
                     f'y2="{y}" class="bar"/><circle cx="{px(r.elo):.1f}" cy="{y}" r="5" '
                     f'class="dot"><title>{esc(isolate(r.name))}: {r.elo:+.0f} '
                     f'[{r.ci95[0]:+.0f}, {r.ci95[1]:+.0f}]</title></circle>')
    parts.append("</svg>")
    return "".join(parts)
