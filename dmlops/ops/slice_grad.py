"""DML_OPERATOR_SLICE_GRAD: the adjoint of SLICE1. OutputGradientTensor is 0 except where SLICE1 (input
OutputGradientTensor, output InputGradientTensor, the same window arrays) would read: there it holds the
gradient, OutputGradient[CopyStart + InputWindowStrides * j] = InputGradient[j], CopyStart being
InputWindowOffsets plus InputWindowSizes - 1 where the stride is negative (vector float32_negative_stride: strides
-1 write each row reversed into columns 5 .. 1 of 7). Strides are nonzero, so no two elements land together.

The addresses are known at compile time: the reference writes them, ONNX gathers [gradient, 0] by a constant
source table (ONNX Runtime's DirectML provider has no ScatterND-18), torch index_selects the same table; all
copy bits (NaN payloads, -0.0, 64-bit integers).

Shape rules the descriptor file cannot express:

From the docs page: DimensionCount (the length of InputWindowOffsets, InputWindowSizes and InputWindowStrides)
"must equal the DimensionCount provided in the InputGradientTensor and OutputGradientTensor"; the window arrays
mean what they mean in SLICE1, whose input is OutputGradientTensor and whose output is InputGradientTensor:
the window "mustn't be empty" (InputWindowSizes >= 1) and lies inside OutputGradientTensor
(InputWindowOffsets[i] + InputWindowSizes[i] <= OutputGradientTensor.Sizes[i]); and "this operator requires
non-zero strides".

DirectML differs from SLICE1's "OutputTensor.Sizes[i] <= MaxCopiedElements" rule: it runs an
InputGradientTensor of 5 along a window of 4 at stride 1 (vector float32_offsets_strides) and writes the fifth
element past the window, at CopyStart + InputWindowStrides[i] * j. dmlops therefore does not bound
InputGradientTensor by the window; it requires instead that every element lands inside OutputGradientTensor:
0 <= CopyStart[i] + InputWindowStrides[i] * (InputGradientTensor.Sizes[i] - 1) < OutputGradientTensor.Sizes[i],
where CopyStart[i] is InputWindowOffsets[i], plus InputWindowSizes[i] - 1 for a negative stride.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _layout as L
from .slice import torch_movable

ARRAYS = ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")


def check(desc, level) -> list[Problem]:
    """Strides nonzero; window nonempty and inside OutputGradientTensor; DimensionCount; every gradient element
    lands inside OutputGradientTensor."""
    op = desc.OPERATOR_TYPE
    offsets, window, strides = desc.input_window_offsets, desc.input_window_sizes, desc.input_window_strides
    out = [Problem(op, f"InputWindowStrides[{i}]", "range", "0 is not allowed (allowed: a positive or negative "
                                                            "stride; this operator requires non-zero strides).")
           for i, s in enumerate(strides) if s == 0]
    out += L.positive_problems(desc, "InputWindowSizes", window, "the input window mustn't be empty")
    dy = L.sizes(L.tensor(desc, "InputGradientTensor"))
    lengths = {len(offsets), len(window), len(strides)}
    if not dy or len(lengths) > 1:
        return out  # the generic validator reports arrays of different lengths
    bad = L.count_problems(desc, "DimensionCount", ARRAYS, lengths.pop(), len(dy), "InputGradientTensor")
    if bad:
        return out + bad
    dx = L.sizes(L.tensor(desc, "OutputGradientTensor"), len(dy))
    if dx is None:
        return out  # the generic validator reports the DimensionCount difference
    for i, (n, offset, size, stride, count) in enumerate(zip(dx, offsets, window, strides, dy)):
        if offset + size > n:
            out.append(Problem(op, None, "bounds",
                               f"dimension {i}: InputWindowOffsets[{i}] + InputWindowSizes[{i}] = {offset} + {size} = "
                               f"{offset + size} exceeds OutputGradientTensor's Sizes[{i}] = {n} "
                               f"(allowed: up to {n})."))
            continue
        if size == 0 or stride == 0:
            continue
        start = offset + (size - 1 if stride < 0 else 0)
        last = start + stride * (count - 1)
        if not 0 <= last < n:
            out.append(Problem(op, "InputGradientTensor", "bounds",
                               f"Sizes[{i}] = {count} elements from CopyStart {start} at stride {stride} reach index "
                               f"{last}, outside OutputGradientTensor's Sizes[{i}] = {n} (allowed: 0 to {n - 1})."))
    return out


# ----------------------------------------------------------------------------------------------- lowerings
def addresses(desc) -> np.ndarray:
    """The flat address in OutputGradientTensor of each InputGradientTensor element (int64, its Sizes)."""
    dy, dx = desc.input_gradient_tensor.sizes, desc.output_gradient_tensor.sizes
    out_strides = [int(np.prod(dx[i + 1:], dtype=np.int64)) for i in range(len(dx))]
    total = np.zeros(tuple(dy), np.int64)
    for i, (n, offset, size, stride) in enumerate(zip(dy, desc.input_window_offsets, desc.input_window_sizes,
                                                      desc.input_window_strides)):
        start = offset + (size - 1 if stride < 0 else 0)
        shape = [1] * len(dy)
        shape[i] = n
        total = total + ((start + stride * np.arange(n, dtype=np.int64)) * out_strides[i]).reshape(shape)
    return total


def _source(desc) -> np.ndarray:
    """For each OutputGradientTensor element, the InputGradientTensor element written there, or M (the zero)."""
    a = addresses(desc).reshape(-1)
    source = np.full(desc.output_gradient_tensor.element_count, a.size, np.int64)
    source[a] = np.arange(a.size, dtype=np.int64)
    return source


def reference(desc, x):
    """Zeros with the gradient written at the window's addresses."""
    dy = x["InputGradientTensor"]
    out = np.zeros(desc.output_gradient_tensor.element_count, dy.dtype)
    out[addresses(desc).reshape(-1)] = dy.reshape(-1)
    return {"OutputGradientTensor": out.reshape(desc.output_gradient_tensor.sizes)}


