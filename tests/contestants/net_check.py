"""A thinker that tells whether it reaches the network (tests/test_contestants.py)."""

from __future__ import annotations

import socket

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


class NetCheckThinker(AbstractThinker):
    """Says whether it can open a socket to a listener on the machine's loopback
    (params: the port), then plays its first legal move."""

    def setup(self, params: str) -> None:
        self.port = int(params)
        self.said = False

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        if not self.said:
            self.said = True
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                print("network: yes")
            except OSError as e:
                print(f"network: no ({e})")
        col = next(c for c in range(board.cols) if not board.is_column_full(c))
        shape = PShape.ROUND if board.piece_count(board.turn, PShape.ROUND) else PShape.SQUARE
        return FutureMove(col, shape)
