"""DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING: shape rules the descriptor file cannot express.

The window rules of AVERAGE_POOLING1: DimensionCount (the length of Strides, WindowSize, StartPadding,
EndPadding and Dilations) is InputTensor's DimensionCount - 2; Strides, WindowSize and Dilations are at
least 1; OutputTensor is {BatchCount, ChannelCount, Output...} with Output = (InputSize + StartPadding +
EndPadding - DilatedWindow) / Strides + 1 (floor), DilatedWindow = 1 + (WindowSize - 1) * Dilations (the
page prints the formula without Dilations; DirectML's AVERAGE_POOLING1 / MAX_POOLING2 answers use the dilated
window).
InputScaleTensor, InputZeroPointTensor, OutputScaleTensor and OutputZeroPointTensor are {1, 1, 1, 1} (per
tensor) or {1, ChannelCount, 1, 1} (per channel), ChannelCount = InputTensor.Sizes[1]; for a 5-D input
{1, 1, 1, 1, 1} or {1, ChannelCount, 1, 1, 1}. They have InputTensor's DimensionCount, although the tiers allow 1
to 5 dimensions: DirectML refused a 5-D INT8 -> UINT8 pooling with {1} parameter tensors (vector
sample_int8_to_uint8_5d_include_padding, E_INVALIDARG at CreateOperator), onnxruntime's DirectML provider always
gives them the input's rank, and the page writes them with 4 dimensions. The same refusal could instead be
DirectML's answer to INT8 in, UINT8 out; the page's constraints pair each tensor with its own zero point only, so
dmlops keeps allowing that (no vector settles it). Shared rules: dmlops/ops/_windows.py.

Math (docs: "mathematically equivalent to dequantizing the inputs, then performing average pooling, and then quantizing
the output"; no evaluation order given). Windows are read through dmlops/ops/_pooling.py (strided slices, its table
for windows of more than 256 elements; position o * Strides - StartPadding + k * Dilations); a padding element is a
dequantized 0. dmlops computes, on every backend:

    S      = sum over the window of (Input - InputZeroPoint[c])   (exact, in INT32; padding adds 0)
    real   = float32(S) * InputScale[c] / Count                   (float32; Count = prod(WindowSize) with
             IncludePadding, else the window's elements inside the input)
    Output = quantize(real, OutputScale[c], OutputZeroPoint[c])   (dmlops/ops/_quantize.py: half to even, saturated)

Sample ties_by_hand shows the rounding (2.5 -> 2, 4.5 -> 4), samples exclude_padding_by_hand / include_padding_by_hand
the two divisors. A window made only of padding with IncludePadding FALSE divides 0 by 0: NaN, which the quantize rule
turns into 0 (no vector shows what DirectML does there). ONNX Runtime's com.microsoft QLinearAveragePool (CPU) sums
dequantized floats instead, which can differ by one step within a float32 rounding of a half. No DirectML vectors
cover this operator (DML_FEATURE_LEVEL_6_2, no case among the vectors): the docs, ONNX Runtime's QLinearAveragePool and
NumPy arithmetic decide (tests/test_oracle_integer_linear.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _integer_linear as il
from . import _pooling
from ._quantize import onnx_quantize, reference_quantize, torch_quantize
from ._quantized import braces
from ._shapes import sizes
from ._windows import pooling_problems, quantization_problems

QUANTIZATION = ("InputScaleTensor", "InputZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor")


def check(desc, level) -> list[Problem]:
    """The AVERAGE_POOLING1 window rules and the Sizes of the scale and zero-point tensors (InputTensor's
    DimensionCount, module docstring)."""
    out = pooling_problems(desc)
    x = sizes(tensor(desc, "InputTensor"))
    if x is not None and len(x) in (4, 5):
        rank = len(x)
        forms = f"{braces(['1'] * rank)} (per tensor) or {braces(['1', 'ChannelCount'] + ['1'] * (rank - 2))}"
        same = []
        for name in QUANTIZATION:
            t = tensor(desc, name)
            if t is not None and len(t.sizes) != rank:
                out.append(Problem(desc.OPERATOR_TYPE, name, "rank",
                                   f"Sizes {list(t.sizes)} have {len(t.sizes)} dimension(s); the scale and zero-point "
                                   f"tensors have InputTensor's DimensionCount, {rank}: {forms} (per channel); "
                                   f"give it {rank} dimensions."))
            else:
                same.append(name)
        out += quantization_problems(desc, same, rank, x[1], "ChannelCount")
    return out


def _plan(desc):
    """(window table, or None where the windows are read one element at a time (_pooling.Slices), the per-row
    divisor as float32 [rows] or a scalar, parameter counts)."""
    spatial = list(desc.input_tensor.sizes[2:])
    counts = {name: il.count(t) for name, t in desc.tensors().items() if t is not None and name != "InputTensor"}
    if _pooling.sliced(desc):
        return None, _pooling.Slices(desc, spatial).divisor(desc.include_padding).reshape(-1), counts
    _pooling.budget(desc, list(desc.input_tensor.sizes))
    idx = _pooling.table(desc, spatial)
    if desc.include_padding:
        divisor = np.float32(idx.shape[1])
    else:
        divisor = (idx >= 0).sum(axis=1).astype(np.float32)
    return idx, divisor, counts


def _rows(desc) -> list[int]:
    """[N, C, rows]: the window sums' shape."""
    n, c = desc.input_tensor.sizes[:2]
    return [n, c, int(np.prod(desc.output_tensor.sizes[2:], dtype=np.int64))]


