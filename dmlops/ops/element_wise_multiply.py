"""DML_OPERATOR_ELEMENT_WISE_MULTIPLY: f(a, b) = a * b (equal Sizes; zero strides broadcast; integers wrap)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """a * b: floats in float64 (rounded once to the output type), integers wrapping in their own type."""
    return {"OutputTensor": ew.binary_reference(x["ATensor"], x["BTensor"], np.multiply)}


def to_onnx(desc, g, x):
    """ONNX Mul."""
    return {"OutputTensor": g.node("Mul", [x["ATensor"], x["BTensor"]])}


def to_torch(desc, torch, x):
    """torch.mul; uint16/uint32/uint64 go through int64, which holds the same wrapped low bits."""
    return {"OutputTensor": ew.torch_wrapping(torch, torch.mul, x["ATensor"], x["BTensor"])}


def _samples():
    from ..descs import ElementWiseMultiply as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    return [
        # 1 * 0.5, 2 * -2, 3 * 0, 4 * 10, 5 * -5, 6 * 0.25: exact in float32 and float16.
        Sample("basic", ew.binary_desc(cls, "FLOAT32", [2, 3]),
               {"ATensor": a, "BTensor": np.array([[0.5, -2, 0], [10, -5, 0.25]], np.float32)},
               {"OutputTensor": np.array([[0.5, -4, 0], [40, -25, 1.5]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # B is a scalar 2 broadcast through strides [0, 0].
        Sample("broadcast_scalar", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_b=[0, 0]),
               {"ATensor": a, "BTensor": np.array([-2], np.float32)},
               {"OutputTensor": np.array([[-2, -4, -6], [-8, -10, -12]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # 0 * inf = NaN; 1e30 * 1e30 overflows float32 to inf; -0 * 5 = -0.
        Sample("specials", make("FLOAT32"),
               {"ATensor": np.array([0, 1e30, -0.0, np.nan], np.float32),
                "BTensor": np.array([np.inf, 1e30, 5, 0], np.float32)},
               {"OutputTensor": np.array([np.nan, np.inf, -0.0, np.nan], np.float32)},
               atol=0, rtol=0, why="IEEE special values: exact", float16=False),  # 3e38 / 1e30 are beyond float16
    ] + ew.integer_samples(make, ew.INTEGERS, {"ATensor": [2, 3, 10, 0], "BTensor": [3, 4, 12, 7]},
                           {"OutputTensor": [6, 12, 120, 0]}, why="exact") + [
        # By hand: 65536 * 65536 = 2**32 wraps to 0; -65536 * 32768 = -2**31 fits; (2**32 - 1) * 2 = 2**33 - 2
        # wraps to 2**32 - 2; 2**63 * 2 wraps to 0 and (2**64 - 1) * (2**64 - 1) = 1 (mod 2**64).
        Sample("wrap_int32", make("INT32"), {"ATensor": ew.int_array([65536, -65536, 3, -1], "INT32"),
                                             "BTensor": ew.int_array([65536, 32768, -3, -2**31], "INT32")},
               {"OutputTensor": ew.int_array([0, -2**31, -9, -2**31], "INT32")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_uint32", make("UINT32"), {"ATensor": ew.int_array([2**32 - 1, 65536, 7, 0], "UINT32"),
                                               "BTensor": ew.int_array([2, 65536, 6, 5], "UINT32")},
               {"OutputTensor": ew.int_array([2**32 - 2, 0, 42, 0], "UINT32")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_uint64", make("UINT64"), {"ATensor": ew.int_array([2**63, 2**64 - 1, 3, 2**32], "UINT64"),
                                               "BTensor": ew.int_array([2, 2**64 - 1, 5, 2**32], "UINT64")},
               {"OutputTensor": ew.int_array([0, 1, 15, 0], "UINT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
