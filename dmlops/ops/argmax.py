"""DML_OPERATOR_ARGMAX: the index of the largest element over Axes (flattened row-major over the reduced axes in
dimension order, so Axes {0, 1} of a {3, 3} tensor gives an index in [0, 9)), kept as size-1 dimensions, written as
INT32/INT64/UINT32/UINT64. AxisDirection picks among equal maxima: INCREASING the first, DECREASING the last.

NaN, from DirectML's vectors (dmlops/ops/_selection.py states the rule for every arg operator): DirectML scans from
element 0 and takes a later element only when it is larger (INCREASING) or not smaller (DECREASING), and every
comparison with NaN is false, so a NaN at element 0 wins (float32/float16_axes3_*: rows {NaN, inf, -inf, a, b} give
0) and a NaN anywhere else is passed over (sample_nan_increasing / sample_nan_decreasing: [5, NaN, 7, NaN] gives 2
in both directions, where NumPy and torch give the first NaN; ONNX Runtime's CPU ArgMax happens to agree without
select_last_index, which the lowering does not rely on). -0 and +0 are equal (REDUCE's edge_argmax_ties_nan_inf);
float32_axes_1_2_decreasing_ties checks the flattened index over Axes {1, 2}. ONNX ArgMax (select_last_index) and
torch.argmax take one axis, so the lowerings move the Axes last and flatten them.

Shape rules the descriptor file cannot express:

From the docs page: Axes values "must be in the range [0, InputTensor.DimensionCount - 1]"; OutputTensor's
Sizes "must match InputTensor.Sizes, except for dimensions included in the reduced Axes, which must be size 1"
(the DimensionCount rule is the generic validator's; the integral output types are the support tiers').
Unlike REDUCE's check, a repeated axis is allowed: DirectML runs Axes {1, 1} (the factory descriptor with
Axes {1, 1} on {1, 1, 1, 1} tensors is not among the refused vectors, while its variants with a wrong
OutputTensor or a 1-dimensional input are). The page requires no minimum AxisCount either, so none is checked.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _layout as L
from . import _selection as sel


def check(desc, level) -> list[Problem]:
    """Axes in range; OutputTensor is InputTensor with the reduced Axes set to 1."""
    return L.arg_problems(desc)


def reference(desc, x):
    """DirectML's scan over the flattened Axes (dmlops.ops._selection.extreme_index)."""
    return sel.arg_reference(desc, x, is_max=True)


def to_onnx(desc, g, x):
    """Transpose + Reshape, then ReduceMax of the non-NaN values, ArgMax of the hits and element 0 where NaN."""
    return sel.arg_onnx(desc, g, x, is_max=True)


def to_torch(desc, torch, x):
    """The same steps in torch over the flattened Axes (torch.flip for DECREASING)."""
    return sel.arg_torch(desc, torch, x, is_max=True)


def _desc(sizes, axes, direction="INCREASING", data_type="FLOAT32", out_type="UINT32", strides=None):
    from ..descs import Argmax

    out = [1 if i in axes else s for i, s in enumerate(sizes)]
    return Argmax(input_tensor=td(data_type, sizes, strides), output_tensor=td(out_type, out), axes=tuple(axes),
                  axis_direction=direction)


