"""One small op set over three backends, so that an algorithm is written once and runs on NumPy, ONNX and torch.

The algorithms that build their computation from runtime values (the unary math formulas, ROI sampling, multi-head
attention, the recurrent time loop: dmlops/ops/_unary_math.py, _roi.py, _attention.py, _recurrent_exec.py) take one
of :class:`NumPy`, :class:`ONNX` or :class:`Torch` and call the same methods in the same order on each; a module
subclasses them only for what is its own (attention's float64-accumulated reference GEMM, the recurrent cells'
activations, ...).

What every method means on every backend:

* A Python number beside a value is a constant of that value's dtype (NumPy: that dtype; ONNX: an initializer of
  it; torch: a Python scalar, which torch computes in the tensor's dtype, or ``full_like`` as a ``where`` operand).
* NumPy computes floats in the op set's ``dtype`` (float32 unless given: what DirectML's shaders compute in),
  rounded to it after every operation; integers (index arithmetic) stay integers.
* ONNX: every node is a kernel of ONNX Runtime's DirectML provider (dmlops/data/ort_dml_ep_kernels.json). ``where``
  is a plain Where, which ONNX Runtime's CPU provider makes +0.0 where it takes a -0.0 from X; ``ONNX(g,
  keep_negative_zero=True)`` selects through ``ew.onnx_where`` instead, bit exact on every provider.
* torch: only ops torch-directml registers (tests/test_torch_directml_ops.py), on ``device`` for new constants.
* ``rint`` rounds half to even on all three; ``cast`` from float to integer truncates toward zero.
"""
from __future__ import annotations

import numpy as np

_NUMBER = (int, float, np.number)


def _number(v) -> bool:
    return isinstance(v, _NUMBER)


class NumPy:
    """NumPy arrays; floats computed in ``dtype`` and rounded to it after every operation."""

    def __init__(self, dtype=np.float32):
        self.dtype = np.dtype(dtype)

    def _pair(self, a, b):
        """``a`` and ``b`` with a Python number made an array of the other operand's dtype."""
        if _number(a):
            a = np.asarray(a, np.asarray(b).dtype)
        elif _number(b):
            b = np.asarray(b, np.asarray(a).dtype)
        return a, b

    def _arith(self, ufunc, a, b):
        """``ufunc(a, b)`` in ``dtype`` when a float takes part, else in the operands' integer type."""
        dtype = self.dtype if np.result_type(a, b).kind in "fc" else None
        return ufunc(a, b, dtype=dtype)

    # constants and types --------------------------------------------------------------------------------------
    def const(self, value, dtype=None):
        """``value`` (array or number) as an array of ``dtype`` (default: the op set's float dtype)."""
        return np.asarray(value, dtype or self.dtype)

    def cast(self, v, dtype):
        """``v`` as ``dtype`` (float to integer truncates toward zero)."""
        return np.asarray(v).astype(dtype)

    # arithmetic -----------------------------------------------------------------------------------------------
    def add(self, a, b):
        """a + b."""
        return self._arith(np.add, a, b)

    def sub(self, a, b):
        """a - b."""
        return self._arith(np.subtract, a, b)

    def mul(self, a, b):
        """a * b."""
        return self._arith(np.multiply, a, b)

    def div(self, a, b):
        """a / b (IEEE: x / 0 is ±inf or NaN, without a warning)."""
        with np.errstate(all="ignore"):
            return self._arith(np.divide, a, b)

    def neg(self, a):
        """-a."""
        return np.negative(a)

    def abs(self, a):
        """|a|."""
        return np.abs(a)

    def sqrt(self, a):
        """sqrt(a)."""
        return np.sqrt(a)

    def log(self, a):
        """ln(a)."""
        return np.log(a)

    def maximum(self, a, b):
        """The element-wise maximum (NaN propagates)."""
        return np.maximum(*self._pair(a, b))

    def minimum(self, a, b):
        """The element-wise minimum (NaN propagates)."""
        return np.minimum(*self._pair(a, b))

    def floor(self, a):
        """floor(a)."""
        return np.floor(a)

    def ceil(self, a):
        """ceil(a)."""
        return np.ceil(a)

    def rint(self, a):
        """a rounded to the nearest integer, half to even."""
        return np.rint(a)

    def clip(self, v, low, high):
        """min(max(v, low), high)."""
        return np.clip(v, low, high)

    # comparisons and logic ------------------------------------------------------------------------------------
    def lt(self, a, b):
        """a < b."""
        return np.less(*self._pair(a, b))

    def le(self, a, b):
        """a <= b."""
        return np.less_equal(*self._pair(a, b))

    def gt(self, a, b):
        """a > b."""
        return np.greater(*self._pair(a, b))

    def eq(self, a, b):
        """a == b."""
        return np.equal(*self._pair(a, b))

    def ne(self, a, b):
        """a != b."""
        return np.not_equal(*self._pair(a, b))

    def land(self, a, b):
        """a and b."""
        return np.logical_and(a, b)

    def lor(self, a, b):
        """a or b."""
        return np.logical_or(a, b)

    def lnot(self, a):
        """not a."""
        return np.logical_not(a)

    def where(self, c, a, b):
        """c ? a : b (floats in ``dtype``)."""
        if _number(a) and _number(b):
            a, b = self.const(a), self.const(b)
        r = np.where(c, *self._pair(a, b))
        return r.astype(self.dtype) if r.dtype.kind == "f" else r

    # shapes and indexing --------------------------------------------------------------------------------------
    def reshape(self, v, shape):
        """``v`` with ``shape``."""
        return np.reshape(v, shape)

    def transpose(self, v, perm):
        """``v``'s axes permuted."""
        return np.transpose(v, perm)

    def expand(self, v, shape):
        """``v`` broadcast to ``shape``."""
        return np.broadcast_to(v, shape)

    def slice(self, v, axis: int, start: int, end: int):
        """``v[start:end]`` on ``axis``."""
        return np.take(v, np.arange(start, end), axis=axis)

    def concat(self, vs, axis: int):
        """The values joined along ``axis``."""
        return vs[0] if len(vs) == 1 else np.concatenate(vs, axis=axis)

    def stack(self, vs, axis: int):
        """The values stacked along a new ``axis``."""
        return np.stack(vs, axis)

    def take(self, v, index, axis: int):
        """``v`` indexed on ``axis``: an int drops the axis, an int64 vector selects along it."""
        return np.take(v, index, axis=axis)

    def gather(self, v, index, axis: int, shape):
        """``v`` gathered element-wise along ``axis`` by ``index`` broadcast to ``shape`` (GatherElements)."""
        return np.take_along_axis(v, np.broadcast_to(index, shape), axis=axis)

    # reductions and products ----------------------------------------------------------------------------------
    def reduce_max(self, v, axis: int):
        """The maximum over ``axis`` (dropped)."""
        return np.max(v, axis=axis)

    def reduce_sum(self, v, axes):
        """The sum over ``axes`` (dropped), in ``dtype``."""
        return np.sum(v, axis=tuple(axes), dtype=self.dtype)

    def matmul(self, a, b):
        """a @ b, in ``dtype``."""
        return np.matmul(a, b, dtype=self.dtype)


