"""Ascend (CANN aclnn) ops as DirectML graphs: ``binary_cross_entropy`` (aclnnBinaryCrossEntropy) and
``binary_cross_entropy_backward`` (aclnnBinaryCrossEntropyBackward).

DirectML has no binary cross-entropy operator at any feature level, so both are composed from element-wise
operators. The semantics follow Ascend's sources (cited per function); where they could not be verified,
PyTorch's, and the docstrings say so. ``compose_binary_cross_entropy`` and
``compose_binary_cross_entropy_backward`` add the same nodes to an existing ``Composer``, so that a whole
training step can be one graph (see samples/train_mlp_bce.py).

What happens on the host: argument checks, the broadcast Strides of the inputs, the 1/numel constant, and
the results of empty inputs (no graph). All arithmetic runs as DirectML operators.
"""
from __future__ import annotations

import functools
import math
from typing import overload

import numpy as np

from ..compose import Composer, Tensor
from ..descs import ElementWiseLog
from ..errors import DmlOpsError
from ..types import DataType
from ._common import Built, array, finish_or_graph

FORWARD = "aclnn.BinaryCrossEntropy"
BACKWARD = "aclnn.BinaryCrossEntropyBackward"

#: The denominator clamp of the gradient (Ascend's SCALAR_EPS and PyTorch's EPSILON are both 1e-12).
EPSILON = 1e-12
#: The forward's lower clamp of log(x) and log(1 - x) (Ascend's MIN_VALUE; PyTorch's -100).
LOG_MIN = -100.0
#: The upper end of the CLIPs that stand in for a one-sided max (CLIP has no "no upper bound").
FLT_MAX = float(np.finfo(np.float32).max)
#: aclnn's int64 reduction codes, in order.
REDUCTIONS = ("none", "mean", "sum")
#: aclnn tensors have at most 8 dimensions (and DirectML allows 8).
MAX_DIMS = 8



# ---------------------------------------------------------------------------------------------- argument checks
def reduction_name(op: str, reduction) -> str:
    """``reduction`` as "none", "mean" or "sum": the name, or aclnn's int64 code 0, 1, 2."""
    if isinstance(reduction, str) and reduction in REDUCTIONS:
        return reduction
    if isinstance(reduction, (int, np.integer)) and not isinstance(reduction, (bool, np.bool_)) \
            and 0 <= int(reduction) < len(REDUCTIONS):
        return REDUCTIONS[int(reduction)]
    raise DmlOpsError(f"{op}: reduction must be 'none', 'mean' or 'sum' (or aclnn's code 0, 1 or 2); "
                      f"got {reduction!r}.")


def _tensor(op: str, name: str, value) -> np.ndarray:
    """A FLOAT32 or FLOAT16 array of at most 8 dimensions (aclnn's FLOAT and FLOAT16)."""
    value = array(op, name, value, ("float32", "float16"))
    if value.ndim > MAX_DIMS:
        raise DmlOpsError(f"{op}: {name} has {value.ndim} dimensions; aclnn allows at most {MAX_DIMS}.")
    return value


def _check_broadcast(op: str, name: str, shape: tuple, self_shape: tuple) -> None:
    """aclnn's rule: ``name`` must broadcast with self, and the broadcast shape must be self's shape."""
    ok = len(shape) <= len(self_shape) and all(a in (1, b) for a, b in zip(reversed(shape), reversed(self_shape)))
    if not ok:
        raise DmlOpsError(f"{op}: {name} of shape {list(shape)} does not broadcast to self's shape "
                          f"{list(self_shape)} (the broadcast shape must equal self's).")


def _broadcast_strides(shape: tuple, full: tuple):
    """Strides that read a packed array of ``shape`` as ``full`` (zero on its size-1 axes, which is where it
    broadcasts); None when it needs none."""
    own = (1,) * (len(full) - len(shape)) + tuple(shape)
    if own == tuple(full):
        return None
    return [0 if a == 1 else math.prod(own[i + 1:]) for i, a in enumerate(own)]


def _padded(shape: tuple) -> tuple:
    return (1,) * (4 - len(shape)) + tuple(shape)


# ---------------------------------------------------------------------------------------------- composition
@overload
def _compute(c: Composer, t: Tensor) -> Tensor: ...


