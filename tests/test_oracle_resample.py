"""UPSAMPLE_2D, RESAMPLE, RESAMPLE1/2/3 and RESAMPLE_GRAD(1) against independent implementations, on every dmlops
backend (reference, onnxruntime, torch).

Oracles:
* ONNX's node test cases for Resize and Upsample (nearest and linear; cubic and tf_crop_and_resize have no DML
  counterpart), regenerated in memory: each node becomes the RESAMPLE* descriptor that computes it, by inverting
  ONNX's coordinate transformation (x_original = (o - OutputPixelOffset) / Scale - InputPixelOffset) and its
  nearest_mode (floor / ceil: RoundingDirection; round_prefer_ceil: RESAMPLE1's floor(x + 0.5);
  round_prefer_floor: ceil(x - 0.5), i.e. INCREASING with InputPixelOffset + 0.5). Nearest is compared exactly,
  linear to float32 rounding (ONNX's reference weights in another order).
* torch.nn.functional.interpolate (nearest, nearest-exact, linear, bilinear, trilinear, align_corners both ways,
  bilinear antialias) and ONNX Runtime's CPU Resize(antialias=1) for RESAMPLE3's antialiasing.
* torch autograd of F.interpolate for RESAMPLE_GRAD(1), through DirectML's negated pixel offsets (a forward with
  offsets (a, b) is transposed by a gradient descriptor with offsets (-a, -b); dmlops/ops/_resample.py), and the
  adjoint identity <F x, g> = <x, G g> between each forward and gradient pair.
"""
import numpy as np
import pytest

import dmlops
from dmlops.ops import _resample as rs
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
f32 = np.float32


def run_all(desc, inputs, want, what, atol=0.0, rtol=0.0, out="OutputTensor"):
    assert dmlops.problems(desc, "6.4") == [], what
    for b in BACKENDS:
        got = np.asarray(dmlops.run(desc, inputs, backend=b)[out])
        assert got.dtype == want.dtype and got.shape == want.shape, f"{what} [{b}]: {got.dtype}{got.shape}"
        if atol == 0 and rtol == 0:
            assert np.array_equal(got, want), f"{what} [{b}]:\n{got}\n!=\n{want}"
        else:
            np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, err_msg=f"{what} [{b}]")


def desc(op, x_shape, y_shape, mode, scales, in_off, out_off, data_type="FLOAT32", **extra):
    from dmlops import descs

    cls = {"RESAMPLE": descs.Resample, "RESAMPLE1": descs.Resample1, "RESAMPLE2": descs.Resample2,
           "RESAMPLE3": descs.Resample3, "RESAMPLE_GRAD": descs.ResampleGrad,
           "RESAMPLE_GRAD1": descs.ResampleGrad1}[op]
    fields = dict(interpolation_mode=mode, scales=tuple(float(s) for s in scales), **extra)
    if op != "RESAMPLE":
        fields.update(input_pixel_offsets=tuple(float(v) for v in in_off),
                      output_pixel_offsets=tuple(float(v) for v in out_off))
    td = dmlops.TensorDesc
    if op.startswith("RESAMPLE_GRAD"):
        return cls(input_gradient_tensor=td(data_type, list(x_shape)),
                   output_gradient_tensor=td(data_type, list(y_shape)), **fields)
    return cls(input_tensor=td(data_type, list(x_shape)), output_tensor=td(data_type, list(y_shape)), **fields)


# ============================================================ ONNX node test cases
CASES = generated(["resize", "upsample"])
UNSUPPORTED = ("cubic", "tf_crop_and_resize")


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


