"""Match results as JSON lines: written the moment a match ends, read back safely.

One line per finished match. A results file is appended to with one write
and an fsync per line, so a crash (even ``kill -9``) loses at most the matches
in flight; a torn last line is ignored when reading and cut off on resume.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from csl_game.engine.figures import Figures
from csl_game.engine.match import MatchResult, PlayedMove
from csl_game.engine.outcomes import ForfeitReason
from csl_game.engine.scoring import MatchRecord
from csl_game.errors import ConfigError, ResultsWriteError
from csl_game.model.board import Move, PColor, Piece, Pos, PShape, Winner
from csl_game.thinker.api import MatchConfig

ResultsError = ResultsWriteError
"""The old name of `csl_game.errors.ResultsWriteError`."""

log = logging.getLogger(__name__)
"""Results files read with a torn last line (said on standard error by default)."""

__all__ = ["PlayerInfo", "result_to_json", "record_to_json", "record_from_json",
           "ResultsWriter", "ResultsError", "read_results", "settings_json", "first_lines",
           "duplicates_note", "note_torn", "torn_tail", "recorded_settings", "UNRECORDED_CLOCK",
           "HUMAN_THINKER", "COLOR_WORDS", "SHAPE_WORDS"]

HUMAN_THINKER = "human"
"""What a results file names as the thinker of a human player."""
COLOR_WORDS = {color: color.name.lower() for color in PColor}
SHAPE_WORDS = {shape: shape.name.lower() for shape in PShape}
"""Each colour's and shape's word, as results and messages write them (an
enum's name is slow to read, and these are read for every move; two tables:
white and round are both 0)."""




@dataclass(frozen=True)
class PlayerInfo:
    """Who a player of a session is: thinker, parameters and display name."""

    thinker: str
    params: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"thinker": self.thinker, "params": self.params, "name": self.name}


def settings_json(mc: MatchConfig) -> dict[str, int | str]:
    """The settings a results line records: the board, the time limit and the
    clock that counted it (`MatchConfig.clock`, `time_margin_ms`), and the
    game clock as ``tc`` (``"10+0.1"``, seconds) when there was one."""
    settings: dict[str, int | str] = {
        "rows": mc.rows, "cols": mc.cols, "win_sequence": mc.win_sequence,
        "round_pieces": mc.round_pieces, "square_pieces": mc.square_pieces,
        "time_limit_ms": mc.time_limit_ms, "clock": mc.clock,
        "time_margin_ms": mc.time_margin_ms}
    if mc.game_clock:
        settings["tc"] = mc.tc
    return settings


UNRECORDED_CLOCK: dict[str, int | str] = {"clock": "wall", "time_margin_ms": 0}
"""The clock of a results line that records none: lines written before the
match clock were played on the reference's wall clock, with no margin."""


