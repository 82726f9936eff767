"""A test double for torch-directml 0.2.5.dev240914 (torch 2.4.1): tensors on ``privateuseone:0`` that behave as the
acceptance runs recorded them (../shared/reference/real_directml/torch_directml_facts.md and the ``error`` /
``mismatch`` rows of torch_directml_selftest.json), computed on the CPU.

``installed()`` puts a fake ``torch_directml`` module in ``sys.modules`` (``device(i)`` is ``privateuseone:i``), so
``dmlops.compile(desc, backend="torch", device="dml")`` reaches it through dmlops's own code path. A ``DmlTensor``
holds its values in a CPU tensor; every aten op on it goes through ``__torch_dispatch__`` (factories with
``device=privateuseone`` through a PrivateUse1 fallback), which behaves as follows.

Recorded single calls (facts.md), reproduced exactly, exception types and messages included:

* ``untyped_storage()``, ``data_ptr()``, ``numpy()`` (and so ``np.asarray``) raise as on the OpaqueTensorImpl;
  ``stride()``, ``is_contiguous()``, ``storage_offset()``, ``as_strided``, views, ``contiguous()`` and ``clone()``
  work; ``.to(device)`` and ``.cpu()`` move values (int64 values beyond 32 bits are kept by the move).
* float64: ``RuntimeError: The GPU device does not support Double (Float64) operations!`` from every op that
  computes on a float64 tensor (input, output or ``dtype``), and from ``rsub.Scalar`` with a Python float (it makes
  a float64 tensor of the scalar: every ACOS, ASIN, ATAN, ATANH, LSTM hand_couple_input_forget and
  DYNAMIC_QUANTIZE_LINEAR error row, and no ok row, ran it). Allocating, moving, copying and viewing a float64
  tensor works: FILL_VALUE_CONSTANT float64 and DIAGONAL_MATRIX float64_value_is_float32 (a float64 CPU result
  moved to the device and back) were ok. facts.md's ``torch.ones(2, dtype=torch.float64).to(dml)`` raising fits
  that only if something computed on the result (printing it does).
* uint16 / uint32 / uint64 tensors abort the real process. Here they raise ``DeviceAbort``, a BaseException, so no
  ``except Exception`` (selftest's rows) can turn a crash into a result: the test fails loudly.
* An aten op torch-directml does not register (dmlops/data/torch_directml_ops.txt, through
  ``torch_directml_ops.runs_on_directml``) runs on the CPU after torch-directml's UserWarning ("... will fall back to
  run on the CPU ..."); a CompositeExplicitAutograd op it does not register decomposes into the ops it does.
* int64 arithmetic is computed in 32 bits (``[2**40 + 1] + 1`` gives ``[2]``): every op except moves, views,
  copies and clones reads int64 inputs as their low 32 bits (sign-extended) and writes its int64 results so.

Inferred from the selftest's rows (each the simplest rule that fits every row that bears on it; the rows are named):

* ``neg`` is ``x * -1 + 0`` in float32, converted back to the tensor's type with saturation (DirectML's IDENTITY
  with a ScaleBias): NEGATE float32/float16 vectors (+0.0 gives +0.0, DirectML -0.0), NEGATE int32_3x4x5
  (-2**31 gives 2**31 - 1 and 2**31 - 1 gives -2**31: float32 rounding), facts.md's int32 row, NEGATE int8_wrap.
* ``sub`` is ``a + neg(b)``: SUBTRACT int_uint8 and edge_uint8_underflow_wraps (uint8 ``a - b`` gives ``a``:
  5 - 3 = 5, 9 - 4 = 9, 0 - 1 = 0, 5 - 10 = 5), facts.md's uint8 row, SUBTRACT edge_nan_signed_zero(_float16)
  (-0.0 - 0.0 gives +0.0); SUBTRACT wrap_int32 (ok) fits it too.
* An int8 ``clamp`` with one bound missing uses -1 for a missing max and 0 for a missing min (uint8's limits read
  as int8): THRESHOLD int_int8 / int_int8_2, CLIP int_int8 / int_int8_2 (samples and vectors); the int16, int32 and
  uint8 one-sided clamps of the same operators were right.
* int32 truncating division of -2**31 by -1 saturates to 2**31 - 1: DIVIDE edge_int32_divide_truncation_and_by_zero.
* ``constant_pad_nd`` keeps one compiled kernel per input shape, dtype and padding, with the first padding value
  it was compiled with: PADDING1 float32_constant_-0.0 and float16_constant_65504.0 came back padded with -7.5, the
  value of PADDING float32_constant / float16_constant (same shape and padding), which the selftest ran earlier.
* ``constant_pad_nd`` with no positive padding returns the last dimension read as ``x[1 + k // 2]``: CONVOLUTION
  cross_correlation_1d_bias, convolution_mode_1d and edge_forward_output_padding_1 (float32; dmlops padded by zero
  before conv1d), while a conv1d without the pad (facts.md) and the 1-D convolutions padded by a positive amount
  (forward_1d_asymmetric_padding, backward_1d_output_padding_bias) were right. convolution_mode_1d_float16 does
  not fit (3.996, 0.0), and neither the rule nor anything else here reproduces forward_2d_nhwc_strided_input's
  numbers: they are only wrong in the same place.
* E_INVALIDARG (``RuntimeError: Unknown error -2147024809``): a transposed convolution with groups > 1 and a
  dilation > 1 (CONVOLUTION backward_2d_padding_dilation_groups_output_padding_bias; the transposed convolutions that
  ran had neither, so which of the two torch-directml refuses is not known: the double refuses the pair), and
  ``index_select`` on a 5-D tensor (UPSAMPLE_2D nearest_5d, whose lowering index_selects per dimension; no
  ok row ran a 5-D index_select, 4-D ones ran throughout).
* 3-D convolution: never run (dmlops refused it when the record was made), so the double takes none (an
  AssertionError): dmlops must compute it from 2-D convolutions.

Validated against the record: run over every sample and vector with dmlops as of b9ac575 (the code the selftest
ran), the double gives the recorded result for all 2,459 ok, 73 error and 1,046 refused rows and 47 of the 61
mismatches; the other 14 are samples native DirectML contradicts as well (its rounding of ATAN_YX, POW,
CONSTANT_POW, MATRIX_MULTIPLY_INTEGER_TO_FLOAT, HARDMAX's NaN), which the double, computing on the CPU, does not
reproduce.

Where the records are silent the double is strict, so that a test fails rather than passes by luck: tensors of two
devices in one op are refused (as torch refuses them), a tensor of more than 6 dimensions raises ``DeviceAbort``
(a rank-6 add ran; an older note says more than 5 aborted the process), and ``view(dtype)`` to another dtype raises
as a storage access (torch-directml does not register it; its composite kernel aliases a storage, which an
OpaqueTensorImpl lacks). Everything else computes what torch computes on the CPU.
"""
from __future__ import annotations

