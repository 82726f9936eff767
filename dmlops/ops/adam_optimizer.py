"""DML_OPERATOR_ADAM_OPTIMIZER: one Adam step, exactly as the DirectML page writes it::

    M = Beta1 * M + (1 - Beta1) * G
    V = Beta2 * V + (1 - Beta2) * G * G
    Alpha = sqrt(1 - Beta2^T) / (1 - Beta1^T)
    X -= LearningRate * Alpha * M / (sqrt(V) + Epsilon)

T is TrainingStepTensor (Sizes all 1, broadcast to every element). Epsilon is added to sqrt(V) itself, not
to the bias-corrected sqrt(V / (1 - Beta2^T)) as torch.optim.Adam does: the two agree when torch's eps is
Epsilon / sqrt(1 - Beta2^T). ONNX's preview Adam matches for T > 0 with norm_coefficient 0, but uses no
bias correction at T = 0, where this formula gives 0 / 0 = NaN (the page says T "typically starts at 0";
the formula is followed as written). TrainingStepTensor's DataType: the tier table says FLOAT32/FLOAT16,
the member text says UINT32; the descriptor follows the table. Hyperparameters are 32-bit FLOAT fields.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td

_OUT = ("OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor")


def check(desc, level) -> list[Problem]:
    """TrainingStepTensor must be a scalar: every size 1 (the page's { 1, 1, 1, 1 })."""
    t = desc.training_step_tensor
    if t is not None and any(s != 1 for s in t.sizes):
        return [Problem(desc.OPERATOR_TYPE, "TrainingStepTensor", "sizes",
                        f"Sizes {list(t.sizes)} must all be 1 (a scalar training step).")]
    return []


def _hyper(desc):
    return tuple(float(np.float32(v)) for v in (desc.learning_rate, desc.beta1, desc.beta2, desc.epsilon))


def reference(desc, x):
    """The page's formula in float64."""
    lr, b1, b2, eps = _hyper(desc)
    p, m, v, g = (x[k].astype(np.float64) for k in ("InputParametersTensor", "InputFirstMomentTensor",
                                                     "InputSecondMomentTensor", "GradientTensor"))
    t = x["TrainingStepTensor"].astype(np.float64).reshape(())
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = np.sqrt(1 - b2**t) / (1 - b1**t)
        p = p - lr * alpha * m / (np.sqrt(v) + eps)
    return dict(zip(_OUT, (p, m, v)))


def to_onnx(desc, g, x):
    """The formula with ONNX Mul/Add/Pow/Sqrt/Div in the parameters' compute type."""
    lr, b1, b2, eps = _hyper(desc)
    p, m, v, grad = (x[k] for k in ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor",
                                    "GradientTensor"))
    t = g.cast(x["TrainingStepTensor"], g.dtype(p))

    def c(value):
        return g.scalar(value, p)

    m = g.node("Add", [g.node("Mul", [c(b1), m]), g.node("Mul", [c(1 - b1), grad])])
    v = g.node("Add", [g.node("Mul", [c(b2), v]), g.node("Mul", [c(1 - b2), g.node("Mul", [grad, grad])])])
    alpha = g.node("Div", [g.node("Sqrt", [g.node("Sub", [c(1.0), g.node("Pow", [c(b2), t])])]),
                           g.node("Sub", [c(1.0), g.node("Pow", [c(b1), t])])])
    step = g.node("Div", [g.node("Mul", [g.node("Mul", [c(lr), alpha]), m]),
                          g.node("Add", [g.node("Sqrt", [v]), c(eps)])])
    return dict(zip(_OUT, (g.node("Sub", [p, step]), m, v)))


def to_torch(desc, torch, x):
    """The formula with torch ops in the parameters' compute type."""
    lr, b1, b2, eps = _hyper(desc)
    p, m, v, g = (x[k] for k in ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor",
                                 "GradientTensor"))
    t = x["TrainingStepTensor"].to(p.dtype)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    alpha = torch.sqrt(1 - torch.pow(b2, t)) / (1 - torch.pow(b1, t))
    return dict(zip(_OUT, (p - lr * alpha * m / (torch.sqrt(v) + eps), m, v)))


