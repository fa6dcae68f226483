"""Every command-line option of every verb, in one table.

Each `Option` row says its flags (the first long flag is its one spelling;
older spellings users already type follow as aliases), its help, which verbs
take it, its default there, and the setting of `csl_game.services.limits`
it sets, whose range it is checked against. The command line (csl_game.cli)
builds each verb's parser from the rows; nothing else declares a flag.
tests/test_options.py compares each verb's parser with the table.
`csl_game.services.flag_values` reads the values the flags gave
(`match_config`, `points_of`, ...), the same rules for every verb.

A new verb or flag is a new row (or a verb added to a row's `verbs`).
"""

from __future__ import annotations

import math
from argparse import ArgumentTypeError
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from csl_game.errors import SettingError, UsageError
from csl_game.services.defaults import CLOCKS, CONSOLE_TIME_LIMIT_MS
from csl_game.services.presets import LEVELS

__all__ = ["Option", "OPTIONS", "VERBS", "CONSOLE_TIME_LIMIT_MS", "options_of", "option",
           "flag_text", "check_ranges", "default_pieces", "BOARD", "MATCH_KEYS", "ALIASES"]

VERBS = ("play", "match", "watch", "session", "league", "sprt", "openings", "analyse",
         "report", "replay", "info", "server", "bot")
ALIASES = {"analyze": "analyse"}
"""Other spellings of verbs."""


BOARD = "board and timing (6x7, 4 in a row, rows x cols / 4 pieces of each shape; AIs %s)"
_PLAYERS = "finding thinkers"
_TOURNAMENT = "tournament"
_ONLINE = "online play (docs/online.md)"

_BOARD_VERBS = frozenset({"play", "match", "session", "league", "sprt", "openings",
                          "analyse", "server"})
_FINDING = frozenset({"play", "match", "session", "league", "sprt", "report", "info", "bot"})
_SERVER = "the game server (docs/server.md)"
_PLAYING = frozenset({"play", "match", "session", "league", "sprt"})
"""The verbs that play matches, and so take the match clock's options."""


@dataclass(frozen=True)
class Option:
    """One option of the command line: its flags, help, verbs and defaults."""

    dest: str
    flags: tuple[str, ...]
    """Its spellings, the canonical long flag first among the long ones; a
    positional argument has its name alone."""
    help: str
    verbs: frozenset[str]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    """What argparse takes besides flags, help and default (type, action, metavar...)."""
    default: Any = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Defaults that differ by verb."""
    helps: Mapping[str, str] = field(default_factory=dict)
    """Help texts that differ by verb."""
    setting: str | None = None
    """The setting (setup_file.SETTINGS key) it sets: its range and its TOML key."""
    group: str | None = None
    required: frozenset[str] = frozenset()
    """Verbs where it must be given."""
    flags_in: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Spellings that differ by verb (a short flag another option of that verb has)."""
    metavars: Mapping[str, Any] = field(default_factory=dict)
    """How the help names the value where it differs by verb (a FILE, not a DIR)."""

    def flags_for(self, verb: str) -> tuple[str, ...]:
        return self.flags_in.get(verb, self.flags)

    def default_for(self, verb: str) -> Any:
        return self.defaults.get(verb, self.default)

    def help_for(self, verb: str) -> str:
        return self.helps.get(verb, self.help)

    @property
    def positional(self) -> bool:
        return not self.flags[0].startswith("-")


def _opt(dest: str, flags: str, help: str, verbs: Iterable[str], **more: Any) -> Option:
    kwargs: dict[str, Any] = {k: more.pop(k) for k in ("type", "action", "metavar", "nargs",
                                                       "choices") if k in more}
    return Option(dest, tuple(flags.split()), help, frozenset(verbs), kwargs, **more)


