"""AVERAGE_POOLING(1), LP_POOLING(1) and AVERAGE_POOLING_GRAD against independent oracles, on every backend.

* ONNX's node test cases (averagepool*, lppool*): every case DirectML can express (1-D cases as {N, C, 1, W};
  auto_pad SAME_* turned into explicit pads; ceil_mode as extra EndPadding where the overhang is excluded from the
  divisor) against ONNX's expected outputs;
* torch: F.avg_pool2d / avg_pool3d (symmetric padding, count_include_pad both ways), F.pad for asymmetric padding,
  F.unfold for dilated windows, F.lp_pool2d / lp_pool3d (no |x| there: fed magnitudes), and torch autograd of
  avg_pool for AVERAGE_POOLING_GRAD;
* the gradient is the adjoint of the forward: <dY, pool(x)> = <grad(dY), x>;
* check() refusals (P = 0, a window past the padded input, DimensionCount vs rank).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import dmlops
from dmlops.descs import AveragePooling, AveragePooling1, AveragePoolingGrad, LpPooling, LpPooling1
from dmlops.errors import DmlOpsError
from dmlops.ops import _avg_lp_pooling as A
from tests.onnx_node_cases import attribute, generated

BACKENDS = ["reference", "onnxruntime", "torch"]
LEVEL = "6.4"


def _run_all(desc, inputs):
    return {b: dmlops.run(desc, inputs, backend=b, feature_level=LEVEL) for b in BACKENDS}


def _close(got, want, rtol=1e-5, atol=1e-6, what=""):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=what)


# ----------------------------------------------------------------------------------------------- ONNX node cases
NODE_CASES = generated(["averagepool", "lppool"])


def _dml_from_node(case):
    """(list of descs, input, expected) for an ONNX node case, or a string saying why DirectML cannot express it."""
    node = case.node
    x = np.asarray(case.inputs[0], np.float32)
    want = np.asarray(case.outputs[0], np.float32)
    if x.ndim == 3:  # 1-D pooling as {N, C, 1, W}
        x, want = x[:, :, None, :], want[:, :, None, :]
        lift = lambda v, one: [one] + list(v)  # noqa: E731
    else:
        lift = lambda v, one: list(v)  # noqa: E731
    n, ones = x.ndim - 2, [1] * (np.ndim(case.inputs[0]) - 2)
    spatial = list(x.shape[2:])
    k = lift(attribute(node, "kernel_shape", None), 1)
    s = lift(attribute(node, "strides", ones), 1)
    d = lift(attribute(node, "dilations", ones), 1)
    raw = attribute(node, "pads", None)
    auto = attribute(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if raw is None:
        start, end = [0] * n, [0] * n
    else:
        half = len(raw) // 2
        start, end = lift(raw[:half], 0), lift(raw[half:], 0)
    dk = [1 + (kk - 1) * dd for kk, dd in zip(k, d)]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        out = [-(-i // st) for i, st in zip(spatial, s)]
        total = [max((o - 1) * st + e - i, 0) for o, st, e, i in zip(out, s, dk, spatial)]
        small = [t // 2 for t in total]
        start = small if auto == "SAME_UPPER" else [t - a for t, a in zip(total, small)]
        end = [t - a for t, a in zip(total, start)]
    elif auto == "VALID":
        start, end = [0] * n, [0] * n
    include = bool(attribute(node, "count_include_pad", 0))
    floor = [(i + a + b - e) // st + 1 for i, a, b, e, st in zip(spatial, start, end, dk, s)]
    target = list(want.shape[2:])
    if floor != target:
        if not attribute(node, "ceil_mode", 0):
            return f"output {target} is not DirectML's {floor}"
        if include and node.op_type == "AveragePool":
            return "ceil_mode overhang with count_include_pad=1 (ONNX excludes the overhang from the divisor)"
        end = [b + max(0, (t - 1) * st + e - (i + a + b))
               for b, t, st, e, i, a in zip(end, target, s, dk, spatial, start)]
    kw = dict(window=k, strides=s, start=start, end=end)
    descs = []
    if node.op_type == "AveragePool":
        if all(v == 1 for v in d):
            descs.append(A.sample_desc(AveragePooling, x.shape, want.shape, include_padding=include, **kw))
        descs.append(A.sample_desc(AveragePooling1, x.shape, want.shape, include_padding=include, dilations=tuple(d),
                                   **kw))
    else:
        p = attribute(node, "p", 2)
        if all(v == 1 for v in d):
            descs.append(A.sample_desc(LpPooling, x.shape, want.shape, p=p, **kw))
        descs.append(A.sample_desc(LpPooling1, x.shape, want.shape, p=p, dilations=tuple(d), **kw))
    return descs, x, want


def _node_params():
    for name in sorted(NODE_CASES):
        made = _dml_from_node(NODE_CASES[name])
        if isinstance(made, str):
            yield pytest.param(name, marks=pytest.mark.skip(reason=made), id=name)
        else:
            yield pytest.param(name, id=name)


def test_node_cases_are_found_and_mostly_expressible():
    assert len(NODE_CASES) >= 25
    skipped = [n for n in NODE_CASES if isinstance(_dml_from_node(NODE_CASES[n]), str)]
    assert skipped == ["test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True"], skipped


# Expected outputs ONNX typed by hand, to 4 decimals.
PRINTED = {"test_averagepool_2d_ceil_last_window_starts_on_pad": 5e-5}


@pytest.mark.parametrize("name", list(_node_params()))
def test_onnx_node_case(name):
    descs, x, want = _dml_from_node(NODE_CASES[name])
    for desc in descs:
        for backend, out in _run_all(desc, {"InputTensor": x}).items():
            _close(out["OutputTensor"], want, rtol=2e-5, atol=PRINTED.get(name, 2e-6),
                   what=f"{desc.OPERATOR_TYPE} on {backend}")


# ----------------------------------------------------------------------------------------------- torch: forward
RNG = np.random.default_rng(1212)


def _rand(*shape, lo=-3.0, hi=3.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


AVG_TORCH = [
    # (input shape, window, strides, symmetric padding)
    ((2, 3, 7, 6), (3, 2), (2, 1), (1, 1)),
    ((1, 2, 8, 8), (4, 4), (4, 4), (2, 0)),
    ((1, 2, 5, 6, 4), (3, 2, 2), (1, 2, 1), (1, 0, 1)),
]


@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize("shape, window, strides, pad", AVG_TORCH)
def test_average_pooling_matches_torch_avg_pool(shape, window, strides, pad, include):
    x = _rand(*shape)
    pool = F.avg_pool2d if len(window) == 2 else F.avg_pool3d
    want = pool(torch.from_numpy(x), window, strides, pad, count_include_pad=include).numpy()
    for cls in (AveragePooling, AveragePooling1):
        desc = A.sample_desc(cls, shape, want.shape, window=window, strides=strides, start=pad, end=pad,
                             include_padding=include)
        for backend, out in _run_all(desc, {"InputTensor": x}).items():
            _close(out["OutputTensor"], want, what=f"{cls.OPERATOR_TYPE} on {backend}")


@pytest.mark.parametrize("include", [False, True])
def test_asymmetric_padding_matches_torch_pad_then_pool(include):
    x = _rand(2, 2, 5, 7)
    start, end, window, strides = (2, 0), (0, 3), (3, 3), (1, 2)
    t = torch.from_numpy(x)
    padded = F.pad(t, (start[1], end[1], start[0], end[0]))
    sums = F.avg_pool2d(padded, window, strides) * (window[0] * window[1])
    if include:
        want = sums / (window[0] * window[1])
    else:
        valid = F.avg_pool2d(F.pad(torch.ones_like(t), (start[1], end[1], start[0], end[0])), window, strides)
        want = sums / (valid * (window[0] * window[1]))
    want = want.numpy()
    desc = A.sample_desc(AveragePooling, x.shape, want.shape, window=window, strides=strides, start=start, end=end,
                         include_padding=include)
    for backend, out in _run_all(desc, {"InputTensor": x}).items():
        _close(out["OutputTensor"], want, what=backend)


@pytest.mark.parametrize("include", [False, True])
def test_dilated_average_matches_torch_unfold(include):
    x = _rand(1, 3, 7, 8)
    window, dil, strides, pad = (2, 3), (3, 2), (2, 1), (1, 2)
    t = torch.from_numpy(x)
    cols = F.unfold(t, window, dilation=dil, padding=pad, stride=strides)  # [N, C * K, L]
    k = window[0] * window[1]
    sums = cols.reshape(1, 3, k, -1).sum(2)
    count = k if include else F.unfold(torch.ones_like(t), window, dilation=dil, padding=pad,
                                       stride=strides).reshape(1, 3, k, -1).sum(2)
    out_hw = [(s + 2 * p - (1 + (w - 1) * d)) // st + 1 for s, p, w, d, st in zip((7, 8), pad, window, dil, strides)]
    want = (sums / count).reshape(1, 3, *out_hw).numpy()
    desc = A.sample_desc(AveragePooling1, x.shape, want.shape, window=window, strides=strides, start=pad, end=pad,
                         dilations=dil, include_padding=include)
    for backend, out in _run_all(desc, {"InputTensor": x}).items():
        _close(out["OutputTensor"], want, what=backend)


@pytest.mark.parametrize("p", [1, 2, 3])
@pytest.mark.parametrize("shape, window, strides", [((2, 3, 6, 7), (2, 3), (2, 2)), ((1, 2, 4, 5, 6), (2, 2, 3),
                                                                                      (1, 2, 3))])
def test_lp_pooling_matches_torch_lp_pool(shape, window, strides, p):
    x = _rand(*shape)
    pool = F.lp_pool2d if len(window) == 2 else getattr(F, "lp_pool3d", None)
    if pool is None:
        pytest.skip("this torch has no lp_pool3d")
    # torch raises x itself to P: magnitudes make it the |x|^P of DirectML (and ONNX).
    want = pool(torch.from_numpy(np.abs(x)), float(p), window, strides).numpy()
    for cls in (LpPooling, LpPooling1):
        desc = A.sample_desc(cls, shape, want.shape, window=window, strides=strides, p=p)
        for backend, out in _run_all(desc, {"InputTensor": x}).items():
            _close(out["OutputTensor"], want, what=f"{cls.OPERATOR_TYPE} P={p} on {backend}")


def test_lp_pooling_takes_magnitudes_where_torch_does_not():
    """Odd P over negatives: DirectML (vectors, P = 1) and ONNX take |x|; torch's lp_pool2d raises x itself."""
    x = np.array([[[[-1, -2], [-3, -4]]]], np.float32)
    desc = A.sample_desc(LpPooling, x.shape, (1, 1, 1, 1), window=(2, 2), p=1)
    for backend, out in _run_all(desc, {"InputTensor": x}).items():
        assert out["OutputTensor"].item() == 10, backend
    assert F.lp_pool2d(torch.from_numpy(x), 1.0, 2).item() == -10