@overload
def _compute(c: Composer, t: Tensor | None) -> Tensor | None: ...


def _compute(c: Composer, t: Tensor | None) -> Tensor | None:
    """``t`` in FLOAT32: Ascend casts FLOAT16 to FLOAT32 before computing (its kernels' ``cast_to``)."""
    if t is None or t.data_type == DataType.FLOAT32:
        return t
    return c.cast(t, DataType.FLOAT32)


def _check_tensors(op: str, self: Tensor, **others) -> None:
    """The compose_* functions' checks: FLOAT32/FLOAT16 Tensors that broadcast to self's Sizes."""
    for name, t in dict(others, self=self).items():
        if isinstance(t, Tensor):
            if t.data_type not in (DataType.FLOAT32, DataType.FLOAT16):
                raise DmlOpsError(f"{op}: {name} is {t.data_type.name}; expected FLOAT32 or FLOAT16.")
            _check_broadcast(op, name, t.sizes, self.sizes)


def _result_type(*tensors) -> DataType:
    """aclnn's promotion of FLOAT16 and FLOAT: FLOAT16 only when every tensor is FLOAT16."""
    types = {t.data_type for t in tensors if isinstance(t, Tensor)}
    return DataType.FLOAT16 if types == {DataType.FLOAT16} else DataType.FLOAT32


def compose_binary_cross_entropy_backward(c: Composer, grad_output, self: Tensor, target: Tensor,
                                          weight: Tensor | None = None, reduction="mean") -> Tensor:
    """Add aclnnBinaryCrossEntropyBackward's nodes to ``c`` and return ``out`` (self's Sizes)::

        out = grad_output * weight * (self - target) / max(self * (1 - self), 1e-12)   [* 1/numel(self) for mean]

    ``grad_output``, ``target`` and ``weight`` broadcast to self's Sizes like NumPy (through zero strides);
    ``grad_output`` may also be a Python number, folded into a ScaleBias (no input needed, e.g. 1.0 for the
    gradient of a loss). FLOAT16 tensors are CAST to FLOAT32 first; ``out`` is FLOAT16 only when every tensor
    is, else FLOAT32. Operators: CAST, ELEMENT_WISE_SUBTRACT, _IDENTITY (ScaleBias), _MULTIPLY, _CLIP, _DIVIDE.
    """
    reduction = reduction_name(BACKWARD, reduction)
    _check_tensors(BACKWARD, self, grad_output=grad_output, target=target, weight=weight)
    out_type = _result_type(grad_output, self, target, weight)
    x, y, w = _compute(c, self), _compute(c, target), _compute(c, weight)
    # Ascend's order (binary_cross_entropy_grad_compute): (x - y) / max(x * (-x + 1), eps), then * w, then * g.
    den = c.clip(c.mul(x, c.identity(x, scale=-1.0, bias=1.0)), EPSILON, FLT_MAX)
    out = c.div(c.sub(x, y), den)
    if w is not None:
        out = c.mul(w, out)
    scale = 1.0 / math.prod(self.sizes) if reduction == "mean" else 1.0
    if isinstance(grad_output, Tensor):
        out = c.mul(_compute(c, grad_output), out)
    else:
        scale *= float(grad_output)
    if scale != 1.0:
        out = c.identity(out, scale=scale)
    return out if out_type == DataType.FLOAT32 else c.cast(out, out_type)


