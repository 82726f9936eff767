"""DML_OPERATOR_ELEMENT_WISE_DIVIDE: f(a, b) = a / b; "for integer divisions, the result is truncated".

Truncation is toward zero (-7 / 2 = -3), as in C, ONNX Runtime and torch's rounding_mode="trunc"; NumPy's //
floors, so the reference corrects it. Integer division by zero gives DirectML's answer (DirectML's vectors:
edge_int32_divide_truncation_and_by_zero gives 5 / 0 = -1): the quotient of the magnitudes is all ones, negated
when the signs differ, so x / 0 is -1 for x >= 0 and 1 for x < 0 in signed types and the type's maximum in
unsigned ones (only 5 / 0 is measured); INT_MIN / -1 wraps to INT_MIN. ONNX Runtime raises on a zero divisor
and torch too, so both lowerings divide by a guarded divisor and select DirectML's answer (ew.truncating_divide).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample
from . import _elementwise as ew


def reference(desc, x):
    """a / b in float64 for floats; truncated toward zero for integers."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype.kind == "f":
        return {"OutputTensor": ew.binary_reference(a, b, np.divide)}
    return {"OutputTensor": ew.truncating_divide(a, b)}


def to_onnx(desc, g, x):
    """ONNX Div (integer Div truncates toward zero in ONNX Runtime; zero and -1 divisors guarded)."""
    a, b = x["ATensor"], x["BTensor"]
    if g.dtype(a).kind == "f":
        return {"OutputTensor": g.node("Div", [a, b])}
    return {"OutputTensor": ew.onnx_integer_divide(g, a, b)}


def to_torch(desc, torch, x):
    """torch.div (rounding_mode="trunc" for integers, by a guarded divisor: torch raises on zero); uint64 by a
    shift-and-correct division on int64 bits."""
    a, b = x["ATensor"], x["BTensor"]
    if a.dtype.is_floating_point:
        return {"OutputTensor": torch.div(a, b)}
    if a.dtype == torch.uint64:
        zero = b.view(torch.int64) == 0
        one = torch.ones((), dtype=torch.int64, device=b.device)
        safe = torch.where(zero, one, b.view(torch.int64)).view(torch.uint64)
        q = ew.torch_unsigned_divide64(torch, a, safe).view(torch.int64)
        return {"OutputTensor": torch.where(zero, -one, q).view(torch.uint64)}  # all ones: 2**64 - 1
    (wa, back), (wb, _) = ew.torch_bits(torch, a), ew.torch_bits(torch, b)
    zero = wb == 0
    signed = desc.a_tensor.data_type.numpy_dtype.kind == "i"  # a UINT16 arrives in int32 on torch-directml
    bad = zero | (wb == -1) if signed else zero
    q = torch.div(wa, torch.where(bad, torch.ones_like(wb), wb), rounding_mode="trunc")
    if signed:
        q = torch.where(wb == -1, -wa, q)  # -INT_MIN wraps to INT_MIN
        fill = torch.where(wa < 0, torch.ones_like(wa), -torch.ones_like(wa))
    else:
        hi = ew.int_range(desc.a_tensor.data_type.numpy_dtype)[1]
        fill = torch.full_like(wa, hi)
    return {"OutputTensor": back(torch.where(zero, fill, q))}


def _samples():
    from ..descs import ElementWiseDivide as cls

    def make(t):
        return ew.binary_desc(cls, t, [5])

    return [
        # 1 / 0.5, 2 / -2, 3 / 4, 4 / 8, 5 / -5, 6 / 0: exact (the last is +inf).
        Sample("basic", ew.binary_desc(cls, "FLOAT32", [2, 3]),
               {"ATensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32),
                "BTensor": np.array([[0.5, -2, 4], [8, -5, 0]], np.float32)},
               {"OutputTensor": np.array([[2, -1, 0.75], [0.5, -1, np.inf]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        # B is one column [2, 4] through strides [1, 0]: row 0 halves, row 1 quarters.
        Sample("broadcast_column", ew.binary_desc(cls, "FLOAT32", [2, 3], strides_b=[1, 0]),
               {"ATensor": np.array([[1, 2, 3], [4, 5, 6]], np.float32), "BTensor": np.array([2, 4], np.float32)},
               {"OutputTensor": np.array([[0.5, 1, 1.5], [1, 1.25, 1.5]], np.float32)},
               atol=0, rtol=0, why="exact", float16_atol=0, float16_rtol=0),
        Sample("specials", make("FLOAT32"),
               {"ATensor": np.array([0, -1, np.inf, 1, 1], np.float32),
                "BTensor": np.array([0, 0, np.inf, -np.inf, 3], np.float32)},
               {"OutputTensor": np.array([np.nan, -np.inf, np.nan, -0.0, 1 / 3], np.float32)},
               atol=0, rtol=1e-7, why="IEEE division, correctly rounded"),
    ] + ew.integer_samples(make, ew.SIGNED, {"ATensor": [7, -7, 7, -7, 100], "BTensor": [2, 2, -2, -2, 7]},
                           {"OutputTensor": [3, -3, -3, 3, 14]}, why="truncated toward zero: exact") + \
        ew.integer_samples(make, ew.UNSIGNED, {"ATensor": [7, 9, 100, 0, 255], "BTensor": [2, 3, 7, 5, 255]},
                           {"OutputTensor": [3, 3, 14, 0, 1]}, why="truncated: exact") + [
        # By hand: (2**64 - 1) / 2**63 = 1.99.. -> 1; (2**64 - 1) / 3 = 6148914691236517205 exactly;
        # 10 / (2**64 - 1) -> 0; (2**63 + 5) / 2 = 2**62 + 2.5 -> 2**62 + 2; 2**63 / 2**63 = 1.
        Sample("uint64_large", make("UINT64"),
               {"ATensor": ew.int_array([2**64 - 1, 2**64 - 1, 10, 2**63 + 5, 2**63], "UINT64"),
                "BTensor": ew.int_array([2**63, 3, 2**64 - 1, 2, 2**63], "UINT64")},
               {"OutputTensor": ew.int_array([1, 6148914691236517205, 0, 2**62 + 2, 1], "UINT64")},
               atol=0, rtol=0, why="exact"),
    ]


SAMPLES = _samples()
