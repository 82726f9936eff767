"""B16 integer linear algebra (MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT, CONVOLUTION_INTEGER,
QUANTIZED_LINEAR_MATRIX_MULTIPLY, QUANTIZED_LINEAR_CONVOLUTION, QUANTIZED_LINEAR_AVERAGE_POOLING) against independent
implementations, on every dmlops backend (reference, onnxruntime, torch). DirectML's vectors judge them too
(tests/test_directml_vectors.py: MATRIX_MULTIPLY_INTEGER_TO_FLOAT's 16 cases, and the refusals).

Oracles of the integer products are exact integer computations, never ONNX Runtime's CPU kernels (issue 20: its
ConvInteger with an INT8 input and a UINT8 filter is wrong on AVX2 CPUs without AVX-512 VNNI, so an oracle built on it
is wrong there too): NumPy int64 arithmetic and plain Python loops over the docs' formulas (exact integers, Fraction
and round() half to even for the requantization); ONNX's node test cases (fixed expected outputs: MatMulInteger,
ConvInteger with and without padding and a per-channel filter zero point, QLinearMatMul 2-D / 3-D int8 / uint8,
QLinearConv; tests/onnx_node_cases.py); torch on the CPU (int64 matmul, float64 conv of the centred integers, exact
below 2**53). Every input / filter DataType pair is swept over its full value range and its extremes (INT8 127 and
-128 against UINT8 255: the byte pairs that overflowed ONNX Runtime's AVX2 kernel). QUANTIZED_LINEAR_AVERAGE_POOLING
(no integer product) is also checked against ONNX Runtime's com.microsoft QLinearAveragePool.

Where an oracle requantizes in another float order (exact Fractions; QLinearAveragePool averages dequantized floats),
the test allows one step at elements whose exact quotient lies within 1e-4 of a half, and counts them (none occur on
these inputs except where asserted).
"""
import itertools
from fractions import Fraction

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import dmlops
from dmlops import descs
from dmlops.types import FeatureLevel, TensorDesc
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
T = TensorDesc
NAME = {np.dtype(t.lower()): t for t in ("UINT8", "INT8", "INT32", "FLOAT32")}


def run_all(desc, inputs):
    return {b: {k: np.asarray(v) for k, v in dmlops.run(desc, inputs, backend=b).items()} for b in BACKENDS}


def assert_all(desc, inputs, want, what=""):
    want = np.asarray(want)
    for b, out in run_all(desc, inputs).items():
        got = out["OutputTensor"]
        assert got.dtype == want.dtype and got.shape == want.shape, f"{what} {b}: {got.dtype}{got.shape}"
        np.testing.assert_array_equal(got, want, err_msg=f"{what} on {b}")


def td(a: np.ndarray, sizes=None):
    return T(NAME[a.dtype], list(sizes if sizes is not None else a.shape))