def _onnx_scales(case):
    """Per-axis float32 scale as ONNX Resize/Upsample uses it, and the output shape."""
    node, ins, outs = case.node, case.inputs, case.outputs
    x, y = ins[0], outs[0]
    n = x.ndim
    axes = list(attribute(node, "axes", None) or range(n))
    feeds = dict(zip([i for i in node.input if i], ins))  # the node's inputs by name (omitted ones absent)
    scales = [1.0] * n
    if "scales" in feeds:
        for a, s in zip(axes, feeds["scales"]):
            scales[a] = float(f32(s))
    else:
        sizes = feeds["sizes"]
        ratios = {a: float(f32(s) / f32(x.shape[a])) for a, s in zip(axes, sizes)}
        policy = _text(attribute(node, "keep_aspect_ratio_policy", "stretch"))
        if policy != "stretch":
            r = (min if policy == "not_larger" else max)(ratios.values())
            ratios = {a: r for a in axes}
        for a, r in ratios.items():
            scales[a] = r
    return x, y, scales


def _mapping(case):
    """(op, DML scales, InputPixelOffsets, OutputPixelOffsets, extra fields) for an ONNX Resize/Upsample node."""
    node = case.node
    x, y, scales = _onnx_scales(case)
    mode = _text(attribute(node, "mode", "nearest"))
    ctm = _text(attribute(node, "coordinate_transformation_mode",
                          "asymmetric" if node.op_type == "Upsample" else "half_pixel"))
    nearest_mode = _text(attribute(node, "nearest_mode",
                                   "floor" if node.op_type == "Upsample" else "round_prefer_floor"))
    dml_scales, ins, outs = [], [], []
    for a in range(x.ndim):
        n_in, n_out, s = x.shape[a], y.shape[a], scales[a]
        resized = n_in * s  # ONNX's length_resized: InputSize * scale, not the integer OutputSize
        if ctm == "half_pixel":
            io, oo = 0.5, -0.5
        elif ctm == "half_pixel_symmetric":
            adjustment = n_out / resized
            io, oo = 0.5 - (n_in / 2) * (1 - adjustment), -0.5
        elif ctm == "pytorch_half_pixel":
            io, oo = (0.5, -0.5) if n_out > 1 else (0.0, 0.0)
        elif ctm == "asymmetric":
            io, oo = 0.0, 0.0
        elif ctm == "tf_half_pixel_for_nn":
            io, oo = 0.0, -0.5
        elif ctm == "align_corners":
            io, oo = 0.0, 0.0
            s = (resized - 1) / (n_in - 1) if resized > 1 and n_in > 1 else 1.0
        else:
            raise AssertionError(ctm)
        dml_scales.append(s)
        ins.append(io)
        outs.append(oo)
    if mode == "linear":
        return "LINEAR", None, dml_scales, ins, outs
    rounding = {"floor": "DECREASING", "ceil": "INCREASING", "round_prefer_ceil": "HALF_UP",
                "round_prefer_floor": "INCREASING"}[nearest_mode]
    if nearest_mode == "round_prefer_floor":  # ceil(x - 0.5)
        ins = [v + 0.5 for v in ins]
    return "NEAREST_NEIGHBOR", rounding, dml_scales, ins, outs


NODE_CASES = sorted(k for k, c in CASES.items()
                    if not any(u in str(c.node) for u in UNSUPPORTED) and attribute(c.node, "antialias", 0) == 0)


def test_node_cases_found():
    assert len(NODE_CASES) >= 20, NODE_CASES


