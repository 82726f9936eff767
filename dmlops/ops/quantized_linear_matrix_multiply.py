"""DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY: shape rules the descriptor file cannot express.

From the docs: ATensor is {BatchCount, ChannelCount, M, K}, BTensor {BatchCount, ChannelCount, K, N},
OutputTensor {BatchCount, ChannelCount, M, N}; from DML_FEATURE_LEVEL_4_0 the leading dimensions are
optional (2 to 4 dimensions, one DimensionCount: the descriptor's 'same' rule). AScaleTensor and
AZeroPointTensor are per-tensor {1, 1, 1, 1} or per-row {1, 1, M, 1}; BScaleTensor and
BZeroPointTensor per-tensor or per-column {1, 1, 1, N}; OutputScaleTensor and OutputZeroPointTensor
per-tensor or per-row {1, 1, M, 1}. The six quantization tensors share a DimensionCount (the 'same'
rule), which may be lower than the matrices' (leading 1s dropped, see matrix_multiply_integer.py); a
per-row tensor keeps at least {M, 1}: DirectML refused 1-D per-row parameters {M} (vector
sample_one_d_parameters_uint8).

Math (docs): Output = round(((A - AZeroPoint) * AScale x (B - BZeroPoint) * BScale) / OutputScale)
+ OutputZeroPoint, saturated to the output type. The page gives no evaluation order; dmlops computes, on every
backend:

    acc    = (A - AZeroPoint) x (B - BZeroPoint) in INT32 (exact, modulo 2**32: dmlops/ops/_integer_linear.py)
    real   = float32(acc) * (AScale * BScale)                        (float32, the dequantized product)
    Output = quantize(real, OutputScale, OutputZeroPoint)            (dmlops/ops/_quantize.py: real / OutputScale in
             float32, half to even, + zero point, saturated; NaN -> 0)

Sample ties_saturation_by_hand shows the rounding (0.5 -> 0, 2.5 -> 2) and the saturation. DirectML computed every
other sample bit for bit (the acceptance run of 2026-11-28, mixed INT8 x UINT8 per-row / per-column 4-D included);
the vectors hold only its refusal of the 1-D per-row parameters. ONNX Runtime's QLinearMatMul (CPU) rounds
acc * (AScale * BScale / OutputScale) instead, which can land one step away where the quotient is within a float32
rounding of a half, and its integer kernels are not exact on every CPU: dmlops uses neither (ONNX: a float64 MatMul
off DirectML's provider, dmlops/ops/_integer_linear.py). The docs, ONNX QLinearMatMul's node cases, NumPy int64
products and exact Fractions decide the rest (tests/test_oracle_integer_linear.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _integer_linear as il
from ._quantized import matmul_sizes, per_axis_problems
from .matrix_multiply_integer import zero_point_shapes


def check(desc, level) -> list[Problem]:
    """BTensor and OutputTensor follow ATensor; A and Output quantization per-tensor or per-row, B's per-column."""
    out, m, n = matmul_sizes(desc)
    return out + per_axis_problems(desc, ["AScaleTensor", "AZeroPointTensor", "OutputScaleTensor",
                                          "OutputZeroPointTensor"], ["BScaleTensor", "BZeroPointTensor"], m, n)


def _shapes(desc):
    """Broadcast shapes of AScale (row), BScale (column), OutputScale and OutputZeroPoint (rows)."""
    out_zp = desc.output_zero_point_tensor
    return (il.row(il.count(desc.a_scale_tensor)), il.column(il.count(desc.b_scale_tensor)),
            il.row(il.count(desc.output_scale_tensor)), None if out_zp is None else il.row(il.count(out_zp)))


def reference(desc, x):
    """INT32 product, float32(acc) * (AScale * BScale), quantized by OutputScale / OutputZeroPoint."""
    sa, sb = zero_point_shapes(desc)
    va = il.reference_centered(x["ATensor"], x["AZeroPointTensor"], sa)
    vb = il.reference_centered(x["BTensor"], x["BZeroPointTensor"], sb)
    acc = il.reference_matmul(va, vb)
    ra, rb, ry, rz = _shapes(desc)
    scale = x["AScaleTensor"].astype(np.float32).reshape(ra) * x["BScaleTensor"].astype(np.float32).reshape(rb)
    zp = x["OutputZeroPointTensor"]
    y = il.reference_requantize(acc, scale, x["OutputScaleTensor"].reshape(ry), None if zp is None else zp.reshape(rz),
                                desc.output_tensor.data_type.numpy_dtype)
    return {"OutputTensor": y}


