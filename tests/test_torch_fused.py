"""The torch lowerings that call one fused framework kernel (issue 22 item 2): GRU / LSTM / RNN through torch.gru /
torch.lstm / torch.rnn_tanh (dmlops/ops/_recurrent_fused.py), CONVOLUTION through one F.conv / F.conv_transpose call
with the bias, GEMM through one addmm / baddbmm / matmul, FusedActivation in place (dmlops/ops/_torch_fused.py).

Which descriptors take the fused path, that they really make the one call (spied), that they agree with the per-step
loop and the float64 reference (the loop is the path the fused one replaced; both also meet DirectML's vectors in
tests/test_directml_vectors.py), DirectML's semantics torch's calls are bent to (BACKWARD, sequence lengths of 0 and
above seq_length, OutputPadding, Beta 0 with a NaN in C, the fused ReLU's signed zeros), and that torch-directml and
every descriptor outside the fused kernels' semantics keep the loop. No timing here: benchmarks/run.py times them.

Bounds: FLOAT32 fused against the float64 reference within 2e-6 absolute on values of order 1 (sums of up to 24
products of values in [-1, 1] over up to 5 steps; measured here at most 3.0e-7 over CASES, the loop 3.0e-7); fused
against the loop within 1e-6 (measured at most 3.3e-7; at the benchmark's size T64 N32 I128 H256: 2.1e-7).
"""
import dataclasses

import numpy as np
import pytest
import torch

import dmlops
from dmlops.ops import _recurrent_fused, _torch_fused
from dmlops.ops._recurrent import random_inputs
from dmlops.ops import convolution as conv_op

T = dmlops.TensorDesc
S, TANH, RELU = dmlops.ActivationSigmoid(), dmlops.ActivationTanh(), dmlops.ActivationRelu()
GATES = {"GRU": 3, "LSTM": 4, "RNN": 1}
ACTS = {"GRU": (S, TANH), "LSTM": (S, TANH, TANH), "RNN": (TANH,)}


def recurrent(op, steps=5, batch=4, inputs=3, hidden=6, direction="FORWARD", acts=None, bias=True, inits=True,
              lengths=False, sequence=True, single=True, **extra):
    """A FLOAT32 GRU / LSTM / RNN descriptor (LSTM: OutputCellSingleTensor too when ``single``)."""
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    g = GATES[op]
    fields = dict(
        input_tensor=T("FLOAT32", [1, steps, batch, inputs]),
        weight_tensor=T("FLOAT32", [1, dirs, g * hidden, inputs]),
        recurrence_tensor=T("FLOAT32", [1, dirs, g * hidden, hidden]),
        bias_tensor=T("FLOAT32", [1, 1, dirs, 2 * g * hidden]) if bias else None,
        hidden_init_tensor=T("FLOAT32", [1, dirs, batch, hidden]) if inits else None,
        sequence_lengths_tensor=T("UINT32", [1, 1, 1, batch]) if lengths else None,
        output_sequence_tensor=T("FLOAT32", [steps, dirs, batch, hidden]) if sequence else None,
        output_single_tensor=T("FLOAT32", [1, dirs, batch, hidden]) if single else None,
        activation_descs=tuple(acts or ACTS[op] * dirs), direction=direction)
    if op == "GRU":
        fields["linear_before_reset"] = extra.pop("linear_before_reset", True)
        return dmlops.Gru(**fields, **extra)
    if op == "LSTM":
        fields["cell_mem_init_tensor"] = T("FLOAT32", [1, dirs, batch, hidden]) if inits else None
        fields["output_cell_single_tensor"] = T("FLOAT32", [1, dirs, batch, hidden]) if single else None
        if "peephole" in extra:
            extra.pop("peephole")
            fields["peephole_tensor"] = T("FLOAT32", [1, 1, dirs, 3 * hidden])
        extra = {"clip_threshold": 0.0, "use_clip_threshold": False, "couple_input_forget": False, **extra}
        return dmlops.Lstm(**fields, **extra)
    return dmlops.Rnn(**fields, **extra)


class Spy:
    """Counts the calls of a torch function it replaces (and passes them on)."""

    def __init__(self, monkeypatch, owner, name):
        self.calls = 0
        real = getattr(owner, name)

        def spy(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, spy)


def loop(monkeypatch, desc, x):
    """The per-step loop's torch results (the fused path switched off)."""
    with monkeypatch.context() as m:
        m.setattr(_recurrent_fused, "run", lambda *a: None)
        return dmlops.run(desc, x, backend="torch")


