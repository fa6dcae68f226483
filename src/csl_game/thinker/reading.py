"""Reading thinker files without running them: which of their classes play.

csl-game's main process (the referee) never imports a ``--thinkers`` file: a
file's top level is the contestant's code, and could patch the referee. It
reads the file's source instead (`ast`) and finds the classes that derive
from `AbstractThinker`, by name or through any alias or import of csl_game,
and through classes of the same files or of the files beside them (helpers
such as ``_common.py`` included). Whether such a class can play (it has a
think()) is read the same way, with the reason when it cannot.

Reading cannot know everything. A class whose base comes from another
package, or a class made by a call (``GreedyThinker = make(greedy)``), is
*unchecked*: it is not listed, but it can be named, and its worker process,
which imports the file, says whether it is a thinker. Calls of csl_game's
own factories that declare a thinker class as what they return
(``policy_thinker``) are known: their classes are listed.

The only modules looked into are csl_game's own (``csl_game.thinker``,
``csl_game.thinkers`` and ``csl_game.rl`` are imported when named; they are
this project's code) and those already imported; their attributes are read
statically (`inspect.getattr_static`), so no descriptor or module
``__getattr__`` runs.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import sys
import typing
from dataclasses import dataclass, replace
from pathlib import Path

from csl_game.errors import ThinkerError
from csl_game.thinker.api import AbstractThinker

__all__ = ["ThinkerRef", "FileThinkers", "SourceReader", "why_abstract_text"]

_MAX_DEPTH = 60
"""Links followed to decide one name (aliases, imports, bases); past it, unchecked."""
_OWN_IMPORTABLE = ("csl_game.thinker", "csl_game.thinkers", "csl_game.rl")
_MISSING = object()


@dataclass(frozen=True)
class ThinkerRef:
    """A thinker class of a ``--thinkers`` file, known by its names and read
    from its source: the class itself is only ever made in a worker process."""

    module: str
    """Its module's name: the file's name without ``.py``."""
    qualname: str
    """Its name in that module (a top-level class, or a name a call's class is given)."""
    path: str
    """The file it is written in."""
    doc: str = ""
    """Its docstring, cleaned as `inspect.getdoc` does; '' when it has none."""
    module_doc: str = ""
    """Its module's docstring, cleaned."""
    checked: bool = True
    """Whether reading found a thinker class that can play; False for a class
    or name reading could not decide (only found by name; its worker decides)."""
    unread: str = ""
    """When not checked: what reading could not follow (``torch.nn.Module``)."""

    @property
    def fqn(self) -> str:
        """Its fully qualified name, as its worker knows the class."""
        return f"{self.module}.{self.qualname}"

    @property
    def name(self) -> str:
        """The class's own name (the last part of its qualified name)."""
        return self.qualname.rpartition(".")[2]


@dataclass(frozen=True)
class FileThinkers:
    """What one thinker file defines, as read."""

    refs: tuple[ThinkerRef, ...]
    """Its thinker classes that can play, then the unchecked ones."""
    unplayable: tuple[tuple[str, str], ...]
    """(class name, why it cannot play) of its thinker classes that cannot."""


def why_abstract_text(qualname: str, missing: list[str], own: list[str]) -> str:
    """Why a thinker class cannot be made: the methods it lacks (`missing`), and
    a near miss among the names it defines itself (`own`): ``Think``, the C#
    reference's spelling."""
    text = f"{qualname} has no {', '.join(m + '()' for m in missing)}, so it cannot play"
    for name in missing:
        near = [a for a in own if a != name and a.lower().strip("_") == name]
        if near:
            text += (f"; it defines {near[0]}(), but Python names are case-sensitive: "
                     f"rename it {name}()")
    return text


# ------------------------------------------------------------ what a name is
@dataclass(frozen=True, eq=False)
class _Source:
    """A parsed file: what its top level binds."""

    module: str
    path: Path
    doc: str
    names: dict[str, object]
    """Top-level name -> what binds it last: an import's dotted target (str),
    a ClassDef or FunctionDef, an assigned expression, or None (unknown)."""
    stars: tuple[str, ...]
    """Modules imported with ``from M import *``."""


@dataclass(frozen=True)
class _FileClass:
    source: _Source
    node: ast.ClassDef


@dataclass(frozen=True)
class _Real:
    """An object of an already imported module (csl_game's own, or installed)."""

    obj: object


@dataclass(frozen=True)
class _Made:
    """The class a csl_game factory returns, declared a thinker class."""

    cls: type


@dataclass(frozen=True)
class _Elsewhere:
    """Something reading does not follow; `text` names it."""

    text: str


_Found = _FileClass | _Real | _Made | _Elsewhere | None
"""What a name is; None: known to be nothing of a thinker's (the standard library's)."""


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = _dotted(expr.value)
        return None if head is None else f"{head}.{expr.attr}"
    return None


def _short(expr: ast.expr) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= 60 else text[:57] + "..."


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a module's top level, into if/try/with blocks."""
    found: list[ast.stmt] = []
    for stmt in body:
        found.append(stmt)
        if isinstance(stmt, ast.If):
            found += _top_level(stmt.body) + _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            found += _top_level(stmt.body) + _top_level(stmt.orelse) + _top_level(stmt.finalbody)
            for handler in stmt.handlers:
                found += _top_level(handler.body)
        elif isinstance(stmt, ast.With):
            found += _top_level(stmt.body)
    return found


def _targets(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for t in target.elts for n in _targets(t)]
    return []


def _bindings(tree: ast.Module) -> tuple[dict[str, object], tuple[str, ...]]:
    names: dict[str, object] = {}
    stars: list[str] = []
    for stmt in _top_level(tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    names[top] = top
        elif isinstance(stmt, ast.ImportFrom):
            base = "." * stmt.level + (stmt.module or "")  # relative: not followed
            for alias in stmt.names:
                if alias.name == "*":
                    stars.append(base)
                else:
                    names[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                value = stmt.value if isinstance(target, ast.Name) else None
                names.update(dict.fromkeys(_targets(target), value))
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            names.update(dict.fromkeys(_targets(stmt.target), stmt.value))
        elif isinstance(stmt, ast.For | ast.With | ast.AugAssign):
            for target in ([stmt.target] if not isinstance(stmt, ast.With)
                           else [i.optional_vars for i in stmt.items if i.optional_vars]):
                names.update(dict.fromkeys(_targets(target)))
    return names, tuple(stars)


def _own_names(node: ast.ClassDef) -> tuple[list[str], set[str]]:
    """The names a class body defines, and those of them declared abstract."""
    own: list[str] = []
    abstract: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            own.append(stmt.name)
            for decorator in stmt.decorator_list:
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if (_dotted(call) or "").rpartition(".")[2].startswith("abstract"):
                    abstract.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            own.append(stmt.name)
        elif isinstance(stmt, ast.Assign):
            own += [n for t in stmt.targets for n in _targets(t)]
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            own += _targets(stmt.target)
    return own, abstract


def _static(obj: object, name: str) -> object:
    try:
        return inspect.getattr_static(obj, name, _MISSING)
    except Exception:  # an object of someone else's: nothing to read
        return _MISSING


def _import_own(name: str) -> object:
    """csl_game's own module `name` (imported if it is a thinker-side one), else None."""
    if name in sys.modules:
        return sys.modules[name]
    if not any(name == p or name.startswith(p + ".") for p in _OWN_IMPORTABLE):
        return None
    try:
        return importlib.import_module(name)
    except Exception:  # e.g. csl_game.rl without numpy: not followed
        return None


def _module_of(obj: object) -> str:
    """The module a function or class of an imported module says it is from
    (read without running any of its code: not even a metaclass's)."""
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return str(obj.__module__ or "builtins")
    if isinstance(obj, type):
        module = type.__dict__["__module__"].__get__(obj)
        return module if isinstance(module, str) else ""
    return ""


def _made_by(func: object) -> type | None:
    """The thinker class a csl_game factory declares it returns (``-> type[X]``)."""
    if not (inspect.isfunction(func) and _module_of(func).partition(".")[0] == "csl_game"):
        return None
    try:
        returned = typing.get_type_hints(func).get("return")
    except Exception:  # an annotation that cannot be evaluated: not known
        return None
    args = typing.get_args(returned)
    if typing.get_origin(returned) is type and args and isinstance(args[0], type) \
            and issubclass(args[0], AbstractThinker):
        return args[0]
    return None


def _from_known_module(obj: object) -> bool:
    top = _module_of(obj).partition(".")[0]
    return top == "csl_game" or top in sys.stdlib_module_names


class SourceReader:
    """Reads thinker files, and the files beside them that they import,
    without running any of them; remembers what it parsed."""

    def __init__(self, folders: list[Path]) -> None:
        self._folders = folders
        """Where a file's imports may find other files (as its worker's
        sys.path does): the folders of the thinker paths."""
        self._sources: dict[Path, _Source | None] = {}
        self._verdicts: dict[int, bool | str] = {}

    # -------------------------------------------------------------- reading
    def read(self, path: Path, module: str) -> FileThinkers:
        """The thinker classes `path` defines, as module `module`.

        Raises:
            ThinkerError: the file cannot be read, or is not valid Python.
        """
        source = self._sources.get(path.resolve()) or self._parse(path, module)
        refs: list[ThinkerRef] = []
        unplayable: list[tuple[str, str]] = []
        for name, bound in source.names.items():
            ref = ThinkerRef(module, name, str(path), module_doc=source.doc)
            if isinstance(bound, ast.ClassDef):
                verdict = self._thinker(_FileClass(source, bound), 0)
                ref = replace(ref, doc=ast.get_docstring(bound) or "")
                missing = self._missing(_FileClass(source, bound)) if verdict is True else []
                if missing:
                    own = _own_names(bound)[0]
                    unplayable.append((name, why_abstract_text(name, missing, own)))
                    continue
            elif isinstance(bound, ast.Call):
                found = self._call(source, bound, 0)
                verdict = True if isinstance(found, _Made) else \
                    found.text if isinstance(found, _Elsewhere) else False
            else:
                continue
            if verdict is not False:
                refs.append(ref if verdict is True else replace(ref, checked=False,
                                                                 unread=str(verdict)))
        refs.sort(key=lambda r: not r.checked)
        return FileThinkers(tuple(refs), tuple(unplayable))

    def _parse(self, path: Path, module: str) -> _Source:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ThinkerError(f"thinker file {path} cannot be read: {e.strerror or e}") from None
        try:
            tree = ast.parse(data, filename=str(path))
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            raise ThinkerError(f"thinker file {path} failed to load: "
                               f"{type(e).__name__}: {e}") from None
        names, stars = _bindings(tree)
        source = _Source(module, path, ast.get_docstring(tree) or "", names, stars)
        self._sources[path.resolve()] = source
        return source

    def _file(self, parts: list[str], near: Path) -> _Source | None:
        """The file module ``.``-joined `parts` would be imported from, beside
        `near` or in the thinker folders; None when there is none or it is unreadable."""
        for folder in dict.fromkeys([near.parent, *self._folders]):
            for path in (folder.joinpath(*parts[:-1], parts[-1] + ".py"),
                         folder.joinpath(*parts, "__init__.py")):
                key = path.resolve()
                if key in self._sources:
                    return self._sources[key]
                if path.is_file():
                    try:
                        return self._parse(path, ".".join(parts))
                    except ThinkerError:
                        self._sources[key] = None  # its worker says what is wrong
                        return None
        return None

    # ---------------------------------------------------------- what names are
    def _resolve(self, source: _Source, expr: ast.expr, depth: int) -> _Found:
        """What an expression of `source`'s top level is (a base class, a function)."""
        if depth > _MAX_DEPTH:
            return _Elsewhere(_short(expr))
        if isinstance(expr, ast.Subscript):  # Generic[T], a parametrised base
            return self._resolve(source, expr.value, depth + 1)
        if isinstance(expr, ast.Call):  # what it returns, only when a factory says
            made = self._call(source, expr, depth + 1)
            return made if made is not None else _Elsewhere(f"{_short(expr.func)}()")
        dotted = _dotted(expr)
        if dotted is None:
            return _Elsewhere(_short(expr))
        head, *rest = dotted.split(".")
        bound = source.names.get(head, _MISSING)
        if isinstance(bound, str):  # an import: the whole dotted name from there
            return self._lookup(".".join([bound, *rest]), source.path, depth + 1)
        return self._attributes(self._name(source, head, depth + 1), rest)

    def _name(self, source: _Source, name: str, depth: int) -> _Found:
        bound = source.names.get(name, _MISSING)
        if isinstance(bound, str):
            return self._lookup(bound, source.path, depth + 1)
        if isinstance(bound, ast.ClassDef):
            return _FileClass(source, bound)
        if isinstance(bound, ast.expr):
            return self._resolve(source, bound, depth + 1)
        if bound is not _MISSING:  # a function, or a name bound in a way not read
            return _Elsewhere(f"{source.module}.{name}")
        for star in reversed(source.stars):
            found = self._lookup(f"{star}.{name}", source.path, depth + 1)
            if found is not None:
                return found
        value = vars(builtins).get(name, _MISSING)
        return _Real(value) if value is not _MISSING else _Elsewhere(name)

    def _attributes(self, found: _Found, names: list[str]) -> _Found:
        for name in names:
            if isinstance(found, _FileClass):
                nested = [n for n in found.node.body
                          if isinstance(n, ast.ClassDef) and n.name == name]
                found = _FileClass(found.source, nested[-1]) if nested \
                    else _Elsewhere(f"{found.node.name}.{name}")
            elif isinstance(found, _Real):
                value = _static(found.obj, name)
                found = None if value is _MISSING else _Real(value)
            elif isinstance(found, _Elsewhere):
                found = _Elsewhere(f"{found.text}.{name}")
            else:
                return found
        return found

    def _lookup(self, dotted: str, near: Path, depth: int) -> _Found:
        """What the dotted name of a module's attribute is, as its worker's
        import would find it: csl_game's and imported modules first, then files."""
        parts = dotted.split(".")
        if not all(parts) or depth > _MAX_DEPTH:
            return _Elsewhere(dotted)
        top = parts[0]
        if top == "csl_game" or top in sys.modules:
            for i in range(len(parts), 0, -1):
                module = _import_own(".".join(parts[:i]))
                if module is not None:
                    return self._attributes(_Real(module), parts[i:])
            return None
        for i in range(len(parts), 0, -1):
            source = self._file(parts[:i], near)
            if source is not None:
                if i == len(parts):
                    return _Elsewhere(dotted)  # a module of files itself
                return self._attributes(self._name(source, parts[i], depth + 1), parts[i + 1:])
        return None if top in sys.stdlib_module_names else _Elsewhere(dotted)

    def _call(self, source: _Source, call: ast.Call, depth: int) -> _Found:
        """What a call makes, when that can be known: a csl_game factory's
        thinker class, nothing of a thinker's, or something not followed."""
        func = self._resolve(source, call.func, depth + 1)
        if isinstance(func, _Real):
            made = _made_by(func.obj)
            if made is not None:
                return _Made(made)
            if func.obj is type and len(call.args) == 3:
                return _Elsewhere(f"{_short(call.func)}()")  # a class made on the fly
            return None if _from_known_module(func.obj) else _Elsewhere(f"{_short(call.func)}()")
        if func is None or isinstance(func, _FileClass):  # an instance, not a class
            return None
        return _Elsewhere(f"{_short(call.func)}()")

    # ------------------------------------------------------- what classes are
    def _thinker(self, found: _Found, depth: int) -> bool | str:
        """Whether `found` is a thinker class: True, False, or (a str) the name
        of the base that reading could not follow."""
        if isinstance(found, _FileClass):
            key = id(found.node)
            if key not in self._verdicts:
                self._verdicts[key] = found.node.name  # a cycle: not decided
                verdicts = [self._thinker(self._resolve(found.source, base, depth + 1), depth + 1)
                            for base in found.node.bases]
                self._verdicts[key] = True if True in verdicts else next(
                    (v for v in verdicts if isinstance(v, str)), False)
            return self._verdicts[key]
        if isinstance(found, _Real):
            return isinstance(found.obj, type) and issubclass(found.obj, AbstractThinker)
        if isinstance(found, _Made):
            return True
        if isinstance(found, _Elsewhere):
            return found.text
        return False

    def _missing(self, found: _FileClass) -> list[str]:
        """The abstract methods a thinker class of a file leaves unwritten."""
        candidates = self._abstract_names(found, 0)
        return sorted(n for n in candidates if self._member(found, n, 0) is False)

    def _abstract_names(self, found: _Found, depth: int) -> set[str]:
        if isinstance(found, _FileClass) and depth <= _MAX_DEPTH:
            names = set(_own_names(found.node)[1])
            for base in found.node.bases:
                names |= self._abstract_names(self._resolve(found.source, base, depth + 1),
                                              depth + 1)
            return names
        if isinstance(found, _Real) and isinstance(found.obj, type):
            return set(getattr(found.obj, "__abstractmethods__", ()))
        return set()

    def _member(self, found: _Found, name: str, depth: int) -> bool | None:
        """Whether `name` is written (True) or abstract (False) in `found`'s
        class and bases, in order; None where none of them has it."""
        if isinstance(found, _FileClass):
            own, abstract = _own_names(found.node)
            if name in abstract or name in own:
                return name not in abstract
            if depth > _MAX_DEPTH:
                return True
            for base in found.node.bases:
                member = self._member(self._resolve(found.source, base, depth + 1), name,
                                      depth + 1)
                if member is not None:
                    return member
            return None
        if isinstance(found, _Real) and isinstance(found.obj, type):
            if name in getattr(found.obj, "__abstractmethods__", ()):
                return False
            return True if any(name in vars(k) for k in found.obj.__mro__) else None
        if isinstance(found, _Made | _Elsewhere):
            return True  # a factory's class is made whole; one not read, its worker checks
        return None
