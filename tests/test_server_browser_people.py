"""Issue 41's games for people in headless Chromium (as tests/site_browser.py
drives it): two browsers play a game with clocks, both ticking, one side's
running out after a reload showed it right; a rematch with the colours
swapped, and a draw agreed; a takeback in a casual game, then the finished
game's page stepping through its moves and its PGN; a guest playing a
ladder bot from the lobby. Each person is a browser context of their own
(cookies apart, as in a browser of their own) in one browser for the file."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from csl_game.server import ServerOptions
from online_procs import Proc
from server_thread import ServerThread
from site_browser import Browser, Tab

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="POSIX only"),
              pytest.mark.slow]


def _stop(proc: Proc) -> None:
    proc.proc.send_signal(signal.SIGINT)
    try:
        proc.proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A game server on a thread of the test (bots register by name: --register open)."""
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    with ServerThread(tmp_path, ServerOptions(register="open")) as served:
        yield served.url


def type_name(tab: Tab, name: str) -> None:
    tab.eval(f"(() => {{ const f = document.getElementById('name'); f.value = {name!r}; "
             "f.dispatchEvent(new Event('input')); return true; })()")


def friend_game(alice: Tab, bob: Tab, server: str, clock: str = "") -> str:
    """Alice (White) makes a game with `clock` ('' none, else 'BASE+INC'), Bob takes
    its seat from the link: the game's id."""
    alice.goto(server + "/")
    type_name(alice, "Alice")
    alice.eval("document.getElementById('color').value = 'white'; true")
    if clock:  # a short clock for the test, chosen as the lobby's own are
        alice.eval(f"(() => {{ const s = document.getElementById('clock'); "
                   f"s.add(new Option({clock!r}, {clock!r})); s.value = {clock!r}; "
                   "return true; })()")
    alice.click("#friend")
    share = alice.wait_for("document.body.dataset.page === 'game' && "
                           "!document.getElementById('share').hidden && "
                           "document.getElementById('share').textContent")
    link = re.search(r"(http://\S+/game/(\S+)\?code=\S+)", share)
    assert link, share
    bob.goto(link.group(1))
    bob.wait_for("!document.getElementById('join').hidden")
    type_name(bob, "Bob")
    bob.click("#take")
    bob.wait_for("document.body.dataset.color === 'red'")
    alice.wait_for("document.getElementById('result').textContent === 'Your move'")
    return link.group(2)


def clock_ms(tab: Tab, side: str) -> int:
    return int(tab.eval(f"document.getElementById('clock-{side}').dataset.ms"))


