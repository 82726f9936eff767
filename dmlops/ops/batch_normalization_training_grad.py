"""DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD: shape rules the descriptor file cannot express.

The docs: "Any dimension in MeanTensor, VarianceTensor, and ScaleTensor can be set to 1, and be
automatically broadcast to match InputTensor, but otherwise must equal the corresponding dimension's
size from InputTensor." OutputScaleGradientTensor and OutputBiasGradientTensor have the same
"MeanDimensions" shape, so the rule is applied to them too. The generic validator already checks
the two same-Sizes groups.

Math, mean() and sum() over the dimensions where MeanTensor is 1 (and InputTensor is not), as DirectML
computes it:
    Coef0 = 1 / sqrt(Variance + Epsilon)
    InputCentered = Input - Mean
    Coef1 = InputGradient * InputCentered
    InputGradientCentered = InputGradient - mean(InputGradient)
    OutputGradient = Scale * Coef0 * (InputGradientCentered - InputCentered * mean(Coef1) / (Variance + Epsilon))
    OutputScaleGradient = sum(InputGradient * (Input - Mean) * Coef0)
    OutputBiasGradient  = sum(InputGradient)
The docs print "Coef1 = InputGradient * (Input - mean(Input))" and "InputCentered = InputCentered -
mean(InputCentered)" (a typo, B4 in research/seed_semantics.md); DirectML centres both with the MeanTensor
input, not the batch mean of Input: its vector edge_mean_is_batch_mean_plus_0_5 (MeanTensor = batch mean + 0.5)
matches these formulas and is 2e9 ULP away from the batch-mean reading. torch's native_batch_norm_backward
also uses save_mean; TF's FusedBatchNormGrad recomputes the batch mean. They all agree when MeanTensor is the
batch mean, as the docs expect (the OutputMeanTensor of BATCH_NORMALIZATION_TRAINING), and VarianceTensor its
biased variance.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ._shapes import broadcast_problems
from .batch_normalization import (epsilon, f64, onnx_float, onnx_reduce, reduced_axes, torch_float, torch_mean,
                                  torch_sum)

NAMES = ("InputTensor", "InputGradientTensor", "MeanTensor", "VarianceTensor", "ScaleTensor")

MEAN_DIMENSIONS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor")


def check(desc, level) -> list[Problem]:
    """Each MeanDimensions tensor: every size 1 or equal to InputTensor's."""
    return broadcast_problems(desc, MEAN_DIMENSIONS)


def _axes(desc) -> list[int]:
    return reduced_axes(desc.mean_tensor.sizes, desc.input_tensor.sizes)


def reference(desc, x):
    """The formulas above (centred with MeanTensor, as DirectML does) in float64."""
    axes = tuple(_axes(desc))
    v, dy, mean, var, scale = f64(x, *NAMES)
    var_eps = var + epsilon(desc)
    coef0 = 1.0 / np.sqrt(var_eps)
    input_centered = v - mean  # DirectML: MeanTensor, not the batch mean the docs' Coef1 names
    coef1 = dy * input_centered
    dy_centered = dy - dy.mean(axis=axes, keepdims=True)
    dx = scale * coef0 * (dy_centered - input_centered * coef1.mean(axis=axes, keepdims=True) / var_eps)
    return {"OutputGradientTensor": dx,
            "OutputScaleGradientTensor": (dy * (v - mean) * coef0).sum(axis=axes, keepdims=True),
            "OutputBiasGradientTensor": dy.sum(axis=axes, keepdims=True)}


def to_onnx(desc, g, x):
    """The same formulas with ReduceMean/ReduceSum over the reduced axes."""
    axes = _axes(desc)
    v, dy, mean, var, scale = (onnx_float(g, x[n]) for n in NAMES)
    var_eps = g.node("Add", [var, g.scalar(epsilon(desc), var)])
    std = g.node("Sqrt", [var_eps])
    input_centered = g.node("Sub", [v, mean])
    coef1_mean = onnx_reduce(g, "ReduceMean", g.node("Mul", [dy, input_centered]), axes)
    dy_centered = g.node("Sub", [dy, onnx_reduce(g, "ReduceMean", dy, axes)])
    inner = g.node("Sub", [dy_centered, g.node("Div", [g.node("Mul", [input_centered, coef1_mean]), var_eps])])
    dx = g.node("Mul", [g.node("Div", [scale, std]), inner])
    normalized = g.node("Div", [g.node("Sub", [v, mean]), std])
    return {"OutputGradientTensor": dx,
            "OutputScaleGradientTensor": onnx_reduce(g, "ReduceSum", g.node("Mul", [dy, normalized]), axes),
            "OutputBiasGradientTensor": onnx_reduce(g, "ReduceSum", dy, axes)}


def to_torch(desc, torch, x):
    """The same formulas with torch ops."""
    axes = _axes(desc)
    v, dy, mean, var, scale = (torch_float(torch, x[n]) for n in NAMES)
    var_eps = var + epsilon(desc)
    coef0 = torch.rsqrt(var_eps)
    input_centered = v - mean
    dy_centered = dy - torch_mean(dy, axes)
    dx = scale * coef0 * (dy_centered - input_centered * torch_mean(dy * input_centered, axes) / var_eps)
    return {"OutputGradientTensor": dx,
            "OutputScaleGradientTensor": torch_sum(dy * (v - mean) * coef0, axes),
            "OutputBiasGradientTensor": torch_sum(dy, axes)}


