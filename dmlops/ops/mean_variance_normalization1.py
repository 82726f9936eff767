"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1: shape rules the descriptor file cannot express.

From the docs: Axes are "the axes along which to calculate the Mean and Variance": each must be a
dimension of InputTensor (0 to DimensionCount - 1) and dmlops refuses a repeated axis (DirectML
refused both validator-gap vectors, Axes {1, 1} on a 1-D input and on a 4-D input whose OutputTensor
Sizes differ). An empty Axes list is not refused: DirectML runs AxisCount 0 for ACTIVATION_SOFTMAX1,
and the docs state no lower bound. OutputTensor has InputTensor's Sizes ("This tensor's dimensions are
{ BatchCount, ChannelCount, Height, Width }", the input's; DirectML refused a mismatch). ScaleTensor
and BiasTensor: from DML_FEATURE_LEVEL_4_0 "any dimension can be set to 1" and otherwise matches
InputTensor; below it their ChannelCount must match InputTensor's (checked for 4-D tensors, the
layout the docs give); below DML_FEATURE_LEVEL_5_2 each "is required if" the other "is present".
DataType and DimensionCount agreement is the descriptor's 'same' rule.

Math (docs): as MEAN_VARIANCE_NORMALIZATION over the listed Axes ({2, 3} is CrossChannel FALSE,
{1, 2, 3} CrossChannel TRUE): population Mean and Variance per index of the other axes, Epsilon inside the
square root, then Scale and Bias (each optional, broadcast), then FusedActivation (dmlops.lower).
dmlops.ops._normalization has the arithmetic. DirectML's vectors (float32/float16 axes_2_3, axes_1_2_3,
axes_0_3, axes_2_3_no_scale_fused_relu) show what mean_variance_normalization.py describes: FLOAT16 Mean and
Variance stored as FLOAT16 toward zero (all four FLOAT16 cases bit-exact), FLOAT32 statistics summed in another
order (a measured bound in dmlops/vector_tolerances.py), and a fused ReLU giving -0.0 for negative values
(axes_2_3_no_scale_fused_relu: all 65 zeros are -0.0). An empty Axes list normalizes nothing: Mean is the
element itself and Variance 0, so Output is Bias (or 0); no vector covers it.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _normalization as nz
from ._quantized import same_sizes_problem, scale_bias_problems
from ._shapes import axes_problems


def check(desc, level) -> list[Problem]:
    """Axes in range and unique; OutputTensor of InputTensor's Sizes; Scale/Bias broadcast (and pairing)."""
    return mvn_problems(desc, level, channel_before_4_0=True)


