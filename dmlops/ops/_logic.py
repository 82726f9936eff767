"""Shared pieces of the predicate and logic operators: ELEMENT_WISE_LOGICAL_* (the five comparisons and AND, OR,
XOR, NOT), ELEMENT_WISE_IS_NAN, ELEMENT_WISE_IS_INFINITY and ELEMENT_WISE_IF.

* Results are 1 and 0 stored in the OutputTensor's DataType (UINT8 or UINT32; DirectML has no bool type), so every
  lowering ends in a conversion from bool to that type (ONNX comparison and logic ops return bool).
* Logic is logical, not bitwise: any nonzero input is true (DirectML's vectors: LOGICAL_XOR uint8_3x4x5 gives
  2 XOR 1 = 0; LOGICAL_AND gives 2 AND 2 = 1; LOGICAL_NOT uint32_3x4x5 gives NOT 4294967295 = 0).
* Comparisons are IEEE: NaN compares false (EQUALS NaN NaN = 0), +0 == -0, ±inf are ordered (the vectors'
  float32_2x3x4x5 / float16_3x4x5 cases of every comparison). FLOAT16 inputs reach these functions as float32
  (dmlops.lower), which orders them the same way.
* Unsigned order must be unsigned: UINT64 values at or above 2**63 and UINT32 values at or above 2**31 compare above
  the smaller ones, which int64 bits or a signed 32-bit read would not.

The operators differ only in a function: the tables below hold it once for NumPy, ONNX and torch, and the op
modules import these lowerings (they look their function up by ``desc.OPERATOR_TYPE``).

Backend gaps handled here:
* ONNX Runtime's CPU provider registered comparison kernels for fewer integer types than the DirectML provider in
  older releases (the project allows 1.17 on); integers are compared in int32 / int64 (exact widenings; UINT64 as
  int64 bits through the order-preserving ``x ^ 2**63``). Its Where turns a selected -0 into +0, so ELEMENT_WISE_IF
  selects by data movement (:func:`onnx_where`). A nonzero test of an unsigned value is ONNX ``Cast(to=bool)``: the
  DirectML provider lowers it to CAST to UINT8 (saturating) and a [0, 1] CLIP, which is ``x != 0`` for unsigned
  types.
* torch has no comparison kernels for uint16/uint32/uint64 (ew.torch_ordered maps them to int64) and no
  isposinf/isneginf on torch-directml (``x == ±inf`` instead).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _elementwise as ew

# operator -> (NumPy function, ONNX op, torch function): the comparisons of two tensors of one DataType.
COMPARISONS = {
    "ELEMENT_WISE_LOGICAL_EQUALS": (np.equal, "Equal", "eq"),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN": (np.greater, "Greater", "gt"),
    "ELEMENT_WISE_LOGICAL_LESS_THAN": (np.less, "Less", "lt"),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL": (np.greater_equal, "GreaterOrEqual", "ge"),
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL": (np.less_equal, "LessOrEqual", "le"),
}
# operator -> (NumPy function, ONNX op, torch function): the binary logic of two truth values.
LOGIC = {
    "ELEMENT_WISE_LOGICAL_AND": (np.logical_and, "And", "logical_and"),
    "ELEMENT_WISE_LOGICAL_OR": (np.logical_or, "Or", "logical_or"),
    "ELEMENT_WISE_LOGICAL_XOR": (np.logical_xor, "Xor", "logical_xor"),
}

# The dtype ONNX Runtime's CPU provider compares a value in (missing: the value's own dtype).
_ONNX_WIDER = {np.dtype(t): np.dtype(w) for t, w in (("int8", "int32"), ("int16", "int32"), ("uint8", "int32"),
                                                     ("uint16", "int32"), ("uint32", "int64"))}
_INT64_MIN = -(2**63)


def output_dtype(desc) -> np.dtype:
    """The NumPy dtype of the OutputTensor (UINT8 or UINT32 for the predicates)."""
    return desc.output_tensor.data_type.numpy_dtype


# ----------------------------------------------------------------------------------------------- NumPy
def _store(desc, truth: np.ndarray) -> dict:
    return {"OutputTensor": np.asarray(truth).astype(output_dtype(desc))}


def compare_reference(desc, x):
    """The comparison of ATensor and BTensor (IEEE for floats, exact for every integer type), as 1/0."""
    fn = COMPARISONS[desc.OPERATOR_TYPE][0]
    with np.errstate(invalid="ignore"):
        return _store(desc, fn(x["ATensor"], x["BTensor"]))


def logic_reference(desc, x):
    """AND / OR / XOR of ATensor != 0 and BTensor != 0, as 1/0."""
    fn = LOGIC[desc.OPERATOR_TYPE][0]
    return _store(desc, fn(x["ATensor"] != 0, x["BTensor"] != 0))


# ----------------------------------------------------------------------------------------------- ONNX
def onnx_store(desc, g, truth: str) -> dict:
    """A bool value cast to the OutputTensor's DataType (1/0)."""
    return {"OutputTensor": g.cast(truth, output_dtype(desc))}