def ort_run(node, inputs, out_dtype):
    """Run one ONNX node on ONNX Runtime's CPU provider; ``inputs`` may hold None for omitted optional inputs."""
    h = onnx.helper
    names = [f"i{k}" if v is not None else "" for k, v in enumerate(inputs)]
    node = h.make_node(node.op_type, names, ["y"], domain=node.domain or None,
                       **{a.name: h.get_attribute_value(a) for a in node.attribute})
    graph = h.make_graph([node], "t", [h.make_tensor_value_info(n, h.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
                                       for n, v in zip(names, inputs) if v is not None],
                         [h.make_tensor_value_info("y", h.np_dtype_to_tensor_dtype(np.dtype(out_dtype)), None)])
    imports = [h.make_opsetid("", 21)] + ([h.make_opsetid("com.microsoft", 1)] if node.domain else [])
    model = h.make_model(graph, opset_imports=imports)
    model.ir_version = 10
    from dmlops.backends.onnxruntime import session_config

    options, providers = session_config("cpu", ort)  # as dmlops configures its own sessions
    session = ort.InferenceSession(model.SerializeToString(), options, providers=providers)
    return session.run(None, {n: v for n, v in zip(names, inputs) if v is not None})[0]


def near_half(exact: np.ndarray) -> np.ndarray:
    """Where an exact quotient lies within 1e-4 of a half: float orders may round it either way."""
    frac = np.abs(exact - np.floor(exact) - 0.5)
    return frac < 1e-4


def assert_near_halves_only(results, want, exact, steps=0):
    """Every backend equals ``want`` except, by one step, at ``steps`` elements that are all near a half."""
    for b, out in results.items():
        diff = np.abs(out["OutputTensor"].astype(int) - np.asarray(want).astype(int))
        assert diff.max(initial=0) <= 1 and not np.any((diff == 1) & ~near_half(exact)), b
        assert int((diff == 1).sum()) == steps, (b, int((diff == 1).sum()))


# ---------------------------------------------------------------------------------------------- ONNX node cases
CASES = generated(["matmulinteger", "convinteger", "qlinearmatmul", "qlinearconv"])


def test_the_node_cases_are_there():
    assert {"test_matmulinteger", "test_convinteger_with_padding", "test_convinteger_without_padding",
            "test_qlinearconv"} <= set(CASES)
    assert len([n for n in CASES if n.startswith("test_qlinearmatmul")]) == 8


def test_matmulinteger_node_case():
    c = CASES["test_matmulinteger"]
    a, b, za, zb = c.inputs
    desc = descs.MatrixMultiplyInteger(a_tensor=td(a), a_zero_point_tensor=td(za), b_tensor=td(b),
                                       b_zero_point_tensor=td(zb), output_tensor=T("INT32", list(c.outputs[0].shape)))
    assert_all(desc, {"ATensor": a, "AZeroPointTensor": za, "BTensor": b, "BZeroPointTensor": zb}, c.outputs[0])


def _conv_integer_desc(x, w, y, zx, zw, pads=None, strides=None, dilations=None, groups=1):
    dims = x.ndim - 2
    pads = pads or [0] * (2 * dims)
    return descs.ConvolutionInteger(
        input_tensor=td(x), input_zero_point_tensor=None if zx is None else T(NAME[zx.dtype], [1] * x.ndim),
        filter_tensor=td(w),
        filter_zero_point_tensor=None if zw is None else T(NAME[zw.dtype], [1, zw.size] + [1] * dims),
        output_tensor=T("INT32", list(y)), strides=strides or [1] * dims, dilations=dilations or [1] * dims,
        start_padding=pads[:dims], end_padding=pads[dims:], group_count=groups)


@pytest.mark.parametrize("name", ["test_convinteger_with_padding", "test_convinteger_without_padding"])
def test_convinteger_node_cases(name):
    # with_padding has a per-channel filter zero point (2 channels), which ONNX Runtime's CPU ConvInteger refuses;
    # its padding is the input zero point (a dequantized 0), as dmlops reads it.
    c = CASES[name]
    x, w, zx = c.inputs[:3]
    zw = c.inputs[3] if len(c.inputs) > 3 else None
    desc = _conv_integer_desc(x, w, c.outputs[0].shape, zx, zw, attribute(c.node, "pads"))
    inputs = {"InputTensor": x, "InputZeroPointTensor": zx.reshape([1] * x.ndim), "FilterTensor": w}
    if zw is not None:
        inputs["FilterZeroPointTensor"] = zw.reshape(desc.filter_zero_point_tensor.sizes)
    assert_all(desc, inputs, c.outputs[0], name)


def _qlinear_matmul_desc(a, b, y, params):
    f32 = T("FLOAT32", [1])
    q = lambda v: T(NAME[v.dtype], [1])  # noqa: E731
    return descs.QuantizedLinearMatrixMultiply(
        a_tensor=td(a), a_scale_tensor=f32, a_zero_point_tensor=q(params[1]), b_tensor=td(b), b_scale_tensor=f32,
        b_zero_point_tensor=q(params[3]), output_scale_tensor=f32, output_zero_point_tensor=q(params[5]),
        output_tensor=T(NAME[y.dtype], list(y.shape)))


QLINEAR_MATMUL = sorted(n for n in CASES if n.startswith("test_qlinearmatmul"))


@pytest.mark.parametrize("name", QLINEAR_MATMUL)
def test_qlinearmatmul_node_cases(name):
    # The float16 cases' scales are exact in float32, which QUANTIZED_LINEAR_MATRIX_MULTIPLY takes.
    c = CASES[name]
    a, sa, za, b, sb, zb, sy, zy = c.inputs
    f = lambda v: v.astype(np.float32).reshape(1)  # noqa: E731
    desc = _qlinear_matmul_desc(a, b, c.outputs[0], [sa, za, sb, zb, sy, zy])
    inputs = {"ATensor": a, "AScaleTensor": f(sa), "AZeroPointTensor": za.reshape(1), "BTensor": b,
              "BScaleTensor": f(sb), "BZeroPointTensor": zb.reshape(1), "OutputScaleTensor": f(sy),
              "OutputZeroPointTensor": zy.reshape(1)}
    assert_all(desc, inputs, c.outputs[0], name)


def _qlinear_conv_desc(x, w, y, per_channel=1, bias=False, pads=None, strides=None, dilations=None, groups=1,
                       types=None):
    dims = x.ndim - 2
    pads = pads or [0] * (2 * dims)
    one = [1] * x.ndim
    channel = [1, per_channel] + [1] * dims
    tx, tw, ty = types or (NAME[x.dtype], NAME[w.dtype], NAME[y.dtype])
    return descs.QuantizedLinearConvolution(
        input_tensor=td(x), input_scale_tensor=T("FLOAT32", one), input_zero_point_tensor=T(tx, one),
        filter_tensor=td(w), filter_scale_tensor=T("FLOAT32", channel), filter_zero_point_tensor=T(tw, channel),
        bias_tensor=T("INT32", [1, w.shape[0]] + [1] * dims) if bias else None, output_scale_tensor=T("FLOAT32", one),
        output_zero_point_tensor=T(ty, one), output_tensor=T(ty, list(y.shape)), strides=strides or [1] * dims,
        dilations=dilations or [1] * dims, start_padding=pads[:dims], end_padding=pads[dims:], group_count=groups)


def test_qlinearconv_node_case():
    c = CASES["test_qlinearconv"]
    x, sx, zx, w, sw, zw, sy, zy = c.inputs
    desc = _qlinear_conv_desc(x, w, c.outputs[0])
    r = lambda v, dtype=None: np.asarray(v, dtype).reshape([1] * 4)  # noqa: E731
    inputs = {"InputTensor": x, "InputScaleTensor": r(sx), "InputZeroPointTensor": r(zx), "FilterTensor": w,
              "FilterScaleTensor": r(sw), "FilterZeroPointTensor": r(zw), "OutputScaleTensor": r(sy),
              "OutputZeroPointTensor": r(zy)}
    assert_all(desc, inputs, c.outputs[0], "test_qlinearconv")


# ---------------------------------------------------------------------------------------------- plain Python loops
def _python_conv(x, zx, w, zw, out_sizes, strides, dilations, start, groups):
    """The docs' formula element by element, in Python integers (padding: centred value 0), wrapped to INT32."""
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // groups, m // groups
    y = np.zeros([n, m] + list(out_sizes), np.int64)
    for b, o in itertools.product(range(n), range(m)):
        g = o // mg
        for pos in itertools.product(*map(range, out_sizes)):
            total = 0
            for ci in range(cg):
                for k in itertools.product(*map(range, w.shape[2:])):
                    p = [q * s - a + kk * d for q, s, a, kk, d in zip(pos, strides, start, k, dilations)]
                    if all(0 <= pi < size for pi, size in zip(p, x.shape[2:])):
                        xv = int(x[(b, g * cg + ci, *p)]) - zx
                        total += xv * (int(w[(o, ci, *k)]) - int(zw[o]))
            y[(b, o, *pos)] = total
    return ((y + 2**31) % 2**32 - 2**31).astype(np.int32)


GEOMETRIES = [  # x sizes, w sizes, out sizes, strides, dilations, start, end, groups
    ([1, 2, 5, 6], [4, 2, 3, 2], [1, 4, 3, 5], [1, 1], [1, 1], [0, 0], [0, 0], 1),
    ([2, 4, 7, 6], [6, 2, 3, 2], [2, 6, 3, 5], [2, 1], [2, 2], [1, 0], [2, 1], 2),
    ([1, 3, 9], [3, 1, 3], [1, 3, 6], [2], [1], [2], [1], 3),        # depthwise, 1-D, longer than the formula (5)
    ([1, 2, 6, 6], [2, 2, 2, 2], [1, 2, 2, 3], [2, 2], [1, 1], [1, 1], [1, 1], 1),  # shorter than the formula
]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=[f"g{i}" for i in range(len(GEOMETRIES))])
@pytest.mark.parametrize("types", [("UINT8", "UINT8"), ("UINT8", "INT8"), ("INT8", "UINT8"), ("INT8", "INT8")],
                         ids="-".join)
