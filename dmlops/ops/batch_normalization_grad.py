"""DML_OPERATOR_BATCH_NORMALIZATION_GRAD: shape rules the descriptor file cannot express.

MeanTensor, VarianceTensor, ScaleTensor and the two parameter-gradient outputs share one shape
("MeanDimensions"); the docs sum the gradients "across the set of dimensions for which MeanTensor,
ScaleTensor and VarianceTensor sizes equal one", so every other dimension must equal InputTensor's
(the broadcast rule BATCH_NORMALIZATION and BATCH_NORMALIZATION_TRAINING_GRAD state outright). The
generic validator already checks that those five tensors share Sizes, and that InputTensor,
InputGradientTensor and OutputGradientTensor do.

Math (docs), the gradient of BATCH_NORMALIZATION with the statistics held constant (inference
mode; TF's FusedBatchNormGrad with is_training = false, torch's native_batch_norm_backward with
train = false):
    OutputGradient      = InputGradient * Scale / sqrt(Variance + Epsilon)
    OutputScaleGradient = sum(InputGradient * (Input - Mean) / sqrt(Variance + Epsilon))
    OutputBiasGradient  = sum(InputGradient)
the sums running over the dimensions where MeanTensor is 1 (and InputTensor is not).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ._shapes import broadcast_problems
from .batch_normalization import epsilon, f64, onnx_float, onnx_reduce, reduced_axes, torch_float, torch_sum

NAMES = ("InputTensor", "InputGradientTensor", "MeanTensor", "VarianceTensor", "ScaleTensor")

MEAN_DIMENSIONS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor")


def check(desc, level) -> list[Problem]:
    """Each MeanDimensions tensor: every size 1 or equal to InputTensor's."""
    return broadcast_problems(desc, MEAN_DIMENSIONS)


def _axes(desc) -> list[int]:
    return reduced_axes(desc.mean_tensor.sizes, desc.input_tensor.sizes)


def reference(desc, x):
    """The three documented formulas in float64."""
    axes = tuple(_axes(desc))
    v, dy, mean, var, scale = f64(x, *NAMES)
    inv_std = 1.0 / np.sqrt(var + epsilon(desc))
    return {"OutputGradientTensor": dy * (scale * inv_std),
            "OutputScaleGradientTensor": (dy * (v - mean) * inv_std).sum(axis=axes, keepdims=True),
            "OutputBiasGradientTensor": dy.sum(axis=axes, keepdims=True)}


def to_onnx(desc, g, x):
    """Element-wise ops with broadcasting and ReduceSum over the reduced axes."""
    axes = _axes(desc)
    v, dy, mean, var, scale = (onnx_float(g, x[n]) for n in NAMES)
    std = g.node("Sqrt", [g.node("Add", [var, g.scalar(epsilon(desc), var)])])
    normalized = g.node("Div", [g.node("Sub", [v, mean]), std])
    return {"OutputGradientTensor": g.node("Mul", [dy, g.node("Div", [scale, std])]),
            "OutputScaleGradientTensor": onnx_reduce(g, "ReduceSum", g.node("Mul", [dy, normalized]), axes),
            "OutputBiasGradientTensor": onnx_reduce(g, "ReduceSum", dy, axes)}


def to_torch(desc, torch, x):
    """The same with torch ops."""
    axes = _axes(desc)
    v, dy, mean, var, scale = (torch_float(torch, x[n]) for n in NAMES)
    inv_std = torch.rsqrt(var + epsilon(desc))
    return {"OutputGradientTensor": dy * (scale * inv_std),
            "OutputScaleGradientTensor": torch_sum(dy * (v - mean) * inv_std, axes),
            "OutputBiasGradientTensor": torch_sum(dy, axes)}


