"""DML_OPERATOR_GRU on every dmlops backend against three independent implementations:

1. torch.nn.GRU (LinearBeforeReset TRUE only), with pack_padded_sequence for sequence lengths >= 1 and
   the reverse half of a bidirectional torch GRU for DML BACKWARD;
2. onnxruntime's own GRU kernel (a one-node ONNX model), LinearBeforeReset FALSE and TRUE, ragged
   sequence_lens including 0 (where DirectML's backward pass keeps initial_h and onnxruntime gives 0: the
   oracle is adjusted to DirectML's answer, see directml_empty_sequences), and parameterized activations;
3. ONNX's GRU node test cases (test_gru_*), regenerated in memory.

Tolerances: FLOAT32 1e-5 abs (float32 rounding, summed in another order, over a few time steps);
FLOAT16 5e-3 abs against the float32 oracle fed the unrounded float32 inputs: the inputs and weights
are rounded to float16 (relative step 4.9e-4, accumulated over input_size + hidden_size products and
every time step) and so are the outputs (half a step is 2.4e-4 below 1). On a CPU the backends compute
FLOAT16 in float32, so this bounds the rounding of data, not float16 arithmetic. Measured here: FLOAT32 at
most 2.4e-7, FLOAT16 at most 5.0e-4.
"""
import numpy as np
import pytest
import torch

import dmlops
from tests.onnx_node_cases import generated

BACKENDS = ("reference", "onnxruntime", "torch")
DTYPES = ("FLOAT32", "FLOAT16")
ATOL = {"FLOAT32": 1e-5, "FLOAT16": 5e-3}  # reasons in the module docstring
ONNX_DIRECTION = {"FORWARD": "forward", "BACKWARD": "reverse", "BIDIRECTIONAL": "bidirectional"}


def gru_desc(dt, steps, batch, inputs, hidden, direction="FORWARD", lbr=False, bias=True, hidden_init=True,
             lengths=False, sequence=True, single=True, activations=None):
    """A GRU descriptor of data type ``dt`` with the optional tensors chosen by the flags."""
    t = dmlops.TensorDesc
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    return dmlops.Gru(
        input_tensor=t(dt, [1, steps, batch, inputs]),
        weight_tensor=t(dt, [1, dirs, 3 * hidden, inputs]),
        recurrence_tensor=t(dt, [1, dirs, 3 * hidden, hidden]),
        bias_tensor=t(dt, [1, 1, dirs, 6 * hidden]) if bias else None,
        hidden_init_tensor=t(dt, [1, dirs, batch, hidden]) if hidden_init else None,
        sequence_lengths_tensor=t("UINT32", [1, 1, 1, batch]) if lengths else None,
        output_sequence_tensor=t(dt, [steps, dirs, batch, hidden]) if sequence else None,
        output_single_tensor=t(dt, [1, dirs, batch, hidden]) if single else None,
        activation_descs=activations or [dmlops.ActivationSigmoid(), dmlops.ActivationTanh()] * dirs,
        direction=direction, linear_before_reset=lbr)


def onnx_layout_inputs(seed, steps, batch, inputs, hidden, dirs, lengths=None, scale=1.0):
    """Random ONNX-layout GRU inputs (X [T,N,I], W [D,3H,I], R [D,3H,H], B [D,6H], initial_h [D,N,H])."""
    rng = np.random.default_rng(seed)

    def u(*shape):
        return (scale * rng.uniform(-1, 1, shape)).astype(np.float32)

    out = {"X": u(steps, batch, inputs), "W": u(dirs, 3 * hidden, inputs), "R": u(dirs, 3 * hidden, hidden),
           "B": u(dirs, 6 * hidden), "initial_h": u(dirs, batch, hidden)}
    if lengths is not None:
        out["sequence_lens"] = np.asarray(lengths, np.int32)
    return out


def to_dml(onnx_inputs):
    """ONNX GRU inputs as DML GRU tensors: 4-D with leading 1s; sequence lengths as UINT32 {1,1,1,N}."""
    names = {"X": "InputTensor", "W": "WeightTensor", "R": "RecurrenceTensor", "B": "BiasTensor",
             "initial_h": "HiddenInitTensor"}
    out = {}
    for onnx_name, dml_name in names.items():
        if onnx_inputs.get(onnx_name) is not None:
            v = onnx_inputs[onnx_name]
            out[dml_name] = v.reshape((1,) * (4 - v.ndim) + v.shape)
    if onnx_inputs.get("sequence_lens") is not None:
        out["SequenceLengthsTensor"] = onnx_inputs["sequence_lens"].astype(np.uint32).reshape(1, 1, 1, -1)
    return out


