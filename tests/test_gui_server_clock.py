"""A game on a server in the window, as a lichess player plays it (issue 41),
with real events under the dummy driver against a server on loopback: a
challenge made with a clock shows both clocks in both windows, the side to
move's running, until it flags and loses on time; a draw is offered with a
key and accepted with a click; a takeback is asked with a click and accepted
with a key; a rematch swaps the colours; an opponent who left is shown with
the server's countdown, and the win is claimed when it runs out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from csl_game.engine import ForfeitReason
from csl_game.gui.app import App
from csl_game.gui.scenes.online_wait import OnlineWaitScene
from csl_game.gui.server_table import ServerTable
from csl_game.gui.style import palette
from csl_game.model.board import PColor, Winner
from csl_game.server import ServerOptions
from gui_events import DT, Apps, click, key
from server_thread import ServerThread
from test_gui_online import (
    board,
    moves_of,
    on_board,
    play_click,
    play_key,
    steps,
    window,
)
from test_gui_server import first_challenge, on_a_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with ServerThread(tmp_path, ServerOptions(claim_s=0.5)) as s:
        yield s


def pair(apps: Apps, server: ServerThread, clock: str = "") -> tuple[App, App]:
    """Alice's challenge (with `clock`), Bob takes its seat: (White's window, Red's)."""
    a = window(apps)
    alice = on_a_server(a, server.url, "Alice", clock=clock)
    steps([a], lambda: alice.game is not None)
    assert alice.game is not None
    b = window(apps)
    on_a_server(b, server.url, "Bob", code=alice.game.state.code)
    steps([a, b], on_board(a, b))
    return (a, b) if board(a).table.local is PColor.WHITE else (b, a)


def tool(app: App, name: str) -> pygame.Rect:
    tools = board(app).tools
    assert tools is not None and name in tools.buttons, f"no {name} button"
    return tools.buttons[name]


def label(app: App, name: str) -> str:
    """What the button says in full (its tooltip; a narrow bar shows it shorter)."""
    tools = board(app).tools
    assert tools is not None
    return next(text for tool_name, text, _, _ in tools.looks() if tool_name == name)


def shown(app: App) -> pygame.Surface:
    """The board screen as it draws itself now."""
    surface = pygame.Surface(app.size)
    board(app).draw(surface)
    return surface


def over(*apps: App) -> bool:
    return all(board(a).banner is not None for a in apps)


def test_a_clock_game_shows_both_clocks_and_a_flag_loses_on_time(apps: Apps,
                                                                 server: ServerThread) -> None:
    from csl_game.gui.game_clocks import clock_box, clock_text  # what draws the clocks

    white, red = pair(apps, server, "1s+0")
    for app in (white, red):
        table = board(app).table
        assert isinstance(table, ServerTable)
        assert table.clock_ms(PColor.RED) == 1000, "Red's clock waits at the base"
        assert table.running is PColor.WHITE
    tw = board(white).table
    assert isinstance(tw, ServerTable)
    steps([white, red], lambda: (tw.clock_ms(PColor.WHITE) or 0) < 900)  # it ticks here
    for app in (white, red):
        scene, surface = board(app), shown(app)
        for color in PColor:
            status = scene.layout.panels[color].status
            box = clock_box(scene.ctx.text, status, scene.layout.scale)
            area = surface.subsurface(box)
            colours = {area.get_at((x, y))[:3] for x in range(area.get_width())
                       for y in range(area.get_height())}
            # White's runs, under ten seconds: lit in the warning colour; Red's waits
            lit = palette().grade_blunder if color is PColor.WHITE else palette().toggle
            assert tuple(lit)[:3] in colours, f"{color}'s clock box, running or not"
            assert len(colours) > 4, f"{color}'s clock shows its time"
    steps([white, red], lambda: over(white, red), seconds=20)  # White never moves: flags
    for app, title in ((white, "You lose"), (red, "You win!")):
        scene = board(app)
        assert scene.banner is not None and scene.banner[0] == title
        assert scene.banner[1].endswith("clock ran out"), scene.banner
        result = scene.table.result
        assert result is not None and result.forfeit is ForfeitReason.TIMEOUT
        assert result.winner is Winner.RED
        table = scene.table
        assert isinstance(table, ServerTable)
        assert table.clock_ms(PColor.WHITE) == 0 and table.running is None
        assert clock_text(0) == "0:00.0"


