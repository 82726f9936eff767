"""B01 unary float math and B05 activations (HARDMAX, HARDMAX1, PARAMETRIC_SOFTPLUS, VALUE_SCALE_2D) against
independent implementations: ONNX's node test cases (regenerated in memory from onnx.backend.test.case.node) and
PyTorch's own functions in float64. Every dmlops backend (reference, onnxruntime, torch) is checked, in FLOAT32 and
FLOAT16.

Where DirectML is not the IEEE function (dmlops.ops._unary_math): ACOS and ASIN are Abramowitz & Stegun 4.4.45
(within 6.8e-5 of the true value), ATAN is A&S 4.4.47 (within 1.2e-5), and ASINH / ACOSH / ATANH are the docs'
float32 formulas, which cancel (asinh for x < 0, acosh near 1, atanh near 0); the bounds below say so.
"""
import math

import numpy as np
import pytest

import dmlops
from dmlops.descs import CLASSES
from dmlops.ops import _unary_math as um
from dmlops.ops._elementwise import float16_toward_zero
from dmlops.types import ScaleBias, TensorDesc
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
UNARY = {fn.onnx: op for op, fn in um.FUNCTIONS.items()}  # "Sin" -> "ELEMENT_WISE_SIN"
# (atol, rtol, why) of dmlops's float32 results against a true (float64) value.
BOUNDS = {
    "Acos": (7e-5, 1e-6, "DirectML's A&S 4.4.45 polynomial: |error| <= 6.7e-5, plus float32 rounding"),
    "Asin": (7e-5, 1e-6, "pi/2 - DirectML's A&S 4.4.45 acos: |error| <= 6.7e-5, plus float32 rounding"),
    "Atan": (1.2e-5, 1e-6, "DirectML's A&S 4.4.47 polynomial: |error| <= 1e-5, plus float32 rounding"),
    "Asinh": (3e-6, 1e-6, "the docs' ln(x + sqrt(x^2 + 1)) in float32 cancels for x < 0"),
    "Acosh": (3e-6, 1e-6, "the docs' ln(x + sqrt(x^2 - 1)) in float32 cancels near 1"),
    "Atanh": (2e-7, 1e-6, "the docs' ln((1 + x) / (1 - x)) / 2 in float32: one float32 step of the log near 1"),
    "Erf": (2e-7, 1e-6, "float32 erf: a few float32 steps"),
}
DEFAULT_BOUND = (1e-7, 1e-6, "float32 functions: a few float32 steps")
F16 = (2e-3, 4e-3, "FLOAT16 stores (toward zero) of float32 results: one or two FLOAT16 steps")


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def unary(op, x, data_type="FLOAT32", scale_bias=None):
    cls = CLASSES[op]
    t = TensorDesc(data_type, list(x.shape))
    return cls(input_tensor=t, output_tensor=t, scale_bias=scale_bias)


def check(got, want, bound, what):
    atol, rtol, why = bound
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.asarray(want).astype(np.float64), atol=atol,
                               rtol=rtol, equal_nan=True, err_msg=f"{what} ({why})")


# ============================================================ ONNX node test cases
MODULES = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
           "hardmax", "softplus")
NODE_CASES = generated(MODULES)


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("name", sorted(n for n, c in NODE_CASES.items() if c.node.op_type in UNARY))
def test_unary_math_matches_onnx_node_cases(name, float16):
    case = NODE_CASES[name]
    x, want = case.inputs[0], case.outputs[0].astype(np.float64)
    bound = BOUNDS.get(case.node.op_type, DEFAULT_BOUND)
    if float16:
        x = x.astype(np.float16)
        with np.errstate(all="ignore"):  # the true value of the FLOAT16 input, stored as DirectML stores it
            want = float16_toward_zero(um.reference(UNARY[case.node.op_type], x.astype(np.float64)))
            want = np.where(np.isnan(want), np.nan, want)
        bound = (bound[0] + F16[0], F16[1], f"{bound[2]}; {F16[2]}")
    desc = unary(UNARY[case.node.op_type], x, "FLOAT16" if float16 else "FLOAT32")
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        check(out["OutputTensor"], want, bound, f"{name} on {backend}")


