"""DML_OPERATOR_ELEMENT_WISE_MAX: f(a, b) = max(a, b) (equal Sizes; zero strides broadcast).

NaN and signed zeros, from DirectML's vectors (edge_nan_signed_zero): the non-NaN operand wins (max(NaN, 1) = 1;
NaN only when both are NaN), as D3D requires of min/max, where ONNX Max and torch.maximum propagate NaN; between
equal operands FLOAT32 returns B (max(+0, -0) = -0, max(-0, +0) = +0) and FLOAT16 orders the zeros
(+0 either way). See ew.float_max.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """DirectML's max: the non-NaN operand (ew.float_max); integers: np.maximum."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype.kind == "f":
        return {"OutputTensor": ew.float_max(a, b, ew.is_float16(desc))}
    return {"OutputTensor": ew.binary_reference(a, b, np.maximum)}


def to_onnx(desc, g, x):
    """Floats: a select (ONNX Max propagates NaN); integers: ONNX Max (int16/uint16 through int32: ONNX
    Runtime's CPU provider has no kernel for them)."""
    if g.dtype(x["ATensor"]).kind == "f":
        return {"OutputTensor": ew.onnx_float_max(g, x["ATensor"], x["BTensor"], ew.is_float16(desc))}
    a, back = ew.onnx_ordered(g, x["ATensor"])
    b, _ = ew.onnx_ordered(g, x["BTensor"])
    return {"OutputTensor": back(g.node("Max", [a, b]))}


def to_torch(desc, torch, x):
    """Floats: a select (torch.maximum propagates NaN); integers: torch.maximum (uint16/uint32/uint64 through an
    order-preserving int64)."""
    if x["ATensor"].is_floating_point():
        return {"OutputTensor": ew.torch_float_max(torch, x["ATensor"], x["BTensor"], ew.is_float16(desc))}
    a, back = ew.torch_ordered(torch, x["ATensor"])
    b, _ = ew.torch_ordered(torch, x["BTensor"])
    return {"OutputTensor": back(torch.maximum(a, b))}


def _samples():
    from ..descs import ElementWiseMax as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    return [
        Sample("basic", ew.binary_desc(cls, "FLOAT32", [2, 3]),
               {"ATensor": np.array([[1, -2, 3], [-4, 5, -0.5]], np.float32),
                "BTensor": np.array([[0, -1, 3], [4, -5, -0.25]], np.float32)},
               {"OutputTensor": np.array([[1, -1, 3], [4, 5, -0.25]], np.float32)},
               atol=0, rtol=0, why="a select: exact", float16_atol=0, float16_rtol=0),
        # B = [0, 2] per row through strides [1, 0]: a ReLU-like floor per row.
        Sample("broadcast_column", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_b=[1, 0]),
               {"ATensor": np.array([[-1, 0.5, 3], [1, 2.5, -7]], np.float32), "BTensor": np.array([0, 2], np.float32)},
               {"OutputTensor": np.array([[0, 0.5, 3], [2, 2.5, 2]], np.float32)},
               atol=0, rtol=0, why="a select: exact", float16_atol=0, float16_rtol=0),
        Sample("infinities", make("FLOAT32"),
               {"ATensor": np.array([-np.inf, np.inf, 1, -1], np.float32),
                "BTensor": np.array([-3e38, 0, np.inf, -np.inf], np.float32)},
               {"OutputTensor": np.array([-3e38, np.inf, np.inf, -1], np.float32)}, atol=0, rtol=0, why="exact",
               float16=False),  # 3e38 is beyond float16
    ] + ew.integer_samples(make, ew.SIGNED, {"ATensor": [1, 5, -3, 0], "BTensor": [4, 2, -3, -9]},
                           {"OutputTensor": [4, 5, -3, 0]}, why="a select: exact") + \
        ew.integer_samples(make, ew.UNSIGNED, {"ATensor": [1, 5, 3, 0], "BTensor": [4, 2, 3, 9]},
                           {"OutputTensor": [4, 5, 3, 9]}, why="a select: exact") + [
        # Unsigned order above 2**63 (where int64 bits would be negative) and above 2**31.
        Sample("uint64_large", make("UINT64"),
               {"ATensor": ew.int_array([2**64 - 1, 1, 2**63, 0], "UINT64"),
                "BTensor": ew.int_array([2**63, 2**63, 2**63 - 1, 2**64 - 1], "UINT64")},
               {"OutputTensor": ew.int_array([2**64 - 1, 2**63, 2**63, 2**64 - 1], "UINT64")}, atol=0, rtol=0,
               why="exact"),
        Sample("uint32_large", make("UINT32"),
               {"ATensor": ew.int_array([2**32 - 1, 1, 2**31, 0], "UINT32"),
                "BTensor": ew.int_array([2**31, 2**31, 2**31 - 1, 2**32 - 1], "UINT32")},
               {"OutputTensor": ew.int_array([2**32 - 1, 2**31, 2**31, 2**32 - 1], "UINT32")}, atol=0, rtol=0,
               why="exact"),
    ]


SAMPLES = _samples()
