"""Hand-written shape rules of ACTIVATION_RELU_GRAD, GRU, LSTM and RNN (dmlops/ops/*.py check hooks)."""
import re
import subprocess
import sys

import pytest

import dmlops
from dmlops.ops import gru, lstm, rnn

SEQ, BATCH, INPUT, HIDDEN = 5, 2, 16, 32
DIRECTIONS = ["FORWARD", "BACKWARD", "BIDIRECTIONAL"]


def t(*sizes, dt="FLOAT32", **kw):
    return dmlops.TensorDesc(dt, list(sizes), **kw)


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


def nd(direction):
    return 2 if direction == "BIDIRECTIONAL" else 1


def gru_desc(direction="FORWARD", optional=True, dt="FLOAT32", **changes):
    d = nd(direction)
    fields = dict(
        input_tensor=t(1, SEQ, BATCH, INPUT, dt=dt),
        weight_tensor=t(1, d, 3 * HIDDEN, INPUT, dt=dt),
        recurrence_tensor=t(1, d, 3 * HIDDEN, HIDDEN, dt=dt),
        activation_descs=[dmlops.ActivationSigmoid(), dmlops.ActivationTanh()] * d,
        direction=direction, linear_before_reset=False)
    if optional:
        fields.update(
            bias_tensor=t(1, 1, d, 6 * HIDDEN, dt=dt),
            hidden_init_tensor=t(1, d, BATCH, HIDDEN, dt=dt),
            sequence_lengths_tensor=t(1, 1, 1, BATCH, dt="UINT32"),
            output_sequence_tensor=t(SEQ, d, BATCH, HIDDEN, dt=dt),
            output_single_tensor=t(1, d, BATCH, HIDDEN, dt=dt))
    fields.update(changes)
    return dmlops.Gru(**fields)


def lstm_desc(direction="FORWARD", optional=True, dt="FLOAT32", **changes):
    d = nd(direction)
    fields = dict(
        input_tensor=t(1, SEQ, BATCH, INPUT, dt=dt),
        weight_tensor=t(1, d, 4 * HIDDEN, INPUT, dt=dt),
        recurrence_tensor=t(1, d, 4 * HIDDEN, HIDDEN, dt=dt),
        activation_descs=[dmlops.ActivationSigmoid(), dmlops.ActivationTanh(), dmlops.ActivationTanh()] * d,
        direction=direction, clip_threshold=0.0, use_clip_threshold=False, couple_input_forget=False)
    if optional:
        fields.update(
            bias_tensor=t(1, 1, d, 8 * HIDDEN, dt=dt),
            hidden_init_tensor=t(1, d, BATCH, HIDDEN, dt=dt),
            cell_mem_init_tensor=t(1, d, BATCH, HIDDEN, dt=dt),
            sequence_lengths_tensor=t(1, 1, 1, BATCH, dt="UINT32"),
            peephole_tensor=t(1, 1, d, 3 * HIDDEN, dt=dt),
            output_sequence_tensor=t(SEQ, d, BATCH, HIDDEN, dt=dt),
            output_single_tensor=t(1, d, BATCH, HIDDEN, dt=dt),
            output_cell_single_tensor=t(1, d, BATCH, HIDDEN, dt=dt))
    fields.update(changes)
    return dmlops.Lstm(**fields)


def rnn_desc(direction="FORWARD", optional=True, dt="FLOAT32", **changes):
    d = nd(direction)
    fields = dict(
        input_tensor=t(1, SEQ, BATCH, INPUT, dt=dt),
        weight_tensor=t(1, d, HIDDEN, INPUT, dt=dt),
        recurrence_tensor=t(1, d, HIDDEN, HIDDEN, dt=dt),
        activation_descs=[dmlops.ActivationTanh()] * d,
        direction=direction)
    if optional:
        fields.update(
            bias_tensor=t(1, 1, d, 2 * HIDDEN, dt=dt),
            hidden_init_tensor=t(1, d, BATCH, HIDDEN, dt=dt),
            sequence_lengths_tensor=t(1, 1, 1, BATCH, dt="UINT32"),
            output_sequence_tensor=t(SEQ, d, BATCH, HIDDEN, dt=dt),
            output_single_tensor=t(1, d, BATCH, HIDDEN, dt=dt))
    fields.update(changes)
    return dmlops.Rnn(**fields)


BUILDERS = {"GRU": gru_desc, "LSTM": lstm_desc, "RNN": rnn_desc}


