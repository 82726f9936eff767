"""DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1: log-softmax over the set of Axes taken together.

The same Axes rule and the same groups as ACTIVATION_SOFTMAX1 (its docs state them identically):
f(x) = x - max - ln(max(sum(exp(x - max)), 1e-20)) over each group, ln(softmax) without its rounding, with
DirectML's NaN rules (ACTIVATION_SOFTMAX's docstring; vector edge_inf_nan). The
docs' three examples show hardmax outputs (0s and 1s, copied from the HARDMAX1 page), not
log-softmax values; their text (Example 3: Axes {0, 2} reduce over both axes) is what is used here.
"""
from __future__ import annotations

from .activation_softmax import softmax
from .activation_softmax1 import check, samples, softmax_onnx, softmax_torch

__all__ = ["check", "reference", "to_onnx", "to_torch", "SAMPLES"]


def reference(desc, x):
    """Log-softmax over Axes together, in float32, as DirectML computes it."""
    return {"OutputTensor": softmax(x["InputTensor"], tuple(desc.axes), log=True)}


def to_onnx(desc, g, x):
    """DirectML's steps over Axes (softmax_onnx)."""
    return {"OutputTensor": softmax_onnx(g, x["InputTensor"], desc.axes, log=True)}


def to_torch(desc, torch, x):
    """DirectML's steps over Axes (softmax_torch)."""
    return {"OutputTensor": softmax_torch(torch, x["InputTensor"], desc.axes, log=True)}


def _samples():
    from ..descs import ActivationLogSoftmax1

    return samples(ActivationLogSoftmax1, log=True)


SAMPLES = _samples()