@pytest.mark.parametrize("name", NODE_CASES)
def test_onnx_node_case(name):
    case = CASES[name]
    x, y = case.inputs[0].astype(f32), case.outputs[0].astype(f32)
    mode, rounding, scales, ins, outs = _mapping(case)
    ops = []
    if mode == "LINEAR":
        ops += [("RESAMPLE1", {}), ("RESAMPLE2", {"rounding_direction": "DECREASING"}),
                ("RESAMPLE3", {"rounding_direction": "INCREASING", "antialiased": False})]
        if all(v == 0.5 for v in ins) and all(v == -0.5 for v in outs):
            ops.append(("RESAMPLE", {}))
    elif rounding == "HALF_UP":
        ops += [("RESAMPLE1", {}), ("RESAMPLE2", {"rounding_direction": "DECREASING"}),
                ("RESAMPLE3", {"rounding_direction": "DECREASING", "antialiased": True})]
    else:
        ops += [("RESAMPLE2", {"rounding_direction": rounding}),
                ("RESAMPLE3", {"rounding_direction": rounding, "antialiased": True})]  # nearest: no effect
    tol = dict(atol=1e-6, rtol=1e-6) if mode == "LINEAR" else {}
    for op, kw in ops:
        i = list(ins)
        if op != "RESAMPLE1" and rounding == "HALF_UP":  # floor(x + 0.5) as DECREASING with InputPixelOffset - 0.5
            i = [v - 0.5 for v in ins]
        d = desc(op, x.shape, y.shape, mode, scales, i, outs, **kw)
        run_all(d, {"InputTensor": x}, y, f"{name} as {op}", **tol)
        if mode == "NEAREST_NEIGHBOR":  # copies: FLOAT16 gives the same elements
            d16 = desc(op, x.shape, y.shape, mode, scales, i, outs, data_type="FLOAT16", **kw)
            run_all(d16, {"InputTensor": x.astype(np.float16)}, y.astype(np.float16), f"{name} as {op} float16")


def test_onnx_upsample_as_upsample_2d():
    case = CASES["test_upsample_nearest"]
    x, y = case.inputs[0], case.outputs[0]
    h, w = (int(s) for s in case.inputs[1][2:])
    d = dmlops.Upsample2d(input_tensor=dmlops.TensorDesc("FLOAT32", list(x.shape)),
                          output_tensor=dmlops.TensorDesc("FLOAT32", list(y.shape)),
                          scale_size=dmlops.Size2D(width=w, height=h), interpolation_mode="NEAREST_NEIGHBOR")
    run_all(d, {"InputTensor": x}, y, "upsample_nearest as UPSAMPLE_2D")


@pytest.mark.parametrize("name", ["test_resize_downsample_scales_linear_antialias",
                                  "test_resize_downsample_sizes_linear_antialias"])
