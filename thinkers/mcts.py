"""Monte Carlo tree search (UCT) within the time limit.

Every tree node looks at the tactics of its position first: a win in one is
taken, an opponent's threat on a playable cell is blocked, and moves that
complete the opponent's shape run or fill the cell under an opponent's
threat are left out (they lose at once). Light playouts do so at every step.

Parameters (``key=value``, separated by spaces or commas):

- ``c=X``          exploration constant (default 0.8);
- ``playout=KIND`` ``random`` (random moves, each checked for a win; the
  default) or ``light`` (the tactics above at every step: three to four
  times slower, and weaker at short time limits in the league);
- ``playouts=N``   at most N playouts per move (default: as many as time allows);
- ``nodes=N``      a node limit per move: at most N tree visits (one playout
  each; default 0: no limit), the same on every machine as long as the time
  limit is not reached first (`csl-game sprt|session|league --nodes N` sets
  it); with ``seed=`` the same game on every machine;
- ``tree=N``       most tree nodes kept (default 300,000), for the memory limit
  (``nodes=`` meant this before the node limit);
- ``margin=MS``    time kept free before the limit (default: 30 % of the
  limit, at least 30 ms);
- ``seed=N``       seed of the random moves (default: a fresh one).

Named ``MCTS`` plus the parameters that were set, e.g. ``MCTSC1.4``.
"""

from __future__ import annotations

import math
import random

from csl_game import Board, CancellationToken, Winner
from csl_game.model.core import FastBoard, Geometry

from ._params import SearchThinker, Value, parse_params, thinker_name, time_budget
from ._tactics import Tables, column_of, tables_for, win_cells, winning_shape

_DEFAULTS: dict[str, Value] = {"c": 0.8, "playout": "random", "playouts": 0, "nodes": 0,
                               "tree": 300_000, "margin": -1, "seed": -1}
_LABELS = {"c": "C", "playout": "P", "playouts": "X", "nodes": "N", "tree": "T",
           "margin": "M", "seed": "S"}
_PLAYOUTS = ("random", "light")
_DRAW = -1
_LATE = -3
_OUTCOMES = {Winner.WHITE: 0, Winner.RED: 1, Winner.DRAW: _DRAW}
"""A finished game as this module scores it: the winner's colour, or _DRAW."""


class _Node:
    """A tree node; `score` sums the rewards of the player who moved into it."""

    __slots__ = ("move", "children", "untried", "visits", "score", "result")

    def __init__(self, move: int, result: float | None = None) -> None:
        self.move = move
        self.children: list[_Node] = []
        self.untried: list[tuple[int, float | None]] | None = None
        self.visits = 0
        self.score = 0.0
        self.result = result
        """The reward of the move into this node when it ended the game."""


def _safe_moves(pos: FastBoard, tables: Tables) -> tuple[list[int], int]:
    """(moves worth playing, winner if the game is decided now or -2).

    A win in one gives just that move; an opponent's threat gives the blocks;
    two threats, or no move that does not lose at once, decide the game.
    """
    geo = pos.geometry
    c = pos.turn
    w, r = pos.colors
    s0, s1, c0, c1 = tables.threat_sets(pos.shapes[0], pos.shapes[1], w, r)
    shape_t = (s0, s1)
    playable = ((w | r) + geo.bottom) & geo.full
    wins, opp_hard = win_cells(pos.counts, c, shape_t, (c0, c1))
    if wins & playable:
        low = wins & playable & -(wins & playable)
        return [column_of(geo, low) * 2 + winning_shape(pos)], c
    last = pos.ply + 1 >= geo.max_moves
    forced = 0 if last else playable & opp_hard
    if forced & (forced - 1):
        return [], 1 - c
    cells = forced or playable
    loses_off = shape_t[1 - c]
    shapes = [s for s in (c, 1 - c) if pos.counts[2 * c + s]]
    moves: list[int] = []
    h = geo.height
    while cells:
        bit = cells & -cells
        cells ^= bit
        if not last and (bit << 1) & opp_hard:
            continue
        col = (bit.bit_length() - 1) // h
        moves.extend(2 * col + s for s in shapes if s == c or not bit & loses_off)
    return moves, (-2 if moves else 1 - c)


