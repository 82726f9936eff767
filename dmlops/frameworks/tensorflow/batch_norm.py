"""TensorFlow's ``FusedBatchNormV3`` and ``FusedBatchNormGradV3`` as DirectML graphs.

The pair is a batch-normalization training step: the forward returns the batch statistics in
``reserve_space_1`` (mean) and ``reserve_space_2`` (biased variance), which the backward takes back.

Layouts (NHWC, NCHW, NDHWC, NCDHW) are DirectML Strides on the operators' tensors, never transposes:
x's buffer is read as DML Sizes ``[N, C, H, W]`` (NHWC: Strides ``[H*W*C, 1, W*C, C]``), per-channel
tensors are ``{1, C, 1, 1}``, and y / x_backprop are written through the same Strides, so their buffers
come back in x's layout. 5-D inputs fold H and W into one axis (TF's kernels reshape the same way,
``[N, D, H*W, C]``), which keeps every tensor 4-D.

Conventions (TensorFlow's CPU kernels, ``tensorflow/core/kernels/fused_batch_norm_op.cc``, and
tensorflow-directml-plugin's ``dml_batch_norm_ops.cc``):

* ``reserve_space_2`` holds the *biased* batch variance (divided by M = N*H*W). TF's cuDNN path stores
  the inverse standard deviation ``1/sqrt(var + epsilon)`` there instead; to feed such a buffer here,
  convert it first: ``var = 1/inv_std**2 - epsilon``.
* The running ``batch_variance`` output uses Bessel's correction, ``var * M/(M-1)`` (M/1 when M = 1).
* half x with float scale: x (and y_backprop) are CAST to FLOAT32, the math runs in FLOAT32, y and
  x_backprop are CAST back to FLOAT16; statistics and scale/offset gradients stay FLOAT32.
"""
from __future__ import annotations

import functools
import math
import numbers
from collections import namedtuple
from typing import SupportsFloat

import numpy as np

from ...compose import Composer, Tensor
from ...errors import DmlOpsError
from ...tensors import permuted_layout
from ...types import DataType, TensorDesc
from .._common import Built, array, choice, finish_or_graph, packed

OP_FORWARD = "tensorflow.FusedBatchNormV3"
OP_GRAD = "tensorflow.FusedBatchNormGradV3"
DATA_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")
X_DTYPES = ("float32", "float16")
F32 = DataType.FLOAT32

FusedBatchNormV3 = namedtuple("FusedBatchNormV3",
                              "y batch_mean batch_variance reserve_space_1 reserve_space_2 reserve_space_3")
FusedBatchNormGradV3 = namedtuple("FusedBatchNormGradV3",
                                  "x_backprop scale_backprop offset_backprop reserve_space_4 reserve_space_5")


# ---------------------------------------------------------------------------------------------------- layouts
def dml_layout(shape, data_format: str) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """DML Sizes ``[N, C, H, W]`` and Strides (None when packed) that read a C-order buffer of ``shape`` in
    ``data_format``. For 5-D shapes H and W are folded into one axis: ``[N, C, D, H*W]``."""
    channels_last = data_format in ("NHWC", "NDHWC")
    if channels_last:
        n, *spatial, ch = shape
    else:
        n, ch, *spatial = shape
    h, w = spatial[0], math.prod(spatial[1:])
    if not channels_last:
        return (n, ch, h, w), None
    return (n, ch, h, w), (h * w * ch, 1, w * ch, ch)


def _from_dml(value: np.ndarray, shape, data_format: str) -> np.ndarray:
    """A graph output read as DML ``[N, C, H, W]`` back in the TF shape (a view over its buffer when possible)."""
    if data_format in ("NHWC", "NDHWC"):
        value = value.transpose(0, 2, 3, 1)
    return np.ascontiguousarray(value).reshape(shape)


def _layout_strides(t: Tensor):
    """Strides for an output written in ``t``'s layout: ``t``'s own when they are a permutation of packed
    strides (NHWC and the like), else None (packed)."""
    desc = t.desc
    if desc.strides is None or tuple(desc.strides) == desc.packed_strides:
        return None
    found = permuted_layout(desc)
    return desc.strides if found is not None and found[0] == desc.element_count else None


