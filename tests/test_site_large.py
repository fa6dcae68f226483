"""The site at any size and for any name, in a real browser (headless
Chromium, as tests/site_browser.py drives it): a 40-player event (1,560
matches, its results made up rather than played) has an index under 300 KB
and a live update of a reader's open index under 50 KB, sent as what changed;
a 200-character name without spaces keeps every page within the viewport on
a phone and a desktop, a name holding a right-to-left override or written
right to left leaves the words around it in order; axe-core finds nothing.

Skipped, saying so, where no Chromium is installed."""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

from csl_game.engine import round_robin
from csl_game.services.serve import SiteServer
from csl_game.services.site import Series, SiteWriter, line_chart, write_site
from procs import INTERRUPTIBLE
from site_browser import DESKTOP, PHONE, Browser, Tab

pytestmark = [pytest.mark.slow]

SETTINGS = {"rows": 6, "cols": 7, "win_sequence": 4, "round_pieces": 11, "square_pieces": 10,
            "time_limit_ms": 200}


def _doc(index: int, white: str, red: str, winner: str, moves: int = 9) -> dict[str, Any]:
    return {"white": {"thinker": "t", "params": "", "name": white},
            "red": {"thinker": "t", "params": "", "name": red}, "winner": winner,
            "winner_name": {"white": white, "red": red}.get(winner), "solution": [],
            "forfeit": None, "detail": "", "match": index, "settings": SETTINGS,
            "moves": [{"row": i // 7, "col": i % 7, "color": ("white", "red")[i % 2],
                       "shape": "round", "ms": 1.5, "figures": {"depth": 1 + i, "score": 5}}
                      for i in range(moves)]}


