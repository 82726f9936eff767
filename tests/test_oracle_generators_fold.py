"""FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX, DIAGONAL_MATRIX1, CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT, FOLD and UNFOLD
against independent implementations, on every dmlops backend (reference, onnxruntime, torch).

Oracles: ONNX's node test cases (regenerated in memory: CumSum, CumProd (opset 26), EyeLike, Range, Trilu,
Col2Im) and PyTorch (torch.arange, torch.eye, torch.triu, torch.cumsum / torch.cumprod with torch.flip,
torch.nn.functional.unfold / fold, and an N-dimensional unfold built from Tensor.unfold, whose autograd adjoint
is the N-dimensional fold). FOLD and UNFOLD (feature level 6.4) have no DirectML vectors: these oracles are all
that checks them.
"""
import numpy as np
import pytest

import dmlops
from dmlops.types import TensorDesc

from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
INT_MAX, INT_MIN = 2**31 - 1, -2**31


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def assert_exact(got, want, what):
    """Equal values, dtypes and shapes (NaN equal to NaN)."""
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    np.testing.assert_array_equal(got, want, err_msg=what)


def assert_all_exact(desc, inputs, want):
    for backend, out in run_all(desc, inputs).items():
        assert_exact(out["OutputTensor"], want, backend)


# ============================================================ ONNX node cases
NODE = generated(["cumsum", "cumprod", "eyelike", "rangeop", "trilu", "col2im"])


def _node_cases(op_type, skip=()):
    return [pytest.param(c, id=name) for name, c in sorted(NODE.items())
            if c.node.op_type == op_type and c.inputs is not None and name not in skip]


def _scan_desc(cls, x, axis, reverse, exclusive, flag):
    t = TensorDesc(dmlops.DataType.from_numpy(x.dtype).name, list(x.shape))
    return cls(input_tensor=t, output_tensor=t, axis=axis % x.ndim,
               axis_direction="DML_AXIS_DIRECTION_DECREASING" if reverse else "DML_AXIS_DIRECTION_INCREASING",
               **{flag: bool(exclusive)})


@pytest.mark.parametrize("case", _node_cases("CumSum") + _node_cases("CumProd"))
def test_scans_match_onnx_node_cases(case):
    x, axis = case.inputs
    want = case.outputs[0]
    if x.dtype == np.float64:  # small integers: float32 holds the inputs and every partial result
        x, want = x.astype(np.float32), want.astype(np.float32)
    cls, flag = ((dmlops.CumulativeSummation, "has_exclusive_sum") if case.node.op_type == "CumSum"
                 else (dmlops.CumulativeProduct, "has_exclusive_product"))
    desc = _scan_desc(cls, x, int(axis), attribute(case.node, "reverse", 0), attribute(case.node, "exclusive", 0),
                      flag)
    assert_all_exact(desc, {"InputTensor": x}, want)


@pytest.mark.parametrize("case", _node_cases("EyeLike"))
def test_diagonal_matrices_match_onnx_eyelike(case):
    from onnx import helper

    x = case.inputs[0]
    want = case.outputs[0]
    k = attribute(case.node, "k", 0)
    data_type = dmlops.DataType.from_numpy(want.dtype).name
    if data_type == "FLOAT64":
        pytest.skip("DIAGONAL_MATRIX's Value is a 32-bit FLOAT; FLOAT64 is checked against torch.eye below")
    out = TensorDesc(data_type, list(x.shape))
    assert helper.tensor_dtype_to_np_dtype(attribute(case.node, "dtype", helper.np_dtype_to_tensor_dtype(x.dtype))) \
        == want.dtype
    assert_all_exact(dmlops.DiagonalMatrix(output_tensor=out, offset=k, value=1.0), {}, want)
    one = dmlops.DiagonalMatrix1(input_tensor=None, output_tensor=out, value_data_type=data_type, value=1,
                                 diagonal_fill_begin=k, diagonal_fill_end=k + 1)
    assert_all_exact(one, {}, want)


@pytest.mark.parametrize("case", _node_cases("Range", skip={"test_range_bfloat16_type_positive_delta"}))
def test_fill_value_sequence_matches_onnx_range(case):
    start, limit, delta = (a.item() for a in case.inputs)
    want = case.outputs[0]
    data_type = dmlops.DataType.from_numpy(want.dtype).name
    desc = dmlops.FillValueSequence(output_tensor=TensorDesc(data_type, [want.size]), value_data_type=data_type,
                                    value_start=start, value_delta=delta)
    assert_all_exact(desc, {}, want)


