"""Independent oracles for BATCH_NORMALIZATION, BATCH_NORMALIZATION_TRAINING, BATCH_NORMALIZATION_GRAD and
BATCH_NORMALIZATION_TRAINING_GRAD, run on every dmlops backend (reference, onnxruntime, torch).

Oracles: torch.ops.aten.native_batch_norm (train False / True) and native_batch_norm_backward
(save_invstd = 1/sqrt(var + eps)), autograd of torch.nn.functional.batch_norm, ONNX's node test cases
(regenerated in memory) and onnxruntime's own BatchNormalization op. The torch oracles run in float64 on the
float32 (or float16) values dmlops gets, so what they measure is dmlops' error alone. DirectML lays
tensors out however strides say; torch and ONNX want C on axis 1, so each layout below says how to
move between the two.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

import dmlops
from dmlops.ops import batch_normalization as bn
from dmlops.ops._elementwise import float16_toward_zero
from dmlops.sample import td
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
EPS = 1e-3
# FLOAT32 tolerances (research/seed_semantics.md section 7).
ATOL_ELEMENTWISE = 1e-5  # dX and Y: O(1) values from O(1) inputs in float32 (ulp 1.2e-7 at 1) after a few ops
RTOL_REDUCTION = 1e-5  # sums/means: relative to the sum of the magnitudes summed (cancellation-proof)


@dataclasses.dataclass(frozen=True)
class Layout:
    """How a DirectML tensor relates to torch's {N, C, ...}: ``perm`` permutes torch's dims into DML Sizes
    (logical NHWC); ``nhwc_strides`` keeps torch's Sizes and reads InputTensor through NHWC Strides."""

    name: str
    shape: tuple  # torch's shape, C on axis 1
    perm: tuple | None = None
    nhwc_strides: bool = False

    @property
    def sizes(self) -> list[int]:
        return [self.shape[i] for i in self.perm] if self.perm else list(self.shape)

    @property
    def channel_axis(self) -> int:
        return self.perm.index(1) if self.perm else 1

    @property
    def stat_sizes(self) -> list[int]:
        return [n if i == self.channel_axis else 1 for i, n in enumerate(self.sizes)]

    @property
    def input_strides(self):
        if not self.nhwc_strides:
            return None
        n, c, h, w = self.shape
        return [h * w * c, 1, w * c, c]

    def big(self, a: np.ndarray) -> np.ndarray:
        """A torch-layout array as the DML logical array."""
        return a.transpose(self.perm) if self.perm else a

    def input(self, a: np.ndarray) -> np.ndarray:
        """A torch-layout array as DML InputTensor data (the NHWC buffer when read through strides)."""
        return a.transpose(0, 2, 3, 1).ravel() if self.nhwc_strides else self.big(a)

    def back(self, a: np.ndarray) -> np.ndarray:
        """A DML logical array in torch's layout."""
        return a.transpose(np.argsort(self.perm)) if self.perm else a

    def stat(self, v: np.ndarray) -> np.ndarray:
        """A per-channel vector as a DML statistics tensor."""
        return v.reshape(self.stat_sizes)


LAYOUTS = [
    Layout("nchw", (2, 3, 4, 5)),
    Layout("nhwc_strides", (2, 3, 4, 5), nhwc_strides=True),
    Layout("nhwc_sizes", (2, 3, 4, 5), perm=(0, 2, 3, 1)),
    Layout("ncdhw_5d", (2, 3, 2, 3, 4)),
    Layout("nc_2d", (16, 3)),
]
LAYOUT_IDS = [layout.name for layout in LAYOUTS]


def _data(layout: Layout, seed: int, dtype=np.float32) -> dict[str, np.ndarray]:
    """x with a per-channel offset (so means are not near 0), dy, and per-channel parameters, torch layout."""
    rng = np.random.default_rng(seed)
    c = layout.shape[1]
    offset = np.array([3.0, -1.0, 0.5][:c]).reshape([1, c] + [1] * (len(layout.shape) - 2))
    return {"x": (rng.standard_normal(layout.shape) * 1.5 + offset).astype(dtype),
            "dy": rng.standard_normal(layout.shape).astype(dtype),
            "w": rng.uniform(0.5, 2.0, c).astype(dtype), "b": rng.standard_normal(c).astype(dtype),
            "mean": rng.standard_normal(c).astype(dtype), "var": rng.uniform(0.2, 2.0, c).astype(dtype)}