import contextlib
import sys
import types
import warnings

import torch

from dmlops.backends.torch_directml_ops import MAX_RANK, registers, runs_on_directml

aten = torch.ops.aten


def tree_flatten(value):
    """The leaves of aten arguments (tensors, numbers, lists and tuples of them, dicts of kwargs), one level of
    nesting at most as aten has: a cheaper torch.utils._pytree.tree_flatten, in its return form."""
    out: list = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        else:
            out.append(v)
    return out, None


def tree_map(fn, value):
    """``fn`` applied to the leaves of aten arguments, containers rebuilt (cheaper than torch's pytree)."""
    if isinstance(value, tuple):
        return tuple(tree_map(fn, v) for v in value)
    if isinstance(value, list):
        return [tree_map(fn, v) for v in value]
    if isinstance(value, dict):
        return {k: tree_map(fn, v) for k, v in value.items()}
    return fn(value)

STORAGE_ERROR = "Cannot access storage of OpaqueTensorImpl"
DATA_PTR_ERROR = "Cannot access data pointer of Tensor that doesn't have storage"
FLOAT64_ERROR = "The GPU device does not support Double (Float64) operations!"
INVALIDARG_ERROR = "Unknown error -2147024809"
FALLBACK_WARNING = ("The operator '{}' is not currently supported on the DML backend and will fall back to run on the "
                    "CPU. This may have performance implications.")
ABORTING = {torch.uint16: "uint16", torch.uint32: "uint32", torch.uint64: "uint64"}


class DeviceAbort(BaseException):
    """What torch-directml does on uint16/uint32/uint64 tensors: it aborts the process."""


