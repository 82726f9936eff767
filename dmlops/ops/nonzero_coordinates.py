"""DML_OPERATOR_NONZERO_COORDINATES: shape rules the descriptor file cannot express.

From the docs page: OutputCountTensor "must be a scalar - that is, the Sizes of this tensor must all be 1";
OutputCoordinatesTensor has Sizes {1, ..., 1, M, N}, where M "is the total number of elements in the
InputTensor" and N "is greater or equal to the effective rank of InputTensor, up to the DimensionCount of the
input" (the effective rank excludes leading dimensions of size 1; {1, 1, 1, 1} has effective rank 0). The UINT32
data types and the dimension counts are the support tiers'.
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """OutputCountTensor all 1s; OutputCoordinatesTensor {1..., M, N} with M = InputTensor's element count and
    effective rank <= N <= DimensionCount."""
    op = desc.OPERATOR_TYPE
    out = []
    count = L.tensor(desc, "OutputCountTensor")
    if count is not None and any(s != 1 for s in count.sizes):
        out.append(Problem(op, "OutputCountTensor", "shape",
                           f"Sizes {list(count.sizes)} must all be 1 (a scalar holding the count)."))
    x, y = L.tensor(desc, "InputTensor"), L.sizes(L.tensor(desc, "OutputCoordinatesTensor"))
    if x is None or not x.dimension_count or y is None or len(y) < 2:
        return out
    out += L.leading_ones_problems(desc, "OutputCoordinatesTensor", y, 2, "two (M and N)")
    m, n = y[-2:]
    if m != x.element_count:
        out.append(Problem(op, "OutputCoordinatesTensor", "shape",
                           f"M (Sizes[{len(y) - 2}]) is {m}; it must be InputTensor's element count "
                           f"{x.element_count}."))
    lead = 0
    while lead < x.dimension_count and x.sizes[lead] == 1:
        lead += 1
    effective = x.dimension_count - lead
    if not max(effective, 1) <= n <= x.dimension_count:
        out.append(Problem(op, "OutputCoordinatesTensor", "shape",
                           f"N (Sizes[{len(y) - 1}]) is {n}; it must be at least InputTensor's effective rank "
                           f"({effective}) and at most its DimensionCount ({x.dimension_count})."))
    return out
