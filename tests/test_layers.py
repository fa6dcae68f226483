"""The package's layers, checked from the source: each package imports only
the packages below it (the order of README.md's Layout), every module outside
the engine goes through the engine's front door, pygame only in the GUI, and
no import cycle anywhere.

Every import counts: at the top of a module, inside a function (a lazy
import) and under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import sys

import pytest

from import_graph import (
    MODULES,
    Picked,
    imports_of,
    package_graph,
    pick,
    picked,
    source_of,
    target,
)

pytestmark = pytest.mark.unit

PACKAGES = {  # module prefix: its package (the longest prefix wins)
    "csl_game": "csl_game",  # the package's face: the public API thinker authors import
    "csl_game.errors": "errors",
    "csl_game.model": "model",
    "csl_game.thinker": "thinker",
    "csl_game.thinkers": "thinkers",
    "csl_game.engine.outcomes": "engine.outcomes",
    "csl_game.engine.runners": "engine.runners",
    "csl_game.forkserver": "forkserver",  # outside the engine, to start before it is imported
    "csl_game.sandbox": "forkserver",  # the workers' sandbox, made as the fork server makes them
    "csl_game.engine": "engine",
    "csl_game.services": "services",
    "csl_game.services.site": "services",  # the tournament site: a service in modules
    "csl_game.online": "online",
    "csl_game.server": "server",
    "csl_game.console": "console",
    "csl_game.gui": "gui",
    "csl_game.rl": "rl",
    "csl_game.cli": "cli",
    "csl_game.__main__": "cli",
    "csl_game.launch": "cli",
}
_BASE = {"errors", "model", "thinker", "csl_game"}
_ENGINE = _BASE | {"engine"}
MAY_IMPORT = {  # package: the other packages it may import (README.md, Layout)
    "errors": set(),
    "model": {"errors"},
    "thinker": {"model", "errors"},
    "csl_game": {"thinker", "model", "errors"},
    "thinkers": {"csl_game", "thinker", "model", "errors"},  # the public API only
    "engine.outcomes": set(),  # the engine's ground: forfeits, which the runners report
    "forkserver": {"thinker", "model", "errors"},  # the workers' fork server
    "engine.runners": {"engine.outcomes", "forkserver", "thinker", "model", "errors"},
    "engine": {"engine.outcomes", "engine.runners", "thinker", "model", "errors"},
    "services": _ENGINE,
    "online": _ENGINE | {"services"},
    "server": _ENGINE | {"services", "online"},  # the game server, beside online play
    "console": _ENGINE | {"services", "online", "server"},
    "gui": _ENGINE | {"services", "online", "server"},
    "rl": _ENGINE | {"services", "console"},  # its text rendering is the console's
    "cli": _ENGINE | {"services", "online", "server", "console", "gui", "rl", "forkserver"},
}


def package_of(module: str) -> str:
    prefix = max((p for p in PACKAGES if module == p or module.startswith(p + ".")), key=len)
    return PACKAGES[prefix]


def test_the_packages_stand_in_an_order() -> None:
    """No two packages may import each other, even through others: the table
    above is an order, from the ground (errors) to the command line."""
    assert not find_cycles({p: set(allowed) for p, allowed in MAY_IMPORT.items()})
    assert set(PACKAGES.values()) == set(MAY_IMPORT)


def may_import(importer: str, imported: str) -> bool:
    """Whether module `importer` may import module `imported` (by their packages)."""
    own, other = package_of(importer), package_of(imported)
    return other == own or other in MAY_IMPORT[own]


def wrong_imports(module: str) -> list[str]:
    """What is wrong with each import of `module`, in words."""
    wrong = []
    for name in imports_of(module):
        if name.split(".")[0] in ("pygame", "pygame_gui"):
            if not module.startswith("csl_game.gui"):
                wrong.append(f"{module} imports {name} outside the GUI")
        elif name not in MODULES:
            wrong.append(f"{module} imports {name}, which does not exist")
        elif not may_import(module, name):
            wrong.append(f"{module} ({package_of(module)}) imports {name} ({package_of(name)}), "
                         f"which {package_of(module)} may not import")
    return wrong


def test_imports_follow_the_package_order() -> None:
    """Every module, every import (one test: each wrong import is named)."""
    wrong = [w for module in sorted(MODULES) for w in wrong_imports(module)]
    assert not wrong, "\n".join(wrong)


def test_each_wrong_import_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "imports_of", lambda module: (
        "pygame", "csl_game.nowhere", "csl_game.gui.app", "csl_game.errors"))
    assert [w.split(" imports ")[1].split(",")[0].split(" ")[0]
            for w in wrong_imports("csl_game.model.board")] == [
        "pygame", "csl_game.nowhere", "csl_game.gui.app"]


@pytest.mark.parametrize(("importer", "imported"), [
    ("csl_game.services.serve", "csl_game.online.wire"),  # a service on online play
    ("csl_game.engine.match", "csl_game.services.narration"),  # the engine on a service
    ("csl_game.engine.runners.base", "csl_game.engine.match"),  # a runner on the engine
    ("csl_game.gui.app", "csl_game.console.render"),  # a frontend on another
    ("csl_game.thinkers.minimax", "csl_game.engine"),  # a built-in thinker past the API
])
def test_the_order_check_refuses_an_import_against_it(importer: str, imported: str) -> None:
    assert not may_import(importer, imported)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle of `graph`: its strongly connected components of
    more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_no_import_cycles() -> None:
    cycles = find_cycles(package_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_cycle_finder_sees_cycles() -> None:
    """The finder the test above calls reports a planted cycle (a test that
    cannot fail proves nothing)."""
    graph = package_graph()
    assert not find_cycles(graph)
    graph["csl_game.model.board"].add("csl_game.engine.match")  # match imports the board
    cycles = find_cycles(graph)
    assert any({"csl_game.model.board", "csl_game.engine.match"} <= set(c) for c in cycles)


def engine_reaches(graph: dict[str, set[str]]) -> list[str]:
    """'module -> csl_game.engine.x' for each module outside the engine that
    imports a module of the engine instead of its front door, csl_game.engine."""
    return sorted(f"{m} -> {i}" for m, imported in graph.items()
                  if not _inside(m, "csl_game.engine") for i in imported
                  if i.startswith("csl_game.engine."))


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_only_the_engine_reaches_into_the_engine() -> None:
    """The services, online play, the frontends and the command line take what
    they need of the engine from its front door (csl_game.engine), never from
    one of its modules."""
    assert not engine_reaches(package_graph())


@pytest.mark.parametrize(("importer", "imported"), [
    ("csl_game.gui.app", "csl_game.engine.runners.process"),
    ("csl_game.services.report", "csl_game.engine.results"),
    ("csl_game.cli", "csl_game.engine.session"),
])
def test_the_front_door_check_sees_a_module_reaching_past_it(importer: str,
                                                             imported: str) -> None:
    graph = package_graph()
    graph[importer].add(imported)
    assert engine_reaches(graph) == [f"{importer} -> {imported}"]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def borrowed_privates(module: str, nodes: Picked) -> list[str]:
    """'module: other._name' for each private name of another module that
    `module` (whose imports and private reads are `nodes`) takes: imported by
    name, or read as an attribute of a module it imported. A private module of
    its own package (thinkers' ``from ._tactics import ...``) is no private name."""
    found = []
    modules: dict[str, str] = {}  # local name: the csl_game module it stands for
    imports, private_reads = nodes
    for node in imports:
        if isinstance(node, ast.Import):
            modules.update({a.asname or a.name: a.name for a in node.names
                            if a.name.startswith("csl_game")})
        else:
            source = source_of(node, module)
            if not source.startswith("csl_game"):
                continue
            for alias in node.names:
                imported = target(module, node, alias.name)
                if imported != source:  # a module
                    modules[alias.asname or alias.name] = imported
                elif _private(alias.name):
                    found.append(f"{module}: {source}.{alias.name}")
    for node in private_reads:
        assert isinstance(node.value, ast.Name)
        if _private(node.attr) and node.value.id in modules:
            found.append(f"{module}: {modules[node.value.id]}.{node.attr}")
    return found


def test_no_module_takes_another_modules_private_name() -> None:
    """What a module shares it names without an underscore; a name with one is
    its own (what two modules share belongs to a public name of one of them)."""
    borrowed = [b for m in sorted(MODULES) for b in borrowed_privates(m, picked(m))]
    assert not borrowed, "private names taken: " + "; ".join(borrowed)


@pytest.mark.parametrize("code", [
    "from csl_game.services.players import _CHECKED",
    "from .players import _CHECKED",
    "from csl_game.services import players\nplayers._CHECKED.clear()",
    "import csl_game.services.players as p\np._CHECKED.clear()",
])
def test_the_private_name_check_sees_a_borrowed_name(code: str) -> None:
    borrowed = borrowed_privates("csl_game.services.setup_file", pick(ast.parse(code)))
    assert borrowed == ["csl_game.services.setup_file: csl_game.services.players._CHECKED"]


def test_the_private_name_check_lets_a_package_use_its_private_modules() -> None:
    assert not borrowed_privates("csl_game.thinkers.negamax",
                                 pick(ast.parse("from ._alphabeta import Searcher")))


MAX_LINES = 520
"""Lines a module may have (as ``wc -l`` counts them): a longer one is split by
responsibility, not cut anywhere."""
LONG_FOR_NOW: set[str] = set()
"""Modules allowed over the limit for a while (none now: each is split as it grows)."""


def _lines(module: str) -> int:
    return MODULES[module].read_text(encoding="utf-8").count("\n")


def test_no_module_is_longer_than_the_limit() -> None:
    long = {m: _lines(m) for m in sorted(MODULES) if _lines(m) > MAX_LINES}
    assert set(long) <= LONG_FOR_NOW, f"over {MAX_LINES} lines: " + ", ".join(
        f"{m} ({n})" for m, n in long.items() if m not in LONG_FOR_NOW)


def test_the_modules_long_for_now_still_are() -> None:
    """Once one is split, it leaves LONG_FOR_NOW (and the limit holds it)."""
    assert all(_lines(m) > MAX_LINES for m in LONG_FOR_NOW)


def test_model_is_pure() -> None:
    for module in MODULES:
        if module.startswith("csl_game.model"):
            imports = picked(module)[0]
            tops = {a.name.split(".")[0] for n in imports if isinstance(n, ast.Import)
                    for a in n.names}
            tops |= {(n.module or "").split(".")[0] for n in imports
                     if isinstance(n, ast.ImportFrom) and not n.level}
            allowed = {"__future__", "enum", "functools", "typing", "collections", "dataclasses",
                       "csl_game", "itertools", "operator"}
            assert tops <= allowed, f"{module} imports {tops - allowed}"