# Ops that move or view values without computing on them: int64 values survive these (facts.md: to the device and
# back kept); every other op computes int64 in 32 bits.
MOVES = {"_to_copy", "copy_", "clone", "view", "_unsafe_view", "as_strided", "slice", "select", "expand", "permute",
         "t", "transpose", "unsqueeze", "squeeze", "alias", "detach", "lift_fresh", "_reshape_alias", "unfold",
         "split", "split_with_sizes", "unbind", "view_as_real", "_copy_from"}
METADATA = {  # what the wrapper's sizes policy asks the device: answered from the CPU tensor
    aten.sym_size.default: lambda t: t.size(),
    aten.sym_size.int: lambda t, d: t.size(d),
    aten.sym_stride.default: lambda t: t.stride(),
    aten.sym_stride.int: lambda t, d: t.stride(d),
    aten.sym_storage_offset.default: lambda t: t.storage_offset(),
    aten.sym_numel.default: lambda t: t.numel(),
    aten.is_contiguous.default: lambda t: t.is_contiguous(),
    aten.is_contiguous.memory_format: lambda t, mf: t.is_contiguous(memory_format=mf),
    aten.is_strides_like_format.default: lambda t, mf: t.is_contiguous(memory_format=mf),
    aten.is_non_overlapping_and_dense.default: lambda t: _dense(t),
    aten.dim.default: lambda t: t.dim(),
    aten.stride.default: lambda t: t.stride(),
    aten.stride.int: lambda t, d: t.stride(d),
    aten.size.default: lambda t: t.size(),
    aten.size.int: lambda t, d: t.size(d),
    aten.numel.default: lambda t: t.numel(),
    aten.storage_offset.default: lambda t: t.storage_offset(),
}


def _dense(t: torch.Tensor) -> bool:
    """Whether ``t``'s elements fill a block of memory exactly once, in some order."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _name(func) -> str:
    return func._schema.name.removeprefix("aten::")


def _qualified(func) -> str:
    s = func._schema
    return f"{s.name}.{s.overload_name}" if s.overload_name else s.name


class Device:
    """One torch-directml device's state: what ran on it (``log``: (aten overload, dtypes)), its kernel caches."""

    def __init__(self, index: int = 0) -> None:
        self.index = index
        self.torch_device = torch.device("privateuseone", index)
        self.log: list[tuple[str, tuple[str, ...]]] = []
        self.fallbacks: list[str] = []
        self.pad_values: dict = {}

    def reset(self) -> None:
        self.log.clear()
        self.fallbacks.clear()
        self.pad_values.clear()


DEVICE = Device(0)


class DmlTensor(torch.Tensor):
    """A tensor on the double's DirectML device: values in ``_cpu``, metadata read from it."""

    _cpu: torch.Tensor

    @staticmethod
    def __new__(cls, cpu: torch.Tensor):
        r = torch.Tensor._make_wrapper_subclass(  # type: ignore[attr-defined]
            cls, cpu.shape, strides=cpu.stride(), storage_offset=cpu.storage_offset(), dtype=cpu.dtype,
            device=DEVICE.torch_device, requires_grad=False, dispatch_sizes_strides_policy="sizes")
        r._cpu = cpu
        return r

    __torch_function__ = torch._C._disabled_torch_function_impl

    def __repr__(self, *, tensor_contents=None) -> str:  # type: ignore[override]
        return f"DmlTensor({self._cpu!r}, device='{self.device}')"

    def untyped_storage(self):  # type: ignore[override]
        raise NotImplementedError(STORAGE_ERROR)

    def storage(self):  # type: ignore[override]
        raise NotImplementedError(STORAGE_ERROR)

    def data_ptr(self):  # type: ignore[override]
        raise RuntimeError(DATA_PTR_ERROR)

    def numpy(self, *, force: bool = False):  # type: ignore[override]
        raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the "
                        "tensor to host memory first.")

    def __array__(self, dtype=None):
        return self.numpy()

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return _dispatch(func, args, kwargs or {})


# ----------------------------------------------------------------------------------------------- checks
def _check_dtype(dtype, computing: bool = True) -> None:
    if dtype == torch.float64 and computing:
        raise RuntimeError(FLOAT64_ERROR)
    if dtype in ABORTING:
        raise DeviceAbort(f"torch-directml aborts the process on {ABORTING[dtype]} tensors (facts.md); the double "
                          "raises instead.")