def _to_float(c: Composer, t: Tensor) -> Tensor:
    """``t`` in FLOAT32: CAST (keeping its layout) when it is FLOAT16, as TF computes in its float type U."""
    if t.data_type == F32:
        return t
    return c.op("Cast", {"input_tensor": t}, {"output_tensor": TensorDesc(F32, t.sizes, _layout_strides(t))})[
        "output_tensor"]


def _to_type(c: Composer, t: Tensor, data_type: DataType) -> Tensor:
    """``t`` CAST to ``data_type`` (same layout) when it differs."""
    if t.data_type == data_type:
        return t
    return c.op("Cast", {"input_tensor": t}, {"output_tensor": TensorDesc(data_type, t.sizes, _layout_strides(t))})[
        "output_tensor"]


def _f32(value: SupportsFloat) -> float:
    """``value`` rounded to float32, as TF stores its float attributes (epsilon, exponential_avg_factor)."""
    return float(np.float32(value))


def _check_tensors(op: str, x: Tensor, stats: dict) -> None:
    if x.data_type not in (DataType.FLOAT32, DataType.FLOAT16):
        raise DmlOpsError(f"{op}: x must be FLOAT32 or FLOAT16; got {x.data_type.name}.")
    want = (1, x.sizes[1]) + (1,) * (x.rank - 2)
    for name, t in stats.items():
        if t is None:
            continue
        if t.data_type != F32 or tuple(t.sizes) != want:
            raise DmlOpsError(f"{op}: {name} must be FLOAT32 with Sizes {list(want)} (one value per channel); got "
                              f"{t.data_type.name} {list(t.sizes)}.")


# ---------------------------------------------------------------------------------------------------- compose
def compose_fused_batch_norm_v3(c: Composer, x: Tensor, scale: Tensor, offset: Tensor, mean: Tensor | None = None,
                                variance: Tensor | None = None, *, epsilon: float = 0.0001,
                                exponential_avg_factor: float = 1.0, is_training: bool = True) -> FusedBatchNormV3:
    """Add FusedBatchNormV3's nodes to ``c``; return its outputs as Tensors (``reserve_space_3`` is None).

    ``x``: Sizes ``[N, C, H, W]`` (FLOAT32 or FLOAT16), read through its own Strides (an NHWC view of a buffer
    is fine); ``y`` is written in the same layout. ``scale``, ``offset``, ``mean``, ``variance``: FLOAT32
    ``[1, C, 1, 1]``. ``mean``/``variance`` are the running statistics; with ``is_training`` and
    ``exponential_avg_factor == 1`` they are not read and may be None.

    Training: BATCH_NORMALIZATION_TRAINING (DML_FEATURE_LEVEL_4_1) gives y, the batch mean and the biased
    variance (reserve_space_1/2); ELEMENT_WISE_IDENTITY (ScaleBias) and ELEMENT_WISE_ADD give the running
    statistics ``(1 - f) * running + f * batch`` with Bessel's correction M/(M-1) on the variance.
    Inference: BATCH_NORMALIZATION with Spatial (DML_FEATURE_LEVEL_1_0 for 4-D tensors); batch_mean /
    batch_variance and reserve_space_1/2 are ``mean`` and ``variance``.
    """
    _check_tensors(OP_FORWARD, x, {"scale": scale, "offset": offset, "mean": mean, "variance": variance})
    factor = _f32(exponential_avg_factor)
    if not is_training or factor != 1.0:
        if mean is None or variance is None:
            raise DmlOpsError(f"{OP_FORWARD}: mean and variance are needed when is_training is False or "
                              "exponential_avg_factor != 1.")
    x32 = _to_float(c, x)
    y_desc = TensorDesc(F32, x.sizes, _layout_strides(x))
    if not is_training:
        y = c.op("BatchNormalization", {"input_tensor": x32, "mean_tensor": mean, "variance_tensor": variance,
                                        "scale_tensor": scale, "bias_tensor": offset},
                 {"output_tensor": y_desc}, spatial=True, epsilon=_f32(epsilon))["output_tensor"]
        return FusedBatchNormV3(_to_type(c, y, x.data_type), mean, variance, mean, variance, None)
    out = c.op("BatchNormalizationTraining", {"input_tensor": x32, "scale_tensor": scale, "bias_tensor": offset},
               {"output_tensor": y_desc, "output_mean_tensor": scale.sizes, "output_variance_tensor": scale.sizes},
               epsilon=_f32(epsilon))
    batch_mean, batch_var = out["output_mean_tensor"], out["output_variance_tensor"]
    m = math.prod(x.sizes) // x.sizes[1]  # elements per channel
    adjust = np.float32(m) / np.float32(max(m - 1, 1))  # Bessel's correction, in float32 as TF computes it
    if factor == 1.0:
        running_mean, running_var = batch_mean, c.identity(batch_var, scale=float(adjust))
    else:
        assert mean is not None and variance is not None  # refused above when factor != 1
        keep = float(np.float32(1) - np.float32(factor))
        running_mean = c.add(c.identity(mean, scale=keep), c.identity(batch_mean, scale=factor))
        running_var = c.add(c.identity(variance, scale=keep), c.identity(batch_var, scale=float(np.float32(factor) * adjust)))
    return FusedBatchNormV3(_to_type(c, out["output_tensor"], x.data_type), running_mean, running_var, batch_mean,
                            batch_var, None)


