"""DML_OPERATOR_GATHER: shape rules the descriptor file cannot express.

From the docs page: Axis ranges "[0, InputTensor.DimensionCount)"; IndexDimensions is "the number of actual
index dimensions within the IndicesTensor after ignoring any irrelevant leading ones", so the dimensions of
IndicesTensor before its last IndexDimensions must be 1; and OutputTensor.Sizes = {InputTensor.Sizes[0..Axis],
IndicesTensor.Sizes[(DimensionCount - IndexDimensions)..], InputTensor.Sizes[(Axis + 1)..]}, "right-aligned
such that any leading 1 values from the input sizes are cropped", with "the original rank of InputTensor +
IndexDimensions - 1" relevant dimensions, which "must be less than or equal to the DimensionCount of
OutputTensor" (DirectMLX's dml::Gather computes the same Sizes). The page gives IndexDimensions the range
"[0, IndicesTensor.DimensionCount)", but its own example 1 (a 1-dimensional gather) uses IndexDimensions =
DimensionCount, as DirectMLX allows, so dmlops allows up to DimensionCount. (The page's example 3, Axis 1 and
IndexDimensions 2 on {3, 2} with {1, 2} indices, breaks its own "original rank + IndexDimensions - 1" rule;
it describes IndexDimensions 1.) DirectML agrees with these rules on its vectors ({1, 3, 4, 5} gathered
along Axis 1 with {1, 1, 2, 3} indices and IndexDimensions 2 gives {2, 3, 4, 5}).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L

FORMULA = ("{1..., InputTensor.Sizes[0 .. Axis] without leading 1s, IndicesTensor.Sizes[-IndexDimensions ..], "
           "InputTensor.Sizes[Axis + 1 ..]}")


def check(desc, level) -> list[Problem]:
    """Axis in range; IndexDimensions <= IndicesTensor's DimensionCount with leading 1s before them; the
    right-aligned OutputTensor Sizes."""
    x = L.sizes(L.tensor(desc, "InputTensor"))
    out = L.axis_problems(desc, desc.axis, len(x)) if x else []
    indices, found = L.meaningful_sizes(desc, "IndicesTensor", "IndexDimensions", desc.index_dimensions, low=0)
    out += found
    if not x or indices is None or out:
        return out
    before = x[:desc.axis]
    while before and before[0] == 1:
        before = before[1:]  # the original rank of InputTensor: its leading 1s are cropped
    return L.right_aligned_problems(desc, "OutputTensor", FORMULA, before + indices + x[desc.axis + 1:])