def test_a_clock_runs_out_then_a_rematch_swaps_colours_and_a_draw_is_agreed(
        server: str, chrome: Browser) -> None:
    with ExitStack() as stack:
        alice_b, bob_b = (stack.enter_context(chrome.person()) for _ in range(2))
        alice, bob = alice_b.tab(server + "/"), bob_b.tab(server + "/")
        game_id = friend_game(alice, bob, server, "8+1")
        for tab in (alice, bob):  # both pages show both clocks, White's ticking
            tab.wait_for("!document.getElementById('clocks').hidden")
            first = clock_ms(tab, "white")
            tab.wait_for(f"Number(document.getElementById('clock-white').dataset.ms) < {first}")
            assert clock_ms(tab, "red") == 8000
            assert "running" in tab.eval("document.getElementById('clock-white').className")
        alice.key("0")
        alice.key("Enter")
        bob.wait_for("document.body.dataset.moves === '1'")
        alice.wait_for("Number(document.getElementById('clock-white').dataset.ms) > 8000 - 4000")
        assert 4000 < clock_ms(alice, "white") <= 9000  # the increment was added
        time.sleep(1.0)
        before = clock_ms(bob, "red")
        bob.goto(f"{server}/game/{game_id}")  # a reload shows the time left, not the base
        bob.wait_for("document.body.dataset.color === 'red' && "
                     "!document.getElementById('clocks').hidden")
        after = clock_ms(bob, "red")
        assert after < before < 8000, (before, after)
        # Bob never moves: his clock runs out and he loses on time
        for tab in (alice, bob):
            tab.wait_for("document.body.dataset.over === '1'", timeout=20)
            assert tab.eval("document.body.dataset.winner") == "white"
        said = bob.eval("document.getElementById('result').textContent")
        assert said == "White (Alice) won: Red (Bob) exceeded the time limit", said
        assert clock_ms(alice, "red") == 0 and clock_ms(bob, "red") == 0

        # a rematch: Alice asks, Bob accepts; the colours swap
        alice.wait_for("!document.getElementById('rematch').hidden")
        alice.click("#rematch")
        bob.wait_for("document.getElementById('rematch').textContent === 'Accept the rematch'")
        assert "Alice asks for a rematch" in bob.eval("document.getElementById('offer').textContent")
        bob.click("#rematch")
        for tab, color in ((alice, "red"), (bob, "white")):
            tab.wait_for(f"document.body.dataset.color === '{color}' && "
                         f"!location.pathname.endsWith('{game_id}')")
        assert alice.eval("document.querySelector('h1').textContent") == "Bob - Alice"
        assert clock_ms(alice, "red") == 8000  # the same clock again

        # a draw: Alice offers, Bob's same button accepts
        alice.click("#draw")
        bob.wait_for("document.getElementById('draw').textContent === 'Accept the draw'")
        bob.click("#draw")
        for tab in (alice, bob):
            tab.wait_for("document.body.dataset.over === '1'")
            assert tab.eval("document.body.dataset.winner") == "draw"
        assert alice.eval("document.getElementById('result').textContent") == \
            "Draw: the players agreed a draw"
        for tab in (alice, bob):
            assert tab.errors() == []


def test_a_takeback_then_the_finished_game_steps_through_its_moves(
        server: str, chrome: Browser, tmp_path: Path) -> None:
    with ExitStack() as stack:
        alice_b, bob_b = (stack.enter_context(chrome.person()) for _ in range(2))
        alice, bob = alice_b.tab(server + "/"), bob_b.tab(server + "/")
        game_id = friend_game(alice, bob, server)
        assert alice.eval("document.getElementById('clocks').hidden")  # no clock: casual
        carol_b = stack.enter_context(chrome.person())
        carol = carol_b.tab(f"{server}/game/{game_id}")  # a watcher: the players learn of her
        carol.wait_for("document.body.dataset.watchers === '1'")
        alice.key("3")
        alice.key("Enter")
        bob.wait_for("document.body.dataset.moves === '1'")
        alice.wait_for("document.getElementById('watchers').textContent === '1 watching'")
        bob.key("s")
        bob.key("4")
        bob.key("Enter")
        alice.wait_for("document.body.dataset.moves === '2'")
        alice.click("#takeback")  # her move and Bob's reply
        bob.wait_for("document.getElementById('takeback').textContent === 'Accept the takeback'")
        bob.click("#takeback")
        for tab in (alice, bob):
            tab.wait_for("document.body.dataset.moves === '0'")
        for turn in range(7):  # then White's four rounds in column 0 win
            tab, key = (alice, "0") if turn % 2 == 0 else (bob, "1")
            tab.wait_for(f"document.body.dataset.moves === '{turn}'")
            tab.key(key)
            tab.key("Enter")
        alice.wait_for("document.body.dataset.over === '1'")

        page = bob_b.tab(f"{server}/game/{game_id}")
        page.wait_for("!document.getElementById('replay').hidden")
        assert page.eval("document.body.dataset.step") == "7"
        drawn = page.eval("[...document.querySelectorAll('#replay button')].map(b => "
                          "[b.getAttribute('aria-label'), b.textContent.trim(), "
                          "b.querySelector('svg path').getBBox().width, "
                          "b.querySelector('svg').getBoundingClientRect().width])")
        assert [d[0] for d in drawn] == ["The first move", "The move before", "The next move",
                                         "The last move"]
        assert all(text == "" and path > 0 and width > 8 for _, text, path, width in drawn), \
            f"each step button draws its shape, with no character a font may lack: {drawn}"
        page.screenshot(tmp_path / "replay.png")
        page.click("#first")
        page.wait_for("document.body.dataset.step === '0'")
        assert page.eval("document.querySelectorAll('#board .piece').length") == 0
        for step in range(1, 8):
            if step % 2:
                page.click("#next")
            else:
                page.key("ArrowRight")
            page.wait_for(f"document.body.dataset.step === '{step}'")
            assert page.eval("document.querySelectorAll('#board .piece').length") == step
        assert page.eval("document.getElementById('step').textContent") == "Move 7 of 7"
        assert page.eval("document.querySelectorAll('#board .piece.win').length") == 4
        page.click("#prev")
        page.wait_for("document.body.dataset.step === '6'")
        assert page.eval("document.querySelectorAll('#board .piece.win').length") == 0
        pgn = page.eval(f"fetch('/api/games/{game_id}.pgn').then(r => r.text())")
        assert '[White "Alice"]' in pgn and '[Black "Bob"]' in pgn and '[Result "1-0"]' in pgn
        assert "1. 0r 1s 2. 0r 1s 3. 0r 1s 4. 0r 1-0" in pgn.replace("\n", " ")
        assert '[TimeControl "-"]' in pgn  # people without a clock (PGN's "no time control")
        assert page.axe() == []
        # the analysis arrives on the page as it stands: no reload takes the step away
        page.wait_for("!!document.querySelector('#review #accuracy')", timeout=90)
        assert page.eval("document.body.dataset.step") == "6"
        for tab in (alice, bob, page):
            assert tab.errors() == []


