"""DML_OPERATOR_GATHER_ND: shape rules the descriptor file cannot express.

From the docs page: InputDimensionCount ranges "[1, InputTensor.DimensionCount]" and IndicesDimensionCount
"[1, IndicesTensor.DimensionCount]", each the number of "actual dimensions ... after ignoring any irrelevant
leading ones" (so the dimensions before them must be 1); the last dimension of IndicesTensor (indexTupleSize,
the coordinates per index tuple) "cannot exceed" the input's dimensions (InputDimensionCount, as DirectMLX's
dml::GatherND asserts); OutputTensor.Sizes = {1..., IndicesTensor's meaningful Sizes but the last, InputTensor's
meaningful Sizes after the first indexTupleSize}, right-aligned. (The page's formula takes the input part from
InputTensor.DimensionCount - indexTupleSize, which contradicts its own example {3,4,5,6,7} -> {6,7}; dmlops
follows the example.)
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Dimension counts in range with leading 1s before them; indexTupleSize <= InputDimensionCount; the
    right-aligned OutputTensor Sizes."""
    return L.nd_problems(desc, scatter=False)
