"""The texts of the message log, shared by the GUI and the console.

Wording follows the reference framework's match view, so logs of both
frontends read the same where they overlap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from csl_game.engine import ForfeitReason, MatchResult, Standing, TieBreak, TieRound
from csl_game.model.board import Board, PColor, Pos, PShape, Winner

__all__ = ["who", "match_started", "pre_match", "background_result", "thinking", "placed",
           "forfeit", "thinking_info", "game_over", "standing_line", "session_over",
           "first_line", "tie_break_round", "tie_break_summary", "result_title",
           "explain_result", "how_it_ended", "counts_for_scores", "setup_cause", "FORFEIT_WORDS",
           "hint_text", "undo_text", "terminal_safe", "counted"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      r"\u202a-\u202e\u2066-\u2069]")
"""What a terminal would act on rather than show: every control character but
newline and tab (C0, DEL, C1: escape sequences, carriage return, bell,
backspace), and the marks that reorder or break the text around them (bidi
controls, line and paragraph separators)."""


def terminal_safe(text: str) -> str:
    """`text` as a terminal may print it: every control character but newline
    and tab shown escaped, as Python writes it ('\\x1b[2J', '\\u202e'), so a
    thinker's name or output cannot clear the screen, move the cursor, retitle
    the window or hide what it wrote. Every path that prints a name or what a
    thinker said to the console goes through this."""
    return _CONTROL.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def counted(n: int, noun: str) -> str:
    """'1 match', '2 matches', '2 match lines': the count with its noun, plural
    where it needs to be (the last word's -s or -es)."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun}{'es' if noun.endswith(('ch', 'sh', 's', 'x')) else 's'}"


def who(color: PColor, name: str) -> str:
    """'White (Random)'."""
    return f"{color} ({name})"


def match_started(white: str, red: str) -> str:
    """'=> Random (White) vs MinimaxD3 (Red) <='."""
    return f"=> {white} (White) vs {red} (Red) <="


def pre_match(index: int, white: str, red: str) -> str:
    """'* Match 2: Random (White) vs MinimaxD3 (Red) now playing...' (index from 0)."""
    return f"* Match {index + 1}: {white} (White) vs {red} (Red) now playing..."


def background_result(index: int, white: str, red: str, result: MatchResult) -> str:
    """'* Match 3 (off screen): Random (White) vs MinimaxD3 (Red): Game Over, Red
    (MinimaxD3) won' (index from 0)."""
    return f"* Match {index + 1} (off screen): {white} (White) vs {red} (Red): {game_over(result)}"


def thinking(color: PColor, name: str) -> str:
    """'Red (MinimaxD3) is thinking, please wait...'."""
    return f"{who(color, name)} is thinking, please wait..."


def placed(color: PColor, name: str, shape: PShape, col: int, elapsed: float) -> str:
    """'White (Random) placed a square piece at column 4 after thinking for 0.1234s'."""
    return (f"{who(color, name)} placed a {PShape(shape)} piece at column {col} "
            f"after thinking for {elapsed:.4f}s")


def first_line(text: str) -> str:
    """The first line of a possibly multi-line detail (a traceback, say)."""
    return text.splitlines()[0] if text else ""


def setup_cause(detail: str) -> str:
    """What went wrong when a thinker could not be set up, without the runner's
    'thinker X could not be set up: ' preamble (first line only)."""
    return first_line(detail).split(" could not be set up: ", 1)[-1]


def forfeit(color: PColor, name: str, reason: ForfeitReason, detail: str = "") -> str:
    """'Red (Sleepy) exceeded the time limit: time limit 500 ms' (first detail line only)."""
    first = setup_cause(detail) if reason is ForfeitReason.SETUP else first_line(detail)
    return f"{who(color, name)} {reason}" + (f": {first}" if first else "")


def thinking_info(color: PColor, name: str, text: str) -> str:
    """'White (MinimaxD3) says: depth 3 done'."""
    return f"{who(color, name)} says: {text}"


def game_over(result: MatchResult) -> str:
    """'Game Over, White (MinimaxD3) won', "Game Over, it's a draw", or, when
    the loser never got to play, 'Game Over, White (Human) won: Red (Broken)
    could not be set up' (a forfeit all the same, as the competition counts it)."""
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return "Game Over, it's a draw"
    won = f"Game Over, {who(color, result.winner_name or '')} won"
    if result.forfeit is ForfeitReason.SETUP:
        loser = result.red if color is PColor.WHITE else result.white
        return f"{won}: {who(color.other, loser)} could not be set up"
    return won


def standing_line(s: Standing) -> str:
    """'1. MinimaxD3: 9 pts (3 W, 0 D, 1 L)'."""
    return f"{s.position}. {s.name}: {s.points} pts ({s.wins} W, {s.draws} D, {s.losses} L)"


def session_over(table: list[Standing] | tuple[Standing, ...]) -> list[str]:
    """The final standings as log lines, a title first."""
    return ["Final standings:", *(standing_line(s) for s in table)]


def tie_break_round(tie_round: TieRound, players: Sequence[str]) -> str:
    """'* Tie-break 1 for first place, the time limit doubled (1000 ms): A, B'."""
    return (f"* Tie-break {tie_round.number} for first place, the time limit "
            f"{tie_round.stage} ({tie_round.time_limit_ms} ms): {', '.join(players)}")


def tie_break_summary(tb: TieBreak, names: Sequence[str]) -> str:
    """How a tie in first place ended, in one line."""
    played = len(tb.steps) - 1
    tournaments = f"{played} tie-break tournament{'s' if played != 1 else ''}"
    if tb.tied:
        return (f"Officially tied for first place after {tournaments}: "
                + ", ".join(names[p] for p in tb.tied))
    how = "head-to-head points" if played == 0 else tournaments
    return f"The tie for first place was broken by {how}"


# ----------------------------------------------------------------- why a match ended
FORFEIT_WORDS: dict[ForfeitReason, tuple[str, str]] = {
    ForfeitReason.TIMEOUT: ("timeout", "took longer than the time limit"),
    ForfeitReason.EXCEPTION: ("crash", "crashed (its code raised an error)"),
    ForfeitReason.WORKER_DIED: ("crash", "crashed (its process died)"),
    ForfeitReason.MEMORY: ("out of memory", "used more memory than allowed"),
    ForfeitReason.IGNORED_CANCELLATION: ("timeout", "did not stop thinking when time was up"),
    ForfeitReason.NO_MOVE: ("gave up", "gave up (it found no move to play)"),
    ForfeitReason.INVALID_COLUMN: ("invalid move", "tried a column that does not exist"),
    ForfeitReason.FULL_COLUMN: ("invalid move", "tried to play in a full column"),
    ForfeitReason.NO_PIECES: ("invalid move", "tried a shape it has no pieces left of"),
    ForfeitReason.SETUP: ("setup failed", "could not be set up"),
    ForfeitReason.PROTOCOL: ("crash", "wrote garbage on its worker's pipe"),
    ForfeitReason.INTERFERED: ("interfered", "was stopped or killed by another program"),
    ForfeitReason.DISCONNECTED: ("left", "left the game (its connection dropped) and did "
                                 "not come back"),
}
"""Per forfeit: (a word or two for a results table, what the player did, in plain words)."""

_SHAPE_PLURAL = {PShape.ROUND: "round pieces", PShape.SQUARE: "squares"}
_COLOR_PIECES = {PColor.WHITE: "white pieces", PColor.RED: "red pieces"}


def _name(result: MatchResult, color: PColor, you: PColor | None) -> str:
    """'You', or 'Red (MinimaxD3)'."""
    if color is you:
        return "You"
    return who(color, result.white if color is PColor.WHITE else result.red)


def _line_kind(board: Board, result: MatchResult) -> tuple[str, bool]:
    """What the winning run has in common ('squares', 'red pieces') and
    whether it counted by shape."""
    pieces = [board[p.row, p.col] for p in result.solution]
    shapes = {p.shape for p in pieces if p is not None}
    if len(shapes) == 1:
        return _SHAPE_PLURAL[shapes.pop()], True
    colors = {p.color for p in pieces if p is not None}
    return _COLOR_PIECES[colors.pop()] if len(colors) == 1 else "pieces", False


def _colour_run_through(board: Board, pos: Pos, color: PColor) -> bool:
    """Whether `win_sequence` pieces of `color` in a row pass through `pos`."""
    n = board.win_sequence
    for corridor in board.win_corridors:
        if pos not in corridor:
            continue
        run = 0
        for p in corridor:
            piece = board[p.row, p.col]
            run = run + 1 if piece is not None and piece.color is color else 0
            if run >= n:
                return True
    return False


def _why_line(result: MatchResult, board: Board, you: PColor | None) -> str:
    winner = result.winner.color
    assert winner is not None
    kind, by_shape = _line_kind(board, result)
    last = result.moves[-1].move if result.moves else None
    if last is None or last.piece.color is winner:
        mixed = by_shape and len({board[p.row, p.col].color  # type: ignore[union-attr]
                                  for p in result.solution}) > 1
        rule = f" ({kind} count for {winner}, whatever their colour)" if mixed else ""
        return f"{_name(result, winner, you)} made {len(result.solution)} {kind} in a row{rule}"
    mover = _name(result, last.piece.color, you)
    whose = "Your" if mover == "You" else f"{mover}'s"
    shape = "square" if last.piece.shape is PShape.SQUARE else "round piece"
    owner = "your" if winner is you else f"{winner}'s"
    if by_shape and _colour_run_through(board, Pos(last.row, last.col), last.piece.color):
        rule = "shape beats colour"
    else:
        rule = f"{kind} count for {winner}, whatever their colour"
    return f"{whose} {shape} completed {owner} line of {kind} \u2014 {rule}"


def explain_result(result: MatchResult, board: Board, you: PColor | None = None) -> str:
    """Why the match ended, in plain words, from its result and its final board.

    `you` is the colour of the one human player, when the text speaks to them.
    """
    loser_color = result.winner.color.other if result.winner.color is not None else None
    if result.winner is Winner.DRAW or loser_color is None:
        if board.move_count >= board.rows * board.cols:
            return "The board is full and nobody made a line"
        return "Both players ran out of pieces before anyone made a line"
    subject = _name(result, loser_color, you)
    if result.resigned:
        return f"{subject} resigned"
    if result.forfeit is ForfeitReason.SETUP:
        cause = setup_cause(result.detail)
        return f"{subject} could not be set up" + (f": {cause}" if cause else "")
    if result.forfeit is not None:
        return f"{subject} {FORFEIT_WORDS[result.forfeit][1]}, and so lost"
    return _why_line(result, board, you)


def counts_for_scores(result: MatchResult) -> bool:
    """Whether a match belongs in a player's record against an AI: not when
    a side could not even be set up (no game was played)."""
    return result.forfeit is not ForfeitReason.SETUP


def how_it_ended(result: MatchResult, cells: int | None = None) -> str:
    """A word or two for a results table: '4 in a row', 'timeout', 'board full'.

    `cells` (rows x columns) tells a full board from players out of pieces.
    """
    if result.forfeit is not None:
        return FORFEIT_WORDS[result.forfeit][0]
    if result.resigned or (result.winner.color is not None and not result.solution):
        return "resigned"  # a results file keeps no flag: a win with no line was resigned
    if result.winner is Winner.DRAW:
        if cells is None:
            return "draw"
        return "board full" if len(result.moves) >= cells else "out of pieces"
    return f"{len(result.solution)} in a row"


def result_title(result: MatchResult, you: PColor | None = None) -> str:
    """'You win!', 'You lose', 'Red (MinimaxD3) wins', "It's a draw", or
    'The AI failed to start' when the other side could not even be set up
    (no game was played, so no win is claimed for the human)."""
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return "It's a draw"
    if result.forfeit is ForfeitReason.SETUP and you is not None and color is you:
        return "The AI failed to start"
    if you is not None:
        return "You win!" if color is you else "You lose"
    return f"{who(color, result.winner_name or '')} wins"


def hint_text(shape: PShape, col: int) -> str:
    """'Hint: a square piece in column 3'."""
    return f"Hint: a {PShape(shape)} piece in column {col}"


def undo_text(count: int) -> str:
    """'Took back 2 moves'."""
    return f"Took back {count} move{'s' if count != 1 else ''}"