FREE_COLUMN = ("(() => { const n = {}; for (const tr of document.querySelectorAll('#moves tbody "
               "tr')) { const c = tr.children[2].textContent; n[c] = (n[c] || 0) + 1; } "
               "for (let c = 0; c < 7; c++) if ((n[c] || 0) < 6) return c; })()")
"""The first column with room, from the moves' table."""


def test_a_guest_plays_a_ladder_bot_from_the_lobby(server: str, chrome: Browser) -> None:
    bot = Proc("bot", server, "sequential", "--name", "Seq")
    try:
        bot.wait_for("connected to", 30)
        with chrome.person() as gus:
            tab = gus.tab(server + "/")
            type_name(tab, "Gus")
            tab.wait_for("!!document.querySelector('#ladder button.play-bot')")
            tab.eval("document.getElementById('color').value = 'white'; true")
            tab.click("#ladder button.play-bot")
            tab.wait_for("document.body.dataset.page === 'game' && "
                         "document.body.dataset.color === 'white'")
            assert tab.eval("document.querySelector('h1').textContent") == "Gus - Seq"
            for _ in range(60):  # Gus plays the first column with room until the end
                state = tab.wait_for("document.body.dataset.over === '1' ? 'over' : "
                                     "document.getElementById('result').textContent === "
                                     "'Your move' ? 'move' : ''", timeout=30)
                if state == "over":
                    break
                moves = int(tab.eval("document.body.dataset.moves"))
                col = tab.eval(FREE_COLUMN)
                tab.key("s" if moves % 4 == 0 else "r")  # 11 squares and 10 rounds
                tab.key(str(col))
                tab.key("Enter")
                tab.wait_for(f"document.body.dataset.moves !== '{moves}' || "
                             "document.body.dataset.over === '1'")
            assert tab.eval("document.body.dataset.over") == "1"
            assert tab.eval("document.body.dataset.winner") in ("white", "red", "draw")
            assert tab.errors() == []
        assert "Gus - Seq" in bot.text()
    finally:
        _stop(bot)


def sign_up(tab: Tab, server: str, name: str) -> None:
    account(tab, server, name, name + " secret 1", "signup")