def test_a_draw_is_offered_by_key_and_accepted_by_click(apps: Apps,
                                                        server: ServerThread) -> None:
    white, red = pair(apps, server)
    assert board(white).server is not None and board(white).table.clock is None  # type: ignore
    key(white, pygame.K_d)
    # each window hears the server's `offer` on its own connection, in its own time
    steps([white, red], lambda: label(red, "draw").startswith("Accept draw")
          and label(white, "draw").startswith("Draw offered"))
    assert board(red)._panel_state(PColor.WHITE).status == "Offers a draw"
    assert any("offers a draw" in line for line in red.log.lines)
    click(red, tool(red, "draw"))
    steps([white, red], lambda: over(white, red))
    for app in (white, red):
        result = board(app).table.result
        assert result is not None and result.winner is Winner.DRAW
        assert result.detail == "the players agreed a draw"
        assert board(app).banner == ("It's a draw", "The players agreed a draw")


def test_a_takeback_is_asked_by_click_and_accepted_by_key(apps: Apps,
                                                          server: ServerThread) -> None:
    white, red = pair(apps, server)
    steps([white, red], lambda: board(white).input_enabled)
    play_key(white, 3)
    steps([white, red], lambda: board(red).input_enabled and moves_of(white) == 1)
    play_click(red, 4)
    steps([white, red], lambda: moves_of(white) == moves_of(red) == 2
          and board(white).input_enabled)
    click(white, tool(white, "takeback"))  # White's move and Red's reply
    steps([white, red], lambda: label(red, "takeback").startswith("Accept takeback"))
    assert board(red)._panel_state(PColor.WHITE).status == "Asks takeback"
    key(red, pygame.K_u)
    steps([white, red], lambda: moves_of(white) == moves_of(red) == 0)
    for app in (white, red):
        assert not board(app).visual.landed, "the board shows the moves gone"
    steps([white, red], lambda: board(white).input_enabled)
    play_key(white, 2)  # and the game goes on
    steps([white, red], lambda: moves_of(white) == moves_of(red) == 1)


def test_a_rematch_swaps_the_colours(apps: Apps, server: ServerThread) -> None:
    white, red = pair(apps, server)
    names = [board(white).table.name(c) for c in PColor]
    steps([white, red], lambda: board(white).input_enabled)
    key(white, pygame.K_r)
    key(white, pygame.K_r)
    steps([white, red], lambda: over(white, red))
    assert board(red).banner[0] == "You win!"  # type: ignore[index]
    key(red, pygame.K_n)
    steps([white, red], lambda: label(white, "rematch").startswith("Accept rematch"))
    click(white, tool(white, "rematch"))
    steps([white, red], lambda: board(white).table.local is PColor.RED
          and board(red).table.local is PColor.WHITE)
    for app in (white, red):
        scene = board(app)
        assert scene.banner is None and scene.table.result is None
        assert [scene.table.name(c) for c in PColor] == names[::-1]
    steps([white, red], lambda: board(red).input_enabled)  # the old Red moves first now
    play_key(red, 3)
    steps([white, red], lambda: moves_of(white) == moves_of(red) == 1)


def test_an_opponent_who_left_is_counted_down_and_the_win_claimed(
        apps: Apps, server: ServerThread) -> None:
    white, red = pair(apps, server)
    board(red).table.close()  # Red's window goes (its connection ends)
    steps([white], lambda: board(white)._panel_state(PColor.RED).status.startswith("Left: "))
    steps([white], lambda: bool(tool(white, "claim").is_enabled))
    key(white, pygame.K_c)
    steps([white], lambda: over(white))
    result = board(white).table.result
    assert result is not None and result.winner is Winner.WHITE
    assert result.forfeit is ForfeitReason.DISCONNECTED
    assert board(white).banner[1].endswith("left the game, and you claimed the win")  # type: ignore