# ----------------------------------------------------------------------------------------------- torch: gradient
GRAD_TORCH = [
    ((2, 3, 7, 6), (3, 2), (2, 1), (1, 1)),
    ((1, 2, 6, 6), (3, 3), (1, 1), (1, 1)),
    ((1, 2, 5, 6, 4), (3, 2, 2), (1, 2, 1), (1, 0, 1)),
]


@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize("shape, window, strides, pad", GRAD_TORCH)
def test_average_pooling_grad_matches_torch_autograd(shape, window, strides, pad, include):
    x = torch.from_numpy(_rand(*shape)).requires_grad_(True)
    pool = F.avg_pool2d if len(window) == 2 else F.avg_pool3d
    y = pool(x, window, strides, pad, count_include_pad=include)
    dy = _rand(*y.shape)
    (want,) = torch.autograd.grad(y, x, torch.from_numpy(dy))
    desc = A.sample_desc(AveragePoolingGrad, shape, y.shape, window=window, strides=strides, start=pad, end=pad,
                         include_padding=include)
    for backend, out in _run_all(desc, {"InputGradientTensor": dy}).items():
        _close(out["OutputGradientTensor"], want.numpy(), what=backend)


@pytest.mark.parametrize("include", [False, True])
def test_average_pooling_grad_asymmetric_matches_autograd_through_pad(include):
    x = torch.from_numpy(_rand(1, 2, 5, 7)).requires_grad_(True)
    start, end, window, strides = (2, 0), (0, 3), (3, 3), (1, 2)
    pads = (start[1], end[1], start[0], end[0])
    k = window[0] * window[1]
    sums = F.avg_pool2d(F.pad(x, pads), window, strides) * k
    count = k if include else F.avg_pool2d(F.pad(torch.ones_like(x), pads), window, strides) * k
    y = sums / count
    dy = _rand(*y.shape)
    (want,) = torch.autograd.grad(y, x, torch.from_numpy(dy))
    desc = A.sample_desc(AveragePoolingGrad, x.shape, y.shape, window=window, strides=strides, start=start, end=end,
                         include_padding=include)
    for backend, out in _run_all(desc, {"InputGradientTensor": dy}).items():
        _close(out["OutputGradientTensor"], want.numpy(), what=backend)