def compose_binary_cross_entropy(c: Composer, self: Tensor, target: Tensor, weight: Tensor | None = None,
                                 reduction="mean") -> Tensor:
    """Add aclnnBinaryCrossEntropy's nodes to ``c`` and return ``out``::

        l = -weight * (target * max(log(self), -100) + (1 - target) * max(log(1 - self), -100))
        out = l (reduction none, self's Sizes), sum(l / numel) (mean) or sum(l) (sum; both Sizes all 1)

    ``weight`` broadcasts to self's Sizes. Computed in FLOAT32 (FLOAT16 tensors are CAST first) and returned
    in self's DataType. Operators: CAST, ELEMENT_WISE_LOG (ScaleBias -1, 1 gives log(1 - self)), _CLIP,
    _IDENTITY, _MULTIPLY, _ADD, and REDUCE SUM over a flat 4-D view for mean and sum.
    """
    reduction = reduction_name(FORWARD, reduction)
    _check_tensors(FORWARD, self, target=target, weight=weight)
    x, y, w = _compute(c, self), _compute(c, target), _compute(c, weight)
    log_x = c.clip(c.unary(ElementWiseLog, x), LOG_MIN, FLT_MAX)
    log_1mx = c.clip(c.unary(ElementWiseLog, x, scale=-1.0, bias=1.0), LOG_MIN, FLT_MAX)
    total = c.add(c.mul(y, log_x), c.mul(c.identity(y, scale=-1.0, bias=1.0), log_1mx))
    if w is not None:
        total = c.mul(total, w)
    numel = math.prod(self.sizes)
    # The loss's minus sign rides on the next scaling; negation is exact, so the order matches Ascend's
    # -(...) * w, then * 1/numel, then sum.
    if reduction == "none":
        out = c.identity(total, scale=-1.0)
    else:
        if reduction == "mean":
            total = c.identity(total, scale=-1.0 / numel)
        # A flat [1, 1, 1, numel] view (no node) keeps REDUCE 4-D whatever self's rank.
        out = c.reduce(total.reshape([1, 1, 1, numel]), "SUM", [3])
        if reduction == "sum":
            out = c.identity(out, scale=-1.0)
    return out if self.data_type == DataType.FLOAT32 else c.cast(out, self.data_type)


# ---------------------------------------------------------------------------------------------- graphs
def _inputs(c: Composer, full: tuple, specs) -> list[Tensor | None]:
    """Graph inputs read at self's Sizes: each (name, shape, dtype) through broadcast Strides, so no node copies
    them; ``shape`` None gives None."""
    return [None if shape is None else c.input(name, DataType.from_numpy(dtype), full, _broadcast_strides(shape, full))
            for name, shape, dtype in specs]


@functools.lru_cache(maxsize=256)
def _backward_graph(self_shape, self_dtype, grad_shape, grad_dtype, target_shape, target_dtype, weight_shape,
                    weight_dtype, reduction) -> Built:
    c = Composer()
    g, x, y, w = _inputs(c, _padded(self_shape), [("grad_output", grad_shape, grad_dtype),
                                                  ("self", self_shape, self_dtype),
                                                  ("target", target_shape, target_dtype),
                                                  ("weight", weight_shape, weight_dtype)])
    assert x is not None and y is not None  # self and target always have a shape
    c.output("out", compose_binary_cross_entropy_backward(c, g, x, y, w, reduction))
    return Built(BACKWARD, c.build(),
                 lambda outputs: np.asarray(outputs["out"]).reshape(self_shape))


@functools.lru_cache(maxsize=256)
def _forward_graph(self_shape, dtype, weight_shape, reduction) -> Built:
    c = Composer()
    x, y, w = _inputs(c, _padded(self_shape), [("self", self_shape, dtype), ("target", self_shape, dtype),
                                               ("weight", weight_shape, dtype)])
    assert x is not None and y is not None  # self and target always have a shape
    c.output("out", compose_binary_cross_entropy(c, x, y, w, reduction))
    shape = self_shape if reduction == "none" else ()
    return Built(FORWARD, c.build(), lambda outputs: np.asarray(outputs["out"]).reshape(shape))


def _feeds(**arrays) -> dict:
    """Every input as its packed 1-D buffer (the form broadcast-strided inputs are bound in)."""
    return {name: np.ascontiguousarray(a).reshape(-1) for name, a in arrays.items() if a is not None}


def _no_graph(op: str, return_graph: bool) -> None:
    if return_graph:
        raise DmlOpsError(f"{op}: self is empty, so there is no graph: aclnn returns without launching a kernel, "
                          "and so does this adapter.")


