"""DML_OPERATOR_ARGMAX: shape rules the descriptor file cannot express.

From the docs page: Axes values "must be in the range [0, InputTensor.DimensionCount - 1]"; OutputTensor's
Sizes "must match InputTensor.Sizes, except for dimensions included in the reduced Axes, which must be size 1"
(the DimensionCount rule is the generic validator's; the integral output types are the support tiers').
Unlike REDUCE's check, a repeated axis is allowed: DirectML runs Axes {1, 1} (the factory descriptor with
Axes {1, 1} on {1, 1, 1, 1} tensors is not among the refused vectors, while its variants with a wrong
OutputTensor or a 1-dimensional input are). The page requires no minimum AxisCount either, so none is checked.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axes in range; OutputTensor is InputTensor with the reduced Axes set to 1."""
    return L.arg_problems(desc)
