"""DML_OPERATOR_FILL_VALUE_SEQUENCE: OutputTensor[i] = ValueStart + i * ValueDelta over the flat element index.

i runs over OutputTensor's logical elements in row-major order ("for each elementIndex in OutputTensor"; "may
have any size"). ValueStart and ValueDelta are DML_SCALAR_UNIONs read as ValueDataType (a FLOAT16 value is the
nearest half). Each element is computed on its own, not by a running sum, as DirectML's vectors show:

* floats in float32: i converted to float32, times ValueDelta, rounded, plus ValueStart, rounded
  (float32_start_16777215.0_delta_1.0: 16777215 + 3 = 16777218, 16777215 + 5 = 16777220 (the tie to even), no
  accumulated error); whether the GPU fuses the multiply-add into one rounding no vector can tell (every product
  there is exact);
* FLOAT16 is computed in float32 and stored toward zero (float16_start_1000.0_delta_0.1: the half 0.1 is
  0.0999755859375, and 1000 + 10 * that = 1000.99976 is stored as 1000.5, not 1001);
* integers wrap (uint8_start_250_delta_3: 250, 253, 0, 3; int8_start_120_delta_5: 120, 125, -126). The docs'
  Example 2 writes ValueDelta = -2 for UINT8: the union holds its bits, 254, which is what dmlops takes (the
  validator refuses -2 for UINT8), and 10 + 254 i wraps to 10 - 2 i.

Rules the descriptor file cannot express, from the docs page: ValueDataType, the type of ValueStart and
ValueDelta, "must match OutputTensor.DataType". DirectML agrees (vectors: a FLOAT32 ValueDataType with a FLOAT16
OutputTensor is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """ValueDataType = OutputTensor.DataType."""
    return L.value_type_problems(desc, "ValueDataType")


def _count(desc) -> int:
    return int(np.prod(desc.output_tensor.sizes, dtype=np.int64))


def _float_terms(desc):
    """(ValueStart, ValueDelta) as float32 (through the half for FLOAT16)."""
    t = desc.value_data_type.numpy_dtype
    return (np.asarray(desc.value_start, dtype=t).astype(np.float32),
            np.asarray(desc.value_delta, dtype=t).astype(np.float32))


def _bits(value: int) -> int:
    """An integer union value as its 64-bit two's complement pattern (a Python int in [0, 2**64))."""
    return int(value) % 2**64