def to_onnx(desc, g, x):
    """Gather from [gradient, 0] by the constant source table."""
    dy = x["InputGradientTensor"]
    padded = g.node("Concat", [g.node("Reshape", [dy, g.ints([-1])]), g.const(np.zeros(1, g.dtype(dy)))], axis=0)
    y = g.node("Gather", [padded, g.const(_source(desc))], axis=0)
    return {"OutputGradientTensor": g.node("Reshape", [y, g.ints(desc.output_gradient_tensor.sizes)])}


def to_torch(desc, torch, x):
    """index_select from [gradient, 0] by the constant source table."""
    v, back = torch_movable(torch, x["InputGradientTensor"])
    padded = torch.cat([v.reshape(-1), torch.zeros(1, dtype=v.dtype, device=v.device)])
    source = torch.from_numpy(_source(desc)).to(v.device)
    y = torch.index_select(padded, 0, source)
    return {"OutputGradientTensor": back(y).reshape(desc.output_gradient_tensor.sizes)}


# ----------------------------------------------------------------------------------------------- samples
def _desc(data_type, dy_sizes, dx_sizes, offsets, sizes, strides):
    from ..descs import SliceGrad

    return SliceGrad(input_gradient_tensor=td(data_type, dy_sizes), output_gradient_tensor=td(data_type, dx_sizes),
                     input_window_offsets=tuple(offsets), input_window_sizes=tuple(sizes),
                     input_window_strides=tuple(strides))


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    out = [
        # The docs' example: a SLICE1 of {4, 4} that took [[a, c], [i, k]] (the page gives no window arrays;
        # offsets {0, 0}, sizes {4, 4}, strides {2, 2} take exactly those); its output, the page shows, puts
        # the gradient back in those places and 0 elsewhere.
        Sample("docs_strides_2", _desc("FLOAT32", [2, 2], [4, 4], [0, 0], [4, 4], [2, 2]),
               {"InputGradientTensor": np.array([[1, 2], [3, 4]], f32)},
               {"OutputGradientTensor": np.array([[1, 0, 2, 0], [0, 0, 0, 0], [3, 0, 4, 0], [0, 0, 0, 0]], f32)},
               **EXACT),
        # Negative stride: a window of 5 at offset 1 of 7, stride -2: CopyStart 5, then 3 (SLICE1's sample
        # negative_stride_partial, reversed): [a, b] -> [0, 0, 0, b, 0, a, 0].
        Sample("negative_stride", _desc("FLOAT32", [2], [7], [1], [5], [-2]),
               {"InputGradientTensor": np.array([-0.0, 7], f32)},
               {"OutputGradientTensor": np.array([0, 0, 0, 7, 0, -0.0, 0], f32)}, **EXACT),
        # Mixed signs in 3-D; NumPy's signed slicing writes the same window (an independent formula).
        Sample("3d_mixed_signs", _desc("FLOAT32", [2, 2, 4], [4, 5, 6], [1, 0, 2], [3, 5, 4], [-2, 3, -1]),
               {"InputGradientTensor": np.arange(1, 17, dtype=f32).reshape(2, 2, 4)},
               {"OutputGradientTensor": _numpy_adjoint((4, 5, 6), (slice(3, 0, -2), slice(0, 5, 3), slice(5, 1, -1)),
                                                       np.arange(1, 17, dtype=f32).reshape(2, 2, 4))}, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc(t, [1, 2], [2, 3], [1, 0], [1, 3], [1, -2]),
                          {"InputGradientTensor": ew.int_array([[lo, hi]], t)},
                          {"OutputGradientTensor": ew.int_array([[0, 0, 0], [hi, 0, lo]], t)}, **EXACT))
    return out


def _numpy_adjoint(shape, window, dy):
    out = np.zeros(shape, dy.dtype)
    out[window] = dy
    return out


SAMPLES = _samples()
