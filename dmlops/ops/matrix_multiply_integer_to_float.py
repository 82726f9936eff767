"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT: shape rules the descriptor file cannot express.

From the docs: ATensor is {[BatchCount], [ChannelCount], M, K}, BTensor {.., K, N}, OutputTensor
{.., M, N} (2 to 4 dimensions, one DimensionCount: the descriptor's 'same' rule); ATensor defines the
leading dimensions, M and K, BTensor defines N. AScaleTensor and AZeroPointTensor are per-tensor
{1, 1, 1, 1} or per-row {1, 1, M, 1}; BScaleTensor and BZeroPointTensor per-tensor or per-column
{1, 1, 1, N}; lower ranks drop leading 1s, and a per-row tensor keeps at least {M, 1} (see
matrix_multiply_integer.py). BiasTensor has OutputTensor's Sizes (the 'same' rule). The page also describes
an OutputScaleTensor and an OutputZeroPointTensor that the struct does not have (a docs defect; the struct
decides).
DirectML refuses a zero point whose Sizes differ from its scale's (vector sample_int8_zero_points_by_hand:
BScaleTensor {1, 1} with BZeroPointTensor {1, 2} failed at CreateOperator, while per-tensor and per-column
scales without zero points, and scales with zero points of the same Sizes, ran): AZeroPointTensor has
AScaleTensor's Sizes and BZeroPointTensor BScaleTensor's.

