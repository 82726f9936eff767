"""Math shared by the normalization operators of issue 12 (MEAN_VARIANCE_NORMALIZATION, _1, _2,
LOCAL_RESPONSE_NORMALIZATION and its GRAD), on the three backends.

Mean-variance normalization (every MVN version is this with its own axes and flags)::

    Mean     = mean(Input over Axes)                     (0 when UseMean is FALSE: MVN2)
    Variance = mean((Input - Mean)^2 over Axes)          population variance (/N, not /(N - 1))
    Output   = (Input - Mean) / sqrt(Variance + Epsilon) (Input - Mean when NormalizeVariance/UseVariance FALSE)
    Output   = Output * Scale + Bias                     each optional, broadcast to InputTensor

FLOAT16 (DirectML's vectors): DirectML normalizes with Mean and Variance stored as FLOAT16 values rounded toward
zero (dmlops.ops._elementwise.float16_toward_zero), as BATCH_NORMALIZATION_TRAINING does with its statistics
outputs: this reproduces all six FLOAT16 MVN/MVN1 cases bit for bit (computing in float32 throughout leaves them up
to 53 FLOAT16 ULP off where Input - Mean nearly cancels). The Variance is computed around the exact Mean first.

Local response normalization: the window sum ``S`` of Input^2 runs over LocalSize channels (CrossChannel TRUE) or
over a LocalSize x LocalSize spatial window (FALSE), ``floor((LocalSize - 1) / 2)`` elements before the centre and
the rest after (ONNX LRN's convention; torch's local_response_norm puts the extra element of an even window before
the centre), clipped at the edges (zeros outside)::

    D = Bias + Alpha / LocalSize * S,   Output = Input / D^Beta

and its gradient, DirectML's: S' is a sum over the same window as S (``before`` elements before the centre)::

    dInput = dOutput * D^-Beta - 2 * Alpha * Beta / LocalSize * Input * S'(dOutput * Input * D^(-Beta - 1))

For an odd LocalSize that is the derivative; for an even one the derivative would sum over the transposed window
(``after`` before the centre), but DirectML does not (vectors LOCAL_RESPONSE_NORMALIZATION_GRAD-sample_*_even).

The reference computes in float64 (rounded to the output type by dmlops.lower); the ONNX and torch lowerings in
float32 with the same operations.
"""
from __future__ import annotations

import numpy as np

from . import _elementwise as ew
from .batch_normalization import epsilon, onnx_float, onnx_reduce, torch_float, torch_mean


def _f32(value) -> float:
    """A DML FLOAT field as DirectML reads it (32-bit)."""
    return float(np.float32(value))


# ---------------------------------------------------------------------------------------------- MVN

def mvn_reference(desc, x, axes, use_mean: bool = True, use_variance: bool = True) -> dict:
    """MVN in float64; FLOAT16 statistics stored toward zero (module docstring)."""
    axes = tuple(axes)
    v = x["InputTensor"].astype(np.float64)
    f16 = ew.is_float16(desc)
    mean = v.mean(axis=axes, keepdims=True) if use_mean else np.zeros([1] * v.ndim)
    centered = v - mean
    if use_variance:
        var = (centered * centered).mean(axis=axes, keepdims=True)
    if f16:  # DirectML's FLOAT16 statistics
        mean = ew.float16_toward_zero(mean).astype(np.float64)
        centered = v - mean
        if use_variance:
            var = ew.float16_toward_zero(var).astype(np.float64)
    y = centered / np.sqrt(var + epsilon(desc)) if use_variance else centered
    return {"OutputTensor": _scale_bias_reference(y, x)}


def _scale_bias_reference(y, x):
    if x.get("ScaleTensor") is not None:
        y = y * x["ScaleTensor"].astype(np.float64)
    if x.get("BiasTensor") is not None:
        y = y + x["BiasTensor"].astype(np.float64)
    return y


