"""DML_OPERATOR_RESAMPLE2: RESAMPLE1 with RoundingDirection for nearest neighbor.

Source coordinate as RESAMPLE1, x = (o - OutputPixelOffset) * (1 / Scale) - InputPixelOffset (float32).
NEAREST_NEIGHBOR reads ceil(x) for INCREASING and floor(x) for DECREASING, clamped to the edges, as the
page says (RESAMPLE2 float32/uint8_nearest_neighbor_round_*: rows 0, 1, 1, 1, 2, 2, 2 and 0, 0, 0, 0, 1,
1, 2 for Scale 2.5). LINEAR ignores RoundingDirection: a + (b - a) * t per dimension; UINT8/INT8 are
interpolated in float32 and truncated toward zero (RESAMPLE2 uint8_linear_round_*: all 84 elements; rounding
to nearest differs in 33 to 37). Engine and vectors: dmlops/ops/_resample.py.

Shape rules the descriptor file cannot express:

As RESAMPLE1 with RoundingDirection (nearest-neighbor rounding; no shape effect): DimensionCount (the length
of Scales, InputPixelOffsets and OutputPixelOffsets) "must match the dimension count of InputTensor and
OutputTensor"; every scale is greater than 0. OutputTensor's Sizes are not tied to floor(InputSize * Scale):
the page says the scales "don't need to be exactly OutputSize / InputSize" (the result is cropped or its edges
clamped), so no such rule is checked. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _resample as rs
from ._windows import resample_problems


def check(desc, level) -> list[Problem]:
    """Scales > 0 and DimensionCount = the tensors' DimensionCount."""
    return resample_problems(desc)


def reference(desc, x):
    """The shared resample engine (dmlops/ops/_resample.py), NumPy."""
    return rs.reference(desc, x)


def to_onnx(desc, g, x):
    """Per dimension Gather (nearest) or Gather / Sub / Mul / Add (linear) with host-computed tables."""
    return rs.to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """Per dimension index_select (nearest) or index_select / sub / mul / add (linear)."""
    return rs.to_torch(desc, torch, x)


# ----------------------------------------------------------------------------------------------- samples
EXACT = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="copies, or interpolations exact in float32")


def _desc(data_type, sizes_in, sizes_out, mode, scales, direction="INCREASING", offsets=(0.5, -0.5)):
    return rs.sample_desc("RESAMPLE2", data_type, sizes_in, sizes_out, mode, scales, offsets,
                          rounding_direction=direction)


def _samples():
    f32 = np.float32
    x = np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)
    rng = np.random.default_rng(161)
    out = [
        # Width 4 -> 6 at Scale 1.5, centres: x = (o + 0.5) / 1.5 - 0.5 = -0.17, 0.5, 1.17, 1.83, 2.5, 3.17.
        # INCREASING: ceil = 0, 1, 2, 2, 3, 4 (clamped to 3); DECREASING: floor = -1 (clamped to 0), 0, 1, 1, 2, 3.
        Sample("nearest_increasing", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR", [1, 1, 1, 1.5]),
               {"InputTensor": x}, {"OutputTensor": np.array([1, 2, 3, 3, 4, 4], f32).reshape(1, 1, 1, 6)}, **EXACT),
        Sample("nearest_decreasing", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR", [1, 1, 1, 1.5],
                                           "DECREASING"),
               {"InputTensor": x}, {"OutputTensor": np.array([1, 1, 2, 2, 3, 4], f32).reshape(1, 1, 1, 6)}, **EXACT),
        # Linear ignores RoundingDirection: x2 over [0, 10] reads 0, 2.5, 7.5, 10 either way.
        Sample("linear_decreasing", _desc("FLOAT32", [1, 1, 1, 2], [1, 1, 1, 4], "LINEAR", [1, 1, 1, 2],
                                          "DECREASING"),
               {"InputTensor": np.array([0, 10], f32).reshape(1, 1, 1, 2)},
               {"OutputTensor": np.array([0, 2.5, 7.5, 10], f32).reshape(1, 1, 1, 4)}, **EXACT),
        Sample("linear_2d_random", _desc("FLOAT32", [3, 4], [7, 6], "LINEAR", [2.5, 1.5]),
               {"InputTensor": rng.uniform(-3, 3, (3, 4)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 steps on every backend"),
    ]
    for t in ("INT8", "UINT8"):
        dt = np.dtype(t.lower())
        lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
        # The nearest_increasing mapping (columns 0, 1, 2, 2, 3, 3) over [lo, 0, 1, hi].
        out.append(Sample(f"{t.lower()}_nearest", _desc(t, [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR",
                                                        [1, 1, 1, 1.5]),
                          {"InputTensor": np.array([lo, 0, 1, hi], dt).reshape(1, 1, 1, 4)},
                          {"OutputTensor": np.array([lo, 0, 1, 1, hi, hi], dt).reshape(1, 1, 1, 6)}, **EXACT))
    return out


SAMPLES = _samples()