def _param(value, counts, name):
    """A scale or zero point as {count, 1} against [N, C, rows] (None stays None)."""
    return None if value is None else value.reshape(il.row(counts[name]))


def reference(desc, x):
    """Integer window sums (strided slices, or the table), float32(S) * InputScale / Count, quantized."""
    idx, divisor, counts = _plan(desc)
    dims = len(desc.strides)
    zp = x["InputZeroPointTensor"]
    v = il.reference_centered(x["InputTensor"], zp, None if zp is None else il.channel(counts["InputZeroPointTensor"],
                                                                                       dims))
    if idx is None:
        total = _pooling.reference_slice_sum(v, _pooling.Slices(desc, v.shape[2:]), 0).reshape(_rows(desc))
    else:
        total = _pooling.reference_windows(v, idx, 0).sum(axis=-1)  # int64 [N, C, rows], exact
    with np.errstate(all="ignore"):
        real = total.astype(np.float32) * _param(x["InputScaleTensor"], counts, "InputScaleTensor").astype(np.float32)
        real = real / divisor
    y = reference_quantize(real, _param(x["OutputScaleTensor"], counts, "OutputScaleTensor"),
                              _param(x["OutputZeroPointTensor"], counts, "OutputZeroPointTensor"),
                              desc.output_tensor.data_type.numpy_dtype)
    return {"OutputTensor": y.reshape(desc.output_tensor.sizes)}


