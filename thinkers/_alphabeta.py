"""The alpha-beta search behind the negamax thinker.

Negamax with principal-variation search, a transposition table keyed by
Zobrist hashes, killer moves and a history table. Every node first looks at
the tactics of the position (see `_tactics.tactics`): a win in one
ends the search, an opponent's threat on a playable cell forces the block, two
such threats lose, and moves that complete the opponent's shape run or that
fill the cell under an opponent's threat are scored as losses unsearched.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from csl_game.model.board import Winner
from csl_game.model.core import FastBoard, Geometry

from ._tactics import Tables, column_of, popcount, tactics, win_cells, winning_shape, zobrist_hash

__all__ = ["Searcher", "SearchStopped", "Weights", "WIN", "MATE_BOUND"]

WIN = 1_000_000
MATE_BOUND = WIN - 100_000
INF = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
_SCORE_OFFSET = 1 << 21
_MAX_DEPTH = 255
_LATE = 3
"""Index from which the moves of a quiet node are searched reduced first."""
_NEVER = 1 << 30


class SearchStopped(Exception):
    """The deadline passed or the search was cancelled."""


class Weights:
    """Evaluation weights (from White's point of view, negated for Red)."""

    shape_threat = 48
    colour_threat = 32
    parity = 16
    colour_cell = 1
    shape_cell = 2
    piece_aware = True
    """Whether shape threats count double when the opponent has no piece left
    to block them, and half when their owner has none left to play them."""
    shortage = 64
    """Penalty for each opponent shape-threat cell beyond the pieces of its
    own shape a player has left: only those can fill such a cell safely."""


def _cell_values(tables: Tables, w: type[Weights]) -> tuple[tuple[int, ...], ...]:
    """Positional value for White of each piece kind on each cell."""
    values = []
    for kind in range(4):
        colour_sign = 1 if kind < 2 else -1
        shape_sign = 1 if kind % 2 == 0 else -1
        k = w.colour_cell * colour_sign + w.shape_cell * shape_sign
        values.append(tuple(k * x for x in tables.weights))
    return tuple(values)


class Searcher:
    """Iterative-deepening alpha-beta over one board geometry.

    Kept by the thinker across the moves of a match, so the transposition
    table and history carry over from one move to the next.
    """

    def __init__(self, tables: Tables, tt_size: int, weights: type[Weights] = Weights) -> None:
        self.tables = tables
        self.geo: Geometry = tables.geo
        geo = self.geo
        self.w = weights
        # The table is two preallocated lists indexed by the hash's low bits:
        # a dict would pause the search for tens of milliseconds each time
        # it grows or is cleared, with no clock reading in between.
        slots = 1 << (max(tt_size, 1).bit_length() - 1)
        self.tt_size = tt_size
        self.tt_mask = slots - 1
        self.tt_keys = [-1] * slots
        """The hash of the position stored in each slot (-1: none)."""
        self.tt_entries = [0] * slots
        """Score, depth, bound and best move of that position, packed."""
        self.move_bits = (2 * geo.cols + 1).bit_length()
        self.move_mask = (1 << self.move_bits) - 1
        self.cell_values = _cell_values(tables, weights)
        # Until cutoffs teach it better, the history prefers the centre
        # columns and the mover's own shape.
        self.bias = [[2 * (geo.cols - abs(2 * (m >> 1) - geo.cols + 1)) + ((m & 1) == c)
                      for m in range(2 * geo.cols)] for c in range(2)]
        self.history = [b.copy() for b in self.bias]
        self.killers = [[-1, -1] for _ in range(geo.max_moves + 2)]
        self.column_masks = [((1 << geo.rows) - 1) << (col * geo.height)
                             for col in range(geo.cols)]
        self.pos = FastBoard(geo)
        self.hash = 0
        """The Zobrist hash of `pos`, kept up to date move by move."""
        self.ps = 0
        self.nodes = 0
        self.max_nodes = 1 << 62
        """The search stops at this many nodes (`NegamaxThinker`'s nodes=N): at
        the same node on every machine, so the same move."""
        self.deadline = float("inf")
        self.stop: Callable[[], bool] = lambda: False
        self.clock: Callable[[], float] = time.perf_counter
        self.check_mask = 63
        """The clock is read every check_mask + 1 nodes (a power of two)."""
        self.last_check = 0.0
        self.max_gap = 0.0
        """The longest wait between two clock readings of this search: the
        node spacing, or a time the process was not running."""
        self.root_best: int | None = None
        """The move of the current root iteration proven at least as good as
        the previous iteration's best, as soon as it is known."""
        if geo.rows % 2 == 0:
            self.good = (tables.even_rows, tables.odd_rows)
        else:
            self.good = (0, 0)

    # ------------------------------------------------------------ the root
    def start(self, pos: FastBoard, deadline: float, stop: Callable[[], bool],
              clock: Callable[[], float] = time.perf_counter) -> None:
        """Prepare a search of `pos`, which the search then plays on, until
        `deadline` on `clock` or `stop()`."""
        self.pos = pos
        self.hash = zobrist_hash(pos, self.tables)
        self.ps = self._positional(pos)
        self.nodes = 0
        self.deadline = deadline
        self.stop = stop
        self.clock = clock
        self.last_check = clock()
        self.max_gap = 0.0
        for table, bias in zip(self.history, self.bias):
            for i, v in enumerate(table):
                table[i] = bias[i] + ((v - bias[i]) >> 2)
        for k in self.killers:
            k[0] = k[1] = -1

    def _positional(self, pos: FastBoard) -> int:
        total = 0
        for kind in range(4):
            colour, shape = divmod(kind, 2)
            bits = pos.colors[colour] & pos.shapes[shape]
            values = self.cell_values[kind]
            while bits:
                low = bits & -bits
                total += values[low.bit_length() - 1]
                bits ^= low
        return total

    def root_moves(self) -> tuple[int | None, list[int], list[tuple[int, int]]]:
        """(winning move or None, moves worth searching, (loss score, move) of the rest)."""
        pos = self.pos
        t = tactics(pos, self.tables)
        if t.wins:
            low = t.wins & -t.wins
            return column_of(self.geo, low) * 2 + winning_shape(pos), [], []
        remaining = self.geo.max_moves - pos.ply
        forced = t.playable & t.opp_hard if remaining > 1 else 0
        under = t.opp_hard >> 1 if remaining > 1 else 0
        moves, _ = self._candidates(forced or t.playable, t.loses_off, under, 0)
        moves.sort(key=self.history[pos.turn].__getitem__, reverse=True)
        h = self.geo.height
        losses = []
        for m in pos.legal_moves():
            if m not in moves:
                bit = 1 << ((m >> 1) * h + pos.heights[m >> 1])
                at_once = (m & 1) != pos.turn and bit & t.loses_off
                losses.append((-(WIN - 1) if at_once else -(WIN - 2), m))
        return None, moves, sorted(losses, reverse=True)

    def search_root(self, depth: int, moves: list[int]) -> tuple[int, int]:
        """Search every root move to `depth`; returns (score, best move) and
        reorders `moves` best first.

        Raises:
            SearchStopped: the deadline passed or the stop function said so.
        """
        alpha, beta = -INF, INF
        best, best_move = -INF, moves[0]
        self.root_best = None
        pos = self.pos
        thr = self.tables.threats
        w, r = pos.colors
        raw = (thr(pos.shapes[0]), thr(pos.shapes[1]), thr(w), thr(r))
        for i, m in enumerate(moves):
            undo = self._play(m)
            if i == 0:
                score = -self._search(depth - 1, -beta, -alpha, 1, raw, m)
            else:
                score = -self._search(depth - 1, -alpha - 1, -alpha, 1, raw, m)
                if score > alpha:
                    self.root_best = m  # it beat the first move: keep it if time runs out
                    score = -self._search(depth - 1, -beta, -alpha, 1, raw, m)
            self._undo(m, undo)
            if score > best:
                best, best_move = score, m
                self.root_best = m
                alpha = max(alpha, score)
        moves.remove(best_move)
        moves.insert(0, best_move)
        return best, best_move

    def principal_line(self, first: int, length: int) -> list[int]:
        """The line the last search expects, `first` first: each next move is
        the one the transposition table holds for the position reached (the
        usual way engines show a principal variation; it stops at a missing,
        replaced or unplayable entry, or at the game's end)."""
        pos = self.pos
        line: list[int] = []
        played: list[tuple[int, int]] = []
        move = first
        while move >= 0 and len(line) < length:
            col, shape = move >> 1, move & 1
            if col >= self.geo.cols or pos.heights[col] >= self.geo.rows \
                    or not pos.counts[2 * pos.turn + shape]:
                break
            line.append(move)
            played.append((move, self._play(move)))
            if pos.winner_after(shape) is not Winner.NONE:
                break
            slot = self.hash & self.tt_mask
            move = (self.tt_entries[slot] & self.move_mask) - 1 \
                if self.tt_keys[slot] == self.hash else -1
        for m, idx in reversed(played):
            self._undo(m, idx)
        return line

    def _play(self, m: int) -> int:
        pos = self.pos
        idx = pos.play(m >> 1, m & 1)
        kind = 2 * (1 - pos.turn) + (m & 1)
        self.ps += self.cell_values[kind][idx]
        self.hash ^= self.tables.zobrist[kind][idx]
        return idx

    def _undo(self, m: int, idx: int) -> None:
        pos = self.pos
        pos.undo(m >> 1)
        kind = 2 * pos.turn + (m & 1)
        self.ps -= self.cell_values[kind][idx]
        self.hash ^= self.tables.zobrist[kind][idx]

    # ------------------------------------------------------------ moves
    def _candidates(self, cells: int, loses_off: int, under: int,
                    ply: int) -> tuple[list[int], int]:
        """Moves into `cells` worth searching, and the best score of the others.

        The others lose at once: an off-shape piece on `loses_off` completes
        the opponent's shape run; a piece on `under` lets the opponent win on
        the cell above.
        """
        pos = self.pos
        c = pos.turn
        own = pos.counts[3 * c]
        off = pos.counts[2 * c + 1 - c]
        safe = cells & ~under
        if cells & under:
            best_loss = -(WIN - ply - 2)
        elif off and safe & loses_off:
            best_loss = -(WIN - ply - 1)
        else:
            best_loss = -INF
        h = self.geo.height
        moves = []
        while safe:
            low = safe & -safe
            safe ^= low
            col2 = (low.bit_length() - 1) // h * 2
            if own:
                moves.append(col2 + c)
            if off and not low & loses_off:
                moves.append(col2 + 1 - c)
        return moves, best_loss

    # ------------------------------------------------------------ search
    def _probe(self, entry: int, depth: int, alpha: int, beta: int,
               ply: int) -> int | None:
        rest = entry >> self.move_bits
        flag = rest & 3
        rest >>= 2
        if rest & _MAX_DEPTH < depth:
            return None
        score = (rest >> 8) - _SCORE_OFFSET
        if score > MATE_BOUND:
            score -= ply
        elif score < -MATE_BOUND:
            score += ply
        if flag == EXACT or (flag == LOWER and score >= beta) or (
                flag == UPPER and score <= alpha):
            return score
        return None

    def _store(self, key: int, depth: int, flag: int, score: int, move: int,
               ply: int) -> None:
        if score > MATE_BOUND:
            score += ply
        elif score < -MATE_BOUND:
            score -= ply
        if not self.tt_size:
            return
        slot = key & self.tt_mask
        self.tt_keys[slot] = key
        self.tt_entries[slot] = ((((score + _SCORE_OFFSET) << 8 | min(depth, _MAX_DEPTH))
                                  << 2 | flag) << self.move_bits) | (move + 1)

    def _search(self, depth: int, alpha: int, beta: int, ply: int,
                raw: tuple[int, int, int, int], last: int) -> int:
        """Negamax score of the position for the player to move.

        `raw` holds the parent's threat masks (round, square, white, red, not
        yet masked by the empty cells); `last` is the move that led here.
        """
        if self.nodes >= self.max_nodes:
            raise SearchStopped
        self.nodes += 1
        if not self.nodes & self.check_mask:
            self._check_clock()
        pos = self.pos
        geo = self.geo
        remaining = geo.max_moves - pos.ply
        if remaining <= 0:
            return 0
        key = self.hash
        slot = key & self.tt_mask
        tt_move = -1
        if self.tt_keys[slot] == key:
            entry = self.tt_entries[slot]
            hit = self._probe(entry, depth, alpha, beta, ply)
            if hit is not None:
                return hit
            tt_move = (entry & self.move_mask) - 1
        c = pos.turn
        o = 1 - c
        raw = r0, r1, r2, r3 = self._threats_after(raw, last)
        occ = pos.colors[0] | pos.colors[1]
        empty = geo.full & ~occ
        shape_t = (r0 & empty, r1 & empty)
        colour_t = (r2 & empty, r3 & empty)
        playable = (occ + geo.bottom) & geo.full
        wins, opp_hard = win_cells(pos.counts, c, shape_t, colour_t)
        if wins & playable:
            return WIN - ply - 1
        forced = playable & opp_hard if remaining > 1 else 0
        if forced & (forced - 1):
            return -(WIN - ply - 2)
        if depth <= 0 and (not forced or ply > self.ext_limit):
            return self._evaluate(c, shape_t, colour_t)
        under = opp_hard >> 1 if remaining > 1 else 0
        moves, best_loss = self._candidates(forced or playable, shape_t[o], under, ply)
        if not moves:
            return best_loss
        self._order(moves, c, ply, tt_move)
        if shape_t[o] and pos.counts[3 * c] < (remaining + 1) >> 1:
            self._defer_poisoned(moves, shape_t[o])
        child_depth = depth if forced and len(moves) <= 2 else depth - 1
        # Late moves of a quiet node are searched a ply shallower first, but
        # not where a mate is being proven: its length must come out exact.
        late = (_LATE if child_depth >= 2 and not forced and -MATE_BOUND < alpha
                and beta < MATE_BOUND else _NEVER)
        best, best_move = self._search_moves(moves, child_depth, alpha, beta, ply, raw, late)
        best = max(best, best_loss)
        if best >= beta:
            self._reward(best_move, c, ply, depth)
        if depth > 0:
            flag = UPPER if best <= alpha else LOWER if best >= beta else EXACT
            self._store(key, depth, flag, best, best_move, ply)
        return best

    def _check_clock(self) -> None:
        """Raise SearchStopped at the deadline; note the longest gap between readings."""
        now = self.clock()
        gap = now - self.last_check
        self.last_check = now
        if gap > self.max_gap:
            self.max_gap = gap
        if now >= self.deadline or self.stop():
            raise SearchStopped

    def _threats_after(self, raw: tuple[int, int, int, int],
                       last: int) -> tuple[int, int, int, int]:
        """The raw threat masks after `last`: it changed one shape set (its
        shape's) and one colour set (its mover's), so only those two are new."""
        pos = self.pos
        thr = self.tables.threats
        w, r = pos.colors
        r0, r1, r2, r3 = raw
        if last & 1:
            r1 = thr(pos.shapes[1])
        else:
            r0 = thr(pos.shapes[0])
        if pos.turn:
            r2 = thr(w)
        else:
            r3 = thr(r)
        return r0, r1, r2, r3

    def _search_moves(self, moves: list[int], depth: int, alpha: int, beta: int,
                      ply: int, raw: tuple[int, int, int, int],
                      late: int = _NEVER) -> tuple[int, int]:
        """Principal-variation search of the children; (best score, its move).

        Moves from index `late` on are first searched one ply shallower, and
        again at full depth only if they beat alpha there.
        """
        pos = self.pos
        c = pos.turn
        o = 1 - c
        best, best_move = -INF, moves[0]
        # This loop is the hot path. It does FastBoard.play(col, shape) and
        # FastBoard.undo(col) in place, step for step as the core does them on
        # its documented attributes: two calls per node would cost about 9 %
        # of the search's speed. tests/test_core.py checks every node of a
        # search against the core.
        colors, shapes, heights, counts = pos.colors, pos.shapes, pos.heights, pos.counts
        height = self.geo.height
        zobrist, values = self.tables.zobrist, self.cell_values
        search = self._search
        for i, m in enumerate(moves):
            col = m >> 1
            shape = m & 1
            h = heights[col]
            idx = col * height + h
            bit = 1 << idx
            kind = 2 * c + shape
            z = zobrist[kind][idx]
            v = values[kind][idx]
            colors[c] |= bit  # FastBoard.play
            shapes[shape] |= bit
            heights[col] = h + 1
            counts[kind] -= 1
            pos.turn = o
            pos.ply += 1
            self.hash ^= z
            self.ps += v
            if i == 0:
                score = -search(depth, -beta, -alpha, ply + 1, raw, m)
            else:
                score = alpha + 1
                if i >= late:
                    score = -search(depth - 1, -alpha - 1, -alpha, ply + 1, raw, m)
                if score > alpha:
                    score = -search(depth, -alpha - 1, -alpha, ply + 1, raw, m)
                    if alpha < score < beta:
                        score = -search(depth, -beta, -alpha, ply + 1, raw, m)
            colors[c] ^= bit  # FastBoard.undo
            shapes[shape] ^= bit
            heights[col] = h
            counts[kind] += 1
            pos.turn = c
            pos.ply -= 1
            self.hash ^= z
            self.ps -= v
            if score > best:
                best, best_move = score, m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best, best_move

    ext_limit = 64
    """Plies beyond which forced blocks at the horizon are no longer extended."""

    def _order(self, moves: list[int], c: int, ply: int, tt_move: int) -> None:
        if len(moves) < 2:
            return
        moves.sort(key=self.history[c].__getitem__, reverse=True)
        k1, k2 = self.killers[ply]
        for k in (k2, k1, tt_move):
            if k >= 0 and k in moves:
                moves.remove(k)
                moves.insert(0, k)

    def _defer_poisoned(self, moves: list[int], poison: int) -> None:
        """Order last the moves into columns that hold a cell completing the
        opponent's shape run: a player who will run out of its own shape can
        fill such a cell only with the other shape, which loses."""
        masks = self.column_masks
        moves.sort(key=lambda m: bool(masks[m >> 1] & poison))

    def _reward(self, m: int, c: int, ply: int, depth: int) -> None:
        killers = self.killers[ply]
        if killers[0] != m:
            killers[1] = killers[0]
            killers[0] = m
        self.history[c][m] += depth * depth + 1

    def _evaluate(self, c: int, shape_t: tuple[int, int], colour_t: tuple[int, int]) -> int:
        """Static score for the player to move: pieces on good cells, threat
        cells (shape ones above colour ones, on the rows that suit their
        owner's parity), weighed by the pieces each player has left."""
        w = self.w
        s0, s1 = shape_t
        c0, c1 = colour_t
        white_round, red_square = self.pos.counts[0], self.pos.counts[3]
        shape_w = w.shape_threat * popcount(s0)
        shape_r = w.shape_threat * popcount(s1)
        if w.piece_aware:
            # A shape threat needs its owner's own-shape piece to be played,
            # and only the opponent's own-shape piece can block it.
            if not white_round:
                shape_w >>= 1
                shape_r <<= 1
            if not red_square:
                shape_r >>= 1
                shape_w <<= 1
            shape_w -= w.shortage * max(0, popcount(s1) - white_round)
            shape_r -= w.shortage * max(0, popcount(s0) - red_square)
        v = self.ps + shape_w - shape_r
        v += w.colour_threat * (popcount(c0 & ~s0) - popcount(c1 & ~s1))
        good_w, good_r = self.good
        v += w.parity * (popcount((s0 | c0) & good_w) - popcount((s1 | c1) & good_r))
        return v if c == 0 else -v
