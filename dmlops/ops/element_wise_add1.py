"""DML_OPERATOR_ELEMENT_WISE_ADD1: f(a, b) = FusedActivation(a + b).

The addition is ELEMENT_WISE_ADD's; the framework (dmlops.lower) applies FusedActivation to OutputTensor.
ADD1 declares FLOAT32 and FLOAT16 only. ELEMENT_WISE_CLIP is a fusable activation "for Convolution and GEMM only"
(dml-fused-activations), and DirectML refuses it here (its vectors: fused_clip): dmlops.validation says so for
every fusing operator.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew
from . import element_wise_add as _add

def reference(desc, x):
    """a + b in float64 (FusedActivation is applied by the framework)."""
    return _add.reference(desc, x)


def to_onnx(desc, g, x):
    """ONNX Add."""
    return _add.to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """torch.add."""
    return _add.to_torch(desc, torch, x)


def _samples():
    from ..descs import ActivationLeakyRelu, ActivationRelu, ElementWiseAdd1

    a = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    b = np.array([[0.5, 1, -4], [2, -5, 7]], np.float32)
    return _add.float_samples(ElementWiseAdd1) + [
        # a + b = [[1.5, -1, -1], [-2, 0, 1]]; ReLU keeps the positive part.
        Sample("fused_relu", ew.binary_desc(ElementWiseAdd1, "FLOAT32", [2, 3], fused_activation=ActivationRelu()),
               {"ATensor": a, "BTensor": b}, {"OutputTensor": np.array([[1.5, 0, 0], [0, 0, 1]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # The same sums through LeakyReLU(alpha = 0.5): negatives halve.
        Sample("fused_leaky_relu_broadcast",
               ew.binary_desc(ElementWiseAdd1, "FLOAT32", [2, 3], strides_b=[0, 1],
                              fused_activation=ActivationLeakyRelu(alpha=0.5)),
               {"ATensor": a, "BTensor": np.array([0.5, 1, -4], np.float32)},
               {"OutputTensor": np.array([[1.5, -0.5, -0.5], [-1.75, 6, -5]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