def _t(a) -> torch.Tensor:
    """float64 torch tensor of a NumPy array (the oracles compute in float64)."""
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def _run_all(desc, inputs) -> dict[str, dict[str, np.ndarray]]:
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def _assert_elementwise(actual, expected, what, atol=ATOL_ELEMENTWISE, rtol=0.0):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), atol=atol, rtol=rtol,
                               err_msg=what)


def _assert_reduction(actual, expected, magnitude, what, rtol=RTOL_REDUCTION):
    """|actual - expected| <= rtol * sum(|summands|): the float32 summation bound, robust to cancellation."""
    actual, expected = np.asarray(actual, np.float64).ravel(), np.asarray(expected, np.float64).ravel()
    bound = rtol * np.asarray(magnitude, np.float64).ravel()
    bad = np.abs(actual - expected) > bound
    assert not bad.any(), f"{what}: {actual[bad]} vs {expected[bad]} (bound {bound[bad]})"


def _stat_td(layout, dtype="FLOAT32"):
    return td(dtype, layout.stat_sizes)


def _bn_desc(layout, eps=EPS, dtype="FLOAT32"):
    s = _stat_td(layout, dtype)
    return dmlops.BatchNormalization(input_tensor=td(dtype, layout.sizes, layout.input_strides), mean_tensor=s,
                                     variance_tensor=s, scale_tensor=s, bias_tensor=s,
                                     output_tensor=td(dtype, layout.sizes), spatial=True, epsilon=eps)


def _training_desc(layout, eps=EPS, dtype="FLOAT32"):
    s = _stat_td(layout, dtype)
    return dmlops.BatchNormalizationTraining(
        input_tensor=td(dtype, layout.sizes, layout.input_strides), scale_tensor=s, bias_tensor=s,
        fused_add_tensor=None, output_tensor=td(dtype, layout.sizes), output_mean_tensor=s, output_variance_tensor=s,
        epsilon=eps)


def _grad_desc(cls, layout, eps=EPS, dtype="FLOAT32"):
    s, big = _stat_td(layout, dtype), td(dtype, layout.sizes)
    return cls(input_tensor=td(dtype, layout.sizes, layout.input_strides), input_gradient_tensor=big, mean_tensor=s,
               variance_tensor=s, scale_tensor=s, output_gradient_tensor=big, output_scale_gradient_tensor=s,
               output_bias_gradient_tensor=s, epsilon=eps)


def _reduce_dims(layout):
    return [d for d in range(len(layout.shape)) if d != 1]


def _per_channel_abs_sum(a: torch.Tensor, layout) -> np.ndarray:
    return a.abs().sum(dim=_reduce_dims(layout)).numpy()