@pytest.mark.parametrize("case", _node_cases("Trilu", skip={"test_tril_zero", "test_triu_zero"}))
def test_diagonal_matrix1_zeroes_a_triangle_like_onnx_trilu(case):
    # triu(k) keeps x - y >= k: Value 0 on the band [INT_MIN, k); tril(k) keeps x - y <= k: Value 0 on [k + 1,
    # INT_MAX). DIAGONAL_MATRIX1 takes 2 to 4 dimensions, as Trilu's batches.
    x = case.inputs[0]
    k = int(case.inputs[1]) if len(case.inputs) > 1 else 0
    begin, end = (INT_MIN, k) if attribute(case.node, "upper", 1) else (k + 1, INT_MAX)
    t = TensorDesc("INT64", list(x.shape))
    desc = dmlops.DiagonalMatrix1(input_tensor=t, output_tensor=t, value_data_type="INT64", value=0,
                                  diagonal_fill_begin=begin, diagonal_fill_end=end)
    assert_all_exact(desc, {"InputTensor": x}, case.outputs[0])


@pytest.mark.parametrize("case", _node_cases("Col2Im"))
def test_fold_matches_onnx_col2im(case):
    cols, image_shape, block_shape = case.inputs
    dims = len(image_shape)
    pads = attribute(case.node, "pads", [0] * 2 * dims)
    want = case.outputs[0]
    desc = dmlops.Fold(input_tensor=TensorDesc("FLOAT32", list(cols.shape)),
                       output_tensor=TensorDesc("FLOAT32", list(want.shape)), window_sizes=list(block_shape),
                       strides=attribute(case.node, "strides", [1] * dims),
                       dilations=attribute(case.node, "dilations", [1] * dims),
                       start_padding=pads[:dims], end_padding=pads[dims:])
    for backend, out in run_all(desc, {"InputTensor": cols}).items():
        np.testing.assert_allclose(out["OutputTensor"], want, rtol=0, atol=0, err_msg=backend)


# ============================================================ torch oracles
SCAN_TYPES = ("FLOAT32", "FLOAT16", "INT32", "UINT32", "INT64", "UINT64")


def _torch_scan(fn, x, axis, reverse, exclusive):
    """torch.cumsum / torch.cumprod with flip for DECREASING and a shift (identity first) for the exclusive form."""
    t = torch.from_numpy(x)
    if reverse:
        t = torch.flip(t, [axis])
    r = fn(t, axis)
    if exclusive:
        identity = torch.full_like(r.narrow(axis, 0, 1), 1 if fn is torch.cumprod else 0)
        r = torch.cat([identity, r.narrow(axis, 0, r.shape[axis] - 1)], axis)
    if reverse:
        r = torch.flip(r, [axis])
    return r.numpy()


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("data_type", SCAN_TYPES)
@pytest.mark.parametrize("op", ["sum", "product"])
def test_scans_match_torch_cumsum_and_cumprod(op, data_type, reverse, exclusive):
    rng = np.random.default_rng(SCAN_TYPES.index(data_type) * 8 + 4 * reverse + 2 * exclusive + (op == "sum"))
    rank = int(rng.integers(1, 6))
    shape = [int(n) for n in rng.integers(1, 6, size=rank)]
    axis = int(rng.integers(0, rank))
    dtype = np.dtype(data_type.lower())
    # Small integers keep every float partial result exact, so the oracle's order (float64 on the CPU) does not
    # matter; integer types get the full range and wrap.
    if dtype.kind == "f":
        x = rng.integers(-3, 4, size=shape).astype(dtype) if op == "product" else \
            rng.integers(-50, 50, size=shape).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    cls, flag, fn = ((dmlops.CumulativeSummation, "has_exclusive_sum", torch.cumsum) if op == "sum"
                     else (dmlops.CumulativeProduct, "has_exclusive_product", torch.cumprod))
    desc = _scan_desc(cls, x, axis, reverse, exclusive, flag)
    oracle_x = x.view(np.int64) if dtype == np.uint64 else x.astype(np.int64) if dtype == np.uint32 else x
    want = _torch_scan(fn, oracle_x, axis, reverse, exclusive)
    if dtype.kind == "u":  # torch's int64 wraps the same bits
        want = want.view(np.uint64) if dtype == np.uint64 else want.astype(dtype)
    want = want.astype(dtype)  # float16: products of up to 5 factors in [-3, 3] (at most 243) are exact
    assert_all_exact(desc, {"InputTensor": x}, want)


