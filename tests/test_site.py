"""The tournament's web site: written from real session results (live, as the
session plays, and by `report --format html`), and checked in a real browser
(headless Chromium, driven as tests/site_browser.py says): the standings it
shows are report --format json's, a match page steps through every move to
the final board by every means it offers, a live page keeps the reader's move
while the session goes on and stops once it is over, the layout fits a phone,
axe-core finds nothing at a phone's width and a desktop's in either colour
scheme, and no script fails.

The browser tests are skipped, saying so, where no Chromium is installed
(`apt-get install chromium`; .ci/run installs it)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.cli import main
from csl_game.engine import RunOptions, Session, SessionOptions
from csl_game.engine.events import PostMatch
from csl_game.engine.match import Match, MatchResult
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.services.site import (
    RESULTS_NAME,
    LiveSite,
    Series,
    board_svg,
    follow,
    how_it_ended,
    line_chart,
    nice_ticks,
    public_detail,
    public_doc,
    write_site,
)
from procs import INTERRUPTIBLE
from site_browser import DESKTOP, PHONE, Browser, Tab

pytestmark = [pytest.mark.slow, pytest.mark.timing]

MISBEHAVING = str(Path(__file__).parent / "misbehaving")
FAKES = str(Path(__file__).parent / "fakes")
PLAYERS = ["negamax depth=2", "sequential", "raise", "sleepy", "exit", "invalid cols",
           "setupexit"]
TITLE = "Spring Cup <b>2025</b>"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 7-thinker session with forfeits of every kind, its site kept live."""
    folder = tmp_path_factory.mktemp("site")
    game = folder / "players.txt"
    game.write_text("\n".join(PLAYERS) + "\n")
    code = main(["session", "-g", str(game), "-r", "5", "-c", "6", "-w", "4", "-t", "150",
                 "--thinkers", MISBEHAVING, "--results", str(folder / "r.jsonl"),
                 "--site", str(folder / "live"), "--title", TITLE, "-q"])
    assert code == 0
    return folder


def _docs(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "r.jsonl").read_text().splitlines()]


def _doc(played: Path, test: Any) -> dict[str, Any]:
    return next(d for d in sorted(_docs(played), key=lambda d: d["match"]) if test(d))


def test_the_live_site_is_whole_and_final(played: Path) -> None:
    live = played / "live"
    docs = _docs(played)
    assert len(docs) == 42
    names = {p.name for p in live.iterdir()}
    assert {"index.html", "style.css", "site.js", "live.js", "live.json", "index-live.js",
            RESULTS_NAME} <= names
    for n in range(1, 43):
        assert {f"match-{n}.html", f"match-{n}.json", f"match-{n}.txt"} <= names
    assert not [n for n in names if n.startswith(".")], "no temporary file is left"
    index = (live / "index.html").read_text()
    assert 'http-equiv="refresh"' not in index and "data-live" not in index
    assert 'data-state="final"' in index and "Final: all 42 matches played." in index
    assert "<h1>Spring Cup &lt;b&gt;2025&lt;/b&gt;</h1>" in index  # the title, escaped
    assert 'id="winner"' in index and "NegamaxD2</bdi></strong> wins with" in index
    assert json.loads((live / "live.json").read_text())["state"] == "final"
    copied = [json.loads(line) for line in (live / RESULTS_NAME).read_text().splitlines()]
    # the data behind the site, the organisers' paths left out of forfeits' details
    assert copied == [public_doc(d) for d in sorted(docs, key=lambda d: d["match"])]
    assert MISBEHAVING not in (live / RESULTS_NAME).read_text()
    assert f'href="{RESULTS_NAME}"' in index
    ended = {how_it_ended(d) for d in docs}
    assert {"sequence", "raised an exception", "process crashed", "timeout", "invalid move",
            "setup failed"} <= ended, ended
    figures = [m.get("figures") for d in docs for m in d["moves"] if m.get("figures")]
    assert figures and all("depth" in f and "score" in f for f in figures)
    one = _doc(played, lambda d: not d["forfeit"])
    number = one["match"] + 1
    assert json.loads((live / f"match-{number}.json").read_text()) == one
    text = (live / f"match-{number}.txt").read_text()
    assert text.startswith(f"=> {one['white']['name']} (White) vs {one['red']['name']} (Red)")


