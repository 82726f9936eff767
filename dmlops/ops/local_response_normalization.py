"""DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION: Output = Input / (Bias + Alpha / LocalSize * S)^Beta.

From the docs: LocalSize is "the number of elements to sum over per dimension: Width, Height, and
optionally Channel (if CrossChannel is set). This value must be at least 1." An even LocalSize is
allowed: DirectML ran LocalSize 2 (vectors float32_cross_1_size_2, float16_cross_1_size_2), so dmlops
does not ask for an odd window. The docs give no upper bound (a window larger than the tensor is clipped).
InputTensor and OutputTensor share DataType and Sizes (the descriptor's 'same' rule) and are 4-D (its
support tier).

Math: S is the sum of Input^2 over the window (dmlops.ops._normalization has the arithmetic). DirectML's
vectors decide what the docs leave open:

* CrossChannel TRUE: LocalSize channels; CrossChannel FALSE: a LocalSize x LocalSize window over Height and
  Width of the same channel, and the scale is still Alpha / LocalSize, not Alpha / LocalSize^2 as in Caffe's
  WITHIN_CHANNEL (float32_cross_0_size_3: 3 ULP with Alpha / 3; millions of ULP with Alpha / 9).
* The window holds floor((LocalSize - 1) / 2) elements before the centre and the rest after, as ONNX's LRN:
  LocalSize 2 sums the centre and the next channel (float32_cross_1_size_2, float16_cross_1_size_2; torch's
  local_response_norm sums the previous channel and the centre instead). Elements outside the tensor count 0.
* FLOAT16 is computed in float32 (all three FLOAT16 cases bit-exact); FLOAT32 differs from the float64 reference
  by the device's pow (up to 4 ULP; dmlops/vector_tolerances.py).

Alpha, Beta and Bias take any value (the docs state no range): a negative base D with a fractional Beta gives NaN,
D = 0 with Beta > 0 gives +-inf or NaN, on every backend alike. On ONNX Runtime's DirectML provider the ONNX
lowering uses ONNX's LRN for CrossChannel TRUE with an odd LocalSize and Alpha > 0 and Beta > 0 (same window, same
formula; the provider maps it onto this operator); elsewhere, and for other descriptors, a Pad/Slice/Add window sum:
the CPU provider's LRN refuses even sizes, and Alpha or Beta not above 0, and sums its window as a running sum, so
an infinite input gave NaN in the channels after its window (inf - inf), where each window's own sum is finite.
torch uses the composition throughout (its local_response_norm centres even windows differently).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _normalization as nz


def check(desc, level) -> list[Problem]:
    """LocalSize is at least 1."""
    return local_size_problems(desc)


def local_size_problems(desc) -> list[Problem]:
    """LocalSize >= 1 (shared with LOCAL_RESPONSE_NORMALIZATION_GRAD)."""
    if desc.local_size >= 1:
        return []
    return [Problem(desc.OPERATOR_TYPE, "LocalSize", "range",
                    f"{desc.local_size} is not allowed (allowed: 1 or more).")]


def reference(desc, x):
    """Input / D^Beta with D = Bias + Alpha / LocalSize * (window sum of Input^2), in float64."""
    v = x["InputTensor"].astype(np.float64)
    with np.errstate(all="ignore"):  # inf / inf and 0 / 0 are NaN as on the device, not a warning
        return {"OutputTensor": v / nz.lrn_reference(desc, v) ** nz._f32(desc.beta)}


def to_onnx(desc, g, x):
    """ONNX LRN on DirectML's provider (CrossChannel TRUE, odd LocalSize, Alpha > 0 and Beta > 0: the same window
    and formula, mapped onto this operator); Pad/Slice/Add, Pow, Div otherwise (ONNX Runtime's CPU LRN refuses an
    even size and Alpha or Beta of 0, below or NaN, and keeps a running window sum, so an infinity made NaN of the
    channels after it)."""
    v = x["InputTensor"]
    alpha, beta = nz._f32(desc.alpha), nz._f32(desc.beta)
    if desc.cross_channel and desc.local_size % 2 == 1 and alpha > 0 and beta > 0 and g.provider == "dml":
        return {"OutputTensor": g.node("LRN", [v], size=int(desc.local_size), alpha=nz._f32(desc.alpha),
                                       beta=nz._f32(desc.beta), bias=nz._f32(desc.bias))}
    d = nz.lrn_onnx(desc, g, v, desc.input_tensor.sizes)
    return {"OutputTensor": g.node("Div", [v, g.node("Pow", [d, g.scalar(nz._f32(desc.beta), d)])])}


def to_torch(desc, torch, x):
    """Input / D^Beta with a padded, sliced window sum (F.local_response_norm centres even windows otherwise)."""
    v = x["InputTensor"]
    return {"OutputTensor": v / torch.pow(nz.lrn_torch(desc, torch, v), nz._f32(desc.beta))}


def _desc(sizes, cross, size, alpha, beta, bias, strides=None):
    from ..descs import LocalResponseNormalization

    return LocalResponseNormalization(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td("FLOAT32", sizes),
                                      cross_channel=cross, local_size=size, alpha=alpha, beta=beta, bias=bias)


def _samples():
    rng = np.random.default_rng(1276)

    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(np.float32)

    hand = dict(atol=1e-7, rtol=1e-6, why="quotients of small integers, rounded once")
    x4 = np.array([1, 2, 2, 4], np.float32).reshape(1, 4, 1, 1)
    return [
        # By hand, CrossChannel, LocalSize 3 (one channel each side), Alpha 3 (Alpha / LocalSize = 1), Beta 1, Bias 1:
        # x = [1, 2, 2, 4]; S = [1 + 4, 1 + 4 + 4, 4 + 4 + 16, 4 + 16] = [5, 9, 24, 20]; D = 1 + S = [6, 10, 25, 21];
        # Output = x / D = [1/6, 0.2, 0.08, 4/21].
        Sample("by_hand_cross_3", _desc([1, 4, 1, 1], True, 3, 3.0, 1.0, 1.0), {"InputTensor": x4},
               {"OutputTensor": np.array([1 / 6, 0.2, 0.08, 4 / 21], np.float32).reshape(1, 4, 1, 1)}, **hand),
        # LocalSize 2 sums the channel and the next one: S = [1 + 4, 4 + 4, 4 + 16, 16] = [5, 8, 20, 16];
        # Alpha 2 (Alpha / 2 = 1), Bias 1: D = [6, 9, 21, 17]; Output = [1/6, 2/9, 2/21, 4/17].
        Sample("by_hand_cross_2_even", _desc([1, 4, 1, 1], True, 2, 2.0, 1.0, 1.0), {"InputTensor": x4},
               {"OutputTensor": np.array([1 / 6, 2 / 9, 2 / 21, 4 / 17], np.float32).reshape(1, 4, 1, 1)}, **hand),
        # Spatial LocalSize 2 on [[1, 2], [3, 4]]: the 2 x 2 window starts at the centre: S = [[1+4+9+16, 4+16],
        # [9+16, 16]] = [[30, 20], [25, 16]]; Alpha 2 -> Alpha / LocalSize = 1 (not / LocalSize^2), Bias 0, Beta 1:
        # Output = [[1/30, 2/20], [3/25, 4/16]].
        Sample("by_hand_spatial_2", _desc([1, 1, 2, 2], False, 2, 2.0, 1.0, 0.0),
               {"InputTensor": np.array([1, 2, 3, 4], np.float32).reshape(1, 1, 2, 2)},
               {"OutputTensor": np.array([1 / 30, 0.1, 0.12, 0.25], np.float32).reshape(1, 1, 2, 2)}, **hand),
        # Alpha below 0 (Alpha / LocalSize = -1), Beta 1, Bias 100: x = [1, 2, 2, 4], S = [5, 9, 24, 20] (as above),
        # D = 100 - S = [95, 91, 76, 80]: Output = [1/95, 2/91, 2/76, 4/80].
        Sample("by_hand_negative_alpha", _desc([1, 4, 1, 1], True, 3, -3.0, 1.0, 100.0), {"InputTensor": x4},
               {"OutputTensor": np.array([1 / 95, 2 / 91, 2 / 76, 0.05], np.float32).reshape(1, 4, 1, 1)}, **hand),
        # Beta 0.5 and Bias 0 with S a perfect square: x = [0, 3, 4, 0], LocalSize 3, Alpha 3: S = [9, 25, 25, 16],
        # D^0.5 = [3, 5, 5, 4]: Output = [0, 0.6, 0.8, 0].
        Sample("by_hand_beta_half", _desc([1, 4, 1, 1], True, 3, 3.0, 0.5, 0.0),
               {"InputTensor": np.array([0, 3, 4, 0], np.float32).reshape(1, 4, 1, 1)},
               {"OutputTensor": np.array([0, 0.6, 0.8, 0], np.float32).reshape(1, 4, 1, 1)}, **hand),
        Sample("cross_5", _desc([2, 6, 3, 3], True, 5, 1e-2, 0.75, 2.0), {"InputTensor": r(2, 6, 3, 3)}),
        Sample("cross_4_even", _desc([2, 6, 2, 3], True, 4, 0.3, 0.6, 1.0), {"InputTensor": r(2, 6, 2, 3)}),
        Sample("spatial_3", _desc([2, 2, 4, 5], False, 3, 0.1, 0.75, 1.0), {"InputTensor": r(2, 2, 4, 5)}),
        # A window wider than the tensor (clipped) and NHWC strides.
        Sample("spatial_4_nhwc_strides", _desc([1, 3, 3, 2], False, 4, 0.5, 0.75, 1.5, strides=[18, 1, 6, 3]),
               {"InputTensor": r(18)}),
    ]


SAMPLES = _samples()
