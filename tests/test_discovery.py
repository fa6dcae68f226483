"""Discovery's names: an entry point's key names the thinker it declares."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from csl_game.errors import ThinkerError
from csl_game.thinker.discovery import ENTRY_POINT_GROUP, registry

pytestmark = pytest.mark.unit

ONE = """
from csl_game import AbstractThinker, FutureMove, PShape

class LoneThinker(AbstractThinker):
    def think(self, board, ct):
        return FutureMove(0, PShape.ROUND)
"""
TWO = ONE + """
class OtherThinker(LoneThinker):
    pass
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on sys.path where `install()` lays out packages as pip would."""
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.cache_clear()
    yield tmp_path
    registry.cache_clear()


def install(folder: Path, dist: str, modules: dict[str, str], entry_points: dict[str, str]
            ) -> None:
    for name, code in modules.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    info = folder / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n",
                                   encoding="utf-8")
    lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}",
                                           encoding="utf-8")


def test_an_entry_point_key_names_its_class(installed: Path) -> None:
    install(installed, "ep_class", {"ep_class_mod": ONE},
            {"Foo": "ep_class_mod:LoneThinker"})
    reg = registry()
    fqn = "ep_class_mod.LoneThinker"
    assert reg.resolve("foo") is reg.classes[fqn] and reg.resolve("FOO") is reg.classes[fqn]
    assert reg.short_name(fqn) == "foo"
    assert reg.resolve("lone") is reg.classes[fqn]  # the class's own short name still works


def test_an_entry_point_key_names_the_one_thinker_of_its_module(installed: Path) -> None:
    install(installed, "ep_module", {"ep_one_mod": ONE}, {"bar": "ep_one_mod"})
    reg = registry()
    assert reg.resolve("bar") is reg.classes["ep_one_mod.LoneThinker"]


def test_a_module_of_several_thinkers_keeps_their_own_names(installed: Path) -> None:
    install(installed, "ep_two", {"ep_two_mod": TWO}, {"pair": "ep_two_mod"})
    reg = registry()
    assert reg.resolve("other") is reg.classes["ep_two_mod.OtherThinker"]
    with pytest.raises(ThinkerError, match="unknown thinker 'pair'"):
        reg.resolve("pair")


def test_a_key_that_is_another_thinkers_name_is_ambiguous(installed: Path) -> None:
    install(installed, "ep_clash", {"ep_clash_mod": ONE}, {"random": "ep_clash_mod:LoneThinker"})
    with pytest.raises(ThinkerError, match="ambiguous"):
        registry().resolve("random")
    assert registry().resolve("csl_game.thinkers.random.RandomAIThinker")
