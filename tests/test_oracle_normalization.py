"""B12 normalization (MEAN_VARIANCE_NORMALIZATION, _1, _2, LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION,
LOCAL_RESPONSE_NORMALIZATION_GRAD) and ELEMENT_WISE_CLIP_GRAD1 against independent oracles, on every dmlops backend
(reference, onnxruntime, torch).

Oracles: ONNX's node test cases regenerated in memory (MeanVarianceNormalization, InstanceNormalization,
GroupNormalization, LayerNormalization, RMSNormalization, LRN, LpNormalization), torch's functions in float64
(instance_norm, layer_norm, group_norm, local_response_norm, avg_pool2d, normalize), torch autograd for the
gradients, and hand arithmetic where DirectML's reading (Epsilon inside the square root, the window of an even
LocalSize, the open interval of CLIP_GRAD1) differs from the other frameworks. Refusal messages of the rules in
these operators' check() are asserted at the end.
"""
import numpy as np
import pytest

import dmlops
from dmlops.descs import (ElementWiseClipGrad1, LocalResponseNormalization, LocalResponseNormalizationGrad,
                          LpNormalization, MeanVarianceNormalization, MeanVarianceNormalization1,
                          MeanVarianceNormalization2)
from dmlops.sample import td
from dmlops.types import FeatureLevel
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
# (atol, rtol, why) of dmlops's FLOAT32 results against a float64 oracle.
F32 = (2e-6, 1e-5, "float32 sums, square roots and pow of O(1) values: a few float32 steps of the largest term")
F16 = (4e-3, 4e-3, "FLOAT16 statistics and stores (toward zero): one or two FLOAT16 steps")


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def check_all(desc, inputs, want: dict, bound=F32, what=""):
    atol, rtol, why = bound
    for b, got in run_all(desc, inputs).items():
        for name, w in want.items():
            np.testing.assert_allclose(np.asarray(got[name]).astype(np.float64), np.asarray(w, np.float64),
                                       atol=atol, rtol=rtol, equal_nan=True, err_msg=f"{what} {name} on {b} ({why})")


def f64(a):
    return torch.as_tensor(np.asarray(a, np.float64))


def mvn1(sizes, axes, eps, scale=None, bias=None, normvar=True, dt="FLOAT32"):
    return MeanVarianceNormalization1(
        input_tensor=td(dt, sizes), scale_tensor=td(dt, scale) if scale is not None else None,
        bias_tensor=td(dt, bias) if bias is not None else None, output_tensor=td(dt, sizes), axes=tuple(axes),
        normalize_variance=normvar, epsilon=eps)


def mvn2(sizes, axes, use_mean, use_variance, eps, scale=None, bias=None, dt="FLOAT32"):
    return MeanVarianceNormalization2(
        input_tensor=td(dt, sizes), scale_tensor=td(dt, scale) if scale is not None else None,
        bias_tensor=td(dt, bias) if bias is not None else None, output_tensor=td(dt, sizes), axes=tuple(axes),
        use_mean=use_mean, use_variance=use_variance, epsilon=eps)


def lrn(sizes, cross, size, alpha, beta, bias, dt="FLOAT32"):
    return LocalResponseNormalization(input_tensor=td(dt, sizes), output_tensor=td(dt, sizes), cross_channel=cross,
                                      local_size=size, alpha=alpha, beta=beta, bias=bias)


def lrn_grad(sizes, cross, size, alpha, beta, bias, dt="FLOAT32"):
    t = td(dt, sizes)
    return LocalResponseNormalizationGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t,
                                          cross_channel=cross, local_size=size, alpha=alpha, beta=beta, bias=bias)


def lp(sizes, axis, p, eps, dt="FLOAT32"):
    return LpNormalization(input_tensor=td(dt, sizes), output_tensor=td(dt, sizes), axis=axis, epsilon=eps, p=p)


# ============================================================ ONNX node test cases
NODE = generated(["meanvariancenormalization", "instance_normalization", "groupnormalization", "layernormalization",
                  "rmsnormalization", "lrn", "lpnormalization"])


def _cases(op_type):
    return sorted(n for n, c in NODE.items() if c.node.op_type == op_type)


