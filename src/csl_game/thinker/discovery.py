"""Finding thinker classes: built-in, from paths, engines, and from entry points.

Thinkers come from four places: the built-in ``csl_game.thinkers`` package
(the repository's top-level ``thinkers/`` folder, installed under the
``csl_game`` name so that a user's own ``thinkers`` package cannot hide it), user paths
given with ``--thinkers PATH`` (a .py file or a folder of them), engines declared
with ``--engine NAME=COMMAND``, and installed packages that declare the
entry-point group ``csl_game.thinkers``.

Paths and engines travel together as *sources*: a tuple of strings, each a path
or an engine declaration (``engine:NAME=COMMAND``, see
`csl_game.thinker.engine_thinker`). A worker process gets the same sources as
its parent, so it finds the same classes by the same fully qualified names.

Engines and entry points also give their thinker a *declared name*: the
engine's NAME, or the entry point's key. It is the thinker's short name, and
its class-derived short name still works too.

Two views of the same sources. `catalog` is the referee's: csl-game's main
process lists and names thinkers with it, and never runs a ``--thinkers``
file: it reads the file's source (`csl_game.thinker.reading`) and keeps a
`ThinkerRef` (module, class name, file) for each of its thinkers. `registry`
is a worker's: it imports the files (their code runs) to make the classes,
and is called only where thinker code runs, in a worker process or in
``--in-process`` (debugging) mode. Built-in thinkers and entry points are
csl-game's own code and installed packages: both views import them.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import pkgutil
import sys
import traceback
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from csl_game.errors import SetupRefused, ThinkerError
from csl_game.thinker.api import AbstractThinker, thinker_display_name
from csl_game.thinker.engine_thinker import EngineSpec, engine_class
from csl_game.thinker.reading import FileThinkers, SourceReader, ThinkerRef, why_abstract_text

ENTRY_POINT_GROUP = "csl_game.thinkers"
BUILTIN_PACKAGE = "csl_game.thinkers"
_LEGACY_PREFIX = "thinkers."
"""Built-in thinkers were once a top-level package; their old full names still resolve."""

__all__ = ["ThinkerRegistry", "registry", "catalog", "ThinkerRef", "ENTRY_POINT_GROUP",
           "BUILTIN_PACKAGE", "fqn_of", "builtin_modules", "why_abstract", "where", "FileFailed"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fqn_of(cls: type) -> str:
    """The fully qualified name of a class."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _classes_in(module: ModuleType) -> list[type[AbstractThinker]]:
    return [obj for _, obj in inspect.getmembers(module, inspect.isclass)
            if issubclass(obj, AbstractThinker) and obj.__module__ == module.__name__]


def _thinkers_in(module: ModuleType) -> list[type[AbstractThinker]]:
    return [obj for obj in _classes_in(module) if not inspect.isabstract(obj)]


def why_abstract(cls: type[AbstractThinker]) -> str:
    """Why a thinker class cannot be made, in words: the methods it lacks, and
    a near miss it defines instead (``Think``, the C# reference's spelling)."""
    return why_abstract_text(cls.__qualname__, sorted(getattr(cls, "__abstractmethods__", ())),
                             list(vars(cls)))


