#!/usr/bin/env python3
"""A ColorShapeLinks engine in plain Python: random legal moves.

It speaks the csl-game engine protocol (docs/engines.md) on its standard
input and output and imports nothing from csl-game, so it shows everything an
engine in any language must do. Play it with

    csl-game match -W crandom -R minimax --engine "crandom=python3 random_engine.py"

Its parameter, if any, seeds the random choices (``-W crandom --white-params 7``).
"""

import random
import sys


class Game:
    """What the engine needs to know of a match: the settings and the position."""

    def __init__(self, rows, cols, win, round_pieces, square_pieces, time_ms):
        self.rows, self.cols, self.time_ms = rows, cols, time_ms
        self.start_pieces = [round_pieces, square_pieces]
        self.heights = [0] * cols
        self.pieces = [self.start_pieces[:], self.start_pieces[:]]  # [player][shape]
        self.turn = 0  # 0 White, 1 Red

    def set_position(self, moves):
        """Replay the moves ('3r', '0s', ...) from the empty board."""
        self.heights = [0] * self.cols
        self.pieces = [self.start_pieces[:], self.start_pieces[:]]
        self.turn = 0
        for token in moves:
            col, shape = int(token[:-1]), "rs".index(token[-1])
            self.heights[col] += 1
            self.pieces[self.turn][shape] -= 1
            self.turn = 1 - self.turn

    def legal_moves(self):
        shapes = [s for s in (0, 1) if self.pieces[self.turn][s] > 0]
        return [f"{col}{'rs'[s]}" for col in range(self.cols)
                if self.heights[col] < self.rows for s in shapes]


def say(line):
    print(line, flush=True)  # a line the host waits for must not sit in a buffer


def main():
    game, rng = None, random.Random()
    for line in sys.stdin:  # the host closing our input also means quit
        words = line.split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == "csl":
            say("csl 1 RandomPy")
        elif command == "setup":
            game = Game(*map(int, args[:6]))
            if args[6:]:
                rng.seed(" ".join(args[6:]))
            say("ready")
        elif command == "position":
            game.set_position(args)
        elif command == "go":
            moves = game.legal_moves()
            say(f"info {len(moves)} legal moves, {args[0]} ms to choose")
            say(f"move {rng.choice(moves)}")
        elif command == "quit":
            break
        # "stop" needs nothing: this engine answers at once. Unknown lines are ignored.


if __name__ == "__main__":
    main()
