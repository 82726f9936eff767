"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2: MVN1 with UseMean and UseVariance flags (layer norm, RMS norm).

Shape rules: the docs page is "TBD" for the description, UseMean and UseVariance; its members InputTensor,
ScaleTensor, BiasTensor, OutputTensor, AxisCount and Axes repeat MEAN_VARIANCE_NORMALIZATION1's text,
so the same rules apply (see mean_variance_normalization1.py): Axes in range and unique, OutputTensor
of InputTensor's Sizes, ScaleTensor and BiasTensor broadcastable to InputTensor. The operator was
introduced in DML_FEATURE_LEVEL_6_3, so the feature-level exceptions of MVN1 (ChannelCount before
4_0, Scale/Bias pairing before 5_2) never apply. UseMean and UseVariance constrain no shape.

Math. No DirectML vectors exist (the vectors' device stops at DML_FEATURE_LEVEL_6_2) and the docs leave the flags
"TBD", so the docs' MVN1 formula and the ONNX/torch oracles decide, read the way ONNX Runtime's DirectML provider
uses the flags (LayerNormalization: UseMean and UseVariance TRUE; SimplifiedLayerNormalization, i.e. RMS
normalization: UseMean FALSE, UseVariance TRUE; DmlOperatorLayerNormalization.cpp)::

    Mean     = UseMean ? mean(Input over Axes) : 0
    Variance = mean((Input - Mean)^2 over Axes)             (UseMean FALSE: mean(Input^2), the RMS)
    Output   = UseVariance ? (Input - Mean) / sqrt(Variance + Epsilon) : Input - Mean
    Output   = FusedActivation(Output * Scale + Bias)       Scale and Bias each optional, broadcast

(UseVariance FALSE is MVN1's NormalizeVariance FALSE; both flags FALSE leave Input * Scale + Bias.) The oracles
are ONNX LayerNormalization and torch's layer_norm (UseMean TRUE), torch's rms_norm formula (UseMean FALSE);
tests/test_oracle_normalization.py. FLOAT16 follows MVN1's vectors (Mean and Variance stored as FLOAT16
toward zero before normalizing; a decision carried over from MVN1, unverified for this operator), and so does
the fused ReLU's -0.0 for negative values (dmlops.lower).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _normalization as nz
from .mean_variance_normalization1 import mvn_problems


def check(desc, level) -> list[Problem]:
    """Axes in range and unique; OutputTensor of InputTensor's Sizes; Scale/Bias broadcast to InputTensor."""
    return mvn_problems(desc, level, channel_before_4_0=False)


def _flags(desc) -> dict:
    return {"use_mean": bool(desc.use_mean), "use_variance": bool(desc.use_variance)}


def reference(desc, x):
    """Mean (if UseMean) and variance (if UseVariance) over Axes in float64 (nz.mvn_reference)."""
    return nz.mvn_reference(desc, x, desc.axes, **_flags(desc))


def to_onnx(desc, g, x):
    """ReduceMean / Sub / Sqrt / Div composition over Axes (LayerNormalization-17 would need trailing axes and
    a Scale; RMSNormalization is opset 23)."""
    return nz.mvn_onnx(desc, g, x, desc.axes, **_flags(desc))


def to_torch(desc, torch, x):
    """The same with torch.mean over Axes."""
    return nz.mvn_torch(desc, torch, x, desc.axes, **_flags(desc))


def _desc(sizes, axes, use_mean, use_variance, eps, scale=None, bias=None, act=None, strides=None):
    from ..descs import MeanVarianceNormalization2

    return MeanVarianceNormalization2(
        input_tensor=td("FLOAT32", sizes, strides), scale_tensor=td("FLOAT32", scale) if scale else None,
        bias_tensor=td("FLOAT32", bias) if bias else None, output_tensor=td("FLOAT32", sizes), axes=tuple(axes),
        use_mean=use_mean, use_variance=use_variance, epsilon=eps, fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(1275)

    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(np.float32)

    exact = dict(atol=0, rtol=0, why="exact in binary: the square roots are of perfect squares")
    # By hand, one row per batch, Axes {1}.
    # Layer norm (UseMean, UseVariance): [1, 2, 3, 6] -> Mean 3, Variance (4 + 1 + 0 + 9) / 4 = 3.5 (/N),
    # Epsilon 0.5 -> sqrt(4) = 2: [-1, -0.5, 0, 1.5]; Scale [2, 2, 2, 2], Bias [1, 1, 1, 1]: [-1, 0, 1, 4].
    # RMS norm (UseMean FALSE): [3, -3, 3, 5] -> mean of squares (9 + 9 + 9 + 25) / 4 = 13, Epsilon 3 ->
    # sqrt(16) = 4: [0.75, -0.75, 0.75, 1.25] (layer norm would subtract the Mean 2 first).
    # UseVariance FALSE: Input - Mean: [1, 2, 3, 6] - 3 = [-2, -1, 0, 3]; both FALSE: Input * Scale + Bias.
    ln = np.array([[1, 2, 3, 6]], np.float32)
    rms = np.array([[3, -3, 3, 5]], np.float32)
    sb = {"ScaleTensor": np.full((1, 4), 2, np.float32), "BiasTensor": np.ones((1, 4), np.float32)}
    return [
        Sample("by_hand_layer_norm", _desc([1, 4], [1], True, True, 0.5, [1, 4], [1, 4]), {"InputTensor": ln, **sb},
               {"OutputTensor": np.array([[-1, 0, 1, 4]], np.float32)}, **exact),
        Sample("by_hand_rms_norm", _desc([1, 4], [1], False, True, 3.0), {"InputTensor": rms},
               {"OutputTensor": np.array([[0.75, -0.75, 0.75, 1.25]], np.float32)}, **exact),
        # With a fused ReLU the negative value is -0.0 (DirectML's fused-ReLU rule, see dmlops.lower).
        Sample("by_hand_rms_norm_fused_relu", _desc([1, 4], [1], False, True, 3.0, act=ActivationRelu()),
               {"InputTensor": rms}, {"OutputTensor": np.array([[0.75, -0.0, 0.75, 1.25]], np.float32)}, **exact),
        Sample("by_hand_mean_only", _desc([1, 4], [1], True, False, 0.5), {"InputTensor": ln},
               {"OutputTensor": np.array([[-2, -1, 0, 3]], np.float32)}, **exact),
        Sample("by_hand_neither", _desc([1, 4], [1], False, False, 0.5, [1, 4], [1, 4]), {"InputTensor": ln, **sb},
               {"OutputTensor": np.array([[3, 5, 7, 13]], np.float32)}, **exact),
        # Layer norm over the trailing {S, H} of {B, S, H}, per-feature Scale and Bias {1, 1, H}.
        Sample("layer_norm_trailing", _desc([2, 3, 8], [1, 2], True, True, 1e-5, [1, 1, 8], [1, 1, 8]),
               {"InputTensor": r(2, 3, 8), "ScaleTensor": r(1, 1, 8), "BiasTensor": r(1, 1, 8)}),
        Sample("rms_norm_last_axis", _desc([2, 3, 8], [2], False, True, 1e-6, [1, 1, 8]),
               {"InputTensor": r(2, 3, 8), "ScaleTensor": r(1, 1, 8)}),
        # Instance-norm axes of an NHWC tensor through strides, Bias only.
        Sample("axes_2_3_nhwc_strides", _desc([2, 3, 2, 4], [2, 3], True, True, 1e-3, bias=[1, 3, 1, 1],
                                              strides=[24, 1, 12, 3]),
               {"InputTensor": r(48), "BiasTensor": r(1, 3, 1, 1)}),
    ]


SAMPLES = _samples()