def finite_float(text: str) -> float:
    """A float flag's value: any number but inf and nan (Python's float() takes
    both, and they make no bound, timeout or share).

    Raises:
        argparse.ArgumentTypeError: not a number, or not a finite one.
    """
    try:
        value = float(text)
    except ValueError:
        raise ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise ArgumentTypeError(f"'{text}' is not a finite number")
    return value


_INT = {"type": int}
_FLOAT = {"type": finite_float}
OPTIONS: tuple[Option, ...] = (
    # ---------------------------------------------------------------- board and timing
    _opt("rows", "-r --rows", "board rows", _BOARD_VERBS, setting="rows", group=BOARD, **_INT),
    _opt("cols", "-c --cols", "board columns", _BOARD_VERBS, setting="cols", group=BOARD,
         **_INT),
    _opt("win_sequence", "-w --win-sequence", "pieces in a row needed to win", _BOARD_VERBS,
         setting="win_sequence", group=BOARD, **_INT),
    _opt("round_pieces", "-o --round-pieces", "round pieces per player", _BOARD_VERBS,
         setting="round_pieces", group=BOARD, flags_in={"openings": ("--round-pieces",)},
         **_INT),
    _opt("square_pieces", "-s --square-pieces", "square pieces per player", _BOARD_VERBS,
         setting="square_pieces", group=BOARD, **_INT),
    _opt("time_limit", "-t --time-limit", "AI time limit per move in ms", _BOARD_VERBS,
         setting="time_limit_ms", group=BOARD, metavar="MS",
         helps={"analyse": "time to analyse, in ms (default 3000; with --depth: none)",
                "openings": "rate each opening by games played out from it for this many "
                            "ms of CPU time, at growing depths (default: to --depth)"},
         **_INT),
    _opt("min_move_time", "-m --min-move-time", "minimum apparent AI move time in ms",
         _BOARD_VERBS - {"analyse", "openings"}, setting="min_move_time_ms", group=BOARD,
         metavar="MS", **_INT),
    _opt("clock", "--clock", "what the time limit counts: cpu, the processor time of the "
         "thinker's own processes, so a busy machine cannot make it lose on time (default), "
         "or wall, the reference's wall-clock time", _PLAYING, setting="clock", group=BOARD,
         choices=CLOCKS, type=str.lower),
    _opt("time_margin", "--time-margin", "an answer up to this much past the time limit "
         "still counts, in ms (default 0; as cutechess-cli's timemargin)", _PLAYING,
         setting="time_margin_ms", group=BOARD, metavar="MS", **_INT),
    _opt("tc", "--tc", "a game clock for each side instead of a limit per move: BASE seconds "
         "for the game plus INC seconds after each move, as cutechess-cli's and fastchess's "
         "tc=BASE+INC (10+0.1); each move may take what is left, and running out is a "
         "timeout (the clock counts as --clock says)", {"match", "session", "league", "sprt"},
         group=BOARD, metavar="BASE+INC"),
    _opt("adjudicate", "--adjudicate", "end a game once the analysis proves its result (a "
         "forced win, the loser resigning; or a draw), as the results line then says "
         "(default: every game is played to its end)", {"match", "session", "league", "sprt"},
         action="store_true", default=False, group=BOARD),
    _opt("draw", "--draw -draw", "adjudicate a draw by the thinkers' scores, as fastchess's "
         "and cutechess-cli's -draw: from move M on, once N moves of each side all scored "
         "within ±S (thinkers that report score=, as negamax does)",
         {"match", "session", "league", "sprt"}, nargs="+",
         metavar="movenumber=M movecount=N score=S", group=BOARD),
    _opt("resign", "--resign -resign", "adjudicate a loss by the thinkers' scores, as "
         "fastchess's and cutechess-cli's -resign: a side whose last N moves all scored -S "
         "or below resigns", {"match", "session", "league", "sprt"}, nargs="+",
         metavar="movecount=N score=S", group=BOARD),
    # ---------------------------------------------------------------- finding thinkers
    _opt("thinkers", "--thinkers", "also look for thinkers in this .py file or folder "
         "(repeatable)", _FINDING, action="append", default=[], metavar="PATH",
         group=_PLAYERS),
    _opt("engine", "--engine", "an executable speaking the engine protocol (docs/engines.md), "
         "then a thinker named NAME (repeatable)", _FINDING, action="append", default=[],
         metavar='"NAME=COMMAND [ARGS]"', group=_PLAYERS),
    _opt("in_process", "--in-process", "run thinkers on threads of this process (for "
         "debugging thinkers) instead of isolated worker processes", _FINDING,
         action="store_true", default=False, group=_PLAYERS),
    _opt("network", "--network", "let the thinker NAME (as -W/-R, NEW/BASE or the game file "
         "name it) use the network from its sandbox; the others have none (repeatable; "
         "docs/thinkers.md, the sandbox)", {"match", "session", "sprt"}, action="append",
         default=[], metavar="NAME", group=_PLAYERS),
    _opt("setup_time_limit", "--setup-time-limit", "time a thinker may take to be set up and "
         "named, in its worker (default 10000)", {"match", "session", "sprt"}, default=10_000,
         metavar="MS", group=_PLAYERS, **_INT),
    _opt("memory_limit", "--memory-limit", "memory each thinker's processes may use, in MB "
         "(default 2048, the competition's limit)", {"match", "session", "sprt"},
         default=2048, metavar="MB", group=_PLAYERS, **_INT),
    # ---------------------------------------------------------------- tournaments
    _opt("game_file", "-g --game-file", "one thinker per line, its parameters after it",
         {"session", "league"}, metavar="FILE", required=frozenset({"session"}),
         helps={"league": "the thinkers, one per line with its parameters (as the session "
                          "verb reads them), besides --thinker; -g N (a number) is read as "
                          "--games N, as it once was"}),
    _opt("workers", "--workers", "matches played at once (default: number of cores)",
         {"play", "session", "league", "sprt"}, setting="workers", metavar="N",
         defaults={"league": 1},
         helps={"play": "tournament matches played at once: one on screen, the others in "
                        "the background (default 1; at most the number of cores keeps "
                        "time limits fair)",
                "league": "games played at once (default 1: each thinker alone on the "
                          "machine)"}, **_INT),
    _opt("points_per_win", "--points-per-win", "tournament points per win (default 3)",
         {"play", "session", "league", "report"}, setting="points_per_win", metavar="N",
         group=_TOURNAMENT, **_INT),
    _opt("points_per_draw", "--points-per-draw", "tournament points per draw (default 1)",
         {"play", "session", "league", "report"}, setting="points_per_draw", metavar="N",
         group=_TOURNAMENT, **_INT),
    _opt("points_per_loss", "--points-per-loss", "tournament points per loss (default 0)",
         {"play", "session", "league", "report"}, setting="points_per_loss", metavar="N",
         group=_TOURNAMENT, **_INT),
    _opt("points", "--points", "the three at once: points per win, draw and loss (another "
         "spelling of --points-per-win/-draw/-loss)", {"play", "session", "league", "report"},
         nargs=3, metavar=("WIN", "DRAW", "LOSS"), group=_TOURNAMENT, **_INT),
    _opt("results", "--results", "append each match's result to FILE as a JSON line as it "
         "ends", {"play", "match", "session", "league", "sprt"}, metavar="FILE",
         group=_TOURNAMENT,
         helps={"match": "append the match's result to FILE as a JSON line (with --listen: "
                         "the host writes it)"}),
    _opt("resume", "--resume", "take the matches already in results FILE as played, append "
         "the rest (an SPRT goes on with the same statistics)",
         {"play", "session", "league", "sprt"}, metavar="FILE", group=_TOURNAMENT,
         helps={"league": "go on with the league whose games results FILE holds (an "
                          "interrupted --results FILE): its games count as played, the rest "
                          "are played and appended"}),
    _opt("competition", "--competition", "break a tie in first place by the competition "
         "rules", {"play", "session"}, action="store_true", default=False, group=_TOURNAMENT),
    _opt("unknown_track", "--unknown-track", "derive every board and time setting from two "
         "numbers", {"play", "session"}, nargs=2, metavar=("ROWS", "COLS"),
         group=_TOURNAMENT, **_INT),
    # ---------------------------------------------------------------- play
    _opt("ai", "--ai", "an AI player (repeatable): 0 -> human vs human, 1 -> human vs AI, "
         "2 -> AI vs AI, 3+ -> tournament; a level "
         f"({', '.join(lv.name for lv in LEVELS)}) stands for its thinker", {"play"},
         action="append", default=[], metavar='"THINKER [PARAMS]"'),
    _opt("level", "--level", "play against the AI of this difficulty level (the same as "
         "--ai LEVEL; --ai also takes a level's name)", {"play"},
         choices=[lv.name for lv in LEVELS], type=str.lower),
    _opt("config", "--config", "the setup (settings and AI players) from a TOML file, as the "
         "setup screen saves it; --ai and the board flags override it", {"play"},
         metavar="FILE"),
    _opt("auto", "--auto", "answer every question with its default and exit at the end",
         {"play", "replay"}, action="store_true", default=False,
         helps={"replay": "in the window: play the moves one after another and close at the "
                          "end"}),
    # ---------------------------------------------------------------- match
    _opt("white", "-W --white", "White thinker (default: human)", {"match"},
         metavar="THINKER"),
    _opt("red", "-R --red", "Red thinker (default: human)", {"match"}, metavar="THINKER"),
    _opt("white_params", "--white-params", "White thinker's parameters", {"match"},
         default="", metavar="S"),
    _opt("red_params", "--red-params", "Red thinker's parameters", {"match"}, default="",
         metavar="S"),
    _opt("listen", "--listen", "host the match for a player on another machine: bare PORT "
         "listens on every network of this machine, HOST:PORT on that address only (PORT 0: "
         "any free port); this side plays -W or -R (a human by default, White unless -R)",
         {"match", "session", "play"}, metavar="[HOST:]PORT", group=_ONLINE,
         helps={"session": "broadcast the tournament to spectators (csl-game watch), "
                "read-only: bare PORT listens on every network of this machine, HOST:PORT "
                "on that address only (PORT 0: any free port); matches are played one at a "
                "time so every move is seen",
                "play": "broadcast the window's games to spectators (csl-game watch, or "
                "Watch in another window), read-only, with the standings after each "
                "match: bare PORT listens on every network of this machine, HOST:PORT on "
                "that address only (PORT 0: any free port)"}),
    _opt("connect", "--connect", "join a match hosted with --listen and play the other side "
         "(-W or -R for a thinker, a human by default); board settings are the host's. "
         "With a game server's URL (http://...): join its game --code, or without one open "
         "a challenge in its lobby (docs/server.md)",
         {"match"}, metavar="HOST:PORT|URL", group=_ONLINE),
    _opt("code", "--code", "the join code (with --listen: made up when not given; with "
         "--connect: the one the host printed)", {"match"}, metavar="CODE", group=_ONLINE),
    _opt("reconnect_timeout", "--reconnect-timeout", "seconds a dropped player has to come "
         "back before the host may claim the game (the joiner tries that long; default 120)",
         {"match", "watch"}, default=120.0, metavar="S", group=_ONLINE, **_FLOAT,
         helps={"watch": "seconds to keep trying to reconnect when the connection drops "
                         "(default 120)"}),
    _opt("handshake_timeout", "--handshake-timeout", "with --listen: seconds a new "
         "connection has to say hello (default 10)", {"match", "session"}, default=10.0, metavar="S",
         group=_ONLINE, **_FLOAT),
    _opt("spectators", "--spectators", "with --listen: spectators allowed at once (csl-game "
         "watch; default 8, 0 for none)", {"match", "session"}, default=8, metavar="N", group=_ONLINE,
         helps={"session": "with --listen: spectators allowed at once (default 8)"},
         **_INT),
    _opt("address", "address", "the host's address, as its --listen printed it", {"watch"},
         metavar="HOST:PORT"),
    _opt("json", "--json", "print the result as JSON on stdout (the match goes to stderr)",
         {"match", "watch", "sprt", "analyse", "replay"}, action="store_true", default=False,
         helps={"replay": "with --review: print the review as one JSON object",
                "sprt": "print the result as one JSON object, the last line of standard output "
                        "(progress goes to standard error)",
                "analyse": "print the analysis as one JSON object"}),
    # ---------------------------------------------------------------- session
    _opt("dask", "--dask", "play the matches on a Dask cluster (needs csl-game[dask])",
         {"session", "sprt"}, metavar="ADDRESS"),
    _opt("quiet", "-q --quiet", "print only the final standings",
         {"session", "league", "sprt", "openings", "analyse", "replay"},
         action="store_true", default=False,
         helps={"league": "no line per game", "sprt": "print only the result",
                "openings": "no progress bar (shown only on a terminal)",
                "analyse": "no progress bar (shown only on a terminal)",
                "replay": "with --review: no progress bar (shown only on a terminal)"}),
    _opt("report_every", "--report-every", "a progress line every N games instead of every "
         "pair (as cutechess-cli's -ratinginterval)", {"sprt", "session", "league"},
         metavar="N",
         helps={"session": "a progress line (matches played, the standings' leaders) every N "
                           "matches instead of a line per match",
                "league": "a progress line (games played, the leaders) every N games instead "
                          "of a line per game (as cutechess-cli's -ratinginterval)"}, **_INT),
    _opt("nodes", "--nodes", "a node limit per move for the thinkers that take one, negamax "
         "and mcts (their nodes=N): each stops at the same node on every machine, so the "
         "games do not depend on the machine or its load, as long as -t leaves N nodes room "
         "(a move the clock cuts short is the machine's again); other thinkers play by the "
         "clock, and a note says which", {"sprt", "session", "league"}, metavar="N", **_INT),
    _opt("no_swap", "--no-swap -noswap", "play each pair's games with the same colours "
         "(NEW White in both) instead of swapped (as cutechess-cli's and fastchess's -noswap)",
         {"sprt", "session"}, action="store_true", default=False,
         helps={"session": "play each pairing twice with the same colours instead of once "
                           "with each (with --openings: each opening so; as cutechess-cli's "
                           "and fastchess's -noswap)"}),
    _opt("pgnout", "--pgnout -pgnout", "append each game to FILE as PGN as it ends (the PGN of "
         "report --format pgn; as cutechess-cli's -pgnout)", {"sprt", "session", "league"},
         metavar="FILE"),
    _opt("log", "--log", "write what the run does to FILE, each line with its time: the "
         "command, the games to play, each game as it ends (its players, opening, result and "
         "why), the verdict or the end, and the engine's diagnostics that --log-level lets "
         "through", {"sprt", "session", "league"}, metavar="FILE"),
    _opt("verbose", "--verbose", "print every move and board (plays one match at a time)",
         {"session"}, action="store_true", default=False),
    # ---------------------------------------------------------------- league
    _opt("thinker", "--thinker", "a player (repeatable; default: every built-in thinker)",
         {"league"}, action="append", default=[], metavar='"THINKER [PARAMS]"'),
    _opt("games", "--games", "games per pair and colour, each from another opening "
         "(default 2)", {"league", "bot"}, default=2, metavar="N", defaults={"bot": 1},
         helps={"bot": "games the bot plays at once (default 1)"}, **_INT),
    _opt("openings_plies", "--openings-plies --opening-plies", "plies of each opening: a "
         "book's lines (--openings) cut to their first N; without a book, the openings drawn "
         "have N plies (0 to 2, default 2)", {"league", "sprt", "session"}, metavar="N",
         helps={"session": "cut each line of the --openings book to its first N plies (as "
                           "fastchess's -openings plies=N)"}, **_INT),
    _opt("openings_order", "--openings-order", "the book's openings in the file's order "
         "(sequential, the default) or shuffled by --seed (random)",
         {"league", "sprt", "session"}, default="sequential",
         choices=("sequential", "random")),
    _opt("openings_start", "--openings-start", "begin with the book's opening N (1: the "
         "first, the default), then go on in order, round to the start",
         {"league", "sprt", "session"}, metavar="N", **_INT),
    _opt("seed", "--seed", "shuffles the openings (default 1)",
         {"league", "sprt", "openings", "session"},
         default=1, helps={"openings": "the random openings drawn (default 1)",
                           "session": "shuffles the book of --openings-order random "
                                      "(default 1)"}, **_INT),
    _opt("openings", "--openings", "an opening book: one opening a line in move notation "
         "(3r 3s 4r), # comments, or PGN (each game's {book} moves); every game starts from one", {"league", "sprt", "session"},
         metavar="FILE",
         helps={"sprt": "an opening book (one opening a line, 3r 3s 4r; or PGN, each game's "
                        "{book} moves); each opening is played twice, once with each colour "
                        "(with --no-swap: NEW White both times) (default: every two-move "
                        "opening, each side's own shape, shuffled by --seed)",
                "session": "an opening book (or PGN, each game's {book} moves): every "
                           "pairing plays each opening with both colours (with --no-swap: "
                           "twice with its first colours)"}),
    # ---------------------------------------------------------------- sprt and openings
    _opt("new", "new", 'the thinker tested, "NAME [PARAMS]"', {"sprt"}, metavar="NEW"),
    _opt("base", "base", 'the thinker it is tested against, "NAME [PARAMS]"', {"sprt"},
         metavar="BASE"),
    _opt("elo0", "--elo0", "H0: NEW is at most this much stronger (default 0)", {"sprt"},
         default=0.0, metavar="E0", **_FLOAT),
    _opt("elo1", "--elo1", "H1: NEW is at least this much stronger (default 5)", {"sprt"},
         default=5.0, metavar="E1", **_FLOAT),
    _opt("alpha", "--alpha", "the chance of accepting H1 when H0 holds (default 0.05)",
         {"sprt"}, default=0.05, **_FLOAT),
    _opt("beta", "--beta", "the chance of accepting H0 when H1 holds (default 0.05)", {"sprt"},
         default=0.05, **_FLOAT),
    _opt("model", "--model", "elo0 and elo1 in logistic or normalized Elo (default logistic)",
         {"sprt"}, default="logistic", choices=("logistic", "normalized")),
    _opt("max_games", "--max-games", "stop, inconclusive, after this many games (default "
         "10000)", {"sprt"}, default=10_000, metavar="N", **_INT),
    _opt("plies", "--plies", "moves in each opening (default 4)", {"openings"}, default=4,
         metavar="K", **_INT),
    _opt("count", "--count", "openings in the book (default 50)", {"openings"}, default=50,
         metavar="N", **_INT),
    _opt("markdown", "--markdown", "print the tables as Markdown", {"league"},
         action="store_true", default=False),
    # ---------------------------------------------------------------- report and replay
    _opt("results_file", "results_file", "a results file (a JSON line per match), or match "
         "--json output", {"report", "replay"}, metavar="RESULTS_FILE"),
    _opt("format", "--format", "md, csv or json on standard output; pgn: every game as PGN "
         "(White, Black, Result tags) for Ordo or BayesElo; reference writes the "
         "reference framework's standings.md and results/ into --output; html writes the "
         "tournament's web site into --output", {"report"},
         default="md", choices=("md", "csv", "json", "pgn", "reference", "html")),
    _opt("serve", "--serve", "serve the tournament's web site over HTTP (built from the "
         "results file, and rebuilt as it grows; or a site folder as it is) until Ctrl+C",
         {"report"}, action="store_true", default=False),
    _opt("port", "--port", "with --serve: the port (default 8000)", {"report", "server"},
         default=8000, metavar="P", defaults={"server": 8080},
         helps={"server": "the port to listen on (default 8080; 0: any free port)"}, **_INT),
    _opt("host", "--host", "with --serve: the address to listen on (default 0.0.0.0: every "
         "network of this machine; 127.0.0.1: this machine only)", {"report", "server"},
         default="0.0.0.0", metavar="ADDRESS", defaults={"server": "127.0.0.1"},
         helps={"server": "the address to listen on (default 127.0.0.1: this machine only; "
                          "0.0.0.0 or :: every network, best behind a TLS reverse proxy)"}),
    _opt("db", "--db", "the database: an SQLite file (default: server.sqlite3 in the user's "
         "data folder) or a postgresql:// URL", {"server"}, metavar="FILE|URL",
         group=_SERVER),
    _opt("register", "--register", "who may add bots: open (a bot registers by its name) or "
         "admin (a token from --add-bot; the default)", {"server"}, default="admin",
         choices=("open", "admin"), group=_SERVER),
    _opt("add_bot", "--add-bot", "register a bot called NAME, print its token and exit",
         {"server"}, metavar="NAME", group=_SERVER),
    _opt("grace", "--grace", "wall-clock time a remote move may take past the time limit "
         "to arrive, in ms (the network; default 1000)", {"server"}, default=1000,
         metavar="MS", group=_SERVER, **_INT),
    _opt("max_ai_games", "--max-ai-games", "games against the server's AI at once (default "
         "8; 0: none)", {"server"}, default=8, metavar="N", group=_SERVER, **_INT),
    _opt("public_host", "--public-host", "a name browsers reach the server by (repeatable; "
         "DNS rebinding)", {"server"}, action="append", default=[], metavar="NAME", group=_SERVER),
    _opt("url", "url", "the server's address (http://host:port, or https://...)", {"bot"},
         metavar="URL"),
    _opt("bot_thinker", "thinker", "the thinker that plays (csl-game info lists them)",
         {"bot"}, metavar="THINKER"),
    _opt("params", "--params", "the thinker's parameters", {"bot"}, default="", metavar="P"),
    _opt("name", "--name", "the bot's name on the server (default: the thinker's)", {"bot"},
         metavar="NAME"),
    _opt("connect_timeout", "--connect-timeout", "seconds to keep trying a server that "
         "has never answered before giving up (exit 2; default 60; 0: keep trying for ever); "
         "once connected, a bot tries again for ever when the connection drops", {"bot"},
         default=60.0, metavar="S", **_FLOAT),
    _opt("token", "--token", "the bot's token (default: the one saved when it registered, "
         "or from --add-bot)", {"bot"}, metavar="T"),

    _opt("table", "--table", "which table CSV gives", {"report"}, default="standings",
         choices=("standings", "results")),
    _opt("ratings", "--ratings", "print every player's maximum-likelihood Elo with its 95 % "
         "interval (Bradley-Terry, as Ordo), in --format md, csv or json", {"report"},
         action="store_true", default=False),
    _opt("anchor", "--anchor", "with --ratings: hold this player at this Elo (default: the "
         "average at 0)", {"report"}, metavar="NAME=ELO"),
    _opt("moves", "moves", "the position: its moves from the empty board in move "
         "notation (3r 2s ...); none for the empty board", {"analyse"}, nargs="*",
         metavar="MOVE"),
    _opt("depth", "--depth", "analyse this many plies deep (instead of for a time)",
         {"analyse", "openings"}, metavar="N",
         helps={"openings": "rate each opening by 4 games negamax plays out from it against "
                            "itself, searching N-3 to N plies a move (default 5; the same "
                            "book every run)"}, **_INT),
    _opt("band", "--band", "keep the openings where White's score in those games is within "
         "this much of 0.625 (default 0.125: 2 or 3 of 4 games; shallow games understate "
         "Red's edge)", {"openings"}, default=0.125, metavar="F", **_FLOAT),
    _opt("site", "--site", "keep the tournament's web site in DIR up to date as each match "
         "ends (csl-game report --format html writes the same site)",
         {"session", "league", "sprt", "play"}, metavar="DIR"),
    _opt("title", "--title", "the title of the tournament's web site (--site, --format html, "
         "--serve; default: Tournament)", {"session", "league", "sprt", "report"},
         metavar="TEXT"),
    _opt("log_level", "--log-level", "diagnostics of the engine on standard error: worker "
         "processes started, killed and ended, forfeits (default: warning, only what went "
         "wrong with the program's own machinery)", frozenset(VERBS), default="warning",
         choices=("debug", "info", "warning", "error"), metavar="LEVEL"),
    _opt("examples", "--examples", "copy the examples (engines in Python and C, the C# host "
         "and its build script) into DIR, as a checkout has them in examples/", {"info"},
         metavar="DIR"),
    _opt("output", "-o --output", "the folder --format reference writes into (default: here)",
         {"report", "openings"}, default=".", metavar="DIR", defaults={"openings": None},
         metavars={"openings": "FILE"},
         helps={"openings": "write the book to FILE (default: standard output)"}),
    _opt("match", "--match", "the match's number, as reports show it (needed when the file "
         "holds several)", {"replay"}, metavar="N", **_INT),
    _opt("list", "--list", "list the file's matches", {"replay"}, action="store_true",
         default=False),
    _opt("review", "--review", "review the match in the terminal: every move graded against "
         "the analysis of the position before it (best, good, inaccuracy, mistake, "
         "blunder), the better move, each player's accuracy", {"replay"},
         action="store_true", default=False),
    _opt("review_time", "--review-time", "with --review: time to analyse each position, in "
         "ms (default 1000)", {"replay"}, default=1000, metavar="MS", **_INT),
    _opt("console", "--console", "in the terminal (also without a display): every move and "
         "board, or step with Enter when at a terminal", {"replay"}, action="store_true",
         default=False),
)
"""Every option of every verb."""

