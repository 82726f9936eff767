"""MAX_POOLING, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD against independent oracles, on every backend.

Oracles:
* ONNX's node test cases (maxpool: onnx's own generators): each MaxPool node becomes a DML desc (kernel_shape,
  strides, dilations, pads as Start/EndPadding; auto_pad and ceil_mode as the explicit padding that gives the
  case's output size; 1-D as a height-1 2-D) and the stored outputs, Indices included (ONNX counts them over the
  whole tensor, as DirectML does), are the expected values, exactly.
* torch.nn.functional.max_pool2d / max_pool3d with return_indices (torch's per-plane indices plus the plane's
  offset), on random data without NaN, where torch's semantics and DirectML's agree.
* torch autograd through max_pool2d / max_pool3d (and aten.max_pool2d_with_indices_backward) for MAX_POOLING_GRAD.
Plus the places where dmlops follows DirectML away from those oracles (NaN passed over, padding-only windows).
"""
import numpy as np
import pytest

import dmlops
from dmlops.descs import MaxPooling, MaxPooling1, MaxPooling2, MaxPoolingGrad
from dmlops.sample import td
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
DATA_TYPES = {np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16", np.dtype(np.uint8): "UINT8",
              np.dtype(np.int8): "INT8"}
LOWEST = float(np.finfo(np.float32).min)


def _run_all(desc, inputs):
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def _pool_desc(cls, data_type, in_sizes, out_sizes, window, strides, start, end, dilations=None, index_type=None):
    kw = dict(input_tensor=td(data_type, in_sizes), output_tensor=td(data_type, out_sizes), strides=strides,
              window_size=window, start_padding=start, end_padding=end)
    if cls is not MaxPooling:
        kw["output_indices_tensor"] = td(index_type, out_sizes) if index_type else None
    if cls is MaxPooling2:
        kw["dilations"] = dilations
    return cls(**kw)


# ------------------------------------------------------------------------------ ONNX node test cases
CASES = generated(["maxpool"])


