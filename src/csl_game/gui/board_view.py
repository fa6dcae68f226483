"""Drawing the board: ground, columns, arrows, pieces, animations, win line.

`BoardView` only draws. What to draw comes from a `VisualBoard` (pieces and
animations) and a `Pointer` (the human's column, ghost piece, playable
columns). The background and the landed pieces are kept in one cached layer
that changes only when a piece lands or the window is resized.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

from csl_game.gui.animation import VisualBoard
from csl_game.gui.columns import column_number
from csl_game.gui.layout import BoardLayout
from csl_game.gui.pieces import Look, PieceArt, draw_piece_shape
from csl_game.gui.style import TextCache, TextRole, backdrop, palette
from csl_game.model.board import PColor, Piece, Pos, PShape

__all__ = ["Pointer", "BoardView"]


@dataclass(frozen=True)
class Pointer:
    """What the human input adds to the board."""

    column: int | None = None
    """The highlighted column (mouse or keyboard), if any."""
    ghost: Piece | None = None
    """The piece that would be dropped there, drawn where it would land."""
    ghost_row: int | None = None
    playable: tuple[bool, ...] = ()
    """Per column: whether its arrow is enabled."""
    hint: tuple[int, int, Piece] | None = None
    """A hinted move: (column, landing row, piece), drawn ringed in the hint colour."""


SMALL_CELL = 32
"""Below this cell size (pixels) a number no longer reads well inside its arrow."""


def _label_size(lay: BoardLayout) -> int:
    return max(10, round(lay.cell * 0.26))


def _numbered(col: int, every: int) -> bool:
    """Whether column `col` (from 0) shows its number when every `every`th does:
    the multiples of `every` as players count (5, 10, 15), and the first (1)
    where the second number is far enough from it."""
    number = column_number(col)
    return number % every == 0 or (number == 1 and every > 2)


def _room_below(lay: BoardLayout) -> int:
    """Free pixels under the ground, down to the toolbar, the log or the window's edge."""
    below = [r.top for r in (lay.toolbar, lay.log, *(p.rect for p in lay.panels))
             if r.top >= lay.ground.bottom and r.left < lay.ground.right
             and r.right > lay.ground.left]
    return min([lay.size[1], *below]) - lay.ground.bottom


