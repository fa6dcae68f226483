"""The tournament's web site: written from real session results (live, as the
session plays, and by `report --format html`), and checked in a real browser
(headless Chromium): the standings it shows are report --format json's, a
match page steps through every move to the final board, and no script fails.

The browser tests are skipped, saying so, where no Chromium is installed
(`apt-get install chromium`; .ci/run installs it)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.services.site import board_svg, how_it_ended, write_site

pytestmark = [pytest.mark.slow, pytest.mark.timing]

MISBEHAVING = str(Path(__file__).parent / "misbehaving")
PLAYERS = ["negamax depth=2", "sequential", "raise", "sleepy", "exit", "invalid cols",
           "setupexit"]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 7-thinker session with forfeits of every kind, its site kept live."""
    folder = tmp_path_factory.mktemp("site")
    game = folder / "players.txt"
    game.write_text("\n".join(PLAYERS) + "\n")
    code = main(["session", "-g", str(game), "-r", "5", "-c", "6", "-w", "4", "-t", "150",
                 "--thinkers", MISBEHAVING, "--results", str(folder / "r.jsonl"),
                 "--site", str(folder / "live"), "-q"])
    assert code == 0
    return folder


def _docs(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "r.jsonl").read_text().splitlines()]


def test_the_live_site_is_whole_and_final(played: Path) -> None:
    live = played / "live"
    docs = _docs(played)
    assert len(docs) == 42
    names = {p.name for p in live.iterdir()}
    assert {"index.html", "style.css", "site.js"} <= names
    assert {f"match-{n}.html" for n in range(1, 43)} <= names
    assert not [n for n in names if n.startswith(".")], "no temporary file is left"
    index = (live / "index.html").read_text()
    assert 'http-equiv="refresh"' not in index, "the session ended: the pages are final"
    ended = {how_it_ended(d) for d in docs}
    assert {"sequence", "crash", "timeout", "invalid move", "setup failed"} <= ended, ended
    figures = [m.get("figures") for d in docs for m in d["moves"]  # type: ignore[union-attr]
               if m.get("figures")]  # type: ignore[union-attr]
    assert figures and all("depth" in f and "score" in f for f in figures)