# forward -------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_inference_forward_matches_native_batch_norm(layout):
    d = _data(layout, 1)
    want = torch.ops.aten.native_batch_norm(_t(d["x"]), _t(d["w"]), _t(d["b"]), _t(d["mean"]), _t(d["var"]),
                                            False, 0.1, EPS)[0].numpy()
    inputs = {"InputTensor": layout.input(d["x"]), "MeanTensor": layout.stat(d["mean"]),
              "VarianceTensor": layout.stat(d["var"]), "ScaleTensor": layout.stat(d["w"]),
              "BiasTensor": layout.stat(d["b"])}
    for backend, out in _run_all(_bn_desc(layout), inputs).items():
        _assert_elementwise(layout.back(out["OutputTensor"]), want, f"{layout.name} {backend}")


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_training_forward_matches_native_batch_norm(layout):
    d = _data(layout, 2)
    x = _t(d["x"])
    y, save_mean, save_invstd = torch.ops.aten.native_batch_norm(x, _t(d["w"]), _t(d["b"]), None, None, True, 0.1,
                                                                 EPS)
    # torch keeps 1/sqrt(var + eps); the variance it normalized with is the biased one (/M), like DirectML's output.
    var = (save_invstd ** -2 - EPS).numpy()
    shape = [1, -1] + [1] * (len(layout.shape) - 2)
    mean_magnitude = _per_channel_abs_sum(x, layout) / (x.numel() / x.shape[1])
    var_magnitude = _per_channel_abs_sum((x - save_mean.reshape(shape)) ** 2, layout) / (x.numel() / x.shape[1])
    inputs = {"InputTensor": layout.input(d["x"]), "ScaleTensor": layout.stat(d["w"]),
              "BiasTensor": layout.stat(d["b"])}
    for backend, out in _run_all(_training_desc(layout), inputs).items():
        what = f"{layout.name} {backend}"
        _assert_elementwise(layout.back(out["OutputTensor"]), y.numpy(), what + " OutputTensor")
        _assert_reduction(out["OutputMeanTensor"], save_mean.numpy(), mean_magnitude, what + " OutputMeanTensor")
        _assert_reduction(out["OutputVarianceTensor"], var, var_magnitude, what + " OutputVarianceTensor")


def test_training_variance_is_biased_not_bessel_corrected():
    # M = 2 values per channel: the biased variance of [1, 3] is 1, torch.var's unbiased one is 2.
    layout = Layout("nc", (2, 1))
    out = dmlops.run(_training_desc(layout, eps=0.0), {"InputTensor": np.array([[1], [3]], np.float32),
                                                       "ScaleTensor": np.ones((1, 1), np.float32),
                                                       "BiasTensor": np.zeros((1, 1), np.float32)}, backend="torch")
    unbiased = torch.var(torch.tensor([1.0, 3.0])).item()
    assert unbiased == 2.0 and out["OutputVarianceTensor"].item() == 1.0  # exact: small integers


def test_inference_forward_matches_onnxruntime_batch_normalization_op():
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    layout = LAYOUTS[3]  # 5-D: ONNX BatchNormalization takes any rank with C on axis 1
    d = _data(layout, 3)
    h = onnx.helper
    names = ["x", "w", "b", "mean", "var"]
    node = h.make_node("BatchNormalization", names, ["y"], epsilon=EPS)
    graph = h.make_graph([node], "bn", [h.make_tensor_value_info(n, onnx.TensorProto.FLOAT, d[n].shape) for n in names],
                         [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, layout.shape)])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 15)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, {n: d[n] for n in names})[0]
    inputs = {"InputTensor": d["x"], "MeanTensor": layout.stat(d["mean"]), "VarianceTensor": layout.stat(d["var"]),
              "ScaleTensor": layout.stat(d["w"]), "BiasTensor": layout.stat(d["b"])}
    for backend, out in _run_all(_bn_desc(layout), inputs).items():
        # onnxruntime computes in float32 too: two float32 results, each within a few ulps of the exact one.
        _assert_elementwise(out["OutputTensor"], want, f"onnxruntime op vs {backend}")


# ONNX node test cases ------------------------------------------------------------------------------------------------

@functools.cache
def _onnx_cases() -> dict:
    """ONNX's test_batchnorm_* node cases (tests/onnx_node_cases.py)."""
    return generated(["batch_normalization"])


@pytest.mark.parametrize("name", ["test_batchnorm_example", "test_batchnorm_epsilon"])
def test_onnx_node_case_inference(name):
    case = _onnx_cases()[name]
    eps = attribute(case.node, "epsilon", 1e-5)
    (x, s, b, mean, var), (y,) = case.inputs, case.outputs
    layout = Layout("nchw", x.shape)
    inputs = {"InputTensor": x, "MeanTensor": layout.stat(mean), "VarianceTensor": layout.stat(var),
              "ScaleTensor": layout.stat(s), "BiasTensor": layout.stat(b)}
    for backend, out in _run_all(_bn_desc(layout, eps=eps), inputs).items():
        # ONNX's expected y was computed in float32 NumPy: a few ulps of O(1) values apart from ours.
        _assert_elementwise(out["OutputTensor"], y, f"{name} {backend}")


