"""DML_OPERATOR_PADDING: shape rules the descriptor file cannot express.

From the docs page: DimensionCount (the length of StartPadding and EndPadding) "must be the same value as the
dimension count of InputTensor and OutputTensor", and OutputTensor.Sizes[i] = InputTensor.Sizes[i] +
StartPadding[i] + EndPadding[i]. REFLECTION and SYMMETRIC may pad by more than the dimension's size (periodic
folding, the docs' examples 3 and 4), so no bound applies to the paddings; SYMMETRIC's introduction at
DML_FEATURE_LEVEL_3_0 is the generic enum rule. DirectML agrees (vectors: DimensionCount 2 for 4- and
5-dimensional tensors is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """DimensionCount = InputTensor's; OutputTensor.Sizes = InputTensor.Sizes + StartPadding + EndPadding."""
    return L.padding_problems(desc)
