"""GEMM, CONVOLUTION, REDUCE and RANDOM_GENERATOR against independent implementations, on every backend.

Oracles: ONNX's own node test cases (inputs and outputs as the ONNX project exported them; their
float16 variants are judged by onnx.reference on the float16-rounded inputs), PyTorch aten ops in
float64 (addmm, baddbmm, conv*d, conv_transpose*d, autograd of conv2d, reductions), np.convolve /
np.correlate for true (flipped-filter) convolution, brute-force loops for multi-axis ARGMAX/ARGMIN,
and Random123's published Philox4x32-10 known answers.
"""
import itertools

import numpy as np
import pytest

import dmlops
from dmlops.sample import td
from tests.onnx_node_cases import generated

BACKENDS = ("reference", "onnxruntime", "torch")
torch = pytest.importorskip("torch")


def run_all(desc, inputs):
    """{backend: outputs} for every backend."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def assert_backends(desc, inputs, expected, atol, rtol, name="OutputTensor"):
    """Every backend's ``name`` output is close to ``expected``; returns the largest absolute error."""
    worst = 0.0
    for backend, out in run_all(desc, inputs).items():
        got = out[name]
        assert got.shape == expected.shape, backend
        if got.dtype.kind in "iu":
            np.testing.assert_array_equal(got, expected, err_msg=backend)
            continue
        np.testing.assert_allclose(got.astype(np.float64), expected, atol=atol, rtol=rtol, err_msg=backend)
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - expected), initial=0)))
    return worst


def f16(a):
    """``a`` rounded to float16 (the test's float16 input)."""
    return np.asarray(a).astype(np.float16)


# ============================================================ ONNX node test cases
ONNX_MODULES = ("conv", "convtranspose", "gemm", "reducesum", "reducemean", "reducemax", "argmax")


def _onnx_cases():
    """{name: (node, inputs, outputs, opset)} from onnx's node-case generators of ONNX_MODULES
    (tests/onnx_node_cases.py)."""
    return {n: (c.node, c.inputs, c.outputs, c.opset) for n, c in generated(ONNX_MODULES).items()}


ONNX_NODE_CASES = _onnx_cases()


def _case_names():
    import re

    ops = ("Gemm", "Conv", "ConvTranspose", "ReduceSum", "ReduceMean", "ReduceMax", "ArgMax")
    pattern = r"test_(gemm|conv|convtranspose|basic_conv|reduce_(sum|mean|max)|argmax)_?"
    return sorted(n for n, (node, *_) in ONNX_NODE_CASES.items() if re.match(pattern, n) and node.op_type in ops)


ONNX_CASES = _case_names()
SKIPPED = {
    "select_last_index": "REDUCE's ARGMAX is DML_AXIS_DIRECTION_INCREASING (the first index) only",
    "empty_set": "DirectML tensors have no zero-size dimensions",
    "noop": "an empty Axes list is invalid for DML_REDUCE (AxisCount must be at least 1)",
    "bool": "REDUCE has no BOOLEAN data type",
}


def _attrs(node):
    import onnx

    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _gemm_from_onnx(node, inputs, y, dt):
    a = _attrs(node)
    shape_a, shape_b = inputs[0].shape, inputs[1].shape
    values = {"ATensor": inputs[0], "BTensor": inputs[1]}
    c = None
    if len(inputs) > 2:
        # ONNX broadcasts C to (M, N); DirectML expresses that with zero strides over C's buffer.
        cs = [1] * (2 - inputs[2].ndim) + list(inputs[2].shape)
        packed = [cs[1], 1]
        strides = [0 if s == 1 and n != 1 else p for s, n, p in zip(cs, y.shape, packed)]
        c = td(dt, list(y.shape), strides)
        values["CTensor"] = inputs[2].reshape(-1)
    desc = dmlops.Gemm(a_tensor=td(dt, list(shape_a)), b_tensor=td(dt, list(shape_b)), c_tensor=c,
                       output_tensor=td(dt, list(y.shape)), trans_a="TRANSPOSE" if a.get("transA") else "NONE",
                       trans_b="TRANSPOSE" if a.get("transB") else "NONE", alpha=a.get("alpha", 1.0),
                       beta=a.get("beta", 1.0))
    return desc, values, y