def compose_fused_batch_norm_grad_v3(c: Composer, y_backprop: Tensor, x: Tensor, scale: Tensor,
                                     reserve_space_1: Tensor, reserve_space_2: Tensor, *, epsilon: float = 0.0001,
                                     is_training: bool = True) -> FusedBatchNormGradV3:
    """Add FusedBatchNormGradV3's nodes to ``c``; return (x_backprop, scale_backprop, offset_backprop, None, None)
    as Tensors.

    ``x`` and ``y_backprop``: Sizes ``[N, C, H, W]``, the same DataType (FLOAT32 or FLOAT16), each read through
    its own Strides; x_backprop is written in x's layout. ``scale``, ``reserve_space_1`` (mean) and
    ``reserve_space_2`` (biased variance, not cuDNN's inverse std): FLOAT32 ``[1, C, 1, 1]``.
    is_training: BATCH_NORMALIZATION_TRAINING_GRAD (DML_FEATURE_LEVEL_4_1); otherwise BATCH_NORMALIZATION_GRAD
    (DML_FEATURE_LEVEL_3_1) with reserve_space_1/2 as the population mean and variance.
    """
    _check_tensors(OP_GRAD, x, {"scale": scale, "reserve_space_1": reserve_space_1,
                                "reserve_space_2": reserve_space_2})
    if y_backprop.data_type != x.data_type or tuple(y_backprop.sizes) != tuple(x.sizes):
        raise DmlOpsError(f"{OP_GRAD}: y_backprop must match x ({x.data_type.name} {list(x.sizes)}); got "
                          f"{y_backprop.data_type.name} {list(y_backprop.sizes)}.")
    cls = "BatchNormalizationTrainingGrad" if is_training else "BatchNormalizationGrad"
    out = c.op(cls, {"input_tensor": _to_float(c, x), "input_gradient_tensor": _to_float(c, y_backprop),
                     "mean_tensor": reserve_space_1, "variance_tensor": reserve_space_2, "scale_tensor": scale},
               {"output_gradient_tensor": TensorDesc(F32, x.sizes, _layout_strides(x)),
                "output_scale_gradient_tensor": scale.sizes, "output_bias_gradient_tensor": scale.sizes},
               epsilon=_f32(epsilon))
    return FusedBatchNormGradV3(_to_type(c, out["output_gradient_tensor"], x.data_type),
                                out["output_scale_gradient_tensor"], out["output_bias_gradient_tensor"], None, None)


# ---------------------------------------------------------------------------------------------------- checks
def _x(op: str, name: str, value, data_format: str) -> np.ndarray:
    value = array(op, name, value, X_DTYPES)
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    if value.ndim != rank:
        raise DmlOpsError(f"{op}: {name} must be {rank}-D for data_format {data_format!r}; got shape "
                          f"{list(value.shape)}.")
    return value


def _channels(shape, data_format: str) -> int:
    return shape[-1] if data_format in ("NHWC", "NDHWC") else shape[1]


