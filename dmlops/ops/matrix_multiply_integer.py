"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER: shape rules the descriptor file cannot express.

From the docs: ATensor is {BatchCount, ChannelCount, M, K}, BTensor {BatchCount, ChannelCount, K, N}
and OutputTensor {BatchCount, ChannelCount, M, N}; from DML_FEATURE_LEVEL_4_0 the leading dimensions
are optional (2 to 4 dimensions; the three share a DimensionCount, the descriptor's 'same' rule).
ATensor defines the leading dimensions, M and K; BTensor defines N. AZeroPointTensor is per-tensor
{1, 1, 1, 1} or per-row {1, 1, M, 1}; BZeroPointTensor per-tensor {1, 1, 1, 1} or per-column
{1, 1, 1, N}. The zero points may have fewer dimensions (1 to 4 from 4_0/5_2): leading 1s are dropped
({M, 1}, {1, N}, {N}). A per-row AZeroPointTensor keeps two: DirectML reads a 1-D tensor along its last
dimension and refused a 1-D {M} (vector sample_batched_3d_1d_zero_points), although the tier table writes the
layout as { [1], [1], AZeroPointCount, [1] }. Each zero point has its matrix's DataType (the 'same' rule).

Math (docs): Output = (A - AZeroPoint) x (B - BZeroPoint), accumulated in INT32, one product per
leading index; an absent zero point is 0. Sums wrap modulo 2**32 (the INT32 accumulator; sample wrap_int32:
33028 products 255 * 255 give 2147645700 - 2**32). A and B may have different DataTypes (INT8 x UINT8).
How each backend stays exact on every CPU: dmlops/ops/_integer_linear.py (NumPy: integer arithmetic; ONNX on the
CPU and CUDA providers: one float64 MatMul of the centred values, exact below 2**53, never ONNX Runtime's
MatMulInteger kernels; on DirectML's provider: MatMulInteger, DirectML's own kernel, with the zero points applied as
int32 corrections; torch: float32 matmuls of 4-bit digits).

DirectML ran every other sample bit for bit (the acceptance run of 2026-11-28; the vectors hold only its refusal of
the 1-D per-row zero point); the docs, ONNX MatMulInteger's node cases and NumPy int64 arithmetic over every DataType
pair decide the rest (tests/test_oracle_integer_linear.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _integer_linear as il
from ._quantized import matmul_sizes, per_axis_problems


def check(desc, level) -> list[Problem]:
    """BTensor {.., K, N} and OutputTensor {.., M, N} follow ATensor; zero points per-tensor/row/column."""
    out, m, n = matmul_sizes(desc)
    return out + per_axis_problems(desc, ["AZeroPointTensor"], ["BZeroPointTensor"], m, n)


def zero_point_shapes(desc, a_zp="AZeroPointTensor", b_zp="BZeroPointTensor"):
    """The broadcast shapes of the A zero point (per row {M, 1}) and the B zero point (per column {1, N})."""
    tds = desc.tensors()
    za, zb = tds.get(a_zp), tds.get(b_zp)
    return (None if za is None else il.row(il.count(za)), None if zb is None else il.column(il.count(zb)))


def reference(desc, x):
    """uint64 matmul of the centred values, low 32 bits (dmlops.ops._integer_linear)."""
    sa, sb = zero_point_shapes(desc)
    va = il.reference_centered(x["ATensor"], x["AZeroPointTensor"], sa)
    vb = il.reference_centered(x["BTensor"], x["BZeroPointTensor"], sb)
    return {"OutputTensor": il.reference_matmul(va, vb)}


def to_onnx(desc, g, x):
    """A float64 MatMul (DirectML's provider: MatMulInteger, zero points as int32 corrections)."""
    sa, sb = zero_point_shapes(desc)
    za, zb = il.onnx_shaped(g, x["AZeroPointTensor"], sa), il.onnx_shaped(g, x["BZeroPointTensor"], sb)
    return {"OutputTensor": il.onnx_matmul(g, x["ATensor"], za, x["BTensor"], zb, desc.a_tensor.sizes[-1])}


def to_torch(desc, torch, x):
    """Exact float32 matmuls of digits, combined in int32."""
    sa, sb = zero_point_shapes(desc)
    va = il.torch_centered(torch, x["ATensor"], x["AZeroPointTensor"], sa)
    vb = il.torch_centered(torch, x["BTensor"], x["BZeroPointTensor"], sb)
    return {"OutputTensor": il.torch_matmul(torch, va, vb)}


def _mmi(a, b, y, za=None, zb=None, a_type="UINT8", b_type="UINT8", a_strides=None):
    from ..descs import MatrixMultiplyInteger

    return MatrixMultiplyInteger(
        a_tensor=td(a_type, a, a_strides), a_zero_point_tensor=None if za is None else td(a_type, za),
        b_tensor=td(b_type, b), b_zero_point_tensor=None if zb is None else td(b_type, zb),
        output_tensor=td("INT32", y))


EXACT = dict(atol=0, rtol=0, why="integer arithmetic: exact")


def _samples():
    rng = np.random.default_rng(117)
    u8 = lambda *s: rng.integers(0, 256, s, dtype=np.uint8)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)  # noqa: E731
    k = 33028
    return [
        # By hand: A - 1 = [[0, 1], [2, 3]], B - 5 = [[0, 1], [2, 3]]; the product is
        # [[0*0 + 1*2, 0*1 + 1*3], [2*0 + 3*2, 2*1 + 3*3]] = [[2, 3], [6, 11]].
        Sample("per_tensor_2d", _mmi([2, 2], [2, 2], [2, 2], [1], [1]),
               {"ATensor": np.array([[1, 2], [3, 4]], np.uint8), "AZeroPointTensor": np.array([1], np.uint8),
                "BTensor": np.array([[5, 6], [7, 8]], np.uint8), "BZeroPointTensor": np.array([5], np.uint8)},
               {"OutputTensor": np.array([[2, 3], [6, 11]], np.int32)}, **EXACT),
        # By hand: INT8 A with per-row zero points {1, 1, 2, 1} = [1, -1]: rows [0, -3] and [3, 2]; UINT8 B with
        # per-column zero points {1, 1, 1, 2} = [0, 10]: B - zb = [[1, -8], [2, -7]];
        # row 0: [0*1 + -3*2, 0*-8 + -3*-7] = [-6, 21]; row 1: [3*1 + 2*2, 3*-8 + 2*-7] = [7, -38].
        Sample("per_row_int8_per_column_uint8_4d",
               _mmi([1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 1], [1, 1, 1, 2], a_type="INT8"),
               {"ATensor": np.array([1, -2, 2, 1], np.int8).reshape(1, 1, 2, 2),
                "AZeroPointTensor": np.array([1, -1], np.int8).reshape(1, 1, 2, 1),
                "BTensor": np.array([1, 2, 2, 3], np.uint8).reshape(1, 1, 2, 2),
                "BZeroPointTensor": np.array([0, 10], np.uint8).reshape(1, 1, 1, 2)},
               {"OutputTensor": np.array([-6, 21, 7, -38], np.int32).reshape(1, 1, 2, 2)}, **EXACT),
        # By hand: 33028 products 255 * 255 = 2147645700 > 2**31 - 1: the INT32 accumulator wraps to
        # 2147645700 - 2**32 = -2147321596.
        Sample("wrap_int32", _mmi([1, k], [k, 1], [1, 1]),
               {"ATensor": np.full((1, k), 255, np.uint8), "BTensor": np.full((k, 1), 255, np.uint8)},
               {"OutputTensor": np.array([[-2147321596]], np.int32)}, **EXACT),
        # By hand: no zero points, INT8 x INT8 extremes: -128 * -128 * 2 = 32768 and -128 * 127 + 127 * -128 = -32512.
        Sample("int8_extremes_no_zero_points", _mmi([1, 2], [2, 2], [1, 2], a_type="INT8", b_type="INT8"),
               {"ATensor": np.array([[-128, -128]], np.int8), "BTensor": np.array([[-128, 127], [-128, 0]], np.int8)},
               {"OutputTensor": np.array([[32768, -16256]], np.int32)}, **EXACT),
        # Zero points of fewer dimensions than the matrices: per-row {M, 1}, per-column {N} (ERRORS: DirectML refused
        # a 1-D per-row {M}).
        Sample("batched_3d_lower_rank_zero_points", _mmi([3, 4, 5], [3, 5, 6], [3, 4, 6], [4, 1], [6], a_type="INT8"),
               {"ATensor": i8(3, 4, 5), "AZeroPointTensor": i8(4, 1), "BTensor": u8(3, 5, 6),
                "BZeroPointTensor": u8(6)}, **EXACT),
        # ATensor broadcast over the batch through a zero stride.
        Sample("broadcast_a_4d", _mmi([2, 3, 4, 5], [2, 3, 5, 2], [2, 3, 4, 2], [1, 1, 1, 1], [1, 1, 1, 1],
                                      a_strides=[0, 0, 5, 1]),
               {"ATensor": u8(20), "AZeroPointTensor": u8(1, 1, 1, 1), "BTensor": u8(2, 3, 5, 2),
                "BZeroPointTensor": u8(1, 1, 1, 1)}, **EXACT),
    ]


SAMPLES = _samples()


# Descriptors DirectML refuses that the descriptor file alone would let through: (name, descriptor, message).
ERRORS = [
    ("one_d_per_row_zero_point",  # DirectML's vector sample_batched_3d_1d_zero_points
     _mmi([3, 4, 5], [3, 5, 6], [3, 4, 6], [4], [6], a_type="INT8"),
     "MATRIX_MULTIPLY_INTEGER.AZeroPointTensor: Sizes [4] are neither per-tensor {1} nor per-row {M, 1} = [4, 1]: "
     "DirectML reads a 1-D tensor along its last dimension (per column), so a per-row tensor has 2 or more "
     "dimensions."),
]
