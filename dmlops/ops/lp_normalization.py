"""DML_OPERATOR_LP_NORMALIZATION: Output = Input / sqrt(N + Epsilon) along Axis, N the squared Lp norm.

From the docs: Axis is "the axis on which to apply normalization", so it must be a dimension of
InputTensor (0 to DimensionCount - 1; DirectML refused Axis 1 on a 1-D input, the validator-gap vector
gap_factory_tier_3_1_dt_0_rank_min); P is "the order of the normalization (either 1 or 2)".
InputTensor and OutputTensor share DataType, DimensionCount and Sizes (the descriptor's 'same' rule).

Math: the docs say only "Lp normalization" and that Epsilon avoids a division by zero. DirectML's vectors decide
where Epsilon goes: inside a square root, for both orders::

    P = 2: N = sum(Input^2 along Axis)       Output = Input / sqrt(N + Epsilon)
    P = 1: N = (sum(|Input| along Axis))^2   Output = Input / sqrt(N + Epsilon)

float32_axis1_p2 and float32_axis3_p1 (Epsilon 1e-5) are bit-exact with float32 sums this way; the other
readings are tens of ULP off: Input / max(norm, Epsilon) (torch's F.normalize; 67 ULP for P 2),
Input / (norm + Epsilon) (77 ULP for P 2, 37 for P 1), Input / sqrt(max(N, Epsilon)). With P 1 the Epsilon is
added to the squared L1 norm (the 1-norm is 1.4e-7 larger than the sum in every row, as sqrt(sum^2 + 1e-5)
is). A slice of zeros gives 0 / sqrt(Epsilon) = 0 (float32_axis1_p2 has one); with Epsilon 0 it gives NaN.
ONNX's LpNormalization has no Epsilon (x / norm).

FLOAT16 (float16_axis1_p2, float16_axis3_p1): the sum is stored as FLOAT16 toward zero, and for P 1 its square
too, before Epsilon is added (bit-exact; 1 to 2 FLOAT16 ULP off without the stores).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _elementwise as ew
from .batch_normalization import epsilon


def check(desc, level) -> list[Problem]:
    """Axis is a dimension of InputTensor; P is 1 or 2."""
    op = desc.OPERATOR_TYPE
    out = []
    x = tensor(desc, "InputTensor")
    if x is not None and x.dimension_count and desc.axis >= x.dimension_count:
        rank = x.dimension_count
        out.append(Problem(op, "Axis", "axes", f"{desc.axis} is out of range for a {rank}-dimensional InputTensor "
                                               f"(allowed: 0 to {rank - 1})."))
    if desc.p not in (1, 2):
        out.append(Problem(op, "P", "range", f"{desc.p} is not allowed (allowed: 1 or 2)."))
    return out


def reference(desc, x):
    """N in float64 (FLOAT16: stored toward zero), then Input / sqrt(N + Epsilon)."""
    v = x["InputTensor"].astype(np.float64)
    f16 = ew.is_float16(desc)
    store = (lambda a: ew.float16_toward_zero(a).astype(np.float64)) if f16 else (lambda a: a)
    if desc.p == 1:
        s = store(np.abs(v).sum(axis=desc.axis, keepdims=True))
        n = store(s * s)
    else:
        n = store((v * v).sum(axis=desc.axis, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / sqrt(0) is NaN, as DirectML's division gives it
        return {"OutputTensor": v / np.sqrt(n + epsilon(desc))}


def to_onnx(desc, g, x):
    """ReduceL1 then Mul (P 1) or ReduceSumSquare (P 2), Add Epsilon, Sqrt, Div, in float32."""
    v = x["InputTensor"]
    f16 = ew.is_float16(desc)
    store = (lambda a: ew.onnx_float16_toward_zero(g, a)) if f16 else (lambda a: a)
    axes = g.ints([desc.axis])
    if desc.p == 1:
        s = store(g.node("ReduceL1", [v, axes], keepdims=1))
        n = store(g.node("Mul", [s, s]))
    else:
        n = store(g.node("ReduceSumSquare", [v, axes], keepdims=1))
    return {"OutputTensor": g.node("Div", [v, g.node("Sqrt", [g.node("Add", [n, g.scalar(epsilon(desc), n)])])])}


def to_torch(desc, torch, x):
    """The same with torch sums (F.normalize divides by max(norm, eps), which DirectML does not)."""
    v = x["InputTensor"]
    f16 = ew.is_float16(desc)
    store = (lambda a: ew.torch_float16_toward_zero(torch, a)) if f16 else (lambda a: a)
    if desc.p == 1:
        s = store(v.abs().sum(dim=desc.axis, keepdim=True))
        n = store(s * s)
    else:
        n = store((v * v).sum(dim=desc.axis, keepdim=True))
    return {"OutputTensor": v / torch.sqrt(n + epsilon(desc))}


def _desc(sizes, axis, p, eps, strides=None):
    from ..descs import LpNormalization

    return LpNormalization(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td("FLOAT32", sizes),
                           axis=axis, epsilon=eps, p=p)


def _samples():
    rng = np.random.default_rng(1278)

    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(np.float32)

    exact = dict(atol=0, rtol=0, why="exact in binary: square roots of perfect squares")
    return [
        # By hand, P 2 along Axis 1 of [[3, 4], [0, 0]], Epsilon 11: row 0: N = 9 + 16 = 25, sqrt(36) = 6:
        # [0.5, 0.6666667]; row 1 (all zeros): 0 / sqrt(11) = 0 (torch's F.normalize: 3 / 5 = 0.6 for row 0).
        Sample("by_hand_p2", _desc([2, 2], 1, 2, 11.0), {"InputTensor": np.array([[3, 4], [0, 0]], np.float32)},
               {"OutputTensor": np.array([[0.5, 2 / 3], [0, 0]], np.float32)},
               atol=0, rtol=1e-7, why="2/3 rounds once"),
        # By hand, P 1 along Axis 0 of [[1], [-3]], Epsilon 9: N = (1 + 3)^2 = 16, sqrt(16 + 9) = 5: [0.2, -0.6]
        # (x / (L1 + Epsilon) would give [1/13, -3/13]; x / max(L1, Epsilon) [1/9, -1/3]).
        Sample("by_hand_p1", _desc([2, 1], 0, 1, 9.0), {"InputTensor": np.array([[1], [-3]], np.float32)},
               {"OutputTensor": np.array([[0.2], [-0.6]], np.float32)}, atol=0, rtol=1e-7, why="0.2 rounds once"),
        # Epsilon 0: a zero slice gives 0 / 0 = NaN; [0, -5] gives [0, -1] (P 1: sqrt(25) = 5).
        Sample("by_hand_zero_epsilon", _desc([2, 2], 1, 1, 0.0),
               {"InputTensor": np.array([[0, -5], [0, 0]], np.float32)},
               {"OutputTensor": np.array([[0, -1], [np.nan, np.nan]], np.float32)}, **exact),
        Sample("p2_axis1_4d", _desc([2, 3, 4, 5], 1, 2, 1e-5), {"InputTensor": r(2, 3, 4, 5)}),
        Sample("p1_axis3_4d", _desc([2, 3, 4, 5], 3, 1, 1e-5), {"InputTensor": r(2, 3, 4, 5)}),
        Sample("p2_axis0_1d", _desc([6], 0, 2, 1e-3), {"InputTensor": r(6)}),
        Sample("p1_axis2_5d_strides", _desc([2, 2, 3, 2, 2], 2, 1, 1e-4, strides=[24, 1, 8, 4, 2]),
               {"InputTensor": r(48)}),
    ]


SAMPLES = _samples()
