"""Assets are found, licensed, and shipped by the package build."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from csl_game.gui.assets import asset_path, assets_dir, load_theme

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def test_assets_are_found_with_a_font_and_its_licence() -> None:
    assert (assets_dir() / "theme.json").is_file()
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "LICENSE"):
        assert asset_path("fonts", name).is_file()
    assert "Bitstream" in asset_path("fonts", "LICENSE").read_text(encoding="utf-8")


def test_theme_font_paths_are_absolute_and_exist() -> None:
    font = load_theme()["defaults"]["font"]
    for key in ("regular_path", "bold_path"):
        assert Path(font[key]).is_absolute() and Path(font[key]).is_file()


def test_every_palette_colour_parses() -> None:
    import pygame

    for value in load_theme()["#match_scene"]["colours"].values():
        pygame.Color(value)


def _setuptools() -> dict:  # type: ignore[type-arg]
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_pyproject_lists_every_package() -> None:
    st = _setuptools()
    listed = set(st["packages"])
    assert st["package-dir"]["csl_game.thinkers"] == "thinkers"
    assert st["package-dir"]["csl_game.examples"] == "examples"
    for top, package in (("src/csl_game", "csl_game"), ("thinkers", "csl_game.thinkers"),
                         ("examples", "csl_game.examples")):
        for init in (ROOT / top).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            name = ".".join((package, *init.parent.relative_to(ROOT / top).parts))
            assert name in listed, f"add {name} to [tool.setuptools] packages"


def test_pyproject_ships_every_asset() -> None:
    st = _setuptools()
    assert st["package-dir"]["csl_game.assets"] == "assets"
    assert "csl_game.assets" in st["packages"]
    patterns = st["package-data"]["csl_game.assets"]
    for path in (ROOT / "assets").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py":
            rel = path.relative_to(ROOT / "assets").as_posix()
            assert any(fnmatch.fnmatch(rel, p) for p in patterns), f"{rel} is not shipped"


def test_pyproject_ships_every_example() -> None:
    patterns = _setuptools()["package-data"]["csl_game.examples"]
    for path in (ROOT / "examples").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.name != "__init__.py":
            rel = path.relative_to(ROOT / "examples").as_posix()
            assert any(fnmatch.fnmatch(rel, p) for p in patterns), f"{rel} is not shipped"
