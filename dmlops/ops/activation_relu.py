"""DML_OPERATOR_ACTIVATION_RELU: f(x) = max(x, 0).

NaN gives 0 (DirectML's vectors: basic, edge_specials): DirectML's max returns the non-NaN operand, as D3D requires,
where ONNX Relu and torch.relu keep NaN; -0.0 gives +0.0. The lowerings write the select (ew.float_max).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew


def reference(desc, x):
    """max(x, 0) with DirectML's NaN rule (NaN gives 0)."""
    v = x["InputTensor"]
    if v.dtype.kind != "f":
        return {"OutputTensor": np.maximum(v, np.zeros_like(v))}
    return {"OutputTensor": ew.float_max(v, np.zeros_like(v))}


def to_onnx(desc, g, x):
    """Where(x > 0, x, 0): ONNX Relu keeps NaN."""
    v = x["InputTensor"]
    if g.dtype(v).kind != "f":  # INT16 through int32: ONNX Runtime's CPU provider has no kernel for it
        w, back = ew.onnx_ordered(g, v)
        return {"OutputTensor": back(g.node("Relu", [w]))}
    return {"OutputTensor": ew.onnx_float_max(g, v, ew.onnx_const(g, 0, g.dtype(v)))}


def to_torch(desc, torch, x):
    """torch.where(x > 0, x, 0): torch.relu keeps NaN."""
    v = x["InputTensor"]
    if not v.is_floating_point():
        return {"OutputTensor": torch.relu(v)}
    return {"OutputTensor": ew.torch_float_max(torch, v, torch.zeros((), dtype=v.dtype, device=v.device))}


def _samples():
    from ..descs import ActivationRelu

    t = td("FLOAT32", [2, 3])
    # NaN gives 0 (DirectML's max returns the non-NaN operand: vector basic).
    return [Sample("basic", ActivationRelu(input_tensor=t, output_tensor=t),
                   {"InputTensor": np.array([[-1.5, 0, 2], [3.25, -0.0, np.nan]], np.float32)},
                   {"OutputTensor": np.array([[0, 0, 2], [3.25, 0, 0]], np.float32)},
                   why="exact", atol=0, rtol=0, float16_atol=0, float16_rtol=0)]


SAMPLES = _samples()