def test_onnx_antialias_cases_below_the_docs_threshold_are_linear(name):
    """ONNX's antialias cases downscale by 0.5 and 0.75: 1 / Scale <= 2, where RESAMPLE3's page applies no
    antialiasing; dmlops gives plain linear interpolation there (ONNX's own linear, antialias=0)."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    case = CASES[name]
    x, y = case.inputs[0].astype(f32), case.outputs[0].astype(f32)
    _, _, scales, ins, outs = _mapping(case)
    node = helper.make_node("Resize", list(case.node.input), list(case.node.output), mode="linear")
    feeds = dict(zip([i for i in case.node.input if i], case.inputs))
    linear = ReferenceEvaluator(node).run(None, feeds)[0].astype(f32)
    d = desc("RESAMPLE3", x.shape, y.shape, "LINEAR", scales, ins, outs, rounding_direction="INCREASING",
             antialiased=True)
    run_all(d, {"InputTensor": x}, linear, name, atol=1e-6, rtol=1e-6)
    assert not np.allclose(linear, y, atol=1e-3)  # the case itself is different: ONNX filters every downscale


# ============================================================ torch.nn.functional.interpolate
def _torch_interp(x, size, **kw):
    return F.interpolate(torch.from_numpy(x), size=size, **kw).numpy()


TORCH_SHAPES = [((1, 2, 3, 5), (7, 9)), ((2, 1, 5, 7), (3, 3)), ((1, 1, 4, 6), (9, 13)), ((1, 3, 7, 3), (2, 11))]


@pytest.mark.parametrize("shape,size", TORCH_SHAPES)
def test_torch_nearest(shape, size):
    """torch 'nearest' is floor(o * In / Out): RESAMPLE2 DECREASING with offsets (0, 0) (coprime sizes: no ties)."""
    x = np.random.default_rng(1).uniform(-3, 3, shape).astype(f32)
    y = _torch_interp(x, size, mode="nearest")
    scales = [1, 1] + [o / i for o, i in zip(size, shape[2:])]
    for op in ("RESAMPLE2", "RESAMPLE3"):
        extra = {"antialiased": False} if op == "RESAMPLE3" else {}
        d = desc(op, shape, y.shape, "NEAREST_NEIGHBOR", scales, [0] * 4, [0] * 4, rounding_direction="DECREASING",
                 **extra)
        run_all(d, {"InputTensor": x}, y, f"nearest {shape}->{size} {op}")


@pytest.mark.parametrize("shape,size", [((1, 2, 3, 5), (7, 9)), ((1, 1, 5, 7), (3, 3)), ((1, 1, 3, 3), (9, 5))])
def test_torch_nearest_exact(shape, size):
    """torch 'nearest-exact' is floor((o + 0.5) * In / Out): RESAMPLE and RESAMPLE1 (0.5, -0.5) (odd sizes: no
    ties)."""
    x = np.random.default_rng(2).uniform(-3, 3, shape).astype(f32)
    y = _torch_interp(x, size, mode="nearest-exact")
    scales = [1, 1] + [o / i for o, i in zip(size, shape[2:])]
    run_all(desc("RESAMPLE", shape, y.shape, "NEAREST_NEIGHBOR", scales, None, None), {"InputTensor": x}, y,
            "nearest-exact RESAMPLE")
    run_all(desc("RESAMPLE1", shape, y.shape, "NEAREST_NEIGHBOR", scales, [0.5] * 4, [-0.5] * 4),
            {"InputTensor": x}, y, "nearest-exact RESAMPLE1")


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,size", TORCH_SHAPES)
def test_torch_bilinear(shape, size, align_corners):
    x = np.random.default_rng(3).uniform(-3, 3, shape).astype(f32)
    y = _torch_interp(x, size, mode="bilinear", align_corners=align_corners)
    if align_corners:
        scales = [1, 1] + [(o - 1) / (i - 1) for o, i in zip(size, shape[2:])]
        ins, outs = [0] * 4, [0] * 4
    else:
        scales = [1, 1] + [o / i for o, i in zip(size, shape[2:])]
        ins, outs = [0.5] * 4, [-0.5] * 4
    for op in ("RESAMPLE1", "RESAMPLE2", "RESAMPLE3"):
        extra = {"RESAMPLE1": {}, "RESAMPLE2": {"rounding_direction": "INCREASING"},
                 "RESAMPLE3": {"rounding_direction": "INCREASING", "antialiased": False}}[op]
        run_all(desc(op, shape, y.shape, "LINEAR", scales, ins, outs, **extra), {"InputTensor": x}, y,
                f"bilinear {shape}->{size} ac={align_corners} {op}", atol=2e-6, rtol=2e-6)


def test_torch_linear_1d_and_trilinear():
    rng = np.random.default_rng(4)
    x = rng.uniform(-3, 3, (2, 3, 5)).astype(f32)
    y = _torch_interp(x, (8,), mode="linear", align_corners=False)
    run_all(desc("RESAMPLE1", x.shape, y.shape, "LINEAR", [1, 1, 8 / 5], [0.5] * 3, [-0.5] * 3),
            {"InputTensor": x}, y, "linear 1d", atol=2e-6, rtol=2e-6)
    x5 = rng.uniform(-3, 3, (1, 2, 3, 4, 5)).astype(f32)
    y5 = _torch_interp(x5, (5, 3, 7), mode="trilinear", align_corners=False)
    scales = [1, 5 / 3, 3 / 4, 7 / 5]  # DirectML's 4 dimensions at most: the batch of 1 left out
    run_all(desc("RESAMPLE", x5.shape[1:], y5.shape[1:], "LINEAR", scales, None, None), {"InputTensor": x5[0]},
            y5[0], "trilinear", atol=2e-6, rtol=2e-6)


@pytest.mark.parametrize("mode", ["NEAREST_NEIGHBOR", "LINEAR"])
def test_torch_upsample_2d(mode):
    x = np.random.default_rng(5).uniform(-3, 3, (2, 3, 4, 5)).astype(f32)
    kw = {"mode": "nearest"} if mode == "NEAREST_NEIGHBOR" else {"mode": "bilinear", "align_corners": False}
    y = F.interpolate(torch.from_numpy(x), scale_factor=(3, 2), **kw).numpy()
    d = dmlops.Upsample2d(input_tensor=dmlops.TensorDesc("FLOAT32", list(x.shape)),
                          output_tensor=dmlops.TensorDesc("FLOAT32", list(y.shape)),
                          scale_size=dmlops.Size2D(width=2, height=3), interpolation_mode=mode)
    tol = {} if mode == "NEAREST_NEIGHBOR" else dict(atol=2e-6, rtol=2e-6)
    run_all(d, {"InputTensor": x}, y, f"UPSAMPLE_2D {mode}", **tol)


@pytest.mark.parametrize("shape,size", [((1, 2, 16, 12), (3, 5)), ((2, 1, 21, 9), (4, 2)), ((1, 1, 9, 30), (4, 7))])
def test_torch_antialias(shape, size):
    """RESAMPLE3 Antialiased where 1 / Scale > 2 in both dimensions, against torch's bilinear antialias."""
    x = np.random.default_rng(6).uniform(-3, 3, shape).astype(f32)
    y = _torch_interp(x, size, mode="bilinear", align_corners=False, antialias=True)
    scales = [1, 1] + [o / i for o, i in zip(size, shape[2:])]
    assert all(1 / s > 2 for s in scales[2:])
    d = desc("RESAMPLE3", shape, y.shape, "LINEAR", scales, [0.5] * 4, [-0.5] * 4, rounding_direction="INCREASING",
             antialiased=True)
    run_all(d, {"InputTensor": x}, y, f"antialias {shape}->{size}", atol=2e-6, rtol=1e-5)