def test_the_node_cases_are_there():
    for op in ("MeanVarianceNormalization", "InstanceNormalization", "GroupNormalization", "LayerNormalization",
               "RMSNormalization", "LRN", "LpNormalization"):
        assert _cases(op), op


@pytest.mark.parametrize("name", _cases("MeanVarianceNormalization"))
def test_mvn1_matches_onnx_mean_variance_normalization(name):
    # ONNX: (X - mean) / (sqrt(variance) + 1e-9) over axes (default {0, 2, 3}); Epsilon 0 here, inside the root.
    case = NODE[name]
    x = case.inputs[0].astype(np.float32)
    axes = [a % x.ndim for a in attribute(case.node, "axes", [0, 2, 3])]
    check_all(mvn1(x.shape, axes, 0.0), {"InputTensor": x}, {"OutputTensor": case.outputs[0]}, what=name)


@pytest.mark.parametrize("name", _cases("InstanceNormalization"))
@pytest.mark.parametrize("version", [0, 1])
def test_mvn_and_mvn1_match_onnx_instance_normalization(name, version):
    case = NODE[name]
    x, s, b = (a.astype(np.float32) for a in case.inputs)
    eps = attribute(case.node, "epsilon", 1e-5)
    stat = [1, x.shape[1]] + [1] * (x.ndim - 2)
    inputs = {"InputTensor": x, "ScaleTensor": s.reshape(stat), "BiasTensor": b.reshape(stat)}
    if version == 0:  # MVN CrossChannel FALSE: {H, W}
        desc = MeanVarianceNormalization(input_tensor=td("FLOAT32", x.shape), scale_tensor=td("FLOAT32", stat),
                                         bias_tensor=td("FLOAT32", stat), output_tensor=td("FLOAT32", x.shape),
                                         cross_channel=False, normalize_variance=True, epsilon=eps)
    else:
        desc = mvn1(x.shape, range(2, x.ndim), eps, stat, stat)
    check_all(desc, inputs, {"OutputTensor": case.outputs[0]}, what=name)


