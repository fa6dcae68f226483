"""The window's sessions: who plays, and on which clock an AI is timed.

Between AIs a move's time is counted on the match's clock (the CPU clock by
default: a busy machine cannot make a thinker lose on time). A person waits
on the wall: against one, an AI is timed on the wall clock and is asked to
stop at its limit, its best move so far taken (`answer_at_limit`), so a busy
machine never makes a person wait past the limit, nor costs the AI the game.
"""

from __future__ import annotations

from dataclasses import replace

from csl_game.engine import RunnerFactory, Session, answer_at_limit
from csl_game.gui.pacing import Pacer
from csl_game.services.settings import PlayOptions

__all__ = ["build_session", "against_a_person"]


def against_a_person(options: PlayOptions) -> bool:
    """Whether the options' session sets one AI against a person (humans fill
    the seats the AIs leave: one AI plays a human)."""
    return len(options.active_ais) == 1


def build_session(options: PlayOptions, runner_factory: RunnerFactory,
                  pacer: Pacer | None = None) -> Session:
    """The session the options describe, its AIs' turns held by `pacer`:
    humans fill the seats AIs leave empty; an AI that plays a person is timed
    on the wall clock and answers at its limit.

    Raises:
        ThinkerError: an active AI's thinker is unknown.
        ConfigError: the results file cannot be read or written.
    """
    if against_a_person(options):
        options = replace(options, match=replace(options.match, clock="wall"))
        runner_factory = answer_at_limit(runner_factory)
    return options.new_session(pacer.wrap(runner_factory) if pacer is not None
                               else runner_factory)