def onnx_truth(g, v: str) -> str:
    """``v != 0`` for an unsigned value, as bool (see the module docstring)."""
    return g.cast(v, np.bool_)


def onnx_comparable(g, v: str) -> str:
    """``v`` in a dtype every ONNX Runtime CPU release compares, with the same order (exact)."""
    dtype = g.dtype(v)
    if dtype == np.uint64:  # the same bits as int64, the top bit flipped: unsigned order as signed order
        return g.node("BitwiseXor", [g.cast(v, np.int64), ew.onnx_const(g, _INT64_MIN, np.int64)])
    wider = _ONNX_WIDER.get(dtype)
    return v if wider is None else g.cast(v, wider)


def compare_onnx(desc, g, x):
    """ONNX Equal / Greater / Less / GreaterOrEqual / LessOrEqual, then Cast to the output type."""
    op = COMPARISONS[desc.OPERATOR_TYPE][1]
    a, b = onnx_comparable(g, x["ATensor"]), onnx_comparable(g, x["BTensor"])
    return onnx_store(desc, g, g.node(op, [a, b], dtype=np.bool_))


def logic_onnx(desc, g, x):
    """ONNX And / Or / Xor of the inputs cast to bool, then Cast to the output type."""
    op = LOGIC[desc.OPERATOR_TYPE][1]
    truth = g.node(op, [onnx_truth(g, x["ATensor"]), onnx_truth(g, x["BTensor"])], dtype=np.bool_)
    return onnx_store(desc, g, truth)


def onnx_where(g, keep: str, a: str, b: str) -> str:
    """``keep ? a : b`` bit for bit, as data movement: GatherElements picks A (index 0) or B (index 1) from the two
    stacked along a new leading axis.

    Not ONNX Where: ONNX Runtime's CPU Where returns +0 where it selects a -0 from its X input (1.32, float32 and
    float64: Where(true, -0, y) = +0), and it has no kernel for int16, uint16 or uint64. GatherElements, Concat,
    Unsqueeze and Squeeze copy elements whatever their type, on the CPU and DirectML providers alike."""
    axis0 = g.ints([0])
    stacked = g.node("Concat", [g.node("Unsqueeze", [a, axis0]), g.node("Unsqueeze", [b, axis0])], axis=0)
    index = g.node("Unsqueeze", [g.cast(g.node("Not", [keep], dtype=np.bool_), np.int64), axis0])
    return g.node("Squeeze", [g.node("GatherElements", [stacked, index], axis=0), axis0])


# ----------------------------------------------------------------------------------------------- torch
def torch_store(desc, torch, truth) -> dict:
    """A bool tensor as the OutputTensor's DataType (1/0)."""
    from ..backends.torch_dtypes import torch_dtype

    return {"OutputTensor": truth.to(torch_dtype(torch, desc.output_tensor.data_type))}