@pytest.mark.parametrize("name", _cases("GroupNormalization"))
def test_mvn1_matches_onnx_group_normalization(name):
    # GroupNormalization-21 = MVN1 over {C/G, H, W} of X seen as {N, G, C/G, H, W}, per-channel Scale and Bias.
    case = NODE[name]
    x, s, b = (a.astype(np.float32) for a in case.inputs)
    g = attribute(case.node, "num_groups")
    eps = attribute(case.node, "epsilon", 1e-5)
    n, c = x.shape[:2]
    shape = [n, g, c // g, *x.shape[2:]]
    stat = [1, g, c // g] + [1] * (x.ndim - 2)
    desc = mvn1(shape, range(2, len(shape)), eps, stat, stat)
    inputs = {"InputTensor": x.reshape(shape), "ScaleTensor": s.reshape(stat), "BiasTensor": b.reshape(stat)}
    check_all(desc, inputs, {"OutputTensor": case.outputs[0].reshape(shape)}, what=name)


@pytest.mark.parametrize("name", _cases("LayerNormalization"))
def test_mvn2_matches_onnx_layer_normalization(name):
    case = NODE[name]
    x, s, b = (a.astype(np.float32) for a in case.inputs)
    axis = attribute(case.node, "axis", -1) % x.ndim
    eps = attribute(case.node, "epsilon", 1e-5)
    stat = [1] * axis + list(x.shape[axis:])
    desc = mvn2(x.shape, range(axis, x.ndim), True, True, eps, stat, stat)
    inputs = {"InputTensor": x, "ScaleTensor": s.reshape(stat), "BiasTensor": b.reshape(stat)}
    check_all(desc, inputs, {"OutputTensor": case.outputs[0]}, what=name)


@pytest.mark.parametrize("name", _cases("RMSNormalization"))
def test_mvn2_without_mean_matches_onnx_rms_normalization(name):
    case = NODE[name]
    x, s = (a.astype(np.float32) for a in case.inputs)
    axis = attribute(case.node, "axis", -1) % x.ndim
    eps = attribute(case.node, "epsilon", 1e-5)
    stat = [1] * axis + list(x.shape[axis:])
    desc = mvn2(x.shape, range(axis, x.ndim), False, True, eps, scale=stat)
    check_all(desc, {"InputTensor": x, "ScaleTensor": s.reshape(stat)}, {"OutputTensor": case.outputs[0]}, what=name)


@pytest.mark.parametrize("name", _cases("LRN"))
def test_lrn_matches_onnx_lrn(name):
    case = NODE[name]
    x = case.inputs[0].astype(np.float32)
    a = {k: attribute(case.node, k, d) for k, d in (("alpha", 1e-4), ("beta", 0.75), ("bias", 1.0))}
    desc = lrn(x.shape, True, attribute(case.node, "size"), a["alpha"], a["beta"], a["bias"])
    check_all(desc, {"InputTensor": x}, {"OutputTensor": case.outputs[0]}, what=name)


@pytest.mark.parametrize("name", _cases("LpNormalization"))
def test_lp_with_tiny_epsilon_matches_onnx_lp_normalization(name):
    # ONNX: X / ||X||_p (no Epsilon), 0 for a slice of zeros (test_l2normalization_axis_0 has one); DirectML's
    # X / sqrt(N + Epsilon) with Epsilon 1e-30: the same, 0 / sqrt(1e-30) = 0 included (Epsilon 0 would give NaN).
    case = NODE[name]
    x = case.inputs[0].astype(np.float32)
    desc = lp(x.shape, attribute(case.node, "axis", -1) % x.ndim, attribute(case.node, "p", 2), 1e-30)
    check_all(desc, {"InputTensor": x}, {"OutputTensor": case.outputs[0]}, what=name)


# ============================================================ torch functions (float64)
RNG = np.random.default_rng(1279)


def rand(*shape, low=-3.0, high=3.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 4, 3, 3)])
def test_mvn_cross_channel_false_is_torch_instance_norm(shape, dt):
    x, s, b = rand(*shape), rand(1, shape[1], 1, 1), rand(1, shape[1], 1, 1)
    if dt == "FLOAT16":
        x, s, b = (a.astype(np.float16) for a in (x, s, b))
    stat = [1, shape[1], 1, 1]
    desc = MeanVarianceNormalization(input_tensor=td(dt, shape), scale_tensor=td(dt, stat), bias_tensor=td(dt, stat),
                                     output_tensor=td(dt, shape), cross_channel=False, normalize_variance=True,
                                     epsilon=1e-3)
    want = F.instance_norm(f64(x), weight=f64(s).flatten(), bias=f64(b).flatten(), eps=float(np.float32(1e-3)))
    check_all(desc, {"InputTensor": x, "ScaleTensor": s, "BiasTensor": b}, {"OutputTensor": want.numpy()},
              F16 if dt == "FLOAT16" else F32)


def test_mvn_cross_channel_true_is_torch_layer_norm_over_c_h_w():
    x = rand(2, 3, 4, 5)
    desc = MeanVarianceNormalization(input_tensor=td("FLOAT32", x.shape), scale_tensor=None, bias_tensor=None,
                                     output_tensor=td("FLOAT32", x.shape), cross_channel=True, normalize_variance=True,
                                     epsilon=1e-5)
    want = F.layer_norm(f64(x), x.shape[1:], eps=float(np.float32(1e-5)))
    check_all(desc, {"InputTensor": x}, {"OutputTensor": want.numpy()})


def test_mvn1_is_torch_group_norm():
    x, s, b = rand(2, 6, 3, 4), rand(6), rand(6)
    shape, stat = [2, 3, 2, 3, 4], [1, 3, 2, 1, 1]
    want = F.group_norm(f64(x), 3, f64(s), f64(b), eps=1e-5).numpy().reshape(shape)
    check_all(mvn1(shape, [2, 3, 4], 1e-5, stat, stat),
              {"InputTensor": x.reshape(shape), "ScaleTensor": s.reshape(stat), "BiasTensor": b.reshape(stat)},
              {"OutputTensor": want})


