"""Configuration values with the reference defaults, validated in one place."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from csl_game.engine import (
    Human,
    Player,
    Points,
    ResultsWriter,
    RunnerFactory,
    RunOptions,
    ScreenPolicy,
    Session,
    SessionOptions,
    ThreadRunner,
    read_results,
)
from csl_game.errors import ConfigError
from csl_game.services.defaults import CONSOLE_TIME_LIMIT_MS
from csl_game.services.narration import counted
from csl_game.services.presets import LEVELS, level
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["GUI_TIME_LIMIT_MS", "GUI_MIN_MOVE_TIME_MS", "CONSOLE_TIME_LIMIT_MS",
           "AIEntry", "PlayOptions", "parse_ai_spec", "level_entry", "read_session_file",
           "read_session_engines", "session_line_numbers", "ENGINE_LINE", "MatchConfig",
           "default_pieces"]

GUI_TIME_LIMIT_MS = 500
GUI_MIN_MOVE_TIME_MS = 250
CONSOLE_MIN_MOVE_TIME_MS = 0
LAST_MOVE_ANIMATION_S = 1.0
UNBLOCKED_SCREEN_S = 1.5


def default_pieces(rows: int, cols: int) -> tuple[int, int]:
    """Round and square pieces per player when not given: a quarter of the
    cells each, the square ones rounded up (10 and 11 on the 6 x 7 board).
    Every verb and the window's settings take these (services/options.py, setup_file.py)."""
    cells = rows * cols
    return cells // 4, -(-cells // 4)


@dataclass(frozen=True)
class AIEntry:
    """An AI player of a session: a thinker name, its parameters, active or not."""

    thinker: str
    params: str = ""
    active: bool = True

    def __post_init__(self) -> None:
        if not self.thinker.strip():
            raise ConfigError("an AI player needs a thinker name")


def parse_ai_spec(spec: str) -> AIEntry:
    """'minimax 4' -> AIEntry('minimax', '4'): the name, then its parameters.

    A level's name alone ('hard') stands for its thinker and parameters.
    """
    name, _, params = spec.strip().partition(" ")
    if not name:
        raise ConfigError("--ai needs a thinker name or a level, e.g. --ai \"minimax 4\" "
                          "or --ai hard")
    if not params.strip() and name.lower() in {lv.name for lv in LEVELS}:
        return level_entry(name)
    return AIEntry(name, params.strip())


ENGINE_LINE = "--engine"
"""A session file's line that declares an engine, as on the command line:
``--engine NAME=COMMAND ARGS`` (the declaration may be quoted, or not)."""


def _session_lines(path: Path) -> list[str]:
    """The lines of a session file that say something: no comments, no blank lines."""
    return [line for _, line in _numbered_lines(path)]


def session_line_numbers(path: str | Path) -> list[int]:
    """The line number of each thinker `read_session_file` gives, in order."""
    return [n for n, line in _numbered_lines(Path(path)) if _engine_declaration(line) is None]


