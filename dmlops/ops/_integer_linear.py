"""Exact integer products shared by MATRIX_MULTIPLY_INTEGER, CONVOLUTION_INTEGER and QUANTIZED_LINEAR_MATRIX_MULTIPLY /
_CONVOLUTION / _AVERAGE_POOLING (MATRIX_MULTIPLY_INTEGER_TO_FLOAT dequantizes first, as DirectML does: its module).

The integer part of these operators is sum((A - AZeroPoint) * (B - BZeroPoint)) accumulated in INT32 (the docs'
"accumulated in INT32"): the sum wraps modulo 2**32 (two's complement) and is read as INT32. Operands are 8-bit, so
every centred value lies in [-255, 255], every product in [-65025, 65025] (< 2**16), and nothing wraps below 33026
products.

How each backend stays exact, on every CPU:

* NumPy: uint64 matmul of the centred values (integer arithmetic, no BLAS; wraps modulo 2**64, whose low 32 bits
  are the answer).
* ONNX on ONNX Runtime's CPU and CUDA providers: the centred values in float64, one MatMul (a convolution: a window
  gather, dmlops.ops._pooling's table, then that MatMul), the result cast to int64 and wrapped to INT32. Exact by a
  bound, whatever the kernel's blocking, summation order or FMA use: a sum of K products is an integer of magnitude
  at most K * 65025, and K (A's row, or a filter's InputChannelCount / GroupCount * FilterSize elements) is below
  2**32 since one buffer holds at most 4 GiB, so every partial sum is an integer below 2**48 < 2**53, which float64
  holds exactly. ONNX Runtime's own MatMulInteger / ConvInteger / QLinear* CPU kernels are not used there: they are
  not exact on every CPU (issue 20: on an AVX2 CPU without AVX-512 VNNI, ConvInteger with an INT8 input and a UINT8
  filter returned -2231 for -7572; MLAS's AVX2 U8S8 kernel sums byte pairs with a saturating 16-bit instruction,
  which AVX-512 VNNI and AVX-VNNI kernels do not; tests/test_integer_cpu_paths.py reproduces it under qemu).
* ONNX on ONNX Runtime's DirectML provider (OnnxGraph.provider "dml", which has no float64 kernels):
  MatMulInteger / ConvInteger, i.e. DirectML's own MATRIX_MULTIPLY_INTEGER / CONVOLUTION_INTEGER kernels. Zero
  points the ONNX operators cannot take per row / per channel are applied as int32 corrections:
  (A - za)(B - zb) summed = A.B - za * colsum(B) - rowsum(A) * zb + K * za * zb (each term wraps alike). A
  convolution reads its padding as InputZeroPoint (Pad with that value), so that padding contributes (x - zx) = 0,
  as a zero of the dequantized input.
* torch: float32 matmuls of small digits, exact because every partial sum stays below 2**24 (the contraction is cut
  into chunks that guarantee it), combined in int32. Centred values (|v| <= 255) are 16 * h + l (l in [0, 15],
  h in [-16, 15]: products <= 256, chunks of 65536). A convolution is an im2col (dmlops.ops._pooling's window table,
  padding read as 0 after the zero point is subtracted) followed by such a matmul: a float convolution kernel may
  use Winograd or FFT transforms, which would not be exact. This assumes the device's float32 matmul rounds as
  IEEE float32 does (integers below 2**24 are then exact in any summation order, and 5-bit digits survive TF32 and
  bfloat16 inputs); nothing here ran on DirectML to confirm it.

Quantization parameters are per tensor, per row / column / channel; every one is reshaped from its DML Sizes to a
shape that broadcasts against the layout the lowering computes in (``row`` {count, 1}, ``column`` {1, count},
``channel`` {count, 1, ...}).
"""
from __future__ import annotations

import numpy as np

from . import _pooling
from ._quantize import onnx_quantize, reference_quantize, torch_quantize

F32 = np.float32
F64 = np.float64
LARGEST_PRODUCT = 255 * 255  # |(a - za) * (b - zb)| for 8-bit operands and zero points of their type


def count(td) -> int:
    """The element count of a TensorDesc."""
    return int(np.prod(td.sizes, dtype=np.int64))


def row(n: int) -> tuple:
    return (n, 1)


def column(n: int) -> tuple:
    return (1, n)


def channel(n: int, spatial: int) -> tuple:
    return (n,) + (1,) * spatial


# ----------------------------------------------------------------------------------------------- geometry
class _Window:
    """A convolution's geometry in the shape _pooling.table reads (FilterTensor's spatial sizes as the window)."""

    def __init__(self, desc, end):
        self.strides, self.dilations = list(desc.strides), list(desc.dilations)
        self.start_padding, self.end_padding = list(desc.start_padding), end
        self.window_size = list(desc.filter_tensor.sizes[2:])