def _desc(sizes, lr, b1, b2, eps):
    from ..descs import AdamOptimizer

    t = td("FLOAT32", sizes)
    return AdamOptimizer(input_parameters_tensor=t, input_first_moment_tensor=t, input_second_moment_tensor=t,
                         gradient_tensor=t, training_step_tensor=td("FLOAT32", [1, 1, 1, 1]),
                         output_parameters_tensor=t, output_first_moment_tensor=t, output_second_moment_tensor=t,
                         learning_rate=lr, beta1=b1, beta2=b2, epsilon=eps)


def _arr(values):
    return np.array(values, np.float32).reshape(1, 1, 1, -1)


def _samples():
    rng = np.random.default_rng(7)
    shape = (1, 2, 3, 4)
    return [
        # T = 1 from zero moments, Beta1 = 0.5, Beta2 = 0.75, Epsilon = 0: M = G / 2, V = G^2 / 4,
        # Alpha = sqrt(0.25) / 0.5 = 1, so X -= 0.5 * (G / 2) / (|G| / 2) = 0.5 * sign(G).
        Sample("first_step", _desc([1, 1, 1, 4], 0.5, 0.5, 0.75, 0.0),
               {"InputParametersTensor": _arr([1, 2, 3, 4]), "InputFirstMomentTensor": _arr([0, 0, 0, 0]),
                "InputSecondMomentTensor": _arr([0, 0, 0, 0]), "GradientTensor": _arr([1, -2, 4, -0.5]),
                "TrainingStepTensor": _arr([1])},
               {"OutputParametersTensor": _arr([0.5, 2.5, 2.5, 4.5]),
                "OutputFirstMomentTensor": _arr([0.5, -1, 2, -0.25]),
                "OutputSecondMomentTensor": _arr([0.25, 1, 4, 0.0625])},
               atol=1e-7, rtol=1e-7, why="exact in binary", float16_atol=0, float16_rtol=0),
        # T = 2, Beta1 = 0.5, Beta2 = 0.8: Alpha = sqrt(1 - 0.64) / (1 - 0.25) = 0.6 / 0.75 = 0.8.
        # Element 0: M = 0.5 * 2 + 0.5 * 2 = 2, V = 0.8 * 4 + 0.2 * 4 = 4, X = 1 - 1 * 0.8 * 2 / 2 = 0.2.
        # Element 1: M = 0.5 * 1 + 0 = 0.5, V = 0.8 * 5 + 0 = 4, X = 3 - 0.8 * 0.5 / 2 = 2.8.
        Sample("second_step", _desc([1, 1, 1, 2], 1.0, 0.5, 0.8, 0.0),
               {"InputParametersTensor": _arr([1, 3]), "InputFirstMomentTensor": _arr([2, 1]),
                "InputSecondMomentTensor": _arr([4, 5]), "GradientTensor": _arr([2, 0]),
                "TrainingStepTensor": _arr([2])},
               {"OutputParametersTensor": _arr([0.2, 2.8]), "OutputFirstMomentTensor": _arr([2, 0.5]),
                "OutputSecondMomentTensor": _arr([4, 4])},
               atol=1e-6, rtol=1e-6, why="0.8 and 0.2 round in float32"),
        # Typical hyperparameters at step 10 on random data.
        Sample("typical", _desc(list(shape), 1e-3, 0.9, 0.999, 1e-8),
               {"InputParametersTensor": rng.standard_normal(shape).astype(np.float32),
                "InputFirstMomentTensor": (0.1 * rng.standard_normal(shape)).astype(np.float32),
                "InputSecondMomentTensor": (0.01 * rng.random(shape)).astype(np.float32),
                "GradientTensor": rng.standard_normal(shape).astype(np.float32),
                "TrainingStepTensor": _arr([10])},
               atol=1e-6, rtol=1e-5, why="float32 evaluation order", float16_atol=5e-3, float16_rtol=5e-3),
    ]


SAMPLES = _samples()