_BY_DEST = {o.dest: o for o in OPTIONS}
MATCH_KEYS = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces", "time_limit",
              "min_move_time")
"""The board and timing options, as MatchConfig takes them."""


def default_pieces(rows: int, cols: int) -> tuple[int, int]:
    """services.settings.default_pieces, which loads the engine when first called."""
    from csl_game.services.settings import default_pieces as pieces
    return pieces(rows, cols)


def options_of(verb: str) -> list[Option]:
    """The rows of `verb`, in table order."""
    return [o for o in OPTIONS if verb in o.verbs]


def option(dest: str) -> Option:
    """The row of the option whose values go to `dest`."""
    return _BY_DEST[dest]


def flag_text(dest: str) -> str:
    """'-r/--rows': how messages name an option."""
    return "/".join(_BY_DEST[dest].flags)


def _setting_dest(setting: str) -> str:
    return next(o.dest for o in OPTIONS if o.setting == setting)


def check_ranges(values: Mapping[str, object]) -> None:
    """Refuse a value over its setting's limit (before a board is made of it:
    a huge one would take all the memory there is), naming the flag.

    Raises:
        UsageError: one line naming the flag and the limit.
    """
    from csl_game.services.limits import check_limits

    settings = {_BY_DEST[d].setting: v for d, v in values.items()
                if v is not None and _BY_DEST[d].setting is not None}
    try:
        check_limits(settings)  # type: ignore[arg-type]
    except SettingError as e:
        raise UsageError(f"{flag_text(_setting_dest(e.key))}: {e.problem}") from None
