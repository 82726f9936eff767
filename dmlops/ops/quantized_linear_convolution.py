"""DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION: shape rules the descriptor file cannot express.

A FORWARD cross-correlation with CONVOLUTION_INTEGER's shape rules: FilterTensor {OutputChannelCount,
InputChannelCount / GroupCount, [FilterHeight], FilterWidth}; OutputTensor {BatchCount, OutputChannelCount,
[OutputHeight], OutputWidth} (spatial sizes free, as for CONVOLUTION, whose longer outputs DirectML ran; the
dilated filter fits the padded input); GroupCount divides both channel counts; Strides and Dilations are at
least 1; DimensionCount is InputTensor's DimensionCount - 2 (the page's "Only a value of 2 is supported"
predates the 3-D tensors of its DML_FEATURE_LEVEL_4_0 table).
InputScaleTensor, InputZeroPointTensor, OutputScaleTensor and OutputZeroPointTensor are {1, 1, 1, 1};
FilterScaleTensor and FilterZeroPointTensor are {1, 1, 1, 1} (per tensor) or {1, OutputChannelCount, 1, 1}
(per channel); tensors of fewer dimensions drop leading ones. BiasTensor is {1, OutputChannelCount, 1, 1}.
Shared rules: dmlops/ops/_windows.py.

Math (docs: "mathematically equivalent to dequantizing the inputs, convolving, and then quantizing the output"; the
page gives no evaluation order). BiasTensor is INT32, so it is added in the integer accumulator's domain (scale
InputScale * FilterScale, as ONNX QLinearConv defines its bias). dmlops computes, on every backend:

    acc    = CONVOLUTION_INTEGER(Input, InputZeroPoint, Filter, FilterZeroPoint) + Bias   (INT32, wrapping; padding
             reads as InputZeroPoint, i.e. as a dequantized 0: dmlops/ops/convolution_integer.py)
    real   = float32(acc) * (InputScale * FilterScale[m])                                  (float32)
    Output = quantize(real, OutputScale, OutputZeroPoint)   (dmlops/ops/_quantize.py: / OutputScale in float32, half
             to even, + zero point, saturated)

Sample bias_ties_by_hand shows the rounding (1.5 -> 2, 3.5 -> 4, 5.5 -> 6); DirectML computed every sample bit for
bit (the acceptance run of 2026-11-28), so the vectors hold no case of this operator. ONNX Runtime's QLinearConv
rounds acc * (InputScale * FilterScale / OutputScale) instead, which can land one step away within a float32 rounding
of a half, and its integer kernels are not exact on every CPU: dmlops uses neither (ONNX: float64 windows and MatMul
off DirectML's provider, dmlops/ops/_integer_linear.py). The docs, ONNX QLinearConv's node case, Python loops over
every input / filter DataType pair and exact Fractions decide the rest (tests/test_oracle_integer_linear.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _integer_linear as il
from ._shapes import sizes
from ._windows import braces, convolution_problems, quantization_problems
from .convolution_integer import filter_zero_point_shape

PER_TENSOR = ("InputScaleTensor", "InputZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor")
PER_CHANNEL = ("FilterScaleTensor", "FilterZeroPointTensor")


def check(desc, level) -> list[Problem]:
    """Convolution shape rules, scale / zero-point Sizes, BiasTensor {1, OutputChannelCount, 1, 1}."""
    out, out_channels, rank = convolution_problems(desc)
    out += quantization_problems(desc, PER_TENSOR, rank)
    out += quantization_problems(desc, PER_CHANNEL, rank, out_channels, "OutputChannelCount")
    bias = sizes(tensor(desc, "BiasTensor"), rank) if rank is not None else None
    if bias is not None and out_channels is not None:
        expected = [1, out_channels] + [1] * (rank - 2)
        if bias != expected:
            out.append(shape_problem(desc, "BiasTensor", bias,
                                     braces(["1", "OutputChannelCount"] + ["1"] * (rank - 2)), expected))
    return out


def _scale_shape(desc) -> tuple:
    """FilterScale's broadcast shape: {M, 1, ..} against OutputTensor, or 0-d."""
    shape, per_channel = filter_zero_point_shape(desc, "FilterScaleTensor")
    return shape[:-1] if per_channel else ()


