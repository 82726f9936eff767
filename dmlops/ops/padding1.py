"""DML_OPERATOR_PADDING1: PADDING with a typed PaddingValue (DML_SCALAR_UNION read as PaddingValueDataType).

The modes, their index rules and the lowerings are PADDING's (dmlops/ops/padding.py, dmlops.ops._movement),
WRAP from DML_FEATURE_LEVEL_6_4 included. PaddingValue is held in the output's type, so INT64/UINT64 values
beyond 2**53 are exact and a FLOAT16 value is the half nearest to it (as FILL_VALUE_CONSTANT's Value).
DirectML's vectors agree: int32 -3, uint8 200, float32 -0.0 (the sign survives) and float16 65504 in CONSTANT
mode; PaddingValue is ignored by REFLECTION.

Rules the descriptor file cannot express: PADDING's (DimensionCount = the tensors' DimensionCount,
OutputTensor.Sizes = InputTensor.Sizes + StartPadding + EndPadding), plus PaddingValueDataType, "which must match
OutputTensor.DataType". DirectML agrees (vectors: DimensionCount 2 for 4-dimensional tensors is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _layout as L
from . import _movement as M
from . import padding as P


def check(desc, level) -> list[Problem]:
    """PADDING's rules; PaddingValueDataType = OutputTensor.DataType."""
    return L.value_type_problems(desc, "PaddingValueDataType") + L.padding_problems(desc)


def value(desc, compute_dtype) -> np.ndarray:
    """PaddingValue in PaddingValueDataType, then in the dtype the lowering computes in."""
    return M.padding_value(desc.padding_value, desc.padding_value_data_type, compute_dtype)


def reference(desc, x):
    """PADDING's index rules with the typed PaddingValue."""
    return P.lower_reference(desc, x, value)


def to_onnx(desc, g, x):
    """ONNX Pad (constant, edge, reflect within the size), else one Gather per padded dimension."""
    return P.lower_onnx(desc, g, x, value)


def to_torch(desc, torch, x):
    """torch.nn.functional.pad (constant), else torch.index_select per padded dimension."""
    return P.lower_torch(desc, torch, x, value)


# ----------------------------------------------------------------------------------------------- samples
def _padding1(data_type, in_sizes, mode, value_, start, end, in_strides=None):
    from ..descs import Padding1

    out = [n + s + e for n, s, e in zip(in_sizes, start, end)]
    return Padding1(input_tensor=td(data_type, in_sizes, in_strides), output_tensor=td(data_type, out),
                    padding_mode=mode, padding_value_data_type=data_type, padding_value=value_,
                    start_padding=tuple(start), end_padding=tuple(end))


def _integer_samples() -> list[Sample]:
    """Every integer DataType: CONSTANT with the type's lowest value (INT64 -2**63 and UINT64 2**64 - 1 need the
    typed union), and WRAP, 1-D."""
    out = []
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        pad = hi if t.startswith("U") else lo
        x = ew.int_array([hi - 1, lo + 1, 0], t)
        out.append(Sample(f"int_{t.lower()}_constant_extreme", _padding1(t, [3], "CONSTANT", pad, [2], [1]),
                          {"InputTensor": x}, {"OutputTensor": ew.int_array([pad, pad, hi - 1, lo + 1, 0, pad], t)},
                          **(P.EXACT | {"why": "integers are copied bit for bit"})))
        # WRAP, start 1, end 4: j mod 3 for j = -1..5 reads 2 | 0 1 2 | 0 1 2.
        out.append(Sample(f"int_{t.lower()}_wrap", _padding1(t, [3], "WRAP", 0, [1], [3]), {"InputTensor": x},
                          {"OutputTensor": ew.int_array([0, hi - 1, lo + 1, 0, hi - 1, lo + 1, 0], t)},
                          **(P.EXACT | {"why": "integers are copied bit for bit"})))
    return out


SAMPLES = P.docs_samples(_padding1) + P.common_samples(_padding1) + [
    # FLOAT16 PaddingValue 0.1 is the half nearest to it, 1638 / 16384 = 0.0999755859375 (FILL_VALUE_CONSTANT's
    # float16 sample); the input's halves are copied.
    Sample("float16_value_0_1", _padding1("FLOAT16", [2], "CONSTANT", 0.1, [1], [1]),
           {"InputTensor": np.array([1.5, -65504], np.float16)},
           {"OutputTensor": np.array([0.0999755859375, 1.5, -65504, 0.0999755859375], np.float16)}, **P.EXACT),
    # FLOAT64 PaddingValue 1 + 2**-40 survives (float32 would round it to 1).
    Sample("float64_value", _padding1("FLOAT64", [1], "CONSTANT", 1 + 2**-40, [1], [0]),
           {"InputTensor": np.array([1 / 3])}, {"OutputTensor": np.array([1 + 2**-40, 1 / 3])}, **P.EXACT),
    # PaddingValue -0.0 keeps its sign (DirectML's vector float32_constant_-0.0 shows it).
    Sample("constant_negative_zero", _padding1("FLOAT32", [1, 2], "CONSTANT", -0.0, [0, 1], [0, 1]),
           {"InputTensor": np.array([[1, 2]], np.float32)},
           {"OutputTensor": np.array([[-0.0, 1, 2, -0.0]], np.float32)}, **P.EXACT),
] + _integer_samples()