def test_the_lobby_shows_a_challenges_clock(apps: Apps, server: ServerThread) -> None:
    a = window(apps)
    alice = on_a_server(a, server.url, "Alice", clock="3+2")
    steps([a], lambda: alice.game is not None)
    assert [c["clock"] for c in server.hub.lobby()["challenges"]] == ["180+2"]
    _, offered = first_challenge(apps, a, server.url)
    assert offered.text.startswith("Alice 3+2 (you: "), offered.text


def test_the_waiting_screen_shows_the_challenge_its_code_and_its_clock(
        apps: Apps, server: ServerThread) -> None:
    """While a challenge waits in the lobby the window says what it waits for,
    the server and the code a friend may join with (once the server tells
    it), and the clock asked for; drawn, and Cancel centred with no Copy."""
    a = window(apps)
    alice = on_a_server(a, server.url, "Alice", clock="3+2")
    waiting = a.scenes.current
    assert isinstance(waiting, OnlineWaitScene)
    steps([a], lambda: alice.join_code != "")
    a.step(DT)  # the screen built again with the code, and drawn
    [challenge] = server.hub.lobby()["challenges"]
    assert alice.join_code == challenge["code"]
    assert waiting.lines == [("Server", server.url), ("Join code", challenge["code"])]
    screen = waiting.screen
    assert screen is not None and screen.title == "Seeking an opponent"
    assert screen.status.startswith("Waiting for someone to accept your challenge")
    assert "(clock 3+2)" in screen.note, screen.note
    code = waiting.values[1]
    drawn = {a.screen.get_at((x, code.centery))[:3] for x in range(code.left, code.right)}
    assert tuple(palette().highlight)[:3] in drawn, "the code is drawn, in the highlight"
    cancel = waiting.buttons["cancel"]
    assert cancel.text == "Cancel (Esc)"  # type: ignore[attr-defined]
    assert "copy" not in waiting.buttons  # no clipboard under the dummy driver
    assert abs(cancel.rect.centerx - code.centerx) <= 2, "Cancel alone is centred"  # type: ignore[attr-defined]


def tools_of(app: App) -> list[str]:
    tools = board(app).tools
    assert tools is not None
    return [name for name, _, _, _ in tools.looks()]


def enabled(app: App, name: str) -> bool:
    tools = board(app).tools
    assert tools is not None
    return next(on for tool_name, _, _, on in tools.looks() if tool_name == name)


def logged(app: App, words: str) -> bool:
    return any(words in line for line in app.log.lines)


def test_a_draw_a_takeback_and_a_rematch_are_declined(apps: Apps, server: ServerThread,
                                                      tmp_path: Path) -> None:
    """Red declines, as lichess players do: White's draw with X, her takeback
    with a click on Decline, and after the game her rematch; she is told each
    time, her offer no longer stands, and she may ask again."""
    white, red = pair(apps, server)
    who = board(white).table.name(PColor.RED)  # who declines (the colours are drawn)
    assert "decline" not in tools_of(red)  # nothing offered: nothing to decline
    key(white, pygame.K_d)
    steps([white, red], lambda: "decline" in tools_of(red))
    assert label(red, "decline") == "Decline draw" and tools_of(red)[:2] == ["draw", "decline"]
    red._draw(board(red), True)  # the whole window, its buttons too, to look at
    pygame.image.save(red.screen, str(tmp_path / "window-decline.png"))
    key(red, pygame.K_x)
    steps([white, red], lambda: logged(white, f"{who} declined the draw"))
    steps([white, red], lambda: label(white, "draw").startswith("Offer draw")
          and "decline" not in tools_of(red) and label(red, "draw").startswith("Offer draw"))
    assert logged(red, "You declined the draw")
    assert not enabled(white, "draw")  # not asked again before the next move
    key(white, pygame.K_d)
    assert logged(white, f"{who} declined it: ask again after the next move")
    assert board(red)._panel_state(PColor.WHITE).status != "Offers a draw"

    steps([white, red], lambda: board(white).input_enabled)
    play_key(white, 3)
    # White may ask once its own window has the move back from the server
    steps([white, red], lambda: moves_of(red) == moves_of(white) == 1
          and enabled(white, "takeback"))
    click(white, tool(white, "takeback"))
    steps([white, red], lambda: "decline" in tools_of(red))
    click(red, tool(red, "decline"))
    steps([white, red], lambda: logged(white, f"{who} declined the takeback"))
    assert moves_of(white) == moves_of(red) == 1  # nothing went back

    key(white, pygame.K_r)
    key(white, pygame.K_r)
    steps([white, red], lambda: over(white, red))
    key(white, pygame.K_n)
    steps([white, red], lambda: label(red, "rematch").startswith("Accept rematch"))
    assert label(red, "decline") == "Decline rematch"
    key(red, pygame.K_x)
    steps([white, red], lambda: logged(white, f"{who} declined the rematch"))
    steps([white, red], lambda: label(white, "rematch") == "Rematch"
          and "decline" not in tools_of(red))
    key(white, pygame.K_n)  # she may ask again; this time Red accepts
    steps([white, red], lambda: label(red, "rematch").startswith("Accept rematch"))
    key(red, pygame.K_n)
    steps([white, red], lambda: board(white).table.local is PColor.RED)