def to_onnx(desc, g, x):
    """The INT32 product (dmlops.ops._integer_linear.onnx_matmul), Cast, Mul, then Div / Round / Add / Clip / Cast."""
    sa, sb = zero_point_shapes(desc)
    za, zb = il.onnx_shaped(g, x["AZeroPointTensor"], sa), il.onnx_shaped(g, x["BZeroPointTensor"], sb)
    acc = il.onnx_matmul(g, x["ATensor"], za, x["BTensor"], zb, desc.a_tensor.sizes[-1])
    ra, rb, ry, rz = _shapes(desc)
    scale = g.node("Mul", [il.onnx_shaped(g, x["AScaleTensor"], ra), il.onnx_shaped(g, x["BScaleTensor"], rb)])
    y = il.onnx_requantize(g, acc, scale, il.onnx_shaped(g, x["OutputScaleTensor"], ry),
                           il.onnx_shaped(g, x["OutputZeroPointTensor"], rz), desc.output_tensor.data_type.numpy_dtype)
    return {"OutputTensor": y}


def to_torch(desc, torch, x):
    """Exact float32 digit matmuls, then the float32 requantization."""
    sa, sb = zero_point_shapes(desc)
    va = il.torch_centered(torch, x["ATensor"], x["AZeroPointTensor"], sa)
    vb = il.torch_centered(torch, x["BTensor"], x["BZeroPointTensor"], sb)
    acc = il.torch_matmul(torch, va, vb)
    ra, rb, ry, rz = _shapes(desc)
    scale = x["AScaleTensor"].to(torch.float32).reshape(ra) * x["BScaleTensor"].to(torch.float32).reshape(rb)
    zp = x["OutputZeroPointTensor"]
    y = il.torch_requantize(torch, acc, scale, x["OutputScaleTensor"].reshape(ry),
                            None if zp is None else zp.reshape(rz),
                            getattr(torch, desc.output_tensor.data_type.numpy_dtype.name))
    return {"OutputTensor": y}


def _desc(a, b, y, a_type="UINT8", b_type="UINT8", y_type="UINT8", sa=(1,), sb=(1,), sy=(1,), za=False, zb=False,
          zy=False):
    from ..descs import QuantizedLinearMatrixMultiply

    return QuantizedLinearMatrixMultiply(
        a_tensor=td(a_type, a), a_scale_tensor=td("FLOAT32", sa), a_zero_point_tensor=td(a_type, sa) if za else None,
        b_tensor=td(b_type, b), b_scale_tensor=td("FLOAT32", sb), b_zero_point_tensor=td(b_type, sb) if zb else None,
        output_scale_tensor=td("FLOAT32", sy), output_zero_point_tensor=td(y_type, sy) if zy else None,
        output_tensor=td(y_type, y))


EXACT = dict(atol=0, rtol=0, why="one float32 evaluation order on every backend: exact")