def to_onnx(desc, g, x):
    """Cast / Sub in int32, window sums in int32 (a Slice and Add per window element, or a Gather through the window
    table and ReduceSum past _pooling.SLICE_MAX), Cast, Mul, Div, then quantize."""
    idx, divisor, counts = _plan(desc)
    dims = len(desc.strides)
    shape = list(desc.input_tensor.sizes)
    v = g.cast(x["InputTensor"], np.int32)
    if x["InputZeroPointTensor"] is not None:
        zp = il.onnx_shaped(g, x["InputZeroPointTensor"], il.channel(counts["InputZeroPointTensor"], dims))
        v = g.node("Sub", [v, g.cast(zp, np.int32)])
    if idx is None:  # int32 sums, exact in any order; the divisor a product of per-dimension counts
        o = _pooling.OnnxSlices(g, _pooling.Slices(desc, shape[2:]))
        total = g.node("Reshape", [o.slice_sum(v, 0), g.ints(_rows(desc))])
        by = g.node("Reshape", [o.divisor(desc.include_padding), g.ints([-1])])
    else:
        total = g.node("ReduceSum", [_pooling.onnx_windows(g, v, shape, idx, 0), g.ints([-1])], keepdims=0)
        by = g.const(np.asarray(divisor, np.float32))
    shaped = lambda name: il.onnx_shaped(g, x[name], il.row(counts[name])) if x[name] is not None else None  # noqa
    real = g.node("Mul", [g.cast(total, np.float32), shaped("InputScaleTensor")])
    real = g.node("Div", [real, by])
    y = onnx_quantize(g, real, shaped("OutputScaleTensor"), shaped("OutputZeroPointTensor"),
                      desc.output_tensor.data_type.numpy_dtype)
    return {"OutputTensor": g.node("Reshape", [y, g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """Subtraction in int32, int32 window sums (strided views, or index_select through the window table), then
    the float32 steps."""
    idx, divisor, counts = _plan(desc)
    dims = len(desc.strides)
    zp = x["InputZeroPointTensor"]
    v = il.torch_centered(torch, x["InputTensor"], zp,
                          None if zp is None else il.channel(counts["InputZeroPointTensor"], dims))
    if idx is None:
        total = _pooling.torch_slice_sum(torch, v, _pooling.Slices(desc, list(v.shape[2:])), 0).reshape(_rows(desc))
    else:
        total = _pooling.torch_windows(torch, v, idx, 0).sum(dim=-1, dtype=torch.int32)
    shaped = lambda name: x[name].reshape(il.row(counts[name])) if x[name] is not None else None  # noqa: E731
    real = total.to(torch.float32) * shaped("InputScaleTensor").to(torch.float32)
    real = real / torch.as_tensor(divisor, device=real.device)
    y = torch_quantize(torch, real, shaped("OutputScaleTensor"), shaped("OutputZeroPointTensor"),
                       getattr(torch, desc.output_tensor.data_type.numpy_dtype.name))
    return {"OutputTensor": y.reshape(tuple(desc.output_tensor.sizes))}


def _pool(x, y, window, dtype="UINT8", y_type=None, q=None, zx=False, zy=False, strides=None, start=None, end=None,
          dilations=None, include=False):
    from ..descs import QuantizedLinearAveragePooling

    dims = len(x) - 2
    y_type = y_type or dtype
    q = q or [1] * len(x)
    return QuantizedLinearAveragePooling(
        input_tensor=td(dtype, x), input_scale_tensor=td("FLOAT32", q),
        input_zero_point_tensor=td(dtype, q) if zx else None,
        output_scale_tensor=td("FLOAT32", q), output_zero_point_tensor=td(y_type, q) if zy else None,
        output_tensor=td(y_type, y), strides=strides or (1,) * dims, window_size=window,
        start_padding=start or (0,) * dims, end_padding=end or (0,) * dims, dilations=dilations or (1,) * dims,
        include_padding=include)


EXACT = dict(atol=0, rtol=0, why="integer sums, then one float32 evaluation order on every backend: exact")


def _samples():
    rng = np.random.default_rng(169)
    f32 = np.float32
    one = lambda v, dtype=f32, rank=4: np.full([1] * rank, v, dtype)  # noqa: E731
    u8 = lambda *s: rng.integers(0, 256, s, dtype=np.uint8)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s, dtype=np.int8)  # noqa: E731
    pad_input = {"InputTensor": np.array([3, 6, 9], np.int8).reshape(1, 1, 1, 3), "InputScaleTensor": one(1),
                 "InputZeroPointTensor": one(3, np.int8), "OutputScaleTensor": one(1),
                 "OutputZeroPointTensor": one(-1, np.int8)}
    pad = dict(dtype="INT8", zx=True, zy=True, start=(0, 1), end=(0, 1))
    return [
        # By hand: 2 x 2 windows, stride 2, over 0..15: sums 10, 18, 42, 50, means 2.5, 4.5, 10.5, 12.5, half to even:
        # [[2, 4], [10, 12]].
        Sample("ties_by_hand", _pool([1, 1, 4, 4], [1, 1, 2, 2], (2, 2), strides=(2, 2)),
               {"InputTensor": np.arange(16, dtype=np.uint8).reshape(1, 1, 4, 4), "InputScaleTensor": one(1),
                "OutputScaleTensor": one(1)},
               {"OutputTensor": np.array([[[[2, 4], [10, 12]]]], np.uint8)}, **EXACT),
        # By hand: X - 3 = [0, 3, 6]; window 2 with one padding element each side: windows [pad, 0], [0, 3], [3, 6],
        # [6, pad], sums [0, 3, 9, 6]. Without padding in the divisor (1, 2, 2, 1): [0, 1.5, 4.5, 6] -> half to even
        # [0, 2, 4, 6], + OutputZeroPoint -1: [-1, 1, 3, 5].
        Sample("exclude_padding_by_hand", _pool([1, 1, 1, 3], [1, 1, 1, 4], (1, 2), **pad), pad_input,
               {"OutputTensor": np.array([-1, 1, 3, 5], np.int8).reshape(1, 1, 1, 4)}, **EXACT),
        # By hand: the same with IncludePadding (divisor 2): [0, 1.5, 4.5, 3] -> [0, 2, 4, 3] - 1 = [-1, 1, 3, 2].
        Sample("include_padding_by_hand", _pool([1, 1, 1, 3], [1, 1, 1, 4], (1, 2), include=True, **pad), pad_input,
               {"OutputTensor": np.array([-1, 1, 3, 2], np.int8).reshape(1, 1, 1, 4)}, **EXACT),
        Sample("per_channel_dilations_padding",
               _pool([2, 3, 6, 7], [2, 3, 3, 2], (2, 3), q=[1, 3, 1, 1], zx=True, zy=True, strides=(2, 2),
                     start=(1, 0), end=(0, 1), dilations=(2, 2)),
               {"InputTensor": u8(2, 3, 6, 7), "InputScaleTensor": rng.uniform(0.05, 0.2, (1, 3, 1, 1)).astype(f32),
                "InputZeroPointTensor": np.array([120, 128, 135], np.uint8).reshape(1, 3, 1, 1),
                "OutputScaleTensor": rng.uniform(0.05, 0.2, (1, 3, 1, 1)).astype(f32),
                "OutputZeroPointTensor": np.array([100, 128, 90], np.uint8).reshape(1, 3, 1, 1)}, **EXACT),
        # 5-D, INT8 in and UINT8 out, with 5-D parameter tensors (DirectML refused this descriptor with {1} ones).
        Sample("int8_to_uint8_5d_include_padding",
               _pool([1, 2, 3, 4, 4], [1, 2, 2, 4, 2], (2, 2, 3), "INT8", "UINT8", q=[1] * 5, zx=True, zy=True,
                     strides=(1, 1, 2), start=(0, 0, 1), end=(0, 1, 1), include=True),
               {"InputTensor": i8(1, 2, 3, 4, 4), "InputScaleTensor": one(0.1, rank=5),
                "InputZeroPointTensor": one(-3, np.int8, 5), "OutputScaleTensor": one(0.07, rank=5),
                "OutputZeroPointTensor": one(128, np.uint8, 5)}, **EXACT),
    ]


SAMPLES = _samples()