def test_convolution_integer_matches_python_loops(geometry, types):
    xs, ws, ys, strides, dilations, start, end, groups = geometry
    rng = np.random.default_rng(sum(xs) + len(types[0]))
    tx, tw = (np.dtype(t.lower()) for t in types)
    ints = lambda dtype, *s: rng.integers(np.iinfo(dtype).min, int(np.iinfo(dtype).max) + 1, s).astype(dtype)  # noqa
    x, w, zx, zw = ints(tx, *xs), ints(tw, *ws), ints(tx, 1), ints(tw, ws[0])
    dims = len(xs) - 2
    desc = descs.ConvolutionInteger(
        input_tensor=T(types[0], xs), input_zero_point_tensor=T(types[0], [1] * len(xs)), filter_tensor=T(types[1], ws),
        filter_zero_point_tensor=T(types[1], [1, ws[0]] + [1] * dims), output_tensor=T("INT32", ys), strides=strides,
        dilations=dilations, start_padding=start, end_padding=end, group_count=groups)
    want = _python_conv(x, int(zx[0]), w, zw, ys[2:], strides, dilations, start, groups)
    assert_all(desc, {"InputTensor": x, "InputZeroPointTensor": zx.reshape([1] * len(xs)), "FilterTensor": w,
                      "FilterZeroPointTensor": zw.reshape([1, ws[0]] + [1] * dims)}, want)


def _round_half_even(q: Fraction) -> int:
    return round(q)  # Python's round of a Fraction: half to even


def test_quantized_linear_convolution_matches_exact_fractions():
    """Python Fractions for the requantization: exact acc * sx * sw / sy, rounded half to even; one step allowed only
    where the exact quotient is within 1e-4 of a half (float32 steps may round it either way)."""
    rng = np.random.default_rng(7)
    xs, ws, ys, strides, dilations, start, end, groups = GEOMETRIES[1]
    x, w = rng.integers(0, 256, xs).astype(np.uint8), rng.integers(-128, 128, ws).astype(np.int8)
    zx, zw = np.uint8(131), rng.integers(-5, 5, ws[0]).astype(np.int8)
    bias = rng.integers(-3000, 3000, ws[0]).astype(np.int32)
    sx, sw, sy = np.float32(0.02), rng.uniform(0.005, 0.02, ws[0]).astype(np.float32), np.float32(0.07)
    zy = np.uint8(127)
    y = np.zeros(ys, np.uint8)
    desc = _qlinear_conv_desc(x, w, y, ws[0], True, start + end, strides, dilations, groups)
    acc = _python_conv(x, int(zx), w, zw, ys[2:], strides, dilations, start, groups).astype(np.int64)
    acc = acc + bias.reshape(1, -1, 1, 1)
    exact = np.vectorize(lambda a, s: float(Fraction(int(a)) * Fraction(float(sx)) * Fraction(float(s))
                                            / Fraction(float(sy))))(acc, sw.reshape(1, -1, 1, 1))
    want = np.clip(np.vectorize(lambda v: _round_half_even(Fraction(v)))(exact) + int(zy), 0, 255).astype(np.uint8)
    inputs = {"InputTensor": x, "InputScaleTensor": sx.reshape(1, 1, 1, 1),
              "InputZeroPointTensor": np.full((1,) * 4, zx),
              "FilterTensor": w, "FilterScaleTensor": sw.reshape(1, -1, 1, 1),
              "FilterZeroPointTensor": zw.reshape(1, -1, 1, 1), "BiasTensor": bias.reshape(1, -1, 1, 1),
              "OutputScaleTensor": sy.reshape(1, 1, 1, 1), "OutputZeroPointTensor": np.full((1,) * 4, zy)}
    assert_near_halves_only(run_all(desc, inputs), want, exact)


