"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION: Output = Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias.

From the docs: InputTensor and OutputTensor are {BatchCount, ChannelCount, Height, Width} (the
descriptor's 'same Sizes' rule and 4-D support tier); ScaleTensor and BiasTensor are the same
layout, where "any dimension can be replaced with 1 to broadcast in that dimension"; below
DML_FEATURE_LEVEL_5_2 each of ScaleTensor and BiasTensor "is required if" the other "is present".
CrossChannel picks the normalized axes ({ChannelCount, Height, Width} or {Height, Width}), which
every 4-D input has, so it constrains no shape.

Math (docs): Output = FusedActivation(Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias), or
without the division when NormalizeVariance is FALSE; Epsilon is inside the square root. Mean and Variance
are over {1, 2, 3} (CrossChannel TRUE) or {2, 3}, per remaining index; Variance is the population variance (/N).
dmlops.ops._normalization has the arithmetic, shared with MVN1 and MVN2. DirectML's vectors
(float32/float16_cross_0_normvar_1, _cross_1_normvar_0) show:

* FLOAT16: Mean and Variance are stored as FLOAT16 toward zero before normalizing (bit-exact for both FLOAT16
  cases; 53 FLOAT16 ULP off otherwise).
* FLOAT32: DirectML computes Variance as mean(Input^2) - Mean^2 with float32 sums taken one element after the
  other (that reproduces float32_cross_0_normvar_1 bit for bit); dmlops uses the two-pass variance, which
  agrees to a few ULP on these inputs and does not lose precision when |Mean| >> the standard deviation
  (dmlops/vector_tolerances.py gives the measured bound).
* A fused ACTIVATION_RELU gives -0.0 for negative inputs (MVN1 float32_axes_2_3_no_scale_fused_relu; dmlops.lower
  applies the rule).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _normalization as nz
from ._quantized import scale_bias_problems


def check(desc, level) -> list[Problem]:
    """ScaleTensor and BiasTensor broadcast to InputTensor; before 5.2, both or neither."""
    return scale_bias_problems(desc, level)


def _axes(desc) -> list[int]:
    return [1, 2, 3] if desc.cross_channel else [2, 3]


def reference(desc, x):
    """Population mean and variance over the CrossChannel axes in float64 (nz.mvn_reference)."""
    return nz.mvn_reference(desc, x, _axes(desc), use_variance=bool(desc.normalize_variance))


def to_onnx(desc, g, x):
    """ReduceMean / Sub / Sqrt / Div composition (ONNX's MeanVarianceNormalization has no Epsilon, Scale or Bias)."""
    return nz.mvn_onnx(desc, g, x, _axes(desc), use_variance=bool(desc.normalize_variance))


def to_torch(desc, torch, x):
    """The same with torch.mean."""
    return nz.mvn_torch(desc, torch, x, _axes(desc), use_variance=bool(desc.normalize_variance))


def _desc(sizes, cross, normvar, eps, scale=None, bias=None, act=None, strides=None):
    from ..descs import MeanVarianceNormalization

    return MeanVarianceNormalization(
        input_tensor=td("FLOAT32", sizes, strides), scale_tensor=td("FLOAT32", scale) if scale else None,
        bias_tensor=td("FLOAT32", bias) if bias else None, output_tensor=td("FLOAT32", sizes),
        cross_channel=cross, normalize_variance=normvar, epsilon=eps, fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(1273)

    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(np.float32)

    exact = dict(atol=0, rtol=0, why="exact in binary: the square roots are of perfect squares")
    # By hand, CrossChannel FALSE: one {H, W} = {1, 4} plane per channel.
    # Channel 0 = [1, 2, 3, 6]: Mean 3, deviations [-2, -1, 0, 3], Variance (4 + 1 + 0 + 9) / 4 = 3.5 (/N);
    # Epsilon 0.5 -> sqrt(4) = 2: [-1, -0.5, 0, 1.5]; Scale 2, Bias 1: [-1, 0, 1, 4].
    # Channel 1 = [5, 5, 5, 5]: Mean 5, Variance 0 -> 0 / sqrt(0.5) = 0; Scale -1, Bias 0.25: [0.25] * 4.
    plane = {"InputTensor": np.array([1, 2, 3, 6, 5, 5, 5, 5], np.float32).reshape(1, 2, 1, 4),
             "ScaleTensor": np.array([2, -1], np.float32).reshape(1, 2, 1, 1),
             "BiasTensor": np.array([1, 0.25], np.float32).reshape(1, 2, 1, 1)}
    # By hand, CrossChannel TRUE: {C, H, W} = {2, 1, 2} = [[1, 3], [5, 7]] per batch: Mean 4, deviations
    # [-3, -1, 1, 3], Variance (9 + 1 + 1 + 9) / 4 = 5; Epsilon 11 -> sqrt(16) = 4: [-0.75, -0.25, 0.25, 0.75].
    # Batch 1 = 2 * batch 0: Mean 8, Variance 20, sqrt(20 + 11) is not exact: left to the reference.
    cross = np.array([1, 3, 5, 7], np.float32).reshape(1, 2, 1, 2)
    # NormalizeVariance FALSE: Input - Mean only: [-3, -1, 1, 3].
    return [
        Sample("by_hand_per_channel", _desc([1, 2, 1, 4], False, True, 0.5, [1, 2, 1, 1], [1, 2, 1, 1]), plane,
               {"OutputTensor": np.array([-1, 0, 1, 4, 0.25, 0.25, 0.25, 0.25], np.float32).reshape(1, 2, 1, 4)},
               **exact),
        Sample("by_hand_cross_channel", _desc([1, 2, 1, 2], True, True, 11.0), {"InputTensor": cross},
               {"OutputTensor": np.array([-0.75, -0.25, 0.25, 0.75], np.float32).reshape(1, 2, 1, 2)}, **exact),
        Sample("by_hand_no_variance", _desc([1, 2, 1, 2], True, False, 11.0), {"InputTensor": cross},
               {"OutputTensor": np.array([-3, -1, 1, 3], np.float32).reshape(1, 2, 1, 2)}, **exact),
        # A fused ReLU: the negative outputs become -0.0 (DirectML's fused-ReLU rule, see dmlops.lower).
        Sample("by_hand_fused_relu", _desc([1, 2, 1, 4], False, True, 0.5, [1, 2, 1, 1], [1, 2, 1, 1],
                                           act=ActivationRelu()), plane,
               {"OutputTensor": np.array([-0.0, 0, 1, 4, 0.25, 0.25, 0.25, 0.25], np.float32).reshape(1, 2, 1, 4)},
               **exact),
        Sample("cross_0", _desc([2, 3, 4, 5], False, True, 1e-5, [1, 3, 1, 1], [1, 3, 1, 1]),
               {"InputTensor": r(2, 3, 4, 5), "ScaleTensor": r(1, 3, 1, 1), "BiasTensor": r(1, 3, 1, 1)}),
        # Scale and Bias broadcast along C only ({N, 1, H, W}); NHWC input through strides.
        Sample("cross_1_nhwc_strides", _desc([2, 3, 2, 4], True, True, 1e-3, [2, 1, 2, 4], [1, 1, 1, 4],
                                            strides=[24, 1, 12, 3]),
               {"InputTensor": r(48), "ScaleTensor": r(2, 1, 2, 4), "BiasTensor": r(1, 1, 1, 4)}),
        Sample("no_scale_bias_no_variance", _desc([2, 2, 3, 3], False, False, 1e-5), {"InputTensor": r(2, 2, 3, 3)}),
    ]


SAMPLES = _samples()
