"""Game review in the window: every move graded, the better move, accuracy, graph.

`ReviewTool` runs the review service (csl_game.services.review) over a
replay's moves, off the frame loop (`update()` never waits), and says what
the board shows at each step: the grade of the move just played and, when
it was not the best, where the best move would have landed. `ReviewPanel`
draws the progress, both players' accuracy, the move's grade with the better
move and its value, and the graph of White's expected score across the game
with the step shown and the mistakes marked.
"""

from __future__ import annotations

import pygame
from pygame import Rect

from csl_game.engine import RunnerFactory
from csl_game.gui.columns import shown_move, shown_moves
from csl_game.gui.insight import eval_text
from csl_game.gui.layout import BoardLayout
from csl_game.gui.panels import log_box, wrap
from csl_game.gui.pieces import Look, PieceArt
from csl_game.gui.style import TextCache, TextRole, palette
from csl_game.model.board import Board, Piece, Pos
from csl_game.services.analysis import line_cells
from csl_game.services.replay import Replay
from csl_game.services.review import DEFAULT_MS, Review, ReviewedMove, ReviewJob
from csl_game.thinker.api import MatchConfig

__all__ = ["ReviewTool", "ReviewPanel", "GRADE_WORDS"]

GRADE_WORDS = {"best": "Best", "good": "Good", "inaccuracy": "Inaccuracy",
               "mistake": "Mistake", "blunder": "Blunder"}
_MARKED = ("inaccuracy", "mistake", "blunder")


class ReviewTool:
    """The review of one replay: started on demand, followed frame by frame."""

    def __init__(self, replay: Replay, runner_factory: RunnerFactory,
                 time_ms: int = DEFAULT_MS) -> None:
        self.replay = replay
        self._factory, self._time_ms = runner_factory, time_ms
        self.job: ReviewJob | None = None
        self.review: Review | None = None
        self.version = 0

    @property
    def started(self) -> bool:
        return self.job is not None or self.review is not None

    def start(self) -> None:
        if self.started:
            return
        rows, cols, n, rounds, squares = self.replay.settings
        config = MatchConfig(rows, cols, n, rounds, squares)
        moves = [(p.move.col, p.move.piece.shape) for p in self.replay.moves]
        self.job = ReviewJob(config, moves, self._factory, self._time_ms)
        self.version += 1

    def update(self) -> None:
        """Take the moves reviewed since the last frame (never waits)."""
        job = self.job
        if job is None:
            return
        review = job.poll()
        if review is not None and (self.review is None
                                   or len(review.moves) != len(self.review.moves)):
            self.review = review
            self.version += 1
        if job.done:
            job.close()
            self.job = None
            self.version += 1

    @property
    def progress(self) -> tuple[int, int]:
        if self.job is not None:
            return self.job.progress
        total = len(self.replay.moves)
        return (total, total) if self.review is not None else (0, total)

    def move(self, step: int) -> ReviewedMove | None:
        """The review of the move that led to step `step` (None before it is known)."""
        if self.review is None or step < 1 or step > len(self.review.moves):
            return None
        return self.review.moves[step - 1]

    def better(self, step: int, boards: list[Board]) -> tuple[Pos, Piece] | None:
        """Where the best move would have landed instead of the one that led to
        step `step`, when that one was not the best."""
        reviewed = self.move(step)
        if reviewed is None or reviewed.grade == "best" or reviewed.best.move == \
                reviewed.played.move:
            return None
        cells = line_cells(boards[step - 1], [reviewed.best.move])
        return cells[0] if cells else None

    def next_mistake(self, step: int) -> int | None:
        """The step after the next inaccuracy, mistake or blunder after `step`
        (None: there is none, or none known yet)."""
        if self.review is None:
            return None
        return next((m.ply + 1 for m in self.review.moves
                     if m.ply + 1 > step and m.grade in _MARKED), None)

    def close(self) -> None:
        if self.job is not None:
            self.job.close()
            self.job = None