# ---------------------------------------------------------------- valid descriptors

@pytest.mark.parametrize("op", BUILDERS)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("optional", [True, False])
@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
def test_valid_recurrent(op, direction, optional, dt):
    desc = BUILDERS[op](direction, optional, dt)
    assert dmlops.problems(desc, "6.4") == []
    assert dmlops.problems(desc, "1.0") == []
    desc.validate("6.4")


def test_valid_lstm_with_clip_and_coupling():
    desc = lstm_desc("BIDIRECTIONAL", clip_threshold=3.5, use_clip_threshold=True, couple_input_forget=True)
    assert dmlops.problems(desc, "6.4") == []


def test_valid_with_strided_input():
    # Padded InputTensor ("packed and potentially padded"): Sizes, not Strides, carry the relation.
    x = t(1, SEQ, BATCH, INPUT, strides=[SEQ * BATCH * 20, BATCH * 20, 20, 1])
    assert dmlops.problems(gru_desc(input_tensor=x), "6.4") == []


def test_valid_only_some_optionals():
    desc = gru_desc("BIDIRECTIONAL", optional=False, output_single_tensor=t(1, 2, BATCH, HIDDEN),
                    sequence_lengths_tensor=t(1, 1, 1, BATCH, dt="UINT32"))
    assert dmlops.problems(desc, "6.4") == []


# ---------------------------------------------------------------- GRU failures

GRU_LAYOUT_CASES = [
    ("FORWARD", dict(input_tensor=t(2, SEQ, BATCH, INPUT)),
     "GRU.InputTensor: Sizes [2, 5, 2, 16] do not match {1, seq_length, batch_size, input_size} = [1, 5, 2, 16]."),
    ("FORWARD", dict(weight_tensor=t(1, 1, 96, 8)),
     "GRU.WeightTensor: Sizes [1, 1, 96, 8] do not match {1, num_directions, 3 * hidden_size, input_size} = [1, 1, 96, 16]."),
    ("FORWARD", dict(weight_tensor=t(1, 2, 96, 16)),
     "GRU.WeightTensor: Sizes [1, 2, 96, 16] do not match {1, num_directions, 3 * hidden_size, input_size} = [1, 1, 96, 16]."),
    ("FORWARD", dict(weight_tensor=t(1, 1, 64, 16)),
     "GRU.WeightTensor: Sizes [1, 1, 64, 16] do not match {1, num_directions, 3 * hidden_size, input_size} = [1, 1, 96, 16]."),
    ("FORWARD", dict(recurrence_tensor=t(1, 1, 64, 32)),
     "GRU.RecurrenceTensor: Sizes [1, 1, 64, 32] do not match {1, num_directions, 3 * hidden_size, hidden_size} = [1, 1, 96, 32]."),
    ("BIDIRECTIONAL", dict(recurrence_tensor=t(1, 1, 96, 32)),
     "GRU.RecurrenceTensor: Sizes [1, 1, 96, 32] do not match {1, num_directions, 3 * hidden_size, hidden_size} = [1, 2, 96, 32]."),
    ("FORWARD", dict(bias_tensor=t(1, 1, 1, 96)),
     "GRU.BiasTensor: Sizes [1, 1, 1, 96] do not match {1, 1, num_directions, 6 * hidden_size} = [1, 1, 1, 192]."),
    ("BIDIRECTIONAL", dict(bias_tensor=t(1, 2, 1, 192)),
     "GRU.BiasTensor: Sizes [1, 2, 1, 192] do not match {1, 1, num_directions, 6 * hidden_size} = [1, 1, 2, 192]."),
    ("BACKWARD", dict(hidden_init_tensor=t(1, 1, 3, 32)),
     "GRU.HiddenInitTensor: Sizes [1, 1, 3, 32] do not match {1, num_directions, batch_size, hidden_size} = [1, 1, 2, 32]."),
    ("FORWARD", dict(sequence_lengths_tensor=t(1, 1, 2, 1, dt="UINT32")),
     "GRU.SequenceLengthsTensor: Sizes [1, 1, 2, 1] do not match {1, 1, 1, batch_size} = [1, 1, 1, 2]."),
    ("FORWARD", dict(output_sequence_tensor=t(4, 1, 2, 32)),
     "GRU.OutputSequenceTensor: Sizes [4, 1, 2, 32] do not match {seq_length, num_directions, batch_size, hidden_size} = [5, 1, 2, 32]."),
    ("BIDIRECTIONAL", dict(output_sequence_tensor=t(5, 1, 2, 32)),
     "GRU.OutputSequenceTensor: Sizes [5, 1, 2, 32] do not match {seq_length, num_directions, batch_size, hidden_size} = [5, 2, 2, 32]."),
    ("FORWARD", dict(output_single_tensor=t(1, 1, 2, 16)),
     "GRU.OutputSingleTensor: Sizes [1, 1, 2, 16] do not match {1, num_directions, batch_size, hidden_size} = [1, 1, 2, 32]."),
]


