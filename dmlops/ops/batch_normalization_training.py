"""DML_OPERATOR_BATCH_NORMALIZATION_TRAINING: shape rules the descriptor file cannot express.

The docs: "Any dimension in ScaleTensor and BiasTensor can be set to 1, and be automatically broadcast
to match InputTensor, but otherwise must equal the corresponding dimension's size from InputTensor."
OutputMeanTensor and OutputVarianceTensor have the same "ScaleDimensions" shape (the statistics are
computed across the dimensions where ScaleTensor and BiasTensor are 1), so the rule is applied to them
too. The generic validator already checks the two same-Sizes groups (ScaleDimensions; InputTensor,
FusedAddTensor and OutputTensor).

Math (docs): Mean and Variance are computed over the dimensions where ScaleTensor is 1 (and
InputTensor is not); Output = Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias + FusedAdd,
and FusedActivation (applied by dmlops.lower) comes after FusedAdd. OutputVarianceTensor is the
BIASED batch variance, sum((Input - Mean)^2) / M: PyTorch's and TensorFlow's running variance use
M - 1 (Bessel), ONNX training_mode reports only the running (momentum-blended) statistics.

FLOAT16 (DirectML's vectors): Output is normalized with the mean and variance as DirectML stores them in the
FLOAT16 OutputMeanTensor and OutputVarianceTensor (rounded toward zero, see dmlops.ops._elementwise), not with
the float32 values: this reproduces every FLOAT16 case bit for bit but one (nhwc_sizes_fused_add_zero_strides,
7 ULP off). FLOAT32 statistics are used as computed.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from ._shapes import broadcast_problems
from .batch_normalization import epsilon, f64, onnx_float, onnx_reduce, reduced_axes, torch_float, torch_mean

SCALE_DIMENSIONS = ("ScaleTensor", "BiasTensor", "OutputMeanTensor", "OutputVarianceTensor")


def check(desc, level) -> list[Problem]:
    """Each ScaleDimensions tensor: every size 1 or equal to InputTensor's."""
    return broadcast_problems(desc, SCALE_DIMENSIONS)


def _float16_stats(desc) -> bool:
    """Whether the statistics are FLOAT16 tensors, whose stored values DirectML normalizes with."""
    return desc.output_mean_tensor.data_type.name == "FLOAT16"


def _axes(desc) -> list[int]:
    return reduced_axes(desc.scale_tensor.sizes, desc.input_tensor.sizes)


def reference(desc, x):
    """Batch mean and biased variance in float64, then the normalization (+ FusedAdd when present)."""
    axes = tuple(_axes(desc))
    v, scale, bias = f64(x, "InputTensor", "ScaleTensor", "BiasTensor")
    mean = v.mean(axis=axes, keepdims=True)
    centered = v - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)  # /M, not /(M - 1)
    if _float16_stats(desc):  # DirectML normalizes with its FLOAT16 statistics
        mean, var = (ew.float16_toward_zero(s).astype(np.float64) for s in (mean, var))
        centered = v - mean
    y = scale * (centered / np.sqrt(var + epsilon(desc))) + bias
    if x["FusedAddTensor"] is not None:
        y = y + x["FusedAddTensor"].astype(np.float64)
    return {"OutputTensor": y, "OutputMeanTensor": mean, "OutputVarianceTensor": var}


def to_onnx(desc, g, x):
    """ReduceMean for the mean and the biased variance, then element-wise ops with broadcasting."""
    axes = _axes(desc)
    v, scale, bias = (onnx_float(g, x[n]) for n in ("InputTensor", "ScaleTensor", "BiasTensor"))
    mean = onnx_reduce(g, "ReduceMean", v, axes)
    centered = g.node("Sub", [v, mean])
    var = onnx_reduce(g, "ReduceMean", g.node("Mul", [centered, centered]), axes)
    if _float16_stats(desc):  # as the reference
        mean, var = ew.onnx_float16_toward_zero(g, mean), ew.onnx_float16_toward_zero(g, var)
        centered = g.node("Sub", [v, mean])
    std = g.node("Sqrt", [g.node("Add", [var, g.scalar(epsilon(desc), var)])])
    y = g.node("Add", [g.node("Mul", [scale, g.node("Div", [centered, std])]), bias])
    if x["FusedAddTensor"] is not None:
        y = g.node("Add", [y, onnx_float(g, x["FusedAddTensor"])])
    return {"OutputTensor": y, "OutputMeanTensor": mean, "OutputVarianceTensor": var}


def to_torch(desc, torch, x):
    """The same with torch.mean (the biased variance is a mean of squares, not torch.var)."""
    axes = _axes(desc)
    v, scale, bias = (torch_float(torch, x[n]) for n in ("InputTensor", "ScaleTensor", "BiasTensor"))
    mean = torch_mean(v, axes)
    centered = v - mean
    var = torch_mean(centered * centered, axes)
    if _float16_stats(desc):  # as the reference
        mean, var = ew.torch_float16_toward_zero(torch, mean), ew.torch_float16_toward_zero(torch, var)
        centered = v - mean
    y = scale * (centered / torch.sqrt(var + epsilon(desc))) + bias
    if x["FusedAddTensor"] is not None:
        y = y + torch_float(torch, x["FusedAddTensor"])
    return {"OutputTensor": y, "OutputMeanTensor": mean, "OutputVarianceTensor": var}


