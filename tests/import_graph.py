"""The package's modules and the imports of each, read from the source (every
import counts: at the top of a module, inside a function and under
``if TYPE_CHECKING:``). Used by the layer and GUI-structure tests."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


PKG = ROOT / "src" / "csl_game"


BUILTINS = ROOT / "thinkers"  # installed as csl_game.thinkers


def _modules() -> dict[str, Path]:
    found = {}
    for base, package in ((PKG, "csl_game"), (BUILTINS, "csl_game.thinkers")):
        for path in base.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            parts = [package, *path.relative_to(base).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _target(module: str, node: ast.ImportFrom, alias: str) -> str:
    """The csl_game module an import statement takes `alias` from."""
    if node.level:
        base = module.split(".")
        base = base[:len(base) - node.level + (1 if _is_package(module) else 0)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    sub = f"{source}.{alias}"
    return sub if sub in MODULES else source


def imports_of(module: str) -> Iterator[str]:
    """The csl_game modules `module` imports, wherever the import stands."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [_target(module, node, a.name) for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in ("csl_game", "pygame", "pygame_gui"):
                yield name


def _graph() -> dict[str, set[str]]:
    return {m: {i for i in imports_of(m) if i in MODULES and i != m} for m in MODULES}