@pytest.mark.parametrize("direction, changes, expected", GRU_LAYOUT_CASES)
def test_gru_layout(direction, changes, expected):
    assert messages(gru_desc(direction, **changes)) == [expected]


@pytest.mark.parametrize("direction, count, expected", [
    ("BIDIRECTIONAL", 3, "GRU.ActivationDescs: 3 activations given; DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL needs 4 (2 per direction)."),
    ("FORWARD", 1, "GRU.ActivationDescs: 1 activation given; DML_RECURRENT_NETWORK_DIRECTION_FORWARD needs 2 (2 per direction)."),
    ("BACKWARD", 4, "GRU.ActivationDescs: 4 activations given; DML_RECURRENT_NETWORK_DIRECTION_BACKWARD needs 2 (2 per direction)."),
    ("FORWARD", 0, "GRU.ActivationDescs: 0 activations given; DML_RECURRENT_NETWORK_DIRECTION_FORWARD needs 2 (2 per direction)."),
])
def test_gru_activation_count(direction, count, expected):
    acts = ([dmlops.ActivationSigmoid(), dmlops.ActivationTanh()] * 2)[:count]
    desc = gru_desc(direction, activation_descs=acts)
    assert messages(desc) == [expected]
    with pytest.raises(dmlops.ValidationError, match=re.escape(expected)):
        desc.validate("6.4")


@pytest.mark.parametrize("field", ["input_tensor", "weight_tensor", "hidden_init_tensor"])
def test_gru_owned_by_dml_input(field):
    good = getattr(gru_desc(), field)
    desc = gru_desc(**{field: t(*good.sizes, flags="OWNED_BY_DML")})
    name = dmlops.Gru.FIELD_NAMES[field]
    assert messages(desc) == [
        f"GRU.{name}: Flags DML_TENSOR_FLAG_OWNED_BY_DML not supported on this input; must be DML_TENSOR_FLAG_NONE."]


def test_gru_owned_by_dml_output_reported_once():
    # The generic validator rejects the flag on outputs; the hook must not repeat it.
    desc = gru_desc(output_single_tensor=t(1, 1, BATCH, HIDDEN, flags="OWNED_BY_DML"))
    assert messages(desc) == ["GRU.OutputSingleTensor: DML_TENSOR_FLAG_OWNED_BY_DML can only be used on input tensors."]


def test_gru_sequence_lengths_data_type_reported_once():
    # The support tier already says it; the hook adds nothing.
    desc = gru_desc(sequence_lengths_tensor=t(1, 1, 1, BATCH, dt="FLOAT32"))
    assert messages(desc) == [
        "GRU.SequenceLengthsTensor: DataType FLOAT32 not supported at DML_FEATURE_LEVEL_6_4 (supported: UINT32); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows it."]


def test_gru_wrong_rank_reported_once():
    # A 3-D tensor is the tier's problem; no layout problem is added for it or derived from it.
    assert messages(gru_desc(output_single_tensor=t(1, BATCH, HIDDEN))) == [
        "GRU.OutputSingleTensor: 3 dimensions not supported at DML_FEATURE_LEVEL_6_4 (supported: 4); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows 3."]
    found = messages(gru_desc(input_tensor=t(SEQ, BATCH, INPUT)))
    assert len(found) == 1 and found[0].startswith("GRU.InputTensor: 3 dimensions not supported")


def test_gru_hidden_size_from_weight_when_recurrence_missing():
    desc = gru_desc(recurrence_tensor=None, hidden_init_tensor=t(1, 1, BATCH, 16))
    assert messages(desc) == [
        "GRU.RecurrenceTensor: is required but missing (null).",
        "GRU.HiddenInitTensor: Sizes [1, 1, 2, 16] do not match {1, num_directions, batch_size, hidden_size} = [1, 1, 2, 32].",
    ]