def account(tab: Tab, server: str, name: str, password: str, button: str) -> None:
    """Sign up (`button` "signup") or log in ("login") as `name` on the lobby page."""
    tab.goto(server + "/")
    tab.eval("document.getElementById('account').open = true; true")
    tab.eval(f"document.getElementById('account-name').value = {name!r}; "
             f"document.getElementById('account-password').value = {password!r}; true")
    tab.click("#" + button)
    tab.wait_for(f"document.getElementById('you') && "
                 f"document.getElementById('you').dataset.account === {name!r}")


def test_two_accounts_play_a_rated_game_from_their_browsers(
        server: str, chrome: Browser) -> None:
    with ExitStack() as stack:
        ann_b, bob_b = (stack.enter_context(chrome.person()) for _ in range(2))
        ann, bob = ann_b.tab(server + "/"), bob_b.tab(server + "/")
        for tab, name in ((ann, "Ann"), (bob, "Bob")):
            sign_up(tab, server, name)
            assert tab.eval("document.getElementById('name').readOnly") is True
            assert tab.axe() == []
        ann.eval("document.getElementById('rated').checked = true; "
                 "document.getElementById('color').value = 'white'; true")
        ann.click("#open")
        ann.wait_for("document.body.dataset.page === 'game' && "
                     "!document.getElementById('cancel').hidden")
        game_id = ann.eval("location.pathname.split('/').pop()")
        bob.goto(server + "/")
        link = bob.wait_for(f"(document.querySelector('#challenges a[href*=\"{game_id}\"]') "
                            "|| {}).href")
        bob.wait_for("document.querySelector('#challenges tbody').textContent.includes('rated')")
        bob.goto(link)
        bob.wait_for("!document.getElementById('join').hidden")
        bob.click("#take")
        bob.wait_for("document.body.dataset.color === 'red'")
        assert bob.eval("document.getElementById('takeback').hidden") is True  # rated
        for turn in range(7):
            tab, key = (ann, "0") if turn % 2 == 0 else (bob, "1")
            tab.wait_for(f"document.body.dataset.moves === '{turn}'")
            tab.key(key)
            tab.key("Enter")
        ann.wait_for("document.body.dataset.over === '1'")
        ann.goto(server + "/@/Ann")
        rating = ann.wait_for("document.getElementById('rating').textContent")
        assert rating.startswith("Rating 1662"), rating  # 1500/350 beating 1500/350
        doc = ann.eval("fetch('/api/players/Bob').then(r => r.json())")
        assert doc["name"] == "Bob" and round(doc["rating"]) == 1338 and doc["games"] == [game_id]
        for tab in (ann, bob):
            assert tab.errors() == []


FIRST_AWAY = ("(() => { const box = document.getElementById('away'); new MutationObserver(() => "
              "{ if (!box.hidden && window.firstAway === undefined) window.firstAway = "
              "[box.textContent, document.getElementById('claim').hidden]; }).observe(box, {attributes: true, childList: true, "
              "characterData: true, subtree: true}); return true; })()")
"""Keeps the first words the away box shows, and whether the claim button was
hidden then (read later, however late the test looks)."""


def test_the_one_who_stayed_claims_the_win_when_the_countdown_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chrome: Browser) -> None:
    # the server's own setting for how long a player must be away before the
    # other may claim (ServerOptions.claim_s, 15 s by default): 3 s here
    monkeypatch.setenv("CSL_GAME_HOME", str(tmp_path / "home"))
    with ServerThread(tmp_path, ServerOptions(claim_s=3.0)) as served, ExitStack() as stack:
        server = served.url
        alice_b, bob_b = (stack.enter_context(chrome.person()) for _ in range(2))
        alice, bob = alice_b.tab(server + "/"), bob_b.tab(server + "/")
        friend_game(alice, bob, server)
        alice.eval(FIRST_AWAY)
        bob.send("Page.navigate", {"url": "about:blank"})  # his page closes
        said, hidden = alice.wait_for("window.firstAway", timeout=10)
        assert said.startswith("Bob left the game") and "claim" not in said, said
        assert hidden is True
        said = alice.wait_for("!document.getElementById('claim').hidden && "
                              "document.getElementById('away').textContent", timeout=25)
        assert "You may claim the win now." in said
        alice.click("#claim")
        alice.wait_for("document.body.dataset.over === '1'")
        assert alice.eval("document.body.dataset.winner") == "white"
        assert alice.eval("document.getElementById('result').textContent") == \
            "White (Alice) won: Red (Bob) left the game and did not come back"
        assert alice.errors() == []