@pytest.mark.parametrize("include", [False, True])
def test_grad_is_the_adjoint_of_the_forward(include):
    """<dY, AVERAGE_POOLING(x)> = <AVERAGE_POOLING_GRAD(dY), x>, dilation-free windows with every padding kind."""
    shape, window, strides, start, end = (2, 2, 6, 5), (3, 2), (2, 1), (2, 0), (1, 1)
    x = _rand(*shape).astype(np.float64)
    fwd = A.sample_desc(AveragePooling, shape, (2, 2, 4, 5), window=window, strides=strides, start=start, end=end,
                        include_padding=include)
    grad = A.sample_desc(AveragePoolingGrad, shape, (2, 2, 4, 5), window=window, strides=strides, start=start,
                         end=end, include_padding=include)
    y = dmlops.run(fwd, {"InputTensor": x.astype(np.float32)}, backend="reference", feature_level=LEVEL)
    dy = _rand(2, 2, 4, 5)
    for backend, out in _run_all(grad, {"InputGradientTensor": dy}).items():
        lhs = float((dy.astype(np.float64) * y["OutputTensor"]).sum())
        rhs = float((out["OutputGradientTensor"].astype(np.float64) * x.astype(np.float32)).sum())
        assert abs(lhs - rhs) <= 1e-4 * max(1.0, abs(lhs)), backend


