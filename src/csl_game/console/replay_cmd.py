"""The ``replay`` verb, and a replay in the terminal: every move and board
printed, or stepped through with Enter."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TextIO

from csl_game.console.render import LEGEND, render_board
from csl_game.model.board import Board
from csl_game.services import narration as msg
from csl_game.services.replay import Replay, load_replay, load_replays, numbered

__all__ = ["run_replay", "print_replay", "step_replay", "KEYS_HELP"]

KEYS_HELP = "Enter: next, b: back, s: start, e: end, a number: after that move, q: quit"


def _settings_line(replay: Replay) -> str:
    rows, cols, n, round_pieces, square_pieces = replay.settings
    limit = f", {replay.time_limit_ms} ms a move" if replay.time_limit_ms is not None else ""
    return (f"{rows}x{cols}, {n} in a row, {round_pieces} round + {square_pieces} square "
            f"pieces each{limit}")


def header(replay: Replay) -> list[str]:
    """The title, the settings, the moves in notation and the legend."""
    return [replay.title, _settings_line(replay), f"Moves: {replay.notation or '(none)'}",
            "", *("\t" + line for line in LEGEND), ""]


def move_line(replay: Replay, i: int) -> str:
    """'  3. 2r   White (Random) placed a round piece at column 2 after thinking for ...'."""
    played = replay.moves[i]
    color, move = played.move.piece.color, played.move
    text = msg.placed(color, replay.names[color], move.piece.shape, move.col, played.elapsed)
    return f"{i + 1:>3}. {replay.token(i):<5}{text}"


def ending(replay: Replay) -> list[str]:
    """How the match ended: the forfeit if any, the result, the winning run."""
    result = replay.result
    lines = []
    if result.forfeit is not None and result.winner.color is not None:
        loser = result.winner.color.other
        lines.append(msg.forfeit(loser, replay.names[loser], result.forfeit, result.detail))
    lines.append(msg.game_over(result))
    if result.solution:
        lines.append("Solution: " + " ".join(str(p) for p in result.solution))
    return lines


def position(replay: Replay, boards: list[Board], step: int) -> list[str]:
    """What is shown after `step` moves: the move that led there, the board,
    and at the end how the match ended."""
    last = step == len(replay.moves)
    run = replay.result.solution if last else ()
    title = "Start" if step == 0 else move_line(replay, step - 1)
    lines = [title, render_board(boards[step], run), ""]
    return lines + (ending(replay) + [""] if last else [])


def print_replay(replay: Replay, out: TextIO) -> None:
    """The whole match: header, then every move with the board after it, then the end."""
    boards = replay.boards()
    lines = header(replay)
    for step in range(len(boards)):
        lines += position(replay, boards, step)
    print(msg.terminal_safe("\n".join(lines).rstrip("\n")), file=out, flush=True)


def step_replay(replay: Replay, read: Callable[[str], str], out: TextIO) -> None:
    """Show the start, then move through the match as the user asks (KEYS_HELP)
    until they quit or input ends."""
    boards = replay.boards()
    print(msg.terminal_safe("\n".join(header(replay))), file=out, flush=True)
    step, end = 0, len(boards) - 1
    while True:
        print(msg.terminal_safe("\n".join(position(replay, boards, step))), file=out,
              flush=True)
        try:
            answer = read(f"[{step}/{end}] {KEYS_HELP} > ").strip().lower()
        except EOFError:
            return
        if answer == "q":
            return
        step = _next_step(answer, step, end, out)


def _next_step(answer: str, step: int, end: int, out: TextIO) -> int:
    """Where an answer goes from `step` (0 is the start, `end` the last move)."""
    if answer in ("", "n"):
        return min(step + 1, end)
    if answer in ("b", "p"):
        return max(step - 1, 0)
    if answer == "s":
        return 0
    if answer == "e":
        return end
    if answer.isascii() and answer.isdigit() and int(answer) <= end:
        return int(answer)
    print(msg.terminal_safe(f"'{answer}'? {KEYS_HELP} (moves 0 to {end})"), file=out,
          flush=True)
    return step


def run_replay(args: argparse.Namespace, in_window: Callable[[Replay], int]) -> int:
    """The ``replay`` verb: list a file's matches, review one, print it or step
    through it in the terminal (with --console, or when no window can open), or
    show it with `in_window` (the command line's: pygame loads only then).

    Raises:
        CslError: an unreadable file, or no such match in it.
    """
    if args.list:
        for number, listed in sorted(numbered(load_replays(args.results_file)).items()):
            print(msg.terminal_safe(
                f"{number:>4}  {listed.players}: {msg.game_over(listed.result)}"))
        return 0
    replay = load_replay(args.results_file, args.match)
    if args.review:
        from csl_game.console.review_cmd import run_review

        return run_review(replay, args)
    if args.console or not _has_display():
        if sys.stdin.isatty() and sys.stdout.isatty():
            step_replay(replay, input, sys.stdout)
        else:
            print_replay(replay, sys.stdout)
        return 0
    return in_window(replay)


def _has_display() -> bool:
    """Whether a window can open: a chosen SDL driver, or a desktop session on
    systems whose windows need one (X11 or Wayland)."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True
