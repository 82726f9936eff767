"""DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD: the gradient of LOCAL_RESPONSE_NORMALIZATION.

From the docs: LocalSize "must be at least 1" (the page swaps the forward page's wording of what
LocalSize spans for CrossChannel TRUE and FALSE; that changes the math, not the rule). InputTensor,
InputGradientTensor and OutputGradientTensor share DataType and Sizes (the descriptor's 'same' rule)
and are 4-D (its support tier). As for the forward operator, an even LocalSize is allowed.

Math: the derivative of the forward operator (local_response_normalization.py, same window: floor((LocalSize - 1)
/ 2) elements before the centre, the spatial window LocalSize x LocalSize with Alpha / LocalSize)::

    D = Bias + Alpha / LocalSize * S(Input^2)
    OutputGradient = InputGradient * D^-Beta
                     - 2 * Alpha * Beta / LocalSize * Input * S'(InputGradient * Input * D^(-Beta - 1))

where S' sums over the same window as S (DirectML's answer). For an odd LocalSize that is the derivative; for an
even one the derivative sums over the transposed window (the outputs whose window holds the element), but
DirectML does not: vectors sample_by_hand_cross_2_even ([1/9, 0] where the derivative is [1/9, -1/9]),
sample_cross_4_even and sample_spatial_2_even_nhwc_strides (and their float16 twins) match the same window to
4.8e-7 and miss the transposed one by up to 0.94. The GRAD page's swapped wording of LocalSize is not followed:
dmlops reads LocalSize as the forward page does (the vectors agree). The vectors show:

* FLOAT16: Input^2, the window sum S and D are stored as FLOAT16 toward zero (DirectML composes the gradient from
  FLOAT16 intermediates), the rest in float32: bit-exact; without the three stores 14 FLOAT16 ULP off.
* FLOAT32: up to 30 ULP where the two terms cancel (4.8e-7 absolute; dmlops/vector_tolerances.py).

torch's autograd of local_response_norm (odd LocalSize) is the oracle (tests/test_oracle_normalization.py); for
an even LocalSize, the vectors.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _normalization as nz
from .local_response_normalization import local_size_problems


def check(desc, level) -> list[Problem]:
    """LocalSize is at least 1."""
    return local_size_problems(desc)


def _f16(desc) -> bool:
    return ew.is_float16(desc, "OutputGradientTensor")


def reference(desc, x):
    """The closed-form gradient in float64 (FLOAT16 intermediates stored as DirectML stores them)."""
    v = x["InputTensor"].astype(np.float64)
    dy = x["InputGradientTensor"].astype(np.float64)
    d = nz.lrn_reference(desc, v, float16_intermediates=_f16(desc))
    return {"OutputGradientTensor": nz.lrn_grad_reference(desc, v, dy, d)}


def to_onnx(desc, g, x):
    """The same formula with Pad/Slice/Add window sums, Pow, Mul, Div and Sub in float32."""
    v, dy = x["InputTensor"], x["InputGradientTensor"]
    shape = desc.input_tensor.sizes
    d = nz.lrn_onnx(desc, g, v, shape, float16_intermediates=_f16(desc))
    return {"OutputGradientTensor": nz.lrn_grad_onnx(desc, g, v, dy, d, shape)}


def to_torch(desc, torch, x):
    """The same formula in float32 torch ops (no autograd: the lowering stays a plain forward graph)."""
    v, dy = x["InputTensor"], x["InputGradientTensor"]
    d = nz.lrn_torch(desc, torch, v, float16_intermediates=_f16(desc))
    return {"OutputGradientTensor": nz.lrn_grad_torch(desc, torch, v, dy, d)}


def _desc(sizes, cross, size, alpha, beta, bias, strides=None):
    from ..descs import LocalResponseNormalizationGrad

    t = td("FLOAT32", sizes)
    return LocalResponseNormalizationGrad(input_tensor=td("FLOAT32", sizes, strides), input_gradient_tensor=t,
                                          output_gradient_tensor=t, cross_channel=cross, local_size=size,
                                          alpha=alpha, beta=beta, bias=bias)


def _samples():
    rng = np.random.default_rng(1277)

    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(np.float32)

    def grads(*shape):
        return {"InputTensor": r(*shape), "InputGradientTensor": r(*shape)}

    return [
        # By hand, LocalSize 1 (each element its own window), Alpha 1, Beta 1, Bias 1: y = x / (1 + x^2), so
        # dx = dy * (1 - x^2) / (1 + x^2)^2 (the formula above: dy / D - 2 x * dy * x / D^2).
        # x = [0, 1, 2, 3], dy = [1, 1, 1, 2]: [1, 0, -3/25, 2 * -8/100] = [1, 0, -0.12, -0.16].
        Sample("by_hand_size_1", _desc([1, 4, 1, 1], True, 1, 1.0, 1.0, 1.0),
               {"InputTensor": np.array([0, 1, 2, 3], np.float32).reshape(1, 4, 1, 1),
                "InputGradientTensor": np.array([1, 1, 1, 2], np.float32).reshape(1, 4, 1, 1)},
               {"OutputGradientTensor": np.array([1, 0, -0.12, -0.16], np.float32).reshape(1, 4, 1, 1)},
               atol=1e-7, rtol=1e-6, why="quotients of small integers"),
        # By hand, LocalSize 2 across 2 channels, Alpha 2 (Alpha / 2 = 1), Beta 1, Bias 1, x = [1, 2], dy = [1, 0]:
        # S = [1 + 4, 4] (channel 0 sums itself and channel 1), D = [6, 5], y0 = x0 / D0 and y1 = x1 / D1.
        # DirectML sums the second term over the forward's window (channels c and c + 1), not the transposed one:
        # dx0 = dy0 / D0 - 2 x0 * (dy0 x0 / D0^2 + dy1 x1 / D1^2) = 1/6 - 2/36 = 1/9;
        # dx1 = dy1 / D1 - 2 x1 * (dy1 x1 / D1^2) = 0 (the derivative would be -1/9: y0 depends on x1).
        Sample("by_hand_cross_2_even", _desc([1, 2, 1, 1], True, 2, 2.0, 1.0, 1.0),
               {"InputTensor": np.array([1, 2], np.float32).reshape(1, 2, 1, 1),
                "InputGradientTensor": np.array([1, 0], np.float32).reshape(1, 2, 1, 1)},
               {"OutputGradientTensor": np.array([1 / 9, 0], np.float32).reshape(1, 2, 1, 1)},
               atol=1e-7, rtol=1e-6, why="quotients of small integers"),
        Sample("cross_3", _desc([2, 5, 3, 3], True, 3, 0.1, 0.75, 1.0), grads(2, 5, 3, 3)),
        Sample("cross_4_even", _desc([2, 6, 2, 2], True, 4, 0.3, 0.6, 2.0), grads(2, 6, 2, 2)),
        Sample("spatial_3", _desc([1, 2, 4, 5], False, 3, 0.2, 0.75, 1.0), grads(1, 2, 4, 5)),
        Sample("spatial_2_even_nhwc_strides", _desc([1, 3, 3, 2], False, 2, 0.5, 0.75, 1.5, strides=[18, 1, 6, 3]),
               {"InputTensor": r(18), "InputGradientTensor": r(1, 3, 3, 2)}),
    ]


SAMPLES = _samples()
