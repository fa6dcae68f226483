"""Thinkers that write on their worker's result pipe what is no message of
the worker (loaded as a --thinkers path by tests/test_hostile_pipe.py).

Each finds the pipe as thinker code can: through the garbage collector, the
one write-only `multiprocessing.connection.Connection` of its process.
`params` may name a file where the pickle's code records the pid it ran in.
"""

from __future__ import annotations

import gc
import os
import pickle
import struct
import time
from multiprocessing.connection import Connection

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove


def result_pipe() -> Connection:
    gc.unfreeze()  # the worker freezes what setup made; get_objects() skips frozen objects
    for obj in gc.get_objects():
        if isinstance(obj, Connection) and obj.writable and not obj.readable and not obj.closed:
            return obj
    raise RuntimeError("no result pipe found")


class _RunsCode:
    """Unpickling it calls exec(): it writes the loading process's pid to a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        code = f"import os; open({self.path!r}, 'w').write(str(os.getpid()))"
        return exec, (code,)


class _Hostile(AbstractThinker):
    def setup(self, params: str) -> None:
        self.params = params

    def write(self, pipe: Connection) -> None:
        raise NotImplementedError

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        self.write(result_pipe())
        ct.wait(60)  # then silence: no answer
        time.sleep(60)
        return FutureMove.NO_MOVE


class HeaderThenSilenceThinker(_Hostile):
    """Announces a 1 MB message, sends 10 bytes of it, then nothing."""

    def write(self, pipe: Connection) -> None:
        os.write(pipe.fileno(), struct.pack("!i", 1 << 20) + b"x" * 10)


class Announces2GBThinker(_Hostile):
    """A header announcing 2 GB (as multiprocessing writes it: -1, then 8 bytes)."""

    def write(self, pipe: Connection) -> None:
        os.write(pipe.fileno(), struct.pack("!i", -1) + struct.pack("!Q", 2 << 30))


class RandomBytesThinker(_Hostile):
    """Random bytes, framed or not."""

    def write(self, pipe: Connection) -> None:
        os.write(pipe.fileno(), os.urandom(4096))


class PickleThinker(_Hostile):
    """A well-framed pickle whose loading runs code (recording the pid it ran in)."""

    def write(self, pipe: Connection) -> None:
        pipe.send_bytes(pickle.dumps(_RunsCode(self.params)))


class WrongKindThinker(_Hostile):
    """A well-formed message of a kind no worker sends (a parent's request)."""

    def write(self, pipe: Connection) -> None:
        pipe.send_bytes(b"[1,7]")  # what a parent's Cancel(7) would look like as JSON