@pytest.mark.parametrize("name", ["test_batchnorm_example_training_mode", "test_batchnorm_epsilon_training_mode"])
def test_onnx_node_case_training_mode(name):
    case = _onnx_cases()[name]
    eps, momentum = attribute(case.node, "epsilon", 1e-5), attribute(case.node, "momentum", 0.9)
    (x, s, b, mean, var), (y, running_mean, running_var) = case.inputs, case.outputs
    # ONNX outputs running = momentum * input + (1 - momentum) * batch statistic (biased variance, no Bessel);
    # DirectML outputs the batch statistics, so recover them.
    batch_mean = (running_mean.astype(np.float64) - momentum * mean) / (1 - momentum)
    batch_var = (running_var.astype(np.float64) - momentum * var) / (1 - momentum)
    layout = Layout("nchw", x.shape)
    inputs = {"InputTensor": x, "ScaleTensor": layout.stat(s), "BiasTensor": layout.stat(b)}
    for backend, out in _run_all(_training_desc(layout, eps=eps), inputs).items():
        what = f"{name} {backend}"
        # float32 NumPy expected values: a few ulps of O(1) values.
        _assert_elementwise(out["OutputTensor"], y, what + " y")
        # The recovery divides the float32 rounding of the running statistics (|.| < 3) by 1 - momentum = 0.1.
        _assert_elementwise(out["OutputMeanTensor"].ravel(), batch_mean, what + " batch mean", atol=1e-5)
        _assert_elementwise(out["OutputVarianceTensor"].ravel(), batch_var, what + " biased batch var", atol=1e-5)


# gradients -----------------------------------------------------------------------------------------------------------

def _grad_inputs(layout, d, mean, var):
    return {"InputTensor": layout.input(d["x"]), "InputGradientTensor": layout.big(d["dy"]),
            "MeanTensor": layout.stat(mean), "VarianceTensor": layout.stat(var), "ScaleTensor": layout.stat(d["w"])}


def _check_grads(layout, outs, dx, dw, db, x, dy, mean, eps_var, label):
    """dX elementwise (1e-5 abs); dScale and dBias relative to the sums of the magnitudes summed."""
    shape = [1, -1] + [1] * (len(layout.shape) - 2)
    dw_magnitude = _per_channel_abs_sum(dy * (x - mean.reshape(shape)) / torch.sqrt(eps_var).reshape(shape), layout)
    db_magnitude = _per_channel_abs_sum(dy, layout)
    for backend, out in outs.items():
        what = f"{label} {layout.name} {backend}"
        _assert_elementwise(layout.back(out["OutputGradientTensor"]), dx.numpy(), what + " dX")
        _assert_reduction(out["OutputScaleGradientTensor"], dw.numpy(), dw_magnitude, what + " dScale")
        _assert_reduction(out["OutputBiasGradientTensor"], db.numpy(), db_magnitude, what + " dBias")


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_inference_grad_matches_native_batch_norm_backward(layout):
    d = _data(layout, 4)
    x, dy, w, mean, var = (_t(d[k]) for k in ("x", "dy", "w", "mean", "var"))
    dx, dw, db = torch.ops.aten.native_batch_norm_backward(dy, x, w, mean, var, None, None, False, EPS, [True] * 3)
    outs = _run_all(_grad_desc(dmlops.BatchNormalizationGrad, layout), _grad_inputs(layout, d, d["mean"], d["var"]))
    _check_grads(layout, outs, dx, dw, db, x, dy, mean, var + EPS, "native_batch_norm_backward(train=False)")


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_training_grad_matches_native_batch_norm_backward(layout):
    d = _data(layout, 5)
    dims = tuple(_reduce_dims(layout))
    # Mean and Variance: the float32 batch statistics, as BATCH_NORMALIZATION_TRAINING would hand them over.
    mean = d["x"].astype(np.float64).mean(axis=dims).astype(np.float32)
    var = d["x"].astype(np.float64).var(axis=dims).astype(np.float32)
    x, dy, w, m, v = (_t(a) for a in (d["x"], d["dy"], d["w"], mean, var))
    dx, dw, db = torch.ops.aten.native_batch_norm_backward(dy, x, w, None, None, m, 1 / torch.sqrt(v + EPS), True, EPS,
                                                           [True] * 3)
    outs = _run_all(_grad_desc(dmlops.BatchNormalizationTrainingGrad, layout), _grad_inputs(layout, d, mean, var))
    _check_grads(layout, outs, dx, dw, db, x, dy, m, v + EPS, "native_batch_norm_backward(train=True)")


