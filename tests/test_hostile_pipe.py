"""A worker's result pipe is untrusted input (issue: "the main process never
blocks on it and never unpickles it"): thinkers that write on it a header and
then silence, a header announcing 2 GB, random bytes, a pickle that runs code
when loaded, or a valid message of the wrong kind each lose only their match,
within the time limit plus the grace period, and no code of theirs runs in
the main process."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine import ForfeitReason, Match
from csl_game.engine.runners.answer import MoveAnswer, Opaque, OtherAnswer
from csl_game.engine.runners.frames import MAX_FRAME, FdFrameReader, FrameError, ThreadFrameReader
from csl_game.engine.runners.process import CANCEL_GRACE, ProcessRunner
from csl_game.engine.runners.protocol import (
    Answered,
    Info,
    Ready,
    Think,
    encode,
    from_bytes,
    to_bytes,
)

HOSTILE = (str(Path(__file__).parent / "hostile"),)
LIMIT_MS = 300
CONFIG = MatchConfig(time_limit_ms=LIMIT_MS)
R = ForfeitReason

# What each costs: garbage is seen at once; a message begun and never finished
# is seen when the pipe stalls, or the time limit comes first.
CASES = [
    ("headerthensilence", {R.PROTOCOL, R.IGNORED_CANCELLATION}),
    ("announces2gb", {R.PROTOCOL}),
    ("randombytes", {R.PROTOCOL}),
    ("pickle", {R.PROTOCOL}),
    ("wrongkind", {R.PROTOCOL}),
]


@pytest.mark.timing
@pytest.mark.parametrize("name, reasons", CASES)
def test_each_costs_only_its_match_in_time(name: str, reasons: set[ForfeitReason],
                                            tmp_path: Path) -> None:
    record = tmp_path / "pid.txt"
    hostile = ThinkerPrototype(name, str(record), CONFIG, HOSTILE)
    honest = ThinkerPrototype("sequential", "", CONFIG)
    match = Match(CONFIG, hostile, honest, runner_factory=ProcessRunner,
                  names=("Hostile", "Sequential"))
    started = time.perf_counter()
    try:
        result = match.run()
    finally:
        match.close()
    took = time.perf_counter() - started
    assert result.forfeit in reasons, (result.forfeit, result.detail)
    assert result.winner_name == "Sequential"
    assert took < LIMIT_MS / 1000 + CANCEL_GRACE + 3.0, took  # limit, grace, start-up and kill
    if result.forfeit is R.PROTOCOL:
        assert "wrote what is no message on its pipe" in result.detail
    assert not record.exists() or record.read_text() != str(os.getpid())
    assert not record.exists(), "the pickle's code ran somewhere"


# ---------------------------------------------------------------- the decoder
@pytest.mark.unit
@pytest.mark.parametrize("message", [
    Ready("MinimaxD3", 4), Info("depth 3"), Answered(2, 0.25, MoveAnswer(3, 1)),
    Answered(2, 0.25, MoveAnswer(Opaque("a list"), None)),
    Answered(1, 0.0, MoveAnswer(1.5, True)), Answered(1, 0.0, OtherAnswer("None")),
])
def test_worker_messages_round_trip(message: object) -> None:
    assert from_bytes(to_bytes(message)) == message  # type: ignore[arg-type]


@pytest.mark.unit
@pytest.mark.parametrize("data", [
    b"", b"\x80\x04", b"{}", b"[]", b"[99]", b'["0","x",1]', b'[0,"x"]', b'[0,"x",true]',
    b'[4,1,0.5,[1,{"__class__":"os.system"}]]', b'[4,1,-1.0,[1,1]]', b'[4,1,NaN,[1,1]]',
    b'[4,true,0.5,[1,1]]', b"[" * 100_000, b'[2,"' + b"\xff" * 3 + b'"]',
])
def test_anything_else_is_refused_as_data(data: bytes) -> None:
    with pytest.raises(ValueError):
        from_bytes(data)


@pytest.mark.unit
def test_a_pickled_request_is_no_worker_message() -> None:
    import pickle

    with pytest.raises(ValueError):
        from_bytes(pickle.dumps(encode(Think(1, CONFIG.new_board()))))


# ---------------------------------------------------------------- the framing
@pytest.mark.unit
@pytest.mark.parametrize("reader_kind", [FdFrameReader, ThreadFrameReader])
def test_frames_arrive_whole_and_oversized_ones_are_refused(reader_kind: type) -> None:
    import multiprocessing
    import struct

    read_end, write_end = multiprocessing.Pipe(duplex=False)
    reader = reader_kind(read_end)
    try:
        write_end.send_bytes(b"one")
        os.write(write_end.fileno(), struct.pack("!i", 5) + b"tw")  # a frame begun
        deadline = time.monotonic() + 2
        frames: list[bytes] = []
        while not frames and time.monotonic() < deadline:
            frames += reader.read(0.01)
        assert frames == [b"one"]
        os.write(write_end.fileno(), b"o..")
        deadline = time.monotonic() + 2
        while len(frames) < 2 and time.monotonic() < deadline:
            frames += reader.read(0.01)
        assert frames == [b"one", b"two.."]
        os.write(write_end.fileno(), struct.pack("!i", MAX_FRAME + 1))
        with pytest.raises(FrameError):
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                reader.read(0.01)
                time.sleep(0.005)
    finally:
        write_end.close()
        read_end.close()
        reader.close()