def mvn_problems(desc, level, channel_before_4_0: bool) -> list[Problem]:
    """The rules MEAN_VARIANCE_NORMALIZATION1 and MEAN_VARIANCE_NORMALIZATION2 share."""
    x = tensor(desc, "InputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    out = []
    for p in axes_problems(desc.OPERATOR_TYPE, desc.axes, rank):
        if p not in out:  # an axis listed twice and out of range is reported once per rule
            out.append(p)
    same = same_sizes_problem(desc, "OutputTensor", "InputTensor")
    if same:
        out.append(same)
    return out + scale_bias_problems(desc, level, channel_before_4_0=channel_before_4_0)


def reference(desc, x):
    """Population mean and variance over Axes in float64 (nz.mvn_reference)."""
    return nz.mvn_reference(desc, x, desc.axes, use_variance=bool(desc.normalize_variance))


def to_onnx(desc, g, x):
    """ReduceMean / Sub / Sqrt / Div composition over Axes (ONNX MeanVarianceNormalization has no Epsilon)."""
    return nz.mvn_onnx(desc, g, x, desc.axes, use_variance=bool(desc.normalize_variance))


def to_torch(desc, torch, x):
    """The same with torch.mean over Axes."""
    return nz.mvn_torch(desc, torch, x, desc.axes, use_variance=bool(desc.normalize_variance))


def _desc(sizes, axes, eps, scale=None, bias=None, normvar=True, act=None, strides=None):
    from ..descs import MeanVarianceNormalization1

    return MeanVarianceNormalization1(
        input_tensor=td("FLOAT32", sizes, strides), scale_tensor=td("FLOAT32", scale) if scale else None,
        bias_tensor=td("FLOAT32", bias) if bias else None, output_tensor=td("FLOAT32", sizes), axes=tuple(axes),
        normalize_variance=normvar, epsilon=eps, fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(1274)

    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(np.float32)

    exact = dict(atol=0, rtol=0, why="exact in binary: the square roots are of perfect squares")
    # By hand, Axes {0} of a {4, 2} tensor: column 0 = [1, 2, 3, 6] -> Mean 3, Variance (4 + 1 + 0 + 9) / 4 = 3.5
    # (/N), Epsilon 0.5 -> sqrt(4) = 2: [-1, -0.5, 0, 1.5]; Scale 2, Bias 1: [-1, 0, 1, 4]. Column 1 = [0, 0, 4, 4]
    # -> Mean 2, Variance 4, normalized by sqrt(4.5) to [-a, -a, a, a]; Scale 0 and Bias 7 make it 7 exactly.
    cols = np.array([[1, 0], [2, 0], [3, 4], [6, 4]], np.float32)
    # Scale only (no Bias, allowed from DML_FEATURE_LEVEL_5_2): Axes {1} of [[3, -3, 3, -3]]: Mean 0, Variance 9,
    # Epsilon 7 -> sqrt(16) = 4: [0.75, -0.75, 0.75, -0.75], Scale 4 -> [3, -3, 3, -3]; with a fused ReLU the
    # negative values are -0.0 (DirectML's fused-ReLU rule, see dmlops.lower).
    row = np.array([[3, -3, 3, -3]], np.float32)
    return [
        Sample("by_hand_axis_0", _desc([4, 2], [0], 0.5, [1, 2], [1, 2]),
               {"InputTensor": cols, "ScaleTensor": np.array([[2, 0]], np.float32),
                "BiasTensor": np.array([[1, 7]], np.float32)},
               {"OutputTensor": np.array([[-1, 7], [0, 7], [1, 7], [4, 7]], np.float32)}, **exact),
        Sample("by_hand_scale_only_fused_relu", _desc([1, 4], [1], 7.0, scale=[1, 1], act=ActivationRelu()),
               {"InputTensor": row, "ScaleTensor": np.array([[4]], np.float32)},
               {"OutputTensor": np.array([[3, -0.0, 3, -0.0]], np.float32)}, **exact),
        # Bias only: Input - Mean + Bias, no division (NormalizeVariance FALSE): [3, -3, 3, -3] + 0.5.
        Sample("by_hand_bias_only_no_variance", _desc([1, 4], [1], 7.0, bias=[1, 1], normvar=False),
               {"InputTensor": row, "BiasTensor": np.array([[0.5]], np.float32)},
               {"OutputTensor": np.array([[3.5, -2.5, 3.5, -2.5]], np.float32)}, **exact),
        Sample("axes_2_3", _desc([2, 3, 4, 5], [2, 3], 1e-5, [1, 3, 1, 1], [1, 3, 1, 1]),
               {"InputTensor": r(2, 3, 4, 5), "ScaleTensor": r(1, 3, 1, 1), "BiasTensor": r(1, 3, 1, 1)}),
        # Non-adjacent axes, listed out of order; NHWC strides.
        Sample("axes_3_0_nhwc_strides", _desc([2, 3, 2, 4], [3, 0], 1e-3, [1, 3, 2, 1], [1, 1, 1, 1],
                                              strides=[24, 1, 12, 3]),
               {"InputTensor": r(48), "ScaleTensor": r(1, 3, 2, 1), "BiasTensor": r(1, 1, 1, 1)}),
        Sample("axes_1_2_3_4_5d", _desc([2, 2, 3, 2, 2], [1, 2, 3, 4], 1e-5, [1, 2, 1, 1, 1], [1, 2, 1, 1, 1]),
               {"InputTensor": r(2, 2, 3, 2, 2), "ScaleTensor": r(1, 2, 1, 1, 1), "BiasTensor": r(1, 2, 1, 1, 1)}),
        Sample("axes_all_1d", _desc([7], [0], 1e-2), {"InputTensor": r(7)}),
    ]


SAMPLES = _samples()