def _desc(input_sizes, stat_sizes, strides=None, eps=0.0):
    from ..descs import BatchNormalizationTrainingGrad

    big, stat = td("FLOAT32", input_sizes), td("FLOAT32", stat_sizes)
    return BatchNormalizationTrainingGrad(
        input_tensor=td("FLOAT32", input_sizes, strides), input_gradient_tensor=big, mean_tensor=stat,
        variance_tensor=stat, scale_tensor=stat, output_gradient_tensor=big, output_scale_gradient_tensor=stat,
        output_bias_gradient_tensor=stat, epsilon=eps)


def _samples():
    rng = np.random.default_rng(152)

    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(np.float32)

    def inputs(input_shape, stat_sizes, buffer=None, strides=None):
        # Mean and Variance are the batch statistics of Input, as BATCH_NORMALIZATION_TRAINING returns them.
        data = r(buffer) if buffer is not None else r(*input_shape)
        logical = data if strides is None else np.lib.stride_tricks.as_strided(
            data, input_shape, [s * data.itemsize for s in strides])
        axes = tuple(reduced_axes(stat_sizes, input_shape))
        v = logical.astype(np.float64)
        return {"InputTensor": data, "InputGradientTensor": r(*input_shape),
                "MeanTensor": v.mean(axis=axes, keepdims=True).astype(np.float32),
                "VarianceTensor": v.var(axis=axes, keepdims=True).astype(np.float32), "ScaleTensor": r(*stat_sizes)}

    def nc(values):  # an {N, C} = {2, 2} table as {2, 2, 1, 1}, or a per-channel row as {1, 2, 1, 1}
        a = np.array(values, np.float32)
        return a.reshape(2, 2, 1, 1) if a.ndim == 2 else a.reshape(1, 2, 1, 1)

    # By hand: Input {N, C, 1, 1} = {2, 2, 1, 1}, channel 0 = [0, 8], channel 1 = [5, 5] (across N): Mean [4, 5],
    # biased Variance [16, 0]; Epsilon 9 -> Coef0 = [1/5, 1/3]; Scale [2, 3]; InputGradient channel 0 = [1, 3],
    # channel 1 = [2, 6].
    # Channel 0: InputCentered [-4, 4], InputGradientCentered [-1, 1], Coef1 [-4, 12], mean(Coef1) 4;
    #   OutputGradient = 2 * 1/5 * ([-1, 1] - [-4, 4] * 4 / 25) = 0.4 * [-0.36, 0.36] = [-0.144, 0.144].
    # Channel 1: InputCentered [0, 0] -> OutputGradient = 3 * 1/3 * ([2, 6] - 4) = [-2, 2].
    # OutputScaleGradient: channel 0 (1*(-4) + 3*4) / 5 = 1.6; channel 1 0. OutputBiasGradient [1 + 3, 2 + 6] = [4, 8].
    hand = {"InputTensor": nc([[0, 5], [8, 5]]), "InputGradientTensor": nc([[1, 2], [3, 6]]),
            "MeanTensor": nc([4, 5]), "VarianceTensor": nc([16, 0]), "ScaleTensor": nc([2, 3])}
    return [
        Sample("per_channel_by_hand", _desc([2, 2, 1, 1], [1, 2, 1, 1], eps=9.0), hand,
               {"OutputGradientTensor": nc([[-0.144, -2], [0.144, 2]]), "OutputScaleGradientTensor": nc([1.6, 0]),
                "OutputBiasGradientTensor": nc([4, 8])},
               why="0.144 and 1.6 are not binary fractions: float32 rounding", atol=1e-6, rtol=1e-6),
        # Input read NHWC through strides (Sizes {N, C, H, W}); the gradients are packed NCHW.
        Sample("nhwc_strides", _desc([2, 3, 2, 2], [1, 3, 1, 1], strides=[12, 1, 6, 3], eps=1e-3),
               inputs([2, 3, 2, 2], [1, 3, 1, 1], buffer=24, strides=[12, 1, 6, 3])),
        Sample("nhwc_sizes", _desc([2, 2, 3, 4], [1, 1, 1, 4], eps=1e-5), inputs([2, 2, 3, 4], [1, 1, 1, 4])),
        Sample("ncdhw_5d", _desc([2, 3, 2, 2, 3], [1, 3, 1, 1, 1], eps=1e-2), inputs([2, 3, 2, 2, 3], [1, 3, 1, 1, 1])),
        Sample("nc_2d", _desc([6, 3], [1, 3], eps=1e-4), inputs([6, 3], [1, 3])),
        Sample("all_dims_1d", _desc([7], [1], eps=0.5), inputs([7], [1])),
        Sample("per_element_over_n", _desc([3, 2, 2, 2], [1, 2, 2, 2], eps=1e-3), inputs([3, 2, 2, 2], [1, 2, 2, 2])),
    ]


SAMPLES = _samples()