def test_float32_sums_are_sequential_where_torch_cumsum_accumulates_in_float64():
    # The order DirectML's vectors show (dmlops/ops/_scan.py): one float32 add at a time. torch.cumsum on the CPU
    # gives the float64 sum rounded once; dmlops is within a few float32 steps of it and equal to a float32 loop.
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 200)) * 10).astype(np.float32)
    desc = _scan_desc(dmlops.CumulativeSummation, x, 1, False, False, "has_exclusive_sum")
    loop = np.empty_like(x)
    acc = np.zeros(3, np.float32)
    for i in range(x.shape[1]):
        acc = acc + x[:, i]
        loop[:, i] = acc
    f64 = torch.cumsum(torch.from_numpy(x.astype(np.float64)), 1).numpy()
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], loop, backend)
        np.testing.assert_allclose(out["OutputTensor"], f64, rtol=0, atol=2e-4, err_msg=backend)
    assert (loop != f64.astype(np.float32)).any()  # the orders do differ


FILL_TYPES = ("FLOAT32", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")


@pytest.mark.parametrize("data_type", FILL_TYPES)
def test_fill_value_sequence_matches_torch_arange(data_type):
    rng = np.random.default_rng(FILL_TYPES.index(data_type))
    shape = [int(n) for n in rng.integers(1, 5, size=3)]
    n = int(np.prod(shape))
    dtype = np.dtype(data_type.lower())
    if dtype.kind == "f":
        start, delta = -3.5, 0.25  # every value exact: the oracle's float64 arithmetic agrees
        want = torch.arange(n, dtype=torch.float64).mul(delta).add(start).to(torch.float32).numpy()
    else:
        info = np.iinfo(dtype)
        start = int(info.min) + 3 if dtype.kind == "i" else 1
        delta = max(1, min(int(info.max) // (2 * n), 7))
        want = torch.arange(start, start + n * delta, delta, dtype=torch.int64).numpy().astype(dtype)
    desc = dmlops.FillValueSequence(output_tensor=TensorDesc(data_type, shape), value_data_type=data_type,
                                    value_start=start, value_delta=delta)
    assert_all_exact(desc, {}, want.reshape(shape))


DIAG_TYPES = ("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")


@pytest.mark.parametrize("data_type", DIAG_TYPES)
@pytest.mark.parametrize("offset", [-5, -1, 0, 2, 7])
def test_diagonal_matrix_matches_torch_eye(offset, data_type):
    rng = np.random.default_rng(abs(offset) * 20 + DIAG_TYPES.index(data_type))
    rank = int(rng.integers(2, 5))
    shape = [int(n) for n in rng.integers(1, 6, size=rank)]
    h, w = shape[-2:]
    # A square torch.eye cut so that its diagonal i = j is x - y = offset: rows from y0, columns from x0, with
    # y0 - x0 = offset.
    y0, x0 = max(offset, 0), max(-offset, 0)
    eye = torch.eye(max(h + y0, w + x0), dtype=torch.float64)[y0:y0 + h, x0:x0 + w]
    dtype = np.dtype(data_type.lower())
    want = np.broadcast_to((eye.numpy() * 3).astype(dtype), shape)
    desc = dmlops.DiagonalMatrix(output_tensor=TensorDesc(data_type, shape), offset=offset, value=3.0)
    assert_all_exact(desc, {}, np.ascontiguousarray(want))


@pytest.mark.parametrize("data_type", DIAG_TYPES)
@pytest.mark.parametrize("band", [(0, 1), (-2, 3), (3, -1), (1, 1), (INT_MIN, 0), (2, INT_MAX), (-7, -3)])
def test_diagonal_matrix1_matches_torch_triu(band, data_type):
    begin, end = band
    rng = np.random.default_rng(DIAG_TYPES.index(data_type))
    rank = int(rng.integers(2, 5))
    shape = [int(n) for n in rng.integers(1, 6, size=rank)]
    dtype = np.dtype(data_type.lower())
    if dtype.kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
        value = -1.5
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        value = int(info.max)
    ones = torch.ones(shape[-2:], dtype=torch.bool)
    clamp = lambda k: max(-64, min(64, k))  # torch.triu takes an int64 diagonal; the matrices are small
    in_band = torch.triu(ones, clamp(begin)) & ~torch.triu(ones, clamp(end))  # begin <= x - y < end
    if begin > end:
        in_band = ~(torch.triu(ones, clamp(end)) & ~torch.triu(ones, clamp(begin)))  # the band inverted
    mask = np.broadcast_to(in_band.numpy(), shape)
    want = np.where(mask, np.asarray(value, dtype), x)
    t = TensorDesc(data_type, shape)
    desc = dmlops.DiagonalMatrix1(input_tensor=t, output_tensor=t, value_data_type=data_type, value=value,
                                  diagonal_fill_begin=begin, diagonal_fill_end=end)
    assert_all_exact(desc, {"InputTensor": x}, want)
    alone = dmlops.DiagonalMatrix1(input_tensor=None, output_tensor=t, value_data_type=data_type, value=value,
                                   diagonal_fill_begin=begin, diagonal_fill_end=end)
    assert_all_exact(alone, {}, np.where(mask, np.asarray(value, dtype), np.zeros((), dtype)))


# ---- FOLD / UNFOLD
def _window_case(rng, dims):
    """Random windows over a random image: (image Sizes, WindowSizes, Strides, Dilations, StartPadding, EndPadding)
    (smaller images beyond 3 spatial dimensions)."""
    high = 7 if dims <= 3 else 4
    while True:
        spatial = [int(n) for n in rng.integers(1, high, size=dims)]
        window = [int(n) for n in rng.integers(1, 4, size=dims)]
        strides = [int(n) for n in rng.integers(1, 3, size=dims)]
        dilations = [int(n) for n in rng.integers(1, 3, size=dims)]
        start = [int(n) for n in rng.integers(0, 3, size=dims)]
        end = [int(n) for n in rng.integers(0, 3, size=dims)]
        if all(s + a + b >= d * (k - 1) + 1 for s, a, b, d, k in zip(spatial, start, end, dilations, window)):
            n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
            return [n, c] + spatial, window, strides, dilations, start, end


def _blocks(image, window, strides, dilations, start, end):
    return [(s + a + b - d * (k - 1) - 1) // t + 1
            for s, a, b, d, k, t in zip(image[2:], start, end, dilations, window, strides)]


def torch_unfold_nd(x, window, strides, dilations, start, end):
    """UNFOLD for any number of spatial dimensions from Tensor.unfold: pad, then per spatial dimension take windows
    of the dilated extent every stride and keep every dilation-th element; columns channel-major, then window
    positions, then blocks, all row-major."""
    dims = len(window)
    pads = []
    for a, b in zip(reversed(start), reversed(end)):
        pads += [a, b]
    t = F.pad(x, pads)
    for d in range(dims):
        extent = dilations[d] * (window[d] - 1) + 1
        t = t.unfold(2 + d, extent, strides[d])[..., ::dilations[d]]  # blocks stay at 2 + d, window appended last
    n, c = x.shape[:2]
    blocks = list(t.shape[2:2 + dims])
    # t: [N, C, blocks..., window...] -> [N, C, window..., blocks...]
    order = [0, 1] + list(range(2 + dims, 2 + 2 * dims)) + list(range(2, 2 + dims))
    return t.permute(order).reshape(n, c * int(np.prod(window)), int(np.prod(blocks)))


def _unfold_desc(data_type, image, window, strides, dilations, start, end):
    blocks = _blocks(image, window, strides, dilations, start, end)
    cols = [image[0], image[1] * int(np.prod(window)), int(np.prod(blocks))]
    return dmlops.Unfold(input_tensor=TensorDesc(data_type, image), output_tensor=TensorDesc(data_type, cols),
                         window_sizes=window, strides=strides, dilations=dilations, start_padding=start,
                         end_padding=end), cols


def _fold_desc(data_type, image, window, strides, dilations, start, end):
    blocks = _blocks(image, window, strides, dilations, start, end)
    cols = [image[0], image[1] * int(np.prod(window)), int(np.prod(blocks))]
    return dmlops.Fold(input_tensor=TensorDesc(data_type, cols), output_tensor=TensorDesc(data_type, image),
                       window_sizes=window, strides=strides, dilations=dilations, start_padding=start,
                       end_padding=end), cols


def _values(rng, data_type, shape):
    dtype = np.dtype(data_type.lower())
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


ALL_TYPES = ("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")


@pytest.mark.parametrize("seed", range(6))
def test_unfold_matches_torch_functional_unfold_in_two_dimensions(seed):
    rng = np.random.default_rng(100 + seed)
    image, window, strides, dilations, start, end = _window_case(rng, 2)
    desc, _ = _unfold_desc("FLOAT32", image, window, strides, dilations, start, end)
    x = _values(rng, "FLOAT32", image)
    padded = F.pad(torch.from_numpy(x), [start[1], end[1], start[0], end[0]])
    want = F.unfold(padded, window, dilation=dilations, stride=strides).numpy()
    assert_all_exact(desc, {"InputTensor": x}, want)


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("dims", [1, 2, 3, 4, 6])
def test_unfold_matches_tensor_unfold_in_any_dimensions(dims, data_type):
    rng = np.random.default_rng(200 + dims * 20 + ALL_TYPES.index(data_type))
    image, window, strides, dilations, start, end = _window_case(rng, dims)
    desc, _ = _unfold_desc(data_type, image, window, strides, dilations, start, end)
    x = _values(rng, data_type, image)
    held = x.view(np.int64) if x.dtype == np.uint64 else x.astype(np.int64) if x.dtype.kind == "u" else x
    want = torch_unfold_nd(torch.from_numpy(held), window, strides, dilations, start, end).numpy()
    want = want.view(np.uint64) if x.dtype == np.uint64 else want.astype(x.dtype)
    assert_all_exact(desc, {"InputTensor": x}, want)


@pytest.mark.parametrize("seed", range(6))
def test_fold_matches_torch_functional_fold_bit_for_bit(seed):
    # Random float32 values with overlapping windows: torch's col2im adds in window-position order from 0, as the
    # dmlops lowerings do, so even the last bits agree.
    rng = np.random.default_rng(300 + seed)
    image, window, strides, dilations, start, end = _window_case(rng, 2)
    desc, cols = _fold_desc("FLOAT32", image, window, strides, dilations, start, end)
    x = _values(rng, "FLOAT32", cols)
    padded = [s + a + b for s, a, b in zip(image[2:], start, end)]
    full = F.fold(torch.from_numpy(x), padded, window, dilation=dilations, stride=strides)
    want = full[:, :, start[0]:start[0] + image[2], start[1]:start[1] + image[3]].contiguous().numpy()
    assert_all_exact(desc, {"InputTensor": x}, want)


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("dims", [1, 2, 3, 5])
def test_fold_is_the_adjoint_of_unfold_in_any_dimensions(dims, data_type):
    # <unfold(x), cols> = <x, fold(cols)>: fold(cols) is the gradient of the first with respect to x. Small integer
    # values keep every float sum exact in every type (and far from integer wrap-around).
    rng = np.random.default_rng(400 + dims * 20 + ALL_TYPES.index(data_type))
    image, window, strides, dilations, start, end = _window_case(rng, dims)
    desc, cols = _fold_desc(data_type, image, window, strides, dilations, start, end)
    x = rng.integers(0, 9, size=cols).astype(np.dtype(data_type.lower()))
    probe = torch.zeros(image, dtype=torch.float64, requires_grad=True)
    inner = (torch_unfold_nd(probe, window, strides, dilations, start, end) * torch.from_numpy(x.astype(np.float64))).sum()
    inner.backward()
    want = probe.grad.numpy().astype(x.dtype)
    assert_all_exact(desc, {"InputTensor": x}, want)


def test_fold_wraps_integer_sums_and_the_first_term_of_minus_zero_is_plus_zero():
    # Window 2, stride 1 over 3 elements: the middle output is block 0's position 1 plus block 1's position 0.
    t = lambda dt, s: TensorDesc(dt, s)
    desc = dmlops.Fold(input_tensor=t("INT8", [1, 2, 2]), output_tensor=t("INT8", [1, 1, 3]), window_sizes=[2],
                       strides=[1], dilations=[1], start_padding=[0], end_padding=[0])
    assert_all_exact(desc, {"InputTensor": np.array([[[1, 127], [100, 2]]], np.int8)},
                     np.array([[[1, -29, 2]]], np.int8))  # 127 + 100 = 227 -> -29
    desc = desc.replace(input_tensor=t("FLOAT32", [1, 2, 2]), output_tensor=t("FLOAT32", [1, 1, 3]))
    want = F.fold(torch.tensor([[[-0.0, -0.0], [-0.0, -0.0]]]).reshape(1, 2, 2), (1, 3), (1, 2)).reshape(1, 1, 3)
    assert_all_exact(desc, {"InputTensor": np.full((1, 2, 2), -0.0, np.float32)}, want.numpy())
    assert not np.signbit(want.numpy()).any()