def tab_to(tab: Tab, element: str, most: int = 40) -> None:
    """Press Tab until the element with id `element` has the focus (as a keyboard user)."""
    for _ in range(most):
        if tab.eval(f"document.activeElement.id === {element!r}"):
            return
        tab.key("Tab")
    raise AssertionError(f"Tab never reached #{element}")


def test_a_draw_a_takeback_and_a_rematch_are_declined(server: str, chrome: Browser,
                                                      tmp_path: Path) -> None:
    """Bob declines, as lichess players do: Alice's draw with the keyboard (Tab
    to Decline, Space), her takeback with a click, and after the game her
    rematch; she is told each time, and may ask again."""
    with ExitStack() as stack:
        alice_b, bob_b = (stack.enter_context(chrome.person()) for _ in range(2))
        alice, bob = alice_b.tab(server + "/"), bob_b.tab(server + "/")
        friend_game(alice, bob, server)
        alice.click("#draw")
        bob.wait_for("document.getElementById('draw').textContent === 'Accept the draw' && "
                     "!document.getElementById('decline-draw').hidden")
        assert "Alice asks for a draw: accept or decline it." == \
            bob.eval("document.getElementById('offer').textContent")
        bob.screenshot(tmp_path / "decline-draw.png")
        assert bob.axe() == []  # the Decline button beside Accept
        tab_to(bob, "decline-draw")
        bob.key(" ")  # Space presses the button the focus is on
        alice.wait_for("document.body.dataset.declined === 'draw:red'")
        assert alice.eval("document.getElementById('offer').textContent") == \
            "Bob declined the draw. Ask again after the next move."
        assert alice.eval("document.getElementById('draw').textContent") == "Offer a draw"
        assert alice.eval("document.getElementById('draw').disabled") is True  # till a move
        bob.wait_for("document.getElementById('decline-draw').hidden && "
                     "document.getElementById('draw').textContent === 'Offer a draw'")
        assert bob.eval("document.body.dataset.moves") == "0"  # Space played no move

        alice.key("3")
        alice.key("Enter")
        bob.wait_for("document.body.dataset.moves === '1'")
        alice.click("#takeback")
        bob.wait_for("!document.getElementById('decline-takeback').hidden")
        bob.click("#decline-takeback")
        alice.wait_for("document.body.dataset.declined === 'takeback:red'")
        assert alice.eval("document.getElementById('offer').textContent") == \
            "Bob declined the takeback. Ask again after the next move."
        assert alice.eval("document.getElementById('draw').disabled") is False  # moved since
        assert alice.eval("document.body.dataset.moves") == "1"  # nothing went back

        alice.click("#draw")  # the game ends in a draw agreed, for the rematch
        bob.wait_for("document.getElementById('draw').textContent === 'Accept the draw'")
        bob.click("#draw")
        for tab in (alice, bob):
            tab.wait_for("document.body.dataset.over === '1'")
        alice.click("#rematch")
        bob.wait_for("!document.getElementById('decline-rematch').hidden")
        assert bob.axe() == []
        bob.click("#decline-rematch")
        alice.wait_for("document.body.dataset.declined === 'rematch:red'")
        assert alice.eval("document.getElementById('offer').textContent") == \
            "Bob declined the rematch."
        assert alice.eval("document.getElementById('rematch').textContent") == "Rematch"
        alice.click("#rematch")  # she may ask again
        bob.wait_for("document.getElementById('rematch').textContent === 'Accept the rematch'")
        for tab in (alice, bob):
            assert tab.errors() == []