def test_gru_several_problems_all_reported():
    desc = gru_desc("BIDIRECTIONAL", weight_tensor=t(1, 2, 96, 8), bias_tensor=t(1, 1, 1, 192),
                    activation_descs=[dmlops.ActivationSigmoid()] * 3)
    assert messages(desc) == [
        "GRU.ActivationDescs: 3 activations given; DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL needs 4 (2 per direction).",
        "GRU.WeightTensor: Sizes [1, 2, 96, 8] do not match {1, num_directions, 3 * hidden_size, input_size} = [1, 2, 96, 16].",
        "GRU.BiasTensor: Sizes [1, 1, 1, 192] do not match {1, 1, num_directions, 6 * hidden_size} = [1, 1, 2, 192].",
    ]


@pytest.mark.parametrize("module, cls, extra", [
    (gru, dmlops.Gru, dict(linear_before_reset=True)),
    (lstm, dmlops.Lstm, dict(clip_threshold=0.0, use_clip_threshold=False, couple_input_forget=False)),
    (rnn, dmlops.Rnn, {}),
])
def test_check_tolerates_missing_tensors(module, cls, extra):
    desc = cls(activation_descs=[], direction="BIDIRECTIONAL", **extra)
    found = module.check(desc, dmlops.FeatureLevel.latest())
    assert isinstance(found, list) and [p.rule for p in found] == ["activation_count"]
    assert all(p.rule in ("required", "activation_count") for p in dmlops.problems(desc, "6.4"))


# ---------------------------------------------------------------- LSTM failures

LSTM_LAYOUT_CASES = [
    ("FORWARD", dict(input_tensor=t(3, SEQ, BATCH, INPUT)),
     "LSTM.InputTensor: Sizes [3, 5, 2, 16] do not match {1, seq_length, batch_size, input_size} = [1, 5, 2, 16]."),
    ("FORWARD", dict(weight_tensor=t(1, 1, 96, 16)),
     "LSTM.WeightTensor: Sizes [1, 1, 96, 16] do not match {1, num_directions, 4 * hidden_size, input_size} = [1, 1, 128, 16]."),
    ("BIDIRECTIONAL", dict(recurrence_tensor=t(1, 2, 96, 32)),
     "LSTM.RecurrenceTensor: Sizes [1, 2, 96, 32] do not match {1, num_directions, 4 * hidden_size, hidden_size} = [1, 2, 128, 32]."),
    ("FORWARD", dict(bias_tensor=t(1, 1, 1, 192)),
     "LSTM.BiasTensor: Sizes [1, 1, 1, 192] do not match {1, 1, num_directions, 8 * hidden_size} = [1, 1, 1, 256]."),
    ("BIDIRECTIONAL", dict(hidden_init_tensor=t(1, 1, BATCH, HIDDEN)),
     "LSTM.HiddenInitTensor: Sizes [1, 1, 2, 32] do not match {1, num_directions, batch_size, hidden_size} = [1, 2, 2, 32]."),
    ("FORWARD", dict(cell_mem_init_tensor=t(1, 1, 4, HIDDEN)),
     "LSTM.CellMemInitTensor: Sizes [1, 1, 4, 32] do not match {1, num_directions, batch_size, hidden_size} = [1, 1, 2, 32]."),
    ("BACKWARD", dict(sequence_lengths_tensor=t(1, 1, 1, 1, dt="UINT32")),
     "LSTM.SequenceLengthsTensor: Sizes [1, 1, 1, 1] do not match {1, 1, 1, batch_size} = [1, 1, 1, 2]."),
    ("FORWARD", dict(peephole_tensor=t(1, 1, 1, 128)),
     "LSTM.PeepholeTensor: Sizes [1, 1, 1, 128] do not match {1, 1, num_directions, 3 * hidden_size} = [1, 1, 1, 96]."),
    ("BIDIRECTIONAL", dict(peephole_tensor=t(1, 1, 1, 96)),
     "LSTM.PeepholeTensor: Sizes [1, 1, 1, 96] do not match {1, 1, num_directions, 3 * hidden_size} = [1, 1, 2, 96]."),
    ("FORWARD", dict(output_sequence_tensor=t(1, 1, BATCH, HIDDEN)),
     "LSTM.OutputSequenceTensor: Sizes [1, 1, 2, 32] do not match {seq_length, num_directions, batch_size, hidden_size} = [5, 1, 2, 32]."),
    ("FORWARD", dict(output_single_tensor=t(SEQ, 1, BATCH, HIDDEN)),
     "LSTM.OutputSingleTensor: Sizes [5, 1, 2, 32] do not match {1, num_directions, batch_size, hidden_size} = [1, 1, 2, 32]."),
    ("BIDIRECTIONAL", dict(output_cell_single_tensor=t(1, 2, BATCH, 16)),
     "LSTM.OutputCellSingleTensor: Sizes [1, 2, 2, 16] do not match {1, num_directions, batch_size, hidden_size} = [1, 2, 2, 32]."),
]


