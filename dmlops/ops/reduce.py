"""DML_OPERATOR_REDUCE: shape rules the descriptor file cannot express.

From the docs: Axes values "must be in the range [0, InputTensor.DimensionCount - 1]" (dmlops also
rejects a repeated axis and an empty list, which reduce nothing); OutputTensor's DimensionCount
"must match InputTensor.DimensionCount" and its Sizes "must match InputTensor.Sizes, except for
dimensions included in the reduced Axes, which must be size 1"; the data types "must match except
when using the ARGMAX and ARGMIN functions, which always output an integral data type" (the support
tiers already hold ARGMAX/ARGMIN outputs to integral types).
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
from ._shapes import axes_problems

INDEX_FUNCTIONS = ("ARGMAX", "ARGMIN")


def check(desc, level) -> list[Problem]:
    """Axes valid; OutputTensor of InputTensor's rank, DataType (but for ARGMAX/ARGMIN) and reduced Sizes."""
    op = desc.OPERATOR_TYPE
    x, y = tensor(desc, "InputTensor"), tensor(desc, "OutputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    out = axes_problems(op, desc.axes, rank, require_one=True)
    axes_valid = not out
    if x is None or y is None:
        return out
    if desc.function.name not in INDEX_FUNCTIONS and x.data_type != y.data_type:
        out.append(Problem(op, None, "data_type",
                           f"InputTensor and OutputTensor must have the same DataType for {desc.function.dml_name}; "
                           f"got {x.data_type.name} and {y.data_type.name}."))
    if x.dimension_count != y.dimension_count:
        out.append(Problem(op, None, "dimension_count", f"InputTensor and OutputTensor must have the same "
                                                        f"DimensionCount; got {x.dimension_count} and {y.dimension_count}."))
    elif axes_valid:
        expected = [1 if i in desc.axes else s for i, s in enumerate(x.sizes)]
        if list(y.sizes) != expected:
            axes = ", ".join(map(str, desc.axes))
            out.append(shape_problem(desc, "OutputTensor", y.sizes, f"InputTensor Sizes with Axes {{{axes}}} set to 1",
                                     expected))
    return out