def _onnx_geometry(case):
    """(input, window, strides, dilations, start, end, one_d) in DML terms; end padding from the output size."""
    node, x = case.node, case.inputs[0]
    y = case.outputs[0]
    n = x.ndim - 2
    k = list(attribute(node, "kernel_shape"))
    s = list(attribute(node, "strides", [1] * n))
    d = list(attribute(node, "dilations", [1] * n))
    pads = list(attribute(node, "pads", [0] * (2 * n)))
    auto = attribute(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    start = pads[:n]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        totals = [max((-(-size // st) - 1) * st + (kk - 1) * dd + 1 - size, 0)
                  for size, kk, st, dd in zip(x.shape[2:], k, s, d)]
        start = [t // 2 if auto == "SAME_UPPER" else t - t // 2 for t in totals]
    # ceil_mode and auto_pad: the end padding that makes DML's floor formula give the case's output size (the
    # extra windows end in padding that never wins, as ONNX's do).
    end = [max((o - 1) * st + (kk - 1) * dd + 1 - size - a, 0)  # 0: floor drops the unused rows anyway
           for o, st, kk, dd, size, a in zip(y.shape[2:], s, k, d, x.shape[2:], start)]
    one_d = n == 1
    if one_d:
        x = x.reshape(x.shape[0], x.shape[1], 1, x.shape[2])
        k, s, d, start, end = [1] + k, [1] + s, [1] + d, [0] + start, [0] + end
    return x, k, s, d, start, end, one_d


@pytest.mark.parametrize("name", sorted(CASES))
def test_onnx_node_case(name):
    case = CASES[name]
    x, k, s, d, start, end, one_d = _onnx_geometry(case)
    want = case.outputs[0]
    out_sizes = list(want.shape) if not one_d else [want.shape[0], want.shape[1], 1, want.shape[2]]
    with_indices = len(case.outputs) > 1
    dt = DATA_TYPES[x.dtype]
    classes = [MaxPooling2] + ([MaxPooling, MaxPooling1] if set(d) == {1} else [])
    for cls in classes:
        desc = _pool_desc(cls, dt, x.shape, out_sizes, k, s, start, end, d,
                          "UINT64" if with_indices and cls is not MaxPooling else None)
        assert dmlops.problems(desc, dmlops.FeatureLevel.latest()) == []
        for b, got in _run_all(desc, {"InputTensor": x}).items():
            np.testing.assert_array_equal(got["OutputTensor"].reshape(want.shape), want, err_msg=f"{name} {cls} {b}")
            if with_indices and cls is not MaxPooling:
                indices = got["OutputIndicesTensor"].astype(np.int64).reshape(want.shape)
                if attribute(case.node, "storage_order", 0) == 1:  # ONNX: column-major within each plane
                    h, w = x.shape[2:]
                    plane, rest = np.divmod(indices, h * w)
                    indices = plane * h * w + (rest % w) * h + rest // w
                np.testing.assert_array_equal(indices, case.outputs[1], err_msg=f"{name} {cls} {b} indices")


def test_every_onnx_case_was_mapped():
    assert len(CASES) >= 19 and all(c.inputs is not None for c in CASES.values())


# ------------------------------------------------------------------------------ torch max_pool with indices
TORCH_GEOMETRIES = [
    # (input sizes, window, strides, padding, dilation)
    ((2, 3, 7, 6), (3, 2), (2, 1), (1, 1), (1, 1)),
    ((1, 2, 9, 8), (3, 3), (1, 2), (1, 0), (2, 3)),
    ((2, 1, 5, 5), (2, 2), (2, 2), (0, 0), (1, 1)),
    ((1, 2, 5, 6, 4), (2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2)),
]


def _torch_pool(x, k, s, p, d):
    fn = F.max_pool2d if x.ndim == 4 else F.max_pool3d
    y, i = fn(torch.from_numpy(x), k, s, p, d, return_indices=True)
    plane = int(np.prod(x.shape[2:]))
    base = (np.arange(x.shape[0] * x.shape[1]) * plane).reshape(x.shape[0], x.shape[1], *([1] * (x.ndim - 2)))
    return y.numpy(), i.numpy() + base


@pytest.mark.parametrize("geometry", TORCH_GEOMETRIES, ids=lambda g: "x".join(map(str, g[0])))
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_torch_max_pool_values_and_indices(geometry, ties):
    sizes, k, s, p, d = geometry
    rng = np.random.default_rng(len(sizes) + sum(sizes))
    x = (rng.integers(-3, 4, sizes) if ties else rng.permutation(np.prod(sizes)).reshape(sizes) - 20).astype(np.float32)
    want, want_idx = _torch_pool(x, k, s, p, d)
    desc = _pool_desc(MaxPooling2, "FLOAT32", sizes, want.shape, list(k), list(s), list(p), list(p), list(d), "UINT32")
    for b, got in _run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(got["OutputTensor"], want, err_msg=b)
        # torch's CPU kernel keeps the first maximum ("val > max"), as DirectML's docs say: ties agree too.
        np.testing.assert_array_equal(got["OutputIndicesTensor"].astype(np.int64), want_idx, err_msg=b)


def test_torch_propagates_nan_where_directml_passes_it_over():
    x = np.array([[[[np.nan, 1], [2, -np.inf]]]], np.float32)
    assert np.isnan(F.max_pool2d(torch.from_numpy(x), 2).item())
    desc = _pool_desc(MaxPooling1, "FLOAT32", [1, 1, 2, 2], [1, 1, 1, 1], [2, 2], [1, 1], [0, 0], [0, 0],
                      index_type="UINT32")
    for b, got in _run_all(desc, {"InputTensor": x}).items():
        assert got["OutputTensor"].item() == 2 and got["OutputIndicesTensor"].item() == 2, b


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_padding_only_windows_give_the_lowest_finite_value(data_type):
    # MAX_POOLING float32_fixed_twin_of_gap_rank4: -3.4028235e38 (not -inf); FLOAT16 stores it as -65504.
    desc = _pool_desc(MaxPooling, data_type, [1, 1, 1, 1], [1, 1, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1])
    x = np.full((1, 1, 1, 1), -3, np.dtype(data_type.lower()))
    lowest = LOWEST if data_type == "FLOAT32" else -65504.0
    want = np.full((1, 1, 3, 3), lowest, np.float64)
    want[0, 0, 1, 1] = -3
    for b, got in _run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(got["OutputTensor"].astype(np.float64), want, err_msg=b)


@pytest.mark.parametrize("cls", [MaxPooling1, MaxPooling2])
@pytest.mark.parametrize("data_type", ["INT8", "UINT8", "INT32", "UINT64"])
def test_the_type_minimum_wins_a_window_of_nothing_greater(cls, data_type):
    """DirectML's vector MAX_POOLING1/2-sample_int8_minimum: a window whose only element is the type's minimum
    names that element (index 1 of {7, -128}); padding-only windows name 0. Windows of 1 x 2 over
    {pad, min, min, 3, pad}: {pad, min} -> 0 (element 0), {min, min} -> 0 (the first of the tie),
    {min, 3} -> 2, {3, pad} -> 2; and a 1 x 1 window on the padding -> index 0."""
    lowest = np.iinfo(np.dtype(data_type.lower())).min
    x = np.array([lowest, lowest, 3], np.dtype(data_type.lower())).reshape(1, 1, 1, 3)
    dilations = [1, 1] if cls is MaxPooling2 else None
    desc = _pool_desc(cls, data_type, [1, 1, 1, 3], [1, 1, 1, 4], [1, 2], [1, 1], [0, 1], [0, 1], dilations, "UINT32")
    for b, got in _run_all(desc, {"InputTensor": x}).items():
        assert got["OutputTensor"].ravel().tolist() == [lowest, lowest, 3, 3], b
        assert got["OutputIndicesTensor"].ravel().tolist() == [0, 0, 2, 2], b
    desc = _pool_desc(cls, data_type, [1, 1, 1, 3], [1, 1, 1, 5], [1, 1], [1, 1], [0, 1], [0, 1], dilations, "UINT32")
    for b, got in _run_all(desc, {"InputTensor": x}).items():
        assert got["OutputIndicesTensor"].ravel().tolist() == [0, 0, 1, 2, 0], b


@pytest.mark.parametrize("data_type", ["INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64"])
def test_integers_against_torch_in_int64(data_type):
    dtype = np.dtype(data_type.lower())
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    x = rng.integers(info.min, info.max, (2, 2, 5, 4), dtype=dtype, endpoint=True)
    x.flat[:3] = [info.min, info.max, info.max]
    # torch on int64 (exact for every type but UINT64's upper half: there the order is that of x - 2**63)
    shifted = (x.astype(np.int64) if dtype != np.uint64 else (x - np.uint64(2**63)).view(np.int64))
    want, want_idx = _torch_pool(shifted, (2, 3), (1, 1), (1, 1), (1, 1))
    want = want.astype(dtype) if dtype != np.uint64 else want.view(np.uint64) + np.uint64(2**63)
    desc = _pool_desc(MaxPooling2, data_type, x.shape, want.shape, [2, 3], [1, 1], [1, 1], [1, 1], [1, 1], "UINT64")
    for b, got in _run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(got["OutputTensor"], want, err_msg=b)
        np.testing.assert_array_equal(got["OutputIndicesTensor"].astype(np.int64), want_idx, err_msg=b)


# ------------------------------------------------------------------------------ torch autograd for the gradient
@pytest.mark.parametrize("geometry", TORCH_GEOMETRIES, ids=lambda g: "x".join(map(str, g[0])))
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_grad_against_torch_autograd(geometry, ties):
    sizes, k, s, p, d = geometry
    rng = np.random.default_rng(sum(sizes))
    x = (rng.integers(-2, 3, sizes) if ties else rng.permutation(np.prod(sizes)).reshape(sizes) - 20).astype(np.float32)
    xt = torch.from_numpy(x).requires_grad_()
    y = (F.max_pool2d if len(sizes) == 4 else F.max_pool3d)(xt, k, s, p, d)
    dy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.from_numpy(dy))
    want = xt.grad.numpy()
    desc = MaxPoolingGrad(input_tensor=td("FLOAT32", sizes), input_gradient_tensor=td("FLOAT32", dy.shape),
                          output_gradient_tensor=td("FLOAT32", sizes), strides=list(s), window_size=list(k),
                          start_padding=list(p), end_padding=list(p), dilations=list(d))
    for b, got in _run_all(desc, {"InputTensor": x, "InputGradientTensor": dy}).items():
        # torch's CPU backward adds a winner's gradients in output order, as DirectML does: exact
        np.testing.assert_array_equal(got["OutputGradientTensor"], want, err_msg=b)


def test_grad_against_aten_max_pool2d_with_indices_backward():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 6, 5)).astype(np.float32)
    xt = torch.from_numpy(x)
    y, idx = torch.ops.aten.max_pool2d_with_indices(xt, [3, 2], [1, 2], [1, 1], [1, 1], False)
    dy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    want = torch.ops.aten.max_pool2d_with_indices_backward(torch.from_numpy(dy), xt, [3, 2], [1, 2], [1, 1],
                                                           [1, 1], False, idx).numpy()
    desc = MaxPoolingGrad(input_tensor=td("FLOAT32", x.shape), input_gradient_tensor=td("FLOAT32", dy.shape),
                          output_gradient_tensor=td("FLOAT32", x.shape), strides=[1, 2], window_size=[3, 2],
                          start_padding=[1, 1], end_padding=[1, 1], dilations=[1, 1])
    for b, got in _run_all(desc, {"InputTensor": x, "InputGradientTensor": dy}).items():
        np.testing.assert_array_equal(got["OutputGradientTensor"], want, err_msg=b)


def test_grad_of_padding_only_windows_goes_nowhere():
    # A 1 x 1 input, window 1, padding 1: only the centre window reads the input; the other eight add nothing.
    desc = MaxPoolingGrad(input_tensor=td("FLOAT32", [1, 1, 1, 1]), input_gradient_tensor=td("FLOAT32", [1, 1, 3, 3]),
                          output_gradient_tensor=td("FLOAT32", [1, 1, 1, 1]), strides=[1, 1], window_size=[1, 1],
                          start_padding=[1, 1], end_padding=[1, 1], dilations=[1, 1])
    dy = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    for b, got in _run_all(desc, {"InputTensor": np.full((1, 1, 1, 1), -3, np.float32),
                                  "InputGradientTensor": dy}).items():
        assert got["OutputGradientTensor"].item() == 5, b


def test_shape_rules_refuse_a_wrong_indices_tensor():
    desc = _pool_desc(MaxPooling1, "FLOAT32", [1, 1, 4, 4], [1, 1, 2, 2], [2, 2], [2, 2], [0, 0], [0, 0],
                      index_type="UINT32")
    desc = desc.replace(output_indices_tensor=td("UINT32", [1, 1, 3, 2]))
    with pytest.raises(dmlops.ValidationError, match=r"MAX_POOLING1\.OutputIndicesTensor: Sizes \[1, 1, 3, 2\]"):
        dmlops.validate(desc, dmlops.FeatureLevel.latest())


# ------------------------------------------------------------------------------ big windows
@pytest.mark.parametrize("cls", [MaxPooling, MaxPooling1, MaxPooling2])
def test_a_2048_square_window_compiles_to_a_small_model(cls):
    """The window table (2 outputs x 2048 x 2048 elements: 67 MB of int64, twice, in the model before) is built
    in the graph from per-dimension positions: the model holds a few kB whatever the window."""
    x = np.random.default_rng(5).standard_normal((1, 1, 2048, 2049)).astype(np.float32)
    desc = _pool_desc(cls, "FLOAT32", [1, 1, 2048, 2049], [1, 1, 1, 2], [2048, 2048], [1, 1], [0, 0], [0, 0],
                      [1, 1], "UINT32")
    compiled = dmlops.compile(desc, backend="onnxruntime")
    assert compiled.model.ByteSize() < 200_000
    want = [x[0, 0, :, :2048].max(), x[0, 0, :, 1:].max()]
    for b in ("onnxruntime", "torch"):
        got = dmlops.run(desc, {"InputTensor": x}, backend=b)
        assert got["OutputTensor"].ravel().tolist() == want, b
        if cls is not MaxPooling:
            flat = [int(np.argmax(np.where(np.arange(2049) < 2048, x[0, 0], -np.inf))),
                    int(np.argmax(np.where(np.arange(2049) >= 1, x[0, 0], -np.inf)))]
            assert got["OutputIndicesTensor"].ravel().tolist() == flat, b


@pytest.mark.parametrize("cls", [MaxPooling, MaxPooling1, MaxPooling2, MaxPoolingGrad])
def test_a_whole_plane_window_is_refused_with_its_size(cls):
    """A window of a whole [1, 1, 2**15, 2**13] input reads 2**28 elements: refused by name and size before
    anything is allocated (it ended the process with SIGSEGV under an 8 GiB limit: the model carried the table)."""
    shape, window = [1, 1, 2**15, 2**13], [2**15, 2**13]
    if cls is MaxPoolingGrad:
        t = td("FLOAT32", shape)
        desc = MaxPoolingGrad(input_tensor=t, input_gradient_tensor=td("FLOAT32", [1, 1, 1, 1]),
                              output_gradient_tensor=t, strides=[1, 1], window_size=window, start_padding=[0, 0],
                              end_padding=[0, 0], dilations=[1, 1])
    else:
        desc = _pool_desc(cls, "FLOAT32", shape, [1, 1, 1, 1], window, [1, 1], [0, 0], [0, 0], [1, 1])
    assert dmlops.problems(desc, "6.2") == []
    op = desc.OPERATOR_TYPE
    message = (rf"{op}\.WindowSize: \{{32768, 8192\}} over 1 x 1 planes of 1 output position\(s\) reads "
               rf"1 x 1 x 1 x 268435456 = 268435456 elements, .* dmlops allows 134217728")
    with pytest.raises(dmlops.DmlOpsError, match=message):
        dmlops.compile(desc, backend="onnxruntime")
    # the reference and torch lower at the first call: the op refuses before reading its (zero-stride) input
    from dmlops.ops import module

    mod = module(op)
    lazy = {name: np.broadcast_to(np.float32(0), t.sizes) for name, t in desc.tensors().items()
            if t is not None and "Output" not in name}
    with pytest.raises(dmlops.DmlOpsError, match=message):
        mod.reference(desc, lazy)
    with pytest.raises(dmlops.DmlOpsError, match=message):
        mod.to_torch(desc, torch, {k: torch.zeros(1).expand(*v.shape) for k, v in lazy.items()})