def as_dtype(inputs, dt):
    """Float inputs converted to the numpy dtype of ``dt`` (the test data, not dmlops, does the rounding)."""
    want = np.float16 if dt == "FLOAT16" else np.float32
    return {k: v.astype(want) if v.dtype == np.float32 else v for k, v in inputs.items()}


def assert_all_backends(desc, inputs, expected, dt):
    """Every backend's outputs within ATOL[dt] of ``expected`` (DML name -> float32/64 array); max errors returned."""
    errors = {}
    for backend in BACKENDS:
        out = dmlops.run(desc, as_dtype(inputs, dt), backend=backend)
        assert set(out) == set(expected), backend
        for name, want in expected.items():
            got = out[name].astype(np.float64)
            assert got.shape == want.shape, (backend, name)
            np.testing.assert_allclose(got, want, rtol=0, atol=ATOL[dt], err_msg=f"{backend} {name} {dt}")
            errors[(backend, name)] = float(np.max(np.abs(got - want)))
    return errors


# 1. torch.nn.GRU ---------------------------------------------------------------------------------
def _zrh_to_rzn(a, hidden):
    # DML/ONNX gate blocks are z, r, h; PyTorch's are r, z, n: swap the first two blocks of the 3H axis.
    perm = np.r_[hidden:2 * hidden, 0:hidden, 2 * hidden:3 * hidden]
    return torch.from_numpy(np.ascontiguousarray(a[perm])).double()


def torch_gru(x, direction, hidden):
    """(Y [T,D,N,H], Y_h [1,D,N,H]) of torch.nn.GRU in float64 for ONNX-layout inputs; DML BACKWARD is the
    reverse half of a bidirectional torch GRU whose forward half gets zero weights."""
    steps, batch, inputs = x["X"].shape
    backward_only = direction == "BACKWARD"
    gru = torch.nn.GRU(inputs, hidden, bidirectional=direction != "FORWARD").double()
    suffixes = ["_reverse"] if backward_only else ["", "_reverse"][:x["W"].shape[0]]
    h0 = torch.from_numpy(x["initial_h"]).double()
    with torch.no_grad():
        for p in gru.parameters():
            p.zero_()
        for d, suffix in enumerate(suffixes):
            getattr(gru, "weight_ih_l0" + suffix).copy_(_zrh_to_rzn(x["W"][d], hidden))
            getattr(gru, "weight_hh_l0" + suffix).copy_(_zrh_to_rzn(x["R"][d], hidden))
            getattr(gru, "bias_ih_l0" + suffix).copy_(_zrh_to_rzn(x["B"][d, :3 * hidden], hidden))
            getattr(gru, "bias_hh_l0" + suffix).copy_(_zrh_to_rzn(x["B"][d, 3 * hidden:], hidden))
        if backward_only:
            h0 = torch.cat([torch.zeros_like(h0), h0])
        seq = torch.from_numpy(x["X"]).double()
        if "sequence_lens" in x:
            packed = torch.nn.utils.rnn.pack_padded_sequence(seq, torch.from_numpy(x["sequence_lens"]).long(),
                                                             enforce_sorted=False)
            y, h_n = gru(packed, h0)
            y, _ = torch.nn.utils.rnn.pad_packed_sequence(y, total_length=steps)  # pads with 0, like DML
        else:
            y, h_n = gru(seq, h0)
    y = y.reshape(steps, batch, -1, hidden).permute(0, 2, 1, 3)  # [T, N, D*H] -> [T, D, N, H]
    if backward_only:
        y, h_n = y[:, 1:], h_n[1:]
    return y.numpy(), h_n[None].numpy()


TORCH_CASES = [  # direction, sequence lengths (all >= 1: pack_padded_sequence rejects 0)
    ("FORWARD", None), ("BACKWARD", None), ("BIDIRECTIONAL", None),
    ("FORWARD", [4, 2, 1]), ("BACKWARD", [4, 2, 1]), ("BIDIRECTIONAL", [1, 4, 3]),
]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("direction,lengths", TORCH_CASES)
def test_matches_torch_nn_gru(direction, lengths, dt):
    steps, batch, inputs, hidden = 4, 3, 3, 4
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    x = onnx_layout_inputs(1, steps, batch, inputs, hidden, dirs, lengths)
    y, y_h = torch_gru(x, direction, hidden)
    desc = gru_desc(dt, steps, batch, inputs, hidden, direction, lbr=True, lengths=lengths is not None)
    assert_all_backends(desc, to_dml(x), {"OutputSequenceTensor": y, "OutputSingleTensor": y_h}, dt)