# ---------------------------------------------------------------------------------- which descriptors are fused
@pytest.mark.parametrize("desc,reason", [
    (recurrent("GRU", linear_before_reset=False), "GRU: LinearBeforeReset FALSE; torch's GRU computes only "
                                                  "LinearBeforeReset TRUE."),
    (recurrent("GRU", direction="BIDIRECTIONAL", acts=(S, TANH, S, RELU)),
     "GRU: ActivationDescs SIGMOID, TANH, SIGMOID, RELU are not SIGMOID, TANH in every direction."),
    (recurrent("GRU", acts=(dmlops.ActivationHardSigmoid(alpha=0.2, beta=0.5), TANH)),
     "GRU: ActivationDescs HARD_SIGMOID, TANH are not SIGMOID, TANH in every direction."),
    (recurrent("LSTM", peephole=True), "LSTM: PeepholeTensor given; torch's LSTM has no peepholes."),
    (recurrent("LSTM", use_clip_threshold=True, clip_threshold=1.0), "LSTM: UseClipThreshold TRUE; torch's LSTM has "
                                                                     "no clip."),
    (recurrent("LSTM", couple_input_forget=True), "LSTM: CoupleInputForget TRUE; torch's LSTM has no coupled input "
                                                  "and forget gates."),
    (recurrent("LSTM", acts=(S, RELU, RELU)), "LSTM: ActivationDescs SIGMOID, RELU, RELU are not SIGMOID, TANH, TANH "
                                              "in every direction."),
    (recurrent("RNN", acts=(RELU,)), "RNN: ActivationDescs RELU are not TANH in every direction."),
])
def test_descriptors_outside_the_fused_kernels_semantics_say_why_and_run_the_loop(monkeypatch, desc, reason):
    assert _recurrent_fused.refusal(desc) == reason
    spy = Spy(monkeypatch, torch, _recurrent_fused.KINDS[desc.OPERATOR_TYPE][0])
    x = random_inputs(desc, 1)
    got = dmlops.run(desc, x, backend="torch")
    assert spy.calls == 0
    want = dmlops.run(desc, x, backend="reference")
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=2e-6, err_msg=name)


# ------------------------------------------------------------------------ fused = loop = reference, one call each
CASES = [  # direction, lengths (None: no SequenceLengthsTensor), bias, inits
    ("FORWARD", None, True, True), ("BACKWARD", None, True, True), ("BIDIRECTIONAL", None, True, True),
    ("FORWARD", None, False, False), ("BIDIRECTIONAL", None, False, True),
    ("FORWARD", [5, 2, 0, 9], True, True), ("BACKWARD", [5, 2, 0, 9], True, True),
    ("BIDIRECTIONAL", [3, 0, 5, 1], True, True), ("BACKWARD", [1, 4, 3, 2], False, False),
    ("BIDIRECTIONAL", [0, 0, 0, 0], True, True), ("FORWARD", [5, 5, 7, 5], True, True),
]


@pytest.mark.parametrize("op", ["GRU", "LSTM", "RNN"])
@pytest.mark.parametrize("direction,lengths,bias,inits", CASES)
def test_fused_matches_the_loop_and_the_reference_in_one_call(monkeypatch, op, direction, lengths, bias, inits):
    desc = recurrent(op, direction=direction, bias=bias, inits=inits, lengths=lengths is not None)
    assert _recurrent_fused.refusal(desc) is None
    x = random_inputs(desc, 7, lengths)
    per_step = loop(monkeypatch, desc, x)
    spy = Spy(monkeypatch, torch, _recurrent_fused.KINDS[op][0])
    got = dmlops.run(desc, x, backend="torch")
    assert spy.calls == 1
    want = dmlops.run(desc, x, backend="reference")
    assert set(got) == set(want) == set(per_step)
    for name in want:
        assert got[name].dtype == np.float32
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=2e-6, err_msg=name)
        np.testing.assert_allclose(got[name], per_step[name], rtol=0, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("op", ["GRU", "LSTM", "RNN"])
def test_length_zero_gets_directml_s_answers(op):
    # Entry 1 is empty: OutputSequence 0, forward final hidden 0, backward final hidden = HiddenInit, LSTM's forward
    # final cell the one after step 0 and its backward one CellMemInit (_recurrent_exec's docstring).
    desc = recurrent(op, direction="BIDIRECTIONAL", lengths=True)
    x = random_inputs(desc, 3, [4, 0, 2, 5])
    got = dmlops.run(desc, x, backend="torch")
    seq = got["OutputSequenceTensor"]
    assert not seq[:, :, 1].any() and not np.signbit(seq[:, :, 1]).any()
    assert not got["OutputSingleTensor"][0, 0, 1].any()
    np.testing.assert_array_equal(got["OutputSingleTensor"][0, 1, 1], x["HiddenInitTensor"][0, 1, 1])
    if op == "LSTM":
        np.testing.assert_array_equal(got["OutputCellSingleTensor"][0, 1, 1], x["CellMemInitTensor"][0, 1, 1])
        one = dict(x, SequenceLengthsTensor=np.array([4, 1, 2, 5], np.uint32).reshape(1, 1, 1, 4))
        after_step_0 = dmlops.run(desc, one, backend="torch")["OutputCellSingleTensor"][0, 0, 1]
        np.testing.assert_array_equal(got["OutputCellSingleTensor"][0, 0, 1], after_step_0)
    want = dmlops.run(desc, x, backend="reference")
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=2e-6, err_msg=name)