def test_onnxruntime_cpu_antialias():
    """RESAMPLE3 Antialiased against ONNX Runtime's CPU Resize(linear, antialias=1, exclude_outside=1), Scale 0.25
    and 0.3: taps outside the tensor dropped and the weights renormalized, as torch's antialias. ONNX's default
    exclude_outside=0 reads them as the edge element instead (up to 0.19 apart here); which of the two DirectML
    does is unverified (no RESAMPLE3 vectors)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    x = np.random.default_rng(7).uniform(-3, 3, (1, 2, 12, 10)).astype(f32)
    scales = np.array([1, 1, 0.25, 0.3], f32)
    node = helper.make_node("Resize", ["X", "", "S"], ["Y"], mode="linear", antialias=1, exclude_outside=1)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              [helper.make_tensor("S", TensorProto.FLOAT, [4], scales)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    from dmlops.backends.onnxruntime import session_config

    options, providers = session_config("cpu", ort)  # as dmlops configures its own sessions
    sess = ort.InferenceSession(model.SerializeToString(), options, providers=providers)
    y = sess.run(None, {"X": x})[0]
    assert y.shape == (1, 2, 3, 3)
    d = desc("RESAMPLE3", x.shape, y.shape, "LINEAR", scales, [0.5] * 4, [-0.5] * 4, rounding_direction="INCREASING",
             antialiased=True)
    run_all(d, {"InputTensor": x}, y, "ORT antialias", atol=2e-6, rtol=1e-5)


# ============================================================ gradients
def _autograd(x_shape, size, g, **kw):
    x = torch.zeros(x_shape, dtype=torch.float32, requires_grad=True)
    y = F.interpolate(x, size=size, **kw)
    y.backward(torch.from_numpy(g))
    return x.grad.numpy()


GRAD_SHAPES = [((1, 2, 3, 5), (7, 9)), ((2, 1, 6, 6), (3, 4)), ((1, 1, 4, 3), (10, 7))]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,size", GRAD_SHAPES)
def test_torch_autograd_bilinear(shape, size, align_corners):
    """RESAMPLE_GRAD(1) LINEAR = autograd of bilinear; the forward's offsets (0.5, -0.5) are given negated."""
    rng = np.random.default_rng(8)
    g = rng.uniform(-3, 3, shape[:2] + size).astype(f32)
    want = _autograd(shape, size, g, mode="bilinear", align_corners=align_corners)
    if align_corners:
        scales = [1, 1] + [(o - 1) / (i - 1) for o, i in zip(size, shape[2:])]
        ins, outs = [0] * 4, [0] * 4
    else:
        scales = [1, 1] + [o / i for o, i in zip(size, shape[2:])]
        ins, outs = [-0.5] * 4, [0.5] * 4
    for op, extra in (("RESAMPLE_GRAD", {}), ("RESAMPLE_GRAD1", {"rounding_direction": "DECREASING"})):
        d = desc(op, g.shape, shape, "LINEAR", scales, ins, outs, **extra)
        run_all(d, {"InputGradientTensor": g}, want, f"{op} bilinear ac={align_corners}", atol=1e-5, rtol=1e-5,
                out="OutputGradientTensor")


