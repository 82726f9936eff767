"""DML_OPERATOR_ARGMAX: shape rules the descriptor file cannot express.

From the docs page: Axes values "must be in the range [0, InputTensor.DimensionCount - 1]"; OutputTensor's
Sizes "must match InputTensor.Sizes, except for dimensions included in the reduced Axes, which must be size 1"
(the DimensionCount rule is the generic validator's; the integral output types are the support tiers').
Unlike REDUCE's check, a repeated axis is allowed: DirectML runs Axes {1, 1}, and the page forbids neither a
repeat nor an empty Axes (an empty Axes reduces nothing: every index is 0).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axes in range; OutputTensor is InputTensor with the reduced Axes set to 1."""
    return L.arg_problems(desc)
