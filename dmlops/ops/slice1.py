"""DML_OPERATOR_SLICE1: a window of InputTensor read with signed strides.

The docs' pseudo-code: CopyStart = InputWindowOffsets, plus InputWindowSizes - 1 in each dimension whose
InputWindowStrides is negative (a negative stride copies from the end of the window backwards); then
OutputTensor[o] = InputTensor[CopyStart + InputWindowStrides * o].

Rules from the docs page that the descriptor file cannot express: DimensionCount (the length of the three
arrays) "must match the DimensionCount of the input and output tensors"; the window "mustn't be empty in
any dimension" (InputWindowSizes >= 1) nor extend beyond InputTensor (InputWindowOffsets[i] +
InputWindowSizes[i] <= InputTensor.Sizes[i]); "Strides may not be 0"; and 1 <= OutputTensor.Sizes[i] <=
MaxCopiedElements[i] = 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]| (integer division; the
page writes the stride without the absolute value, which a negative stride needs).

ONNX Slice takes the same signed steps (start = CopyStart; see ``slice.onnx_window`` for the end); torch
slices forwards and flips the dimensions with negative strides (``slice.torch_window``).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _elementwise as ew
from ._layout import count_problems
from .slice import DOCS_INPUT, EXACT, onnx_window, reference_window, torch_window

ARRAYS = ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")


def max_copied(size: int, stride: int) -> int:
    """MaxCopiedElements: how many elements a window of ``size`` holds at ``stride`` (nonzero)."""
    return 1 + (size - 1) // abs(stride)


def check(desc, level) -> list[Problem]:
    """Strides nonzero; window nonempty and inside InputTensor; DimensionCount; OutputTensor within the window."""
    op = desc.OPERATOR_TYPE
    offsets, sizes, strides = desc.input_window_offsets, desc.input_window_sizes, desc.input_window_strides
    out = [Problem(op, f"InputWindowStrides[{i}]", "range", "0 is not allowed (allowed: a positive or negative "
                                                            "stride; strides may not be 0).")
           for i, s in enumerate(strides) if s == 0]
    out += [Problem(op, f"InputWindowSizes[{i}]", "range", "0 is not allowed (allowed: 1 or more; the input window "
                                                            "mustn't be empty).")
            for i, s in enumerate(sizes) if s == 0]
    x, y = tensor(desc, "InputTensor"), tensor(desc, "OutputTensor")
    lengths = {len(offsets), len(sizes), len(strides)}
    if x is None or len(lengths) > 1:
        return out  # the generic validator reports arrays of different lengths
    p = count_problems(desc, "DimensionCount", ARRAYS, lengths.pop(), x.dimension_count)
    if p:
        return out + p
    for i, (n, offset, size) in enumerate(zip(x.sizes, offsets, sizes)):
        if offset + size > n:
            out.append(Problem(op, None, "bounds",
                               f"dimension {i}: InputWindowOffsets[{i}] + InputWindowSizes[{i}] = {offset} + {size} = "
                               f"{offset + size} exceeds InputTensor's Sizes[{i}] = {n} (allowed: up to {n}; "
                               "out-of-bounds reads are not permitted)."))
    if y is None or y.dimension_count != x.dimension_count:
        return out  # the generic validator reports the DimensionCount difference
    for i, (got, size, stride) in enumerate(zip(y.sizes, sizes, strides)):
        if size >= 1 and stride != 0 and got > max_copied(size, stride):
            most = max_copied(size, stride)
            out.append(Problem(op, "OutputTensor", "shape",
                               f"Sizes[{i}] is {got}, more than the window holds: 1 + (InputWindowSizes[{i}] - 1) / "
                               f"|InputWindowStrides[{i}]| = 1 + ({size} - 1) / {abs(stride)} = {most} "
                               f"(allowed: 1 to {most})."))
    return out


def copy_start(desc) -> list[int]:
    """The docs' CopyStart: the window's first element, or its last where the stride is negative."""
    return [o + (s - 1 if d < 0 else 0) for o, s, d in
            zip(desc.input_window_offsets, desc.input_window_sizes, desc.input_window_strides)]


def reference(desc, x):
    """The docs' pseudo-code: InputTensor[CopyStart + InputWindowStrides * o]."""
    return {"OutputTensor": reference_window(x["InputTensor"], copy_start(desc), desc.input_window_strides,
                                             desc.output_tensor.sizes)}


def to_onnx(desc, g, x):
    """ONNX Slice with signed steps from CopyStart."""
    return {"OutputTensor": onnx_window(g, x["InputTensor"], desc.input_tensor.sizes, copy_start(desc),
                                        desc.input_window_strides, desc.output_tensor.sizes)}


def to_torch(desc, torch, x):
    """Forward slicing, then torch.flip of the dimensions with negative strides."""
    return {"OutputTensor": torch_window(torch, x["InputTensor"], copy_start(desc), desc.input_window_strides,
                                         desc.output_tensor.sizes)}


