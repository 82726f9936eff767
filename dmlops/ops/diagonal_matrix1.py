"""DML_OPERATOR_DIAGONAL_MATRIX1: Value on a band of diagonals, InputTensor (or 0) elsewhere.

For each output coordinate (y, x: the last two dimensions; leading dimensions are batches), with topX = x - y,
useValue = (DiagonalFillEnd >= DiagonalFillBegin) ^ (topX >= DiagonalFillBegin) ^ (topX < DiagonalFillEnd): the
diagonals DiagonalFillBegin <= topX < DiagonalFillEnd get Value, and begin > end inverts the band (the page's
pseudo-code). Elsewhere OutputTensor is InputTensor when given, else 0. Value is a DML_SCALAR_UNION read as
ValueDataType (a FLOAT16 Value is the nearest half). DirectML's vectors agree (fill_0_2_no_input and
fill_m1_1_with_input, FLOAT32, FLOAT16 and INT32). Pure selection: exact on every backend, NaN and -0.0 included.

Rules the descriptor file cannot express, from the docs page: ValueDataType "must match OutputTensor::DataType";
the optional InputTensor supplies OutputTensor[coordinate] off the diagonal band (the page's pseudo-code reads
InputTensor[coordinate] for every output coordinate), so it must have OutputTensor's Sizes (DataType and
DimensionCount are the generic validator's rules). DiagonalFillBegin and DiagonalFillEnd take any values (begin >
end inverts the band). DirectML agrees (vectors: a FLOAT32 ValueDataType with FLOAT16 tensors, and a {1, 1, 1, 1}
InputTensor with a {1, 1, 1, 2} OutputTensor, are refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """ValueDataType = OutputTensor.DataType; InputTensor (when given) has OutputTensor's Sizes."""
    return L.value_type_problems(desc, "ValueDataType") + L.same_sizes_problems(desc, "InputTensor", "OutputTensor")


def top_x(sizes) -> np.ndarray:
    """x - y over the last two dimensions ([H, W] int64; leading dimensions broadcast)."""
    h, w = sizes[-2], sizes[-1]
    return np.arange(w, dtype=np.int64)[None, :] - np.arange(h, dtype=np.int64)[:, None]


def band(sizes, begin: int, end: int) -> np.ndarray:
    """The page's useValue for every coordinate of ``sizes`` (bool, ``sizes``)."""
    t = top_x(sizes)
    use = (end >= begin) ^ (t >= begin) ^ (t < end)
    return np.broadcast_to(use, tuple(sizes))


def value_array(desc, dtype) -> np.ndarray:
    """Value as a 0-d array of ``dtype`` (the compute type: float32 for FLOAT16, after rounding to a half)."""
    value = np.asarray(desc.value, dtype=desc.value_data_type.numpy_dtype)
    return value.astype(dtype)


def _compute_dtype(desc) -> np.dtype:
    t = desc.output_tensor.data_type.numpy_dtype
    return np.dtype(np.float32) if t == np.float16 else np.dtype(t)


def reference(desc, x):
    """np.where of the band over Value and InputTensor (or 0)."""
    sizes = tuple(desc.output_tensor.sizes)
    mask = band(sizes, desc.diagonal_fill_begin, desc.diagonal_fill_end)
    dtype = _compute_dtype(desc)
    other = x["InputTensor"] if x.get("InputTensor") is not None else np.zeros(sizes, dtype)
    return {"OutputTensor": np.where(mask, value_array(desc, other.dtype), other)}


def onnx_select(g, mask: np.ndarray, value: np.ndarray, other: str) -> str:
    """``mask ? value : other`` as one Gather from [other..., value] with a constant index table: exact for every
    type (ONNX Runtime's CPU provider has no Where for int16, uint16 or uint64)."""
    count = int(mask.size)
    flat = g.node("Reshape", [other, g.ints([-1])])
    pool = g.node("Concat", [flat, g.const(value.reshape(1))], axis=0)
    index = np.where(mask, count, np.arange(count, dtype=np.int64).reshape(mask.shape))
    return g.node("Gather", [pool, g.const(index.astype(np.int64))], axis=0)


def to_onnx(desc, g, x):
    """A constant without InputTensor; else a Gather from InputTensor and Value (:func:`onnx_select`)."""
    sizes = tuple(desc.output_tensor.sizes)
    mask = band(sizes, desc.diagonal_fill_begin, desc.diagonal_fill_end)
    if x.get("InputTensor") is None:
        return {"OutputTensor": g.const(reference(desc, x)["OutputTensor"])}
    v = x["InputTensor"]
    return {"OutputTensor": onnx_select(g, mask, value_array(desc, g.dtype(v)), v)}


