"""The package's layers, checked from the source: imports only go downward
(model <- thinker API <- engine runners <- engine <- frontends <- command
line), pygame only in the GUI, and no import cycle anywhere.

Every import counts: at the top of a module, inside a function (a lazy
import) and under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast

import pytest

from import_graph import MODULES, _graph, imports_of

# Longest prefix wins. Lower numbers are lower layers.
LAYERS = {
    "csl_game.errors": 0,
    "csl_game.model": 0,
    "csl_game": 1,  # the package itself re-exports the public API
    "csl_game.thinker": 1,
    "csl_game.thinkers": 1,
    "csl_game.engine.runners": 2,
    "csl_game.forkserver": 2,  # the runners' fork server, outside the engine package to import light
    "csl_game.engine": 3,
    "csl_game.services": 4,
    "csl_game.online": 4,  # online play: protocol, host and client, beside the services
    "csl_game.console": 5,
    "csl_game.gui": 5,
    "csl_game.rl": 5,  # the game for learning agents: a frontend, as the console is
    "csl_game.cli": 6,
    "csl_game.__main__": 6,
    "csl_game.launch": 6,
}
LAYER_NAMES = {0: "model", 1: "thinker API", 2: "engine runners", 3: "engine",
               4: "services", 5: "frontends", 6: "command line"}


def _layer(module: str) -> int:
    prefix = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[prefix]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_downward(module: str) -> None:
    own = _layer(module)
    for name in imports_of(module):
        if name.split(".")[0] in ("pygame", "pygame_gui"):
            assert module.startswith("csl_game.gui"), f"{module} imports {name} outside the GUI"
            continue
        assert name in MODULES, f"{module} imports {name}, which does not exist"
        other = _layer(name)
        assert other <= own, (f"{module} ({LAYER_NAMES[own]}) imports {name} "
                              f"({LAYER_NAMES[other]}), a higher layer")


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
    cycles = find_cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_cycle_finder_sees_cycles() -> None:
    """The finder the test above calls reports a planted cycle (a test that
    cannot fail proves nothing)."""
    graph = _graph()
    assert not find_cycles(graph)
    graph["csl_game.model.board"].add("csl_game.engine.match")  # match imports the board
    cycles = find_cycles(graph)
    assert any({"csl_game.model.board", "csl_game.engine.match"} <= set(c) for c in cycles)


FRONTENDS = ("csl_game.console", "csl_game.gui", "csl_game.rl", "csl_game.online",
             "csl_game.cli", "csl_game.__main__")


def runner_imports(graph: dict[str, set[str]]) -> list[str]:
    """'frontend -> engine.runners.x' for each frontend module that reaches past
    the engine's front door (csl_game.engine) into its runners."""
    return sorted(f"{m} -> {i}" for m, imported in graph.items()
                  if m.startswith(FRONTENDS) for i in imported
                  if i.startswith("csl_game.engine.runners"))


def test_frontends_use_the_engines_front_door() -> None:
    assert not runner_imports(_graph())


def test_the_front_door_check_sees_a_frontend_reaching_the_runners() -> None:
    graph = _graph()
    graph["csl_game.gui.app"].add("csl_game.engine.runners.process")
    assert runner_imports(graph) == ["csl_game.gui.app -> csl_game.engine.runners.process"]


def test_model_is_pure() -> None:
    for module in MODULES:
        if module.startswith("csl_game.model"):
            tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
            tops = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                    for a in n.names}
            tops |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                     if isinstance(n, ast.ImportFrom) and not n.level}
            allowed = {"__future__", "enum", "functools", "typing", "collections", "dataclasses",
                       "csl_game", "itertools", "operator"}
            assert tops <= allowed, f"{module} imports {tops - allowed}"
