"""Competition outputs in the reference framework's layout, from a results file.

The reference organisers publish a session as the reference console's
competition listener writes it: ``standings.md`` (update time, configuration
table, classification, results with a link per match) and, in ``results/``,
a transcript per match named ``<White>vs<Red>.txt`` holding what the
reference console prints during the match (legend, boards, turns, moves with
their times in whole milliseconds, the winner and the winning run). This
module writes the same files from a results file, so a site built on them
can take csl_game's sessions as they are.

Two things the results file does not hold are left out of the transcripts:
the lines thinkers print with on_thinking_info(), and exception texts beyond
their first line.
"""

from __future__ import annotations

import email.utils
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from csl_game.engine import ForfeitReason, MatchResult, Points, recorded_settings
from csl_game.errors import ConfigError
from csl_game.model.board import PIECE_LETTERS, Board, PColor, Pos, Winner
from csl_game.services.report import Report, load_report

__all__ = ["RESULTS_FOLDER", "STANDINGS_FILE", "transcript", "standings_markdown",
           "transcript_name", "write_reference"]

RESULTS_FOLDER = "results"
STANDINGS_FILE = "standings.md"
_LEGEND = ("\tw - White Round", "\tW - White Square", "\tr - Red   Round",
           "\tR - Red   Square")
# The reference's words for the forfeits it knows; the others keep csl_game's.
_REASONS = {ForfeitReason.TIMEOUT: "Time limit expired",
            ForfeitReason.NO_MOVE: "Thinker unable to perform move"}


def _who(color: PColor, name: str) -> str:
    """'Random (White)': the reference's way of naming a player."""
    return f"{name} ({color})"


def _rows(board: Board) -> list[str]:
    return ["".join("." if (p := board[row, col]) is None else PIECE_LETTERS[p]
                    for col in range(board.cols))
            for row in range(board.rows - 1, -1, -1)]


def _reason(result: MatchResult) -> str:
    """Why the loser forfeited, in the reference's words where it has them."""
    assert result.forfeit is not None
    first = result.detail.splitlines()[0] if result.detail else ""
    if result.forfeit in _REASONS:
        return _REASONS[result.forfeit]
    if result.forfeit in (ForfeitReason.EXCEPTION, ForfeitReason.SETUP):
        return f"Thinker exception: '{first}'"
    column = re.search(r"at column (\d+)", first)
    if result.forfeit is ForfeitReason.FULL_COLUMN and column:
        return f"Tried to place piece in column {column[1]}, which is full"
    return f"{result.forfeit}" + (f": {first}" if first else "")


def transcript(result: MatchResult, settings: Sequence[int]) -> str:
    """The match as the reference console prints it (the file of one match).

    Raises:
        ConfigError: a recorded move cannot be played on a board of `settings`.
    """
    board = Board(*settings)
    names = (result.white, result.red)
    lines = [f"=> {result.white} (White) vs {result.red} (Red) <=", "", *_LEGEND, "",
             *_rows(board), ""]
    for played in result.moves:
        color, move = played.move.piece.color, played.move
        if board.do_move(move.piece.shape, move.col) < 0:
            raise ConfigError(f"move at column {move.col} does not fit the board")
        lines += [f"{_who(color, names[color])} turn",
                  f"{_who(color, names[color])} placed a {move.piece.shape.name.title()} "
                  f"piece at column {move.col} after {int(played.elapsed * 1000)}ms",
                  *_rows(board), ""]
    if result.forfeit is not None:
        loser = board.turn
        lines += [f"{_who(loser, names[loser])} turn",
                  f"{_who(loser, names[loser])} loses match! Reason: {_reason(result)}",
                  *_rows(board), ""]
    return "\n".join(lines + _outcome(result)) + "\n"


def _outcome(result: MatchResult) -> list[str]:
    color = result.winner.color
    if result.winner is Winner.DRAW or color is None:
        return ["Game ended in a draw"]
    lines = [f"Winner is {_who(color, result.winner_name or '')}"]
    if result.forfeit is None:
        lines.append("Solution=" + "".join(_pos(p) for p in result.solution))
    return lines


