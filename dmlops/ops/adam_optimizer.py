"""DML_OPERATOR_ADAM_OPTIMIZER: one Adam step, as the DirectML page writes it and DirectML runs it::

    M = Beta1 * M + (1 - Beta1) * G
    V = Beta2 * V + (1 - Beta2) * G * G
    Alpha = sqrt(1 - Beta2^T) / (1 - Beta1^T), and 1 when T = 0
    X -= LearningRate * Alpha * M / (sqrt(V) + Epsilon)

T is TrainingStepTensor, a UINT32 scalar (Sizes all 1, broadcast to every element). The page contradicts itself
on its DataType: the member text says UINT32, the tier table FLOAT32/FLOAT16; DirectML refuses FLOAT32 and
FLOAT16 (its vectors first_step, typical, edge_training_step_float32_3) and runs UINT32, so the descriptor says
UINT32 (a recorded deviation in descriptors/adam_optimizer.json). At T = 0, where the formula is 0 / 0,
DirectML applies no bias correction (Alpha = 1, vector edge_training_step_uint32_0), as ONNX's preview Adam does.
Epsilon is added to sqrt(V) itself, not to the bias-corrected sqrt(V / (1 - Beta2^T)) as torch.optim.Adam
does: the two agree when torch's eps is Epsilon / sqrt(1 - Beta2^T). Hyperparameters are 32-bit FLOAT fields;
the ONNX and torch lowerings compute Alpha in float32 whatever the parameters' type.
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
    """The page's formula in float64 (Alpha = 1 at T = 0, as DirectML)."""
    lr, b1, b2, eps = _hyper(desc)
    p, m, v, g = (x[k].astype(np.float64) for k in ("InputParametersTensor", "InputFirstMomentTensor",
                                                     "InputSecondMomentTensor", "GradientTensor"))
    t = x["TrainingStepTensor"].astype(np.float64).reshape(())
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 if t == 0 else np.sqrt(1 - b2**t) / (1 - b1**t)  # T = 0: no bias correction (DirectML)
        p = p - lr * alpha * m / (np.sqrt(v) + eps)
    return dict(zip(_OUT, (p, m, v)))


def to_onnx(desc, g, x):
    """The formula with ONNX Mul/Add/Pow/Sqrt/Div; Alpha in float32, the rest in the parameters' compute type."""
    lr, b1, b2, eps = _hyper(desc)
    p, m, v, grad = (x[k] for k in ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor",
                                    "GradientTensor"))
    t = g.cast(x["TrainingStepTensor"], np.float32)

    def c(value, like=p):
        return g.scalar(value, like)

    m = g.node("Add", [g.node("Mul", [c(b1), m]), g.node("Mul", [c(1 - b1), grad])])
    v = g.node("Add", [g.node("Mul", [c(b2), v]), g.node("Mul", [c(1 - b2), g.node("Mul", [grad, grad])])])
    alpha = g.node("Div", [g.node("Sqrt", [g.node("Sub", [c(1.0, t), g.node("Pow", [c(b2, t), t])])]),
                           g.node("Sub", [c(1.0, t), g.node("Pow", [c(b1, t), t])])])
    first = g.node("Equal", [t, c(0.0, t)], dtype=np.bool_)
    alpha = g.cast(g.node("Where", [first, c(1.0, t), alpha]), g.dtype(p))  # T = 0: no bias correction (DirectML)
    step = g.node("Div", [g.node("Mul", [g.node("Mul", [c(lr), alpha]), m]),
                          g.node("Add", [g.node("Sqrt", [v]), c(eps)])])
    return dict(zip(_OUT, (g.node("Sub", [p, step]), m, v)))


def to_torch(desc, torch, x):
    """The formula with torch ops; Alpha in float32, the rest in the parameters' compute type."""
    lr, b1, b2, eps = _hyper(desc)
    p, m, v, g = (x[k] for k in ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor",
                                 "GradientTensor"))
    t = x["TrainingStepTensor"].to(torch.float32)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    alpha = torch.sqrt(1 - torch.pow(b2, t)) / (1 - torch.pow(b1, t))
    alpha = torch.where(t == 0, torch.ones_like(alpha), alpha).to(p.dtype)  # T = 0: no bias correction (DirectML)
    return dict(zip(_OUT, (p - lr * alpha * m / (torch.sqrt(v) + eps), m, v)))


def _desc(sizes, lr, b1, b2, eps):
    from ..descs import AdamOptimizer

    t = td("FLOAT32", sizes)
    return AdamOptimizer(input_parameters_tensor=t, input_first_moment_tensor=t, input_second_moment_tensor=t,
                         gradient_tensor=t, training_step_tensor=td("UINT32", [1, 1, 1, 1]),
                         output_parameters_tensor=t, output_first_moment_tensor=t, output_second_moment_tensor=t,
                         learning_rate=lr, beta1=b1, beta2=b2, epsilon=eps)


