"""DML_OPERATOR_ARGMIN: the index of the smallest element over Axes (flattened row-major over the reduced axes in
dimension order: the docs' example 3, argmin over Axes {0, 1} of a {3, 3} tensor, is 4 = row 1, column 1), kept as
size-1 dimensions, written as INT32/INT64/UINT32/UINT64. AxisDirection picks among equal minima: INCREASING the
first, DECREASING the last (the docs: argmin({1, 2, 3, 2, 1}) is 0, or 4).

NaN, from DirectML's vectors (dmlops/ops/_selection.py states the rule for every arg operator): DirectML scans from
element 0 and takes a later element only when it is smaller (INCREASING) or not larger (DECREASING), and every
comparison with NaN is false, so a NaN at element 0 wins (float32/float16_axes3_*: rows {NaN, inf, -inf, a, b}
give 0, not the -inf at 2) and a NaN anywhere else is passed over (sample_nan_and_zeros_*: [5, NaN, -7, NaN] gives
2 in both directions, where NumPy and torch give the first NaN). -0 and +0 are equal (REDUCE's
edge_argmin_ties_nan_inf; sample_nan_and_zeros_*: [0, -0, 1, 0] gives 0, or 3); float32_axes_1_2_decreasing_ties
checks the flattened index and the last-minimum rule over Axes {1, 2}. ONNX ArgMin (select_last_index) and
torch.argmin take one axis, so the lowerings move the Axes last and flatten them.

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
    return sel.arg_reference(desc, x, is_max=False)


def to_onnx(desc, g, x):
    """Transpose + Reshape, then ReduceMin of the non-NaN values, ArgMax of the hits and element 0 where NaN."""
    return sel.arg_onnx(desc, g, x, is_max=False)


def to_torch(desc, torch, x):
    """The same steps in torch over the flattened Axes (torch.flip for DECREASING)."""
    return sel.arg_torch(desc, torch, x, is_max=False)


def _desc(sizes, axes, direction="INCREASING", data_type="FLOAT32", out_type="UINT32", strides=None):
    from ..descs import Argmin

    out = [1 if i in axes else s for i, s in enumerate(sizes)]
    return Argmin(input_tensor=td(data_type, sizes, strides), output_tensor=td(out_type, out), axes=tuple(axes),
                  axis_direction=direction)


def _samples():
    exact = dict(atol=0, rtol=0, why="indices are exact")
    docs = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)
    ties = np.array([[1, 2, 3, 2, 1], [0, 0, 1, 1, 1]], np.float32)
    rng = np.random.default_rng(37)
    x4 = rng.uniform(-2, 2, (2, 3, 4, 5)).astype(np.float32)
    out = [
        # The docs' examples 1 to 3: columns [0, 1, 2], rows [0, 1, 0], the whole tensor 4.
        Sample("docs_columns", _desc([3, 3], [0]), {"InputTensor": docs},
               {"OutputTensor": np.array([[0, 1, 2]], np.uint32)}, **exact),
        Sample("docs_rows", _desc([3, 3], [1], out_type="INT32"), {"InputTensor": docs},
               {"OutputTensor": np.array([[0], [1], [0]], np.int32)}, **exact),
        Sample("docs_all", _desc([3, 3], [0, 1], out_type="INT64"), {"InputTensor": docs},
               {"OutputTensor": np.array([[4]], np.int64)}, **exact),
        # The docs' AxisDirection example argmin({1, 2, 3, 2, 1}): INCREASING 0, DECREASING 4; [0, 0, 1, 1, 1]: 0, 1.
        Sample("ties_increasing", _desc([2, 5], [1]), {"InputTensor": ties},
               {"OutputTensor": np.array([[0], [0]], np.uint32)}, **exact),
        Sample("ties_decreasing", _desc([2, 5], [1], "DECREASING", out_type="UINT64"), {"InputTensor": ties},
               {"OutputTensor": np.array([[4], [1]], np.uint64)}, **exact),
        # A NaN after element 0 is passed over in both directions (DirectML's sample_nan_and_zeros_*): the -7 at
        # index 2; -0 and +0 tie, so the second row gives its first zero, or its last.
        Sample("nan_and_zeros_increasing", _desc([2, 4], [1]),
               {"InputTensor": np.array([[5, np.nan, -7, np.nan], [0.0, -0.0, 1, 0.0]], np.float32)},
               {"OutputTensor": np.array([[2], [0]], np.uint32)}, **exact),
        Sample("nan_and_zeros_decreasing", _desc([2, 4], [1], "DECREASING"),
               {"InputTensor": np.array([[5, np.nan, -7, np.nan], [0.0, -0.0, 1, 0.0]], np.float32)},
               {"OutputTensor": np.array([[2], [3]], np.uint32)}, **exact),
        # A NaN at element 0 is never replaced, DECREASING included (the rows {NaN, inf, -inf, a, b} of DirectML's
        # float32_axes3_uint32 give 0); a row of NaNs gives 0 too.
        Sample("nan_first_decreasing", _desc([2, 3], [1], "DECREASING"),
               {"InputTensor": np.array([[np.nan, -np.inf, -np.inf], [np.nan, np.nan, np.nan]], np.float32)},
               {"OutputTensor": np.array([[0], [0]], np.uint32)}, **exact),
        Sample("axes_0_2_decreasing", _desc([2, 3, 4, 5], [2, 0], "DECREASING", out_type="INT64"),
               {"InputTensor": x4}, **exact),
        Sample("axes_all", _desc([2, 3, 4, 5], [0, 1, 2, 3]), {"InputTensor": x4}, **exact),
    ]
    # Integers, by hand: [[7, -8, -8], [9, 9, 7]] over the rows -> first min [1, 2], last min [2, 2].
    for t in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"):
        lo = 0 if t.startswith("U") else -8
        values = np.array([[7, lo, lo], [9, 9, 7]], dtype=t.lower())
        out.append(Sample(f"int_{t.lower()}", _desc([2, 3], [1], data_type=t, out_type="INT32"),
                          {"InputTensor": values}, {"OutputTensor": np.array([[1], [2]], np.int32)}, **exact))
        out.append(Sample(f"int_{t.lower()}_decreasing", _desc([2, 3], [1], "DECREASING", t, "UINT32"),
                          {"InputTensor": values}, {"OutputTensor": np.array([[2], [2]], np.uint32)}, **exact))
    # UINT64 above 2**63 keeps its order: 9 is the smallest.
    out.append(Sample("uint64_above_2_63", _desc([1, 3], [1], data_type="UINT64"),
                      {"InputTensor": np.array([[2 ** 63 + 5, 2 ** 64 - 1, 9]], np.uint64)},
                      {"OutputTensor": np.array([[2]], np.uint32)}, **exact))
    return out


SAMPLES = _samples()
