"""What torch-directml runs on DirectML, how dmlops computes what it gets wrong, and what dmlops refuses there.

dmlops/data/torch_directml_ops.txt lists the aten overloads torch-directml 0.2.5.dev240914 registers (read from its
native module). An aten op missing there runs on the CPU with only a UserWarning ("... will fall back to run on the
CPU"); dmlops turns that warning into an error. What real torch-directml did (../shared/reference/real_directml/:
torch_directml_facts.md and the selftest's rows; tests/torch_directml_double.py models each):

* its tensors have no storage (OpaqueTensorImpl): nothing here reads one;
* uint16/uint32/uint64 tensors abort the process: those DataTypes travel in int32 / int64 carriers (CARRIERS),
  checked at run time (``carry`` / ``uncarry``): UINT16 / UINT32 data of operators exact on bits (BITS_OPS) as
  bits of any value, index tensors of operators that bound them saturated (SATURATING), other values within the
  carrier's range;
* integers, int64 ones included, are computed in 32 bits, and float64 arithmetic raises: a one-operator graph
  with INT64 / UINT64 data (or FLOAT64 data it only moves), UINT32 data it compares, or tensors of 7 or 8
  dimensions runs rewritten into 32-bit pieces where dmlops has an exact rewrite (torch_directml_adapt: lanes,
  pairs, flipped order, merged axes); otherwise INT64 and UINT64 are taken only for index, length and count
  tensors and for operators that only move, select or compare them (values within int32), and FLOAT64 tensors are
  refused for operators with inputs;
* ``neg``, ``sub``, one-sided int8 ``clamp``, ``constant_pad_nd``, grouped or dilated transposed convolutions,
  strided convolution inputs, 5-D ``index_select`` and the shifts come out wrong, raise, or fall back: ``workarounds``
  computes them through ops it gets right;
* 3-D convolution was never run there (dmlops refused it when the record was made): ``workarounds`` computes it
  as 2-D convolutions, which were;
* tensors of more than 6 dimensions (measured up to 6) that no rewrite merges are refused.

Descriptors that would need what cannot be worked around are refused at compile time on a ``dml`` device, each
problem naming the operator, the field and the reason, and pointing to backend="directml".
"""
from __future__ import annotations

import functools
import itertools
from pathlib import Path

import numpy as np

from ..errors import DmlOpsError, UnsupportedValue

LIST = Path(__file__).resolve().parent.parent / "data" / "torch_directml_ops.txt"

# facts.md: a rank-6 add ran (an older note said more than 5 dimensions aborted the process); beyond 6 is unmeasured.
MAX_RANK = 6
# Where INT64 / UINT64 tensors may go: index, length and count tensors, whose values are small (checked at run time
# below 2**31), unlike data, whose 64-bit arithmetic torch-directml computes in 32 bits ([2**40 + 1] + 1 gives 2).
INDEX_FIELDS = frozenset({"IndicesTensor", "BatchIndicesTensor", "SequenceLengthsTensor", "OutputIndexTensor",
                          "OutputIndicesTensor", "OutputCountTensor", "OutputCoordinatesTensor"})
INDEX_OUTPUTS = {"ARGMAX": "OutputTensor", "ARGMIN": "OutputTensor"}
TO_DIRECTML = 'Use backend="directml" (DirectML\'s own operator) or backend="onnxruntime" (its DirectML provider).'
FALLBACK = "fall back to run on the CPU"


@functools.cache
def registered() -> frozenset[str]:
    """The overload names torch-directml registers (``add.out``, ``relu``, ``where.self`` ...)."""
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _listed(base: str, overload: str) -> bool:
    have = registered()
    return f"{base}.{overload}" in have or (overload in ("", "default") and base in have)


def registers(func) -> bool:
    """Whether torch-directml registers a kernel of its own for the aten overload ``func`` (``convolution.default``
    is listed as ``convolution``)."""
    schema = func._schema
    return _listed(schema.name.removeprefix("aten::"), schema.overload_name)


def _inputs(schema) -> list[tuple[str, str]]:
    return [(a.name, str(a.type)) for a in schema.arguments if not a.is_out]


def _has_kernel(torch, qualified: str, key: str) -> bool:
    """Whether the dispatcher has a ``key`` kernel for ``qualified``; False for the metadata queries
    (``is_non_overlapping_and_dense``, ...) that Python dispatch sees but the dispatcher has no entry for."""
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)
    except RuntimeError:
        return False


def runs_on_directml(func) -> bool:
    """Whether torch-directml runs the aten overload ``func`` (an OpOverload) on DirectML: it registers the overload
    itself, or the ``out=`` overload a functional or in-place op's structured kernel is registered as, or the op has
    a backend-independent (composite) kernel that decomposes into other ops there."""
    import torch

    schema = func._schema
    name = schema.name.removeprefix("aten::")
    if registers(func):
        return True
    qualified = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
    if any(_has_kernel(torch, qualified, key) for key in ("CompositeExplicitAutograd", "CompositeImplicitAutograd")):
        return True
    base = name.removesuffix("_")  # in-place add_ shares add.out
    packet = getattr(torch.ops.aten, base, None)
    if packet is None:
        return False
    want = _inputs(schema)
    for other in packet.overloads():
        s = getattr(packet, other)._schema
        if any(a.is_out for a in s.arguments) and _inputs(s) == want and _listed(base, other):
            return True
    return False


