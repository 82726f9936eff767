"""The activation operators against independent oracles, on every backend, in FLOAT32 and FLOAT16.

Oracles:
* ONNX's node test cases, regenerated in memory by onnx's own generators (those collect_testcases() runs):
  each ONNX node that maps to a DML activation is turned into the DML desc (ONNX attributes onto DML
  fields) and its stored outputs are the expected values. For FLOAT16 the inputs are rounded to
  float16 and the expected values come from onnx.reference (onnx's NumPy evaluator) on those inputs.
* torch.nn.functional in float64 on random data (torch's own kernels, not dmlops' lowerings).
Plus: each activation nested with null tensors (as a fused or GRU/LSTM/RNN activation) gives what
the standalone operator gives, and the validation messages of the activation-specific rules.
"""
import functools
import math

import numpy as np
import pytest

import dmlops
from dmlops.lower import activation_onnx, activation_reference, activation_torch
from dmlops.sample import td
from tests.onnx_node_cases import generated

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
DATA_TYPES = {np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16"}
# ONNX Selu's defaults (DML's documented defaults are the rounded 1.6732 and 1.0507).
SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875


def _close(got, want, atol, rtol, what):
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), atol=atol, rtol=rtol,
                               equal_nan=True, err_msg=what)


# ------------------------------------------------------------------------------ ONNX node test cases

def _broadcast_strides(shape, full):
    """Strides (in elements) that read a packed tensor of ``shape`` as ``full`` (ONNX unidirectional broadcast)."""
    shape = (1,) * (len(full) - len(shape)) + tuple(shape)
    strides, step = [], 1
    for n, m in zip(reversed(shape), reversed(full)):
        strides.append(0 if n == 1 and m != 1 else step)
        step *= n
    return list(reversed(strides))


def _softmax_descs(cls_v1, cls_v5, x, axis, opset):
    rank = x.ndim
    # ONNX Softmax before opset 13 coerced to 2-D at ``axis``: the group is every dimension from it on.
    axes = (axis % rank,) if opset >= 13 else tuple(range(axis % rank, rank))
    t = td(DATA_TYPES[x.dtype], x.shape)
    descs = [cls_v5(input_tensor=t, output_tensor=t, axes=axes)]
    effective = len(x.shape) - next((i for i, n in enumerate(x.shape) if n != 1), len(x.shape) - 1)
    if axes == (rank - 1,) and effective <= 2:
        descs.append(cls_v1(input_tensor=t, output_tensor=t))
    return descs


def onnx_to_dml(node, inputs, opset) -> list:
    """The DML descs (with their input dicts) that compute ONNX ``node``; [] when none does."""
    from onnx import helper

    a = {attr.name: helper.get_attribute_value(attr) for attr in node.attribute}
    x = inputs[0]
    t = td(DATA_TYPES[x.dtype], x.shape)
    un = dict(input_tensor=t, output_tensor=t)
    op = node.op_type
    simple = {
        "Relu": lambda: dmlops.ActivationRelu(**un),
        "Sigmoid": lambda: dmlops.ActivationSigmoid(**un),
        "Tanh": lambda: dmlops.ActivationTanh(**un),
        "LeakyRelu": lambda: dmlops.ActivationLeakyRelu(**un, alpha=a.get("alpha", 0.01)),
        "Elu": lambda: dmlops.ActivationElu(**un, alpha=a.get("alpha", 1.0)),
        "HardSigmoid": lambda: dmlops.ActivationHardSigmoid(**un, alpha=a.get("alpha", 0.2), beta=a.get("beta", 0.5)),
        "Softsign": lambda: dmlops.ActivationSoftsign(**un),
        "Softplus": lambda: dmlops.ActivationSoftplus(**un, steepness=1.0),
        "ThresholdedRelu": lambda: dmlops.ActivationThresholdedRelu(**un, alpha=a.get("alpha", 1.0)),
        "Selu": lambda: dmlops.ActivationScaledElu(**un, alpha=a.get("alpha", SELU_ALPHA),
                                                   gamma=a.get("gamma", SELU_GAMMA)),
        "Celu": lambda: dmlops.ActivationCelu(**un, alpha=a.get("alpha", 1.0)),
        # ONNX lambd is DML's Threshold; every ONNX case has lambd >= 0, where the two select orders agree.
        "Shrink": lambda: dmlops.ActivationShrink(**un, bias=a.get("bias", 0.0), threshold=a.get("lambd", 0.5)),
        "HardSwish": lambda: dmlops.ActivationHardSwish(**un, alpha=1 / 6, beta=0.5),
        "Swish": lambda: dmlops.ActivationSwish(**un, sigmoid_input_scale=a.get("alpha", 1.0)),
    }
    if op in simple:
        return [(simple[op](), {"InputTensor": x})]
    if op == "Gelu":
        approximate = a.get("approximate", b"none")
        return [] if approximate not in ("none", b"none") else [(dmlops.ActivationGelu(**un), {"InputTensor": x})]
    if op == "PRelu":
        slope = inputs[1]
        st = td(DATA_TYPES[slope.dtype], x.shape, _broadcast_strides(slope.shape, x.shape))
        desc = dmlops.ActivationParameterizedRelu(input_tensor=t, slope_tensor=st, output_tensor=t)
        return [(desc, {"InputTensor": x, "SlopeTensor": slope.reshape(-1)})]
    if op in ("Softmax", "LogSoftmax"):
        classes = ((dmlops.ActivationSoftmax, dmlops.ActivationSoftmax1) if op == "Softmax" else
                   (dmlops.ActivationLogSoftmax, dmlops.ActivationLogSoftmax1))
        return [(d, {"InputTensor": x}) for d in _softmax_descs(*classes, x, a.get("axis", -1), opset)]
    return []


