"""LSTM and RNN on every dmlops backend against implementations dmlops does not share code with.

Oracles: torch.nn.LSTM / torch.nn.RNN (tanh and relu) in float64 with weights converted from torch's gate
order (i, f, g, o) to DirectML's (i, o, f, c), with pack_padded_sequence for ragged lengths; onnxruntime's
own LSTM and RNN kernels (one-node models, IR 8, opset 18) for SequenceLengths including 0 (adjusted to
DirectML's final states for an empty sequence: see ort_case), peepholes, clip, input_forget and other activations; ONNX's node test cases (test_lstm_*, test_simple_rnn_*,
test_rnn_seq_length) regenerated in memory.
"""
import functools

import numpy as np
import pytest

import dmlops
from tests.onnx_node_cases import generated

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

BACKENDS = ("reference", "onnxruntime", "torch")
ACTS = {"Sigmoid": dmlops.ActivationSigmoid, "Tanh": dmlops.ActivationTanh, "Relu": dmlops.ActivationRelu,
        "Softplus": dmlops.ActivationSoftplus}
DIRECTION = {"forward": "FORWARD", "reverse": "BACKWARD", "bidirectional": "BIDIRECTIONAL"}
# DML and ONNX gate blocks are i, o, f, c; torch.nn.LSTM's are i, f, g(=c), o.
TORCH_TO_DML_LSTM = [0, 3, 1, 2]
# Float32 against a float64 oracle on the same float32 inputs: a few float32 roundings per step, T <= 5.
ATOL32 = 1e-5


def fp16_state_atol(T: int) -> float:
    """float16 keeps 11 significant bits: rounding a state of magnitude < 2 costs up to 2^-10, and a device
    that stores h and C in float16 after every step compounds that over T steps."""
    return T * 2.0 ** -10


# dmlops side --------------------------------------------------------------------------------------------------

def dml_desc(op, inputs, direction, acts, outputs, dtype="FLOAT32", **attrs):
    """A LSTM or RNN desc whose input TensorDescs take the shapes of ``inputs`` (by DML name)."""
    T, N = inputs["InputTensor"].shape[1:3]
    D, H = inputs["RecurrenceTensor"].shape[1], inputs["RecurrenceTensor"].shape[3]
    cls = dmlops.Lstm if op == "LSTM" else dmlops.Rnn
    out_sizes = {"OutputSequenceTensor": [T, D, N, H], "OutputSingleTensor": [1, D, N, H],
                 "OutputCellSingleTensor": [1, D, N, H]}
    fields = {}
    for py, name in cls.FIELD_NAMES.items():
        if name in inputs:
            dt = "UINT32" if name == "SequenceLengthsTensor" else dtype
            fields[py] = dmlops.TensorDesc(dt, list(inputs[name].shape))
        elif name in outputs:
            fields[py] = dmlops.TensorDesc(dtype, out_sizes[name])
    return cls(**fields, activation_descs=tuple(acts), direction=direction, **attrs)


def lstm_attrs(clip=None, input_forget=0):
    """LSTM's scalar fields from ONNX's clip and input_forget attributes."""
    return dict(clip_threshold=0.0 if clip is None else float(clip), use_clip_threshold=clip is not None,
                couple_input_forget=bool(input_forget))


def run_all(desc, inputs, dtype=np.float32):
    """{backend: outputs}; float inputs are converted to ``dtype`` (already rounded to it by the caller)."""
    feed = {k: (v.astype(dtype) if v.dtype.kind == "f" else v) for k, v in inputs.items()}
    return {b: dmlops.run(desc, feed, backend=b) for b in BACKENDS}


def assert_matches(results, expected, atol, why):
    """Every expected output on every backend within ``atol`` (why: the reason for that tolerance)."""
    for backend, got in results.items():
        assert set(got) == set(expected), backend
        for name, want in expected.items():
            np.testing.assert_allclose(got[name].astype(np.float64), want, rtol=0, atol=atol,
                                       err_msg=f"{backend} {name} ({why})")


def rounded(rng, shape, scale=1.0, dtype=np.float32):
    """Uniform values in [-scale, scale) rounded to ``dtype`` (so the oracle sees exactly what dmlops sees)."""
    return (rng.uniform(-scale, scale, shape)).astype(dtype).astype(np.float32)