def forty_players() -> list[dict[str, Any]]:
    """A double round robin of 40 players: 1,560 matches."""
    rng = random.Random(7)
    names = [f"Player {i + 1:02d}" for i in range(40)]
    return [_doc(k, names[a], names[b], rng.choice(("white", "red", "draw")))
            for k, (a, b) in enumerate(permutations(range(40), 2))]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    folder = tmp_path / "site"
    folder.mkdir()
    srv = SiteServer(folder, "127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield folder, f"http://127.0.0.1:{srv.port}/"
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def _loaded_since(tab: Tab, mark: float) -> list[tuple[str, int]]:
    """(name, bytes of its body) of what the page loaded after `mark` (ms)."""
    return [(str(n), int(b)) for n, b in tab.eval(
        f"performance.getEntriesByType('resource').filter(e => e.startTime > {mark})"
        ".map(e => [e.name.split('/').pop().split('?')[0], e.encodedBodySize])")]


def test_a_40_player_site_stays_small_and_sends_what_changed(
        served: tuple[Path, str], chrome: Browser) -> None:
    folder, url = served
    docs = forty_players()
    assert len(docs) == 1560
    writer = SiteWriter(folder, live=True, title="Forty")
    writer.event.total = len(docs)
    writer.docs.extend(docs[:-1])
    writer.write_index()
    index = (folder / "index.html").stat().st_size
    assert index < 300_000, index
    for name in ("plots.html", "matches-1.html", "matches-16.html"):
        assert (folder / name).stat().st_size < 300_000, name
    tab = chrome.tab(url + "index.html", DESKTOP)
    tab.send("Performance.enable")
    tab.eval("window.sameDocument = true")
    assert tab.eval("document.documentElement.scrollHeight") < 30_000
    assert "Match 1559" in tab.eval("document.querySelector('#matches tbody tr').textContent")
    tab.eval("window.scrollTo(0, document.getElementById('crosstable').offsetTop)")
    top = tab.eval("document.getElementById('crosstable').getBoundingClientRect().top")
    mark = float(tab.eval("performance.now()"))
    writer.add(docs[-1])  # match 1560 ends: Player 40 against Player 39
    tab.wait_for("(window.cslSiteLoaded || 0) >= 1", timeout=20)
    loaded = _loaded_since(tab, mark)
    sent = sum(size for name, size in loaded if name != "live.js")
    assert 0 < sent < 50_000, loaded
    assert any(name.startswith("part-") for name, _ in loaded)
    assert tab.eval("window.sameDocument") is True
    assert "Match 1560" in tab.eval("document.querySelector('#matches tbody tr').textContent")
    assert tab.eval("document.getElementById('site-state').textContent").startswith(
        "Live: 1560 of 1")
    # the page shows what a fresh load of the index shows, and kept its place
    fresh = chrome.tab(url + "index.html", DESKTOP)
    for section in ("standings", "crosstable", "matches", "statistics"):
        text = f"document.getElementById('{section}').innerText"
        assert tab.eval(text) == fresh.eval(text), section
    now = tab.eval("document.getElementById('crosstable').getBoundingClientRect().top")
    assert abs(now - top) < 2
    assert tab.errors() == [] and fresh.errors() == []
    fresh.close()
    phone = chrome.tab(url + "index.html", PHONE)
    assert phone.eval("document.documentElement.scrollWidth") <= PHONE[0]
    assert phone.eval("document.documentElement.scrollHeight") < 60_000
    assert phone.axe() == []
    assert (folder / "favicon.svg").is_file() and 'href="favicon.svg"' in \
        (folder / "index.html").read_text()


LONG = "Zebulon" * 28 + "Xyz"  # 199 characters, no space
OVERRIDE = "Red\u202e LTR override name"
ARABIC = "\u0644\u0627\u0639\u0628 \u0639\u0631\u0628\u064a"  # "an Arab player"


@pytest.fixture(scope="module")
def names_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("names")
    players = [LONG, OVERRIDE, ARABIC]
    docs = [_doc(k, players[a], players[b], ("white", "red", "draw")[k % 3])
            for k, (a, b) in enumerate(permutations(range(3), 2))]
    write_site(docs, folder, title="Names")
    return folder


@pytest.mark.parametrize("size", [PHONE, (1280, 800)], ids=["phone", "desktop"])
def test_long_and_right_to_left_names_keep_the_page_in_view_and_in_order(
        names_site: Path, chrome: Browser, size: tuple[int, int]) -> None:
    docs = [json.loads(line) for line in (names_site / "matches.jsonl").read_text().splitlines()]
    override = next(d for d in docs if (d["white"]["name"], d["red"]["name"]) ==
                    (OVERRIDE, ARABIC))
    page = f"match-{override['match'] + 1}.html"
    for name in ("index.html", "match-1.html", page):  # each page loaded once at this size
        tab = chrome.tab((names_site / name).as_uri(), size)
        width = tab.eval("document.documentElement.scrollWidth")
        assert width <= size[0], (name, width)
        assert tab.eval("visualViewport.scale") == 1  # the phone does not zoom out
        if name == page:
            _in_order(tab, size)
        if name == "index.html":
            _standings_in_place(tab)
        assert tab.axe() == [], name
        assert tab.errors() == []
        tab.close()


def _in_order(tab: Tab, size: tuple[int, int]) -> None:
    # "Match 4: <override> (White) vs <Arabic> (Red)": (White) comes before (Red)
    # (unisolated, the override turns the rest of the line round: "(Red)" left)
    order = tab.eval("[...document.querySelectorAll('h1 .side')].map(s => { const r = "
                     "s.getBoundingClientRect(); return [s.textContent, r.top, r.left]; })")
    (white, w_top, w_left), (red, r_top, r_left) = order
    assert (white, red) == ("(White)", "(Red)")
    if size != PHONE:
        assert abs(r_top - w_top) <= 1, order  # one line
    assert r_top > w_top + 1 or (abs(r_top - w_top) <= 1 and r_left > w_left), order
    assert tab.eval("document.querySelector('h1 bdi').getAttribute('class')") == "name"
    # "White (<override>) won": ") won" after "White (", not turned round before it
    ends = tab.eval("(() => { const texts = [...document.querySelector('.result strong')"
                    ".childNodes].filter(n => n.nodeType === 3); return [texts[0], "
                    "texts[texts.length - 1]].map(n => { const r = document.createRange(); "
                    "r.selectNodeContents(n); const b = r.getBoundingClientRect(); "
                    "return [n.textContent, b.top, b.left]; }); })()")
    (first, f_top, f_left), (last, l_top, l_left) = ends
    assert (first, last) == ("White (", ") won")
    assert l_top > f_top + 1 or (abs(l_top - f_top) <= 1 and l_left > f_left), ends


def _standings_in_place(tab: Tab) -> None:
    # the standings: each name's row keeps its points in their column
    rows = tab.eval("[...document.querySelectorAll('#standings tbody tr')].map(tr => "
                    "tr.children[1].textContent)")
    assert sorted(rows) == sorted([LONG, OVERRIDE, ARABIC])
    # a chart's labels stay within it (a long name cut with an ellipsis)
    out = tab.eval("[...document.querySelectorAll('svg.chart text.legend')].filter(t => "
                   "t.getClientRects().length).filter(t => { const b = "
                   "t.getBoundingClientRect(), s = t.ownerSVGElement.getBoundingClientRect();"
                   " return b.left < s.left - 1 || b.right > s.right + 1; })"
                   ".map(t => t.textContent)")
    assert out == []


def test_the_depth_chart_ticks_whole_plies(tmp_path: Path) -> None:
    """Depths 1 to 10 would be ticked 0, 2.5, 5, 7.5, 10: a depth is whole plies."""
    write_site([_doc(0, "A", "B", "white", moves=10)], tmp_path)
    page = (tmp_path / "match-1.html").read_text()
    depth = next(f for f in page.split("<figure") if "Search depth of each move" in f)
    ticks = re.findall(r'class="tick end">([^<]+)<', depth)
    assert ticks and all(t.isdigit() for t in ticks), ticks
    chart = line_chart([Series("s", ((1.0, 1.0), (2.0, 10.0)))], "t", "move")
    assert "2.5" in chart  # (other charts keep their fractional ticks)


def test_the_eta_counts_the_matches_being_played() -> None:
    """Two workers, 100 s in: the first match ended, the other is about to.
    The pace is about 100 s / 1.5 matches, not 100 s a match (which made the
    ETA early on run late by a third or more)."""
    from csl_game.engine import Points
    from csl_game.services.site.pages import Event, Site

    event = Event(state="live", total=10, started=time.time() - 100, done_here=1,
                  playing=[1], schedule=[(i, "A", "B") for i in range(10)])
    pace, left = Site([_doc(0, "A", "B", "white")], Points(), event, 1)._eta()
    assert pace is not None and left is not None
    assert 66 < pace < 67.5 and 9 * 66 < left < 9 * 67.5


def test_following_a_move_link_while_playing_pauses(names_site: Path, chrome: Browser) -> None:
    tab = chrome.tab((names_site / "match-1.html").as_uri(), DESKTOP)
    play = "document.querySelector('[data-step=play]')"
    tab.click("[data-step=play]")
    assert tab.eval(f"{play}.textContent.trim().endsWith('Pause')")
    tab.eval("location.hash = '#move=2'")
    tab.wait_for(f"{play}.textContent.trim().endsWith('Play')", timeout=5)
    time.sleep(1.0)  # more than a step of play: it stays on move 2
    assert tab.eval("document.querySelectorAll('#board .piece').length") == 2
    assert tab.errors() == []


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process: POSIX")
def test_serving_a_site_its_session_has_not_made_yet_waits_for_it(tmp_path: Path) -> None:
    """`report site --serve` typed with the session that makes `site`: it
    waits for the folder, then serves it (docs/site.md: a site just started)."""
    folder = tmp_path / "site"
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", "report", str(folder),
                             "--serve", "--port", "0", "--host", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **INTERRUPTIBLE)
    said = ""
    stop = threading.Timer(60, proc.kill)  # a server that never says anything
    stop.start()
    try:
        assert proc.stderr is not None and proc.stdout is not None
        said = proc.stderr.readline()  # it says it waits before the folder exists
        assert f"waiting for {folder} to be made" in said, said + proc.communicate()[1]
        write_site([_doc(0, "A", "B", "white")], folder)
        url = re.search(r"http://\S+/", proc.stdout.readline())
        assert url, proc.communicate()
        with urllib.request.urlopen(url[0], timeout=10) as answer:
            assert b"<h1>Tournament</h1>" in answer.read()
    finally:
        stop.cancel()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in said + err