def _pos(pos: Pos) -> str:
    return f"({pos.row},{pos.col})"


def transcript_name(white: str, red: str) -> str:
    """'RandomvsMinimaxD3.txt': the match's title with every space taken out,
    as the reference names the file (and no path separators)."""
    name = "".join(f"{white} vs {red}".split())
    return re.sub(r"[/\\\x00]", "_", name) + ".txt"


def standings_markdown(report: Report, settings: dict[str, Any], now: datetime) -> str:
    """standings.md as the reference writes it (update time in RFC 1123 form)."""
    lines = ["# Standings", "", f"Last update: {email.utils.format_datetime(now, True)}", "",
             "## Configuration", "",
             "| Parameter      | Value             |",
             "|:-------------- | ----------------: |",
             f"| Rows          | {settings['rows']}        |",
             f"| Cols          | {settings['cols']}        |",
             f"| Win sequence  | {settings['win_sequence']} |",
             f"| Round pieces  | {settings['round_pieces']}  |",
             f"| Square pieces | {settings['square_pieces']} |",
             f"| Time limit    | {settings['time_limit_ms']}ms     |", "",
             "## Classification", "",
             "| Pos. | AI Thinker | Points |",
             "|:----:| ---------- | -----: |"]
    lines += [f"| {s.position} | {_md_text(s.name)} | {s.points} |" for s in report.table]
    lines += ["", "## Results", "", "_Winner, if any, shown in bold_", "",
              "| White |   Red   | Details |", "| -----:|:------- | :-----: |"]
    for _, rec in sorted(zip(report.indices, report.records), key=lambda x: x[0]):
        white, red = _code(rec.result.white), _code(rec.result.red)
        if rec.result.winner is Winner.WHITE:
            white = f"**{white}**"
        elif rec.result.winner is Winner.RED:
            red = f"**{red}**"
        link = f"{RESULTS_FOLDER}/{quote(transcript_name(rec.result.white, rec.result.red))}"
        lines.append(f"| {white} | {red} | [+]({link}) |")
    return "\n".join(lines) + "\n"


def _md_text(text: str) -> str:
    """A name as Markdown shows it: every character that would format it
    (emphasis, links, HTML such as 'Talk<b>er</b>', a table's '|') escaped."""
    return re.sub(r"([\\`*_\[\]<>~&#!|])", r"\\\1", text)


def _code(text: str) -> str:
    """A name as a code span, as the reference writes it: `Name`, its fence
    longer than any run of backticks in it, its '|' escaped for the table."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def write_reference(docs: Sequence[dict[str, Any]], folder: str | Path,
                    points: Points = Points(), now: datetime | None = None) -> list[Path]:
    """Write standings.md and results/<White>vs<Red>.txt for the matches of a
    results file into `folder`; returns the files written, standings first.

    Raises:
        ConfigError: the results file holds no match or a malformed line, its
            matches were played with different settings, or a folder or file
            cannot be written.
    """
    report = load_report(docs, points)
    settings = _settings(docs)
    board_settings = [settings[k] for k in ("rows", "cols", "win_sequence", "round_pieces",
                                            "square_pieces")]
    root = Path(folder)
    files = {root / STANDINGS_FILE: standings_markdown(
        report, settings, now or datetime.now(UTC))}
    for rec in report.records:
        path = root / RESULTS_FOLDER / transcript_name(rec.result.white, rec.result.red)
        files[path] = transcript(rec.result, board_settings)
    try:
        (root / RESULTS_FOLDER).mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot write {e.filename}: {e.strerror}") from None
    return list(files)


def _settings(docs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The settings the session's matches were played with (one set for all)."""
    found = [recorded_settings(d) for d in docs]  # old lines: the wall clock they had
    first = found[0] if found else None
    if first is None or any(f != first for f in found):
        raise ConfigError("the results file's matches were not all played with the "
                          "same settings")
    return first