def compare_torch(desc, torch, x):
    """torch.eq / gt / lt / ge / le (uint16/uint32/uint64 through ew.torch_ordered), then to the output type."""
    fn = getattr(torch, COMPARISONS[desc.OPERATOR_TYPE][2])
    a, _ = ew.torch_ordered(torch, x["ATensor"])
    b, _ = ew.torch_ordered(torch, x["BTensor"])
    return torch_store(desc, torch, fn(a, b))


def logic_torch(desc, torch, x):
    """torch.logical_and / or / xor of the inputs as bool (nonzero is true), then to the output type."""
    fn = getattr(torch, LOGIC[desc.OPERATOR_TYPE][2])
    return torch_store(desc, torch, fn(x["ATensor"].to(torch.bool), x["BTensor"].to(torch.bool)))


# ----------------------------------------------------------------------------------------------- samples
INF, NAN = np.inf, np.nan

# Float operands covering the IEEE rules: NaN on either side and on both, +0 vs -0, ±inf, equal and ordered values.
FLOAT_A = [NAN, NAN, 1.0, 0.0, -0.0, np.inf, -np.inf, np.inf, 2.5, -3.0, 1.0, 7.0]
FLOAT_B = [NAN, 1.0, NAN, -0.0, 0.0, np.inf, -np.inf, 3e38, 2.5, -2.0, 1.0000001, -7.0]
# Integer operands (every type holds them) and the extremes of the unsigned types, where a signed read would flip.
INT_A = [0, 5, 3, 7, 100, 1]
INT_B = [0, 3, 5, 7, 99, 2]
SIGNED_A = [-1, -128, 127, -5, 0, 4]
SIGNED_B = [1, 127, -128, -5, -0, -4]
UNSIGNED_LARGE = {
    "UINT64": ([2**64 - 1, 1, 2**63, 0, 2**63, 5], [2**63, 2**63, 2**63 - 1, 2**64 - 1, 2**63, 5]),
    "UINT32": ([2**32 - 1, 1, 2**31, 0, 2**31, 5], [2**31, 2**31, 2**31 - 1, 2**32 - 1, 2**31, 5]),
    "UINT16": ([2**16 - 1, 1, 2**15, 0, 2**15, 5], [2**15, 2**15, 2**15 - 1, 2**16 - 1, 2**15, 5]),
    "UINT8": ([255, 1, 128, 0, 128, 5], [128, 128, 127, 255, 128, 5]),
}