@pytest.mark.parametrize("end", ["stopped", "final"])
def test_the_last_redraw_keeps_the_readers_focus(served: tuple[Path, str], chrome: Browser,
                                                 end: str) -> None:
    """A session that stops (Ctrl+C) or ends redraws the index without its
    matches being played: the sections after them moved, which dropped the
    keyboard focus of a reader on a link there to the page's body (issue 43,
    item 14). The link keeps it, and the page stays the same document."""
    folder, url = served
    names = ["Ann", "Bob", "Cid", "Dee"]
    pairs = list(permutations(range(4), 2))
    docs = [_doc(k, names[a], names[b], "white") for k, (a, b) in enumerate(pairs)]
    writer = SiteWriter(folder, live=True, title="Focus")
    writer.event.total = len(docs)
    writer.event.players = names
    writer.event.schedule = [(k, names[a], names[b]) for k, (a, b) in enumerate(pairs)]
    writer.docs.extend(docs[:5])
    writer.event.playing = [5, 6]
    writer.write_index()
    tab = chrome.tab(url + "index.html", DESKTOP)
    assert tab.eval("!!document.getElementById('now')")
    tab.eval("window.sameDocument = true; "
             "document.querySelector('#matches a[href=\"match-2.html\"]').focus()")
    writer.event.playing = []
    if end == "final":
        writer.docs.extend(docs[5:])
        writer.write_all(live=False)
    else:
        writer.write_all(state="stopped")
    tab.wait_for(f"document.body.getAttribute('data-state') === '{end}'", timeout=20)
    tab.wait_for("!document.getElementById('now')", timeout=20)
    assert tab.eval("window.sameDocument") is True
    assert tab.eval("document.activeElement.getAttribute('href')") == "match-2.html"
    assert tab.eval("document.activeElement.closest('section').id") == "matches"
    assert tab.errors() == []


