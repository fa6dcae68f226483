"""The package's modules and the imports of each, read from the source (every
import counts: at the top of a module, inside a function and under
``if TYPE_CHECKING:``). Used by the layer and GUI-structure tests.

Each module is read and parsed once a test process (the readings are
cached), so a test asking for the whole graph costs no more than a look-up.
"""

from __future__ import annotations

import ast
from functools import cache
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


@cache
def tree_of(module: str) -> ast.Module:
    """The module's syntax tree (parsed once)."""
    return ast.parse(MODULES[module].read_text(encoding="utf-8"))


def source_of(node: ast.ImportFrom, module: str) -> str:
    """The module an import statement of `module` takes its names from."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[:len(base) - node.level + (1 if _is_package(module) else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def target(module: str, node: ast.ImportFrom, alias: str) -> str:
    """The csl_game module an import statement takes `alias` from: the
    submodule of that name, if there is one, else the module itself."""
    source = source_of(node, module)
    sub = f"{source}.{alias}"
    return sub if sub in MODULES else source


Picked = tuple[list[ast.Import | ast.ImportFrom], list[ast.Attribute]]


def pick(tree: ast.Module) -> Picked:
    """A tree's import statements and its attribute reads of a private name
    of a plain name (``players._CHECKED``), in one walk of the tree."""
    imports: list[ast.Import | ast.ImportFrom] = []
    private_reads: list[ast.Attribute] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
              and isinstance(node.value, ast.Name)):
            private_reads.append(node)
    return imports, private_reads


@cache
def picked(module: str) -> Picked:
    """`pick` of the module's tree (walked once)."""
    return pick(tree_of(module))


@cache
def imports_of(module: str) -> tuple[str, ...]:
    """The csl_game modules `module` imports, wherever the import stands."""
    found = []
    for node in picked(module)[0]:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            names = [target(module, node, a.name) for a in node.names]
        found += [n for n in names if n.split(".")[0] in ("csl_game", "pygame", "pygame_gui")]
    return tuple(found)


def package_graph() -> dict[str, set[str]]:
    """Each module and the package modules it imports (a new dict and new sets
    each call: a test may plant an import in its copy)."""
    return {m: {i for i in imports_of(m) if i in MODULES and i != m} for m in MODULES}