# ----------------------------------------------------------------------------------------------- samples
def _slice1(data_type, in_sizes, offsets, sizes, strides, out_sizes, in_strides=None):
    from ..descs import Slice1

    return Slice1(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, out_sizes),
                  input_window_offsets=tuple(offsets), input_window_sizes=tuple(sizes),
                  input_window_strides=tuple(strides))


def _integer_samples() -> list[Sample]:
    """Every integer DataType, with its extremes, reversed along the last dimension (exact copies)."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        # Window: row 1, all three columns, stride -1: row 1 reversed.
        desc = _slice1(t, [1, 1, 2, 3], [0, 0, 1, 0], [1, 1, 1, 3], [1, 1, 1, -1], [1, 1, 1, 3])
        out.append(Sample(f"int_{t.lower()}_reversed", desc,
                          {"InputTensor": ew.int_array([[[[1, 2, 3], [lo, 0, hi]]]], t)},
                          {"OutputTensor": ew.int_array([[[[hi, 0, lo]]]], t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def _samples():
    f32 = np.float32
    x3 = np.arange(4 * 5 * 6, dtype=f32).reshape(4, 5, 6)
    x8 = np.arange(2 * 3 * 2 * 3 * 2 * 3 * 2 * 4, dtype=f32).reshape(2, 3, 2, 3, 2, 3, 2, 4)
    return [
        # The docs' examples 1 (positive strides) and 2 (a negative stride), outputs copied from the page.
        Sample("docs_positive_strides", _slice1("FLOAT32", [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 2],
                                                [1, 1, 2, 2]),
               {"InputTensor": DOCS_INPUT}, {"OutputTensor": np.array([[[[2, 4], [10, 12]]]], f32)}, **EXACT),
        Sample("docs_negative_stride", _slice1("FLOAT32", [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2],
                                               [1, 1, 2, 2]),
               {"InputTensor": DOCS_INPUT}, {"OutputTensor": np.array([[[[14, 16], [6, 8]]]], f32)}, **EXACT),
        # A window of 5 at stride -2 holds 3 elements; the output takes 2 of them (allowed: 1 to 3). Over
        # [0..6] with offset 1: CopyStart = 1 + 5 - 1 = 5, so 5 and 3.
        Sample("negative_stride_partial", _slice1("FLOAT32", [7], [1], [5], [-2], [2]),
               {"InputTensor": np.arange(7, dtype=f32)}, {"OutputTensor": np.array([5, 3], f32)}, **EXACT),
        # Every dimension reversed, stride -1, window = whole dimension: x[::-1, ::-1].
        Sample("reverse_2d", _slice1("FLOAT32", [2, 3], [0, 0], [2, 3], [-1, -1], [2, 3]),
               {"InputTensor": np.array([[1, 2, 3], [4, 5, 6]], f32)},
               {"OutputTensor": np.array([[6, 5, 4], [3, 2, 1]], f32)}, **EXACT),
        # 3-D, mixed signs; NumPy's signed slicing reads the same window (an independent formula):
        # dimension 0 window [1, 4) stride -2 from 3; dimension 1 [0, 5) stride 3; dimension 2 [2, 6) stride -1.
        Sample("3d_mixed_signs", _slice1("FLOAT32", [4, 5, 6], [1, 0, 2], [3, 5, 4], [-2, 3, -1], [2, 2, 4]),
               {"InputTensor": x3}, {"OutputTensor": x3[3:0:-2, 0:5:3, 5:1:-1]}, **EXACT),
        # 8-D with negative strides in four dimensions (NumPy slicing again).
        Sample("8d_mixed_signs", _slice1("FLOAT32", x8.shape, [0, 0, 0, 1, 0, 0, 0, 0], [2, 3, 1, 2, 2, 3, 2, 4],
                                         [-1, 2, 1, -1, 1, -2, -1, 3], [2, 2, 1, 2, 2, 2, 2, 2]),
               {"InputTensor": x8},
               {"OutputTensor": x8[1::-1, 0:3:2, 0:1, 2:0:-1, 0:2, 2::-2, 1::-1, 0:4:3]}, **EXACT),
        # Zero strides on the input: one row [10, 20, 30] broadcast to {2, 3}; reversed columns in both rows.
        Sample("broadcast_input", _slice1("FLOAT32", [2, 3], [0, 0], [2, 3], [1, -1], [2, 3], in_strides=[0, 1]),
               {"InputTensor": np.array([10, 20, 30], f32)},
               {"OutputTensor": np.array([[30, 20, 10], [30, 20, 10]], f32)}, **EXACT),
        # FLOAT64 (DML_FEATURE_LEVEL_4_1): values that float32 cannot hold survive.
        Sample("float64", _slice1("FLOAT64", [3], [0], [3], [-2], [2]),
               {"InputTensor": np.array([1 / 3, 0, 1e300], np.float64)},
               {"OutputTensor": np.array([1e300, 1 / 3], np.float64)}, **EXACT),
    ] + _integer_samples()


SAMPLES = _samples()
