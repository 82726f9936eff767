"""Exact integer products shared by MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT, CONVOLUTION_INTEGER and
QUANTIZED_LINEAR_MATRIX_MULTIPLY / _CONVOLUTION / _AVERAGE_POOLING.

The integer part of these operators is sum((A - AZeroPoint) * (B - BZeroPoint)) accumulated in 32 bits: the docs'
"accumulated in INT32" for the 8-bit operators, and dmlops's decision for MATRIX_MULTIPLY_INTEGER_TO_FLOAT's 16- and
32-bit operands (no vector and no page says more): A - AZeroPoint, every product and every sum wrap modulo 2**32
(two's complement) and the result is read as INT32. For 8-bit operands nothing wraps below 33025 products.

How each backend stays exact (DirectML's ONNX Runtime provider has MatMul and Conv for floats only, and torch-directml
has no integer matmul or convolution):

* NumPy: uint64 matmul of the centred values (wraps modulo 2**64, whose low 32 bits are the answer).
* ONNX: MatMulInteger / ConvInteger, which the provider registers for (u)int8 and ONNX Runtime's CPU provider runs for
  every (u)int8 pair, wrapping in int32. The CPU kernels take only a per-tensor A / input zero point (and ConvInteger
  only a per-tensor filter zero point), so zero points are applied as int32 corrections:
  (A - za)(B - zb) summed = A.B - za * colsum(B) - rowsum(A) * zb + K * za * zb (each term wraps alike). A convolution
  reads its padding as InputZeroPoint (Pad with that value), so that padding contributes (x - zx) = 0, as a zero of the
  dequantized input. 16/32-bit operands (TO_FLOAT only) are split into the four bytes of (v mod 2**32); the byte
  products with weight 2**(8 * (i + j)) < 2**32 (10 MatMulIntegers) sum to the product modulo 2**32.
* torch: float32 matmuls of small digits, exact because every partial sum stays below 2**24 (the contraction is cut
  into chunks that guarantee it), combined in int32. 8-bit centred values (|v| <= 255) are 16 * h + l (l in [0, 15],
  h in [-16, 15]: products <= 256, chunks of 65536); 32-bit values are their four bytes (products <= 65025, chunks of
  258). A convolution is an im2col (dmlops.ops._pooling's window table, padding read as 0 after the zero point is
  subtracted) followed by such a matmul: a float convolution kernel may use Winograd or FFT transforms, which would
  not be exact. This assumes the device's float32 matmul rounds as IEEE float32 does (integers below 2**24 are then
  exact in any summation order); nothing here ran on DirectML to confirm it.

Quantization parameters are per tensor, per row / column / channel; every one is reshaped from its DML Sizes to a
shape that broadcasts against the layout the lowering computes in (``row`` {count, 1}, ``column`` {1, count},
``channel`` {count, 1, ...}).
"""
from __future__ import annotations

import numpy as np

from . import _pooling
from ._quantize import onnx_quantize, reference_quantize, torch_quantize

F32 = np.float32
_WIDE = ("int16", "uint16", "int32", "uint32")


def is_wide(dtype) -> bool:
    """Whether an integer dtype (NumPy or torch) is 16 or 32 bits wide (bytes split), not 8."""
    return str(dtype).removeprefix("torch.") in _WIDE


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


def _onnx_bytes(g, x: str, zp) -> list[str]:
    """The four bytes (uint8) of (x - zp) modulo 2**32, least significant first; ``zp`` already broadcastable."""
    i64 = np.int64
    v = g.cast(x, i64)
    if zp is not None:
        v = g.node("Sub", [v, g.cast(zp, i64)])
    v = g.node("BitwiseAnd", [v, g.const(np.asarray(2**32 - 1, i64))])  # non-negative: Div floors
    out = []
    for i in range(4):
        part = v if i == 0 else g.node("Div", [v, g.const(np.asarray(256**i, i64))])
        out.append(g.cast(g.node("BitwiseAnd", [part, g.const(np.asarray(255, i64))]), np.uint8))
    return out