ONNX_OPS = ("Relu", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "HardSigmoid", "Softsign", "Softplus", "ThresholdedRelu",
            "Selu", "Celu", "Shrink", "HardSwish", "Swish", "Gelu", "PRelu", "Softmax", "LogSoftmax")
# The onnx.backend.test.case.node modules that generate the cases of ONNX_OPS.
ONNX_GENERATORS = ("relu", "sigmoid", "tanh", "leakyrelu", "elu", "hardsigmoid", "softsign", "softplus",
                   "thresholdedrelu", "selu", "celu", "shrink", "hardswish", "swish", "gelu", "prelu", "softmax",
                   "logsoftmax")


def generated_node_cases() -> list:
    """(name, node, inputs, outputs, opset) from onnx's node-case generators of ONNX_GENERATORS
    (tests/onnx_node_cases.py)."""
    return [(c.name, c.node, c.inputs, c.outputs, c.opset) for c in generated(ONNX_GENERATORS).values()]


def _evaluate(node, inputs, opset):
    """onnx.reference's outputs of ``node`` on ``inputs`` (a one-node model, so typed inputs reach every op)."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    def info(name, array):
        """The value info of a graph input."""
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)

    graph = helper.make_graph([node], "case", [info(n, a) for n, a in zip(node.input, inputs)],
                              [helper.make_empty_tensor_value_info(n) for n in node.output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, dict(zip(node.input, inputs)))[0]


@functools.lru_cache(maxsize=None)
def onnx_cases():
    """(case name, DML desc, inputs, expected) for every ONNX node test case that maps to a DML activation."""
    out = []
    for name, node, inputs, outputs, opset in generated_node_cases():
        if node.op_type not in ONNX_OPS:
            continue
        if any(np.asarray(i).dtype not in DATA_TYPES for i in inputs):
            continue  # bfloat16: DirectML has no such data type
        for desc, x in onnx_to_dml(node, inputs, opset):
            out.append((name, desc, x, outputs[0]))
        if inputs[0].dtype == np.float32:
            # FLOAT16: the same node on float16-rounded inputs, evaluated by onnx.reference in float32.
            rounded = [i.astype(np.float16) for i in inputs]
            want = _evaluate(node, [r.astype(np.float32) for r in rounded], opset)
            for desc, x in onnx_to_dml(node, rounded, opset):
                out.append((name + "_float16", desc, x, want))
    return out


def _onnx_params():
    return [pytest.param(i, id=f"{name}-{desc.OPERATOR_TYPE}") for i, (name, desc, _, _) in enumerate(onnx_cases())]


def test_onnx_cases_cover_every_mapped_operator():
    # Guards against a silently empty parametrization (a missing generator would drop its cases).
    found = {desc.OPERATOR_TYPE for _, desc, _, _ in onnx_cases()}
    assert found == {"ACTIVATION_RELU", "ACTIVATION_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_LEAKY_RELU",
                     "ACTIVATION_ELU", "ACTIVATION_HARD_SIGMOID", "ACTIVATION_SOFTSIGN", "ACTIVATION_SOFTPLUS",
                     "ACTIVATION_THRESHOLDED_RELU", "ACTIVATION_SCALED_ELU", "ACTIVATION_CELU", "ACTIVATION_SHRINK",
                     "ACTIVATION_HARD_SWISH", "ACTIVATION_SWISH", "ACTIVATION_GELU", "ACTIVATION_PARAMETERIZED_RELU",
                     "ACTIVATION_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX",
                     "ACTIVATION_LOG_SOFTMAX1"}
    names = {name for name, _, _, _ in onnx_cases()}
    assert {"test_softmax_axis_0", "test_logsoftmax_large_number", "test_prelu_broadcast", "test_selu_default",
            "test_shrink_soft", "test_gelu_default_2", "test_celu_float16", "test_hardswish"} <= names


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("index", _onnx_params())
def test_onnx_node_case(index, backend):
    name, desc, x, want = onnx_cases()[index]
    got = dmlops.run(desc, x, backend=backend)["OutputTensor"]
    if name.endswith("float16") or want.dtype == np.float16:
        # One float16 rounding of the output (relative step 2^-11 = 4.9e-4); atol for results near 0.
        _close(got, want, 1e-5, 1e-3, name)
    else:
        # float32: onnx computes its expected values in float32 NumPy; a few ulps of exp/log/erf apart.
        _close(got, want, 1e-6, 1e-5, name)


# ------------------------------------------------------------------------------ torch.nn.functional

def _softmax_over(x, axes, log=False):
    """torch (log-)softmax over several axes at once: move them last, flatten them, one softmax."""
    rest = [d for d in range(x.ndim) if d not in axes]
    y = x.permute(*rest, *axes)
    shape = y.shape
    y = (F.log_softmax if log else F.softmax)(y.reshape(*shape[:len(rest)], -1), dim=-1).reshape(shape)
    return y.permute(*np.argsort(rest + list(axes)))


SHAPE = (2, 3, 4, 5)
ROWS = (1, 1, 6, 20)  # effective rank 2, for the FL 1.0 softmax


def _u(cls, shape=SHAPE, **fields):
    """A factory: data type -> a ``cls`` desc over ``shape`` with ``fields``."""
    def make(data_type):
        t = td(data_type, shape)
        return cls(input_tensor=t, output_tensor=t, **fields)
    return make


# name: (desc factory (data type -> desc), oracle (float64 torch tensor -> float64 torch tensor))
TORCH_ORACLES = {
    "relu": (_u(dmlops.ActivationRelu), F.relu),
    "sigmoid": (_u(dmlops.ActivationSigmoid), torch.sigmoid),
    "tanh": (_u(dmlops.ActivationTanh), torch.tanh),
    "leaky_relu": (_u(dmlops.ActivationLeakyRelu, alpha=0.2), lambda x: F.leaky_relu(x, 0.2)),
    "elu": (_u(dmlops.ActivationElu, alpha=0.7), lambda x: F.elu(x, 0.7)),
    "celu": (_u(dmlops.ActivationCelu, alpha=1.5), lambda x: F.celu(x, 1.5)),
    "selu": (_u(dmlops.ActivationScaledElu, alpha=SELU_ALPHA, gamma=SELU_GAMMA), F.selu),
    "hardsigmoid": (_u(dmlops.ActivationHardSigmoid, alpha=1 / 6, beta=0.5), F.hardsigmoid),
    "hardswish": (_u(dmlops.ActivationHardSwish, alpha=1 / 6, beta=0.5), F.hardswish),
    "softsign": (_u(dmlops.ActivationSoftsign), F.softsign),
    # threshold=1000: torch's linear shortcut above beta * x > 20 is not part of the DML formula.
    "softplus": (_u(dmlops.ActivationSoftplus, steepness=2.0), lambda x: F.softplus(x, beta=2.0, threshold=1000)),
    "scaled_tanh": (_u(dmlops.ActivationScaledTanh, alpha=1.7159, beta=2 / 3),
                    lambda x: 1.7159 * torch.tanh(x * 2 / 3)),
    "thresholded_relu": (_u(dmlops.ActivationThresholdedRelu, alpha=0.5), lambda x: F.threshold(x, 0.5, 0.0)),
    "identity": (_u(dmlops.ActivationIdentity), lambda x: x),
    "linear": (_u(dmlops.ActivationLinear, alpha=-1.5, beta=0.25), lambda x: torch.addcmul(
        torch.full_like(x, 0.25), x, torch.full_like(x, -1.5))),
    "hardshrink": (_u(dmlops.ActivationShrink, bias=0.0, threshold=0.5), lambda x: F.hardshrink(x, 0.5)),
    "softshrink": (_u(dmlops.ActivationShrink, bias=1.0, threshold=1.0), lambda x: F.softshrink(x, 1.0)),
    "gelu": (_u(dmlops.ActivationGelu), F.gelu),
    "silu": (_u(dmlops.ActivationSwish, sigmoid_input_scale=1.0), F.silu),
    "softmax_v1": (_u(dmlops.ActivationSoftmax, ROWS), lambda x: F.softmax(x, dim=-1)),
    "log_softmax_v1": (_u(dmlops.ActivationLogSoftmax, ROWS), lambda x: F.log_softmax(x, dim=-1)),
    "softmax1_axis1": (_u(dmlops.ActivationSoftmax1, axes=(1,)), lambda x: F.softmax(x, dim=1)),
    "softmax1_chw": (_u(dmlops.ActivationSoftmax1, axes=(1, 2, 3)), lambda x: _softmax_over(x, [1, 2, 3])),
    "softmax1_axes_2_0": (_u(dmlops.ActivationSoftmax1, axes=(2, 0)), lambda x: _softmax_over(x, [0, 2])),
    "log_softmax1_axis3": (_u(dmlops.ActivationLogSoftmax1, axes=(3,)), lambda x: F.log_softmax(x, dim=3)),
    "log_softmax1_axes_0_3": (_u(dmlops.ActivationLogSoftmax1, axes=(0, 3)),
                              lambda x: _softmax_over(x, [0, 3], log=True)),
}


def _random(shape, dtype):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("name", sorted(TORCH_ORACLES))
def test_torch_functional(name, dtype, backend):
    make, oracle = TORCH_ORACLES[name]
    desc = make(DATA_TYPES[np.dtype(dtype)])
    x = _random(tuple(desc.input_tensor.sizes), dtype)
    want = oracle(torch.from_numpy(x.astype(np.float64))).numpy()
    got = dmlops.run(desc, {"InputTensor": x}, backend=backend)["OutputTensor"]
    if dtype == np.float16:
        # One float16 rounding of the output (2^-11 relative); atol for results that round to float16 subnormals.
        _close(got, want, 1e-5, 1e-3, name)
    else:
        # float32 computation vs a float64 oracle: a few ulps of exp/log/erf.
        _close(got, want, 1e-6, 1e-5, name)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["FLOAT32", "FLOAT16"])
def test_torch_prelu_per_channel(dtype, backend):
    # torch's prelu takes one slope per channel; DML reads it through zero strides as a full tensor.
    data_type = DATA_TYPES[np.dtype(dtype)]
    t = td(data_type, SHAPE)
    desc = dmlops.ActivationParameterizedRelu(input_tensor=t, slope_tensor=td(data_type, SHAPE, [0, 1, 0, 0]),
                                              output_tensor=t)
    x = _random(SHAPE, dtype)
    slope = np.array([0.25, -0.5, 2.0], dtype)
    want = F.prelu(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(slope.astype(np.float64))).numpy()
    got = dmlops.run(desc, {"InputTensor": x, "SlopeTensor": slope}, backend=backend)["OutputTensor"]
    # One multiply by a power of two: exact in either type.
    _close(got, want, 0, 0, "prelu")


# ------------------------------------------------------------------------------ integers: onnxruntime's kernels

INT_TYPES = {np.int8: "INT8", np.int16: "INT16", np.int32: "INT32", np.uint8: "UINT8", np.uint16: "UINT16",
             np.uint32: "UINT32"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", sorted(INT_TYPES, key=str), ids=lambda d: INT_TYPES[d])
def test_integer_shrink_matches_onnxruntime_shrink(dtype, backend):
    # onnxruntime's own integer Shrink kernel (a static_cast of the float result: truncation toward zero)
    # with a fractional bias, so 5 - 1.5 = 3.5 -> 3 and -5 + 1.5 = -3.5 -> -3. lambd >= 0: ONNX's order is DML's.
    import onnxruntime as ort
    from onnx import helper

    x = np.arange(-6, 7) if np.issubdtype(dtype, np.signedinteger) else np.arange(0, 13)
    x = x.astype(dtype)
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph([helper.make_node("Shrink", ["x"], ["y"], bias=1.5, lambd=1.5)], "shrink",
                              [helper.make_tensor_value_info("x", elem, x.shape)],
                              [helper.make_tensor_value_info("y", elem, x.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    t = td(INT_TYPES[dtype], x.shape)
    got = dmlops.run(dmlops.ActivationShrink(input_tensor=t, output_tensor=t, bias=1.5, threshold=1.5),
                     {"InputTensor": x}, backend=backend)["OutputTensor"]
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)  # integers: exact


# ------------------------------------------------------------------------------ nested (null tensors)

NESTED = [
    dmlops.ActivationLeakyRelu(alpha=0.3), dmlops.ActivationElu(alpha=0.5),
    dmlops.ActivationHardSigmoid(alpha=0.3, beta=0.4), dmlops.ActivationSoftsign(),
    dmlops.ActivationSoftplus(steepness=1.5), dmlops.ActivationScaledTanh(alpha=2.0, beta=0.7),
    dmlops.ActivationThresholdedRelu(alpha=0.2), dmlops.ActivationIdentity(),
    dmlops.ActivationLinear(alpha=0.5, beta=-1.0), dmlops.ActivationScaledElu(alpha=1.2, gamma=0.9),
    dmlops.ActivationCelu(alpha=0.8), dmlops.ActivationShrink(bias=0.1, threshold=0.3), dmlops.ActivationGelu(),
    dmlops.ActivationSwish(sigmoid_input_scale=1.3), dmlops.ActivationHardSwish(alpha=0.2, beta=0.5),
    dmlops.ActivationSoftmax(), dmlops.ActivationLogSoftmax(), dmlops.ActivationSoftmax1(axes=(0,)),
    dmlops.ActivationLogSoftmax1(axes=(0, 1)), dmlops.ActivationRelu(), dmlops.ActivationSigmoid(),
    dmlops.ActivationTanh(),
]


@pytest.mark.parametrize("act", NESTED, ids=lambda a: a.OPERATOR_TYPE)
def test_nested_activation_matches_the_operator(act):
    # As a fused or recurrent activation the desc has no tensors: the lowerings must not read them.
    import onnxruntime as ort

    from dmlops.backends.onnx_graph import OnnxGraph

    x = _random((3, 4), np.float32)
    t = td("FLOAT32", x.shape)
    want = dmlops.run(act.replace(input_tensor=t, output_tensor=t), {"InputTensor": x},
                      backend="reference")["OutputTensor"]
    g = OnnxGraph()
    g.output(activation_onnx(act, g, g.input("x", np.float32, x.shape)), "y", x.shape)
    session = ort.InferenceSession(g.model().SerializeToString(), providers=["CPUExecutionProvider"])
    results = {"reference": activation_reference(act, x),
               "onnxruntime": session.run(None, {"x": x})[0],
               "torch": activation_torch(act, torch, torch.from_numpy(x)).numpy()}
    for backend, got in results.items():
        # The standalone run rounds to float32 once; so does each nested float32 result.
        _close(np.asarray(got, np.float32), want, 1e-6, 1e-5, f"{act.OPERATOR_TYPE} nested on {backend}")


# ------------------------------------------------------------------------------ activation-specific rules

def test_softmax_v1_rejects_an_effective_rank_above_two():
    t = td("FLOAT32", [1, 2, 3, 4])
    with pytest.raises(dmlops.ValidationError, match=r"ACTIVATION_SOFTMAX\.InputTensor: Sizes \[1, 2, 3, 4\] have an "
                                                     r"effective rank of 3 \(allowed: at most 2"):
        dmlops.run(dmlops.ActivationSoftmax(input_tensor=t, output_tensor=t), {"InputTensor": np.zeros(24, np.float32)},
                   backend="reference")


def test_softmax1_rejects_an_axis_out_of_range():
    t = td("FLOAT32", [2, 3])
    with pytest.raises(dmlops.ValidationError, match=r"ACTIVATION_LOG_SOFTMAX1\.Axes: axis 2 is out of range for a "
                                                     r"2-dimensional InputTensor \(allowed: 0 to 1\)"):
        dmlops.run(dmlops.ActivationLogSoftmax1(input_tensor=t, output_tensor=t, axes=(2,)),
                   {"InputTensor": np.zeros((2, 3), np.float32)}, backend="reference")


def test_integer_shrink_needs_feature_level_5_1():
    t = td("INT8", [4])
    with pytest.raises(dmlops.ValidationError, match=r"ACTIVATION_SHRINK\.InputTensor: DataType INT8 not supported at "
                                                     r"DML_FEATURE_LEVEL_5_0 .*DML_FEATURE_LEVEL_5_1 allows it"):
        dmlops.run(dmlops.ActivationShrink(input_tensor=t, output_tensor=t), {"InputTensor": np.zeros(4, np.int8)},
                   backend="reference", feature_level="5.0")


def test_softplus_steepness_below_one_is_rejected_before_running():
    t = td("FLOAT32", [4])
    with pytest.raises(dmlops.ValidationError, match=r"ACTIVATION_SOFTPLUS\.Steepness: 0\.5 is less than 1"):
        dmlops.run(dmlops.ActivationSoftplus(input_tensor=t, output_tensor=t, steepness=0.5),
                   {"InputTensor": np.zeros(4, np.float32)}, backend="torch")


# ------------------------------------------------------------------------------ CELU: DirectML's formula, NaN rule

def _celu_as_written(x: float, alpha: float) -> float:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) in plain Python, with DirectML's min and max (the non-NaN
    operand; DirectML's ACTIVATION_CELU sample_alpha_zero) and IEEE's x / 0 and 0 * inf."""
    def div(p, q):
        if q == 0:
            return math.nan if p == 0 or p != p else math.copysign(math.inf, p) * math.copysign(1, q)
        return p / q

    def exp(t):
        return math.inf if t > 709 else (t if t != t else math.exp(t))

    def mul(p, q):
        return math.nan if (p == 0 and math.isinf(q)) or (q == 0 and math.isinf(p)) else p * q

    def drop_nan(f, p, q):
        return q if p != p else p if q != q else f(p, q)

    return drop_nan(max, 0.0, x) + drop_nan(min, 0.0, mul(alpha, exp(div(x, alpha)) - 1))


