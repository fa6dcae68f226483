"""Play online in the window, through real key and mouse events under the dummy
driver, on the loopback network: Home -> Play online -> Host with the keyboard
reaches the waiting screen and its code is drawn; a hosting window and a
joining window play a whole game to the same result (the host's keys, the
joiner's clicks, judged by the host; the result written to the results file);
a dropped joiner pauses the host's board, and a joiner who comes back goes on
with the game; a host that waits out the time-out may claim the game; a lost
connection on the joiner's end reconnects by itself; a spectator follows."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from csl_game.engine import ThreadRunner
from csl_game.gui.app import App
from csl_game.gui.online_table import Action, HostTable, JoinedTable
from csl_game.gui.scenes import online as online_scene
from csl_game.gui.scenes.home import HomeScene
from csl_game.gui.scenes.online import OnlineScene
from csl_game.gui.scenes.online_board import OnlineBoardScene
from csl_game.gui.scenes.online_wait import OnlineWaitScene
from csl_game.gui.style import palette
from csl_game.gui.widgets import Metrics
from csl_game.model.board import PColor
from csl_game.online.door import HostLimits
from csl_game.online.host import Host
from csl_game.services.settings import PlayOptions
from gui_events import DT, Apps, click, click_at, key, post

SECONDS = 10.0


def window(apps: Apps, results: str = "", size: tuple[int, int] = (800, 600)) -> App:
    return apps.open(PlayOptions(show_home=True, window_size=size, in_process=True,
                                 last_move_animation_s=0.0, results_file=results),
                     runner_factory=ThreadRunner)


def steps(apps: list[App], done: Callable[[], bool], seconds: float = SECONDS) -> None:
    """Step every window until `done()`, at most `seconds` of real time."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "the condition was not met in time"
        for app in apps:
            app.step(DT)
        time.sleep(0.002)


def type_text(app: App, text: str) -> None:
    """Replace the focused entry's text: Ctrl+A, Backspace, then the characters."""
    key(app, pygame.K_a, pygame.KMOD_CTRL)
    key(app, pygame.K_BACKSPACE)
    for char in text:
        post(pygame.TEXTINPUT, text=char)
    app.step(DT)


def picker(app: App) -> OnlineScene:
    key(app, pygame.K_5, frames=2)  # Play online is the fifth choice
    scene = app.scenes.current
    assert isinstance(scene, OnlineScene)
    return scene


def host(app: App, name: str = "Alice") -> Host:
    """Host on the loopback network with the keyboard alone: Down to each entry, type, Enter."""
    scene = picker(app)
    assert scene.focus.key == "mode.host", "a first visit starts on Host"
    key(app, pygame.K_DOWN)
    assert scene.focus.key == "port"
    type_text(app, "127.0.0.1:0")
    for _ in range(4):  # past the code (left empty: made up), the colour, who plays
        key(app, pygame.K_DOWN)
    assert scene.focus.key == "name"
    type_text(app, name)
    key(app, pygame.K_RETURN, frames=2)
    wait = app.scenes.current
    assert isinstance(wait, OnlineWaitScene), getattr(wait, "error", "")
    assert isinstance(wait.table, HostTable)
    return wait.table.host


def join(app: App, host_: Host, name: str = "Bob", mode: str = "join",
         code: str | None = None) -> None:
    """Join (or watch) with the mouse and typing."""
    scene = picker(app)
    click(app, scene.widgets[f"mode.{mode}"])
    scene = app.scenes.current  # type: ignore[assignment]
    assert isinstance(scene, OnlineScene) and scene.mode == mode
    entries = {"address": f"127.0.0.1:{host_.port}", "code": code or host_.code, "name": name}
    for field, text in entries.items():
        if field in scene.widgets:
            click(app, scene.widgets[field], frames=1)
            type_text(app, text)
    click(app, scene.widgets["go"])


def leave(app: App) -> None:
    """The window's game ends as a closed window's would (its connection closes)."""
    app.scenes.switch(None)


