"""Shape helpers shared by the check() hooks of the normalization, quantization, integer matrix
multiply and attention operators (MEAN_VARIANCE_NORMALIZATION*, *QUANTIZE*, MATRIX_MULTIPLY_INTEGER*,
QUANTIZED_LINEAR_MATRIX_MULTIPLY, MULTIHEAD_ATTENTION*).

Every helper returns Problems in the dmlops message shape and never raises: callers pass tensors
that may be absent (None) or of a rank the support tiers refuse, and the helpers then stay silent
(the generic validator reports ranks, data types and the 'same' constraints).
"""
from __future__ import annotations

from ..errors import Problem
from ..types import DataType, FeatureLevel
from ..validation import shape_problem, tensor
from ._shapes import broadcast_problem, sizes

FLOAT_TYPES = (DataType.FLOAT32, DataType.FLOAT16)

MATRIX_LEADING = {2: [], 3: ["ChannelCount"], 4: ["BatchCount", "ChannelCount"]}


def braces(names) -> str:
    """``{a, b, c}``, the docs' way of writing a shape."""
    return "{" + ", ".join(str(n) for n in names) + "}"


# ---------------------------------------------------------------- element counts, leading ones

def element_count_problems(desc, names, count: int = 1) -> list[Problem]:
    """Each present tensor in ``names`` holds exactly ``count`` elements (any DimensionCount)."""
    out = []
    for name in names:
        t = tensor(desc, name)
        if t is None or not t.sizes:
            continue
        if t.element_count != count:
            out.append(Problem(desc.OPERATOR_TYPE, name, "element_count",
                               f"Sizes {list(t.sizes)} hold {t.element_count} elements; exactly {count} "
                               f"{'is' if count == 1 else 'are'} expected."))
    return out


def lead_ones_problem(desc, name: str, expected: list[int], formula: list[str]) -> Problem | None:
    """``name``'s Sizes are ``expected``, optionally preceded by dimensions of size 1.

    The docs' "can also have 4 or 5 dimensions, as long as the leading dimensions are 1's". A tensor
    with fewer dimensions than ``expected`` is left to the support tiers.
    """
    t = tensor(desc, name)
    if t is None:
        return None
    found = list(t.sizes)
    extra = len(found) - len(expected)
    if extra < 0 or found == [1] * extra + list(expected):
        return None
    return shape_problem(desc, name, found, braces(["1"] * extra + list(formula)), [1] * extra + list(expected))


def same_sizes_problem(desc, name: str, reference: str) -> Problem | None:
    """``name`` has ``reference``'s Sizes (both present, same DimensionCount; otherwise silent)."""
    t, r = tensor(desc, name), tensor(desc, reference)
    if t is None or r is None or t.dimension_count != r.dimension_count or t.sizes == r.sizes:
        return None
    return shape_problem(desc, name, t.sizes, f"{reference} Sizes", r.sizes)


# ---------------------------------------------------------------- normalization Scale / Bias

def scale_bias_problems(desc, level, channel_before_4_0: bool = False) -> list[Problem]:
    """ScaleTensor / BiasTensor of the MVN family.

    Each dimension is 1 or InputTensor's (docs: "Any dimension can be replaced with 1"); below
    DML_FEATURE_LEVEL_4_0 MVN1's ChannelCount (dimension 1 of a 4-D tensor) may not be broadcast
    (``channel_before_4_0``); below DML_FEATURE_LEVEL_5_2 each of the two requires the other.
    """
    op = desc.OPERATOR_TYPE
    out = []
    x = sizes(tensor(desc, "InputTensor"))
    scale, bias = tensor(desc, "ScaleTensor"), tensor(desc, "BiasTensor")
    for name, t in (("ScaleTensor", scale), ("BiasTensor", bias)):
        if x is None or t is None or t.dimension_count != len(x):
            continue
        p = broadcast_problem(op, name, t, x, "InputTensor")
        if p:
            out.append(p)
        elif (channel_before_4_0 and level < FeatureLevel.FL_4_0 and len(x) == 4
              and t.sizes[1] != x[1]):
            out.append(Problem(op, name, "broadcast",
                               f"Sizes {list(t.sizes)} broadcast the ChannelCount dimension, which "
                               f"{level.dml_name} does not allow (expected: {x[1]}, InputTensor's ChannelCount); "
                               "DML_FEATURE_LEVEL_4_0 allows any dimension to be 1."))
    if level < FeatureLevel.FL_5_2 and (scale is None) != (bias is None):
        present, missing = ("ScaleTensor", "BiasTensor") if bias is None else ("BiasTensor", "ScaleTensor")
        out.append(Problem(op, present, "required",
                           f"is given without {missing}, which {level.dml_name} does not allow (both or neither); "
                           "DML_FEATURE_LEVEL_5_2 allows either alone."))
    return out


