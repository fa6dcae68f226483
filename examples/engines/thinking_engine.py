#!/usr/bin/env python3
"""A ColorShapeLinks engine that thinks: alpha-beta search, deepened until
its time is spent or csl-game says ``stop``.

It speaks the csl-game engine protocol (docs/engines.md) and imports nothing
from csl-game. What it shows beyond random_engine.py:

- it keeps reading its input while it thinks (a reader thread), so ``stop``
  is seen at once and answered with the best move found so far;
- it deepens its search one ply at a time over the list of legal moves, best
  move first, so that there is always a move to answer with;
- it knows the winning rule, shape before colour: a white square completing
  four whites and four squares wins for Red.

    csl-game match -W thinker -R minimax --engine "thinker=python3 thinking_engine.py"

Its parameter, if any, is the deepest search (``--white-params 3``); by
default it deepens until its time is up.
"""

import queue
import sys
import threading
import time

WIN = 1_000_000
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # (row, col) steps; rows grow upwards
MARGIN_S = 0.02  # answer this much before the time given in `go`


class Stop(Exception):
    """Time is up, or csl-game said stop."""


class Game:
    """The settings and the position: a grid of pieces, (player, shape) each."""

    def __init__(self, rows, cols, win, round_pieces, square_pieces, time_ms):
        self.rows, self.cols, self.win, self.time_ms = rows, cols, win, time_ms
        self.start_pieces = [round_pieces, square_pieces]
        self.set_position([])

    def set_position(self, moves):
        self.grid = [[None] * self.cols for _ in range(self.rows)]
        self.heights = [0] * self.cols
        self.pieces = [self.start_pieces[:], self.start_pieces[:]]  # [player][shape]
        self.turn, self.played = 0, 0  # 0 White, 1 Red
        for token in moves:
            self.play(int(token[:-1]), "rs".index(token[-1]))

    def legal_moves(self):
        """(column, shape) pairs, the middle columns first (they make more lines)."""
        shapes = [s for s in (0, 1) if self.pieces[self.turn][s] > 0]
        middle = (self.cols - 1) / 2
        columns = sorted(range(self.cols), key=lambda c: abs(c - middle))
        return [(c, s) for c in columns if self.heights[c] < self.rows for s in shapes]

    def play(self, col, shape):
        row = self.heights[col]
        self.grid[row][col] = (self.turn, shape)
        self.heights[col] += 1
        self.pieces[self.turn][shape] -= 1
        self.turn, self.played = 1 - self.turn, self.played + 1

    def undo(self, col):
        self.heights[col] -= 1
        row = self.heights[col]
        player, shape = self.grid[row][col]
        self.grid[row][col] = None
        self.pieces[player][shape] += 1
        self.turn, self.played = player, self.played - 1

    def winner_after(self, col):
        """The winner made by the piece just dropped in `col` (0 White, 1 Red),
        or None. Only lines through that piece can be new, and shape is
        checked before colour: round wins for White, square for Red."""
        row = self.heights[col] - 1
        player, shape = self.grid[row][col]
        if self._run(row, col, lambda piece: piece[1] == shape):
            return shape  # round (0) is White's shape, square (1) Red's
        if self._run(row, col, lambda piece: piece[0] == player):
            return player
        return None

    def _run(self, row, col, same):
        for dr, dc in DIRECTIONS:
            count = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and self.grid[r][c] is not None \
                        and same(self.grid[r][c]):
                    count, r, c = count + 1, r + sign * dr, c + sign * dc
            if count >= self.win:
                return True
        return False

    def over(self):
        return self.played == self.rows * self.cols or not any(map(sum, self.pieces))


class Searcher:
    """Negamax with alpha-beta pruning; raises Stop when told or out of time."""

    def __init__(self, game, stopped, deadline):
        self.game, self.stopped, self.deadline = game, stopped, deadline
        self.nodes = 0

    def check(self):
        self.nodes += 1
        if self.nodes % 256 == 0 and (self.stopped.is_set()
                                      or time.perf_counter() > self.deadline):
            raise Stop

    def value(self, depth, alpha, beta, ply):
        """The position's value for the player to move."""
        self.check()
        game = self.game
        if depth == 0 or game.over():
            return 0
        best = -WIN
        for col, shape in game.legal_moves():
            game.play(col, shape)
            won = game.winner_after(col)
            if won is None:
                score = -self.value(depth - 1, -beta, -alpha, ply + 1)
            else:  # the mover is 1 - game.turn; a shape line may be the opponent's
                score = WIN - ply if won == 1 - game.turn else -(WIN - ply)
            game.undo(col)
            if score > best:
                best = score
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        return best

    def root(self, moves, depth):
        """Each root move's value at `depth`, best first."""
        values = {}
        for col, shape in moves:
            self.game.play(col, shape)
            won = self.game.winner_after(col)
            if won is None:
                values[(col, shape)] = -self.value(depth - 1, -WIN, WIN, 1)
            else:
                values[(col, shape)] = WIN if won == 1 - self.game.turn else -WIN
            self.game.undo(col)
        return sorted(moves, key=lambda m: -values[m]), values


def think(game, time_ms, max_depth, stopped, say):
    """The best move found by iterative deepening until Stop."""
    started = time.perf_counter()
    searcher = Searcher(game, stopped, started + max(0.0, time_ms / 1000 - MARGIN_S))
    moves = game.legal_moves()
    best = moves[0]
    depth = 1
    while depth <= max_depth:
        try:
            moves, values = searcher.root(moves, depth)
        except Stop:
            break
        best = moves[0]
        say(f"info depth {depth} nodes {searcher.nodes} best {best[0]}{'rs'[best[1]]} "
            f"score {values[best]}")
        if abs(values[best]) >= WIN - depth or depth >= game.rows * game.cols - game.played:
            break  # a proven result, or the search reached the end of the game
        depth += 1
    return f"{best[0]}{'rs'[best[1]]}"


def say(line):
    print(line, flush=True)  # a line the host waits for must not sit in a buffer


def read_input(lines, stopped):
    """Reader thread: every line to the main thread; `stop` (and the end of the
    input) also set `stopped` at once, so that a search in progress sees it."""
    for line in sys.stdin:
        if line.split()[:1] in (["stop"], ["quit"]):
            stopped.set()
        lines.put(line)
    stopped.set()
    lines.put("quit")


def main():
    lines, stopped = queue.Queue(), threading.Event()
    threading.Thread(target=read_input, args=(lines, stopped), daemon=True).start()
    game, max_depth = None, 10 ** 6
    while True:
        words = lines.get().split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == "csl":
            say("csl 1 ThinkingPy")
        elif command == "setup":
            game = Game(*map(int, args[:6]))
            if args[6:]:
                if not args[6].isdigit() or int(args[6]) < 1:
                    say(f"error the parameter is the deepest search, a number; got {args[6]}")
                    continue
                max_depth = int(args[6])
            say(f"ready ThinkingPy{'D' + str(max_depth) if args[6:] else ''}")
        elif command == "position":
            game.set_position(args)
        elif command == "go":
            stopped.clear()
            say(f"move {think(game, int(args[0]), max_depth, stopped, say)}")
        elif command == "quit":
            break
        # a "stop" that arrives after the answer needs nothing: the next `go` clears it


if __name__ == "__main__":
    main()
