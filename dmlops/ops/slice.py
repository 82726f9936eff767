"""DML_OPERATOR_SLICE: OutputTensor[o] = InputTensor[Offsets + Strides * o] (the docs' formula).

Rules from the docs page that the descriptor file cannot express: DimensionCount (the length of Offsets,
Sizes and Strides) "must match the DimensionCount of the input and output tensors"; "The Sizes of the
slice must exactly match the output tensor sizes"; and the slice "must only copy elements that are within
the bounds of the input tensor", i.e. Offsets[i] + Strides[i] * (Sizes[i] - 1) < InputTensor.Sizes[i].
dmlops also rejects a stride of 0: the SLICE page does not define it, and SLICE1, which supersedes SLICE,
says "Strides may not be 0".

Slicing moves data and computes nothing, so every DataType is exact on every backend. The window helpers
here (read ``count`` elements from ``start`` in steps of ``step``, the step possibly negative) serve SLICE1
too. ONNX Runtime's CPU Slice and Concat take every DirectML DataType. torch has uint16/uint32/uint64 as
limited-support types only (since 2.3; torch-directml pins 2.4.1): torch 2.13's CPU flip has no kernel for
them (except along the first dimension), so the torch lowerings move them as the signed type of the same
width (same bits, no arithmetic: exact).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, SampleOptions, td
from ..validation import tensor
from . import _elementwise as ew
from ._layout import count_problems

INT64_MIN = -(2**63)  # ONNX Slice: an end that runs past the first element when stepping backwards


# ----------------------------------------------------------------------------------------------- rules
def check(desc, level) -> list[Problem]:
    """Strides >= 1; DimensionCount = InputTensor's; Sizes = OutputTensor.Sizes; every read inside InputTensor."""
    op = desc.OPERATOR_TYPE
    out = [Problem(op, f"Strides[{i}]", "range", f"{s} is not allowed (allowed: 1 or more).")
           for i, s in enumerate(desc.strides) if s < 1]
    x, y = tensor(desc, "InputTensor"), tensor(desc, "OutputTensor")
    lengths = {len(desc.offsets), len(desc.sizes), len(desc.strides)}
    if x is None or len(lengths) > 1:
        return out  # the generic validator reports arrays of different lengths
    p = count_problems(desc, "DimensionCount", ("Offsets", "Sizes", "Strides"), lengths.pop(), x.dimension_count)
    if p:
        return out + p
    if y is not None and y.dimension_count == x.dimension_count and list(y.sizes) != list(desc.sizes):
        out.append(Problem(op, "OutputTensor", "shape",
                           f"Sizes {list(y.sizes)} do not match the slice's Sizes {list(desc.sizes)}; "
                           "they must be equal."))
    for i, (n, offset, size, stride) in enumerate(zip(x.sizes, desc.offsets, desc.sizes, desc.strides)):
        last = offset + stride * (size - 1)
        if stride >= 1 and size >= 1 and last >= n:
            out.append(Problem(op, None, "bounds",
                               f"dimension {i} reads index {last} = Offsets[{i}] {offset} + Strides[{i}] {stride} * "
                               f"(Sizes[{i}] {size} - 1), outside InputTensor's Sizes[{i}] = {n} "
                               f"(allowed: up to {n - 1}; out-of-bounds reads are not permitted)."))
    return out


# ----------------------------------------------------------------------------------------------- windows
def reference_window(v: np.ndarray, starts, steps, counts) -> np.ndarray:
    """``v[starts + steps * o]`` for every output coordinate ``o`` (a copy)."""
    index = [s + d * np.arange(n) for s, d, n in zip(starts, steps, counts)]
    return v[np.ix_(*index)]