def test_report_writes_the_same_site(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = played / "report"
    assert main(["report", str(played / "r.jsonl"), "--format", "html", "-o", str(out),
                 "--title", TITLE]) == 0
    assert "wrote the site of 42 matches" in capsys.readouterr().out
    strip = re.compile(r"<footer>.*?</footer>|data-version=\"\d+\"", re.S)
    for name in ("index.html", "match-7.html", "match-7.txt", RESULTS_NAME):
        assert strip.sub("", (out / name).read_text()) == \
            strip.sub("", (played / "live" / name).read_text()), name


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
    assert 'Red (<bdi class="name">B</bdi>) forfeited' in page and "match-1.txt" not in page
    assert "timeout" in (tmp_path / "index.html").read_text()


def test_the_slowest_move_on_the_wall_is_shown(played: Path) -> None:
    """The statistics name the slowest move on the wall clock with its
    charge, and each match page lists every move's wall time."""
    docs = _docs(played)
    walls = [(m["wall_ms"], d, m) for d in docs for m in d["moves"] if "wall_ms" in m]
    assert walls
    wall, doc, move = max(walls, key=lambda w: w[0])
    name = doc["white" if move["color"] == "white" else "red"]["name"]
    index = (played / "live" / "index.html").read_text()
    assert (f"<dt>Slowest move on the wall clock</dt><dd>{wall:.0f} ms, by "
            f'<bdi class="name">{name}</bdi> in match '
            f"{doc['match'] + 1} (charged {move['ms']:.0f} ms on the match&#x27;s clock)"
            in index.replace("&#39;", "&#x27;"))
    page = (played / "live" / f"match-{doc['match'] + 1}.html").read_text()
    assert f'data-label="Wall ms" role=cell>{wall:.1f}</td>' in page
    older = played / "older"
    write_site([{**doc, "moves": [{k: v for k, v in m.items() if k != "wall_ms"}
                                  for m in doc["moves"]]}], older)
    assert "Slowest move on the wall clock" not in (older / "index.html").read_text()


def test_how_each_match_ended_is_named() -> None:
    from csl_game.engine import ForfeitReason

    assert how_it_ended({"winner": "white", "forfeit": None}) == "sequence"
    assert how_it_ended({"winner": "draw", "forfeit": None}) == "draw"
    assert how_it_ended({"winner": "red", "forfeit": None, "resigned": True}) == "resignation"
    named = {how_it_ended({"winner": "red", "forfeit": r.name.lower()}) for r in ForfeitReason}
    assert named == {"timeout", "raised an exception", "process crashed", "broke the protocol",
                     "out of memory", "gave up", "invalid move", "setup failed", "left",
                     "interfered"}


def test_a_forfeit_says_who_and_keeps_the_organisers_paths(played: Path) -> None:
    """A timeout names the side that forfeited; an exception's page shows the
    exception and the thinker's own frames, its file without its folders."""
    timeout = _doc(played, lambda d: d["forfeit"] == "timeout")
    side = "red" if timeout["winner"] == "white" else "white"
    page = (played / "live" / f"match-{timeout['match'] + 1}.html").read_text()
    assert (f'{side.title()} (<bdi class="name">{timeout[side]["name"]}</bdi>) forfeited: '
            "time limit") in page
    crash = _doc(played, lambda d: d["forfeit"] == "exception")
    assert MISBEHAVING in crash["detail"]  # the results file keeps it all
    page = (played / "live" / f"match-{crash['match'] + 1}.html").read_text()
    assert MISBEHAVING not in page and str(Path(MISBEHAVING).parent) not in page
    assert "File &quot;misbehaving_thinkers.py&quot;, line" in page
    assert "ValueError: deliberate failure in think" in page and "raised an exception" in page


def test_public_detail_keeps_the_thinkers_frames() -> None:
    csl = str(Path(__file__).parent.parent / "src" / "csl_game" / "engine" / "worker.py")
    detail = ("ValueError: no\nTraceback (most recent call last):\n"
              f'  File "{csl}", line 88, in run\n    answer = thinker.think(board)\n'
              '  File "/home/org/secret/bots/mine.py", line 12, in think\n'
              "    raise ValueError('no')\n"
              '  File "C:\\Users\\org\\bots\\mine.py", line 3, in helper\n    x()\n'
              "ValueError: no (read /srv/org/data/book.txt)")
    shown = public_detail(detail)
    assert "/home/org" not in shown and "C:\\" not in shown and "worker.py" not in shown
    assert 'File "mine.py", line 12, in think' in shown and "raise ValueError('no')" in shown
    assert 'File "mine.py", line 3, in helper' in shown
    assert shown.endswith("ValueError: no (read book.txt)")
    assert public_detail("its process exited with code 3") == "its process exited with code 3"


def test_a_reader_never_sees_half_a_page(played: Path, tmp_path: Path) -> None:
    """Pages and live data are rewritten while a reader reads them, over and
    over: every read is whole."""
    from csl_game.services.site import SiteWriter

    docs = _docs(played)
    writer = SiteWriter(tmp_path / "site")
    writer.add(docs[0])
    # the page of the results file's first line (with two workers, match 2 may end first)
    first = f"match-{docs[0]['match'] + 1}.html"
    done = threading.Event()

    def write() -> None:  # 42 matches added and 11 whole rewrites, as the reader reads
        for i, doc in enumerate(docs):
            writer.add(doc)
            if i % 4 == 0:
                writer.write_all()
        done.set()

    threading.Thread(target=write, daemon=True).start()
    reads = 0
    while not done.is_set():
        for name in ("index.html", first):
            text = (tmp_path / "site" / name).read_text()
            assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
            reads += 1
        for name in ("live.js", "index-live.js"):
            text = (tmp_path / "site" / name).read_text()
            assert text.startswith("window.") and text.endswith(");\n")
        json.loads((tmp_path / "site" / "live.json").read_text())
    assert reads > 20


def test_the_board_is_drawn_as_in_the_game() -> None:
    settings = {"rows": 2, "cols": 3}
    moves = [{"row": 0, "col": 0, "color": "white", "shape": "round"},
             {"row": 0, "col": 1, "color": "red", "shape": "square"}]
    svg = board_svg(settings, moves, 2, [[0, 0]], "after two moves")
    assert svg.count("<circle") == 6 + 1 and svg.count("<rect") == 1 + 1  # holes, frame
    assert 'aria-label="after two moves"' in svg and "win" in svg


def test_charts_count_moves_and_tick_round_values(played: Path) -> None:
    assert nice_ticks(-392, 911, 6) == [0.0, 500.0]
    assert nice_ticks(-500, 1000, 7) == [-500.0, -250.0, 0.0, 250.0, 500.0, 750.0, 1000.0]
    assert nice_ticks(1, 16, 9, whole=True) == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0]
    chart = line_chart([Series("s", ((3.0, 1.0), (7.0, -2.0)))], "Title", "move",
                       x_range=(1.0, 8.0), cursor=True)
    assert "<figcaption>Title</figcaption>" in chart and "line class=\"cursor\"" in chart
    assert ">move<" in chart and "scored" not in chart
    doc = _doc(played, lambda d: len(d["moves"]) >= 8 and any(m.get("figures")
                                                              for m in d["moves"]))
    page = (played / "live" / f"match-{doc['match'] + 1}.html").read_text()
    assert "(score)" not in page and "scored move" not in page
    ticks = re.findall(r'class="tick mid">(\d+)<', page)
    assert ticks and all(1 <= int(t) <= len(doc["moves"]) for t in ticks)
    index = (played / "live" / "index.html").read_text()
    standings = re.findall(r'<th scope="row"[^>]*><bdi class="name">([^<]+)</bdi></th>',
                           index.split('id="standings"')[1].split("</table>")[0])
    legend = re.findall(r'class="legend">\u2068([^<]+)\u2069</text>',
                        index.split('id="plots"')[1].split("</svg>")[0])
    assert legend[:len(standings)] == standings  # in the standings' order
    elo_ticks = re.findall(r'class="tick mid">([+\u2212]?\d+)</text>',
                           index.split('aria-label="Ratings')[1].split("</svg>")[0])
    values = [int(t.replace("\u2212", "-")) for t in elo_ticks]
    steps = {b - a for a, b in zip(values, values[1:])}
    assert len(steps) == 1 and all(v % min(steps) == 0 for v in values), values