def conv_end_padding(desc) -> list[int]:
    """EndPadding, grown where OutputTensor asks for more than the sliding-window formula gives (as CONVOLUTION:
    dmlops/ops/convolution.py; the extra windows read padding)."""
    out = []
    for size, k, stride, dilation, start, end, o in zip(desc.input_tensor.sizes[2:], desc.filter_tensor.sizes[2:],
                                                         desc.strides, desc.dilations, desc.start_padding,
                                                         desc.end_padding, desc.output_tensor.sizes[2:]):
        out.append(max(end, (o - 1) * stride + (k - 1) * dilation + 1 - size - start))
    return out


def conv_table(desc) -> np.ndarray:
    """int64 [prod(output spatial sizes), prod(filter spatial sizes)]: the flat input index each filter element reads
    for each output position, -1 in padding (dmlops.ops._pooling.table over the declared output extents)."""
    spatial = list(desc.input_tensor.sizes[2:])
    window = _Window(desc, conv_end_padding(desc))
    idx = _pooling.table(window, spatial)
    natural = _pooling.geometry(window, spatial)["output"]
    out = list(desc.output_tensor.sizes[2:])
    if natural != out:  # the formula gives more than OutputTensor holds: its first positions
        grid = idx.reshape(natural + [-1])
        idx = grid[tuple(slice(0, o) for o in out)].reshape(int(np.prod(out)), -1)
    return idx


# ----------------------------------------------------------------------------------------------- NumPy
def reference_centered(x: np.ndarray, zp, shape) -> np.ndarray:
    """x - zp in int64 (exact), zp (None: 0) reshaped to ``shape``."""
    v = x.astype(np.int64)
    return v if zp is None else v - zp.astype(np.int64).reshape(shape)


def wrap32(v: np.ndarray) -> np.ndarray:
    """The low 32 bits of integers as INT32 (two's complement)."""
    return v.astype(np.uint64).astype(np.uint32).view(np.int32)


def reference_matmul(va: np.ndarray, vb: np.ndarray) -> np.ndarray:
    """va [..., M, K] x vb [..., K, N] modulo 2**32, as INT32."""
    with np.errstate(over="ignore"):
        return wrap32(np.matmul(va.astype(np.uint64), vb.astype(np.uint64)))


