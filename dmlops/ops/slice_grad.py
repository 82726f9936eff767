"""DML_OPERATOR_SLICE_GRAD: shape rules the descriptor file cannot express.

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

from ..errors import Problem
from . import _layout as L

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
