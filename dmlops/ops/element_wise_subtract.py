"""DML_OPERATOR_ELEMENT_WISE_SUBTRACT: f(a, b) = a - b (equal Sizes; zero strides broadcast; integers wrap)."""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """a - b: floats in float64 (rounded once to the output type), integers wrapping in their own type."""
    return {"OutputTensor": ew.binary_reference(x["ATensor"], x["BTensor"], np.subtract)}


def to_onnx(desc, g, x):
    """ONNX Sub."""
    return {"OutputTensor": g.node("Sub", [x["ATensor"], x["BTensor"]])}


def to_torch(desc, torch, x):
    """torch.sub; uint16/uint32/uint64 go through int64, which holds the same wrapped bits."""
    return {"OutputTensor": ew.torch_wrapping(torch, torch.sub, x["ATensor"], x["BTensor"])}


def _samples():
    from ..descs import ElementWiseSubtract as cls

    def make(t):
        return ew.binary_desc(cls, t, [4])

    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    return [
        # 1 - 0.5, 2 + 2, 3 - 0, 4 - 10, 5 + 5, 6 - 0.25: exact in float32 and float16.
        Sample("basic", ew.binary_desc(cls, "FLOAT32", [2, 3]),
               {"ATensor": a, "BTensor": np.array([[0.5, -2, 0], [10, -5, 0.25]], np.float32)},
               {"OutputTensor": np.array([[0.5, 4, 3], [-6, 10, 5.75]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # A is one row [10, 20, 30] through strides [0, 1]: the row minus each row of B.
        Sample("broadcast_a", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_a=[0, 1]),
               {"ATensor": np.array([10, 20, 30], np.float32), "BTensor": a},
               {"OutputTensor": np.array([[9, 18, 27], [6, 15, 24]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        Sample("specials", make("FLOAT32"),
               {"ATensor": np.array([np.inf, -3e38, np.nan, 0.0], np.float32),
                "BTensor": np.array([np.inf, 3e38, 1, 0.0], np.float32)},
               {"OutputTensor": np.array([np.nan, -np.inf, np.nan, 0.0], np.float32)},
               atol=0, rtol=0, why="IEEE special values: exact", float16=False),  # 3e38 / 1e30 are beyond float16
    ] + ew.integer_samples(make, ew.INTEGERS, {"ATensor": [5, 9, 127, 3], "BTensor": [3, 4, 27, 3]},
                           {"OutputTensor": [2, 5, 100, 0]}, why="exact") + [
        # By hand: 0 - 1 wraps to 2**32 - 1, 5 - 7 to 2**32 - 2; INT32_MIN - 1 wraps to INT32_MAX.
        Sample("wrap_uint32", make("UINT32"), {"ATensor": ew.int_array([0, 5, 7, 2**32 - 1], "UINT32"),
                                               "BTensor": ew.int_array([1, 7, 5, 2**32 - 1], "UINT32")},
               {"OutputTensor": ew.int_array([2**32 - 1, 2**32 - 2, 2, 0], "UINT32")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_int32", make("INT32"), {"ATensor": ew.int_array([-2**31, 2**31 - 1, -5, 0], "INT32"),
                                             "BTensor": ew.int_array([1, -1, 5, 0], "INT32")},
               {"OutputTensor": ew.int_array([2**31 - 1, -2**31, -10, 0], "INT32")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_uint64", make("UINT64"), {"ATensor": ew.int_array([0, 2**63, 1, 2**64 - 1], "UINT64"),
                                               "BTensor": ew.int_array([1, 1, 2**64 - 1, 2**64 - 1], "UINT64")},
               {"OutputTensor": ew.int_array([2**64 - 1, 2**63 - 1, 2, 0], "UINT64")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
