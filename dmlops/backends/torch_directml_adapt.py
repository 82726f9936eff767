"""Descriptors torch-directml cannot run as they are, rewritten into equivalent ones it can (issue 23 item 6).

torch-directml computes integers, int64 ones included, in 32 bits, has no unsigned 16-, 32- or 64-bit tensors and
was measured with tensors of up to 6 dimensions (torch_directml_ops). For a one-operator graph on a ``dml`` device,
:func:`adapt` rewrites the operator into a graph of operators that need none of that, with the same results
element for element; the torch backend runs that graph and converts at the boundary (:class:`Adapted`). Nothing
is computed on the host: the boundary only re-encodes input and output values (carriers), as
torch_directml_ops.carry does.

* **Lanes** (64-bit data of operators that only move elements, or compute bit by bit): an INT64 / UINT64 tensor (or
  a FLOAT64 one, whose bits are only moved: nothing computes in float64) travels as two int32 tensors, its low and high 32 bits (split and joined on the host: ``lo``, ``hi``); the
  operator runs once per half as the same operator on INT32 tensors (index tensors feed both), with a typed
  attribute (PaddingValue, Value) split likewise. Exact because each output element of these operators is one
  input element (or the attribute, or 0) chosen by indices alone, or a bit operation of input elements, so its
  low and high halves are those of what it is made from.
* **Order** (UINT32 data of operators that only compare and select it): ``x ^ 0x80000000`` maps uint32's order onto
  int32's (0 -> -2**31, 2**32 - 1 -> 2**31 - 1), one to one, so the same operator on INT32 tensors of the flipped
  bits compares exactly as DirectML compares the uint32 values; the values it selects are flipped back. The flip
  is an int32 XOR on the device.
* **Pairs** (64-bit data of operators that compute on it: ADD, SUBTRACT, MULTIPLY, NEGATE, ABS, SIGN, MAX, MIN,
  the comparisons, CLIP / CLIP_GRAD (and their 1 versions), BIT_COUNT, BIT_SHIFT_LEFT / RIGHT, DIVIDE,
  MODULUS_TRUNCATE / FLOOR, CAST (from and to 64 bits, FLOAT64 to FLOAT32 / FLOAT16 from its bits), RANDOM_GENERATOR's
  Philox, CUMULATIVE_SUMMATION / PRODUCT, REDUCE, ARGMAX / ARGMIN, TOP_K, FOLD, MAX_POOLING): the values travel in
  lanes as above, and the operator is computed on the (low, high) int32 pairs with 32-bit operations whose results
  are exact (:class:`_Pairs` and the function of each operator below state each rule), on the device.
* **Rank** (tensors of more than 6 dimensions, packed): the operator as one or more operators on at most 6
  dimensions, axes merged where the operator treats them alike (each rule is in its function below), the
  inputs and outputs reshaped on the host (a view of the same values, NumPy inputs and outputs only: a torch
  tensor of more than 6 dimensions cannot be on the device).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import DmlOpsError, UnsupportedValue
from ..graph import GraphDesc, InputEdge, IntermediateEdge, OutputEdge, slots
from ..types import DataType, TensorDesc
from .torch_directml_ops import MAX_RANK, _index_field

INT32 = DataType.INT32
WIDE = ("INT64", "UINT64")

# Each output element is one input element picked by indices alone (or an attribute, or 0), or a bit operation of
# input elements in the same position: exact on each 32-bit half (module docstring).
LANE_OPS = frozenset({
    "SLICE", "SLICE1", "SLICE_GRAD", "JOIN", "SPLIT", "TILE", "PADDING", "PADDING1", "DEPTH_TO_SPACE",
    "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1", "GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1",
    "SCATTER_ELEMENTS", "SCATTER_ND", "REVERSE_SUBSEQUENCES", "ELEMENT_WISE_IF", "MAX_UNPOOLING", "UNFOLD",
    "ONE_HOT", "ELEMENT_WISE_IDENTITY", "DIAGONAL_MATRIX1", "ELEMENT_WISE_BIT_AND", "ELEMENT_WISE_BIT_OR",
    "ELEMENT_WISE_BIT_XOR", "ELEMENT_WISE_BIT_NOT"})
# Operators whose data values are only compared with each other and selected (outputs: the selected values,
# booleans or indices): exact on order-preserving re-encodings of the values.
ORDER_OPS = frozenset({
    "ELEMENT_WISE_MAX", "ELEMENT_WISE_MIN", "ELEMENT_WISE_LOGICAL_GREATER_THAN",
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", "ELEMENT_WISE_LOGICAL_LESS_THAN",
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "TOP_K", "TOP_K1", "ARGMAX", "ARGMIN", "REDUCE"})
_ORDER_REDUCTIONS = ("MIN", "MAX", "ARGMIN", "ARGMAX")
# Element-wise operators whose tensors all have the same Sizes: any arrangement of the elements gives the same
# element-wise results, so a packed 7- or 8-D one runs on its flattened 1-D view. (Softmax-like activations
# compute across an axis: not these.)
_ACROSS_AXES = frozenset({"ACTIVATION_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX",
                          "ACTIVATION_LOG_SOFTMAX1", "ACTIVATION_HARDMAX", "ACTIVATION_HARDMAX1"})


@dataclass(frozen=True)
class Adaptation:
    """A one-operator graph rewritten for torch-directml. ``graph``: the operators that run (every tensor at most
    6-D, no 64-bit data); ``inputs``: per original input, ``(kind, derived input)`` for each derived input it feeds
    (``as``: the values themselves, re-typed from UINT32 to INT32 bits and reshaped where the derived tensor says
    so; ``lo`` / ``hi``: the low / high 32 bits of 64-bit values); ``outputs``: per original output, ``("as",
    (j,))`` or ``("pair", (lo, hi))``; ``flip_inputs`` / ``flip_outputs``: derived inputs and outputs XORed with
    0x80000000 on the device (order); ``rank``: inputs and outputs are reshaped (torch tensors cannot be);
    ``kind``: "lanes", "order" or "rank"."""

    graph: GraphDesc
    inputs: tuple[tuple[tuple[str, int], ...], ...]
    outputs: tuple[tuple[str, tuple[int, ...]], ...]
    flip_inputs: frozenset = frozenset()
    flip_outputs: frozenset = frozenset()
    rank: bool = False
    kind: str = ""
    # "pairs": the derived inputs' and outputs' TensorDescs, and the function of torch and the derived inputs (int32
    # lanes, logical) that computes the derived outputs; ``graph`` is then the original one.
    derived_in: tuple = ()
    derived_out: tuple = ()
    compute: Any = None


def _retyped(td: TensorDesc, data_type=INT32) -> TensorDesc:
    """``td`` as another DataType of the same element count in its buffer (Sizes and Strides kept)."""
    from .. import tensors

    elements = tensors.buffer_elements(td)
    bits = DataType.parse(data_type, "DataType").size_in_bits
    total = None if td.total_tensor_size_in_bytes == td.minimum_size_in_bytes else (elements * bits + 31) // 32 * 4
    return TensorDesc(data_type, td.sizes, td.strides, td.flags, total, td.guaranteed_base_offset_alignment)


def _packed(td: TensorDesc, sizes) -> TensorDesc:
    return TensorDesc(td.data_type, [int(s) for s in sizes], None, td.flags)


def _present(desc, kind: str) -> list[tuple[str, TensorDesc]]:
    return [(n, td) for n, td in slots(desc, kind) if td is not None]


def _single(graph) -> bool:
    return len(graph.nodes) == 1 and not graph.intermediate_edges


def adapt(graph) -> Adaptation | None:
    """The rewrite of a one-operator ``graph`` torch-directml needs (module docstring), or None when none applies."""
    if not _single(graph):
        return None
    node = graph.nodes[0]
    tds = [td for kind in ("input", "output") for _, td in _present(node, kind)]
    if any(td.dimension_count > MAX_RANK for td in tds):
        return _rank(graph, node)
    if getattr(node, "scale_bias", None) is not None or getattr(node, "fused_activation", None) is not None:
        return None
    op = node.OPERATOR_TYPE
    packed_outputs = not any(_strided(td) for _, td in _present(node, "output"))
    if op == "CAST":
        src, dst = node.input_tensor.data_type.name, node.output_tensor.data_type.name
        if src in WIDE and dst in WIDE:  # a 64-bit register read with the other signedness: the same bits
            return _lanes(graph, node)
        if (dst in WIDE and src != "FLOAT64" or src in WIDE and dst != "FLOAT64"
                or src == "FLOAT64" and dst in ("FLOAT32", "FLOAT16")) and packed_outputs:
            return _pairs(graph, node)
        return None
    if op == "RANDOM_GENERATOR":
        return _pairs(graph, node) if packed_outputs and node.output_tensor.element_count < 2**33 else None
    if op in LANE_OPS and any(_wide_data(node, n, td) for kind in ("input", "output") for n, td in
                              _present(node, kind)):
        return _lanes(graph, node)
    if op in PAIR_OPS and all(td.data_type.name in WIDE for _, td in _present(node, "input")) and packed_outputs:
        return _pairs(graph, node)
    if op in UINT32_PAIR_OPS and packed_outputs and all(td.data_type.name == "UINT32" for kind in ("input", "output")
                                                        for _, td in _present(node, kind)):
        return _pairs(graph, node)
    if (op in SELECT_OPS or op == "REDUCE" and node.function.name in _ORDER_REDUCTIONS + _ACCUMULATING_REDUCTIONS
            or op in ACCUMULATING_OPS) and packed_outputs and node.input_tensor.data_type.name in WIDE:
        if op.startswith("MAX_POOLING"):
            from ..ops import _pooling as P

            if not P.sliced(node):  # windows past 256 elements: the gather-table path, not rewritten
                return None
        return _pairs(graph, node)
    if op in ORDER_OPS and (op != "REDUCE" or node.function.name in _ORDER_REDUCTIONS) and any(
            td.data_type.name == "UINT32" and not _index_field(node, n) for n, td in _present(node, "input")):
        return _order(graph, node)
    return None


# ----------------------------------------------------------------------------------------------- lanes
def _wide_data(node, name: str, td) -> bool:
    """Whether ``node``'s tensor ``name`` is 64-bit data that lanes carry (FLOAT64 too: lanes move its bits and
    compute nothing in float64)."""
    return td.data_type.name in WIDE + ("FLOAT64",) and not _index_field(node, name)


def _bits64(value) -> int:
    """The 64 bits of a 0-d INT64 / UINT64 / FLOAT64 array, as an int."""
    return int(np.asarray(value).reshape(1).view(np.uint64)[0])


def _halves(value: int) -> tuple[int, int]:
    """A 64-bit attribute's low and high 32 bits, each as a signed int32 value."""
    bits = int(value) % 2**64
    lo, hi = bits % 2**32, bits >> 32
    return lo - 2**32 * (lo >= 2**31), hi - 2**32 * (hi >= 2**31)


