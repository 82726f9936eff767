"""DML_OPERATOR_UPSAMPLE_2D: shape rules the descriptor file cannot express.

InputTensor {InputBatchCount, InputChannelCount, [InputDepth], InputHeight, InputWidth}; OutputTensor
{InputBatchCount, InputChannelCount, [InputDepth], InputHeight * HeightScale, InputWidth * WidthScale}
(only height and width are scaled, even for 5-D tensors); "0 < ScaleSize.Height <= UINT_MAX / InputHeight
and 0 < ScaleSize.Width <= UINT_MAX / InputWidth".
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import shape_problem, tensor
from ._shapes import sizes
from ._windows import UINT_MAX


def check(desc, level) -> list[Problem]:
    """ScaleSize range and OutputTensor sizes."""
    op = desc.OPERATOR_TYPE
    out = []
    x = sizes(tensor(desc, "InputTensor"))
    x = x if x is not None and len(x) in (4, 5) else None
    scales = {"Height": desc.scale_size.height, "Width": desc.scale_size.width}
    for i, (name, scale) in enumerate(scales.items()):
        if x is None:
            if scale < 1:
                out.append(Problem(op, f"ScaleSize.{name}", "range", f"{scale} is not allowed (allowed: 1 or more)."))
            continue
        size = x[-2 + i]
        if not 1 <= scale <= UINT_MAX // size:
            out.append(Problem(op, f"ScaleSize.{name}", "range",
                               f"{scale} is not allowed (allowed: 1 to UINT_MAX / Input{name} = {UINT_MAX // size})."))
    y = sizes(tensor(desc, "OutputTensor"), len(x)) if x is not None else None
    if y is None:
        return out
    expected = x[:-2] + [x[-2] * scales["Height"], x[-1] * scales["Width"]]
    depth = ["InputDepth"] if len(x) == 5 else []
    formula = "{" + ", ".join(["InputBatchCount", "InputChannelCount"] + depth
                              + ["InputHeight * HeightScale", "InputWidth * WidthScale"]) + "}"
    if y != expected:
        out.append(shape_problem(desc, "OutputTensor", y, formula, expected))
    return out
