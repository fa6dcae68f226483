"""A live page's sections cut into parts, so that a live update sends what
changed rather than the page: `<page>-live.js` (the manifest) holds each
section's frame, its parts left as empty placeholders named by the digest of
their content; each part is a file of its own, `part-<digest>.js`, written
once and never changed (a reader that has a part does not load it again).

A section is a part as a whole when it is large and holds no parts of its
own; a small one stays in the manifest. Parts are the elements of a section
marked `data-part` (a table's rows: `markup.html_table(parts=...)`)."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

__all__ = ["Cut", "cut", "manifest_script", "part_script", "part_name", "PART_MIN"]

PART_MIN = 1024
"""Characters from which a section without parts is a part itself (a smaller
one is sent whole in the manifest)."""
_PART = re.compile(r'<(tr|figure)\b[^>]*? data-part="([^"]+)"[^>]*>.*?</\1>', re.S)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


@dataclass
class Cut:
    """A live page's sections, cut."""

    sections: list[tuple[str, str]] = field(default_factory=list)
    """(id, HTML) as the page shows them: parts marked with their digest (data-d)."""
    frames: list[tuple[str, str, str]] = field(default_factory=list)
    """(id, digest of the frame, the frame): the section with its parts empty."""
    parts: dict[str, str] = field(default_factory=dict)
    """A part's HTML by its digest."""


def cut(sections: list[tuple[str, str]]) -> Cut:
    """`sections` ((id, HTML), each HTML a <section>) cut into frames and parts."""
    out = Cut()
    for ident, section in sections:
        if not _PART.search(section) and len(section) >= PART_MIN:
            section = section.replace("<section", f'<section data-part="{ident}"', 1)
            frame_of = f'<section data-part="{ident}"></section>'
        else:
            frame_of = _PART.sub(lambda m: f'<{m[1]} data-part="{m[2]}"></{m[1]}>', section)
        shape = _digest(frame_of)  # the frame without its parts' digests
        section = section.replace("<section", f'<section data-s="{shape}"', 1)
        if section.startswith(f'<section data-s="{shape}" data-part='):
            whole = section
            digest = _digest(whole)
            section = whole.replace(f'data-part="{ident}"',
                                    f'data-part="{ident}" data-d="{digest}"', 1)
            out.parts[digest] = section
            frame = (f'<section data-s="{shape}" data-part="{ident}" data-d="{digest}">'
                     "</section>")
        else:
            shown, empty, last = [], [], 0
            for m in _PART.finditer(section):
                digest = _digest(m[0])
                marked = m[0].replace(f' data-part="{m[2]}"',
                                      f' data-part="{m[2]}" data-d="{digest}"', 1)
                out.parts[digest] = marked
                between = section[last:m.start()]
                shown += [between, marked]
                empty += [between, f'<{m[1]} data-part="{m[2]}" data-d="{digest}"></{m[1]}>']
                last = m.end()
            section, frame = "".join(shown) + section[last:], "".join(empty) + section[last:]
        out.sections.append((ident, section))
        out.frames.append((ident, shape, frame))
    return out


def _script_json(data: object) -> str:
    """JSON safe inside a script (no '</' to end it)."""
    return json.dumps(data).replace("</", "<\\/")


def manifest_script(version: int, frames: list[tuple[str, str, str]]) -> str:
    return ("window.cslSiteIndex && window.cslSiteIndex("
            + _script_json({"version": version, "sections": frames}) + ");\n")


def part_name(digest: str) -> str:
    return f"part-{digest}.js"


def part_script(digest: str, html: str) -> str:
    return ("window.cslSitePart && window.cslSitePart("
            + _script_json(digest) + ", " + _script_json(html) + ");\n")