# float64 tensors can be allocated, moved, copied and viewed on the device (FILL_VALUE_CONSTANT float64 and
# DIAGONAL_MATRIX float64_value_is_float32 ran: a CPU float64 result moved to the device and back); any op that
# computes on one raises.
FLOAT64_MOVES = {"view", "_unsafe_view", "as_strided", "slice", "select", "expand", "permute", "t", "transpose",
                 "unsqueeze", "squeeze", "alias", "detach", "lift_fresh", "_reshape_alias", "empty", "empty_strided",
                 "_to_copy", "copy_", "_copy_from"}


def _computes_float64(name: str, args, kwargs) -> bool:
    if name not in FLOAT64_MOVES:
        return True
    if name in ("_to_copy", "copy_", "_copy_from"):  # a conversion is a computation
        tensors = [v for v in tree_flatten((args, kwargs))[0] if isinstance(v, torch.Tensor)]
        dtypes = {t.dtype for t in tensors} | ({kwargs["dtype"]} if isinstance(kwargs.get("dtype"), torch.dtype)
                                              else set())
        return len(dtypes) > 1
    return False


def _device_dtypes(func, args, kwargs, result=None) -> tuple[str, ...]:
    computing = _computes_float64(_name(func), args, kwargs)
    seen = []
    for v in tree_flatten((args, kwargs, result))[0]:
        if isinstance(v, DmlTensor):
            _check_dtype(v.dtype, computing)
            if v.dim() > MAX_RANK:
                raise DeviceAbort(f"a {v.dim()}-dimensional tensor on the device ({_qualified(func)}): measured up to "
                                  f"{MAX_RANK} (facts.md's rank-6 add); an older note says more than 5 aborted the "
                                  "process.")
            seen.append(str(v.dtype).removeprefix("torch."))
    if isinstance(kwargs.get("dtype"), torch.dtype):
        _check_dtype(kwargs["dtype"], computing)
    return tuple(seen)


def _to_cpu_device(x):
    if isinstance(x, torch.device) and x.type == "privateuseone":
        return torch.device("cpu")
    return x


def _unwrap(x):
    if isinstance(x, DmlTensor):
        return x._cpu
    return _to_cpu_device(x)


def _wrap_results(out, inputs: dict):
    def wrap(v):
        if isinstance(v, torch.Tensor) and not isinstance(v, DmlTensor):
            same = inputs.get(id(v))
            return same if same is not None else DmlTensor(v)
        return v
    return tree_map(wrap, out)


# ----------------------------------------------------------------------------------------------- the dispatcher
def _dispatch(func, args, kwargs):
    meta = METADATA.get(func)
    if meta is not None:
        return meta(args[0]._cpu, *args[1:])
    name = _name(func)
    # device -> host: .cpu(), .to("cpu"), .item(), cpu_tensor.copy_(dml_tensor)
    if name == "_to_copy" and _to_cpu_device(kwargs.get("device")) == torch.device("cpu") \
            and kwargs.get("device") is not None:
        DEVICE.log.append((_qualified(func), _device_dtypes(func, args, kwargs)))
        return func(*tree_map(_unwrap, args), **tree_map(_unwrap, kwargs))
    if func is aten.view.dtype and args[1] != args[0].dtype:
        # Not among torch-directml's kernels; its composite kernel aliases the storage, which an OpaqueTensorImpl
        # lacks (dmlops.ops._bits avoids it for that reason). A same-dtype view is the tensor itself.
        raise NotImplementedError(STORAGE_ERROR)
    if name == "_local_scalar_dense":
        return func(args[0]._cpu)
    if name == "copy_" and not isinstance(args[0], DmlTensor):
        _device_dtypes(func, args, kwargs)
        args[0].copy_(args[1]._cpu)
        return args[0]
    dtypes = _device_dtypes(func, args, kwargs)
    if name not in ("copy_", "_copy_from"):  # host -> device copies take a CPU source
        _same_device(func, args, kwargs)
    decompose, native = _kind(func)
    if decompose:
        return func._op_dk(torch._C.DispatchKey.CompositeExplicitAutograd, *_tensor_scalars(func, args), **kwargs)
    DEVICE.log.append((_qualified(func), dtypes))
    if not native:
        DEVICE.fallbacks.append(_qualified(func))
        warnings.warn(FALLBACK_WARNING.format(_qualified(func)), UserWarning, stacklevel=2)
    inputs = {id(v._cpu): v for v in tree_flatten((args, kwargs))[0] if isinstance(v, DmlTensor)}
    cpu_args, cpu_kwargs = _tensor_scalars(func, tree_map(_unwrap, args)), tree_map(_unwrap, kwargs)
    out = _compute(func, name, cpu_args, cpu_kwargs)
    result = _wrap_results(out, inputs)
    _device_dtypes(func, (), {}, result)
    return result