def test_only_the_declared_outputs_come_back():
    desc = recurrent("LSTM", direction="BACKWARD", sequence=False)
    assert set(dmlops.run(desc, random_inputs(desc, 2), backend="torch")) == {"OutputSingleTensor",
                                                                            "OutputCellSingleTensor"}
    desc = recurrent("GRU", single=False, lengths=True)
    assert set(dmlops.run(desc, random_inputs(desc, 2, [1, 2, 3, 4]), backend="torch")) == {"OutputSequenceTensor"}


def test_float16_data_takes_the_fused_path_in_float32(monkeypatch):
    desc = recurrent("GRU", direction="BIDIRECTIONAL")
    desc16 = dataclasses.replace(desc, **{f: T("FLOAT16", getattr(desc, f).sizes) for f in desc.FIELD_NAMES
                                          if f.endswith("_tensor") and getattr(desc, f) is not None})
    x = {k: v.astype(np.float16) for k, v in random_inputs(desc16, 4).items()}
    spy = Spy(monkeypatch, torch, "gru")
    got = dmlops.run(desc16, x, backend="torch")
    assert spy.calls == 1
    want = dmlops.run(desc16, x, backend="reference")
    for name in want:
        assert got[name].dtype == np.float16
        np.testing.assert_array_equal(got[name], want[name])  # both float32 arithmetic, stored toward zero


# ------------------------------------------------------------------------------------------------- convolution
def conv(x, w, y, bias=True, direction="FORWARD", mode="CROSS_CORRELATION", strides=None, dilations=None,
         start=None, end=None, output_padding=None, groups=1, act=None):
    dims = len(x) - 2
    zeros, ones = (0,) * dims, (1,) * dims
    return dmlops.Convolution(
        input_tensor=T("FLOAT32", x), filter_tensor=T("FLOAT32", w),
        bias_tensor=T("FLOAT32", [1, y[1]] + [1] * dims) if bias else None, output_tensor=T("FLOAT32", y),
        mode=mode, direction=direction, strides=strides or ones, dilations=dilations or ones,
        start_padding=start or zeros, end_padding=end or zeros, output_padding=output_padding or zeros,
        group_count=groups, fused_activation=act)


