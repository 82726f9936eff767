"""The 13 unary float math operators (ELEMENT_WISE_SIN ... ELEMENT_WISE_ATANH), from one table.

Each operator is ``f(Scale * x + Bias)`` on FLOAT32 or FLOAT16 (dmlops.lower applies ScaleBias and the FLOAT16
rules). :data:`FUNCTIONS` says, per operator, how DirectML computes ``f``, which is what every backend writes:

* ``native``: the framework's own function (sin, cos, tan, sinh, cosh, tanh, erf). DirectML's vectors are within a
  few float32 ULP of these, or within an absolute ~ulp(1) where its exp-based forms cancel near 0 (the bounds are in
  dmlops/vector_tolerances.py).
* ``formula``: a float32 expression in a handful of ops, written once (the op sets of dmlops/ops/_opset.py evaluate
  it: float32 NumPy, ONNX nodes, torch ops) because DirectML's answers follow it, not the IEEE function:

  - ACOS, ASIN: Abramowitz & Stegun 4.4.45, acos|x| ~ sqrt(1 - |x|) (1.5707288 - 0.2121144|x| + 0.0742610|x|^2 -
    0.0187293|x|^3) (error up to 6.7e-5), acos(x) = pi - acos|x| for x < 0, and asin(x) = pi/2 - acos(x). The
    vectors (float32_2x3x4x5) give acos(0) = 1.5707288 (pi/2 = 1.5707964), asin(±0) = 6.759167e-05 (not 0),
    asin(0.5) = 0.52364504; every float32 case is within 2 ULP of the float32 polynomial.
  - ATAN: Abramowitz & Stegun 4.4.47 on t = min(|x|, 1) / max(|x|, 1) (odd polynomial 0.9998660 t - 0.3302995 t^3 +
    0.1801410 t^5 - 0.0851330 t^7 + 0.0208351 t^9, error up to 1e-5), pi/2 - p for |x| > 1, negated for x < 0. The
    vectors give atan(1) = 0.7854096 (pi/4 = 0.7853982) and atan(NaN) = 0.7854096, not NaN: min and max return the
    non-NaN operand (D3D), so NaN reads as t = 1. atan(-0) = +0.
  - ASINH, ACOSH, ATANH: the docs' formulas ln(x + sqrt(x * x + 1)), ln(x + sqrt(x * x - 1)),
    ln((1 + x) / (1 - x)) / 2, in float32. The vectors agree where the IEEE functions do not: asinh(-inf) = NaN
    (-inf + inf), asinh(-0) = atanh(-0) = +0, and the float32 cancellation of acosh near 1 (acosh(1.0001) =
    0.014142881, 333 ULP from the true 0.014143191). The formula also cancels for x < about -4096 in asinh (no vector
    goes there; dmlops follows the formula).
* ``positive_zero``: DirectML returns +0 for ±0 (SINH, TANH, ERF: the vectors' -0 cases; its exp-based forms give
  (1 - 1) / 2 = +0), so a zero result becomes +0 (a select: ONNX Runtime drops an Add of a zero constant). SIN
  and TAN keep -0, as DirectML does.

Unverified (no vector): DirectML's exp-based SINH/COSH may overflow to inf for |x| in (88.7, 89.4), where the
native functions are finite; dmlops keeps the native value there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..sample import Sample, td
from ..types import ScaleBias
from ._opset import ONNX, NumPy, Torch

PI = math.pi
HALF_PI = math.pi / 2
ACOS_COEFFICIENTS = (1.5707288, -0.2121144, 0.0742610, -0.0187293)  # A&S 4.4.45, lowest power first
ATAN_COEFFICIENTS = (0.9998660, -0.3302995, 0.1801410, -0.0851330, 0.0208351)  # A&S 4.4.47, in t^2


# ----------------------------------------------------------------------------------------------- formulas
def _horner(m, x, coefficients):
    """c0 + x (c1 + x (c2 + ...))."""
    acc = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        acc = m.add(m.mul(acc, x), c)
    return acc


def _acos(m, x):
    a = m.abs(x)
    r = m.mul(m.sqrt(m.sub(1.0, a)), _horner(m, a, ACOS_COEFFICIENTS))
    return m.where(m.lt(x, 0.0), m.sub(PI, r), r)


def _asin(m, x):
    return m.sub(HALF_PI, _acos(m, x))


def _atan(m, x):
    a = m.abs(x)
    big = m.gt(a, 1.0)
    # min(|x|, 1) / max(|x|, 1) with D3D's min/max (the non-NaN operand): NaN gives 1 / 1.
    t = m.div(m.where(m.lt(a, 1.0), a, 1.0), m.where(big, a, 1.0))
    p = m.mul(_horner(m, m.mul(t, t), ATAN_COEFFICIENTS), t)
    p = m.where(big, m.sub(HALF_PI, p), p)
    return m.where(m.lt(x, 0.0), m.neg(p), p)


def _asinh(m, x):
    return m.log(m.add(x, m.sqrt(m.add(m.mul(x, x), 1.0))))


def _acosh(m, x):
    return m.log(m.add(x, m.sqrt(m.sub(m.mul(x, x), 1.0))))


def _atanh(m, x):
    return m.mul(m.log(m.div(m.add(1.0, x), m.sub(1.0, x))), 0.5)


@dataclass(frozen=True)
class Function:
    """How DirectML computes one operator: a ``formula`` (written once for every backend) or the ``native``
    function ({"numpy": float64 function, "onnx": op type, "torch": name}), and whether ±0 comes back as +0."""

    onnx: str                                   # the ONNX op of the same name (the oracle tests' reference)
    native: dict | None = None
    formula: Callable | None = None
    positive_zero: bool = False


def _math_erf(v):
    return np.vectorize(math.erf, otypes=[np.float64])(v)  # NumPy has no erf; math.erf is correctly rounded


FUNCTIONS: dict[str, Function] = {
    "ELEMENT_WISE_SIN": Function("Sin", native={"numpy": np.sin, "torch": "sin"}),
    "ELEMENT_WISE_COS": Function("Cos", native={"numpy": np.cos, "torch": "cos"}),
    "ELEMENT_WISE_TAN": Function("Tan", native={"numpy": np.tan, "torch": "tan"}),
    "ELEMENT_WISE_SINH": Function("Sinh", native={"numpy": np.sinh, "torch": "sinh"}, positive_zero=True),
    "ELEMENT_WISE_COSH": Function("Cosh", native={"numpy": np.cosh, "torch": "cosh"}),
    "ELEMENT_WISE_TANH": Function("Tanh", native={"numpy": np.tanh, "torch": "tanh"}, positive_zero=True),
    "ELEMENT_WISE_ERF": Function("Erf", native={"numpy": _math_erf, "torch": "erf"}, positive_zero=True),
    "ELEMENT_WISE_ACOS": Function("Acos", formula=_acos),
    "ELEMENT_WISE_ASIN": Function("Asin", formula=_asin),
    "ELEMENT_WISE_ATAN": Function("Atan", formula=_atan),
    "ELEMENT_WISE_ASINH": Function("Asinh", formula=_asinh),
    "ELEMENT_WISE_ACOSH": Function("Acosh", formula=_acosh),
    "ELEMENT_WISE_ATANH": Function("Atanh", formula=_atanh),
}


# ----------------------------------------------------------------------------------------------- lowerings
def _signed(m, op: str, y):
    """A native function's result ``y`` in op set ``m``, a zero made +0 where DirectML's is (``positive_zero``)."""
    return m.where(m.eq(y, 0), 0.0, y) if FUNCTIONS[op].positive_zero else y


def reference(op: str, v: np.ndarray) -> np.ndarray:
    """``f(v)`` as DirectML computes it: the formula in float32, or the native function in float64."""
    fn = FUNCTIONS[op]
    with np.errstate(all="ignore"):
        if fn.formula is not None:
            return fn.formula(NumPy(), v.astype(np.float32))
        assert fn.native is not None  # a Function has a formula or a native function
        return _signed(NumPy(np.float64), op, fn.native["numpy"](v.astype(np.float64)))


def onnx(op: str, g, v: str) -> str:
    """``f(v)`` in ONNX nodes (``v`` is float32: dmlops.lower computes FLOAT16 in float32)."""
    fn = FUNCTIONS[op]
    if fn.formula is not None:
        return fn.formula(ONNX(g), v)
    return _signed(ONNX(g), op, g.node(fn.onnx, [v]))


def torch_lowering(op: str, torch, v):
    """``f(v)`` in torch ops."""
    fn = FUNCTIONS[op]
    if fn.formula is not None:
        return fn.formula(Torch(torch), v)
    assert fn.native is not None  # a Function has a formula or a native function
    return _signed(Torch(torch), op, getattr(torch, fn.native["torch"])(v))


def lowering(op: str, samples: Callable):
    """``(reference, to_onnx, to_torch, SAMPLES)`` of one operator of :data:`FUNCTIONS`."""

    def reference_(desc, x):
        """f(InputTensor) as DirectML computes it (dmlops.ops._unary_math)."""
        return {"OutputTensor": reference(op, x["InputTensor"])}

    def to_onnx(desc, g, x):
        """f(InputTensor) in ONNX nodes (dmlops.ops._unary_math)."""
        return {"OutputTensor": onnx(op, g, x["InputTensor"])}

    def to_torch(desc, torch, x):
        """f(InputTensor) in torch ops (dmlops.ops._unary_math)."""
        return {"OutputTensor": torch_lowering(op, torch, x["InputTensor"])}

    reference_.__name__ = reference_.__qualname__ = "reference"
    return reference_, to_onnx, to_torch, samples()


# ----------------------------------------------------------------------------------------------- samples
def desc(cls, sizes, strides=None, scale_bias=None):
    """A FLOAT32 desc of a unary math operator."""
    return cls(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td("FLOAT32", sizes), scale_bias=scale_bias)


def samples(cls, name: str, x, y, why: str, atol: float, edges=None, scale_bias: ScaleBias | None = None,
            scaled_x=None, scaled_y=None, rtol: float = 1e-6, grid: tuple[float, float] = (-0.9, 0.9)) -> list[Sample]:
    """A hand-computed sample (``x`` -> ``y``, ``why`` says how), optionally a DirectML edge sample and a ScaleBias
    sample, and a strided (broadcast) sample over ``grid``."""
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    out = [Sample(name, desc(cls, [x.size]), {"InputTensor": x}, {"OutputTensor": y}, atol=atol, rtol=rtol, why=why)]
    if edges is not None:
        ex, ey = (np.asarray(v, np.float32) for v in edges)
        out.append(Sample("directml_edges", desc(cls, [ex.size]), {"InputTensor": ex}, {"OutputTensor": ey},
                          atol=atol, rtol=rtol, why="DirectML's vectors (see the module docstring)"))
    if scale_bias is not None:
        sx, sy = np.asarray(scaled_x, np.float32), np.asarray(scaled_y, np.float32)
        out.append(Sample("scale_bias", desc(cls, [sx.size], scale_bias=scale_bias), {"InputTensor": sx},
                          {"OutputTensor": sy}, atol=atol, rtol=rtol, why=why))
    values = np.linspace(grid[0], grid[1], 6, dtype=np.float32)
    out.append(Sample("broadcast_4d", desc(cls, [2, 1, 2, 6], [0, 0, 0, 1]), {"InputTensor": values},
                      atol=1e-6, rtol=1e-6, why="float32 rounding of the function in another library"))
    return out