# ------------------------------------------------------------------ live, in-process
def _session(names: list[str], mc: MatchConfig) -> Session:
    protos = [ThinkerPrototype(n, p, mc, (FAKES,)) for n, _, p in
              (s.partition(" ") for s in names)]
    return Session(protos, mc, SessionOptions(run=RunOptions(runner_factory=ThreadRunner, in_process=True)))


def test_the_index_is_current_within_a_second_of_each_match(tmp_path: Path) -> None:
    """However fast matches end, the index shows each within a second of its
    end: the session is held at each match's end until the index has it."""
    mc = MatchConfig(rows=5, cols=6, win_sequence=4, time_limit_ms=1000)
    session = _session(["sequential", "random 1", "steady 1", "sequential"], mc)
    site = tmp_path / "site"
    live = LiveSite(site, title="Quick")
    index = (site / "index.html").read_text()
    assert 'data-state="starting"' in index and "data-live" in index
    follow(session, site, site=live)
    waits: list[float] = []

    def on_event(event: object) -> None:
        if isinstance(event, PostMatch):
            started = time.monotonic()
            link = f'href="match-{event.index + 1}.html"'
            while link not in (site / "index.html").read_text():
                assert time.monotonic() - started < 1.0, f"match {event.index + 1}"
                time.sleep(0.005)
            waits.append(time.monotonic() - started)

    session.subscribe(on_event)

    def play(match: Match) -> MatchResult:
        live.follow_match(match)
        return match.run()

    session.run(play)
    assert len(waits) == 12 and max(waits) < 1.0
    index = (site / "index.html").read_text()
    assert 'data-state="final"' in index and "data-live" not in index
    assert len((site / RESULTS_NAME).read_text().splitlines()) == 12