def _lane_desc(node, half: int):
    """``node`` with its 64-bit data tensors as INT32 and its typed attribute the ``half`` (0 low, 1 high) of its
    value."""
    changes: dict = {}
    for kind in ("input", "output"):
        for f in node.schema().fields:
            if f.kind != kind or not f.is_tensor:
                continue
            value = getattr(node, f.py_name)
            if isinstance(value, tuple):
                changes[f.py_name] = tuple(_retyped(t) if t is not None and _wide_data(node, f"{f.name}[{i}]", t)
                                           else t for i, t in enumerate(value))
            elif value is not None and _wide_data(node, f.name, value):
                changes[f.py_name] = _retyped(value)
    op = node.OPERATOR_TYPE
    data_type = node.output_tensor.data_type.name if getattr(node, "output_tensor", None) is not None else ""
    if op in ("PADDING", "PADDING1"):
        from ..descs import Padding1
        from ..ops import padding, padding1

        # The value the operator writes, in the output's type (PADDING: the FLOAT truncated and saturated for
        # integers, the float32 value for FLOAT64), as its bits.
        value = _bits64((padding if op == "PADDING" else padding1).value(node, np.dtype(data_type.lower())))
        return Padding1(input_tensor=changes["input_tensor"], output_tensor=changes["output_tensor"],
                        padding_mode=node.padding_mode, padding_value_data_type=INT32,
                        padding_value=_halves(value)[half], start_padding=node.start_padding,
                        end_padding=node.end_padding)
    if op == "DIAGONAL_MATRIX1":
        value = _bits64(np.asarray(node.value, dtype=node.value_data_type.numpy_dtype))
        changes.update(value_data_type=INT32, value=_halves(value)[half])
    return replace(node, **changes)


def _lanes(graph, node) -> Adaptation:
    """Two nodes (low and high halves) of ``node``; index and other tensors feed both."""
    ins = slots(node, "input")
    outs = slots(node, "output")
    lo, hi = _lane_desc(node, 0), _lane_desc(node, 1)
    input_edges, inputs, names = [], [], []
    by_graph_input: dict[int, int] = {e.graph_input_index: e.to_node_input_index for e in graph.input_edges}
    for g in range(graph.input_count):
        slot = by_graph_input[g]
        name, td = ins[slot]
        if _wide_data(node, name, td):
            kinds = []
            for k, part in enumerate(("lo", "hi")):
                names.append(f"{graph.input_names[g]}.{part}")
                input_edges.append(InputEdge(len(names) - 1, k, slot))
                kinds.append((part, len(names) - 1))
            inputs.append(tuple(kinds))
        else:
            names.append(graph.input_names[g])
            input_edges += [InputEdge(len(names) - 1, 0, slot), InputEdge(len(names) - 1, 1, slot)]
            inputs.append((("as", len(names) - 1),))
    output_edges, outputs, out_names = [], [], []
    for o in sorted(graph.output_edges, key=lambda e: e.graph_output_index):
        name, td = outs[o.from_node_output_index]
        if _wide_data(node, name, td):
            pair = []
            for k, part in enumerate(("lo", "hi")):
                out_names.append(f"{graph.output_names[o.graph_output_index]}.{part}")
                output_edges.append(OutputEdge(k, o.from_node_output_index, len(out_names) - 1))
                pair.append(len(out_names) - 1)
            outputs.append(("pair", tuple(pair)))
        else:
            out_names.append(graph.output_names[o.graph_output_index])
            output_edges.append(OutputEdge(0, o.from_node_output_index, len(out_names) - 1))
            outputs.append(("as", (len(out_names) - 1,)))
    derived = GraphDesc((lo, hi), tuple(input_edges), (), tuple(output_edges), tuple(names), tuple(out_names))
    return Adaptation(derived, tuple(inputs), tuple(outputs), kind="lanes")


# ----------------------------------------------------------------------------------------------- order
def _order(graph, node) -> Adaptation:
    """``node`` on INT32 tensors holding its UINT32 data XORed with 0x80000000 (module docstring)."""
    changes: dict = {}
    flipped: set[str] = set()
    for f in node.schema().fields:
        if not f.is_tensor or f.type == "TENSOR_DESC_ARRAY":
            continue
        td = getattr(node, f.py_name)
        if td is not None and td.data_type.name == "UINT32" and not _index_field(node, f.name):
            changes[f.py_name] = _retyped(td)
            flipped.add(f.name)
    derived = GraphDesc.single(replace(node, **changes))
    inputs = tuple((("as", i),) for i in range(graph.input_count))
    outputs = tuple(("as", (j,)) for j in range(graph.output_count))
    return Adaptation(derived, inputs, outputs,
                      frozenset(i for i, n in enumerate(derived.input_names) if n in flipped),
                      frozenset(j for j, n in enumerate(derived.output_names) if n in flipped), kind="order")


# ----------------------------------------------------------------------------------------------- pairs
# A 64-bit value v is the pair (lo, hi) of int32 tensors holding its low and high 32 bits: v = hi * 2**32 +
# (lo mod 2**32), hi read signed for INT64 and unsigned for UINT64. Every operation below is an int32 operation
# whose result is exact modulo 2**32 (add, multiply, bit operations, where, comparisons of int32 values), so each
# rule is the schoolbook one for two 32-bit digits:
#
# * unsigned order of int32 bits: x <u y  <=>  (x ^ 0x80000000) < (y ^ 0x80000000) (the flip maps 0 .. 2**32 - 1
#   onto -2**31 .. 2**31 - 1 in order);
# * a < b  <=>  hi_a < hi_b (signed for INT64, unsigned for UINT64), or hi_a == hi_b and lo_a <u lo_b;
# * a + b: lo = lo_a + lo_b (mod 2**32); the low digit carried iff lo <u lo_a; hi = hi_a + hi_b + carry (mod 2**32):
#   the sum modulo 2**64, which is DirectML's wrapping ADD;
# * -a = ~a + 1: lo = ~lo_a + 1, which carries into the high digit iff lo_a == 0 (then lo == 0): hi = ~hi_a + carry;
#   a - b = a + (-b) modulo 2**64;
# * a * b modulo 2**64 = lo_a * lo_b + (lo_a * hi_b + hi_a * lo_b) * 2**32: the cross terms only change hi (their
#   int32 products modulo 2**32 suffice), and lo_a * lo_b in full is the four products of 16-bit halves, each below
#   2**32 (an int32 product's bits), added as pairs: p00 + p01 * 2**16 + p10 * 2**16 + p11 * 2**32, where
#   p * 2**16 is the pair (p << 16, p >>> 16). Two's complement multiplication is the same modulo 2**64 for INT64;
# * x >>> k (logical, 0 <= k < 32) = (x >> k) & (2**(32 - k) - 1); x << k = x * 2**k modulo 2**32;
# * shifts of UINT64 by c (DirectML: the count's low 32 bits c; c < 32 shifts across the halves, any other count by
#   32 + c mod 32, as _bits.np_shift_count64 reads DirectML's vectors): left by k < 32: lo << k, (hi << k) | (lo >>> (32
#   - k)); by 32 + k: 0, lo << k; right mirrors it;
# * SIGN, ABS, MAX, MIN, CLIP, CLIP_GRAD and the comparisons select with these comparisons (bounds as pairs of
#   the attribute's value in the tensor's type); BIT_COUNT adds the two halves' counts.
PAIR_OPS = frozenset({
    "ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE",
    "ELEMENT_WISE_MODULUS_TRUNCATE", "ELEMENT_WISE_MODULUS_FLOOR", "ELEMENT_WISE_NEGATE", "ELEMENT_WISE_ABS",
    "ELEMENT_WISE_SIGN", "ELEMENT_WISE_MAX", "ELEMENT_WISE_MIN", "ELEMENT_WISE_LOGICAL_EQUALS",
    "ELEMENT_WISE_LOGICAL_GREATER_THAN", "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
    "ELEMENT_WISE_LOGICAL_LESS_THAN", "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "ELEMENT_WISE_CLIP",
    "ELEMENT_WISE_CLIP1", "ELEMENT_WISE_CLIP_GRAD", "ELEMENT_WISE_CLIP_GRAD1", "ELEMENT_WISE_BIT_COUNT",
    "ELEMENT_WISE_BIT_SHIFT_LEFT", "ELEMENT_WISE_BIT_SHIFT_RIGHT"})


