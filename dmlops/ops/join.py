"""DML_OPERATOR_JOIN: InputTensors concatenated along Axis.

Rules from the docs page that the descriptor file cannot express (its pseudo-code): Axis is in
[0, OutputTensor.DimensionCount - 1]; each InputTensors[i] has OutputTensor's Sizes in every dimension
but Axis; and OutputTensor.Sizes[Axis] is the sum of the inputs' Sizes[Axis]. (Equal DimensionCount and
DataType are the descriptor's same-constraints, checked by the generic validator.) One input is a copy.

ONNX Concat and torch.cat take every DirectML DataType on the CPU (torch 2.13); torch still moves
uint16/32/64 as the signed type of the same width, as SLICE does, since torch lists them as limited-support
types (see dmlops/ops/slice.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _elementwise as ew
from .slice import EXACT, torch_movable


def check(desc, level) -> list[Problem]:
    """Axis inside OutputTensor; inputs match OutputTensor outside Axis; the Axis sizes add up."""
    op = desc.OPERATOR_TYPE
    y = tensor(desc, "OutputTensor")
    if y is None:
        return []
    rank, axis = y.dimension_count, desc.axis
    if axis >= rank:
        return [Problem(op, "Axis", "axis", f"{axis} is out of range for a {rank}-dimensional OutputTensor "
                                            f"(allowed: 0 to {rank - 1}).")]
    out = []
    inputs = [t for t in desc.input_tensors if t.dimension_count == rank]  # other ranks: the generic validator
    for i, t in enumerate(desc.input_tensors):
        if t.dimension_count != rank:
            continue
        expected = list(y.sizes)
        expected[axis] = t.sizes[axis]
        if list(t.sizes) != expected:
            out.append(shape_problem(desc, f"InputTensors[{i}]", t.sizes,
                                     f"OutputTensor's Sizes outside Axis {axis}", expected))
    if len(inputs) == len(desc.input_tensors) and inputs:
        total = sum(t.sizes[axis] for t in inputs)
        if y.sizes[axis] != total:
            terms = " + ".join(str(t.sizes[axis]) for t in inputs)
            out.append(Problem(op, "OutputTensor", "shape",
                               f"Sizes[{axis}] is {y.sizes[axis]}; along Axis {axis} it must be the sum of the "
                               f"InputTensors' Sizes[{axis}] = {terms} = {total}."))
    return out


def reference(desc, x):
    """np.concatenate along Axis (a copy)."""
    return {"OutputTensor": np.concatenate(x["InputTensors"], axis=desc.axis)}


def to_onnx(desc, g, x):
    """ONNX Concat."""
    return {"OutputTensor": g.node("Concat", list(x["InputTensors"]), axis=desc.axis)}


def to_torch(desc, torch, x):
    """torch.cat (a new tensor, also for one input)."""
    pairs = [torch_movable(torch, v) for v in x["InputTensors"]]
    return {"OutputTensor": pairs[0][1](torch.cat([v for v, _ in pairs], dim=desc.axis))}


# ----------------------------------------------------------------------------------------------- samples
def _join(data_type, in_sizes, axis, in_strides=None):
    from ..descs import Join

    in_strides = in_strides or [None] * len(in_sizes)
    out = list(in_sizes[0])
    out[axis] = sum(s[axis] for s in in_sizes)
    return Join(input_tensors=tuple(td(data_type, s, st) for s, st in zip(in_sizes, in_strides)),
                output_tensor=td(data_type, out), axis=axis)


def _inputs(*arrays) -> dict:
    return {f"InputTensors[{i}]": a for i, a in enumerate(arrays)}


def _integer_samples() -> list[Sample]:
    """Every integer DataType, with its extremes, joined along the last axis (exact copies)."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        a, b = [[[[lo, 1]]]], [[[[hi, 0, lo + 1]]]]
        out.append(Sample(f"int_{t.lower()}_extremes", _join(t, [[1, 1, 1, 2], [1, 1, 1, 3]], 3),
                          _inputs(ew.int_array(a, t), ew.int_array(b, t)),
                          {"OutputTensor": ew.int_array([[[[lo, 1, hi, 0, lo + 1]]]], t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def _samples():
    f32 = np.float32
    # The docs' example 2 inputs; its outputs for axes 1, 2 and 3 are copied from the page.
    d0 = np.array([[[[1, 2], [3, 4]]]], f32)
    d1 = np.array([[[[5, 6], [7, 8]]]], f32)
    d2 = np.array([[[[9, 10], [11, 12]]]], f32)
    three = [[1, 1, 2, 2]] * 3
    x8a = np.arange(2 * 1 * 2 * 1 * 2 * 1 * 2 * 1, dtype=f32).reshape(2, 1, 2, 1, 2, 1, 2, 1)
    x8b = -np.arange(2 * 1 * 2 * 3 * 2 * 1 * 2 * 1, dtype=f32).reshape(2, 1, 2, 3, 2, 1, 2, 1)
    return [
        Sample("docs_two_inputs_axis_3", _join("FLOAT32", [[1, 1, 2, 3], [1, 1, 2, 4]], 3),
               _inputs(np.array([[[[1, 2, 3], [4, 5, 6]]]], f32),
                       np.array([[[[7, 8, 9, 10], [11, 12, 13, 14]]]], f32)),
               {"OutputTensor": np.array([[[[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]]], f32)}, **EXACT),
        Sample("docs_three_inputs_axis_1", _join("FLOAT32", three, 1), _inputs(d0, d1, d2),
               {"OutputTensor": np.array([[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]], f32)}, **EXACT),
        Sample("docs_three_inputs_axis_2", _join("FLOAT32", three, 2), _inputs(d0, d1, d2),
               {"OutputTensor": np.array([[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]], f32)}, **EXACT),
        Sample("docs_three_inputs_axis_3", _join("FLOAT32", three, 3), _inputs(d0, d1, d2),
               {"OutputTensor": np.array([[[[1, 2, 5, 6, 9, 10], [3, 4, 7, 8, 11, 12]]]], f32)}, **EXACT),
        # "Joining a single input tensor simply produces a copy of the input tensor."
        Sample("single_input_copy", _join("FLOAT32", [[1, 1, 1, 3]], 2),
               _inputs(np.array([[[[1, -0.5, np.nan]]]], f32)),
               {"OutputTensor": np.array([[[[1, -0.5, np.nan]]]], f32)}, **EXACT),
        # 5-D along axis 0 (DML_FEATURE_LEVEL_3_0): {1, 1, 1, 1, 2} + {2, 1, 1, 1, 2}.
        Sample("5d_axis_0", _join("FLOAT32", [[1, 1, 1, 1, 2], [2, 1, 1, 1, 2]], 0),
               _inputs(np.array([1, 2], f32).reshape(1, 1, 1, 1, 2),
                       np.array([3, 4, 5, 6], f32).reshape(2, 1, 1, 1, 2)),
               {"OutputTensor": np.array([1, 2, 3, 4, 5, 6], f32).reshape(3, 1, 1, 1, 2)}, **EXACT),
        # 8-D along axis 3 (DML_FEATURE_LEVEL_4_1): NumPy's concatenate as the expected value.
        Sample("8d_axis_3", _join("FLOAT32", [list(x8a.shape), list(x8b.shape)], 3), _inputs(x8a, x8b),
               {"OutputTensor": np.concatenate([x8a, x8b], axis=3)}, **EXACT),
        # Strided inputs joined along axis 0: {3, 3} read from one row through zero strides, and {2, 3} read
        # from a column-major buffer (Strides {1, 2}).
        Sample("strided_inputs", _join("FLOAT32", [[3, 3], [2, 3]], 0, [[0, 1], [1, 2]]),
               _inputs(np.array([7, 8, 9], f32), np.array([1, 4, 2, 5, 3, 6], f32)),
               {"OutputTensor": np.array([[7, 8, 9], [7, 8, 9], [7, 8, 9], [1, 2, 3], [4, 5, 6]], f32)}, **EXACT),
        # 1-D FLOAT64 (DML_FEATURE_LEVEL_4_1): values float32 cannot hold survive.
        Sample("float64_1d", _join("FLOAT64", [[1], [2]], 0),
               _inputs(np.array([1 / 3]), np.array([1e300, -5e-324])),
               {"OutputTensor": np.array([1 / 3, 1e300, -5e-324])}, **EXACT),
    ] + _integer_samples()


SAMPLES = _samples()