def reference_conv(desc, vx: np.ndarray, vw: np.ndarray) -> np.ndarray:
    """The FORWARD cross-correlation of centred int64 values (padding 0), INT32 [N, M, *output spatial]."""
    n, c = vx.shape[:2]
    m, groups = vw.shape[0], desc.group_count
    idx = conv_table(desc)
    cols = _pooling.reference_windows(vx, idx, 0)                       # [N, C, rows, K]
    cols = cols.reshape(n, groups, c // groups, idx.shape[0], idx.shape[1]).transpose(0, 1, 2, 4, 3)
    cols = cols.reshape(n, groups, -1, idx.shape[0])                    # [N, G, C/G * K, rows]
    w = vw.reshape(groups, m // groups, -1)                             # [G, M/G, C/G * K]
    y = reference_matmul(w, cols)                                       # [N, G, M/G, rows]
    return y.reshape((n, m) + tuple(desc.output_tensor.sizes[2:]))


def reference_requantize(acc: np.ndarray, scale: np.ndarray, out_scale, out_zp, np_dtype) -> np.ndarray:
    """quantize(float32(acc) * scale, out_scale, out_zp): the INT32 result dequantized by the product of the input
    scales (``scale``), then quantized by _quantize (x / scale, half to even, + zero point, saturated)."""
    with np.errstate(all="ignore"):
        real = acc.astype(F32) * scale.astype(F32)
    return reference_quantize(real, out_scale, out_zp, np_dtype)


# ----------------------------------------------------------------------------------------------- ONNX
def onnx_shaped(g, v, shape):
    """``v`` reshaped to ``shape`` (None stays None)."""
    if v is None:
        return None
    return g.node("Reshape", [v, g.ints(shape)])


def _i32(g, value) -> str:
    return g.const(np.asarray(value, np.int32))


def integer_kernels(g) -> bool:
    """Whether the model is built for DirectML's provider, whose MatMulInteger / ConvInteger are DirectML's own
    integer kernels (and which has no float64 MatMul); elsewhere the products are float64 (module docstring)."""
    return getattr(g, "provider", "cpu") == "dml"


def _onnx_centered64(g, x: str, zp) -> str:
    """float64(x) - float64(zp): exact (8-bit integers); ``zp`` already broadcastable (None: 0)."""
    v = g.cast(x, F64)
    return v if zp is None else g.node("Sub", [v, g.cast(zp, F64)])


def onnx_wrap32(g, y: str, k: int) -> str:
    """A float64 ``y`` holding exact sums of ``k`` products of centred 8-bit values, as INT32 modulo 2**32: a plain
    Cast where no such sum can leave the INT32 range (k * 65025 < 2**31), else y - 2**32 * floor((y + 2**31) /
    2**32) first, every step exact in float64 (integers below 2**49, divisions by a power of two)."""
    if k * LARGEST_PRODUCT < 2**31:
        return g.cast(y, np.int32)
    two32 = g.const(np.asarray(2.0**32, F64))
    turns = g.node("Floor", [g.node("Div", [g.node("Add", [y, g.const(np.asarray(2.0**31, F64))]), two32])])
    return g.cast(g.node("Sub", [y, g.node("Mul", [turns, two32])]), np.int32)


def onnx_matmul(g, a: str, za, b: str, zb, k: int) -> str:
    """(a - za) [..., M, K] x (b - zb) [..., K, N] modulo 2**32 as int32; ``za`` {M, 1} or {1, 1}, ``zb`` {1, N} or
    {1, 1} (or None) (module docstring)."""
    if not integer_kernels(g):
        y = g.node("MatMul", [_onnx_centered64(g, a, za), _onnx_centered64(g, b, zb)])
        return onnx_wrap32(g, y, k)
    y = g.node("MatMulInteger", [a, b], dtype=np.int32)
    za32 = None if za is None else g.cast(za, np.int32)
    zb32 = None if zb is None else g.cast(zb, np.int32)
    if za32 is not None:
        colsum = g.node("ReduceSum", [g.cast(b, np.int32), g.ints([-2])], keepdims=1)   # [..., 1, N]
        y = g.node("Sub", [y, g.node("Mul", [za32, colsum])])
    if zb32 is not None:
        rowsum = g.node("ReduceSum", [g.cast(a, np.int32), g.ints([-1])], keepdims=1)   # [..., M, 1]
        y = g.node("Sub", [y, g.node("Mul", [rowsum, zb32])])
    if za32 is not None and zb32 is not None:
        y = g.node("Add", [y, g.node("Mul", [g.node("Mul", [za32, zb32]), _i32(g, k)])])
    return y


def _onnx_conv_float64(g, desc, x: str, zx, w: str, zw, per_channel: bool) -> str:
    """:func:`reference_conv` in float64 ONNX ops: the centred input's windows (padding 0), one MatMul with the
    centred filter, wrapped to INT32."""
    n, c = desc.input_tensor.sizes[:2]
    m, groups = desc.filter_tensor.sizes[0], desc.group_count
    idx = conv_table(desc)
    vx = _onnx_centered64(g, x, zx)
    if zw is not None and per_channel:  # {M, 1, ..} against OutputTensor: {M, 1, 1, ..} against FilterTensor
        zw = onnx_shaped(g, zw, channel(m, len(desc.strides) + 1))
    vw = _onnx_centered64(g, w, zw)
    cols = _pooling.onnx_windows(g, vx, list(desc.input_tensor.sizes), idx, 0.0)      # [N, C, rows, K]
    cols = g.node("Reshape", [cols, g.ints([n, groups, c // groups, idx.shape[0], idx.shape[1]])])
    cols = g.node("Transpose", [cols], perm=[0, 1, 2, 4, 3])
    cols = g.node("Reshape", [cols, g.ints([n, groups, -1, idx.shape[0]])])          # [N, G, C/G * K, rows]
    filters = g.node("Reshape", [vw, g.ints([groups, m // groups, -1])])               # [G, M/G, C/G * K]
    y = g.node("MatMul", [filters, cols])                                              # [N, G, M/G, rows]
    y = g.node("Reshape", [y, g.ints([n, m] + list(desc.output_tensor.sizes[2:]))])
    return onnx_wrap32(g, y, (c // groups) * idx.shape[1])


def onnx_conv(g, desc, x: str, zx, w: str, zw, per_channel: bool) -> str:
    """The FORWARD cross-correlation of (x - zx) and (w - zw) as int32 [N, M, *output spatial]: ``zx`` a 0-d value
    (or None), ``zw`` 0-d or, ``per_channel``, {M, 1, ..} against OutputTensor (or None). Off DirectML, float64
    windows and one MatMul; on DirectML's provider, ConvInteger of the input padded with its zero point (padding
    reads as 0 after the subtraction), a per-channel filter zero point applied as zw * ConvInteger(x, ones)."""
    if not integer_kernels(g):
        return _onnx_conv_float64(g, desc, x, zx, w, zw, per_channel)
    dims = len(desc.strides)
    end = conv_end_padding(desc)
    if any(desc.start_padding) or any(end):
        pad_value = zx if zx is not None else g.const(np.asarray(0, g.dtype(x)))
        pads = [0, 0] + list(desc.start_padding) + [0, 0] + end
        x = g.node("Pad", [x, g.ints(pads), pad_value], mode="constant")
    kw = dict(strides=list(desc.strides), dilations=list(desc.dilations), group=desc.group_count)
    y = g.node("ConvInteger", [x, w, zx, None if per_channel else zw], dtype=np.int32, **kw)
    if zw is not None and per_channel:
        ones = g.const(np.ones(desc.filter_tensor.sizes, np.uint8))
        window_sums = g.node("ConvInteger", [x, ones, zx], dtype=np.int32, **kw)
        y = g.node("Sub", [y, g.node("Mul", [g.cast(zw, np.int32), window_sums])])
    out = list(desc.output_tensor.sizes[2:])
    padded = [s + a + b for s, a, b in zip(desc.input_tensor.sizes[2:], desc.start_padding, end)]
    natural = [(p - (1 + (k - 1) * d)) // s + 1 for p, k, d, s in
               zip(padded, desc.filter_tensor.sizes[2:], desc.dilations, desc.strides)]
    if natural != out:
        y = g.node("Slice", [y, g.ints([0] * dims), g.ints(out), g.ints(range(2, 2 + dims))])
    return y


def onnx_requantize(g, acc: str, scale: str, out_scale: str, out_zp, np_dtype) -> str:
    """:func:`reference_requantize` in ONNX ops."""
    real = g.node("Mul", [g.cast(acc, F32), scale])
    return onnx_quantize(g, real, out_scale, out_zp, np_dtype)


# ----------------------------------------------------------------------------------------------- torch
def torch_centered(torch, x, zp, shape):
    """x - zp as int32 (exact: 8-bit values), zp (None: 0) reshaped to ``shape``."""
    v = x.to(torch.int32)
    return v if zp is None else v - zp.to(torch.int32).reshape(shape)


def _digits(torch, v):
    """float32 (l, h) with v = 16 * h + l, l in [0, 15], h in [-16, 15] for |v| <= 255. A floor division by a 0-d
    tensor (torch-directml registers div with a rounding mode, not the Scalar overloads of remainder /
    floor_divide)."""
    h = torch.div(v, torch.full((), 16, dtype=v.dtype, device=v.device), rounding_mode="floor")
    return (v - h * 16).to(torch.float32), h.to(torch.float32)


def torch_matmul(torch, va, vb):
    """va [..., M, K] x vb [..., K, N] (centred int32) modulo 2**32 as int32, from exact float32 matmuls of digits
    (module docstring)."""
    da, db = _digits(torch, va), _digits(torch, vb)
    k = va.shape[-1]
    chunk = 2**24 // 256  # |digit products| <= 256: every partial sum of a chunk is an integer below 2**24
    acc = None
    for i in range(2):
        for j in range(2):
            term = None
            for s in range(0, k, chunk):
                part = torch.matmul(da[i][..., s:s + chunk], db[j][..., s:s + chunk, :]).to(torch.int32)
                term = part if term is None else term + part  # int32: wraps
            if i + j:
                term = term * 16 ** (i + j)
            acc = term if acc is None else acc + term
    return acc


def torch_conv(torch, desc, vx, vw):
    """:func:`reference_conv` of centred int32 values in torch ops (window gather, exact float32 matmul)."""
    n, c = vx.shape[:2]
    m, groups = vw.shape[0], desc.group_count
    idx = conv_table(desc)
    cols = _pooling.torch_windows(torch, vx, idx, 0)                    # [N, C, rows, K]
    cols = cols.reshape(n, groups, c // groups, idx.shape[0], idx.shape[1]).transpose(3, 4)
    cols = cols.reshape(n, groups, -1, idx.shape[0])                    # [N, G, C/G * K, rows]
    w = vw.reshape(groups, m // groups, -1)                             # [G, M/G, C/G * K]
    y = torch_matmul(torch, w, cols)                                    # [N, G, M/G, rows]
    return y.reshape((n, m) + tuple(desc.output_tensor.sizes[2:]))


def torch_requantize(torch, acc, scale, out_scale, out_zp, torch_dtype):
    """:func:`reference_requantize` in torch ops."""
    return torch_quantize(torch, acc.to(torch.float32) * scale, out_scale, out_zp, torch_dtype)