_KINDS: dict = {}


def _kind(func) -> tuple[bool, bool]:
    """(decomposed into other ops there, run by torch-directml itself) for an aten overload; cached."""
    kind = _KINDS.get(func)
    if kind is None:
        decompose = not registers(func) and not func.is_view and torch._C._dispatch_has_kernel_for_dispatch_key(
            _qualified(func), "CompositeExplicitAutograd")
        kind = _KINDS[func] = (decompose, runs_on_directml(func))
    return kind


def _tensor_scalars(func, args) -> list:
    """``args`` with the Python numbers that stand for wrapped scalar tensors (``x ^ 5`` reaches Python dispatch as
    ``bitwise_xor.Tensor(x, 5)``) made 0-dim CPU tensors again, as a composite kernel called directly needs them."""
    out = list(args)
    like = next((v for v in out if isinstance(v, torch.Tensor)), None)
    for i, a in enumerate(func._schema.arguments[:len(out)]):
        if str(a.type) == "Tensor" and isinstance(out[i], (bool, int, float)):
            dtype = torch.result_type(like, out[i]) if like is not None else torch.result_type(out[i], out[i])
            out[i] = torch.scalar_tensor(out[i], dtype=dtype)  # the dtype a wrapped number promotes to
    return out


def _same_device(func, args, kwargs) -> None:
    for v in tree_flatten((args, kwargs))[0]:
        if isinstance(v, torch.Tensor) and not isinstance(v, DmlTensor) and v.dim() > 0:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{DEVICE.torch_device} and {v.device}! ({_qualified(func)})")


# ----------------------------------------------------------------------------------------------- what DirectML computes
def _low32(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.int32).to(torch.int64) if t.dtype == torch.int64 else t


def _saturate(values: torch.Tensor, dtype) -> torch.Tensor:
    info = torch.iinfo(dtype)
    return values.to(torch.float64).nan_to_num(0.0).clamp(info.min, info.max).to(dtype)


def _scale_negate(t: torch.Tensor) -> torch.Tensor:
    """torch-directml's ``neg``: ``x * -1 + 0`` in float32, converted back with saturation."""
    if t.is_floating_point():
        return t * -1 + 0
    if t.dtype == torch.bool:
        return t
    return _saturate(t.to(torch.float32) * -1 + 0, t.dtype)


def _mutated(func, args, kwargs) -> set[int]:
    """ids of the tensors ``func`` writes (``self`` of an in-place op, ``out=``)."""
    out = set()
    for i, a in enumerate(func._schema.arguments):
        if a.alias_info is not None and a.alias_info.is_write:
            v = kwargs.get(a.name, args[i] if i < len(args) and not a.kwarg_only else None)
            for t in tree_flatten(v)[0]:
                if isinstance(t, torch.Tensor):
                    out.add(id(t))
    return out


def _compute(func, name, args, kwargs):
    if name not in MOVES:
        written = _mutated(func, args, kwargs)

        def low(v):
            if not isinstance(v, torch.Tensor) or v.dtype != torch.int64:
                return v
            return v.copy_(_low32(v)) if id(v) in written else _low32(v)

        args, kwargs = tree_map(low, (args, kwargs))
    special = _SPECIAL.get(name)
    out = special(func, args, kwargs) if special is not None else func(*args, **kwargs)
    if name not in MOVES:
        out = tree_map(lambda v: _store32(v) if isinstance(v, torch.Tensor) else v, out)
    return out


def _store32(t: torch.Tensor) -> torch.Tensor:
    if t.dtype != torch.int64:
        return t
    low = t.to(torch.int32).to(torch.int64)
    if not torch.equal(low, t):
        t.copy_(low)  # an in-place result keeps its identity
    return t


def _neg(func, args, kwargs):
    return _deliver(func, args, kwargs, _scale_negate(args[0]))


def name_is_inplace(func) -> bool:
    return _name(func).endswith("_")