def _numbered_lines(path: Path) -> list[tuple[int, str]]:
    """(number, text) of the lines of a session file that say something."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or e
        raise ConfigError(f"cannot read session file {path}: {why}") from None
    if "\0" in text:
        raise ConfigError(f"session file {path} is not a text file (it holds NUL characters)")
    lines = ((n, line.split("#", 1)[0].strip()) for n, line in enumerate(text.splitlines(), 1))
    return [(n, line) for n, line in lines if line]


def _engine_declaration(line: str) -> str | None:
    word, _, rest = line.partition(" ")
    if word.startswith(ENGINE_LINE + "="):  # --engine=NAME=COMMAND, as argparse takes it
        rest = line[len(ENGINE_LINE) + 1:]
    elif word != ENGINE_LINE:
        return None
    rest = rest.strip()
    if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "'\"":
        rest = rest[1:-1]
    return rest


def read_session_engines(path: str | Path) -> list[str]:
    """The engines a session file declares (``--engine NAME=COMMAND`` lines), as
    ``NAME=COMMAND``.

    Raises:
        ConfigError: the file cannot be read.
    """
    lines = _session_lines(Path(path))
    return [d for d in map(_engine_declaration, lines) if d is not None]


def level_entry(name: str) -> AIEntry:
    """The AI player of a difficulty level.

    Raises:
        ConfigError: no level has that name.
    """
    lv = level(name)
    return AIEntry(lv.thinker, lv.params)


def read_session_file(path: str | Path) -> list[AIEntry]:
    """Thinkers of a session file: one per line, its parameters after it.

    Blank lines and everything after a ``#`` are ignored, and so are the lines
    that declare engines (see `read_session_engines`); a UTF-8 byte order mark
    (which editors on Windows write) is too.

    Raises:
        ConfigError: the file cannot be read, is not text, or lists no thinker.
    """
    p = Path(path)
    entries = [parse_ai_spec(line) for line in _session_lines(p)
               if _engine_declaration(line) is None]
    if len(entries) < 2:
        raise ConfigError(f"session file {p} lists {counted(len(entries), 'thinker')}; "
                          "a session needs at least 2")
    return entries


@dataclass(frozen=True)
class PlayOptions:
    """Everything the GUI needs to start: players, settings, behaviour."""

    ais: tuple[AIEntry, ...] = ()
    match: MatchConfig = field(default_factory=lambda: MatchConfig(
        time_limit_ms=GUI_TIME_LIMIT_MS, min_move_time_ms=GUI_MIN_MOVE_TIME_MS))
    points: Points = Points()
    thinker_paths: tuple[str, ...] = ()
    auto: bool = False
    """Answer every question with its default; info screens time out; exit at the end."""
    in_process: bool = False
    """Run thinkers on threads of this process instead of worker processes."""
    show_setup: bool = False
    """Start on the setup screen (the command line asks for it when neither --ai nor
    --config is given); otherwise play these options' session at once."""
    show_home: bool = False
    """Start on the home screen (the command line asks for it when no flag at all
    says what to play); it wins over `show_setup`."""
    last_move_animation_s: float = LAST_MOVE_ANIMATION_S
    wait_before_match: bool = True
    """Wait for Start before each tournament match."""
    wait_after_match: bool = True
    """Wait for OK after each tournament match."""
    unblocked_screen_s: float = UNBLOCKED_SCREEN_S
    workers: int = 1
    """Tournament matches played at once: one on screen, the others in the background."""
    window_size: tuple[int, int] | None = None
    """The window's first size; None: fitted to the desktop."""
    results_file: str = ""
    """Append each match's result to this file as a JSON line the moment it ends ("": none)."""
    resume: bool = False
    """Take the matches already in `results_file` as played, and append the rest."""
    listen: str = ""
    """Broadcast each session to spectators at this [HOST:]PORT ("": none)."""
    site_folder: str = ""
    """Keep the tournament's web site in this folder as each match ends ("": none)."""
    competition: bool = False
    """Break a tie in first place of a tournament by the competition rules."""
    unknown_track: bool = False
    """`match` was derived from its rows and columns by the competition's unknown-track rules."""

    @property
    def active_ais(self) -> tuple[AIEntry, ...]:
        return tuple(a for a in self.ais if a.active)

    @property
    def screen_policy(self) -> ScreenPolicy:
        """How the screens between matches behave."""
        return ScreenPolicy(self.wait_before_match, self.wait_after_match,
                            self.unblocked_screen_s, self.auto)

    def players(self) -> list[Player]:
        """The active AIs; humans fill the seats they leave empty.

        Raises:
            ThinkerError: an active AI's thinker is unknown.
        """
        ais: list[Player] = [ThinkerPrototype(a.thinker, a.params, self.match,
                                              self.thinker_paths)
                             for a in self.active_ais]
        if not ais:
            return [Human("Player 1"), Human("Player 2")]
        if len(ais) == 1:
            return [Human("Human"), ais[0]]
        return ais

    def new_session(self, runner_factory: RunnerFactory = ThreadRunner) -> Session:
        """The session these options describe, writing to (and resuming from) the
        results file if there is one.

        Raises:
            ThinkerError: an active AI's thinker is unknown.
            ConfigError: the results file cannot be read or written, or was
                made by another session.
        """
        docs = read_results(self.results_file) if self.resume else []
        writer = ResultsWriter(self.results_file) if self.results_file else None
        options = SessionOptions(points=self.points, competition=self.competition,
                                 run=RunOptions(runner_factory=runner_factory,
                                                workers=self.workers,
                                                in_process=self.in_process))
        session = Session(self.players(), self.match, options, results=writer)
        try:
            session.resume(docs, self.results_file)
            if self.site_folder:
                from csl_game.services.site import follow

                follow(session, self.site_folder, self.points, docs)
        except ConfigError:
            session.abort()
            raise
        return session

    def __post_init__(self) -> None:
        if self.last_move_animation_s < 0:
            raise ConfigError("last-move animation length cannot be negative")
        if self.unblocked_screen_s < 0:
            raise ConfigError("unblocked screen duration cannot be negative")
        if self.workers < 1:
            raise ConfigError(f"workers must be at least 1, got {self.workers}")
        if self.resume and not self.results_file:
            raise ConfigError("resuming needs the results file to resume from")


def quote_params(params: str) -> str:
    """Parameters as they would be typed after a thinker name."""
    return " ".join(shlex.quote(p) for p in params.split())
