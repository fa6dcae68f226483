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
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import pkgutil
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from csl_game.errors import ThinkerError
from csl_game.thinker.api import AbstractThinker, thinker_display_name
from csl_game.thinker.engine_thinker import EngineSpec, engine_class

ENTRY_POINT_GROUP = "csl_game.thinkers"
BUILTIN_PACKAGE = "csl_game.thinkers"
_LEGACY_PREFIX = "thinkers."
"""Built-in thinkers were once a top-level package; their old full names still resolve."""

__all__ = ["ThinkerRegistry", "registry", "ENTRY_POINT_GROUP", "BUILTIN_PACKAGE", "fqn_of",
           "builtin_modules", "why_abstract"]


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
    missing = sorted(getattr(cls, "__abstractmethods__", ()))
    text = f"{cls.__qualname__} has no {', '.join(m + '()' for m in missing)}, so it cannot play"
    for name in missing:
        near = [a for a in vars(cls) if a != name and a.lower().strip("_") == name]
        if near:
            text += (f"; it defines {near[0]}(), but Python names are case-sensitive: "
                     f"rename it {name}()")
    return text


_loaded_from_paths: set[str] = set()
"""Module names that _load_file gave to thinker files (so may give again)."""


def _load_file(path: Path) -> ModuleType:
    name = path.stem
    if not name.isidentifier():
        raise ThinkerError(f"thinker file {path}: '{name}' is not a valid module name")
    existing = sys.modules.get(name)
    if existing is not None:
        if Path(getattr(existing, "__file__", "") or "").resolve() == path.resolve():
            return existing
        if name not in _loaded_from_paths:
            # Replacing it would break every later `import name` (e.g. random).
            raise ThinkerError(f"thinker file {path}: module name '{name}' is already "
                               "taken by an imported module; rename the file")
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
        raise ThinkerError(
            f"thinker file {path} failed to load: {type(e).__name__}: {e}") from None
    _loaded_from_paths.add(name)
    return module


@dataclass
class ThinkerRegistry:
    """The thinker classes known for a set of paths, by fully qualified name."""

    classes: dict[str, type[AbstractThinker]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """Built-in modules or entry points that failed to load."""
    declared: dict[str, str] = field(default_factory=dict)
    """Declared names (lower case) by fully qualified name: engine names and
    entry-point keys."""
    unplayable: dict[str, str] = field(default_factory=dict)
    """Abstract thinker classes of the user's own files, by lower-case class
    name (and short name): why each cannot play."""

    def add_module(self, module: ModuleType, own: bool = False) -> list[str]:
        """Add the thinker classes a module defines; their fully qualified names.
        `own`: a file of the user's, whose abstract classes are noted (`unplayable`)."""
        added = []
        for cls in _classes_in(module):
            if inspect.isabstract(cls):
                if own:
                    why = why_abstract(cls)
                    self.unplayable[cls.__name__.lower()] = why
                    self.unplayable[thinker_display_name(cls.__name__).lower()] = why
                continue
            self.classes[fqn_of(cls)] = cls
            added.append(fqn_of(cls))
        return added

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

    def short_name(self, fqn: str) -> str:
        """The name a thinker is listed under: its declared name, else its class's
        name without the Thinker suffix, in lower case."""
        return self.declared.get(fqn) or self._class_name(fqn)

    def _class_name(self, fqn: str) -> str:
        return thinker_display_name(self.classes[fqn].__name__).lower()

    def resolve(self, name: str) -> type[AbstractThinker]:
        """The class for a fully qualified or short (case-insensitive) name.

        Raises:
            ThinkerError: unknown or ambiguous name.
        """
        if name in self.classes:
            return self.classes[name]
        if name.startswith(_LEGACY_PREFIX) and f"csl_game.{name}" in self.classes:
            return self.classes[f"csl_game.{name}"]
        wanted = name.strip().lower()
        hits = [fqn for fqn, cls in self.classes.items()
                if wanted in (self.short_name(fqn), self._class_name(fqn),
                              cls.__name__.lower(), fqn.lower())]
        if len(hits) == 1:
            return self.classes[hits[0]]
        if hits:
            raise ThinkerError(f"thinker name '{name}' is ambiguous: "
                               f"use one of {', '.join(sorted(hits))}")
        if wanted in self.unplayable:
            raise ThinkerError(f"thinker '{name}' cannot play: {self.unplayable[wanted]}")
        known = ", ".join(sorted({self.short_name(f) for f in self.classes}))
        extra = f" ({'; '.join(self.problems)})" if self.problems else ""
        raise ThinkerError(f"unknown thinker '{name}'; known thinkers: {known}{extra}")


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


def _add_path(reg: ThinkerRegistry, path: Path) -> None:
    if path.is_file() and path.suffix == ".py":
        reg.add_module(_load_file(path), own=True)
    elif path.is_dir():
        for file in sorted(path.glob("*.py")):
            if not file.name.startswith("_"):
                reg.add_module(_load_file(file), own=True)
    elif not path.exists():
        raise ThinkerError(f"thinker path {path} does not exist")
    else:
        raise ThinkerError(f"thinker path {path} is neither a .py file nor a folder")


@lru_cache(maxsize=16)
def registry(paths: tuple[str, ...] = ()) -> ThinkerRegistry:
    """Every thinker known from the built-ins, entry points and these sources
    (paths, and engine declarations written as ``engine:NAME=COMMAND``).

    Raises:
        ThinkerError: a given path is missing or one of its files fails to load,
            or two engines share a name.
        ConfigError: an engine is declared badly.
    """
    reg = ThinkerRegistry()
    _add_builtins(reg)
    _add_entry_points(reg)
    for source in paths:
        _add_source(reg, source)
    return reg


def builtin_modules() -> list[str]:
    """Module names of the built-in thinkers (without importing them)."""
    try:
        package = importlib.import_module(BUILTIN_PACKAGE)
    except ImportError:
        return []
    return [info.name for info in pkgutil.iter_modules(package.__path__, BUILTIN_PACKAGE + ".")]
