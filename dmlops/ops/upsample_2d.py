"""DML_OPERATOR_UPSAMPLE_2D: Height and Width scaled by integer factors, nearest neighbor or bilinear.

InputTensor {InputBatchCount, InputChannelCount, [InputDepth], InputHeight, InputWidth}; OutputTensor
{InputBatchCount, InputChannelCount, [InputDepth], InputHeight * HeightScale, InputWidth * WidthScale}
(only height and width are scaled, even for 5-D tensors); "0 < ScaleSize.Height <= UINT_MAX / InputHeight
and 0 < ScaleSize.Width <= UINT_MAX / InputWidth".

Semantics (the page names the algorithms only; DirectML's vectors fix the rest, dmlops/ops/_resample.py):
pixel centres as RESAMPLE, source coordinate x = (o + 0.5) / Scale - 0.5 computed with a division (the
RESAMPLE variants multiply by 1 / Scale; UPSAMPLE_2D float32_linear_2x3 differs in 22 elements that way),
clamped to the edges. NEAREST_NEIGHBOR reads floor(x + 0.5) = o / Scale (integer division: a repeat);
LINEAR is bilinear over Height then Width, a + (b - a) * t per dimension (UPSAMPLE_2D float32_linear_2x3:
rows 0 and 1 both equal input row 0, row 4 equals input row 1). The lowerings share the RESAMPLE engine's
Gather / Sub / Mul / Add steps (ONNX) and index_select (torch).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..types import Size2D
from ..validation import shape_problem, tensor
from . import _resample as rs
from ._shapes import sizes
from ._windows import UINT_MAX


def check(desc, level) -> list[Problem]:
    """ScaleSize range and OutputTensor sizes."""
    op = desc.OPERATOR_TYPE
    out: list[Problem] = []
    x = sizes(tensor(desc, "InputTensor"))
    x = x if x is not None and len(x) in (4, 5) else None
    scales = {"Height": desc.scale_size.height, "Width": desc.scale_size.width}
    for i, (name, scale) in enumerate(scales.items()):
        if x is None:
            if scale < 1:
                out.append(Problem(op, f"ScaleSize.{name}", "range", f"{scale} is not allowed (allowed: 1 or more)."))
            continue
        size = x[-2 + i]
        if size < 1:  # the generic rule names a 0 in InputTensor's Sizes; no upper bound to give here
            if scale < 1:
                out.append(Problem(op, f"ScaleSize.{name}", "range", f"{scale} is not allowed (allowed: 1 or more)."))
            continue
        if not 1 <= scale <= UINT_MAX // size:
            out.append(Problem(op, f"ScaleSize.{name}", "range",
                               f"{scale} is not allowed (allowed: 1 to UINT_MAX / Input{name} = {UINT_MAX // size})."))
    if x is None:
        return out
    y = sizes(tensor(desc, "OutputTensor"), len(x))
    if y is None:
        return out
    expected = x[:-2] + [x[-2] * scales["Height"], x[-1] * scales["Width"]]
    depth = ["InputDepth"] if len(x) == 5 else []
    formula = "{" + ", ".join(["InputBatchCount", "InputChannelCount"] + depth
                              + ["InputHeight * HeightScale", "InputWidth * WidthScale"]) + "}"
    if y != expected:
        out.append(shape_problem(desc, "OutputTensor", y, formula, expected))
    return out


def reference(desc, x):
    """The shared resample engine (NumPy)."""
    return rs.reference(desc, x)


def to_onnx(desc, g, x):
    """Per dimension Gather (nearest) or Gather / Sub / Mul / Add (linear) with host-computed tables."""
    return rs.to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """Per dimension index_select (nearest) or index_select / sub / mul / add (linear)."""
    return rs.to_torch(desc, torch, x)


# ----------------------------------------------------------------------------------------------- samples
def _desc(sizes_in, height, width, mode, data_type="FLOAT32"):
    from ..descs import Upsample2d

    out = list(sizes_in[:-2]) + [sizes_in[-2] * height, sizes_in[-1] * width]
    return Upsample2d(input_tensor=td(data_type, sizes_in), output_tensor=td(data_type, out),
                      scale_size=Size2D(width=width, height=height), interpolation_mode=mode)


def _samples():
    f32 = np.float32
    exact = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="copies, or interpolations exact in float32")
    x = np.array([[[[1, 2], [3, 4]]]], f32)
    g = np.array([[[[0, 4], [8, 12]]]], f32)
    rng = np.random.default_rng(66)
    return [
        # Nearest, Height x2, Width x3: every element repeated into a 2 x 3 block.
        Sample("nearest_2x3", _desc([1, 1, 2, 2], 2, 3, "NEAREST_NEIGHBOR"), {"InputTensor": x},
               {"OutputTensor": np.array([[[[1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2],
                                            [3, 3, 3, 4, 4, 4], [3, 3, 3, 4, 4, 4]]]], f32)}, **exact),
        # Bilinear x2 over [[0, 4], [8, 12]]: x = (o + 0.5) / 2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25
        # (clamped to 1) in both dimensions; a row [0, 4] becomes [0, 1, 3, 4], a column [0, 8] becomes
        # [0, 2, 6, 8], and the grid is their sum.
        Sample("linear_2x2", _desc([1, 1, 2, 2], 2, 2, "LINEAR"), {"InputTensor": g},
               {"OutputTensor": np.array([[[[0, 1, 3, 4], [2, 3, 5, 6], [6, 7, 9, 10], [8, 9, 11, 12]]]], f32)},
               **exact),
        # 5-D: Depth is never scaled; Height x1, Width x2 nearest repeats each column.
        Sample("nearest_5d", _desc([1, 1, 2, 1, 2], 1, 2, "NEAREST_NEIGHBOR"),
               {"InputTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 2, 1, 2)},
               {"OutputTensor": np.array([1, 1, 2, 2, 3, 3, 4, 4], f32).reshape(1, 1, 2, 1, 4)}, **exact),
        # Bilinear x3 (a ratio that is not a power of two), checked against the other backends.
        Sample("linear_3x3_random", _desc([2, 1, 3, 4], 3, 3, "LINEAR"),
               {"InputTensor": rng.uniform(-3, 3, (2, 1, 3, 4)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 steps on every backend"),
    ]


SAMPLES = _samples()