def test_a_session_that_fails_leaves_a_stopped_site(tmp_path: Path) -> None:
    mc = MatchConfig(rows=5, cols=6, win_sequence=4, time_limit_ms=1000)
    session = _session(["sequential", "steady 1", "random 1"], mc)
    site = tmp_path / "site"
    live = follow(session, site, title="Broken")
    played = 0

    def play(match: Match) -> MatchResult:
        nonlocal played
        played += 1
        if played == 3:
            raise RuntimeError("csl-game failed")
        return match.run()

    with pytest.raises(RuntimeError):
        try:
            session.run(play)
        finally:
            live.close()
    index = (site / "index.html").read_text()
    assert 'data-state="stopped"' in index and "data-live" not in index
    assert "Stopped after 2 of 6 matches" in index
    assert json.loads((site / "live.json").read_text())["state"] == "stopped"


# ------------------------------------------------------------------ in a browser
def _tab(chrome: Browser, page: Path, size: tuple[int, int] = DESKTOP, dark: bool = False,
         fragment: str = "") -> Tab:
    return chrome.tab(page.as_uri() + fragment, size, dark)


def _rows(tab: Tab, section: str) -> list[list[str]]:
    return list(tab.eval(f"[...document.querySelectorAll('#{section} tr')].map(tr => "
                         "[...tr.children].map(c => c.textContent.trim()))"))