def test_mvn1_uses_the_population_variance_with_epsilon_inside_the_root():
    x = rand(3, 7)
    v = f64(x)
    pop = ((v - v.mean(1, keepdim=True)) / torch.sqrt(v.var(1, unbiased=False, keepdim=True) + 0.25)).numpy()
    check_all(mvn1(x.shape, [1], 0.25), {"InputTensor": x}, {"OutputTensor": pop})
    # Neither the unbiased variance nor Epsilon outside the root: they differ well beyond the bound.
    unbiased = ((v - v.mean(1, keepdim=True)) / torch.sqrt(v.var(1, unbiased=True, keepdim=True) + 0.25)).numpy()
    outside = ((v - v.mean(1, keepdim=True)) / (v.std(1, unbiased=False, keepdim=True) + 0.25)).numpy()
    got = dmlops.run(mvn1(x.shape, [1], 0.25), {"InputTensor": x}, backend="reference")["OutputTensor"]
    assert np.abs(got - unbiased).max() > 1e-2 and np.abs(got - outside).max() > 1e-2


@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
def test_mvn2_flags_against_torch(dt):
    x, s, b = rand(2, 3, 8), rand(1, 1, 8), rand(1, 1, 8)
    if dt == "FLOAT16":
        x, s, b = (a.astype(np.float16) for a in (x, s, b))
    v, sv, bv = f64(x), f64(s), f64(b)
    eps = float(np.float32(1e-5))
    inputs = {"InputTensor": x, "ScaleTensor": s, "BiasTensor": b}
    bound = F16 if dt == "FLOAT16" else F32
    stat = [1, 1, 8]
    layer = F.layer_norm(v, (8,), sv.flatten(), bv.flatten(), eps=eps).numpy()
    check_all(mvn2(x.shape, [2], True, True, 1e-5, stat, stat, dt), inputs, {"OutputTensor": layer}, bound, "layer")
    rms = (F.rms_norm(v, (8,), sv.flatten(), eps=eps) + bv).numpy()
    check_all(mvn2(x.shape, [2], False, True, 1e-5, stat, stat, dt), inputs, {"OutputTensor": rms}, bound, "rms")
    centred = ((v - v.mean(2, keepdim=True)) * sv + bv).numpy()
    check_all(mvn2(x.shape, [2], True, False, 1e-5, stat, stat, dt), inputs, {"OutputTensor": centred}, bound,
              "UseVariance FALSE")
    check_all(mvn2(x.shape, [2], False, False, 1e-5, stat, stat, dt), inputs, {"OutputTensor": (v * sv + bv).numpy()},
              bound, "neither")


@pytest.mark.parametrize("size", [1, 3, 5])
@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
def test_lrn_cross_channel_odd_is_torch_local_response_norm(size, dt):
    x = rand(2, 7, 3, 4)
    if dt == "FLOAT16":
        x = x.astype(np.float16)
    want = F.local_response_norm(f64(x), size, alpha=0.3, beta=0.75, k=1.5).numpy()
    check_all(lrn(x.shape, True, size, 0.3, 0.75, 1.5, dt), {"InputTensor": x}, {"OutputTensor": want},
              F16 if dt == "FLOAT16" else F32)


def _window_sum(t, dim, size):
    """Sum over [i - floor((size - 1) / 2), i + ceil((size - 1) / 2)] along ``dim`` (ONNX LRN's window), in torch."""
    before = (size - 1) // 2
    pad = [0, 0] * (t.dim() - 1 - dim) + [before, size - 1 - before]
    p = F.pad(t, pad)
    return sum(p.narrow(dim, k, t.shape[dim]) for k in range(size))


def _torch_lrn(v, cross, size, alpha, beta, bias):
    s = _window_sum(v * v, 1, size) if cross else _window_sum(_window_sum(v * v, 2, size), 3, size)
    return v / (bias + alpha / size * s) ** beta


@pytest.mark.parametrize("size", [2, 4])
def test_lrn_even_window_starts_at_the_centre_unlike_torch(size):
    x = rand(1, 6, 2, 2)
    want = _torch_lrn(f64(x), True, size, 0.5, 0.75, 1.0).numpy()
    check_all(lrn(x.shape, True, size, 0.5, 0.75, 1.0), {"InputTensor": x}, {"OutputTensor": want})
    torchs = F.local_response_norm(f64(x), size, alpha=0.5, beta=0.75, k=1.0).numpy()
    assert np.abs(want - torchs).max() > 1e-3  # torch puts the extra element before the centre


