"""DML_OPERATOR_REVERSE_SUBSEQUENCES: along Axis, the first SequenceLengths elements of every line reversed.

For a line along Axis of size n with length L (SequenceLengthsTensor, at the line's other coordinates), output
position i reads input position min(L - 1 - i, n - 1) when i < L, else i. Lengths 0 and 1 change nothing (the docs'
example 2). A length above n is not clamped, whatever the docs say ("behaves as if the value were clamped to the
maximum"): DirectML computes L - 1 - i from the unclamped length and reads the line's last element for a position
beyond the line (vectors sample_lengths_above_size: lengths 7 and 2**32 - 1 on lines of 3 give [3, 3, 3] and
[inf, inf, inf] for [1, 2, 3] and [nan, -0, inf]; sample_uint64_lengths: 2**64 - 1 gives the last element three
times; sample_8d_axis_2: length 9). The other vectors (float32, float16, int32; axes 0 and 2; lengths 0 to n) agree.

The lengths are data (UINT32, or UINT64 from DML_FEATURE_LEVEL_5_0), so every backend builds the index from them
at run time: min(L, 2n) in the lengths' own unsigned type (a UINT64 length of 2**64 - 1 is a large length, not -1;
every length from 2n - 1 up reads n - 1 at every position), then int64 positions, then ONNX GatherElements /
torch.gather. ONNX ReverseSequence covers rank >= 2 with a batch axis only.

Rules the descriptor file cannot express. From the docs page: Axis "must be less than the DimensionCount of the
InputTensor"; SequenceLengthsTensor has InputTensor's Sizes "except for the dimension specified by the Axis
parameter", whose size "must be 1"; OutputTensor "must have the same sizes and data type as the InputTensor"
(DataType and DimensionCount are the generic validator's rules). DirectML agrees (vectors: an OutputTensor of {1,
1, 1, 2} for a {1, 1, 1, 1} input is refused; Axis 1 of 1-dimensional tensors is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, SampleOptions, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M


def check(desc, level) -> list[Problem]:
    """Axis in range; SequenceLengthsTensor is InputTensor with Sizes[Axis] = 1; OutputTensor has InputTensor's
    Sizes."""
    x = L.sizes(L.tensor(desc, "InputTensor"))
    out = L.same_sizes_problems(desc, "InputTensor", "OutputTensor")
    if not x:
        return out
    axis = desc.axis
    bad = L.axis_problems(desc, axis, len(x))
    if bad:
        return bad + out
    return L.expected_problems(desc, "SequenceLengthsTensor", f"InputTensor Sizes with Sizes[{axis}] = 1",
                               x[:axis] + [1] + x[axis + 1:]) + out


def _positions(desc, rank: int) -> np.ndarray:
    """0 .. n - 1 along Axis, size 1 elsewhere (int64)."""
    n = desc.input_tensor.sizes[desc.axis]
    shape = [1] * rank
    shape[desc.axis] = n
    return np.arange(n, dtype=np.int64).reshape(shape)


def reference(desc, x):
    """take_along_axis with position min(L - 1 - i, n - 1) where i < L."""
    v, lengths = x["InputTensor"], x["SequenceLengthsTensor"]
    n = v.shape[desc.axis]
    length = np.minimum(lengths, lengths.dtype.type(2 * n)).astype(np.int64)  # clamped in the unsigned type
    i = _positions(desc, v.ndim)
    index = np.broadcast_to(np.where(i < length, np.minimum(length - 1 - i, n - 1), i), v.shape)
    return {"OutputTensor": np.take_along_axis(v, index, axis=desc.axis)}


def to_onnx(desc, g, x):
    """Min, Cast, Less, Sub, Where build the positions; GatherElements moves the elements."""
    v, lengths = x["InputTensor"], x["SequenceLengthsTensor"]
    n = desc.input_tensor.sizes[desc.axis]
    length = g.cast(g.node("Min", [lengths, g.scalar(2 * n, lengths)]), np.int64)
    i = g.const(_positions(desc, desc.input_tensor.dimension_count))
    reversed_ = g.node("Min", [g.node("Sub", [g.node("Sub", [length, g.const(np.int64(1))]), i]),
                               g.const(np.int64(n - 1))])
    index = g.node("Where", [g.node("Less", [i, length], dtype=np.bool_), reversed_, i], dtype=np.int64)
    return {"OutputTensor": g.node("GatherElements", [v, index], axis=desc.axis)}


def to_torch(desc, torch, x):
    """The same positions from int64 ops, then torch.gather."""
    v, back = M.torch_movable(torch, x["InputTensor"])
    lengths = x["SequenceLengthsTensor"]
    n = desc.input_tensor.sizes[desc.axis]
    if lengths.dtype == torch.uint64:  # int64 bits: a length >= 2**63 reads negative and is above n
        bits = lengths.view(torch.int64)
        length = torch.where(bits < 0, torch.full_like(bits, 2 * n), bits.clamp_max(2 * n))
    else:
        length = lengths.to(torch.int64).clamp_max(2 * n)
    i = M.torch_index(torch, _positions(desc, v.dim()), v)
    index = torch.where(i < length, (length - 1 - i).clamp_max(n - 1), i).expand(v.shape)
    return {"OutputTensor": back(torch.gather(v, desc.axis, index))}


# ----------------------------------------------------------------------------------------------- samples
EXACT: SampleOptions = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="a rearrangement of input elements: exact")
DOCS_INPUT = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)  # the docs' examples' input


def _reverse(data_type, in_sizes, axis, lengths_type="UINT32", in_strides=None):
    from ..descs import ReverseSubsequences

    lengths = list(in_sizes)
    lengths[axis] = 1
    return ReverseSubsequences(input_tensor=td(data_type, in_sizes, in_strides),
                               sequence_lengths_tensor=td(lengths_type, lengths),
                               output_tensor=td(data_type, in_sizes), axis=axis)


def _integer_samples() -> list[Sample]:
    """Every integer DataType with its extremes: rows of 4 reversed over lengths 3 and 4."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        x = ew.int_array([[lo, hi, 0, 1], [1, 0, hi, lo]], t)
        out.append(Sample(f"int_{t.lower()}_extremes", _reverse(t, [2, 4], 1),
                          {"InputTensor": x, "SequenceLengthsTensor": np.array([[3], [4]], np.uint32)},
                          {"OutputTensor": ew.int_array([[0, hi, lo, 1], [lo, hi, 0, 1]], t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def _samples():
    f32 = np.float32
    x8 = np.arange(2 * 1 * 3 * 1 * 2 * 1 * 1 * 2, dtype=f32).reshape(2, 1, 3, 1, 2, 1, 1, 2)
    len8 = np.array([0, 1, 2, 3, 9, 2, 3, 1], np.uint32).reshape(2, 1, 1, 1, 2, 1, 1, 2)
    i8 = np.arange(3).reshape(1, 1, 3, 1, 1, 1, 1, 1)
    l8 = len8.astype(np.int64)
    return [
        # The docs' examples 1 (Axis 3, lengths 2, 4, 3) and 2 (Axis 2, lengths 2, 3, 1, 0), outputs from the page.
        Sample("docs_axis_3", _reverse("FLOAT32", [1, 1, 3, 4], 3),
               {"InputTensor": DOCS_INPUT, "SequenceLengthsTensor": np.array([2, 4, 3], np.uint32).reshape(1, 1, 3, 1)},
               {"OutputTensor": np.array([[[[2, 1, 3, 4], [8, 7, 6, 5], [11, 10, 9, 12]]]], f32)}, **EXACT),
        Sample("docs_axis_2", _reverse("FLOAT32", [1, 1, 3, 4], 2),
               {"InputTensor": DOCS_INPUT,
                "SequenceLengthsTensor": np.array([2, 3, 1, 0], np.uint32).reshape(1, 1, 1, 4)},
               {"OutputTensor": np.array([[[[5, 10, 3, 4], [1, 6, 7, 8], [9, 2, 11, 12]]]], f32)}, **EXACT),
        # Lengths above the axis size are not clamped (DirectML, unlike the docs): position i reads L - 1 - i, which
        # is beyond the line of 3 for L = 7 (6, 5, 4) and 4294967295, so each reads the line's last element.
        Sample("lengths_above_size", _reverse("FLOAT32", [2, 3], 1),
               {"InputTensor": np.array([[1, 2, 3], [np.nan, -0.0, np.inf]], f32),
                "SequenceLengthsTensor": np.array([[7], [2**32 - 1]], np.uint32)},
               {"OutputTensor": np.array([[3, 3, 3], [np.inf, np.inf, np.inf]], f32)}, **EXACT),
        # Length 4 on a line of 3: position i reads 3 - i: 3 (beyond the line: its last element), 2, 1 -> [3, 3, 2];
        # length 3 reverses it all: [30, 20, 10].
        Sample("length_one_above_size", _reverse("FLOAT32", [2, 3], 1),
               {"InputTensor": np.array([[1, 2, 3], [10, 20, 30]], f32),
                "SequenceLengthsTensor": np.array([[4], [3]], np.uint32)},
               {"OutputTensor": np.array([[3, 3, 2], [30, 20, 10]], f32)}, **EXACT),
        # UINT64 lengths (DML_FEATURE_LEVEL_5_0): 2**64 - 1 is a large length (every position reads the last
        # element, as DirectML does), 2 reverses two.
        Sample("uint64_lengths", _reverse("FLOAT32", [3, 2], 0, "UINT64"),
               {"InputTensor": np.array([[1, 10], [2, 20], [3, 30]], f32),
                "SequenceLengthsTensor": np.array([[2**64 - 1, 2]], np.uint64)},
               {"OutputTensor": np.array([[3, 20], [3, 10], [3, 30]], f32)}, **EXACT),
        # 1-D (DML_FEATURE_LEVEL_4_0): one length for the whole tensor.
        Sample("1d", _reverse("FLOAT32", [5], 0), {"InputTensor": np.arange(5, dtype=f32),
                                                  "SequenceLengthsTensor": np.array([4], np.uint32)},
               {"OutputTensor": np.array([3, 2, 1, 0, 4], f32)}, **EXACT),
        # 8-D along axis 2 (size 3) with lengths 0 to 9: the formula by NumPy fancy indexing (length 9: position
        # 9 - 1 - i is beyond the line: its last element).
        Sample("8d_axis_2", _reverse("FLOAT32", list(x8.shape), 2),
               {"InputTensor": x8, "SequenceLengthsTensor": len8},
               {"OutputTensor": np.take_along_axis(
                   x8, np.broadcast_to(np.where(i8 < l8, np.minimum(l8 - 1 - i8, 2), i8), x8.shape), axis=2)},
               **EXACT),
        # A broadcast input (Strides {0, 1}: one row [1, 2, 3] read twice), reversed over lengths 3 and 2.
        Sample("broadcast_input", _reverse("FLOAT32", [2, 3], 1, in_strides=[0, 1]),
               {"InputTensor": np.array([1, 2, 3], f32), "SequenceLengthsTensor": np.array([[3], [2]], np.uint32)},
               {"OutputTensor": np.array([[3, 2, 1], [2, 1, 3]], f32)}, **EXACT),
        # FLOAT64 (DML_FEATURE_LEVEL_5_0).
        Sample("float64", _reverse("FLOAT64", [3], 0), {"InputTensor": np.array([1 / 3, 1e300, -5e-324]),
                                                       "SequenceLengthsTensor": np.array([3], np.uint32)},
               {"OutputTensor": np.array([-5e-324, 1e300, 1 / 3])}, **EXACT),
    ] + _integer_samples()


SAMPLES = _samples()