def _strided(td: TensorDesc) -> bool:
    from .. import tensors

    return tensors.is_strided(td)


def _pairs(graph, node) -> Adaptation:
    """Each 64-bit input as (lo, hi) lanes, the operator computed on the pairs (``_pair_compute``)."""
    derived_in: list = []
    inputs: list = []
    for td in graph.input_descs():
        if td.data_type.name in WIDE + ("FLOAT64",):  # FLOAT64: CAST's input, its bits in lanes
            lane = _retyped(td)
            inputs.append((("lo", len(derived_in)), ("hi", len(derived_in) + 1)))
            derived_in += [lane, lane]
        else:  # CAST's narrower input, as it is (UINT16 / UINT32 in int32: zero-extended, bits)
            inputs.append((("as", len(derived_in)),))
            derived_in.append(_retyped(td) if td.data_type.name in ("UINT16", "UINT32") else td)
    derived_out: list = []
    outputs: list = []
    wide_out = tuple(td.data_type.name in WIDE and not _index_field(node, name)
                     for name, td in zip(graph.output_names, graph.output_descs()))
    for td, wide in zip(graph.output_descs(), wide_out):
        if wide:
            outputs.append(("pair", (len(derived_out), len(derived_out) + 1)))
            derived_out += [_retyped(td)] * 2
        else:  # booleans, counts, and index outputs in their carriers
            outputs.append(("as", (len(derived_out),)))
            derived_out.append(td)
    signed = graph.input_descs()[0].data_type.name == "INT64"
    compute = _PairCompute(node, signed, tuple(graph.input_names), tuple(graph.output_names), wide_out,
                           tuple(td.data_type.name in WIDE + ("FLOAT64",) for td in graph.input_descs()))
    return Adaptation(graph, tuple(inputs), tuple(outputs), kind="pairs", derived_in=tuple(derived_in),
                      derived_out=tuple(derived_out), compute=compute)


class _PairCompute:
    """The function of a "pairs" adaptation: derived inputs (lanes) in, derived outputs out (module comments)."""

    def __init__(self, node, signed: bool, in_names, out_names, wide, wide_in) -> None:
        self.node, self.signed, self.in_names, self.out_names, self.wide = node, signed, in_names, out_names, wide
        self.wide_in = wide_in

    def __call__(self, torch, lanes: list) -> list:
        x: dict = {}
        at = 0
        for name, wide in zip(self.in_names, self.wide_in):
            x[name] = (lanes[at], lanes[at + 1]) if wide else lanes[at]
            at += 2 if wide else 1
        y = _PAIR_FUNCTIONS[self.node.OPERATOR_TYPE](_Pairs(torch, self.signed, lanes[0]), self.node, x)
        out: list = []
        for name, wide in zip(self.out_names, self.wide):
            out.extend(y[name] if wide else (y[name],))
        return out


class _Pairs:
    """int32 operations on (lo, hi) pairs (module comments above PAIR_OPS)."""

    def __init__(self, torch, signed: bool, like) -> None:
        self.torch, self.signed, self.device = torch, signed, like.device

    def const(self, value: int) -> tuple:
        lo, hi = _halves(value)
        torch = self.torch
        return (torch.full((), lo, dtype=torch.int32, device=self.device),
                torch.full((), hi, dtype=torch.int32, device=self.device))

    def ult(self, x, y):
        return (x ^ FLIP) < (y ^ FLIP)

    def lt(self, a, b):
        high = a[1] < b[1] if self.signed else self.ult(a[1], b[1])
        return high | ((a[1] == b[1]) & self.ult(a[0], b[0]))

    def eq(self, a, b):
        return (a[0] == b[0]) & (a[1] == b[1])

    def where(self, c, a, b) -> tuple:
        torch = self.torch
        return (torch.where(c, a[0], b[0]).to(torch.int32), torch.where(c, a[1], b[1]).to(torch.int32))

    def add(self, a, b) -> tuple:
        lo = a[0] + b[0]
        return lo, a[1] + b[1] + self.ult(lo, a[0]).to(self.torch.int32)

    def neg(self, a) -> tuple:
        lo = self.torch.bitwise_not(a[0]) + 1
        return lo, self.torch.bitwise_not(a[1]) + (lo == 0).to(self.torch.int32)

    def logical_right(self, x, k):
        """x >>> k for int32 bits, 0 <= k < 32 (a tensor or an int)."""
        torch = self.torch
        if isinstance(k, int):
            return torch.bitwise_and(torch.bitwise_right_shift(x, k), (2**(32 - k) - 1) - (2**32 if k == 0 else 0))
        table = torch.tensor([2**(32 - j) - 1 - (2**32 if j == 0 else 0) for j in range(32)], dtype=torch.int32,
                             device=x.device)
        keep = torch.index_select(table, 0, k.reshape(-1)).reshape(k.shape)
        return torch.bitwise_and(torch.bitwise_right_shift(x, k), keep)

    def mul32(self, x, y) -> tuple:
        """The full 64-bit product of two unsigned 32-bit digits, as a pair."""
        torch = self.torch
        x0, x1 = torch.bitwise_and(x, 0xFFFF), self.logical_right(x, 16)
        y0, y1 = torch.bitwise_and(y, 0xFFFF), self.logical_right(y, 16)
        zero = torch.zeros_like(x)
        p01, p10 = x0 * y1, x1 * y0
        total = self.add((x0 * y0, zero), (p01 * 65536, self.logical_right(p01, 16)))
        total = self.add(total, (p10 * 65536, self.logical_right(p10, 16)))
        return self.add(total, (zero, x1 * y1))

    def mul(self, a, b) -> tuple:
        lo, hi = self.mul32(a[0], b[0])
        return lo, hi + a[0] * b[1] + a[1] * b[0]

    def shift(self, a, b, left: bool) -> tuple:
        torch = self.torch
        c = b[0]  # the count's low 32 bits (unsigned)
        k = torch.bitwise_and(c, 31)
        across = self.ult(c, torch.full((), 32, dtype=torch.int32, device=c.device))  # c < 32
        zero = torch.zeros_like(a[0])
        k0 = k == 0
        if left:
            lo = torch.bitwise_left_shift(a[0], k)
            spill = torch.where(k0, zero, self.logical_right(a[0], torch.where(k0, k, 32 - k)))
            hi = torch.bitwise_or(torch.bitwise_left_shift(a[1], k), spill)
            return self.where(across, (lo, hi), (zero, lo))
        hi = self.logical_right(a[1], k)
        spill = torch.where(k0, zero, torch.bitwise_left_shift(a[1], torch.where(k0, k, 32 - k)))
        lo = torch.bitwise_or(self.logical_right(a[0], k), spill)
        return self.where(across, (lo, hi), (hi, zero))

    def boolean(self, c):
        return c.to(self.torch.uint8)


def _clip_bounds(node) -> tuple[int, int]:
    """(Min, Max) of CLIP / CLIP_GRAD (FLOAT attributes truncated and saturated to the type) and their 1 versions
    (typed), as integers of the tensor's type."""
    from ..ops import _elementwise as ew

    dtype = node.input_tensor.data_type.numpy_dtype
    if node.OPERATOR_TYPE.endswith("1"):
        return int(node.min), int(node.max)
    return int(ew.attribute_value(node.min, dtype)), int(ew.attribute_value(node.max, dtype))


def _bit_count(p: _Pairs, node, x) -> dict:
    from ..ops import _bits as B

    torch = p.torch
    lo, hi = x["InputTensor"]
    count = B.torch_popcount(torch, lo, 32) + B.torch_popcount(torch, hi, 32)
    return {"OutputTensor": count.to({"UINT8": torch.uint8, "UINT32": torch.uint32}[
        node.output_tensor.data_type.name])}


def _sign(p: _Pairs, node, x) -> dict:
    torch = p.torch
    a = x["InputTensor"]
    nonzero = ((a[0] != 0) | (a[1] != 0)).to(torch.int32)
    zero = torch.zeros_like(a[0])
    if not p.signed:
        return {"OutputTensor": (nonzero, zero)}
    negative = a[1] < 0
    return {"OutputTensor": p.where(negative, p.const(-1), (nonzero, zero))}


def _clip(p: _Pairs, node, x) -> dict:
    lo, hi = (p.const(v) for v in _clip_bounds(node))
    a = x["InputTensor"]
    below = p.where(p.lt(hi, a), hi, a)  # min(x, Max)
    return {"OutputTensor": p.where(p.lt(below, lo), lo, below)}  # then max(., Min)


def _clip_grad(p: _Pairs, node, x) -> dict:
    lo, hi = (p.const(v) for v in _clip_bounds(node))
    a, dy = x["InputTensor"], x["InputGradientTensor"]
    keep = p.lt(lo, a) & p.lt(a, hi)
    return {"OutputGradientTensor": p.where(keep, dy, p.const(0))}


def _clz(p: _Pairs, x):
    """The leading zero count of nonzero int32 bits (a binary search: 16, 8, 4, 2, 1)."""
    torch = p.torch
    count = torch.zeros_like(x)
    for k in (16, 8, 4, 2, 1):
        empty = p.logical_right(x, 32 - k) == 0
        x = torch.where(empty, torch.bitwise_left_shift(x, k), x)
        count = count + empty.to(torch.int32) * k
    return count