@pytest.mark.parametrize("direction, changes, expected", LSTM_LAYOUT_CASES)
def test_lstm_layout(direction, changes, expected):
    assert messages(lstm_desc(direction, **changes)) == [expected]


@pytest.mark.parametrize("direction, count, expected", [
    ("FORWARD", 2, "LSTM.ActivationDescs: 2 activations given; DML_RECURRENT_NETWORK_DIRECTION_FORWARD needs 3 (3 per direction)."),
    ("BIDIRECTIONAL", 3, "LSTM.ActivationDescs: 3 activations given; DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL needs 6 (3 per direction)."),
])
def test_lstm_activation_count(direction, count, expected):
    acts = [dmlops.ActivationSigmoid(), dmlops.ActivationTanh(), dmlops.ActivationTanh()] * 2
    assert messages(lstm_desc(direction, activation_descs=acts[:count])) == [expected]


@pytest.mark.parametrize("field", ["cell_mem_init_tensor", "peephole_tensor", "sequence_lengths_tensor"])
def test_lstm_owned_by_dml_input(field):
    good = getattr(lstm_desc(), field)
    desc = lstm_desc(**{field: t(*good.sizes, dt=good.data_type, flags="OWNED_BY_DML")})
    name = dmlops.Lstm.FIELD_NAMES[field]
    assert messages(desc) == [
        f"LSTM.{name}: Flags DML_TENSOR_FLAG_OWNED_BY_DML not supported on this input; must be DML_TENSOR_FLAG_NONE."]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_lstm_cell_output_needs_output_single(direction):
    # DirectML refuses OutputCellSingleTensor alone (vector only_cell_output_no_optional_inputs) and runs it with
    # OutputSingleTensor beside it (only_cell_output_no_optional_inputs_fixed_with_output_single).
    desc = lstm_desc(direction, optional=False, output_cell_single_tensor=t(1, nd(direction), BATCH, HIDDEN))
    assert messages(desc) == [
        "LSTM.OutputSingleTensor: absent while OutputCellSingleTensor is given; DirectML writes OutputCellSingleTensor "
        "only together with OutputSingleTensor."]
    assert messages(desc.replace(output_single_tensor=t(1, nd(direction), BATCH, HIDDEN))) == []
    assert messages(lstm_desc(direction, output_single_tensor=None, output_cell_single_tensor=None)) == []


# ---------------------------------------------------------------- RNN failures

RNN_LAYOUT_CASES = [
    ("FORWARD", dict(weight_tensor=t(1, 1, HIDDEN, 8)),
     "RNN.WeightTensor: Sizes [1, 1, 32, 8] do not match {1, num_directions, hidden_size, input_size} = [1, 1, 32, 16]."),
    ("BIDIRECTIONAL", dict(recurrence_tensor=t(1, 2, 16, HIDDEN)),
     "RNN.RecurrenceTensor: Sizes [1, 2, 16, 32] do not match {1, num_directions, hidden_size, hidden_size} = [1, 2, 32, 32]."),
    ("FORWARD", dict(bias_tensor=t(1, 1, 1, HIDDEN)),
     "RNN.BiasTensor: Sizes [1, 1, 1, 32] do not match {1, 1, num_directions, 2 * hidden_size} = [1, 1, 1, 64]."),
    ("FORWARD", dict(hidden_init_tensor=t(1, 2, BATCH, HIDDEN)),
     "RNN.HiddenInitTensor: Sizes [1, 2, 2, 32] do not match {1, num_directions, batch_size, hidden_size} = [1, 1, 2, 32]."),
    ("FORWARD", dict(sequence_lengths_tensor=t(1, 1, 1, 3, dt="UINT32")),
     "RNN.SequenceLengthsTensor: Sizes [1, 1, 1, 3] do not match {1, 1, 1, batch_size} = [1, 1, 1, 2]."),
    ("BACKWARD", dict(output_sequence_tensor=t(SEQ, 1, 1, HIDDEN)),
     "RNN.OutputSequenceTensor: Sizes [5, 1, 1, 32] do not match {seq_length, num_directions, batch_size, hidden_size} = [5, 1, 2, 32]."),
    ("BIDIRECTIONAL", dict(output_single_tensor=t(1, 1, BATCH, HIDDEN)),
     "RNN.OutputSingleTensor: Sizes [1, 1, 2, 32] do not match {1, num_directions, batch_size, hidden_size} = [1, 2, 2, 32]."),
    ("FORWARD", dict(input_tensor=t(2, SEQ, BATCH, INPUT)),
     "RNN.InputTensor: Sizes [2, 5, 2, 16] do not match {1, seq_length, batch_size, input_size} = [1, 5, 2, 16]."),
]