@pytest.mark.parametrize("alpha", [0.0, 1.5, 0.25])
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["FLOAT32", "FLOAT16"])
def test_celu_follows_the_formula_as_directml_evaluates_it(alpha, dtype):
    """NaN gives 0 for every Alpha (both terms drop it), Alpha 0 is ReLU with +0 at and below 0, -0 gives +0."""
    x = np.concatenate([np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -1, 2, -1e-30, 1e-30], dtype),
                        (np.random.default_rng(3).standard_normal(40) * 4).astype(dtype)])
    want = np.array([_celu_as_written(float(v), float(np.float32(alpha))) for v in x], np.float64)
    assert want[0] == 0 and not np.isnan(want).any()
    t = td(DATA_TYPES[np.dtype(dtype)], list(x.shape))
    desc = dmlops.ActivationCelu(input_tensor=t, output_tensor=t, alpha=alpha)
    for backend in BACKENDS:
        got = np.asarray(dmlops.run(desc, {"InputTensor": x}, backend=backend)["OutputTensor"])
        _close(got, want, 1e-6 if dtype == np.float32 else 1e-5, 1e-5 if dtype == np.float32 else 1e-3,
               f"CELU alpha {alpha} on {backend}")
        assert not np.signbit(got[want == 0]).any(), f"CELU alpha {alpha} on {backend}: never -0"
