"""DML_OPERATOR_RESAMPLE1: RESAMPLE with per-dimension InputPixelOffsets and OutputPixelOffsets.

Source coordinate x = (o - OutputPixelOffset) * (1 / Scale) - InputPixelOffset (float32, in this order),
clamped to the edges. NEAREST_NEIGHBOR reads floor(x + 0.5): RESAMPLE1
float32_nearest_neighbor_scales_2.0_1.5_offset_0.0 reads x = 0.5 as 1. The page's equivalence "RESAMPLE2
DECREASING with OutputPixelOffsets - 0.5" does not hold for Scale != 1 (it reads (o + 1) / 1.5 - 0.5 = 0.5
as 0; DirectML reads 1); InputPixelOffsets - 0.5 would. INT8/UINT8 nearest reads floor(x), as RESAMPLE's
(vector RESAMPLE-sample_uint8_nearest; RESAMPLE1 has no integer vector). LINEAR: a + (b - a) * t per dimension,
dimension 0 first; with three dimensions interpolated and offsets (0.3, -0.2) DirectML differs from that by up to
2.4e-7 (sample_linear_3d_random, 23 of 45 elements; no order of dimensions, coordinate or lerp formula tried is
exact), so the vectors bound RESAMPLE1 at 3e-7 (dmlops/vector_tolerances.py). Engine and vectors:
dmlops/ops/_resample.py. Offsets (0, 0) with Scale = (OutputSize - 1) / (InputSize - 1) are
align_corners (tests/test_oracle_resample.py compares torch's F.interpolate).

Shape rules the descriptor file cannot express:

As RESAMPLE with InputPixelOffsets and OutputPixelOffsets (OutputX = (InputX + InputPixelOffset) * Scale +
OutputPixelOffset): DimensionCount (the length of Scales, InputPixelOffsets and OutputPixelOffsets) "must
match the dimension count of InputTensor and OutputTensor"; every scale is greater than 0. OutputTensor's
Sizes are not tied to floor(InputSize * Scale): the page says the scales "don't need to be exactly OutputSize
/ InputSize" (the result is cropped or its edges clamped), so no such rule is checked. Shared rules:
dmlops/ops/_windows.py.
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


def _desc(data_type, sizes_in, sizes_out, mode, scales, offsets=(0.5, -0.5)):
    return rs.sample_desc("RESAMPLE1", data_type, sizes_in, sizes_out, mode, scales, offsets)


def _samples():
    f32 = np.float32
    ramp = np.array([0, 10, 20, 30], f32).reshape(1, 1, 1, 4)
    rng = np.random.default_rng(116)
    return [
        # Offsets (0, 0) (corners), Width 4 -> 6 at Scale 1.5: x = o / 1.5 = 0, 0.67, 1.33, 2, 2.67, 3.33;
        # floor(x + 0.5) = 0, 1, 1, 2, 3, 3.
        Sample("nearest_corners", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR", [1, 1, 1, 1.5],
                                        (0, 0)),
               {"InputTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)},
               {"OutputTensor": np.array([1, 2, 2, 3, 4, 4], f32).reshape(1, 1, 1, 6)}, **EXACT),
        # align_corners: offsets (0, 0), Scale (7 - 1) / (4 - 1) = 2: x = o / 2 over [0, 10, 20, 30]: steps of 5.
        Sample("linear_align_corners", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 7], "LINEAR", [1, 1, 1, 2],
                                             (0, 0)),
               {"InputTensor": ramp},
               {"OutputTensor": np.array([0, 5, 10, 15, 20, 25, 30], f32).reshape(1, 1, 1, 7)}, **EXACT),
        # Pixel centres (0.5, -0.5) are RESAMPLE: x2 gives 0, 2.5, 7.5, ..., 27.5, 30.
        Sample("linear_centres", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 8], "LINEAR", [1, 1, 1, 2]),
               {"InputTensor": ramp},
               {"OutputTensor": np.array([0, 2.5, 7.5, 12.5, 17.5, 22.5, 27.5, 30], f32).reshape(1, 1, 1, 8)},
               **EXACT),
        # Mixed offsets: InputPixelOffset 0.25, OutputPixelOffset 0, Scale 1: x = o - 0.25 = -0.25 (clamped to
        # 0), 0.75, 1.75, 2.75: 0, 7.5, 17.5, 27.5.
        Sample("linear_shifted", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 4], "LINEAR", [1, 1, 1, 1], (0.25, 0)),
               {"InputTensor": ramp}, {"OutputTensor": np.array([0, 7.5, 17.5, 27.5], f32).reshape(1, 1, 1, 4)},
               **EXACT),
        Sample("linear_3d_random", _desc("FLOAT32", [2, 3, 4], [3, 5, 3], "LINEAR", [1.5, 1.7, 0.7], (0.3, -0.2)),
               {"InputTensor": rng.uniform(-3, 3, (2, 3, 4)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 steps on every backend"),
        Sample("uint8_linear", _desc("UINT8", [1, 1, 1, 2], [1, 1, 1, 4], "LINEAR", [1, 1, 1, 2]),
               # x = -0.25 (0), 0.25, 0.75, 1.25 (1) over [0, 255]: 0, 63.75 -> 63, 191.25 -> 191, 255.
               {"InputTensor": np.array([0, 255], np.uint8).reshape(1, 1, 1, 2)},
               {"OutputTensor": np.array([0, 63, 191, 255], np.uint8).reshape(1, 1, 1, 4)}, **EXACT),
    ]


SAMPLES = _samples()
