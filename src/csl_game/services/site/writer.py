"""Writing a site: every file whole under a temporary name, then renamed into
place, readable by everyone; `SiteWriter` writes the pages of its matches
and its event, at once (`write_site`) or as matches end."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from csl_game.engine import PlayerInfo, Points, record_from_json
from csl_game.errors import ConfigError
from csl_game.services.site.markup import (
    DEFAULT_TITLE,
    RESULTS_NAME,
    match_page_name,
    public_doc,
)
from csl_game.services.site.match_page import match_page
from csl_game.services.site.pages import Event, Site, looks_complete
from csl_game.services.site.parts import cut, manifest_script, part_name, part_script
from csl_game.services.site.sections import (
    MATCHES_PER_PAGE,
    PLOTS_PAGE,
    matches_page_name,
    matches_pages,
    plots_on_a_page,
)

__all__ = ["write_site", "SiteWriter", "write_file", "append_file", "make_folder",
           "FILE_MODE", "FOLDER_MODE"]

FILE_MODE = 0o644
"""A site file's mode: its owner writes it, everyone reads it (a temporary
file's own 0600 would keep a web server of another user out)."""
FOLDER_MODE = 0o755
"""The mode of a folder the site makes: everyone may read it and go in."""
_STATIC = ("style.css", "site.js")
PART_LIFE = 120.0
"""Seconds a part no page refers to any more is kept (for a reader that read
the manifest naming it just before it changed), then removed."""
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
           '<rect width="16" height="16" rx="3" fill="#2f5d9c"/>'
           '<circle cx="5" cy="11" r="3.2" fill="#f4f1e8"/>'
           '<rect x="8" y="7.8" width="6.4" height="6.4" rx="1" fill="#c8323c"/>'
           '<circle cx="11.2" cy="4.6" r="3.2" fill="#c8323c"/></svg>\n')
"""The site's icon (a page without one has the browser ask for /favicon.ico)."""


def write_file(path: Path, text: str) -> None:
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


