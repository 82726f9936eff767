"""DML_OPERATOR_SCATTER_ND: shape rules the descriptor file cannot express.

From the docs page: InputDimensionCount and IndicesDimensionCount count the "actual dimensions ... after
ignoring any irrelevant leading ones" (so the dimensions before them must be 1); the last dimension of
IndicesTensor (indexTupleSize) "mustn't exceed" the input's dimensions (InputDimensionCount); UpdatesTensor.Sizes
= {1..., IndicesTensor's meaningful Sizes but the last, InputTensor's meaningful Sizes after the first
indexTupleSize}, right-aligned; OutputTensor's Sizes "must match InputTensor.Sizes". The page gives both counts
the range "[1, DimensionCount)", while GATHER_ND's page (the inverse operator) and DirectMLX say
"[1, DimensionCount]"; dmlops allows DimensionCount.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Dimension counts in range with leading 1s before them; indexTupleSize <= InputDimensionCount; the
    right-aligned UpdatesTensor Sizes; OutputTensor has InputTensor's Sizes."""
    return L.nd_problems(desc, scatter=True)