def test_training_grad_centers_with_mean_tensor_as_directml_does():
    """DirectML centers dX and dScale with MeanTensor (its vector edge_mean_is_batch_mean_plus_0_5), not with the
    batch mean mean(Input) that the docs' Coef1 line names; torch's native_batch_norm_backward centers both with
    save_mean, so with a MeanTensor off the batch mean, torch given MeanTensor is the oracle for all three outputs."""
    layout = LAYOUTS[0]
    d = _data(layout, 10)
    dims = tuple(_reduce_dims(layout))
    batch_mean = d["x"].astype(np.float64).mean(axis=dims)
    mean = (batch_mean + 0.25).astype(np.float32)  # deliberately off the batch mean
    var = d["x"].astype(np.float64).var(axis=dims).astype(np.float32)
    x, dy, w, v = (_t(a) for a in (d["x"], d["dy"], d["w"], var))
    invstd = 1 / torch.sqrt(v + EPS)

    def oracle(save_mean):
        return torch.ops.aten.native_batch_norm_backward(dy, x, w, None, None, _t(save_mean), invstd, True, EPS,
                                                         [True] * 3)

    dx, dw, db = oracle(mean)
    outs = _run_all(_grad_desc(dmlops.BatchNormalizationTrainingGrad, layout), _grad_inputs(layout, d, mean, var))
    _check_grads(layout, outs, dx, dw, db, x, dy, _t(mean), v + EPS, "centered with MeanTensor")
    # And the difference is visible: the batch mean in dX is off by far more than the tolerance.
    assert np.abs(oracle(batch_mean)[0].numpy() - outs["reference"]["OutputGradientTensor"]).max() > 1e-2


@pytest.mark.parametrize("layout", [LAYOUTS[0], LAYOUTS[2], LAYOUTS[3]], ids=["nchw", "nhwc_sizes", "ncdhw_5d"])
def test_training_forward_then_grad_match_autograd(layout):
    """BATCH_NORMALIZATION_TRAINING's mean and variance fed to BATCH_NORMALIZATION_TRAINING_GRAD, as the docs
    intend, against autograd through F.batch_norm(training=True)."""
    d = _data(layout, 6)
    x, w, b, dy = (_t(d[k]).requires_grad_(k != "dy") for k in ("x", "w", "b", "dy"))
    y = torch.nn.functional.batch_norm(x, None, None, w, b, training=True, eps=EPS)
    y.backward(dy)
    for backend in BACKENDS:
        fwd = dmlops.run(_training_desc(layout), {"InputTensor": layout.input(d["x"]),
                                                  "ScaleTensor": layout.stat(d["w"]),
                                                  "BiasTensor": layout.stat(d["b"])}, backend=backend)
        _assert_elementwise(layout.back(fwd["OutputTensor"]), y.detach().numpy(), f"{layout.name} {backend} y")
        inputs = _grad_inputs(layout, d, fwd["OutputMeanTensor"].ravel(), fwd["OutputVarianceTensor"].ravel())
        out = dmlops.run(_grad_desc(dmlops.BatchNormalizationTrainingGrad, layout), inputs, backend=backend)
        mean = _t(fwd["OutputMeanTensor"].ravel())
        var_eps = _t(fwd["OutputVarianceTensor"].ravel()) + EPS
        _check_grads(layout, {backend: out}, x.grad, w.grad, b.grad, x.detach(), dy, mean, var_eps, "autograd")