@pytest.mark.parametrize("size", [1, 3, 5])
def test_lrn_spatial_is_an_average_pool_of_squares_scaled_by_alpha_over_size(size):
    # S = avg_pool2d(x^2, size, stride 1, padding size // 2, count_include_pad) * size^2; D uses Alpha / size.
    x = rand(2, 3, 5, 6)
    v = f64(x)
    s = F.avg_pool2d(v * v, size, stride=1, padding=size // 2, count_include_pad=True) * size * size
    want = (v / (1.0 + 0.2 / size * s) ** 0.75).numpy()
    check_all(lrn(x.shape, False, size, 0.2, 0.75, 1.0), {"InputTensor": x}, {"OutputTensor": want})


def _autograd_lrn(x, dy, cross, size, alpha, beta, bias, torch_native=False):
    v = f64(x).requires_grad_(True)
    if torch_native:
        y = F.local_response_norm(v, size, alpha=alpha, beta=beta, k=bias)
    else:
        y = _torch_lrn(v, cross, size, alpha, beta, bias)
    y.backward(f64(dy))
    return v.grad.numpy()


@pytest.mark.parametrize("size", [1, 3, 5])
@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
def test_lrn_grad_cross_channel_is_autograd_of_torch_local_response_norm(size, dt):
    x, dy = rand(2, 6, 3, 3), rand(2, 6, 3, 3)
    if dt == "FLOAT16":
        x, dy = x.astype(np.float16), dy.astype(np.float16)
    want = _autograd_lrn(x, dy, True, size, 0.4, 0.75, 1.0, torch_native=True)
    bound = (2e-2, 1e-2, "FLOAT16: x^2, S and D stored as FLOAT16 (DirectML's vectors), the oracle without") \
        if dt == "FLOAT16" else F32
    check_all(lrn_grad(x.shape, True, size, 0.4, 0.75, 1.0, dt), {"InputTensor": x, "InputGradientTensor": dy},
              {"OutputGradientTensor": want}, bound)


@pytest.mark.parametrize("alpha,beta,bias", [(-3.0, 1.0, 100.0), (0.0, 0.75, 2.0), (-3.0, 0.5, 1.0),
                                             (3.0, 0.0, 1.0), (3.0, -1.0, 1.0), (np.nan, 0.75, 1.0)])
def test_lrn_takes_any_alpha_beta_on_every_backend(alpha, beta, bias):
    """Alpha <= 0 or Beta <= 0 (the docs state no range) used to fail on onnxruntime alone: ONNX Runtime's CPU LRN
    refuses them when it creates the session. Every backend gives x / (Bias + Alpha / 3 * S)^Beta, NaN where the
    base is negative and Beta fractional (Alpha -3, Beta 0.5, Bias 1: D = 1 - S < 0 for every element)."""
    x = np.array([1, 2, 2, 4], np.float32).reshape(1, 4, 1, 1)
    s = np.array([5, 9, 24, 20], np.float64).reshape(1, 4, 1, 1)
    with np.errstate(invalid="ignore"):
        want = (x / (bias + alpha / 3 * s) ** beta).astype(np.float32)
    assert np.isnan(want).all() == (alpha == -3.0 and beta == 0.5 or np.isnan(alpha))
    for backend in BACKENDS:
        with np.errstate(invalid="ignore"):
            got = dmlops.run(lrn(x.shape, True, 3, alpha, beta, bias), {"InputTensor": x},
                             backend=backend)["OutputTensor"]
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=backend)


@pytest.mark.parametrize("cross,size", [(True, 3), (True, 5), (False, 1), (False, 3)])
def test_lrn_grad_is_autograd_of_the_forward_window(cross, size):
    x, dy = rand(1, 5, 4, 4), rand(1, 5, 4, 4)
    want = _autograd_lrn(x, dy, cross, size, 0.5, 0.6, 2.0)
    check_all(lrn_grad(x.shape, cross, size, 0.5, 0.6, 2.0), {"InputTensor": x, "InputGradientTensor": dy},
              {"OutputGradientTensor": want})