def _conv_from_onnx(node, inputs, y, dt):
    """ONNX Conv / ConvTranspose as DML CROSS_CORRELATION FORWARD / BACKWARD (onnxruntime's DML EP mapping)."""
    a = _attrs(node)
    x, w = inputs[0], inputs[1]
    dims = x.ndim - 2
    transposed = node.op_type == "ConvTranspose"
    strides = a.get("strides", [1] * dims)
    dilations = a.get("dilations", [1] * dims)
    pads = a.get("pads", [0] * 2 * dims)
    start, end = list(pads[:dims]), list(pads[dims:])
    auto_pad = a.get("auto_pad", b"NOTSET").decode()
    output_padding = a.get("output_padding", [0] * dims)
    for i in range(dims):
        window = (w.shape[2 + i] - 1) * dilations[i] + 1
        size = x.shape[2 + i]
        if not transposed and auto_pad.startswith("SAME"):
            total = max(0, (-(-size // strides[i]) - 1) * strides[i] + window - size)
            small, big = total // 2, total - total // 2
            start[i], end[i] = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
        elif transposed and ("output_shape" in a or auto_pad.startswith("SAME")):
            # The ConvTranspose spec: total_padding from output_shape (SAME: input size * stride).
            target = a["output_shape"][i] if "output_shape" in a else size * strides[i]
            total = strides[i] * (size - 1) + output_padding[i] + window - target
            start[i], end[i] = ((total // 2, total - total // 2) if auto_pad == "SAME_UPPER"
                                else (total - total // 2, total // 2))
    dml_output_padding = [0] * dims
    if transposed:
        # ONNX output_padding un-crops end padding; DML OutputPadding appends zeros (see ops/convolution.py).
        for i in range(dims):
            dml_output_padding[i] = max(output_padding[i] - end[i], 0)
            end[i] = max(end[i] - output_padding[i], 0)
    bias = None
    values = {"InputTensor": x, "FilterTensor": w}
    if len(inputs) > 2:
        bias = td(dt, [1, y.shape[1]] + [1] * dims)
        values["BiasTensor"] = inputs[2].reshape(bias.sizes)
    desc = dmlops.Convolution(
        input_tensor=td(dt, list(x.shape)), filter_tensor=td(dt, list(w.shape)), bias_tensor=bias,
        output_tensor=td(dt, list(y.shape)), mode="CROSS_CORRELATION",
        direction="BACKWARD" if transposed else "FORWARD", strides=tuple(strides), dilations=tuple(dilations),
        start_padding=tuple(start), end_padding=tuple(end), output_padding=tuple(dml_output_padding),
        group_count=a.get("group", 1))
    return desc, values, y


def _reduce_from_onnx(node, inputs, y, dt):
    a = _attrs(node)
    x = inputs[0]
    rank = x.ndim
    if node.op_type == "ArgMax":
        function, axes, out_type = "ARGMAX", [a.get("axis", 0)], "INT64"
    else:
        function = {"ReduceSum": "SUM", "ReduceMean": "AVERAGE", "ReduceMax": "MAX"}[node.op_type]
        axes = list(inputs[1]) if len(inputs) > 1 else list(a.get("axes", []))
        axes = axes or list(range(rank))  # ONNX: no axes = every axis
        out_type = dt
    axes = sorted(int(ax) % rank for ax in axes)
    out_sizes = [1 if i in axes else s for i, s in enumerate(x.shape)]
    desc = dmlops.Reduce(function=function, input_tensor=td(dt, list(x.shape)), output_tensor=td(out_type, out_sizes),
                         axes=tuple(axes))
    # keepdims=0 drops the size-1 dimensions; the element order is the same.
    return desc, {"InputTensor": x}, y.reshape(out_sizes)


def _from_onnx(name, float16: bool):
    """(desc, inputs by DML name, expected output) of an ONNX case, in FLOAT16 or FLOAT32."""
    node, inputs, outputs, _ = ONNX_NODE_CASES[name]
    dt = "FLOAT16" if float16 else "FLOAT32"
    if float16:
        inputs = [f16(i) if i.dtype == np.float32 else i for i in inputs]
    build = {"Gemm": _gemm_from_onnx, "Conv": _conv_from_onnx, "ConvTranspose": _conv_from_onnx}.get(
        node.op_type, _reduce_from_onnx)
    return build(node, inputs, outputs[0], dt)


def _onnx_reference(name, inputs):
    """onnx.reference's output of the case's node on ``inputs`` (a one-node model at the case's opset)."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    node, _, outputs, opset = ONNX_NODE_CASES[name]

    def info(value_name, array):
        return helper.make_tensor_value_info(value_name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)

    names = [n for n in node.input if n]
    graph = helper.make_graph([node], name, [info(n, a) for n, a in zip(names, inputs)],
                              [info(n, a) for n, a in zip(node.output, outputs)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))[0]


WORST: dict = {}  # the largest absolute error of each oracle comparison, for reports (read after a run)


def test_onnx_node_cases_are_all_there():
    assert len(ONNX_CASES) == 75, ONNX_CASES  # onnx 1.23: 17 conv, 11 gemm, 31 reduce, 16 argmax cases
    assert {"test_gemm_default_no_bias", "test_convtranspose_pads", "test_reduce_mean_keepdims_random",
            "test_argmax_keepdims_example", "test_basic_conv_with_padding"} <= set(ONNX_CASES)


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("name", ONNX_CASES)
def test_onnx_node_case(name, float16):
    for key, why in SKIPPED.items():
        if key in name:
            pytest.skip(why)
    desc, values, expected = _from_onnx(name, float16)
    if float16:
        # The case's outputs belong to the float32 inputs; onnx.reference evaluates the case's node on the
        # float16-rounded inputs instead, which leaves the float16 rounding of the output: 2**-11 relative,
        # doubled where float32 (CPU backends) and float64 (reference) sums round to neighbours.
        rounded = [f16(i).astype(np.float32) if i.dtype == np.float32 else i for i in ONNX_NODE_CASES[name][1]]
        expected = _onnx_reference(name, rounded).reshape(desc.output_tensor.sizes)
        tol = dict(atol=1e-5, rtol=2e-3)
    else:
        # float32: ONNX computed its outputs with NumPy in another summation order: a few float32 ulps.
        tol = dict(atol=1e-5, rtol=1e-5)
    WORST[name, float16] = assert_backends(desc, values, _as_expected(expected), **tol)


def _as_expected(y):
    return y.astype(np.float64) if y.dtype.kind == "f" else y


# ============================================================ GEMM vs torch
def _gemm_desc(dt, a, b, out, c, trans_a, trans_b, alpha, beta):
    return dmlops.Gemm(a_tensor=td(dt, a), b_tensor=td(dt, b), c_tensor=td(dt, out) if c else None,
                       output_tensor=td(dt, out), trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("lead, trans_a, trans_b, with_c", [
    ((), "NONE", "NONE", True), ((), "TRANSPOSE", "TRANSPOSE", True), ((3,), "NONE", "TRANSPOSE", False),
    ((2, 3), "TRANSPOSE", "NONE", True)])
def test_gemm_matches_torch_addmm_baddbmm(lead, trans_a, trans_b, with_c, float16):
    rng = np.random.default_rng(1)
    m, k, n = 5, 7, 4
    a = rng.standard_normal(lead + ((k, m) if trans_a == "TRANSPOSE" else (m, k))).astype(np.float32)
    b = rng.standard_normal(lead + ((n, k) if trans_b == "TRANSPOSE" else (k, n))).astype(np.float32)
    c = rng.standard_normal(lead + (m, n)).astype(np.float32)
    if float16:
        a, b, c = f16(a), f16(b), f16(c)
    alpha, beta = 0.75, -1.5
    ta, tb, tc = (torch.from_numpy(v.astype(np.float64)) for v in (a, b, c))
    ta = ta.transpose(-1, -2) if trans_a == "TRANSPOSE" else ta
    tb = tb.transpose(-1, -2) if trans_b == "TRANSPOSE" else tb
    tc = tc if with_c else torch.zeros_like(tc)
    if not lead:
        want = torch.addmm(tc, ta, tb, beta=beta, alpha=alpha)
    else:  # baddbmm takes one batch dimension: fold the leading ones into it
        want = torch.baddbmm(tc.reshape(-1, m, n), ta.reshape(-1, m, k), tb.reshape(-1, k, n), beta=beta,
                             alpha=alpha).reshape(lead + (m, n))
    dt = "FLOAT16" if float16 else "FLOAT32"
    desc = _gemm_desc(dt, list(a.shape), list(b.shape), list(lead + (m, n)), with_c, trans_a, trans_b, alpha, beta)
    values = {"ATensor": a, "BTensor": b} | ({"CTensor": c} if with_c else {})
    # float32: 7-term dot products of N(0, 1) values, float32 ulps; float16: the output's 2**-11 rounding of
    # values up to ~10 (the float64 oracle sees the same float16-rounded inputs).
    tol = dict(atol=1e-2, rtol=2e-3) if float16 else dict(atol=1e-5, rtol=1e-5)
    WORST["gemm_torch", lead, trans_a, trans_b, with_c, float16] = assert_backends(desc, values, want.numpy(), **tol)


def test_gemm_fused_relu_matches_torch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    desc = dmlops.Gemm(a_tensor=td("FLOAT32", [2, 3, 4]), b_tensor=td("FLOAT32", [2, 4, 5]),
                       output_tensor=td("FLOAT32", [2, 3, 5]), trans_a="NONE", trans_b="NONE", alpha=2.0, beta=0.0,
                       fused_activation=dmlops.ActivationRelu())
    want = torch.relu(2.0 * torch.bmm(torch.from_numpy(a).double(), torch.from_numpy(b).double())).numpy()
    # float32 products of 4 N(0, 1) terms
    WORST["gemm_fused_relu"] = assert_backends(desc, {"ATensor": a, "BTensor": b}, want, atol=1e-5, rtol=1e-5)


def test_gemm_shape_error_message():
    desc = _gemm_desc("FLOAT32", [2, 3], [4, 5], [2, 5], False, "NONE", "NONE", 1.0, 0.0)
    with pytest.raises(dmlops.errors.ValidationError,
                       match=r"GEMM\.BTensor: Sizes \[4, 5\] do not match \{K, N\} = \[3, 5\]"):
        dmlops.run(desc, {"ATensor": np.zeros((2, 3), np.float32), "BTensor": np.zeros((4, 5), np.float32)},
                   backend="reference")


# ============================================================ CONVOLUTION vs torch, autograd and scipy
def _conv_desc(dt, x, w, y, bias, mode="CROSS_CORRELATION", direction="FORWARD", strides=None, dilations=None,
               start=None, end=None, output_padding=None, groups=1):
    dims = len(x) - 2
    return dmlops.Convolution(
        input_tensor=td(dt, list(x)), filter_tensor=td(dt, list(w)),
        bias_tensor=td(dt, [1, y[1]] + [1] * dims) if bias else None, output_tensor=td(dt, list(y)), mode=mode,
        direction=direction, strides=tuple(strides or [1] * dims), dilations=tuple(dilations or [1] * dims),
        start_padding=tuple(start or [0] * dims), end_padding=tuple(end or [0] * dims),
        output_padding=tuple(output_padding or [0] * dims), group_count=groups)


CONV_CASES = [  # (spatial input, kernel, stride, padding, dilation, groups, output_padding for the transposed form)
    ((9,), (3,), (2,), (1,), (1,), 1, (1,)),
    ((7, 6), (3, 2), (2, 1), (1, 0), (1, 2), 2, (1, 0)),
    ((4, 5, 3), (2, 3, 2), (1, 2, 1), (0, 1, 1), (1, 1, 2), 2, (0, 1, 0)),
]


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("spatial, kernel, stride, pad, dilation, groups, output_padding", CONV_CASES)
def test_convolution_forward_matches_torch_conv(spatial, kernel, stride, pad, dilation, groups, output_padding,
                                                float16):
    rng = np.random.default_rng(3)
    dims = len(spatial)
    c, m = 4, 6
    x = rng.standard_normal((2, c) + spatial).astype(np.float32)
    w = rng.standard_normal((m, c // groups) + kernel).astype(np.float32)
    bias = rng.standard_normal(m).astype(np.float32)
    if float16:
        x, w, bias = f16(x), f16(w), f16(bias)
    conv = getattr(torch.nn.functional, f"conv{dims}d")
    want = conv(*(torch.from_numpy(v.astype(np.float64)) for v in (x, w, bias)), stride=stride, padding=pad,
                dilation=dilation, groups=groups).numpy()
    dt = "FLOAT16" if float16 else "FLOAT32"
    desc = _conv_desc(dt, x.shape, w.shape, want.shape, True, strides=stride, dilations=dilation, start=pad, end=pad,
                      groups=groups)
    values = {"InputTensor": x, "FilterTensor": w, "BiasTensor": bias.reshape(desc.bias_tensor.sizes)}
    # float32: sums of up to 24 products of N(0, 1) values; float16: 2**-11 rounding of outputs up to ~15.
    tol = dict(atol=2e-2, rtol=2e-3) if float16 else dict(atol=1e-5, rtol=1e-5)
    WORST["conv_torch", spatial, float16] = assert_backends(desc, values, want, **tol)


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("spatial, kernel, stride, pad, dilation, groups, output_padding", CONV_CASES)
def test_convolution_backward_matches_torch_conv_transpose(spatial, kernel, stride, pad, dilation, groups,
                                                           output_padding, float16):
    rng = np.random.default_rng(4)
    dims = len(spatial)
    c, m = 4, 6
    x = rng.standard_normal((2, c) + spatial).astype(np.float32)
    w = rng.standard_normal((c, m // groups) + kernel).astype(np.float32)
    bias = rng.standard_normal(m).astype(np.float32)
    if float16:
        x, w, bias = f16(x), f16(w), f16(bias)
    conv_t = getattr(torch.nn.functional, f"conv_transpose{dims}d")
    want = conv_t(*(torch.from_numpy(v.astype(np.float64)) for v in (x, w, bias)), stride=stride, padding=pad,
                  output_padding=output_padding, groups=groups, dilation=dilation).numpy()
    # torch's output_padding (here <= padding) un-crops the end: DML EndPadding = padding - output_padding.
    end = [p - o for p, o in zip(pad, output_padding)]
    dt = "FLOAT16" if float16 else "FLOAT32"
    desc = _conv_desc(dt, x.shape, w.shape, want.shape, True, direction="BACKWARD", strides=stride,
                      dilations=dilation, start=pad, end=end, groups=groups)
    values = {"InputTensor": x, "FilterTensor": w, "BiasTensor": bias.reshape(desc.bias_tensor.sizes)}
    # as the forward test
    tol = dict(atol=2e-2, rtol=2e-3) if float16 else dict(atol=1e-5, rtol=1e-5)
    WORST["conv_transpose_torch", spatial, float16] = assert_backends(desc, values, want, **tol)


@pytest.mark.parametrize("size, kernel, stride, pad, dilation", [
    ((8, 7), (3, 3), (3, 2), (0, 1), (1, 1)), ((9, 6), (2, 3), (3, 2), (1, 0), (2, 1))])
def test_convolution_backward_is_the_input_gradient_of_forward(size, kernel, stride, pad, dilation):
    """BACKWARD with the forward's filter and padding is d(conv)/dX (autograd); input positions no forward
    window reached get a zero gradient, which is DML's OutputPadding (zeros appended)."""
    rng = np.random.default_rng(5)
    x = torch.from_numpy(rng.standard_normal((1, 2) + size)).requires_grad_()
    w = torch.from_numpy(rng.standard_normal((3, 2) + kernel))
    y = torch.nn.functional.conv2d(torch.nn.functional.pad(x, (pad[1], pad[1], pad[0], pad[0])), w, stride=stride,
                                   dilation=dilation)
    dy = torch.from_numpy(rng.standard_normal(tuple(y.shape)))
    (dx,) = torch.autograd.grad(y, x, dy)
    start, end, output_padding = [], [], []
    for i in range(2):
        window = (kernel[i] - 1) * dilation[i] + 1
        unread = (size[i] + 2 * pad[i] - window) % stride[i]  # padded-input positions after the last window
        start.append(pad[i])
        end.append(max(pad[i] - unread, 0))
        output_padding.append(max(unread - pad[i], 0))
    assert any(output_padding), "the case must exercise OutputPadding"
    desc = _conv_desc("FLOAT32", dy.shape, w.shape, x.shape, False, direction="BACKWARD", strides=stride,
                      dilations=dilation, start=start, end=end, output_padding=output_padding)
    values = {"InputTensor": dy.numpy().astype(np.float32), "FilterTensor": w.numpy().astype(np.float32)}
    # float32 inputs rounded from float64, sums of up to 12 products of N(0, 1) values
    WORST["conv_autograd", size] = assert_backends(desc, values, dx.numpy(), atol=1e-5, rtol=1e-5)


def _separable(fn, x, u, v, mode):
    """``fn`` (np.convolve or np.correlate) of ``x`` with the filter outer(u, v): along rows with v, columns with u."""
    rows = np.stack([fn(r, v, mode) for r in x])
    return np.stack([fn(c, u, mode) for c in rows.T]).T


@pytest.mark.parametrize("direction", ["FORWARD", "BACKWARD"])
def test_convolution_mode_is_true_convolution_numpy(direction):
    """Mode CONVOLUTION flips the filter along every spatial axis: FORWARD is np.convolve 'valid' (a true
    convolution); BACKWARD (stride 1, no padding) scatters the flipped filter, which is np.correlate 'full'.
    CROSS_CORRELATION is the other way round in both directions. The filter is separable, outer(u, v), with
    asymmetric u and v, so that a missing flip along either axis changes the result."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 6)).astype(np.float32)
    u, v = np.array([1, 2, -3], np.float32), np.array([0.5, -1], np.float32)
    w = np.outer(u, v)
    for mode, fn in (("CONVOLUTION", np.convolve), ("CROSS_CORRELATION", np.correlate)):
        if direction == "BACKWARD":
            fn = np.correlate if fn is np.convolve else np.convolve
        want = _separable(fn, x.astype(np.float64), u.astype(np.float64), v.astype(np.float64),
                          "valid" if direction == "FORWARD" else "full")
        desc = _conv_desc("FLOAT32", (1, 1) + x.shape, (1, 1) + w.shape, (1, 1) + want.shape, False, mode=mode,
                          direction=direction)
        values = {"InputTensor": x.reshape(desc.input_tensor.sizes),
                  "FilterTensor": w.reshape(desc.filter_tensor.sizes)}
        # float32 sums of 6 products of N(0, 1) values and small filter taps
        WORST["conv_numpy", direction, mode] = assert_backends(desc, values, want.reshape(desc.output_tensor.sizes),
                                                               atol=1e-5, rtol=1e-5)


def test_convolution_shape_error_message():
    desc = _conv_desc("FLOAT32", (1, 2, 5, 5), (3, 2, 3, 3), (2, 3, 4, 4), False)
    with pytest.raises(dmlops.errors.ValidationError,
                       match=r"CONVOLUTION\.OutputTensor: Sizes \[2, 3, 4, 4\] do not match .* = \[1, 3, 4, 4\]"):
        dmlops.run(desc, {"InputTensor": np.zeros((1, 2, 5, 5), np.float32),
                          "FilterTensor": np.zeros((3, 2, 3, 3), np.float32)}, backend="reference")


# ============================================================ REDUCE vs torch and a brute-force argmax
def _reduce_desc(function, dt, sizes, axes, out_type=None):
    out = [1 if i in axes else s for i, s in enumerate(sizes)]
    return dmlops.Reduce(function=function, input_tensor=td(dt, list(sizes)), output_tensor=td(out_type or dt, out),
                         axes=tuple(axes))


TORCH_REDUCTIONS = {
    "SUM": lambda t, d: torch.sum(t, d, keepdim=True),
    "AVERAGE": lambda t, d: torch.mean(t, d, keepdim=True),
    "MAX": lambda t, d: torch.amax(t, d, keepdim=True),
    "MIN": lambda t, d: torch.amin(t, d, keepdim=True),
    "L1": lambda t, d: torch.linalg.vector_norm(t, 1, d, keepdim=True),
    "L2": lambda t, d: torch.linalg.vector_norm(t, 2, d, keepdim=True),
    "SUM_SQUARE": lambda t, d: torch.sum(torch.square(t), d, keepdim=True),
    "LOG_SUM": lambda t, d: torch.log(torch.sum(t, d, keepdim=True)),
    "LOG_SUM_EXP": lambda t, d: torch.logsumexp(t, d, keepdim=True),
    "MULTIPLY": lambda t, d: torch.prod(t.flatten(d[0], d[-1]), d[0], keepdim=True).unsqueeze(d[0]),
}


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("function", sorted(TORCH_REDUCTIONS))
def test_reduce_matches_torch(function, float16):
    rng = np.random.default_rng(7)
    low = 0.5 if function in ("LOG_SUM", "MULTIPLY") else -2.0  # LOG_SUM needs a positive sum
    x = rng.uniform(low, 2.0, (3, 4, 5, 2)).astype(np.float32)
    if float16:
        x = f16(x)
    axes = [1, 2]  # adjacent, so that MULTIPLY's oracle can flatten them
    want = TORCH_REDUCTIONS[function](torch.from_numpy(x.astype(np.float64)), axes).numpy()
    desc = _reduce_desc(function, "FLOAT16" if float16 else "FLOAT32", x.shape, axes)
    # float32: sums of 20 values below 2 in another order; float16: 2**-11 output rounding (doubled at ties of
    # float32 vs float64 sums)
    tol = dict(atol=1e-5, rtol=2e-3) if float16 else dict(atol=1e-5, rtol=1e-5)
    WORST["reduce_torch", function, float16] = assert_backends(desc, {"InputTensor": x}, want, **tol)


def _brute_force_index(x, axes, pick):
    """Python loops: for each kept position, the first index (row-major over ``axes``) of the extreme value."""
    kept = [d for d in range(x.ndim) if d not in axes]
    out = np.zeros([1 if d in axes else s for d, s in enumerate(x.shape)], np.int64)
    for pos in itertools.product(*(range(x.shape[d]) for d in kept)):
        best, best_index = None, None
        for flat, sub in enumerate(itertools.product(*(range(x.shape[d]) for d in axes))):
            index = [0] * x.ndim
            for d, p in zip(kept, pos):
                index[d] = p
            for d, s in zip(axes, sub):
                index[d] = s
            value = x[tuple(index)]
            if best is None or pick(value, best):
                best, best_index = value, flat
        out[tuple(0 if d in axes else pos[kept.index(d)] for d in range(x.ndim))] = best_index
    return out


@pytest.mark.parametrize("function, out_type", [("ARGMAX", "UINT32"), ("ARGMIN", "INT64")])
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16", "INT32", "UINT8"])
def test_reduce_arg_multi_axis_ties_first_index(function, out_type, data_type):
    rng = np.random.default_rng(8)
    # few distinct values: many ties, which DML's REDUCE resolves to the first index
    x = rng.integers(0, 4, (3, 2, 4, 3)).astype(dmlops.DataType[data_type].numpy_dtype)
    axes = [0, 2]
    pick = (lambda v, best: v > best) if function == "ARGMAX" else (lambda v, best: v < best)
    want = _brute_force_index(x, axes, pick)
    assert_backends(_reduce_desc(function, data_type, x.shape, axes, out_type), {"InputTensor": x},
                    want.astype(dmlops.DataType[out_type].numpy_dtype), atol=0, rtol=0)  # indices: exact
    # one axis: torch.argmax/argmin document the first index too
    t = torch.from_numpy(x.astype(np.float64))
    want1 = (torch.argmax if function == "ARGMAX" else torch.argmin)(t, dim=3, keepdim=True).numpy()
    assert_backends(_reduce_desc(function, data_type, x.shape, [3], out_type), {"InputTensor": x},
                    want1.astype(dmlops.DataType[out_type].numpy_dtype), atol=0, rtol=0)


def test_reduce_axes_error_message():
    desc = _reduce_desc("SUM", "FLOAT32", (2, 3), [0])
    bad = desc.replace(axes=(0, 2))
    with pytest.raises(dmlops.errors.ValidationError,
                       match=r"REDUCE\.Axes: axis 2 is out of range for a 2-dimensional"):
        dmlops.run(bad, {"InputTensor": np.zeros((2, 3), np.float32)}, backend="reference")


# ============================================================ RANDOM_GENERATOR vs Random123
# Random123 tests/kat_vectors, the "philox4x32 10" lines: counter (4 words), key (2 words), result (4 words).
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


def _random_desc(n, with_state=True, state_sizes=(1, 1, 1, 6)):
    s = td("UINT32", list(state_sizes))
    return dmlops.RandomGenerator(input_state_tensor=s, output_tensor=td("UINT32", [n]),
                                  output_state_tensor=s if with_state else None, type="PHILOX_4X32_10")


def _state(counter, key):
    return np.array(list(counter) + list(key), np.uint32).reshape(1, 1, 1, 6)


def _philox_python(counter, key):
    """Philox4x32-10 on Python ints, straight from the paper (Salmon et al. 2011, section 4.2)."""
    c, k = list(counter), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) % 2 ** 32, (k[1] + 0xBB67AE85) % 2 ** 32]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 % 2 ** 32, (p0 >> 32) ^ c[3] ^ k[1], p0 % 2 ** 32]
    return c


@pytest.mark.parametrize("counter, key, result", KAT)
def test_random_generator_known_answers(counter, key, result):
    assert _philox_python(counter, key) == result  # the test's own oracle agrees with Random123
    assert_backends(_random_desc(4), {"InputStateTensor": _state(counter, key)}, np.array(result, np.uint32),
                    atol=0, rtol=0)  # bits: exact


def test_random_generator_blocks_and_counter_carry():
    """Block j is philox(counter + j) with the counter a 128-bit integer, element 0 least significant (carries
    run through all four words here); OutputStateTensor is counter + ceil(N / 4), the key unchanged."""
    counter, key = [0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFF, 5], [0x01234567, 0x89ABCDEF]
    n = 4 * 3 + 2  # 4 blocks, the last one truncated
    value = sum(w << (32 * i) for i, w in enumerate(counter))

    def words(v):
        return [(v >> (32 * i)) % 2 ** 32 for i in range(4)]

    want = [w for j in range(4) for w in _philox_python(words(value + j), key)][:n]
    want_state = _state(words(value + 4), key)
    assert_backends(_random_desc(n), {"InputStateTensor": _state(counter, key)}, np.array(want, np.uint32),
                    atol=0, rtol=0)
    assert_backends(_random_desc(n), {"InputStateTensor": _state(counter, key)}, want_state, atol=0, rtol=0,
                    name="OutputStateTensor")


def test_random_generator_chained_calls_continue_the_stream():
    """Feeding OutputStateTensor back continues where a single larger call would go (docs' Remarks)."""
    state = _state([7, 0, 0, 0], [11, 13])
    whole = dmlops.run(_random_desc(12), {"InputStateTensor": state}, backend="reference")["OutputTensor"]
    for backend in BACKENDS:
        first = dmlops.run(_random_desc(5), {"InputStateTensor": state}, backend=backend)  # 2 blocks
        second = dmlops.run(_random_desc(4), {"InputStateTensor": first["OutputStateTensor"]}, backend=backend)
        np.testing.assert_array_equal(first["OutputTensor"], whole[:5], err_msg=backend)
        np.testing.assert_array_equal(second["OutputTensor"], whole[8:], err_msg=backend)


def test_random_generator_large_output_identical_and_uniform():
    n = 1 << 16
    out = run_all(_random_desc(n, with_state=False, state_sizes=(6,)),
                  {"InputStateTensor": np.arange(6, dtype=np.uint32)})
    ref = out["reference"]["OutputTensor"]
    for backend in BACKENDS:
        np.testing.assert_array_equal(out[backend]["OutputTensor"], ref, err_msg=backend)  # bit-identical
    bits = np.unpackbits(ref.view(np.uint8)).reshape(n, 32).mean(axis=0)
    # each bit is 1 with probability 1/2: 6 standard deviations of a mean of 65536 coin flips is 0.0117
    np.testing.assert_allclose(bits, 0.5, atol=0.0117)


def test_random_generator_state_shape_error_message():
    desc = _random_desc(4, state_sizes=(1, 1, 1, 5))
    with pytest.raises(dmlops.errors.ValidationError,
                       match=r"RANDOM_GENERATOR\.InputStateTensor: Sizes \[1, 1, 1, 5\] do not match \{1, 1, 1, 6\}"):
        dmlops.run(desc, {"InputStateTensor": np.zeros((1, 1, 1, 5), np.uint32)}, backend="reference")
