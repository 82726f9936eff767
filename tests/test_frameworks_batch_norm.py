"""tensorflow.fused_batch_norm_v3 / fused_batch_norm_grad_v3 (dmlops.frameworks.tensorflow.batch_norm).

Oracles: PyTorch aten (native_batch_norm, native_batch_norm_backward, F.batch_norm with running statistics,
autograd of F.batch_norm), and the TensorFlow formulas of research/seed_semantics.md §3.1 and TF's
fused_batch_norm_op.cc (Bessel's correction, exponential_avg_factor) written here in NumPy float64.
Every data_format, FLOAT32 and FLOAT16 x (float32 scale), every backend.
"""
import numpy as np
import pytest
import torch

import dmlops
from dmlops.compose import Composer
from dmlops.frameworks.tensorflow import batch_norm as bn
from dmlops.frameworks.tensorflow.batch_norm import fused_batch_norm_grad_v3, fused_batch_norm_v3

BACKENDS = ["reference", "onnxruntime", "torch"]
SHAPES = {"NHWC": (2, 3, 4, 5), "NCHW": (2, 5, 3, 4), "NDHWC": (2, 2, 3, 2, 5), "NCDHW": (2, 5, 2, 3, 2)}
C = 5
EPS = 1e-3
F32_TOL = dict(rtol=1e-5, atol=2e-5)  # float32 sums of <= 60 terms of size ~1 in another order: ~1e-6 measured


def channels_last(fmt):
    return fmt.endswith("C")


def to_nc(a, fmt):
    """TF layout -> N, C, spatial... (what torch and the formulas use)."""
    return np.moveaxis(a, -1, 1) if channels_last(fmt) else a


def from_nc(a, fmt):
    return np.moveaxis(a, 1, -1) if channels_last(fmt) else a


def reduce_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def per_channel(v, ndim):
    return np.asarray(v).reshape((1, -1) + (1,) * (ndim - 2))


def make(fmt, dtype, seed=0):
    """x ~ N(0.5, 2), y_backprop ~ N(0, 1), scale, offset ~ N(0, 1), running mean/variance."""
    rng = np.random.default_rng(seed)
    shape = SHAPES[fmt]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    scale, offset = (rng.standard_normal(C).astype(np.float32) for _ in range(2))
    mean = rng.standard_normal(C).astype(np.float32)
    var = rng.uniform(0.5, 2.0, C).astype(np.float32)
    return x, dy, scale, offset, mean, var


def batch_stats(x, fmt):
    """The batch mean and the biased variance (÷M) in float64, as float32 (what FusedBatchNormV3 saves)."""
    v = to_nc(x.astype(np.float64), fmt)
    axes = reduce_axes(v.ndim)
    return v.mean(axes).astype(np.float32), v.var(axes).astype(np.float32)


# ---------------------------------------------------------------------------------------------- NumPy formulas
def tf_grad(dy, x, scale, mu, var, eps, training, fmt):
    """seed_semantics.md §3.1 (TF's CPU FusedBatchNormGrad / FreezeGrad) in float64, on NC... arrays."""
    dy, x = (to_nc(a.astype(np.float64), fmt) for a in (dy, x))
    axes, nd = reduce_axes(x.ndim), x.ndim
    inv = 1 / np.sqrt(var.astype(np.float64) + eps)
    xc = x - per_channel(mu, nd)
    offset_bp = dy.sum(axes)
    scale_bp = (dy * xc).sum(axes) * inv
    if training:
        dx = per_channel(scale * inv, nd) * (dy - dy.mean(axes, keepdims=True)
                                             - xc * per_channel(inv ** 2, nd) * (dy * xc).mean(axes, keepdims=True))
    else:
        dx = dy * per_channel(scale * inv, nd)
    return from_nc(dx, fmt), scale_bp, offset_bp


def tf_forward(x, scale, offset, mean, var, eps, factor, training, fmt):
    """TF's CPU FusedBatchNorm functor in float64: (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2)."""
    v = to_nc(x.astype(np.float64), fmt)
    axes, nd = reduce_axes(v.ndim), v.ndim
    if not training:
        y = (v - per_channel(mean, nd)) / np.sqrt(per_channel(var, nd) + eps) * per_channel(scale, nd) + per_channel(offset, nd)
        return from_nc(y, fmt), mean, var, mean, var
    m = v.size // v.shape[1]
    bm, bv = v.mean(axes), v.var(axes)
    y = (v - per_channel(bm, nd)) / np.sqrt(per_channel(bv, nd) + eps) * per_channel(scale, nd) + per_channel(offset, nd)
    adjust = m / max(m - 1, 1)  # Bessel's correction; TF uses 1 for M = 1
    running_mean = (1 - factor) * mean.astype(np.float64) + factor * bm
    running_var = (1 - factor) * var.astype(np.float64) + factor * adjust * bv
    return from_nc(y, fmt), running_mean, running_var, bm, bv


