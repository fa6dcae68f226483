"""Exact solvers on the model's fast core, for tests that check a thinker's play.

Independent of the thinkers' own search: plain depth-first search over
`FastBoard.legal_moves()` and `winner_after()`, with no pruning but the
game's end. Moves are coded ``col << 1 | shape``, as in the core.
"""

from __future__ import annotations

from csl_game import Board, PShape, Winner
from csl_game.model.core import FastBoard

WINS = (Winner.WHITE, Winner.RED)


def position(board_moves: list[tuple[int, int]], board: Board) -> FastBoard:
    """The fast board of `board` after these (column, shape) moves."""
    for col, shape in board_moves:
        board.do_move(PShape(shape), col)
    return board.fast_board()


def wins_within(pos: FastBoard, plies: int) -> bool:
    """Whether the player to move can force a win on one of its next moves,
    the last of them at most `plies` plies from now (1 = this move)."""
    me = WINS[pos.turn]
    for m in pos.legal_moves():
        pos.play(m >> 1, m & 1)
        result = pos.winner_after(m & 1)
        won = result is me or (result is Winner.NONE and plies >= 3
                               and every_reply_loses(pos, plies - 1))
        pos.undo(m >> 1)
        if won:
            return True
    return False


def every_reply_loses(pos: FastBoard, plies: int) -> bool:
    """Whether every move of the player to move lets the other player win
    within `plies` plies from now (the reply included)."""
    other = WINS[1 - pos.turn]
    for m in pos.legal_moves():
        pos.play(m >> 1, m & 1)
        result = pos.winner_after(m & 1)
        lost = result is other or (result is Winner.NONE and wins_within(pos, plies - 1))
        pos.undo(m >> 1)
        if not lost:
            return False
    return True


def shortest_win(pos: FastBoard, longest: int) -> int | None:
    """Plies to the quickest forced win of the player to move (odd), if one
    of at most `longest` plies exists."""
    for plies in range(1, longest + 1, 2):
        if wins_within(pos, plies):
            return plies
    return None


def win_length_after(pos: FastBoard, move: int, longest: int) -> int | None:
    """Plies to the quickest forced win that starts with `move`, counting it."""
    pos.play(move >> 1, move & 1)
    try:
        result = pos.winner_after(move & 1)
        if result is not Winner.NONE:
            return 1 if result is WINS[1 - pos.turn] else None
        for plies in range(2, longest, 2):
            if every_reply_loses(pos, plies):
                return plies + 1
        return None
    finally:
        pos.undo(move >> 1)


def value(pos: FastBoard, memo: dict[tuple[int, ...], int]) -> int:
    """The exact value of the position for the player to move: 1 win, 0 draw, -1 loss."""
    key = (pos.colors[0], pos.colors[1], pos.shapes[1], pos.turn, *pos.counts)
    known = memo.get(key)
    if known is not None:
        return known
    best = -1
    for m in pos.legal_moves():
        best = max(best, value_of_move(pos, m, memo))
        if best == 1:
            break
    memo[key] = best
    return best


def value_of_move(pos: FastBoard, move: int, memo: dict[tuple[int, ...], int]) -> int:
    """The exact value of playing `move`, for the player who plays it."""
    me = WINS[pos.turn]
    pos.play(move >> 1, move & 1)
    result = pos.winner_after(move & 1)
    if result is Winner.NONE:
        v = -value(pos, memo)
    else:
        v = 1 if result is me else 0 if result is Winner.DRAW else -1
    pos.undo(move >> 1)
    return v


def move_values(pos: FastBoard) -> dict[int, int]:
    """The exact value of every legal move, for the player to move."""
    memo: dict[tuple[int, ...], int] = {}
    return {m: value_of_move(pos, m, memo) for m in pos.legal_moves()}


def solve(board: Board, memo: dict[tuple[object, ...], tuple[int, int]] | None = None
          ) -> tuple[int, int]:
    """The exact value of `board` for the player to move, by plain minimax over
    the model's own Board (memoized by position, no heuristics, no pruning but
    one: a move that wins at once ends the search of its position, since no
    value is better than a win in one ply):
    (1 win, 0 draw, -1 loss; plies to the end with best play: the winner
    hastens it, the loser delays it; for a draw, the plies left to the end).

    A position's key is its columns' stacks of pieces, bottom up, and the
    side to move: read from the board once, then kept move by move (the
    pieces the board holds, whatever its internals)."""
    memo = {} if memo is None else memo
    stacks: list[list[object]] = [
        [(p.color, p.shape) for r in range(board.rows) if (p := board[r, c]) is not None]
        for c in range(board.cols)]  # row 0 is the bottom row
    return _solve(board, memo, stacks)


def _solve(board: Board, memo: dict[tuple[object, ...], tuple[int, int]],
           stacks: list[list[object]]) -> tuple[int, int]:
    color = board.turn
    key = (*map(tuple, stacks), color)
    if key in memo:
        return memo[key]
    me = WINS[int(color)]
    best: tuple[int, int] | None = None
    for col, shape in board.legal_moves():
        board.do_move(shape, col)
        winner = board.check_winner()
        if winner is Winner.NONE:
            stacks[col].append((color, shape))
            outcome, plies = _solve(board, memo, stacks)
            stacks[col].pop()
            value = (-outcome, plies + 1)
        else:
            value = (0 if winner is Winner.DRAW else 1 if winner is me else -1, 1)
        board.undo_move()
        if best is None or _better(value, best):
            best = value
            if value == (1, 1):  # a win at once: no other move can better it
                break
    assert best is not None, "a position with no move is over"
    memo[key] = best
    return best


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether a is better than b for the player choosing: a win over a draw
    over a loss; a quicker win, a slower loss."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1] if a[0] == 1 else a[1] > b[1] if a[0] == -1 else False


