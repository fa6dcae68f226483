"""Issue 43, item 11 on the game server's pages, in headless Chromium (as
tests/site_browser.py drives it): two accounts whose names hold a
right-to-left override and Arabic (made in the database, as the signup form
refuses them) play a game with clocks that the server resumes; in the lobby,
the game's heading, its clocks, its away notice, its result (the script's,
then the finished page's) and the player's page, the words around each name
stay in reading order where they are (getBoundingClientRect), as
tests/test_site_large.py checks the site's."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path

import pytest

from csl_game.online.protocol import config_json
from csl_game.server import ServerOptions, add_bot
from csl_game.server.accounts import hash_password
from csl_game.server.store import GameRow, SqliteStore
from csl_game.thinker.api import MatchConfig
from server_thread import ServerThread
from site_browser import Browser, Tab
from test_server_browser_people import account

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="POSIX only"),
              pytest.mark.slow]

OVERRIDE = "\u202eevil LTR"
"""Unisolated, it turns the rest of its line round."""
ARABIC = "\u0633\u0627\u0631\u0629 \u0639\u0644\u064a"
PASSWORD = "a long enough secret"
GAME = "names0000001"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A server resuming a game with an 8 s clock between the accounts OVERRIDE
    (White) and ARABIC (Red); two ladder bots of those names."""
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    store = SqliteStore(tmp_path / "games.sqlite3")
    try:
        for name in (OVERRIDE, ARABIC):
            assert store.add_player(name, hash_password(PASSWORD))
            assert add_bot(store, name) is not None
        store.add_game(GameRow(GAME, "friend", OVERRIDE, ARABIC, {
            **config_json(MatchConfig()), "seats": [f"user:{OVERRIDE}", f"user:{ARABIC}"],
            "code": "names-code-1", "timecontrol": {"base": 8, "increment": 0}},
            [], "playing", None, time.time()))
    finally:
        store.close()
    with ServerThread(tmp_path, ServerOptions(reconnect_s=120.0)) as served:
        yield served.url


WHERE = """((selector, needles) => {
  const root = document.querySelector(selector), walk = document.createTreeWalker(root, 4);
  const texts = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) texts.push(n);
  return needles.map((needle) => {
    const node = texts.find((t) => t.data.includes(needle));
    if (!node) return [needle, null, null];
    const r = document.createRange(), at = node.data.indexOf(needle);
    r.setStart(node, at); r.setEnd(node, at + needle.length);
    const b = r.getBoundingClientRect();
    return [needle, b.top, b.left];
  });
})"""
"""Where each text (its first occurrence in one text node) is on the screen."""


def in_order(tab: Tab, selector: str, needles: Sequence[str]) -> None:
    """The texts are read in this order in `selector`'s element: each one on
    the same line right of the one before it, or on a line below."""
    found = tab.eval(f"{WHERE}({selector!r}, {list(needles)!r})")
    assert all(top is not None for _, top, _ in found), (selector, found)
    for (_, a_top, a_left), (_, b_top, b_left) in zip(found, found[1:], strict=False):
        assert b_top > a_top + 1 or (abs(b_top - a_top) <= 1 and b_left > a_left), \
            (selector, found)



EVIL, SIN = "evil", ARABIC[0]
"""Texts inside each name: the override's, and the Arabic's first letter."""


def test_names_keep_the_words_around_them_in_order_on_the_servers_pages(
        server: str, chrome: Browser, tmp_path: Path) -> None:
    with ExitStack() as stack:
        white_b, red_b = (stack.enter_context(chrome.person()) for _ in range(2))
        white, red = white_b.tab(server + "/"), red_b.tab(server + "/")
        for tab, name in ((white, OVERRIDE), (red, ARABIC)):
            account(tab, server, name, PASSWORD, "login")
        # the lobby: who is signed in, the game being played, the ladder's bots
        in_order(white, "#you", ["Signed in as", EVIL, "(rating"])
        white.wait_for(f"!!document.querySelector('#games a[href$=\"{GAME}\"] bdi')")
        in_order(white, "#games tbody td:first-child", [EVIL, " - ", SIN])
        white.wait_for("document.querySelectorAll('#ladder tbody bdi').length === 2")
        columns = white.eval("[...document.querySelectorAll('#ladder tbody tr')].map(tr => "
                             "[...tr.children].map(td => td.getBoundingClientRect().left))")
        assert all(row == sorted(row) for row in columns), columns
        assert white.axe() == []

        # Red sits down first: White is away, and the clocks wait for White
        red.goto(f"{server}/game/{GAME}")
        red.wait_for("document.body.dataset.color === 'red' && "
                     "!document.getElementById('away').hidden && "
                     "!document.getElementById('clocks').hidden")
        in_order(red, "#away", [EVIL, " left the game"])
        in_order(red, "h1", [EVIL, " - ", SIN])
        assert red.eval("document.title") == f"\u2068{OVERRIDE}\u2069 - \u2068{ARABIC}\u2069"
        in_order(red, "#clock-white", ["White (", EVIL, ")"])
        in_order(red, "#clock-red", ["Red (", SIN, ")"])
        in_order(red, "#result", ["Waiting for ", EVIL])
        red.screenshot(tmp_path / "names-game.png")
        assert red.axe() == []

        # White comes and never moves: White's clock runs out
        white.goto(f"{server}/game/{GAME}")
        white.wait_for("document.body.dataset.color === 'white'")
        result = ["Red (", SIN, ") won", "White (", EVIL, ") exceeded the time limit"]
        for tab in (white, red):
            tab.wait_for("document.body.dataset.over === '1'", timeout=30)
            assert tab.eval("document.getElementById('result').textContent") == \
                f"Red ({ARABIC}) won: White ({OVERRIDE}) exceeded the time limit"
            in_order(tab, "#result", result)

        # the finished game's page, as the server writes it
        red.goto(f"{server}/game/{GAME}")
        in_order(red, "h1", [EVIL, " - ", SIN])
        in_order(red, "#result", [*result[:-1], ") exceeded the time limit"])
        assert red.eval("document.title") == f"\u2068{OVERRIDE}\u2069 - \u2068{ARABIC}\u2069"
        red.screenshot(tmp_path / "names-over.png")
        assert red.axe() == []

        # the player's page: its name isolated, its columns in order
        red.goto(f"{server}/@/{OVERRIDE}")
        assert red.eval("document.querySelector('h1 bdi.name').textContent") == OVERRIDE
        assert red.eval("document.title") == f"\u2068{OVERRIDE}\u2069"
        in_order(red, "#rating", ["Rating", "Glicko-2"])
        heads = red.eval("[...document.querySelectorAll('#history th')].map(th => "
                         "th.getBoundingClientRect().left)")
        assert heads == sorted(heads), heads
        assert red.axe() == []
        for tab in (white, red):
            assert tab.errors() == []
