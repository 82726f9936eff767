"""DML_OPERATOR_LP_NORMALIZATION: rules the descriptor file cannot express.

From the docs: Axis is "the axis on which to apply normalization", so it must be a dimension of
InputTensor (0 to DimensionCount - 1; DirectML refused Axis 1 on a 1-D input, the validator-gap vector
gap_factory_tier_3_1_dt_0_rank_min); P is "the order of the normalization (either 1 or 2)".
InputTensor and OutputTensor share DataType, DimensionCount and Sizes (the descriptor's 'same' rule).

Math (docs): Output = Input / Lp-norm(Input along Axis); where Epsilon enters is undocumented.
Only check() is written so far.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor


def check(desc, level) -> list[Problem]:
    """Axis is a dimension of InputTensor; P is 1 or 2."""
    op = desc.OPERATOR_TYPE
    out = []
    x = tensor(desc, "InputTensor")
    if x is not None and x.dimension_count and desc.axis >= x.dimension_count:
        rank = x.dimension_count
        out.append(Problem(op, "Axis", "axes", f"{desc.axis} is out of range for a {rank}-dimensional InputTensor "
                                               f"(allowed: 0 to {rank - 1})."))
    if desc.p not in (1, 2):
        out.append(Problem(op, "P", "range", f"{desc.p} is not allowed (allowed: 1 or 2)."))
    return out