class MctsThinker(SearchThinker):
    """UCT search; tactics-aware tree, random or light-heuristic playouts."""

    takes_nodes = True

    def setup(self, params: str) -> None:
        values, given = parse_params(params, _DEFAULTS)
        if values["playout"] not in _PLAYOUTS:
            raise ValueError(f"playout must be one of {', '.join(_PLAYOUTS)}, "
                             f"got {values['playout']!r}")
        self._name = thinker_name("MCTS", values, given, _LABELS)
        self.c = float(values["c"])
        self.light = values["playout"] == "light"
        limits = [int(values[k]) for k in ("playouts", "nodes") if int(values[k])]
        self.max_playouts = min(limits, default=1 << 62)
        self.max_nodes = max(1, int(values["tree"]))
        self.margin_ms = int(values["margin"])
        seed = int(values["seed"])
        self.rng = random.Random(None if seed < 0 else seed)
        self._root: _Node | None = None
        self._root_moves: tuple[int, ...] = ()
        self._geo: Geometry | None = None
        self._tables: Tables | None = None
        self.nodes = 0
        self.deadline = 0.0

    def _choose(self, board: Board, ct: CancellationToken, start: float) -> int:
        pos = board.fast_board()
        geo = pos.geometry
        self._tables = tables = tables_for(geo)
        moves, _ = _safe_moves(pos, tables)
        if len(moves) == 1 or not moves:
            self.on_thinking_info("forced move")
            return moves[0] if moves else pos.legal_moves()[0]
        root = self._reuse(board, geo)
        self.deadline = start + time_budget(min(self.time_limit_ms, ct.time_left() * 1000),
                                            self.margin_ms, self.cpu_clock)
        playouts = 0
        clock = self.now
        while not ct.is_cancellation_requested and playouts < self.max_playouts:
            if clock() >= self.deadline or not self._iterate(root, pos):
                break
            playouts += 1
        if not root.children:
            return moves[0]
        best = max(root.children, key=lambda n: n.visits)
        elapsed = max(self.now() - start, 1e-6)
        self.on_thinking_info(f"playouts={playouts} tree={self.nodes} "
                              f"pps={playouts / elapsed:.0f} "
                              f"value={best.score / max(best.visits, 1):.2f} "
                              f"time={elapsed * 1000:.0f}ms")
        return best.move

    def _reuse(self, board: Board, geo: Geometry) -> _Node:
        """The subtree of the last search that matches the game so far, or a new root."""
        played = tuple(m.col * 2 + int(m.piece.shape) for m in board.history)
        node = self._root
        known = self._root_moves
        if node is not None and self._geo is geo and played[:len(known)] == known:
            for m in played[len(known):]:
                node = next((ch for ch in node.children if ch.move == m), None)
                if node is None:
                    break
        else:
            node = None
        if node is None or node.result is not None:
            node = _Node(-1)
        # Every node of a subtree was made by one of the iterations through its root.
        self.nodes = node.visits + 1
        self._root, self._root_moves, self._geo = node, played, geo
        return node

    def _iterate(self, root: _Node, root_pos: FastBoard) -> bool:
        """One selection, expansion, playout and backup; False if the
        playout ran past the deadline (and nothing was backed up)."""
        pos = root_pos.copy()
        node = root
        path = [node]
        while node.result is None:
            if node.untried is None:
                node.untried = self._expansions(pos)
            if node.untried and self.nodes < self.max_nodes:
                move, result = node.untried.pop(self.rng.randrange(len(node.untried)))
                pos.play(move >> 1, move & 1)
                node.children.append(_Node(move, result))
                self.nodes += 1
                node = node.children[-1]
                path.append(node)
                break
            if not node.children:
                break
            node = self._select(node)
            pos.play(node.move >> 1, node.move & 1)
            path.append(node)
        if node.result is not None:
            reward = node.result
        else:
            winner = self._playout(pos)
            if winner == _LATE:
                return False
            mover = 1 - pos.turn
            reward = 0.5 if winner == _DRAW else float(winner == mover)
        for n in reversed(path):
            n.visits += 1
            n.score += reward
            reward = 1.0 - reward
        return True

    def _expansions(self, pos: FastBoard) -> list[tuple[int, float | None]]:
        """The moves of a node, each with its reward when it ends the game."""
        assert self._tables is not None, "_choose() sets the tables first"
        moves, decided = _safe_moves(pos, self._tables)
        c = pos.turn
        if not moves:
            return [(m, 0.0) for m in pos.legal_moves()[:1]]
        if decided == c:
            return [(moves[0], 1.0)]
        last = pos.ply + 1 >= pos.geometry.max_moves
        return [(m, 0.5 if last else None) for m in moves]

    def _select(self, node: _Node) -> _Node:
        log_c = self.c * math.sqrt(math.log(node.visits + 1))
        best, best_value = node.children[0], -1.0
        for ch in node.children:
            v = ch.visits
            value = ch.score / v + log_c / math.sqrt(v) if v else 1e9
            if value > best_value:
                best, best_value = ch, value
        return best

    def _playout(self, pos: FastBoard) -> int:
        """Play to the end; the winner's colour or _DRAW."""
        choice = self.rng.choice
        max_moves = pos.geometry.max_moves
        if not self.light:
            return self._random_playout(pos)
        tables = self._tables
        assert tables is not None, "_choose() sets the tables first"
        while pos.ply < max_moves:
            if not pos.ply & 15 and self.now() >= self.deadline:
                return _LATE
            moves, decided = _safe_moves(pos, tables)
            if decided != -2:
                return decided
            m = choice(moves)
            pos.play(m >> 1, m & 1)
        return _DRAW

    def _random_playout(self, pos: FastBoard) -> int:
        choice = self.rng.choice
        none = Winner.NONE
        while True:
            if not pos.ply & 15 and self.now() >= self.deadline:
                return _LATE
            m = choice(pos.legal_moves())
            pos.play(m >> 1, m & 1)
            result = pos.winner_after(m & 1)
            if result is not none:
                return _OUTCOMES[result]