# ---------------------------------------------------------------------------------------------- adapters
def binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction="mean", *,
                                  backend: str | None = None, device=None, feature_level=None,
                                  return_graph: bool = False):
    """aclnnBinaryCrossEntropyBackward as a DirectML graph: the gradient of binary cross-entropy w.r.t. ``self``.

    ::

        out = grad_output * weight * (self - target) / max(self * (1 - self), 1e-12)
        reduction "mean" (1): out *= 1 / numel(self)     (element-wise; out keeps self's shape)
        reduction "none" (0), "sum" (2): nothing more    (grad_output is usually a scalar for sum)

    Arguments (aclnn's, in its order): ``grad_output``, ``self``, ``target`` and ``weight`` are float32 or
    float16 arrays (or torch tensors) of at most 8 dimensions; ``grad_output``, ``target`` and ``weight``
    broadcast to self's shape and the broadcast shape must equal self's; ``weight=None`` means ones;
    ``reduction`` is "none", "mean", "sum" or 0, 1, 2. Returns ``out`` (aclnn's only output), an array of self's shape.

    Conventions, from hicann/ops-nn ``loss/binary_cross_entropy_grad/op_api/aclnn_binary_cross_entropy_backward.cpp``
    and the TBE kernel ``binary_cross_entropy_grad_compute`` (see docs/frameworks_aclnn.md):

    * dtypes promote: out is float16 only when all four are float16, else float32 (aclnn promotes to the common
      type; its ``out`` argument takes the promoted type here). FLOAT16 is computed in FLOAT32 (CAST in, CAST
      out), as Ascend's kernel does where vmul supports float32, so self = 0, target = 0 gives 0, where PyTorch's
      own float16 CPU kernel gives NaN. The result is stored as DirectML stores FLOAT16: DirectML's vectors round
      toward zero, so ±1e12 at self = 0 or 1 comes back as ±65504 (Ascend's round-to-nearest cast gives ±inf) and
      other values may be one float16 ulp nearer zero than Ascend's.
    * The clamp is on the denominator only; the forward's -100 log clamp is not used (nor by PyTorch).
    * bfloat16 raises (DirectML has no bfloat16). Empty self returns an empty array and builds no graph
      (aclnn also skips the shape checks then). Mean divides by numel(self), not by the broadcast operands'.

    DirectML operators: CAST (float16 only), ELEMENT_WISE_SUBTRACT, _IDENTITY (ScaleBias: 1 - self and
    1/numel), _MULTIPLY, _CLIP (Min 1e-12, Max FLT_MAX: the max with 1e-12), _DIVIDE. Broadcasting is in the
    inputs' Strides (zero strides). Host work: checks, Strides, the 1/numel constant.

    Lowest feature level of the graph: DML_FEATURE_LEVEL_1_0 for self of at most 4 dimensions;
    for 5 to 8, DML_FEATURE_LEVEL_3_0 in float32 (element-wise operators take 1 to 8 dimensions from 3.0) and
    DML_FEATURE_LEVEL_3_1 when a float16 tensor needs CAST (1 to 8 dimensions from 3.1).
    ``return_graph=True`` returns the AdapterGraph (``.graph``, ``.feeds``, ``.lowest_feature_level``).
    """
    op = BACKWARD
    grad_output, self, target = (_tensor(op, n, v) for n, v in
                                 (("grad_output", grad_output), ("self", self), ("target", target)))
    weight = None if weight is None else _tensor(op, "weight", weight)
    reduction = reduction_name(op, reduction)
    arrays = [a for a in (grad_output, self, target, weight) if a is not None]
    out_dtype = np.float16 if all(a.dtype == np.float16 for a in arrays) else np.float32
    if self.size == 0:
        _no_graph(op, return_graph)
        return np.empty(self.shape, out_dtype)
    for name, a in (("grad_output", grad_output), ("target", target), ("weight", weight)):
        if a is not None:
            _check_broadcast(op, name, a.shape, self.shape)
    built = _backward_graph(self.shape, self.dtype.name, grad_output.shape, grad_output.dtype.name, target.shape,
                            target.dtype.name, None if weight is None else weight.shape,
                            None if weight is None else weight.dtype.name, reduction)
    feeds = _feeds(grad_output=grad_output, self=self, target=target, weight=weight)
    return finish_or_graph(built, feeds, return_graph, backend, device, feature_level)


