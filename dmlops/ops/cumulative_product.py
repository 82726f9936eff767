"""DML_OPERATOR_CUMULATIVE_PRODUCT: the running product of InputTensor along Axis.

OutputTensor[..., i, ...] is the product of the elements before i (HasExclusiveProduct: 1 for the first) or up to
and including i, counted from the start of the axis (DML_AXIS_DIRECTION_INCREASING) or from its end (DECREASING).
The product is a running tally in the value type, one multiply per element in traversal order: DirectML's vectors
(float32_axis2_increasing_inclusive, float32_axis3_decreasing_exclusive, and their FLOAT16 and INT32 twins) are
reproduced bit for bit that way (a doubling scan misses 21 of 120 values; dmlops/ops/_scan.py). Integers wrap.
Zeros and negative values need no special case: nothing goes through exp(sum(log x)).

ONNX has no CumProd at opset 18 and ONNX Runtime's DirectML provider registers no Scan or Loop, so the ONNX form
unrolls the tally (Split, one Mul per element, Concat): exact, with a graph that grows with the axis length.

Shape rules the descriptor file cannot express, from the docs page: Axis "must be less than the DimensionCount of
the InputTensor". That OutputTensor has InputTensor's DataType, DimensionCount and Sizes is the generic
validator's rule. DirectML agrees (vectors: Axis 1 of a 1-dimensional tensor is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _layout as L
from . import _scan


def check(desc, level) -> list[Problem]:
    """Axis < InputTensor's DimensionCount."""
    return L.axis_problems(desc, desc.axis, L.rank(desc, "InputTensor"))


def reference(desc, x):
    """A NumPy loop over the axis (:func:`dmlops.ops._scan.scan_reference`)."""
    axis, reverse, exclusive = _scan.scan_attributes(desc)
    return {"OutputTensor": _scan.scan_reference(x["InputTensor"], axis, reverse, exclusive, "mul")}


def to_onnx(desc, g, x):
    """Split along the axis, a chain of Mul, Concat (integers in int64, wrapped back)."""
    axis, reverse, exclusive = _scan.scan_attributes(desc)
    return {"OutputTensor": _scan.onnx_cumprod(g, x["InputTensor"], desc.input_tensor.sizes, axis, reverse,
                                               exclusive)}


def to_torch(desc, torch, x):
    """A loop of torch multiplies over the axis (torch-directml registers no cumprod)."""
    axis, reverse, exclusive = _scan.scan_attributes(desc)
    return {"OutputTensor": _scan.torch_scan(torch, x["InputTensor"], axis, reverse, exclusive, "mul")}


# The docs' input, {1, 1, 3, 4}.
DOCS_INPUT = [[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]]


def _desc(data_type, sizes, axis, decreasing=False, exclusive=False):
    from ..descs import CumulativeProduct

    return CumulativeProduct(input_tensor=td(data_type, sizes), output_tensor=td(data_type, sizes), axis=axis,
                             axis_direction="DML_AXIS_DIRECTION_DECREASING" if decreasing else
                             "DML_AXIS_DIRECTION_INCREASING", has_exclusive_product=exclusive)


