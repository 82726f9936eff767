"""DML_OPERATOR_REDUCE: shape rules the descriptor file cannot express.

From the docs: Axes values "must be in the range [0, InputTensor.DimensionCount - 1]" (dmlops also
rejects a repeated axis and an empty list, which reduce nothing); OutputTensor's DimensionCount
"must match InputTensor.DimensionCount" and its Sizes "must match InputTensor.Sizes, except for
dimensions included in the reduced Axes, which must be size 1"; the data types "must match except
when using the ARGMAX and ARGMIN functions, which always output an integral data type" (the support
tiers already hold ARGMAX/ARGMIN outputs to integral types).

Math (DML_REDUCE_FUNCTION docs), over the elements of the reduced Axes, keeping them as size 1:
SUM, AVERAGE (the mean; DirectML has no MEAN), MULTIPLY, MIN, MAX, L1 (sum |x|), L2 (sqrt(sum x^2)),
SUM_SQUARE, LOG_SUM (log(sum x)), LOG_SUM_EXP, and ARGMAX / ARGMIN: the index of the first extreme
element (DML_ARGMAX_OPERATOR_DESC: REDUCE's ARGMAX is ARGMAX with AXIS_DIRECTION_INCREASING; ONNX
select_last_index=0, torch.argmax agree) counted row-major over the reduced axes in dimension order,
so reducing a whole {3, 3} tensor gives an index in [0, 9) (the docs' example 3). ONNX ArgMax and
torch.argmax take one axis, so the lowerings move the reduced axes last and flatten them first.
Integer inputs are reduced in int64 (exact for every type up to INT64; UINT64 is reinterpreted as
two's complement, which keeps SUM and MULTIPLY modulo 2**64 and, with the sign bit flipped, the
order for MIN, MAX, ARGMAX and ARGMIN); the framework casts the result to the declared type, which
wraps as DirectML's integer arithmetic does.

Floats, from DirectML's vectors (edge_*_ties_nan_inf): MIN and MAX skip NaN (NaN only when every element is NaN), as
DirectML's min/max return the non-NaN operand, where ONNX ReduceMin/Max and torch.amin/amax propagate NaN; between
zeros MAX gives +0 and MIN -0. ARGMAX and ARGMIN scan from element 0 and take a later element only when it is
strictly better, so a NaN wins only at element 0 and is passed over anywhere else (edge_argmax_ties_nan_inf: [NaN,
1, 2, 2] gives 0; sample_arg_nan_not_first: [1, NaN, 3, 2] gives ARGMAX 2 and ARGMIN 0, [0, 5, NaN, NaN] ARGMAX 1
and ARGMIN 0), unlike NumPy and torch (the first NaN); ONNX Runtime's CPU ArgMax happens to agree, but is not relied
on: the three backends share ARGMAX's code, dmlops.ops._selection, which states the rule. Sums accumulate in float32
in DirectML's own (parallel) order, which dmlops does not reproduce: dmlops/vector_tolerances.py bounds the
difference for the 40-element cases.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor
from . import _elementwise as ew
from . import _selection as sel
from ._shapes import axes_problems

INDEX_FUNCTIONS = ("ARGMAX", "ARGMIN")


def check(desc, level) -> list[Problem]:
    """Axes valid; OutputTensor of InputTensor's rank, DataType (but for ARGMAX/ARGMIN) and reduced Sizes."""
    op = desc.OPERATOR_TYPE
    x, y = tensor(desc, "InputTensor"), tensor(desc, "OutputTensor")
    rank = x.dimension_count if x is not None and x.dimension_count else None
    out = axes_problems(op, desc.axes, rank, require_one=True)
    axes_valid = not out
    if x is None or y is None:
        return out
    if desc.function.name not in INDEX_FUNCTIONS and x.data_type != y.data_type:
        out.append(Problem(op, None, "data_type",
                           f"InputTensor and OutputTensor must have the same DataType for {desc.function.dml_name}; "
                           f"got {x.data_type.name} and {y.data_type.name}."))
    if x.dimension_count != y.dimension_count:
        out.append(Problem(op, None, "dimension_count", f"InputTensor and OutputTensor must have the same "
                                                        f"DimensionCount; got {x.dimension_count} and {y.dimension_count}."))
    elif axes_valid:
        expected = [1 if i in desc.axes else s for i, s in enumerate(x.sizes)]
        if list(y.sizes) != expected:
            axes = ", ".join(map(str, desc.axes))
            out.append(shape_problem(desc, "OutputTensor", y.sizes, f"InputTensor Sizes with Axes {{{axes}}} set to 1",
                                     expected))
    return out