def _cast_from_wide(p: _Pairs, node, a) -> dict:
    """CAST from INT64 / UINT64 (dmlops.ops.cast: the 64 bits read with the target's signedness, saturated; to a
    float, IEEE round to nearest even, then FLOAT16 toward zero).

    Integers: the value compared as a pair with the target's bounds, else its low digit (in range). Floats: the
    magnitude m (|INT64_MIN| = 2**63 unsigned); m < 2**32 converts from its low digit's 16-bit halves
    (ew.torch_uint32_bits_to_float: one rounding); else m shifted left by s = clz(high digit), so its top bit is
    bit 63, and T = the high 32 bits with bit 0 set when any lower bit is (bit 32 of the shifted value is below its
    round bit, bit 39, so T keeps every bit rounding to 24 bits reads: RNE(T * 2**32) = RNE(m * 2**s)), then
    RNE(T) * 2**(32 - s), a power-of-two scaling (exact); the sign last."""
    from ..ops import _elementwise as ew

    torch = p.torch
    dst = node.output_tensor.data_type
    if not dst.name.startswith("FLOAT"):
        info = np.iinfo(dst.numpy_dtype)
        reader = _Pairs(torch, dst.name.startswith("INT"), a[0])  # the register read with the target's signedness
        lo, hi = reader.const(int(info.min)), reader.const(int(info.max))
        low_digit = a[0]
        out = torch.where(reader.lt(a, lo), lo[0], torch.where(reader.lt(hi, a), hi[0], low_digit))
        if dst.name == "UINT32":
            return {"OutputTensor": out}  # the int32 carrier's bits
        return {"OutputTensor": out.to(getattr(torch, dst.numpy_dtype.name))}
    negative = a[1] < 0 if p.signed else torch.zeros_like(a[1], dtype=torch.bool)
    m = p.where(negative, p.neg(a), a)
    small = m[1] == 0
    s = _clz(p, torch.where(small, torch.ones_like(m[1]), m[1]))
    k0 = s == 0
    top = torch.bitwise_or(torch.bitwise_left_shift(m[1], s),
                           torch.where(k0, torch.zeros_like(s), p.logical_right(m[0], torch.where(k0, s, 32 - s))))
    rest = torch.bitwise_left_shift(m[0], s)
    top = torch.bitwise_or(top, (rest != 0).to(torch.int32))
    powers = torch.tensor([2.0 ** (32 - k) for k in range(32)], dtype=torch.float32, device=a[0].device)
    scale = torch.index_select(powers, 0, s.reshape(-1)).reshape(s.shape)
    value = torch.where(small, ew.torch_uint32_bits_to_float(torch, m[0]),
                        ew.torch_uint32_bits_to_float(torch, top) * scale)
    value = torch.where(negative, value * -1.0, value)
    if dst.name == "FLOAT16":
        value = ew.torch_float16_toward_zero(torch, value)
    return {"OutputTensor": value}


def _float64_to_float32(p: _Pairs, a):
    """FLOAT64 bits (lanes) to the float32 nearest (IEEE round to nearest even), with int32 and float32 operations
    only: sign, 11-bit exponent e and 52-bit fraction read from the digits. A normal float32 result (e > 896): the
    fraction's top 23 bits, rounded up when its round bit (fraction bit 28) is set and the bits below it or the
    kept last bit are (ties to even), give the 24-bit significand (a carry to 2**24 is the next binade: the value
    stays right), scaled by 2**(e - 1023 - 23), a power of two float32 holds, the product exact (or inf past the
    largest finite float32, IEEE's overflow). A subnormal one (e <= 896): the 53-bit significand shifted right by 926
    - e (at least 30) in units of 2**-149, rounded to nearest even with every dropped bit as sticky, times 2**-149
    (exact: at most 2**23 units). e = 0 gives zero; e = 2047 inf or NaN. The sign last (a product by -1: -0.0
    too)."""
    torch = p.torch
    lo, hi = a
    negative = hi < 0
    e = torch.bitwise_and(p.logical_right(hi, 20), 0x7FF)
    frac_hi = torch.bitwise_and(hi, 0xFFFFF)
    keep = torch.bitwise_or(torch.bitwise_left_shift(frac_hi, 3), p.logical_right(lo, 29))
    round_bit = torch.bitwise_and(p.logical_right(lo, 28), 1) == 1
    below = torch.bitwise_and(lo, 0x0FFFFFFF) != 0
    up = round_bit & (below | (torch.bitwise_and(keep, 1) == 1))
    significand = (keep + (1 << 23) + up.to(torch.int32)).to(torch.float32)
    powers = torch.tensor([2.0**k for k in range(-149, 105)], dtype=torch.float32, device=lo.device)
    k = torch.clamp(e - 1023 - 23, -149, 104)
    normal = significand * torch.index_select(powers, 0, (k + 149).reshape(-1)).reshape(k.shape)
    normal = torch.where(e - 1023 + 127 >= 255, torch.full_like(normal, float("inf")), normal)
    # subnormal: t = the 24 top bits of the 53-bit significand, the 29 below them sticky; then >> r2 (1 .. 25)
    t = torch.bitwise_or(torch.bitwise_left_shift(torch.bitwise_or(frac_hi, 1 << 20), 3), p.logical_right(lo, 29))
    sticky = torch.bitwise_and(lo, 0x1FFFFFFF) != 0
    r2 = torch.clamp(926 - e - 29, 1, 25)
    q = p.logical_right(t, r2)
    rem = torch.bitwise_and(t, torch.bitwise_left_shift(torch.ones_like(t), r2) - 1)
    half = torch.bitwise_left_shift(torch.ones_like(t), r2 - 1)
    up_sub = (rem > half) | ((rem == half) & (sticky | (torch.bitwise_and(q, 1) == 1)))
    tiny = (q + up_sub.to(torch.int32)).to(torch.float32) * 2.0**-149
    value = torch.where(e > 896, normal, tiny)
    value = torch.where(e == 0, torch.zeros_like(value), value)
    special = e == 0x7FF
    nan = special & ((frac_hi != 0) | (lo != 0))
    value = torch.where(special, torch.full_like(value, float("inf")), value)
    value = torch.where(nan, torch.full_like(value, float("nan")), value)
    return value * torch.where(negative, torch.full_like(value, -1.0), torch.ones_like(value))


def _cast(p: _Pairs, node, x) -> dict:
    """CAST to INT64 / UINT64 (dmlops.ops.cast: a 64-bit register read with the target's signedness, saturated to
    its range; floats truncated toward zero, NaN giving 0).

    An integer source's register is the value extended by its signedness: low digit its int32 bits (UINT16 /
    UINT32: the zero-extended carrier's), high digit -1 for a negative signed value, else 0; both targets read
    those bits in range. A float: t = trunc(x) in float32 (FLOAT16 exactly widened), NaN -> 0; saturated where
    beyond the target (INT64: t >= 2**63 or t < -2**63; UINT64: t >= 2**64, and t <= 0 gives 0); else, on a = |t|,
    hi = floor(a / 2**32) and lo = a - hi * 2**32 are exact in float32 (a has 24 significant bits: hi has at most
    24, and a mod 2**32 is a multiple of a's ulp below 2**32, so at most 23; products and quotients by 2**32 are
    exact), each below 2**32 and converted to int32 bits as ``d - 2**32`` from 2**31 (exact: multiples of 2**8 within
    int32); a negative t negates the pair."""
    torch = p.torch
    v = x["InputTensor"]
    src = node.input_tensor.data_type.name
    if src in WIDE:
        return _cast_from_wide(p, node, v)
    if src == "FLOAT64":
        from ..ops import _elementwise as ew

        value = _float64_to_float32(p, v)
        if node.output_tensor.data_type.name == "FLOAT16":
            value = ew.torch_float16_toward_zero(torch, value)
        return {"OutputTensor": value}
    signed_target = node.output_tensor.data_type.name == "INT64"
    if not v.is_floating_point():
        lo = v.to(torch.int32)
        negative = lo < 0 if src in ("INT8", "INT16", "INT32") else torch.zeros_like(lo, dtype=torch.bool)
        return {"OutputTensor": (lo, torch.where(negative, torch.full_like(lo, -1), torch.zeros_like(lo)))}
    f = v.to(torch.float32)
    t = torch.trunc(torch.where(torch.isnan(f), torch.zeros_like(f), f))
    a = t.abs() if signed_target else torch.clamp(t, min=0.0)
    hi_f = torch.floor(a * 2.0**-32)
    lo_f = a - hi_f * 2.0**32

    def bits(d):
        return torch.where(d >= 2.0**31, d - 2.0**32, d).to(torch.int32)

    pair = (bits(lo_f), bits(hi_f))
    if signed_target:
        pair = p.where(t < 0, p.neg(pair), pair)
        pair = p.where(t >= 2.0**63, p.const(2**63 - 1), pair)
        return {"OutputTensor": p.where(t < -2.0**63, p.const(-2**63), pair)}
    return {"OutputTensor": p.where(t >= 2.0**64, p.const(2**64 - 1), pair)}


