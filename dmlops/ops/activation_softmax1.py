"""DML_OPERATOR_ACTIVATION_SOFTMAX1: the Axes rule the descriptor file cannot express.

The docs: Axes "must be in the range [0, InputTensor.DimensionCount - 1]". dmlops also rejects a
repeated axis (the reduction over a set of axes names each once). An empty Axes list is not
rejected: the docs do not forbid it.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor
from ._shapes import axes_problems


def check(desc, level) -> list[Problem]:
    """Each axis below InputTensor's DimensionCount; no axis repeated."""
    x = tensor(desc, "InputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    return axes_problems(desc.OPERATOR_TYPE, desc.axes, rank)
