"""DML_OPERATOR_ACTIVATION_CELU: f(x) = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)).

DirectML evaluates the docs' formula as written, with its min and max returning the non-NaN operand (DirectML's
sample_alpha_zero, Alpha 0: [-1, -0, +0, 2, NaN] gives [+0, +0, +0, 2, +0]): x / 0 is -inf, NaN or +inf, so the
second term is 0 * (0 - 1) = -0 or 0 * inf = NaN, which min(0, .) turns into 0, and CELU with Alpha 0 is ReLU with
+0 for every x <= 0 and for NaN. The same evaluation gives CELU(NaN) = 0 for every Alpha (both terms drop the NaN;
unmeasured for Alpha != 0, where no vector holds a NaN) and never -0 (max(0, x) is +0 or more). ONNX Celu and
torch's celu give NaN for NaN and differ at Alpha 0, so the lowerings write the two terms: Where(x > 0, x, 0) +
Where(n < 0, n, 0) with n = Alpha * (exp(x / Alpha) - 1) in float32 (DirectML computes exp(x / Alpha) - 1, not
expm1; torch-directml, which has no celu, runs those ops).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td


def reference(desc, x):
    """max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)) in float32, NaN dropped by both (module docstring)."""
    v = x["InputTensor"].astype(np.float32)
    a = np.float32(desc.alpha)
    zero = np.float32(0)
    with np.errstate(all="ignore"):  # x / 0, exp overflow and 0 * inf are part of the formula
        n = a * (np.exp(v / a) - np.float32(1))
        return {"OutputTensor": np.where(v > 0, v, zero) + np.where(n < 0, n, zero)}


def to_onnx(desc, g, x):
    """Where(x > 0, x, 0) + Where(n < 0, n, 0), n = Alpha * (Exp(x / Alpha) - 1)."""
    v = x["InputTensor"]
    dtype = g.dtype(v)
    c = lambda value: g.const(np.asarray(value, dtype))  # noqa: E731
    a = c(np.float32(desc.alpha))
    n = g.node("Mul", [a, g.node("Sub", [g.node("Exp", [g.node("Div", [v, a])]), c(1)])])
    # Where's X is > 0 or < 0 here, never -0 (ONNX Runtime's CPU Where would turn a -0 from X into +0)
    pos = g.node("Where", [g.node("Greater", [v, c(0)], dtype=np.bool_), v, c(0)], dtype=dtype)
    neg = g.node("Where", [g.node("Less", [n, c(0)], dtype=np.bool_), n, c(0)], dtype=dtype)
    return {"OutputTensor": g.node("Add", [pos, neg])}


def to_torch(desc, torch, x):
    """torch.where(x > 0, x, 0) + torch.where(n < 0, n, 0), n = Alpha * (exp(x / Alpha) - 1)."""
    v = x["InputTensor"]
    a = float(np.float32(desc.alpha))
    n = a * (torch.exp(v / a) - 1)  # a tensor divided by 0.0 is ±inf or NaN in torch, as IEEE says
    zero = torch.zeros_like(v)
    return {"OutputTensor": torch.where(v > 0, v, zero) + torch.where(n < 0, n, zero)}


def _samples():
    from ..descs import ActivationCelu

    t = td("FLOAT32", [5])
    ln2, ln4 = np.log(2), np.log(4)
    exact = dict(atol=0, rtol=0, why="selections, a product by zero and sums with 0: exact, signed zeros included",
                 float16_atol=0, float16_rtol=0)
    return [
        # Alpha 2: x / 2 = -ln 2 -> 2 (1/2 - 1) = -1; x / 2 = -ln 4 -> 2 (1/4 - 1) = -1.5; x = -100 -> -2.
        Sample("alpha_two", ActivationCelu(input_tensor=t, output_tensor=t, alpha=2.0),
               {"InputTensor": np.array([3, 0, -2 * ln2, -2 * ln4, -100], np.float32)},
               {"OutputTensor": np.array([3, 0, -1, -1.5, -2], np.float32)},
               why="float32 rounding of ln 2 and exp", atol=1e-6, rtol=1e-6),
        Sample("default_alpha", ActivationCelu(input_tensor=td("FLOAT32", [2, 3]), output_tensor=td("FLOAT32", [2, 3])),
               {"InputTensor": np.array([[-4, -1, -0.2], [0.2, 1, 90]], np.float32)}),
        # Alpha 0 (issue 13: it must not crash any backend; DirectML's sample_alpha_zero): x < 0 gives
        # 0 + min(0, 0 * -1 = -0) = +0; ±0 give 0 + min(0, 0 * NaN) = +0; 2 gives 2 + min(0, 0 * inf = NaN) = 2;
        # NaN gives 0 + 0.
        Sample("alpha_zero", ActivationCelu(input_tensor=t, output_tensor=t, alpha=0.0),
               {"InputTensor": np.array([-1, -0.0, 0, 2, np.nan], np.float32)},
               {"OutputTensor": np.array([0, 0, 0, 2, 0], np.float32)}, **exact),
        # NaN and the infinities with Alpha 1.5, by the formula: NaN -> 0 (both terms drop it), inf -> inf + 0,
        # -inf -> 0 + 1.5 * (0 - 1) = -1.5, -0 -> +0 (max(0, -0) + min(0, 1.5 * 0)).
        Sample("nan_inf_alpha_1_5", ActivationCelu(input_tensor=td("FLOAT32", [4]), output_tensor=td("FLOAT32", [4]),
                                                   alpha=1.5),
               {"InputTensor": np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)},
               {"OutputTensor": np.array([0, np.inf, -1.5, 0], np.float32)}, **exact),
    ]


SAMPLES = _samples()