def _sub(func, args, kwargs):
    if _qualified(func).startswith("aten::rsub.Scalar") and isinstance(args[1], float):
        raise RuntimeError(FLOAT64_ERROR)
    a, b = args[0], args[1]
    alpha = kwargs.get("alpha", 1)
    if _name(func).startswith("rsub"):
        a, b = b, a
    dtype = torch.result_type(a, b)
    b = b if isinstance(b, torch.Tensor) else torch.tensor(b)
    if alpha != 1:
        b = b * alpha
    out = torch.add(a, _scale_negate(b.to(dtype)))
    return _deliver(func, args, kwargs, out)


def _deliver(func, args, kwargs, out):
    """``out`` as the op returns it: written into ``self`` (in-place) or ``out=``, else as it is."""
    if name_is_inplace(func):
        return args[0].copy_(out)
    if "out" in kwargs:
        return kwargs["out"].copy_(out)
    return out


def _clamp(func, args, kwargs):
    t = args[0]
    if t.dtype != torch.int8:
        return func(*args, **kwargs)
    name = _name(func).removesuffix("_")
    if name == "clamp_min":
        lo, hi = args[1], None
    elif name == "clamp_max":
        lo, hi = None, args[1]
    else:
        lo = kwargs.get("min", args[1] if len(args) > 1 else None)
        hi = kwargs.get("max", args[2] if len(args) > 2 else None)
    if lo is not None and hi is not None:
        return func(*args, **kwargs)
    lo = torch.as_tensor(0 if lo is None else lo).to(torch.int8)  # uint8's limits read as int8
    hi = torch.as_tensor(-1 if hi is None else hi).to(torch.int8)
    return _deliver(func, args, kwargs, torch.maximum(torch.minimum(t, hi), lo))


def _int_divide(func, args, kwargs):
    """Integer division and remainder with DirectML's answers where the CPU's would trap (SIGFPE): -2**31 / -1
    saturates (DIVIDE edge_int32_divide_truncation_and_by_zero); remainders by -1 are 0."""
    a, b = args[0], args[1]
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and not a.is_floating_point()
            and not b.is_floating_point() and a.dtype != torch.bool):
        return func(*args, **kwargs)
    low = torch.iinfo(torch.result_type(a, b)).min
    if low == 0:  # unsigned: nothing traps (and uint8 == -1 would read 255 as -1)
        return func(*args, **kwargs)
    overflow = (a == low) & (b == -1)
    if not bool(overflow.any()):
        return func(*args, **kwargs)
    safe = torch.where(overflow, torch.ones_like(b), b)
    out = func(a, safe, *args[2:], **{k: v for k, v in kwargs.items() if k != "out"})
    if _name(func).startswith("div") and kwargs.get("rounding_mode") in ("trunc", "floor"):
        out = torch.where(overflow, torch.tensor(-low - 1, dtype=out.dtype), out)
    return _deliver(func, args, kwargs, out) if name_is_inplace(func) or "out" in kwargs else out