def mvn_onnx(desc, g, x, axes, use_mean: bool = True, use_variance: bool = True) -> dict:
    """ReduceMean, Sub, Mul, ReduceMean, Add, Sqrt, Div (then Mul Scale, Add Bias) in float32."""
    axes = list(axes)
    v = onnx_float(g, x["InputTensor"])
    f16 = ew.is_float16(desc)
    mean = onnx_reduce(g, "ReduceMean", v, axes) if use_mean else None
    centered = g.node("Sub", [v, mean]) if use_mean else v
    if use_variance:
        var = onnx_reduce(g, "ReduceMean", g.node("Mul", [centered, centered]), axes)
    if f16:
        if use_mean:
            assert mean is not None
            centered = g.node("Sub", [v, ew.onnx_float16_toward_zero(g, mean)])
        if use_variance:
            var = ew.onnx_float16_toward_zero(g, var)
    y = centered
    if use_variance:
        y = g.node("Div", [centered, g.node("Sqrt", [g.node("Add", [var, g.scalar(epsilon(desc), var)])])])
    if x.get("ScaleTensor") is not None:
        y = g.node("Mul", [y, onnx_float(g, x["ScaleTensor"])])
    if x.get("BiasTensor") is not None:
        y = g.node("Add", [y, onnx_float(g, x["BiasTensor"])])
    return {"OutputTensor": y}


def mvn_torch(desc, torch, x, axes, use_mean: bool = True, use_variance: bool = True) -> dict:
    """The same with torch.mean (the population variance is a mean of squares, not torch.var)."""
    axes = list(axes)
    v = torch_float(torch, x["InputTensor"])
    f16 = ew.is_float16(desc)
    mean = torch_mean(v, axes) if use_mean else None
    centered = v - mean if use_mean else v
    if use_variance:
        var = torch_mean(centered * centered, axes)
    if f16:
        if use_mean:
            centered = v - ew.torch_float16_toward_zero(torch, mean)
        if use_variance:
            var = ew.torch_float16_toward_zero(torch, var)
    y = centered / torch.sqrt(var + epsilon(desc)) if use_variance else centered
    if x.get("ScaleTensor") is not None:
        y = y * torch_float(torch, x["ScaleTensor"])
    if x.get("BiasTensor") is not None:
        y = y + torch_float(torch, x["BiasTensor"])
    return {"OutputTensor": y}


# ---------------------------------------------------------------------------------------------- LRN

def window(local_size: int) -> tuple[int, int]:
    """(elements before the centre, elements after) of a LocalSize window (DirectML's vectors: LocalSize 2 sums
    the centre and the next channel, LOCAL_RESPONSE_NORMALIZATION float32_cross_1_size_2)."""
    before = (local_size - 1) // 2
    return before, local_size - 1 - before


def _axes(desc) -> list[int]:
    return [1] if desc.cross_channel else [2, 3]


def _sum_reference(a, axes, before: int, after: int):
    """Sum of ``a`` over the window [i - before, i + after] along each of ``axes`` (zeros outside)."""
    for axis in axes:
        n = a.shape[axis]
        pad = [(0, 0)] * a.ndim
        pad[axis] = (before, after)
        p = np.pad(a, pad)
        a = sum(np.take(p, np.arange(k, k + n), axis=axis) for k in range(before + after + 1))
    return a


def _sum_onnx(g, a: str, shape, axes, before: int, after: int) -> str:
    """:func:`_sum_reference` with Pad, Slice and Add."""
    rank = len(shape)
    for axis in axes:
        n = shape[axis]
        pads = [0] * (2 * rank)
        pads[axis], pads[rank + axis] = before, after
        p = g.node("Pad", [a, g.ints(pads), ew.onnx_const(g, 0, g.dtype(a))], mode="constant") if before or after \
            else a
        total: str | None = None
        for k in range(before + after + 1):
            s = g.node("Slice", [p, g.ints([k]), g.ints([k + n]), g.ints([axis])])
            total = s if total is None else g.node("Add", [total, s])
        assert total is not None  # at least one slice
        a = total
    return a