def onnx_window(g, v: str, sizes, starts, steps, counts) -> str:
    """ONNX Slice over the dimensions that are not read whole (an Identity when none)."""
    axes, begin, end, step = [], [], [], []
    for axis, (n, s, d, c) in enumerate(zip(sizes, starts, steps, counts)):
        if (s, d, c) == (0, 1, n):
            continue
        stop = s + d * (c - 1) + (1 if d > 0 else -1)  # one past the last element read
        axes.append(axis)
        begin.append(s)
        end.append(stop if stop >= 0 else INT64_MIN)  # ONNX reads a negative end as counted from the back
        step.append(d)
    if not axes:
        return g.node("Identity", [v])
    return g.node("Slice", [v, g.ints(begin), g.ints(end), g.ints(axes), g.ints(step)])


_SAME_WIDTH_SIGNED = {"uint16": "int16", "uint32": "int32", "uint64": "int64"}


def torch_movable(torch, v):
    """``(value, back)``: uint16/32/64 ``v`` viewed as the signed type of its width (same bits), which torch's
    flip and cat support, and the inverse view; other dtypes unchanged."""
    signed = _SAME_WIDTH_SIGNED.get(str(v.dtype).removeprefix("torch."))
    if signed is None:
        return v, lambda r: r
    dtype = v.dtype
    return v.view(getattr(torch, signed)), lambda r: r.view(dtype)


def torch_window(torch, v, starts, steps, counts):
    """The elements ``v[starts + steps * o]`` as a new tensor (never a view of ``v``).

    torch slicing takes positive steps only: a negative step reads the same elements forwards, then flips.
    """
    v, back = torch_movable(torch, v)
    index, flip = [], []
    for axis, (s, d, c) in enumerate(zip(starts, steps, counts)):
        first = s if d > 0 else s + d * (c - 1)
        index.append(slice(first, first + abs(d) * (c - 1) + 1, abs(d)))
        if d < 0:
            flip.append(axis)
    r = v[tuple(index)]
    r = torch.flip(r, flip) if flip else r.clone()  # clone: the result must not alias the caller's input
    return back(r)


# ----------------------------------------------------------------------------------------------- lowerings
def reference(desc, x):
    """The docs' formula: InputTensor[Offsets + Strides * o]."""
    return {"OutputTensor": reference_window(x["InputTensor"], desc.offsets, desc.strides, desc.sizes)}


def to_onnx(desc, g, x):
    """ONNX Slice (starts = Offsets, steps = Strides, ends one past the last element read)."""
    sizes = desc.input_tensor.sizes
    return {"OutputTensor": onnx_window(g, x["InputTensor"], sizes, desc.offsets, desc.strides, desc.sizes)}


def to_torch(desc, torch, x):
    """Tensor slicing with steps, copied."""
    return {"OutputTensor": torch_window(torch, x["InputTensor"], desc.offsets, desc.strides, desc.sizes)}


# ----------------------------------------------------------------------------------------------- samples
EXACT: SampleOptions = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="a copy of input elements: exact")
DOCS_INPUT = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)  # the docs' examples' input


def _slice(data_type, in_sizes, offsets, sizes, strides, in_strides=None):
    from ..descs import Slice

    return Slice(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, sizes),
                 offsets=tuple(offsets), sizes=tuple(sizes), strides=tuple(strides))