def board(app: App) -> OnlineBoardScene:
    scene = app.scenes.current
    assert isinstance(scene, OnlineBoardScene), f"{type(scene).__name__} is shown"
    return scene


def on_board(*apps: App) -> Callable[[], bool]:
    return lambda: all(isinstance(a.scenes.current, OnlineBoardScene) for a in apps)


def play_key(app: App, col: int) -> None:
    key(app, pygame.K_1 + col)  # column `col` (from 0) by its number, from 1
    key(app, pygame.K_RETURN)


def play_click(app: App, col: int) -> None:
    click_at(app, board(app).layout.arrows[col].center, frames=1)


def moves_of(app: App) -> int:
    return board(app).table.board.move_count


def drawn(surface: pygame.Surface, rect: pygame.Rect) -> int:
    """How many different colours `rect` shows (a blank area shows a few)."""
    area = surface.subsurface(rect.clip(surface.get_rect()))
    return len({area.get_at((x, y))[:3] for x in range(0, area.get_width(), 2)
                for y in range(0, area.get_height(), 2)})


# ----------------------------------------------------------------- hosting
def test_home_to_host_with_the_keyboard_shows_the_code(apps: Apps) -> None:
    app = window(apps)
    assert isinstance(app.scenes.current, HomeScene)
    host_ = host(app)
    wait = app.scenes.current
    assert isinstance(wait, OnlineWaitScene)
    assert wait.lines == [("Address", f"127.0.0.1:{host_.port}"), ("Join code", host_.code)]
    assert len(host_.code) == 8
    app.step(DT)
    code_rect = wait.values[1]
    assert code_rect.colliderect(pygame.Rect(0, 0, *app.size))
    assert drawn(app.screen, code_rect) > 10, "the code is drawn"
    assert app.ctx.user.preferences().online_port == "127.0.0.1:0", "remembered"
    assert wait.focus.key != "cancel", "Enter never cancels the invitation by surprise"
    key(app, pygame.K_RETURN, frames=2)
    assert app.scenes.current is wait
    key(app, pygame.K_ESCAPE, frames=2)
    again = app.scenes.current
    assert isinstance(again, OnlineScene), "Esc cancels back to the picker"
    assert again.focus.key == "mode.host"
    key(app, pygame.K_RETURN, frames=2)  # Enter on the mode chosen hosts again, as remembered
    assert isinstance(app.scenes.current, OnlineWaitScene)