CONVS = [  # descriptor, whether one framework call computes it
    (conv([2, 4, 9, 8], [6, 4, 3, 3], [2, 6, 9, 8], start=(1, 1), end=(1, 1)), True),  # 'same'
    (conv([1, 4, 9, 8], [4, 2, 3, 2], [1, 4, 5, 8], strides=(2, 1), dilations=(1, 2), start=(1, 1), end=(0, 1),
          groups=2), True),  # asymmetric, but torch's symmetric padding gives the same windows
    (conv([1, 2, 5], [3, 2, 2], [1, 3, 6], start=(0,), end=(1,)), False),  # a window reaches past the start padding
    (conv([1, 2, 5], [3, 2, 2], [1, 3, 5], start=(0,), end=(1,), output_padding=(1,)), True),
    (conv([1, 3, 4, 5, 3], [2, 3, 2, 3, 2], [1, 2, 4, 2, 3], strides=(1, 2, 1), start=(1, 0, 1), end=(0, 1, 0),
          mode="CONVOLUTION"), True),
    (conv([1, 3, 4, 5, 3], [2, 3, 2, 3, 2], [1, 2, 4, 3, 3], strides=(1, 2, 1), start=(1, 0, 1), end=(0, 1, 0),
          mode="CONVOLUTION"), False),  # one element longer than the formula: its window reaches into zeros
    (conv([1, 4, 3, 4], [4, 3, 3, 2], [1, 6, 5, 9], direction="BACKWARD", strides=(2, 3), start=(1, 0),
          end=(1, 0), groups=2), True),
    (conv([1, 4, 3, 4], [4, 3, 3, 2], [1, 6, 6, 10], direction="BACKWARD", strides=(2, 3), start=(1, 0),
          end=(1, 0), groups=2), True),  # one element more than torch's output: output_padding makes it up
    (conv([1, 2, 3], [2, 3, 2], [1, 3, 8], direction="BACKWARD", strides=(2,)), False),  # 2 zeros past Full
    (conv([2, 4, 3, 4], [4, 3, 3, 2], [2, 6, 7, 10], direction="BACKWARD", strides=(2, 3), dilations=(2, 1),
          start=(1, 0), end=(2, 1), output_padding=(1, 0), groups=2, mode="CONVOLUTION"), True),
]


@pytest.mark.parametrize("desc,one_call", CONVS)
@pytest.mark.parametrize("act", [None, RELU])
def test_convolution_is_one_call_with_the_bias_where_torch_s_padding_gives_directml_s_windows(monkeypatch, desc,
                                                                                            one_call, act):
    desc = dataclasses.replace(desc, fused_activation=act)
    assert dmlops.problems(desc, "6.2") == []
    assert (conv_op._torch_call(desc) is not None) == one_call
    pads = Spy(monkeypatch, torch.nn.functional, "pad")
    x = random_inputs(desc, 5)
    got = dmlops.run(desc, x, backend="torch")["OutputTensor"]
    expected_pads = (0 if one_call else 1) + (1 if any(desc.output_padding) else 0)
    assert pads.calls == expected_pads
    want = dmlops.run(desc, x, backend="reference")["OutputTensor"]
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)
    if act is not None:  # signs of zero exactly as the reference (fused ReLU: -0.0 for negatives)
        assert (np.signbit(got) == np.signbit(want))[want == 0].all()


# ------------------------------------------------------------------------------------------------------- GEMM
def gemm(a, b, out, c=None, c_strides=None, trans_a="NONE", trans_b="NONE", alpha=1.0, beta=1.0, act=None):
    return dmlops.Gemm(a_tensor=T("FLOAT32", a), b_tensor=T("FLOAT32", b),
                       c_tensor=None if c is None else T("FLOAT32", c, c_strides), output_tensor=T("FLOAT32", out),
                       trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta, fused_activation=act)


GEMMS = [  # descriptor, the torch function that computes it in one call
    (gemm([5, 4], [4, 3], [5, 3]), "matmul"),
    (gemm([4, 5], [3, 4], [5, 3], trans_a="TRANSPOSE", trans_b="TRANSPOSE", alpha=0.5), "addmm"),
    (gemm([5, 4], [4, 3], [5, 3], c=[5, 3], c_strides=[0, 1], alpha=2.0, beta=-0.5), "addmm"),
    (gemm([2, 5, 4], [2, 4, 3], [2, 5, 3], c=[2, 5, 3], act=RELU), "baddbmm"),
    (gemm([2, 3, 4, 5], [2, 3, 3, 5], [2, 3, 4, 3], c=[2, 3, 4, 3], c_strides=[0, 0, 0, 1], trans_b="TRANSPOSE",
          alpha=0.5, beta=-2.0), "baddbmm"),
    (gemm([2, 3, 4, 5], [2, 3, 5, 3], [2, 3, 4, 3], alpha=3.0), "baddbmm"),
]


@pytest.mark.parametrize("desc,function", GEMMS)
def test_gemm_is_one_blas_call(monkeypatch, desc, function):
    assert dmlops.problems(desc, "6.2") == []
    spies = {name: Spy(monkeypatch, torch, name) for name in ("matmul", "addmm", "baddbmm")}
    x = {"ATensor": random_inputs(desc, 6)["ATensor"], "BTensor": random_inputs(desc, 6)["BTensor"]}
    if desc.c_tensor is not None:
        x["CTensor"] = np.random.default_rng(8).uniform(-1, 1, desc.c_tensor.sizes[-1] if desc.c_tensor.strides
                                                         else desc.c_tensor.sizes).astype(np.float32)
    got = dmlops.run(desc, x, backend="torch")["OutputTensor"]
    assert {n: s.calls for n, s in spies.items()} == {n: int(n == function) for n in spies}
    want = dmlops.run(desc, x, backend="reference")["OutputTensor"]
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)


