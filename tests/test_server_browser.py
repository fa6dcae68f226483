"""The game server in headless Chromium (driven as tests/site_browser.py says):
the lobby shows the bots; two browsers play a game to the end, with the
keyboard and the mouse, one of them reloading its page mid-game and coming
back to its seat, while a third browser watches it live; the finished game
then has its page. Each person is a browser context of their own (cookies
apart, as in a browser of their own) in one browser for the file."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from csl_game.server import add_bot, open_store
from online_procs import Proc
from site_browser import Browser, Tab

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="POSIX only"),
              pytest.mark.slow]


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    db = tmp_path / "games.sqlite3"
    store = open_store(str(db))  # as --add-bot does (tests/test_server_ladder.py runs it)
    try:
        for name in ("Deep Blue", "Rando"):
            assert add_bot(store, name) is not None
    finally:
        store.close()
    proc = Proc("server", "--host", "127.0.0.1", "--port", "0", "--db", str(db))
    url = proc.wait_for(r"on (http://127\.0\.0\.1:\d+)", 30).group(1)
    yield url
    # Ctrl+C stops it at once (Proc starts it with SIGINT at its default: a server
    # started with it ignored, as a script's background job is, was killed after 20 s)
    proc.proc.send_signal(signal.SIGINT)
    try:
        code = proc.proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        said = proc.text()[-2000:]
        raise AssertionError(f"the server did not stop on Ctrl+C:\n{said}") from None
    assert code in (0, 130), proc.text()[-2000:]


def type_name(tab: Tab, name: str) -> None:
    tab.eval(f"(() => {{ const f = document.getElementById('name'); f.value = {name!r}; "
             "f.dispatchEvent(new Event('input')); return true; })()")


def moves_are(tab: Tab, count: int) -> None:
    tab.wait_for(f"document.body.dataset.moves === '{count}'")


def test_the_lobby_shows_the_bots(server: str, chrome: Browser) -> None:
    with chrome.person() as someone:
        tab = someone.tab(server + "/")
        names = tab.wait_for("[...document.querySelectorAll('#ladder tbody td:nth-child(2)')]"
                             ".map(td => td.textContent).join(',')")
        assert "Deep Blue" in names and "Rando" in names
        assert tab.errors() == []


def test_two_browsers_play_to_the_end_while_a_third_watches(server: str,
                                                            chrome: Browser) -> None:
    with ExitStack() as stack:
        alice_b, bob_b, carol_b = (stack.enter_context(chrome.person()) for _ in range(3))
        alice = alice_b.tab(server + "/")
        alice.eval("document.getElementById('name').value = 'Alice'; "
                   "document.getElementById('color').value = 'white'; true")
        alice.click("#friend")
        share = alice.wait_for("document.body.dataset.page === 'game' && "
                               "!document.getElementById('share').hidden && "
                               "document.getElementById('share').textContent")
        link = re.search(r"(http://\S+/game/(\S+)\?code=(\S+))", share)
        assert link, share
        url, game_id = link.group(1), link.group(2)
        assert alice.eval("document.getElementById('share-code').textContent") == link.group(3)
        # Copy link puts the link on the clipboard (its writeText, watched here)
        alice.eval("window.__copied = null; navigator.clipboard.writeText = "
                   "t => { window.__copied = t; return Promise.resolve(); }; true")
        alice.click("#copy-link")
        assert alice.wait_for("window.__copied") == url
        alice.wait_for("document.getElementById('copied').textContent === 'Copied'")

        bob = bob_b.tab(url)  # a shared link asks the name, then takes the seat
        bob.wait_for("!document.getElementById('join').hidden")
        type_name(bob, "Bob")
        bob.click("#take")
        bob.wait_for("document.body.dataset.color === 'red'")
        carol = carol_b.tab(f"{server}/game/{game_id}")
        carol.wait_for("document.getElementById('result').textContent.startsWith('Watching')")
        alice.wait_for("document.getElementById('result').textContent === 'Your move'")

        for turn in range(7):  # White: round in column 0 four times; Red: squares in column 3
            if turn % 2 == 0:
                moves_are(alice, turn)
                alice.key("0")
                alice.key("r")
                alice.key("Enter")
            else:
                moves_are(bob, turn)
                bob.key("s")
                bob.click("#board svg")  # the middle of the board: column 3
            if turn == 2:  # Bob's page drops and comes back (no code: his cookie)
                bob.goto(f"{server}/game/{game_id}")
                bob.wait_for("document.body.dataset.color === 'red'")
        for tab in (alice, bob, carol):
            tab.wait_for("document.body.dataset.over === '1'")
            assert tab.eval("document.body.dataset.winner") == "white"
            assert tab.eval("document.body.dataset.moves") == "7"
        assert "Alice" in carol.eval("document.getElementById('result').textContent")
        for tab in (alice, bob, carol):
            assert tab.errors() == []

        page = carol_b.tab(f"{server}/game/{game_id}")
        said = page.eval("document.getElementById('result').textContent")
        assert said.startswith("White (Alice) won by sequence"), said
        cells = page.eval("[...document.querySelectorAll('#moves tbody tr')].length")
        assert cells == 7
        # the analysis of its moves: queued when first asked for, then on the page
        deadline = time.monotonic() + 90
        while not page.eval("!!document.querySelector('#analysis tbody tr')"):
            assert time.monotonic() < deadline, page.eval("document.body.innerText")
            time.sleep(1)
            page.goto(f"{server}/game/{game_id}")
        graded = page.eval("[...document.querySelectorAll('#analysis tbody tr')].length")
        assert graded == 7
        assert "Accuracy: White" in page.eval("document.getElementById('accuracy').textContent")
        # the game recorded the name typed on the link's page (issue 41, item 2)
        assert page.eval("document.querySelector('h1').textContent") == "Alice - Bob"


HOOK = ("window.__sockets = []; const Real = window.WebSocket; window.WebSocket = "
        "class extends Real { constructor(...a) { super(...a); window.__sockets.push(this); } };")
"""Installed before a page's script: the test can drop the page's WebSocket."""
SHOWN = "!document.getElementById('{}').hidden"


def test_the_lobby_never_traps_a_name_is_kept_and_a_leaver_is_shown_at_once(
        server: str, chrome: Browser) -> None:
    """Issue 41, items 1, 2, 3, 4, 6 and 8 in two browsers."""
    with ExitStack() as stack:
        alice_b, bob_b = (stack.enter_context(chrome.person()) for _ in range(2))
        alice = alice_b.tab(server + "/")
        alice.send("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        type_name(alice, "Alice")
        alice.eval("document.getElementById('color').value = 'white'; true")
        alice.click("#open")
        alice.wait_for("document.body.dataset.page === 'game' && " + SHOWN.format("cancel"))
        # 1: back in the lobby with a challenge waiting, she stays and may cancel it
        alice.goto(server + "/")
        alice.wait_for("!!document.querySelector('#challenges button.cancel')")
        assert alice.eval("document.body.dataset.page + location.pathname") == "lobby/"
        for size in ((1280, 900), (390, 844)):  # 8: axe finds nothing, on a phone too
            alice.resize(size)
            assert alice.axe() == [], size
        alice.resize((1280, 900))
        alice.click("#challenges button.cancel")
        alice.wait_for("document.querySelector('#challenges td.empty') !== null")
        alice.eval("document.getElementById('color').value = 'white'; true")
        alice.click("#open")
        alice.wait_for("document.body.dataset.page === 'game' && " + SHOWN.format("cancel"))
        game_id = alice.eval("location.pathname.split('/').pop()")

        # 2: Bob types his name in the lobby and accepts from its table
        bob = bob_b.tab(server + "/")
        type_name(bob, "Bob")
        # (read as it is found: the lobby the script gets first may be up to a second
        # older than the page's own table, and take the row away for that second)
        bob.goto(bob.wait_for(f"(document.querySelector('#challenges a[href*=\"{game_id}\"]')"
                              " || {}).href"))
        bob.wait_for(SHOWN.format("join") + " && document.getElementById('name').value === 'Bob'")
        bob.click("#take")
        bob.wait_for("document.body.dataset.color === 'red'")
        # 3: the heading and the title name both players
        alice.wait_for("document.querySelector('h1').textContent === 'Alice - Bob'")
        # (each name isolated: tests/test_server_names.py)
        assert alice.eval("document.title") == "\u2068Alice\u2069 - \u2068Bob\u2069"

        # 4: Bob closes his page: Alice sees it at once (not after 30 s), then his return
        bob.send("Page.navigate", {"url": "about:blank"})  # his page closes
        said = alice.wait_for(SHOWN.format("away") + " && "
                              "document.getElementById('away').textContent", timeout=10)
        assert said.startswith("Bob left the game"), said
        bob.goto(f"{server}/game/{game_id}")
        bob.wait_for("document.body.dataset.color === 'red'")
        alice.wait_for("document.getElementById('away').hidden")

        # 6: Alice's connection drops and comes back: the banner goes with it
        alice.eval("window.__sockets.at(-1).close(); true")
        alice.wait_for("document.getElementById('status').textContent.startsWith('Connection lost')")
        alice.wait_for("document.getElementById('status').textContent === '' && "
                       "window.__sockets.at(-1).readyState === 1")

        # 4: a finished game offers the way on
        alice.eval("window.confirm = () => true; true")
        alice.click("#resign")
        for tab in (alice, bob):
            tab.wait_for("document.body.dataset.over === '1' && " + SHOWN.format("after"))
        assert bob.eval("document.getElementById('result').textContent") \
            == "Red (Bob) won by resignation"
        alice.resize((390, 844))
        assert alice.axe() == []
        for tab in (alice, bob):
            assert tab.errors() == []


SLOW_SOCKET = """(() => {
  const Real = window.WebSocket;
  window.__socket = 'asked';
  window.WebSocket = function (url) {  // opens 1.5 s late, as on a slow line
    const shell = {readyState: 0, send() { throw new Error('not open'); }, close() {}};
    setTimeout(() => {
      const ws = new Real(url);
      ws.onopen = (e) => { window.__socket = 'open'; shell.readyState = 1;
                           shell.send = (d) => ws.send(d); shell.onopen(e); };
      ws.onmessage = (e) => shell.onmessage(e);
      ws.onclose = (e) => { shell.readyState = 3; shell.onclose(e); };
    }, 1500);
    return shell;
  };
})();"""
"""Installed before the lobby's script: its WebSocket opens 1.5 s after it is made."""


def test_a_click_before_the_socket_opens_is_not_lost(server: str, chrome: Browser) -> None:
    """A player who clicks as soon as the lobby shows, before its connection
    is open, gets the game asked for (the page sends it once it is open)."""
    with chrome.person() as someone:
        tab = someone.tab(server + "/")
        tab.send("Page.addScriptToEvaluateOnNewDocument", {"source": SLOW_SOCKET})
        tab.eval("location.reload(); true")
        tab.wait_for("window.__socket === 'asked' && !document.getElementById('create').hidden")
        tab.click("#friend")
        assert tab.eval("window.__socket") == "asked", "clicked only once the socket was open"
        tab.wait_for("document.body.dataset.page === 'game'")