def onnx_matmul(g, a: str, za, b: str, zb, k: int) -> str:
    """(a - za) [..., M, K] x (b - zb) [..., K, N] modulo 2**32 as int32; ``za`` {M, 1} or {1, 1}, ``zb`` {1, N} or
    {1, 1} (or None) (module docstring)."""
    if is_wide(g.dtype(a)) or is_wide(g.dtype(b)):
        da, db = _onnx_bytes(g, a, za), _onnx_bytes(g, b, zb)
        acc: str | None = None
        for i in range(4):
            for j in range(4 - i):
                term = g.node("MatMulInteger", [da[i], db[j]], dtype=np.int32)
                if i + j:
                    term = g.node("Mul", [term, _i32(g, 256 ** (i + j))])
                acc = term if acc is None else g.node("Add", [acc, term])
        assert acc is not None  # 10 terms
        return acc
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


def onnx_conv(g, desc, x: str, zx, w: str, zw, per_channel: bool) -> str:
    """ConvInteger of (x - zx) and (w - zw) as int32 [N, M, *output spatial]: ``zx`` a 0-d value (or None), ``zw``
    0-d or, ``per_channel``, {M, 1, ..} (or None). The input is padded with its zero point first (padding reads as 0
    after the subtraction); a per-channel filter zero point is applied as zw * ConvInteger(x, ones) (ONNX Runtime's
    CPU ConvInteger takes per-tensor ones only)."""
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
    """(x - zp) modulo 2**32 as int32, zp (None: 0) reshaped to ``shape``."""
    if x.dtype in (torch.uint32,):  # beyond int32: subtract in int64, keep the low 32 bits
        v = x.to(torch.int64)
        if zp is not None:
            v = v - zp.to(torch.int64).reshape(shape)
        return v.to(torch.int32)
    v = x.to(torch.int32)
    return v if zp is None else v - zp.to(torch.int32).reshape(shape)


def _digits(torch, v, wide: bool):
    """(float32 digits, base, largest |digit product|) of int32 ``v``: bytes of v mod 2**32 (``wide``), else
    v = 16 * h + l for |v| <= 255. Floor divisions by 0-d tensors (torch-directml registers div with a rounding
    mode, not the Scalar overloads of remainder / floor_divide)."""
    base = 256 if wide else 16

    def split(t):
        q = torch.div(t, torch.full((), base, dtype=t.dtype, device=t.device), rounding_mode="floor")
        return t - q * base, q

    out = []
    for _ in range(3 if wide else 1):
        low, v = split(v)
        out.append(low)
    if wide:  # the top byte of v mod 2**32: its value modulo 256
        v = split(v)[0]
    out.append(v)
    return [d.to(torch.float32) for d in out], base, (255 * 255 if wide else 256)


def torch_matmul(torch, va, vb, wide: bool):
    """va [..., M, K] x vb [..., K, N] modulo 2**32 as int32, from exact float32 matmuls (module docstring)."""
    da, base, largest = _digits(torch, va, wide)
    db, _, _ = _digits(torch, vb, wide)
    k = va.shape[-1]
    chunk = 2**24 // largest  # every partial sum of a chunk is an integer of magnitude <= 2**24: exact in float32
    acc = None
    for i in range(len(da)):
        for j in range(len(db)):
            if wide and i + j > 3:  # a multiple of 2**32
                continue
            term = None
            for s in range(0, k, chunk):
                part = torch.matmul(da[i][..., s:s + chunk], db[j][..., s:s + chunk, :]).to(torch.int32)
                term = part if term is None else term + part
            if i + j:
                term = term * base ** (i + j)  # int32: wraps
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
    y = torch_matmul(torch, w, cols, False)                             # [N, G, M/G, rows]
    return y.reshape((n, m) + tuple(desc.output_tensor.sizes[2:]))


def torch_requantize(torch, acc, scale, out_scale, out_zp, torch_dtype):
    """:func:`reference_requantize` in torch ops."""
    return torch_quantize(torch, acc.to(torch.float32) * scale, out_scale, out_zp, torch_dtype)
