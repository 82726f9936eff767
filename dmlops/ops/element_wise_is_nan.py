"""DML_OPERATOR_ELEMENT_WISE_IS_NAN: f(x) = isnan(x) ? 1 : 0, stored in OutputTensor's DataType (UINT8 or UINT32).

InputTensor is FLOAT32 or FLOAT16 (read as float32, which keeps NaN a NaN). ±inf, ±0 and finite values give 0
(DirectML's vectors: float32_2x3x4x5 and float16_3x4x5). Lowered to ONNX IsNaN / torch.isnan, whose bool result is
converted to the output type.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _logic

NAN, INF = np.nan, np.inf


def reference(desc, x):
    """np.isnan, as 1/0."""
    return {"OutputTensor": np.isnan(x["InputTensor"]).astype(_logic.output_dtype(desc))}


def to_onnx(desc, g, x):
    """IsNaN (float32: FLOAT16 arrives as float32), then Cast to the output type."""
    return _logic.onnx_store(desc, g, g.node("IsNaN", [x["InputTensor"]], dtype=np.bool_))


def to_torch(desc, torch, x):
    """torch.isnan, then to the output type."""
    return _logic.torch_store(desc, torch, torch.isnan(x["InputTensor"]))


def _samples():
    from ..descs import ElementWiseIsNan as cls

    def make(out, sizes, strides=None):
        return cls(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td(out, sizes))

    why = "a predicate: exact"
    # -NaN and a NaN with a payload (0x7FC00001) are NaN too.
    payload = np.array([0x7FC00001], np.uint32).view(np.float32)[0]
    x = np.array([[NAN, -NAN, payload, INF], [-INF, 0.0, -0.0, 3.4e38]], np.float32)
    return [
        # By hand: only the three NaNs give 1.
        Sample("specials_uint8", make("UINT8", [2, 4]), {"InputTensor": x},
               {"OutputTensor": np.array([[1, 1, 1, 0], [0, 0, 0, 0]], np.uint8)}, atol=0, rtol=0, why=why,
               float16=False),  # 3.4e38 is no float16 value
        Sample("uint32_output", make("UINT32", [2, 3]),
               {"InputTensor": np.array([[1, NAN, -2.5], [INF, 65504, -NAN]], np.float32)},
               {"OutputTensor": np.array([[0, 1, 0], [0, 0, 1]], np.uint32)}, atol=0, rtol=0, why=why,
               float16_atol=0, float16_rtol=0),
        # [NaN, 1] per row through zero strides.
        Sample("broadcast", make("UINT8", [2, 3], [1, 0]), {"InputTensor": np.array([NAN, 1], np.float32)},
               {"OutputTensor": np.array([[1, 1, 1], [0, 0, 0]], np.uint8)}, atol=0, rtol=0, why=why,
               float16_atol=0, float16_rtol=0),
    ]


SAMPLES = _samples()
