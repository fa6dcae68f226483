"""Bad input gets one line and exit 2 on every verb; the harness's own failures are not
the thinkers'; SIGTERM and a full disk keep the results written so far."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from csl_game.cli import main
from csl_game.console import playing
from csl_game.engine import results as results_module

MISBEHAVING = str(Path(__file__).parent / "misbehaving")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "g.txt").write_text("random\nsequential\n")
    (tmp_path / "bin.txt").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "nul.txt").write_bytes(b"random\x00\nsequential\n")
    (tmp_path / "badparams.txt").write_text("negamax depth=abc\nrandom\n")
    (tmp_path / "list.jsonl").write_text("[1, 2]\n")
    line = {"match": 0, "white": {"thinker": "random", "params": "", "name": "Random"},
            "red": {"thinker": "sequential", "params": "", "name": "Sequential"},
            "winner": "white", "moves": [{"row": 0, "col": 0, "color": 3, "shape": "round",
                                          "ms": 1}], "settings": {}}
    (tmp_path / "colour.jsonl").write_text(json.dumps(line) + "\n")
    good = {**line, "moves": [{**line["moves"][0], "color": "white"}]}
    (tmp_path / "one.jsonl").write_text(json.dumps(good) + "\n")
    # a second line that is no match, though written whole: bad input, not a torn write
    (tmp_path / "whole.jsonl").write_text(json.dumps(good) + '\n{"white": 3\n')
    (tmp_path / "nomatch.jsonl").write_text(
        "\n".join(json.dumps(d) for d in (good, {k: v for k, v in good.items() if k != "match"}))
        + "\n")
    return {k: str(tmp_path / k) for k in ("g.txt", "bin.txt", "nul.txt", "badparams.txt",
                                           "list.jsonl", "colour.jsonl", "one.jsonl",
                                           "whole.jsonl", "nomatch.jsonl")}


BAD = [
    (["match", "-r", "100000"], "-r/--rows: at most 40, got 100000"),
    (["match", "-c", "99999999999999999999"], "-c/--cols: at most 40, got a 20-digit number"),
    (["session", "-g", "g.txt", "-r", "100000"], "at most 40"),
    (["session", "-g", "g.txt", "--unknown-track", "100000", "100000"], "at most 40"),
    (["match", "-o", "100000"], "-o/--round-pieces: at most 1000"),
    (["match", "-t", "99999999999"], "-t/--time-limit: at most 3600000"),
    (["league", "-r", "100000", "--in-process"], "rows: at most 40"),
    (["league", "--unknown"], "unrecognized"),
    (["play", "-r", "100000"], "from 1 to 40"),
    (["play", "--unknown-track", "100000", "7"], "at most 40"),
    (["session", "-g", "bin.txt"], "cannot read session file"),
    (["session", "-g", "nul.txt"], "not a text file"),
    (["session", "-g", "badparams.txt"], "negamax does not accept 'depth=abc'"),
    (["report", "list.jsonl"], "line 1: not a JSON object"),
    (["report", "colour.jsonl"], "malformed"),
    (["session", "-g", "g.txt", "--resume", "list.jsonl"], "not a JSON object"),
    (["session", "-g", "g.txt", "--dask", "notanaddress"], "not a scheduler address"),
    (["session", "-g", "g.txt", "--dask", ""], "not a scheduler address"),
    (["session", "-g", "g.txt", "--dask", "http://127.0.0.1:8786"], "not a scheduler address"),
    (["session", "-g", "g.txt", "--results", "a.jsonl", "--resume", "b.jsonl"],
     "name different files"),
    (["session", "-g", "g.txt", "--setup-time-limit", "0"], "at least 1 ms"),
    (["match", "--memory-limit", "10"], "--memory-limit must be at least 64 MB"),
    (["session", "-g", "g.txt", "--memory-limit", "-1"], "--memory-limit must be at least 64 MB"),
    (["match", "-W", "minimax", "--white-params", "x y z", "-R", "random", "--in-process"],
     "-W/--white: minimax does not accept 'x y z': the depth is a whole number from 1 up"),
    (["match", "-W", "random", "-R", "minimax", "--red-params", "-5"],
     "-R/--red: minimax does not accept '-5'"),
    (["report", "nomatch.jsonl"], "nomatch.jsonl, line 2: malformed (no 'match')"),
    (["report", "colour.jsonl", "--ratings"], "colour.jsonl, line 1: results line for match 0"),
    (["replay", "whole.jsonl", "--console"], "whole.jsonl, line 2: not JSON"),
    (["replay", "one.jsonl", "--match", "99"], "there is no match 99 in the file (1)"),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(a)[:50] for a, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str,
                                          files: dict[str, str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main([files.get(a, a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert message in err


@pytest.mark.unit
def test_the_competitions_boards_are_within_the_limits(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    for rows, cols in ((18, 22), (9, 37)):
        assert main(["match", "-W", "sequential", "-R", "sequential", "-r", str(rows), "-c",
                     str(cols), "-w", "4", "--json", "--in-process"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert (doc["settings"]["rows"], doc["settings"]["cols"]) == (rows, cols)


@pytest.mark.unit
def test_a_byte_order_mark_is_no_part_of_the_first_name(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    game = tmp_path / "bom.txt"
    game.write_bytes(b"\xef\xbb\xbfrandom\nsequential\n")
    assert main(["session", "-g", str(game), "--in-process", "--quiet", "-t", "200"]) == 0
    assert "Random" in capsys.readouterr().out


@pytest.mark.timing
def test_a_dask_port_that_never_answers_is_reported_in_time(
        files: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The attempt to connect gives up at its timeout (on its thread's join:
    DASK_TIMEOUT + 0.5 s), however long importing Dask took before it."""
    monkeypatch.setattr(playing, "DASK_TIMEOUT", 1.0)
    spans: list[float] = []
    connect = playing._connect

    def timed(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return connect(*args)
        finally:
            spans.append(time.perf_counter() - started)

    monkeypatch.setattr(playing, "_connect", timed)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        code = main(["session", "-g", files["g.txt"], "--dask",
                     f"127.0.0.1:{server.getsockname()[1]}"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler" in err and err.count("\n") == 1
    assert len(spans) == 1 and spans[0] < 1.0 + 0.5 + 0.5, spans


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.unit
def test_a_full_disk_keeps_the_lines_written_and_says_so(
        tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    written = 0
    real = os.fsync

    def fsync(fd: int) -> None:
        nonlocal written
        written += 1
        if written > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(results_module.os, "fsync", fsync)
    results = tmp_path / "r.jsonl"
    code = main(["session", "-g", files["g.txt"], "--in-process", "--quiet", "--workers", "1",
                 "-t", "200", "--results", str(results)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "No space left on device" in err
    assert "resume with --resume" in err
    monkeypatch.setattr(results_module.os, "fsync", real)
    assert main(["session", "-g", files["g.txt"], "--in-process", "--quiet", "-t", "200",
                 "--resume", str(results)]) == 0
    assert sorted(d["match"] for d in _lines(results)) == [0, 1]


@pytest.mark.unit
def test_report_and_resume_agree_on_duplicates(tmp_path: Path, files: dict[str, str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    assert main(["session", "-g", files["g.txt"], "--in-process", "--quiet", "-t", "200",
                 "--results", str(results)]) == 0
    lines = results.read_text().splitlines()
    first = json.loads(lines[0])
    flipped = {**first, "winner": "red" if first["winner"] == "white" else "white"}
    results.write_text("\n".join([lines[0], lines[1], json.dumps(flipped)]) + "\n")
    capsys.readouterr()
    assert main(["report", str(results), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert f"records match {first['match'] + 1} (2 times)" in captured.err
    assert "the first line" not in captured.err or "first line" in captured.err
    report = json.loads(captured.out)
    assert len(report["results"]) == 2
    assert sum(s["wins"] + s["draws"] / 2 for s in report["standings"]) == 2
    ours = next(r for r in report["results"] if r["match"] == first["match"] + 1)
    assert ours["winner"] == first["winner"], "the first line wins"
    assert main(["session", "-g", files["g.txt"], "--in-process", "--quiet", "-t", "200",
                 "--resume", str(results)]) == 0
    assert f"records match {first['match'] + 1} (2 times)" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is TerminateProcess on Windows")
def test_sigterm_says_so_and_keeps_the_results(tmp_path: Path, files: dict[str, str]) -> None:
    results = tmp_path / "r.jsonl"
    game = tmp_path / "four.txt"
    game.write_text("sleepy\nsequential\nrandom\n")  # 4 of its 6 matches last a limit
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", "session", "-g", str(game),
                             "--thinkers", MISBEHAVING, "-t", "300", "--workers", "1",
                             "--quiet", "--results", str(results)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not results.exists() or
                                           results.read_text().count("\n") < 2):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.strip().splitlines()[-1].startswith("csl-game: terminated")
    assert "Traceback" not in err
    kept = _lines(results)
    assert len(kept) >= 2
    done = subprocess.run([sys.executable, "-m", "csl_game", "session", "-g", str(game),
                           "--thinkers", MISBEHAVING, "-t", "300", "--quiet", "--resume",
                           str(results)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(d["match"] for d in _lines(results)) == list(range(6))


def test_a_worker_that_cannot_start_is_the_programs_failure(
        tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """No thinker is charged: the session stops with one line, keeps its results and resumes."""
    from csl_game.engine.runners import handle, process

    starts = 0
    real = handle.WorkerHandle._start
    # no warm worker: each match starts its own, as after a pool's workers all failed
    monkeypatch.setattr(process.WorkerPool, "take", lambda self, spec, info: None)

    def start(self: handle.WorkerHandle) -> object:
        nonlocal starts
        starts += 1
        if starts > 4:  # the three probes and the first match's first worker start
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        return real(self)

    monkeypatch.setattr(handle.WorkerHandle, "_start", start)
    results = tmp_path / "r.jsonl"
    game = tmp_path / "three.txt"
    game.write_text("random\nsequential\nminimax 1\n")
    code = main(["session", "-g", str(game), "-t", "500", "--workers", "1", "--quiet",
                 "--results", str(results)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("csl-game: cannot go on: could not start a worker process")
    assert f"resume with --resume {results}" in err
    kept = _lines(results)
    assert all(d["forfeit"] is None for d in kept), "no thinker was charged"
    monkeypatch.setattr(handle.WorkerHandle, "_start", real)
    assert main(["session", "-g", str(game), "-t", "500", "--quiet", "--resume",
                 str(results)]) == 0
    assert sorted(d["match"] for d in _lines(results)) == list(range(6))


def test_too_few_file_descriptors_is_one_line_not_a_forfeit(files: dict[str, str]) -> None:
    resource = pytest.importorskip("resource")

    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (30, 30))

    game = Path(files["g.txt"]).with_name("six.txt")
    game.write_text("random 1\nrandom 2\nsequential\nminimax 1\nrandom 3\nsequential\n")
    proc = subprocess.run([sys.executable, "-m", "csl_game", "session", "-g", str(game),
                           "-t", "200", "--quiet", "--workers", "2"], capture_output=True,
                          text=True, timeout=60, preexec_fn=low)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Too many open files" in proc.stderr


def test_the_window_without_a_display_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Plain `csl-game` where SDL finds no display (and none was faked on purpose)
    says so and exits, instead of playing in a window nobody sees."""
    if sys.platform not in ("linux", "freebsd"):
        pytest.skip("a display is always there on this platform")
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["HOME"] = env["APPDATA"] = str(tmp_path)  # no remembered setup to start from
    done = subprocess.run([sys.executable, "-m", "csl_game"], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stdout + done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("csl-game:")]
    assert len(ours) == 1 and "no display" in ours[0]
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ours, "nothing of SDL's (XDG_RUNTIME_DIR) before it"
    assert done.stdout == "", "nor pygame's greeting"