@pytest.mark.parametrize("name", sorted(n for n, c in NODE_CASES.items() if c.node.op_type == "Hardmax"))
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_hardmax1_matches_onnx_node_cases(name, data_type):
    case = NODE_CASES[name]
    x, want = case.inputs[0], case.outputs[0]
    axis = attribute(case.node, "axis", -1) % x.ndim
    t = TensorDesc(data_type, list(x.shape))
    x = x.astype(t.data_type.numpy_dtype)
    descs = [dmlops.ActivationHardmax1(input_tensor=t, output_tensor=t, axes=(axis,))]
    effective_rank = len(x.shape) - next((i for i, n in enumerate(x.shape) if n != 1), len(x.shape))
    if axis == x.ndim - 1 and effective_rank <= 2:  # ACTIVATION_HARDMAX's shapes
        descs.append(dmlops.ActivationHardmax(input_tensor=t, output_tensor=t))
    if data_type == "FLOAT16":  # ties can appear where FLOAT16 rounds: the first maximum of the rounded values
        want = np.zeros(x.shape, np.float32)
        np.put_along_axis(want, np.expand_dims(np.argmax(x, axis=axis), axis), 1, axis)
    for desc in descs:
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            np.testing.assert_array_equal(out["OutputTensor"].astype(np.float32), want,
                                          err_msg=f"{name} {desc.OPERATOR_TYPE} on {backend}")


@pytest.mark.parametrize("name", sorted(n for n, c in NODE_CASES.items() if c.node.op_type == "Softplus"))
def test_parametric_softplus_matches_onnx_softplus(name):
    case = NODE_CASES[name]
    x, want = case.inputs[0], case.outputs[0]
    t = TensorDesc("FLOAT32", list(x.shape))
    desc = dmlops.ActivationParametricSoftplus(input_tensor=t, output_tensor=t, alpha=1.0, beta=1.0)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        check(out["OutputTensor"], want, (2e-7, 1e-6, "ln(1 + exp(x)) in float32, as DirectML writes it"),
              f"{name} on {backend}")


# ============================================================ PyTorch, float64
RANGES = {"Acos": (-1, 1), "Asin": (-1, 1), "Atanh": (-0.99, 0.99), "Acosh": (1.001, 30), "Tan": (-1.5, 1.5)}
TORCH_FN = {"Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "asin", "Acos": "acos", "Atan": "atan",
            "Sinh": "sinh", "Cosh": "cosh", "Tanh": "tanh", "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh",
            "Erf": "erf"}


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("onnx_op", sorted(TORCH_FN))
def test_unary_math_matches_torch_float64(onnx_op, data_type):
    lo, hi = RANGES.get(onnx_op, (-6, 6))
    x = np.linspace(lo, hi, 241, dtype=np.float32).reshape(1, 241)
    if data_type == "FLOAT16":
        x = x.astype(np.float16)
    true = getattr(torch.special if onnx_op == "Erf" else torch, TORCH_FN[onnx_op])(
        torch.from_numpy(x.astype(np.float64))).numpy()
    bound = BOUNDS.get(onnx_op, DEFAULT_BOUND)
    if onnx_op in ("Sinh", "Cosh"):  # values up to cosh(6) = 202: relative steps
        bound = (bound[0], 3e-7, bound[2])
    if data_type == "FLOAT16":
        true = float16_toward_zero(true)
        bound = (bound[0] + F16[0], F16[1], f"{bound[2]}; {F16[2]}")
    desc = unary(UNARY[onnx_op], x, data_type)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        check(out["OutputTensor"], true, bound, f"{onnx_op} {data_type} on {backend}")


@pytest.mark.parametrize("onnx_op", sorted(TORCH_FN))
def test_scale_bias_is_applied_first(onnx_op):
    lo, hi = RANGES.get(onnx_op, (-3, 3))
    x = np.linspace(0, 1, 17, dtype=np.float32)
    sb = ScaleBias(float(np.float32(hi - lo)), float(np.float32(lo)))
    scaled = x * np.float32(sb.scale) + np.float32(sb.bias)
    true = getattr(torch.special if onnx_op == "Erf" else torch, TORCH_FN[onnx_op])(
        torch.from_numpy(scaled.astype(np.float64))).numpy()
    bound = BOUNDS.get(onnx_op, DEFAULT_BOUND)
    if onnx_op in ("Sinh", "Cosh", "Tan"):
        bound = (bound[0], 3e-7, bound[2])
    desc = unary(UNARY[onnx_op], x, scale_bias=sb)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        check(out["OutputTensor"], true, bound, f"{onnx_op} with ScaleBias on {backend}")