@pytest.mark.parametrize("layout", [LAYOUTS[1], LAYOUTS[4]], ids=["nhwc_strides", "nc_2d"])
def test_inference_grad_matches_autograd(layout):
    d = _data(layout, 7)
    x, w, b, dy, mean, var = (_t(d[k]).requires_grad_(k in ("x", "w", "b"))
                              for k in ("x", "w", "b", "dy", "mean", "var"))
    torch.nn.functional.batch_norm(x, mean, var, w, b, training=False, eps=EPS).backward(dy)
    outs = _run_all(_grad_desc(dmlops.BatchNormalizationGrad, layout), _grad_inputs(layout, d, d["mean"], d["var"]))
    _check_grads(layout, outs, x.grad, w.grad, b.grad, x.detach(), dy, mean, var + EPS, "autograd")


# FLOAT16 -------------------------------------------------------------------------------------------------------------

def _fp16_case(op, layout):
    """(desc, dmlops inputs, oracle outputs by DML name) for FLOAT16 data; the oracle is float64 torch on the same
    float16 values."""
    d = _data(layout, 8, dtype=np.float16)
    x, dy, w, b, mean, var = (_t(d[k]) for k in ("x", "dy", "w", "b", "mean", "var"))
    if op == "BATCH_NORMALIZATION":
        y = torch.ops.aten.native_batch_norm(x, w, b, mean, var, False, 0.1, EPS)[0]
        return (_bn_desc(layout, dtype="FLOAT16"),
                {"InputTensor": layout.input(d["x"]), "MeanTensor": layout.stat(d["mean"]),
                 "VarianceTensor": layout.stat(d["var"]), "ScaleTensor": layout.stat(d["w"]),
                 "BiasTensor": layout.stat(d["b"])}, {"OutputTensor": y})
    if op == "BATCH_NORMALIZATION_TRAINING":
        _, m, invstd = torch.ops.aten.native_batch_norm(x, w, b, None, None, True, 0.1, EPS)
        v = invstd ** -2 - EPS
        # DirectML normalizes with the statistics as its FLOAT16 outputs hold them (rounded toward zero; its
        # vectors, e.g. ncdhw_5d_float16): so does the oracle, in eval mode with those as the running statistics.
        m16, v16 = (_t(float16_toward_zero(s.numpy()).astype(np.float64)) for s in (m, v))
        y = torch.ops.aten.native_batch_norm(x, w, b, m16, v16, False, 0.1, EPS)[0]
        return (_training_desc(layout, dtype="FLOAT16"),
                {"InputTensor": layout.input(d["x"]), "ScaleTensor": layout.stat(d["w"]),
                 "BiasTensor": layout.stat(d["b"])},
                {"OutputTensor": y, "OutputMeanTensor": m, "OutputVarianceTensor": v})
    if op == "BATCH_NORMALIZATION_GRAD":
        dx, dw, db = torch.ops.aten.native_batch_norm_backward(dy, x, w, mean, var, None, None, False, EPS, [True] * 3)
        desc = _grad_desc(dmlops.BatchNormalizationGrad, layout, dtype="FLOAT16")
        inputs = _grad_inputs(layout, d, d["mean"], d["var"])
    else:
        # x = c +- u per channel, so float16 holds the batch mean c exactly and MeanTensor == mean(Input): the
        # oracle then does not depend on which of the two the dX formula centers with (see the centering test).
        d["x"] = _symmetric_float16(layout, 8)
        x = _t(d["x"])
        dims = tuple(_reduce_dims(layout))
        bmean = d["x"].astype(np.float64).mean(axis=dims).astype(np.float16)
        assert np.array_equal(bmean, d["x"].astype(np.float64).mean(axis=dims))
        bvar = d["x"].astype(np.float64).var(axis=dims).astype(np.float16)
        dx, dw, db = torch.ops.aten.native_batch_norm_backward(dy, x, w, None, None, _t(bmean),
                                                               1 / torch.sqrt(_t(bvar) + EPS), True, EPS, [True] * 3)
        desc = _grad_desc(dmlops.BatchNormalizationTrainingGrad, layout, dtype="FLOAT16")
        inputs = _grad_inputs(layout, d, bmean, bvar)
    return desc, inputs, {"OutputGradientTensor": dx, "OutputScaleGradientTensor": dw, "OutputBiasGradientTensor": db}