class ONNX:
    """ONNX nodes in the builder ``g`` (dmlops/backends/onnx_graph.py); new constants default to ``dtype``."""

    def __init__(self, g, dtype=np.float32, keep_negative_zero: bool = False):
        self.g = g
        self.dtype = np.dtype(dtype)
        self.keep_negative_zero = keep_negative_zero

    def _v(self, a, like):
        """A Python number as a constant of value ``like``'s dtype; a value as it is."""
        return self.g.const(np.asarray(a, self.g.dtype(like))) if _number(a) else a

    def _n(self, op: str, a, b, dtype=None, **attrs):
        """A binary node, a number on either side made a constant of the other side's dtype."""
        return self.g.node(op, [self._v(a, b), self._v(b, a)], dtype=dtype, **attrs)

    # constants and types --------------------------------------------------------------------------------------
    def const(self, value, dtype=None):
        """An initializer holding ``value`` as ``dtype`` (default: the op set's float dtype)."""
        return self.g.const(np.asarray(value, dtype or self.dtype))

    def cast(self, v, dtype):
        """``v`` as ``dtype`` (no node when it already is; float to integer truncates toward zero)."""
        return self.g.cast(v, dtype)

    # arithmetic -----------------------------------------------------------------------------------------------
    def add(self, a, b):
        """a + b."""
        return self._n("Add", a, b)

    def sub(self, a, b):
        """a - b."""
        return self._n("Sub", a, b)

    def mul(self, a, b):
        """a * b."""
        return self._n("Mul", a, b)

    def div(self, a, b):
        """a / b."""
        return self._n("Div", a, b)

    def neg(self, a):
        """-a."""
        return self.g.node("Neg", [a])

    def abs(self, a):
        """|a|."""
        return self.g.node("Abs", [a])

    def sqrt(self, a):
        """sqrt(a)."""
        return self.g.node("Sqrt", [a])

    def log(self, a):
        """ln(a)."""
        return self.g.node("Log", [a])

    def maximum(self, a, b):
        """Max."""
        return self._n("Max", a, b)

    def minimum(self, a, b):
        """Min."""
        return self._n("Min", a, b)

    def floor(self, a):
        """floor(a)."""
        return self.g.node("Floor", [a])

    def ceil(self, a):
        """ceil(a)."""
        return self.g.node("Ceil", [a])

    def rint(self, a):
        """Round (half to even)."""
        return self.g.node("Round", [a])

    def clip(self, v, low, high):
        """Clip with ``low`` and ``high`` as constants of ``v``'s dtype."""
        return self.g.node("Clip", [v, self.g.scalar(low, v), self.g.scalar(high, v)])

    # comparisons and logic ------------------------------------------------------------------------------------
    def lt(self, a, b):
        """a < b."""
        return self._n("Less", a, b, dtype=np.bool_)

    def le(self, a, b):
        """a <= b."""
        return self._n("LessOrEqual", a, b, dtype=np.bool_)

    def gt(self, a, b):
        """a > b."""
        return self._n("Greater", a, b, dtype=np.bool_)

    def eq(self, a, b):
        """a == b."""
        return self._n("Equal", a, b, dtype=np.bool_)

    def ne(self, a, b):
        """a != b: Not(Equal)."""
        return self.lnot(self.eq(a, b))

    def land(self, a, b):
        """a and b."""
        return self.g.node("And", [a, b], dtype=np.bool_)

    def lor(self, a, b):
        """a or b."""
        return self.g.node("Or", [a, b], dtype=np.bool_)

    def lnot(self, a):
        """not a."""
        return self.g.node("Not", [a], dtype=np.bool_)

    def where(self, c, a, b):
        """c ? a : b: a Where, or ``ew.onnx_where`` (a -0.0 kept on every provider) with ``keep_negative_zero``."""
        a, b = self._v(a, b), self._v(b, a)
        if self.keep_negative_zero:
            from . import _elementwise as ew

            return ew.onnx_where(self.g, c, a, b)
        return self.g.node("Where", [c, a, b], dtype=self.g.dtype(a))

    # shapes and indexing --------------------------------------------------------------------------------------
    def reshape(self, v, shape):
        """Reshape."""
        return self.g.node("Reshape", [v, self.g.ints(shape)])

    def transpose(self, v, perm):
        """Transpose."""
        return self.g.node("Transpose", [v], perm=list(perm))

    def expand(self, v, shape):
        """Expand."""
        return self.g.node("Expand", [v, self.g.ints(shape)])

    def slice(self, v, axis: int, start: int, end: int):
        """Slice ``start:end`` on ``axis``."""
        return self.g.node("Slice", [v, self.g.ints([start]), self.g.ints([end]), self.g.ints([axis])])

    def concat(self, vs, axis: int):
        """Concat (the value itself when there is one)."""
        return vs[0] if len(vs) == 1 else self.g.node("Concat", list(vs), axis=axis)

    def stack(self, vs, axis: int):
        """Unsqueeze each, then Concat."""
        return self.concat([self.g.node("Unsqueeze", [v, self.g.ints([axis])]) for v in vs], axis)

    def take(self, v, index, axis: int):
        """Gather: an int index (a scalar constant) drops the axis, an int64 vector value selects along it."""
        if _number(index):
            index = self.g.const(np.asarray(index, np.int64))
        return self.g.node("Gather", [v, index], axis=axis)

    def gather(self, v, index, axis: int, shape):
        """GatherElements with ``index`` expanded to ``shape``."""
        return self.g.node("GatherElements", [v, self.expand(index, shape)], axis=axis)

    # reductions and products ----------------------------------------------------------------------------------
    def reduce_max(self, v, axis: int):
        """ReduceMax over ``axis`` (dropped)."""
        return self.g.node("ReduceMax", [v, self.g.ints([axis])], keepdims=0)

    def reduce_sum(self, v, axes):
        """ReduceSum over ``axes`` (dropped)."""
        return self.g.node("ReduceSum", [v, self.g.ints(list(axes))], keepdims=0)

    def matmul(self, a, b):
        """MatMul."""
        return self.g.node("MatMul", [a, b])


