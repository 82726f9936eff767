"""DML_OPERATOR_SPLIT: InputTensor cut along Axis into OutputTensors, in order (the inverse of JOIN).

OutputTensors[i] holds the InputTensor elements whose Axis coordinate lies in [sum of the earlier outputs' Sizes[Axis],
that sum + OutputTensors[i].Sizes[Axis]); one output is a copy. DirectML's vectors (float32, float16, int32, uint8;
two and three outputs) agree. ONNX Split (sizes as a constant) and torch.split take every DataType; torch's
outputs are cloned (torch.split returns views of the input).

Rules the descriptor file cannot express. From the docs page: Axis "must be in the range [0,
InputTensor.DimensionCount - 1]"; every OutputTensors[i] has InputTensor's Sizes "in all dimensions except for this
axis"; and "the output tensors' split axis sizes must sum up to exactly the input tensor's split axis size".
OutputCount > 0 and the shared DataType and DimensionCount are checked by the generic validator. DirectML agrees
(vectors: two outputs of 1 along an axis of size 1 are refused; the {1, 2, 1, 1} twin runs).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, SampleOptions, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M


def check(desc, level) -> list[Problem]:
    """Axis in range; outputs equal to InputTensor outside Axis; their Axis sizes sum to InputTensor's."""
    op = desc.OPERATOR_TYPE
    x = L.sizes(L.tensor(desc, "InputTensor"))
    if not x:
        return []
    axis = desc.axis
    out = L.axis_problems(desc, axis, len(x))
    if out:
        return out
    parts = []
    for i, t in enumerate(desc.output_tensors):
        y = L.sizes(t, len(x))
        if y is None:
            return out  # the generic validator reports the DimensionCount difference
        out += L.outside_axis_problems(desc, f"OutputTensors[{i}]", y, "InputTensor", x, axis)
        parts.append(y[axis])
    if parts and sum(parts) != x[axis]:
        terms = " + ".join(map(str, parts))
        out.append(Problem(op, "OutputTensors", "shape",
                           f"Sizes[{axis}] sum to {sum(parts)} ({terms}); they must sum to InputTensor's "
                           f"Sizes[{axis}] = {x[axis]}."))
    return out


def _parts(desc) -> list[int]:
    return [t.sizes[desc.axis] for t in desc.output_tensors]


def reference(desc, x):
    """np.split at the running sums of the outputs' Sizes[Axis] (copies)."""
    cuts = np.cumsum(_parts(desc))[:-1]
    return {"OutputTensors": tuple(np.array(p, copy=True) for p in np.split(x["InputTensor"], cuts, axis=desc.axis))}


def to_onnx(desc, g, x):
    """ONNX Split with the sizes as a constant (Identity for one output)."""
    v = x["InputTensor"]
    if len(desc.output_tensors) == 1:
        return {"OutputTensors": (g.node("Identity", [v]),)}
    outs = g.node("Split", [v, g.ints(_parts(desc))], outputs=len(desc.output_tensors), axis=desc.axis)
    return {"OutputTensors": tuple(outs)}


def to_torch(desc, torch, x):
    """torch.split, each part cloned (split returns views of the input)."""
    v, back = M.torch_movable(torch, x["InputTensor"])
    return {"OutputTensors": tuple(back(p.clone()) for p in torch.split(v, _parts(desc), dim=desc.axis))}


# ----------------------------------------------------------------------------------------------- samples
EXACT: SampleOptions = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="a copy of input elements: exact")


def _split(data_type, in_sizes, parts, axis, in_strides=None):
    from ..descs import Split

    outs = []
    for n in parts:
        s = list(in_sizes)
        s[axis] = n
        outs.append(td(data_type, s))
    return Split(input_tensor=td(data_type, in_sizes, in_strides), output_tensors=tuple(outs), axis=axis)


def _outs(*arrays) -> dict:
    return {f"OutputTensors[{i}]": a for i, a in enumerate(arrays)}


def _integer_samples() -> list[Sample]:
    """Every integer DataType with its extremes: [lo, hi, 0, lo + 1, hi - 1] split 2 + 3 along the last axis."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        x = ew.int_array([[lo, hi, 0, lo + 1, hi - 1]], t)
        out.append(Sample(f"int_{t.lower()}_extremes", _split(t, [1, 5], [2, 3], 1), {"InputTensor": x},
                          _outs(ew.int_array([[lo, hi]], t), ew.int_array([[0, lo + 1, hi - 1]], t)),
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def _samples():
    f32 = np.float32
    x = np.arange(12, dtype=f32).reshape(1, 1, 3, 4)
    x8 = np.arange(2 * 1 * 2 * 1 * 5 * 1 * 2 * 1, dtype=f32).reshape(2, 1, 2, 1, 5, 1, 2, 1)
    return [
        # The docs' idea by hand: {1, 1, 3, 4} = 0..11 split along axis 3 into 1 + 3 columns, and along axis 2
        # into rows 0..1 and row 2.
        Sample("axis_3_one_and_three", _split("FLOAT32", [1, 1, 3, 4], [1, 3], 3), {"InputTensor": x},
               _outs(np.array([[[[0], [4], [8]]]], f32), np.array([[[[1, 2, 3], [5, 6, 7], [9, 10, 11]]]], f32)),
               **EXACT),
        Sample("axis_2_two_and_one", _split("FLOAT32", [1, 1, 3, 4], [2, 1], 2), {"InputTensor": x},
               _outs(np.array([[[[0, 1, 2, 3], [4, 5, 6, 7]]]], f32), np.array([[[[8, 9, 10, 11]]]], f32)), **EXACT),
        # One output: a copy (NaN, -0.0 and inf included).
        Sample("single_output_copy", _split("FLOAT32", [1, 3], [3], 1),
               {"InputTensor": np.array([[np.nan, -0.0, np.inf]], f32)},
               _outs(np.array([[np.nan, -0.0, np.inf]], f32)), **EXACT),
        # 1-D into four parts (DML_FEATURE_LEVEL_3_0).
        Sample("1d_four_parts", _split("FLOAT32", [7], [1, 2, 3, 1], 0), {"InputTensor": np.arange(7, dtype=f32)},
               _outs(np.array([0], f32), np.array([1, 2], f32), np.array([3, 4, 5], f32), np.array([6], f32)),
               **EXACT),
        # 8-D along axis 4, NumPy slicing as the expected value.
        Sample("8d_axis_4", _split("FLOAT32", list(x8.shape), [2, 3], 4), {"InputTensor": x8},
               _outs(x8[:, :, :, :, :2], x8[:, :, :, :, 2:]), **EXACT),
        # A broadcast input (Strides {0, 1}): one row [1, 2, 3] read as {2, 3}, split 1 + 1 along axis 0.
        Sample("broadcast_input", _split("FLOAT32", [2, 3], [1, 1], 0, [0, 1]),
               {"InputTensor": np.array([1, 2, 3], f32)},
               _outs(np.array([[1, 2, 3]], f32), np.array([[1, 2, 3]], f32)), **EXACT),
        # FLOAT64 (DML_FEATURE_LEVEL_4_1).
        Sample("float64", _split("FLOAT64", [3], [1, 2], 0), {"InputTensor": np.array([1 / 3, 1e300, -5e-324])},
               _outs(np.array([1 / 3]), np.array([1e300, -5e-324])), **EXACT),
    ] + _integer_samples()


SAMPLES = _samples()
