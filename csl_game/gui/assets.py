"""Finding the data files in assets/, installed or in a checkout.

An installed package carries them as the package ``csl_game.assets``
(pyproject maps the top-level assets/ folder there); a checkout that was not
installed, or an editable install, finds them next to the package.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["assets_dir", "asset_path", "load_theme"]

_CHECKOUT = Path(__file__).resolve().parents[2] / "assets"
_MARKER = "theme.json"


@cache
def assets_dir() -> Path:
    """The folder holding theme.json and fonts/.

    Raises:
        FileNotFoundError: neither the installed package nor a checkout has it.
    """
    try:
        root = resources.files("csl_game.assets")
        candidate = Path(str(root))
        if (candidate / _MARKER).is_file():
            return candidate
    except (ModuleNotFoundError, TypeError):
        pass
    if (_CHECKOUT / _MARKER).is_file():
        return _CHECKOUT
    raise FileNotFoundError(f"csl_game's assets folder is missing (looked in the "
                            f"installed package and in {_CHECKOUT})")


def asset_path(*parts: str) -> Path:
    """The path of a file in assets/, e.g. asset_path('fonts', 'DejaVuSans.ttf')."""
    return assets_dir().joinpath(*parts)


@cache
def _theme_text() -> str:
    return asset_path("theme.json").read_text(encoding="utf-8")


def load_theme() -> dict[str, Any]:
    """The pygame_gui theme as a dict, its font paths made absolute."""
    theme: dict[str, Any] = json.loads(_theme_text())
    for block in theme.values():
        font = block.get("font") if isinstance(block, dict) else None
        if isinstance(font, dict):
            for key in ("regular_path", "bold_path", "italic_path", "bold_italic_path"):
                if key in font:
                    font[key] = str(asset_path(*font[key].split("/")))
    return theme