def _samples():
    exact = dict(atol=0, rtol=0, why="indices are exact")
    docs = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)
    ties = np.array([[3, 2, 1, 2, 3], [1, 1, 1, 0, 0]], np.float32)
    rng = np.random.default_rng(38)
    x4 = rng.uniform(-2, 2, (2, 3, 4, 5)).astype(np.float32)
    out = [
        # The docs' examples (input with 5 in the middle): columns -> rows [1, 2, 1]; rows -> [2, 2, 1]; the whole
        # tensor -> 7 (the 5 at row 2, column 1: 2 * 3 + 1).
        Sample("docs_columns", _desc([3, 3], [0]), {"InputTensor": docs},
               {"OutputTensor": np.array([[1, 2, 1]], np.uint32)}, **exact),
        Sample("docs_rows", _desc([3, 3], [1], out_type="INT32"), {"InputTensor": docs},
               {"OutputTensor": np.array([[2], [2], [1]], np.int32)}, **exact),
        Sample("docs_all", _desc([3, 3], [0, 1], out_type="INT64"), {"InputTensor": docs},
               {"OutputTensor": np.array([[7]], np.int64)}, **exact),
        # The docs' tie example argmax({3, 2, 1, 2, 3}): INCREASING 0, DECREASING 4; [1, 1, 1, 0, 0]: 0 and 2.
        Sample("ties_increasing", _desc([2, 5], [1]), {"InputTensor": ties},
               {"OutputTensor": np.array([[0], [0]], np.uint32)}, **exact),
        Sample("ties_decreasing", _desc([2, 5], [1], "DECREASING", out_type="UINT64"), {"InputTensor": ties},
               {"OutputTensor": np.array([[4], [2]], np.uint64)}, **exact),
        # A NaN after element 0 is passed over in both directions (DirectML's sample_nan_increasing and
        # sample_nan_decreasing): the 7 at index 2.
        Sample("nan_increasing", _desc([1, 4], [1]), {"InputTensor": np.array([[5, np.nan, 7, np.nan]], np.float32)},
               {"OutputTensor": np.array([[2]], np.uint32)}, **exact),
        Sample("nan_decreasing", _desc([1, 4], [1], "DECREASING"),
               {"InputTensor": np.array([[5, np.nan, 7, np.nan]], np.float32)},
               {"OutputTensor": np.array([[2]], np.uint32)}, **exact),
        # A NaN at element 0 of the flattened Axes {0, 1} is never replaced, DECREASING included: 0.
        Sample("nan_first_decreasing_both_axes", _desc([2, 2], [0, 1], "DECREASING"),
               {"InputTensor": np.array([[np.nan, np.inf], [np.inf, 1]], np.float32)},
               {"OutputTensor": np.array([[0]], np.uint32)}, **exact),
        Sample("axes_3_1_decreasing", _desc([2, 3, 4, 5], [3, 1], "DECREASING"), {"InputTensor": x4}, **exact),
        Sample("axes_repeated", _desc([3, 4, 5], [1, 1], out_type="INT32"),
               {"InputTensor": x4[0]}, **exact),
        # Zero strides: one row broadcast over 3 rows; every column is a tie, DECREASING picks row 2.
        Sample("broadcast_decreasing", _desc([3, 4], [0], "DECREASING", strides=[0, 1]),
               {"InputTensor": np.array([1, 2, 3, 4], np.float32)},
               {"OutputTensor": np.array([[2, 2, 2, 2]], np.uint32)}, **exact),
    ]
    # Integers, by hand: [[7, -3, 7], [-8, 9, 9]] over the rows -> first max [0, 1], last max [2, 2].
    for t in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"):
        lo = 0 if t.startswith("U") else -8
        values = np.array([[7, lo, 7], [lo, 9, 9]], dtype=t.lower())
        out.append(Sample(f"int_{t.lower()}", _desc([2, 3], [1], data_type=t, out_type="INT64"),
                          {"InputTensor": values}, {"OutputTensor": np.array([[0], [1]], np.int64)}, **exact))
        out.append(Sample(f"int_{t.lower()}_decreasing", _desc([2, 3], [1], "DECREASING", t, "UINT32"),
                          {"InputTensor": values}, {"OutputTensor": np.array([[2], [2]], np.uint32)}, **exact))
    # UINT64 above 2**63 keeps its order: 2**64 - 1 is the largest.
    out.append(Sample("uint64_above_2_63", _desc([1, 3], [1], data_type="UINT64"),
                      {"InputTensor": np.array([[2 ** 63 + 5, 2 ** 64 - 1, 9]], np.uint64)},
                      {"OutputTensor": np.array([[1]], np.uint32)}, **exact))
    return out


SAMPLES = _samples()
