"""One table, drawn three ways: aligned text for the terminal, a rich `Table` for
live displays, and Markdown for reports.

The console's standings, the league's tables and the reports' Markdown all
build a `Grid` and ask it for the form they print; the text form is drawn by
rich (a dependency already, for the live session display), so columns line
up whatever the names' widths.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["Grid"]


@dataclass(frozen=True)
class Grid:
    """A header and rows of text cells; the columns in `left` hold text (left
    aligned), the others numbers (right aligned)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    left: frozenset[int] = field(default_factory=lambda: frozenset({1}))
    title: str = ""

    @classmethod
    def of(cls, header: Sequence[str], rows: Iterable[Sequence[object]],
           left: Iterable[int] = (1,), title: str = "") -> Grid:
        """A grid of any cells (each shown by str())."""
        return cls(tuple(header), tuple(tuple(str(c) for c in row) for row in rows),
                   frozenset(left), title)

    def rich(self) -> Table:
        """The grid as a rich Table (for a live display)."""
        from rich.table import Table

        table = Table(title=self.title or None, title_justify="left")
        for i, name in enumerate(self.header):
            table.add_column(name, justify="left" if i in self.left else "right", no_wrap=True)
        for row in self.rows:
            table.add_row(*row)
        return table

    def text(self) -> str:
        """Aligned plain text: the header, then a line a row, no borders."""
        from rich.console import Console
        from rich.table import Table

        table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1))
        for i, name in enumerate(self.header):
            table.add_column(name, justify="left" if i in self.left else "right",
                             no_wrap=True, header_style="")
        for row in self.rows:
            table.add_row(*row)
        out = io.StringIO()
        Console(file=out, width=100_000, color_system=None, highlight=False,
                markup=False, emoji=False, force_terminal=False).print(table)
        lines = [line.rstrip() for line in out.getvalue().splitlines()]
        return "\n".join(([self.title] if self.title else []) + lines)

    def html(self, caption: str, row_header: int = 1) -> str:
        """An HTML table with its caption; the cells are HTML already (escaped by
        the caller), the header and caption text; column `row_header` heads its row."""
        from html import escape

        def cls(i: int) -> str:
            return "" if i in self.left else " class=num"

        head = "".join(f'<th scope="col"{cls(i)}>{escape(h)}</th>'
                       for i, h in enumerate(self.header))
        body = "".join("<tr>" + "".join(
            f'<th scope="row"{cls(i)}>{cell}</th>' if i == row_header else f"<td{cls(i)}>{cell}</td>"
            for i, cell in enumerate(row)) + "</tr>" for row in self.rows)
        return (f'<div class="scroll"><table><caption>{escape(caption)}</caption><thead><tr>'
                f"{head}</tr></thead><tbody>{body}</tbody></table></div>")

    def markdown(self) -> str:
        """A Markdown (GFM) table; a `|` in a cell is escaped."""
        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        rule = "|" + "|".join("---" if i in self.left else "---:"
                              for i in range(len(self.header))) + "|"
        body = [line(self.header), rule, *(line(row) for row in self.rows)]
        return "\n".join(([f"## {self.title}", ""] if self.title else []) + body)