# ---------------------------------------------------------------------------------------------- torch on the CPU
@pytest.mark.parametrize("lead", [[], [3], [2, 2]])
def test_matrix_multiply_integer_matches_torch_int64_matmul(lead):
    rng = np.random.default_rng(len(lead))
    m, k, n = 5, 7, 3
    a = rng.integers(-128, 128, lead + [m, k]).astype(np.int8)
    b = rng.integers(0, 256, lead + [k, n]).astype(np.uint8)
    za, zb = rng.integers(-128, 128, m).astype(np.int8), rng.integers(0, 256, n).astype(np.uint8)
    rank = len(lead) + 2
    ra, rb = [1] * (rank - 2) + [m, 1], [1] * (rank - 1) + [n]
    desc = descs.MatrixMultiplyInteger(a_tensor=td(a), a_zero_point_tensor=T("INT8", ra), b_tensor=td(b),
                                       b_zero_point_tensor=T("UINT8", rb), output_tensor=T("INT32", lead + [m, n]))
    ta = torch.from_numpy(a.astype(np.int64)) - torch.from_numpy(za.astype(np.int64)).reshape(m, 1)
    tb = torch.from_numpy(b.astype(np.int64)) - torch.from_numpy(zb.astype(np.int64)).reshape(1, n)
    want = torch.matmul(ta, tb).to(torch.int32).numpy()
    assert_all(desc, {"ATensor": a, "AZeroPointTensor": za.reshape(ra), "BTensor": b,
                      "BZeroPointTensor": zb.reshape(rb)}, want)


def test_convolution_integer_matches_torch_float64_conv():
    rng = np.random.default_rng(3)
    xs, ws, ys, strides, dilations, start, end, groups = GEOMETRIES[1]
    x, w = rng.integers(0, 256, xs).astype(np.uint8), rng.integers(0, 256, ws).astype(np.uint8)
    zx, zw = np.uint8(100), rng.integers(0, 256, ws[0]).astype(np.uint8)
    desc = _conv_integer_desc(x, w, ys, zx.reshape(1), zw, start + end, strides, dilations, groups)
    tx = torch.from_numpy(x.astype(np.float64) - float(zx))
    tx = torch.nn.functional.pad(tx, [start[1], end[1], start[0], end[0]])  # padding: a centred 0
    tw = torch.from_numpy(w.astype(np.float64) - zw.astype(np.float64).reshape(-1, 1, 1, 1))
    want = torch.nn.functional.conv2d(tx, tw, stride=strides, dilation=dilations, groups=groups)
    want = want[..., :ys[2], :ys[3]].to(torch.int64).to(torch.int32).numpy()  # exact: |values| < 2**53
    assert_all(desc, {"InputTensor": x, "InputZeroPointTensor": zx.reshape(1, 1, 1, 1), "FilterTensor": w,
                      "FilterZeroPointTensor": zw.reshape(1, -1, 1, 1)}, want)


# ---------------------------------------------------------------------------------------------- every type pair
PAIRS = [("UINT8", "UINT8"), ("UINT8", "INT8"), ("INT8", "UINT8"), ("INT8", "INT8")]


def _extremes(dtype, shape, rng):
    """Values of ``dtype`` over its full range, half of them its minimum or maximum (the largest products)."""
    info = np.iinfo(dtype)
    v = rng.integers(int(info.min), int(info.max) + 1, shape)
    ends = rng.integers(0, 2, shape).astype(bool) & (rng.random(shape) < 0.5)
    return np.where(ends, np.where(rng.random(shape) < 0.5, int(info.min), int(info.max)), v).astype(dtype)