def _samples():
    rng = np.random.default_rng(118)
    f32 = np.float32

    def ints(dtype, *shape):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, shape).astype(dtype)

    def scales(lo, hi, *shape):
        return rng.uniform(lo, hi, shape).astype(f32)

    return [
        # By hand: B = [[1], [1]] sums each row of A: acc = [6, 1, 5, 510]; times AScale 0.5 * BScale 1: [3, 0.5, 2.5,
        # 255]; / OutputScale 1, half to even: [3, 0, 2, 255]; + OutputZeroPoint 10: [13, 10, 12, 265 -> 255 saturated].
        Sample("ties_saturation_by_hand", _desc([4, 2], [2, 1], [4, 1], zy=True),
               {"ATensor": np.array([[2, 4], [1, 0], [5, 0], [255, 255]], np.uint8),
                "AScaleTensor": np.array([0.5], f32),
                "BTensor": np.array([[1], [1]], np.uint8), "BScaleTensor": np.array([1], f32),
                "OutputScaleTensor": np.array([1], f32), "OutputZeroPointTensor": np.array([10], np.uint8)},
               {"OutputTensor": np.array([[13], [10], [12], [255]], np.uint8)}, **EXACT),
        # By hand: INT8 A - [1] = [[1, -3]], B - [0, 2] = [[2, -1], [1, 1]] (per column):
        # acc = [2 - 3, -1 - 3] = [-1, -4]; scales 1 * [2, 0.25]: [-2, -1]; / OutputScale 0.5 = [-4, -2];
        # + OutputZeroPoint -1: [-5, -3].
        Sample("int8_per_column_by_hand", _desc([1, 2], [2, 2], [1, 2], "INT8", "INT8", "INT8", sa=(1, 1), sb=(1, 2),
                                                sy=(1, 1), za=True, zb=True, zy=True),
               {"ATensor": np.array([[2, -2]], np.int8), "AScaleTensor": np.array([[1]], f32),
                "AZeroPointTensor": np.array([[1]], np.int8), "BTensor": np.array([[2, 1], [1, 3]], np.int8),
                "BScaleTensor": np.array([[2, 0.25]], f32), "BZeroPointTensor": np.array([[0, 2]], np.int8),
                "OutputScaleTensor": np.array([[0.5]], f32), "OutputZeroPointTensor": np.array([[-1]], np.int8)},
               {"OutputTensor": np.array([[-5, -3]], np.int8)}, **EXACT),
        Sample("per_row_per_column_4d_mixed_types",
               _desc([2, 3, 4, 5], [2, 3, 5, 6], [2, 3, 4, 6], "INT8", "UINT8", "INT8", sa=(1, 1, 4, 1),
                     sb=(1, 1, 1, 6), sy=(1, 1, 4, 1), za=True, zb=True, zy=True),
               {"ATensor": ints(np.int8, 2, 3, 4, 5), "AScaleTensor": scales(0.01, 0.05, 1, 1, 4, 1),
                "AZeroPointTensor": ints(np.int8, 1, 1, 4, 1), "BTensor": ints(np.uint8, 2, 3, 5, 6),
                "BScaleTensor": scales(0.01, 0.05, 1, 1, 1, 6), "BZeroPointTensor": ints(np.uint8, 1, 1, 1, 6),
                "OutputScaleTensor": scales(0.5, 2, 1, 1, 4, 1), "OutputZeroPointTensor": ints(np.int8, 1, 1, 4, 1)},
               **EXACT),
        Sample("per_tensor_3d_no_zero_points", _desc([2, 3, 4], [2, 4, 3], [2, 3, 3], sa=(1,), sb=(1,), sy=(1,)),
               {"ATensor": ints(np.uint8, 2, 3, 4), "AScaleTensor": np.array([0.02], f32),
                "BTensor": ints(np.uint8, 2, 4, 3), "BScaleTensor": np.array([0.03], f32),
                "OutputScaleTensor": np.array([0.7], f32)}, **EXACT),
        # Per-row and per-column parameters of two dimensions (ERRORS: DirectML refused 1-D per-row ones).
        Sample("two_d_parameters_uint8", _desc([3, 8], [8, 2], [3, 2], sa=(3, 1), sb=(1, 2), sy=(3, 1), za=True,
                                               zb=True, zy=True),
               {"ATensor": ints(np.uint8, 3, 8), "AScaleTensor": scales(0.01, 0.05, 3, 1),
                "AZeroPointTensor": ints(np.uint8, 3, 1), "BTensor": ints(np.uint8, 8, 2),
                "BScaleTensor": scales(0.01, 0.05, 1, 2), "BZeroPointTensor": ints(np.uint8, 1, 2),
                "OutputScaleTensor": scales(0.5, 2, 3, 1), "OutputZeroPointTensor": ints(np.uint8, 3, 1)}, **EXACT),
    ]


SAMPLES = _samples()


# Descriptors DirectML refuses that the descriptor file alone would let through: (name, descriptor, message).
ERRORS = [
    ("one_d_per_row_parameters",  # DirectML's vector sample_one_d_parameters_uint8
     _desc([3, 8], [8, 2], [3, 2], sa=(3,), sb=(2,), sy=(3,), za=True, zb=True, zy=True),
     "QUANTIZED_LINEAR_MATRIX_MULTIPLY.AScaleTensor: Sizes [3] are neither per-tensor {1} nor per-row {M, 1} = "
     "[3, 1]: DirectML reads a 1-D tensor along its last dimension (per column), so a per-row tensor has 2 or more "
     "dimensions."),
]