def append_file(path: Path, text: str) -> None:
    """Add `text` (whole lines) to the end of `path` in one write."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0),
                 FILE_MODE)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def write_site(docs: Sequence[dict[str, Any]], folder: str | Path, points: Points = Points(),
               live: bool = False, title: str = DEFAULT_TITLE, cut: int = 0) -> Path:
    """Write the whole site of these results into `folder` (made if need be),
    final or `live` (its pages then ask for changes and redraw themselves);
    `cut`: the characters of a last line cut off in the results file (said on every page).

    Raises:
        ConfigError: no match in `docs`, a malformed line, or `folder` cannot be written.
    """
    if not docs:
        raise ConfigError("the results hold no finished match")
    writer = SiteWriter(folder, points, live, title=title)
    writer.docs.extend(docs)
    writer.event.cut = cut
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
        self.event = Event(title=title or DEFAULT_TITLE, state="live" if live else "final")
        """What the pages show besides the matches (set by whoever drives the writer)."""
        self.results_file = Path(results_file) if results_file else None
        """The session's own results file: never replaced by the site's copy."""
        self._version = self._index_version = 0
        self._parts: dict[str, float] = {}
        """Parts written (`parts`): when a page last referred to each."""
        self._held: dict[str, set[str]] = {}
        """The parts each live page refers to now."""
        self._pages = -1
        """The pages of matches written (-1: none yet)."""
        self._new_pages: set[int] = set()
        """Pages of matches with matches not yet on them."""
        try:
            make_folder(self.folder)
            for name in _STATIC:
                write_file(self.folder / name, _static(name))
            write_file(self.folder / "favicon.svg", FAVICON)
            for old in self.folder.glob("part-*.js"):  # a run before this one's
                old.unlink(missing_ok=True)
        except OSError as e:
            raise ConfigError(f"cannot write the site into {folder}: {e.strerror or e}") \
                from None

    @property
    def live(self) -> bool:
        return self.event.state in ("starting", "live")

    def _site(self) -> Site:
        self._version = max(self._version + 1, int(time.time() * 1000))
        return Site(self.docs, self.points, self.event, self._version)

    def add(self, doc: dict[str, Any]) -> None:
        """A match ended: its files, its line, then the index and the live data."""
        self.add_all([doc])

    def add_all(self, docs: Sequence[dict[str, Any]]) -> None:
        """Matches ended: their files and lines, then the index and live data once."""
        self.docs.extend(docs)
        site = self._site()
        for doc in docs:
            self._match_files(site, doc)
            self._new_pages.add(int(doc.get("match", 0)) // MATCHES_PER_PAGE)
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
        self._pages = -1  # every page of matches
        self._index(site)

    def write_index(self) -> None:
        """The index and the live data (the plan or the matches playing changed)."""
        self._index(self._site())

    def write_live(self) -> None:
        """The live data alone (a match played here moved; a heartbeat)."""
        self._put_live(self._site())

    def _match_files(self, site: Site, doc: dict[str, Any]) -> None:
        stem = match_page_name(int(doc.get("match", 0)))[:-len(".html")]
        text = _transcript(doc)
        if text is not None:
            self._put(f"{stem}.txt", text)
        self._put(f"{stem}.json", json.dumps(public_doc(doc)) + "\n")
        self._put(f"{stem}.html", match_page(site, doc, text is not None))

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
                write_file(path, "".join(json.dumps(public_doc(d)) + "\n" for d in sorted(
                    self.docs, key=lambda d: int(d.get("match", 0)))))
            else:
                append_file(path, "".join(json.dumps(public_doc(d)) + "\n" for d in docs))
        except OSError as e:
            raise ConfigError(f"cannot write {path}: {e.strerror or e}") from None

    def _index(self, site: Site) -> None:
        """The index and the pages beside it (the plots, the pages of matches
        that changed), each with its manifest and new parts; then live.js."""
        now = time.monotonic()
        self._sectioned(site, "index.html", site.index_sections(), None, now)
        if plots_on_a_page(site):
            self._sectioned(site, PLOTS_PAGE, site.plots_sections(), "Plots", now)
        pages = matches_pages(site)
        todo = range(pages) if pages != self._pages else sorted(self._new_pages)
        for page in todo:
            if page < pages:
                name = matches_page_name(page)
                first = page * MATCHES_PER_PAGE + 1
                self._sectioned(site, name, site.matches_sections(page),
                                f"Matches {first}\u2013{first + MATCHES_PER_PAGE - 1}", now)
        self._pages, self._new_pages = pages, set()
        self._forget_parts(now)
        self._index_version = site.version
        self._put_live(site)

    def _sectioned(self, site: Site, name: str, sections: list[tuple[str, str]],
                   heading: str | None, now: float) -> None:
        """A live page kept by its sections (the index, or a page beside it
        under `heading`): its new parts, its manifest, the page."""
        pieces = cut(sections)
        for digest, html_ in pieces.parts.items():
            if digest not in self._parts:
                self._put(part_name(digest), part_script(digest, html_))
            self._parts[digest] = now
        self._held[name] = set(pieces.parts)
        stem = name.removesuffix(".html")
        self._put(f"{stem}-live.js", manifest_script(site.version, pieces.frames))
        self._put(name, site.index(pieces.sections) if heading is None
                  else site.sub_page(name, heading, pieces.sections))

    def _forget_parts(self, now: float) -> None:
        held = set().union(*self._held.values())
        for digest, when in list(self._parts.items()):
            if when < now - PART_LIFE and digest not in held:
                del self._parts[digest]
                (self.folder / part_name(digest)).unlink(missing_ok=True)

    def _put_live(self, site: Site) -> None:
        data = site.live_data(self._index_version)
        self._put("live.json", json.dumps(data) + "\n")
        # what a live page polls: the matches played as runs (first, last),
        # not a number each (1,560 numbers would be sent every 2 seconds)
        small = {k: v for k, v in data.items() if k != "played"}
        small["runs"] = _runs(data["played"])
        self._put("live.js", "window.cslSiteLive && window.cslSiteLive("
                  + _script_json(small) + ");\n")

    def _put(self, name: str, text: str) -> None:
        try:
            write_file(self.folder / name, text)
        except OSError as e:
            raise ConfigError(f"cannot write {self.folder / name}: {e.strerror or e}") \
                from None


def _runs(numbers: list[int]) -> list[list[int]]:
    """Sorted numbers as runs [first, last] of consecutive ones."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs


def _script_json(data: object) -> str:
    """JSON safe inside a script (no '</' to end it)."""
    return json.dumps(data).replace("</", "<\\/")


def make_folder(folder: Path) -> None:
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
