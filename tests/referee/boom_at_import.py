"""A thinker file with a bug in its top level (tests/test_referee_reads.py)."""

from csl_game import AbstractThinker, FutureMove, PShape

LIMIT = 3


raise RuntimeError("the file's own bug")


class BoomThinker(AbstractThinker):
    def think(self, board, ct):  # type: ignore[no-untyped-def]
        return FutureMove(0, PShape.ROUND)
