"""verify.core.variants: the change taking a choice's value to an option, and the same change elsewhere."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.core.variants import apply, describe, relation


@pytest.mark.parametrize(
    ("value", "option", "rel"),
    [
        (8, 16, ("scale", 2.0)),
        ((160,), (240,), ("scale", 1.5)),
        ((0, 50, 200), (0, 100, 400), ("scale", 2.0)),
        ([64, 256, 1024], [256, 1024], ("drop_first",)),
        ([64, 256, 1024], [64, 256], ("drop_last",)),
        ((0.3, 0.1), (0.3, 0.1, 0.01), ("append", 0.1)),
        ((0.3, 0.1), (0.5, 0.3, 0.1), ("prepend", 0.5 / 0.3)),
        ((1, 2, 2, 4, 100), (1, 2, 2, 8, 100), ("entry", 3, 2.0)),
        ((3, 2, 2, 2, 4, 1, 100), (4, 3, 3, 2, 4, 1, 100), ("add", (0, 1, 2), 1)),
    ],
)
def test_relation_names_the_change(value: object, option: object, rel: tuple) -> None:
    found = relation(value, option)
    assert found[0] == rel[0] and found[1:-1] == rel[1:-1] and found[-1:] == pytest.approx(rel[-1:])
    assert apply(found, value, integer=all(isinstance(x, int) for x in _flat(value))) == pytest.approx(option)


@pytest.mark.parametrize(
    ("value", "option"),
    [
        (1.0, -1.0),  # a change of sign
        (0, 3),  # no factor from 0
        ((1, 2, 3), (1, 5, 7)),  # two entries, two steps
        ((10, 14, 18), (10, 12, 14, 16, 18)),  # a refined grid
        ((1, 2), "ab"),
        (True, False),
        ("a", "b"),
    ],
)
def test_no_relation(value: object, option: object) -> None:
    assert relation(value, option) is None


def test_apply_keeps_the_kind_and_rounds_integers() -> None:
    assert apply(("scale", 1.5), (160, 320), integer=True) == (240, 480)
    assert apply(("append", 1.25), [256, 512], integer=True) == [256, 512, 640]
    assert apply(("scale", 1.5), 3, integer=True) == 4  # round(4.5): to the even integer
    assert apply(("drop_first",), (5,), integer=True) is None  # nothing left
    assert apply(("entry", 4, 2.0), (1, 2), integer=True) is None  # no entry 4
    assert apply(("drop_last",), 3.0, integer=False) is None  # a grid's change, a number
    assert apply(("add", (0, 2), 1), (6, 3, 3, 2), integer=True) == (7, 3, 4, 2)
    assert apply(("add", (0, 5), 1), (6, 3), integer=True) is None
    assert [
        describe(r) for r in (("drop_first",), ("entry", 1, 1.5), ("append", 4.0), ("add", (0, 1), 1))
    ] == [
        "drop first",
        "entry 1 x1.5",
        "append x4",
        "entries 0, 1 +1",
    ]


@given(
    st.lists(st.integers(1, 10**6), min_size=2, max_size=8, unique=True).map(sorted),
    st.sampled_from([0.5, 2.0, 3.0]),
)
def test_a_scaled_grid_round_trips(grid: list[int], c: float) -> None:
    option = [x * c for x in grid]
    assert relation(grid, option) == ("scale", c)
    assert apply(relation(grid, option), grid, integer=False) == option


def _flat(x: object) -> list:
    return list(x) if isinstance(x, tuple | list) else [x]