@pytest.mark.parametrize("shape,size", GRAD_SHAPES)
def test_torch_autograd_nearest(shape, size):
    """RESAMPLE_GRAD1 DECREASING (0, 0) = autograd of 'nearest'; RESAMPLE_GRAD (-0.5, 0.5) = of 'nearest-exact'."""
    rng = np.random.default_rng(9)
    g = rng.uniform(-3, 3, shape[:2] + size).astype(f32)
    scales = [1, 1] + [o / i for o, i in zip(size, shape[2:])]
    want = _autograd(shape, size, g, mode="nearest")
    d = desc("RESAMPLE_GRAD1", g.shape, shape, "NEAREST_NEIGHBOR", scales, [0] * 4, [0] * 4,
             rounding_direction="DECREASING")
    run_all(d, {"InputGradientTensor": g}, want, "nearest grad", atol=1e-5, rtol=1e-5, out="OutputGradientTensor")
    want = _autograd(shape, size, g, mode="nearest-exact")
    d = desc("RESAMPLE_GRAD", g.shape, shape, "NEAREST_NEIGHBOR", scales, [-0.5] * 4, [0.5] * 4)
    run_all(d, {"InputGradientTensor": g}, want, "nearest-exact grad", atol=1e-5, rtol=1e-5,
            out="OutputGradientTensor")


@pytest.mark.parametrize("mode", ["NEAREST_NEIGHBOR", "LINEAR"])
@pytest.mark.parametrize("pair", [("RESAMPLE1", "RESAMPLE_GRAD", None), ("RESAMPLE2", "RESAMPLE_GRAD1", "INCREASING"),
                                  ("RESAMPLE2", "RESAMPLE_GRAD1", "DECREASING")])
def test_adjoint(pair, mode):
    """<F x, g> = <x, G g>: the gradient with the offsets swapped (its InputPixelOffsets the forward's
    OutputPixelOffsets and the reverse) is the transpose of the forward (float64 sums)."""
    fwd, bwd, direction = pair
    rng = np.random.default_rng(10)
    x_shape, y_shape = (2, 3, 5, 4), (3, 2, 7, 3)
    scales, ins, outs = [1.4, 0.8, 1.3, 0.7], [0.3, 0.5, 0.0, 0.6], [-0.2, -0.5, 0.25, 0.0]
    extra = {"rounding_direction": direction} if direction else {}
    x = rng.uniform(-3, 3, x_shape).astype(f32)
    g = rng.uniform(-3, 3, y_shape).astype(f32)
    for b in BACKENDS:
        y = dmlops.run(desc(fwd, x_shape, y_shape, mode, scales, ins, outs, **extra), {"InputTensor": x}, backend=b)
        gx = dmlops.run(desc(bwd, y_shape, x_shape, mode, scales, outs, ins, **extra),
                        {"InputGradientTensor": g}, backend=b)
        lhs = np.sum(np.asarray(y["OutputTensor"], np.float64) * g)
        rhs = np.sum(x.astype(np.float64) * np.asarray(gx["OutputGradientTensor"], np.float64))
        assert abs(lhs - rhs) <= 1e-4 * max(1.0, abs(lhs)), (b, lhs, rhs)


