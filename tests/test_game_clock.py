"""--tc BASE+INC: a game clock for each side (as cutechess-cli's and fastchess's
tc), each move's limit what is left of it, running out a timeout."""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.engine.match import Match, ThinkingInfo
from csl_game.engine.runners.base import ForfeitReason
from csl_game.engine.runners.process import ProcessRunner
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.errors import ConfigError, UsageError
from csl_game.model.board import PColor
from csl_game.services.flag_values import parse_tc
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

CLOCKED = (str(Path(__file__).parent / "clocked"),)
_LEFT = re.compile(r"left=([\d.]+)")


def _match(config: MatchConfig, factory: object, share: int = 80) -> tuple[Match, list[float]]:
    """SpendThinker (White: `share` % of time_limit_ms of CPU a move) against
    sequential; the time its token gave it at each move."""
    white = ThinkerPrototype("spend", str(share), config, CLOCKED)
    red = ThinkerPrototype("sequential", "", config)
    match = Match(config, white, red, factory)  # type: ignore[arg-type]
    left: list[float] = []
    match.subscribe(lambda e: left.extend(float(m.group(1)) for m in [_LEFT.search(e.text)]
                                          if m) if isinstance(e, ThinkingInfo) else None)
    match.run()
    return match, left


@pytest.mark.parametrize("factory", [ThreadRunner, partial(ProcessRunner)],
                         ids=["thread", "process"])
def test_each_move_may_take_what_is_left_and_running_out_is_a_timeout(factory: object) -> None:
    # 70 ms of CPU a move against 0.25 s for the game: three take 0.21 s, and the
    # fourth runs out 40 ms in (at 80 ms a move the third had 10 ms to spare,
    # which a worker's CPU clock did not always leave it)
    config = MatchConfig(time_limit_ms=100, game_time_ms=250)
    match, left = _match(config, factory, share=70)
    assert match.result is not None
    assert (match.result.forfeit, match.result.winner.color) == (ForfeitReason.TIMEOUT,
                                                                   PColor.RED)
    white_moves = [m for m in match.result.moves if m.move.piece.color is PColor.WHITE]
    assert len(white_moves) == 3
    assert left[0] == pytest.approx(0.25, abs=0.01)  # the whole game's time, not 100 ms
    for before, after, move in zip(left, left[1:], white_moves):
        assert after == pytest.approx(before - move.elapsed, abs=0.01)


def test_the_increment_comes_after_each_move() -> None:
    config = MatchConfig(time_limit_ms=100, game_time_ms=250, increment_ms=80)
    match, left = _match(config, ThreadRunner)  # the increment pays for each move
    assert match.result is not None and match.result.forfeit is None
    white = [m for m in match.result.moves if m.move.piece.color is PColor.WHITE]
    for before, after, move in zip(left, left[1:], white):
        assert after == pytest.approx(before - move.elapsed + 0.08, abs=0.01)
    assert match.clock_left(PColor.RED) == pytest.approx(
        0.25 + 0.08 * sum(m.move.piece.color is PColor.RED for m in match.result.moves)
        - sum(m.elapsed for m in match.result.moves if m.move.piece.color is PColor.RED),
        abs=0.01)


def test_tc_is_parsed_recorded_and_a_resume_on_another_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_tc(None) == (0, 0)
    assert parse_tc("10+0.1") == (10_000, 100) and parse_tc("2.5") == (2500, 0)
    for bad in ("40/60", "0+1", "x+1", "1+-1"):
        with pytest.raises(UsageError):
            parse_tc(bad)
    with pytest.raises(ConfigError):
        MatchConfig(increment_ms=100)  # an increment needs a game clock
    players, results = tmp_path / "players.txt", tmp_path / "r.jsonl"
    players.write_text("sequential\nrandom 1\n", encoding="utf-8")
    small = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "-q"]
    assert main(["session", "-g", str(players), "--tc", "1+0.01", "--results", str(results),
                 *small]) == 0
    docs = [json.loads(line) for line in results.read_text().splitlines()]
    assert {d["settings"]["tc"] for d in docs} == {"1+0.01"}
    assert main(["session", "-g", str(players), "--tc", "2+0", "--resume", str(results),
                 *small]) == 2
    assert "--tc 1+0.01" in capsys.readouterr().err
    assert main(["match", "-W", "random", "--tc", "1", "--connect", "127.0.0.1:1"]) == 2