# torch.nn.LSTM / torch.nn.RNN ---------------------------------------------------------------------------------

def torch_oracle(kind, T, N, I, H, lengths, seed, nonlinearity="tanh", dtype=np.float32):
    """A bidirectional torch layer in float64 on ``dtype``-rounded weights and inputs: (DML-ordered arrays per
    direction, torch outputs as [T, 2, N, H], h_n, c_n). ``lengths`` not None packs the batch."""
    torch.manual_seed(seed)
    if kind == "LSTM":
        layer = torch.nn.LSTM(I, H, bidirectional=True, dtype=torch.float64)
    else:
        layer = torch.nn.RNN(I, H, nonlinearity=nonlinearity, bidirectional=True, dtype=torch.float64)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.from_numpy(p.numpy().astype(dtype).astype(np.float64)))
    rng = np.random.default_rng(seed)
    x = rounded(rng, (T, N, I), dtype=dtype)
    h0 = rounded(rng, (2, N, H), dtype=dtype)
    c0 = rounded(rng, (2, N, H), dtype=dtype)
    xt = torch.from_numpy(x.astype(np.float64))
    state = (torch.from_numpy(h0.astype(np.float64)),)
    if kind == "LSTM":
        state += (torch.from_numpy(c0.astype(np.float64)),)
    if lengths is not None:
        xt = torch.nn.utils.rnn.pack_padded_sequence(xt, torch.tensor(lengths), enforce_sorted=False)
    with torch.no_grad():
        y, final = layer(xt, state if kind == "LSTM" else state[0])
    if lengths is not None:
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(y, total_length=T)
    y = y.numpy().reshape(T, N, 2, H).transpose(0, 2, 1, 3)
    h_n, c_n = (final[0].numpy(), final[1].numpy()) if kind == "LSTM" else (final.numpy(), None)

    def perm(w):
        if kind != "LSTM":
            return w
        return np.concatenate([w[k * H:(k + 1) * H] for k in TORCH_TO_DML_LSTM])

    params = []
    for suffix in ("_l0", "_l0_reverse"):
        get = {n: getattr(layer, n + suffix).detach().numpy().astype(np.float32)
               for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
        params.append(dict(W=perm(get["weight_ih"]), R=perm(get["weight_hh"]),
                           B=np.concatenate([perm(get["bias_ih"]), perm(get["bias_hh"])])))
    return dict(x=x, h0=h0, c0=c0, params=params, y=y, h_n=h_n, c_n=c_n)


def torch_case(kind, direction, lengths, T=5, N=4, I=3, H=4, seed=0, nonlinearity="tanh", dtype=np.float32,
               dml_dtype="FLOAT32"):
    """(desc, inputs, expected) for one direction setting of a torch oracle run."""
    o = torch_oracle(kind, T, N, I, H, lengths, seed, nonlinearity, dtype)
    dirs = {"FORWARD": [0], "BACKWARD": [1], "BIDIRECTIONAL": [0, 1]}[direction]
    inputs = {"InputTensor": o["x"][None],
              "WeightTensor": np.stack([o["params"][d]["W"] for d in dirs])[None],
              "RecurrenceTensor": np.stack([o["params"][d]["R"] for d in dirs])[None],
              "BiasTensor": np.stack([o["params"][d]["B"] for d in dirs])[None, None],
              "HiddenInitTensor": o["h0"][dirs][None]}
    expected = {"OutputSequenceTensor": o["y"][:, dirs], "OutputSingleTensor": o["h_n"][dirs][None]}
    if lengths is not None:
        inputs["SequenceLengthsTensor"] = np.array(lengths, np.uint32).reshape(1, 1, 1, N)
    if kind == "LSTM":
        inputs["CellMemInitTensor"] = o["c0"][dirs][None]
        expected["OutputCellSingleTensor"] = o["c_n"][dirs][None]
        acts = [dmlops.ActivationSigmoid(), dmlops.ActivationTanh(), dmlops.ActivationTanh()] * len(dirs)
        desc = dml_desc(kind, inputs, direction, acts, expected, dml_dtype, **lstm_attrs())
    else:
        act = dmlops.ActivationTanh() if nonlinearity == "tanh" else dmlops.ActivationRelu()
        desc = dml_desc(kind, inputs, direction, [act] * len(dirs), expected, dml_dtype)
    return desc, inputs, expected


@pytest.mark.parametrize("lengths", [None, [5, 3, 1, 4]], ids=["full", "packed"])
@pytest.mark.parametrize("direction", ["FORWARD", "BACKWARD", "BIDIRECTIONAL"])
def test_lstm_matches_torch_nn_lstm(direction, lengths):
    desc, inputs, expected = torch_case("LSTM", direction, lengths)
    assert_matches(run_all(desc, inputs), expected, ATOL32, "float32 vs a float64 oracle on the same inputs")


@pytest.mark.parametrize("lengths", [None, [2, 5, 4, 1]], ids=["full", "packed"])
@pytest.mark.parametrize("direction", ["FORWARD", "BACKWARD", "BIDIRECTIONAL"])
@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_matches_torch_nn_rnn(nonlinearity, direction, lengths):
    desc, inputs, expected = torch_case("RNN", direction, lengths, seed=1, nonlinearity=nonlinearity)
    assert_matches(run_all(desc, inputs), expected, ATOL32, "float32 vs a float64 oracle on the same inputs")


@pytest.mark.parametrize("kind", ["LSTM", "RNN"])
def test_float16_matches_torch_on_float16_rounded_inputs(kind):
    T = 5
    desc, inputs, expected = torch_case(kind, "BIDIRECTIONAL", [5, 3, 1, 4], T=T, seed=2, dtype=np.float16,
                                        dml_dtype="FLOAT16")
    results = run_all(desc, inputs, np.float16)
    assert all(v.dtype == np.float16 for out in results.values() for v in out.values())
    assert_matches(results, expected, fp16_state_atol(T), fp16_state_atol.__doc__)


# onnxruntime's LSTM and RNN kernels --------------------------------------------------------------------------

ONNX_INPUTS = {"LSTM": ["InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "SequenceLengthsTensor",
                        "HiddenInitTensor", "CellMemInitTensor", "PeepholeTensor"]}
ONNX_INPUTS["RNN"] = ONNX_INPUTS["LSTM"][:6]
ONNX_OUTPUTS = ["OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor"]
T_ORT = 4  # sequence length of the onnxruntime cases


def to_dml(name, v, layout=0):
    """An ONNX LSTM/RNN input or output as the DML tensor (4-D, seq-major, UINT32 lengths)."""
    if name == "SequenceLengthsTensor":
        return v.astype(np.uint32).reshape(1, 1, 1, -1)
    if layout == 1 and name == "InputTensor":
        v = v.transpose(1, 0, 2)  # [N, T, I] -> [T, N, I]
    if layout == 1 and name in ("HiddenInitTensor", "CellMemInitTensor", "OutputSingleTensor",
                                "OutputCellSingleTensor"):
        v = v.transpose(1, 0, 2)  # [N, D, H] -> [D, N, H]
    if layout == 1 and name == "OutputSequenceTensor":
        return v.transpose(1, 2, 0, 3)  # [N, T, D, H] -> [T, D, N, H]
    if name == "OutputSequenceTensor":
        return v
    return v.reshape((1,) * (4 - v.ndim) + v.shape)


def ort_run(op, onnx_inputs, **attrs):
    """onnxruntime's own kernel: a one-node model (IR 8, opset 18), every output requested."""
    from onnx import TensorProto, helper

    names = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"][:len(ONNX_INPUTS[op])]
    present = {n: v for n, v in zip(names, onnx_inputs) if v is not None}
    outs = ["Y", "Y_h", "Y_c"][:3 if op == "LSTM" else 2]
    node = helper.make_node(op, [n if n in present else "" for n in names], outs, **attrs)
    graph = helper.make_graph(
        [node], op,
        [helper.make_tensor_value_info(n, TensorProto.INT32 if n == "sequence_lens" else TensorProto.FLOAT, v.shape)
         for n, v in present.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, present)


def ort_case(op, direction, lengths, acts, T=T_ORT, N=4, I=3, H=3, seed=0, scale=1.0, peephole=False, clip=None,
             input_forget=0, dtype=np.float32, directml=True):
    """(inputs by DML name, ONNX outputs by DML name) from onnxruntime's kernel on ``dtype``-rounded values.

    ``directml``: where a length is 0, the final states DirectML gives instead of onnxruntime's zeros (its
    vectors ragged_lengths_3_1_0, edge_ragged_lengths_3_1_0_*, edge_hand_bidirectional_lengths_2_1_0_*): a
    backward pass ran no step and keeps HiddenInit and CellMemInit; a forward pass gives hidden 0 (as
    onnxruntime) and, for LSTM, the cell after step 0, which is onnxruntime's Y_c for a length of 1."""
    spec = dict(T=T, N=N, I=I, H=H, seed=seed, scale=scale, peephole=peephole, clip=clip, input_forget=input_forget,
                dtype=dtype, directml=False)
    inputs, outputs = ort_case(op, direction, lengths, acts, **spec) if directml else (None, None)
    if directml:
        empty = np.asarray(lengths) == 0
        backward = {"forward": [], "reverse": [0], "bidirectional": [1]}[direction]
        forward = {"forward": [0], "reverse": [], "bidirectional": [0]}[direction]
        for d in backward:
            outputs["OutputSingleTensor"][0, d, empty] = inputs["HiddenInitTensor"][0, d, empty]
            if op == "LSTM":
                outputs["OutputCellSingleTensor"][0, d, empty] = inputs["CellMemInitTensor"][0, d, empty]
        if op == "LSTM" and forward and empty.any():
            _, one_step = ort_case(op, direction, np.maximum(lengths, 1), acts, **spec)
            for d in forward:
                outputs["OutputCellSingleTensor"][0, d, empty] = one_step["OutputCellSingleTensor"][0, d, empty]
        return inputs, outputs
    rng = np.random.default_rng(seed)
    D, G = (2 if direction == "bidirectional" else 1), (4 if op == "LSTM" else 1)
    values = [rounded(rng, (T, N, I), scale, dtype), rounded(rng, (D, G * H, I), scale, dtype),
              rounded(rng, (D, G * H, H), scale, dtype), rounded(rng, (D, 2 * G * H), scale, dtype),
              np.array(lengths, np.int32), rounded(rng, (D, N, H), 1.0, dtype)]
    if op == "LSTM":
        values += [rounded(rng, (D, N, H), 1.0, dtype), rounded(rng, (D, 3 * H), 1.0, dtype) if peephole else None]
    attrs = dict(hidden_size=H, direction=direction, activations=acts * D)
    if op == "LSTM":
        attrs.update(clip=clip, input_forget=input_forget)
    outs = ort_run(op, values, **{k: v for k, v in attrs.items() if v is not None})
    inputs = {n: to_dml(n, v) for n, v in zip(ONNX_INPUTS[op], values) if v is not None}
    return inputs, {n: to_dml(n, v) for n, v in zip(ONNX_OUTPUTS, outs)}


LSTM_ORT_CASES = {
    # Weights x3 and a clip of 0.8 so that most gate inputs are clipped.
    "bidirectional_ragged_peephole_clip": dict(direction="bidirectional", lengths=[4, 2, 0, 1], peephole=True,
                                               clip=0.8, scale=3.0, acts=["Sigmoid", "Tanh", "Tanh"]),
    # With input_forget the forget gate is 1 - i, so its peephole P_f goes unused.
    "reverse_ragged_input_forget_peephole": dict(direction="reverse", lengths=[0, 3, 4, 1], input_forget=1,
                                                 peephole=True, acts=["Sigmoid", "Tanh", "Tanh"]),
    "forward_other_activations_peephole": dict(direction="forward", lengths=[4, 4, 1, 2], peephole=True,
                                               acts=["Sigmoid", "Softplus", "Relu"]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("case", sorted(LSTM_ORT_CASES))
def test_lstm_matches_onnxruntime_lstm(case, dtype):
    spec = LSTM_ORT_CASES[case]
    inputs, expected = ort_case("LSTM", dtype=dtype, **spec)
    D = 2 if spec["direction"] == "bidirectional" else 1
    desc = dml_desc("LSTM", inputs, DIRECTION[spec["direction"]], [ACTS[a]() for a in spec["acts"]] * D, expected,
                    "FLOAT16" if dtype == np.float16 else "FLOAT32",
                    **lstm_attrs(spec.get("clip"), spec.get("input_forget", 0)))
    if dtype == np.float32:
        assert_matches(run_all(desc, inputs), expected, ATOL32, "float32 kernels, different summation order")
    else:
        assert_matches(run_all(desc, inputs, np.float16), expected, fp16_state_atol(T_ORT), fp16_state_atol.__doc__)


def test_lstm_clip_case_really_clips():
    # The clip case must differ from the same LSTM unclipped, or it would test nothing.
    spec = dict(LSTM_ORT_CASES["bidirectional_ragged_peephole_clip"], clip=None)
    _, unclipped = ort_case("LSTM", **spec)
    _, clipped = ort_case("LSTM", **LSTM_ORT_CASES["bidirectional_ragged_peephole_clip"])
    assert np.abs(unclipped["OutputSequenceTensor"] - clipped["OutputSequenceTensor"]).max() > 0.05


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("act", ["Tanh", "Relu", "Sigmoid"])
def test_rnn_matches_onnxruntime_rnn(act, direction):
    inputs, expected = ort_case("RNN", direction, [2, 4, 0, 1], [act], seed=3)
    D = 2 if direction == "bidirectional" else 1
    desc = dml_desc("RNN", inputs, DIRECTION[direction], [ACTS[act]()] * D, expected)
    assert_matches(run_all(desc, inputs), expected, ATOL32, "float32 kernels, different summation order")


def test_sequence_length_zero_as_directml_computes_it():
    # DirectML's answer (see ort_case), stated outright against onnxruntime's: HiddenInit and CellMemInit are
    # non-zero, and onnxruntime zero-fills every final state of an empty sequence.
    lengths = [4, 0, 2, 0]
    inputs, onnx = ort_case("LSTM", "bidirectional", lengths, ["Sigmoid", "Tanh", "Tanh"], seed=4, directml=False)
    _, one_step = ort_case("LSTM", "bidirectional", [4, 1, 2, 1], ["Sigmoid", "Tanh", "Tanh"], seed=4,
                           directml=False)
    assert np.abs(inputs["HiddenInitTensor"][0, :, 1]).min() > 0
    assert not onnx["OutputSingleTensor"][0, :, [1, 3]].any() and not onnx["OutputCellSingleTensor"][0, :, [1, 3]].any()
    desc = dml_desc("LSTM", inputs, "BIDIRECTIONAL", [ACTS[a]() for a in ["Sigmoid", "Tanh", "Tanh"] * 2], onnx,
                    **lstm_attrs())
    for backend, got in run_all(desc, inputs).items():
        empty = [1, 3]
        assert not got["OutputSequenceTensor"][:, :, empty].any(), backend
        assert not got["OutputSingleTensor"][0, 0, empty].any(), backend  # forward: hidden 0
        np.testing.assert_array_equal(got["OutputSingleTensor"][0, 1, empty], inputs["HiddenInitTensor"][0, 1, empty])
        np.testing.assert_array_equal(got["OutputCellSingleTensor"][0, 1, empty],
                                      inputs["CellMemInitTensor"][0, 1, empty])
        np.testing.assert_allclose(got["OutputCellSingleTensor"][0, 0, empty],  # forward: the cell after step 0
                                   one_step["OutputCellSingleTensor"][0, 0, empty], rtol=0, atol=ATOL32)
        assert np.abs(got["OutputCellSingleTensor"][0, 0, empty] - inputs["CellMemInitTensor"][0, 0, empty]).min() > 0.01


ONNX_CASES = ["test_lstm_defaults", "test_lstm_with_initial_bias", "test_lstm_with_peepholes", "test_lstm_batchwise",
              "test_lstm_reverse", "test_lstm_bidirectional", "test_simple_rnn_defaults",
              "test_simple_rnn_with_initial_bias", "test_rnn_seq_length", "test_simple_rnn_batchwise",
              "test_simple_rnn_reverse", "test_simple_rnn_bidirectional"]


@functools.cache
def onnx_cases():
    """ONNX's LSTM and RNN node test cases by name (NodeCase: node, inputs, outputs), regenerated in memory by
    onnx's own generators (tests/onnx_node_cases.py; onnx 1.23 ships no case files)."""
    return generated(("lstm", "rnn"))


@pytest.mark.parametrize("name", ONNX_CASES)
def test_onnx_node_test_case(name):
    case = onnx_cases()[name]
    node, ins, outs = case.node, case.inputs, case.outputs
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    assert set(attrs) <= {"hidden_size", "direction", "layout", "activations", "clip", "input_forget"}, attrs
    layout = attrs.get("layout", 0)
    assert all(v.dtype == np.float32 for v in ins if v.dtype.kind == "f")
    in_names = [n for slot, n in zip(node.input, ONNX_INPUTS[node.op_type]) if slot]
    out_names = [n for slot, n in zip(node.output, ONNX_OUTPUTS) if slot]
    inputs = {n: to_dml(n, v, layout) for n, v in zip(in_names, ins)}
    expected = {n: to_dml(n, v, layout) for n, v in zip(out_names, outs)}
    direction = attrs.get("direction", b"forward").decode()
    D = 2 if direction == "bidirectional" else 1
    default = ["Sigmoid", "Tanh", "Tanh"] if node.op_type == "LSTM" else ["Tanh"]
    names = [a.decode() for a in attrs["activations"]] if "activations" in attrs else default * D
    extra = lstm_attrs(attrs.get("clip"), attrs.get("input_forget", 0)) if node.op_type == "LSTM" else {}
    desc = dml_desc(node.op_type, inputs, DIRECTION[direction], [ACTS[a]() for a in names], expected, **extra)
    assert_matches(run_all(desc, inputs), expected, ATOL32, "float32 vs ONNX's NumPy generator")


# Errors -------------------------------------------------------------------------------------------------------

def test_wrong_activation_count_is_reported():
    inputs, expected = ort_case("LSTM", "bidirectional", [4, 4, 4, 4], ["Sigmoid", "Tanh", "Tanh"])
    desc = dml_desc("LSTM", inputs, "BIDIRECTIONAL", [dmlops.ActivationSigmoid(), dmlops.ActivationTanh(),
                                                      dmlops.ActivationTanh()], expected, **lstm_attrs())
    with pytest.raises(dmlops.ValidationError, match=r"LSTM\.ActivationDescs: 3 activations given; "
                                                     r"DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL needs 6"):
        dmlops.run(desc, inputs, backend="reference")


def test_signed_sequence_lengths_are_refused():
    inputs, expected = ort_case("RNN", "forward", [4, 4, 4, 4], ["Tanh"])
    desc = dml_desc("RNN", inputs, "FORWARD", [dmlops.ActivationTanh()], expected)
    desc = desc.replace(sequence_lengths_tensor=dmlops.TensorDesc("INT32", [1, 1, 1, 4]))
    with pytest.raises(dmlops.ValidationError, match=r"RNN\.SequenceLengthsTensor: DataType INT32 not supported"):
        dmlops.run(desc, inputs, backend="onnxruntime")


@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
def test_lstm_without_a_peephole_tensor_adds_no_peephole_term(backend):
    # x = 1, W = [NaN, 0, 0, 1] (gates i, o, f, c), R = 0: the input gate and so C are NaN; h = o * ReLU(C), and
    # DirectML's ReLU gives 0 for NaN (ACTIVATION_RELU's vectors). Without a PeepholeTensor there is no peephole
    # term; the reference added 0 * C to the output gate, which is NaN, and made h NaN.
    from dmlops.ops import module

    sample = next(s for s in module("LSTM").SAMPLES if s.name == "hand_clip")
    assert "PeepholeTensor" not in sample.inputs and isinstance(sample.desc.activation_descs[2], dmlops.ActivationRelu)
    inputs = {k: v.copy() for k, v in sample.inputs.items()}
    inputs["WeightTensor"].ravel()[0] = np.nan
    out = dmlops.run(sample.desc, inputs, backend=backend)
    assert np.isnan(out["OutputCellSingleTensor"]).all()
    assert out["OutputSingleTensor"].ravel().tolist() == [0.0]
