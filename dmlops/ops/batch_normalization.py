"""DML_OPERATOR_BATCH_NORMALIZATION: shape rules the descriptor file cannot express.

The docs: "Any dimension in MeanTensor, VarianceTensor, ScaleTensor, and BiasTensor can be set to 1,
and be automatically broadcast to match InputTensor, but otherwise must equal the corresponding
dimension's size from InputTensor." Spatial = FALSE "will require the Width and Height dimensions of
MeanTensor and VarianceTensor to not be broadcast"; Spatial was deprecated in DML_FEATURE_LEVEL_4_0
and has no effect from then on. The generic validator already checks data types, ranks and
InputTensor/OutputTensor Sizes.

Math (docs): Output = Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias, each of Mean,
Variance, Scale and Bias broadcast to InputTensor along its size-1 dimensions (so NCHW per-channel
statistics are {1, C, 1, 1} and NHWC ones {1, 1, 1, C}). Nothing is reduced: the statistics are
inputs. Spatial changes no arithmetic (it only restricts shapes, see check). FusedActivation is
applied by dmlops.lower. ONNX's BatchNormalization and torch's batch_norm want C on axis 1 and 1-D
statistics, so both lowerings use element-wise ops with DirectML's broadcasting instead.

The helpers below (reduced axes, float32 compute for float16 values) are shared with the
BATCH_NORMALIZATION_GRAD, _TRAINING and _TRAINING_GRAD modules.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..types import FeatureLevel
from ..validation import tensor
from ._shapes import broadcast_problem, sizes

PER_CHANNEL = ("MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor")


def check(desc, level) -> list[Problem]:
    """Mean/Variance/Scale/Bias broadcastable to InputTensor; Spatial = false (before FL 4.0) keeps H and W whole."""
    op = desc.OPERATOR_TYPE
    out: list[Problem] = []
    source = tensor(desc, "InputTensor")
    target = sizes(source)
    if not target:
        return out
    for name in PER_CHANNEL:
        t = tensor(desc, name)
        if t is None or t.dimension_count != len(target):
            continue
        p = broadcast_problem(op, name, t, target, "InputTensor")
        if p:
            out.append(p)
        elif name in ("MeanTensor", "VarianceTensor") and not desc.spatial and level < FeatureLevel.FL_4_0:
            out.extend(_spatial_problem(op, name, list(t.sizes), target, level))
    return out


def _spatial_problem(op, name, found, target, level) -> list[Problem]:
    # Height and Width are the last two dimensions of the NCHW / NCDHW layouts the docs describe.
    if len(target) < 4 or found[-2:] == target[-2:]:
        return []
    expected = found[:-2] + target[-2:]
    return [Problem(op, name, "spatial",
                    f"Sizes {found} broadcast the Height or Width dimension, which Spatial = false does not allow at "
                    f"{level.dml_name} (expected: {expected}); DML_FEATURE_LEVEL_4_0 ignores Spatial.")]


# shared math ---------------------------------------------------------------------------------------

def reduced_axes(stat_sizes, input_sizes) -> list[int]:
    """The dimensions a statistics tensor is broadcast along: size 1 there, not 1 in InputTensor.

    Dimensions where both are 1 are left out: reducing over them changes nothing, and an empty
    list lets callers skip the reduction (ONNX Reduce* and torch.sum treat no axes as *all* axes).
    """
    return [i for i, (s, n) in enumerate(zip(stat_sizes, input_sizes)) if s == 1 and n != 1]


def epsilon(desc) -> float:
    """Epsilon as DirectML reads it: the struct field is a 32-bit FLOAT."""
    return float(np.float32(desc.epsilon))


def f64(x, *names):
    """The named inputs as float64 arrays (the reference computes every reduction in float64)."""
    return [x[n].astype(np.float64) for n in names]


def onnx_float(g, v: str) -> str:
    """``v`` in float32 when it is float16, so that sums and means accumulate in float32 on every provider."""
    return g.cast(v, np.float32) if g.dtype(v) == np.float16 else v


def onnx_reduce(g, op: str, v: str, axes) -> str:
    """ReduceSum/ReduceMean over ``axes`` keeping dimensions; ``v`` itself when there is nothing to reduce."""
    return g.node(op, [v, g.ints(axes)], keepdims=1) if axes else v


def torch_float(torch, t):
    """``t`` in float32 when it is float16 (on the CPU it already arrives as float32)."""
    return t.float() if t.dtype == torch.float16 else t


def torch_sum(t, axes):
    """Sum over ``axes`` keeping dimensions; ``t`` itself when there is nothing to reduce."""
    return t.sum(dim=tuple(axes), keepdim=True) if axes else t


def torch_mean(t, axes):
    """Mean over ``axes`` keeping dimensions; ``t`` itself when there is nothing to reduce."""
    return t.mean(dim=tuple(axes), keepdim=True) if axes else t


# BATCH_NORMALIZATION --------------------------------------------------------------------------------

STATS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor")


def reference(desc, x):
    """Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias in float64, broadcast per dimension."""
    v, mean, var, scale, bias = f64(x, "InputTensor", *STATS)
    return {"OutputTensor": scale * ((v - mean) / np.sqrt(var + epsilon(desc))) + bias}


def to_onnx(desc, g, x):
    """Sub, Div by Sqrt(Variance + Epsilon), Mul, Add (ONNX's multidirectional broadcasting = DirectML's)."""
    v, mean, var, scale, bias = (onnx_float(g, x[n]) for n in ("InputTensor", *STATS))
    std = g.node("Sqrt", [g.node("Add", [var, g.scalar(epsilon(desc), var)])])
    normalized = g.node("Div", [g.node("Sub", [v, mean]), std])
    return {"OutputTensor": g.node("Add", [g.node("Mul", [scale, normalized]), bias])}


def to_torch(desc, torch, x):
    """The same formula with broadcasting torch ops."""
    v, mean, var, scale, bias = (torch_float(torch, x[n]) for n in ("InputTensor", *STATS))
    return {"OutputTensor": scale * ((v - mean) / torch.sqrt(var + epsilon(desc))) + bias}


def _desc(input_sizes, stat_sizes, strides=None, stat_strides=None, spatial=True, eps=0.0, act=None):
    from ..descs import BatchNormalization

    stat = td("FLOAT32", stat_sizes, stat_strides)
    return BatchNormalization(input_tensor=td("FLOAT32", input_sizes, strides), mean_tensor=stat,
                              variance_tensor=stat, scale_tensor=stat, bias_tensor=stat,
                              output_tensor=td("FLOAT32", input_sizes), spatial=spatial, epsilon=eps,
                              fused_activation=act)


def _samples():
    from ..descs import ActivationRelu

    rng = np.random.default_rng(72)

    def r(*shape, low=-2.0, high=2.0):
        return rng.uniform(low, high, shape).astype(np.float32)

    def stats(*shape):
        return {"MeanTensor": r(*shape), "VarianceTensor": r(*shape, low=0.1, high=3.0), "ScaleTensor": r(*shape),
                "BiasTensor": r(*shape)}

    # By hand: Input {1, 2, 1, 2}, channel 0 = [1, 3], channel 1 = [2, 6]; Mean [2, 4], Variance [0.75, 3.75],
    # Epsilon 0.25 -> sqrt(Variance + Epsilon) = [1, 2]; normalized: [(1-2)/1, (3-2)/1] = [-1, 1] and
    # [(2-4)/2, (6-4)/2] = [-1, 1]; Scale [2, 0.5], Bias [1, -1]: [-2+1, 2+1] = [-1, 3], [-0.5-1, 0.5-1] = [-1.5, -0.5].
    # With a fused ReLU: [0, 3] and [0, 0].
    hand = {"InputTensor": np.array([1, 3, 2, 6], np.float32).reshape(1, 2, 1, 2),
            "MeanTensor": np.array([2, 4], np.float32).reshape(1, 2, 1, 1),
            "VarianceTensor": np.array([0.75, 3.75], np.float32).reshape(1, 2, 1, 1),
            "ScaleTensor": np.array([2, 0.5], np.float32).reshape(1, 2, 1, 1),
            "BiasTensor": np.array([1, -1], np.float32).reshape(1, 2, 1, 1)}
    exact = dict(why="exact in binary: halves and quarters", atol=0, rtol=0)
    nhwc = r(1, 3, 2, 2)  # the buffer of an {N, C, H, W} = {1, 2, 3, 2} tensor laid out NHWC
    return [
        Sample("per_channel_nchw_by_hand", _desc([1, 2, 1, 2], [1, 2, 1, 1], eps=0.25), hand,
               {"OutputTensor": np.array([-1, 3, -1.5, -0.5], np.float32).reshape(1, 2, 1, 2)}, **exact),
        Sample("fused_relu_by_hand", _desc([1, 2, 1, 2], [1, 2, 1, 1], eps=0.25, act=ActivationRelu()), hand,
               {"OutputTensor": np.array([0, 3, 0, 0], np.float32).reshape(1, 2, 1, 2)}, **exact),
        # NHWC through strides: Sizes stay {N, C, H, W}, Strides {H*W*C, 1, W*C, C}; statistics {1, C, 1, 1}.
        Sample("nhwc_strides", _desc([1, 2, 3, 2], [1, 2, 1, 1], strides=[12, 1, 4, 2], eps=1e-3),
               {"InputTensor": nhwc.reshape(-1), **stats(1, 2, 1, 1)}),
        # NHWC as logical Sizes {N, H, W, C}: the statistics are {1, 1, 1, C}.
        Sample("nhwc_sizes", _desc([2, 3, 2, 4], [1, 1, 1, 4], eps=1e-5),
               {"InputTensor": r(2, 3, 2, 4), **stats(1, 1, 1, 4)}),
        Sample("ncdhw_5d", _desc([2, 3, 2, 2, 3], [1, 3, 1, 1, 1], eps=1e-2),
               {"InputTensor": r(2, 3, 2, 2, 3), **stats(1, 3, 1, 1, 1)}),
        Sample("nc_2d", _desc([5, 3], [1, 3], eps=1e-4), {"InputTensor": r(5, 3), **stats(1, 3)}),
        Sample("scalar_stats_1d", _desc([6], [1], eps=0.5), {"InputTensor": r(6), **stats(1)}),
        # Statistics for every (C, H, W) element (Spatial = false keeps H and W whole; no effect from FL 4.0 on).
        Sample("per_element_not_spatial", _desc([2, 2, 2, 3], [1, 2, 2, 3], spatial=False, eps=1e-3),
               {"InputTensor": r(2, 2, 2, 3), **stats(1, 2, 2, 3)}),
        # Statistics read through zero strides: one buffer value for every channel.
        Sample("stats_zero_strides", _desc([2, 3, 2, 2], [1, 3, 1, 1], stat_strides=[0, 0, 0, 0], eps=1e-3),
               {"InputTensor": r(2, 3, 2, 2), "MeanTensor": r(1), "VarianceTensor": r(1, low=0.1, high=3.0),
                "ScaleTensor": r(1), "BiasTensor": r(1)}),
    ]


SAMPLES = _samples()
