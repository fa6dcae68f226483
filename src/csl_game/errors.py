"""The project's exceptions: one tree, and the exit status of each branch.

::

    CslError
    ├── BoardConfigError (ValueError)   board settings that make no playable game
    ├── InvalidMoveError (ValueError)   a move the board refuses
    ├── NotationError (ValueError)      text that is no move in the notation
    ├── ConfigError (ValueError)        bad settings, command line or input files
    │   ├── UsageError                  bad command-line usage
    │   ├── SettingError                one bad setting, named by its key
    │   ├── ConfigFileError             a setup file that cannot be read or is wrong
    │   └── InputEnded                  the terminal's input ended while a human was to play
    ├── ResultsWriteError              a results file that cannot be written (a full disk)
    ├── ThinkerError                    a thinker that cannot be found, loaded or set up
    │   ├── SetupRefused                its constructor or setup() refused its parameters
    │   ├── EngineError                 an engine that cannot start, refused or failed
    │   │   └── EngineDied              an engine's process ended while it was to answer
    │   └── EngineProtocolError         an engine sent a line the protocol does not allow
    ├── SessionStateError               a call the session or match cannot take now
    │   ├── MatchAborted                a match stopped from outside before it ended
    │   └── Refused                     a request a match refuses now (undo, resign)
    ├── WorkerStartError                the program could not start a worker process
    ├── NetworkError                    an online game's address, connection or host failed
    │   └── ProtocolError (ValueError)  a line that is no message of the online protocol
    └── WorkerProtocolError (ValueError) bytes from a worker that are no message of its
    Terminated (BaseException)          SIGTERM: unwinds like Ctrl+C

Bad input (exit 2) is what a user gave: settings, files, thinkers and their
parameters, a results file that cannot be written where they asked. A wrong
call of the session's (exit 1) is the program's own mistake, as is any error
not in the tree. `exit_status()` is the one table the command line uses.
"""

from __future__ import annotations

__all__ = ["CslError", "BoardConfigError", "InvalidMoveError", "ConfigError", "UsageError",
           "SettingError", "ConfigFileError", "InputEnded", "ResultsWriteError", "ThinkerError",
           "SetupRefused", "EngineError", "EngineDied", "EngineRefused", "EngineProtocolError", "NotationError",
           "SessionStateError", "MatchAborted", "Refused", "WorkerStartError", "NoDisplay", "Terminated",
           "WorkerProtocolError", "NetworkError", "ProtocolError", "EXIT_STATUS", "exit_status"]


class CslError(Exception):
    """Base of every error this package raises on purpose."""


class BoardConfigError(CslError, ValueError):
    """Board settings that cannot make a playable game."""


class InvalidMoveError(CslError, ValueError):
    """A move the board refuses: bad column, game over or no such piece left.

    `problem` is the model's `MoveProblem` when the board refused the move.
    """

    def __init__(self, message: str, problem: object = None) -> None:
        super().__init__(message)
        self.problem = problem


class ConfigError(CslError, ValueError):
    """Bad match, session or command-line settings, or an input file that is wrong."""


class UsageError(ConfigError):
    """Bad command-line usage."""


class SettingError(ConfigError):
    """A bad setting: `key` names it (``players[2].thinker`` for a player)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


class ConfigFileError(ConfigError):
    """A config file that cannot be read or holds a bad value."""


class InputEnded(ConfigError):
    """The terminal's input ended while a human was to play."""


class ResultsWriteError(CslError):
    """A results file that cannot be written (a full disk, a removed folder);
    the lines written before are kept."""


class ThinkerError(CslError):
    """A thinker that cannot be found, loaded or set up."""


class SetupRefused(ThinkerError):
    """A thinker's constructor or setup() raised an Exception: it refuses its
    parameters. The refusal is carried as fields, in the thinker's own words."""

    def __init__(self, thinker: str, params: str, error: str, reason: str,
                 where: str = "") -> None:
        at = f" (at {where})" if where else ""
        super().__init__(f"thinker {thinker} could not be set up with parameters "
                         f"{params!r}: {error}: {reason}{at}")
        self.where = where
        """Where the thinker's own code raised it: 'FILE, line N, in FUNCTION: CODE'."""
        self.thinker = thinker
        """The thinker's fully qualified name."""
        self.params = params
        self.error = error
        """The class name of the exception it raised (``ValueError``)."""
        self.reason = reason
        """That exception's message."""


class EngineError(ThinkerError):
    """An engine could not be started, refused its settings, or failed."""


class EngineDied(EngineError):
    """An engine's process ended while it was expected to answer."""


class EngineRefused(EngineError):
    """An engine answered its settings with ``error``: it refuses its parameters.

    The only engine failure of a setup that is a refusal (bad input, exit 2
    before anything plays); an engine that cannot start, speaks another
    version or does not answer misbehaves, and forfeits its matches."""


class EngineProtocolError(ThinkerError):
    """An engine sent a line the protocol does not allow where it came."""


class NotationError(CslError, ValueError):
    """Text that is not a move in the compact notation (a column, then r or s).

    `token` is the offending piece of text and `index` its 1-based place
    among the moves (0 when a single move was parsed).
    """

    def __init__(self, message: str, token: str = "", index: int = 0) -> None:
        super().__init__(message)
        self.token = token
        self.index = index


class SessionStateError(CslError):
    """A call that the session or match cannot take in its state (a step out of
    order): the program's mistake, not the user's input."""


class MatchAborted(SessionStateError):
    """A match was stopped from outside before it ended."""


class Refused(SessionStateError):
    """The match refuses a request now (undo, resign); the message says why."""


class NoDisplay(CslError):
    """The window was asked for where there is no display to open it on."""


class WorkerStartError(CslError):
    """The program could not start a worker process (no file descriptors,
    memory or processes left): its own failure, which no thinker is charged with."""


class WorkerProtocolError(CslError, ValueError):
    """Bytes a worker sent that are no message of the worker protocol (garbage,
    an oversized or unfinished frame): only thinker code writes such things,
    and it costs that thinker its match (never reaches the command line)."""


class NetworkError(CslError):
    """An online game could not go on: a bad address, a connection refused or
    lost for good, or the host's refusal (a wrong code, another version). The
    message says which, in one line."""


class ProtocolError(NetworkError, ValueError):
    """A line from the network that is no message of the online protocol
    (csl_game.online.protocol): too long, not JSON, unknown, or a field of the
    wrong type or out of range. The connection that sent it is closed."""


class Terminated(BaseException):
    """The program was asked to end (SIGTERM): unwinds like Ctrl+C, so every
    match is stopped, every worker ended and the results file closed."""


EXIT_STATUS: dict[type[BaseException], int] = {
    KeyboardInterrupt: 130,
    Terminated: 143,
    BrokenPipeError: 141,
    BoardConfigError: 2,
    InvalidMoveError: 2,
    NotationError: 2,
    ConfigError: 2,
    ResultsWriteError: 2,
    ThinkerError: 2,
    NoDisplay: 2,
    NetworkError: 2,
    SessionStateError: 1,
    WorkerStartError: 1,
    WorkerProtocolError: 1,
}
"""The exit status of each branch of the tree (and of the interruptions);
anything else is 1."""


def exit_status(error: BaseException) -> int:
    """The exit status for `error`: its nearest class in `EXIT_STATUS`, else 1."""
    for cls in type(error).__mro__:
        if cls in EXIT_STATUS:
            return EXIT_STATUS[cls]
    return 1