def test_the_browser_shows_the_standings_of_report_json(
        played: Path, chrome: Browser, capsys: pytest.CaptureFixture[str]) -> None:
    tab = _tab(chrome, played / "live" / "index.html")
    assert main(["report", str(played / "r.jsonl"), "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)["standings"]
    header, *rows = _rows(tab, "standings")
    assert header[:6] == ["#", "Player", "Points", "W", "D", "L"]
    shown = [(r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5])) for r in rows]
    assert shown == [(s["name"], s["points"], s["wins"], s["draws"], s["losses"])
                     for s in expected]
    assert rows[0][7].startswith("+") and "\u00b1" in rows[0][7]  # Elo with its interval
    crosstable = _rows(tab, "crosstable")
    assert [r[1] for r in crosstable[1:]] == [r[1] for r in rows]  # the standings' order
    links = tab.eval("[...document.querySelectorAll('#crosstable td a')].map(a => "
                     "[a.closest('tr').children[1].textContent, a.getAttribute('href')])")
    docs = {d["match"] + 1: d for d in _docs(played)}
    assert len(links) == 42 * 2  # each game, from either player's row
    for name, href in links:
        doc = docs[int(href[len("match-"):-len(".html")])]
        assert name in (doc["white"]["name"], doc["red"]["name"])
    assert tab.errors() == []


def _pieces(tab: Tab) -> int:
    return int(tab.eval("document.querySelectorAll('#board .piece').length"))


def _status(tab: Tab) -> str:
    return str(tab.eval("document.getElementById('status').textContent"))


def test_a_match_page_steps_through_every_move(played: Path, chrome: Browser) -> None:
    doc = _doc(played, lambda d: not d["forfeit"] and len(d["moves"]) >= 8
               and any(m.get("figures") for m in d["moves"]))
    number, moves = doc["match"] + 1, len(doc["moves"])
    page = played / "live" / f"match-{number}.html"
    html = page.read_text()
    assert 'class="controls" role="group" aria-label="Step through the moves" hidden' in html
    tab = _tab(chrome, page)
    assert _pieces(tab) == moves and _status(tab).startswith(f"After move {moves} of {moves}")
    assert tab.eval("document.querySelector('.controls').hidden") is False
    tab.eval("document.querySelector('[data-step=first]').focus()")
    tab.key("Home")
    assert _pieces(tab) == 0 and _status(tab).startswith("The empty board")
    for step in range(1, moves + 1):
        tab.key("ArrowRight")
        assert _pieces(tab) == step, step
        assert _status(tab).startswith(f"After move {step} of {moves}")
        assert tab.eval("location.hash") == f"#move={step}"
        current = tab.eval("[...document.querySelectorAll('#moves tbody tr')]"
                           ".findIndex(tr => tr.classList.contains('current'))")
        assert current == step - 1
    tab.click("[data-step=prev]")
    assert _pieces(tab) == moves - 1
    tab.eval("location.hash = '#move=3'")  # a link to a position, on an open page
    tab.wait_for("document.getElementById('status').textContent.startsWith('After move 3 ')")
    cursor = tab.eval("document.querySelector('svg.chart.wide line.cursor').getAttribute('x1')")
    tab.click("#moves tbody tr:nth-child(6) td:last-child")  # a row of the move list
    assert _pieces(tab) == 6
    assert tab.eval("document.querySelector('svg.chart.wide line.cursor')"
                    ".getAttribute('x1')") != cursor  # the graphs mark the move shown
    # a move's link in the list, two moves from the end; Play from there to the end
    tab.click(f"#moves tbody tr:nth-child({moves - 2}) a")
    tab.wait_for(f"document.querySelectorAll('#board .piece').length === {moves - 2}")
    play = "document.querySelector('[data-step=play]')"
    tab.click("[data-step=play]")
    assert tab.eval(f"{play}.textContent.trim().endsWith('Pause')")
    assert tab.eval(f"{play}.hasAttribute('aria-label')") is False  # its name is its text
    tab.wait_for(f"{play}.textContent.trim().endsWith('Play')", timeout=30)
    assert _pieces(tab) == moves
    tab.eval("document.activeElement.blur(); window.scrollTo(0, 0)")
    tab.key("End")  # outside the board, End scrolls the page as everywhere
    tab.wait_for("window.scrollY > 0")
    assert _pieces(tab) == moves
    tab.key("ArrowLeft")
    assert _pieces(tab) == moves - 1
    links = tab.eval("[...document.querySelectorAll('.matchnav a[href]')].map(a => "
                     "a.getAttribute('href'))")
    assert links == ["index.html", f"match-{number - 1}.html", f"match-{number + 1}.html"]
    assert tab.errors() == []