def _philox(p: _Pairs, node, x) -> dict:
    """RANDOM_GENERATOR's Philox4x32-10 (dmlops.ops.random_generator: its reference's algorithm) on the UINT32 state's
    int32 bits: block j's counter is the 128-bit state counter + j, added word by word with carries (a word carries
    out iff its sum is below it, unsigned); each round takes the full 64-bit products M0 * c0 and M1 * c2 as
    ``_Pairs.mul32``'s (low, high) digits; the key words advance by W0, W1 modulo 2**32 (int32 addition); XORs are
    bit operations. Every step is exact on 32-bit words, so the words are Random123's."""
    from ..ops import random_generator as R

    torch = p.torch
    state = x["InputStateTensor"].reshape(6)
    n, blocks = R._blocks(node)

    def word(value: int):
        return torch.full((), value - 2**32 * (value >= 2**31), dtype=torch.int32, device=state.device)

    def counter_plus(j):
        out, carry = [], j
        for i in range(4):
            s = state[i] + carry
            carry = p.ult(s, state[i]).to(torch.int32) if i == 0 else carry * (s == 0).to(torch.int32)
            out.append(s)
        return out

    c0, c1, c2, c3 = counter_plus(torch.arange(blocks, dtype=torch.int32, device=state.device))
    k0, k1 = state[4], state[5]
    m0, m1, w0, w1 = word(R.M0), word(R.M1), word(R.W0), word(R.W1)
    for r in range(R.ROUNDS):
        if r:
            k0, k1 = k0 + w0, k1 + w1
        lo0, hi0 = p.mul32(c0, m0.expand_as(c0))
        lo1, hi1 = p.mul32(c2, m1.expand_as(c2))
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    values = torch.stack([c0, c1, c2, c3], dim=-1).reshape(-1)[:n].reshape(node.output_tensor.sizes)
    out = {"OutputTensor": values}
    if node.output_state_tensor is not None:
        counter = counter_plus(torch.full((), blocks, dtype=torch.int32, device=state.device))
        out["OutputStateTensor"] = torch.stack(counter + [state[4], state[5]]).reshape(
            node.output_state_tensor.sizes)
    return out


def _udivmod(p: _Pairs, a, b) -> tuple:
    """Unsigned 64-bit a // b and a % b (b != 0 where used) by restoring long division, one quotient bit per step
    from the top: r = 2 r + (bit of a); the step subtracts b when r >= b, or when doubling r carried out of 64 bits
    (then r >= 2**64 > b, and r - b < b is right modulo 2**64). Every value stays below 2**64 but that carry, so
    the pairs' arithmetic is exact."""
    torch = p.torch
    u = _Pairs(torch, False, a[0])
    zero = torch.zeros_like(a[0])
    r = (zero, zero)
    q_lo, q_hi = zero, zero
    one = torch.ones_like(a[0])
    for i in reversed(range(64)):
        word = a[1] if i >= 32 else a[0]
        bit = torch.bitwise_and(u.logical_right(word, i % 32), 1)
        out = u.logical_right(r[1], 31)  # the bit doubling carries out
        r = (torch.bitwise_or(r[0] * 2, bit), torch.bitwise_or(r[1] * 2, u.logical_right(r[0], 31)))
        take = (out == 1) | ~u.lt(r, b)
        r = u.where(take, u.add(r, u.neg(b)), r)
        mark = torch.where(take, one * (1 << (i % 32)) if i % 32 != 31 else one * -2**31, zero)
        if i >= 32:
            q_hi = torch.bitwise_or(q_hi, mark)
        else:
            q_lo = torch.bitwise_or(q_lo, mark)
    return (q_lo, q_hi), r


def _divide(p: _Pairs, a, b, remainder: str = ""):
    """DIVIDE (truncated quotient) or MODULUS (``remainder`` "truncate" / "floor") of 64-bit integers as dmlops's
    reference defines them (ew.truncating_divide, _arithmetic.integer_modulus): signed operands through their
    magnitudes (|INT_MIN| is 2**63, a valid unsigned magnitude), the quotient negated when the signs differ (INT_MIN
    / -1 wraps to INT_MIN), the truncated remainder with the dividend's sign, the floored one moved by b when its sign
    differs from b's; by zero: the magnitude of all ones, negated for a negative dividend (-1 for x >= 0, 1 for x < 0;
    the maximum for unsigned types), for both."""
    torch = p.torch
    zero_b = (b[0] == 0) & (b[1] == 0)
    safe = p.where(zero_b, p.const(1), b)
    if p.signed:
        neg_a, neg_b = a[1] < 0, safe[1] < 0
        (q, r) = _udivmod(p, p.where(neg_a, p.neg(a), a), p.where(neg_b, p.neg(safe), safe))
        q = p.where(neg_a ^ neg_b, p.neg(q), q)
        r = p.where(neg_a, p.neg(r), r)
        fill = p.where(neg_a, p.const(1), p.const(-1))
    else:
        q, r = _udivmod(p, a, safe)
        fill = p.const(2**64 - 1)
    if not remainder:
        return p.where(zero_b, fill, q)
    if remainder == "floor" and p.signed:
        moved = ((r[0] != 0) | (r[1] != 0)) & ((r[1] < 0) ^ (safe[1] < 0))
        r = p.where(moved, p.add(r, safe), r)
    return p.where(zero_b, fill, r)


# UINT32 operators whose results need more than the int32 carrier's signed arithmetic: their values as 64-bit pairs
# (x, 0), the result's low digit (it fits: a quotient or remainder is at most the dividend or divisor); MEAN takes
# the wrapped sum's bits shifted right logically, (a + b mod 2**32) // 2 as the reference defines it.
UINT32_PAIR_OPS = frozenset({"ELEMENT_WISE_DIVIDE", "ELEMENT_WISE_MODULUS_TRUNCATE", "ELEMENT_WISE_MODULUS_FLOOR",
                             "ELEMENT_WISE_MEAN"})


def _widened(fn):
    """A pair function of ATensor and BTensor applied to UINT32 bits zero-extended to pairs; the low digit out."""
    def wide(p, node, x):
        a, b = x["ATensor"], x["BTensor"]
        if isinstance(a, tuple):
            return fn(p, node, x)
        zero = p.torch.zeros_like(a)
        return {"OutputTensor": fn(p, node, {"ATensor": (a, zero), "BTensor": (b, zero)})["OutputTensor"][0]}
    return wide


def _mean_uint32(p: _Pairs, node, x) -> dict:
    return {"OutputTensor": p.logical_right(x["ATensor"] + x["BTensor"], 1)}


# Operators that accumulate 64-bit values: the same steps as their lowerings, each addition or product a pair one.
ACCUMULATING_OPS = frozenset({"CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT", "FOLD", "MAX_POOLING", "MAX_POOLING1",
                              "MAX_POOLING2"})
_ACCUMULATING_REDUCTIONS = ("SUM", "MULTIPLY", "SUM_SQUARE")


def _full(p: _Pairs, like, value: int) -> tuple:
    lo, hi = _halves(value)
    return p.torch.full_like(like, lo), p.torch.full_like(like, hi)


def _scan(p: _Pairs, node, x) -> dict:
    """CUMULATIVE_SUMMATION / _PRODUCT: _scan.torch_scan's loop over the axis (inclusive or exclusive, either
    direction), each step a pair sum or product (modulo 2**64, as the reference wraps)."""
    from ..ops import _scan as S

    torch = p.torch
    axis, reverse, exclusive = S.scan_attributes(node)
    a = x["InputTensor"]
    n = a[0].shape[axis]
    step = p.mul if node.OPERATOR_TYPE == "CUMULATIVE_PRODUCT" else p.add
    acc = _full(p, a[0].narrow(axis, 0, 1), 1 if node.OPERATOR_TYPE == "CUMULATIVE_PRODUCT" else 0)
    out: list = [None] * n
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        piece = (a[0].narrow(axis, i, 1), a[1].narrow(axis, i, 1))
        if exclusive:
            out[i], acc = acc, step(acc, piece)
        else:
            acc = step(acc, piece)
            out[i] = acc
    return {"OutputTensor": (torch.cat([o[0] for o in out], dim=axis), torch.cat([o[1] for o in out], dim=axis))}


def _reduce_accumulate(p: _Pairs, node, x) -> dict:
    """REDUCE SUM / MULTIPLY / SUM_SQUARE: the reduced axes moved last and flattened, then halved pairwise (a
    tree of pair sums or products, exact modulo 2**64 in any order, as addition and multiplication there are
    associative and commutative)."""
    torch = p.torch
    fn = node.function.name
    a = x["InputTensor"]
    if fn == "SUM_SQUARE":
        a = p.mul(a, a)
    axes = sorted(set(node.axes))
    rest = [i for i in range(a[0].dim()) if i not in axes]
    lanes = [v.permute(rest + axes).reshape([v.shape[i] for i in rest] + [-1]) for v in a]
    step = p.mul if fn == "MULTIPLY" else p.add
    while lanes[0].shape[-1] > 1:
        m = lanes[0].shape[-1]
        if m % 2:  # the identity appended
            pad = _full(p, lanes[0].narrow(-1, 0, 1), 1 if fn == "MULTIPLY" else 0)
            lanes = [torch.cat([lane, extra], dim=-1) for lane, extra in zip(lanes, pad)]
            m += 1
        half = m // 2
        lanes = list(step((lanes[0].narrow(-1, 0, half), lanes[1].narrow(-1, 0, half)),
                          (lanes[0].narrow(-1, half, half), lanes[1].narrow(-1, half, half))))
    sizes = node.output_tensor.sizes
    return {"OutputTensor": (lanes[0].reshape(sizes), lanes[1].reshape(sizes))}