def test_the_online_picker_fits_and_remembers(apps: Apps) -> None:
    for size in [(800, 600), (1920, 1080)]:
        app = window(apps, size=size)
        scene = picker(app)
        for mode in ("host", "join", "watch"):
            click(app, scene.widgets[f"mode.{mode}"])
            scene = app.scenes.current  # type: ignore[assignment]
            screen = pygame.Rect(0, 0, *size)
            rects = [pygame.Rect(w.rect) for w in scene.widgets.values()]
            assert all(screen.contains(r) for r in rects), f"{mode} fits {size}"
            assert not any(a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    scene.values["address"] = "nowhere"
    scene.go()
    assert "HOST:PORT" in scene.error, "a bad address is said, on the picker"


def _brightest(app: App, field: str) -> pygame.Color:
    """The brightest colour drawn inside an entry of the picker (its text's)."""
    for _ in range(2):
        app.step(DT)
    rect = pygame.Rect(app.scenes.current.widgets[field].rect).inflate(-8, -8)  # type: ignore[attr-defined]
    shot = app.screen
    return max((shot.get_at((x, y)) for x in range(rect.x, rect.right)
                for y in range(rect.y, rect.bottom)), key=lambda c: c.r + c.g + c.b)


def test_an_empty_fields_hint_is_dim_and_what_is_typed_is_not(apps: Apps) -> None:
    """The picker's hints ('leave empty: one is made up') were drawn as text
    typed is, and could be taken for a value."""
    app = window(apps)
    scene = picker(app)  # Host: the join code's field is empty, its hint shown
    dim = palette().text_dim

    def near(c: pygame.Color, to: pygame.Color) -> bool:
        return all(abs(a - b) <= 12 for a, b in zip((c.r, c.g, c.b), (to.r, to.g, to.b)))
    assert near(_brightest(app, "host_code"), dim)
    click(app, scene.widgets["host_code"])
    type_text(app, "K7QM")

    def bright(c: pygame.Color) -> bool:
        return c.r + c.g + c.b > dim.r + dim.g + dim.b + 120
    assert bright(_brightest(app, "host_code"))
    click(app, app.scenes.current.widgets["port"])  # type: ignore[attr-defined]
    assert bright(_brightest(app, "host_code")), "left, the text keeps its colour"
    assert app.scenes.current.values["host_code"] == "K7QM"  # type: ignore[attr-defined]
    click(app, app.scenes.current.widgets["host_code"])  # type: ignore[attr-defined]
    type_text(app, "")
    click(app, app.scenes.current.widgets["port"])  # type: ignore[attr-defined]
    assert near(_brightest(app, "host_code"), dim), "emptied and left: the hint again"


# ----------------------------------------------------------------- a whole game
def test_two_windows_play_a_whole_game_to_the_same_result(apps: Apps, tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    a = window(apps, str(results))
    host_ = host(a)
    b = window(apps)
    join(b, host_)
    steps([a, b], on_board(a, b))
    ha, jb = board(a), board(b)
    assert isinstance(jb.table, JoinedTable) and jb.table.local is PColor.RED
    assert [ha.table.name(c) for c in PColor] == [jb.table.name(c) for c in PColor] \
        == ["Alice", "Bob"]
    assert ha.table.kind(PColor.RED) == "Your friend" and jb.table.kind(PColor.WHITE) == \
        "Your friend"
    for ply, col in enumerate([3, 3, 4, 4, 5, 5, 6]):
        mover = a if ply % 2 == 0 else b
        steps([a, b], lambda m=mover: board(m).input_enabled)  # type: ignore[misc]
        assert not board(b if mover is a else a).input_enabled, "one side moves at a time"
        (play_key if mover is a else play_click)(mover, col)
        steps([a, b], lambda p=ply: moves_of(a) == moves_of(b) == p + 1)  # type: ignore[misc]
    steps([a, b], lambda: ha.banner is not None and jb.banner is not None)
    assert ha.banner[0] == "You win!" and jb.banner[0] == "You lose"  # type: ignore[index]
    ra, rb = ha.table.result, jb.table.result
    assert ra is not None and rb is not None
    assert (ra.winner, ra.solution, [m.move for m in ra.moves]) == \
        (rb.winner, rb.solution, [m.move for m in rb.moves])
    steps([a, b], lambda: Action.HOME in jb.buttons.buttons)
    record = json.loads(results.read_text().splitlines()[-1])
    assert record["winner"] == "white" and record["red"]["thinker"] == "remote"
    click(b, jb.buttons.buttons[Action.HOME])
    assert isinstance(b.scenes.current, HomeScene)


def test_a_dropped_joiner_pauses_the_host_and_comes_back(apps: Apps,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setattr(online_scene, "HOST_LIMITS", HostLimits(reconnect_timeout=0.5))
    a = window(apps)
    host_ = host(a)
    b = window(apps)
    join(b, host_)
    steps([a, b], on_board(a, b))
    steps([a, b], lambda: board(a).input_enabled)
    play_key(a, 2)
    steps([a, b], lambda: moves_of(b) == 1)
    leave(b)  # the joiner's window closes mid-game
    steps([a], lambda: host_.paused)
    ha = board(a)
    a.step(DT)
    notice = ha.shown_notice
    assert notice is not None and notice.title == "Waiting for Bob to reconnect"
    assert not ha.input_enabled
    banner = ha.view.banner_rect(ha.visual, ha.buttons.room(Metrics(a.size),
                                                          notice.actions), notice.detail)
    assert drawn(a.screen, banner) > 10, "the notice is drawn over the board"
    steps([a], lambda: Action.CLAIM in ha.buttons.buttons)  # after the time-out
    assert Action.KEEP_WAITING in ha.buttons.buttons
    click(a, ha.buttons.buttons[Action.KEEP_WAITING])
    assert Action.CLAIM not in ha.buttons.buttons, "keep waiting: the offer waits"
    c = window(apps)
    join(c, host_)  # the same code again: back in the seat
    steps([a, c], on_board(a, c))
    steps([a, c], lambda: board(c).input_enabled)
    assert moves_of(c) == 1 and ha.shown_notice is None
    play_click(c, 2)
    steps([a, c], lambda: moves_of(a) == 2)


def test_a_host_may_claim_a_game_left_for_good(apps: Apps,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(online_scene, "HOST_LIMITS", HostLimits(reconnect_timeout=0.3))
    a = window(apps)
    host_ = host(a)
    b = window(apps)
    join(b, host_)
    steps([a, b], on_board(a, b))
    leave(b)
    ha = board(a)
    steps([a], lambda: Action.CLAIM in ha.buttons.buttons)
    click(a, ha.buttons.buttons[Action.CLAIM])
    steps([a], lambda: ha.banner is not None)
    assert ha.banner[0] == "You win!" and "left the game" in " ".join(a.log.lines)  # type: ignore[index]


def test_a_lost_connection_reconnects_by_itself(apps: Apps) -> None:
    a = window(apps)
    host_ = host(a)
    b = window(apps)
    join(b, host_)
    steps([a, b], on_board(a, b))
    jb = board(b)
    assert host_.seat is not None
    seated = host_.connection(host_.seat.peer)
    assert seated is not None
    seated.close()  # the network drops the joiner's connection
    steps([a, b], lambda: jb.table.notice is not None)
    assert jb.table.notice.title.startswith("Connection lost")  # type: ignore[union-attr]
    b.step(DT)
    assert Action.RECONNECT in jb.buttons.buttons
    steps([a, b], lambda: jb.table.notice is None, seconds=15)  # retried once a second
    steps([a, b], lambda: board(a).input_enabled)
    play_key(a, 1)
    steps([a, b], lambda: moves_of(b) == 1)


def test_a_wrong_code_is_said_on_the_picker(apps: Apps) -> None:
    a = window(apps)
    host_ = host(a)
    b = window(apps)
    join(b, host_, code="WRONGCODE")
    steps([a, b], lambda: isinstance(b.scenes.current, OnlineScene))
    assert "wrong join code" in b.scenes.current.error  # type: ignore[union-attr]


def test_a_spectator_follows_the_game(apps: Apps) -> None:
    a = window(apps)
    host_ = host(a)
    b = window(apps)
    join(b, host_)
    steps([a, b], on_board(a, b))
    for ply, col in enumerate([0, 6]):
        mover = a if ply % 2 == 0 else b
        steps([a, b], lambda m=mover: board(m).input_enabled)  # type: ignore[misc]
        play_key(mover, col)
        steps([a, b], lambda p=ply: moves_of(a) == moves_of(b) == p + 1)  # type: ignore[misc]
    c = window(apps)
    join(c, host_, mode="watch")
    steps([a, b, c], on_board(a, b, c))
    sc = board(c)
    assert sc.table.local is None and moves_of(c) == 2
    assert sc.visual.landed, "the moves before it came are shown"
    steps([a, b, c], lambda: board(a).input_enabled)
    play_key(a, 1)
    steps([a, b, c], lambda: moves_of(c) == 3)
    play_key(c, 3)
    c.step(DT)
    assert moves_of(a) == 3 and not sc.input_enabled, "a spectator cannot move"
    assert sc.table.kind(PColor.WHITE) == "Human"