def test_a_match_without_moves_offers_no_controls(played: Path, chrome: Browser) -> None:
    doc = _doc(played, lambda d: not d["moves"])
    page = played / "live" / f"match-{doc['match'] + 1}.html"
    assert "data-step" not in page.read_text()
    tab = _tab(chrome, page)
    assert tab.eval("document.querySelectorAll('button').length") == 0
    assert "No move was played" in tab.eval("document.body.textContent")
    assert tab.errors() == []


def _fits_a_phone(tab: Tab) -> None:
    assert tab.eval("document.documentElement.scrollWidth") <= PHONE[0]
    sizes = tab.eval("[...document.querySelectorAll('svg.chart text')].filter(t => "
                     "t.getClientRects().length).map(t => t.getBoundingClientRect().height)")
    assert not sizes or min(sizes) >= 11, sizes  # chart text as big as the page's small text


def _accessible(tab: Tab, where: str) -> None:
    violations = tab.axe()
    assert violations == [], (where, violations)


def test_the_site_fits_a_phone_and_axe_finds_nothing(played: Path, chrome: Browser) -> None:
    """Index, a match with moves and graphs, a forfeit with a traceback: each
    at a phone's width and a desktop's, light and dark (the index in all four
    pairings, a match page in two that cover both widths and both themes); on
    the phone nothing is wider than the screen, every column of the standings
    shows, chart text is readable."""
    moves = _doc(played, lambda d: len(d["moves"]) >= 8)
    crash = _doc(played, lambda d: d["forfeit"] == "exception")
    every = [(size, dark) for size in (PHONE, DESKTOP) for dark in (False, True)]
    pages = {"index.html": every,
             f"match-{moves['match'] + 1}.html": [(PHONE, True), (DESKTOP, False)],
             f"match-{crash['match'] + 1}.html": [(PHONE, False), (DESKTOP, True)]}
    for name, looks in pages.items():
        for size, dark in looks:
            tab = _tab(chrome, played / "live" / name, size, dark)
            _accessible(tab, (name, size, dark))
            if size == PHONE:
                _fits_a_phone(tab)
                if name == "index.html":
                    hidden = tab.eval(
                        "[...document.querySelectorAll('#standings tbody tr:first-child "
                        "> *')].filter(c => !c.getClientRects().length || "
                        f"c.getBoundingClientRect().right > {PHONE[0]}).length")
                    assert hidden == 0
            assert tab.errors() == []
            tab.close()