def torch_select(torch, mask: np.ndarray, value: np.ndarray, other):
    """``mask ? value : other`` with torch.where (uint16/32/64 through their int64 bits)."""
    v, back = ew.torch_bits(torch, other)
    val, _ = ew.torch_bits(torch, torch.from_numpy(value.reshape(1)).to(other.device))
    keep = torch.from_numpy(np.array(mask)).to(other.device)
    return back(torch.where(keep, val, v))


def to_torch(desc, torch, x):
    """torch.where over InputTensor; without InputTensor the NumPy result as a CPU tensor (lower_torch is not told
    the compiled device of an operator without inputs, as for FILL_VALUE_CONSTANT)."""
    if x.get("InputTensor") is None:
        return {"OutputTensor": torch.from_numpy(reference(desc, x)["OutputTensor"])}
    sizes = tuple(desc.output_tensor.sizes)
    mask = band(sizes, desc.diagonal_fill_begin, desc.diagonal_fill_end)
    v = x["InputTensor"]
    return {"OutputTensor": torch_select(torch, mask, value_array(desc, ew.torch_numpy_dtype(torch, v.dtype)), v)}


DOCS_INPUT = [[4, 7, 3, 7, 9], [1, 2, 8, 6, 9], [9, 4, 1, 8, 7], [4, 3, 4, 2, 4]]


def _desc(data_type, sizes, value, begin, end, with_input):
    from ..descs import DiagonalMatrix1

    return DiagonalMatrix1(input_tensor=td(data_type, sizes) if with_input else None, output_tensor=td(data_type, sizes),
                           value_data_type=data_type, value=value, diagonal_fill_begin=begin, diagonal_fill_end=end)


def _samples():
    f32 = np.float32
    docs = np.array(DOCS_INPUT, f32)
    exact = dict(atol=0, rtol=0, why="exact: selection", float16=False)
    out = [
        # The docs' examples. "Default identity matrix" prints ones although Value is 7: 7 is what the pseudo-code
        # writes (the example's Value and output disagree; the pseudo-code is followed).
        Sample("docs_identity_value_7", _desc("FLOAT32", [4, 5], 7.0, 0, 1, False), {},
               {"OutputTensor": np.eye(4, 5, dtype=f32) * 7}, **exact),
        Sample("docs_strip_0_3", _desc("FLOAT32", [4, 5], 7.0, 0, 3, False), {},
               {"OutputTensor": np.array([[7, 7, 7, 0, 0], [0, 7, 7, 7, 0], [0, 0, 7, 7, 7], [0, 0, 0, 7, 7]], f32)},
               **exact),
        Sample("docs_upper_triangle", _desc("FLOAT32", [4, 5], 0.0, -2**31, 1, True), {"InputTensor": docs},
               {"OutputTensor": np.array([[0, 7, 3, 7, 9], [0, 0, 8, 6, 9], [0, 0, 0, 8, 7], [0, 0, 0, 0, 4]], f32)},
               **exact),
        Sample("docs_inverted_keeps_diagonal", _desc("FLOAT32", [4, 5], 0.0, 1, 0, True), {"InputTensor": docs},
               {"OutputTensor": np.array([[4, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, 0]], f32)},
               **exact),
        # Batches: {2, 1, 2, 3}, band -1 <= x - y < 1 over NaN and -0.0 inputs (kept off the band).
        Sample("batched_nan_negzero", _desc("FLOAT32", [2, 1, 2, 3], 2.5, -1, 1, True),
               {"InputTensor": np.array([[[[np.nan, -0.0, 1], [2, 3, np.nan]]], [[[-0.0, 5, 6], [7, 8, 9]]]], f32)},
               {"OutputTensor": np.array([[[[2.5, -0.0, 1], [2.5, 2.5, np.nan]]], [[[2.5, 5, 6], [2.5, 2.5, 9]]]],
                                         f32)}, **exact),
        # FLOAT16: Value 0.1 is the half 0.0999755859375 (nearest), kept by the toward-zero store.
        Sample("float16_value", _desc("FLOAT16", [2, 2], 0.1, 0, 1, False), {},
               {"OutputTensor": np.array([[0.0999755859375, 0], [0, 0.0999755859375]], np.float16)}, **exact),
    ]
    for t, value in (("INT8", -128), ("UINT8", 255), ("INT16", -32768), ("UINT16", 65535), ("INT32", -7),
                     ("UINT32", 2**32 - 1), ("INT64", -2**63), ("UINT64", 2**64 - 1), ("FLOAT64", 1 + 2**-40)):
        dtype = np.dtype(t.lower())
        x = np.arange(1, 7, dtype=np.int64).astype(dtype).reshape(2, 3)
        # Band 1 <= x - y < 3: (0, 1), (0, 2), (1, 2).
        want = x.copy()
        want[0, 1] = want[0, 2] = want[1, 2] = value
        out.append(Sample(f"{t.lower()}_with_input", _desc(t, [2, 3], value, 1, 3, True), {"InputTensor": x},
                          {"OutputTensor": want}, **exact))
    return out


SAMPLES = _samples()
