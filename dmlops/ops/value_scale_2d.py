"""DML_OPERATOR_VALUE_SCALE_2D: the ChannelCount rules the descriptor file cannot express.

The docs: ChannelCount "determines the size of the Bias array" (dmlops derives it from Bias). "This
field must be set to either 1 or 3, and must also match the size of the Channel dimension of the
input tensor", InputTensor being {BatchCount, ChannelCount, Height, Width}. DirectML refuses
ChannelCount 2 on a {1, 1, 1, 1} input and accepts ChannelCount 1 there and 3 on {2, 3, 4, 5}
(vectors gap_factory_tier_1_0_dt_0_rank_default, float32_fixed_twin_of_gap_1x1x1x1, float32); the
refused case breaks both rules, so the "1 or 3" rule is enforced on the docs' word (ONNX Runtime's
ImageScaler kernel checks only the Channel dimension). The Channel rule is checked only on a
4-dimensional InputTensor (other ranks are the support tiers' to report).

Math (the docs): Output = Scale * Input + Bias[c], c the Channel index (Sizes[1]), in float32: a multiplication and
an addition, each rounded (DirectML's vectors float32, float16 and float32_fixed_twin_of_gap_1x1x1x1 are exact
with two roundings). A zero Bias is added too (-0 * Scale + 0 = +0; no vector has a -0 input).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor

CHANNEL_COUNTS = (1, 3)


def check(desc, level) -> list[Problem]:
    """ChannelCount (Bias's length) is 1 or 3 and equals InputTensor's Channel dimension (Sizes[1])."""
    op = desc.OPERATOR_TYPE
    n = len(desc.bias)
    out = []
    if n not in CHANNEL_COUNTS:
        out.append(Problem(op, "Bias", "count", f"{n} elements (ChannelCount {n}); ChannelCount must be 1 or 3."))
    x = tensor(desc, "InputTensor")
    if x is not None and x.dimension_count == 4 and x.sizes[1] != n:
        out.append(Problem(op, "Bias", "shape",
                           f"{n} elements (ChannelCount {n}), but InputTensor's Channel dimension is {x.sizes[1]} "
                           f"(Sizes {list(x.sizes)}); ChannelCount must match it."))
    return out


def _bias(desc) -> np.ndarray:
    return np.asarray(desc.bias, np.float32).reshape(1, -1, 1, 1)


def reference(desc, x):
    """Scale * x + Bias[c] in float32."""
    v = x["InputTensor"].astype(np.float32)
    with np.errstate(all="ignore"):
        return {"OutputTensor": v * np.float32(desc.scale) + _bias(desc)}


def to_onnx(desc, g, x):
    """Add(Mul(x, Scale), Bias as [1, C, 1, 1]) (ONNX ImageScaler left opset 10)."""
    v = x["InputTensor"]
    scaled = g.node("Mul", [v, g.scalar(np.float32(desc.scale), v)])
    return {"OutputTensor": g.node("Add", [scaled, g.const(_bias(desc).astype(g.dtype(v)))])}


def to_torch(desc, torch, x):
    """x * Scale + Bias viewed as [1, C, 1, 1]."""
    v = x["InputTensor"]
    bias = torch.tensor(desc.bias, dtype=v.dtype, device=v.device).reshape(1, -1, 1, 1)
    return {"OutputTensor": v * float(np.float32(desc.scale)) + bias}


def _samples():
    from ..descs import ValueScale2d as cls

    def d(sizes, scale, bias, strides=None):
        return cls(input_tensor=td("FLOAT32", sizes, strides), output_tensor=td("FLOAT32", sizes), scale=scale,
                   bias=bias)

    # Scale 2, Bias [1, -1, 0.5] on {1, 3, 1, 2}: channel 0 [0, 1] -> [1, 3]; channel 1 [2, -3] -> [3, -7];
    # channel 2 [0.25, -0.25] -> [1, 0].
    x = np.array([0, 1, 2, -3, 0.25, -0.25], np.float32).reshape(1, 3, 1, 2)
    y = np.array([1, 3, 3, -7, 1, 0], np.float32).reshape(1, 3, 1, 2)
    return [
        Sample("rgb", d([1, 3, 1, 2], 2.0, (1.0, -1.0, 0.5)), {"InputTensor": x}, {"OutputTensor": y}, atol=0,
               rtol=0, why="exact: small binary fractions", float16_atol=0, float16_rtol=0),
        # One channel: 0.5 x - 2 on [4, -4, inf, NaN] -> [0, -4, inf, NaN].
        Sample("one_channel", d([1, 1, 2, 2], 0.5, (-2.0,)),
               {"InputTensor": np.array([4, -4, np.inf, np.nan], np.float32).reshape(1, 1, 2, 2)},
               {"OutputTensor": np.array([0, -4, np.inf, np.nan], np.float32).reshape(1, 1, 2, 2)}, atol=0, rtol=0,
               why="exact: small binary fractions", float16_atol=0, float16_rtol=0),
        # A batch of 2 read through a zero batch stride, NCHW with H = 2, W = 3.
        Sample("broadcast_batch", d([2, 3, 2, 3], 0.1, (0.485, 0.456, 0.406), [0, 6, 3, 1]),
               {"InputTensor": np.linspace(-1, 1, 18, dtype=np.float32)}, atol=0, rtol=0,
               why="float32 Mul then Add on every backend: the same two roundings"),
    ]


SAMPLES = _samples()
