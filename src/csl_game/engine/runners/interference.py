"""Telling another program's doing from a thinker's own, where workers run
without a sandbox (macOS, Windows, Linux without user namespaces).

There any program of the same user can stop or kill a worker: another
thinker, most likely. csl-game stops a worker only to kill it, and kills it
only for a reason it records (a time-out ignored, its memory, its protocol,
the match's end), so a worker found stopped, or dead by a signal that no
crashing thinker dies by, was not its thinker's doing; nor was its end when
the fork server that started it, which tells the worker's exit code, was
killed (multiprocessing then gives the worker `STARTER_LOST`): its match is
played again (`ForfeitReason.INTERFERED`, `csl_game.engine.session`). In a sandbox
no other program can name a worker, and nothing here applies.
"""

from __future__ import annotations

import signal

import psutil

__all__ = ["NOT_ITS_OWN", "STARTER_LOST", "killed_by_another", "starter_killed",
           "stopped_by_another"]

_BY_ANOTHER = ("a signal csl-game did not send: another program (another thinker, without a "
               "sandbox) {did} it")

NOT_ITS_OWN = frozenset(int(getattr(signal, name)) for name in
                        ("SIGKILL", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))
"""Signals a worker dies by only when sent: a crashing thinker dies by
SIGSEGV, SIGABRT, SIGBUS or SIGFPE instead."""


STARTER_LOST = 255
"""The exit code multiprocessing gives a worker whose fork server ended
before telling the worker's own (or that the worker exited with)."""


def starter_killed(exitcode: int | None, starter: psutil.Process | None) -> str | None:
    """What happened, if a worker that csl-game did not kill has no exit code
    of its own because `starter`, the fork server that started it, is gone;
    None otherwise."""
    if exitcode != STARTER_LOST or starter is None:
        return None
    try:
        gone = starter.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        gone = True
    except (psutil.Error, OSError):
        return None
    if not gone:
        return None  # (its thinker exited with 255)
    return ("csl-game's fork server, which started its process and tells how it ended, was "
            "killed by " + _BY_ANOTHER.format(did="killed"))


def killed_by_another(exitcode: int | None) -> str | None:
    """What happened, if a worker that csl-game did not kill ended by a
    signal of `NOT_ITS_OWN`; None otherwise (its thinker's doing)."""
    if exitcode is None or -exitcode not in NOT_ITS_OWN:
        return None
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = str(-exitcode)
    return f"its process was killed by signal {name}, " + _BY_ANOTHER.format(did="killed")


def stopped_by_another(proc: psutil.Process | None) -> str | None:
    """What happened, if `proc` (a worker csl-game is not killing) is stopped."""
    if proc is None:
        return None
    try:
        stopped = proc.status() in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)
    except (psutil.Error, OSError):
        return None
    if not stopped:
        return None
    return "its process was stopped by " + _BY_ANOTHER.format(did="stopped")
