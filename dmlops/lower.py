"""Lowering one operator node, the same way on every backend.

An op module (dmlops/ops/<op>.py) provides::

    reference(desc, x: dict[str, np.ndarray]) -> dict[str, np.ndarray]
    to_onnx(desc, g: OnnxGraph, x: dict[str, str]) -> dict[str, str]
    to_torch(desc, torch, x: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]

``x`` holds every input tensor field by DML name (None where an optional tensor is absent; a tuple
for tensor-array fields) as logical values. The result holds every output field by DML name; the
caller rounds it to the declared data type. What is common to every operator lives here, once:
ScaleBias (``Scale * input + Bias`` on the inputs before the operator, as the element-wise docs define it, in
float32; POW's ExponentTensor too; an integer tensor is scaled in float32 and converted back as CAST converts,
which no vector covers), FusedActivation (applied to OutputTensor, as the fused-activation docs define it) and
DirectML's FLOAT16 arithmetic: FLOAT16 inputs are computed in float32 on every device and every FLOAT16 output is
stored rounded toward zero (dmlops.ops._elementwise explains the vectors behind both).

Signed zeros, as DirectML's vectors show them (the vectors test compares zeros' signs exactly):

* ScaleBias {1, 0} is no ScaleBias at all: -0.0 stays -0.0 (ELEMENT_WISE_IDENTITY edge_neg_zero_scalebias_1_0),
  where -0.0 * 1 + 0 would be +0.0. Any other ScaleBias is ``x * Scale + Bias``, a zero Bias added too: THRESHOLD
  scale_bias (ScaleBias {-1, 0}) turns the input 0 into +0.0 (0 * -1 = -0.0, + 0 = +0.0), which then stays +0.0
  through max(+0, Min). IDENTITY edge_neg_zero_scalebias_1_neg0 ({1, -0}: -0 stays -0) fits either reading; every
  other ScaleBias vector case (ABS, ACOS..TANH float32_scalebias, CEIL, CLIP, CONSTANT_POW, EXP, FLOOR, IDENTITY,
  LOG, POW, RECIP, SQRT scale_bias) has a nonzero Bias or no zero that tells the two apart. The ONNX lowering
  writes ``Bias - x * -Scale``: ONNX Runtime's graph optimizer (NoopElimination) drops an Add of a 0 constant.
* A fused ACTIVATION_RELU gives -0.0 for a negative input, where the standalone ACTIVATION_RELU gives +0.0
  (its basic and edge_specials: -1.5, -inf, -0.0 and NaN all give +0.0): ELEMENT_WISE_ADD1 fused_relu and
  fused_clip_fixed_relu, CONVOLUTION forward_2d_output_padding_fused_relu, BATCH_NORMALIZATION fused_relu_by_hand,
  BATCH_NORMALIZATION_TRAINING no_fused_add_fused_relu_by_hand (and their float16 cases); a +0.0 input still gives
  +0.0 there. GEMM is the exception: GEMM channels_3d_fused_relu(_float16) gives +0.0 for -1, -2 and -6, as the
  standalone operator does. No fused-ReLU vector has a -0.0, NaN or infinite input, so dmlops changes only what
  the vectors show (x < 0, -inf too, gives -0.0; -0.0, NaN and +0.0 give +0.0 as in the standalone ReLU): a
  decision, not a certainty (x * (x > 0) would also fit, and give NaN for NaN and -inf, -0.0 for -0.0). The
  operators fusing like GEMM are in ``_FUSED_RELU_AS_STANDALONE``; MEAN_VARIANCE_NORMALIZATION follows the -0.0
  rule (float32_axes_2_3_no_scale_fused_relu: all 65 zeros are -0.0). The ActivationDescs of GRU/LSTM/RNN are the standalone operators.
Nested activations (fused, or GRU/LSTM/RNN ActivationDescs) are lowered through ``activation_*``.
"""
from __future__ import annotations

import functools

import numpy as np

from .errors import DmlOpsError
from .ops import _elementwise as ew
from .ops import module


def op_module(desc, backend: str):
    """The op module of ``desc``, or an error naming what has a lowering."""
    mod = module(desc.OPERATOR_TYPE)
    attr = {"reference": "reference", "onnxruntime": "to_onnx", "torch": "to_torch"}[backend]
    if mod is None or not hasattr(mod, attr):
        raise DmlOpsError(f"{desc.OPERATOR_TYPE} has no {backend} lowering in dmlops yet "
                          f"(operators that run: {', '.join(runnable())}).")
    return mod


def runnable() -> list[str]:
    """Operator types with a reference, an ONNX and a torch lowering."""
    from .ops import MODULES

    out = []
    for op in MODULES:
        mod = module(op)
        if all(hasattr(mod, a) for a in ("reference", "to_onnx", "to_torch")):
            out.append(op)
    return out


