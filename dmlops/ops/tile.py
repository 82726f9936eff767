"""DML_OPERATOR_TILE: InputTensor repeated Repeats[i] times along each dimension i.

OutputTensor[o] = InputTensor[o mod InputTensor.Sizes] (ONNX Tile, torch.Tensor.repeat). DirectML's vectors
(float32, float16, int32, int8 with Repeats {2, 1, 2, 3}) agree.

Rules the descriptor file cannot express. From the docs page: RepeatsCount (the length of Repeats) "must be the
same as the InputTensor.DimensionCount"; Repeats "must be larger than 0"; OutputTensor "must have the same
DimensionCount as the input tensor" and OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i]. DirectML agrees
(vectors: RepeatsCount 2 for a 4-dimensional input is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, SampleOptions, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M


def check(desc, level) -> list[Problem]:
    """Repeats >= 1 and one per dimension; OutputTensor of InputTensor's rank with Sizes InputTensor * Repeats."""
    repeats = list(desc.repeats)
    out = L.positive_problems(desc, "Repeats", repeats, "each value is a number of copies")
    out += L.same_rank_problems(desc, "InputTensor", "OutputTensor")
    x = L.sizes(L.tensor(desc, "InputTensor"))
    if not x:
        return out
    count = L.count_problems(desc, "RepeatsCount", ["Repeats"], len(repeats), len(x))
    if count:
        return out + count
    return out + L.expected_problems(desc, "OutputTensor", "InputTensor.Sizes * Repeats",
                                     [s * r for s, r in zip(x, repeats)])


def reference(desc, x):
    """np.tile with one repeat count per dimension."""
    return {"OutputTensor": np.tile(x["InputTensor"], desc.repeats)}


def to_onnx(desc, g, x):
    """ONNX Tile with the repeats as a constant."""
    return {"OutputTensor": g.node("Tile", [x["InputTensor"], g.ints(desc.repeats)])}


def to_torch(desc, torch, x):
    """torch.Tensor.repeat (a new tensor, also for Repeats of ones)."""
    v, back = M.torch_movable(torch, x["InputTensor"])
    return {"OutputTensor": back(v.repeat(*desc.repeats))}


# ----------------------------------------------------------------------------------------------- samples
EXACT: SampleOptions = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="copies of input elements: exact")


def _tile(data_type, in_sizes, repeats, in_strides=None):
    from ..descs import Tile

    return Tile(input_tensor=td(data_type, in_sizes, in_strides),
                output_tensor=td(data_type, [n * r for n, r in zip(in_sizes, repeats)]), repeats=tuple(repeats))


def _integer_samples() -> list[Sample]:
    """Every integer DataType with its extremes: [lo, hi] repeated 3 times."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}_extremes", _tile(t, [1, 2], [1, 3]),
                          {"InputTensor": ew.int_array([[lo, hi]], t)},
                          {"OutputTensor": ew.int_array([[lo, hi, lo, hi, lo, hi]], t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def _samples():
    f32 = np.float32
    x8 = np.arange(2 * 3, dtype=f32).reshape(1, 2, 1, 1, 3, 1, 1, 1)
    return [
        # The docs' example: {1, 1, 2, 3} [[1, 2, 3], [4, 5, 6]] with Repeats {1, 1, 3, 3} (output from the page).
        Sample("docs_example", _tile("FLOAT32", [1, 1, 2, 3], [1, 1, 3, 3]),
               {"InputTensor": np.array([[[[1, 2, 3], [4, 5, 6]]]], f32)},
               {"OutputTensor": np.array([[[[1, 2, 3, 1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6, 4, 5, 6]] * 3]], f32)},
               **EXACT),
        # Repeats of ones: a copy (NaN, -0.0 and inf included).
        Sample("repeats_one_copy", _tile("FLOAT32", [1, 3], [1, 1]),
               {"InputTensor": np.array([[np.nan, -0.0, -np.inf]], f32)},
               {"OutputTensor": np.array([[np.nan, -0.0, -np.inf]], f32)}, **EXACT),
        # 1-D (DML_FEATURE_LEVEL_3_1): [5, 6] four times.
        Sample("1d", _tile("FLOAT32", [2], [4]), {"InputTensor": np.array([5, 6], f32)},
               {"OutputTensor": np.array([5, 6, 5, 6, 5, 6, 5, 6], f32)}, **EXACT),
        # 8-D; NumPy's np.tile as the expected value.
        Sample("8d", _tile("FLOAT32", list(x8.shape), [2, 1, 3, 1, 1, 2, 1, 2]), {"InputTensor": x8},
               {"OutputTensor": np.tile(x8, [2, 1, 3, 1, 1, 2, 1, 2])}, **EXACT),
        # A transposed input (Strides {1, 2}: the buffer [1, 2, 3, 4] read as [[1, 3], [2, 4]]) tiled {2, 1}.
        Sample("strided_input", _tile("FLOAT32", [2, 2], [2, 1], [1, 2]),
               {"InputTensor": np.array([1, 2, 3, 4], f32)},
               {"OutputTensor": np.array([[1, 3], [2, 4], [1, 3], [2, 4]], f32)}, **EXACT),
    ] + _integer_samples()


SAMPLES = _samples()