def test_f1_names_the_key_that_declines(apps: Apps, server: ServerThread) -> None:
    from csl_game.gui.scenes.menu import HelpOverlay

    white, _ = pair(apps, server)
    key(white, pygame.K_F1)
    overlay = white.overlay
    assert isinstance(overlay, HelpOverlay)
    assert "<b>X</b>: decline what the opponent offers or asks" in overlay.html


def test_a_draw_this_side_offered_and_saw_declined_is_no_draw_it_agreed() -> None:
    """A stand-in server that declines Alice's draw, then says a draw was
    agreed: her offer no longer counts, so the table refuses the draw."""
    from csl_game.server.messages import encode
    from test_gui_server_checks import MOVES, agreed_draw, seated

    table, link = seated(MOVES)
    table.offer("draw")
    assert link.sent[-1] == {"type": "draw", "game": "game0001"}
    link.say(encode("offer", game="game0001", what="draw", color="white"))
    link.say(encode("declined", game="game0001", what="draw", color="red"))
    assert table.poll() == ["You offer a draw; waiting for Bob's answer",
                            "Bob declined the draw: ask again after the next move"]
    assert table.offers == {} and not table.can_offer("draw") and table.declined == {"draw"}
    link.say(agreed_draw(MOVES))
    table.poll()
    assert table.result is None
    assert table.failed is not None and "neither offered nor accepted" in table.failed


def test_the_log_says_the_games_clock_as_3_plus_2(apps: Apps, server: ServerThread) -> None:
    white, red = pair(apps, server, "3+2")
    for app in (white, red):
        table = board(app).table
        assert isinstance(table, ServerTable) and table.control is not None
        assert table.control.tc == "180+2"
        assert any(line.startswith("The server's game: ") and "; clock 3+2; you play" in line
                   for line in app.log.lines), app.log.lines


def test_a_game_in_progress_says_its_clock_and_the_time_left() -> None:
    """Back in a game in progress (a reconnect): its time control and each
    side's time left, from the server's `game` message."""
    from csl_game.model.board import PShape
    from csl_game.online.protocol import config_json
    from csl_game.server.messages import encode
    from test_gui_server_checks import CONFIG, StandInLink

    link = StandInLink()
    table = ServerTable("http://127.0.0.1:1", "Alice", None,
                        make=lambda *_: link)  # type: ignore[arg-type,return-value]
    moves = [{"col": 3, "shape": PShape.ROUND.name.lower(), "ms": 19000.0}]
    link.say(encode("game", game="game0001", code="code0001", color="white", white="Alice",
                    red="Bob", settings=config_json(CONFIG), moves=moves, kind="open",
                    clock={"white": 163000, "red": 175500},
                    timecontrol={"base": 180, "increment": 2}))
    said = [line for line in table.poll() if isinstance(line, str)]
    assert said[0].endswith("; clock 3+2 (White 2:43, Red 2:55 left); you play White"), said
    link.say(encode("game", game="game0001", code="code0001", color="white", white="Alice",
                    red="Bob", settings=config_json(CONFIG), moves=moves, kind="open",
                    clock={"white": 163000, "red": 170000},
                    timecontrol={"base": 180, "increment": 2}))
    assert "Connected again; clock 3+2 (White 2:43, Red 2:50 left)" in table.poll()