def recorded_settings(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The settings of a results line (None when it has none), the clock of an
    older line filled in: the same dict for the same settings, old line or new."""
    given = doc.get("settings")
    if not isinstance(given, dict):
        return None
    return {**given, **{k: v for k, v in UNRECORDED_CLOCK.items() if k not in given}}


def result_to_json(result: MatchResult, mc: MatchConfig) -> dict[str, Any]:
    """A match result as a JSON-ready dict."""
    return {
        "white": result.white, "red": result.red,
        "winner": result.winner.name.lower(), "winner_name": result.winner_name,
        "solution": [list(p) for p in result.solution],
        "forfeit": result.forfeit.name.lower() if result.forfeit else None,
        "detail": result.detail,
        "moves": [{"row": m.move.row, "col": m.move.col,
                   "color": COLOR_WORDS[m.move.piece.color],
                   "shape": SHAPE_WORDS[m.move.piece.shape],
                   "ms": round(m.elapsed * 1000, 3),
                   **({"figures": dict(m.figures)} if m.figures else {})}
                  for m in result.moves],
        "settings": settings_json(mc),
        **({"resigned": True} if result.resigned else {}),
        **({"adjudicated": result.adjudicated} if result.adjudicated else {}),
    }


def record_to_json(index: int, white: PlayerInfo, red: PlayerInfo,
                   result: MatchResult, mc: MatchConfig, book: int = 0) -> dict[str, Any]:
    """A session's match: its index, both players in full, and the result,
    each move with its wall time beside its charged time (``wall_ms`` beside
    ``ms``, where known; `result_to_json` leaves it out: the online protocol
    sends that, and its peers know no such field); ``book``: how many of its
    first moves an opening book chose (none: no key)."""
    doc = result_to_json(result, mc)
    for move, played in zip(doc["moves"], result.moves):
        if played.wall is not None:
            move["wall_ms"] = round(played.wall * 1000, 3)
    doc.update({"match": index, "white": white.to_json(), "red": red.to_json()})
    if book:
        doc["book"] = book
    if result.ended:
        doc["ended"] = result.ended  # when it ended (UTC): the date of the PGN's games
    return doc


def _figures(given: object) -> Figures:
    """A move's figures from a results line (none in older files, or if malformed)."""
    if not isinstance(given, dict):
        return ()
    return tuple((str(k), float(v)) for k, v in given.items()
                 if isinstance(v, int | float) and not isinstance(v, bool))


def _wall(given: object) -> float | None:
    """A move's wall time from a results line (none in older files, or if malformed)."""
    if isinstance(given, int | float) and not isinstance(given, bool) \
            and 0 <= given < float("inf"):
        return given / 1000
    return None


def _result_from_json(doc: dict[str, Any]) -> MatchResult:
    moves = tuple(
        PlayedMove(Move(m["row"], m["col"], Piece(PColor[m["color"].upper()],
                                                   PShape[m["shape"].upper()])),
                   m["ms"] / 1000, _figures(m.get("figures")), _wall(m.get("wall_ms")))
        for m in doc.get("moves", ()))
    forfeit = doc.get("forfeit")
    return MatchResult(Winner[doc["winner"].upper()], doc["white"]["name"],
                       doc["red"]["name"], tuple(Pos(*p) for p in doc.get("solution", ())),
                       ForfeitReason[forfeit.upper()] if forfeit else None,
                       doc.get("detail", ""), moves, doc.get("resigned") is True,
                       str(doc.get("adjudicated") or ""), str(doc.get("ended") or ""))


def record_from_json(doc: dict[str, Any], index_of: dict[PlayerInfo, int]) -> MatchRecord:
    """A MatchRecord from a results line; players mapped to session indices.

    Raises:
        ConfigError: a player of the line is not in `index_of`, or a field is bad.
    """
    try:
        white = PlayerInfo(**doc["white"])
        red = PlayerInfo(**doc["red"])
        return MatchRecord(index_of[white], index_of[red], _result_from_json(doc))
    except KeyError as e:
        raise ConfigError(f"results line for match {doc.get('match')} does not fit "
                          f"this session (unknown {e})") from None
    except (TypeError, ValueError, AttributeError) as e:
        raise ConfigError(f"results line for match {doc.get('match')} is malformed: {e}") \
            from None


def note_torn(path: str | Path, characters: int) -> None:
    """Say (on standard error, by default) that a results file's last line was cut off."""
    log.warning("results file %s: its last line was cut off (%d characters without an "
                "end of line: the program stopped while writing it); that match is not "
                "counted, and --resume plays it again", path, characters)


def torn_tail(path: str | Path) -> int:
    """Characters of the results file's last line if it was cut off (it has
    no end of line), else 0 (an unreadable file too: its readers say why)."""
    try:
        tail = Path(path).read_bytes().rpartition(b"\n")[2]
    except OSError:
        return 0
    return len(tail.decode("utf-8", "replace")) if tail.strip() else 0


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """Every complete line of a results file; a torn last line is skipped.

    A UTF-8 byte order mark is allowed (editors on Windows write one).

    Raises:
        ConfigError: the file cannot be read, or a complete line is not a JSON object.
    """
    return [doc for _, doc in numbered_results(path)]


def numbered_results(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """`read_results`, each line with its number in the file (from 1), for
    messages that name it.

    Raises:
        ConfigError: as `read_results`.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read results file {p}: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    lines = text.split("\n")
    if lines[-1].strip():
        note_torn(p, len(lines[-1]))
    docs = []
    for number, line in enumerate(lines[:-1], 1):  # the last piece has no newline
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            why = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            raise ConfigError(f"results file {p}, line {number}: not JSON ({why})") from None
        if not isinstance(doc, dict):
            raise ConfigError(f"results file {p}, line {number}: not a JSON object "
                              f"(a match's result is one)")
        docs.append((number, doc))
    return docs


def first_lines(docs: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The lines of a results file with each match once: the first line of a
    match recorded twice (a resumed session that crashed while writing) wins.

    Returns the lines kept and, by match, how many times a recorded-twice match was.
    """
    kept: list[dict[str, Any]] = []
    seen: dict[object, int] = {}
    for doc in docs:
        key = doc.get("match")
        if isinstance(key, int) and key in seen:
            seen[key] += 1
            continue
        if isinstance(key, int):
            seen[key] = 1
        kept.append(doc)
    return kept, {k: n for k, n in seen.items() if isinstance(k, int) and n > 1}


def duplicates_note(path: str | Path, twice: dict[int, int]) -> str:
    """One line saying which matches a results file records more than once."""
    listed = ", ".join(f"{m + 1} ({n} times)" for m, n in sorted(twice.items()))
    return (f"results file {path} records match{'es' if len(twice) > 1 else ''} {listed}: "
            "each counts once, as its first line says")


class ResultsWriter:
    """Appends records to a results file, one durable line each."""

    def __init__(self, path: str | Path, tag: dict[str, Any] | None = None) -> None:
        """Open (or create) the file for appending, cutting a torn last line off;
        `tag`: fields every line carries besides the match's (an SPRT's bounds).

        Raises:
            ResultsError: the file cannot be opened for writing.
        """
        self.path = Path(path)
        self.tag = dict(tag or {})
        try:
            self._drop_torn_tail()
            self._file: TextIO = self.path.open("a", encoding="utf-8")
        except OSError as e:
            raise ResultsWriteError(f"cannot write results file {path}: "
                                    f"{e.strerror or e}") from None

    def _drop_torn_tail(self) -> None:
        if not self.path.is_file():  # new, or a device: nothing to cut
            return
        with self.path.open("rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)

    def write(self, doc: dict[str, Any]) -> None:
        """Append one line, on disk before this returns.

        Raises:
            ResultsError: the line could not be written (the lines before it are kept).
        """
        try:
            self._file.write(json.dumps({**doc, **self.tag}) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as e:
            raise ResultsWriteError(f"cannot write results file {self.path}: "
                               f"{e.strerror or e}; the matches written before are kept "
                               f"(resume with --resume {self.path})") from None

    def close(self) -> None:
        # A line that failed to be written may fail again here: it was reported.
        with contextlib.suppress(OSError):
            self._file.close()


def done_indices(docs: Iterable[dict[str, Any]]) -> set[int]:
    return {int(d["match"]) for d in docs if "match" in d}


def check_compatible(docs: Sequence[dict[str, Any]], expected: dict[int, tuple[
        PlayerInfo, PlayerInfo]], mc: MatchConfig, path: str | Path) -> None:
    """Refuse to resume from a file made by another session, or on another clock
    (its matches and the ones to come would not have been timed alike).

    Raises:
        ConfigError: a recorded match has other players or settings (one line
            naming the clock or margin when those are what differ).
    """
    ours = settings_json(mc)
    for d in docs:
        index = d.get("match")
        pair = expected.get(index) if isinstance(index, int) else None
        theirs = recorded_settings(d)
        if theirs is not None:
            refusal = _clock_refusal(theirs, ours, "clock" in d["settings"], path)
            if refusal is not None:
                raise ConfigError(refusal)
        if pair is None or theirs != ours or \
                (d.get("white"), d.get("red")) != (pair[0].to_json(), pair[1].to_json()):
            raise ConfigError(f"results file {path} was made by a different session "
                              f"(match {index} does not fit: {_difference(d, pair, theirs, ours)})")


def _difference(doc: dict[str, Any], pair: tuple[PlayerInfo, PlayerInfo] | None,
                theirs: dict[str, Any] | None, ours: dict[str, Any]) -> str:
    """What makes a results line another session's, in words."""
    if pair is None:
        return "this session has no such match"
    if theirs != ours and theirs is not None:
        flags = {"rows": "-r", "cols": "-c", "win_sequence": "-w", "round_pieces": "-o",
                 "square_pieces": "-s", "time_limit_ms": "-t"}
        diff = [f"{flags.get(k, k)} {theirs.get(k)} there, {ours.get(k)} here"
                for k in ours if theirs.get(k) != ours.get(k)]
        if diff:
            return "; ".join(diff)
    for side, info in zip(("white", "red"), pair):
        given = doc.get(side)
        if given != info.to_json():
            name = given.get("name") if isinstance(given, dict) else given
            return f"{side} was {name!r} there, {info.name!r} here"
    return "its settings differ"


_CLOCK_FLAGS = (("clock", "--clock"), ("time_margin_ms", "--time-margin"), ("tc", "--tc"))


def _clock_refusal(theirs: dict[str, Any], ours: dict[str, int | str], recorded: bool,
                   path: str | Path) -> str | None:
    """Why a results line's clock forbids resuming on ours (None when they agree)."""
    differ = [(flag, theirs.get(key, "none"), ours.get(key, "none"))
              for key, flag in _CLOCK_FLAGS if theirs.get(key) != ours.get(key)]
    if not differ:
        return None
    was = " ".join(f"{flag} {then}" for flag, then, _ in differ)
    now = " ".join(f"{flag} {value}" for flag, _, value in differ)
    why = "" if recorded else " (it records no clock: it was played before there was a choice)"
    return (f"results file {path} was played with {was}{why}, this run is {now}: resume "
            f"with {was}, or start another results file")
