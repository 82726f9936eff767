"""DML_OPERATOR_CUMULATIVE_SUMMATION: the running sum of InputTensor along Axis.

OutputTensor[..., i, ...] is the sum of the elements before i (HasExclusiveSum) or up to and including i, counted
from the start of the axis (DML_AXIS_DIRECTION_INCREASING) or from its end (DECREASING). The sum is a running tally
in the value type, one add per element in traversal order: DirectML's vectors (float32_axis2_increasing_inclusive,
float32_axis3_decreasing_exclusive, and their FLOAT16 and INT32 twins) are reproduced bit for bit that way, and
not by a parallel scan or a float64 sum (dmlops/ops/_scan.py has the measurements and the lowerings). Integers
wrap. The tally starts at +0.0, so an inclusive sum over -0.0 is +0.0 (the docs' tally; no vector covers it).

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
    return {"OutputTensor": _scan.scan_reference(x["InputTensor"], axis, reverse, exclusive, "add")}


def to_onnx(desc, g, x):
    """ONNX CumSum (integers in int64, wrapped back)."""
    axis, reverse, exclusive = _scan.scan_attributes(desc)
    return {"OutputTensor": _scan.onnx_cumsum(g, x["InputTensor"], axis, reverse, exclusive)}


def to_torch(desc, torch, x):
    """A loop of torch adds over the axis (torch.cumsum accumulates float32 in float64 on the CPU)."""
    axis, reverse, exclusive = _scan.scan_attributes(desc)
    return {"OutputTensor": _scan.torch_scan(torch, x["InputTensor"], axis, reverse, exclusive, "add")}


# The docs' input, {1, 1, 3, 4}.
DOCS_INPUT = [[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]]


def _desc(data_type, sizes, axis, decreasing=False, exclusive=False):
    from ..descs import CumulativeSummation

    return CumulativeSummation(input_tensor=td(data_type, sizes), output_tensor=td(data_type, sizes), axis=axis,
                               axis_direction="DML_AXIS_DIRECTION_DECREASING" if decreasing else
                               "DML_AXIS_DIRECTION_INCREASING", has_exclusive_sum=exclusive)


def _samples():
    f32 = np.float32
    docs = np.array(DOCS_INPUT, dtype=f32)
    out = [
        # The docs' four examples (hand-checked: [2, 2+1, 2+1+3, 2+1+3+5] = [2, 3, 6, 11], ...).
        Sample("docs_example_1_axis3", _desc("FLOAT32", [1, 1, 3, 4], 3), {"InputTensor": docs},
               {"OutputTensor": np.array([[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]], f32)},
               atol=0, rtol=0, why="exact: small integers in float32"),
        Sample("docs_example_2_exclusive", _desc("FLOAT32", [1, 1, 3, 4], 3, exclusive=True), {"InputTensor": docs},
               {"OutputTensor": np.array([[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]], f32)},
               atol=0, rtol=0, why="exact: small integers in float32"),
        Sample("docs_example_3_decreasing", _desc("FLOAT32", [1, 1, 3, 4], 3, decreasing=True),
               {"InputTensor": docs},
               {"OutputTensor": np.array([[[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]], f32)},
               atol=0, rtol=0, why="exact: small integers in float32"),
        Sample("docs_example_4_axis2", _desc("FLOAT32", [1, 1, 3, 4], 2), {"InputTensor": docs},
               {"OutputTensor": np.array([[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]], f32)},
               atol=0, rtol=0, why="exact: small integers in float32"),
        # Decreasing and exclusive at once: [3+5, 5, 0] ... written before each add, from the end.
        Sample("decreasing_exclusive_axis3", _desc("FLOAT32", [1, 1, 3, 4], 3, decreasing=True, exclusive=True),
               {"InputTensor": docs},
               {"OutputTensor": np.array([[[[9, 8, 5, 0], [18, 10, 3, 0], [12, 6, 4, 0]]]], f32)},
               atol=0, rtol=0, why="exact: small integers in float32"),
        # Float32 order matters: 1e8 + 1 + 1 + 1 stays 1e8 one add at a time (ulp(1e8) = 8), and -1e8 then
        # cancels to 0; a pairwise sum would give 1e8 + 2 = 100000000 and so on; 0 + -0 = +0 first (the tally).
        Sample("float32_order", _desc("FLOAT32", [6], 0),
               {"InputTensor": np.array([-0.0, 1e8, 1, 1, 1, -1e8], f32)},
               {"OutputTensor": np.array([0.0, 1e8, 1e8, 1e8, 1e8, 0.0], f32)},
               atol=0, rtol=0, why="exact: the sequential float32 order is the operator's", float16=False),
        # NaN and infinities propagate from where they enter.
        Sample("nan_inf", _desc("FLOAT32", [2, 3], 1),
               {"InputTensor": np.array([[1, np.inf, -np.inf], [np.nan, 1, 2]], f32)},
               {"OutputTensor": np.array([[1, np.inf, np.nan], [np.nan, np.nan, np.nan]], f32)},
               atol=0, rtol=0, why="exact: IEEE rules"),
        # Rank 5, the middle axis.
        Sample("rank5_axis2", _desc("FLOAT32", [2, 1, 5, 2, 3], 2),
               {"InputTensor": np.random.default_rng(7).standard_normal((2, 1, 5, 2, 3)).astype(f32)},
               atol=0, rtol=0, why="exact: every backend adds in the same order", float16_atol=0, float16_rtol=0),
    ]
    # Integers wrap: INT32 2147483647 + 1 = -2147483648; UINT32 4294967295 + 2 = 1.
    wrap = {
        "INT32": ([2147483647, 1, 5, -3], [2147483647, -2147483648, -2147483643, -2147483646]),
        "UINT32": ([4294967295, 2, 7, 0], [4294967295, 1, 8, 8]),
        "INT64": ([2**63 - 1, 1, -1, 9], [2**63 - 1, -2**63, 2**63 - 1, -2**63 + 8]),
        "UINT64": ([2**64 - 1, 1, 5, 2**63], [2**64 - 1, 0, 5, 2**63 + 5]),
    }
    for t, (values, want) in wrap.items():
        dtype = np.dtype(t.lower())
        out.append(Sample(f"int_{t.lower()}_wraps", _desc(t, [4], 0, exclusive=False),
                          {"InputTensor": np.array(values, dtype)}, {"OutputTensor": np.array(want, dtype)},
                          atol=0, rtol=0, why="exact: integer sums wrap"))
    # Exclusive and decreasing in INT32 over the docs' input: [1+3+5, 3+5, 5, 0] for the first row.
    out.append(Sample("int_int32_docs_decreasing_exclusive",
                      _desc("INT32", [1, 1, 3, 4], 3, decreasing=True, exclusive=True),
                      {"InputTensor": np.array(DOCS_INPUT, np.int32)},
                      {"OutputTensor": np.array([[[[9, 8, 5, 0], [18, 10, 3, 0], [12, 6, 4, 0]]]], np.int32)},
                      atol=0, rtol=0, why="exact: integers"))
    return out


SAMPLES = _samples()
