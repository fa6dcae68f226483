"""An engine that misbehaves on purpose, in the way its first argument names.

Until it misbehaves it plays like a good engine: it answers the handshake and
the setup, and plays the first free column with a round piece (or a square one
when it has no round pieces left). It misbehaves on the first ``go``, unless
the behaviour is about the handshake or the setup.

Whatever it does, it ends when its parent process is gone, so a test that had
its worker killed leaves no engine behind.
"""

import os
import signal
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
PARENT = os.getppid()


def watch_parent():
    while os.getppid() == PARENT:
        time.sleep(0.05)
    os._exit(0)


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Game:
    def __init__(self, rows, cols, win, round_pieces, square_pieces, time_ms):
        self.rows, self.cols, self.time_ms = rows, cols, time_ms
        self.start = [round_pieces, square_pieces]
        self.moves = []

    def first_free(self):
        heights, used = [0] * self.cols, [[0, 0], [0, 0]]
        for i, token in enumerate(self.moves):
            heights[int(token[:-1])] += 1
            used[i % 2]["rs".index(token[-1])] += 1
        me = len(self.moves) % 2
        col = next(c for c in range(self.cols) if heights[c] < self.rows)
        shape = "r" if used[me][0] < self.start[0] else "s"
        return f"{col}{shape}"


def go(game, lines):
    if MODE == "hang":  # never answers, not even stop
        while True:
            time.sleep(1)
    if MODE == "slow":  # thinks until told to stop, then answers
        for line in lines:
            if line.strip() == "stop":
                say(f"move {game.first_free()}")
                return
    if MODE == "late":  # answers after the time limit, deaf to stop
        time.sleep(game.time_ms / 1000 + 0.1)
    if MODE == "spin":  # computes past the time limit, deaf to stop (its CPU time counts)
        spin_until = time.process_time() + game.time_ms / 1000 + 0.1
        while time.process_time() < spin_until:
            pass
    answers = {
        "crash": None, "segfault": None, "garbage": "hello there",
        "debug": "thinking about column 0...", "badmove": "move 3x",
        "negative": "move -1r", "column": "move 99r", "full": "move 0r", "round": "move 0r",
        "none": "move none", "error": "error deliberate failure in go",
        "twice": f"move {game.first_free()}\nmove {game.first_free()}",
    }
    if MODE == "crash":
        sys.stdout.flush()
        os._exit(3)
    if MODE == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "chatty":
        say("info looking at 3 moves")
        sys.stderr.write("a line on standard error\n")
        sys.stderr.flush()
    say(answers.get(MODE) or f"move {game.first_free()}")


def main():
    threading.Thread(target=watch_parent, daemon=True).start()
    lines = iter(sys.stdin.readline, "")
    game = None
    for line in lines:
        words = line.split()
        if not words:
            continue
        if words[0] == "csl":
            if MODE == "silent":
                time.sleep(3600)
            if MODE == "quit-early":
                return
            say({"version": "csl 2 Future", "nameless": "csl 1"}.get(MODE, f"csl 1 Bad {MODE}"))
        elif words[0] == "setup":
            if MODE == "refuse":
                say("error cannot use parameters " + " ".join(words[7:]))
            else:
                game = Game(*map(int, words[1:7]))
                say("ready" if MODE == "nameless" else f"ready Bad {MODE}")
        elif words[0] == "position":
            game.moves = words[1:]
        elif words[0] == "go":
            go(game, lines)
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()
