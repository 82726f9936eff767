"""Shape rules shared by the data-movement, gather/scatter, selection, generator and scan operators' check()
hooks (SPLIT, PADDING, TILE, GATHER*, SCATTER*, ONE_HOT, SPACE_TO_DEPTH, DEPTH_TO_SPACE, REVERSE_SUBSEQUENCES,
SLICE_GRAD, DIAGONAL_MATRIX1, FILL_VALUE_SEQUENCE, NONZERO_COORDINATES, TOP_K, ARGMIN/ARGMAX, CUMULATIVE_*).

Every helper returns a list of Problems in the dmlops message shape (``OP.Field: what was found; what is
allowed.``) and never raises: a tensor that is absent, or not of the rank a relation needs, is skipped (the
generic validator already reports missing tensors, wrong ranks and DimensionCount differences).
"""
from __future__ import annotations

from ..errors import Problem
from ..schema import snake_case
from ..validation import shape_problem, tensor
from ._shapes import sizes


def rank(desc, name: str) -> int | None:
    """DimensionCount of tensor ``name``, or None when it is absent or has no dimensions."""
    t = tensor(desc, name)
    return t.dimension_count if t is not None and t.dimension_count else None


def _listing(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def axis_problems(desc, axis: int, rank_: int | None, tensor_field: str = "InputTensor",
                  field: str = "Axis") -> list[Problem]:
    """A single axis (``Axis``) must be in [0, DimensionCount - 1] of ``tensor_field``."""
    if rank_ is None or axis < rank_:
        return []
    return [Problem(desc.OPERATOR_TYPE, field, "axis", f"{axis} is out of range for a {rank_}-dimensional "
                                                       f"{tensor_field} (allowed: 0 to {rank_ - 1}).")]


def axes_problems(desc, axes, rank_: int | None, tensor_field: str = "InputTensor") -> list[Problem]:
    """Each value of ``Axes`` must be in [0, DimensionCount - 1] of ``tensor_field`` (repeats are allowed)."""
    if rank_ is None:
        return []
    return [Problem(desc.OPERATOR_TYPE, f"Axes[{i}]", "axis",
                    f"{a} is out of range for a {rank_}-dimensional {tensor_field} (allowed: 0 to {rank_ - 1}).")
            for i, a in enumerate(axes) if a >= rank_]


def count_problems(desc, count_field: str, arrays, count: int, rank_: int | None,
                   tensor_field: str = "InputTensor") -> list[Problem]:
    """``count_field`` (the length of ``arrays``) must equal ``tensor_field``'s DimensionCount."""
    if rank_ is None or count == rank_:
        return []
    return [Problem(desc.OPERATOR_TYPE, count_field, "dimension_count",
                    f"{count} (the length of {_listing(arrays)}) does not match {tensor_field}'s DimensionCount "
                    f"{rank_}; they must be equal.")]


def same_rank_problems(desc, ref: str, field: str) -> list[Problem]:
    """Tensor ``field`` must have ``ref``'s DimensionCount (for operators whose descriptor lacks the rule)."""
    r, t = tensor(desc, ref), tensor(desc, field)
    if r is None or t is None or r.dimension_count == t.dimension_count:
        return []
    return [Problem(desc.OPERATOR_TYPE, field, "dimension_count",
                    f"DimensionCount {t.dimension_count} does not match {ref}'s DimensionCount {r.dimension_count}; "
                    "they must be equal.")]


def same_sizes_problems(desc, ref: str, field: str) -> list[Problem]:
    """Tensor ``field`` must have ``ref``'s Sizes (skipped when either is absent or their ranks differ)."""
    r = sizes(tensor(desc, ref))
    return [] if r is None else expected_problems(desc, field, f"{ref}.Sizes", r)


def expected_problems(desc, field: str, formula: str, expected) -> list[Problem]:
    """Tensor ``field`` must have Sizes ``expected`` (skipped when absent or of another rank)."""
    found = sizes(tensor(desc, field), len(expected))
    if found is None or found == list(expected):
        return []
    return [shape_problem(desc, field, found, formula, expected)]


def outside_axis_problems(desc, field: str, found, ref_field: str, ref, axis: int) -> list[Problem]:
    """``found`` (Sizes of ``field``) must equal ``ref`` (Sizes of ``ref_field``) in every dimension but ``axis``."""
    bad = [i for i, (f, r) in enumerate(zip(found, ref)) if i != axis and f != r]
    if not bad:
        return []
    dims = ", ".join(f"dimension {i} is {found[i]} (expected {ref[i]})" for i in bad)
    return [Problem(desc.OPERATOR_TYPE, field, "shape",
                    f"Sizes {list(found)} must match {ref_field} Sizes {list(ref)} in every dimension but "
                    f"Axis {axis}: {dims}.")]


def size_problems(desc, field: str, found, axis: int, expected: int) -> list[Problem]:
    """Sizes[axis] of ``field`` (Sizes ``found``) must be ``expected``."""
    if found[axis] == expected:
        return []
    return [Problem(desc.OPERATOR_TYPE, field, "shape",
                    f"Sizes[{axis}] is {found[axis]}; it must be {expected} along Axis {axis}.")]


def positive_problems(desc, field: str, values, why: str) -> list[Problem]:
    """Each value of the array ``field`` must be at least 1."""
    return [Problem(desc.OPERATOR_TYPE, f"{field}[{i}]", "range", f"0 is not allowed (allowed: 1 or more; {why}).")
            for i, v in enumerate(values) if v == 0]


def leading_ones_problems(desc, field: str, found, keep: int, last: str) -> list[Problem]:
    """Every dimension of ``found`` (Sizes of ``field``) before its last ``keep`` must be 1; ``last`` names
    those kept dimensions in the message (``IndexDimensions = 2``)."""
    bad = [f"dimension {i} is {s}" for i, s in enumerate(found[:max(len(found) - keep, 0)]) if s != 1]
    if not bad:
        return []
    return [Problem(desc.OPERATOR_TYPE, field, "shape",
                    f"Sizes {list(found)}: {', '.join(bad)}; the dimensions before the last {last} must be 1.")]


def value_type_problems(desc, value_field: str, tensor_field: str = "OutputTensor") -> list[Problem]:
    """A scalar's data-type field (ValueDataType, PaddingValueDataType) must match ``tensor_field``'s DataType."""
    t = tensor(desc, tensor_field)
    value = getattr(desc, snake_case(value_field))
    if t is None or value == t.data_type:
        return []
    return [Problem(desc.OPERATOR_TYPE, value_field, "data_type",
                    f"{value.name} does not match {tensor_field}'s DataType {t.data_type.name}; they must be equal.")]


def dimension_count_range_problems(desc, field: str, value: int, low: int, high: int | None,
                                   high_text: str) -> list[Problem]:
    """A count attribute (InputDimensionCount, BatchDimensionCount, IndexDimensions) must be in [low, high]."""
    if high is None or low <= value <= high:
        return []
    return [Problem(desc.OPERATOR_TYPE, field, "range", f"{value} is out of range (allowed: {low} to {high}, "
                                                        f"{high_text}).")]


def right_aligned_problems(desc, field: str, formula: str, relevant: list[int]) -> list[Problem]:
    """Sizes of ``field`` = ``relevant`` (the sizes ``formula`` gives) right-aligned and padded with leading 1s
    to its DimensionCount, which must be large enough to hold them."""
    t = tensor(desc, field)
    if t is None or not t.dimension_count:
        return []
    n = t.dimension_count
    if len(relevant) > n:
        return [Problem(desc.OPERATOR_TYPE, field, "dimension_count",
                        f"{n} dimensions cannot hold the {len(relevant)} relevant dimensions of {formula} = "
                        f"{list(relevant)} (allowed: at least {len(relevant)}).")]
    expected = [1] * (n - len(relevant)) + list(relevant)
    if list(t.sizes) == expected:
        return []
    return [shape_problem(desc, field, t.sizes, formula, expected)]


def block_problems(desc, depth_to_space: bool) -> list[Problem]:
    """SPACE_TO_DEPTH(1) / DEPTH_TO_SPACE(1): BlockSize >= 1, the divisibility of the input, the output Sizes."""
    op, b = desc.OPERATOR_TYPE, desc.block_size
    if b == 0:
        return [Problem(op, "BlockSize", "range", "0 is not allowed (allowed: 1 or more).")]
    x = sizes(tensor(desc, "InputTensor"), 4)
    if x is None:
        return []
    n, c, h, w = x
    out = []
    if depth_to_space:
        if c % (b * b):
            out.append(Problem(op, "InputTensor", "shape",
                               f"InputChannelCount (Sizes[1]) {c} is not divisible by BlockSize * BlockSize = "
                               f"{b * b}."))
            return out
        return out + expected_problems(desc, "OutputTensor", "{BatchCount, InputChannelCount / (BlockSize * "
                                       "BlockSize), InputHeight * BlockSize, InputWidth * BlockSize}",
                                       [n, c // (b * b), h * b, w * b])
    for i, name in ((2, "Height"), (3, "Width")):
        if x[i] % b:
            out.append(Problem(op, "InputTensor", "shape",
                               f"{name} (Sizes[{i}]) {x[i]} is not divisible by BlockSize {b}."))
    if out:
        return out
    return expected_problems(desc, "OutputTensor", "{Batch, Channels * BlockSize * BlockSize, Height / BlockSize, "
                             "Width / BlockSize}", [n, c * b * b, h // b, w // b])


# ----------------------------------------------------------------------------------------------- families
def padding_problems(desc) -> list[Problem]:
    """PADDING(1): DimensionCount = InputTensor's; OutputTensor.Sizes = InputTensor.Sizes + StartPadding +
    EndPadding."""
    start, end = list(desc.start_padding), list(desc.end_padding)
    x = sizes(tensor(desc, "InputTensor"))
    if not x or len(start) != len(end):
        return []  # the generic validator reports arrays of different lengths
    out = count_problems(desc, "DimensionCount", ("StartPadding", "EndPadding"), len(start), len(x))
    if out:
        return out
    return expected_problems(desc, "OutputTensor", "InputTensor.Sizes + StartPadding + EndPadding",
                             [s + a + b for s, a, b in zip(x, start, end)])


def top_k_problems(desc) -> list[Problem]:
    """TOP_K(1): Axis in range; 1 <= K <= InputTensor.Sizes[Axis]; both outputs are InputTensor with
    Sizes[Axis] = K."""
    op, axis, k = desc.OPERATOR_TYPE, desc.axis, desc.k
    out = [Problem(op, "K", "range", "0 is not allowed (allowed: 1 or more).")] if k == 0 else []
    x = sizes(tensor(desc, "InputTensor"))
    if not x:
        return out
    bad_axis = axis_problems(desc, axis, len(x))
    if bad_axis:
        return out + bad_axis
    if k > x[axis]:
        out.append(Problem(op, "K", "range", f"{k} exceeds InputTensor's Sizes[{axis}] = {x[axis]}, the number of "
                                             f"elements along Axis (allowed: 1 to {x[axis]})."))
    expected = x[:axis] + [k] + x[axis + 1:]
    for name in ("OutputValueTensor", "OutputIndexTensor"):
        out += expected_problems(desc, name, f"InputTensor Sizes with Sizes[{axis}] = K", expected)
    return out


def arg_problems(desc) -> list[Problem]:
    """ARGMIN / ARGMAX: Axes in range; OutputTensor is InputTensor with the reduced Axes set to 1."""
    x = sizes(tensor(desc, "InputTensor"))
    if not x:
        return []
    out = axes_problems(desc, desc.axes, len(x))
    if out:
        return out
    text = ", ".join(map(str, desc.axes))
    return expected_problems(desc, "OutputTensor", f"InputTensor Sizes with Axes {{{text}}} set to 1",
                             [1 if i in desc.axes else s for i, s in enumerate(x)])


def elements_problems(desc, scatter: bool) -> list[Problem]:
    """GATHER_ELEMENTS / SCATTER_ELEMENTS: Axis in range; IndicesTensor equals InputTensor outside Axis; the
    gathered OutputTensor, or the scattered UpdatesTensor, has IndicesTensor's Sizes; a scatter's OutputTensor
    has InputTensor's."""
    x = sizes(tensor(desc, "InputTensor"))
    if not x:
        return []
    out = axis_problems(desc, desc.axis, len(x))
    if out:
        return out
    i = sizes(tensor(desc, "IndicesTensor"), len(x))
    if i is not None:
        out += outside_axis_problems(desc, "IndicesTensor", i, "InputTensor", x, desc.axis)
    if scatter:
        return (out + same_sizes_problems(desc, "IndicesTensor", "UpdatesTensor")
                + same_sizes_problems(desc, "InputTensor", "OutputTensor"))
    return out + same_sizes_problems(desc, "IndicesTensor", "OutputTensor")


def meaningful_sizes(desc, field: str, count_field: str, count: int,
                     low: int = 1) -> tuple[list[int] | None, list[Problem]]:
    """The last ``count`` Sizes of ``field`` (its meaningful dimensions), after checking that ``count`` is in
    [low, DimensionCount] and that the dimensions before them are 1; None when ``field`` is absent or invalid."""
    t = tensor(desc, field)
    if t is None or not t.dimension_count:
        return None, []
    n = t.dimension_count
    out = dimension_count_range_problems(desc, count_field, count, low, n, f"{field}'s DimensionCount is {n}")
    if out:
        return None, out
    found = list(t.sizes)
    out = leading_ones_problems(desc, field, found, count, f"{count_field} = {count}")
    return (None if out else found[n - count:]), out


def nd_problems(desc, scatter: bool) -> list[Problem]:
    """GATHER_ND, GATHER_ND1, SCATTER_ND: the dimension counts, the index tuple size, and the right-aligned Sizes
    {1..., IndicesTensor's meaningful Sizes but the last, InputTensor's meaningful Sizes after the batch and the
    indexed dimensions} of OutputTensor (gather) or UpdatesTensor (scatter)."""
    op = desc.OPERATOR_TYPE
    batch = getattr(desc, "batch_dimension_count", 0)
    x, out = meaningful_sizes(desc, "InputTensor", "InputDimensionCount", desc.input_dimension_count)
    i, found = meaningful_sizes(desc, "IndicesTensor", "IndicesDimensionCount", desc.indices_dimension_count)
    out += found
    if batch:
        for field, count in (("InputDimensionCount", desc.input_dimension_count),
                             ("IndicesDimensionCount", desc.indices_dimension_count)):
            if batch >= count:
                out.append(Problem(op, "BatchDimensionCount", "range",
                                   f"{batch} is not less than {field} {count} (allowed: 0 to {count - 1})."))
    if x is None or i is None or out:
        if scatter:
            out += same_sizes_problems(desc, "InputTensor", "OutputTensor")
        return out
    k = i[-1]
    most = len(x) - batch
    if k > most:
        what = ("InputDimensionCount - BatchDimensionCount" if hasattr(desc, "batch_dimension_count")
                else "InputDimensionCount")
        out.append(Problem(op, "IndicesTensor", "shape",
                           f"the index tuple size (the last dimension of Sizes) {k} exceeds {what} = {most} "
                           f"(allowed: 1 to {most})."))
    elif batch and x[:batch] != i[:batch]:
        out.append(Problem(op, "IndicesTensor", "shape",
                           f"batch Sizes {i[:batch]} (the first BatchDimensionCount = {batch} meaningful dimensions) "
                           f"do not match InputTensor's {x[:batch]}; they must be equal."))
    else:
        field = "UpdatesTensor" if scatter else "OutputTensor"
        skip = "BatchDimensionCount + indexTupleSize" if hasattr(desc, "batch_dimension_count") else "indexTupleSize"
        formula = ("{1..., IndicesTensor.Sizes[-IndicesDimensionCount .. -1], "
                   f"InputTensor.Sizes[-InputDimensionCount + {skip} ..]}}")
        out += right_aligned_problems(desc, field, formula, i[:-1] + x[batch + k:])
    if scatter:
        out += same_sizes_problems(desc, "InputTensor", "OutputTensor")
    return out
