"""Prototypes: how the engine makes set-up thinkers of one kind."""

from __future__ import annotations

import os
import traceback

from csl_game.errors import (
    EngineError,
    EngineProtocolError,
    EngineRefused,
    SetupRefused,
    ThinkerError,
)
from csl_game.thinker.api import AbstractThinker, InfoHandler, MatchConfig, thinker_display_name
from csl_game.thinker.discovery import fqn_of, registry

__all__ = ["ThinkerPrototype", "where"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def where(exc: BaseException) -> str:
    """Where in the thinker's own code `exc` was raised: 'FILE, line N, in
    FUNCTION: CODE' for the innermost frame outside this package ('' if none)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(_PACKAGE + os.sep)]
    if not frames:
        return ""
    f = frames[-1]
    code = f" : {f.line.strip()}" if f.line and f.line.strip() else ""
    return f"{f.filename}, line {f.lineno}, in {f.name}{code}".replace(" : ", ": ", 1)


class ThinkerPrototype:
    """Makes set-up thinkers of one kind with fixed parameters.

    `name` is a fully qualified class name (``csl_game.thinkers.minimax.MinimaxAIThinker``),
    a short, case-insensitive name (``minimax``), or the thinker class itself.
    """

    def __init__(self, name: str | type[AbstractThinker], params: str = "",
                 match_config: MatchConfig | None = None,
                 paths: tuple[str, ...] = ()) -> None:
        self.params = params
        self.requested_name = name if isinstance(name, str) else fqn_of(name)
        """The thinker's name as it was asked for (results files keep it)."""
        self.match_config = match_config or MatchConfig()
        self.paths = tuple(str(p) for p in paths)
        if isinstance(name, type):
            if not issubclass(name, AbstractThinker):
                raise ThinkerError(f"{name.__qualname__} is not an AbstractThinker subclass")
            self.thinker_class: type[AbstractThinker] = name
        else:
            self.thinker_class = registry(self.paths).resolve(name)
        self.fqn = f"{self.thinker_class.__module__}.{self.thinker_class.__qualname__}"

    def create(self, info: InfoHandler | None = None) -> AbstractThinker:
        """A new thinker, configured and with setup() already run.

        Raises:
            SetupRefused: the constructor or setup() failed (a ThinkerError),
                or an engine refused its settings.
            EngineError, EngineProtocolError: an engine could not start, or
                did not answer as the protocol says (no refusal: it failed).
        """
        try:
            thinker = self.thinker_class()
            thinker._configure(self.match_config, info)
            thinker.setup(self.params)
        except (EngineError, EngineProtocolError) as e:
            if isinstance(e, EngineRefused):
                raise SetupRefused(self.fqn, self.params, type(e).__name__, str(e)) from e
            raise  # an engine that cannot start or answer refuses nothing: it failed
        except Exception as e:  # user code: any failure is the thinker's
            raise SetupRefused(self.fqn, self.params, type(e).__name__, str(e),
                               where(e)) from e
        return thinker

    @property
    def default_name(self) -> str:
        """The class-name rule's name, e.g. ``Minimax`` for ``MinimaxAIThinker``.

        Read from the class without running any of its code (not even a
        metaclass's). The name a thinker gives itself (its ``str()``, e.g.
        ``MinimaxD4``) is thinker code: the engine asks it in a worker process
        (csl_game.engine.runners.probe), never here.
        """
        name = type.__dict__["__name__"].__get__(self.thinker_class)
        return thinker_display_name(str.__str__(name))

    def __repr__(self) -> str:
        return f"ThinkerPrototype({self.fqn!r}, {self.params!r})"