def _desc(input_sizes, stat_sizes, strides=None, eps=0.0):
    from ..descs import BatchNormalizationGrad

    big, stat = td("FLOAT32", input_sizes), td("FLOAT32", stat_sizes)
    return BatchNormalizationGrad(
        input_tensor=td("FLOAT32", input_sizes, strides), input_gradient_tensor=big, mean_tensor=stat,
        variance_tensor=stat, scale_tensor=stat, output_gradient_tensor=big, output_scale_gradient_tensor=stat,
        output_bias_gradient_tensor=stat, epsilon=eps)


def _samples():
    rng = np.random.default_rng(146)

    def r(*shape, low=-2.0, high=2.0):
        return rng.uniform(low, high, shape).astype(np.float32)

    def inputs(input_shape, stat_shape, buffer=None):
        return {"InputTensor": r(*input_shape) if buffer is None else r(buffer), "InputGradientTensor": r(*input_shape),
                "MeanTensor": r(*stat_shape), "VarianceTensor": r(*stat_shape, low=0.1, high=3.0),
                "ScaleTensor": r(*stat_shape)}

    def nc(values):  # an {N, C} = {2, 2} table as {2, 2, 1, 1}, or a per-channel row as {1, 2, 1, 1}
        a = np.array(values, np.float32)
        return a.reshape(2, 2, 1, 1) if a.ndim == 2 else a.reshape(1, 2, 1, 1)

    # By hand: Input {N, C, 1, 1} = {2, 2, 1, 1}, channel 0 = [1, 3], channel 1 = [5, 5] (across N);
    # InputGradient channel 0 = [1, 3], channel 1 = [2, 4]; Mean [2, 4], Variance [3, 0], Epsilon 1 ->
    # 1/sqrt(Variance + Epsilon) = [1/2, 1]; Scale [2, 3].
    # OutputGradient: channel 0 [1, 3] * 2 * 1/2 = [1, 3]; channel 1 [2, 4] * 3 * 1 = [6, 12].
    # OutputScaleGradient: channel 0 (1*(1-2) + 3*(3-2)) / 2 = 1; channel 1 (2*(5-4) + 4*(5-4)) * 1 = 6.
    # OutputBiasGradient: [1 + 3, 2 + 4] = [4, 6].
    hand = {"InputTensor": nc([[1, 5], [3, 5]]), "InputGradientTensor": nc([[1, 2], [3, 4]]),
            "MeanTensor": nc([2, 4]), "VarianceTensor": nc([3, 0]), "ScaleTensor": nc([2, 3])}
    return [
        Sample("per_channel_by_hand", _desc([2, 2, 1, 1], [1, 2, 1, 1], eps=1.0), hand,
               {"OutputGradientTensor": nc([[1, 6], [3, 12]]), "OutputScaleGradientTensor": nc([1, 6]),
                "OutputBiasGradientTensor": nc([4, 6])}, why="small integers and halves: exact", atol=0, rtol=0),
        # Input read NHWC through strides (Sizes {N, C, H, W}); the gradients are packed NCHW.
        Sample("nhwc_strides", _desc([2, 3, 2, 2], [1, 3, 1, 1], strides=[12, 1, 6, 3], eps=1e-3),
               inputs([2, 3, 2, 2], [1, 3, 1, 1], buffer=24)),
        Sample("nhwc_sizes", _desc([2, 2, 3, 4], [1, 1, 1, 4], eps=1e-5), inputs([2, 2, 3, 4], [1, 1, 1, 4])),
        Sample("ncdhw_5d", _desc([2, 3, 2, 2, 3], [1, 3, 1, 1, 1], eps=1e-2), inputs([2, 3, 2, 2, 3], [1, 3, 1, 1, 1])),
        Sample("nc_2d", _desc([6, 3], [1, 3], eps=1e-4), inputs([6, 3], [1, 3])),
        Sample("all_dims_1d", _desc([7], [1], eps=0.5), inputs([7], [1])),
        # Nothing to reduce: statistics for every element, so the sums are the summands themselves.
        Sample("per_element_no_reduction", _desc([1, 2, 2, 3], [1, 2, 2, 3], eps=1e-3),
               inputs([1, 2, 2, 3], [1, 2, 2, 3])),
    ]


SAMPLES = _samples()