def test_grad_reads_offsets_swapped():
    """The vectors' fact the gradient lowering is built on: with offsets (0.5, -0.5) the gradient of a nearest x2
    sends gradient rows {0}, {1, 2}, {3, 4, 5} to rows 0, 1, 2 (RESAMPLE_GRAD
    float32_nearest_neighbor_scales_2.0_1.5), not RESAMPLE1's {0, 1}, {2, 3}, {4, 5}."""
    axis = rs.grad_axis(3, 6, 2.0, 0.5, -0.5, linear=False, rounding="half_up")
    rows = [[int(o) for o, w in zip(i, ws) if w] for i, ws in zip(axis.index, axis.weight)]
    assert rows == [[0], [1, 2], [3, 4, 5]]
    fwd = rs.forward_axis(3, 6, 2.0, 0.5, -0.5, linear=False, rounding="half_up")
    assert fwd.index.tolist() == [0, 0, 1, 1, 2, 2]


def test_grad_swaps_the_offsets_rather_than_negating_them():
    """RESAMPLE_GRAD sample_linear_3d_down (offsets 0.3 / -0.2, where swapping and negating differ): DirectML reads
    x = (o - InputPixelOffset) / Scale - OutputPixelOffset. Scale 0.5, InputPixelOffset 0.3, OutputPixelOffset
    -0.2: o = 0, 1 read x = -0.4 (clamped to 0) and 1.6, so a linear gradient [1, 2] over 4 elements sends 1 to
    element 0, 2 * 0.4 = 0.8 to element 1 and 2 * 0.6 = 1.2 to element 2 (negated offsets, x = (o - 0.2) / 0.5 +
    0.3 = -0.1 and 1.9, would send [1, 0.2, 1.8, 0])."""
    d = desc("RESAMPLE_GRAD", (2,), (4,), "LINEAR", [0.5], [0.3], [-0.2])
    for backend in BACKENDS:
        got = dmlops.run(d, {"InputGradientTensor": np.array([1, 2], f32)}, backend=backend)["OutputGradientTensor"]
        np.testing.assert_allclose(got, [1, 0.8, 1.2, 0], rtol=1e-6, err_msg=backend)


@pytest.mark.parametrize("op", ["RESAMPLE", "RESAMPLE1"])
@pytest.mark.parametrize("data_type", ["INT8", "UINT8"])
def test_integer_nearest_rounds_down(op, data_type):
    """RESAMPLE sample_uint8_nearest: an integer tensor reads floor(x) where a float one reads floor(x + 0.5).
    Scale 1.5 over 4 columns: x = (o + 0.5) / 1.5 - 0.5 = -0.17, 0.5, 1.17, 1.83, 2.5, 3.17."""
    values = np.array([1, 2, 3, 4])
    for dt, want in ((data_type, [1, 1, 2, 2, 3, 4]), ("FLOAT32", [1, 2, 2, 3, 4, 4])):
        offsets = {} if op == "RESAMPLE" else {"in_off": [0.5] * 4, "out_off": [-0.5] * 4}
        d = desc(op, (1, 1, 1, 4), (1, 1, 1, 6), "NEAREST_NEIGHBOR", [1, 1, 1, 1.5],
                 offsets.get("in_off"), offsets.get("out_off"), data_type=dt)
        x = values.astype(np.dtype(dt.lower())).reshape(1, 1, 1, 4)
        for backend in BACKENDS:
            got = dmlops.run(d, {"InputTensor": x}, backend=backend)["OutputTensor"]
            assert got.ravel().tolist() == want, (dt, backend)