def draw_better(surface: pygame.Surface, lay: BoardLayout, art: PieceArt,
                better: tuple[Pos, Piece] | None) -> None:
    """The better move as a ghost piece ringed in the hint colour."""
    if better is None:
        return
    pos, piece = better
    rect = lay.piece_rect(pos.row, pos.col)
    ghost = art.piece(piece, rect.w, Look.GHOST)
    surface.blit(ghost, rect)
    width = max(2, lay.cell // 14)
    pygame.draw.rect(surface, palette().hint, lay.cell_rect(pos.row, pos.col).inflate(-2, -2),
                     width, border_radius=lay.cell // 5)


class ReviewPanel:
    """Draws the review beside the board (cached until something changes)."""

    def __init__(self, text: TextCache) -> None:
        self.text = text
        self._cache: tuple[object, pygame.Surface] | None = None

    def forget(self) -> None:
        self._cache = None

    def draw(self, surface: pygame.Surface, rect: Rect, scale: float, tool: ReviewTool,
             step: int, names: tuple[str, str]) -> None:
        key = (tuple(rect), scale, tool.version, step, names)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._paint(rect, scale, tool, step, names))
        surface.blit(self._cache[1], rect)

    def _paint(self, rect: Rect, s: float, tool: ReviewTool, step: int,
               names: tuple[str, str]) -> pygame.Surface:
        pal = palette()
        surf, body = log_box(rect.size, s)
        size = TextRole.LOG.size(s)
        line_h = self.text.fonts.get(size).get_linesize()
        y = body.y
        for text, color, bold in self.lines(body.w, s, tool, step):
            if y + line_h > body.bottom:
                break
            surf.blit(self.text.render(text, size, pal[color], bold), (body.x, y))
            y += line_h
        graph = Rect(body.x, y + round(4 * s), body.w, body.bottom - y - round(4 * s))
        review = tool.review
        if graph.h >= 3 * line_h // 2 and review is not None:
            _paint_graph(surf, graph, review, step, tool.progress[1], s)
        return surf

    def lines(self, width: int, s: float, tool: ReviewTool,
              step: int) -> list[tuple[str, str, bool]]:
        """What the panel says, as (text, theme colour, bold) lines at most
        `width` pixels wide: broken between words, never cut short. A win is
        counted from the position on the board (after the move shown), as the
        analysis panel counts it."""
        done, total = tool.progress
        title = "Game review" if done == total else f"Game review: {done} of {total} moves"
        said: list[tuple[str, str, bool]] = [(title, "log_latest", True)]
        review = tool.review
        if review is not None:
            parts = [f"{color.title()} {accuracy:.0f}%" for color in ("white", "red")
                     if (accuracy := review.accuracy(color)) is not None]
            if parts:
                said.append(("Accuracy: " + " \u00b7 ".join(parts), "log_text", False))
                font = self.text.fonts.get(TextRole.LOG.size(s))
                both = " \u00b7 ".join(parts)
                if font.size(said[-1][0])[0] > width:  # never split inside a player's
                    said[-1:] = [("Accuracy:", "log_text", False),
                                 *(((both, "log_text", False),) if font.size(both)[0] <= width
                                   else ((part, "log_text", False) for part in parts))]
        reviewed = tool.move(step)
        if step == 0:
            said.append(("Start: step on to see each move graded", "text_dim", False))
        elif reviewed is None:
            said.append(("Analysing this move...", "text_dim", False))
        else:
            played = shown_move(reviewed.played.move)
            said.append((f"{step}. {played}: {GRADE_WORDS[reviewed.grade]}",
                         f"grade_{reviewed.grade}", True))
            said.append((f"After it: {eval_text(reviewed.played, after=True)}", "log_text",
                         False))
            if reviewed.grade != "best":
                better = (f"Best was {shown_move(reviewed.best.move)} "
                          f"({eval_text(reviewed.best, after=True)})")
                if len(reviewed.line) > 1:
                    better += ": " + " ".join(shown_moves(reviewed.line[:6]))
                said.append((better, "hint", False))
        size = TextRole.LOG.size(s)
        out = []
        for text, color, bold in said:
            font = self.text.fonts.get(size, bold)
            out += [(part, color, bold) for part in wrap(text, font, width)]
        return out


def _paint_graph(surf: pygame.Surface, rect: Rect, review: Review, step: int, total: int,
                 s: float) -> None:
    """White's expected score from the start to the end, the step shown marked."""
    pal = palette()
    pygame.draw.rect(surf, pal.background_low, rect, border_radius=round(4 * s))
    graph = review.graph()
    span = max(total, 1)

    def at(k: int, v: float) -> tuple[int, int]:
        return (rect.x + round(k * (rect.w - 1) / span), rect.bottom - 1 - round(v * (rect.h - 1)))

    pygame.draw.line(surf, pal.log_edge, (rect.x, rect.centery), (rect.right - 1, rect.centery))
    points = [at(k, v) for k, v in enumerate(graph)]
    if len(points) >= 2:
        area = [(rect.x, rect.bottom - 1), *points, (points[-1][0], rect.bottom - 1)]
        pygame.draw.polygon(surf, pal.white_shade, area)
        pygame.draw.lines(surf, pal.white_fill, False, points, max(1, round(2 * s)))
    x = at(step, 0)[0]
    pygame.draw.line(surf, pal.highlight, (x, rect.top), (x, rect.bottom - 1),
                     max(1, round(2 * s)))
    for m in review.moves:
        if m.grade in _MARKED:
            pygame.draw.circle(surf, pal[f"grade_{m.grade}"], at(m.ply + 1, m.after),
                               max(3, round(4 * s)))