def test_gemm_beta_0_still_adds_c_times_0():
    # alpha * AB + 0 * C: a NaN or infinity in C gives NaN (DirectML's formula, the reference), which a BLAS call
    # with beta 0 would never read.
    desc = gemm([2, 2], [2, 2], [2, 2], c=[2, 2], beta=0.0)
    x = {"ATensor": np.eye(2, dtype=np.float32), "BTensor": np.full((2, 2), 3, np.float32),
         "CTensor": np.array([[np.nan, 1], [np.inf, -1]], np.float32)}
    for backend in ("torch", "reference"):
        with np.errstate(invalid="ignore"):  # the reference's 0 * inf
            got = dmlops.run(desc, x, backend=backend)["OutputTensor"]
        np.testing.assert_array_equal(np.isnan(got), [[True, False], [True, False]], err_msg=backend)
        np.testing.assert_array_equal(got[:, 1], [3, 3], err_msg=backend)


# ------------------------------------------------------------------------------------- FusedActivation in place
def test_fused_relu_is_applied_in_place_with_directml_s_zeros():
    y = torch.tensor([-1.5, -0.0, 0.0, 2.0, float("nan"), float("-inf"), float("inf")])
    data = y.data_ptr()
    for desc, negative in ((conv([1, 1, 3], [1, 1, 1], [1, 1, 3], act=RELU), True),
                           (gemm([1, 7], [7, 7], [1, 7], act=RELU), False)):
        got = _torch_fused.fused_activation_(desc, torch, y.clone())
        want = [-0.0 if negative else 0.0, 0.0, 0.0, 2.0, 0.0, -0.0 if negative else 0.0, float("inf")]
        assert got.tolist() == want
        assert np.signbit(got.numpy()).tolist() == np.signbit(np.array(want)).tolist()
    same = _torch_fused.fused_activation_(conv([1, 1, 7], [1, 1, 1], [1, 1, 7], act=RELU), torch, y)
    assert same.data_ptr() == data  # in place


def test_cudnn_tf32_is_off_inside_the_fused_calls_on_cuda_only():
    cudnn = torch.backends.cudnn
    before = cudnn.allow_tf32
    try:
        cudnn.allow_tf32 = True
        with _torch_fused.exact_float32(torch, torch.device("cuda")):
            assert cudnn.allow_tf32 is False
        assert cudnn.allow_tf32 is True
        with _torch_fused.exact_float32(torch, torch.device("cpu")):
            assert cudnn.allow_tf32 is True
        with pytest.raises(ZeroDivisionError), _torch_fused.exact_float32(torch, torch.device("cuda")):
            1 / 0
        assert cudnn.allow_tf32 is True
    finally:
        cudnn.allow_tf32 = before


# --------------------------------------------------------------------------------------------------- devices
def test_torch_directml_keeps_the_loop(monkeypatch):
    from tests import torch_directml_double as dd

    desc = recurrent("GRU")
    x = random_inputs(desc, 9)
    spy = Spy(monkeypatch, torch, "gru")
    with dd.installed():
        got = dmlops.run(desc, x, backend="torch", device="dml")
    assert spy.calls == 0
    want = dmlops.run(desc, x, backend="reference")
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=2e-6, err_msg=name)


CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch.cuda.is_available() is False")


@CUDA
@pytest.mark.parametrize("op", ["GRU", "LSTM", "RNN"])
@pytest.mark.parametrize("direction,lengths,bias,inits", CASES)
def test_cuda_fused_matches_the_reference_without_a_weight_copy_warning(op, direction, lengths, bias, inits):
    import warnings

    desc = recurrent(op, direction=direction, bias=bias, inits=inits, lengths=lengths is not None)
    x = random_inputs(desc, 7, lengths)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "RNN module weights are not part of single contiguous chunk of memory"
        got = dmlops.run(desc, x, backend="torch", device="cuda")
    want = dmlops.run(desc, x, backend="reference")
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=2e-6, err_msg=name)