class DistanceSolver:
    """The exact value of every move, with plies to the end, fast enough for
    6x7 endgames of 14 empty cells: alpha-beta over the model's fast core
    with a transposition dict of bounds keyed by the cells (which give the
    turn and the pieces left too). Written apart from the analyst's prover and
    from negamax (no shared code but the model); checked against `solve`.

    Scores for the player to move: a win whose last move is at absolute ply P
    from the root is ``W - P``, a loss ``-(W - P)``, a draw 0. The table holds
    them relative to the node (``_to_table``), so a bound found at one depth
    serves at another.
    """

    W = 10_000

    def __init__(self) -> None:
        self.table: dict[tuple[int, int, int], tuple[int, int]] = {}
        self.nodes = 0

    def move_values(self, pos: FastBoard) -> dict[int, tuple[int, int]]:
        """Every legal move's (1 win, 0 draw, -1 loss for its player; plies to
        the end, the move included; for a draw the plies left to fill)."""
        out = {}
        for m in pos.legal_moves():
            score = self._after(pos, m, -self.W - 1, self.W + 1, 0)
            if score == 0:
                out[m] = (0, pos.geometry.max_moves - pos.ply)
            else:
                out[m] = (1 if score > 0 else -1, self.W - abs(score))
        return out

    def _after(self, pos: FastBoard, m: int, alpha: int, beta: int, ply: int) -> int:
        me = WINS[pos.turn]
        pos.play(m >> 1, m & 1)
        result = pos.winner_after(m & 1)
        if result is Winner.NONE:
            score = -self._value(pos, -beta, -alpha, ply + 1)
        elif result is Winner.DRAW:
            score = 0
        else:
            score = self.W - (ply + 1) if result is me else -(self.W - (ply + 1))
        pos.undo(m >> 1)
        return score

    def _value(self, pos: FastBoard, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        key = (pos.colors[0], pos.colors[1], pos.shapes[1])
        low, high = -self.W - 1, self.W + 1
        known = self.table.get(key)
        if known is not None:
            low, high = _from_table(known[0], ply), _from_table(known[1], ply)
            if low == high or low >= beta:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        first_alpha, best = alpha, -self.W - 1
        for m in self._ordered(pos):
            score = self._after(pos, m, alpha, beta, ply)
            best = max(best, score)
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        if best <= first_alpha:
            high = min(high, best)
        elif best >= beta:
            low = max(low, best)
        else:
            low = high = best
        self.table[key] = (_to_table(low, ply), _to_table(high, ply))
        return best

    def _ordered(self, pos: FastBoard) -> list[int]:
        """Wins at once first, then the middle columns."""
        moves = pos.legal_moves()
        middle = pos.geometry.cols - 1
        moves.sort(key=lambda m: abs(2 * (m >> 1) - middle))
        me = WINS[pos.turn]
        wins = []
        for m in moves:
            pos.play(m >> 1, m & 1)
            if pos.winner_after(m & 1) is me:
                wins.append(m)
            pos.undo(m >> 1)
        return wins + [m for m in moves if m not in wins]


def _to_table(score: int, ply: int) -> int:
    """A score from the root's count of plies to one from the node's."""
    if abs(score) > DistanceSolver.W:  # an open bound
        return score
    return score + ply if score > 0 else score - ply if score < 0 else 0


def _from_table(score: int, ply: int) -> int:
    if abs(score) > DistanceSolver.W:
        return score
    return score - ply if score > 0 else score + ply if score < 0 else 0


def solve_fast(pos: FastBoard, memo: dict[tuple[int, ...], tuple[int, int]]) -> tuple[int, int]:
    """`solve` on the fast core: the same memoized minimax (no heuristics, no
    pruning but a win in one ending a position's search) and the same (value,
    plies), a position keyed by its bitboards, side to move and pieces left.
    Many times as fast as `solve`, for positions with many plies left (the
    cut alone makes the analysis tests' 4x4 positions' memo 7 times
    smaller); the core's agreement with
    the model's Board is property-tested in tests/test_core.py, and the two
    solvers are compared in tests/test_analysis.py."""
    key = (pos.colors[0], pos.colors[1], pos.shapes[1], pos.turn, *pos.counts)
    known = memo.get(key)
    if known is not None:
        return known
    me = WINS[pos.turn]
    best: tuple[int, int] | None = None
    for m in pos.legal_moves():
        pos.play(m >> 1, m & 1)
        result = pos.winner_after(m & 1)
        if result is Winner.NONE:
            outcome, plies = solve_fast(pos, memo)
            value = (-outcome, plies + 1)
        else:
            value = (0 if result is Winner.DRAW else 1 if result is me else -1, 1)
        pos.undo(m >> 1)
        if best is None or _better(value, best):
            best = value
            if value == (1, 1):  # a win at once: no other move can better it
                break
    assert best is not None, "a position with no move is over"
    memo[key] = best
    return best