def _symmetric_float16(layout, seed) -> np.ndarray:
    """Per channel c + u and c - u (u multiples of 1/64, |x| < 8: exact in float16), shuffled; torch layout."""
    rng = np.random.default_rng(seed)
    c_axis_first = np.moveaxis(np.empty(layout.shape), 1, 0).shape
    half = int(np.prod(c_axis_first[1:])) // 2
    u = rng.integers(-128, 129, (layout.shape[1], half)) / 64.0
    centers = np.array([3.0, -1.0, 0.5][:layout.shape[1]])[:, None]
    values = rng.permuted(np.concatenate([centers + u, centers - u], axis=1), axis=1)
    return np.moveaxis(values.reshape(c_axis_first), 0, 1).astype(np.float16)


@pytest.mark.parametrize("layout", [LAYOUTS[0], LAYOUTS[1]], ids=["nchw", "nhwc_strides"])
@pytest.mark.parametrize("op", ["BATCH_NORMALIZATION", "BATCH_NORMALIZATION_TRAINING", "BATCH_NORMALIZATION_GRAD",
                                "BATCH_NORMALIZATION_TRAINING_GRAD"])
def test_float16_matches_float64_oracle(op, layout):
    desc, inputs, want = _fp16_case(op, layout)
    for backend, out in _run_all(desc, inputs).items():
        for name, expected in want.items():
            got = out[name]
            assert got.dtype == np.float16, name
            if got.shape == tuple(layout.sizes):
                got = layout.back(got)
            # Same float16 inputs on both sides, so only the output rounding differs: half an ulp (4.9e-4 relative,
            # 11-bit significand) for the oracle, plus one ulp where float32 accumulation lands on the other side
            # of a rounding boundary: 2e-3 rel. 1e-5 abs: float32 error of sums that cancel to near 0.
            np.testing.assert_allclose(got.astype(np.float64).ravel(), expected.numpy().ravel(), rtol=2e-3, atol=1e-5,
                                       err_msg=f"{op} {layout.name} {backend} {name}")


# errors --------------------------------------------------------------------------------------------------------------

def test_statistics_that_do_not_broadcast_are_rejected():
    desc = _training_desc(Layout("nchw", (2, 3, 4, 5))).replace(scale_tensor=td("FLOAT32", [1, 2, 1, 1]))
    message = (r"BATCH_NORMALIZATION_TRAINING\.ScaleTensor: Sizes \[1, 2, 1, 1\] do not broadcast to InputTensor "
               r"Sizes \[2, 3, 4, 5\]: dimension 1 is 2 \(allowed: 1 or 3\)\.")
    with pytest.raises(dmlops.ValidationError, match=message):
        dmlops.run(desc, {}, backend="reference")


def test_batch_normalization_scale_and_bias_are_required():
    # DirectML.h declares ScaleTensor and BiasTensor without _Maybenull_ (only FusedActivation may be null).
    desc = _bn_desc(Layout("nchw", (1, 2, 1, 2))).replace(scale_tensor=None, bias_tensor=None)
    with pytest.raises(dmlops.ValidationError, match=r"BATCH_NORMALIZATION\.ScaleTensor: is required but missing"):
        dmlops.run(desc, {}, backend="reference")


def test_float32_data_for_a_float16_operator_is_not_cast():
    layout = Layout("nc", (4, 2))
    desc = _grad_desc(dmlops.BatchNormalizationGrad, layout, dtype="FLOAT16")
    d = _data(layout, 9)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: expected FLOAT16 data \(float16\); got float32"):
        dmlops.run(desc, _grad_inputs(layout, d, d["mean"], d["var"]), backend="onnxruntime")


def test_shared_reduced_axes_helper():
    # Dims where the statistics are 1 and the input is not; both 1 is left out (nothing to reduce there).
    assert bn.reduced_axes([1, 3, 1, 1], [2, 3, 4, 5]) == [0, 2, 3]
    assert bn.reduced_axes([1, 1, 1, 4], [1, 2, 3, 4]) == [1, 2]
    assert bn.reduced_axes([1, 2], [1, 2]) == []