# Operators whose fused ACTIVATION_RELU gives +0.0 for negative inputs, as the standalone operator does (GEMM
# channels_3d_fused_relu); the others give -0.0 (module docstring).
_FUSED_RELU_AS_STANDALONE = frozenset({"GEMM"})


def _scale_bias(desc):
    """The ScaleBias DirectML applies: None when absent or {1, 0} (IDENTITY edge_neg_zero_scalebias_1_0)."""
    sb = getattr(desc, "scale_bias", None)
    if sb is None or (float(np.float32(sb.scale)) == 1 and float(np.float32(sb.bias)) == 0):
        return None
    return sb


def _negative_zero_relu(desc, act) -> bool:
    """Whether ``act``, fused into ``desc``, is a ReLU that gives -0.0 for negative inputs (module docstring)."""
    return (act.OPERATOR_TYPE == "ACTIVATION_RELU" and desc.OPERATOR_TYPE not in _FUSED_RELU_AS_STANDALONE
            and desc.tensors()["OutputTensor"].data_type.name.startswith("FLOAT"))


def _fused(desc):
    return getattr(desc, "fused_activation", None)


_FIELDS: dict = {}  # (descriptor class, kind) -> ((DML name, Python name), ...) of its tensor fields of that kind


def _tensor_fields(desc, kind: str) -> list[tuple[str, object]]:
    """(DML name, TensorDesc or tuple) of the present tensor fields of ``kind`` ("input" / "output")."""
    names = _FIELDS.get((type(desc), kind))
    if names is None:  # once per operator type: FieldSchema.py_name runs regular expressions
        names = _FIELDS[(type(desc), kind)] = tuple((f.name, f.py_name) for f in desc.schema().fields
                                                    if f.kind == kind and f.is_tensor)
    return [(name, value) for name, value in ((n, getattr(desc, p)) for n, p in names) if value is not None]


def _is_float16(td) -> bool:
    return td.data_type.name == "FLOAT16"


def _round_float16_outputs(desc, y: dict, rounding) -> dict:
    """Every FLOAT16 output stored as DirectML stores it (ew.float16_toward_zero), once, after FusedActivation."""
    out = dict(y)
    for name, td in _tensor_fields(desc, "output"):
        value = out.get(name)
        if value is None:
            continue
        if isinstance(td, tuple):
            out[name] = tuple(rounding(v) if _is_float16(t) else v for t, v in zip(td, value))
        elif _is_float16(td):
            out[name] = rounding(value)
    return out


def _scale_bias_fields(desc) -> list[str]:
    """The inputs ScaleBias applies to: every input tensor (ELEMENT_WISE_POW: InputTensor and ExponentTensor, as
    DirectML's vectors show: ScaleBias {2, 0} turns 1 ** 2 into 2 ** 4 = 16, case scale_bias)."""
    return [name for name, td in _tensor_fields(desc, "input") if not isinstance(td, tuple)]


def _compute_float(td):
    """The float dtype ScaleBias computes in for a tensor: float32 (DirectML's shaders), float64 for FLOAT64."""
    return np.float64 if td.data_type.name == "FLOAT64" else np.float32


def lower_reference(desc, x: dict) -> dict:
    """Run ``desc`` in the NumPy reference (ScaleBias, FusedActivation and FLOAT16 stores included)."""
    mod = op_module(desc, "reference")
    x = {k: (v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == np.float16 else v) for k, v in x.items()}
    sb = _scale_bias(desc)
    if sb is not None:
        x = dict(x)
        tds = desc.tensors()
        for name in _scale_bias_fields(desc):
            v = x[name]
            f = _compute_float(tds[name])
            with np.errstate(all="ignore"):
                w = v.astype(f) * f(sb.scale) + f(sb.bias)  # a zero Bias too (THRESHOLD scale_bias)
            x[name] = w if v.dtype.kind == "f" else ew.convert(w, v.dtype)
    y = mod.reference(desc, x)
    act = _fused(desc)
    if act is not None:
        pre = y["OutputTensor"]
        out = activation_reference(act, pre)
        if _negative_zero_relu(desc, act):
            out = np.where(pre < 0, np.array(-0.0, out.dtype), out)
        y = dict(y, OutputTensor=out)
    return _round_float16_outputs(desc, y, ew.float16_toward_zero)