class Torch:
    """torch tensors (torch 2.4 APIs); new constants are made on ``device`` as ``dtype`` (a NumPy dtype)."""

    def __init__(self, torch, device=None, dtype=np.float32):
        self.torch = torch
        self.device = device
        self.dtype = np.dtype(dtype)

    def _tensor(self, a, like):
        """A Python number as a tensor like ``like`` (where has no scalar form torch-directml registers)."""
        return self.torch.full_like(like, a) if _number(a) else a

    # constants and types --------------------------------------------------------------------------------------
    def const(self, value, dtype=None):
        """``value`` as a tensor of ``dtype`` (default: the op set's float dtype) on ``device``."""
        return self.torch.as_tensor(np.asarray(value, dtype or self.dtype), device=self.device)

    def cast(self, v, dtype):
        """``v`` as ``dtype`` (float to integer truncates toward zero)."""
        return v.to(getattr(self.torch, np.dtype(dtype).name))

    # arithmetic: Python's operators, so a number on either side stays a scalar ------------------------------
    def add(self, a, b):
        """a + b."""
        return a + b

    def sub(self, a, b):
        """a - b."""
        return a - b

    def mul(self, a, b):
        """a * b."""
        return a * b

    def div(self, a, b):
        """a / b."""
        return a / b

    def neg(self, a):
        """-a."""
        return -a

    def abs(self, a):
        """|a|."""
        return self.torch.abs(a)

    def sqrt(self, a):
        """sqrt(a)."""
        return self.torch.sqrt(a)

    def log(self, a):
        """ln(a)."""
        return self.torch.log(a)

    def maximum(self, a, b):
        """The element-wise maximum (NaN propagates)."""
        return self.torch.maximum(a, b)

    def minimum(self, a, b):
        """The element-wise minimum (NaN propagates)."""
        return self.torch.minimum(a, b)

    def floor(self, a):
        """floor(a)."""
        return self.torch.floor(a)

    def ceil(self, a):
        """ceil(a)."""
        return self.torch.ceil(a)

    def rint(self, a):
        """round, half to even."""
        return self.torch.round(a)

    def clip(self, v, low, high):
        """clamp."""
        return self.torch.clamp(v, low, high)

    # comparisons and logic ------------------------------------------------------------------------------------
    def lt(self, a, b):
        """a < b."""
        return a < b

    def le(self, a, b):
        """a <= b."""
        return a <= b

    def gt(self, a, b):
        """a > b."""
        return a > b

    def eq(self, a, b):
        """a == b."""
        return a == b

    def ne(self, a, b):
        """a != b."""
        return a != b

    def land(self, a, b):
        """a and b."""
        return self.torch.logical_and(a, b)

    def lor(self, a, b):
        """a or b."""
        return self.torch.logical_or(a, b)

    def lnot(self, a):
        """not a."""
        return self.torch.logical_not(a)

    def where(self, c, a, b):
        """c ? a : b."""
        return self.torch.where(c, self._tensor(a, b), self._tensor(b, a))

    # shapes and indexing --------------------------------------------------------------------------------------
    def reshape(self, v, shape):
        """``v`` with ``shape``."""
        return v.reshape(shape)

    def transpose(self, v, perm):
        """``v``'s axes permuted."""
        return v.permute(*perm)

    def expand(self, v, shape):
        """``v`` broadcast to ``shape``."""
        return v.expand(*shape)

    def slice(self, v, axis: int, start: int, end: int):
        """``v[start:end]`` on ``axis``."""
        return v.narrow(axis, start, end - start)

    def concat(self, vs, axis: int):
        """cat (the tensor itself when there is one)."""
        return vs[0] if len(vs) == 1 else self.torch.cat(list(vs), dim=axis)

    def stack(self, vs, axis: int):
        """stack."""
        return self.torch.stack(list(vs), axis)

    def take(self, v, index, axis: int):
        """select (an int index drops the axis) or index_select (an int64 vector)."""
        return v.select(axis, index) if _number(index) else v.index_select(axis, index)

    def gather(self, v, index, axis: int, shape):
        """gather with ``index`` expanded to ``shape``."""
        return self.torch.gather(v, axis, index.expand(*shape))

    # reductions and products ----------------------------------------------------------------------------------
    def reduce_max(self, v, axis: int):
        """amax over ``axis`` (dropped)."""
        return self.torch.amax(v, dim=axis)

    def reduce_sum(self, v, axes):
        """sum over ``axes`` (dropped)."""
        return self.torch.sum(v, dim=tuple(axes))

    def matmul(self, a, b):
        """matmul."""
        return self.torch.matmul(a, b)
