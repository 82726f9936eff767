"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT: shape rules the descriptor file cannot express.

From the docs: ATensor is {[BatchCount], [ChannelCount], M, K}, BTensor {.., K, N}, OutputTensor
{.., M, N} (2 to 4 dimensions, one DimensionCount: the descriptor's 'same' rule); ATensor defines the
leading dimensions, M and K, BTensor defines N. AScaleTensor and AZeroPointTensor are per-tensor
{1, 1, 1, 1} or per-row {1, 1, M, 1}; BScaleTensor and BZeroPointTensor per-tensor or per-column
{1, 1, 1, N}; lower ranks drop leading 1s (see matrix_multiply_integer.py). BiasTensor has
OutputTensor's Sizes (the 'same' rule). The page also describes an OutputScaleTensor and an
OutputZeroPointTensor that the struct does not have (a docs defect; the struct decides).

Math (docs): Output = (A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale + Bias. The page gives no evaluation
order; dmlops computes, as ONNX Runtime's MatMulIntegerToFloat (its CPU kernel: an integer product, then one
multiplier per output element) does and in float32 on every backend:

    acc    = (A - AZeroPoint) x (B - BZeroPoint) in INT32 (exact, modulo 2**32: dmlops/ops/_integer_linear.py)
    Output = float32(acc) * (AScale * BScale) + Bias

float32(acc) rounds to nearest above 2**24 (sample int32_by_hand: 1999999979 becomes 2000000000 before the scale).
16- and 32-bit operands (INT16, INT32, UINT16, UINT32, beyond the ONNX contrib op) take the same 32-bit accumulator:
A - AZeroPoint, the products and the sums wrap modulo 2**32 and the result is read as INT32, so a UINT32 4294967295
is -1 (sample uint32_wraps_by_hand). That is dmlops's decision, not a documented or measured fact; a dequantize-first
float GEMM would differ there and, by float rounding, at the last bit elsewhere. FLOAT16 scales, bias and output are
computed in float32 and stored toward zero (dmlops.lower).

No DirectML vectors cover this operator (DML_FEATURE_LEVEL_6_2, no case among the vectors): the docs, ONNX Runtime's
com.microsoft MatMulIntegerToFloat on its CPU provider and NumPy int64 arithmetic decide
(tests/test_oracle_integer_linear.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _integer_linear as il
from ._quantized import matmul_sizes, per_axis_problems
from .matrix_multiply_integer import zero_point_shapes


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor follow ATensor; A scale/zero point per-tensor or per-row, B's per-column."""
    out, m, n = matmul_sizes(desc)
    return out + per_axis_problems(desc, ["AScaleTensor", "AZeroPointTensor"],
                                   ["BScaleTensor", "BZeroPointTensor"], m, n)


def _scale_shapes(desc):
    return il.row(il.count(desc.a_scale_tensor)), il.column(il.count(desc.b_scale_tensor))


def reference(desc, x):
    """INT32 product, then float32(acc) * (AScale * BScale) + Bias in float32."""
    sa, sb = zero_point_shapes(desc)
    va = il.reference_centered(x["ATensor"], x["AZeroPointTensor"], sa)
    vb = il.reference_centered(x["BTensor"], x["BZeroPointTensor"], sb)
    acc = il.reference_matmul(va, vb)
    ra, rb = _scale_shapes(desc)
    scale = x["AScaleTensor"].astype(np.float32).reshape(ra) * x["BScaleTensor"].astype(np.float32).reshape(rb)
    with np.errstate(all="ignore"):
        y = acc.astype(np.float32) * scale
        if x["BiasTensor"] is not None:
            y = y + x["BiasTensor"].astype(np.float32)
    return {"OutputTensor": y.astype(np.float32)}


def to_onnx(desc, g, x):
    """MatMulInteger (bytes for 16/32-bit operands), Cast, Mul by AScale * BScale, Add Bias."""
    sa, sb = zero_point_shapes(desc)
    za, zb = il.onnx_shaped(g, x["AZeroPointTensor"], sa), il.onnx_shaped(g, x["BZeroPointTensor"], sb)
    acc = il.onnx_matmul(g, x["ATensor"], za, x["BTensor"], zb, desc.a_tensor.sizes[-1])
    ra, rb = _scale_shapes(desc)
    scale = g.node("Mul", [il.onnx_shaped(g, x["AScaleTensor"], ra), il.onnx_shaped(g, x["BScaleTensor"], rb)])
    y = g.node("Mul", [g.cast(acc, np.float32), scale])
    if x["BiasTensor"] is not None:
        y = g.node("Add", [y, x["BiasTensor"]])
    return {"OutputTensor": y}


def to_torch(desc, torch, x):
    """Exact float32 digit matmuls (bytes for 16/32-bit operands), then the float32 scaling."""
    sa, sb = zero_point_shapes(desc)
    va = il.torch_centered(torch, x["ATensor"], x["AZeroPointTensor"], sa)
    vb = il.torch_centered(torch, x["BTensor"], x["BZeroPointTensor"], sb)
    acc = il.torch_matmul(torch, va, vb, il.is_wide(x["ATensor"].dtype))
    ra, rb = _scale_shapes(desc)
    scale = x["AScaleTensor"].to(torch.float32).reshape(ra) * x["BScaleTensor"].to(torch.float32).reshape(rb)
    y = acc.to(torch.float32) * scale
    if x["BiasTensor"] is not None:
        y = y + x["BiasTensor"]
    return {"OutputTensor": y}


def _desc(a, b, y, dtype="UINT8", sa=(1,), sb=(1,), za=None, zb=None, bias=False, ftype="FLOAT32"):
    from ..descs import MatrixMultiplyIntegerToFloat

    return MatrixMultiplyIntegerToFloat(
        a_tensor=td(dtype, a), a_scale_tensor=td(ftype, sa), a_zero_point_tensor=None if za is None else td(dtype, za),
        b_tensor=td(dtype, b), b_scale_tensor=td(ftype, sb), b_zero_point_tensor=None if zb is None else td(dtype, zb),
        bias_tensor=td(ftype, y) if bias else None, output_tensor=td(ftype, y))


EXACT = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0,
             why="one float32 evaluation order on every backend (integer product, then two roundings)")


def _samples():
    rng = np.random.default_rng(170)
    f32 = np.float32

    def ints(dtype, *shape):
        lo, hi = {"int8": (-128, 128), "uint8": (0, 256), "int16": (-3000, 3000), "uint16": (0, 6000),
                  "int32": (-40000, 40000), "uint32": (0, 70000)}[dtype]
        return rng.integers(lo, hi, shape).astype(dtype)

    def scales(*shape):
        return rng.uniform(0.01, 0.1, shape).astype(f32)

    out = [
        # By hand: B is the identity, so acc = A = [[1, 2], [3, 4]]; AScale 0.5 times the per-column BScale [1, 2] is
        # [0.5, 1]: [[0.5, 2], [1.5, 4]]; plus Bias [[0.25, -1], [0, 0.5]] = [[0.75, 1], [1.5, 4.5]].
        Sample("per_column_scale_bias_by_hand", _desc([2, 2], [2, 2], [2, 2], sa=(1, 1), sb=(1, 2),
                                                      bias=True),
               {"ATensor": np.array([[1, 2], [3, 4]], np.uint8), "AScaleTensor": np.array([[0.5]], f32),
                "BTensor": np.array([[1, 0], [0, 1]], np.uint8), "BScaleTensor": np.array([[1, 2]], f32),
                "BiasTensor": np.array([[0.25, -1], [0, 0.5]], f32)},
               {"OutputTensor": np.array([[0.75, 1], [1.5, 4.5]], f32)}, **EXACT),
        # By hand: A - 3 = [[-2, 7]] (per-row zero point), B - [1, 0] = [[1, 0], [4, 4]] (per-column): acc =
        # [-2 + 28, 0 + 28] = [26, 28]; per-row AScale 0.25 times BScale 2 = 0.5: [13, 14].
        Sample("int8_zero_points_by_hand", _desc([1, 2], [2, 2], [1, 2], "INT8", sa=(1, 1), sb=(1, 1), za=(1, 1),
                                                 zb=(1, 2)),
               {"ATensor": np.array([[1, 10]], np.int8), "AScaleTensor": np.array([[0.25]], f32),
                "AZeroPointTensor": np.array([[3]], np.int8), "BTensor": np.array([[2, 0], [5, 4]], np.int8),
                "BScaleTensor": np.array([[2]], f32), "BZeroPointTensor": np.array([[1, 0]], np.int8)},
               {"OutputTensor": np.array([[13, 14]], f32)}, **EXACT),
        # By hand: 100000 * 20000 + -3 * 7 = 1999999979, exact in INT32; float32 holds multiples of 128 there, so
        # float32(acc) = 2000000000, times 0.5 * 1 = 1e9.
        Sample("int32_by_hand", _desc([1, 2], [2, 1], [1, 1], "INT32"),
               {"ATensor": np.array([[100000, -3]], np.int32), "AScaleTensor": np.array([0.5], f32),
                "BTensor": np.array([[20000], [7]], np.int32), "BScaleTensor": np.array([1], f32)},
               {"OutputTensor": np.array([[1e9]], f32)}, float16=False, **EXACT),
        # By hand, dmlops's 32-bit accumulator (module docstring): UINT32 4294967295 - 0 is -1 modulo 2**32, times 2
        # is -2; times the scales 1 * 1.5: -3.
        Sample("uint32_wraps_by_hand", _desc([1, 1], [1, 1], [1, 1], "UINT32", za=(1,), zb=(1,)),
               {"ATensor": np.array([[4294967295]], np.uint32), "AScaleTensor": np.array([1], f32),
                "AZeroPointTensor": np.array([0], np.uint32), "BTensor": np.array([[2]], np.uint32),
                "BScaleTensor": np.array([1.5], f32), "BZeroPointTensor": np.array([0], np.uint32)},
               {"OutputTensor": np.array([[-3]], f32)}, **EXACT),
    ]
    for dtype, lead in (("uint8", [2, 3]), ("int8", [3]), ("int16", []), ("uint16", [2]), ("int32", [2, 1]),
                        ("uint32", [])):
        m, k, n = 3, 5, 4
        a, b, y = lead + [m, k], lead + [k, n], lead + [m, n]
        rank = len(a)
        sa, sb = [1] * (rank - 2) + [m, 1], [1] * (rank - 1) + [n]
        out.append(Sample(f"{dtype}_per_row_per_column_bias_{rank}d",
                          _desc(a, b, y, dtype.upper(), sa=sa, sb=sb, za=sa, zb=sb, bias=True),
                          {"ATensor": ints(dtype, *a), "AScaleTensor": scales(*sa),
                           "AZeroPointTensor": ints(dtype, *sa), "BTensor": ints(dtype, *b),
                           "BScaleTensor": scales(*sb), "BZeroPointTensor": ints(dtype, *sb),
                           "BiasTensor": rng.uniform(-1, 1, y).astype(f32)}, **EXACT))
    out.append(Sample("int8_per_tensor_1d_parameters_no_bias", _desc([4, 6], [6, 3], [4, 3], "INT8", za=(1,), zb=(1,)),
                      {"ATensor": ints("int8", 4, 6), "AScaleTensor": scales(1), "AZeroPointTensor": ints("int8", 1),
                       "BTensor": ints("int8", 6, 3), "BScaleTensor": scales(1), "BZeroPointTensor": ints("int8", 1)},
                      **EXACT))
    return out


SAMPLES = _samples()
