"""DML_OPERATOR_RESAMPLE3: RESAMPLE2 with Antialiased (feature level 6.4: no DirectML vectors; the docs and the
ONNX / torch oracles decide).

Without Antialiased it is RESAMPLE2 (the page's remark), lowered by the same engine. Antialiased stretches the
linear filter by max(1, 1 / Scale) "assuming ... InterpolationMode is LINEAR [and] 1/Scales > 2"; dmlops
applies it per dimension where both hold: a triangle of half-width 1 / Scale around the source coordinate, its
taps clipped to the tensor and normalized to sum 1 (torch's bilinear antialias and ONNX Resize with
exclude_outside=1, which tests/test_oracle_resample.py compares; ONNX's default exclude_outside=0 reads taps
outside the tensor as the edge element instead, and which of the two DirectML does is unverified), summed in
increasing input index. ONNX Resize's antialias also filters
scales in [0.5, 1), which this page excludes: there dmlops gives plain linear interpolation. The summation
order and the normalization's rounding are unverified (no vectors). Engine: dmlops/ops/_resample.py.

Shape rules the descriptor file cannot express:

As RESAMPLE2 with Antialiased (a filter stretch; no shape effect): DimensionCount (the length of Scales,
InputPixelOffsets and OutputPixelOffsets) "must match the dimension count of InputTensor and OutputTensor";
every scale is greater than 0. OutputTensor's Sizes are not tied to floor(InputSize * Scale): the page says
the scales "don't need to be exactly OutputSize / InputSize" (the result is cropped or its edges clamped), so
no such rule is checked. Shared rules: dmlops/ops/_windows.py.
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


def _desc(data_type, sizes_in, sizes_out, mode, scales, direction="INCREASING", offsets=(0.5, -0.5),
          antialiased=False):
    return rs.sample_desc("RESAMPLE3", data_type, sizes_in, sizes_out, mode, scales, offsets,
                          rounding_direction=direction, antialiased=antialiased)


def _samples():
    f32 = np.float32
    ramp8 = np.arange(8, dtype=f32).reshape(1, 1, 1, 8)
    rng = np.random.default_rng(175)
    return [
        # Not antialiased: RESAMPLE2 (nearest INCREASING over Scale 1.5 reads columns 0, 1, 2, 2, 3, 3).
        Sample("nearest_increasing", _desc("FLOAT32", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR", [1, 1, 1, 1.5]),
               {"InputTensor": np.array([1, 2, 3, 4], f32).reshape(1, 1, 1, 4)},
               {"OutputTensor": np.array([1, 2, 3, 3, 4, 4], f32).reshape(1, 1, 1, 6)}, **EXACT),
        # Antialiased, Scale 0.25 (1 / Scale = 4 > 2) over 0..7: x = (o + 0.5) * 4 - 0.5 = 1.5, 5.5; triangle of
        # half-width 4. o = 0 reads columns 0..5 with weights 1 - |i - 1.5| / 4 = 0.625, 0.875, 0.875, 0.625,
        # 0.375, 0.125 (sum 3.5): (0.875 + 1.75 + 1.875 + 1.5 + 0.625) / 3.5 = 6.625 / 3.5; o = 1 reads columns
        # 2..7 with 0.125, 0.375, 0.625, 0.875, 0.875, 0.625: (0.25 + 1.125 + 2.5 + 4.375 + 5.25 + 4.375) / 3.5 =
        # 17.875 / 3.5.
        Sample("antialiased_quarter", _desc("FLOAT32", [1, 1, 1, 8], [1, 1, 1, 2], "LINEAR", [1, 1, 1, 0.25],
                                            antialiased=True),
               {"InputTensor": ramp8},
               {"OutputTensor": np.array([6.625 / 3.5, 17.875 / 3.5], f32).reshape(1, 1, 1, 2)},
               atol=1e-6, rtol=1e-6, why="normalized weights rounded to float32"),
        # Antialiased, Scale 0.5: 1 / Scale = 2 is not > 2, so plain linear: x = 0.5, 2.5, 4.5, 6.5 -> the pair
        # means 0.5, 2.5, 4.5, 6.5.
        Sample("antialiased_half_is_linear", _desc("FLOAT32", [1, 1, 1, 8], [1, 1, 1, 4], "LINEAR",
                                                   [1, 1, 1, 0.5], antialiased=True),
               {"InputTensor": ramp8}, {"OutputTensor": np.array([0.5, 2.5, 4.5, 6.5], f32).reshape(1, 1, 1, 4)},
               **EXACT),
        Sample("antialiased_2d_random", _desc("FLOAT32", [1, 2, 12, 9], [1, 2, 3, 2], "LINEAR", [1, 1, 0.25, 0.3],
                                              antialiased=True),
               {"InputTensor": rng.uniform(-3, 3, (1, 2, 12, 9)).astype(f32)}, None, atol=0, rtol=0,
               why="the same float32 steps on every backend"),
        Sample("uint8_nearest_decreasing", _desc("UINT8", [1, 1, 1, 4], [1, 1, 1, 6], "NEAREST_NEIGHBOR",
                                                 [1, 1, 1, 1.5], "DECREASING"),
               # floor mapping 0, 0, 1, 1, 2, 3 (RESAMPLE2 nearest_decreasing).
               {"InputTensor": np.array([0, 1, 254, 255], np.uint8).reshape(1, 1, 1, 4)},
               {"OutputTensor": np.array([0, 0, 1, 1, 254, 255], np.uint8).reshape(1, 1, 1, 6)}, **EXACT),
    ]


SAMPLES = _samples()
