"""DML_OPERATOR_ELEMENT_WISE_ADD: f(a, b) = a + b.

ATensor, BTensor and OutputTensor have the same Sizes: DirectML does not broadcast, a zero stride repeats
values instead (the framework reads strided inputs). Integers wrap on overflow.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """a + b: floats in float64 (rounded once to the output type), integers wrapping in their own type."""
    return {"OutputTensor": ew.binary_reference(x["ATensor"], x["BTensor"], np.add)}


def to_onnx(desc, g, x):
    """ONNX Add (ONNX Runtime's CPU provider has Add kernels for every integer type)."""
    return {"OutputTensor": g.node("Add", [x["ATensor"], x["BTensor"]])}


def to_torch(desc, torch, x):
    """torch.add; uint16/uint32/uint64 go through int64, which holds the same wrapped bits."""
    return {"OutputTensor": ew.torch_wrapping(torch, torch.add, x["ATensor"], x["BTensor"])}


def float_samples(cls) -> list[Sample]:
    """The FLOAT32 samples of ADD, shared with ADD1 (same arithmetic)."""
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    return [
        # Every sum is exact in float32 and float16: 1 + 0.5, 2 - 2, 3 + 0, 4 + 10, 5 - 5, 6 + 0.25.
        Sample("basic", ew.binary_desc(cls, "FLOAT32", [2, 3]),
               {"ATensor": a, "BTensor": np.array([[0.5, -2, 0], [10, -5, 0.25]], np.float32)},
               {"OutputTensor": np.array([[1.5, 0, 3], [14, 0, 6.25]], np.float32)},
               atol=0, rtol=0, why="exact sums", float16_atol=0, float16_rtol=0),
        # B is one row [10, 20, 30] read through strides [0, 1]: every output row adds it.
        Sample("broadcast_row", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_b=[0, 1]),
               {"ATensor": a, "BTensor": np.array([10, 20, 30], np.float32)},
               {"OutputTensor": np.array([[11, 22, 33], [14, 25, 36]], np.float32)},
               atol=0, rtol=0, why="exact sums", float16_atol=0, float16_rtol=0),
        # B is one column [100, 200] read through strides [1, 0]; A is transposed storage (strides [1, 2]).
        Sample("broadcast_column_transposed_a", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_a=[1, 2],
                                                               strides_b=[1, 0]),
               {"ATensor": np.array([1, 4, 2, 5, 3, 6], np.float32), "BTensor": np.array([100, 200], np.float32)},
               {"OutputTensor": np.array([[101, 102, 103], [204, 205, 206]], np.float32)},
               atol=0, rtol=0, why="exact sums", float16_atol=0, float16_rtol=0),
        # IEEE specials: inf + (-inf) = NaN, 3e38 + 3e38 overflows float32 to inf, NaN propagates.
        Sample("specials", ew.binary_desc(cls, "FLOAT32", [4]),
               {"ATensor": np.array([np.inf, 3e38, np.nan, -0.0], np.float32),
                "BTensor": np.array([-np.inf, 3e38, 1, -0.0], np.float32)},
               {"OutputTensor": np.array([np.nan, np.inf, np.nan, -0.0], np.float32)},
               atol=0, rtol=0, why="IEEE special values: exact", float16=False),  # 3e38 / 1e30 are beyond float16
        Sample("rank5", ew.binary_desc(cls, "FLOAT32", [1, 2, 1, 2, 3]),
               {"ATensor": np.arange(12, dtype=np.float32).reshape(1, 2, 1, 2, 3) / 4,
                "BTensor": -np.arange(12, dtype=np.float32).reshape(1, 2, 1, 2, 3) / 8}),
    ]


def _samples():
    from ..descs import ElementWiseAdd

    def make(t):
        return ew.binary_desc(ElementWiseAdd, t, [4])

    return float_samples(ElementWiseAdd) + ew.integer_samples(
        make, ew.INTEGERS, {"ATensor": [1, 2, 100, 0], "BTensor": [3, 4, 27, 0]}, {"OutputTensor": [4, 6, 127, 0]},
        why="integer sums: exact") + [
        # Wrap-around by hand: INT32_MAX + 1 = INT32_MIN; UINT32_MAX + 1 = 0; 5 + UINT32_MAX = 4 (mod 2**32).
        Sample("wrap_int32", make("INT32"), {"ATensor": ew.int_array([2**31 - 1, -2**31, 7, 0], "INT32"),
                                             "BTensor": ew.int_array([1, -1, -7, 0], "INT32")},
               {"OutputTensor": ew.int_array([-2**31, 2**31 - 1, 0, 0], "INT32")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_uint32", make("UINT32"), {"ATensor": ew.int_array([2**32 - 1, 5, 0, 1], "UINT32"),
                                               "BTensor": ew.int_array([1, 2**32 - 1, 0, 2], "UINT32")},
               {"OutputTensor": ew.int_array([0, 4, 0, 3], "UINT32")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_uint64", make("UINT64"), {"ATensor": ew.int_array([2**64 - 1, 2**63, 2**63, 1], "UINT64"),
                                               "BTensor": ew.int_array([2, 2**63, 1, 2], "UINT64")},
               {"OutputTensor": ew.int_array([1, 0, 2**63 + 1, 3], "UINT64")}, atol=0, rtol=0, why="exact"),
        Sample("wrap_int8", make("INT8"), {"ATensor": ew.int_array([127, -128, 100, -100], "INT8"),
                                           "BTensor": ew.int_array([1, -1, 100, -100], "INT8")},
               {"OutputTensor": ew.int_array([-128, 127, -56, 56], "INT8")}, atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