def _samples():
    f32 = np.float32
    docs = np.array(DOCS_INPUT, dtype=f32)
    exact = dict(atol=0, rtol=0, why="exact: small integers in float32")
    out = [
        # The docs' four examples (hand-checked: [2, 2*1, 2*1*3, 2*1*3*5] = [2, 2, 6, 30], ...).
        Sample("docs_example_1_axis3", _desc("FLOAT32", [1, 1, 3, 4], 3), {"InputTensor": docs},
               {"OutputTensor": np.array([[[[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]]], f32)}, **exact),
        Sample("docs_example_2_exclusive", _desc("FLOAT32", [1, 1, 3, 4], 3, exclusive=True), {"InputTensor": docs},
               {"OutputTensor": np.array([[[[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]]], f32)}, **exact),
        Sample("docs_example_3_decreasing", _desc("FLOAT32", [1, 1, 3, 4], 3, decreasing=True),
               {"InputTensor": docs},
               {"OutputTensor": np.array([[[[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]]], f32)}, **exact),
        Sample("docs_example_4_axis2", _desc("FLOAT32", [1, 1, 3, 4], 2), {"InputTensor": docs},
               {"OutputTensor": np.array([[[[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]]], f32)}, **exact),
        # Decreasing and exclusive at once: [1*3*5, 3*5, 5, 1] for the first row.
        Sample("decreasing_exclusive_axis3", _desc("FLOAT32", [1, 1, 3, 4], 3, decreasing=True, exclusive=True),
               {"InputTensor": docs},
               {"OutputTensor": np.array([[[[15, 15, 5, 1], [168, 21, 3, 1], [48, 8, 4, 1]]]], f32)}, **exact),
        # Zeros, negatives, -0.0, infinities: -2 * 0 = -0, -0 * -3 = +0, 0 * inf = NaN; no logarithms involved.
        Sample("zeros_negatives_inf", _desc("FLOAT32", [2, 4], 1),
               {"InputTensor": np.array([[-2, 0, -3, np.inf], [-0.0, 5, -1, -np.inf]], f32)},
               {"OutputTensor": np.array([[-2, -0.0, 0.0, np.nan], [-0.0, -0.0, 0.0, np.nan]], f32)},
               atol=0, rtol=0, why="exact: IEEE rules"),
        # Float32 rounding at every step: 3 * (1 + 2**-23) * (1 - 2**-23), one multiply at a time.
        Sample("float32_order", _desc("FLOAT32", [3], 0),
               {"InputTensor": np.array([3, 1 + 2**-23, 1 - 2**-23], f32)},
               # 3 * (1 + 2**-23) = 3 + 1.5 float32 steps (2**-22 at 3): a tie, to even -> 3 + 2**-21; times
               # (1 - 2**-23) = 3 + 2**-23 - 2**-44, just under half a step -> 3.
               {"OutputTensor": np.array([3, 3 + 2**-21, 3], f32)},
               atol=0, rtol=0, why="exact: one float32 rounding per multiply", float16=False),
        Sample("rank5_axis4_decreasing", _desc("FLOAT32", [2, 1, 2, 3, 5], 4, decreasing=True),
               {"InputTensor": np.random.default_rng(8).uniform(-2, 2, (2, 1, 2, 3, 5)).astype(f32)},
               atol=0, rtol=0, why="exact: every backend multiplies in the same order", float16_atol=0,
               float16_rtol=0),
    ]
    # Integers wrap: INT32 65536 * 32768 = 2**31 -> -2**31; UINT32 65536 * 65535 * 2 = 2**33 - 2**17 -> 2**32 - 2**17.
    wrap = {
        "INT32": ([65536, 32768, -1, 3], [65536, -2147483648, -2147483648, -2147483648]),
        "UINT32": ([65536, 65535, 2, 3], [65536, 4294901760, 4294836224, 4294574080]),
        "INT64": ([2**32, 2**31, 2, -5], [2**32, 2**63 - 2**64, 0, 0]),
        "UINT64": ([2**63 + 1, 2, 3, 7], [2**63 + 1, 2, 6, 42]),
    }
    for t, (values, want) in wrap.items():
        dtype = np.dtype(t.lower())
        out.append(Sample(f"int_{t.lower()}_wraps", _desc(t, [4], 0), {"InputTensor": np.array(values, dtype)},
                          {"OutputTensor": np.array(want, dtype)}, atol=0, rtol=0, why="exact: integer products wrap"))
    out.append(Sample("int_int32_docs_decreasing_exclusive",
                      _desc("INT32", [1, 1, 3, 4], 3, decreasing=True, exclusive=True),
                      {"InputTensor": np.array(DOCS_INPUT, np.int32)},
                      {"OutputTensor": np.array([[[[15, 15, 5, 1], [168, 21, 3, 1], [48, 8, 4, 1]]]], np.int32)},
                      atol=0, rtol=0, why="exact: integers"))
    return out


SAMPLES = _samples()