def test_directml_edges_differ_from_ieee_on_every_backend():
    """The DirectML answers that the IEEE functions do not give (vectors float32_2x3x4x5)."""
    edges = {
        "ELEMENT_WISE_ATAN": ([np.nan, -0.0, 1.0], [0.7854096, 0.0, 0.7854096]),
        "ELEMENT_WISE_ASINH": ([-np.inf, -0.0], [np.nan, 0.0]),
        "ELEMENT_WISE_ASIN": ([0.0, -0.0], [6.759167e-05, 6.759167e-05]),
        "ELEMENT_WISE_ACOS": ([0.0], [1.5707288]),
        "ELEMENT_WISE_SINH": ([-0.0], [0.0]),
        "ELEMENT_WISE_TANH": ([-0.0], [0.0]),
        "ELEMENT_WISE_ERF": ([-0.0], [0.0]),
        "ELEMENT_WISE_ATANH": ([-0.0, 1.0, -1.0], [0.0, np.inf, -np.inf]),
        "ELEMENT_WISE_SIN": ([-0.0], [-0.0]),
    }
    for op, (x, want) in edges.items():
        x, want = np.array(x, np.float32), np.array(want, np.float32)
        for backend, out in run_all(unary(op, x), {"InputTensor": x}).items():
            got = out["OutputTensor"]
            np.testing.assert_array_equal(got, want, err_msg=f"{op} on {backend}")
            assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), f"{op} signed zero on {backend}"


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_parametric_softplus_matches_torch(data_type):
    x = np.linspace(-8, 8, 65, dtype=np.float32).reshape(1, 1, 5, 13)
    if data_type == "FLOAT16":
        x = x.astype(np.float16)
    t = TensorDesc(data_type, list(x.shape))
    for alpha, beta in [(0.5, 2.0), (3.0, -1.0), (1.0, 0.0), (-2.0, 0.25)]:
        desc = dmlops.ActivationParametricSoftplus(input_tensor=t, output_tensor=t, alpha=alpha, beta=beta)
        true = (alpha * torch.log1p(torch.exp(beta * torch.from_numpy(x.astype(np.float64))))).numpy()
        bound = (2e-6, 2e-6, "ln(1 + exp(Beta x)) in float32 (no log1p), as DirectML writes it")
        if data_type == "FLOAT16":
            true = float16_toward_zero(true)
            bound = (F16[0], F16[1], F16[2])
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            check(out["OutputTensor"], true, bound, f"alpha={alpha} beta={beta} {data_type} on {backend}")


def test_parametric_softplus_overflow_gives_the_asymptote():
    t = TensorDesc("FLOAT32", [3])
    desc = dmlops.ActivationParametricSoftplus(input_tensor=t, output_tensor=t, alpha=0.5, beta=2.0)
    x = np.array([100, 1e30, np.inf], np.float32)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(out["OutputTensor"], np.array([100, 1e30, np.inf], np.float32), err_msg=backend)


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_value_scale_2d_matches_torch(data_type):
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 255, (2, 3, 4, 5)).astype(np.float32)
    if data_type == "FLOAT16":
        x = x.astype(np.float16)
    t = TensorDesc(data_type, list(x.shape))
    scale, bias = 1 / 58.395, (-123.675 / 58.395, -116.28 / 57.12, -103.53 / 57.375)
    desc = dmlops.ValueScale2d(input_tensor=t, output_tensor=t, scale=scale, bias=bias)
    xt = torch.from_numpy(x.astype(np.float32))
    true = (xt * float(np.float32(scale)) + torch.tensor(bias, dtype=torch.float32).reshape(1, 3, 1, 1)).numpy()
    if data_type == "FLOAT16":
        true = float16_toward_zero(true)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(out["OutputTensor"], true.astype(out["OutputTensor"].dtype),
                                      err_msg=f"{data_type} on {backend} (float32 Mul then Add: exact)")


@pytest.mark.parametrize("axes", [(0,), (1,), (2,), (0, 2), (2, 1), (0, 1, 2)])
def test_hardmax1_matches_torch_one_hot_of_argmax(axes):
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, (3, 4, 5)).astype(np.float32)  # many ties: the first maximum must win
    reduced = sorted(axes)
    kept = [d for d in range(3) if d not in reduced]
    xt = torch.from_numpy(x).permute(kept + reduced)
    flat = xt.reshape(-1, math.prod(x.shape[d] for d in reduced))
    one_hot = torch.nn.functional.one_hot(torch.argmax(flat, dim=1), flat.shape[1]).to(torch.float32)
    want = one_hot.reshape(xt.shape).permute([(kept + reduced).index(d) for d in range(3)]).numpy()
    t = TensorDesc("FLOAT32", [3, 4, 5])
    desc = dmlops.ActivationHardmax1(input_tensor=t, output_tensor=t, axes=axes)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        np.testing.assert_array_equal(out["OutputTensor"], want, err_msg=f"axes {axes} on {backend}")