def binary_cross_entropy(self, target, weight=None, reduction="mean", *, backend: str | None = None, device=None,
                         feature_level=None, return_graph: bool = False):
    """aclnnBinaryCrossEntropy as a DirectML graph: the binary cross-entropy of probabilities ``self``.

    ::

        l = -weight * (target * max(log(self), -100) + (1 - target) * max(log(1 - self), -100))
        out = l ("none", 0; self's shape) | sum(l * 1/numel) ("mean", 1; 0-d) | sum(l) ("sum", 2; 0-d)

    Arguments (aclnn's, in its order): ``self`` and ``target`` float32 or float16 arrays (or torch tensors)
    of the same shape and dtype, at most 8 dimensions; ``weight`` (None means ones) of the same dtype,
    broadcasting to self's shape; ``reduction`` "none", "mean", "sum" or 0, 1, 2. Returns
    ``out`` (aclnn's only output) in self's dtype.

    Conventions, from hicann/ops-nn ``loss/binary_cross_entropy`` (op_api ``aclnn_binary_cross_entropy.cpp``,
    kernel ``op_kernel/arch35/binary_cross_entropy_dag.h``, golden ``tests/assets/golden.py``):

    * The log clamp: max(log(x), -100) and max(log(1 - x), -100), with 1 - x computed as -x + 1 (not log1p),
      as the arch35 kernel and the TBE kernel on chips with ``vcopy`` (Atlas A2/A3) do, and as PyTorch does.
      Older chips (Atlas training/inference series) clamp x and 1 - x at 1e-12 before the log instead
      (log >= -27.63); that variant is not reproduced.
    * target must have self's shape and self, target and weight one dtype (aclnn's OP_CHECK_SHAPE_NOT_EQUAL
      and OP_CHECK_DTYPE_NOT_MATCH; unlike the backward, the forward does not promote). weight broadcasting
      to self's shape follows CANN 8.0.RC1's aclnnBinaryCrossEntropy page and PyTorch.
    * FLOAT16 is computed in FLOAT32 (CAST in and out), as Ascend's kernels do; mean scales by 1/numel
      before the sum, as Ascend does. The mean/sum result is 0-d (PyTorch's shape; aclnn's docs say [1]).
    * Empty self: "none" gives an empty array, "mean" NaN and "sum" 0 (aclnn's Fill), with no graph.
    * bfloat16 raises (DirectML has no bfloat16).

    DirectML operators: CAST (float16 only), ELEMENT_WISE_LOG (ScaleBias -1, 1 for log(1 - x)), _CLIP,
    _IDENTITY, _MULTIPLY, _ADD, REDUCE (SUM over a flat [1, 1, 1, numel] view). Host work: checks, Strides,
    the 1/numel constant, empty results.

    Lowest feature level of the graph: DML_FEATURE_LEVEL_1_0 for self of at most 4 dimensions; for 5 to 8,
    DML_FEATURE_LEVEL_3_0 in float32 and DML_FEATURE_LEVEL_3_1 in float16 (CAST). ``return_graph=True``
    returns the AdapterGraph.
    """
    op = FORWARD
    self, target = _tensor(op, "self", self), _tensor(op, "target", target)
    weight = None if weight is None else _tensor(op, "weight", weight)
    reduction = reduction_name(op, reduction)
    for name, a in (("target", target), ("weight", weight)):
        if a is not None and a.dtype != self.dtype:
            raise DmlOpsError(f"{op}: {name} has dtype {a.dtype.name} and self {self.dtype.name}; "
                              "aclnnBinaryCrossEntropy requires one dtype (it does not promote).")
    if target.shape != self.shape:
        raise DmlOpsError(f"{op}: target has shape {list(target.shape)}; it must equal self's shape "
                          f"{list(self.shape)}.")
    if weight is not None:
        _check_broadcast(op, "weight", weight.shape, self.shape)
    if self.size == 0:
        _no_graph(op, return_graph)
        value = np.empty(self.shape, self.dtype) if reduction == "none" else \
            np.array(np.nan if reduction == "mean" else 0.0, self.dtype)
        return value
    built = _forward_graph(self.shape, self.dtype.name, None if weight is None else weight.shape, reduction)
    feeds = _feeds(self=self, target=target, weight=weight)
    return finish_or_graph(built, feeds, return_graph, backend, device, feature_level)


__all__ = ["binary_cross_entropy", "binary_cross_entropy_backward", "compose_binary_cross_entropy",
           "compose_binary_cross_entropy_backward", "reduction_name", "EPSILON", "LOG_MIN"]