def _start_session(folder: Path, *extra: str) -> subprocess.Popen[str]:
    game = folder / "players.txt"
    game.write_text("negamax depth=2\nsteady 500\nsequential\nrandom 1\n")  # ~30 s in all
    return subprocess.Popen(
        [sys.executable, "-m", "csl_game", "session", "-g", str(game), "-r", "6", "-c", "7",
         "-t", "1000", "--thinkers", FAKES, "--results", str(folder / "r.jsonl"),
         "--site", str(folder / "site"), "--title", "Live Cup", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **INTERRUPTIBLE)


def _wait_for_file(path: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.is_file():
        assert time.monotonic() < deadline, f"no {path}"
        time.sleep(0.05)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process: POSIX")
def test_a_live_page_keeps_the_readers_move_and_stops_when_the_session_does(
        tmp_path: Path, chrome: Browser) -> None:
    """A session with --verbose (every match here, shown move by move): its site is
    there from the start; a reader who stepped to move 3 of a match is still
    there after two updates, on the same page (no reload); the index shows the
    match being played, the schedule, and passes axe; Ctrl+C leaves every page
    final (stopped), and an open page says so and stops asking."""
    proc = _start_session(tmp_path, "--verbose")
    site = tmp_path / "site"
    try:
        _wait_for_file(site / "live.json", 20)
        assert json.loads((site / "live.json").read_text())["state"] in ("starting", "live")
        first = _find_match(site, lambda d: len(d["moves"]) >= 5)
        match = _tab(chrome, site / f"match-{first}.html")
        match.eval("window.sameDocument = true")
        match.click("[data-step=first]")
        for _ in range(3):
            match.click("[data-step=next]")
        assert _status(match).startswith("After move 3 ")
        updates = match.eval("window.cslSiteUpdates || 0")
        # (the index is checked while the match page takes its updates)
        index = _tab(chrome, site / "index.html", PHONE)
        index.eval("window.sameDocument = true")
        state = index.eval("document.getElementById('site-state').textContent")
        index.wait_for("!!document.querySelector('#now .now-board svg .piece')", timeout=20)
        assert index.eval("!!document.getElementById('schedule')")
        _accessible(index, "live index, phone, light")
        _fits_a_phone(index)
        wide = _tab(chrome, site / "index.html", DESKTOP, dark=True)
        _accessible(wide, "live index, desktop, dark")
        _accessible(match, "live match page")
        wide.close()
        match.wait_for(f"(window.cslSiteUpdates || 0) >= {updates + 2}", timeout=30)
        assert match.eval("window.sameDocument") is True  # not reloaded
        assert _status(match).startswith("After move 3 ") and _pieces(match) == 3
        assert match.eval("location.hash") == "#move=3"
        index.wait_for("document.getElementById('site-state').textContent !== "
                       f"{json.dumps(state)}", timeout=30)
        assert index.eval("window.sameDocument") is True
        assert match.errors() == [] and index.errors() == []
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    text = (site / "index.html").read_text()
    assert "data-live" not in text and 'data-state="stopped"' in text
    assert json.loads((site / "live.json").read_text())["state"] == "stopped"
    match.wait_for("document.body.getAttribute('data-state') === 'stopped'", timeout=10)
    assert "Stopped after" in match.eval("document.getElementById('site-state').textContent")
    assert not match.eval("document.body.hasAttribute('data-live')")
    seen = match.eval("window.cslSiteUpdates")
    time.sleep(2.5)
    assert match.eval("window.cslSiteUpdates") == seen  # no more asking
    assert _status(match).startswith("After move 3 ")


def _find_match(site: Path, test: Any, timeout: float = 40) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in sorted(site.glob("match-*.json")):
            doc = json.loads(path.read_text())
            if test(doc) and (site / f"match-{doc['match'] + 1}.html").is_file():
                return int(doc["match"]) + 1
        time.sleep(0.1)
    raise AssertionError("no such match was played in time")


def test_a_leagues_live_site_in_the_browser(tmp_path: Path, chrome: Browser,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    assert main(["league", "--thinker", "negamax depth=2", "--thinker", "random 1",
                 "--thinker", "sequential", "--games", "1", "-r", "5", "-c", "6", "-w", "4",
                 "-t", "100", "--site", str(site), "--title", "League"]) == 0
    capsys.readouterr()
    tab = _tab(chrome, site / "index.html")
    standings, crosstable, matches = (_rows(tab, s) for s in ("standings", "crosstable",
                                                              "matches"))
    assert sorted(r[1] for r in standings[1:]) == ["NegamaxD2", "Random", "Sequential"]
    assert len(matches) == 1 + 6  # each pair with both colours
    assert crosstable[1][1] == standings[1][1]  # in the standings' order
    assert len(list(site.glob("match-*.html"))) == 6
    assert "data-live" not in (site / "index.html").read_text()
    assert tab.errors() == []


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))


@pytest.mark.unit
@pytest.mark.parametrize("players", [4, 5, 6])
def test_rounds_are_a_round_robins_rounds(players: int) -> None:
    """The site's rounds (a page of matches folds each): runs of matches in
    which no player plays twice; a session's round robin gives its rounds of
    players // 2 matches, every player in each (one sits out when odd)."""
    from csl_game.engine import round_robin
    from csl_game.services.site.sections import rounds

    names = [f"P{i}" for i in range(players)]
    docs = [{"match": k, "white": {"name": names[w]}, "red": {"name": names[r]}}
            for k, (w, r) in enumerate(round_robin(players))]
    found = rounds(docs)
    assert [len(r) for r in found] == [players // 2] * (len(docs) // (players // 2))
    for r in found:
        named = [n for d in r for n in (d["white"]["name"], d["red"]["name"])]
        assert len(named) == len(set(named))
    assert [d["match"] for r in found for d in r] == list(range(len(docs)))
