"""The site's words and markup: names of its files, how a match ended in words,
what of a forfeit's detail may be published, and its HTML tables."""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from csl_game.engine import ForfeitReason
from csl_game.services.narration import FORFEIT_WORDS, counted

__all__ = ["DEFAULT_TITLE", "RESULTS_NAME", "POLL_SECONDS", "STATES", "match_page_name", "esc",
           "how_it_ended", "result_text", "forfeiter", "public_detail", "public_doc",
           "settings_text", "figures_text", "counted", "duration_text", "utc_stamp", "iso_time",
           "Col", "html_table", "name_html", "isolate"]

DEFAULT_TITLE = "Tournament"
"""The title of a site given none (--title)."""
RESULTS_NAME = "matches.jsonl"
"""The site's copy of the results file (a JSON line per match)."""
POLL_SECONDS = 2
"""How often a live page asks whether the site has changed."""
STATES = ("starting", "live", "final", "stopped")
"""How far a site's event is: no match has ended yet; matches are being
played; every match was played; the session stopped before the end."""
_WORDS = {ForfeitReason.EXCEPTION: "raised an exception",
          ForfeitReason.WORKER_DIED: "process crashed",
          ForfeitReason.PROTOCOL: "broke the protocol"}
"""The site's words where narration's table has one word for several forfeits."""


def match_page_name(index: int) -> str:
    """The page of the match with this index (its number is index + 1)."""
    return f"match-{index + 1}.html"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def name_html(name: object) -> str:
    """A player's name in a page: isolated from the text around it (a name
    written right to left, or holding a direction override, cannot reorder the
    rest of the line) and free to break anywhere (a long name without spaces
    wraps instead of widening the page)."""
    return f'<bdi class="name">{esc(name)}</bdi>'


def isolate(text: object) -> str:
    """A name in plain text (a page's title, an SVG label, an ARIA label),
    between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: what <bdi> does
    where markup cannot go."""
    return f"\u2068{text}\u2069"


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


def result_text(doc: dict[str, Any]) -> str:
    """'White (Ann) won' as HTML, the name isolated (`name_html`)."""
    winner = doc.get("winner")
    if winner == "draw":
        return "Draw"
    if winner in ("white", "red"):
        return f"{winner.title()} ({name_html(doc.get('winner_name') or doc[winner]['name'])}) won"
    return "Not finished"


def forfeiter(doc: dict[str, Any]) -> str:
    """'Red (Sleepy)' as HTML: the side that forfeited (the one that did not win)."""
    side = {"white": "red", "red": "white"}.get(str(doc.get("winner")))
    if side is None:
        return ""
    return f"{side.title()} ({name_html(doc[side]['name'])})"


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


def settings_text(settings: dict[str, Any]) -> str:
    try:
        return (f"{settings['rows']}x{settings['cols']} board, {settings['win_sequence']} in a "
                f"row, {settings['round_pieces']} round + {settings['square_pieces']} square "
                f"pieces each, {settings['time_limit_ms']} ms a move")
    except (KeyError, TypeError):
        return "settings not recorded"


def figures_text(figures: dict[str, Any]) -> str:
    return " ".join(f"{k}={v:g}" for k, v in figures.items() if isinstance(v, int | float))


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def utc_stamp(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def iso_time(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Col:
    """A column: its header, whether it holds numbers, and its label on a card."""

    header: str
    num: bool = False
    label: str | None = None
    """What a phone's card shows before the value ('' for nothing); the header
    when None."""


def html_table(cols: Sequence[Col], rows: Iterable[Sequence[str]], caption: str, *,
           row_header: int = 1, cards: bool = True, ident: str = "",
           parts: str | Sequence[str] = "") -> str:
    """An HTML table (cells are HTML already); with `cards`, each row is a card
    on a narrow screen (roles keep it a table for screen readers), else the
    table scrolls sideways in a region the keyboard can reach. With `parts`,
    each row of its body is a part of a live page (`data-part`: the prefix
    and the row's number, or each row's own name; a live update sends the
    rows that changed)."""
    def cell(i: int, text: str) -> str:
        col = cols[i]
        attrs = (' class="num"' if col.num else "")
        if cards:
            label = col.header if col.label is None else col.label
            attrs += f' data-label="{esc(label)}"' if label else ""
        if i == row_header:
            return f'<th scope="row"{attrs}{" role=rowheader" if cards else ""}>{text}</th>'
        return f'<td{attrs}{" role=cell" if cards else ""}>{text}</td>'

    row_role = ' role="row"' if cards else ""
    head = "".join(f'<th scope="col"{" class=num" if c.num else ""}'
                   f'{" role=columnheader" if cards else ""}>{esc(c.header)}</th>' for c in cols)
    def part(k: int) -> str:
        if not parts:
            return ""
        return f' data-part="{parts}{k}"' if isinstance(parts, str) else f' data-part="{parts[k]}"'

    body = "".join(f"<tr{row_role}{part(k)}>"
                   + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>"
                   for k, row in enumerate(rows))
    cap_id = f' id="{ident}-caption"' if ident else ""
    group = ' role="rowgroup"' if cards else ""
    table = (f'<table{" class=cards role=table" if cards else ""}'
             f"{f' aria-labelledby={ident}-caption' if ident and cards else ''}>"
             f"<caption{cap_id}>{esc(caption)}</caption><thead{group}><tr{row_role}>{head}</tr>"
             f"</thead><tbody{group}>{body}</tbody></table>")
    if cards:
        return table
    label = f' aria-labelledby="{ident}-caption"' if ident else f' aria-label="{esc(caption)}"'
    return f'<div class="scroll" tabindex="0" role="region"{label}>{table}</div>'