def _arr(values):
    return np.array(values, np.float32).reshape(1, 1, 1, -1)


def _step(t):
    return np.array(t, np.uint32).reshape(1, 1, 1, 1)


def _samples():
    rng = np.random.default_rng(7)
    shape = (1, 2, 3, 4)
    return [
        # T = 1 from zero moments, Beta1 = 0.5, Beta2 = 0.75, Epsilon = 0: M = G / 2, V = G^2 / 4,
        # Alpha = sqrt(0.25) / 0.5 = 1, so X -= 0.5 * (G / 2) / (|G| / 2) = 0.5 * sign(G).
        Sample("first_step", _desc([1, 1, 1, 4], 0.5, 0.5, 0.75, 0.0),
               {"InputParametersTensor": _arr([1, 2, 3, 4]), "InputFirstMomentTensor": _arr([0, 0, 0, 0]),
                "InputSecondMomentTensor": _arr([0, 0, 0, 0]), "GradientTensor": _arr([1, -2, 4, -0.5]),
                "TrainingStepTensor": _step(1)},
               {"OutputParametersTensor": _arr([0.5, 2.5, 2.5, 4.5]),
                "OutputFirstMomentTensor": _arr([0.5, -1, 2, -0.25]),
                "OutputSecondMomentTensor": _arr([0.25, 1, 4, 0.0625])},
               atol=1e-7, rtol=1e-7, why="exact in binary", float16_atol=0, float16_rtol=0),
        # T = 0: DirectML applies no bias correction (Alpha = 1; the formula would give 0 / 0). Beta1 = Beta2 = 0.75,
        # LearningRate 0.5, Epsilon 0, zero moments: M = G / 4, V = G^2 / 4, X -= 0.5 * (G / 4) / (|G| / 2) =
        # 0.25 * sign(G). (At T = 1, Alpha would be sqrt(0.25) / 0.25 = 2.)
        Sample("step_0_no_bias_correction", _desc([1, 1, 1, 4], 0.5, 0.75, 0.75, 0.0),
               {"InputParametersTensor": _arr([1, 2, 3, 4]), "InputFirstMomentTensor": _arr([0, 0, 0, 0]),
                "InputSecondMomentTensor": _arr([0, 0, 0, 0]), "GradientTensor": _arr([1, -2, 4, -0.5]),
                "TrainingStepTensor": _step(0)},
               {"OutputParametersTensor": _arr([0.75, 2.25, 2.75, 4.25]),
                "OutputFirstMomentTensor": _arr([0.25, -0.5, 1, -0.125]),
                "OutputSecondMomentTensor": _arr([0.25, 1, 4, 0.0625])},
               atol=1e-7, rtol=1e-7, why="exact in binary", float16_atol=0, float16_rtol=0),
        # T = 2, Beta1 = 0.5, Beta2 = 0.8: Alpha = sqrt(1 - 0.64) / (1 - 0.25) = 0.6 / 0.75 = 0.8.
        # Element 0: M = 0.5 * 2 + 0.5 * 2 = 2, V = 0.8 * 4 + 0.2 * 4 = 4, X = 1 - 1 * 0.8 * 2 / 2 = 0.2.
        # Element 1: M = 0.5 * 1 + 0 = 0.5, V = 0.8 * 5 + 0 = 4, X = 3 - 0.8 * 0.5 / 2 = 2.8.
        Sample("second_step", _desc([1, 1, 1, 2], 1.0, 0.5, 0.8, 0.0),
               {"InputParametersTensor": _arr([1, 3]), "InputFirstMomentTensor": _arr([2, 1]),
                "InputSecondMomentTensor": _arr([4, 5]), "GradientTensor": _arr([2, 0]),
                "TrainingStepTensor": _step(2)},
               {"OutputParametersTensor": _arr([0.2, 2.8]), "OutputFirstMomentTensor": _arr([2, 0.5]),
                "OutputSecondMomentTensor": _arr([4, 4])},
               atol=1e-6, rtol=1e-6, why="0.8 and 0.2 round in float32"),
        # Typical hyperparameters at step 10 on random data.
        Sample("typical", _desc(list(shape), 1e-3, 0.9, 0.999, 1e-8),
               {"InputParametersTensor": rng.standard_normal(shape).astype(np.float32),
                "InputFirstMomentTensor": (0.1 * rng.standard_normal(shape)).astype(np.float32),
                "InputSecondMomentTensor": (0.01 * rng.random(shape)).astype(np.float32),
                "GradientTensor": rng.standard_normal(shape).astype(np.float32),
                "TrainingStepTensor": _step(10)},
               atol=1e-6, rtol=1e-5, why="float32 evaluation order", float16_atol=5e-3, float16_rtol=5e-3),
    ]


SAMPLES = _samples()