def test_inverse_table_lists_windows_in_ascending_order():
    idx = np.array([[0, 1, -1], [1, 2, -1], [-1, -1, -1]], np.int64)
    inv = A.inverse_table(idx, 4)
    assert inv.tolist() == [[0, -1], [0, 1], [1, -1], [-1, -1]]


# ----------------------------------------------------------------------------------------------- refusals
def test_p_zero_is_refused():
    desc = A.sample_desc(LpPooling, (1, 1, 2, 2), (1, 1, 1, 1), window=(2, 2), p=0)
    with pytest.raises(DmlOpsError, match=r"LP_POOLING\.P: 0 is not allowed \(allowed: 1 or more\)"):
        dmlops.validate(desc, LEVEL)


def test_window_past_the_padded_input_is_refused():
    desc = A.sample_desc(AveragePooling1, (1, 1, 2, 2), (1, 1, 1, 1), window=(2, 2), dilations=(2, 1),
                         include_padding=False)
    with pytest.raises(DmlOpsError, match=r"the dilated window extent 1 \+ \(2 - 1\) \* 2 = 3 in the Height "
                                          r"dimension exceeds the padded InputTensor extent 2 \+ 0 \+ 0 = 2"):
        dmlops.validate(desc, LEVEL)


def test_grad_input_gradient_sizes_follow_the_forward_formula():
    desc = A.sample_desc(AveragePoolingGrad, (1, 1, 3, 3), (1, 1, 3, 3), window=(2, 2), include_padding=False)
    with pytest.raises(DmlOpsError, match=r"AVERAGE_POOLING_GRAD\.InputGradientTensor"):
        dmlops.validate(desc, LEVEL)


# ------------------------------------------------------------------------------ big windows
@pytest.mark.parametrize("cls,extra", [(AveragePooling, {"include_padding": False}),
                                       (AveragePooling1, {"include_padding": True, "dilations": (1, 1)}),
                                       (LpPooling, {"p": 1}), (LpPooling1, {"p": 2, "dilations": (1, 1)})])