# ---------------------------------------------------------------- integer / quantized matrix multiply

def matmul_sizes(desc, a_name: str = "ATensor", b_name: str = "BTensor", out_name: str = "OutputTensor"):
    """(problems, M, N) for {[BatchCount], [ChannelCount], M, K} x {.., K, N} = {.., M, N}.

    ATensor defines the leading dimensions, M and K; BTensor defines N. M or N is None where the
    tensor that defines it is absent or of a rank the tiers refuse (2 to 4 dimensions).
    """
    out: list[Problem] = []
    a = sizes(tensor(desc, a_name))
    if a is None or len(a) not in MATRIX_LEADING:
        return out, None, None
    rank, lead, m, k = len(a), a[:-2], a[-2], a[-1]
    b = sizes(tensor(desc, b_name), rank)
    n = None
    if b is not None:
        n = b[-1]
        if b != lead + [k, n]:
            out.append(shape_problem(desc, b_name, b, braces(MATRIX_LEADING[rank] + ["K", "N"]), lead + [k, n]))
    y = sizes(tensor(desc, out_name), rank)
    if y is not None and n is not None and y != lead + [m, n]:
        out.append(shape_problem(desc, out_name, y, braces(MATRIX_LEADING[rank] + ["M", "N"]), lead + [m, n]))
    return out, m, n


def per_axis_problem(desc, name: str, count: int | None, row: bool) -> Problem | None:
    """A scale or zero-point tensor that is per-tensor {1, 1, 1, 1} or per-row {1, 1, M, 1} (``row``)
    / per-column {1, 1, 1, N}.

    Lower ranks drop leading dimensions ({M, 1}, {1, N}, {N}). A per-row tensor keeps at least {M, 1}:
    DirectML reads a 1-D tensor as its last dimension, so {M} would be per column (it refused a 1-D
    per-row AZeroPointTensor {4}, MATRIX_MULTIPLY_INTEGER sample_batched_3d_1d_zero_points, and 1-D
    per-row scales and zero points, QUANTIZED_LINEAR_MATRIX_MULTIPLY sample_one_d_parameters_uint8;
    ONNX Runtime's DirectML provider reshapes a 1-D A scale to {M, 1} before handing it over).
    ``count`` (M or N) is None when the matrix that defines it is absent; then only the per-tensor
    and the layout's 1s are checked.
    """
    t = tensor(desc, name)
    if t is None or not t.sizes:
        return None
    found = list(t.sizes)
    rank = len(found)
    if row and rank == 1 and found != [1]:
        detail = f"{{M, 1}} = [{count}, 1]" if count is not None else "{M, 1}"
        return Problem(desc.OPERATOR_TYPE, name, "shape",
                       f"Sizes {found} are neither per-tensor {{1}} nor per-row {detail}: DirectML reads a 1-D "
                       f"tensor along its last dimension (per column), so a per-row tensor has 2 or more "
                       f"dimensions.")
    letter = "M" if row else "N"
    axis = rank - 1 if not row else rank - 2
    others_one = all(s == 1 for i, s in enumerate(found) if i != axis)
    if others_one and (found[axis] == 1 or count is None or found[axis] == count):
        return None
    ones = ["1"] * rank
    layout = list(ones)
    layout[axis] = letter
    expected = [1] * rank
    expected[axis] = count if count is not None else 1
    kind = "per-row" if row else "per-column"
    detail = f"{braces(layout)} = {expected}" if count is not None else braces(layout)
    return Problem(desc.OPERATOR_TYPE, name, "shape",
                   f"Sizes {found} are neither per-tensor {braces(ones)} nor {kind} {detail}.")