def comparison_samples(cls, expect) -> list[Sample]:
    """The SAMPLES of a comparison operator; ``expect(a, b) -> bool`` is the operator written out in Python, used to
    spell out each expected 1/0 (a hand statement of the rule, not the lowering's NumPy call)."""

    def bits(a, b):
        return [1 if expect(x, y) else 0 for x, y in zip(a, b)]

    def desc(t, out, n, strides_b=None):
        return cls(a_tensor=td(t, [n]), b_tensor=td(t, [n], strides_b), output_tensor=td(out, [n]))

    why = "a comparison: exact"
    out = [
        # FLOAT16 variant derived from this one: every value here is a float16 value.
        Sample("float32_uint32_output", cls(a_tensor=td("FLOAT32", [2, 3]), b_tensor=td("FLOAT32", [2, 3]),
                                            output_tensor=td("UINT32", [2, 3])),
               {"ATensor": np.array([[1, -2, 0.5], [NAN, -0.0, 4]], np.float32),
                "BTensor": np.array([[1, 2, 0.25], [NAN, 0.0, -INF]], np.float32)},
               {"OutputTensor": np.array([bits([1, -2, 0.5], [1, 2, 0.25]), bits([NAN, -0.0, 4], [NAN, 0.0, -INF])],
                                         np.uint32)}, atol=0, rtol=0, why=why, float16_atol=0, float16_rtol=0),
        # B = [0, 1] per row through zero strides: each row compared with one value.
        Sample("broadcast_b", cls(a_tensor=td("FLOAT32", [2, 3]), b_tensor=td("FLOAT32", [2, 3], [1, 0]),
                                  output_tensor=td("UINT8", [2, 3])),
               {"ATensor": np.array([[-1, 0, 1], [0, 1, 2]], np.float32), "BTensor": np.array([0, 1], np.float32)},
               {"OutputTensor": np.array([bits([-1, 0, 1], [0] * 3), bits([0, 1, 2], [1] * 3)], np.uint8)},
               atol=0, rtol=0, why=why, float16_atol=0, float16_rtol=0),
    ]
    for t in ew.INTEGERS:
        out.append(Sample(f"int_{t.lower()}", desc(t, "UINT8", len(INT_A)),
                          {"ATensor": ew.int_array(INT_A, t), "BTensor": ew.int_array(INT_B, t)},
                          {"OutputTensor": np.array(bits(INT_A, INT_B), np.uint8)}, atol=0, rtol=0, why=why))
    for t in ew.SIGNED:
        a, b = SIGNED_A, SIGNED_B
        out.append(Sample(f"signed_{t.lower()}", desc(t, "UINT32", len(a)),
                          {"ATensor": ew.int_array(a, t), "BTensor": ew.int_array(b, t)},
                          {"OutputTensor": np.array(bits(a, b), np.uint32)}, atol=0, rtol=0, why=why))
    for t, (a, b) in UNSIGNED_LARGE.items():
        out.append(Sample(f"unsigned_large_{t.lower()}", desc(t, "UINT8", len(a)),
                          {"ATensor": ew.int_array(a, t), "BTensor": ew.int_array(b, t)},
                          {"OutputTensor": np.array(bits(a, b), np.uint8)}, atol=0, rtol=0, why=why))
    return out


# Logic operands: 0, 1 and other nonzero values (2, the type's maximum), every pair.
LOGIC_A = [0, 0, 1, 1, 2, 2, 0, 255, 1, 7]
LOGIC_B = [0, 1, 0, 1, 1, 0, 2, 255, 2, 0]


def logic_samples(cls, expect) -> list[Sample]:
    """The SAMPLES of AND / OR / XOR; ``expect(p, q) -> bool`` is the rule on truth values (nonzero = true)."""
    why = "logic on 0/1: exact"
    out = []
    for t in ("UINT8", "UINT32"):
        top = ew.int_range(t.lower())[1]
        a = [top if v == 255 else v for v in LOGIC_A]
        b = [top if v == 255 else v for v in LOGIC_B]
        want = [1 if expect(x != 0, y != 0) else 0 for x, y in zip(a, b)]
        shape = [2, len(a) // 2]
        out.append(Sample(f"{t.lower()}_nonzero_is_true",
                          cls(a_tensor=td(t, shape), b_tensor=td(t, shape), output_tensor=td(t, shape)),
                          {"ATensor": ew.int_array(a, t).reshape(shape), "BTensor": ew.int_array(b, t).reshape(shape)},
                          {"OutputTensor": ew.int_array(want, t).reshape(shape)}, atol=0, rtol=0, why=why))
    # B = [1, 0] per row through zero strides: row 0 is rule(a, true), row 1 rule(a, false), for a = 0, 1, 3.
    row0 = [int(expect(p, True)) for p in (False, True, True)]
    row1 = [int(expect(p, False)) for p in (False, True, True)]
    out.append(Sample("broadcast_b", cls(a_tensor=td("UINT8", [2, 3]), b_tensor=td("UINT8", [2, 3], [1, 0]),
                                         output_tensor=td("UINT8", [2, 3])),
                      {"ATensor": ew.int_array([[0, 1, 3], [0, 1, 3]], "UINT8"),
                       "BTensor": ew.int_array([1, 0], "UINT8")},
                      {"OutputTensor": ew.int_array([row0, row1], "UINT8")}, atol=0, rtol=0, why=why))
    return out