def test_a_2048_square_window_compiles_to_a_small_model(cls, extra):
    """The window table (2 outputs x 2048 x 2048 int64 elements, 67 MB in the model before) is built in the graph
    from per-dimension positions; the sums over 4M elements are ReduceSum's float32 sums (float64 oracle: up to
    7e-5 relative for the sum of squares, whose terms all add up)."""
    x = np.random.default_rng(6).uniform(0, 1, (1, 1, 2048, 2049)).astype(np.float32)
    desc = A.sample_desc(cls, x.shape, (1, 1, 1, 2), window=(2048, 2048), **extra)
    assert dmlops.problems(desc, "6.2") == []
    compiled = dmlops.compile(desc, backend="onnxruntime")
    assert compiled.model.ByteSize() < 200_000
    parts = [x[0, 0, :, :2048].astype(np.float64), x[0, 0, :, 1:].astype(np.float64)]
    p = extra.get("p")
    want = [w.sum() / w.size if p is None else np.sqrt((w * w).sum()) if p == 2 else w.sum() for w in parts]
    for b in ("onnxruntime", "torch"):
        got = dmlops.run(desc, {"InputTensor": x}, backend=b)["OutputTensor"].ravel()
        np.testing.assert_allclose(got, want, rtol=2e-4, err_msg=b)


def _whole_plane(cls):
    shape, window = (1, 1, 2**15, 2**13), (2**15, 2**13)
    if cls is AveragePoolingGrad:
        return A.sample_desc(cls, shape, (1, 1, 1, 1), window=window, include_padding=True)
    if cls is dmlops.QuantizedLinearAveragePooling:
        t = dmlops.TensorDesc
        q = t("FLOAT32", [1, 1, 1, 1])
        return cls(input_tensor=t("UINT8", list(shape)), input_scale_tensor=q, input_zero_point_tensor=None,
                   output_scale_tensor=q, output_zero_point_tensor=None, output_tensor=t("UINT8", [1, 1, 1, 1]),
                   strides=(1, 1), window_size=window, start_padding=(0, 0), end_padding=(0, 0), dilations=(1, 1),
                   include_padding=False)
    extra = {"p": 2} if cls in (LpPooling, LpPooling1) else {"include_padding": False}
    if cls in (AveragePooling1, LpPooling1):
        extra["dilations"] = (1, 1)
    return A.sample_desc(cls, shape, (1, 1, 1, 1), window=window, **extra)


@pytest.mark.parametrize("cls", [AveragePooling, AveragePooling1, LpPooling, LpPooling1, AveragePoolingGrad,
                                 dmlops.QuantizedLinearAveragePooling])
def test_a_whole_plane_window_is_refused_with_its_size(cls):
    """A window of a whole [1, 1, 2**15, 2**13] input reads 2**28 elements: refused by name and size before
    anything is allocated, on onnxruntime at compile and in the reference and torch lowerings at their call."""
    desc = _whole_plane(cls)
    assert dmlops.problems(desc, "6.2") == []
    op = desc.OPERATOR_TYPE
    message = (rf"{op}\.WindowSize: \{{32768, 8192\}} over 1 x 1 planes of 1 output position\(s\) reads "
               rf"1 x 1 x 1 x 268435456 = 268435456 elements, .* dmlops allows 134217728")
    with pytest.raises(DmlOpsError, match=message):
        dmlops.compile(desc, backend="onnxruntime")
    from dmlops.ops import module

    mod = module(op)
    lazy = {name: np.broadcast_to(np.zeros((), t.data_type.numpy_dtype), t.sizes)
            for name, t in desc.tensors().items() if t is not None and not name.startswith("Output")}
    with pytest.raises(DmlOpsError, match=message):
        mod.reference(desc, lazy)
    with pytest.raises(DmlOpsError, match=message):
        mod.to_torch(desc, torch, {k: torch.zeros((), dtype=getattr(torch, str(v.dtype))).expand(*v.shape)
                                   for k, v in lazy.items()})