def _column_strips(lay: BoardLayout) -> list[pygame.Rect]:
    """Per column, the part of the board region its pieces, rings, falling
    piece, arrow and ghost can touch (rings reach past the cell's edges)."""
    region = lay.board_region
    pad = -(-lay.cell // 4)
    return [pygame.Rect(lay.cells.x + col * lay.cell - pad, region.top,
                        lay.cell + 2 * pad, region.h).clip(region)
            for col in range(lay.cols)]


def _arrow_image(rect: pygame.Rect, color: pygame.Color) -> pygame.Surface:
    k = 4  # supersampling for smooth edges
    w, h = rect.w * k, rect.h * k
    big = pygame.Surface((w, h), pygame.SRCALPHA)
    big.fill((*color[:3], 0))
    points = [(w * 0.18, h * 0.08), (w * 0.82, h * 0.08), (w * 0.5, h * 0.94)]
    pygame.draw.polygon(big, color, points)
    return pygame.transform.smoothscale(big, rect.size)


class BoardView:
    """Draws a board scene's board area for one layout at a time."""

    def __init__(self, art: PieceArt, text: TextCache) -> None:
        self.art = art
        self.text = text
        self._layout: BoardLayout | None = None
        self._static: pygame.Surface | None = None
        self._layer: pygame.Surface | None = None
        self._layer_for: tuple[int, int, int] = (0, -1, -1)  # (id of visual, version, epoch)
        self._drawn: set[Pos] = set()
        self._arrows: dict[str, pygame.Surface] = {}
        self._rings: dict[tuple[PShape, int], pygame.Surface] = {}
        self._banner: tuple[tuple[object, ...], pygame.Surface] | None = None
        self._wrapped: dict[tuple[str, int], list[str]] = {}
        """Subtitles broken into lines, by (text, box width), for this layout."""
        self._strips: list[pygame.Rect] = []

    # ------------------------------------------------------------- caches
    def forget(self) -> None:
        """Drop every cached image (the theme changed); set_layout() paints anew."""
        self._layout = None
        self._banner = None

    def set_layout(self, layout: BoardLayout) -> None:
        """Use `layout` from now on (drops every cached layer)."""
        if layout == self._layout:
            return
        self._layout = layout
        self._static = self._paint_static(layout)
        self._layer = None
        self._layer_for = (0, -1, -1)  # the pieces are drawn again at the new size
        self._strips = _column_strips(layout)
        self._wrapped.clear()
        arrow = layout.arrows[0]
        pal = palette()
        self._arrows = {name: _arrow_image(arrow, pal[name])
                        for name in ("arrow", "arrow_hover", "arrow_disabled")}
        self._rings.clear()
        for color in PColor:  # paint the pieces now rather than mid-animation
            for shape in PShape:
                self.art.image(color, shape, layout.piece)

    def _paint_static(self, lay: BoardLayout) -> pygame.Surface:
        pal = palette()
        surf = backdrop(lay.size)
        c = lay.cell
        pygame.draw.rect(surf, pal.board, lay.frame, border_radius=max(2, c // 5))
        pygame.draw.rect(surf, pal.board_edge, lay.frame, max(1, c // 30),
                         border_radius=max(2, c // 5))
        for col in range(lay.cols):
            self._paint_column(surf, lay, col)
        ground = lay.ground
        radius = max(1, c // 10)
        pygame.draw.rect(surf, pal.ground_dark, ground, border_radius=radius)
        face = pygame.Rect(ground.x, ground.y, ground.w, max(1, ground.h * 2 // 3))
        pygame.draw.rect(surf, pal.ground, face, border_radius=radius)
        pygame.draw.line(surf, pal.ground_top, (ground.x + radius, ground.y),
                         (ground.right - 1 - radius, ground.y), max(1, c // 24))
        if self.numbers_below(lay):
            self._paint_numbers(surf, lay)
        return surf.convert() if pygame.display.get_surface() else surf

    @staticmethod
    def _paint_column(surf: pygame.Surface, lay: BoardLayout, col: int) -> None:
        pal = palette()
        c = lay.cell
        slot = lay.cell_rect(0, col).union(lay.cell_rect(lay.rows - 1, col))
        slot.inflate_ip(-max(2, c // 10), 0)
        pygame.draw.rect(surf, pal.column, slot, border_radius=max(2, c // 4))
        pole = pygame.Rect(0, 0, max(2, c // 9), slot.h + c // 8)
        pole.midbottom = slot.midbottom
        pygame.draw.rect(surf, pal.pole, pole, border_radius=pole.w // 2)
        for row in range(lay.rows):
            center = lay.cell_rect(row, col).center
            pygame.draw.circle(surf, pal.hole, center, max(2, lay.piece // 7))

    def _board_layer(self, visual: VisualBoard) -> pygame.Surface:
        assert self._layout is not None and self._static is not None
        key = (id(visual), visual.version, visual.epoch)
        if self._layer is None or key[0] != self._layer_for[0] or key[2] != self._layer_for[2]:
            self._layer = self._static.copy()
            self._drawn = set()
        if key != self._layer_for:
            for pos, piece in visual.landed.items():
                if pos not in self._drawn:
                    rect = self._layout.piece_rect(*pos)
                    self._layer.blit(self.art.piece(piece, rect.w), rect)
                    self._drawn.add(pos)
            self._layer_for = key
        return self._layer

    # ------------------------------------------------------------- drawing
    @staticmethod
    def signature(visual: VisualBoard, pointer: Pointer,
                  banner: tuple[str, str] | None) -> tuple[object, ...]:
        """A value that changes whenever draw() and draw_banner() would draw differently."""
        fall = visual.falling
        return (id(visual), visual.version, visual.epoch, pointer, banner, visual.last,
                visual.pulse_phase if visual.pulsing else None,
                (fall.move, fall.elapsed) if fall else None,
                visual.solution, visual.win_progress)

    def regions(self, visual: VisualBoard, pointer: Pointer,
                banner: tuple[str, str] | None) -> list[tuple[pygame.Rect, object]]:
        """(area, signature) pairs that cover the board region, each signature
        changing whenever draw() and draw_banner() would draw differently there.

        A strip per column, so a falling or pulsing piece costs the display one
        column a frame; the whole region while a result or a win line shows,
        as they cross columns.
        """
        lay = self._layout
        assert lay is not None, "call set_layout() first"
        if banner is not None or visual.solution:
            return [(lay.board_region, self.signature(visual, pointer, banner))]
        fall, last = visual.falling, visual.last
        pulse = visual.pulse_phase if visual.pulsing else None
        playable = pointer.playable
        out: list[tuple[pygame.Rect, object]] = []
        for col, strip in enumerate(self._strips):
            here = pointer.column == col
            hint = pointer.hint if pointer.hint is not None and pointer.hint[0] == col else None
            out.append((strip, (
                id(visual), visual.column_versions[col], hint,
                col < len(playable) and playable[col], here,
                (pointer.ghost, pointer.ghost_row) if here else None,
                (last, pulse) if last is not None and last.col == col else None,
                (fall.move, fall.elapsed) if fall is not None and fall.move.col == col
                else None)))
        return out

    def draw(self, surface: pygame.Surface, visual: VisualBoard, pointer: Pointer) -> None:
        """Draw the board, its pieces and animations, and the pointer."""
        lay = self._layout
        assert lay is not None, "call set_layout() first"
        surface.blit(self._board_layer(visual), (0, 0))
        self._draw_arrows(surface, lay, pointer)
        self._draw_hint(surface, lay, pointer)
        self._draw_ghost(surface, lay, pointer)
        self._draw_last(surface, lay, visual)
        self._draw_falling(surface, lay, visual)
        if visual.win_progress > 0:
            self._draw_win_line(surface, lay, visual)

    def _draw_arrows(self, surface: pygame.Surface, lay: BoardLayout, pointer: Pointer) -> None:
        color = palette().arrow_text
        size = _label_size(lay)
        every = 0 if self.numbers_below(lay) else self.label_step(lay)
        for col, rect in enumerate(lay.arrows):
            playable = col < len(pointer.playable) and pointer.playable[col]
            name = ("arrow_disabled" if not playable else
                    "arrow_hover" if col == pointer.column else "arrow")
            surface.blit(self._arrows[name], rect)
            if every and (_numbered(col, every) or col == pointer.column):
                label = self.text.render(str(column_number(col)), size, color, bold=True)
                surface.blit(label, label.get_rect(center=(rect.centerx, rect.y + rect.h * 0.34)))

    def label_step(self, lay: BoardLayout) -> int:
        """Every how many columns a number is shown: 1 while the widest number
        fits its column, else every 2nd, 5th or 10th."""
        size = _label_size(lay)
        widest = self.text.fonts.get(size, True).size(str(lay.cols))[0]
        for step in (1, 2, 5, 10):
            if widest <= lay.cell * step - 2:
                return step
        return 10

    def numbers_below(self, lay: BoardLayout) -> bool:
        """Whether column numbers go under the board: arrows too small to hold
        a number legibly, and room below the ground for a line of text."""
        if lay.cell >= SMALL_CELL:
            return False
        height = self.text.fonts.get(_label_size(lay), True).get_linesize()
        return _room_below(lay) >= height + 2

    def _paint_numbers(self, surf: pygame.Surface, lay: BoardLayout) -> None:
        """Column numbers in a row under the ground, in the text colour."""
        size, every = _label_size(lay), self.label_step(lay)
        for col in (c for c in range(lay.cols) if _numbered(c, every)):
            label = self.text.render(str(column_number(col)), size, palette().text, bold=True)
            cx = lay.cell_rect(0, col).centerx
            surf.blit(label, label.get_rect(midtop=(cx, lay.ground.bottom + 2)))

    def _draw_hint(self, surface: pygame.Surface, lay: BoardLayout, pointer: Pointer) -> None:
        if pointer.hint is None:
            return
        col, row, piece = pointer.hint
        rect = lay.piece_rect(row, col)
        surface.blit(self.art.piece(piece, rect.w, Look.GHOST), rect)
        hint = palette().hint
        width = max(2, lay.cell // 14)
        pygame.draw.rect(surface, hint, lay.cell_rect(row, col).inflate(-2, -2), width,
                         border_radius=lay.cell // 5)
        arrow = lay.arrows[col]
        pygame.draw.rect(surface, hint, arrow.inflate(-2, -2), width,
                         border_radius=arrow.w // 5)

    def _draw_ghost(self, surface: pygame.Surface, lay: BoardLayout, pointer: Pointer) -> None:
        if pointer.ghost is None or pointer.column is None or pointer.ghost_row is None:
            return
        rect = lay.piece_rect(pointer.ghost_row, pointer.column)
        surface.blit(self.art.piece(pointer.ghost, rect.w, Look.GHOST), rect)

    def _ring(self, shape: PShape, size: int) -> pygame.Surface:
        key = (shape, size)
        if key not in self._rings:
            k = 4
            big = pygame.Surface((size * k, size * k), pygame.SRCALPHA)
            color = palette().highlight
            big.fill((*color[:3], 0))
            draw_piece_shape(big, big.get_rect(), shape, color, max(k, size * k // 18))
            self._rings[key] = pygame.transform.smoothscale(big, (size, size))
        return self._rings[key]

    def _draw_last(self, surface: pygame.Surface, lay: BoardLayout, visual: VisualBoard) -> None:
        move = visual.last
        if move is None or Pos(move.row, move.col) not in visual.landed:
            return
        center = lay.cell_rect(move.row, move.col).center
        if not visual.pulsing:
            ring = self._ring(move.piece.shape, round(lay.piece * 1.12))
            ring.set_alpha(150)
            surface.blit(ring, ring.get_rect(center=center))
            return
        phase = visual.pulse_phase
        beat = math.sin(math.pi * phase * 3) ** 2  # three beats over the pulse
        ring = self._ring(move.piece.shape, round(lay.piece * (1.08 + 0.22 * beat)))
        ring.set_alpha(round(255 * (1 - 0.5 * phase)))
        surface.blit(ring, ring.get_rect(center=center))
        size = round(lay.piece * (1 + 0.1 * beat))
        base = self.art.piece(move.piece, lay.piece)
        image = base if size == lay.piece else pygame.transform.smoothscale(base, (size, size))
        surface.blit(image, image.get_rect(center=center))

    def _draw_falling(self, surface: pygame.Surface, lay: BoardLayout, visual: VisualBoard) -> None:
        fall = visual.falling
        if fall is None:
            return
        cx, cy = lay.cell_rect(fall.move.row, fall.move.col).center
        image = self.art.piece(fall.move.piece, lay.piece)
        surface.blit(image, image.get_rect(center=(cx, round(cy - fall.height * lay.cell))))

    def _draw_win_line(self, surface: pygame.Surface, lay: BoardLayout,
                       visual: VisualBoard) -> None:
        pal = palette()
        points = [lay.cell_rect(*p).center for p in visual.solution]
        (x0, y0), (x1, y1) = points[0], points[-1]
        t = visual.win_progress
        end = (round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t))
        for pos in visual.solution:
            piece = visual.landed.get(pos)
            if piece is not None:
                ring = self._ring(piece.shape, round(lay.piece * 1.12))
                ring.set_alpha(255)
                surface.blit(ring, ring.get_rect(center=lay.cell_rect(*pos).center))
        width = max(3, lay.cell // 7)
        _thick_line(surface, pal.win_line_edge, points[0], end, width + max(2, width // 2))
        _thick_line(surface, pal.win_line, points[0], end, width)

    def draw_banner(self, surface: pygame.Surface, visual: VisualBoard, title: str,
                    subtitle: str = "", room: tuple[int, int] = (0, 0)) -> None:
        """A result announcement over the board, clear of the win line.

        `room` (width, height) makes the box at least that wide and that much
        taller, with the space below the text left free (for buttons).
        """
        lay = self._layout
        assert lay is not None
        rect = self.banner_rect(visual, room, subtitle)
        key = (lay, title, subtitle, rect)
        if self._banner is None or self._banner[0] != key:
            self._banner = (key, self._paint_banner(lay, rect, title, subtitle, room[1]))
        surface.blit(self._banner[1], rect)

    def banner_rect(self, visual: VisualBoard, room: tuple[int, int] = (0, 0),
                    subtitle: str = "") -> pygame.Rect:
        """Where draw_banner() puts its box: clear of the win line, a line
        taller when `subtitle` takes two."""
        lay = self._layout
        assert lay is not None
        rows = [p.row for p in visual.solution]
        high = bool(rows) and sum(rows) / len(rows) >= (lay.rows - 1) / 2
        rect = (lay.banner_low if high else lay.banner).copy()
        bounds = pygame.Rect(0, 0, *lay.size)
        if lay.area.w > 0:  # beside the panels, never over them
            bounds = pygame.Rect(lay.area.x, 0, lay.area.w, lay.size[1])
        width = min(max(rect.w, room[0]), bounds.w)
        lines = self._subtitle_lines(subtitle, width, lay.scale)
        extra = (len(lines) - 1) * self.text.fonts.get(TextRole.BODY.size(lay.scale)).get_linesize()
        if room == (0, 0) and extra <= 0:
            return rect
        # grown, the box may reach the win line: try other places until one is clear
        height = rect.h + room[1] + max(0, extra)
        line = [lay.piece_rect(*pos) for pos in visual.solution]
        places = []
        for top in (rect.y, rect.bottom - height, lay.frame.bottom - height, lay.frame.y):
            place = pygame.Rect(0, top, width, height)
            place.centerx = rect.centerx
            places.append(place.clamp(bounds))
        return next((p for p in places if p.collidelist(line) < 0), places[0])

    def _paint_banner(self, lay: BoardLayout, rect: pygame.Rect, title: str,
                      subtitle: str, room_h: int = 0) -> pygame.Surface:
        pal = palette()
        box = pygame.Surface(rect.size, pygame.SRCALPHA)
        radius = (rect.h - room_h) // 5
        pygame.draw.rect(box, pal.banner, box.get_rect(), border_radius=radius)
        pygame.draw.rect(box, pal.highlight, box.get_rect(), max(1, round(2 * lay.scale)),
                         border_radius=radius)
        area = pygame.Rect(0, 0, rect.w, rect.h - room_h)
        width = rect.w - round(24 * lay.scale)
        big = self.text.fit(title, TextRole.BANNER.size(lay.scale), pal.banner_text, width, True)
        if not subtitle:
            box.blit(big, big.get_rect(center=area.center))
            return box
        size = TextRole.BODY.size(lay.scale)
        smalls = [self.text.fit(line, size, pal.text, width)
                  for line in self._subtitle_lines(subtitle, rect.w, lay.scale)]
        gap = round(4 * lay.scale)
        top = area.centery - (big.get_height() + gap + sum(t.get_height() for t in smalls)) // 2
        box.blit(big, big.get_rect(midtop=(area.centerx, top)))
        top += big.get_height() + gap
        for small in smalls:
            box.blit(small, small.get_rect(midtop=(area.centerx, top)))
            top += small.get_height()
        return box

    def _subtitle_lines(self, subtitle: str, box_w: int, scale: float) -> list[str]:
        """The subtitle in one line if it fits a box `box_w` wide, else in two
        (broken between words; the second shortened if it must be)."""
        if not subtitle:
            return []
        lines = self._wrapped.get((subtitle, box_w))
        if lines is None:  # measured once: the banner is placed every frame it shows
            font = self.text.fonts.get(TextRole.BODY.size(scale))
            width = box_w - round(24 * scale)
            lines = [subtitle]
            if font.size(subtitle)[0] > width:
                # the break that evens the two lines out (the second shortened
                # when it must be), not one word left alone on the second
                words = subtitle.split(" ")
                splits = [[" ".join(words[:cut]), " ".join(words[cut:])]
                          for cut in range(1, len(words))]
                fitting = [pair for pair in splits if font.size(pair[0])[0] <= width] \
                    or splits[:1]

                def wider(pair: list[str]) -> int:
                    return max(font.size(line)[0] for line in pair)

                if fitting:
                    lines = min(fitting, key=wider)
            self._wrapped[(subtitle, box_w)] = lines
        return lines


def _thick_line(surface: pygame.Surface, color: pygame.Color, a: tuple[int, int],
                b: tuple[int, int], width: int) -> None:
    """A line with round caps (pygame's wide lines have square, ragged ends)."""
    pygame.draw.line(surface, color, a, b, width)
    radius = width // 2
    pygame.draw.circle(surface, color, a, radius)
    pygame.draw.circle(surface, color, b, radius)
