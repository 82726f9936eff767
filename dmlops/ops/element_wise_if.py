"""DML_OPERATOR_ELEMENT_WISE_IF: f(c, a, b) = c != 0 ? a : b.

ConditionTensor is UINT8 and any nonzero value selects A (DirectML's vectors: float32 / float16 / int32 / uint8 give
A for conditions 1, 2, 7 and 255). A, B and OutputTensor share one DataType (every type from
DML_FEATURE_LEVEL_5_0); all four have equal Sizes, zero strides broadcast. A select: values are copied bit for bit
(NaN payloads, -0). torch.where needs a bool condition, so the condition is tested for nonzero first. The ONNX
lowering is not Where (ONNX Runtime's CPU Where turns a selected -0 into +0) but GatherElements over A and B
stacked (dmlops.ops._logic.onnx_where). FLOAT16 values pass through float32 (dmlops.lower), which keeps every value
but quiets a signaling NaN on the ONNX Runtime and torch backends (0x7C01 -> 0x7E01); the NumPy reference keeps it.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew
from . import _logic

NAN, INF = np.nan, np.inf


def reference(desc, x):
    """np.where(c != 0, a, b)."""
    return {"OutputTensor": np.where(x["ConditionTensor"] != 0, x["ATensor"], x["BTensor"])}


def to_onnx(desc, g, x):
    """A or B picked by GatherElements with index Cast(c, bool) ? 0 : 1 (_logic.onnx_where)."""
    keep = _logic.onnx_truth(g, x["ConditionTensor"])
    return {"OutputTensor": _logic.onnx_where(g, keep, x["ATensor"], x["BTensor"])}


def to_torch(desc, torch, x):
    """torch.where(c != 0, a, b) (uint16/uint32/uint64 through ew.torch_bits: the same bits)."""
    a, back = ew.torch_bits(torch, x["ATensor"])
    b, _ = ew.torch_bits(torch, x["BTensor"])
    return {"OutputTensor": back(torch.where(x["ConditionTensor"].to(torch.bool), a, b))}


def _samples():
    from ..descs import ElementWiseIf as cls

    def make(t, sizes, strides_c=None, strides_a=None, strides_b=None):
        return cls(condition_tensor=td("UINT8", sizes, strides_c), a_tensor=td(t, sizes, strides_a),
                   b_tensor=td(t, sizes, strides_b), output_tensor=td(t, sizes))

    why = "a select: exact"
    cond = np.array([[1, 0, 2], [255, 0, 7]], np.uint8)
    # By hand: A where the condition is nonzero (1, 2, 255, 7), else B.
    out = [
        Sample("basic", make("FLOAT32", [2, 3]),
               {"ConditionTensor": cond, "ATensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32),
                "BTensor": np.array([[-1, -2, -3], [-4, -5, -6]], np.float32)},
               {"OutputTensor": np.array([[1, -2, 3], [4, -5, 6]], np.float32)}, atol=0, rtol=0, why=why,
               float16_atol=0, float16_rtol=0),
        # NaN, -0 and ±inf are copied, never compared or computed.
        Sample("specials", make("FLOAT32", [2, 3]),
               {"ConditionTensor": cond, "ATensor": np.array([[NAN, 1, -0.0], [INF, 1, -INF]], np.float32),
                "BTensor": np.array([[0, -0.0, 0], [0, NAN, 0]], np.float32)},
               {"OutputTensor": np.array([[NAN, -0.0, -0.0], [INF, NAN, -INF]], np.float32)}, atol=0, rtol=0,
               why=why, float16_atol=0, float16_rtol=0),
        # A column of A per row, and B one value, through zero strides: c ? [10, 20][row] : 0.5.
        Sample("broadcast", make("FLOAT32", [2, 3], strides_a=[1, 0], strides_b=[0, 0]),
               {"ConditionTensor": cond, "ATensor": np.array([10, 20], np.float32),
                "BTensor": np.array([0.5], np.float32)},
               {"OutputTensor": np.array([[10, 0.5, 10], [20, 0.5, 20]], np.float32)}, atol=0, rtol=0, why=why,
               float16_atol=0, float16_rtol=0),
        Sample("float64", make("FLOAT64", [2, 3]),
               {"ConditionTensor": cond, "ATensor": np.array([[1 + 2**-40, 2, NAN], [4, 5, 1e300]], np.float64),
                "BTensor": np.array([[-1, -1e-300, -3], [-4, -0.0, -6]], np.float64)},
               {"OutputTensor": np.array([[1 + 2**-40, -1e-300, NAN], [4, -0.0, 1e300]], np.float64)}, atol=0,
               rtol=0, why=why),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(t.lower())
        out.append(Sample(f"int_{t.lower()}", make(t, [2, 3]),
                          {"ConditionTensor": cond, "ATensor": ew.int_array([[hi, 1, lo], [hi - 1, 2, 3]], t),
                           "BTensor": ew.int_array([[lo, hi, 0], [5, lo, hi]], t)},
                          {"OutputTensor": ew.int_array([[hi, hi, lo], [hi - 1, lo, 3]], t)}, atol=0, rtol=0,
                          why=why))
    return out


SAMPLES = _samples()