@pytest.mark.parametrize("direction, changes, expected", RNN_LAYOUT_CASES)
def test_rnn_layout(direction, changes, expected):
    assert messages(rnn_desc(direction, **changes)) == [expected]


@pytest.mark.parametrize("direction, count, expected", [
    ("FORWARD", 2, "RNN.ActivationDescs: 2 activations given; DML_RECURRENT_NETWORK_DIRECTION_FORWARD needs 1 (1 per direction)."),
    ("BIDIRECTIONAL", 1, "RNN.ActivationDescs: 1 activation given; DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL needs 2 (1 per direction)."),
])
def test_rnn_activation_count(direction, count, expected):
    assert messages(rnn_desc(direction, activation_descs=[dmlops.ActivationTanh()] * count)) == [expected]


def test_rnn_owned_by_dml_input():
    desc = rnn_desc(recurrence_tensor=t(1, 1, HIDDEN, HIDDEN, flags="OWNED_BY_DML"))
    assert messages(desc) == [
        "RNN.RecurrenceTensor: Flags DML_TENSOR_FLAG_OWNED_BY_DML not supported on this input; must be DML_TENSOR_FLAG_NONE."]


def test_rnn_non_activation_reported_once():
    # The generic validator checks ACTIVATION_* and null tensors in ActivationDescs; the hook only counts.
    desc = rnn_desc(activation_descs=[dmlops.ElementWiseIdentity()])
    assert messages(desc) == ["RNN.ActivationDescs[0]: ELEMENT_WISE_IDENTITY is not an activation operator."]


# ---------------------------------------------------------------- ACTIVATION_RELU_GRAD

def relu_grad(x=(2, 3, 4), dy=(2, 3, 4), dx=(2, 3, 4), dt="FLOAT32"):
    return dmlops.ActivationReluGrad(input_tensor=t(*x, dt=dt), input_gradient_tensor=t(*dy, dt=dt),
                                     output_gradient_tensor=t(*dx, dt=dt))


@pytest.mark.parametrize("dt, level", [("FLOAT32", "3.0"), ("FLOAT16", "6.4"), ("INT8", "5.1")])
def test_relu_grad_valid(dt, level):
    assert dmlops.problems(relu_grad(dt=dt), level) == []


def test_relu_grad_sizes_reported_once():
    assert messages(relu_grad(dy=(2, 3, 5))) == [
        "ACTIVATION_RELU_GRAD: InputGradientTensor, InputTensor and OutputGradientTensor must have the same Sizes; "
        "got [2, 3, 5], [2, 3, 4] and [2, 3, 4]."]


def test_relu_grad_rank_reported_by_same_constraint():
    found = messages(relu_grad(dx=(6, 4)))
    assert found == [
        "ACTIVATION_RELU_GRAD: InputGradientTensor, InputTensor and OutputGradientTensor must have the same "
        "DimensionCount; got 3, 3 and 2.",
        "ACTIVATION_RELU_GRAD: InputGradientTensor, InputTensor and OutputGradientTensor must have the same Sizes; "
        "got [2, 3, 4], [2, 3, 4] and [6, 4]."]


# ---------------------------------------------------------------- module hygiene

def test_op_modules_import_no_backends():
    # Op modules use NumPy (their reference) but get torch and the ONNX builder passed in (DESIGN.md).
    code = ("import sys, dmlops.ops.gru, dmlops.ops.lstm, dmlops.ops.rnn; "
            "print(sorted(m for m in ('torch', 'onnxruntime', 'onnx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_op_modules_are_indexed():
    from dmlops.ops import module

    assert {op: module(op) for op in ("GRU", "LSTM", "RNN")} == {"GRU": gru, "LSTM": lstm, "RNN": rnn}
    assert module("NOT_AN_OPERATOR") is None  # every DirectML operator type has a module (tools.gen indexes them)
