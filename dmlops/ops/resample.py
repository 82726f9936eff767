"""DML_OPERATOR_RESAMPLE: every dimension scaled by a float factor, nearest neighbor or (multi)linear.

RESAMPLE is RESAMPLE1 with InputPixelOffsets 0.5 and OutputPixelOffsets -0.5 (pixel centres): source coordinate
x = (o + 0.5) * (1 / Scale) - 0.5 in float32, clamped to the edges; NEAREST_NEIGHBOR reads floor(x + 0.5)
(RESAMPLE float32_nearest_neighbor_scales_2.0_1.5: columns 0, 1, 1, 2, 3, 3 of 4), LINEAR computes
a + (b - a) * t per dimension, dimension 0 first (every float32 vector bit for bit). The engine, its float32
order of operations and the vectors behind each choice: dmlops/ops/_resample.py. INT8/UINT8 (feature level
6.2): nearest reads floor(x), not floor(x + 0.5) (DirectML's answer: vector sample_uint8_nearest); linear is
computed in float32 and truncated toward zero (as RESAMPLE2 uint8_linear_*).

Shape rules the descriptor file cannot express:

ScaleCount (the length of Scales) "must match the dimension count of InputTensor and OutputTensor" (DirectML
refuses two scales for 4-D tensors); every scale is greater than 0 (> 1 scales up, < 1 down). OutputTensor's
Sizes are not tied to floor(InputSize * Scale): the page says the scales "don't need to be exactly
OutputSize / InputSize" (the result is cropped or its edges clamped), so no such rule is checked.
Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample
from . import _resample as rs
from ._windows import resample_problems


def check(desc, level) -> list[Problem]:
    """Scales > 0 and ScaleCount = the tensors' DimensionCount."""
    return resample_problems(desc, field="ScaleCount")


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


def _desc(data_type, sizes_in, sizes_out, mode, scales):
    return rs.sample_desc("RESAMPLE", data_type, sizes_in, sizes_out, mode, scales)


def _samples():
    f32 = np.float32
    ramp = np.array([0, 10, 20, 30], f32).reshape(1, 1, 1, 4)
    rng = np.random.default_rng(96)
    out = [
        # Width 4 -> 6 at Scale 1.5: x = (o + 0.5) / 1.5 - 0.5; floor(x + 0.5) = floor((o + 0.5) / 1.5) =
        # 0, 1, 1, 2, 3, 3.
        Sample("nearest_1.5", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR", [1, 1, 1, 1.5]),
               {"InputTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)},
               {"OutputTensor": np.array([1, 2, 2, 3, 4, 4], f32).reshape(1, 1, 1, 6)}, **EXACT),
        # Linear x2 over [0, 10, 20, 30]: x = (o + 0.5) / 2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, ..., 3.25
        # (clamped to 3): 0, 2.5, 7.5, 12.5, 17.5, 22.5, 27.5, 30.
        Sample("linear_2", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 8], "LINEAR", [1, 1, 1, 2]),
               {"InputTensor": ramp},
               {"OutputTensor": np.array([0, 2.5, 7.5, 12.5, 17.5, 22.5, 27.5, 30], f32).reshape(1, 1, 1, 8)},
               **EXACT),
        # Linear x0.5: x = (o + 0.5) * 2 - 0.5 = 0.5, 2.5: the means of the pairs, 5 and 25.
        Sample("linear_half", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 2], "LINEAR", [1, 1, 1, 0.5]),
               {"InputTensor": ramp}, {"OutputTensor": np.array([5, 25], f32).reshape(1, 1, 1, 2)}, **EXACT),
        # Scales need not be OutputSize / InputSize: x2 into 3 outputs is cropped (0, 2.5, 7.5); x1 into 6 outputs
        # clamps its edge (x = o: 0, 10, 20, 30, 30, 30).
        Sample("cropped", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 3], "LINEAR", [1, 1, 1, 2]),
               {"InputTensor": ramp}, {"OutputTensor": np.array([0, 2.5, 7.5], f32).reshape(1, 1, 1, 3)}, **EXACT),
        Sample("clamped", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 6], "LINEAR", [1, 1, 1, 1]),
               {"InputTensor": ramp},
               {"OutputTensor": np.array([0, 10, 20, 30, 30, 30], f32).reshape(1, 1, 1, 6)}, **EXACT),
        # 1-D (feature level 5.1) and every dimension of a 4-D tensor resampled (quadrilinear), checked against
        # the other backends.
        Sample("linear_1d", _desc("FLOAT32", [4], [7], "LINEAR", [1.75]),
               {"InputTensor": rng.uniform(-3, 3, 4).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 steps on every backend"),
        Sample("quadrilinear", _desc("FLOAT32", [2, 3, 3, 4], [3, 2, 5, 3], "LINEAR", [1.5, 0.75, 1.75, 0.8]),
               {"InputTensor": rng.uniform(-3, 3, (2, 3, 3, 4)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 steps on every backend"),
    ]
    # INT8 / UINT8 (feature level 6.2). Linear x2 over [-10, -3] (INT8) reads x = -0.25 (0),
    # 0.25, 0.75, 1.25 (1): -10, -10 + 7 * 0.25 = -8.25 -> -8, -10 + 7 * 0.75 = -4.75 -> -4 (truncated), -3.
    out.append(Sample("int8_linear", _desc("INT8", [1, 1, 1, 2], [1, 1, 1, 4], "LINEAR", [1, 1, 1, 2]),
                      {"InputTensor": np.array([-10, -3], np.int8).reshape(1, 1, 1, 2)},
                      {"OutputTensor": np.array([-10, -8, -4, -3], np.int8).reshape(1, 1, 1, 4)}, **EXACT))
    # Nearest rounds down for integers: x = (o + 0.5) / 1.5 - 0.5 = -0.17, 0.5, 1.17, 1.83, 2.5, 3.17 reads
    # columns 0 (clamped), 0, 1, 1, 2, 3 (the FLOAT32 nearest_1.5 above reads 0, 1, 1, 2, 3, 3).
    out.append(Sample("uint8_nearest", _desc("UINT8", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR",
                                             [1, 1, 1, 1.5]),
                      {"InputTensor": np.array([0, 1, 254, 255], np.uint8).reshape(1, 1, 1, 4)},
                      {"OutputTensor": np.array([0, 0, 1, 1, 254, 255], np.uint8).reshape(1, 1, 1, 6)}, **EXACT))
    return out


SAMPLES = _samples()
