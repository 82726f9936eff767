"""DML_OPERATOR_GATHER_ND1: shape rules the descriptor file cannot express.

GATHER_ND's rules (see gather_nd.py) with BatchDimensionCount leading batch dimensions: BatchDimensionCount must
be less than both InputDimensionCount and IndicesDimensionCount (DirectMLX's dml::GatherND asserts this; the
page states the range against the tensors' DimensionCount, but DirectML refuses BatchDimensionCount 1 with
InputDimensionCount = IndicesDimensionCount = 1 on 4-dimensional tensors); the batch Sizes of InputTensor and
IndicesTensor must be equal; indexTupleSize <= InputDimensionCount - BatchDimensionCount; OutputTensor.Sizes =
{1..., IndicesTensor's meaningful Sizes but the last, InputTensor's meaningful Sizes after the batch and the
indexed dimensions}, right-aligned (the page's example 2: {1, 3,2,2} by {1, 3,2,2} with one batch dimension
gives {1,1, 3,2}).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """GATHER_ND's rules with BatchDimensionCount batch dimensions."""
    return L.nd_problems(desc, scatter=False)