@pytest.mark.parametrize("cross,size", [(True, 2), (True, 4), (False, 2), (False, 4)])
def test_lrn_grad_even_window_sums_the_forward_window_unlike_autograd(cross, size):
    """DirectML's gradient for an even LocalSize (vectors LOCAL_RESPONSE_NORMALIZATION_GRAD-sample_*_even): the
    second term sums over the forward's window, where the derivative sums over the transposed one; torch float64
    of DirectML's formula is the oracle, and autograd differs."""
    x, dy = rand(1, 5, 4, 4), rand(1, 5, 4, 4)
    alpha, beta, bias = 0.5, 0.6, 2.0
    v, g = f64(x), f64(dy)

    def window(t):
        return _window_sum(t, 1, size) if cross else _window_sum(_window_sum(t, 2, size), 3, size)

    d = bias + alpha / size * window(v * v)
    want = (g * d ** -beta - 2 * alpha * beta / size * v * window(g * v * d ** (-beta - 1))).numpy()
    check_all(lrn_grad(x.shape, cross, size, alpha, beta, bias), {"InputTensor": x, "InputGradientTensor": dy},
              {"OutputGradientTensor": want})
    assert np.abs(want - _autograd_lrn(x, dy, cross, size, alpha, beta, bias)).max() > 1e-3


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_lp_with_tiny_epsilon_is_torch_normalize(p, axis):
    x = rand(3, 4, 5)
    want = F.normalize(f64(x), p=p, dim=axis, eps=1e-30).numpy()
    check_all(lp(x.shape, axis, p, 0.0), {"InputTensor": x}, {"OutputTensor": want})


@pytest.mark.parametrize("p", [1, 2])
def test_lp_epsilon_goes_inside_the_square_root_of_the_squared_norm(p):
    # Small norms, large Epsilon: DirectML's x / sqrt(N + eps) against torch's x / max(norm, eps) and x / (norm + eps).
    x = rand(4, 3, low=-0.1, high=0.1)
    v = f64(x)
    norm = v.abs().sum(1, keepdim=True) if p == 1 else torch.sqrt((v * v).sum(1, keepdim=True))
    eps = 0.01
    want = (v / torch.sqrt(norm * norm + float(np.float32(eps)))).numpy()
    check_all(lp(x.shape, 1, p, eps), {"InputTensor": x}, {"OutputTensor": want})
    got = dmlops.run(lp(x.shape, 1, p, eps), {"InputTensor": x}, backend="reference")["OutputTensor"]
    for other in (F.normalize(v, p=p, dim=1, eps=eps), v / (norm + eps)):
        assert np.abs(got - other.numpy()).max() > 1e-3


def test_lp_zero_slice_is_zero_with_epsilon_and_nan_without():
    x = np.array([[0, 0, 0], [1, 2, 2]], np.float32)
    for b, got in run_all(lp([2, 3], 1, 2, 1e-5), {"InputTensor": x}).items():
        np.testing.assert_allclose(got["OutputTensor"], [[0, 0, 0], [1 / 3, 2 / 3, 2 / 3]], rtol=1e-6, err_msg=b)
    for b, got in run_all(lp([2, 3], 1, 1, 0.0), {"InputTensor": x}).items():
        assert np.isnan(got["OutputTensor"][0]).all(), b


# ============================================================ ELEMENT_WISE_CLIP_GRAD1 against autograd
def clip_grad1(dt, n, lo, hi):
    t = td(dt, [n])
    return ElementWiseClipGrad1(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t,
                                min_max_data_type=dt, min=lo, max=hi)


@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
def test_clip_grad1_is_autograd_of_clamp_off_the_bounds(dt):
    np_dt = np.float32 if dt == "FLOAT32" else np.float16
    x = rand(64).astype(np_dt)
    dy = rand(64).astype(np_dt)
    x[np.abs(x - np_dt(-1.25)) < 1e-3] = 0  # keep the bounds out: there torch and DirectML differ (next test)
    x[np.abs(x - np_dt(1.5)) < 1e-3] = 0
    v = f64(x).requires_grad_(True)
    torch.clamp(v, -1.25, 1.5).backward(f64(dy))
    check_all(clip_grad1(dt, 64, -1.25, 1.5), {"InputTensor": x, "InputGradientTensor": dy},
              {"OutputGradientTensor": v.grad.numpy()}, (0, 0, "a select: exact"))


