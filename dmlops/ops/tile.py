"""DML_OPERATOR_TILE: shape rules the descriptor file cannot express.

From the docs page: RepeatsCount (the length of Repeats) "must be the same as the
InputTensor.DimensionCount"; Repeats "must be larger than 0"; OutputTensor "must have the same
DimensionCount as the input tensor" and OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i].
DirectML agrees (vectors: RepeatsCount 2 for a 4-dimensional input is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Repeats >= 1 and one per dimension; OutputTensor of InputTensor's rank with Sizes InputTensor * Repeats."""
    repeats = list(desc.repeats)
    out = L.positive_problems(desc, "Repeats", repeats, "each value is a number of copies")
    out += L.same_rank_problems(desc, "InputTensor", "OutputTensor")
    x = L.sizes(L.tensor(desc, "InputTensor"))
    if not x:
        return out
    count = L.count_problems(desc, "RepeatsCount", ["Repeats"], len(repeats), len(x))
    if count:
        return out + count
    return out + L.expected_problems(desc, "OutputTensor", "InputTensor.Sizes * Repeats",
                                     [s * r for s, r in zip(x, repeats)])
