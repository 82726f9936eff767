"""DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT: f(x) = (x == 0) ? 1 : 0 on UINT8 or UINT32 tensors (InputTensor and
OutputTensor share one DataType).

Logical, not bitwise (ELEMENT_WISE_BIT_NOT is the bitwise one): any nonzero value is true, so NOT gives 1 for 0 and
0 for everything else (DirectML's vectors: LOGICAL_NOT uint32_3x4x5 gives NOT 4294967295 = 0 and NOT 2 = 0;
uint8_3x4x5 gives NOT 255 = 0). ONNX Not takes bool, so the input is cast to bool (nonzero) first.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew
from . import _logic


def reference(desc, x):
    """x == 0, as 1/0."""
    return {"OutputTensor": (x["InputTensor"] == 0).astype(_logic.output_dtype(desc))}


def to_onnx(desc, g, x):
    """Not(Cast(x, bool)), then Cast to the output type."""
    return _logic.onnx_store(desc, g, g.node("Not", [_logic.onnx_truth(g, x["InputTensor"])], dtype=np.bool_))


def to_torch(desc, torch, x):
    """torch.logical_not of the input as bool (nonzero is true; torch has no uint32 logical_not), then to the
    output type."""
    return _logic.torch_store(desc, torch, torch.logical_not(x["InputTensor"].to(torch.bool)))


def _samples():
    from ..descs import ElementWiseLogicalNot as cls

    def make(t, sizes):
        return cls(input_tensor=td(t, sizes), output_tensor=td(t, sizes))

    why = "logic on 0/1: exact"
    out = []
    for t in ("UINT8", "UINT32"):
        top = ew.int_range(t.lower())[1]
        # By hand: NOT 0 = 1; NOT of 1, 2, 3, 128 and the type's maximum = 0.
        out.append(Sample(f"{t.lower()}_nonzero_is_true", make(t, [2, 3]),
                          {"InputTensor": ew.int_array([[0, 1, 2], [3, 128, top]], t)},
                          {"OutputTensor": ew.int_array([[1, 0, 0], [0, 0, 0]], t)}, atol=0, rtol=0, why=why))
    # One value read through zero strides: NOT 0 everywhere = 1.
    out.append(Sample("broadcast", cls(input_tensor=td("UINT8", [2, 3], [0, 0]), output_tensor=td("UINT8", [2, 3])),
                      {"InputTensor": ew.int_array([0], "UINT8")},
                      {"OutputTensor": ew.int_array([[1, 1, 1], [1, 1, 1]], "UINT8")}, atol=0, rtol=0, why=why))
    return out


SAMPLES = _samples()