def test_report_writes_the_same_site(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = played / "report"
    assert main(["report", str(played / "r.jsonl"), "--format", "html", "-o", str(out)]) == 0
    assert "wrote the site of 42 matches" in capsys.readouterr().out
    for name in ("index.html", "match-7.html"):
        strip = re.compile(r"<footer>.*?</footer>", re.S)
        assert strip.sub("", (out / name).read_text()) == \
            strip.sub("", (played / "live" / name).read_text())


def test_older_results_still_render(tmp_path: Path) -> None:
    """A line from before figures and without settings: the site shows what it holds."""
    doc = {"white": {"thinker": "a", "params": "", "name": "A"},
           "red": {"thinker": "b", "params": "", "name": "B"}, "winner": "white",
           "winner_name": "A", "solution": [], "forfeit": "timeout", "detail": "",
           "moves": [{"row": 0, "col": 3, "color": "white", "shape": "round", "ms": 1.0}],
           "match": 0}
    write_site([doc], tmp_path)
    page = (tmp_path / "match-1.html").read_text()
    assert "settings not recorded" in page and "Graphs" not in page
    assert "timeout" in (tmp_path / "index.html").read_text()


def test_how_each_match_ended_is_named() -> None:
    from csl_game.engine import ForfeitReason

    assert how_it_ended({"winner": "white", "forfeit": None}) == "sequence"
    assert how_it_ended({"winner": "draw", "forfeit": None}) == "draw"
    assert how_it_ended({"winner": "red", "forfeit": None, "resigned": True}) == "resignation"
    named = {how_it_ended({"winner": "red", "forfeit": r.name.lower()}) for r in ForfeitReason}
    assert named == {"timeout", "crash", "out of memory", "gave up", "invalid move",
                     "setup failed", "left"}


def test_a_reader_never_sees_half_a_page(played: Path, tmp_path: Path) -> None:
    """Pages are rewritten while a reader reads them, over and over: every read
    is a whole page."""
    import threading

    from csl_game.services.site import SiteWriter

    docs = _docs(played)
    writer = SiteWriter(tmp_path / "site")
    writer.add(docs[0])
    done = threading.Event()

    def write() -> None:
        for i, doc in enumerate(docs * 2):
            writer.add(doc)
            if i % 8 == 0:
                writer.write_all()
        done.set()

    threading.Thread(target=write, daemon=True).start()
    reads = 0
    while not done.is_set():
        for name in ("index.html", "match-1.html"):
            text = (tmp_path / "site" / name).read_text()
            assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
            reads += 1
    assert reads > 20


def test_the_board_is_drawn_as_in_the_game() -> None:
    settings = {"rows": 2, "cols": 3}
    moves = [{"row": 0, "col": 0, "color": "white", "shape": "round"},
             {"row": 0, "col": 1, "color": "red", "shape": "square"}]
    svg = board_svg(settings, moves, 2, [[0, 0]], "after two moves")
    assert svg.count("<circle") == 6 + 1 and svg.count("<rect") == 1 + 1  # holes, frame
    assert 'aria-label="after two moves"' in svg and "win" in svg


# ------------------------------------------------------------------ in a browser
class _Tables(HTMLParser):
    """The text of each table's cells, and the pieces on the board."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.pieces = 0
        self.status = ""
        self._cell: list[str] | None = None
        self._in_status = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = []
        elif tag in ("circle", "rect") and "piece" in classes:
            self.pieces += 1
        elif dict(attrs).get("id") == "status":
            self._in_status = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "p":
            self._in_status = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._in_status:
            self.status += data


def _render(page: Path, fragment: str = "") -> tuple[_Tables, str]:
    """The DOM after scripts ran, parsed; and what the browser logged."""
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium here (apt-get install chromium)")
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000",
                           "--dump-dom", page.as_uri() + fragment],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(page.parent)})
    assert done.returncode == 0, done.stderr[-2000:]
    parsed = _Tables()
    parsed.feed(done.stdout)
    return parsed, done.stderr


def _console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line
            or "Uncaught" in line or "Refused to" in line]


def test_the_browser_shows_the_standings_of_report_json(
        played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page, log = _render(played / "live" / "index.html")
    assert not _console_errors(log)
    assert main(["report", str(played / "r.jsonl"), "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)["standings"]
    header, *rows = page.tables[0]
    assert header[:6] == ["#", "Player", "Points", "W", "D", "L"]
    shown = [(r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5])) for r in rows]
    assert shown == [(s["name"], s["points"], s["wins"], s["draws"], s["losses"])
                     for s in expected]
    assert rows[0][7].startswith("+") and "\u00b1" in rows[0][7]  # Elo with its interval


def test_a_match_page_steps_through_every_move(played: Path) -> None:
    docs = _docs(played)
    doc = next(d for d in docs if not d["forfeit"] and len(d["moves"]) >= 5)  # type: ignore
    number = int(doc["match"]) + 1  # type: ignore[call-overload]
    moves = len(doc["moves"])  # type: ignore[arg-type]
    page = played / "live" / f"match-{number}.html"
    for step in range(moves + 1):
        shown, log = _render(page, f"#move={step}")
        assert shown.pieces == step, (step, shown.pieces)
        assert not _console_errors(log), _console_errors(log)
        expected = (f"After move {step} of {moves}" if step else "The empty board")
        assert shown.status.startswith(expected), shown.status


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))


def test_a_leagues_live_site_in_the_browser(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    assert main(["league", "--thinker", "negamax depth=2", "--thinker", "random 1",
                 "--thinker", "sequential", "--games", "1", "-r", "5", "-c", "6", "-w", "4",
                 "-t", "100", "--site", str(site)]) == 0
    capsys.readouterr()
    page, log = _render(site / "index.html")
    assert not _console_errors(log)
    standings, crosstable, matches = page.tables[:3]
    assert sorted(r[1] for r in standings[1:]) == ["NegamaxD2", "Random", "Sequential"]
    assert len(matches) == 1 + 6  # each pair with both colours
    assert crosstable[1][1] == standings[1][1]  # in the standings' order
    assert len(list(site.glob("match-*.html"))) == 6
