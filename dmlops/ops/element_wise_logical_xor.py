"""DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR: f(a, b) = a XOR b ? 1 : 0 on UINT8 or UINT32 tensors (A, B and OutputTensor
share one DataType; equal Sizes, zero strides broadcast).

Logical, not bitwise: any nonzero value is true and the result is 1 or 0 (DirectML's vectors: LOGICAL_XOR uint8_3x4x5
gives 2 XOR 1 = 0 and 2 XOR 2 = 0, where a bitwise XOR would give 3 and 0). The docs say only "logical"; ONNX Xor takes
bool tensors and torch.logical_xor returns bool, so the lowerings test each input for nonzero first and convert the bool
result to the output type: dmlops.ops._logic.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from ._logic import logic_samples
from ._logic import logic_onnx as to_onnx  # noqa: F401
from ._logic import logic_reference as reference  # noqa: F401
from ._logic import logic_torch as to_torch  # noqa: F401


def _samples():
    from ..descs import ElementWiseLogicalXor as cls

    # By hand: 0 XOR 0, 0 XOR 1, 1 XOR 0, 1 XOR 1, 2 XOR 1.
    basic = Sample("basic", cls(a_tensor=td("UINT8", [5]), b_tensor=td("UINT8", [5]), output_tensor=td("UINT8", [5])),
                   {"ATensor": np.array([0, 0, 1, 1, 2], np.uint8), "BTensor": np.array([0, 1, 0, 1, 1], np.uint8)},
                   {"OutputTensor": np.array([0, 1, 1, 0, 0], np.uint8)}, atol=0, rtol=0, why="logic on 0/1: exact")
    # The other samples spell the rule out in Python on truth values (lambda p, q: p != q; nonzero is true).
    return [basic] + logic_samples(cls, lambda p, q: p != q)


SAMPLES = _samples()
