"""Checking AI players before they play: each thinker is known and accepts its
parameters, asked of the thinker itself in a worker process (this process
runs none of its code), all players at once."""

from __future__ import annotations

from collections.abc import Sequence

from csl_game.engine import SetupProbe, SetupReport
from csl_game.errors import CslError, SettingError
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["PlayerKey", "player_key", "prototype_of", "refusal", "report_problem",
           "player_problems", "check_players"]


PlayerKey = tuple[str, str, MatchConfig, tuple[str, ...], bool]
"""A player as checked: thinker, parameters, match, thinker paths, in-process mode."""


def prototype_of(key: PlayerKey) -> ThinkerPrototype | tuple[str, str]:
    """The player's prototype, or ('thinker', problem) when its thinker is unknown."""
    thinker, params, match, paths, _ = key
    try:
        return ThinkerPrototype(thinker, params, match, paths)
    except CslError as e:
        return "thinker", str(e)


def refusal(prototype: ThinkerPrototype, report: SetupReport) -> str | None:
    """"X does not accept 'PARAMS': why" when the thinker refused its
    parameters, else None.

    Only an Exception from its constructor or setup() (or from its file's
    top level, as its worker imported it) is a refusal: a setup that hangs,
    exits or eats its memory is misbehaviour, which costs the thinker its
    matches (with that reason) but is no bad input. `why` is the refusal's
    message when it is meant for people (a ValueError's, or one of this
    project's errors', such as an engine that cannot start); any other
    exception, and any raised by the file's top level, is a bug in the
    thinker, told as its type, message and the line of its own file that
    raised it.
    """
    if not report.refused or report.forfeit is None:
        return None
    at_import = ", in <module>" in report.where  # its file's top level: never about parameters
    told = report.error in _told_errors() and report.reason.strip() and not at_import
    if told:
        why = report.reason.strip().splitlines()[0]
        return f"{prototype.requested_name} does not accept '{prototype.params}': {why}"
    # Any other exception is a bug in the thinker's code, not in its parameters.
    message = report.reason.strip().splitlines()[0] if report.reason.strip() else ""
    raised = f"{report.error}: {message}" if message else report.error or "an exception"
    at = f" at {report.where}" if report.where else ""
    if report.error == "TypeError" and not report.where:  # called with the wrong arguments
        at = " (a thinker's setup is `def setup(self, params: str) -> None`)"
    return (f"{prototype.requested_name} could not be set up: its code raised "
            f"{raised}{at}")


def _told_errors() -> set[str]:
    """Names of the errors whose message is meant for people: ValueError and ours."""
    names, todo = {"ValueError"}, [CslError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo += cls.__subclasses__()
    return names


def report_problem(prototype: ThinkerPrototype, report: SetupReport) -> tuple[str, str] | None:
    """('params', why) when the thinker refused its parameters (`refusal`), else None."""
    text = refusal(prototype, report)
    return None if text is None else ("params", text)


_CHECKED: dict[PlayerKey, tuple[str, str] | None] = {}
"""Players checked before, with their problem (None: fine)."""


def _player_problems(keys: Sequence[PlayerKey]) -> dict[PlayerKey, tuple[str, str] | None]:
    """(field, problem) of each player whose thinker is unknown or refuses its
    parameters, None for the others.

    The players not checked before are set up all at once, each in a worker
    process (here with its key's in-process mode) with the setup time limit:
    this process runs none of their code, and waits for the slowest only.
    """
    todo: dict[PlayerKey, ThinkerPrototype] = {}
    for key in dict.fromkeys(keys):
        if key in _CHECKED:
            continue
        prototype = prototype_of(key)
        if isinstance(prototype, tuple):
            _CHECKED[key] = prototype
        else:
            todo[key] = prototype
    probes = {key: SetupProbe(prototype, in_process=key[4]) for key, prototype in todo.items()}
    try:
        for key, probe in probes.items():
            report = probe.wait()
            assert report is not None
            _CHECKED[key] = report_problem(todo[key], report)
    finally:
        for probe in probes.values():
            probe.close()
    return {key: _CHECKED[key] for key in keys}


def player_key(ai: AIEntry, options: PlayOptions) -> PlayerKey:
    """The player as checked: its thinker and parameters, on the setup's board."""
    return ai.thinker, ai.params, options.match, options.thinker_paths, options.in_process


def player_problems(ais: Sequence[AIEntry], options: PlayOptions) -> dict[str, str]:
    """What is wrong with each AI player, keyed ``players[N].thinker`` or
    ``players[N].params`` (N from 1); empty when every one is fine. Blocks
    while they are set up, all at once, each in a worker process.

    Raises:
        WorkerStartError: no worker process could be started.
    """
    keys = [player_key(ai, options) for ai in ais]
    found = _player_problems(keys)
    return {f"players[{i}].{problem[0]}": problem[1]
            for i, key in enumerate(keys, 1) if (problem := found[key]) is not None}


def check_players(ais: Sequence[AIEntry], options: PlayOptions) -> None:
    """Each AI's thinker is known and accepts its parameters (blocking: they
    are set up at once, each in a worker process, with the setup time limit).

    Raises:
        SettingError: the first problem, keyed ``players[N].thinker`` or
            ``players[N].params`` (N from 1).
        WorkerStartError: no worker process could be started.
    """
    for key, problem in player_problems(ais, options).items():
        raise SettingError(key, problem)