def _fold(p: _Pairs, node, x) -> dict:
    """FOLD: fold.to_torch's steps (each window position's landing columns gathered from a zero-padded pool, added
    in window order) with pair sums."""
    from ..ops import fold

    torch = p.torch
    n, c, k_count, blocks, tables, out = fold._plan(node)
    pools = [torch.nn.functional.pad(v.reshape(n, c, k_count * blocks), (0, 1)) for v in x["InputTensor"]]
    size = int(np.prod(out[2:], dtype=np.int64))
    acc = (pools[0][:, :, -1:].expand(n, c, size), pools[1][:, :, -1:].expand(n, c, size))  # the zero slot
    for index in tables:
        at = torch.from_numpy(index.astype(np.int64)).to(pools[0].device)
        acc = p.add(acc, (pools[0].index_select(2, at), pools[1].index_select(2, at)))
    return {"OutputTensor": (acc[0].reshape(out), acc[1].reshape(out))}


def _max_pool(p: _Pairs, node, x) -> dict:
    """MAX_POOLING / 1 / 2 of 64-bit integers: _max_pooling._slice_torch_pool's scan over the window elements (a
    later element wins only when greater; with indices, the first element inside the image wins a window it starts)
    on the int32 keys of the values, the padding the lowest key (the type's lowest value), compared as pairs."""
    from ..ops import _max_pooling as MP
    from ..ops import _pooling as P

    torch = p.torch
    a = x["InputTensor"]
    shape = tuple(a[0].shape)
    s = P.Slices(node, list(shape[2:]))
    dev = a[0].device
    keys = _keys(p, a)
    padded = [P.torch_padded(torch, k, s, -2**31) for k in keys]
    cur = (torch.full((), -2**31, dtype=torch.int32, device=dev),) * 2
    indices = getattr(node, "output_indices_tensor", None) is not None
    none = torch.full((), s.k, dtype=torch.int32, device=dev)
    kstar = none
    for k, ks in enumerate(s.positions()):
        span = s.spans(ks)
        cand = (padded[0][span], padded[1][span])
        better = _keys_lt(cur, cand)
        if indices:
            better = better | (kstar == none)
            for m in s.inside(ks):
                better = better & torch.as_tensor(m, device=dev)
        cur = p.where(better, cand, cur)
        if indices:
            kstar = torch.where(better, torch.full((), k, dtype=torch.int32, device=dev), kstar)
    out = {"OutputTensor": (cur[0] ^ FLIP, cur[1] if p.signed else cur[1] ^ FLIP)}
    if indices:
        sizes = list(shape[:2]) + s.output
        offsets = torch.as_tensor(s.offsets(), device=dev).index_select(0, kstar.reshape(-1)).reshape(sizes)
        at = (torch.as_tensor(MP._bases_of(shape, s.dims), device=dev)
              + P.torch_sum_of(torch, s.origins(), s.output, dev) + offsets)
        out["OutputIndicesTensor"] = torch.where(kstar < none, at, torch.zeros((), dtype=torch.int64, device=dev))
    return out


def _accumulate(p: _Pairs, node, x) -> dict:
    op = node.OPERATOR_TYPE
    if op.startswith("CUMULATIVE"):
        return _scan(p, node, x)
    if op == "FOLD":
        return _fold(p, node, x)
    if op == "REDUCE":
        return _reduce_accumulate(p, node, x)
    return _max_pool(p, node, x)


# Operators that select along axes by order: done on int32 keys whose signed lexicographic order (high key first)
# is the 64-bit values' order: (lo ^ 0x80000000, hi) for INT64, (lo ^ 0x80000000, hi ^ 0x80000000) for UINT64.
SELECT_OPS = frozenset({"TOP_K", "TOP_K1", "ARGMAX", "ARGMIN"})


def _keys(p: _Pairs, a) -> tuple:
    return a[0] ^ FLIP, a[1] if p.signed else a[1] ^ FLIP


def _keys_lt(a: tuple, b: tuple):
    """Whether the value of keys ``a`` is below that of keys ``b`` (``_keys``): both keys compare as int32, the high
    key first. (Not _Pairs.lt, which flips the low digit itself: on keys it would compare low digits signed.)"""
    return (a[1] < b[1]) | ((a[1] == b[1]) & (a[0] < b[0]))


def _reduce32(p: _Pairs, function: str, axes, v):
    """REDUCE ``function`` (MIN / MAX) of an int32 tensor over ``axes``, kept dimensions (its own lowering)."""
    from ..descs import Reduce
    from ..enums import ReduceFunction
    from ..lower import lower_torch

    kept = [1 if i in axes else n for i, n in enumerate(v.shape)]
    desc = Reduce(function=ReduceFunction[function], input_tensor=TensorDesc(INT32, list(v.shape)),
                  output_tensor=TensorDesc(INT32, kept), axes=tuple(axes))
    return lower_torch(desc, p.torch, {"InputTensor": v})["OutputTensor"].to(p.torch.int32)


def _extreme(p: _Pairs, a, axes, is_max: bool):
    """The keys of the maximum (minimum) over ``axes`` and the mask of the elements equal to it: the extreme high
    key, then the extreme low key among the elements that have it."""
    torch = p.torch
    lo, hi = _keys(p, a)
    function = "MAX" if is_max else "MIN"
    m_hi = _reduce32(p, function, axes, hi)
    on = hi == m_hi
    m_lo = _reduce32(p, function, axes, torch.where(on, lo, torch.full_like(lo, -2**31 if is_max else 2**31 - 1)))
    return (m_lo, m_hi), on & (lo == m_lo)


def _arg(p: _Pairs, node, x, axes, is_max: bool) -> dict:
    """ARGMAX / ARGMIN (and REDUCE's): the operator's own lowering on an int32 tensor that is 1 (ARGMAX; 0 for
    ARGMIN) exactly where the 64-bit value is the extreme: the same first (or last) extreme position, ties as the
    operator breaks them."""
    from ..lower import lower_torch

    _, mask = _extreme(p, x["InputTensor"], axes, is_max)
    key = (mask if is_max else ~mask).to(p.torch.int32)
    return lower_torch(replace(node, input_tensor=_retyped(node.input_tensor)), p.torch, {"InputTensor": key})


def _select(p: _Pairs, node, x) -> dict:
    if node.OPERATOR_TYPE in ("ARGMAX", "ARGMIN"):
        return _arg(p, node, x, sorted(set(node.axes)), node.OPERATOR_TYPE == "ARGMAX")
    return _top_k(p, node, x)


def _reduce(p: _Pairs, node, x) -> dict:
    """REDUCE MIN / MAX (the extreme's keys turned back into the value) and ARGMIN / ARGMAX (``_arg``)."""
    fn = node.function.name
    axes = sorted(set(node.axes))
    if fn in ("ARGMAX", "ARGMIN"):
        return _arg(p, node, x, axes, fn == "ARGMAX")
    if fn in _ACCUMULATING_REDUCTIONS:
        return _reduce_accumulate(p, node, x)
    (m_lo, m_hi), _ = _extreme(p, x["InputTensor"], axes, fn == "MAX")
    return {"OutputTensor": (m_lo ^ FLIP, m_hi if p.signed else m_hi ^ FLIP)}


def _top_k(p: _Pairs, node, x) -> dict:
    """TOP_K / TOP_K1: a stable sort by the low key, then a stable sort by the high key (a two-digit radix sort: the
    lexicographic order, equal values in ascending index as DirectML ties them), the first K."""
    from ..ops import _selection as sel

    torch = p.torch
    a = x["InputTensor"]
    axis, k = node.axis, node.k
    largest = node.OPERATOR_TYPE == "TOP_K" or sel.decreasing(node)
    lo, hi = _keys(p, a)
    _, perm = torch.sort(lo, dim=axis, descending=largest, stable=True)
    _, order = torch.sort(torch.gather(hi, axis, perm), dim=axis, descending=largest, stable=True)
    index = torch.gather(perm, axis, order.narrow(axis, 0, k))
    return {"OutputValueTensor": (torch.gather(a[0], axis, index), torch.gather(a[1], axis, index)),
            "OutputIndexTensor": index}


def _binary(fn):
    return lambda p, node, x: {"OutputTensor": fn(p, x["ATensor"], x["BTensor"])}


