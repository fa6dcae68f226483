"""Prototypes: how the engine makes set-up thinkers of one kind.

A prototype names its thinker class without holding it where it need not: a
thinker of a user's ``--thinkers`` file is known by its `ThinkerRef` (module,
class name, file), read from the file's source, and its class is only made
where thinker code runs: in a worker process (which gives the prototype the
class itself), or in ``--in-process`` mode when `create()` is called.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from csl_game.errors import (
    EngineError,
    EngineProtocolError,
    EngineRefused,
    SetupRefused,
    ThinkerError,
)
from csl_game.thinker.api import AbstractThinker, InfoHandler, MatchConfig, thinker_display_name
from csl_game.thinker.discovery import ThinkerRef, catalog, fqn_of, registry, where, why_abstract

__all__ = ["ThinkerPrototype", "where", "ClassNames"]


class ClassNames:
    """Stands for a class that is not imported in this process: its names
    only, read as a class's (``__module__``, ``__qualname__``, ``__name__``).

    For readers of `ThinkerPrototype.thinker_class` that only want those
    names (the process runner's `worker_spec`)."""

    def __init__(self, module: str, qualname: str) -> None:
        self.__module__ = module
        self.__qualname__ = qualname
        self.__name__ = qualname.rpartition(".")[2]

    def __repr__(self) -> str:
        return f"<thinker class {self.__module__}.{self.__qualname__}, not imported here>"


def _thinker_class(cls: object) -> type[AbstractThinker]:
    """`cls`, checked to be a thinker class that can be made.

    Raises:
        ThinkerError: it is not an AbstractThinker subclass, or is abstract.
    """
    if not (isinstance(cls, type) and issubclass(cls, AbstractThinker)):
        what = cls.__qualname__ if isinstance(cls, type) else f"a {type(cls).__name__}"
        raise ThinkerError(f"{what} is not a thinker class (an AbstractThinker subclass)")
    if inspect.isabstract(cls):
        raise ThinkerError(f"thinker {fqn_of(cls)} cannot play: {why_abstract(cls)}")
    return cls


class ThinkerPrototype:
    """Makes set-up thinkers of one kind with fixed parameters.

    `name` is a fully qualified class name (``csl_game.thinkers.minimax.MinimaxAIThinker``),
    a short, case-insensitive name (``minimax``), or the thinker class itself.
    Naming a thinker of a ``--thinkers`` file (`paths`) runs none of its code.

    Raises:
        ThinkerError: the name is unknown or ambiguous, or the class cannot play.
    """

    def __init__(self, name: str | type[AbstractThinker], params: str = "",
                 match_config: MatchConfig | None = None,
                 paths: tuple[str, ...] = ()) -> None:
        self.params = params
        self.match_config = match_config or MatchConfig()
        self.paths = tuple(str(p) for p in paths)
        found = catalog(self.paths).find(name) if isinstance(name, str) \
            else _thinker_class(name)
        self._class: type[AbstractThinker] | None = None
        if isinstance(found, ThinkerRef):
            self.ref: ThinkerRef | None = found
            """The file's thinker as read, for a thinker of a --thinkers file."""
            self.module, self.qualname = found.module, found.qualname
        else:
            self.ref, self._class = None, found
            self.module, self.qualname = found.__module__, found.__qualname__
        self.network = False
        """Whether its workers keep the network in their sandbox (its player asked)."""
        self.fqn = f"{self.module}.{self.qualname}"
        """The class's fully qualified name."""
        self.requested_name = name if isinstance(name, str) else self.fqn
        """The thinker's name as it was asked for (results files keep it)."""

    @property
    def thinker_class(self) -> Any:
        """The class when it is imported here (given, built-in or installed, or
        made by `create()` in-process); for a thinker of a --thinkers file in
        this process, a `ClassNames` with its names. Never imports a file."""
        if self._class is not None:
            return self._class
        return ClassNames(self.module, self.qualname)

    def load(self) -> type[AbstractThinker]:
        """The class, importing its file if need be: **thinker code runs**, so
        only where it may (a worker process, or in-process mode).

        Raises:
            ThinkerError: the file fails to load (FileFailed: its code raised),
                or what it names there is no thinker class that can play.
        """
        if self._class is None:
            cls: Any = registry(self.paths).classes.get(self.fqn)
            if cls is None:  # a name that reading could not check: what is it?
                cls = importlib.import_module(self.module)
                for part in self.qualname.split("."):
                    cls = getattr(cls, part, None)
                    if cls is None:
                        raise ThinkerError(f"thinker {self.fqn}: {self.module} has no "
                                           f"{self.qualname}")
            self._class = _thinker_class(cls)
        return self._class

    def create(self, info: InfoHandler | None = None) -> AbstractThinker:
        """A new thinker, configured and with setup() already run.

        Raises:
            SetupRefused: the constructor or setup() failed (a ThinkerError),
                or an engine refused its settings, or its file raised as it
                was imported (FileFailed).
            ThinkerError: its file could not be loaded otherwise, or names no
                thinker class that can play.
            EngineError, EngineProtocolError: an engine could not start, or
                did not answer as the protocol says (no refusal: it failed).
        """
        cls = self.load()
        try:
            thinker = cls()
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
        metaclass's), or from the file's source for a --thinkers file. The
        name a thinker gives itself (its ``str()``, e.g. ``MinimaxD4``) is
        thinker code: the engine asks it in a worker process
        (csl_game.engine.runners.probe), never here.
        """
        if self._class is None:
            return thinker_display_name(self.qualname.rpartition(".")[2])
        name = type.__dict__["__name__"].__get__(self._class)
        return thinker_display_name(str.__str__(name))

    def __repr__(self) -> str:
        return f"ThinkerPrototype({self.fqn!r}, {self.params!r})"
