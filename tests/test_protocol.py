"""The typed messages between a ProcessRunner and its worker."""

from __future__ import annotations

import dataclasses
import pickle
import pickletools
from pathlib import Path

import pytest

from csl_game import MatchConfig, PShape, ThinkerPrototype
from csl_game.engine.runners import protocol
from csl_game.engine.runners.answer import MoveAnswer, Opaque, OtherAnswer
from csl_game.engine.runners.process import ProcessRunner, WorkerPool
from csl_game.engine.runners.protocol import (
    Answered,
    Cancel,
    Info,
    OutOfMemory,
    Output,
    Quit,
    Raised,
    Ready,
    Reset,
    SetupFailed,
    Think,
    WorkerSpec,
    decode,
    encode,
)

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)
MC = MatchConfig(time_limit_ms=5000)
SPEC = WorkerSpec("thinkers.minimax", "MinimaxThinker", "2", MC, (), 0)
MESSAGES = [
    Think(1, MC.new_board()), Cancel(1), Reset(SPEC), Quit(),
    Ready("MinimaxD2"), SetupFailed("cannot parse 'x'"), Info("depth 2"), Output("line\n"),
    Answered(1, 0.25, MoveAnswer(3, 1)), Answered(2, 0.0, MoveAnswer(Opaque("a list"), None)),
    Answered(3, 0.0, OtherAnswer("None")), Raised(4, 0.1, "ValueError: x"),
    OutOfMemory(5, 0.2, "MemoryError"),
]


@pytest.mark.unit
def test_every_kind_is_a_frozen_dataclass_that_travels_whole() -> None:
    kinds = {type(m) for m in MESSAGES}
    declared = {k for name in protocol.__all__
                if isinstance(k := getattr(protocol, name), type) and dataclasses.is_dataclass(k)}
    leaves = {k for k in declared if not any(o is not k and issubclass(o, k) for o in declared)}
    assert leaves - {WorkerSpec} == kinds
    for message in MESSAGES:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(message, "job_id", 2)  # noqa: B010
        copy = decode(pickle.loads(pickle.dumps(encode(message))))
        assert type(copy) is type(message)
        if isinstance(message, Think):
            assert isinstance(copy, Think) and copy.board.history == message.board.history
        else:
            assert copy == message


@pytest.mark.unit
@pytest.mark.parametrize("message", [Cancel(1), Answered(1, 0.2, MoveAnswer(3, 1)), Info("x"),
                                     Output("y"), Ready("z"), Raised(2, 0.1, "trace")],
                         ids=lambda m: type(m).__name__)
def test_the_common_messages_travel_as_builtins(message: protocol.Message) -> None:
    data = pickle.dumps(encode(message))
    assert not {op.name for op, _, _ in pickletools.genops(data)} & {"GLOBAL", "STACK_GLOBAL"}
    assert type(decode(pickle.loads(data))) is type(message)


@pytest.mark.unit
@pytest.mark.parametrize("wire", [(), (99, 1), ("think", 1), (1,), (1, 2, 3)])
def test_anything_else_is_not_a_message(wire: tuple[object, ...]) -> None:
    with pytest.raises(ValueError, match="not a message"):
        decode(wire)


def _name_after_one_move(runner: ProcessRunner) -> str | None:
    try:
        outcome = runner.start(MC.new_board()).wait(10)
        assert outcome is not None and outcome.forfeit is None
        assert outcome.move is not None and outcome.move.shape in (PShape.ROUND, PShape.SQUARE)
        return runner.worker_name
    finally:
        runner.close()


def test_the_worker_reports_the_thinkers_name_after_every_setup() -> None:
    pool = WorkerPool()
    try:
        first = ProcessRunner(ThinkerPrototype("minimax", "2", MC), pool=pool)
        # the parent runs no thinker code: until its worker says, the class-name rule's name
        assert first.name == "Minimax"
        assert _name_after_one_move(first) == "MinimaxD2"
        second = ProcessRunner(ThinkerPrototype("minimax", "1", MC), pool=pool)
        assert second.pid == first.pid and pool.reused == 1
        assert _name_after_one_move(second) == "MinimaxD1"
    finally:
        pool.close()


def test_texts_from_the_worker_are_plain_strs() -> None:
    lines: list[str] = []
    runner = ProcessRunner(ThinkerPrototype("sneakyname", "", MC, MISBEHAVING), lines.append)
    try:
        outcome = runner.start(MC.new_board()).wait(10)
        name = runner.worker_name
    finally:
        runner.close()
    assert outcome is not None and outcome.move == (-1, 0)
    assert lines == ["sneaky info"] and type(lines[0]) is str
    assert name == "sneaky name" and type(name) is str