def _wrap32(v: np.ndarray) -> np.ndarray:
    return ((v.astype(np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)


@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_matrix_multiply_integer_every_type_pair_matches_numpy_int64(types):
    """{2, 3, 40, 64} x {2, 3, 64, 24} with per-row / per-column zero points, and one product per element pair
    of the extremes: NumPy int64 arithmetic is the oracle."""
    rng = np.random.default_rng(sum(map(len, types)) + 41)
    ta, tb = (np.dtype(t.lower()) for t in types)
    lead, m, k, n = [2, 3], 40, 64, 24
    a, b = _extremes(ta, lead + [m, k], rng), _extremes(tb, lead + [k, n], rng)
    za, zb = _extremes(ta, [1, 1, m, 1], rng), _extremes(tb, [1, 1, 1, n], rng)
    desc = descs.MatrixMultiplyInteger(
        a_tensor=T(types[0], lead + [m, k]), a_zero_point_tensor=T(types[0], [1, 1, m, 1]),
        b_tensor=T(types[1], lead + [k, n]), b_zero_point_tensor=T(types[1], [1, 1, 1, n]),
        output_tensor=T("INT32", lead + [m, n]))
    want = _wrap32((a.astype(np.int64) - za) @ (b.astype(np.int64) - zb))
    assert_all(desc, {"ATensor": a, "AZeroPointTensor": za, "BTensor": b, "BZeroPointTensor": zb}, want, str(types))
    # without zero points: INT8 127 / -128 against UINT8 255 everywhere
    a, b = np.full((4, k), np.iinfo(ta).max, ta), np.full((k, 3), np.iinfo(tb).max, tb)
    a[1], b[:, 1] = np.iinfo(ta).min, np.iinfo(tb).min
    desc = descs.MatrixMultiplyInteger(a_tensor=T(types[0], [4, k]), b_tensor=T(types[1], [k, 3]),
                                       output_tensor=T("INT32", [4, 3]))
    assert_all(desc, {"ATensor": a, "BTensor": b}, _wrap32(a.astype(np.int64) @ b.astype(np.int64)),
               f"{types} extremes")


def test_matrix_multiply_integer_beyond_the_int32_range_wraps():
    """50000 products of 200..255: every sum exceeds 2**31 - 1 and wraps modulo 2**32 (NumPy int64 oracle)."""
    rng = np.random.default_rng(5)
    k = 50000
    a = rng.integers(200, 256, (2, k)).astype(np.uint8)
    b = rng.integers(200, 256, (k, 3)).astype(np.uint8)
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert np.all(exact > 2**31 - 1)
    desc = descs.MatrixMultiplyInteger(a_tensor=td(a), b_tensor=td(b), output_tensor=T("INT32", [2, 3]))
    assert_all(desc, {"ATensor": a, "BTensor": b}, _wrap32(exact))
    # below -2**31: 140000 products of INT8 -128..-100 and UINT8 200..255 (and one exact sum of -2**31, which stays)
    k = 140000
    a = rng.integers(-128, -99, (2, k)).astype(np.int8)
    b = rng.integers(200, 256, (k, 3)).astype(np.uint8)
    a[1] = -128
    b[:, 2] = 0
    b[: 2**31 // (128 * 128), 2] = 128
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert np.all(exact[:, :2] < -2**31) and exact[1, 2] == -2**31
    desc = descs.MatrixMultiplyInteger(a_tensor=td(a), b_tensor=td(b), output_tensor=T("INT32", [2, 3]))
    assert_all(desc, {"ATensor": a, "BTensor": b}, _wrap32(exact))


@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_convolution_integer_every_type_pair_matches_python_loops(types):
    """8 input channels, 3 x 3 filters, padding, a per-channel filter zero point: the issue's INT8 x UINT8 case and
    its three siblings, full ranges and extremes."""
    rng = np.random.default_rng(sum(map(len, types)) + 43)
    tx, tw = (np.dtype(t.lower()) for t in types)
    xs, ws, ys = [2, 8, 5, 6], [4, 8, 3, 3], [2, 4, 5, 6]
    x, w = _extremes(tx, xs, rng), _extremes(tw, ws, rng)
    zx, zw = _extremes(tx, [1], rng), _extremes(tw, [ws[0]], rng)
    desc = descs.ConvolutionInteger(
        input_tensor=T(types[0], xs), input_zero_point_tensor=T(types[0], [1, 1, 1, 1]), filter_tensor=T(types[1], ws),
        filter_zero_point_tensor=T(types[1], [1, ws[0], 1, 1]), output_tensor=T("INT32", ys), strides=[1, 1],
        dilations=[1, 1], start_padding=[1, 1], end_padding=[1, 1], group_count=1)
    want = _python_conv(x, int(zx[0]), w, zw, ys[2:], [1, 1], [1, 1], [1, 1], 1)
    assert_all(desc, {"InputTensor": x, "InputZeroPointTensor": zx.reshape(1, 1, 1, 1), "FilterTensor": w,
                      "FilterZeroPointTensor": zw.reshape(1, -1, 1, 1)}, want, str(types))


def test_convolution_integer_int8_input_uint8_filter_as_the_issue_found_it():
    """Issue 20's reproduction: INT8 input 0..127, UINT8 filter 0..255, 8 channels, 3 x 3, no zero points (ONNX
    Runtime's ConvInteger returned 64 wrong outputs of 64 on an AVX2 CPU)."""
    rng = np.random.default_rng(20)
    x = rng.integers(0, 128, (1, 8, 10, 10)).astype(np.int8)
    w = rng.integers(0, 256, (1, 8, 3, 3)).astype(np.uint8)
    desc = descs.ConvolutionInteger(
        input_tensor=td(x), input_zero_point_tensor=None, filter_tensor=td(w), filter_zero_point_tensor=None,
        output_tensor=T("INT32", [1, 1, 8, 8]), strides=[1, 1], dilations=[1, 1], start_padding=[0, 0],
        end_padding=[0, 0], group_count=1)
    want = _python_conv(x, 0, w, np.zeros(1, np.int64), [8, 8], [1, 1], [1, 1], [0, 0], 1)
    assert_all(desc, {"InputTensor": x, "FilterTensor": w}, want)


def _requantized(acc: np.ndarray, scale: np.ndarray, sy: float, zy: int, out_dtype) -> tuple:
    """(want, exact quotient): acc * scale / sy exactly (Fractions of the float32 values), half to even, + zy,
    saturated."""
    info = np.iinfo(out_dtype)
    exact = np.vectorize(lambda a, s: float(Fraction(int(a)) * Fraction(float(s)) / Fraction(float(sy))))(acc, scale)
    want = np.vectorize(lambda v: min(max(_round_half_even(Fraction(v)) + zy, int(info.min)), int(info.max)))(exact)
    return want.astype(out_dtype), exact


@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_quantized_linear_matrix_multiply_every_type_pair_matches_exact_fractions(types):
    """NumPy int64 products, then Fractions for AScale * BScale / OutputScale (per-row A, per-column B)."""
    rng = np.random.default_rng(sum(map(len, types)) + 47)
    ta, tb = (np.dtype(t.lower()) for t in types)
    m, k, n = 6, 32, 5
    a, b = _extremes(ta, [2, m, k], rng), _extremes(tb, [2, k, n], rng)
    za, zb = _extremes(ta, [1, m, 1], rng), _extremes(tb, [1, 1, n], rng)
    sa = rng.uniform(0.001, 0.01, (1, m, 1)).astype(np.float32)
    sb = rng.uniform(0.001, 0.01, (1, 1, n)).astype(np.float32)
    sy, zy = np.float32(0.37), np.int8(3)
    f32 = lambda shape: T("FLOAT32", shape)  # noqa: E731
    desc = descs.QuantizedLinearMatrixMultiply(
        a_tensor=T(types[0], [2, m, k]), a_scale_tensor=f32([1, m, 1]), a_zero_point_tensor=T(types[0], [1, m, 1]),
        b_tensor=T(types[1], [2, k, n]), b_scale_tensor=f32([1, 1, n]), b_zero_point_tensor=T(types[1], [1, 1, n]),
        output_scale_tensor=f32([1, 1, 1]), output_zero_point_tensor=T("INT8", [1, 1, 1]),
        output_tensor=T("INT8", [2, m, n]))
    acc = (a.astype(np.int64) - za) @ (b.astype(np.int64) - zb)
    want, exact = _requantized(acc, np.broadcast_to(sa.astype(np.float32) * sb, acc.shape), sy, int(zy), np.int8)
    inputs = {"ATensor": a, "AScaleTensor": sa, "AZeroPointTensor": za, "BTensor": b, "BScaleTensor": sb,
              "BZeroPointTensor": zb, "OutputScaleTensor": np.full((1, 1, 1), sy),
              "OutputZeroPointTensor": np.full((1, 1, 1), zy)}
    assert_near_halves_only(run_all(desc, inputs), want, exact)


@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_quantized_linear_convolution_every_type_pair_matches_exact_fractions(types):
    """Per-channel filter scales and zero points, an INT32 bias, padding, strides, dilations and groups: Python
    loops for the product, Fractions for the requantization."""
    rng = np.random.default_rng(sum(map(len, types)) + 53)
    xs, ws, ys, strides, dilations, start, end, groups = GEOMETRIES[1]
    tx, tw = (np.dtype(t.lower()) for t in types)
    x, w = _extremes(tx, xs, rng), _extremes(tw, ws, rng)
    zx, zw = _extremes(tx, [1], rng)[0], _extremes(tw, [ws[0]], rng)
    bias = rng.integers(-5000, 5000, ws[0]).astype(np.int32)
    sx, sy = np.float32(0.02), np.float32(0.9)
    sw = rng.uniform(0.005, 0.02, ws[0]).astype(np.float32)
    zy = np.uint8(120)
    desc = _qlinear_conv_desc(x, w, np.zeros(ys, np.uint8), ws[0], True, start + end, strides, dilations, groups,
                              types=(types[0], types[1], "UINT8"))
    acc = _python_conv(x, int(zx), w, zw, ys[2:], strides, dilations, start, groups).astype(np.int64)
    acc = acc + bias.reshape(1, -1, 1, 1)
    scale = np.broadcast_to((sx * sw).reshape(1, -1, 1, 1), acc.shape)  # float32 InputScale * FilterScale
    want, exact = _requantized(acc, scale, sy, int(zy), np.uint8)
    inputs = {"InputTensor": x, "InputScaleTensor": np.full((1,) * 4, sx),
              "InputZeroPointTensor": np.full((1,) * 4, zx),
              "FilterTensor": w, "FilterScaleTensor": sw.reshape(1, -1, 1, 1),
              "FilterZeroPointTensor": zw.reshape(1, -1, 1, 1), "BiasTensor": bias.reshape(1, -1, 1, 1),
              "OutputScaleTensor": np.full((1,) * 4, sy), "OutputZeroPointTensor": np.full((1,) * 4, zy)}
    assert_near_halves_only(run_all(desc, inputs), want, exact)


@pytest.mark.parametrize("provider", ["cpu", "cuda", "dml"])
def test_which_onnx_nodes_compute_the_products(provider):
    """ONNX Runtime's CPU and CUDA providers get float64 MatMuls (exact by the 2**53 bound, whatever the CPU);
    only DirectML's provider gets MatMulInteger / ConvInteger, DirectML's own integer kernels."""
    from dmlops.backends.onnxruntime import build_model
    from dmlops.graph import GraphDesc
    from dmlops.ops import convolution_integer, quantized_linear_convolution, quantized_linear_matrix_multiply

    integer_ops = {"MatMulInteger", "ConvInteger", "QLinearConv", "QLinearMatMul", "MatMulIntegerToFloat"}
    for mod in (convolution_integer, quantized_linear_convolution, quantized_linear_matrix_multiply):
        model = build_model(GraphDesc.single(mod.SAMPLES[0].desc), provider == "cpu", provider)
        ops = {n.op_type for n in model.graph.node}
        if provider == "dml":
            assert ops & integer_ops, mod.__name__
        else:
            assert not ops & integer_ops and "MatMul" in ops, (mod.__name__, sorted(ops))
            casts = [onnx.helper.get_attribute_value(n.attribute[0]) for n in model.graph.node if n.op_type == "Cast"]
            assert onnx.TensorProto.DOUBLE in casts, mod.__name__


def _node(op, domain="", **attrs):
    return onnx.helper.make_node(op, [], [], domain=domain or None, **attrs)


def _pool_desc(x, y, window, strides, start, end, include, q=1, y_type=None):
    dims = x.ndim - 2
    qs = [1, q] + [1] * dims
    return descs.QuantizedLinearAveragePooling(
        input_tensor=td(x), input_scale_tensor=T("FLOAT32", qs), input_zero_point_tensor=T(NAME[x.dtype], qs),
        output_scale_tensor=T("FLOAT32", qs), output_zero_point_tensor=T(y_type or NAME[x.dtype], qs),
        output_tensor=T(y_type or NAME[x.dtype], list(y)), strides=strides, window_size=window, start_padding=start,
        end_padding=end, dilations=[1] * dims, include_padding=include)


@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_quantized_linear_average_pooling_matches_onnxruntime_qlinearaveragepool(dtype, include):
    """com.microsoft QLinearAveragePool (CPU) averages dequantized floats: one step apart only near halves. Measured:
    without padding in the divisor, 2 (uint8) and 1 (int8) of 144 elements lie within 2e-6 of a half (132.5000014,
    102.5000011: ONNX Runtime rounds as the exact value does; 7.50000008: dmlops does); both are float32 noise."""
    rng = np.random.default_rng(19 + include)
    t = np.dtype(dtype)
    x = rng.integers(int(np.iinfo(t).min), int(np.iinfo(t).max) + 1, (2, 3, 7, 6)).astype(t)
    sx, sy = np.float32(0.1), np.float32(0.07)
    zx, zy = t.type(3), t.type(-2 if dtype == "int8" else 5)
    window, strides, start, end = [3, 2], [2, 1], [1, 0], [1, 1]
    node = _node("QLinearAveragePool", "com.microsoft", kernel_shape=window, strides=strides, pads=start + end,
                 count_include_pad=int(include))
    want = ort_run(node, [x, np.array(sx), np.array(zx), np.array(sy), np.array(zy)], t)
    desc = _pool_desc(x, want.shape, window, strides, start, end, include)
    # exact: the window means by Python loops over the padded input (padding: a centred 0)
    padded = np.pad(x.astype(np.int64) - int(zx), [(0, 0), (0, 0), (1, 1), (0, 1)])
    valid = np.pad(np.ones(x.shape[2:], np.int64), [(1, 1), (0, 1)])
    exact = np.zeros(want.shape)
    for i, j in itertools.product(range(want.shape[2]), range(want.shape[3])):
        win = padded[:, :, i * 2:i * 2 + 3, j:j + 2]
        count = 6 if include else valid[i * 2:i * 2 + 3, j:j + 2].sum()
        exact[:, :, i, j] = win.sum(axis=(2, 3)) / count * float(sx) / float(sy)
    q = lambda v: np.full((1, 1, 1, 1), v)  # noqa: E731
    inputs = {"InputTensor": x, "InputScaleTensor": q(sx), "InputZeroPointTensor": q(zx), "OutputScaleTensor": q(sy),
              "OutputZeroPointTensor": q(zy)}
    steps = 0 if include else {"uint8": 2, "int8": 1}[dtype]
    assert_near_halves_only(run_all(desc, inputs), want, exact, steps)


def test_quantized_linear_average_pooling_matches_exact_fractions_per_channel():
    """Per-channel scales and zero points, a 5-D input, and Python Fractions as the oracle."""
    rng = np.random.default_rng(23)
    x = rng.integers(0, 256, (1, 2, 3, 4, 5)).astype(np.uint8)
    window, strides, start, end = [2, 2, 3], [1, 2, 1], [0, 1, 1], [1, 0, 1]
    ys = [1, 2, 3, 2, 5]
    sx, sy = np.array([0.05, 0.11], np.float32), np.array([0.2, 0.13], np.float32)
    zx, zy = np.array([120, 131], np.uint8), np.array([128, 100], np.uint8)
    desc = _pool_desc(x, ys, window, strides, start, end, False, q=2)
    want = np.zeros(ys, np.uint8)
    exact = np.zeros(ys)
    for c in range(2):
        for pos in itertools.product(*map(range, ys[2:])):
            total, count = 0, 0
            for k in itertools.product(*map(range, window)):
                p = [o * s - a + kk for o, s, a, kk in zip(pos, strides, start, k)]
                if all(0 <= pi < n for pi, n in zip(p, x.shape[2:])):
                    total += int(x[(0, c, *p)]) - int(zx[c])
                    count += 1
            v = Fraction(total, count) * Fraction(float(sx[c])) / Fraction(float(sy[c]))
            exact[(0, c, *pos)] = float(v)
            want[(0, c, *pos)] = min(max(_round_half_even(v) + int(zy[c]), 0), 255)
    r = lambda v: v.reshape(1, 2, 1, 1, 1)  # noqa: E731
    inputs = {"InputTensor": x, "InputScaleTensor": r(sx), "InputZeroPointTensor": r(zx), "OutputScaleTensor": r(sy),
              "OutputZeroPointTensor": r(zy)}
    assert_near_halves_only(run_all(desc, inputs), want, exact)


# ---------------------------------------------------------------------------------------------- integer to float
def _python_integer_to_float(a, za, sa, b, zb, sb, bias):
    """DirectML's order for MATRIX_MULTIPLY_INTEGER_TO_FLOAT (FLOAT32), one scalar float32 operation at a time:
    (float32(a) - float32(za)) * sa, the same for b, the K products added in k order, then the bias."""
    f = np.float32
    m, k = a.shape
    n = b.shape[1]
    y = np.zeros((m, n), f)
    for i, j in itertools.product(range(m), range(n)):
        total = None
        for kk in range(k):
            av = f(f(f(a[i, kk]) - f(za[i, 0])) * f(sa[i, 0]))
            bv = f(f(f(b[kk, j]) - f(zb[0, j])) * f(sb[0, j]))
            p = f(av * bv)
            total = p if total is None else f(total + p)
        y[i, j] = f(total + f(bias[i, j]))
    return y


@pytest.mark.parametrize("name", ["INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32"])
def test_matrix_multiply_integer_to_float_matches_python_loops(name):
    """Every data type over its full range (UINT32 4294967295 included: nothing wraps), per-row A and per-column B
    scales and zero points, a bias: scalar float32 loops are the oracle."""
    rng = np.random.default_rng(29)
    dtype = np.dtype(name.lower())
    info = np.iinfo(dtype)
    m, k, n = 3, 6, 4
    ints = lambda *s: _extremes(dtype, s, rng)  # noqa: E731
    a, b, za, zb = ints(m, k), ints(k, n), ints(m, 1), ints(1, n)
    a[0, 0] = info.max
    sa, sb = rng.uniform(0.5, 2, (m, 1)).astype(np.float32), rng.uniform(2**-20, 2**-18, (1, n)).astype(np.float32)
    bias = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    want = _python_integer_to_float(a, za, sa, b, zb, sb, bias)
    desc = descs.MatrixMultiplyIntegerToFloat(
        a_tensor=T(name, [m, k]), a_scale_tensor=T("FLOAT32", [m, 1]), a_zero_point_tensor=T(name, [m, 1]),
        b_tensor=T(name, [k, n]), b_scale_tensor=T("FLOAT32", [1, n]), b_zero_point_tensor=T(name, [1, n]),
        bias_tensor=T("FLOAT32", [m, n]), output_tensor=T("FLOAT32", [m, n]))
    inputs = {"ATensor": a, "AScaleTensor": sa, "AZeroPointTensor": za, "BTensor": b, "BScaleTensor": sb,
              "BZeroPointTensor": zb, "BiasTensor": bias}
    assert_all(desc, inputs, want, name)


def test_matrix_multiply_integer_to_float_adds_in_k_order_across_onnx_chunks():
    """K = 600 with M = N = 96: ONNX adds the products in CumSum chunks (2**22 elements each, here 455 of K); the sum
    stays the sequential one (scalar loops), which a float32 GEMM's tiled order would not give."""
    from dmlops.ops import matrix_multiply_integer_to_float as mmitf

    rng = np.random.default_rng(31)
    m, k, n = 96, 600, 96
    assert mmitf.CHUNK_ELEMENTS // (m * n) < k
    a, b = rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (k, n)).astype(np.int8)
    sa, sb = np.full((1, 1), 0.1, np.float32), np.full((1, 1), 0.3, np.float32)
    desc = descs.MatrixMultiplyIntegerToFloat(
        a_tensor=T("INT8", [m, k]), a_scale_tensor=T("FLOAT32", [1, 1]), a_zero_point_tensor=None,
        b_tensor=T("INT8", [k, n]), b_scale_tensor=T("FLOAT32", [1, 1]), b_zero_point_tensor=None, bias_tensor=None,
        output_tensor=T("FLOAT32", [m, n]))
    f = np.float32
    da, db = (a.astype(f) * sa[0, 0]).astype(f), (b.astype(f) * sb[0, 0]).astype(f)
    want = da[:, 0:1] * db[0:1, :]
    for kk in range(1, k):  # vectorized over M x N, one k after the other: the loops' order
        want = want + da[:, kk:kk + 1] * db[kk:kk + 1, :]
    gemm = da @ db
    assert np.any(gemm != want)  # the order matters on these inputs
    assert_all(desc, {"ATensor": a, "AScaleTensor": sa, "BTensor": b, "BScaleTensor": sb}, want)


# ---------------------------------------------------------------------------------------------- shape rules
def _errors():
    from dmlops.ops import (convolution_integer, matrix_multiply_integer, matrix_multiply_integer_to_float,
                            quantized_linear_matrix_multiply)

    mods = (convolution_integer, matrix_multiply_integer, matrix_multiply_integer_to_float,
            quantized_linear_matrix_multiply)
    return [pytest.param(desc, message, id=f"{desc.OPERATOR_TYPE}-{name}") for mod in mods
            for name, desc, message in mod.ERRORS]


@pytest.mark.parametrize("desc,message", _errors())
def test_the_descriptors_directml_refused_are_refused_by_name(desc, message):
    """Each module's ERRORS: a sample DirectML refused (the vectors' sample_* cases), kept as the error it is."""
    import re

    with pytest.raises(dmlops.DmlOpsError, match=re.escape(message)):
        dmlops.validate(desc, FeatureLevel.latest())


def test_a_per_tensor_zero_point_may_drop_leading_ones_but_not_a_per_channel_one():
    x, w, y = T("UINT8", [1, 2, 3, 3]), T("UINT8", [2, 2, 2, 2]), T("INT32", [1, 2, 2, 2])

    def conv(zx, zw):
        return descs.ConvolutionInteger(
            input_tensor=x, input_zero_point_tensor=T("UINT8", zx), filter_tensor=w,
            filter_zero_point_tensor=T("UINT8", zw), output_tensor=y, strides=[1, 1], dilations=[1, 1],
            start_padding=[0, 0], end_padding=[0, 0], group_count=1)

    assert dmlops.problems(conv([1, 1, 1], [1, 1, 1]), FeatureLevel.latest()) == []
    assert dmlops.problems(conv([1, 1, 1, 1], [1, 2, 1, 1]), FeatureLevel.latest()) == []
    with pytest.raises(dmlops.DmlOpsError, match=r"CONVOLUTION_INTEGER\.FilterZeroPointTensor: Sizes \[1, 2, 1\] "
                                                 r"hold 2 zero points in 3 dimensions; a per-channel"):
        dmlops.validate(conv([1, 1, 1], [1, 2, 1]), FeatureLevel.latest())


def test_per_channel_zero_point_of_the_wrong_length_is_refused():
    desc = descs.ConvolutionInteger(
        input_tensor=T("UINT8", [1, 2, 4, 4]), input_zero_point_tensor=T("UINT8", [1, 1, 1, 1]),
        filter_tensor=T("UINT8", [3, 2, 2, 2]), filter_zero_point_tensor=T("UINT8", [1, 2, 1, 1]),
        output_tensor=T("INT32", [1, 3, 3, 3]), strides=[1, 1], dilations=[1, 1], start_padding=[0, 0],
        end_padding=[0, 0], group_count=1)
    with pytest.raises(dmlops.DmlOpsError, match=r"CONVOLUTION_INTEGER\.FilterZeroPointTensor: Sizes \[1, 2, 1, 1\] "
                                                 r"match neither \{1, 1, 1, 1\} \(per tensor\) nor "
                                                 r"\{1, OutputChannelCount, 1, 1\} = \[1, 3, 1, 1\] \(per channel\)"):
        dmlops.validate(desc, FeatureLevel.latest())


def test_quantized_convolution_bias_must_be_per_output_channel():
    x, w, y = np.zeros((1, 2, 4, 4), np.uint8), np.zeros((3, 2, 2, 2), np.uint8), np.zeros((1, 3, 3, 3), np.uint8)
    desc = _qlinear_conv_desc(x, w, y, bias=True).replace(bias_tensor=T("INT32", [1, 2, 1, 1]))
    with pytest.raises(dmlops.DmlOpsError, match=r"QUANTIZED_LINEAR_CONVOLUTION\.BiasTensor: Sizes \[1, 2, 1, 1\] do "
                                                 r"not match \{1, OutputChannelCount, 1, 1\} = \[1, 3, 1, 1\]"):
        dmlops.validate(desc, FeatureLevel.latest())