_PAIR_FUNCTIONS = {
    "ELEMENT_WISE_ADD": _binary(lambda p, a, b: p.add(a, b)),
    "ELEMENT_WISE_SUBTRACT": _binary(lambda p, a, b: p.add(a, p.neg(b))),
    "ELEMENT_WISE_MULTIPLY": _binary(lambda p, a, b: p.mul(a, b)),
    "ELEMENT_WISE_DIVIDE": _widened(_binary(lambda p, a, b: _divide(p, a, b))),
    "ELEMENT_WISE_MODULUS_TRUNCATE": _widened(_binary(lambda p, a, b: _divide(p, a, b, "truncate"))),
    "ELEMENT_WISE_MODULUS_FLOOR": _widened(_binary(lambda p, a, b: _divide(p, a, b, "floor"))),
    "ELEMENT_WISE_MEAN": _mean_uint32,
    "ELEMENT_WISE_MAX": _binary(lambda p, a, b: p.where(p.lt(a, b), b, a)),
    "ELEMENT_WISE_MIN": _binary(lambda p, a, b: p.where(p.lt(b, a), b, a)),
    "ELEMENT_WISE_LOGICAL_EQUALS": _binary(lambda p, a, b: p.boolean(p.eq(a, b))),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN": _binary(lambda p, a, b: p.boolean(p.lt(b, a))),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL": _binary(lambda p, a, b: p.boolean(~p.lt(a, b))),
    "ELEMENT_WISE_LOGICAL_LESS_THAN": _binary(lambda p, a, b: p.boolean(p.lt(a, b))),
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL": _binary(lambda p, a, b: p.boolean(~p.lt(b, a))),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": _binary(lambda p, a, b: p.shift(a, b, True)),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": _binary(lambda p, a, b: p.shift(a, b, False)),
    "ELEMENT_WISE_NEGATE": lambda p, node, x: {"OutputTensor": p.neg(x["InputTensor"])},
    "ELEMENT_WISE_ABS": lambda p, node, x: {"OutputTensor": p.where(x["InputTensor"][1] < 0, p.neg(x["InputTensor"]),
                                                                    x["InputTensor"]) if p.signed
                                            else x["InputTensor"]},
    "ELEMENT_WISE_SIGN": _sign,
    "ELEMENT_WISE_CLIP": _clip, "ELEMENT_WISE_CLIP1": _clip,
    "ELEMENT_WISE_CLIP_GRAD": _clip_grad, "ELEMENT_WISE_CLIP_GRAD1": _clip_grad,
    "ELEMENT_WISE_BIT_COUNT": _bit_count,
    "CAST": _cast,
    "RANDOM_GENERATOR": _philox,
    "REDUCE": _reduce,
    **{op: _select for op in SELECT_OPS},
    **{op: _accumulate for op in ACCUMULATING_OPS},
}
assert set(_PAIR_FUNCTIONS) == (PAIR_OPS | SELECT_OPS | UINT32_PAIR_OPS | ACCUMULATING_OPS
                                | {"CAST", "RANDOM_GENERATOR", "REDUCE"})


