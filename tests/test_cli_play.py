"""`csl-game play`: --config, overrides by --ai and the board flags, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import csl_game.gui
from csl_game import sandbox
from csl_game.cli import main
from csl_game.services.settings import AIEntry, PlayOptions

FAKES = str(Path(__file__).parent / "fakes")


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[PlayOptions]:
    """The options each window would open with (no window opens)."""
    seen: list[PlayOptions] = []

    def fake_run_gui(options: PlayOptions) -> int:
        seen.append(options)
        return 0

    monkeypatch.setattr(csl_game.gui, "run_gui", fake_run_gui)
    return seen


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "setup.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


CONFIG = ('rows = 5\ncols = 8\ntime_limit_ms = 900\npoints_per_win = 2\n'
          'wait_before_match = false\n'
          '[[players]]\nthinker = "minimax"\nparams = "2"\n'
          '[[players]]\nthinker = "random"\nactive = false\n')


@pytest.mark.unit
def test_no_flag_opens_home_and_settings_alone_the_setup_screen(
        opened: list[PlayOptions]) -> None:
    assert main([]) == 0 and main(["play", "-r", "5"]) == 0 and main(["play"]) == 0
    assert opened[0].show_home and opened[0].ais == ()
    assert opened[2].show_home and opened[2].ais == ()
    assert not opened[1].show_home and opened[1].show_setup and opened[1].match.rows == 5
    assert opened[0].match.time_limit_ms == 500 and opened[0].match.min_move_time_ms == 250


@pytest.mark.parametrize("args", [["--ai", "hard"], ["--level", "easy"], ["-c", "9"],
                                  ["--time-limit", "300"], ["--auto"], ["--workers", "2"]])
def test_any_flag_that_says_what_to_play_skips_home(opened: list[PlayOptions],
                                                    args: list[str]) -> None:
    assert main(["play", *args, "--in-process"]) == 0
    assert not opened[0].show_home


@pytest.mark.unit
def test_thinker_paths_alone_still_open_home(opened: list[PlayOptions],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Thinkers' paths: the sandbox's note comes first; its check (a process) is faked
    monkeypatch.setattr(sandbox, "_status", sandbox.SandboxStatus(True))
    assert main(["play", "--thinkers", FAKES]) == 0
    assert opened[0].show_home and opened[0].thinker_paths == (FAKES,)


def test_a_config_file_gives_every_setting_and_skips_setup(
        opened: list[PlayOptions], tmp_path: Path) -> None:
    assert main(["play", "--config", write(tmp_path, CONFIG), "--auto"]) == 0
    options = opened[0]
    assert not options.show_setup and options.auto
    assert (options.match.rows, options.match.cols, options.match.time_limit_ms) == (5, 8, 900)
    assert options.points.win == 2 and not options.wait_before_match
    assert options.ais == (AIEntry("minimax", "2"), AIEntry("random", "", False))
    assert len(options.active_ais) == 1


def test_ai_and_board_flags_override_the_file(opened: list[PlayOptions],
                                              tmp_path: Path) -> None:
    code = main(["play", "--config", write(tmp_path, CONFIG), "--ai", "sequential",
                 "--ai", "random 3", "-c", "6", "-t", "100", "--in-process"])
    assert code == 0
    options = opened[0]
    assert options.ais == (AIEntry("sequential"), AIEntry("random", "3"))
    assert (options.match.rows, options.match.cols, options.match.time_limit_ms) == (5, 6, 100)
    assert options.points.win == 2 and options.in_process and not options.show_setup


@pytest.mark.parametrize("args, text, message", [
    (["--config", "{missing}"], None, "cannot read config file"),
    (["--config", "{file}"], 'rows = "x"\n', "config file {file}: key 'rows': must be a whole"),
    (["--config", "{file}"], "rows = [\n", "config file {file} is not valid TOML"),
    (["--config", "{file}"], '[[players]]\nthinker = "nosuch"\n',
     "config file {file}: key 'players[1].thinker': unknown thinker 'nosuch'"),
    (["--config", "{file}", "-w", "9"], "rows = 5\ncols = 5\n",
     "-w/--win-sequence: 9 in a row cannot fit on a 5x5 board"),
    (["-r", "0"], None, "-r/--rows: must be a whole number from 1 to 40, got 0"),
    (["-t", "0"], None, "-t/--time-limit: must be a whole number from 1 to 3600000, got 0"),
    (["--ai", "negamax depth=x"], None,
     "--ai 'negamax depth=x': negamax does not accept 'depth=x'"),
    (["--level", "insane"], None, "argument --level: invalid choice: 'insane'"),
    (["--ai", "nosuch"], None, "--ai 'nosuch': unknown thinker 'nosuch'"),
    (["--config"], None, "argument --config: expected one argument"),
])
def test_bad_input_is_one_line_and_exit_2(opened: list[PlayOptions], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          args: list[str], text: str | None,
                                          message: str) -> None:
    file = write(tmp_path, text) if text is not None else ""
    names = {"file": file, "missing": str(tmp_path / "missing.toml")}
    argv = ["play", *(a.format(**names) for a in args), "--thinkers", FAKES]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"csl-game: error: {message.format(**names)}")
    assert err.count("\n") == 1 and not opened


@pytest.mark.parametrize("args, ais", [
    (["--level", "hard"], (AIEntry("negamax", ""),)),
    (["--level", "Easy"], (AIEntry("minimax", "1"),)),
    (["--ai", "medium"], (AIEntry("negamax", "depth=3"),)),
    (["--ai", "hard", "--ai", "easy"], (AIEntry("negamax", ""), AIEntry("minimax", "1"))),
])
def test_levels_by_name(opened: list[PlayOptions], args: list[str],
                        ais: tuple[AIEntry, ...]) -> None:
    assert main(["play", *args, "--in-process"]) == 0
    assert opened[0].ais == ais and not opened[0].show_setup


def test_the_clock_comes_from_the_file_and_the_flags_override_it(
        opened: list[PlayOptions], tmp_path: Path) -> None:
    assert main(["play", "--ai", "sequential"]) == 0
    assert (opened[0].match.clock, opened[0].match.time_margin_ms) == ("cpu", 0)
    config = write(tmp_path, 'clock = "wall"\ntime_margin_ms = 30\n' + CONFIG)
    assert main(["play", "--config", config, "--auto"]) == 0
    assert (opened[1].match.clock, opened[1].match.time_margin_ms) == ("wall", 30)
    assert main(["play", "--config", config, "--clock", "cpu", "--time-margin", "5",
                 "--auto"]) == 0
    assert (opened[2].match.clock, opened[2].match.time_margin_ms) == ("cpu", 5)
    assert main(["play", "--clock", "wall"]) == 0  # a setting alone: the setup screen
    assert opened[3].show_setup and not opened[3].show_home
    assert opened[3].match.clock == "wall"


@pytest.mark.unit
@pytest.mark.parametrize("args, text, message", [
    (["--clock", "atomic"], None, "argument --clock: invalid choice: 'atomic'"),
    (["--time-margin", "-1"], None,
     "--time-margin: must be a whole number from 0 to 60000, got -1"),
    (["--config", "{file}"], 'clock = "sundial"\n',
     "config file {file}: key 'clock': must be cpu or wall, got 'sundial'"),
    (["--config", "{file}"], "time_margin_ms = -3\n",
     "config file {file}: key 'time_margin_ms': must be a whole number from 0 to 60000, "
     "got -3"),
    (["--config", "{file}"], 'time_margin_ms = "10"\n',
     "config file {file}: key 'time_margin_ms': must be a whole number"),
])
def test_a_bad_clock_is_one_line_and_exit_2(opened: list[PlayOptions], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            args: list[str], text: str | None,
                                            message: str) -> None:
    file = write(tmp_path, text) if text is not None else ""
    assert main(["play", *(a.format(file=file) for a in args)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"csl-game: error: {message.format(file=file)}")
    assert err.count("\n") == 1 and not opened
