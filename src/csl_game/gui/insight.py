"""What the AI sees, beside the board: the analysis and the spectator's figures.

`AnalysisTool` follows the position a scene shows with the analysis service
(a worker process: `poll()` never blocks) and works out the threat marks and
where the best line's pieces would land. `Spectator` keeps each thinker's
last reported figures (depth, score, nodes/s, its line: the ``key=value``
words of csl_game.engine.figures) and the evaluation each side gave after
every move. `InsightPanel` draws both in the panel beside the log, and
`draw_marks` the marks and the numbered ghost pieces on the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame
from pygame import Rect

from csl_game.engine import RunnerFactory, parse_figures, parse_line
from csl_game.gui.columns import shown_move, shown_moves
from csl_game.gui.layout import BoardLayout
from csl_game.gui.panels import log_box
from csl_game.gui.pieces import Look, PieceArt, draw_piece_shape
from csl_game.gui.style import TextCache, TextRole, palette
from csl_game.model.board import Board, PColor, Piece, Pos, PShape
from csl_game.services.analysis import (
    Analysis,
    Analyst,
    MoveValue,
    Threat,
    line_cells,
    moves_to_win,
    score_share,
    threats,
)
from csl_game.thinker.api import MatchConfig

__all__ = ["AnalysisTool", "Spectator", "SideFigures", "InsightPanel", "draw_marks",
           "split_for_panel", "LINE_SHOWN", "eval_text"]

LINE_SHOWN = 8
"""The most moves of the best line drawn on the board."""
ANALYSIS_TIME_MS = 60_000
"""How long the window's analysis searches one position before it rests."""
_CORNERS = {(PColor.WHITE, PShape.ROUND): (0, 0), (PColor.WHITE, PShape.SQUARE): (1, 0),
            (PColor.RED, PShape.ROUND): (0, 1), (PColor.RED, PShape.SQUARE): (1, 1)}
"""Where a threat's piece is marked in its cell: White's pieces on top, round left."""


