"""DML_OPERATOR_ACTIVATION_SHRINK: x - Bias if x > Threshold, x + Bias if x < -Threshold, else 0.

ONNX Shrink names Threshold ``lambd`` (same defaults: bias 0, lambd 0.5) but tests x < -lambd
first; DML's docs test x > Threshold first. The two differ only for a negative Threshold, where
both tests can hold: DML gives x - Bias there, ONNX x + Bias. So the ONNX and torch lowerings write
DML's select, in float32 as DirectML computes. From DML_FEATURE_LEVEL_5_1 the tensors may be integers:
DirectML computes them in float32 too (DirectML's vectors: int32_large gives 1073741825 - 3 = 1073741824, the
float32 rounding of both), and the result is converted as CAST converts (truncated toward zero, saturated).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """The docs' select in float32; integers converted back as CAST does."""
    v = x["InputTensor"]
    f = v.astype(np.float32)
    b, t = np.float32(desc.bias), np.float32(desc.threshold)
    y = np.where(f > t, f - b, np.where(f < -t, f + b, np.float32(0))).astype(np.float32)
    return {"OutputTensor": ew.convert(y, v.dtype) if ew.is_integer(v.dtype) else y}


def to_onnx(desc, g, x):
    """Where(x > T, x - B, Where(x < -T, x + B, 0)) in float32; integers converted back as CAST does."""
    x_in = x["InputTensor"]
    v = g.cast(x_in, np.float32)
    b, t = g.scalar(np.float32(desc.bias), v), g.scalar(np.float32(desc.threshold), v)
    below = g.node("Less", [v, g.scalar(-np.float32(desc.threshold), v)], dtype=np.bool_)
    low = g.node("Where", [below, g.node("Add", [v, b]), g.scalar(0, v)], dtype=g.dtype(v))
    above = g.node("Greater", [v, t], dtype=np.bool_)
    y = g.node("Where", [above, g.node("Sub", [v, b]), low], dtype=g.dtype(v))
    return {"OutputTensor": ew.onnx_convert(g, y, g.dtype(x_in)) if ew.is_integer(g.dtype(x_in)) else y}


def to_torch(desc, torch, x):
    """torch.where(x > T, x - B, torch.where(x < -T, x + B, 0)) in float32; integers converted back as CAST does."""
    x_in = x["InputTensor"]
    v = x_in.to(torch.float32)
    b, t = float(np.float32(desc.bias)), float(np.float32(desc.threshold))
    y = torch.where(v > t, v - b, torch.where(v < -t, v + b, torch.zeros_like(v)))
    return {"OutputTensor": y if x_in.is_floating_point() else ew.torch_convert(torch, y, x_in.dtype)}


def _samples():
    from ..descs import ActivationShrink

    t = td("FLOAT32", [7])
    return [
        # Bias 0.25, Threshold 1: the tests are strict, so +-1 give 0.
        Sample("bias_threshold", ActivationShrink(input_tensor=t, output_tensor=t, bias=0.25, threshold=1.0),
               {"InputTensor": np.array([-2, -1, -0.5, 0, 1, 1.5, 3], np.float32)},
               {"OutputTensor": np.array([-1.75, 0, 0, 0, 0, 1.25, 2.75], np.float32)},
               why="quarters: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # Threshold -1, Bias 1: x = 0 passes x > -1 first (DML's order) -> 0 - 1 = -1, where ONNX Shrink gives
        # 0 + 1 = 1; x = 2 -> 1; x = -3 fails x > -1, passes x < 1 -> -2.
        Sample("negative_threshold", ActivationShrink(input_tensor=td("FLOAT32", [3]), output_tensor=td("FLOAT32", [3]),
                                                      bias=1.0, threshold=-1.0),
               {"InputTensor": np.array([0, 2, -3], np.float32)},
               {"OutputTensor": np.array([-1, 1, -2], np.float32)},
               why="small integers: exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0),
        # INT8 (DML_FEATURE_LEVEL_5_1), Bias 1, Threshold 2.5.
        Sample("int8", ActivationShrink(input_tensor=td("INT8", [6]), output_tensor=td("INT8", [6]),
                                        bias=1.0, threshold=2.5),
               {"InputTensor": np.array([-100, -3, -2, 2, 3, 127], np.int8)},
               {"OutputTensor": np.array([-99, -2, 0, 0, 2, 126], np.int8)},
               why="integers: exact", atol=0, rtol=0),
        # UINT16 with the default Bias 0 and Threshold 0.5: 0 -> 0, everything else passes.
        Sample("uint16_defaults", ActivationShrink(input_tensor=td("UINT16", [4]), output_tensor=td("UINT16", [4])),
               {"InputTensor": np.array([0, 1, 2, 65535], np.uint16)},
               {"OutputTensor": np.array([0, 1, 2, 65535], np.uint16)},
               why="integers: exact", atol=0, rtol=0),
        # INT32 values above 2**24 are computed in float32, as DirectML does (its vector int32_large): 2**30 + 1
        # reads as 2**30, and 2**30 - 3 rounds back to 2**30 (the float32 step there is 128).
        Sample("int32_large", ActivationShrink(input_tensor=td("INT32", [3]), output_tensor=td("INT32", [3]),
                                               bias=3.0, threshold=0.5),
               {"InputTensor": np.array([2**30 + 1, -(2**30) - 1, 0], np.int32)},
               {"OutputTensor": np.array([2**30, -(2**30), 0], np.int32)},
               why="integers: exact", atol=0, rtol=0),
    ]


SAMPLES = _samples()