def reference(desc, x):
    """CONVOLUTION_INTEGER + Bias in INT32, float32(acc) * (InputScale * FilterScale), quantized."""
    zw_shape, _ = filter_zero_point_shape(desc)
    vx = il.reference_centered(x["InputTensor"], x["InputZeroPointTensor"], ())
    vw = il.reference_centered(x["FilterTensor"], x["FilterZeroPointTensor"], zw_shape)
    acc = il.reference_conv(desc, vx, vw)
    if x["BiasTensor"] is not None:
        acc = il.wrap32(acc.astype(np.int64) + x["BiasTensor"].astype(np.int64))
    scale = x["InputScaleTensor"].astype(np.float32).reshape(()) * \
        x["FilterScaleTensor"].astype(np.float32).reshape(_scale_shape(desc))
    zp = x["OutputZeroPointTensor"]
    y = il.reference_requantize(acc, scale, x["OutputScaleTensor"].reshape(()), None if zp is None else zp.reshape(()),
                                desc.output_tensor.data_type.numpy_dtype)
    return {"OutputTensor": y}


def to_onnx(desc, g, x):
    """CONVOLUTION_INTEGER's lowering, Add Bias (int32), Cast, Mul, then Div / Round / Add / Clip / Cast."""
    zw_shape, per_channel = filter_zero_point_shape(desc)
    zx = il.onnx_shaped(g, x["InputZeroPointTensor"], [])
    zw = il.onnx_shaped(g, x["FilterZeroPointTensor"], list(zw_shape[:-1]) if per_channel else [])
    acc = il.onnx_conv(g, desc, x["InputTensor"], zx, x["FilterTensor"], zw, per_channel)
    if x["BiasTensor"] is not None:
        acc = g.node("Add", [acc, x["BiasTensor"]])
    scale = g.node("Mul", [il.onnx_shaped(g, x["InputScaleTensor"], []),
                           il.onnx_shaped(g, x["FilterScaleTensor"], list(_scale_shape(desc)))])
    y = il.onnx_requantize(g, acc, scale, il.onnx_shaped(g, x["OutputScaleTensor"], []),
                           il.onnx_shaped(g, x["OutputZeroPointTensor"], []), desc.output_tensor.data_type.numpy_dtype)
    return {"OutputTensor": y}


def to_torch(desc, torch, x):
    """CONVOLUTION_INTEGER's window gather and exact float32 digit matmuls, then the float32 requantization."""
    zw_shape, _ = filter_zero_point_shape(desc)
    vx = il.torch_centered(torch, x["InputTensor"], x["InputZeroPointTensor"], ())
    vw = il.torch_centered(torch, x["FilterTensor"], x["FilterZeroPointTensor"], zw_shape)
    acc = il.torch_conv(torch, desc, vx, vw)
    if x["BiasTensor"] is not None:
        acc = acc + x["BiasTensor"]
    scale = x["InputScaleTensor"].to(torch.float32).reshape(()) * \
        x["FilterScaleTensor"].to(torch.float32).reshape(_scale_shape(desc))
    zp = x["OutputZeroPointTensor"]
    y = il.torch_requantize(torch, acc, scale, x["OutputScaleTensor"].reshape(()),
                            None if zp is None else zp.reshape(()),
                            getattr(torch, desc.output_tensor.data_type.numpy_dtype.name))
    return {"OutputTensor": y}


def _conv(x, w, y, x_type="UINT8", w_type="UINT8", y_type="UINT8", zx=False, sw=None, zw=False, bias=False,
          zy=False, strides=None, dilations=None, start=None, end=None, groups=1):
    from ..descs import QuantizedLinearConvolution

    dims = len(x) - 2
    zeros, ones = (0,) * dims, (1,) * dims
    one = [1] * len(x)
    sw = sw or one
    return QuantizedLinearConvolution(
        input_tensor=td(x_type, x), input_scale_tensor=td("FLOAT32", one),
        input_zero_point_tensor=td(x_type, one) if zx else None,
        filter_tensor=td(w_type, w), filter_scale_tensor=td("FLOAT32", sw),
        filter_zero_point_tensor=td(w_type, sw) if zw else None,
        bias_tensor=td("INT32", [1, y[1]] + [1] * dims) if bias else None,
        output_scale_tensor=td("FLOAT32", one), output_zero_point_tensor=td(y_type, one) if zy else None,
        output_tensor=td(y_type, y), strides=strides or ones, dilations=dilations or ones,
        start_padding=start or zeros, end_padding=end or zeros, group_count=groups)


EXACT = dict(atol=0, rtol=0, why="one float32 evaluation order on every backend: exact")