def _integer_samples() -> list[Sample]:
    """Every integer DataType, with its extreme values, through a strided 4-D slice (exact copies)."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        # Input {1, 2, 2, 3}; Offsets {0, 1, 0, 0}, Strides {1, 1, 1, 2}: the second channel's columns 0 and 2.
        values = [[[[1, 2, 3], [4, 5, 6]], [[lo, 0, hi], [hi - 1, 7, lo + 1]]]]
        want = [[[[lo, hi], [hi - 1, lo + 1]]]]
        desc = _slice(t, [1, 2, 2, 3], [0, 1, 0, 0], [1, 1, 2, 2], [1, 1, 1, 2])
        out.append(Sample(f"int_{t.lower()}_extremes", desc,
                          {"InputTensor": ew.int_array(values, t)}, {"OutputTensor": ew.int_array(want, t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def _samples():
    f32 = np.float32
    x5 = np.arange(2 * 3 * 4 * 5 * 6, dtype=f32).reshape(2, 3, 4, 5, 6)
    x8 = np.arange(2 * 3 * 2 * 3 * 2 * 3 * 2 * 4, dtype=f32).reshape(2, 3, 2, 3, 2, 3, 2, 4)
    return [
        # The docs' example 1 (contiguous) and example 2 (strided), outputs copied from the page.
        Sample("docs_contiguous", _slice("FLOAT32", [1, 1, 4, 4], [0, 0, 1, 2], [1, 1, 3, 2], [1, 1, 1, 1]),
               {"InputTensor": DOCS_INPUT}, {"OutputTensor": np.array([[[[7, 8], [11, 12], [15, 16]]]], f32)}, **EXACT),
        Sample("docs_strided", _slice("FLOAT32", [1, 1, 4, 4], [0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]),
               {"InputTensor": DOCS_INPUT}, {"OutputTensor": np.array([[[[5, 8], [13, 16]]]], f32)}, **EXACT),
        # 1-D (DML_FEATURE_LEVEL_3_0): offset 1, stride 3 over [0..9] reads 1, 4, 7.
        Sample("1d_stride_3", _slice("FLOAT32", [10], [1], [3], [3]), {"InputTensor": np.arange(10, dtype=f32)},
               {"OutputTensor": np.array([1, 4, 7], f32)}, **EXACT),
        # 5-D, every dimension sliced: x5[1, 0:3:2, 1:4:2, 4, 0:6:5]; element (a, b, c, d, e) of the arange is
        # a*360 + b*120 + c*30 + d*6 + e, so the outputs are 360 + {0, 240} + {30, 90} + 24 + {0, 5}.
        Sample("5d_strided", _slice("FLOAT32", [2, 3, 4, 5, 6], [1, 0, 1, 4, 0], [1, 2, 2, 1, 2], [1, 2, 2, 1, 5]),
               {"InputTensor": x5},
               {"OutputTensor": np.array([[[[[414, 419]], [[474, 479]]], [[[654, 659]], [[714, 719]]]]], f32)},
               **EXACT),
        # 8-D: the same window read by NumPy basic slicing (an independent formula: start:stop:step).
        Sample("8d_mixed", _slice("FLOAT32", x8.shape, [1, 0, 1, 1, 0, 2, 0, 1], [1, 2, 1, 2, 2, 1, 1, 2],
                                  [1, 2, 1, 1, 1, 1, 1, 2]),
               {"InputTensor": x8}, {"OutputTensor": x8[1:2, 0:3:2, 1:2, 1:3, 0:2, 2:3, 0:1, 1:4:2]}, **EXACT),
        # Zero strides on the input: one row [10, 20, 30, 40] broadcast to {1, 1, 3, 4}; every output row is
        # columns 1 and 3 of it.
        Sample("broadcast_input", _slice("FLOAT32", [1, 1, 3, 4], [0, 0, 1, 1], [1, 1, 2, 2], [1, 1, 1, 2],
                                         in_strides=[0, 0, 0, 1]),
               {"InputTensor": np.array([10, 20, 30, 40], f32)},
               {"OutputTensor": np.array([[[[20, 40], [20, 40]]]], f32)}, **EXACT),
        # The whole tensor (no dimension sliced): a copy, lowered as ONNX Identity.
        Sample("whole_tensor", _slice("FLOAT32", [1, 1, 2, 2], [0, 0, 0, 0], [1, 1, 2, 2], [1, 1, 1, 1]),
               {"InputTensor": np.array([[[[1.5, -2], [np.inf, np.nan]]]], f32)},
               {"OutputTensor": np.array([[[[1.5, -2], [np.inf, np.nan]]]], f32)}, **EXACT),
        # FLOAT64 (DML_FEATURE_LEVEL_4_1): 1/3 survives unrounded; reads [1, 0] and [1, 2] of {2, 3}.
        Sample("float64", _slice("FLOAT64", [2, 3], [1, 0], [1, 2], [1, 2]),
               {"InputTensor": np.array([[0, 0, 0], [1 / 3, 0, -1e300]], np.float64)},
               {"OutputTensor": np.array([[1 / 3, -1e300]], np.float64)}, **EXACT),
    ] + _integer_samples()


SAMPLES = _samples()
