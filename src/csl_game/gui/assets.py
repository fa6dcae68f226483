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

import pygame_gui

__all__ = ["assets_dir", "asset_path", "load_theme", "quick_theming_ids", "THEMES"]

THEMES = ("default", "high-contrast")
"""The themes: theme.json, and each other one as theme-NAME.json, which
overrides the colours it names."""

_CHECKOUT = Path(__file__).resolve().parents[3] / "assets"  # src/csl_game/gui/
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
def _theme_text(name: str) -> str:
    file = "theme.json" if name == "default" else f"theme-{name}.json"
    return asset_path(file).read_text(encoding="utf-8")


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = (_merge(out[key], value) if isinstance(value, dict)
                    and isinstance(out.get(key), dict) else value)
    return out


def load_theme(name: str = "default", scale: float = 1.0) -> dict[str, Any]:
    """The pygame_gui theme `name` as a dict: font paths made absolute, font
    sizes times `scale` (so text grows with the window).

    Raises:
        ValueError: no theme has that name.
    """
    if name not in THEMES:
        raise ValueError(f"unknown theme '{name}' (choose from {', '.join(THEMES)})")
    theme: dict[str, Any] = json.loads(_theme_text("default"))
    if name != "default":
        theme = _merge(theme, json.loads(_theme_text(name)))
    # the shade over a screen under the menu or the help: the board's own shade
    theme["#shade"] = {"colours": {"dark_bg": theme["#match_scene"]["colours"]["shade"]},
                       "misc": {"border_width": "0", "shadow_width": "0"}}
    base = int(theme["defaults"]["font"].get("size", 15))
    for name in _ELEMENTS:  # pygame_gui keeps its first default font: name every size
        theme.setdefault(name, {})
    for block in theme.values():
        if not isinstance(block, dict):
            continue
        font = block.setdefault("font", {})
        for key in ("regular_path", "bold_path", "italic_path", "bold_italic_path"):
            if key in font:
                font[key] = str(asset_path(*font[key].split("/")))
        font.setdefault("name", "dejavu_sans")
        font["size"] = str(max(9, round(int(font.get("size", base)) * scale)))
    # a drop-down's rows are pygame_gui's 20 px unless told: as tall as the text needs
    rows = theme.setdefault("selection_list", {}).setdefault("misc", {})
    rows["list_item_height"] = str(max(20, round(int(theme["selection_list"]["font"]["size"])
                                                 * 1.6)))
    return theme


_ELEMENTS = ("button", "label", "text_entry_line", "drop_down_menu", "check_box", "text_box",
             "selection_list", "tool_tip", "horizontal_scroll_bar", "vertical_scroll_bar")
"""pygame_gui element types: each gets the default font at the window's scale."""


_THEMING_IDS: dict[tuple[tuple[str | None, ...] | None, ...], list[str]] = {}
"""A widget's theming ids (most specific first) by the id lists they come from."""


def quick_theming_ids(ui: pygame_gui.UIManager) -> None:
    """Make `ui`'s theme find a widget's theming ids by the id lists themselves.

    pygame_gui 0.6 keys its cache of them by a string joined from the four
    lists (element bases, elements, classes, objects), each joined into the
    next, so the key is as long as the product of their lengths: millions of
    characters for a widget in a panel, built for every widget made. The
    lists as a tuple are the same key (the ids depend on nothing else, not
    even the theme), so each combination is worked out once in a process,
    whatever window or theme asks, and found again at once.
    """
    theme = ui.get_theme()
    work_out = theme.build_all_combined_ids
    found = _THEMING_IDS

    def combined_ids(bases: list[str | None] | None, elements: list[str] | None,
                     classes: list[str | None] | None,
                     objects: list[str | None] | None) -> list[str]:
        key = tuple(None if ids is None else tuple(ids)
                    for ids in (bases, elements, classes, objects))
        ids = found.get(key)
        if ids is None:
            ids = found[key] = work_out(bases, elements, classes, objects)
        return ids

    setattr(theme, "build_all_combined_ids", combined_ids)  # noqa: B010 (a method's name)