def _sum_torch(torch, a, axes, before: int, after: int):
    """:func:`_sum_reference` with constant padding, slices and adds."""
    for axis in axes:
        n = a.shape[axis]
        pad = [0, 0] * (a.dim() - 1 - axis) + [before, after]  # F.pad lists the last dimension first
        p = torch.nn.functional.pad(a, pad) if before or after else a
        total = None
        for k in range(before + after + 1):
            s = p.narrow(axis, k, n)
            total = s if total is None else total + s
        a = total
    return a


def _lrn_params(desc):
    return _f32(desc.alpha) / desc.local_size, _f32(desc.beta), _f32(desc.bias)


def lrn_reference(desc, v, float16_intermediates: bool = False):
    """LRN's D = Bias + Alpha / LocalSize * S(v^2) in float64.

    ``float16_intermediates``: Input^2, S and D stored as FLOAT16 toward zero (what LRN_GRAD's FLOAT16 vector
    shows; the forward operator's FLOAT16 vectors are reproduced without it)."""
    scale, _, bias = _lrn_params(desc)
    before, after = window(desc.local_size)
    r = (lambda a: ew.float16_toward_zero(a).astype(np.float64)) if float16_intermediates else (lambda a: a)
    s = r(_sum_reference(r(v * v), _axes(desc), before, after))
    return r(bias + scale * s)


def lrn_onnx(desc, g, v: str, shape, float16_intermediates: bool = False) -> str:
    """:func:`lrn_reference`'s D in float32 ONNX ops."""
    scale, _, bias = _lrn_params(desc)
    before, after = window(desc.local_size)
    r = (lambda a: ew.onnx_float16_toward_zero(g, a)) if float16_intermediates else (lambda a: a)
    s = r(_sum_onnx(g, r(g.node("Mul", [v, v])), shape, _axes(desc), before, after))
    return r(g.node("Add", [g.node("Mul", [s, g.scalar(scale, s)]), g.scalar(bias, s)]))


def lrn_torch(desc, torch, v, float16_intermediates: bool = False):
    """:func:`lrn_reference`'s D in float32 torch ops."""
    scale, _, bias = _lrn_params(desc)
    before, after = window(desc.local_size)
    r = (lambda a: ew.torch_float16_toward_zero(torch, a)) if float16_intermediates else (lambda a: a)
    s = r(_sum_torch(torch, r(v * v), _axes(desc), before, after))
    return r(s * scale + bias)


def lrn_grad_reference(desc, v, dy, d):
    """dInput from Input ``v``, dOutput ``dy`` and D ``d`` (float64)."""
    scale, beta, _ = _lrn_params(desc)
    before, after = window(desc.local_size)
    p = d ** -beta
    t = dy * v * (p / d)
    return dy * p - (2 * scale * beta) * v * _sum_reference(t, _axes(desc), before, after)


def lrn_grad_onnx(desc, g, v: str, dy: str, d: str, shape) -> str:
    """:func:`lrn_grad_reference` in float32 ONNX ops."""
    scale, beta, _ = _lrn_params(desc)
    before, after = window(desc.local_size)
    p = g.node("Pow", [d, g.scalar(-beta, d)])
    t = g.node("Mul", [g.node("Mul", [dy, v]), g.node("Div", [p, d])])
    back = _sum_onnx(g, t, shape, _axes(desc), before, after)
    second = g.node("Mul", [g.node("Mul", [v, g.scalar(2 * scale * beta, v)]), back])
    return g.node("Sub", [g.node("Mul", [dy, p]), second])


def lrn_grad_torch(desc, torch, v, dy, d):
    """:func:`lrn_grad_reference` in float32 torch ops."""
    scale, beta, _ = _lrn_params(desc)
    before, after = window(desc.local_size)
    p = torch.pow(d, -beta)
    t = dy * v * (p / d)
    return dy * p - v * (2 * scale * beta) * _sum_torch(torch, t, _axes(desc), before, after)