def test_a_page_of_matches_folds_its_rounds(served: tuple[Path, str], chrome: Browser) -> None:
    """A 40-player event's page of 100 matches shows them a round each (20
    matches in which every player plays once), every round but the last
    folded (issue 43, item 13): the phone page is a fraction of its height, a
    round opens by keyboard, and a live update keeps what the reader opened."""
    folder, url = served
    names = [f"Player {i + 1:02d}" for i in range(40)]
    docs = [_doc(k, names[w], names[r], ("white", "red", "draw")[k % 3])
            for k, (w, r) in enumerate(round_robin(40))]  # the sessions' own order
    writer = SiteWriter(folder, live=True, title="Forty")
    writer.event.total = len(docs)
    writer.docs.extend(docs[:95])
    writer.write_index()
    page = (folder / "matches-1.html").read_text()
    assert page.count('<details class="round"') == 5 and page.count(" open>") == 1
    assert "Round 1: matches 1\u201320 (20 matches)" in page
    phone = chrome.tab(url + "matches-1.html", PHONE)
    folded = phone.eval("document.documentElement.scrollHeight")
    phone.eval("document.querySelectorAll('details.round').forEach(d => d.open = true)")
    unfolded = phone.eval("document.documentElement.scrollHeight")
    assert folded < unfolded / 3, (folded, unfolded)
    phone.eval("document.querySelectorAll('details.round').forEach((d, i) => d.open = i === 4)")
    phone.eval("document.querySelector('#round-1-d summary').focus()")
    phone.key(" ")  # Space on the focused round's summary opens it
    assert phone.eval("document.getElementById('round-1-d').open") is True
    assert phone.eval("document.querySelector('#round-1-d tbody tr').offsetHeight") > 0
    assert phone.axe() == []
    writer.add(docs[95])  # match 96 ends: the last round's table grows, live
    phone.wait_for("document.body.textContent.includes('Match 96')", timeout=20)
    assert phone.eval("document.getElementById('round-1-d').open") is True, \
        "the round the reader opened stays open"
    assert phone.eval("document.getElementById('round-2-d').open") is False
    assert phone.errors() == []