def _per_channel(op: str, name: str, value, channels: int | None, when: str | None = None) -> np.ndarray:
    """A 1-D float32 array of ``channels`` elements (any length when ``channels`` is None); TF's wording."""
    value = array(op, name, value, ("float32",))
    if value.ndim != 1:
        raise DmlOpsError(f"{op}: {name} must be 1-D; got shape {list(value.shape)}.")
    if channels is not None and value.shape[0] != channels:
        raise DmlOpsError(f"{op}: {when + ', ' if when else ''}{name} must have the same number of elements as the "
                          f"channels of x, got {value.shape[0]} and {channels}.")
    return value


def _number(op: str, name: str, value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise DmlOpsError(f"{op}: {name} must be a float; got {value!r}.")
    return _f32(value)


def _flag(op: str, name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise DmlOpsError(f"{op}: {name} must be a bool; got {value!r}.")
    return bool(value)


def _no_graph(op: str, return_graph: bool) -> None:
    if return_graph:
        raise DmlOpsError(f"{op}: x is empty, so there is no DirectML graph (the result is computed on the host).")


def _feed(value: np.ndarray) -> np.ndarray:
    """An array as the 1-D C-order buffer a graph input binds (its TensorDesc Strides say how it is read)."""
    return packed(value).reshape(-1)


def _graph_outputs(c: Composer, tensors: dict) -> dict:
    """Expose each distinct Tensor once; return {result name: graph output name}. Results that are the same tensor
    (batch_mean and reserve_space_1 when exponential_avg_factor is 1) share one graph output, copied on the host,
    so no node output feeds two graph outputs."""
    seen, aliases = {}, {}
    for name, t in tensors.items():
        key = (t.value, t.desc)
        if key not in seen:
            seen[key] = name
            c.output(name, t)
        aliases[name] = seen[key]
    return aliases


# ---------------------------------------------------------------------------------------------------- forward
@functools.lru_cache(maxsize=64)
def _forward_built(shape: tuple, dtype: str, data_format: str, epsilon: float, factor: float, is_training: bool,
                   running: bool) -> Built:
    sizes, strides = dml_layout(shape, data_format)
    stat = [1, sizes[1], 1, 1]
    c = Composer()
    x = c.input("x", DataType.parse(dtype.upper()), sizes, strides)
    scale, offset = c.input("scale", F32, stat), c.input("offset", F32, stat)
    mean = c.input("mean", F32, stat) if running else None
    variance = c.input("variance", F32, stat) if running else None
    r = compose_fused_batch_norm_v3(c, x, scale, offset, mean, variance, epsilon=epsilon,
                                    exponential_avg_factor=factor, is_training=is_training)
    aliases = _graph_outputs(c, {k: v for k, v in r._asdict().items() if v is not None})

    def finish(outputs):
        def convert(name, value):
            return _from_dml(value, shape, data_format) if name == "y" else np.array(value, np.float32).reshape(-1)

        done = {name: convert(name, outputs[source]) for name, source in aliases.items()}
        # CPU TF allocates reserve_space_3 as a float scalar set to 0 (cuDNN keeps its workspace there).
        return FusedBatchNormV3(**done, reserve_space_3=np.zeros((), np.float32))

    return Built(OP_FORWARD, c.build(), finish)


def fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,
                        data_format="NHWC", is_training=True, *, backend=None, device=None,
                        feature_level=None, return_graph=False):
    """TensorFlow ``FusedBatchNormV3`` as a DirectML graph → ``(y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2, reserve_space_3)``.

    Arguments as TF's (``tf.raw_ops.FusedBatchNormV3``): x FLOAT32 or FLOAT16, 4-D for NHWC/NCHW, 5-D for
    NDHWC/NCDHW; scale, offset, mean, variance float32 of shape [C]. With ``is_training`` and
    ``exponential_avg_factor == 1`` mean and variance are not read (any 1-D float32 array, e.g. empty).

    is_training=True (BATCH_NORMALIZATION_TRAINING, then ELEMENT_WISE_IDENTITY/ADD; lowest level
    DML_FEATURE_LEVEL_4_1): y normalizes with the batch mean and biased variance (÷M, M = N·H·W(·D));
    reserve_space_1 / reserve_space_2 are that mean and biased variance (TF's CPU convention, what
    ``fused_batch_norm_grad_v3`` takes); batch_mean / batch_variance are the running statistics
    ``(1 - f)·mean + f·batch_mean`` and ``(1 - f)·variance + f·M/(M-1)·batch_var``, f = exponential_avg_factor
    (f = 1: just the batch statistics, the variance with Bessel's correction; M = 1: no correction).

    is_training=False (BATCH_NORMALIZATION; lowest level DML_FEATURE_LEVEL_1_0): y uses mean and variance;
    batch_mean / batch_variance echo them, and so do reserve_space_1 / reserve_space_2 (TF's CPU kernel
    leaves those two unwritten; the population statistics are what the is_training=False gradient takes).

    FLOAT16 x is CAST to FLOAT32 for the math and y CAST back, as TF computes in float. reserve_space_3 is a
    float32 scalar 0 (TF's CPU kernel). Layouts are Strides on the operators' tensors (see the module
    docstring). On the host: argument checks, strides, and for an empty x the whole result: y empty and
    every statistic NaN (TF's CPU kernel fills batch_mean/batch_variance with NaN and leaves the reserve
    spaces unwritten). ``return_graph=True`` returns the AdapterGraph instead of running it.
    """
    op = OP_FORWARD
    fmt = choice(op, "data_format", data_format, DATA_FORMATS)
    x = _x(op, "x", x, fmt)
    ch = _channels(x.shape, fmt)
    scale = _per_channel(op, "scale", scale, ch)
    offset = _per_channel(op, "offset", offset, ch)
    eps = _number(op, "epsilon", epsilon)
    factor = _number(op, "exponential_avg_factor", exponential_avg_factor)
    training = _flag(op, "is_training", is_training)
    running = not training or factor != 1.0
    # TF requires 1-D float mean and variance always, with C elements only where it reads them.
    when = ("When is_training=false" if not training else "When exponential_avg_factor != 1") if running else None
    mean = _per_channel(op, "mean", mean, ch if running else None, when)
    variance = _per_channel(op, "variance", variance, ch if running else None, when)
    if x.size == 0:
        _no_graph(op, return_graph)
        nan = np.full(ch, np.nan, np.float32)
        return FusedBatchNormV3(np.empty(x.shape, x.dtype), nan, nan.copy(), nan.copy(), nan.copy(),
                                np.zeros((), np.float32))
    built = _forward_built(x.shape, x.dtype.name, fmt, eps, factor, training, running)
    feeds = {"x": _feed(x), "scale": scale, "offset": offset}
    if running:
        feeds.update(mean=mean, variance=variance)
    return finish_or_graph(built, feeds, return_graph, backend, device, feature_level)


# ---------------------------------------------------------------------------------------------------- backward
@functools.lru_cache(maxsize=64)
def _grad_built(shape: tuple, dtype: str, data_format: str, epsilon: float, is_training: bool) -> Built:
    sizes, strides = dml_layout(shape, data_format)
    stat = [1, sizes[1], 1, 1]
    c = Composer()
    data_type = DataType.parse(dtype.upper())
    dy = c.input("y_backprop", data_type, sizes, strides)
    x = c.input("x", data_type, sizes, strides)
    stats = [c.input(n, F32, stat) for n in ("scale", "reserve_space_1", "reserve_space_2")]
    r = compose_fused_batch_norm_grad_v3(c, dy, x, *stats, epsilon=epsilon, is_training=is_training)
    for name in ("x_backprop", "scale_backprop", "offset_backprop"):
        c.output(name, getattr(r, name))

    def finish(outputs):
        return FusedBatchNormGradV3(_from_dml(outputs["x_backprop"], shape, data_format),
                                    np.array(outputs["scale_backprop"], np.float32).reshape(-1),
                                    np.array(outputs["offset_backprop"], np.float32).reshape(-1),
                                    np.zeros(0, np.float32), np.zeros(0, np.float32))

    return Built(OP_GRAD, c.build(), finish)


def fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
                             epsilon=0.0001, data_format="NHWC", is_training=True, *, backend=None,
                             device=None, feature_level=None, return_graph=False):
    """TensorFlow ``FusedBatchNormGradV3`` as a DirectML graph → ``(x_backprop, scale_backprop, offset_backprop,
    reserve_space_4, reserve_space_5)``.

    Arguments as TF's (``tf.raw_ops.FusedBatchNormGradV3``): y_backprop and x of one shape and dtype (FLOAT32
    or FLOAT16; 4-D for NHWC/NCHW, 5-D for NDHWC/NCDHW); scale, reserve_space_1, reserve_space_2 float32 [C];
    reserve_space_3 (float32, any shape) is ignored, as on TF's CPU and DirectML kernels.

    is_training=True → BATCH_NORMALIZATION_TRAINING_GRAD (lowest level DML_FEATURE_LEVEL_4_1):
    reserve_space_1 is the batch mean and reserve_space_2 the *biased* batch variance, as
    ``fused_batch_norm_v3`` (and TF's CPU kernel, and tensorflow-directml) return them. TF's cuDNN path
    stores 1/sqrt(var + epsilon) in reserve_space_2 instead; convert such a buffer with
    ``1/r**2 - epsilon`` first. DirectML centers x with its MeanTensor (reserve_space_1 here) in both
    x_backprop and scale_backprop, as TF's CPU kernel does, so a reserve_space_1 that is not x's batch mean
    gives TF's answer too (DirectML's vector edge_mean_is_batch_mean_plus_0_5).
    is_training=False → BATCH_NORMALIZATION_GRAD (lowest level DML_FEATURE_LEVEL_3_1) with reserve_space_1/2
    as the population mean and variance: x_backprop = y_backprop·scale/sqrt(var + epsilon). TF's CPU kernel
    accepts only NHWC there (its Python gradient transposes NCHW first); here every data_format works.

    FLOAT16: x and y_backprop are CAST to FLOAT32, x_backprop is CAST back to FLOAT16; scale_backprop and
    offset_backprop are float32, as TF computes them. reserve_space_4/5 are empty float32 arrays of shape [0]
    (TF's placeholders). Layouts are Strides on the operators' tensors: x_backprop's buffer is in x's layout.
    On the host: argument checks, strides, and for an empty x the whole result (scale/offset gradients 0,
    as TF). ``return_graph=True`` returns the AdapterGraph instead of running it.
    """
    op = OP_GRAD
    fmt = choice(op, "data_format", data_format, DATA_FORMATS)
    x = _x(op, "x", x, fmt)
    y_backprop = array(op, "y_backprop", y_backprop, (x.dtype.name,))
    if y_backprop.shape != x.shape:
        raise DmlOpsError(f"{op}: x and y_backprop must have same shape, but x has shape {list(x.shape)} and "
                          f"y_backprop has shape {list(y_backprop.shape)}.")
    ch = _channels(x.shape, fmt)
    scale = _per_channel(op, "scale", scale, ch)
    mean = _per_channel(op, "reserve_space_1", reserve_space_1, ch)
    var = _per_channel(op, "reserve_space_2", reserve_space_2, ch)
    array(op, "reserve_space_3", reserve_space_3, ("float32",))
    eps = _number(op, "epsilon", epsilon)
    training = _flag(op, "is_training", is_training)
    if x.size == 0:
        _no_graph(op, return_graph)
        return FusedBatchNormGradV3(np.empty(x.shape, x.dtype), np.zeros(ch, np.float32), np.zeros(ch, np.float32),
                                    np.zeros(0, np.float32), np.zeros(0, np.float32))
    built = _grad_built(x.shape, x.dtype.name, fmt, eps, training)
    feeds = {"y_backprop": _feed(y_backprop), "x": _feed(x), "scale": scale, "reserve_space_1": mean,
             "reserve_space_2": var}
    return finish_or_graph(built, feeds, return_graph, backend, device, feature_level)


__all__ = ["FusedBatchNormV3", "FusedBatchNormGradV3", "fused_batch_norm_v3", "fused_batch_norm_grad_v3",
           "compose_fused_batch_norm_v3", "compose_fused_batch_norm_grad_v3", "dml_layout"]
