"""DML_OPERATOR_PADDING: InputTensor surrounded by StartPadding / EndPadding elements per dimension.

The padded elements follow PaddingMode (the docs' examples 1 to 4; the index rules are in dmlops.ops._movement):
CONSTANT writes PaddingValue, EDGE repeats the edge element, REFLECTION mirrors without the edge, SYMMETRIC
(DML_FEATURE_LEVEL_3_0) mirrors with the edge, WRAP (DML_FEATURE_LEVEL_6_4) repeats the tensor periodically.
REFLECTION and SYMMETRIC fold periodically when a padding exceeds the dimension (examples 3 and 4). DirectML's
vectors (float32_constant/edge/reflection/symmetric, float16_*) agree with the pages.

PaddingValue is a FLOAT: an integer tensor receives it truncated toward zero ("10.6 -> 10" is the CLIP pages'
rule for FLOAT attributes; no vector pads an integer tensor with PADDING) and saturated to the type
(ew.attribute_value); a FLOAT16 tensor receives the float32 value stored as dmlops stores every FLOAT16 output
(rounded toward zero, dmlops.lower); no vector shows a value that FLOAT16 cannot hold.

Rules the descriptor file cannot express (from the docs page): DimensionCount (the length of StartPadding and
EndPadding) "must be the same value as the dimension count of InputTensor and OutputTensor", and
OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]. REFLECTION and SYMMETRIC may pad
by more than the dimension's size, so no bound applies to the paddings; SYMMETRIC's introduction at
DML_FEATURE_LEVEL_3_0 is the generic enum rule. DirectML agrees (vectors: DimensionCount 2 for 4- and
5-dimensional tensors is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, SampleOptions, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M


def check(desc, level) -> list[Problem]:
    """DimensionCount = InputTensor's; OutputTensor.Sizes = InputTensor.Sizes + StartPadding + EndPadding."""
    return L.padding_problems(desc)


def value(desc, compute_dtype) -> np.ndarray:
    """PaddingValue (a FLOAT) as a 0-d array of the dtype the lowering computes in."""
    dtype = desc.output_tensor.data_type.numpy_dtype
    if ew.is_integer(dtype):
        return np.asarray(ew.attribute_value(desc.padding_value, dtype), dtype=compute_dtype)
    with np.errstate(over="ignore"):
        return np.asarray(np.float32(desc.padding_value), dtype=compute_dtype)


def lower_reference(desc, x, value_of):
    v = x["InputTensor"]
    return {"OutputTensor": M.pad_reference(v, desc.padding_mode, value_of(desc, v.dtype), desc.start_padding,
                                            desc.end_padding)}


def lower_onnx(desc, g, x, value_of):
    v = x["InputTensor"]
    return {"OutputTensor": M.pad_onnx(g, v, desc.input_tensor.sizes, desc.padding_mode, value_of(desc, g.dtype(v)),
                                       desc.start_padding, desc.end_padding)}


def lower_torch(desc, torch, x, value_of):
    v = x["InputTensor"]
    dtype = ew.torch_numpy_dtype(torch, v.dtype)
    return {"OutputTensor": M.pad_torch(torch, v, desc.padding_mode, value_of(desc, dtype), desc.start_padding,
                                        desc.end_padding)}


def reference(desc, x):
    """The index rules of dmlops.ops._movement (CONSTANT: PaddingValue around a copy)."""
    return lower_reference(desc, x, value)


def to_onnx(desc, g, x):
    """ONNX Pad (constant, edge, reflect within the size), else one Gather per padded dimension."""
    return lower_onnx(desc, g, x, value)


def to_torch(desc, torch, x):
    """torch.nn.functional.pad (constant), else torch.index_select per padded dimension."""
    return lower_torch(desc, torch, x, value)


# ----------------------------------------------------------------------------------------------- samples
EXACT: SampleOptions = dict(atol=0, rtol=0, float16_atol=0, float16_rtol=0, why="padding copies elements: exact")
DOCS_INPUT = np.array([[[[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]]]], np.float32)
DOCS_START, DOCS_END = (0, 0, 1, 2), (0, 0, 3, 4)
# The docs' outputs (PADDING and PADDING1 pages, examples 1 to 4), copied from the pages.
DOCS_OUTPUTS = {
    "CONSTANT": [[9, 9, 9, 9, 9, 9, 9, 9, 9, 9], [9, 9, 1, 2, 3, 4, 9, 9, 9, 9], [9, 9, 5, 6, 7, 8, 9, 9, 9, 9],
                 [9, 9, 1, 2, 3, 4, 9, 9, 9, 9], [9, 9, 5, 6, 7, 8, 9, 9, 9, 9], [9] * 10, [9] * 10, [9] * 10],
    "EDGE": [[1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8],
             [1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8],
             [5, 5, 5, 6, 7, 8, 8, 8, 8, 8], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8]],
    "REFLECTION": [[7, 6, 5, 6, 7, 8, 7, 6, 5, 6], [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]] * 4,
    "SYMMETRIC": [[2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5],
                  [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5],
                  [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5]],
}


def _padding(data_type, in_sizes, mode, value, start, end, in_strides=None):
    from ..descs import Padding

    out = [n + s + e for n, s, e in zip(in_sizes, start, end)]
    return Padding(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, out),
                   padding_mode=mode, padding_value=value, start_padding=tuple(start), end_padding=tuple(end))