def split_for_panel(log: Rect, scale: float) -> tuple[Rect, Rect]:
    """(panel, log) from the log's area: side by side when it is wide, the
    panel on top when it is a tall sidebar."""
    gap = round(8 * scale)
    if log.w >= 2 * log.h:
        width = min(log.w * 3 // 5, max(log.w // 2, round(560 * scale)))
        return Rect(log.x, log.y, width, log.h), \
            Rect(log.x + width + gap, log.y, log.w - width - gap, log.h)
    height = min(log.h * 3 // 5, round(230 * scale))
    return Rect(log.x, log.y, log.w, height), \
        Rect(log.x, log.y + height + gap, log.w, log.h - height - gap)


def eval_text(value: MoveValue, after: bool = False) -> str:
    """'White wins in 3', 'Draw', 'White +35', 'Even' (MoveValue.text: a win
    in the winner's moves, from the position the move is played in, or with
    `after` from the one it leaves)."""
    return value.text(after)


class AnalysisTool:
    """The analysis panel's state: on or off, the position followed, what it found."""

    def __init__(self, config: MatchConfig, runner_factory: RunnerFactory,
                 time_ms: int = ANALYSIS_TIME_MS) -> None:
        self._config, self._factory, self._time_ms = config, runner_factory, time_ms
        self.analyst: Analyst | None = None
        self.on = False
        self.board: Board | None = None
        """The position shown."""
        self.analysis: Analysis | None = None
        self.marks: tuple[Threat, ...] = ()
        self.cells: list[tuple[Pos, Piece]] = []
        """Where the best line's moves land, in order."""
        self.version = 0
        """Counts changes of what the panel and the marks show."""

    def toggle(self) -> None:
        self.on = not self.on
        if not self.on and self.analyst is not None:
            self.analyst.close()
            self.analyst = None
        self.board, self.analysis, self.marks, self.cells = None, None, (), []
        self.version += 1

    def follow(self, board: Board | None) -> None:
        """Analyse `board` (the position on screen; None: nothing to show)."""
        if not self.on:
            return
        if board is not None and self.board is not None \
                and board.history == self.board.history and board.settings == self.board.settings:
            return
        if board is None and self.board is None:
            return
        self.board = None if board is None else board.copy()
        self.analysis, self.cells = None, []
        self.marks = () if board is None else threats(board)
        if self.analyst is None and board is not None:
            self.analyst = Analyst(self._config, self._factory, self._time_ms)
        if self.analyst is not None:
            self.analyst.show(self.board)
        self.version += 1

    def update(self) -> None:
        """Take the analyst's latest report (never waits)."""
        if not self.on or self.analyst is None or self.board is None:
            return
        latest = self.analyst.poll()
        if latest is not None and latest is not self.analysis:
            self.analysis = latest
            self.cells = line_cells(self.board, latest.line[:LINE_SHOWN])
            self.version += 1

    @property
    def searching(self) -> bool:
        return self.analyst is not None and self.analyst.running

    def status(self) -> str:
        """'depth 9, searching' and the like."""
        if self.board is None:
            return "Game over" if self.on else ""
        if self.analysis is None:
            return "Searching..."
        state = "searching" if self.searching else "done"
        return f"depth {self.analysis.depth}, {state}"

    def close(self) -> None:
        if self.analyst is not None:
            self.analyst.close()
            self.analyst = None


@dataclass
class SideFigures:
    """What one side's thinker said last, and its evaluations move by move."""

    figures: dict[str, float] = field(default_factory=dict)
    line: tuple[str, ...] = ()
    ply: int = 0
    """The ply the figures were reported for."""
    evals: dict[int, float] = field(default_factory=dict)
    """White's share (0 to 1) by the side's own evaluation, by ply played."""

    def words(self, color: PColor) -> str:
        """'depth 9 · White +35 · 152k nodes/s' from the figures `color`'s
        thinker reported (its score turned to White's or Red's advantage)."""
        f = self.figures
        parts = []
        if "depth" in f:
            parts.append(f"depth {f['depth']:.0f}")
        if "mate" in f:
            mate = f["mate"]
            winner = color if mate > 0 else color.other
            parts.append(f"{winner.name.title()} wins in {moves_to_win(round(abs(mate)))}")
        elif "score" in f:
            sign = 1 if color is PColor.WHITE else -1
            parts.append(eval_text(MoveValue("", None, None, sign * f["score"])))
        elif "value" in f:
            parts.append(f"value {f['value']:.2f}")
        for key, unit in (("nps", "nodes/s"), ("pps", "playouts/s")):
            if key in f:
                parts.append(f"{_count(f[key])} {unit}")
                break
        return " \u00b7 ".join(parts)


def _count(n: float) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e3 else f"{n:.0f}"


class Spectator:
    """Each side's reported figures while AIs play (the log keeps every line)."""

    def __init__(self) -> None:
        self.sides = (SideFigures(), SideFigures())
        self.version = 0

    def info(self, color: PColor, text: str, ply: int) -> None:
        """A thinking-info line of `color`'s thinker, thinking the move of `ply`."""
        figures, line = parse_figures(text), parse_line(text)
        if not figures and not line:
            return
        side = self.sides[color]
        if figures:  # a turn's figures replace the last turn's (a forced move has none)
            side.figures = figures if side.ply != ply else {**side.figures, **figures}
            side.ply = ply
        side.line = line or side.line
        share = _share(figures, color)
        if share is not None:
            side.evals[ply] = share
        self.version += 1

    def forget_after(self, ply: int) -> None:
        """Moves were taken back: drop the evaluations of the plies undone."""
        for side in self.sides:
            for k in [k for k in side.evals if k >= ply]:
                del side.evals[k]
        self.version += 1


def _share(figures: dict[str, float], color: PColor) -> float | None:
    """White's share by a side's `mate` or `score` (its own point of view)."""
    sign = 1 if color is PColor.WHITE else -1
    if "mate" in figures:
        return 1.0 if sign * figures["mate"] > 0 else 0.0
    if "score" in figures:
        return score_share(MoveValue("", None, None, sign * figures["score"]))
    return None


def draw_marks(surface: pygame.Surface, lay: BoardLayout, art: PieceArt, text: TextCache,
               marks: tuple[Threat, ...], cells: list[tuple[Pos, Piece]]) -> None:
    """The threat marks, then the best line as numbered ghost pieces."""
    pal = palette()
    size = max(6, lay.cell * 3 // 10)
    ring = max(1, size // 7)
    for mark in marks:
        cell = lay.cell_rect(mark.pos.row, mark.pos.col)
        cx, cy = _CORNERS[(mark.piece.color, mark.piece.shape)]
        inset = max(2, lay.cell // 12)
        x = cell.x + inset if cx == 0 else cell.right - inset - size
        y = cell.y + inset if cy == 0 else cell.bottom - inset - size
        box = Rect(x, y, size, size)
        image = art.piece(mark.piece, size, Look.NORMAL if mark.playable else Look.GHOST)
        surface.blit(image, box)
        winner = pal.white_fill if mark.winner is PColor.WHITE else pal.red_fill
        draw_piece_shape(surface, box.inflate(2 * ring + 2, 2 * ring + 2), mark.piece.shape,
                         winner, ring)
    label = max(10, round(lay.cell * 0.3))
    for number, (pos, piece) in enumerate(cells, start=1):
        rect = lay.piece_rect(pos.row, pos.col)
        surface.blit(art.piece(piece, rect.w, Look.GHOST), rect)
        ink = pal.white_outline if piece.color is PColor.WHITE else pal.red_outline
        digits = text.render(str(number), label, ink, bold=True)
        surface.blit(digits, digits.get_rect(center=rect.center))


class InsightPanel:
    """Draws the analysis (evaluation bar, best line, moves) and the spectator's
    figures and graph in one panel."""

    def __init__(self, text: TextCache) -> None:
        self.text = text
        self._cache: tuple[object, pygame.Surface] | None = None

    def forget(self) -> None:
        self._cache = None

    def draw(self, surface: pygame.Surface, rect: Rect, scale: float,
             tool: AnalysisTool | None, spectator: Spectator | None,
             names: tuple[str, str], ply: int) -> None:
        key = (tuple(rect), scale, tool.version if tool else None, tool.on if tool else None,
               tool.status() if tool else None,
               spectator.version if spectator else None, names, ply)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._paint(rect, scale, tool, spectator, names, ply))
        surface.blit(self._cache[1], rect)

    def _paint(self, rect: Rect, s: float, tool: AnalysisTool | None,
               spectator: Spectator | None, names: tuple[str, str],
               ply: int) -> pygame.Surface:
        surf, inner = log_box(rect.size, s)
        pad = round(8 * s)
        size = TextRole.LOG.size(s)
        line_h = self.text.fonts.get(size).get_linesize()
        analysing = tool is not None and tool.on
        # beside the analysis, the graph takes a wide panel's right part; else it
        # goes under the sides' lines, as wide as they are
        graph_w = inner.w * 2 // 5 if spectator is not None and analysing \
            and inner.w >= round(360 * s) else 0
        body = Rect(inner.x, inner.y, inner.w - graph_w - (pad if graph_w else 0), inner.h)
        y = body.y
        if tool is not None and analysing:
            y = self._paint_analysis(surf, body, s, tool, size, line_h, spectator is not None)
        if spectator is None:
            return surf
        series = [side.evals for side in spectator.sides]
        stacked = not graph_w and body.bottom - y >= 9 * line_h
        for color in PColor:
            side = spectator.sides[color]
            if stacked:  # a tall panel: name, figures and line on lines of their own
                y = self._paint_block(surf, Rect(body.x, y, body.w, 3 * line_h), color,
                                      names[color], side, size, line_h)
            elif y + line_h <= body.bottom:
                self._paint_side(surf, Rect(body.x, y, body.w, line_h), color,
                                 names[color], side, size)
                y += line_h
        top = y + round(4 * s)
        if graph_w:
            _paint_graph(surf, Rect(body.right + pad, inner.y, graph_w, inner.h), series, ply, s)
        elif body.bottom - top >= 3 * line_h:
            _paint_graph(surf, Rect(body.x, top, body.w, min(body.bottom - top, body.w // 2)),
                         series, ply, s)
        return surf

    def _paint_block(self, surf: pygame.Surface, rect: Rect, color: PColor, name: str,
                     side: SideFigures, size: int, line_h: int) -> int:
        pal = palette()
        self._paint_side(surf, Rect(rect.x, rect.y, rect.w, line_h), color, name, None, size)
        words = side.words(color) or "no figures yet"
        surf.blit(self.text.fit(words, size, pal.log_text, rect.w), (rect.x, rect.y + line_h))
        line = "Line: " + " ".join(shown_moves(side.line)) if side.line else ""
        surf.blit(self.text.fit(line, size, pal.text_dim, rect.w), (rect.x, rect.y + 2 * line_h))
        return rect.y + 3 * line_h + line_h // 3

    def _paint_analysis(self, surf: pygame.Surface, body: Rect, s: float, tool: AnalysisTool,
                        size: int, line_h: int, spectating: bool) -> int:
        pal = palette()
        analysis = tool.analysis
        best = analysis.best if analysis is not None else None
        share = score_share(best) if best is not None else 0.5
        words = eval_text(best) if best is not None else "Analysis"
        title = self.text.fit(words, size, pal.log_latest, body.w * 3 // 5, bold=True)
        surf.blit(title, (body.x, body.y))
        room = body.w - title.get_width() - round(8 * s)
        state = tool.status()
        if self.text.fonts.get(size).size(state)[0] > room:
            state = state.split(",")[0]
        status = self.text.fit(state, size, pal.text_dim, room)
        surf.blit(status, status.get_rect(topright=(body.right, body.y)))
        bar = Rect(body.x, body.y + line_h + round(2 * s), body.w, max(6, line_h // 2))
        if best is None or analysis is None:  # nothing known yet, or the game is over
            return body.y + line_h + round(3 * s)
        pygame.draw.rect(surf, pal.red_fill, bar, border_radius=bar.h // 2)
        white = Rect(bar.x, bar.y, round(bar.w * share), bar.h)
        if white.w:
            pygame.draw.rect(surf, pal.white_fill, white, border_radius=bar.h // 2)
        pygame.draw.line(surf, pal.background_low, (bar.centerx, bar.top - 1),
                         (bar.centerx, bar.bottom))
        y = bar.bottom + round(3 * s)
        shown = analysis.line[:LINE_SHOWN]
        text = "Best line: " + "  ".join(f"{i}. {shown_move(m)}"
                                     for i, m in enumerate(shown, start=1))
        surf.blit(self.text.fit(text, size, pal.log_latest, body.w), (body.x, y))
        y += line_h
        reserved = 2 * line_h if spectating else 0
        rows = (body.bottom - reserved - y) // line_h
        if rows >= 3:  # room for a move a line: 3r  White wins in 7
            for value in analysis.moves[:rows]:
                name = self.text.render(shown_move(value.move), size, pal.log_latest,
                                        bold=True)
                surf.blit(name, (body.x, y))
                surf.blit(self.text.fit(eval_text(value), size, pal.log_text,
                                        body.w - round(48 * s)), (body.x + round(48 * s), y))
                y += line_h
        elif rows >= 1:
            moves = " \u00b7 ".join(f"{shown_move(m.move)} {_short(m)}"
                                     for m in analysis.moves)
            surf.blit(self.text.fit(moves, size, pal.log_text, body.w), (body.x, y))
            y += line_h
        return y

    def _paint_side(self, surf: pygame.Surface, row: Rect, color: PColor, name: str,
                    side: SideFigures | None, size: int) -> None:
        """One line: the side's piece, its name and (given `side`) its figures."""
        pal = palette()
        dot = row.h * 3 // 5
        fill = pal.white_fill if color is PColor.WHITE else pal.red_fill
        shape = PShape.ROUND if color is PColor.WHITE else PShape.SQUARE
        draw_piece_shape(surf, Rect(row.x, row.centery - dot // 2, dot, dot), shape, fill)
        x = row.x + dot + round(dot / 2)
        if side is None:
            surf.blit(self.text.fit(name, size, pal.log_latest, row.right - x, bold=True),
                      (x, row.y))
            return
        words = side.words(color) or "no figures yet"
        if side.line:
            words += "  \u00b7  " + " ".join(shown_moves(side.line[:6]))
        label = self.text.fit(name, size, pal.log_latest, (row.right - x) * 2 // 5, bold=True)
        surf.blit(label, (x, row.y))
        x += label.get_width() + round(dot * 0.8)
        surf.blit(self.text.fit(words, size, pal.log_text, row.right - x), (x, row.y))


def _short(value: MoveValue) -> str:
    if value.result == "draw":
        return "draw"
    if value.result is not None:
        return f"{'W' if value.result == 'white' else 'R'}#{moves_to_win(value.plies or 1)}"
    return f"{value.score or 0:+.0f}"


def _paint_graph(surf: pygame.Surface, rect: Rect, series: list[dict[int, float]], ply: int,
                 s: float) -> None:
    """White's share over the plies, one line per side's own evaluation."""
    pal = palette()
    pygame.draw.rect(surf, pal.background_low, rect, border_radius=round(4 * s))
    mid = rect.centery
    pygame.draw.line(surf, pal.log_edge, (rect.x, mid), (rect.right - 1, mid))
    last = max([ply, *(max(evals, default=0) for evals in series)], default=0)
    span = max(last, 8)
    colours = (pal.white_fill, pal.red_fill)
    width = max(1, round(2 * s))
    for evals, colour in zip(series, colours, strict=False):
        points = [(rect.x + round(k * (rect.w - 1) / span),
                   rect.bottom - 1 - round(v * (rect.h - 1))) for k, v in sorted(evals.items())]
        if len(points) >= 2:
            pygame.draw.lines(surf, colour, False, points, width)
        for point in points[-1:]:
            pygame.draw.circle(surf, colour, point, width + 1)