def one_ulp_apart(got, want):
    """FLOAT16 results that are float32 results rounded to half: at most one fp16 ulp apart."""
    want16 = want.astype(np.float16)
    diff = np.abs(got.astype(np.float64) - want16.astype(np.float64))
    assert (diff <= np.spacing(np.abs(want16)).astype(np.float64)).all(), float(diff.max())


# ---------------------------------------------------------------------------------------------- backward
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("fmt", list(SHAPES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_matches_aten_native_batch_norm_backward(backend, fmt, dtype, training):
    x, dy, scale, _, pop_mean, pop_var = make(fmt, dtype)
    mu, var = batch_stats(x, fmt) if training else (pop_mean, pop_var)
    r = fused_batch_norm_grad_v3(dy, x, scale, mu, var, np.zeros((), np.float32), epsilon=EPS, data_format=fmt,
                                 is_training=training, backend=backend)
    t = torch.from_numpy
    if training:  # save_invstd = 1/sqrt(var + eps), the biased batch variance from the forward pass
        invstd = 1 / torch.sqrt(t(var) + EPS)
        want = torch.ops.aten.native_batch_norm_backward(t(to_nc(dy, fmt).copy()), t(to_nc(x, fmt).copy()), t(scale),
                                                         None, None, t(mu), invstd, True, EPS, [True] * 3)
    else:  # eval: the population statistics as running_mean / running_var
        want = torch.ops.aten.native_batch_norm_backward(t(to_nc(dy, fmt).copy()), t(to_nc(x, fmt).copy()), t(scale),
                                                         t(mu), t(var), None, None, False, EPS, [True] * 3)
    dx, dscale, doffset = (w.numpy() for w in want)
    assert r.x_backprop.dtype == dtype and r.x_backprop.shape == x.shape
    assert r.scale_backprop.dtype == np.float32 and r.offset_backprop.dtype == np.float32  # U = float, as TF
    assert r.scale_backprop.shape == (C,) and r.offset_backprop.shape == (C,)
    if dtype == np.float16:
        # torch also computes half input in float and rounds x_backprop to half once: at most one ulp apart.
        one_ulp_apart(r.x_backprop, from_nc(dx, fmt).astype(np.float32))
        # float32 reductions of the same half inputs: float32 rounding only.
        np.testing.assert_allclose(r.scale_backprop, dscale, **F32_TOL)
        np.testing.assert_allclose(r.offset_backprop, doffset, **F32_TOL)
    else:
        np.testing.assert_allclose(r.x_backprop, from_nc(dx, fmt), **F32_TOL)
        np.testing.assert_allclose(r.scale_backprop, dscale, **F32_TOL)
        np.testing.assert_allclose(r.offset_backprop, doffset, **F32_TOL)
    for placeholder in (r.reserve_space_4, r.reserve_space_5):  # TF's empty placeholders
        assert placeholder.shape == (0,) and placeholder.dtype == np.float32


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("fmt", list(SHAPES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_matches_seed_semantics_formulas(backend, fmt, training):
    x, dy, scale, _, pop_mean, pop_var = make(fmt, np.float32, seed=1)
    mu, var = batch_stats(x, fmt) if training else (pop_mean, pop_var)
    r = fused_batch_norm_grad_v3(dy, x, scale, mu, var, np.zeros(0, np.float32), epsilon=EPS, data_format=fmt,
                                 is_training=training, backend=backend)
    dx, dscale, doffset = tf_grad(dy, x, scale, mu, var, EPS, training, fmt)
    np.testing.assert_allclose(r.x_backprop, dx, **F32_TOL)  # float32 vs the float64 formula
    np.testing.assert_allclose(r.scale_backprop, dscale, **F32_TOL)
    np.testing.assert_allclose(r.offset_backprop, doffset, **F32_TOL)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_by_hand_nhwc(backend):
    # x (N=2, H=W=1, C=2): channel 0 = [0, 8], channel 1 = [5, 5]; mean [4, 5], biased variance [16, 0];
    # epsilon 9 -> inv std [1/5, 1/3]; scale [2, 3]; y_backprop channel 0 = [1, 3], channel 1 = [2, 6].
    # Channel 0: dy - mean(dy) = [-1, 1], x - mu = [-4, 4], mean(dy (x - mu)) = 4:
    #   x_backprop = 2/5 * ([-1, 1] - [-4, 4] * 4/25) = [-0.144, 0.144]; scale_backprop = (-4 + 12)/5 = 1.6.
    # Channel 1: x - mu = 0 -> x_backprop = 3/3 * ([2, 6] - 4) = [-2, 2]; scale_backprop 0. offset_backprop [4, 8].
    x = np.array([0, 5, 8, 5], np.float32).reshape(2, 1, 1, 2)
    dy = np.array([1, 2, 3, 6], np.float32).reshape(2, 1, 1, 2)
    r = fused_batch_norm_grad_v3(dy, x, np.array([2, 3], np.float32), np.array([4, 5], np.float32),
                                 np.array([16, 0], np.float32), np.zeros(0, np.float32), epsilon=9.0, backend=backend)
    # 0.144 and 1.6 are not binary fractions: float32 rounding of a few operations.
    np.testing.assert_allclose(r.x_backprop.reshape(2, 2), [[-0.144, -2], [0.144, 2]], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(r.scale_backprop, [1.6, 0], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(r.offset_backprop, [4, 8])  # sums of small integers are exact


def test_grad_cudnn_inverse_std_must_be_converted():
    """reserve_space_2 is the variance (TF CPU / DirectML). A cuDNN reserve_space_2 (1/sqrt(var + eps)) gives wrong
    gradients as is, and the right ones after var = 1/r**2 - eps, as the docstring says."""
    x, dy, scale, *_ = make("NHWC", np.float32, seed=2)
    mu, var = batch_stats(x, "NHWC")
    inv_std = (1 / np.sqrt(var.astype(np.float64) + EPS)).astype(np.float32)
    want = fused_batch_norm_grad_v3(dy, x, scale, mu, var, np.zeros(0, np.float32), epsilon=EPS)
    raw = fused_batch_norm_grad_v3(dy, x, scale, mu, inv_std, np.zeros(0, np.float32), epsilon=EPS)
    converted = (1 / inv_std.astype(np.float64) ** 2 - EPS).astype(np.float32)
    fixed = fused_batch_norm_grad_v3(dy, x, scale, mu, converted, np.zeros(0, np.float32), epsilon=EPS)
    assert np.abs(raw.scale_backprop - want.scale_backprop).max() > 0.1  # the two conventions really differ
    # The round trip through 1/r**2 costs a few float32 ulps of the variance.
    np.testing.assert_allclose(fixed.x_backprop, want.x_backprop, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fixed.scale_backprop, want.scale_backprop, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_reserve_space_1_not_the_batch_mean_is_still_tf(backend):
    """BATCH_NORMALIZATION_TRAINING_GRAD centers x with MeanTensor in x_backprop and scale_backprop (DirectML's
    vector edge_mean_is_batch_mean_plus_0_5), and TF's CPU kernel with reserve_space_1 in both: a mean that is not
    x's batch mean gives TF's answer, not the batch-mean formula of the DirectML docs."""
    x, dy, scale, *_ = make("NCHW", np.float32, seed=3)
    mu, var = batch_stats(x, "NCHW")
    shifted = mu + np.float32(0.5)
    r = fused_batch_norm_grad_v3(dy, x, scale, shifted, var, np.zeros(0, np.float32), epsilon=EPS,
                                 data_format="NCHW", backend=backend)
    batch_dx, _, _ = tf_grad(dy, x, scale, mu, var, EPS, True, "NCHW")
    tf_dx, tf_dscale, tf_doffset = tf_grad(dy, x, scale, shifted, var, EPS, True, "NCHW")
    np.testing.assert_allclose(r.x_backprop, tf_dx, **F32_TOL)
    np.testing.assert_allclose(r.scale_backprop, tf_dscale, **F32_TOL)
    np.testing.assert_allclose(r.offset_backprop, tf_doffset, **F32_TOL)
    assert np.abs(r.x_backprop - batch_dx).max() > 1e-2  # the shift matters


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_grad_empty_x_gives_zero_scale_and_offset_gradients(dtype):
    x = np.zeros((0, 3, 4, C), dtype)
    ones = np.ones(C, np.float32)
    r = fused_batch_norm_grad_v3(x, x, ones, ones, ones, ones)
    assert r.x_backprop.shape == x.shape and r.x_backprop.dtype == dtype
    np.testing.assert_array_equal(r.scale_backprop, np.zeros(C, np.float32))  # TF's SetZeroFunctor
    np.testing.assert_array_equal(r.offset_backprop, np.zeros(C, np.float32))
    assert r.reserve_space_4.shape == (0,) and r.reserve_space_5.shape == (0,)
    with pytest.raises(dmlops.DmlOpsError, match=r"tensorflow.FusedBatchNormGradV3: x is empty, so there is no "
                                                 r"DirectML graph \(the result is computed on the host\)"):
        fused_batch_norm_grad_v3(x, x, ones, ones, ones, ones, return_graph=True)


def test_grad_accepts_torch_tensors():
    x, dy, scale, _, mean, var = make("NHWC", np.float32, seed=4)
    a = fused_batch_norm_grad_v3(dy, x, scale, mean, var, np.zeros(0, np.float32), is_training=False,
                                 backend="reference")
    b = fused_batch_norm_grad_v3(*(torch.from_numpy(v) for v in (dy, x, scale, mean, var)), torch.zeros(0),
                                 is_training=False, backend="reference")
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)  # the same arrays through the same graph


# ---------------------------------------------------------------------------------------------- forward
FORWARD_CASES = [(True, 1.0), (True, 0.25), (False, 1.0)]


@pytest.mark.parametrize("training,factor", FORWARD_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("fmt", list(SHAPES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_matches_torch_batch_norm(backend, fmt, dtype, training, factor):
    x, _, scale, offset, mean, var = make(fmt, dtype, seed=5)
    r = fused_batch_norm_v3(x, scale, offset, mean, var, epsilon=EPS, exponential_avg_factor=factor,
                            data_format=fmt, is_training=training, backend=backend)
    t = torch.from_numpy
    running_mean, running_var = t(mean.copy()), t(var.copy())
    # F.batch_norm updates the running statistics in place with momentum = TF's exponential_avg_factor and the
    # unbiased (Bessel-corrected) batch variance, as TF does.
    y = torch.nn.functional.batch_norm(t(to_nc(x, fmt).copy()), running_mean, running_var, t(scale), t(offset),
                                       training=training, momentum=factor, eps=EPS).numpy()
    assert r.y.dtype == dtype and r.y.shape == x.shape
    for name in ("batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"):
        value = getattr(r, name)
        assert value.dtype == np.float32 and value.shape == (C,), name
    assert r.reserve_space_3.shape == () and r.reserve_space_3 == 0  # TF CPU: a float scalar set to 0
    if dtype == np.float16:
        one_ulp_apart(r.y, from_nc(y, fmt).astype(np.float32))  # both round a float32 y to half once
    else:
        np.testing.assert_allclose(r.y, from_nc(y, fmt), **F32_TOL)
    # float32 reductions over 120 elements of size ~2: a few float32 ulps.
    np.testing.assert_allclose(r.batch_mean, running_mean.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r.batch_variance, running_var.numpy(), rtol=1e-5, atol=1e-5)
    if training:
        _, save_mean, save_invstd = torch.ops.aten.native_batch_norm(t(to_nc(x, fmt).copy()), t(scale), t(offset),
                                                                     None, None, True, 0.0, EPS)
        np.testing.assert_allclose(r.reserve_space_1, save_mean.numpy(), rtol=1e-5, atol=1e-5)
        # reserve_space_2 is the biased variance, torch saves 1/sqrt(var + eps): compare through that map.
        np.testing.assert_allclose(1 / np.sqrt(r.reserve_space_2 + EPS), save_invstd.numpy(), rtol=1e-5)
    else:  # the population statistics are echoed (what the is_training=False gradient takes)
        np.testing.assert_array_equal(r.reserve_space_1, mean)
        np.testing.assert_array_equal(r.reserve_space_2, var)


@pytest.mark.parametrize("training,factor", FORWARD_CASES + [(True, 0.0)])
@pytest.mark.parametrize("fmt", list(SHAPES))
def test_forward_matches_tf_formulas(fmt, training, factor):
    x, _, scale, offset, mean, var = make(fmt, np.float32, seed=6)
    r = fused_batch_norm_v3(x, scale, offset, mean, var, epsilon=EPS, exponential_avg_factor=factor,
                            data_format=fmt, is_training=training, backend="onnxruntime")
    want = tf_forward(x, scale, offset, mean, var, EPS, factor, training, fmt)
    for got, w in zip(r[:5], want):
        np.testing.assert_allclose(got, w, **F32_TOL)  # float32 vs the float64 formulas


@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_bessel_correction_and_single_element_channels(backend):
    # M = 2 elements per channel: channel values [1, 3] -> mean 2, biased variance 1, running variance 1 * 2/1 = 2.
    x = np.array([1, -4, 3, 4], np.float32).reshape(2, 1, 1, 2)
    ones, zeros = np.ones(2, np.float32), np.zeros(2, np.float32)
    r = fused_batch_norm_v3(x, ones, zeros, zeros, zeros, epsilon=0.0, backend=backend)
    np.testing.assert_array_equal(r.reserve_space_1, [2, 0])  # exact: small integers
    np.testing.assert_array_equal(r.reserve_space_2, [1, 16])
    np.testing.assert_array_equal(r.batch_variance, [2, 32])
    np.testing.assert_allclose(r.y.reshape(2, 2), [[-1, -1], [1, 1]], rtol=1e-6)  # (x - mean)/sqrt(var): rsqrt rounding
    # M = 1 (N = H = W = 1): TF divides by max(M - 1, 1), so no correction; the variance is 0 and y = offset.
    x1 = np.array([7, -2], np.float32).reshape(1, 1, 1, 2)
    offset = np.array([0.5, -1.5], np.float32)
    r1 = fused_batch_norm_v3(x1, ones, offset, zeros, zeros, backend=backend)
    np.testing.assert_array_equal(r1.batch_mean, [7, -2])
    np.testing.assert_array_equal(r1.batch_variance, [0, 0])
    np.testing.assert_array_equal(r1.y.ravel(), offset)  # (x - mean) is exactly 0
    g = fused_batch_norm_grad_v3(np.ones_like(x1), x1, ones, r1.reserve_space_1, r1.reserve_space_2, r1.reserve_space_3,
                                 backend=backend)
    np.testing.assert_array_equal(g.x_backprop.ravel(), [0, 0])  # dy - mean(dy) = 0
    np.testing.assert_array_equal(g.offset_backprop, [1, 1])


@pytest.mark.parametrize("training", [True, False])
def test_forward_empty_x(training):
    x = np.zeros((0, 2, 2, C), np.float16)
    ones = np.ones(C, np.float32)
    r = fused_batch_norm_v3(x, ones, ones, ones, ones, is_training=training)
    assert r.y.shape == x.shape and r.y.dtype == np.float16
    for value in r[1:5]:  # TF's SetNanFunctor on batch_mean / batch_variance; the reserve spaces likewise
        assert value.shape == (C,) and np.isnan(value).all()
    with pytest.raises(dmlops.DmlOpsError, match=r"tensorflow.FusedBatchNormV3: x is empty"):
        fused_batch_norm_v3(x, ones, ones, ones, ones, is_training=training, return_graph=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("fmt", list(SHAPES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_training_step_pair_matches_autograd(backend, fmt, dtype):
    """fused_batch_norm_v3 then fused_batch_norm_grad_v3 on its reserve spaces == autograd of F.batch_norm."""
    x, dy, scale, offset, *_ = make(fmt, dtype, seed=7)
    empty = np.zeros(0, np.float32)
    fwd = fused_batch_norm_v3(x, scale, offset, empty, empty, epsilon=EPS, data_format=fmt, backend=backend)
    g = fused_batch_norm_grad_v3(dy, x, scale, fwd.reserve_space_1, fwd.reserve_space_2, fwd.reserve_space_3,
                                 epsilon=EPS, data_format=fmt, backend=backend)
    xt = torch.tensor(to_nc(x, fmt).copy(), requires_grad=True)
    w, b = torch.tensor(scale, requires_grad=True), torch.tensor(offset, requires_grad=True)
    y = torch.nn.functional.batch_norm(xt, None, None, w, b, training=True, eps=EPS)
    y.backward(torch.from_numpy(to_nc(dy, fmt).copy()))
    if dtype == np.float16:
        one_ulp_apart(g.x_backprop, from_nc(xt.grad.numpy(), fmt).astype(np.float32))
    else:
        np.testing.assert_allclose(g.x_backprop, from_nc(xt.grad.numpy(), fmt), **F32_TOL)
    np.testing.assert_allclose(g.scale_backprop, w.grad.numpy(), **F32_TOL)
    np.testing.assert_allclose(g.offset_backprop, b.grad.numpy(), **F32_TOL)


# ---------------------------------------------------------------------------------------------- graphs
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_lowest_feature_levels(dtype):
    x, dy, scale, offset, mean, var = make("NHWC", dtype)
    z = np.zeros(0, np.float32)
    FL = dmlops.FeatureLevel
    cases = [(fused_batch_norm_grad_v3(dy, x, scale, mean, var, z, return_graph=True), FL.FL_4_1),
             (fused_batch_norm_grad_v3(dy, x, scale, mean, var, z, is_training=False, return_graph=True), FL.FL_3_1),
             (fused_batch_norm_v3(x, scale, offset, z, z, return_graph=True), FL.FL_4_1),
             (fused_batch_norm_v3(x, scale, offset, mean, var, exponential_avg_factor=0.1, return_graph=True), FL.FL_4_1),
             (fused_batch_norm_v3(x, scale, offset, mean, var, is_training=False, return_graph=True), FL.FL_1_0)]
    for plan, level in cases:
        assert plan.lowest_feature_level == level, plan
        plan.graph.validate(level)
    x5, dy5, *_ = make("NCDHW", dtype)  # 5-D inputs fold to 4-D tensors: the same levels
    assert fused_batch_norm_v3(x5, scale, offset, mean, var, data_format="NCDHW", is_training=False,
                               return_graph=True).lowest_feature_level == FL.FL_1_0
    assert fused_batch_norm_grad_v3(dy5, x5, scale, mean, var, z, data_format="NCDHW",
                                    return_graph=True).lowest_feature_level == FL.FL_4_1


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_nhwc_is_strides_on_the_operators_not_transposes(dtype):
    n, h, w = SHAPES["NHWC"][:3]
    x, dy, scale, _, mean, var = make("NHWC", dtype)
    plan = fused_batch_norm_grad_v3(dy, x, scale, mean, var, np.zeros(0, np.float32), return_graph=True)
    nhwc = (h * w * C, 1, w * C, C)
    kinds = [node.OPERATOR_TYPE for node in plan.graph.nodes]
    assert kinds == (["BATCH_NORMALIZATION_TRAINING_GRAD"] if dtype == np.float32
                     else ["CAST", "CAST", "BATCH_NORMALIZATION_TRAINING_GRAD", "CAST"])
    for td in plan.graph.input_descs()[:2]:  # y_backprop and x: their NHWC buffers read as [N, C, H, W]
        assert td.sizes == (n, C, h, w) and td.strides == nhwc
    for node in plan.graph.nodes:  # every big tensor of every node keeps the NHWC strides
        for name in ("input_tensor", "input_gradient_tensor", "output_tensor", "output_gradient_tensor"):
            td = getattr(node, name, None)
            if td is not None:
                assert td.strides == nhwc, (node.OPERATOR_TYPE, name)
    bn_node = plan.graph.nodes[kinds.index("BATCH_NORMALIZATION_TRAINING_GRAD")]
    assert bn_node.scale_tensor.sizes == (1, C, 1, 1)
    assert plan.graph.output_descs()[0].strides == nhwc  # x_backprop written in x's layout
    assert plan.feeds["x"].ndim == 1  # x is bound as its own buffer, not transposed on the host
    np.testing.assert_array_equal(plan.feeds["x"], x.ravel())


def test_graph_is_cached_per_signature():
    x, dy, scale, _, mean, var = make("NCHW", np.float32)
    z = np.zeros(0, np.float32)
    a = fused_batch_norm_grad_v3(dy, x, scale, mean, var, z, data_format="NCHW", return_graph=True)
    b = fused_batch_norm_grad_v3(dy * 2, x, scale, mean, var, z, data_format="NCHW", return_graph=True)
    c = fused_batch_norm_grad_v3(dy, x, scale, mean, var, z, data_format="NCHW", epsilon=0.5, return_graph=True)
    assert a.graph is b.graph and a.graph is not c.graph


@pytest.mark.parametrize("backend", ["reference", "onnxruntime"])
def test_compose_one_graph_for_a_training_step(backend):
    """compose_* in one Composer: forward + backward on an NHWC input, equal to the two adapter calls."""
    fmt = "NHWC"
    x, dy, scale, offset, *_ = make(fmt, np.float32, seed=8)
    sizes, strides = bn.dml_layout(x.shape, fmt)
    c = Composer()
    xt = c.input("x", "FLOAT32", sizes, strides)
    dyt = c.input("dy", "FLOAT32", sizes, strides)
    st, ot = c.input("scale", "FLOAT32", [1, C, 1, 1]), c.input("offset", "FLOAT32", [1, C, 1, 1])
    fwd = bn.compose_fused_batch_norm_v3(c, xt, st, ot, epsilon=EPS)
    grad = bn.compose_fused_batch_norm_grad_v3(c, dyt, xt, st, fwd.reserve_space_1, fwd.reserve_space_2, epsilon=EPS)
    assert fwd.reserve_space_3 is None and grad.reserve_space_4 is None
    c.output("y", fwd.y)
    c.output("dx", grad.x_backprop)
    c.output("dscale", grad.scale_backprop)
    graph = c.build()
    assert graph.lowest_feature_level() == dmlops.FeatureLevel.FL_4_1
    out = dmlops.run(graph, {"x": x.ravel(), "dy": dy.ravel(), "scale": scale, "offset": offset}, backend=backend)
    empty = np.zeros(0, np.float32)
    f = fused_batch_norm_v3(x, scale, offset, empty, empty, epsilon=EPS, backend=backend)
    g = fused_batch_norm_grad_v3(dy, x, scale, f.reserve_space_1, f.reserve_space_2, empty, epsilon=EPS,
                                 backend=backend)
    # The same operators on the same values; only the float32 round trip of the statistics through NumPy differs.
    np.testing.assert_allclose(bn._from_dml(out["y"], x.shape, fmt), f.y, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(bn._from_dml(out["dx"], x.shape, fmt), g.x_backprop, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out["dscale"].ravel(), g.scale_backprop, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------------- errors
def _grad_args(**change):
    x, dy, scale, _, mean, var = make("NHWC", np.float32)
    args = dict(y_backprop=dy, x=x, scale=scale, reserve_space_1=mean, reserve_space_2=var,
                reserve_space_3=np.zeros(0, np.float32))
    args.update(change)
    return args


def _forward_args(**change):
    x, _, scale, offset, mean, var = make("NHWC", np.float32)
    args = dict(x=x, scale=scale, offset=offset, mean=mean, variance=var)
    args.update(change)
    return args


G = "tensorflow.FusedBatchNormGradV3: "
F = "tensorflow.FusedBatchNormV3: "
x4 = make("NHWC", np.float32)[0]
GRAD_ERRORS = [
    (dict(data_format="NWHC"), G + r"data_format must be one of 'NHWC', 'NCHW', 'NDHWC', 'NCDHW'; got 'NWHC'"),
    (dict(data_format="NDHWC"), G + r"x must be 5-D for data_format 'NDHWC'; got shape \[2, 3, 4, 5\]"),
    (dict(x=x4[0]), G + r"x must be 4-D for data_format 'NHWC'; got shape \[3, 4, 5\]"),
    (dict(x=x4.astype(np.float64)), G + r"x has dtype float64; expected float32 or float16"),
    (dict(y_backprop=x4.astype(np.float16)), G + r"y_backprop has dtype float16; expected float32"),
    (dict(y_backprop=x4[:1]), G + r"x and y_backprop must have same shape, but x has shape \[2, 3, 4, 5\] and "
                                  r"y_backprop has shape \[1, 3, 4, 5\]"),
    (dict(scale=np.ones(4, np.float32)), G + r"scale must have the same number of elements as the channels of x, "
                                             r"got 4 and 5"),
    (dict(scale=np.ones(C, np.float16)), G + r"scale has dtype float16; expected float32"),
    (dict(reserve_space_1=np.ones((1, C), np.float32)), G + r"reserve_space_1 must be 1-D; got shape \[1, 5\]"),
    (dict(reserve_space_2=np.ones(6, np.float32)), G + r"reserve_space_2 must have the same number of elements as "
                                                       r"the channels of x, got 6 and 5"),
    (dict(reserve_space_3=np.zeros(0, np.float64)), G + r"reserve_space_3 has dtype float64; expected float32"),
    (dict(epsilon="0.1"), G + r"epsilon must be a float; got '0.1'"),
    (dict(is_training=1), G + r"is_training must be a bool; got 1"),
    (dict(x=[[1.0]]), G + r"x must be an array; got list"),
    (dict(x=torch.zeros(2, 3, 4, 5, dtype=torch.bfloat16)),
     G + r"x has dtype bfloat16; expected float32 or float16. DirectML has no bfloat16"),
]


@pytest.mark.parametrize("change,message", GRAD_ERRORS, ids=[m.split(": ")[1][:30] for _, m in GRAD_ERRORS])
def test_grad_errors(change, message):
    with pytest.raises(dmlops.DmlOpsError, match=message):
        fused_batch_norm_grad_v3(**_grad_args(**change))


def test_bfloat16_numpy_array_is_refused():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = x4.astype(ml_dtypes.bfloat16)
    with pytest.raises(dmlops.DmlOpsError, match=G + r"x has dtype bfloat16; expected float32 or float16. DirectML "
                                                     r"has no bfloat16"):
        fused_batch_norm_grad_v3(**_grad_args(x=x, y_backprop=x))


FORWARD_ERRORS = [
    (dict(data_format="nhwc"), F + r"data_format must be one of"),
    (dict(offset=np.ones(3, np.float32)), F + r"offset must have the same number of elements as the channels of x, "
                                              r"got 3 and 5"),
    (dict(mean=np.ones(3, np.float32), is_training=False),
     F + r"When is_training=false, mean must have the same number of elements as the channels of x, got 3 and 5"),
    (dict(variance=np.ones(0, np.float32), exponential_avg_factor=0.5),
     F + r"When exponential_avg_factor != 1, variance must have the same number of elements as the channels of x, "
         r"got 0 and 5"),
    (dict(mean=np.ones((1, 1), np.float32)), F + r"mean must be 1-D; got shape \[1, 1\]"),
    (dict(exponential_avg_factor=None), F + r"exponential_avg_factor must be a float; got None"),
    (dict(is_training="yes"), F + r"is_training must be a bool; got 'yes'"),
    (dict(x=torch.zeros(2, 3, 4, 5, dtype=torch.bfloat16)), F + r"x has dtype bfloat16"),
    (dict(scale=torch.ones(C, dtype=torch.bfloat16)), F + r"scale has dtype bfloat16; expected float32. DirectML has "
                                                          r"no bfloat16"),
]


@pytest.mark.parametrize("change,message", FORWARD_ERRORS, ids=[m.split(": ")[1][:30] for _, m in FORWARD_ERRORS])
def test_forward_errors(change, message):
    with pytest.raises(dmlops.DmlOpsError, match=message):
        fused_batch_norm_v3(**_forward_args(**change))


def test_forward_training_ignores_mean_and_variance_of_any_length():
    # TF: with is_training and exponential_avg_factor == 1 only scale and offset must match C.
    r = fused_batch_norm_v3(**_forward_args(mean=np.zeros(0, np.float32), variance=np.zeros(7, np.float32)))
    assert r.batch_mean.shape == (C,)


def test_compose_errors():
    c = Composer()
    x = c.input("x", "INT32", [2, C, 3, 4])
    s = c.input("s", "FLOAT32", [1, C, 1, 1])
    with pytest.raises(dmlops.DmlOpsError, match=F + r"x must be FLOAT32 or FLOAT16; got INT32"):
        bn.compose_fused_batch_norm_v3(c, x, s, s)
    xf = c.input("xf", "FLOAT32", [2, C, 3, 4])
    bad = c.input("bad", "FLOAT32", [1, 1, 1, C])
    with pytest.raises(dmlops.DmlOpsError, match=F + r"offset must be FLOAT32 with Sizes \[1, 5, 1, 1\] \(one value "
                                                     r"per channel\); got FLOAT32 \[1, 1, 1, 5\]"):
        bn.compose_fused_batch_norm_v3(c, xf, s, bad)
    with pytest.raises(dmlops.DmlOpsError, match=F + r"mean and variance are needed when is_training is False"):
        bn.compose_fused_batch_norm_v3(c, xf, s, s, is_training=False)
    dy16 = c.input("dy16", "FLOAT16", [2, C, 3, 4])
    with pytest.raises(dmlops.DmlOpsError, match=G + r"y_backprop must match x \(FLOAT32 \[2, 5, 3, 4\]\); got "
                                                     r"FLOAT16 \[2, 5, 3, 4\]"):
        bn.compose_fused_batch_norm_grad_v3(c, dy16, xf, s, s, s)