def _samples():
    rng = np.random.default_rng(120)
    f32 = np.float32
    u8 = lambda *s: rng.integers(0, 256, s, dtype=np.uint8)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)  # noqa: E731
    one = lambda v, dtype=f32, rank=3: np.full([1] * rank, v, dtype)  # noqa: E731
    return [
        # By hand: X - 10 = [0, 2, 4, 6], W = [1, 1]: acc = [2, 6, 10], + Bias 1 = [3, 7, 11]; times InputScale 0.5 *
        # FilterScale 1 = [1.5, 3.5, 5.5]; / OutputScale 1, half to even: [2, 4, 6] (OutputZeroPoint 0).
        Sample("bias_ties_by_hand", _conv([1, 1, 4], [1, 1, 2], [1, 1, 3], zx=True, bias=True, zy=True),
               {"InputTensor": np.array([[[10, 12, 14, 16]]], np.uint8), "InputScaleTensor": one(0.5),
                "InputZeroPointTensor": one(10, np.uint8), "FilterTensor": np.array([[[1, 1]]], np.uint8),
                "FilterScaleTensor": one(1), "BiasTensor": np.array([[[1]]], np.int32),
                "OutputScaleTensor": one(1), "OutputZeroPointTensor": one(0, np.uint8)},
               {"OutputTensor": np.array([[[2, 4, 6]]], np.uint8)}, **EXACT),
        # By hand: two groups of one channel, 1 x 1 filters: W - [0, 1] = [1, 1], acc = X = [2, -3], + Bias [0, -1] =
        # [2, -4]; times 1 * FilterScale [0.5, 0.25] = [1, -1]; / OutputScale 0.5 = [2, -2]; + OutputZeroPoint -1:
        # [1, -3].
        Sample("per_channel_groups_int8_by_hand",
               _conv([1, 2, 1, 1], [2, 1, 1, 1], [1, 2, 1, 1], "INT8", "INT8", "INT8", sw=[1, 2, 1, 1], zw=True,
                     bias=True, zy=True, groups=2),
               {"InputTensor": np.array([2, -3], np.int8).reshape(1, 2, 1, 1), "InputScaleTensor": one(1, rank=4),
                "FilterTensor": np.array([1, 3], np.int8).reshape(2, 1, 1, 1),
                "FilterScaleTensor": np.array([0.5, 0.25], f32).reshape(1, 2, 1, 1),
                "FilterZeroPointTensor": np.array([0, 2], np.int8).reshape(1, 2, 1, 1),
                "BiasTensor": np.array([0, -1], np.int32).reshape(1, 2, 1, 1), "OutputScaleTensor": one(0.5, rank=4),
                "OutputZeroPointTensor": one(-1, np.int8, 4)},
               {"OutputTensor": np.array([1, -3], np.int8).reshape(1, 2, 1, 1)}, **EXACT),
        Sample("strides_dilations_padding_groups_per_channel",
               _conv([2, 4, 7, 6], [6, 2, 3, 2], [2, 6, 3, 5], "UINT8", "INT8", "UINT8", zx=True, sw=[1, 6, 1, 1],
                     zw=True, bias=True, zy=True, strides=(2, 1), dilations=(2, 2), start=(1, 0), end=(2, 1), groups=2),
               {"InputTensor": u8(2, 4, 7, 6), "InputScaleTensor": one(0.02, rank=4),
                "InputZeroPointTensor": one(128, np.uint8, 4), "FilterTensor": i8(6, 2, 3, 2),
                "FilterScaleTensor": rng.uniform(0.005, 0.02, (1, 6, 1, 1)).astype(f32),
                "FilterZeroPointTensor": i8(1, 6, 1, 1),
                "BiasTensor": rng.integers(-5000, 5000, (1, 6, 1, 1)).astype(np.int32),
                "OutputScaleTensor": one(0.05, rank=4), "OutputZeroPointTensor": one(120, np.uint8, 4)}, **EXACT),
        Sample("int8_1d_per_tensor_no_bias", _conv([2, 3, 9], [4, 3, 3], [2, 4, 9], "INT8", "INT8", "INT8", zx=True,
                                                   start=(1,), end=(1,)),
               {"InputTensor": i8(2, 3, 9), "InputScaleTensor": one(0.03), "InputZeroPointTensor": one(-5, np.int8),
                "FilterTensor": i8(4, 3, 3), "FilterScaleTensor": one(0.01), "OutputScaleTensor": one(0.2)}, **EXACT),
    ]


SAMPLES = _samples()
