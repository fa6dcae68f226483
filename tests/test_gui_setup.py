"""The setup screen through real events: players, settings, mode, files, Start."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from pygame_gui.elements import UIScrollingContainer

from csl_game.gui.app import App
from csl_game.gui.scenes.info import PreMatchScene
from csl_game.gui.scenes.setup import SetupScene
from csl_game.services.presets import level
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.setup_file import load_config
from csl_game.thinker.api import MatchConfig
from gui_events import Apps, choose_option, click, type_into

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")

MakeSetup = Callable[..., App]


@pytest.fixture
def make_setup(apps: Apps) -> MakeSetup:
    def make(*ais: AIEntry, size: tuple[int, int] = (1280, 800)) -> App:
        config = MatchConfig(rows=5, cols=5, win_sequence=4, round_pieces=7, square_pieces=7,
                             time_limit_ms=2000, min_move_time_ms=0)
        return apps.open(PlayOptions(ais=ais, match=config, window_size=size, in_process=True,
                                     thinker_paths=(FAKES,), last_move_animation_s=0.0,
                                     show_setup=True))

    return make


def setup(app: App) -> SetupScene:
    current = app.scenes.current
    assert isinstance(current, SetupScene)
    return current


def mode(app: App) -> str:
    label = setup(app).mode_label
    assert label is not None
    return label.text


def message(app: App) -> str:
    return setup(app).message_text


def start_enabled(app: App) -> bool:
    return setup(app).buttons["start"].is_enabled


def row(app: App, index: int):  # type: ignore[no-untyped-def]
    rows = setup(app).rows
    assert rows is not None
    return rows.widgets[index]


def add_player(app: App) -> None:
    rows = setup(app).rows
    assert rows is not None and rows.add_button is not None
    click(app, rows.add_button)


def test_the_mode_follows_the_active_players(make_setup: MakeSetup) -> None:
    app = make_setup()
    assert mode(app) == "Mode: Human vs human" and start_enabled(app)
    expected = ["Human vs AI", "AI vs AI", "Tournament of 3 AIs (6 matches)",
                "Tournament of 4 AIs (12 matches)"]
    for text in expected:
        add_player(app)
        assert mode(app) == f"Mode: {text}"
    assert [(p.thinker, p.params) for p in setup(app).players] == [("negamax", "depth=3")] * 4
    assert row(app, 0).thinker.selected_option[0] == "Medium", "shown as its level"
    click(app, row(app, 1).active)
    assert mode(app) == "Mode: Tournament of 3 AIs (6 matches)"
    assert not setup(app).players[1].active
    click(app, row(app, 0).active)
    assert mode(app) == "Mode: AI vs AI"
    click(app, row(app, 3).remove)
    assert mode(app) == "Mode: Human vs AI" and len(setup(app).players) == 3
    click(app, row(app, 1).active)
    assert mode(app) == "Mode: AI vs AI"


def test_thinker_and_parameters_are_chosen_per_player(make_setup: MakeSetup) -> None:
    app = make_setup(AIEntry("random"))
    choose_option(app, row(app, 0).thinker, "minimax")
    type_into(app, row(app, 0).params, "2")
    assert setup(app).players == [AIEntry("minimax", "2")]
    assert start_enabled(app)


def test_a_levels_parameters_are_its_own_not_shown_raw(make_setup: MakeSetup) -> None:
    """Medium's row shows no raw 'depth=3' but says, in brackets (a placeholder
    looks like text here), that the parameters are its own;
    what is typed replaces them, and erasing it gives Medium back (issue 43,
    item 8)."""
    medium = level("medium")
    app = make_setup(AIEntry(medium.thinker, medium.params), AIEntry("random"))
    params = row(app, 0).params
    assert params.get_text() == "" and params.placeholder_text == "(Medium's own)"
    assert row(app, 1).params.placeholder_text in ("", None), "a thinker's are its own to type"
    type_into(app, params, "depth=4")
    assert setup(app).players[0] == AIEntry(medium.thinker, "depth=4")
    type_into(app, params, "")
    assert setup(app).players[0] == AIEntry(medium.thinker, medium.params)


def test_bad_parameters_are_refused_in_place(make_setup: MakeSetup) -> None:
    app = make_setup(AIEntry("negamax"), AIEntry("random"))
    type_into(app, row(app, 0).params, "depth=x")
    assert not start_enabled(app)
    assert message(app).startswith("AI player 1: negamax does not accept 'depth=x'")
    type_into(app, row(app, 0).params, "depth=2")
    assert start_enabled(app) and message(app) == ""


@pytest.mark.parametrize("key, text, problem", [
    ("rows", "0", "Rows: must be a whole number from 1 to 40, got 0"),
    ("cols", "", "Columns: must be a whole number from 1 to 40, got ''"),
    ("win_sequence", "9", "Win sequence: 9 in a row cannot fit on a 5x5 board"),
    ("time_limit_ms", "1.5", "Time limit per move (ms): must be a whole number"),
    ("unblocked_screen_s", "-1", "Screen time when not waiting (s): must be a number from 0"),
    ("points_per_draw", "-", "Points per draw: must be a whole number"),
    ("square_pieces", "0", None),
])
def test_bad_values_are_refused_in_place(make_setup: MakeSetup, key: str, text: str,
                                         problem: str | None) -> None:
    app = make_setup(AIEntry("random"))
    form = setup(app).form
    assert form is not None
    entry = form.controls[key]
    good = entry.get_text()  # type: ignore[union-attr]
    type_into(app, entry, text)  # type: ignore[arg-type]
    if problem is None:  # 7 round pieces are left: still fine
        assert start_enabled(app)
        return
    assert message(app).startswith(problem)
    assert not start_enabled(app)
    click(app, setup(app).buttons["start"])
    assert isinstance(app.scenes.current, SetupScene), "Start does nothing"
    type_into(app, entry, good)  # type: ignore[arg-type]
    assert start_enabled(app) and message(app) == ""


def test_letters_cannot_be_typed_into_numbers(make_setup: MakeSetup) -> None:
    app = make_setup()
    form = setup(app).form
    assert form is not None
    type_into(app, form.controls["rows"], "x7y")  # type: ignore[arg-type]
    assert setup(app).entries["rows"] == "7"


def test_check_boxes_set_the_waiting_screens(make_setup: MakeSetup) -> None:
    app = make_setup(AIEntry("random"), AIEntry("random"), AIEntry("random"))
    form = setup(app).form
    assert form is not None
    click(app, form.controls["wait_after_match"])
    click(app, setup(app).buttons["start"])
    assert isinstance(app.scenes.current, PreMatchScene)
    assert not app.options.wait_after_match and app.options.wait_before_match
    assert app.options.match.rows == 5 and len(app.options.active_ais) == 3


def test_save_and_load_a_config_file(make_setup: MakeSetup, tmp_path: Path) -> None:
    app = make_setup(AIEntry("random"))
    add_player(app)
    choose_option(app, row(app, 1).thinker, "sequential")
    click(app, row(app, 0).active)
    form = setup(app).form
    assert form is not None
    type_into(app, form.controls["rows"], "7")  # type: ignore[arg-type]
    type_into(app, form.controls["points_per_draw"], "2")  # type: ignore[arg-type]
    path = tmp_path / "my setup.toml"
    entry = setup(app).path_entry
    assert entry is not None
    type_into(app, entry, str(path))
    click(app, setup(app).buttons["save"])
    assert message(app) == f"Saved the setup to {path}"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["rows"] == 7 and data["points_per_draw"] == 2
    assert data["players"] == [{"thinker": "random", "params": "", "active": False},
                               {"thinker": "sequential", "params": "", "active": True}]
    saved = load_config(path, PlayOptions(thinker_paths=(FAKES,)))
    assert saved.match.rows == 7 and saved.points.draw == 2

    type_into(app, form.controls["rows"], "6")  # type: ignore[arg-type]
    click(app, row(app, 1).remove)
    click(app, setup(app).buttons["load"])
    assert message(app) == f"Loaded the setup from {path}"
    assert setup(app).entries["rows"] == "7"
    assert [(p.thinker, p.active) for p in setup(app).players] == [("random", False),
                                                                   ("sequential", True)]
    assert mode(app) == "Mode: Human vs AI"


def test_a_bad_file_is_named_in_place(make_setup: MakeSetup, tmp_path: Path) -> None:
    app = make_setup()
    path = tmp_path / "bad.toml"
    path.write_text('rows = 6\ncols = "seven"\n', encoding="utf-8")
    entry = setup(app).path_entry
    assert entry is not None
    type_into(app, entry, str(path))
    click(app, setup(app).buttons["load"])
    assert message(app) == (f"config file {path}: key 'cols': must be a whole number "
                            "from 1 to 40, got 'seven'")
    assert isinstance(app.scenes.current, SetupScene)


@pytest.mark.parametrize("size", [(800, 600), (1280, 800), (1920, 1080)])
def test_every_widget_fits_the_window(make_setup: MakeSetup, size: tuple[int, int]) -> None:
    app = make_setup(*(AIEntry("random") for _ in range(30)), size=size)
    scene = setup(app)
    screen = app.screen.get_rect()
    rows = scene.rows
    assert rows is not None and scene.root is not None
    assert 0 < len(rows.widgets) < 30, "long lists are paged"
    for widget in scene.layer.handled:
        scroller = _scroller_of(widget)
        if scroller is None:
            assert screen.contains(widget.rect), widget
        else:  # reachable by scrolling: inside the scrolled area, which fits the window
            assert screen.contains(scroller.rect), scroller
            area = scroller.scrollable_container.rect
            assert area.contains(widget.rect), widget


def _scroller_of(widget: object) -> UIScrollingContainer | None:
    """The scrolling container `widget` sits in, if any."""
    manager = widget.ui_manager
    scrollers = [s for s in manager.get_sprite_group().sprites()
                 if isinstance(s, UIScrollingContainer)]
    container = getattr(widget, "ui_container", None)
    while container is not None:
        for scroller in scrollers:
            if container is scroller.scrollable_container:
                return scroller
        nxt = getattr(container, "ui_container", None)
        container = None if nxt is container else nxt
    return None