def _constant_pad_nd(func, args, kwargs):
    x, pad = args[0], list(args[1])
    value = kwargs.get("value", args[2] if len(args) > 2 else 0)
    if all(p <= 0 for p in pad):
        y = func(*args, **kwargs)
        n = y.shape[-1]
        index = torch.clamp(1 + torch.arange(n) // 2, max=max(n - 1, 0))
        return y.index_select(-1, index).contiguous() if n else y
    key = (tuple(x.shape), x.dtype, tuple(pad))
    cached = DEVICE.pad_values.setdefault(key, value)
    return func(x, pad, cached)


def _convolution(func, args, kwargs):
    transposed, dilation, groups = args[6], args[5], args[8]
    if args[0].dim() == 5:  # never run on torch-directml (not in the record): the double takes none
        raise AssertionError("3-D convolution on the torch-directml double: nothing recorded what it does there")
    if transposed and groups > 1 and any(d != 1 for d in dilation):
        raise RuntimeError(INVALIDARG_ERROR)
    return func(*args, **kwargs)


def _index_select(func, args, kwargs):
    if args[0].dim() == 5:
        raise RuntimeError(INVALIDARG_ERROR)
    return func(*args, **kwargs)


_SPECIAL = {"neg": _neg, "neg_": _neg, "sub": _sub, "sub_": _sub, "rsub": _sub,
            "clamp": _clamp, "clamp_": _clamp, "clamp_min": _clamp, "clamp_min_": _clamp, "clamp_max": _clamp,
            "clamp_max_": _clamp, "div": _int_divide, "div_": _int_divide,
            "remainder": _int_divide, "remainder_": _int_divide, "fmod": _int_divide, "fmod_": _int_divide,
            "floor_divide": _int_divide, "constant_pad_nd": _constant_pad_nd,
            "convolution": _convolution, "index_select": _index_select}


# ----------------------------------------------------------------------------------------------- installation
_LIBRARIES: list = []


def _factory(keyset, op, *args, **kwargs):
    """PrivateUse1 kernels for what reaches the device without a DmlTensor argument: factories (``empty``,
    ``empty_strided``: ``torch.zeros(..., device=dml)``, ``.to(dml)``)."""
    kwargs = dict(kwargs)
    if isinstance(kwargs.get("dtype"), torch.dtype):
        _check_dtype(kwargs["dtype"], _name(op) not in FLOAT64_MOVES)
    kwargs["device"] = torch.device("cpu")
    DEVICE.log.append((_qualified(op), (str(kwargs.get("dtype", "")).removeprefix("torch."),)))
    return DmlTensor(op(*tree_map(_unwrap, args), **kwargs))


def _copy_into_device(dst, src, non_blocking=False):
    """``copy_`` reached with the Python key excluded (``torch.tensor(data, device=dml)``)."""
    _check_dtype(dst.dtype, dst.dtype != src.dtype)
    dst._cpu.copy_(src._cpu if isinstance(src, DmlTensor) else src)
    return dst


def _setup() -> None:
    if _LIBRARIES:
        return
    from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

    if not hasattr(torch, "privateuseone"):
        _setup_privateuseone_for_python_backend()
    fallback = torch.library.Library("_", "IMPL")
    fallback.fallback(_factory, dispatch_key="PrivateUse1", with_keyset=True)
    impl = torch.library.Library("aten", "IMPL")
    impl.impl("copy_", _copy_into_device, "PrivateUse1")
    _LIBRARIES.extend([fallback, impl])


def module() -> types.ModuleType:
    """The fake ``torch_directml`` module."""
    m = types.ModuleType("torch_directml")
    m.device = lambda device_id=0: torch.device("privateuseone", device_id)  # type: ignore[attr-defined]
    m.device_count = lambda: 1  # type: ignore[attr-defined]
    m.is_available = lambda: True  # type: ignore[attr-defined]
    m.default_device = lambda: 0  # type: ignore[attr-defined]
    m.device_name = lambda device_id=0: "torch-directml double (CPU)"  # type: ignore[attr-defined]
    m.__doc__ = "A test double of torch_directml (tests/torch_directml_double.py)."
    return m


def _factory_on_cpu(make):
    """``torch.tensor(data, device=dml)`` / ``torch.as_tensor``: made on the CPU and moved, as torch-directml's own
    kernels do. (PyTorch's Python kernels for PrivateUse1 trip an internal assert on these while a TorchDispatchMode
    is active, as dmlops's workarounds are: an artifact of the double, not of torch-directml.)"""
    def wrapped(*args, **kwargs):
        device = kwargs.get("device")
        if device is not None and torch.device(device).type == "privateuseone":
            return make(*args, **{**kwargs, "device": "cpu"}).to(torch.device(device))
        return make(*args, **kwargs)
    return wrapped


@contextlib.contextmanager
def installed():
    """``torch_directml`` importable as the double for the duration; its device's log and caches start empty."""
    _setup()
    DEVICE.reset()
    previous = sys.modules.get("torch_directml")
    sys.modules["torch_directml"] = module()
    made = torch.tensor, torch.as_tensor
    torch.tensor, torch.as_tensor = _factory_on_cpu(made[0]), _factory_on_cpu(made[1])
    try:
        yield DEVICE
    finally:
        torch.tensor, torch.as_tensor = made
        if previous is None:
            sys.modules.pop("torch_directml", None)
        else:
            sys.modules["torch_directml"] = previous


def to_device(t: torch.Tensor) -> DmlTensor:
    """A CPU tensor moved to the double's device (``t.to(torch_directml.device())``)."""
    _setup()
    return t.to(DEVICE.torch_device)  # type: ignore[return-value]