def per_axis_problems(desc, rows: list[str], columns: list[str], m: int | None, n: int | None) -> list[Problem]:
    """``per_axis_problem`` for each present tensor: ``rows`` per-row (M), ``columns`` per-column (N)."""
    found = [per_axis_problem(desc, name, m, True) for name in rows]
    found += [per_axis_problem(desc, name, n, False) for name in columns]
    return [p for p in found if p]


# ---------------------------------------------------------------- QUANTIZE / DEQUANTIZE

def quantization_problems(desc, float_name: str, quantized_name: str) -> list[Problem]:
    """QuantizationType, QuantizationTensorCount and the QuantizationTensors of QUANTIZE / DEQUANTIZE.

    SCALE takes one tensor (the scale), SCALE_ZERO_POINT two (scale, zero point); NONE quantizes
    nothing. The scale has the DataType of the float tensor (``float_name``), the zero point that of
    the quantized tensor (``quantized_name``, INT4/UINT4/INT8/UINT8). Each quantization tensor
    dimension divides InputTensor's: 1, the full size, or a block count (equal blocks of size /
    count elements, as ONNX Runtime's MatMulNBits lowering uses it). OutputTensor has InputTensor's
    Sizes.
    """
    op = desc.OPERATOR_TYPE
    out = []
    kind = desc.quantization_type.name
    tensors = list(desc.quantization_tensors)
    expected_count = {"SCALE": 1, "SCALE_ZERO_POINT": 2}.get(kind)
    if expected_count is None:
        out.append(Problem(op, "QuantizationType", "enum",
                           f"{desc.quantization_type.dml_name} is not allowed "
                           "(allowed: DML_QUANTIZATION_TYPE_SCALE, DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT)."))
    elif len(tensors) != expected_count:
        what = "a scale tensor" if expected_count == 1 else "a scale and a zero-point tensor"
        out.append(Problem(op, "QuantizationTensorCount", "count",
                           f"{len(tensors)} tensor{'' if len(tensors) == 1 else 's'} given; "
                           f"{desc.quantization_type.dml_name} takes "
                           f"{expected_count} ({what})."))
    float_t, quant_t = tensor(desc, float_name), tensor(desc, quantized_name)
    roles = [("scale", float_t), ("zero point", quant_t)][:expected_count or 0]
    for i, (t, (role, ref)) in enumerate(zip(tensors, roles)):
        field = f"QuantizationTensors[{i}]"
        if ref is not None and t.data_type != ref.data_type:
            owner = float_name if role == "scale" else quantized_name
            out.append(Problem(op, field, "data_type",
                               f"the {role} has DataType {t.data_type.name}; it must have {owner}'s DataType "
                               f"{ref.data_type.name}."))
    x = sizes(tensor(desc, "InputTensor"))
    if x is not None:
        for i, t in enumerate(tensors):
            if t.dimension_count != len(x):
                continue
            bad = [f"dimension {d} is {s} (allowed: a divisor of {n})"
                   for d, (s, n) in enumerate(zip(t.sizes, x)) if s and n % s]
            if bad:
                out.append(Problem(op, f"QuantizationTensors[{i}]", "broadcast",
                                   f"Sizes {list(t.sizes)} do not divide InputTensor Sizes {x} into equal blocks: "
                                   f"{', '.join(bad)}."))
    p = same_sizes_problem(desc, "OutputTensor", "InputTensor")
    if p:
        out.append(p)
    return out


__all__ = [
    "FLOAT_TYPES", "braces", "element_count_problems", "lead_ones_problem", "same_sizes_problem",
    "scale_bias_problems", "matmul_sizes", "per_axis_problem", "per_axis_problems", "quantization_problems",
]