def where(exc: BaseException) -> str:
    """Where in the thinker's own code `exc` was raised: 'FILE, line N, in
    FUNCTION: CODE' for the innermost frame outside this package ('' if none)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(_PACKAGE + os.sep)
              and not f.filename.startswith("<frozen ")]
    if not frames:
        return ""
    f = frames[-1]
    code = f" : {f.line.strip()}" if f.line and f.line.strip() else ""
    return f"{f.filename}, line {f.lineno}, in {f.name}{code}".replace(" : ", ": ", 1)


class FileFailed(SetupRefused):
    """A thinker file raised an Exception as it was imported (in a worker): a
    bug in its code, told as a setup's refusal is, with its type, message and
    line, so that the player is bad input rather than a forfeit of every match."""

    def __init__(self, path: Path, module: str, error: BaseException) -> None:
        ThinkerError.__init__(self, f"thinker file {path} failed to load: "
                                    f"{type(error).__name__}: {error}")
        self.thinker, self.params = module, ""
        self.error, self.reason, self.where = type(error).__name__, str(error), where(error)


_loaded_from_paths: set[str] = set()
"""Module names that _load_file gave to thinker files (so may give again)."""


def _module_name(path: Path) -> tuple[str, ModuleType | None]:
    """The module name a thinker file is imported as, and the module when it
    is imported already (in this process, from this very file).

    Raises:
        ThinkerError: the name is no identifier, or another module has it.
    """
    name = path.stem
    if not name.isidentifier():
        raise ThinkerError(f"thinker file {path}: '{name}' is not a valid module name")
    existing = sys.modules.get(name)
    if existing is not None:
        if Path(getattr(existing, "__file__", "") or "").resolve() == path.resolve():
            return name, existing
        if name not in _loaded_from_paths:
            # Replacing it would break every later `import name` (e.g. random).
            raise ThinkerError(f"thinker file {path}: module name '{name}' is already "
                               "taken by an imported module; rename the file")
    return name, None


def _load_file(path: Path) -> ModuleType:
    """Import a thinker file: its code runs (only in a worker, or in-process mode).

    Raises:
        ThinkerError: see `_module_name`; FileFailed: its code raised an
            Exception; ThinkerError: anything else stopped it (SystemExit...).
    """
    name, existing = _module_name(path)
    if existing is not None:
        return existing
    folder = str(path.parent.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)  # lets the module import its siblings
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ThinkerError(f"thinker file {path} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:
        del sys.modules[name]
        if isinstance(e, Exception) and not isinstance(e, SyntaxError):
            raise FileFailed(path, name, e) from e
        raise ThinkerError(
            f"thinker file {path} failed to load: {type(e).__name__}: {e}") from None
    _loaded_from_paths.add(name)
    return module


@dataclass(eq=False)
class ThinkerRegistry:
    """The thinkers known for a set of paths, by fully qualified name: classes
    (built-in, installed, engines; and in a worker, the files' own), and the
    files' thinkers as read (`refs`) where the files are not run."""

    classes: dict[str, type[AbstractThinker]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """Built-in modules or entry points that failed to load."""
    declared: dict[str, str] = field(default_factory=dict)
    """Declared names (lower case) by fully qualified name: engine names and
    entry-point keys."""
    unplayable: dict[str, str] = field(default_factory=dict)
    """Abstract thinker classes of the user's own files, by lower-case class
    name (and short name): why each cannot play."""
    refs: dict[str, ThinkerRef] = field(default_factory=dict)
    """Thinkers of the user's files as read, never run here (`catalog`); the
    unchecked ones (``checked`` False) are not listed, only found by name."""

    def add_module(self, module: ModuleType, own: bool = False) -> list[str]:
        """Add the thinker classes a module defines; their fully qualified names.
        `own`: a file of the user's, whose abstract classes are noted (`unplayable`)."""
        added = []
        for cls in _classes_in(module):
            if inspect.isabstract(cls):
                if own:
                    self._note_unplayable(cls.__name__, why_abstract(cls))
                continue
            self.classes[fqn_of(cls)] = cls
            added.append(fqn_of(cls))
        return added

    def add_file(self, found: FileThinkers) -> None:
        """Add the thinkers of a user's file as read (`reading.SourceReader`)."""
        for ref in found.refs:
            self.refs[ref.fqn] = ref
        for name, why in found.unplayable:
            self._note_unplayable(name, why)

    def _note_unplayable(self, class_name: str, why: str) -> None:
        self.unplayable[class_name.lower()] = why
        self.unplayable[thinker_display_name(class_name).lower()] = why

    def near_misses(self) -> list[str]:
        """The user's abstract classes that look meant to play (a misspelt
        think()), for listings: the reason each is missing."""
        return sorted({why for why in self.unplayable.values() if "case-sensitive" in why})

    def add_class(self, cls: type[AbstractThinker], name: str = "") -> str:
        """Add one thinker class, under a declared name if given; its fully qualified name."""
        fqn = fqn_of(cls)
        self.classes[fqn] = cls
        if name:
            self.declared[fqn] = name.lower()
        return fqn

    def add_engine(self, spec: EngineSpec) -> None:
        """Add the thinker class of a declared engine, under the engine's name.

        Raises:
            ThinkerError: another engine was declared under the same name.
        """
        fqn = fqn_of(engine_class(spec))
        known = self.classes.get(fqn)
        previous: EngineSpec = getattr(known, "engine", spec)  # engine classes carry theirs
        if previous != spec:
            raise ThinkerError(f"engine '{spec.name}' is declared twice, with two commands: "
                               f"`{previous.command}` and `{spec.command}`")
        self.add_class(engine_class(spec), spec.name)

    def listed(self) -> list[str]:
        """The fully qualified names of every thinker to list (classes, and the
        files' checked thinkers), by short name."""
        fqns = [*self.classes, *(f for f, ref in self.refs.items() if ref.checked)]
        return sorted(fqns, key=lambda f: (self.short_name(f), f))

    def summary(self, fqn: str) -> str:
        """The first line of a listed thinker's docstring ('' without one);
        read from the source for a user's file."""
        doc = self.refs[fqn].doc if fqn in self.refs else self.classes[fqn].__doc__
        lines = (doc or "").strip().splitlines()
        return lines[0] if lines else ""

    def short_name(self, fqn: str) -> str:
        """The name a thinker is listed under: its declared name, else its class's
        name without the Thinker suffix, in lower case."""
        return self.declared.get(fqn) or self._class_name(fqn)

    def _own_name(self, fqn: str) -> str:
        return self.refs[fqn].name if fqn in self.refs else self.classes[fqn].__name__

    def _class_name(self, fqn: str) -> str:
        return thinker_display_name(self._own_name(fqn)).lower()

    def _hits(self, wanted: str, fqns: list[str]) -> list[str]:
        return [fqn for fqn in fqns
                if wanted in (self.short_name(fqn), self._class_name(fqn),
                              self._own_name(fqn).lower(), fqn.lower())]

    def find(self, name: str) -> type[AbstractThinker] | ThinkerRef:
        """The class, or a user file's thinker as read, for a fully qualified or
        short (case-insensitive) name; the unchecked ones of the files only when
        nothing else has that name. Runs no code of a user's file.

        Raises:
            ThinkerError: unknown or ambiguous name, or a class that cannot play.
        """
        if name in self.classes:
            return self.classes[name]
        if name in self.refs:
            return self.refs[name]
        if name.startswith(_LEGACY_PREFIX) and f"csl_game.{name}" in self.classes:
            return self.classes[f"csl_game.{name}"]
        wanted = name.strip().lower()
        unchecked = [f for f, ref in self.refs.items() if not ref.checked]
        for fqns in (self.listed(), unchecked):
            hits = self._hits(wanted, fqns)
            if len(hits) > 1:
                raise ThinkerError(f"thinker name '{name}' is ambiguous: "
                                   f"use one of {', '.join(sorted(hits))}")
            if hits:
                return self.classes.get(hits[0]) or self.refs[hits[0]]
            if wanted in self.unplayable:
                raise ThinkerError(f"thinker '{name}' cannot play: {self.unplayable[wanted]}")
        known = ", ".join(sorted({self.short_name(f) for f in self.listed()}))
        extra = f" ({'; '.join(self.problems)})" if self.problems else ""
        raise ThinkerError(f"unknown thinker '{name}'; known thinkers: {known}{extra}")

    def resolve(self, name: str) -> type[AbstractThinker]:
        """The class for a fully qualified or short (case-insensitive) name.

        Raises:
            ThinkerError: unknown or ambiguous name; or (in a `catalog`) a
                thinker of a user's file, whose class only a worker makes.
        """
        found = self.find(name)
        if isinstance(found, ThinkerRef):
            raise ThinkerError(f"thinker {found.fqn} is read from {found.path}, not run "
                               "here: only a worker process makes its class")
        return found


def _add_builtins(reg: ThinkerRegistry) -> None:
    try:
        package = importlib.import_module(BUILTIN_PACKAGE)
    except ImportError as e:
        reg.problems.append(f"built-in thinkers not found: {e}")
        return
    for info in pkgutil.iter_modules(package.__path__, BUILTIN_PACKAGE + "."):
        if info.name.rpartition(".")[2].startswith("_"):
            continue  # helpers, and the analysis service's analyst: no players
        try:
            reg.add_module(importlib.import_module(info.name))
        except Exception as e:
            reg.problems.append(f"built-in module {info.name} failed: {e}")


def _add_entry_points(reg: ThinkerRegistry) -> None:
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as e:
            reg.problems.append(f"entry point '{ep.name}' ({ep.value}) failed: {e}")
            continue
        if inspect.ismodule(obj):
            added = reg.add_module(obj)
            if len(added) == 1:  # a module of several thinkers: the key names none of them
                reg.declared[added[0]] = ep.name.lower()
        elif inspect.isclass(obj) and issubclass(obj, AbstractThinker):
            reg.add_class(obj, ep.name)
        else:
            reg.problems.append(
                f"entry point '{ep.name}' ({ep.value}) is not a thinker class or module")


def _add_source(reg: ThinkerRegistry, source: str) -> None:
    engine = EngineSpec.from_source(source)
    if engine is not None:
        reg.add_engine(engine)
    else:
        _add_path(reg, Path(source))


def _thinker_files(path: Path) -> list[Path]:
    """The thinker files of a --thinkers path: the file, or a folder's files
    (not those named ``_*``: helpers).

    Raises:
        ThinkerError: the path is missing, or neither a .py file nor a folder.
    """
    if path.is_file() and path.suffix == ".py":
        return [path]
    if path.is_dir():
        return [f for f in sorted(path.glob("*.py")) if not f.name.startswith("_")]
    if not path.exists():
        raise ThinkerError(f"thinker path {path} does not exist")
    raise ThinkerError(f"thinker path {path} is neither a .py file nor a folder")


def _add_path(reg: ThinkerRegistry, path: Path) -> None:
    for file in _thinker_files(path):
        reg.add_module(_load_file(file), own=True)


@lru_cache(maxsize=16)
def registry(paths: tuple[str, ...] = ()) -> ThinkerRegistry:
    """Every thinker class known from the built-ins, entry points and these
    sources (paths, and engine declarations written as ``engine:NAME=COMMAND``),
    the files imported: **their code runs**. For a worker process, and for
    ``--in-process`` (debugging) mode; csl-game's main process reads the files
    with `catalog` instead.

    Raises:
        ThinkerError: a given path is missing or one of its files fails to load
            (FileFailed: its code raised an Exception), or two engines share a name.
        ConfigError: an engine is declared badly.
    """
    reg = ThinkerRegistry()
    _add_builtins(reg)
    _add_entry_points(reg)
    for source in paths:
        _add_source(reg, source)
    return reg


def catalog(paths: tuple[str, ...] = ()) -> ThinkerRegistry:
    """Every thinker known from the built-ins, entry points and these sources,
    for csl-game's main process: the ``--thinkers`` files are read, never run
    (their thinkers are `ThinkerRef`s in `ThinkerRegistry.refs`).

    Raises:
        ThinkerError: a given path is missing, a file cannot be read or is not
            valid Python, or its name cannot be a module's; two engines share a name.
        ConfigError: an engine is declared badly.
    """
    return _catalog(tuple(str(p) for p in paths), registry())


@lru_cache(maxsize=16)
def _catalog(paths: tuple[str, ...], installed: ThinkerRegistry) -> ThinkerRegistry:
    reg = ThinkerRegistry(dict(installed.classes), list(installed.problems),
                          dict(installed.declared), dict(installed.unplayable))
    folders = [Path(s).resolve() if Path(s).is_dir() else Path(s).resolve().parent
               for s in paths if EngineSpec.from_source(s) is None]
    reader = SourceReader(list(dict.fromkeys(reversed(folders))))  # the last one first, as
    for source in paths:                                          # a worker's sys.path has them
        engine = EngineSpec.from_source(source)
        if engine is not None:
            reg.add_engine(engine)
            continue
        for file in _thinker_files(Path(source)):
            module, _ = _module_name(file)
            reg.add_file(reader.read(file, module))
    return reg


def builtin_modules() -> list[str]:
    """Module names of the built-in thinkers (without importing them)."""
    try:
        package = importlib.import_module(BUILTIN_PACKAGE)
    except ImportError:
        return []
    return [info.name for info in pkgutil.iter_modules(package.__path__, BUILTIN_PACKAGE + ".")]