def lower_onnx(desc, g, x: dict) -> dict:
    """Add ``desc`` to the ONNX graph ``g`` (ScaleBias, FusedActivation and FLOAT16 stores included).

    FLOAT16 inputs are computed in float32 on every device, as DirectML does (ONNX Runtime's CUDA and DirectML
    providers would otherwise round every intermediate to float16)."""
    mod = op_module(desc, "onnxruntime")
    x = {k: (g.cast(v, np.float32) if isinstance(v, str) and g.dtype(v) == np.float16 else v) for k, v in x.items()}
    sb = _scale_bias(desc)
    if sb is not None:
        x = dict(x)
        tds = desc.tensors()
        for name in _scale_bias_fields(desc):
            v = x[name]
            f = _compute_float(tds[name])
            # Bias - x * -Scale is x * Scale + Bias in IEEE arithmetic, signed zeros included; an Add of a zero
            # Bias would be dropped by ONNX Runtime's NoopElimination (THRESHOLD scale_bias), a Sub from it is not.
            w = g.node("Mul", [g.cast(v, f), ew.onnx_const(g, -sb.scale, f)])
            w = g.node("Sub", [ew.onnx_const(g, sb.bias, f), w])
            x[name] = w if g.dtype(v).kind == "f" else ew.onnx_convert(g, w, g.dtype(v))
    y = mod.to_onnx(desc, g, x)
    act = _fused(desc)
    if act is not None:
        pre = y["OutputTensor"]
        out = activation_onnx(act, g, pre)
        if _negative_zero_relu(desc, act):
            negative = g.node("Less", [pre, ew.onnx_const(g, 0, g.dtype(pre))], dtype=np.bool_)
            out = ew.onnx_where(g, negative, ew.onnx_const(g, -0.0, g.dtype(out)), out)
        y = dict(y, OutputTensor=out)
    return _round_float16_outputs(desc, y, lambda v: ew.onnx_float16_toward_zero(g, v))


def lower_torch(desc, torch, x: dict) -> dict:
    """Run ``desc`` with torch ops (ScaleBias, FusedActivation and FLOAT16 stores included).

    FLOAT16 inputs are computed in float32 on every device, as DirectML does (CUDA and DirectML devices would
    otherwise round every intermediate to float16)."""
    mod = op_module(desc, "torch")
    x = {k: (v.to(torch.float32) if isinstance(v, torch.Tensor) and v.dtype == torch.float16 else v)
         for k, v in x.items()}
    sb = _scale_bias(desc)
    if sb is not None:
        x = dict(x)
        tds = desc.tensors()
        for name in _scale_bias_fields(desc):
            v = x[name]
            f = torch.float64 if _compute_float(tds[name]) == np.float64 else torch.float32
            w = v.to(f) * sb.scale + sb.bias  # a zero Bias too (THRESHOLD scale_bias)
            x[name] = w if v.is_floating_point() else ew.torch_convert(torch, w, v.dtype)
    y = mod.to_torch(desc, torch, x)
    act = _fused(desc)
    if act is not None and not getattr(mod, "TORCH_APPLIES_FUSED_ACTIVATION", False):  # ops/_torch_fused.py
        pre = y["OutputTensor"]
        out = activation_torch(act, torch, pre)
        if _negative_zero_relu(desc, act):
            out = torch.where(pre < 0, torch.full((), -0.0, dtype=out.dtype, device=out.device), out)
        y = dict(y, OutputTensor=out)
    return _round_float16_outputs(desc, y, lambda v: ew.torch_float16_toward_zero(torch, v))


def torch_lowering(desc, torch, float16_values: bool = True):
    """``lower_torch(desc, torch, x)`` as a function of ``x`` alone, what depends on ``desc`` alone decided once (at
    compile time): an operator without ScaleBias, FusedActivation or FLOAT16 outputs, none of whose inputs can be
    a float16 tensor (``float16_values=False``: the caller knows the dtypes it feeds), is its op module's to_torch
    called directly; any other runs through lower_torch."""
    mod = op_module(desc, "torch")
    if (_scale_bias(desc) is not None or _fused(desc) is not None or float16_values
            or any(_is_float16(t) for _, td in _tensor_fields(desc, "output")
                   for t in (td if isinstance(td, tuple) else (td,)))):
        return functools.partial(lower_torch, desc, torch)
    return functools.partial(mod.to_torch, desc, torch)  # a C-level call: no Python frame of its own


def activation_reference(act, value: np.ndarray) -> np.ndarray:
    """Apply a nested activation desc (null tensors) to a NumPy value."""
    return lower_reference(act, {"InputTensor": value})["OutputTensor"]


def activation_onnx(act, g, value: str) -> str:
    """Apply a nested activation desc (null tensors) to an ONNX value."""
    return lower_onnx(act, g, {"InputTensor": value})["OutputTensor"]


def activation_torch(act, torch, value):
    """Apply a nested activation desc (null tensors) to a torch tensor."""
    return lower_torch(act, torch, {"InputTensor": value})["OutputTensor"]