SIGN = np.uint64(1 << 63)
ORDERED = ("MIN", "MAX", "ARGMIN", "ARGMAX")


def reference(desc, x):
    """NumPy reductions with keepdims (float64, or int64/uint64 for integer inputs)."""
    v = x["InputTensor"]
    fn, axes = desc.function.name, tuple(desc.axes)
    if fn in INDEX_FUNCTIONS:  # DirectML's scan: NaN wins only at element 0 (dmlops.ops._selection)
        return sel.arg_reference(desc, x, fn == "ARGMAX")
    if v.dtype.kind in "iu":
        v = v.astype(np.uint64 if v.dtype == np.uint64 else np.int64)
    else:
        v = v.astype(np.float64)
    kw = dict(axis=axes, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if fn == "LOG_SUM_EXP":
            m = np.max(v, **kw)
            m = np.where(np.isfinite(m), m, 0)  # all -inf (or an inf) stays exact
            y = m + np.log(np.sum(np.exp(v - m), **kw))
        else:
            y = {
                "SUM": lambda: np.sum(v, **kw),
                "AVERAGE": lambda: np.mean(v, **kw),
                "MULTIPLY": lambda: np.prod(v, **kw),
                "MIN": lambda: _skip_nan(v, axes, np.min, np.inf),
                "MAX": lambda: _skip_nan(v, axes, np.max, -np.inf),
                "L1": lambda: np.sum(np.abs(v), **kw),
                "L2": lambda: np.sqrt(np.sum(v * v, **kw)),
                "SUM_SQUARE": lambda: np.sum(v * v, **kw),
                "LOG_SUM": lambda: np.log(np.sum(v, **kw)),
            }[fn]()
    return {"OutputTensor": y}


def _skip_nan(v, axes, fn, fill):
    """MIN/MAX over ``axes`` skipping NaN (all NaN: NaN), the zero of the right sign between ±0 (floats)."""
    if v.dtype.kind != "f":
        return fn(v, axis=axes, keepdims=True)
    nan = np.isnan(v)
    y = fn(np.where(nan, fill, v), axis=axes, keepdims=True)
    y = np.where(np.all(nan, axis=axes, keepdims=True), np.nan, y)
    zeros = v == 0
    if fill > 0:  # MIN: -0 when any -0 is there
        zero = np.where(np.any(zeros & np.signbit(v), axis=axes, keepdims=True), -0.0, 0.0)
    else:  # MAX: +0 when any +0 is there
        zero = np.where(np.any(zeros & ~np.signbit(v), axis=axes, keepdims=True), 0.0, -0.0)
    return np.where(y == 0, zero, y)


ONNX_OPS = {"SUM": "ReduceSum", "AVERAGE": "ReduceMean", "MULTIPLY": "ReduceProd", "MIN": "ReduceMin",
            "MAX": "ReduceMax", "L1": "ReduceL1", "L2": "ReduceL2", "SUM_SQUARE": "ReduceSumSquare",
            "LOG_SUM": "ReduceLogSum", "LOG_SUM_EXP": "ReduceLogSumExp"}


def to_onnx(desc, g, x):
    """ONNX Reduce* with keepdims=1 (axes as an input, opset 18); ArgMax/ArgMin on the flattened axes."""
    v = x["InputTensor"]
    fn, axes = desc.function.name, sorted(desc.axes)
    if fn in INDEX_FUNCTIONS:  # ARGMAX/ARGMIN's lowering: it picks NaN itself (ORT's CPU ArgMax skips a later NaN)
        return sel.arg_onnx(desc, g, x, fn == "ARGMAX")
    dtype = g.dtype(v)
    ordered_u64 = dtype == np.uint64 and fn in ORDERED
    if dtype.kind in "iu":
        # onnxruntime's CPU reductions take int32/int64 only: reduce in int64 (see the module docstring).
        if ordered_u64:
            v = g.node("BitwiseXor", [v, g.const(SIGN)])
        v = g.cast(v, np.int64)
    if fn in ("MIN", "MAX") and g.dtype(v).kind == "f":
        return {"OutputTensor": _onnx_skip_nan(g, v, g.ints(axes), fn == "MAX")}
    if g.dtype(v).kind in "iu" and fn in WRAPPING:
        unsigned = dtype.kind == "u"  # L1 of an unsigned type is its SUM (UINT64 is read as int64 here)
        y = _onnx_wrapping(g, v, list(desc.input_tensor.sizes), axes, "SUM" if fn == "L1" and unsigned else fn)
    else:
        y = g.node(ONNX_OPS[fn], [v, g.ints(axes)], keepdims=1)
    if ordered_u64:
        y = g.node("BitwiseXor", [g.cast(y, np.uint64), g.const(SIGN)])
    return {"OutputTensor": y}


# Integer SUM, MULTIPLY, SUM_SQUARE and L1 wrap modulo 2**64 as DirectML's integer arithmetic wraps; ONNX Runtime's CPU
# ReduceSum / ReduceProd / ReduceSumSquare / ReduceL1 saturate on int64 overflow (issue 13: the reference and torch
# wrapped, onnxruntime gave INT64_MAX), while its Add and Mul wrap.
WRAPPING = {"SUM": "Add", "MULTIPLY": "Mul", "SUM_SQUARE": "Add", "L1": "Add"}


def _onnx_wrapping(g, v, sizes, axes, fn):
    """An integer reduction as a halving tree of Add / Mul (wrapping) over the reduced axes moved last and
    flattened; odd lengths are padded with the identity (0 or 1)."""
    if fn == "SUM_SQUARE":
        v = g.node("Mul", [v, v])
    elif fn == "L1":
        v = g.node("Abs", [v])
    kept = [i for i in range(len(sizes)) if i not in axes]
    count = int(np.prod([sizes[a] for a in axes], dtype=np.int64))
    v = g.node("Transpose", [v], perm=kept + list(axes))
    v = g.node("Reshape", [v, g.ints([sizes[i] for i in kept] + [count])])
    op, identity = WRAPPING[fn], 1 if fn == "MULTIPLY" else 0
    last = len(kept)
    while count > 1:
        if count % 2:
            pad = g.const(np.full([sizes[i] for i in kept] + [1], identity, g.dtype(v)))
            v = g.node("Concat", [v, pad], axis=last)
            count += 1
        half = count // 2
        lo = g.node("Slice", [v, g.ints([0]), g.ints([half]), g.ints([last])])
        hi = g.node("Slice", [v, g.ints([half]), g.ints([count]), g.ints([last])])
        v = g.node(op, [lo, hi])
        count = half
    return g.node("Reshape", [v, g.ints([1 if i in axes else n for i, n in enumerate(sizes)])])


def _onnx_skip_nan(g, v, axes, is_max):
    """Float MAX (MIN as -MAX(-x)) skipping NaN, +0 over -0 (see _skip_nan); ONNX ReduceMax propagates NaN."""
    dtype = g.dtype(v)
    c = lambda value: g.const(np.asarray(value, dtype))  # noqa: E731
    s = v if is_max else g.node("Neg", [v])
    nan = g.node("IsNaN", [s], dtype=np.bool_)
    filled = g.node("Where", [nan, c(-np.inf), s], dtype=dtype)
    y = g.node("ReduceMax", [filled, axes], keepdims=1)
    some = g.node("ReduceMax", [g.cast(g.node("Not", [nan], dtype=np.bool_), dtype), axes], keepdims=1)
    y = g.node("Where", [g.node("Equal", [some, c(0)], dtype=np.bool_), c(np.nan), y], dtype=dtype)
    zero = g.node("Equal", [filled, c(0)], dtype=np.bool_)
    signs = g.node("Where", [zero, g.node("Div", [c(1), filled]), c(-np.inf)], dtype=dtype)  # ±0 -> ±inf
    positive = g.node("Greater", [g.node("ReduceMax", [signs, axes], keepdims=1), c(0)], dtype=np.bool_)
    # ew.onnx_where: the -0 zero sits in the X input (ONNX Runtime's CPU Where would make it +0)
    y = ew.onnx_where(g, g.node("Equal", [y, c(0)], dtype=np.bool_),
                      g.node("Where", [positive, c(0.0), c(-0.0)], dtype=dtype), y)
    return y if is_max else g.node("Neg", [y])


def _torch_max(torch, v, axes, is_max):
    """MAX, or MIN as the order-reversed MAX (torch-directml has amax but no amin): floats skip NaN and give +0
    over -0 (see _skip_nan); integers reverse the order with ~x, which cannot overflow."""
    if not v.is_floating_point():
        return torch.amax(v, dim=axes, keepdim=True) if is_max else ~torch.amax(~v, dim=axes, keepdim=True)
    s = v if is_max else -v
    nan = torch.isnan(s)
    filled = torch.where(nan, torch.full_like(s, -np.inf), s)
    y = torch.amax(filled, dim=axes, keepdim=True)
    none = torch.amax((~nan).to(s.dtype), dim=axes, keepdim=True) == 0
    y = torch.where(none, torch.full_like(y, np.nan), y)
    signs = torch.where(filled == 0, 1 / filled, torch.full_like(filled, -np.inf))  # ±0 -> ±inf
    positive = torch.amax(signs, dim=axes, keepdim=True) > 0
    zero = torch.where(positive, torch.zeros_like(y), torch.full_like(y, -0.0))
    y = torch.where(y == 0, zero, y)
    return y if is_max else -y


def _torch_log_sum_exp(torch, v, axes):
    """max + log(sum(exp(x - max))), as the reference (torch-directml has no logsumexp)."""
    m = torch.amax(v, dim=axes, keepdim=True)
    m = torch.where(torch.isinf(m) | torch.isnan(m), torch.zeros_like(m), m)  # all -inf (or an inf) stays exact
    return m + torch.log(torch.sum(torch.exp(v - m), dim=axes, keepdim=True))


def to_torch(desc, torch, x):
    """torch reductions with keepdim=True; prod over one axis at a time; argmax/argmin on the flattened axes."""
    v = x["InputTensor"]
    fn, axes = desc.function.name, sorted(desc.axes)
    if fn in INDEX_FUNCTIONS:  # DirectML's scan: NaN wins only at element 0 (dmlops.ops._selection)
        return sel.arg_torch(desc, torch, x, fn == "ARGMAX")
    ordered_u64 = v.dtype == torch.uint64 and fn in ORDERED
    unsigned = v.dtype in (torch.uint8, getattr(torch, "uint16", None), getattr(torch, "uint32", None), torch.uint64)
    if v.dtype == torch.uint64:
        # torch 2.4 has few uint64 kernels: reinterpret the bits as int64 (see the module docstring).
        v = v.view(torch.int64)
        if ordered_u64:
            v = v ^ torch.iinfo(torch.int64).min
    elif not v.is_floating_point():
        v = v.to(torch.int64)
    if fn == "MULTIPLY":
        y = v
        for a in axes:
            y = torch.prod(y, dim=a, keepdim=True)
    else:
        y = {
            "SUM": lambda: torch.sum(v, dim=axes, keepdim=True),
            "AVERAGE": lambda: torch.mean(v, dim=axes, keepdim=True),
            "MIN": lambda: _torch_max(torch, v, axes, False),
            "MAX": lambda: _torch_max(torch, v, axes, True),
            "L1": lambda: torch.sum(v if unsigned else torch.abs(v), dim=axes, keepdim=True),  # UINT64 read as int64
            "L2": lambda: torch.sqrt(torch.sum(v * v, dim=axes, keepdim=True)),
            "SUM_SQUARE": lambda: torch.sum(v * v, dim=axes, keepdim=True),
            "LOG_SUM": lambda: torch.log(torch.sum(v, dim=axes, keepdim=True)),
            "LOG_SUM_EXP": lambda: _torch_log_sum_exp(torch, v, axes),
        }[fn]()
    if ordered_u64:
        y = y ^ torch.iinfo(torch.int64).min
    return {"OutputTensor": y}


def _reduce(function, sizes, axes, data_type="FLOAT32", out_type=None, strides=None):
    from ..descs import Reduce

    out = [1 if i in axes else s for i, s in enumerate(sizes)]
    return Reduce(function=function, input_tensor=td(data_type, sizes, strides),
                  output_tensor=td(out_type or data_type, out), axes=tuple(axes))


def _samples():
    rng = np.random.default_rng(5)
    f32 = np.float32
    # The docs' example input (DML_REDUCE_OPERATOR_DESC); its sums are checked by hand in the comments there.
    docs = np.array([[1, 2, 3], [3, 0, 4], [2, 4, 2]], f32)
    m = np.array([[1, -2], [3, 4]], f32)
    exact = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="small integers: exact")
    rows = dict(sizes=[2, 2], axes=[1])
    out = []
    # By hand over the rows of [[1, -2], [3, 4]] (FLOAT32 results exact: small integers and halves).
    for fn, want in [("SUM", [-1, 7]), ("AVERAGE", [-0.5, 3.5]), ("MULTIPLY", [-2, 12]), ("MIN", [-2, 3]),
                     ("MAX", [1, 4]), ("L1", [3, 7]), ("SUM_SQUARE", [5, 25])]:
        out.append(Sample(f"{fn.lower()}_rows", _reduce(fn, **rows), {"InputTensor": m},
                          {"OutputTensor": np.array(want, f32).reshape(2, 1)}, **exact))
    out += [
        # By hand: sqrt(1 + 4) and sqrt(9 + 16).
        Sample("l2_rows", _reduce("L2", **rows), {"InputTensor": m},
               {"OutputTensor": np.array([[np.sqrt(5)], [5]], f32)}, why="float32 sqrt", atol=1e-6, rtol=1e-6),
        # By hand: log(0.25 + 0.75) = 0 and log(3 + 4) = log 7.
        Sample("log_sum_rows", _reduce("LOG_SUM", **rows), {"InputTensor": np.array([[0.25, 0.75], [3, 4]], f32)},
               {"OutputTensor": np.array([[0], [np.log(7)]], f32)}, why="float32 log", atol=1e-6, rtol=1e-6),
        # By hand: log(e^0 + e^0) = log 2 and log(e^(log 3) + e^0) = log 4.
        Sample("log_sum_exp_rows", _reduce("LOG_SUM_EXP", **rows),
               {"InputTensor": np.array([[0, 0], [np.log(3), 0]], f32)},
               {"OutputTensor": np.array([[np.log(2)], [np.log(4)]], f32)}, why="float32 exp and log",
               atol=1e-6, rtol=1e-6, float16_atol=2e-3, float16_rtol=2e-3),
        # The docs' examples 1 to 3: column sums, row sums, the whole tensor.
        Sample("docs_sum_columns", _reduce("SUM", [3, 3], [0]), {"InputTensor": docs},
               {"OutputTensor": np.array([[6, 6, 9]], f32)}, **exact),
        Sample("docs_sum_all", _reduce("SUM", [3, 3], [0, 1]), {"InputTensor": docs},
               {"OutputTensor": np.array([[21]], f32)}, **exact),
        # DML_ARGMAX_OPERATOR_DESC's examples (input with 5 in the middle): columns [1, 2, 1], the whole tensor 7.
        Sample("docs_argmax_columns", _reduce("ARGMAX", [3, 3], [0], out_type="UINT32"),
               {"InputTensor": np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], f32)},
               {"OutputTensor": np.array([[1, 2, 1]], np.uint32)}, **exact),
        Sample("docs_argmax_all", _reduce("ARGMAX", [3, 3], [0, 1], out_type="INT64"),
               {"InputTensor": np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], f32)},
               {"OutputTensor": np.array([[7]], np.int64)}, **exact),
        # Ties pick the first index: argmax([3, 2, 1, 2, 3]) = 0 (the docs' AXIS_DIRECTION_INCREASING example),
        # argmin = 2; the second row [1, 1, 1, 0, 0] gives argmax 0, argmin 3.
        Sample("argmax_ties_first", _reduce("ARGMAX", [2, 5], [1], out_type="INT32"),
               {"InputTensor": np.array([[3, 2, 1, 2, 3], [1, 1, 1, 0, 0]], f32)},
               {"OutputTensor": np.array([[0], [0]], np.int32)}, **exact),
        Sample("argmin_ties_first", _reduce("ARGMIN", [2, 5], [1], out_type="UINT64"),
               {"InputTensor": np.array([[3, 2, 1, 2, 3], [1, 1, 1, 0, 0]], f32)},
               {"OutputTensor": np.array([[2], [3]], np.uint64)}, **exact),
        # A NaN after element 0 is passed over (DirectML's sample_arg_nan_not_first and sample_argmin_nan_not_first):
        # [1, NaN, 3, 2] gives ARGMAX 2 (the 3) and ARGMIN 0 (the 1); [0, 5, NaN, NaN] ARGMAX 1 and ARGMIN 0.
        Sample("arg_nan_not_first", _reduce("ARGMAX", [2, 4], [1], out_type="UINT32"),
               {"InputTensor": np.array([[1, np.nan, 3, 2], [0, 5, np.nan, np.nan]], f32)},
               {"OutputTensor": np.array([[2], [1]], np.uint32)}, **exact),
        Sample("argmin_nan_not_first", _reduce("ARGMIN", [2, 4], [1], out_type="INT64"),
               {"InputTensor": np.array([[1, np.nan, 3, 2], [0, 5, np.nan, np.nan]], f32)},
               {"OutputTensor": np.array([[0], [0]], np.int64)}, **exact),
        # A NaN at element 0 is never replaced: [NaN, 4, -4] gives 0 for both functions, over both axes of
        # [[NaN, 4], [-4, 9]] too (element 0 of the flattened axes).
        Sample("arg_nan_first", _reduce("ARGMAX", [1, 3], [1], out_type="INT32"),
               {"InputTensor": np.array([[np.nan, 4, -4]], f32)}, {"OutputTensor": np.array([[0]], np.int32)},
               **exact),
        Sample("argmin_nan_first_both_axes", _reduce("ARGMIN", [2, 2], [0, 1], out_type="UINT32"),
               {"InputTensor": np.array([[np.nan, 4], [-4, 9]], f32)}, {"OutputTensor": np.array([[0]], np.uint32)},
               **exact),
        # By hand, INT32 sum of each column of [[5, -7], [2147483647, 1]]: the first column wraps to
        # 2147483652 - 2**32 = -2147483644 (DirectML's 32-bit integer arithmetic).
        Sample("int32_sum_wraps", _reduce("SUM", [2, 2], [0], "INT32"),
               {"InputTensor": np.array([[5, -7], [2147483647, 1]], np.int32)},
               {"OutputTensor": np.array([[-2147483644, -6]], np.int32)}, **exact),
    ]
    x4 = rng.uniform(-2, 2, (2, 3, 4, 5)).astype(f32)
    for fn in ("SUM", "AVERAGE", "MAX", "MIN", "L1", "L2", "SUM_SQUARE", "LOG_SUM_EXP", "MULTIPLY"):
        out.append(Sample(f"{fn.lower()}_4d_axes_3_0_2", _reduce(fn, [2, 3, 4, 5], [3, 0, 2]), {"InputTensor": x4},
                          atol=1e-5, rtol=1e-5))
    out += [
        Sample("log_sum_positive_axis_1", _reduce("LOG_SUM", [2, 3, 4], [1]),
               {"InputTensor": rng.uniform(0.1, 2, (2, 3, 4)).astype(f32)}),
        Sample("argmax_4d_axes_1_3", _reduce("ARGMAX", [2, 3, 4, 5], [3, 1], out_type="UINT32"), {"InputTensor": x4}),
        Sample("argmin_4d_axes_0_2", _reduce("ARGMIN", [2, 3, 4, 5], [0, 2], out_type="INT64"), {"InputTensor": x4}),
        # Zero strides: one row of 4 values broadcast over 3 rows; the column sums are 3 * the row.
        Sample("sum_broadcast_input", _reduce("SUM", [3, 4], [0], strides=[0, 1]),
               {"InputTensor": np.array([1, 2, 3, 4], f32)}, {"OutputTensor": np.array([[3, 6, 9, 12]], f32)}, **exact),
        # Integer types: UINT8 min/argmax (ORT and torch reduce them in int64), UINT32 sum, INT64 product.
        Sample("uint8_min", _reduce("MIN", [3, 4], [1], "UINT8"),
               {"InputTensor": rng.integers(0, 256, (3, 4)).astype(np.uint8)}),
        Sample("uint8_argmax_int32_out", _reduce("ARGMAX", [3, 4], [0, 1], "UINT8", "INT32"),
               {"InputTensor": np.array([[7, 200, 3, 200], [0, 1, 199, 2], [200, 0, 0, 0]], np.uint8)},
               {"OutputTensor": np.array([[1]], np.int32)}, **exact),
        Sample("uint32_sum", _reduce("SUM", [2, 3], [1], "UINT32"),
               {"InputTensor": np.array([[4000000000, 1, 2], [3, 4, 5]], np.uint32)}),
        Sample("int64_multiply", _reduce("MULTIPLY", [2, 3], [0, 1], "INT64"),
               {"InputTensor": np.array([[-3, 2, 5], [7, -1, 11]], np.int64)},
               {"OutputTensor": np.array([[2310]], np.int64)}, **exact),
        # UINT64 above 2**63 keeps its order (the lowerings flip the sign bit around an int64 reduction).
        Sample("uint64_max_and_argmax_above_2_63", _reduce("MAX", [1, 3], [1], "UINT64"),
               {"InputTensor": np.array([[1, 2 ** 63 + 5, 2 ** 63 + 1]], np.uint64)},
               {"OutputTensor": np.array([[2 ** 63 + 5]], np.uint64)}, **exact),
        Sample("uint64_argmin", _reduce("ARGMIN", [1, 3], [1], "UINT64", "UINT32"),
               {"InputTensor": np.array([[2 ** 63 + 5, 2 ** 64 - 1, 9]], np.uint64)},
               {"OutputTensor": np.array([[2]], np.uint32)}, **exact),
    ]
    return out


SAMPLES = _samples()
