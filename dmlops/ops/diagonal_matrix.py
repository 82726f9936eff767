"""DML_OPERATOR_DIAGONAL_MATRIX: Value where x - y = Offset, 0 elsewhere.

OutputTensor's last two dimensions are the matrix ({Batch1, Batch2, OutputHeight, OutputWidth}; "the height and
width don't need to be square"); leading dimensions repeat it. Value is a 32-bit FLOAT; "if the DataType of the
tensors is not FLOAT16 or FLOAT32, then the value might be truncated" (10.6 -> 10); FLOAT16 stores it toward zero.
DirectML's vectors agree (offsets 0, 2 and -1, FLOAT32 and FLOAT16, 4 x 5). Integer outputs: DirectML truncates
Value toward zero into a 32-bit register and stores the type's low bits, so an 8- or 16-bit type wraps: Value 300
in INT8 gives 44 (300 - 256; sample_int8_saturates), not 127. dmlops reads the register as INT32 for signed types
and UINT32 for unsigned ones, saturated there (D3D's float-to-integer conversion; NaN gives 0), and INT64/UINT64
as the type itself, saturated: only the 8-bit wrap is measured (so UINT8 -1 gives 0, INT16 40000 gives -25536 and
INT32 3e9 gives 2147483647 are inferences).

No shape rule beyond the descriptor file's: OutputTensor's DimensionCount and DataType are the support tiers'
rules; Offset and Value take any value, so check() finds nothing.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from .diagonal_matrix1 import top_x


def check(desc, level) -> list[Problem]:
    """Nothing to check beyond the generic rules: any OutputTensor Sizes, any Offset and Value."""
    return []


def _value(value: float, dtype: np.dtype) -> np.ndarray:
    """Value as the output's dtype (module docstring): floats as a float32 FLOAT; integers truncated into a 32-bit
    register of the type's signedness (saturated there, NaN 0) and wrapped to the type's width; 64-bit types
    saturated."""
    if dtype.kind == "f" or dtype.itemsize == 8:
        return np.asarray(ew.attribute_value(value, dtype), dtype=dtype)
    register = np.dtype(np.int32 if dtype.kind == "i" else np.uint32)
    return np.asarray(ew.attribute_value(value, register), dtype=register).astype(dtype)  # keeps the low bits


def reference(desc, x):
    """np.where(x - y == Offset, Value, 0) broadcast over the leading dimensions."""
    t = desc.output_tensor.data_type.numpy_dtype
    dtype = np.dtype(np.float32) if t == np.float16 else np.dtype(t)
    value = _value(desc.value, dtype)
    sizes = tuple(desc.output_tensor.sizes)
    mask = np.broadcast_to(top_x(sizes) == desc.offset, sizes)
    return {"OutputTensor": np.where(mask, value, np.zeros((), dtype))}


def to_onnx(desc, g, x):
    """A constant: the operator has no inputs (EyeLike would need a shaped input and still a Mul by Value)."""
    return {"OutputTensor": g.const(reference(desc, x)["OutputTensor"])}


def to_torch(desc, torch, x):
    """The NumPy result as a CPU tensor: with no inputs, lower_torch is not told the compiled device (as for
    FILL_VALUE_CONSTANT)."""
    return {"OutputTensor": torch.from_numpy(np.ascontiguousarray(reference(desc, x)["OutputTensor"]))}


def _desc(data_type, sizes, offset, value):
    from ..descs import DiagonalMatrix

    return DiagonalMatrix(output_tensor=td(data_type, sizes), offset=offset, value=value)


def _samples():
    f32 = np.float32
    exact = dict(atol=0, rtol=0, why="exact: a constant")
    return [
        # The docs' four examples.
        Sample("docs_identity", _desc("FLOAT32", [1, 1, 3, 3], 0, 1.0), {},
               {"OutputTensor": np.eye(3, dtype=f32).reshape(1, 1, 3, 3)}, **exact),
        Sample("docs_offset_1", _desc("FLOAT32", [1, 1, 3, 3], 1, 1.0), {},
               {"OutputTensor": np.array([[[[0, 1, 0], [0, 0, 1], [0, 0, 0]]]], f32)}, **exact),
        Sample("docs_offset_m1", _desc("FLOAT32", [1, 1, 3, 2], -1, 1.0), {},
               {"OutputTensor": np.array([[[[0, 0], [1, 0], [0, 1]]]], f32)}, **exact),
        Sample("docs_offset_m3_all_zero", _desc("FLOAT32", [1, 1, 3, 2], -3, 1.0), {},
               {"OutputTensor": np.zeros((1, 1, 3, 2), f32)}, **exact),
        # Batches repeat the matrix; 2 dimensions at feature level 4.0.
        Sample("batched", _desc("FLOAT32", [2, 3, 2, 4], 2, -0.5), {},
               {"OutputTensor": np.broadcast_to(np.array([[0, 0, -0.5, 0], [0, 0, 0, -0.5]], f32), (2, 3, 2, 4))},
               **exact),
        Sample("rank2", _desc("FLOAT32", [3, 2], 0, 4.0), {}, {"OutputTensor": np.eye(3, 2, dtype=f32) * 4}, **exact),
        # Integer outputs truncate Value toward zero (the page: 10.6 -> 10); INT8 keeps the low 8 bits of the
        # 32-bit integer (DirectML's sample_int8_saturates: 300 -> 44), and -200 -> 56 the same way.
        Sample("int32_truncates", _desc("INT32", [2, 2], 0, 10.6), {},
               {"OutputTensor": np.array([[10, 0], [0, 10]], np.int32)}, **exact),
        Sample("int32_truncates_negative", _desc("INT32", [2, 2], 0, -10.6), {},
               {"OutputTensor": np.array([[-10, 0], [0, -10]], np.int32)}, **exact),
        Sample("int8_saturates", _desc("INT8", [2, 2], 0, 300.0), {},
               {"OutputTensor": np.array([[44, 0], [0, 44]], np.int8)}, **exact),
        Sample("int8_wraps_negative", _desc("INT8", [2, 2], 0, -200.7), {},
               {"OutputTensor": np.array([[56, 0], [0, 56]], np.int8)}, **exact),
        Sample("uint8", _desc("UINT8", [1, 2, 3], 1, 255.0), {},
               {"OutputTensor": np.array([[[0, 255, 0], [0, 0, 255]]], np.uint8)}, **exact),
        Sample("uint64", _desc("UINT64", [2, 2], -1, 7.0), {},
               {"OutputTensor": np.array([[0, 0], [7, 0]], np.uint64)}, **exact),
        # FLOAT64: Value is a 32-bit FLOAT field, so 0.1 arrives as float32(0.1).
        Sample("float64_value_is_float32", _desc("FLOAT64", [2, 2], 0, 0.1), {},
               {"OutputTensor": np.eye(2) * float(np.float32(0.1))}, **exact),
    ]


SAMPLES = _samples()