class _PairInner:
    """The inner runner of a "pairs" adaptation: its derived inputs (int32 lanes) on the device, the function run
    on them in torch-directml's workarounds mode, a CPU fallback an error (as torch.Runner.lower makes it)."""

    def __init__(self, adaptation: Adaptation, torch, device, label: str) -> None:
        self.adaptation, self.torch, self.device, self.label = adaptation, torch, device, label
        self.upcast_float16 = False

    def to_device(self, name: str, td, value):
        """A derived input on the device: an int32 lane or CAST's input (``Adapted.to_device`` made NumPy ones;
        a torch tensor is CAST's input as the caller holds it, in its carrier)."""
        from .. import tensors

        torch = self.torch
        if isinstance(value, torch.Tensor):
            from .torch_dtypes import torch_dtype

            expected = torch_dtype(torch, td.data_type)
            if value.device != self.device:
                raise DmlOpsError(f"{name}: the tensor is on {value.device}, the operator is compiled for "
                                  f"{self.device}; move it first (dmlops never moves data silently).")
            if value.dtype != expected:
                raise DmlOpsError(f"{name}: expected {expected} data (torch-directml has no unsigned 16-, 32- or "
                                  "64-bit tensors: dmlops carries them in int32 and int64 tensors there); got "
                                  f"{value.dtype}. dmlops never casts inputs; convert the tensor first.")
            tensors.check_array(td, value, name, shape=tuple(value.shape), dtype=td.data_type.numpy_dtype)
            return value.contiguous()
        array = tensors.numpy_input(td, value, name)
        return torch.from_numpy(np.array(array, order="C")).to(self.device)

    def __call__(self, flat: list) -> list:
        import warnings

        from .. import tensors
        from ..errors import DmlOpsError
        from .torch_directml_ops import FALLBACK, workarounds

        torch = self.torch
        lanes = [torch.as_strided(t, td.sizes, td.strides) if tensors.is_strided(td) else t
                 for t, td in zip(flat, self.adaptation.derived_in)]
        with torch.no_grad(), workarounds(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = self.adaptation.compute(torch, lanes)
        for w in caught:
            if FALLBACK in str(w.message):
                raise DmlOpsError(f"{self.label}: torch-directml ran an aten op on the CPU instead of DirectML "
                                  f"({str(w.message).strip()}); dmlops does not fall back silently.")
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return [v.to(self._storage(td)).contiguous() for v, td in zip(out, self.adaptation.derived_out)]

    def _storage(self, td):
        from .torch_dtypes import torch_dtype
        from .torch_directml_ops import CARRIERS

        name = td.data_type.name
        return getattr(self.torch, CARRIERS[name]) if name in CARRIERS else torch_dtype(self.torch, td.data_type)

    def fresh(self, outs: list, inputs: list) -> list:
        return [v.clone() if any(v is i for i in inputs) else v for v in outs]

    def host_output(self, name: str, td, value) -> np.ndarray:
        """int32 lanes, UINT8 booleans and counts as they are; a carried output as the torch backend takes carriers
        (torch_directml_ops.uncarry): an index output checked, a data one (Philox's words) as its bits."""
        from .torch_directml_ops import CARRIERS, uncarry

        array = value.cpu().numpy()
        if td.data_type.name not in CARRIERS:
            return array
        field = name.rpartition(".")[2]
        node = self.adaptation.graph.nodes[0]
        return uncarry(name, td.data_type.name, array, bits=not _index_field(node, field))

    def torch_output(self, name: str, td, value):
        return value


# ----------------------------------------------------------------------------------------------- rank
def _is_packed(td: TensorDesc) -> bool:
    return td.strides is None or tuple(td.strides) == td.packed_strides


def _rank(graph, node) -> Adaptation | None:
    tds = [td for kind in ("input", "output") for _, td in _present(node, kind)]
    if not all(_is_packed(td) for td in tds):
        return None
    op = node.OPERATOR_TYPE
    if op.startswith(("ELEMENT_WISE_", "ACTIVATION_")) and op not in _ACROSS_AXES:
        if len({tuple(td.sizes) for td in tds}) != 1:
            return None
        return _reshaped(graph, node, lambda td: [td.element_count])
    if op in ("FILL_VALUE_CONSTANT", "FILL_VALUE_SEQUENCE"):  # row-major values: the same flattened
        return _reshaped(graph, node, lambda td: [td.element_count])
    if op in ("JOIN", "SPLIT", "REVERSE_SUBSEQUENCES"):
        return _around_axis(graph, node)
    if op in _SEPARABLE:
        return _separable(graph, node)
    return None


def _merged(sizes, axis: int) -> list[int]:
    """``sizes`` as [product before ``axis``, sizes[axis], product after]."""
    return [math.prod(sizes[:axis]), sizes[axis], math.prod(sizes[axis + 1:])]


def _reshaped(graph, node, shape_of, **attributes) -> Adaptation:
    """One node: ``node`` with every tensor packed to ``shape_of(td)`` and the given attributes."""
    changes: dict = dict(attributes)
    for f in node.schema().fields:
        if not f.is_tensor:
            continue
        value = getattr(node, f.py_name)
        if isinstance(value, tuple):
            changes[f.py_name] = tuple(_packed(t, shape_of(t)) for t in value)
        elif value is not None:
            changes[f.py_name] = _packed(value, shape_of(value))
    derived = GraphDesc.single(replace(node, **changes))
    return Adaptation(derived, tuple((("as", i),) for i in range(graph.input_count)),
                      tuple(("as", (j,)) for j in range(graph.output_count)), rank=True, kind="rank")


def _around_axis(graph, node) -> Adaptation:
    """JOIN, SPLIT and REVERSE_SUBSEQUENCES treat every position outside their axis alike (they concatenate, cut
    or reverse along it; SequenceLengths has the input's Sizes with 1 on the axis): the axes before it merge into
    one, and those after it, so [before, axis, after] computes the same elements."""
    axis = node.axis
    return _reshaped(graph, node, lambda td: _merged(td.sizes, axis), axis=1)


# Per-axis parameters of the separable operators, (field names of the per-axis tuples, the identity of an axis of
# input size n): output element k is input element (f_0(k_0), ..., f_r(k_r)) (or the padding value where a k_i
# falls in a padding), each f_i a function of k_i, axis i's parameters and input size only.
_SEPARABLE = {
    "SLICE": (("offsets", "sizes", "strides"), lambda n: (0, n, 1)),
    "SLICE1": (("input_window_offsets", "input_window_sizes", "input_window_strides"), lambda n: (0, n, 1)),
    "PADDING": (("start_padding", "end_padding"), lambda n: (0, 0)),
    "PADDING1": (("start_padding", "end_padding"), lambda n: (0, 0)),
    "TILE": (("repeats",), lambda n: (1,)),
}


def _separable(graph, node) -> Adaptation | None:
    """SLICE, SLICE1, PADDING, PADDING1 and TILE index each axis on its own (``_SEPARABLE``), so the operator is
    the same operator applied to one range of axes after another, the others untouched (identity parameters:
    a slice of the whole axis with stride 1, no padding, one repeat); a padding value written by an earlier step
    stays what it is (a later step moves it or writes the same value). In each step the runs of adjacent
    untouched axes merge into one axis of their product (an identity on an axis of n * m elements is an identity
    on both). Steps take the axes in ranges of 4 at most, so a step has at most 4 + 2 dimensions; one step when
    merging alone gets to 6."""
    names, identity = _SEPARABLE[node.OPERATOR_TYPE]
    in_sizes = list(node.input_tensor.sizes)
    out_sizes = list(node.output_tensor.sizes)
    rank = len(in_sizes)
    params = [tuple(getattr(node, n)[i] for n in names) for i in range(rank)]
    touched = [params[i] != identity(in_sizes[i]) for i in range(rank)]

    def step_groups(active: set[int]) -> list[list[int]]:
        """Axes grouped: each touched axis of ``active`` alone, each run of the other (identity) axes together."""
        groups: list[list[int]] = []
        last_alone = True
        for i in range(rank):
            alone = touched[i] and i in active
            if alone or last_alone:
                groups.append([i])
            else:
                groups[-1].append(i)
            last_alone = alone
        return groups

    everything = set(range(rank))
    if len(step_groups(everything)) <= MAX_RANK:
        ranges = [everything]
    else:
        ranges = [set(range(s, min(s + 4, rank))) for s in range(0, rank, 4)]
    nodes = []
    current = list(in_sizes)
    for active in ranges:
        groups = step_groups(active)
        if len(groups) > MAX_RANK:
            return None
        after = [out_sizes[i] if i in active else current[i] for i in range(rank)]
        g_in = [math.prod(current[i] for i in g) for g in groups]
        g_out = [math.prod(after[i] for i in g) for g in groups]
        g_params = [params[g[0]] if len(g) == 1 and touched[g[0]] and g[0] in active else identity(n)
                    for g, n in zip(groups, g_in)]
        changes: dict = {n: tuple(int(p[k]) for p in g_params) for k, n in enumerate(names)}
        changes["input_tensor"] = _packed(node.input_tensor, g_in)
        changes["output_tensor"] = _packed(node.output_tensor, g_out)
        nodes.append(replace(node, **changes))
        current = after
    edges = [IntermediateEdge(k, 0, k + 1, 0) for k in range(len(nodes) - 1)]
    in_slot = next(i for i, (n, _) in enumerate(slots(node, "input")) if n == "InputTensor")
    out_slot = next(i for i, (n, _) in enumerate(slots(node, "output")) if n == "OutputTensor")
    derived = GraphDesc(tuple(nodes), (InputEdge(0, 0, in_slot),), tuple(edges),
                        (OutputEdge(len(nodes) - 1, out_slot, 0),), graph.input_names, graph.output_names)
    return Adaptation(derived, ((("as", 0),),), (("as", (0,)),), rank=True, kind="rank")


# ----------------------------------------------------------------------------------------------- the runner
FLIP = -2**31  # 0x80000000 as an int32


class Adapted:
    """The torch backend's runner for an :class:`Adaptation`: ``inner`` (a torch.Runner of the derived graph) runs
    it; this converts the original inputs and outputs at the boundary (CompiledOperator calls these methods as
    it calls a Runner's)."""

    def __init__(self, adaptation: Adaptation, inner, graph) -> None:
        self.adaptation = adaptation
        self.inner = inner
        self.torch = inner.torch
        self.device = inner.device
        self.upcast_float16 = inner.upcast_float16
        self.graph = graph
        if adaptation.compute is not None:
            self._derived_in, self._derived_out = list(adaptation.derived_in), list(adaptation.derived_out)
        else:
            self._derived_in = adaptation.graph.input_descs()
            self._derived_out = adaptation.graph.output_descs()

    def fast_path(self, wrap, keys):
        return None  # every call converts at the boundary

    def to_device(self, name: str, td, value) -> tuple:
        """The derived inputs ``value`` feeds, on the device (module docstring): a NumPy array re-encoded on the host;
        a torch tensor (the carrier torch-directml holds it in) passed on, or split on the host for lanes."""
        from .. import tensors

        torch = self.torch
        index = self.graph.input_names.index(name.rpartition(".")[2] if name not in self.graph.input_names else name)
        kinds = self.adaptation.inputs[index]
        if isinstance(value, torch.Tensor):
            if self.adaptation.rank:
                raise UnsupportedValue(
                    f"{name}: a torch tensor; on torch-directml dmlops runs this operator, whose tensors have more "
                    f"than {MAX_RANK} dimensions, on a view of at most {MAX_RANK} (torch-directml was measured with up "
                    f"to {MAX_RANK}), made on the host from NumPy arrays: pass NumPy arrays, or use "
                    "backend=\"directml\".")
            if all(kind == "as" for kind, _ in kinds):
                (_, j), = kinds
                return (self.inner.to_device(name, self._derived_in[j], value),)
            # lanes: the int64 carrier's values, split on the host (checked as the carrier path checks them)
            if value.device != self.device:
                raise DmlOpsError(f"{name}: the tensor is on {value.device}, the operator is compiled for "
                                  f"{self.device}; move it first (dmlops never moves data silently).")
            expected = torch.float64 if td.data_type.name == "FLOAT64" else torch.int64
            if value.dtype != expected:
                carrier = (" (torch-directml has no unsigned 16-, 32- or 64-bit tensors: dmlops carries them in int32 "
                           "and int64 tensors there)") if expected == torch.int64 else ""
                raise DmlOpsError(f"{name}: expected {td.data_type.name} data ({expected}{carrier}); got "
                                  f"{value.dtype}. dmlops never casts inputs; convert the tensor first.")
            tensors.check_array(td, value, name, shape=tuple(value.shape), dtype=td.data_type.numpy_dtype)
            value = value.cpu().contiguous().numpy().view(td.data_type.numpy_dtype)  # a move: the bits as they are
        array = tensors.numpy_input(td, value, name)
        out = []
        for kind, j in kinds:
            dtd = self._derived_in[j]
            if kind in ("lo", "hi"):  # the 64 bits (of an integer or a FLOAT64) split, as int32 bit patterns
                bits = np.ascontiguousarray(array).view(np.uint64)
                half = bits & np.uint64(0xFFFFFFFF) if kind == "lo" else bits >> np.uint64(32)
                part = half.astype(np.uint32).view(np.int32)
            else:
                part = array.astype(dtd.data_type.numpy_dtype) if dtd.data_type != td.data_type else array
                if self.adaptation.rank and not tensors.is_strided(dtd):
                    part = part.reshape(dtd.sizes)
            out.append(self.inner.to_device(name, dtd, part))
        return tuple(out)

    def __call__(self, feed: list) -> list:
        torch = self.torch
        flat = [v for values in feed for v in values]
        if self.adaptation.flip_inputs:
            with torch.no_grad():
                flat = [v ^ FLIP if i in self.adaptation.flip_inputs else v for i, v in enumerate(flat)]
        outs = self.inner(flat)
        if self.adaptation.flip_outputs:
            with torch.no_grad():
                outs = [v ^ FLIP if j in self.adaptation.flip_outputs else v for j, v in enumerate(outs)]
        return [tuple(outs[j] for j in derived) for _, derived in self.adaptation.outputs]

    def fresh(self, outs: list, feed: list) -> list:
        """Outputs never share memory with an input (the inner runner's rule, on the derived tensors)."""
        flat_in = [v for values in feed for v in values]
        flat_out = [v for values in outs for v in values]
        fresh = iter(self.inner.fresh(flat_out, flat_in))
        return [tuple(next(fresh) for _ in values) for values in outs]

    def _host(self, name: str, td, values: tuple) -> np.ndarray:
        """An output's values on the host in ``td``'s type and form (lanes joined)."""
        index = self.graph.output_names.index(name.rpartition(".")[2] if name not in self.graph.output_names
                                              else name)
        kind, derived = self.adaptation.outputs[index]
        if kind == "pair":
            lo, hi = (v.cpu().numpy() for v in values)
            bits = (hi.astype(np.int64) << np.int64(32)) | (lo.astype(np.int64) & np.int64(0xFFFFFFFF))
            return bits.view(td.data_type.numpy_dtype)  # the 64 bits, as the type's values
        # the inner runner's own output check (a carried index output beyond its carrier is refused there)
        array = self.inner.host_output(name, self._derived_out[derived[0]], values[0])
        if array.dtype != td.data_type.numpy_dtype:
            array = array.astype(td.data_type.numpy_dtype)  # INT32 bits of UINT32 (order)
        if self.adaptation.rank:
            array = array.reshape(td.sizes)
        return array

    def to_numpy(self, name: str, td, values: tuple) -> np.ndarray:
        from .. import tensors

        return tensors.numpy_output(td, self._host(name, td, values))

    def torch_output(self, name: str, td, values: tuple):
        """An output for a caller who passed torch tensors: on the device, in the carrier the inputs came in (lanes
        joined on the host and moved back: int64 values keep their bits in a move)."""
        index = self.graph.output_names.index(name.rpartition(".")[2] if name not in self.graph.output_names
                                              else name)
        kind, _ = self.adaptation.outputs[index]
        if kind == "pair":  # moved back in its carrier (int64; FLOAT64 as itself: a move computes nothing)
            host = np.ascontiguousarray(self._host(name, td, values))
            return self.torch.from_numpy(host if host.dtype == np.float64 else host.view(np.int64)).to(self.device)
        return self.inner.torch_output(name, self._derived_out[self.adaptation.outputs[index][1][0]], values[0])


__all__ = ["Adaptation", "Adapted", "LANE_OPS", "ORDER_OPS", "PAIR_OPS", "adapt", "inner_runner"]


def inner_runner(adaptation: Adaptation, make_runner, torch, device, label: str):
    """The runner of ``adaptation``'s derived computation: ``make_runner(graph)`` (a torch.Runner) for a derived
    graph, the pair function's own for "pairs"."""
    if adaptation.compute is not None:
        return _PairInner(adaptation, torch, device, label)
    return make_runner(adaptation.graph)