def reference(desc, x):
    """Floats: float32(i) * ValueDelta + ValueStart in float32; integers: the same in 64-bit wrapping arithmetic,
    then the low bits of the type."""
    t = desc.output_tensor.data_type.numpy_dtype
    n = _count(desc)
    sizes = tuple(desc.output_tensor.sizes)
    if np.dtype(t).kind == "f":
        start, delta = _float_terms(desc)
        i = np.arange(n, dtype=np.int64).astype(np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            return {"OutputTensor": (i * delta + start).reshape(sizes)}
    i = np.arange(n, dtype=np.uint64)
    y = i * np.uint64(_bits(desc.value_delta)) + np.uint64(_bits(desc.value_start))  # wraps modulo 2**64
    return {"OutputTensor": y.astype(t).reshape(sizes)}  # the low bits (C conversion)


def to_onnx(desc, g, x):
    """Generated in the graph, as the reference computes it, so the model holds a few scalars however large the
    output (a folded constant of [2**29] FLOAT32 took 29 s, 6.2 GiB and then protobuf's 2 GiB limit): the element
    index from an integer Range (ONNX Range on floats may accumulate, and lacks most integer types), then floats as
    float32(i) * ValueDelta + ValueStart in float32, integers as i * ValueDelta + ValueStart in unsigned arithmetic
    that wraps (32 bits for types up to 32 bits: their low bits are those of the 64-bit sum; 64 bits otherwise),
    cast to the output type (the low bits, as the reference's C conversion)."""
    t = np.dtype(desc.output_tensor.data_type.numpy_dtype)
    n = _count(desc)
    index_type = np.int32 if n < 2**31 else np.int64
    i = g.node("Range", [g.const(index_type(0)), g.const(index_type(n)), g.const(index_type(1))])
    if t.kind == "f":
        start, delta = _float_terms(desc)
        y = g.node("Add", [g.node("Mul", [g.cast(i, np.float32), g.const(delta)]), g.const(start)])
    else:
        wide = np.dtype(np.uint64 if t.itemsize == 8 else np.uint32)
        modulus = 2 ** (8 * wide.itemsize)
        terms = [g.const(wide.type(_bits(v) % modulus)) for v in (desc.value_delta, desc.value_start)]
        y = g.cast(g.node("Add", [g.node("Mul", [g.cast(i, wide), terms[0]]), terms[1]]), t)
    return {"OutputTensor": g.node("Reshape", [y, g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """arange(n) * ValueDelta + ValueStart in float32, or in int64 (wrapping) for integers, reshaped; a CPU tensor,
    as lower_torch is not told the compiled device of an operator without inputs (as for FILL_VALUE_CONSTANT)."""
    t = desc.output_tensor.data_type.numpy_dtype
    n = _count(desc)
    sizes = list(desc.output_tensor.sizes)
    if np.dtype(t).kind == "f":
        start, delta = _float_terms(desc)
        i = torch.arange(n, dtype=torch.int64).to(torch.float32)
        y = i * torch.tensor(float(delta), dtype=torch.float32) + torch.tensor(float(start), dtype=torch.float32)
        return {"OutputTensor": y.reshape(sizes)}

    def signed(v):  # the 64-bit pattern as an int64 value
        b = _bits(v)
        return b - 2**64 if b >= 2**63 else b

    i = torch.arange(n, dtype=torch.int64)
    y = (i * signed(desc.value_delta) + signed(desc.value_start)).reshape(sizes)  # int64 arithmetic wraps
    if np.dtype(t) == np.uint64:
        return {"OutputTensor": y.view(torch.uint64)}
    if np.dtype(t) == np.int64:
        return {"OutputTensor": y}
    return {"OutputTensor": y.to(getattr(torch, np.dtype(t).name))}  # .to keeps the low bits


def _desc(data_type, sizes, start, delta):
    from ..descs import FillValueSequence

    return FillValueSequence(output_tensor=td(data_type, sizes), value_data_type=data_type, value_start=start,
                             value_delta=delta)


def _samples():
    exact = dict(atol=0, rtol=0, why="exact: the formula per element", float16=False)

    def s(name, t, sizes, start, delta, want):
        return Sample(name, _desc(t, sizes, start, delta), {},
                      {"OutputTensor": np.array(want, dtype=np.dtype(t.lower())).reshape(sizes)}, **exact)

    return [
        # The docs' examples: 3, 5, 7; and UINT8 10 with ValueDelta -2, held as 254: 10, 8, 6, 4.
        s("docs_example_1", "FLOAT32", [1, 1, 1, 3], 3, 2, [3, 5, 7]),
        s("docs_example_2_uint8_minus_2", "UINT8", [1, 1, 2, 2], 10, 254, [10, 8, 6, 4]),
        # Per element, not a running sum: float32(i) * float32(0.1) rounds to 0.7, 0.8, 0.90000004 and 1.0 for
        # i = 7 to 10, where adding float32(0.1) ten times drifts to 0.70000005, 0.8000001, 0.9000001, 1.0000001.
        s("float32_per_element", "FLOAT32", [11], 0, 0.1,
          [np.float32(i) * np.float32(0.1) for i in range(11)]),
        # FLOAT16: start 1000, delta the half 0.0999755859375: 1000 + 6 * delta = 1000.59985 stored toward zero as
        # 1000.5; 1000 + 11 * delta = 1001.09973 -> 1001.
        s("float16_toward_zero", "FLOAT16", [12], 1000.0, 0.1,
          [1000] * 6 + [1000.5] * 5 + [1001]),
        s("float16_negative_delta", "FLOAT16", [2, 2], 0.5, -0.25, [0.5, 0.25, 0, -0.25]),
        # Integers wrap: INT8 120 + 5 i: 120, 125, -126; UINT16 65534 + i; INT32 near the top.
        s("int8_wraps", "INT8", [4], 120, 5, [120, 125, -126, -121]),
        s("uint16_wraps", "UINT16", [3], 65534, 1, [65534, 65535, 0]),
        s("int16_negative", "INT16", [3], -32767, -1, [-32767, -32768, 32767]),
        s("int32_wraps", "INT32", [2, 2], 2147483646, 1, [2147483646, 2147483647, -2147483648, -2147483647]),
        s("uint32_delta_max", "UINT32", [3], 5, 2**32 - 1, [5, 4, 3]),
        s("int64_wraps", "INT64", [3], 2**63 - 2, 1, [2**63 - 2, 2**63 - 1, -2**63]),
        s("uint64_high", "UINT64", [3], 2**64 - 2, 2**63, [2**64 - 2, 2**63 - 2, 2**64 - 2]),
        # Rank 8, any sizes.
        s("rank8", "INT32", [1, 2, 1, 1, 2, 1, 1, 2], -3, 2, list(range(-3, 13, 2))),
    ]


SAMPLES = _samples()