Math (docs): Output = (A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale + Bias. DirectML's answers
(the 16 sample_* vectors, every data type, 2-D to 4-D, FLOAT32 and FLOAT16, bit for bit) show that it
dequantizes first and multiplies floats; there is no INT32 accumulator (UINT32 4294967295 stays 4294967295):

    a      = (float32(A) - float32(AZeroPoint)) * AScale                 (float32; FLOAT16 output: stored as FLOAT16)
    b      = (float32(B) - float32(BZeroPoint)) * BScale                 (the same)
    acc    = a[:, 0] * b[0, :] + a[:, 1] * b[1, :] + ... + a[:, K-1] * b[K-1, :]
             (float32, every product rounded, then added one after the other in k order: no FMA, no tiling)
    Output = acc + Bias                                                  (float32; FLOAT16 stored toward zero)

The FLOAT16 stores round toward zero (dmlops.ops._elementwise.float16_toward_zero). With FLOAT16 2-D tensors and a
BiasTensor, DirectML stores acc as FLOAT16 first and then adds Bias, and a sum beyond 65504 becomes +-inf (not
65504): sample_uint32_per_row_per_column_bias_2d_float16 gives 65472 where acc saturated to 65504 and Bias is
negative, inf where both are positive, and sample_int16_per_row_per_column_bias_2d_float16 needs the two stores
(2690, not 2692). Its 3-D and 4-D tensors store once (sample_uint16_per_row_per_column_bias_3d_float16 gives -65504
where acc is below -65504 and Bias positive). Whether the two-store path follows the DimensionCount or a single
matrix (BatchCount * ChannelCount = 1) no vector separates: every 2-D case is the one matrix, every 3-D / 4-D case
holds several. float32(A) - float32(AZeroPoint) (not float32(A - AZeroPoint)) is dmlops's reading, as
ELEMENT_WISE_DEQUANTIZE_LINEAR's vectors subtract in float32: the two differ only for 32-bit values beyond 2**24,
which no vector holds.

Every backend computes this order, so the backends agree bit for bit: the reference and torch add the K products in
a loop; ONNX multiplies them element-wise and adds them with CumSum along K (ONNX Runtime's CPU CumSum adds one
element after the other), in chunks whose products hold at most 2**22 elements.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..types import DataType
from . import _elementwise as ew
from . import _integer_linear as il
from ._quantized import matmul_sizes, per_axis_problems, same_sizes_problem
from .matrix_multiply_integer import zero_point_shapes

F32 = np.float32
CHUNK_ELEMENTS = 2**22  # the products one ONNX CumSum adds: [.., M, chunk, N]


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor follow ATensor; A scale/zero point per-tensor or per-row, B's per-column; a zero point
    has its scale's Sizes."""
    out, m, n = matmul_sizes(desc)
    out += per_axis_problems(desc, ["AScaleTensor", "AZeroPointTensor"], ["BScaleTensor", "BZeroPointTensor"], m, n)
    shaped_wrong = {p.field for p in out}
    for zp, scale in (("AZeroPointTensor", "AScaleTensor"), ("BZeroPointTensor", "BScaleTensor")):
        p = None if {zp, scale} & shaped_wrong else same_sizes_problem(desc, zp, scale)
        if p:
            out.append(p)
    return out


def _scale_shapes(desc):
    return il.row(il.count(desc.a_scale_tensor)), il.column(il.count(desc.b_scale_tensor))


def _float16(desc) -> bool:
    return desc.output_tensor.data_type == DataType.FLOAT16


def _two_stores(desc) -> bool:
    """FLOAT16 2-D tensors with a BiasTensor: acc is stored as FLOAT16, then Bias is added (module docstring)."""
    return _float16(desc) and desc.bias_tensor is not None and len(desc.a_tensor.sizes) == 2


# ----------------------------------------------------------------------------------------------- NumPy
def _reference_operand(desc, v, zp, zp_shape, scale, scale_shape):
    with np.errstate(all="ignore"):
        f = v.astype(F32)
        if zp is not None:
            f = f - zp.astype(F32).reshape(zp_shape)
        d = f * scale.astype(F32).reshape(scale_shape)
    return ew.float16_toward_zero(d).astype(F32) if _float16(desc) else d


def reference(desc, x):
    """Dequantize A and B in float32, add the K products in k order, add Bias (module docstring)."""
    sa, sb = zero_point_shapes(desc)
    ra, rb = _scale_shapes(desc)
    a = _reference_operand(desc, x["ATensor"], x["AZeroPointTensor"], sa, x["AScaleTensor"], ra)
    b = _reference_operand(desc, x["BTensor"], x["BZeroPointTensor"], sb, x["BScaleTensor"], rb)
    with np.errstate(all="ignore"):
        acc = a[..., :, 0:1] * b[..., 0:1, :]
        for k in range(1, a.shape[-1]):
            acc = acc + a[..., :, k:k + 1] * b[..., k:k + 1, :]
        bias = x["BiasTensor"]
        if bias is None:
            return {"OutputTensor": acc}
        if _two_stores(desc):
            y = ew.float16_toward_zero(acc).astype(F32) + bias.astype(F32)
            return {"OutputTensor": np.where(np.abs(y) > ew.F16_MAX, np.copysign(F32(np.inf), y), y)}
        return {"OutputTensor": acc + bias.astype(F32)}


# ----------------------------------------------------------------------------------------------- ONNX
def _onnx_operand(desc, g, v, zp, zp_shape, scale, scale_shape):
    f = g.cast(v, F32)
    if zp is not None:
        f = g.node("Sub", [f, g.cast(il.onnx_shaped(g, zp, zp_shape), F32)])
    d = g.node("Mul", [f, il.onnx_shaped(g, scale, scale_shape)])
    return ew.onnx_float16_toward_zero(g, d) if _float16(desc) else d


def _onnx_sum_of_products(g, a: str, b: str, lead: list, m: int, k: int, n: int) -> str:
    """a [.., M, K] x b [.., K, N] as the sequential float32 sum of the K products (CumSum along K, in chunks)."""
    chunk = max(1, CHUNK_ELEMENTS // max(1, int(np.prod(lead, dtype=np.int64)) * m * n))
    acc = None
    for s in range(0, k, chunk):
        e = min(k, s + chunk)
        ak, bk = a, b
        if (s, e) != (0, k):
            ak = g.node("Slice", [a, g.ints([s]), g.ints([e]), g.ints([-1])])
            bk = g.node("Slice", [b, g.ints([s]), g.ints([e]), g.ints([-2])])
        p = g.node("Mul", [g.node("Unsqueeze", [ak, g.ints([-1])]), g.node("Unsqueeze", [bk, g.ints([-3])])])
        if acc is not None:                                                  # [.., M, 1 + chunk, N]
            p = g.node("Concat", [g.node("Unsqueeze", [acc, g.ints([-2])]), p], axis=-2)
        total = g.node("CumSum", [p, g.const(np.asarray(-2, np.int64))])
        acc = g.node("Squeeze", [g.node("Slice", [total, g.ints([-1]), g.ints([2**62]), g.ints([-2])]),
                                 g.ints([-2])])
    assert acc is not None  # K >= 1
    return acc


def to_onnx(desc, g, x):
    """Cast / Sub / Mul per operand, the products summed by CumSum along K, Add Bias (module docstring)."""
    sa, sb = zero_point_shapes(desc)
    ra, rb = _scale_shapes(desc)
    a = _onnx_operand(desc, g, x["ATensor"], x["AZeroPointTensor"], sa, x["AScaleTensor"], ra)
    b = _onnx_operand(desc, g, x["BTensor"], x["BZeroPointTensor"], sb, x["BScaleTensor"], rb)
    sizes = list(desc.a_tensor.sizes)
    acc = _onnx_sum_of_products(g, a, b, sizes[:-2], sizes[-2], sizes[-1], desc.b_tensor.sizes[-1])
    bias = x["BiasTensor"]
    if bias is None:
        return {"OutputTensor": acc}
    if _two_stores(desc):
        y = g.node("Add", [ew.onnx_float16_toward_zero(g, acc), bias])
        over = g.node("Greater", [g.node("Abs", [y]), ew.onnx_const(g, ew.F16_MAX, F32)], dtype=np.bool_)
        infinite = g.node("Mul", [g.node("Sign", [y]), ew.onnx_const(g, np.inf, F32)])
        return {"OutputTensor": g.node("Where", [over, infinite, y])}
    return {"OutputTensor": g.node("Add", [acc, bias])}


# ----------------------------------------------------------------------------------------------- torch
def _torch_operand(desc, torch, v, zp, zp_shape, scale, scale_shape):
    wide_unsigned = (torch.uint16, torch.uint32)  # converted through int64 (torch's limited-support dtypes)
    carried = desc.a_tensor.data_type.name == "UINT32"  # and torch-directml holds its bits in int32 tensors

    def to_float(t):
        if carried and t.dtype == torch.int32:
            return ew.torch_uint32_bits_to_float(torch, t)
        return (t.to(torch.int64) if t.dtype in wide_unsigned else t).to(torch.float32)

    f = to_float(v)
    if zp is not None:
        f = f - to_float(zp).reshape(zp_shape)
    d = f * scale.to(torch.float32).reshape(scale_shape)
    return ew.torch_float16_toward_zero(torch, d) if _float16(desc) else d


def to_torch(desc, torch, x):
    """The reference's loop over K in torch ops."""
    sa, sb = zero_point_shapes(desc)
    ra, rb = _scale_shapes(desc)
    a = _torch_operand(desc, torch, x["ATensor"], x["AZeroPointTensor"], sa, x["AScaleTensor"], ra)
    b = _torch_operand(desc, torch, x["BTensor"], x["BZeroPointTensor"], sb, x["BScaleTensor"], rb)
    acc = a[..., :, 0:1] * b[..., 0:1, :]
    for k in range(1, a.shape[-1]):
        acc = acc + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    bias = x["BiasTensor"]
    if bias is None:
        return {"OutputTensor": acc}
    if _two_stores(desc):
        y = ew.torch_float16_toward_zero(torch, acc) + bias
        return {"OutputTensor": torch.where(y.abs() > ew.F16_MAX, torch.sign(y) * float("inf"), y)}
    return {"OutputTensor": acc + bias}


def _desc(a, b, y, dtype="UINT8", sa=(1,), sb=(1,), za=None, zb=None, bias=False, ftype="FLOAT32"):
    from ..descs import MatrixMultiplyIntegerToFloat

    return MatrixMultiplyIntegerToFloat(
        a_tensor=td(dtype, a), a_scale_tensor=td(ftype, sa), a_zero_point_tensor=None if za is None else td(dtype, za),
        b_tensor=td(dtype, b), b_scale_tensor=td(ftype, sb), b_zero_point_tensor=None if zb is None else td(dtype, zb),
        bias_tensor=td(ftype, y) if bias else None, output_tensor=td(ftype, y))


EXACT = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0,
             why="DirectML's float32 evaluation order on every backend (module docstring)")


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
        # By hand: (A - 3) * 0.25 = [[-0.5, 1.75]] (per-row zero point and scale of one row); (B - [1, 0]) * [2, 2]
        # = [[2, 0], [8, 8]] (per-column zero point and scale, of the same Sizes: DirectML refuses them apart,
        # ERRORS): [-0.5 * 2 + 1.75 * 8, -0.5 * 0 + 1.75 * 8] = [13, 14].
        Sample("int8_zero_points_by_hand", _desc([1, 2], [2, 2], [1, 2], "INT8", sa=(1, 1), sb=(1, 2), za=(1, 1),
                                                 zb=(1, 2)),
               {"ATensor": np.array([[1, 10]], np.int8), "AScaleTensor": np.array([[0.25]], f32),
                "AZeroPointTensor": np.array([[3]], np.int8), "BTensor": np.array([[2, 0], [5, 4]], np.int8),
                "BScaleTensor": np.array([[2, 2]], f32), "BZeroPointTensor": np.array([[1, 0]], np.int8)},
               {"OutputTensor": np.array([[13, 14]], f32)}, **EXACT),
        # By hand: A * 0.5 = [[50000, -1.5]], B * 1 = [[20000], [7]]; 1e9 + -10.5 = 999999989.5, and float32 holds
        # multiples of 64 there: 1e9.
        Sample("int32_by_hand", _desc([1, 2], [2, 1], [1, 1], "INT32"),
               {"ATensor": np.array([[100000, -3]], np.int32), "AScaleTensor": np.array([0.5], f32),
                "BTensor": np.array([[20000], [7]], np.int32), "BScaleTensor": np.array([1], f32)},
               {"OutputTensor": np.array([[1e9]], f32)}, float16=False, **EXACT),
        # By hand: nothing wraps (DirectML: sample_uint32_wraps_by_hand): float32(4294967295) = 2**32, times 1;
        # (2 - 0) * 1.5 = 3; 3 * 2**32 = 12884901888 (its FLOAT16 twin: 65504, stored toward zero).
        Sample("uint32_beyond_int32_by_hand", _desc([1, 1], [1, 1], [1, 1], "UINT32", za=(1,), zb=(1,)),
               {"ATensor": np.array([[4294967295]], np.uint32), "AScaleTensor": np.array([1], f32),
                "AZeroPointTensor": np.array([0], np.uint32), "BTensor": np.array([[2]], np.uint32),
                "BScaleTensor": np.array([1.5], f32), "BZeroPointTensor": np.array([0], np.uint32)},
               {"OutputTensor": np.array([[12884901888]], f32)}, **EXACT),
        # By hand, the k order: A * 2**-12 = [[1, 2**-12, 2**-12]] and B * 2**-12 = [[1], [2**-12], [2**-12]] give
        # the products 1, 2**-24, 2**-24; 1 + 2**-24 is a tie that float32 rounds to 1, twice: 1.0. (An exact sum,
        # or 2**-24 + 2**-24 first, gives 1 + 2**-23 = 1.0000001, as an INT32 accumulator scaled afterwards does.)
        Sample("k_order_ties_by_hand", _desc([1, 3], [3, 1], [1, 1], "INT16"),
               {"ATensor": np.array([[4096, 1, 1]], np.int16), "AScaleTensor": np.array([2**-12], f32),
                "BTensor": np.array([[4096], [1], [1]], np.int16), "BScaleTensor": np.array([2**-12], f32)},
               {"OutputTensor": np.array([[1]], f32)}, **EXACT),
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


# Descriptors DirectML refuses that the descriptor file alone would let through: (name, descriptor, message).
ERRORS = [
    ("zero_point_sizes_apart_from_the_scale",  # DirectML's vector sample_int8_zero_points_by_hand
     _desc([1, 2], [2, 2], [1, 2], "INT8", sa=(1, 1), sb=(1, 1), za=(1, 1), zb=(1, 2)),
     "MATRIX_MULTIPLY_INTEGER_TO_FLOAT.BZeroPointTensor: Sizes [1, 2] do not match BScaleTensor Sizes = [1, 1]."),
]