def test_clip_grad1_blocks_at_the_bounds_where_torch_passes():
    x = np.array([-1.25, 1.5, 0.0], np.float32)
    dy = np.array([3, 4, 5], np.float32)
    v = f64(x).requires_grad_(True)
    torch.clamp(v, -1.25, 1.5).backward(f64(dy))
    assert v.grad.tolist() == [3, 4, 5]  # torch: inclusive
    check_all(clip_grad1("FLOAT32", 3, -1.25, 1.5), {"InputTensor": x, "InputGradientTensor": dy},
              {"OutputGradientTensor": [0, 0, 5]}, (0, 0, "the docs: at or beyond a bound gives 0"))


@pytest.mark.parametrize("dt", ["INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64"])
def test_clip_grad1_integers_are_autograd_of_clamp(dt):
    np_dt = dt.lower()
    lo, hi = (10, 90) if dt.startswith("U") else (-40, 50)
    x = np.arange(lo - 5, hi + 6, dtype=np_dt)
    dy = (np.arange(x.size) % 7 + 1).astype(np_dt)
    v = torch.tensor(x.astype(np.float64), requires_grad=True)
    torch.clamp(v, lo, hi).backward(torch.tensor(dy.astype(np.float64)))
    want = v.grad.numpy()
    want[(x == lo) | (x == hi)] = 0  # DirectML excludes the bounds
    for b, got in run_all(clip_grad1(dt, x.size, lo, hi), {"InputTensor": x, "InputGradientTensor": dy}).items():
        np.testing.assert_array_equal(got["OutputGradientTensor"], want.astype(np_dt), err_msg=b)


# ============================================================ refusals (check() rules)
LEVEL = FeatureLevel.parse("6.4")


def messages(desc):
    return [str(p) for p in dmlops.problems(desc, LEVEL)]


def test_lrn_and_lrn_grad_refuse_local_size_zero():
    assert "LOCAL_RESPONSE_NORMALIZATION.LocalSize: 0 is not allowed (allowed: 1 or more)." in \
        messages(lrn([1, 2, 2, 2], True, 0, 1.0, 0.75, 1.0))
    assert "LOCAL_RESPONSE_NORMALIZATION_GRAD.LocalSize: 0 is not allowed (allowed: 1 or more)." in \
        messages(lrn_grad([1, 2, 2, 2], False, 0, 1.0, 0.75, 1.0))


def test_lp_refuses_p_3_and_an_axis_out_of_range():
    found = messages(lp([2, 3], 2, 3, 1e-5))
    assert "LP_NORMALIZATION.Axis: 2 is out of range for a 2-dimensional InputTensor (allowed: 0 to 1)." in found
    assert "LP_NORMALIZATION.P: 3 is not allowed (allowed: 1 or 2)." in found


def test_clip_grad1_refuses_a_min_max_data_type_of_another_type():
    t = td("FLOAT16", [4])
    desc = ElementWiseClipGrad1(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t,
                                min_max_data_type="FLOAT32", min=-1.0, max=1.0)
    assert any(m.startswith("ELEMENT_WISE_CLIP_GRAD1.MinMaxDataType: FLOAT32 does not match OutputGradientTensor's "
                            "DataType FLOAT16") for m in messages(desc))


def test_mvn1_and_mvn2_refuse_repeated_or_out_of_range_axes():
    for desc in (mvn1([2, 3], [1, 1], 1e-5), mvn2([2, 3], [2], True, True, 1e-5)):
        found = messages(desc)
        assert found and all(m.startswith(desc.OPERATOR_TYPE + ".Axes") for m in found), found


def test_mvn_refuses_scale_without_bias_before_5_2():
    desc = mvn1([1, 2, 2, 2], [2, 3], 1e-5, scale=[1, 2, 1, 1])
    found = [str(p) for p in dmlops.problems(desc, FeatureLevel.parse("5.1"))]
    assert any("ScaleTensor: is given without BiasTensor" in m for m in found), found
    assert dmlops.problems(desc, FeatureLevel.parse("5.2")) == []