def _integer_samples() -> list[Sample]:
    """Every integer DataType with its extremes: CONSTANT 10.6 (truncated to 10) and SYMMETRIC, 1-D."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        x = ew.int_array([lo, hi, 1], t)
        # CONSTANT, start 1, end 2: 10 [lo hi 1] 10 10.
        out.append(Sample(f"int_{t.lower()}_constant_10_6", _padding(t, [3], "CONSTANT", 10.6, [1], [2]),
                          {"InputTensor": x}, {"OutputTensor": ew.int_array([10, lo, hi, 1, 10, 10], t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
        # SYMMETRIC, start 2, end 4 (more than the size 3): indices 1 0 | 0 1 2 | 2 1 0 0.
        out.append(Sample(f"int_{t.lower()}_symmetric", _padding(t, [3], "SYMMETRIC", 0, [2], [4]),
                          {"InputTensor": x},
                          {"OutputTensor": ew.int_array([hi, lo, lo, hi, 1, 1, hi, lo, lo], t)},
                          **(EXACT | {"why": "integers are copied bit for bit"})))
    return out


def docs_samples(make) -> list[Sample]:
    """The docs' examples 1 to 4 (FLOAT32 {1, 1, 4, 4}, StartPadding {0, 0, 1, 2}, EndPadding {0, 0, 3, 4})."""
    return [Sample(f"docs_{mode.lower()}", make("FLOAT32", [1, 1, 4, 4], mode, 9, DOCS_START, DOCS_END),
                   {"InputTensor": DOCS_INPUT}, {"OutputTensor": np.array([[rows]], np.float32)}, **EXACT)
            for mode, rows in DOCS_OUTPUTS.items()]


def common_samples(make) -> list[Sample]:
    """Samples PADDING and PADDING1 share (``make(data_type, in_sizes, mode, value, start, end, in_strides)``)."""
    f32 = np.float32
    x8 = np.arange(2 * 1 * 2 * 1 * 1 * 2 * 1 * 3, dtype=f32).reshape(2, 1, 2, 1, 1, 2, 1, 3)
    p8s, p8e = (1, 0, 0, 2, 0, 1, 0, 2), (0, 1, 3, 0, 0, 1, 1, 4)
    return [
        # REFLECTION of [1 2 3] by 5 on each side: period 2 (3 - 1) = 4; j = -5..7 reads m = j mod 4, or 4 - m
        # where m >= 3: indices 1 0 1 2 1 | 0 1 2 | 1 0 1 2 1.
        Sample("reflection_periodic_1d", make("FLOAT32", [3], "REFLECTION", 0, [5], [5]),
               {"InputTensor": np.array([1, 2, 3], f32)},
               {"OutputTensor": np.array([2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2], f32)}, **EXACT),
        # WRAP (DML_FEATURE_LEVEL_6_4) of [1 2 3] by 4 and 5: j mod 3 for j = -4..7.
        Sample("wrap_1d", make("FLOAT32", [3], "WRAP", 0, [4], [5]), {"InputTensor": np.array([1, 2, 3], f32)},
               {"OutputTensor": np.array([3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2], f32)}, **EXACT),
        # EDGE of NaN, -0.0 and inf: copied, not recomputed.
        Sample("edge_specials", make("FLOAT32", [1, 3], "EDGE", 0, [1, 1], [0, 2]),
               {"InputTensor": np.array([[np.nan, -0.0, np.inf]], f32)},
               {"OutputTensor": np.array([[np.nan, np.nan, -0.0, np.inf, np.inf, np.inf]] * 2, f32)}, **EXACT),
        # A strided input (Strides {1, 2}: a column-major {2, 2}) padded symmetrically by 1 everywhere.
        Sample("strided_symmetric", make("FLOAT32", [2, 2], "SYMMETRIC", 0, [1, 1], [1, 1], [1, 2]),
               {"InputTensor": np.array([1, 3, 2, 4], f32)},
               {"OutputTensor": np.array([[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]], f32)}, **EXACT),
        # 8-D, every mode's index rule checked against NumPy's np.pad (an independent implementation).
        *[Sample(f"8d_{mode.lower()}", make("FLOAT32", list(x8.shape), mode, -1.5, p8s, p8e), {"InputTensor": x8},
                 {"OutputTensor": np.pad(x8, list(zip(p8s, p8e)), **kw)}, **EXACT)
          for mode, kw in (("CONSTANT", dict(mode="constant", constant_values=-1.5)), ("EDGE", dict(mode="edge")),
                           ("REFLECTION", dict(mode="reflect")), ("SYMMETRIC", dict(mode="symmetric")),
                           ("WRAP", dict(mode="wrap")))],
        # FLOAT64 (DML_FEATURE_LEVEL_5_0): 1/3 survives; REFLECTION by 1 on [1/3, 1e300].
        Sample("float64_reflection", make("FLOAT64", [2], "REFLECTION", 0, [1], [1]),
               {"InputTensor": np.array([1 / 3, 1e300])},
               {"OutputTensor": np.array([1e300, 1 / 3, 1e300, 1 / 3])}, **EXACT),
    ]


SAMPLES = docs_samples(_padding) + common_samples(_padding) + [
    # PaddingValue -0.0 keeps its sign; 2.5 on {1, 2}.
    Sample("constant_negative_zero", _padding("FLOAT32", [1, 2], "CONSTANT", -0.0, [0, 1], [0, 1]),
           {"InputTensor": np.array([[1, 2]], np.float32)},
           {"OutputTensor": np.array([[-0.0, 1, 2, -0.0]], np.float32)}, **EXACT),
] + _integer_samples()