def _desc(input_sizes, stat_sizes, strides=None, fused_add=False, add_strides=None, eps=0.0, act=None):
    from ..descs import BatchNormalizationTraining

    stat = td("FLOAT32", stat_sizes)
    return BatchNormalizationTraining(
        input_tensor=td("FLOAT32", input_sizes, strides), scale_tensor=stat, bias_tensor=stat,
        fused_add_tensor=td("FLOAT32", input_sizes, add_strides) if fused_add else None,
        output_tensor=td("FLOAT32", input_sizes), output_mean_tensor=stat, output_variance_tensor=stat,
        epsilon=eps, fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(151)

    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(np.float32)

    def params(*shape):
        return {"ScaleTensor": r(*shape), "BiasTensor": r(*shape)}

    # By hand: Input {N, C, 1, 1} = {2, 2, 1, 1}, channel 0 = [1, 3] (across N), channel 1 = [5, 5].
    # Mean = [2, 5]; biased Variance = [((1-2)^2 + (3-2)^2) / 2, 0] = [1, 0]; Epsilon 3 -> sqrt = [2, sqrt(3)];
    # normalized: [-1/2, 1/2] and [0, 0]; Scale [2, 0.5], Bias [1, -1]: channel 0 [0, 2], channel 1 [-1, -1].
    # FusedAdd [[10, 30], [20, 40]] (n, c) gives [[10, 29], [22, 39]]; a fused ReLU leaves [[0, 0], [2, 0]] without it.
    hand = {"InputTensor": np.array([[1, 5], [3, 5]], np.float32).reshape(2, 2, 1, 1),
            "ScaleTensor": np.array([2, 0.5], np.float32).reshape(1, 2, 1, 1),
            "BiasTensor": np.array([1, -1], np.float32).reshape(1, 2, 1, 1)}
    stats = {"OutputMeanTensor": np.array([2, 5], np.float32).reshape(1, 2, 1, 1),
             "OutputVarianceTensor": np.array([1, 0], np.float32).reshape(1, 2, 1, 1)}
    add = np.array([[10, 30], [20, 40]], np.float32).reshape(2, 2, 1, 1)
    exact = dict(why="sqrt(1 + 3) = 2 and 0 / sqrt(0 + 3) = 0: exact", atol=0, rtol=0)
    return [
        Sample("fused_add_by_hand", _desc([2, 2, 1, 1], [1, 2, 1, 1], fused_add=True, eps=3.0),
               {**hand, "FusedAddTensor": add},
               {"OutputTensor": np.array([[10, 29], [22, 39]], np.float32).reshape(2, 2, 1, 1), **stats}, **exact),
        Sample("no_fused_add_fused_relu_by_hand", _desc([2, 2, 1, 1], [1, 2, 1, 1], eps=3.0, act=ActivationRelu()),
               hand, {"OutputTensor": np.array([[0, 0], [2, 0]], np.float32).reshape(2, 2, 1, 1), **stats}, **exact),
        # NHWC through strides (Sizes {N, C, H, W}, Strides {H*W*C, 1, W*C, C}); statistics {1, C, 1, 1}.
        Sample("nhwc_strides", _desc([2, 3, 2, 2], [1, 3, 1, 1], strides=[12, 1, 6, 3], eps=1e-3),
               {"InputTensor": r(24), **params(1, 3, 1, 1)}),
        # NHWC as logical Sizes {N, H, W, C}; statistics {1, 1, 1, C}; FusedAdd broadcast through zero strides.
        Sample("nhwc_sizes_fused_add_zero_strides",
               _desc([2, 2, 3, 4], [1, 1, 1, 4], fused_add=True, add_strides=[0, 0, 0, 1], eps=1e-5),
               {"InputTensor": r(2, 2, 3, 4), **params(1, 1, 1, 4), "FusedAddTensor": r(4)}),
        Sample("ncdhw_5d", _desc([2, 3, 2, 2, 3], [1, 3, 1, 1, 1], fused_add=True, eps=1e-2),
               {"InputTensor": r(2, 3, 2, 2, 3), **params(1, 3, 1, 1, 1), "FusedAddTensor": r(2, 3, 2, 2, 3)}),
        Sample("nc_2d", _desc([6, 3], [1, 3], eps=1e-4), {"InputTensor": r(6, 3), **params(1, 3)}),
        Sample("all_dims_1d", _desc([7], [1], eps=0.5), {"InputTensor": r(7), **params(1)}),
        # Statistics over N only (Scale {1, C, H, W}): one mean and variance per (C, H, W) element.
        Sample("per_element_over_n", _desc([3, 2, 2, 2], [1, 2, 2, 2], eps=1e-3),
               {"InputTensor": r(3, 2, 2, 2), **params(1, 2, 2, 2)}),
    ]


SAMPLES = _samples()
