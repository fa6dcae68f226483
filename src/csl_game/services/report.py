"""Standings and results of a results file as Markdown, CSV or JSON, and its
games as PGN for the rating programs of chess engine testers.

PGN (``--format pgn``) is what Ordo and BayesElo read: per game the Seven Tag
Roster (Event, Site, Date, Round, White, Black, Result), each tag on a line
of its own, then the movetext ending in the result (``1-0``, ``0-1``,
``1/2-1/2``). Ordo takes the White, Black and Result tags of each game and
nothing else (its pgnget.c looks for ``[White "``, ``[Black "`` and
``[Result "`` on each line). Red is PGN's Black. A Termination tag says how
a game ended other than on the board: "time forfeit" (timeout, an ignored
cancel), "rules infraction" (any other forfeit), "adjudication" (an
adjudicated game). The variant, board and time control tags, the date, and
the movetext with its book moves marked are csl_game.services.pgn's.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from csl_game.engine import (
    MatchRecord,
    PlayedMove,
    PlayerInfo,
    Points,
    Rating,
    Standing,
    rate_records,
    record_from_json,
    standings,
    winner_text,
)
from csl_game.errors import ConfigError
from csl_game.model.board import PColor
from csl_game.model.notation import format_move
from csl_game.services.pgn import board_tags, movetext, pgn_date
from csl_game.services.tables import Grid

__all__ = ["Report", "load_report", "FORMATS", "parse_anchor"]

FORMATS = ("md", "csv", "json", "pgn")
_PGN_RESULTS = {"white": "1-0", "red": "0-1", "draw": "1/2-1/2"}
_TIME_FORFEITS = ("timeout", "ignored_cancellation")


@dataclass(frozen=True)
class Report:
    """Everything a results file says, ready to print."""

    players: tuple[PlayerInfo, ...]
    records: tuple[MatchRecord, ...]
    indices: tuple[int, ...]
    """The match index of each record."""
    table: tuple[Standing, ...]
    docs: tuple[dict[str, Any], ...] = ()
    """The results line of each record (its settings, book and date: the PGN's tags)."""

    def standings_rows(self) -> list[dict[str, Any]]:
        return [{"position": s.position, "name": s.name,
                 "thinker": self.players[s.player].thinker,
                 "params": self.players[s.player].params, "points": s.points,
                 "wins": s.wins, "draws": s.draws, "losses": s.losses} for s in self.table]

    def result_rows(self) -> list[dict[str, Any]]:
        rows = []
        for index, rec in sorted(zip(self.indices, self.records), key=lambda x: x[0]):
            res = rec.result
            rows.append({"match": index + 1, "white": self.players[rec.white].name,
                         "red": self.players[rec.red].name, "winner": res.winner.name.lower(),
                         "winner_name": res.winner_name or "",
                         "forfeit": res.forfeit.name.lower() if res.forfeit else "",
                         "moves": len(res.moves)})
        return rows

    def time_rows(self) -> list[dict[str, Any]]:
        """Each player's time, in standings order: its moves, its slowest move
        on the match's clock (``slowest_ms``), and its slowest on the wall
        clock (``slowest_wall_ms``) with what that move was charged
        (``its_charged_ms``): far apart, the move waited uncharged (for a
        core, or where the clock counts processor time only, of its own
        accord). Milliseconds; None for no move, or no wall
        time recorded (results files written before wall times were kept)."""
        moves: dict[int, list[PlayedMove]] = {s.player: [] for s in self.table}
        for rec in self.records:
            for played in rec.result.moves:
                white = played.move.piece.color is PColor.WHITE
                moves.setdefault(rec.white if white else rec.red, []).append(played)
        rows = []
        for s in self.table:
            mine = moves[s.player]
            timed = [m for m in mine if m.wall is not None]
            slow = max(timed, key=lambda m: m.wall or 0.0) if timed else None
            rows.append({"name": s.name, "moves": len(mine),
                         "slowest_ms": _ms(max((m.elapsed for m in mine), default=None)),
                         "slowest_wall_ms": _ms(slow.wall if slow is not None else None),
                         "its_charged_ms": _ms(slow.elapsed if slow is not None else None)})
        return rows

    def ratings(self, anchor: tuple[str, float] | None = None) -> list[Rating]:
        """Maximum-likelihood Elo of every player (csl_game.engine.ratings).

        Raises:
            ConfigError: the anchor played no match here.
        """
        try:
            return rate_records([p.name for p in self.players], self.records, anchor)
        except ValueError as e:
            raise ConfigError(str(e)) from None

    def ratings_rows(self, anchor: tuple[str, float] | None = None) -> list[dict[str, Any]]:
        return [{"rank": i, "name": r.name, "elo": round(r.elo, 1),
                 "ci95_low": round(r.ci95[0], 1), "ci95_high": round(r.ci95[1], 1),
                 "games": r.games, "score": round(r.score, 4), "prior": r.prior}
                for i, r in enumerate(self.ratings(anchor), 1)]

    def render_ratings(self, fmt: str, anchor: tuple[str, float] | None = None) -> str:
        """The ratings table in `fmt` (md, csv or json). Where the games alone
        give no finite rating (a player who scored 0 % or 100 %, or a pool in
        parts), every rating is fitted with one virtual draw each against an
        average player (BayesElo's prior): the output says so, and each row's
        `prior` is true."""
        rows = self.ratings_rows(anchor)
        prior = any(row["prior"] for row in rows)
        if fmt == "json":
            return json.dumps({"ratings": rows, "anchor": anchor and list(anchor),
                               "method": "prior" if prior else "maximum-likelihood"},
                              indent=2)
        if fmt == "csv":
            return _csv(rows)
        where = (f"{_md(anchor[0])} at {anchor[1]:g}" if anchor else "the average at 0")
        grid = Grid.of(("#", "Player", "Elo", "95 % interval", "Games", "Score"),
                       ((row["rank"], _md_text(row["name"]), f"{row['elo']:+.1f}",
                         f"[{row['ci95_low']:+.1f}, {row['ci95_high']:+.1f}]", row["games"],
                         f"{100 * row['score']:.1f} %") for row in rows), left=(1, 3))
        method = ("Elo with a prior of one virtual draw each against an average player"
                  if prior else "Maximum-likelihood Elo")
        why = (": the games alone give no finite rating, as someone scored 0 % or 100 % or "
               "the players were not all connected by games" if prior else "")
        return "\n".join(["## Ratings", "", f"{method} ({where}), with 95 % intervals{why}.",
                          "", grid.markdown()])

    def render(self, fmt: str, table: str = "standings") -> str:
        if fmt == "json":
            return json.dumps({"standings": self.standings_rows(),
                               "results": self.result_rows(), "time": self.time_rows()},
                              indent=2)
        if fmt == "csv":
            rows = self.standings_rows() if table == "standings" else self.result_rows()
            return _csv(rows)
        if fmt == "md":
            return self.markdown()
        if fmt == "pgn":
            return self.pgn()
        raise ConfigError(f"unknown report format '{fmt}' (choose from {', '.join(FORMATS)})")

    def markdown(self) -> str:
        standings = Grid.of(("#", "Player", "Points", "W", "D", "L"),
                            ((s.position, _md_text(s.name), s.points, s.wins, s.draws,
                              s.losses) for s in self.table), title="Standings")
        results = []
        for row, (_, rec) in zip(self.result_rows(), sorted(zip(self.indices, self.records),
                                                            key=lambda x: x[0])):
            white, red = _md_text(row["white"]), _md_text(row["red"])
            if row["winner"] == "white":
                white = f"**{white}**"
            elif row["winner"] == "red":
                red = f"**{red}**"
            why = f" ({rec.result.forfeit})" if rec.result.forfeit else ""
            results.append((row["match"], white, red,
                            f"{_md_text(winner_text(rec.result))}{why}"))
        table = Grid.of(("Match", "White", "Red", "Result"), results, left=(1, 2, 3),
                        title="Results")
        return "\n\n".join((standings.markdown(), self.time_markdown(), table.markdown()))

    def time_markdown(self) -> str:
        """`time_rows` as a Markdown table (ms; '-' where unknown)."""
        def cell(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f}"

        grid = Grid.of(("Player", "Moves", "Slowest (ms)", "Slowest on the wall (ms)",
                        "Its charged time (ms)"),
                       ((_md_text(r["name"]), r["moves"], cell(r["slowest_ms"]),
                         cell(r["slowest_wall_ms"]), cell(r["its_charged_ms"]))
                        for r in self.time_rows()), left=(0,), title="Time")
        return (grid.markdown() + "\n\nEach player's slowest move on the match's clock, "
                "and its slowest on the wall clock with what that move was charged. A wall "
                "time far above its charge was waiting the clock did not charge: for a core "
                "on a busy machine, or, on a system whose clock counts processor time only "
                "(docs/thinkers.md, The clock on each system), the thinker's own sleep or "
                "blocked read.")


    def pgn(self, event: str = "csl-game") -> str:
        """Every game as PGN, in match order (see the module's docstring)."""
        games = []
        lines = self.docs or ({},) * len(self.records)
        for index, rec, doc in sorted(zip(self.indices, self.records, lines),
                                      key=lambda x: x[0]):
            res = rec.result
            result = _PGN_RESULTS.get(res.winner.name.lower(), "*")
            tags = [("Event", event), ("Site", "?"), ("Date", pgn_date(doc.get("ended"))),
                    ("Round", str(index + 1)), ("White", self.players[rec.white].name),
                    ("Black", self.players[rec.red].name), ("Result", result),
                    ("PlyCount", str(len(res.moves)))]
            if res.forfeit is not None:
                reason = res.forfeit.name.lower()
                tags.append(("Termination", "time forfeit" if reason in _TIME_FORFEITS
                             else "rules infraction"))
            elif res.adjudicated:
                tags.append(("Termination", "adjudication"))
            settings = doc.get("settings")
            tags += board_tags(settings if isinstance(settings, dict) else {})
            book = doc.get("book")
            moves = [format_move(m.move.col, m.move.piece.shape) for m in res.moves]
            header = "\n".join(f'[{name} "{_pgn_text(value)}"]' for name, value in tags)
            body = movetext(moves, book if isinstance(book, int) else 0, result)
            games.append(f"{header}\n\n{body}\n")
        return "\n".join(games)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def _pgn_text(value: str) -> str:
    """A PGN tag value: backslash and quote escaped, on one line."""
    return " ".join(value.replace("\\", "\\\\").replace('"', '\\"').split())


def _md(text: str) -> str:
    return _md_text(text).replace("|", "\\|")


def _md_text(text: str) -> str:
    """A name as Markdown shows it, not as it reads it: every character that
    would format (emphasis, code, links, HTML such as 'Talk<b>er</b>')
    backslash-escaped; '|' is the table's to escape (Grid.markdown)."""
    return text.translate(_MD_ESCAPES)


_MD_ESCAPES = {ord(c): "\\" + c for c in "\\`*_[]<>~&"}


def _csv(rows: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return out.getvalue().rstrip("\n")


def parse_anchor(text: str) -> tuple[str, float]:
    """'NAME=ELO' as (name, Elo).

    Raises:
        ConfigError: no '=' or no number after it.
    """
    name, sep, value = text.rpartition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, float(value)
    except ValueError:
        raise ConfigError(f"--anchor takes NAME=ELO, got {text!r}") from None


def load_report(docs: Sequence[dict[str, Any]], points: Points = Points(),
                lines: Sequence[int] = (), source: str = "") -> Report:
    """A report from the lines of a results file (players in order of appearance);
    `lines` and `source`, each doc's line number and the file, name a bad line.

    Raises:
        ConfigError: the file holds no match, or a line is malformed.
    """
    if not docs:
        raise ConfigError("the results file holds no finished match")
    players: dict[PlayerInfo, int] = {}
    records: list[MatchRecord] = []
    indices: list[int] = []
    for i, doc in enumerate(docs):
        try:
            for side in ("white", "red"):
                players.setdefault(PlayerInfo(**doc[side]), len(players))
            records.append(record_from_json(doc, players))
            indices.append(int(doc["match"]))
        except (KeyError, TypeError, ValueError, ConfigError) as e:
            why = (str(e) if isinstance(e, ConfigError)
                   else f"malformed (no {e})" if isinstance(e, KeyError) else f"malformed ({e})")
            where = f"results file {source}, line" if source else "results file line"
            raise ConfigError(f"{where} {lines[i] if lines else i + 1}: {why}") from None
    infos = tuple(players)
    table = standings([p.name for p in infos], records, points)
    return Report(infos, tuple(records), tuple(indices), tuple(table), tuple(docs))