# torch-directml has no uint16/uint32/uint64 tensors (they abort the process) and computes integers in 32 bits, int64
# ones included: on a dml device these DataTypes travel in signed tensors, and only values the carrier holds exactly
# and 32-bit arithmetic computes exactly are taken, checked at run time on every input and output.
CARRIERS = {"UINT16": "int32", "UINT32": "int32", "UINT64": "int64", "INT64": "int64"}
_LIMITS = {"UINT16": (0, 2**16), "UINT32": (0, 2**31), "UINT64": (0, 2**31), "INT64": (-2**31, 2**31)}
_RANGE_TEXT = {"UINT16": "0 to 65535", "UINT32": "0 to 2**31 - 1 (no top bit)", "UINT64": "0 to 2**31 - 1",
               "INT64": "-2**31 to 2**31 - 1"}


# Operators whose lowering is exact on the carriers' bits for UINT16 / UINT32 data of any value: they move
# elements (SLICE, GATHER's data, ...), or compute modulo 2**32 (ADD, MULTIPLY, bit operations, sums), which an
# int32 carrier does exactly; a UINT16 result is taken modulo 2**16. Their index tensors and every other
# operator's values stay within the carrier's range. Each is checked by the samples with extreme values
# (tests/test_torch_directml_double.py).
BITS_OPS = frozenset({
    "SLICE", "SLICE1", "SLICE_GRAD", "JOIN", "SPLIT", "TILE", "PADDING", "PADDING1", "DEPTH_TO_SPACE",
    "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1", "GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1",
    "SCATTER_ELEMENTS", "SCATTER_ND", "REVERSE_SUBSEQUENCES", "ELEMENT_WISE_IF", "MAX_UNPOOLING", "UNFOLD",
    "ONE_HOT", "ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY",
    "ELEMENT_WISE_BIT_AND", "ELEMENT_WISE_BIT_OR", "ELEMENT_WISE_BIT_XOR", "ELEMENT_WISE_BIT_NOT",
    "ELEMENT_WISE_LOGICAL_AND", "ELEMENT_WISE_LOGICAL_OR", "ELEMENT_WISE_LOGICAL_XOR", "ELEMENT_WISE_LOGICAL_NOT",
    "ELEMENT_WISE_LOGICAL_EQUALS", "CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT", "NONZERO_COORDINATES",
    # a << (b mod 32) in 32 bits (UINT16 keeps the low 16), a logical >> of the carrier's bits (their lowering's
    # int32 branch), a population count of the bits, sums of overlapping windows, a select of input elements and
    # Value (as bits), and REDUCE's modular functions below
    "ELEMENT_WISE_BIT_SHIFT_LEFT", "ELEMENT_WISE_BIT_SHIFT_RIGHT", "ELEMENT_WISE_BIT_COUNT", "FOLD",
    "DIAGONAL_MATRIX1", "REDUCE",
    # dequantizes its UINT32 operands and zero points to float32 from their bits' 16-bit halves (its lowering)
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT"})
# REDUCE computes modulo 2**32 only for these (the others divide, take roots, absolute values or compare).
_MODULAR_REDUCTIONS = ("SUM", "MULTIPLY", "SUM_SQUARE")
# Operators without inputs, which dmlops computes with NumPy or on the CPU and moves to the device (a move keeps
# every bit, int64 ones included): their outputs carry the bits of any value of any DataType.
HOST_OPS = frozenset({"FILL_VALUE_CONSTANT", "FILL_VALUE_SEQUENCE", "DIAGONAL_MATRIX"})


def bits_field(node, name: str) -> bool:
    """Whether ``node``'s tensor ``name`` may carry bits of any value: UINT16 / UINT32 of BITS_OPS, anything of
    HOST_OPS."""
    if node.OPERATOR_TYPE in HOST_OPS:
        return True
    if node.OPERATOR_TYPE == "REDUCE" and node.function.name not in _MODULAR_REDUCTIONS:
        return False
    if node.OPERATOR_TYPE == "CAST":
        return _cast_bits(node, name)
    return (node.OPERATOR_TYPE in BITS_OPS and not _index_field(node, name)
            and getattr(node, "scale_bias", None) is None)


# Index fields whose operator bounds every index before it uses it, so that all values beyond a bound give one
# result: dmlops.ops._indexing clamps indices to [-count - 1, count] before computing addresses (GATHER and the
# rest: UINT64 read as its two's complement INT64, as DirectML reads it); ONE_HOT turns every index outside
# [-n, n) into an all-OffValue sequence (UINT64 from 2**63 too: off); REVERSE_SUBSEQUENCES clamps lengths to 2n.
# With every tensor of the operator under 2**30 elements (so count + 1, n and 2n are below 2**31 - 1), an index
# saturated to int32's range (-2**31 .. 2**31 - 1) gives the same result as the index itself: the carrier takes
# such values saturated ("twos": UINT64 read as INT64 first; "unsigned": as the unsigned value).
SATURATING = {
    **{op: ("IndicesTensor", "twos") for op in ("GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1",
                                                 "SCATTER_ELEMENTS", "SCATTER_ND", "MAX_UNPOOLING")},
    "ONE_HOT": ("IndicesTensor", "unsigned"),
    "REVERSE_SUBSEQUENCES": ("SequenceLengthsTensor", "unsigned"),
}
_SATURATION_ELEMENTS = 2**30


def saturating_field(node, name: str) -> str | None:
    """How ``node``'s index tensor ``name`` is saturated into its carrier (``SATURATING``), or None."""
    rule = SATURATING.get(node.OPERATOR_TYPE)
    if rule is None or name != rule[0]:
        return None
    from ..graph import slots

    if any(td is not None and td.element_count >= _SATURATION_ELEMENTS
           for kind in ("input", "output") for _, td in slots(node, kind)):
        return None
    return rule[1]


def _saturated(array, data_type: str, rule: str):
    """An index array of UINT32 / UINT64 / INT64 saturated to int32's range, as its carrier (``SATURATING``)."""
    if data_type == "UINT64" and rule == "twos":
        wide = array.view(np.int64)
    elif data_type in ("UINT32", "UINT64"):
        wide = np.minimum(array, np.asarray(2**31 - 1, array.dtype)).astype(np.int64)
    else:
        wide = array.astype(np.int64)
    return np.clip(wide, -2**31, 2**31 - 1).astype(CARRIERS[data_type])


def _cast_bits(node, name: str) -> bool:
    """CAST's UINT32 tensors carry bits of any value when the other side is at most 32 bits wide: DirectML converts
    integers through a 32-bit register read with the target's signedness (dmlops.ops.cast), so a UINT32 input
    converts to an integer type as the INT32 of the same bits does (its lowering's int32 path), and to a float
    through its 16-bit halves (cast.to_torch's carrier branch); a UINT32 output's carrier holds the converted
    register's bits (a float of 2**31 and up through ``to_carrier``)."""
    src, dst = node.input_tensor.data_type.name, node.output_tensor.data_type.name
    narrow = ("INT64", "UINT64", "FLOAT64")
    if name == "InputTensor":
        return src == "UINT32" and dst not in narrow
    return dst == "UINT32" and src not in narrow


def _first_outside(array, data_type: str):
    lo, hi = _LIMITS[data_type]
    bad = (array < lo) | (array >= hi)
    if not bad.any():
        return None
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return index, array[index].item()


def carry(path: str, data_type: str, array, bits: bool = False, saturate: str | None = None):
    """A NumPy input of ``data_type`` (a CARRIERS key) as its carrier array, or an UnsupportedValue naming the first
    element the carrier cannot take; ``bits``: a UINT16 / UINT32 tensor of a BITS_OPS operator, carried as bits;
    ``saturate``: an index tensor whose operator bounds its values (``saturating_field``), carried saturated."""
    if bits and data_type in ("UINT16", "UINT32"):
        return array.astype(CARRIERS[data_type])  # C conversion: uint32 bits as int32
    if saturate is not None and data_type in ("UINT32", "UINT64", "INT64"):
        return _saturated(array, data_type, saturate)
    found = _first_outside(array, data_type)
    if found is not None:
        index, value = found
        raise UnsupportedValue(
            f"{path}: element {index} is {value}; on torch-directml dmlops carries {data_type} in "
            f"{CARRIERS[data_type]} tensors (torch-directml has no unsigned 16-, 32- or 64-bit tensors and computes "
            f"integers in 32 bits) and takes {_RANGE_TEXT[data_type]} only. Use backend=\"directml\" for this value.")
    return array.astype(CARRIERS[data_type])


def uncarry(path: str, data_type: str, array, bits: bool = False):
    """A carrier output as ``data_type``'s NumPy array, or an UnsupportedValue naming the first element the carrier cannot
    stand for (a UINT32 result needing the top bit: an int32 carrier cannot say whether it wrapped or saturated);
    ``bits``: a BITS_OPS or HOST_OPS output, whose carrier bits are the result (UINT16 taken modulo 2**16)."""
    if bits:
        return array.astype(np.dtype(data_type.lower()))  # C conversion: the low 16 / 32 / 64 bits
    found = _first_outside(array, data_type)
    if found is not None:
        index, value = found
        raise UnsupportedValue(
            f"{path}: element {index} came out as {value} in its {CARRIERS[data_type]} carrier; on torch-directml "
            f"dmlops returns {data_type} values of {_RANGE_TEXT[data_type]} only (torch-directml has no unsigned 16-, "
            f"32- or 64-bit tensors and computes integers in 32 bits). Use backend=\"directml\" for this result.")
    return array.astype(np.dtype(data_type.lower()))


def check_intermediate(path: str, data_type: str, value) -> None:
    """An UnsupportedValue naming the first element of ``value`` (a carrier tensor on the device that a node of a
    larger graph wrote and the next node reads) that its carrier cannot stand for; nothing when every element is in
    range. In a graph the next operator computes on the carrier's value (a UINT32 with its top bit set reads as a
    negative int32, a UINT16 sum of 65536 is not taken modulo 2**16), so such a value is refused where it is made, as
    a graph output's would be. One reduction and one read of a boolean when all is well."""
    lo, hi = _LIMITS[data_type]
    bad = value < lo
    if hi <= 2**31 - 1 or value.dtype.itemsize > 4:  # in an int32 carrier, the UINT32 bound is its own range
        bad = bad | (value >= hi)
    if not bool(bad.any()):
        return
    index, found = _first_outside(value.cpu().numpy(), data_type)
    raise UnsupportedValue(
        f"{path}: element {index} came out as {found} in its {CARRIERS[data_type]} carrier, and the "
        f"next operator of the graph reads it; on torch-directml dmlops takes {data_type} values of "
        f"{_RANGE_TEXT[data_type]} only between operators (torch-directml has no unsigned 16-, 32- or 64-bit tensors "
        "and computes integers in 32 bits). Use backend=\"directml\" for this graph.")


# Operators that only move, select or compare their data (no arithmetic on the values): with every INT64 / UINT64
# value within int32 (checked at run time), 32-bit integer arithmetic computes them exactly; their attributes must
# fit 32 bits too (_attributes_fit). CAST takes them as its input only. (MAX_POOLING is not one: its lowering pads
# with the type's lowest value, which 32 bits cannot hold; the double showed it with int_int64.)
RANGE_CLOSED_64 = frozenset({
    "SLICE", "SLICE1", "SLICE_GRAD", "JOIN", "SPLIT", "TILE", "PADDING", "PADDING1", "DEPTH_TO_SPACE",
    "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1", "GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1",
    "SCATTER_ELEMENTS", "SCATTER_ND", "REVERSE_SUBSEQUENCES", "ELEMENT_WISE_IF", "MAX_UNPOOLING", "UNFOLD",
    "ONE_HOT", "ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_MAX", "ELEMENT_WISE_MIN", "ARGMAX", "ARGMIN", "TOP_K",
    "TOP_K1", "ELEMENT_WISE_LOGICAL_EQUALS",
    "ELEMENT_WISE_LOGICAL_GREATER_THAN", "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
    "ELEMENT_WISE_LOGICAL_LESS_THAN", "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "ELEMENT_WISE_SIGN",
    "ELEMENT_WISE_CLIP", "ELEMENT_WISE_CLIP1", "ELEMENT_WISE_CLIP_GRAD", "ELEMENT_WISE_CLIP_GRAD1", "CAST",
    "REDUCE"})
_SELECTING_REDUCTIONS = ("MIN", "MAX", "ARGMIN", "ARGMAX")


def _attributes_fit(node) -> bool:
    """Whether ``node``'s numeric attributes (CLIP Min/Max, PADDING value, ...) fit 32-bit integers."""
    for field in ("min", "max", "padding_value", "value"):
        v = getattr(node, field, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not (v != v) and not -2**31 <= v < 2**31:
            return False
    return True


def _range_closed(node, name: str, kind: str) -> bool:
    """Whether a 64-bit integer tensor ``name`` of ``node`` is one 32-bit arithmetic computes exactly (see
    RANGE_CLOSED_64) when its values fit int32."""
    op = node.OPERATOR_TYPE
    if op not in RANGE_CLOSED_64 or getattr(node, "scale_bias", None) is not None or not _attributes_fit(node):
        return False
    if op == "CAST":
        return kind == "input"
    if op == "REDUCE":
        return getattr(node.function, "name", "") in _SELECTING_REDUCTIONS
    return True


def _index_field(node, name: str) -> bool:
    field = name.partition("[")[0]
    if field in INDEX_FIELDS or INDEX_OUTPUTS.get(node.OPERATOR_TYPE) == field:
        return True
    function = getattr(node, "function", None)  # REDUCE ARGMAX / ARGMIN
    return node.OPERATOR_TYPE == "REDUCE" and field == "OutputTensor" and getattr(function, "name", "") in (
        "ARGMAX", "ARGMIN")


def _why_not_closed(node) -> str:
    if node.OPERATOR_TYPE in RANGE_CLOSED_64 and getattr(node, "scale_bias", None) is not None:
        return " (this one has a ScaleBias)"
    if node.OPERATOR_TYPE in RANGE_CLOSED_64 and not _attributes_fit(node):
        return " (this one has an attribute beyond 32 bits)"
    return ""


def descriptor_problems(graph) -> list[str]:
    """Why ``graph`` cannot run through torch-directml (empty when it can), one problem per tensor: operator.Field,
    what was found and why torch-directml cannot compute it."""
    from ..graph import slots

    out = []
    for node in graph.nodes:
        op = node.OPERATOR_TYPE
        has_inputs = any(td is not None for _, td in slots(node, "input"))
        for kind in ("input", "output"):
            for name, td in slots(node, kind):
                if td is None:
                    continue
                dt = td.data_type.name
                if (dt in ("INT64", "UINT64") and has_inputs and not _index_field(node, name)
                        and not _range_closed(node, name, kind)):
                    out.append(f"{op}.{name}: DataType {dt}; torch-directml computes 64-bit integers in 32 bits "
                               "(int64 [2**40 + 1] + 1 gives [2]) and has no uint64 tensors, so dmlops takes "
                               f"INT64 and UINT64 there only for index, length and count tensors, for operators "
                               f"that only move, select or compare them{_why_not_closed(node)}, and for those it "
                               "computes in 32-bit pieces into packed outputs (torch_directml_adapt).")
                if dt == "FLOAT64" and has_inputs:
                    out.append(f"{op}.{name}: DataType FLOAT64; torch-directml computes nothing in float64 (\"The GPU "
                               "device does not support Double (Float64) operations!\").")
                if td.dimension_count > MAX_RANK:
                    out.append(f"{op}.{name}: {td.dimension_count} dimensions; torch-directml was measured with up to "
                               f"{MAX_RANK} (a rank-6 add ran; an older measurement aborted the process beyond 5).")
        if op == "RANDOM_GENERATOR":
            out.append(f"{op}.InputStateTensor: Philox needs the high half of 32 x 32-bit products, and torch-directml "
                       "computes integers, int64 ones included, in 32 bits; dmlops computes them from 16-bit halves "
                       "(torch_directml_adapt) into a packed OutputTensor and OutputStateTensor only.")
    return out


__all__ = ["registered", "registers", "runs_on_directml", "descriptor_problems", "FALLBACK", "MAX_RANK", "CARRIERS",
           "BITS_OPS", "HOST_OPS", "RANGE_CLOSED_64", "SATURATING", "bits_field", "saturating_field", "carry", "uncarry", "check_intermediate",
           "TO_DIRECTML"]


def recorder():
    """A TorchDispatchMode that records every aten overload a torch computation dispatches (``.ops``, in order), and
    the dtypes and ranks of the tensors it touches (``.dtypes``, ``.max_rank``). Ops that torch-directml runs only
    through a composite kernel are followed into that kernel, so what they decompose into is recorded too."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    explicit = torch._C.DispatchKey.CompositeExplicitAutograd

    class Recorder(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.ops: list = []
            self.dtypes: set = set()
            self.max_rank = 0

        def _note(self, values):
            for v in tree_flatten(values)[0]:
                if isinstance(v, torch.Tensor):
                    self.dtypes.add(v.dtype)
                    self.max_rank = max(self.max_rank, v.dim())

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            self.ops.append(func)
            self._note((args, kwargs))
            name = func._schema.name
            qualified = f"{name}.{func._schema.overload_name}" if func._schema.overload_name else name
            if not registers(func) and _has_kernel(torch, qualified, "CompositeExplicitAutograd"):
                with self:
                    out = func._op_dk(explicit, *args, **kwargs)
            else:
                out = func(*args, **kwargs)
            self._note(out)
            return out

    return Recorder()


__all__ += ["recorder"]


def workarounds():
    """A TorchDispatchMode (a new one each call; the class is made once) that computes, through ops torch-directml gets right, the aten ops it gets wrong: the
    selftest on real torch-directml 0.2.5 (../shared/reference/real_directml/) found each of these, and
    tests/torch_directml_double.py models them. Every rewrite gives what torch computes on the CPU, so the
    lowerings need not know they run on DirectML. Active while a Runner on a ``dml`` device runs.

    * ``neg``: torch-directml computes ``x * -1 + 0`` in float32 and converts back with saturation (-0.0 for +0.0
      lost, -(-2**31) = 2**31 - 1, -(2**31 - 1) = -2**31). Floats flip their sign bit (an xor on the bits);
      integers are ``~x + 1``, which wraps as torch's neg does.
    * ``sub`` / ``rsub``: computed as ``a + neg(b)`` there (uint8 ``5 - 3`` gives 5, ``-0.0 - 0.0`` gives +0.0);
      here as ``a + (-b)`` with the negation above. ``rsub`` with a Python float made a float64 tensor there
      ("The GPU device does not support Double"), which this never does.
    * int8 ``clamp`` with one bound: the missing bound came back as -1 (max) or 0 (min); int8 is clamped in int32.
    * ``constant_pad_nd``: torch-directml keeps one compiled kernel per shape and padding with the first padding
      value it saw (PADDING1 float32_constant_-0.0 came back padded with -7.5), and with no positive padding it
      returned wrong data (CONVOLUTION cross_correlation_1d_bias): here a ``full`` of the value with the input
      copied into its middle (negative paddings crop first).
    * ``convolution``: inputs are made contiguous (CONVOLUTION forward_2d_nhwc_strided_input read an NHWC-strided
      input wrongly); a transposed convolution with groups or dilation (E_INVALIDARG there) runs per group, a
      dilated one as one 1 x 1 transposed convolution per filter tap added at the tap's dilated offset
      (``transposed_by_taps``: nothing multiplies the dilation's gaps, so an infinite input stays where
      DirectML's dilated filter puts it).
      A 3-D convolution (never run there: dmlops refused it when the record was made) is one 2-D convolution
      per filter depth tap, the depths folded into the batch, summed (``convolution_3d``).
    * ``index_select`` on 5 or more dimensions (E_INVALIDARG there: UPSAMPLE_2D nearest_5d) runs on a 3-D view.
    * ``bitwise_left_shift`` / ``bitwise_right_shift`` (not registered: CPU fallback) are products and floor
      divisions by powers of two.
    * uint16 / uint32 / uint64 tensors (which abort the process there) asked for on the device (``.to``, ``view``,
      factories) are made in their carriers (CARRIERS) instead, and an integer fill beyond an int32 / int64 carrier
      is taken as the bits of the unsigned value it stands for; ``view`` between int16 and the int32 carrier of
      UINT16 (a view to another width needs a storage) narrows or zero-extends the 16 bits.
    """
    return _workarounds_class()()


@functools.cache
def _workarounds_class():
    """The class of :func:`workarounds`' mode (torch imported on first use)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    aten = torch.ops.aten

    def negate(x):
        if x.is_floating_point():  # x * -1 is exact but for zeros (no view(dtype): it needs a storage)
            zero = x == 0
            negative_zero = torch.tensor(-0.0, dtype=x.dtype).to(x.device)  # moved bits: -0.0 as it is
            flipped = torch.where(torch.reciprocal(x) < 0, torch.zeros_like(x), negative_zero)
            return torch.where(zero, flipped, x * -1)
        return torch.bitwise_not(x) + 1

    def deliver(func, args, out):
        """``out`` as ``func`` returns it: written into ``self`` for an in-place op."""
        return args[0].copy_(out) if func._schema.name.endswith("_") else out

    def neg(func, args, kwargs):
        if args[0].dtype == torch.bool or args[0].dtype == torch.float64:
            return func(*args, **kwargs)
        return deliver(func, args, negate(args[0]))

    def sub(func, args, kwargs):
        a, b = args[0], args[1]
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        if func._schema.name == "aten::rsub":
            a, b = b, a
        dtype = torch.result_type(a, b)
        if not isinstance(b, torch.Tensor):  # a Python number: negated exactly here
            b = b * alpha
            if dtype.is_floating_point or dtype == torch.bool:
                minus_b = -b
            else:  # an integer scalar wrapped into the tensor's type, as torch's sub wraps
                info = torch.iinfo(dtype)
                minus_b = (-b - info.min) % (info.max - info.min + 1) + info.min
            return deliver(func, args, torch.add(a, minus_b).to(dtype))
        b = b.to(dtype)
        if alpha != 1:
            b = b * alpha
        if not isinstance(a, torch.Tensor):  # rsub.Scalar: a number minus a tensor
            return deliver(func, args, torch.add(negate(b), a))
        return deliver(func, args, torch.add(a.to(dtype), negate(b)))

    def clamp(func, args, kwargs):
        x = args[0]
        if x.dtype != torch.int8:
            return func(*args, **kwargs)
        rest = [v.to(torch.int32) if isinstance(v, torch.Tensor) else v for v in args[1:]]
        kw = {k: (v.to(torch.int32) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
        functional = getattr(aten, func._schema.name.removeprefix("aten::").removesuffix("_"))
        overload = func._overloadname
        out = getattr(functional, overload)(x.to(torch.int32), *rest, **kw).to(torch.int8)
        return deliver(func, args, out)

    def constant_pad_nd(func, args, kwargs):
        x, pad = args[0], [int(p) for p in args[1]]
        value = args[2] if len(args) > 2 else kwargs.get("value", 0)
        v = x
        starts = [0] * x.dim()
        shape = list(x.shape)
        for i in range(len(pad) // 2):
            d = x.dim() - 1 - i
            s, e = pad[2 * i], pad[2 * i + 1]
            if s < 0:
                v = v.narrow(d, -s, v.shape[d] + s)
            if e < 0:
                v = v.narrow(d, 0, v.shape[d] + e)
            starts[d] = max(s, 0)
            shape[d] = v.shape[d] + max(s, 0) + max(e, 0)
        out = torch.full(shape, value, dtype=x.dtype, device=x.device)
        out[tuple(slice(s, s + n) for s, n in zip(starts, v.shape))] = v
        return out

    def convolution(func, args, kwargs):
        x, w, bias, stride, padding, dilation, transposed, output_padding, groups = args
        x, w = x.contiguous(), w.contiguous()
        if x.dim() == 5:
            return convolution_3d(func, x, w, bias, stride, padding, dilation, transposed, output_padding, groups)
        if not transposed or (groups == 1 and all(d == 1 for d in dilation)):
            return func(x, w, bias, stride, padding, dilation, transposed, output_padding, groups)
        xs, ws = x.chunk(groups, 1), w.chunk(groups, 0)
        bs = bias.chunk(groups, 0) if bias is not None else [None] * groups
        if all(d == 1 for d in dilation):
            ones = [1] * len(dilation)
            outs = [func(xi, wi, bi, stride, padding, ones, True, output_padding, 1) for xi, wi, bi in zip(xs, ws, bs)]
        else:
            outs = [transposed_by_taps(func, xi, wi, bi, stride, padding, dilation, output_padding)
                    for xi, wi, bi in zip(xs, ws, bs)]
        return torch.cat(outs, 1) if groups > 1 else outs[0]

    def transposed_by_taps(func, x, w, bias, stride, padding, dilation, output_padding):
        """A dilated transposed convolution of one group as one 1 x 1 transposed convolution per filter tap, each
        added into the full output at the tap's dilated offset, then cut to [padding, padding + size) (zeros past
        the full output's end: output_padding). The dilation's gaps are never multiplied: zeros written into the
        filter between its taps would make an infinite input NaN there, where DirectML's dilated filter skips it."""
        spatial, taps, n = list(x.shape[2:]), list(w.shape[2:]), x.dim() - 2
        full = [(i - 1) * s + d * (k - 1) + 1 for i, s, d, k in zip(spatial, stride, dilation, taps)]
        size = [f - 2 * p + o for f, p, o in zip(full, padding, output_padding)]
        out = torch.zeros([x.shape[0], w.shape[1]] + [max(f, p + z) for f, p, z in zip(full, padding, size)],
                          dtype=x.dtype, device=x.device)
        for tap in itertools.product(*(range(k) for k in taps)):
            one = w[(slice(None), slice(None), *(slice(t, t + 1) for t in tap))].contiguous()
            y = func(x, one, None, stride, [0] * n, [1] * n, True, [0] * n, 1)
            out[(slice(None), slice(None), *(slice(t * d, t * d + (i - 1) * s + 1)
                                             for t, d, i, s in zip(tap, dilation, spatial, stride)))] += y
        out = out[(slice(None), slice(None), *(slice(p, p + z) for p, z in zip(padding, size)))]
        return out if bias is None else out + bias.reshape([1, -1] + [1] * n)

    def convolution_3d(func, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
        """A 3-D convolution as one 2-D convolution per filter depth tap over all depths at once (the depth folded
        into the batch), summed: forward, output depth o reads input depth o * stride + k * dilation - padding;
        transposed, input depth i writes output depth i * stride + k * dilation of the full output, which is then
        cut to [padding, padding + size) (zeros past its end: output_padding). The bias is added once."""
        n, depth = x.shape[0], x.shape[2]
        (sd, *s2), (pd, *p2), (dd, *d2), (od, *o2) = stride, padding, dilation, output_padding
        taps = w.shape[2]

        def plane(xs, k, pad):  # (n, c, m, h, w) -> (n, out channels, m, h', w') through tap k of the filter
            m = xs.shape[2]
            flat = xs.permute(0, 2, 1, 3, 4).reshape(n * m, xs.shape[1], xs.shape[3], xs.shape[4])
            y = convolution(func, (flat, w[:, :, k], None, s2, pad, d2, transposed, o2, groups), {})
            return y.reshape(n, m, *y.shape[1:]).permute(0, 2, 1, 3, 4)

        if not transposed:
            # Zeros around all three spatial dimensions, read by the taps as the 3-D convolution reads them (a 2-D
            # depthwise kernel would skip padded taps: an infinite filter tap there gives NaN, not 0).
            size = (depth + 2 * pd - dd * (taps - 1) - 1) // sd + 1
            ph, pw = p2
            padded = torch.zeros(list(x.shape[:2]) + [depth + 2 * pd, x.shape[3] + 2 * ph, x.shape[4] + 2 * pw],
                                 dtype=x.dtype, device=x.device)
            padded[:, :, pd:pd + depth, ph:ph + x.shape[3], pw:pw + x.shape[4]] = x
            out = None
            for k in range(taps):
                y = plane(padded[:, :, k * dd:k * dd + sd * (size - 1) + 1:sd], k, [0, 0])
                out = y if out is None else out + y
        else:
            full = (depth - 1) * sd + dd * (taps - 1) + 1
            size = full - 2 * pd + od
            out = None
            for k in range(taps):
                y = plane(x, k, p2)
                if out is None:
                    out = torch.zeros(list(y.shape[:2]) + [max(full, pd + size)] + list(y.shape[3:]),
                                      dtype=y.dtype, device=y.device)
                out[:, :, k * dd:k * dd + sd * (depth - 1) + 1:sd] += y
            out = out[:, :, pd:pd + size]
        if bias is not None:
            out = out + bias.reshape(1, -1, 1, 1, 1)
        return out.contiguous()

    def index_select(func, args, kwargs):
        x, dim, index = args
        if x.dim() < 5:
            return func(*args, **kwargs)
        dim %= x.dim()
        shape = list(x.shape)
        before = 1
        for n in shape[:dim]:
            before *= n
        flat = x.reshape(before, shape[dim], -1)
        return func(flat, 1, index).reshape(shape[:dim] + [index.numel()] + shape[dim + 1:])

    def shift(func, args, kwargs):
        """``<<`` and ``>>`` (bitwise_left_shift / bitwise_right_shift, which torch-directml does not register) as
        products and floor divisions by powers of two; a shift by the width or more, or by a negative amount,
        gives what torch gives on the CPU (0, or -1 for a negative value shifted right)."""
        x, amount = args[0], args[1]
        if not isinstance(x, torch.Tensor) or x.is_floating_point() or x.dtype == torch.bool:
            return func(*args, **kwargs)
        bits = torch.iinfo(x.dtype).bits
        right = "right" in func._schema.name or "rshift" in func._schema.name
        amount = torch.as_tensor(amount, device=x.device).to(x.dtype) if not isinstance(amount, torch.Tensor) \
            else amount.to(x.dtype)
        inside = (amount >= 0) & (amount < bits)
        k = torch.where(inside, amount, torch.zeros_like(amount)).to(torch.int64)
        table = [1 << i for i in range(bits)]
        if x.is_signed():  # the top power as the type's bits (2**(bits - 1) wraps to its lowest value)
            table[-1] = -(1 << (bits - 1))
        powers = torch.as_tensor(table, dtype=x.dtype, device=x.device)
        power = powers.index_select(0, k.reshape(-1)).reshape(k.shape)
        if not right:
            out = torch.where(inside, x * power, torch.zeros_like(x * power))
        else:
            top = x.is_signed() and bits > 1
            safe = torch.where(k == bits - 1, torch.ones_like(power), power) if top else power
            q = torch.div(x, safe, rounding_mode="floor")
            if top:  # by 2**(bits - 1): -1 for negative values, 0 otherwise
                q = torch.where(k == bits - 1, torch.where(x < 0, -torch.ones_like(q), torch.zeros_like(q)), q)
            beyond = torch.where(x < 0, -torch.ones_like(q), torch.zeros_like(q)) if x.is_signed() \
                else torch.zeros_like(q)
            out = torch.where(inside, q, beyond)
        return deliver(func, args, out.to(x.dtype))

    fixes = {aten.bitwise_left_shift: shift, aten.bitwise_right_shift: shift, aten.__lshift__: shift,
             aten.__rshift__: shift, aten.bitwise_left_shift_: shift, aten.bitwise_right_shift_: shift,
             aten.__ilshift__: shift, aten.__irshift__: shift, aten.neg: neg, aten.neg_: neg, aten.sub: sub, aten.sub_: sub, aten.rsub: sub,
             aten.clamp: clamp, aten.clamp_: clamp, aten.clamp_min: clamp, aten.clamp_min_: clamp,
             aten.clamp_max: clamp, aten.clamp_max_: clamp, aten.constant_pad_nd: constant_pad_nd,
             aten.convolution: convolution, aten.index_select: index_select}

    unsigned = {torch.uint16: torch.int32, torch.uint32: torch.int32, torch.uint64: torch.int64}

    def on_device(device) -> bool:
        return device is not None and torch.device(device).type != "cpu"

    def to_carrier(func, args, kwargs):
        """``_to_copy`` to a uint16/32/64 tensor on the device: its carrier instead (bits of uint32/uint64 values,
        uint16 zero-extended). A float of 2**31 to 2**32 for a uint32 gives its bits, ``value - 2**32`` converted
        (exact in float32: both are multiples of 2**8, the difference within int32); any other float beyond the
        carrier becomes -1, whose top bit the output check refuses."""
        src = args[0]
        target = kwargs.get("dtype") or src.dtype
        if target not in unsigned or not on_device(kwargs.get("device") or src.device):
            return None
        carrier = unsigned[target]
        if src.is_floating_point() and target == torch.uint32:
            high = src >= float(2**31)
            shifted = torch.where(high, src - float(2**32), src)
            out = torch.where(src >= float(2**32), -1, func(shifted, *args[1:], **{**kwargs, "dtype": carrier}))
        elif src.is_floating_point():
            big = src >= float(2**31) if target != torch.uint16 else src >= float(2**16)
            out = torch.where(big, -1, func(src, *args[1:], **{**kwargs, "dtype": carrier}))
        else:
            out = func(src, *args[1:], **{**kwargs, "dtype": carrier})
        return out & 0xFFFF if target == torch.uint16 and src.dtype != torch.uint16 else out

    def view_carrier(func, args, kwargs):
        """``view(uint16/32/64)`` on the device: a carrier of the same width is its own view; int16 bits become a
        zero-extended int32 (a copy). Anything else goes on to torch-directml as asked."""
        src, target = args
        if not on_device(src.device):
            return None
        # A view to another width cannot be made there (view(dtype) needs a storage); between the int32 carrier
        # of UINT16 and int16 bits it is the same 16 bits, narrowed or zero-extended element by element.
        if src.dtype == torch.int32 and target == torch.int16:
            return (((src + 2**15) & 0xFFFF) - 2**15).to(torch.int16)
        if src.dtype == torch.int16 and target == torch.int32:
            return src.to(torch.int32) & 0xFFFF
        if target not in unsigned:
            return None
        if target == torch.uint16 and src.dtype == torch.int16:
            return src.to(torch.int32) & 0xFFFF
        if src.dtype == unsigned[target] and target != torch.uint16:
            return src
        return None

    def wrap_fill(func, args, kwargs):
        """``full`` / ``full_like`` / ``fill_`` of an integer carrier with a value beyond its type (a uint32 or uint64
        value meant for the tensor the carrier stands for): the value's bits."""
        position = 1 if func._schema.name in ("aten::full", "aten::full_like", "aten::fill_") else None
        if position is None or len(args) <= position:
            return None
        value = args[position]
        dtype = kwargs.get("dtype") or (args[0].dtype if isinstance(args[0], torch.Tensor) else None)
        if (not isinstance(value, int) or isinstance(value, bool) or dtype not in (torch.int32, torch.int64)
                or torch.iinfo(dtype).min <= value <= torch.iinfo(dtype).max):
            return None
        bits = torch.iinfo(dtype).bits
        value %= 2**bits
        value -= 2**bits if value >= 2**(bits - 1) else 0
        return func(*args[:position], value, *args[position + 1:], **kwargs)

    def factory_carrier(func, args, kwargs):
        """A factory or ``*_like`` asked for a uint16/32/64 tensor on the device: one of the carrier, a fill value
        wrapped to the carrier's bits."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device") or next((a.device for a in args if isinstance(a, torch.Tensor)), None)
        if dtype not in unsigned or not on_device(device):
            return None
        carrier = unsigned[dtype]
        bits = 16 if dtype == torch.uint16 else torch.iinfo(carrier).bits
        args = [((a % 2**bits) - (2**bits if a % 2**bits >= 2**(bits - 1) and dtype != torch.uint16 else 0))
                if isinstance(a, int) and not isinstance(a, bool) and func._schema.name in ("aten::full",
                                                                                            "aten::full_like",
                                                                                            "aten::scalar_tensor")
                else a for a in args]
        return func(*args, **{**kwargs, "dtype": carrier})

    class Workarounds(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if isinstance(kwargs.get("dtype"), torch.dtype) and kwargs["dtype"] in unsigned:
                out = (to_carrier if func is aten._to_copy.default else factory_carrier)(func, args, kwargs)
                if out is not None:
                    return out
            if func is aten.view.dtype:
                out = view_carrier(func, args, kwargs)
                if out is not None:
                    return out
            if func.overloadpacket in (aten.full, aten.full_like, aten.fill_):
                out = wrap_fill(func, args, kwargs)
                if out is not None:
                    return out
            if func is aten._to_copy.default and args[0].dtype in unsigned and "dtype" not in kwargs:
                out = to_carrier(func, args, kwargs)
                if out is not None:
                    return out
            fix = fixes.get(func.overloadpacket)
            if fix is None or "out" in kwargs:
                return func(*args, **kwargs)
            return fix(func, args, kwargs)

    return Workarounds


__all__ += ["workarounds"]
