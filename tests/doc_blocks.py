"""The fenced code blocks of a Markdown document, each with the HTML comment
right before it (``<!-- kind: target -->``) that says what the docs tests do
with it."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[ \t]*$")
MARKER = re.compile(r"^\s*<!--\s*(?P<text>.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a document."""

    doc: str
    """The document, relative to the checkout's root."""
    lang: str
    marker: str
    """The HTML comment right before the fence, or ''."""
    raw: str
    """The block's text with the fence's own indentation removed."""
    line: int

    @property
    def code(self) -> str:
        return textwrap.dedent(self.raw)

    @property
    def kind(self) -> str:
        return self.marker.partition(":")[0].strip()

    @property
    def target(self) -> str:
        return self.marker.partition(":")[2].strip()

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def parse_blocks(doc: str) -> list[Block]:
    """Every fenced block of `doc` (a path relative to the checkout's root), in order."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, start = fence["indent"], i + 1
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        marker = MARKER.match(lines[j]) if j >= 0 else None
        body: list[str] = []
        i += 1
        while lines[i].strip() != "```":
            body.append(lines[i].removeprefix(indent))
            i += 1
        blocks.append(Block(doc, fence["lang"], marker["text"] if marker else "",
                            "\n".join(body) + "\n", start))
        i += 1
    return blocks
