"""Layers import only downward: model <- thinkers <- engine <- frontends."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "csl_game"
LAYER = {"errors": 0, "board": 0, "thinker": 1, "discovery": 1,
         "runner": 2, "match": 2, "session": 2, "standings": 2, "config": 2, "configfile": 2, "procrunner": 2,
         "messages": 2, "worker": 2, "records": 2, "report": 2, "tiebreak": 2,
         "tournament": 2, "background": 2, "league": 2, "forkserver_warm": 2,
         "console": 3, "gui": 3, "cli": 4, "__main__": 4, "__init__": 1}


def _module_key(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


FILES = sorted(p for p in PKG.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_go_downward(path: Path) -> None:
    own = LAYER[_module_key(path)]
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "csl_game" and len(parts) > 1:
            other = LAYER[parts[1]]
            assert other <= own, f"{path.name} (layer {own}) imports {name} (layer {other})"
        elif parts[0] in ("pygame", "pygame_gui"):
            assert own >= 3, f"{path.name} imports {name} below the frontends"


def test_model_is_pure() -> None:
    for name in _imports(PKG / "board.py"):
        assert name.split(".")[0] in {"__future__", "enum", "functools", "typing", "csl_game"}