# 2. onnxruntime's GRU kernel ---------------------------------------------------------------------
def ort_gru(x, direction, hidden, lbr, activations=None):
    """(Y, Y_h) of onnxruntime's CPU GRU kernel on a one-node ONNX model (IR 8, opset 18)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    names = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    attrs = dict(hidden_size=hidden, direction=ONNX_DIRECTION[direction], linear_before_reset=int(lbr))
    if activations is not None:
        attrs.update(activations=[a[0] for a in activations], activation_alpha=[a[1] for a in activations],
                     activation_beta=[a[2] for a in activations])
    node = helper.make_node("GRU", [n if n in x else "" for n in names], ["Y", "Y_h"], **attrs)
    graph = helper.make_graph(
        [node], "gru",
        [helper.make_tensor_value_info(n, TensorProto.INT32 if n == "sequence_lens" else TensorProto.FLOAT,
                                       x[n].shape) for n in names if n in x],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Y_h")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    y, y_h = session.run(None, {n: x[n] for n in names if n in x})
    return y, y_h[None]


def directml_empty_sequences(y_h, x, direction):
    """onnxruntime's Y_h with DirectML's answer for a length of 0 (its vectors lengths_3_0_1_*): a backward pass
    ran no step and keeps initial_h, where onnxruntime zero-fills; a forward pass gives 0 in both."""
    y_h = y_h.copy()
    empty = np.asarray(x["sequence_lens"]) == 0
    for d in ([0] if direction == "BACKWARD" else [1] if direction == "BIDIRECTIONAL" else []):
        y_h[0, d, empty] = x["initial_h"][d, empty]
    return y_h


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("lbr", [False, True])
@pytest.mark.parametrize("direction", ["FORWARD", "BACKWARD", "BIDIRECTIONAL"])
def test_matches_onnxruntime_gru_with_ragged_lengths(direction, lbr, dt):
    # Lengths 3 (full), 0 (empty: Y = 0; Y_h = 0 forward, initial_h backward), 1 and 2 (ragged).
    steps, batch, inputs, hidden, lengths = 3, 4, 2, 3, [3, 0, 1, 2]
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    x = onnx_layout_inputs(2, steps, batch, inputs, hidden, dirs, lengths)
    y, y_h = ort_gru(x, direction, hidden, lbr)
    assert not y_h[0, :, 1].any() and not y[:, :, 1].any()  # the oracle itself zero-fills the empty sequence
    y_h = directml_empty_sequences(y_h, x, direction)
    desc = gru_desc(dt, steps, batch, inputs, hidden, direction, lbr=lbr, lengths=True)
    assert_all_backends(desc, to_dml(x), {"OutputSequenceTensor": y, "OutputSingleTensor": y_h}, dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("lbr", [False, True])
def test_matches_onnxruntime_gru_without_optional_inputs(lbr, dt):
    # No bias, no initial_h, no lengths; only one output requested from dmlops.
    steps, batch, inputs, hidden = 3, 2, 2, 3
    x = onnx_layout_inputs(3, steps, batch, inputs, hidden, 1)
    del x["B"], x["initial_h"]
    y, y_h = ort_gru(x, "FORWARD", hidden, lbr)
    only_single = gru_desc(dt, steps, batch, inputs, hidden, lbr=lbr, bias=False, hidden_init=False, sequence=False)
    assert_all_backends(only_single, to_dml(x), {"OutputSingleTensor": y_h}, dt)
    only_sequence = gru_desc(dt, steps, batch, inputs, hidden, lbr=lbr, bias=False, hidden_init=False, single=False)
    assert_all_backends(only_sequence, to_dml(x), {"OutputSequenceTensor": y}, dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_matches_onnxruntime_gru_with_parameterized_activations(dt):
    # ONNX names the same activations with alpha and beta; each direction has its own [f, g].
    steps, batch, inputs, hidden, lengths = 3, 3, 2, 2, [3, 0, 2]
    onnx_acts = [("HardSigmoid", 0.3, 0.4), ("ScaledTanh", 1.5, 0.7), ("HardSigmoid", 0.25, 0.6),
                 ("ScaledTanh", 0.8, 1.2)]
    dml_acts = [dmlops.ActivationHardSigmoid(alpha=0.3, beta=0.4), dmlops.ActivationScaledTanh(alpha=1.5, beta=0.7),
                dmlops.ActivationHardSigmoid(alpha=0.25, beta=0.6), dmlops.ActivationScaledTanh(alpha=0.8, beta=1.2)]
    x = onnx_layout_inputs(4, steps, batch, inputs, hidden, 2, lengths, scale=2.0)
    y, y_h = ort_gru(x, "BIDIRECTIONAL", hidden, True, onnx_acts)
    y_h = directml_empty_sequences(y_h, x, "BIDIRECTIONAL")
    desc = gru_desc(dt, steps, batch, inputs, hidden, "BIDIRECTIONAL", lbr=True, lengths=True, activations=dml_acts)
    assert_all_backends(desc, to_dml(x), {"OutputSequenceTensor": y, "OutputSingleTensor": y_h}, dt)


# 3. ONNX node test cases -------------------------------------------------------------------------
def onnx_node_cases():
    """The test_gru_* cases from onnx.backend.test.case.node.gru, regenerated in memory (tests/onnx_node_cases.py)."""
    return {n: (c.node, c.inputs, c.outputs) for n, c in generated(["gru"]).items()}


ONNX_CASES = onnx_node_cases()


def test_onnx_node_cases_are_all_there():
    expected = {"test_gru_defaults", "test_gru_with_initial_bias", "test_gru_seq_length", "test_gru_batchwise",
                "test_gru_reverse", "test_gru_bidirectional"}
    assert expected <= set(ONNX_CASES)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(ONNX_CASES))
def test_matches_onnx_node_case(name, dt):
    from onnx import helper

    node, inputs, outputs = ONNX_CASES[name]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    assert set(attrs) <= {"hidden_size", "direction", "layout", "linear_before_reset"}, attrs  # nothing unmapped
    x = dict(zip([n for n in node.input if n], inputs))
    layout = attrs.get("layout", 0)
    if layout == 1:  # batch-major; DML_GRU has no layout field, so transpose to seq-major before it
        x["X"] = x["X"].transpose(1, 0, 2)
        if "initial_h" in x:
            x["initial_h"] = x["initial_h"].transpose(1, 0, 2)
    expected = {}
    for out_name, value in zip([n for n in node.output if n], outputs):
        if out_name == "Y":
            expected["OutputSequenceTensor"] = value.transpose(1, 2, 0, 3) if layout == 1 else value
        else:
            expected["OutputSingleTensor"] = (value.transpose(1, 0, 2) if layout == 1 else value)[None]
    steps, batch, inputs_size = x["X"].shape
    direction = {v: k for k, v in ONNX_DIRECTION.items()}[attrs.get("direction", b"forward").decode()]
    desc = gru_desc(dt, steps, batch, inputs_size, attrs["hidden_size"], direction,
                    lbr=bool(attrs.get("linear_before_reset", 0)), bias="B" in x, hidden_init="initial_h" in x,
                    sequence="OutputSequenceTensor" in expected, single="OutputSingleTensor" in expected)
    assert_all_backends(desc, to_dml(x), expected, dt)


# errors ------------------------------------------------------------------------------------------
def test_activation_count_per_direction_is_enforced_before_running():
    desc = gru_desc("FLOAT32", 2, 1, 1, 1, "BIDIRECTIONAL").replace(
        activation_descs=[dmlops.ActivationSigmoid(), dmlops.ActivationTanh()])
    with pytest.raises(dmlops.ValidationError, match=r"GRU\.ActivationDescs: 2 activations given; "
                                                     r"DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL needs 4"):
        dmlops.run(desc, {}, backend="reference")


def test_sequence_lengths_must_be_uint32():
    desc = gru_desc("FLOAT32", 2, 1, 1, 1, lengths=True)
    desc = desc.replace(sequence_lengths_tensor=dmlops.TensorDesc("INT32", [1, 1, 1, 1]))
    with pytest.raises(dmlops.ValidationError, match=r"GRU\.SequenceLengthsTensor: DataType INT32 not supported"):
        dmlops.run(desc, {}, backend="torch")
