"""DML_OPERATOR_CONVOLUTION_INTEGER: shape rules the descriptor file cannot express.

A FORWARD cross-correlation: InputTensor {BatchCount, InputChannelCount, [InputHeight], InputWidth};
FilterTensor {OutputChannelCount, InputChannelCount / GroupCount, [FilterHeight], FilterWidth}; OutputTensor
{BatchCount, OutputChannelCount, [OutputHeight], OutputWidth}; GroupCount (at least 1) divides both channel
counts; Strides and Dilations are at least 1; the dilated filter 1 + (FilterSize - 1) * Dilations fits the
padded input. The spatial output sizes are not tied to (InputSize + StartPadding + EndPadding - DilatedFilter)
/ Strides + 1: the page gives no formula and, for CONVOLUTION, DirectML computed a longer output (see
dmlops/ops/convolution.py); the same policy is kept here.
DimensionCount (the length of Strides, Dilations, StartPadding and EndPadding) is InputTensor's
DimensionCount - 2. The page says "Only a value of 2 is supported", written for the 4-D-only
DML_FEATURE_LEVEL_2_1; its DML_FEATURE_LEVEL_4_0 table adds 3-D tensors {BatchCount, InputChannelCount,
InputWidth}, which need 1 (DirectML runs CONVOLUTION with 3-D tensors and DimensionCount 1).
InputZeroPointTensor is {1, 1, 1, 1}; FilterZeroPointTensor is {1, 1, 1, 1} (per tensor) or
{1, OutputChannelCount, 1, 1} (per channel). A per-tensor zero point may drop leading ones (the 4_0 table:
{[1], [1], [1], 1}; sample int8_per_tensor_3d_zero_points ran on DirectML); a per-channel one has InputTensor's
DimensionCount: DirectML refused {2, 1, 1} for a 4-D convolution (vector sample_nhwc_strided_input; that sample
also read its input through NHWC strides, which CONVOLUTION takes, and no case separates the two; ONNX Runtime's
DirectML provider gives a per-channel zero point InputTensor's DimensionCount before handing it over). Shared
rules: dmlops/ops/_windows.py.

Math (docs: "subtract zero point values from the input and filter tensor", then a forward convolution):
Output[n, m, o] = sum over the group's channels c and filter offsets k of (Xpad[n, c, o * Strides + k * Dilations] -
InputZeroPoint) * (W[m, c, k] - FilterZeroPoint[m]), accumulated in INT32 (wrapping modulo 2**32), an absent zero
point being 0. Padding is a zero of the centred input (Xpad = InputZeroPoint there, as ONNX ConvInteger's reference
and ONNX Runtime pad); an output longer than the sliding-window formula reads padding in its extra windows, and a
shorter one is its first positions (CONVOLUTION's policy, dmlops/ops/convolution.py). How each backend stays exact
on every CPU: dmlops/ops/_integer_linear.py (NumPy: integer arithmetic; ONNX on the CPU and CUDA providers: the
centred values' windows in float64 and one MatMul, exact below 2**53, never ONNX Runtime's ConvInteger, which is
wrong on AVX2 CPUs for an INT8 input with a UINT8 filter; on DirectML's provider: Pad with the zero point +
ConvInteger, DirectML's own kernel; torch: window gather + exact float32 digit matmuls).

DirectML ran every other sample bit for bit (the acceptance run of 2026-11-28); the docs, ONNX ConvInteger's node
cases, Python loops and NumPy int64 arithmetic over every input / filter DataType pair decide the rest
(tests/test_oracle_integer_linear.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _integer_linear as il
from ._windows import braces, convolution_problems, quantization_problems


def check(desc, level) -> list[Problem]:
    """DimensionCount, Strides/Dilations/GroupCount, FilterTensor and OutputTensor sizes, zero-point Sizes (a
    per-channel FilterZeroPointTensor has InputTensor's DimensionCount)."""
    out, out_channels, rank = convolution_problems(desc)
    out += quantization_problems(desc, ["InputZeroPointTensor"], rank)
    short = _short_per_channel_problem(desc, rank, out_channels)
    if short is not None:
        return out + [short]
    out += quantization_problems(desc, ["FilterZeroPointTensor"], rank, out_channels, "OutputChannelCount")
    return out


def _short_per_channel_problem(desc, rank, out_channels) -> Problem | None:
    """A per-channel FilterZeroPointTensor (more than one element) with fewer dimensions than InputTensor: DirectML
    refused {2, 1, 1} for a 4-D convolution (vector sample_nhwc_strided_input), and ONNX Runtime's DirectML provider
    gives a per-channel zero point InputTensor's DimensionCount before handing it over; a per-tensor one may drop
    leading 1s (sample int8_per_tensor_3d_zero_points ran on DirectML)."""
    t = desc.filter_zero_point_tensor
    if t is None or rank is None or il.count(t) == 1 or len(t.sizes) >= rank:
        return None
    layout = braces(["1", "OutputChannelCount"] + ["1"] * (rank - 2))
    want = f" = {[1, out_channels] + [1] * (rank - 2)}" if out_channels is not None else ""
    return Problem(desc.OPERATOR_TYPE, "FilterZeroPointTensor", "shape",
                   f"Sizes {list(t.sizes)} hold {il.count(t)} zero points in {len(t.sizes)} dimensions; a per-channel "
                   f"FilterZeroPointTensor has InputTensor's DimensionCount ({rank}): {layout}{want}.")


def filter_zero_point_shape(desc, name="FilterZeroPointTensor"):
    """(shape, per_channel) of a filter quantization tensor: {M, 1, ..} broadcasting along FilterTensor's axis 0
    (without its last 1: along OutputTensor's axis 1), and whether it has more than one element."""
    t = desc.tensors().get(name)
    if t is None:
        return None, False
    n = il.count(t)
    return il.channel(n, len(desc.strides) + 1), n > 1


def reference(desc, x):
    """The cross-correlation of the centred int64 values through the window table (dmlops.ops._integer_linear)."""
    shape, _ = filter_zero_point_shape(desc)
    vx = il.reference_centered(x["InputTensor"], x["InputZeroPointTensor"], ())
    vw = il.reference_centered(x["FilterTensor"], x["FilterZeroPointTensor"], shape)
    return {"OutputTensor": il.reference_conv(desc, vx, vw)}


def to_onnx(desc, g, x):
    """Float64 windows and MatMul (DirectML's provider: Pad with InputZeroPoint, ConvInteger, per-channel filter zero
    points as int32 corrections, Slice)."""
    shape, per_channel = filter_zero_point_shape(desc)
    zx = il.onnx_shaped(g, x["InputZeroPointTensor"], [])
    zw = il.onnx_shaped(g, x["FilterZeroPointTensor"], list(shape[:-1]) if per_channel else [])  # vs OutputTensor
    return {"OutputTensor": il.onnx_conv(g, desc, x["InputTensor"], zx, x["FilterTensor"], zw, per_channel)}


def to_torch(desc, torch, x):
    """Window gather and exact float32 digit matmuls, in int32."""
    shape, _ = filter_zero_point_shape(desc)
    vx = il.torch_centered(torch, x["InputTensor"], x["InputZeroPointTensor"], ())
    vw = il.torch_centered(torch, x["FilterTensor"], x["FilterZeroPointTensor"], shape)
    return {"OutputTensor": il.torch_conv(torch, desc, vx, vw)}


def _conv(x, w, y, zx=None, zw=None, x_type="UINT8", w_type="UINT8", strides=None, dilations=None, start=None,
          end=None, groups=1, x_strides=None):
    from ..descs import ConvolutionInteger

    dims = len(x) - 2
    zeros, ones = (0,) * dims, (1,) * dims
    return ConvolutionInteger(
        input_tensor=td(x_type, x, x_strides), input_zero_point_tensor=None if zx is None else td(x_type, zx),
        filter_tensor=td(w_type, w), filter_zero_point_tensor=None if zw is None else td(w_type, zw),
        output_tensor=td("INT32", y), strides=strides or ones, dilations=dilations or ones,
        start_padding=start or zeros, end_padding=end or zeros, group_count=groups)


EXACT = dict(atol=0, rtol=0, why="integer arithmetic: exact")


def _samples():
    rng = np.random.default_rng(119)
    u8 = lambda *s: rng.integers(0, 256, s, dtype=np.uint8)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)  # noqa: E731
    return [
        # By hand: X - 1 = [0, 1, 2, 3, 4], W - 1 = [1, 0, -1]; padding 1 on each side reads 0 after the subtraction:
        # [0, 0, 1, 2, 3, 4, 0] -> [0 - 1, 0 - 2, 1 - 3, 2 - 4, 3 - 0] = [-1, -2, -2, -2, 3].
        Sample("padded_1d_zero_points", _conv([1, 1, 5], [1, 1, 3], [1, 1, 5], [1], [1], start=(1,), end=(1,)),
               {"InputTensor": np.array([[[1, 2, 3, 4, 5]]], np.uint8), "InputZeroPointTensor": np.array([1], np.uint8),
                "FilterTensor": np.array([[[2, 1, 0]]], np.uint8), "FilterZeroPointTensor": np.array([1], np.uint8)},
               {"OutputTensor": np.array([[[-1, -2, -2, -2, 3]]], np.int32)}, **EXACT),
        # By hand: two groups of one channel, 1 x 1 filters [3] and [5] with per-channel zero points [1, 2]: channel 0
        # is 2 * ones, channel 1 is 3 * [[1, 2], [3, 4]].
        Sample("groups_per_channel_int8", _conv([1, 2, 2, 2], [2, 1, 1, 1], [1, 2, 2, 2], zw=[1, 2, 1, 1],
                                                x_type="INT8", w_type="INT8", groups=2),
               {"InputTensor": np.array([1, 1, 1, 1, 1, 2, 3, 4], np.int8).reshape(1, 2, 2, 2),
                "FilterTensor": np.array([3, 5], np.int8).reshape(2, 1, 1, 1),
                "FilterZeroPointTensor": np.array([1, 2], np.int8).reshape(1, 2, 1, 1)},
               {"OutputTensor": np.array([2, 2, 2, 2, 3, 6, 9, 12], np.int32).reshape(1, 2, 2, 2)}, **EXACT),
        # By hand: an output two longer than the formula (3 - 2 + 1 = 2): X - 3 = [0, 1, 2], W = [1, 1]; the extra
        # windows read padding (0 after the subtraction): [0 + 1, 1 + 2, 2 + 0, 0 + 0] = [1, 3, 2, 0].
        Sample("output_longer_than_formula", _conv([1, 1, 3], [1, 1, 2], [1, 1, 4], [1, 1, 1]),
               {"InputTensor": np.array([[[3, 4, 5]]], np.uint8), "InputZeroPointTensor": np.array([[[3]]], np.uint8),
                "FilterTensor": np.array([[[1, 1]]], np.uint8)},
               {"OutputTensor": np.array([[[1, 3, 2, 0]]], np.int32)}, **EXACT),
        # By hand: an output shorter than the formula keeps its first positions: [1 + 2, 2 + 3] of [1, 2, 3, 4, 5].
        Sample("output_shorter_than_formula", _conv([1, 1, 5], [1, 1, 2], [1, 1, 2]),
               {"InputTensor": np.array([[[1, 2, 3, 4, 5]]], np.uint8), "FilterTensor": np.array([[[1, 1]]], np.uint8)},
               {"OutputTensor": np.array([[[3, 5]]], np.int32)}, **EXACT),
        Sample("strides_dilations_padding_groups_per_channel",
               _conv([2, 4, 7, 6], [6, 2, 3, 2], [2, 6, 3, 5], [1, 1, 1, 1], [1, 6, 1, 1], w_type="INT8",
                     strides=(2, 1), dilations=(2, 2), start=(1, 0), end=(2, 1), groups=2),
               {"InputTensor": u8(2, 4, 7, 6), "InputZeroPointTensor": u8(1, 1, 1, 1), "FilterTensor": i8(6, 2, 3, 2),
                "FilterZeroPointTensor": i8(1, 6, 1, 1)}, **EXACT),
        Sample("int8_per_tensor_3d_zero_points", _conv([1, 3, 5, 5], [2, 3, 3, 3], [1, 2, 5, 5], [1, 1, 1], [1, 1, 1],
                                                       x_type="INT8", start=(1, 1), end=(1, 1)),
               {"InputTensor": i8(1, 3, 5, 5), "InputZeroPointTensor": i8(1, 1, 1),
                "FilterTensor": u8(2, 3, 3, 3), "FilterZeroPointTensor": u8(1, 1, 1)}, **EXACT),
        # NHWC storage: InputTensor {N, C, H, W} = {1, 2, 3, 3} read channel-last through strides {18, 1, 6, 2};
        # per-channel zero points of InputTensor's DimensionCount (ERRORS: DirectML refused a 3-D {2, 1, 1}).
        Sample("nhwc_strided_input", _conv([1, 2, 3, 3], [2, 2, 2, 2], [1, 2, 2, 2], [1, 1, 1, 1], [1, 2, 1, 1],
                                           x_strides=[18, 1, 6, 2]),
               {"InputTensor": u8(18), "InputZeroPointTensor": u8(1, 1, 1, 1), "FilterTensor": u8(2, 2, 2, 2),
                "FilterZeroPointTensor": u8(1, 2, 1, 1)}, **EXACT),
    ]


SAMPLES = _samples()


# Descriptors DirectML refuses that the descriptor file alone would let through: (name, descriptor, message).
ERRORS = [
    ("per_channel_zero_point_of_fewer_dimensions",  # DirectML's vector sample_nhwc_strided_input
     _conv([1, 2, 3, 3], [2, 2, 2, 2], [1, 2, 2, 2], [1, 1, 1], [2, 1, 1], x_strides=[18, 1, 6, 2]),
     "CONVOLUTION_INTEGER.FilterZeroPointTensor: Sizes [2, 1, 1] hold 2 zero points in 3 dimensions; a per-channel "
     "FilterZeroPointTensor has InputTensor's DimensionCount (4): {1, OutputChannelCount, 1, 1} = [1, 2, 1, 1]."),
]
