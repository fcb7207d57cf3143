"""ir_measures' spellings each measure declares."""

from __future__ import annotations

import pytest

from metrics.measures import list_measures

ir_measures = pytest.importorskip("ir_measures", reason="ir-measures (the oracle) is not installed")


def declared(*, equal: bool | None = None) -> list[str]:
    """The ir_measures spellings the registry declares: all, or those whose values are equal (``equal=True``)
    or stated to differ (``equal=False``)."""
    return [
        name
        for cls in list_measures()
        for name in cls.ir_measures
        if equal is None or equal == (name not in cls.ir_measures_differs)
    ]
