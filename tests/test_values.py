"""The model's value types: the enum helpers answer from tables, with no API change."""

from __future__ import annotations

import pytest

from csl_game import PColor, PShape, Winner
from csl_game.model import values

pytestmark = pytest.mark.unit

# (member, helper name, expected value): what the properties promised before
# they became table lookups.
HELPERS = [
    (PShape.ROUND, "other", PShape.SQUARE),
    (PShape.SQUARE, "other", PShape.ROUND),
    (PColor.WHITE, "other", PColor.RED),
    (PColor.RED, "other", PColor.WHITE),
    (PColor.WHITE, "shape", PShape.ROUND),
    (PColor.RED, "shape", PShape.SQUARE),
    (PColor.WHITE, "winner", Winner.WHITE),
    (PColor.RED, "winner", Winner.RED),
    (Winner.NONE, "color", None),
    (Winner.DRAW, "color", None),
    (Winner.WHITE, "color", PColor.WHITE),
    (Winner.RED, "color", PColor.RED),
]


@pytest.mark.parametrize(("member", "name", "expected"), HELPERS,
                         ids=lambda v: str(v) if v is not None else "None")
def test_helpers_give_the_members_themselves(member: object, name: str,
                                             expected: object) -> None:
    assert getattr(member, name) is expected


@pytest.mark.parametrize("cls, name", [(PShape, "other"), (PColor, "other"),
                                       (PColor, "shape"), (PColor, "winner"),
                                       (Winner, "color")])
def test_helpers_stay_read_only_properties(cls: type, name: str) -> None:
    assert isinstance(vars(cls)[name], property)
    member = next(iter(cls))
    with pytest.raises(AttributeError):
        setattr(member, name, None)


def test_round_trips() -> None:
    for color in PColor:
        assert color.other.other is color
        assert color.winner.color is color
        assert color.shape == int(color)
    for shape in PShape:
        assert shape.other.other is shape


def test_tables_are_indexed_by_value() -> None:
    # The lookups index tuples with the members' values; a reordered enum
    # would silently answer wrong, so pin the values.
    assert [int(s) for s in PShape] == [0, 1]
    assert [int(c) for c in PColor] == [0, 1]
    assert [int(w) for w in Winner] == [-1, 0, 1, 2]
    assert len(values._COLOR_OF) == len(Winner)
