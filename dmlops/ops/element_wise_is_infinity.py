"""DML_OPERATOR_ELEMENT_WISE_IS_INFINITY: f(x) = 1 where x is an infinity InfinityMode selects, else 0; OutputTensor
is UINT8.

InfinityMode: EITHER (+inf or -inf), POSITIVE (+inf only), NEGATIVE (-inf only). NaN, ±0 and finite values give 0
(DirectML's vectors: float32_either / _positive / _negative and their float16 forms). FLOAT16 is read as float32,
which keeps ±inf. Lowered to ONNX IsInf(detect_positive, detect_negative) on float32 (the only type ONNX Runtime's
DirectML provider registers for IsInf) and to torch.isinf or x == ±inf (torch-directml has no isposinf/isneginf).
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from . import _logic

NAN, INF = np.nan, np.inf


def _detect(desc) -> tuple[bool, bool]:
    """(detect +inf, detect -inf) for the desc's InfinityMode."""
    mode = desc.infinity_mode.name
    return mode in ("EITHER", "POSITIVE"), mode in ("EITHER", "NEGATIVE")


def reference(desc, x):
    """x == +inf and/or x == -inf, as 1/0."""
    v = x["InputTensor"]
    positive, negative = _detect(desc)
    return {"OutputTensor": (((v == INF) & positive) | ((v == -INF) & negative)).astype(_logic.output_dtype(desc))}


def to_onnx(desc, g, x):
    """IsInf with detect_positive/detect_negative from InfinityMode (float32), then Cast to the output type."""
    positive, negative = _detect(desc)
    v = g.cast(x["InputTensor"], np.float32)
    truth = g.node("IsInf", [v], dtype=np.bool_, detect_positive=int(positive), detect_negative=int(negative))
    return _logic.onnx_store(desc, g, truth)


def to_torch(desc, torch, x):
    """torch.isinf (EITHER) or x == ±inf, then to the output type."""
    v = x["InputTensor"]
    positive, negative = _detect(desc)
    truth = torch.isinf(v) if positive and negative else v == (INF if positive else -INF)
    return _logic.torch_store(desc, torch, truth)


def _samples():
    from ..descs import ElementWiseIsInfinity as cls
    from ..enums import IsInfinityMode

    x = np.array([[INF, -INF, NAN, 0.0], [-0.0, 3.4e38, -65504, 1]], np.float32)
    # By hand: +inf is position (0, 0), -inf (0, 1); NaN, zeros and finite values never count.
    expected = {"EITHER": [[1, 1, 0, 0], [0, 0, 0, 0]], "POSITIVE": [[1, 0, 0, 0], [0, 0, 0, 0]],
                "NEGATIVE": [[0, 1, 0, 0], [0, 0, 0, 0]]}
    out = []
    for mode, want in expected.items():
        desc = cls(input_tensor=td("FLOAT32", [2, 4]), output_tensor=td("UINT8", [2, 4]),
                   infinity_mode=IsInfinityMode[mode])
        out.append(Sample(mode.lower(), desc, {"InputTensor": x}, {"OutputTensor": np.array(want, np.uint8)},
                          atol=0, rtol=0, why="a predicate: exact", float16=False))  # 3.4e38 is no float16 value
    # FLOAT16 variants derived from these (every value fits float16); [+inf, -inf] per row through zero strides.
    for mode in expected:
        desc = cls(input_tensor=td("FLOAT32", [2, 3], [1, 0]), output_tensor=td("UINT8", [2, 3]),
                   infinity_mode=IsInfinityMode[mode])
        positive, negative = mode != "NEGATIVE", mode != "POSITIVE"
        out.append(Sample(f"broadcast_{mode.lower()}", desc, {"InputTensor": np.array([INF, -INF], np.float32)},
                          {"OutputTensor": np.array([[int(positive)] * 3, [int(negative)] * 3], np.uint8)},
                          atol=0, rtol=0, why="a predicate: exact", float16_atol=0, float16_rtol=0))
    return out


SAMPLES = _samples()
