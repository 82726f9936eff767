"""compile/run: the session cache, device choice (no silent fallback), input checks, strided buffers, IOBinding."""
import sys
import threading
import types

import numpy as np
import pytest

import dmlops
from dmlops import TensorDesc
from dmlops.backends import onnxruntime as ort_backend
from dmlops.backends import torch as torch_backend
from dmlops.compiled import clear_cache

BACKENDS = ["reference", "onnxruntime", "torch"]


def relu_grad(sizes=(2, 3), x_strides=None, out_strides=None, dtype="FLOAT32"):
    return dmlops.ActivationReluGrad(input_tensor=TensorDesc(dtype, sizes, x_strides),
                                     input_gradient_tensor=TensorDesc(dtype, sizes),
                                     output_gradient_tensor=TensorDesc(dtype, sizes, out_strides))


def relu(sizes, in_strides=None, out_strides=None, dtype="FLOAT32"):
    return dmlops.ActivationRelu(input_tensor=TensorDesc(dtype, sizes, in_strides),
                                 output_tensor=TensorDesc(dtype, sizes, out_strides))


X = np.array([[1, -1, 2], [-3, 0.5, 0]], np.float32)
DY = np.array([[10, 20, 30], [40, 50, 60]], np.float32)
WANT = np.array([[10, 0, 30], [0, 50, 0]], np.float32)


# --- compile, cache, names ---------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_inputs_by_python_name_or_dml_name_give_the_same_result(backend):
    op = dmlops.compile(relu_grad(), backend)
    by_py = op(input_tensor=X, input_gradient_tensor=DY)
    by_dml = op({"InputTensor": X, "InputGradientTensor": DY})
    np.testing.assert_array_equal(by_py["OutputGradientTensor"], WANT)
    np.testing.assert_array_equal(by_py.output_gradient_tensor, by_dml["OutputGradientTensor"])


def test_compiling_an_equal_descriptor_reuses_the_compiled_operator():
    clear_cache()
    first = dmlops.compile(relu_grad(), "onnxruntime")
    assert dmlops.compile(relu_grad(), "onnxruntime") is first
    assert dmlops.compile(relu_grad((3, 2)), "onnxruntime") is not first
    assert dmlops.compile(relu_grad(), "torch") is not first


def test_run_compiles_and_calls_once():
    out = dmlops.run(relu_grad(), input_tensor=X, input_gradient_tensor=DY, backend="torch")
    np.testing.assert_array_equal(out["OutputGradientTensor"], WANT)


def test_compile_validates_first():
    bad = dmlops.ActivationReluGrad(input_tensor=TensorDesc("FLOAT32", [2, 3]),
                                    input_gradient_tensor=TensorDesc("FLOAT32", [3, 2]),
                                    output_gradient_tensor=TensorDesc("FLOAT32", [2, 3]))
    with pytest.raises(dmlops.ValidationError, match="must have the same Sizes"):
        dmlops.compile(bad, "reference")
    with pytest.raises(dmlops.ValidationError, match="introduced in DML_FEATURE_LEVEL_3_0; the target is DML_FEATURE_LEVEL_2_0"):
        dmlops.compile(relu_grad(), "reference", feature_level="2.0")


def test_unknown_backend_and_target_are_errors():
    with pytest.raises(dmlops.DmlOpsError, match="unknown backend 'tf'; choose one of onnxruntime, torch, reference"):
        dmlops.compile(relu_grad(), "tf")
    with pytest.raises(dmlops.DmlOpsError, match="expected an operator descriptor or a GraphDesc; got dict"):
        dmlops.compile({"type": "x"}, "reference")


def test_an_operator_without_lowering_says_which_ones_run(monkeypatch):
    """Every operator has a lowering now; a module stripped of its lowerings stands for one that has none."""
    import types

    import dmlops.lower

    real = dmlops.lower.module
    monkeypatch.setattr(dmlops.lower, "module", lambda op: types.SimpleNamespace() if op == "LP_NORMALIZATION"
                        else real(op))
    desc = dmlops.LpNormalization(input_tensor=TensorDesc("FLOAT32", [2]), output_tensor=TensorDesc("FLOAT32", [2]),
                                  axis=0, epsilon=1e-5, p=2)
    with pytest.raises(dmlops.DmlOpsError, match=r"LP_NORMALIZATION has no onnxruntime lowering in dmlops yet \(operators that run: .*ACTIVATION_RELU_GRAD"):
        dmlops.compile(desc, "onnxruntime")


# --- input checks --------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_wrong_inputs_name_the_field(backend):
    op = dmlops.compile(relu_grad(), backend)
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU_GRAD.InputTensor: expected FLOAT32 data \(float32\); "
                                                 r"got float64. dmlops never casts inputs"):
        op(input_tensor=X.astype(np.float64), input_gradient_tensor=DY)
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU_GRAD.InputGradientTensor: shape \(3, 2\) matches neither "
                                                 r"Sizes \[2, 3\] nor a 1-D buffer of at least 6 elements"):
        op(input_tensor=X, input_gradient_tensor=DY.T.copy())
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: a buffer of 5 elements is too small; Sizes \[2, 3\] and "
                                                 r"Strides \[3, 1\] reach 6 elements"):
        op(input_tensor=X.ravel()[:5], input_gradient_tensor=DY)
    with pytest.raises(dmlops.DmlOpsError, match=r"missing input\(s\) InputGradientTensor; expected input_tensor "
                                                 r"\(InputTensor\), input_gradient_tensor \(InputGradientTensor\)"):
        op(input_tensor=X)
    with pytest.raises(dmlops.DmlOpsError, match=r"unknown input\(s\) 'dy'"):
        op(input_tensor=X, input_gradient_tensor=DY, dy=DY)
    with pytest.raises(dmlops.DmlOpsError, match="input InputTensor is given twice"):
        op({"InputTensor": X, "InputGradientTensor": DY}, input_tensor=X)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: expected a NumPy array; got list. Use numpy.asarray"):
        op(input_tensor=X.tolist(), input_gradient_tensor=DY)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_packed_tensor_also_takes_its_1d_buffer(backend):
    out = dmlops.run(relu_grad(), input_tensor=X.ravel(), input_gradient_tensor=np.append(DY.ravel(), np.float32(7)), backend=backend)
    np.testing.assert_array_equal(out["OutputGradientTensor"], WANT)


def test_torch_tensors_are_checked_and_results_stay_torch():
    import torch

    op = dmlops.compile(relu_grad(), "torch", device="cpu")
    out = op(input_tensor=torch.from_numpy(X), input_gradient_tensor=torch.from_numpy(DY))
    assert isinstance(out["OutputGradientTensor"], torch.Tensor)
    np.testing.assert_array_equal(out["OutputGradientTensor"].numpy(), WANT)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: the tensor is on meta, the operator is compiled for cpu; "
                                                 r"move it first"):
        op(input_tensor=torch.empty(2, 3, device="meta"), input_gradient_tensor=torch.from_numpy(DY))
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: expected FLOAT32 data \(torch.float32\); got torch.float16"):
        op(input_tensor=torch.from_numpy(X).half(), input_gradient_tensor=torch.from_numpy(DY))


# --- strided buffers ----------------------------------------------------------------------------
NCHW = (1, 2, 2, 3)  # N, C, H, W
NHWC_STRIDES = (12, 1, 6, 2)  # a [1, 2, 3, 2] NHWC buffer read as NCHW


@pytest.mark.parametrize("backend", BACKENDS)
def test_nhwc_input_through_strides(backend):
    nhwc = np.arange(-6, 6, dtype=np.float32).reshape(1, 2, 3, 2)
    out = dmlops.run(relu(NCHW, in_strides=NHWC_STRIDES), input_tensor=nhwc.ravel(), backend=backend)
    np.testing.assert_array_equal(out["OutputTensor"], np.maximum(nhwc.transpose(0, 3, 1, 2), 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_padded_strides_use_a_general_gather(backend):
    buffer = np.arange(-10, 10, dtype=np.float32)  # rows of 5, read 2 x 2 every other element
    out = dmlops.run(relu((2, 2), in_strides=(5, 2)), input_tensor=buffer, backend=backend)
    np.testing.assert_array_equal(out["OutputTensor"], np.zeros((2, 2)))  # elements -10, -8, -5, -3
    out = dmlops.run(relu((2, 2), in_strides=(5, 2)), input_tensor=buffer + 20, backend=backend)
    np.testing.assert_array_equal(out["OutputTensor"], [[10, 12], [15, 17]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_strides_broadcast_and_logical_arrays_must_agree(backend):
    op = dmlops.compile(relu_grad(x_strides=(0, 1)), backend)
    out = op(input_tensor=np.array([1, -1, 2], np.float32), input_gradient_tensor=DY)
    np.testing.assert_array_equal(out["OutputGradientTensor"], [[10, 0, 30], [40, 0, 60]])
    same = op(input_tensor=np.array([[1, -1, 2], [1, -1, 2]], np.float32), input_gradient_tensor=DY)
    np.testing.assert_array_equal(same["OutputGradientTensor"], out["OutputGradientTensor"])
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: Strides \[0, 1\] make several elements share one buffer "
                                                 r"element, but the array's values there differ; pass the 1-D buffer"):
        op(input_tensor=X, input_gradient_tensor=DY)


@pytest.mark.parametrize("backend", BACKENDS)
def test_strided_outputs_are_written_in_their_declared_layout(backend):
    x = np.arange(-6, 6, dtype=np.float32).reshape(NCHW)
    out = dmlops.run(relu(NCHW, out_strides=NHWC_STRIDES), input_tensor=x, backend=backend)["OutputTensor"]
    assert out.shape == NCHW
    assert out.strides == tuple(s * 4 for s in NHWC_STRIDES)
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    buffer = np.lib.stride_tricks.as_strided(out, shape=(12,), strides=(4,))
    np.testing.assert_array_equal(buffer, np.maximum(x, 0).transpose(0, 2, 3, 1).ravel())


@pytest.mark.parametrize("backend", BACKENDS)
def test_padded_output_strides_leave_zeros_between_elements(backend):
    x = np.array([[1, -2], [3, 4]], np.float32)
    out = dmlops.run(relu((2, 2), out_strides=(3, 1)), input_tensor=x, backend=backend)["OutputTensor"]
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    buffer = np.lib.stride_tricks.as_strided(out, shape=(5,), strides=(4,))  # rows of 3 elements, 2 used
    np.testing.assert_array_equal(buffer, [1, 0, 0, 3, 4])


def test_an_output_cannot_broadcast():
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU.OutputTensor: Strides \[0, 1\] broadcast \(zero stride\); "
                                                 r"an output's elements cannot share memory"):
        dmlops.compile(relu((2, 2), out_strides=(0, 1)), "reference")


# --- FLOAT16 ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["onnxruntime", "torch"])
def test_float16_runs_and_says_how(backend):
    op = dmlops.compile(relu_grad(dtype="FLOAT16"), backend, device="cpu")
    assert "FLOAT16 computed in float32" in op.notes[1]
    out = op(input_tensor=X.astype(np.float16), input_gradient_tensor=DY.astype(np.float16))
    assert out["OutputGradientTensor"].dtype == np.float16
    np.testing.assert_array_equal(out["OutputGradientTensor"], WANT.astype(np.float16))
    # Every lowering says first whose semantics it has (issue 23: where DirectML's are exact, where lowered).
    ops = "ONNX" if backend == "onnxruntime" else "torch"
    assert dmlops.compile(relu_grad(), backend, device="cpu").notes == (
        f"semantics are dmlops's lowering of DirectML's: {ops} ops following the rules of dmlops's reference, which "
        "is checked against DirectML's recorded answers; backend=\"directml\" hands the descriptor to DirectML "
        "itself",)


# --- devices -------------------------------------------------------------------------------------------
def test_named_devices_that_are_missing_list_what_is_available():
    with pytest.raises(dmlops.DmlOpsError, match=r"onnxruntime: device 'dml' \(DmlExecutionProvider\) is not available; "
                                                 r"available: cpu \(CPUExecutionProvider\). DirectML needs the "
                                                 r"onnxruntime-directml package on Windows."):
        dmlops.compile(relu_grad(), "onnxruntime", device="dml")
    import torch

    have = "cuda, cpu" if torch.cuda.is_available() else "cpu"  # the suite also runs on CUDA machines
    with pytest.raises(dmlops.DmlOpsError, match=rf"torch: device 'dml:1' is not available; available: {have}. DirectML "
                                                 r"needs the torch-directml package on Windows \(wheels for Python "
                                                 r"3\.8 to 3\.12 only; on newer Pythons the onnxruntime backend runs "
                                                 r"DirectML\)\.$"):
        dmlops.compile(relu_grad(), "torch", device="dml:1")
    if torch.cuda.is_available():
        with pytest.raises(dmlops.DmlOpsError, match=rf"torch: device 'cuda:99' is not available; there are "
                                                     rf"{torch.cuda.device_count()} CUDA devices"):
            dmlops.compile(relu_grad(), "torch", device="cuda:99")
    else:
        with pytest.raises(dmlops.DmlOpsError, match=r"torch: device 'cuda' is not available; available: cpu"):
            dmlops.compile(relu_grad(), "torch", device="cuda")
    with pytest.raises(dmlops.DmlOpsError, match=r"reference: runs on the CPU only; got device 'cuda'"):
        dmlops.compile(relu_grad(), "reference", device="cuda")
    with pytest.raises(dmlops.DmlOpsError, match=r"unknown device 'gpu0'; use 'cpu', 'cuda\[:N\]' or 'dml\[:N\]'"):
        dmlops.compile(relu_grad(), "onnxruntime", device="gpu0")


def test_compiled_operators_report_where_they_run():
    import onnxruntime
    import torch

    best = ort_backend.available_devices(onnxruntime)[0]  # cpu here; cuda with onnxruntime-gpu
    op = dmlops.compile(relu_grad(), "onnxruntime")
    assert (op.device, op.provider) == ({"cpu": "cpu"}.get(best, f"{best}:0"), ort_backend.PROVIDERS[best])
    assert op.model.graph.node  # the ONNX model is there to inspect
    assert dmlops.compile(relu_grad(), "torch").device == ("cuda:0" if torch.cuda.is_available() else "cpu")


class FakeOrt:
    """An onnxruntime stand-in that reports extra providers (device choice only; no session is created)."""

    def __init__(self, providers):
        self.providers = providers

    def get_available_providers(self):
        return self.providers


def test_onnxruntime_prefers_directml_then_cuda_then_cpu():
    everything = FakeOrt(["DmlExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"])
    assert ort_backend.choose_device(None, everything)[:2] == ("dml:0", "DmlExecutionProvider")
    assert ort_backend.choose_device("dml:1", everything)[:2] == ("dml:1", "DmlExecutionProvider")
    assert ort_backend.choose_device(None, FakeOrt(["CUDAExecutionProvider", "CPUExecutionProvider"]))[0] == "cuda:0"
    assert ort_backend.choose_device("cpu", everything)[:2] == ("cpu", "CPUExecutionProvider")


def test_directml_session_options_follow_the_provider_docs():
    import onnxruntime

    options, providers = ort_backend.session_config("dml:1", onnxruntime)
    assert options.enable_mem_pattern is False
    assert options.execution_mode == onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    assert providers == [("DmlExecutionProvider", {"device_id": "1"})]
    assert options.get_session_config_entry("session.disable_cpu_ep_fallback") == "1"
    options, providers = ort_backend.session_config("cuda:0", onnxruntime)
    assert options.get_session_config_entry("session.disable_cpu_ep_fallback") == "1"
    assert providers == [("CUDAExecutionProvider", {"device_id": "0"})]
    options, providers = ort_backend.session_config("cpu", onnxruntime)
    assert providers == ["CPUExecutionProvider"]


def test_torch_prefers_torch_directml_when_importable(monkeypatch):
    import torch

    fake = types.SimpleNamespace(device=lambda index=0: torch.device("cpu", index) if index else torch.device("cpu"))
    monkeypatch.setitem(sys.modules, "torch_directml", fake)
    assert torch_backend.choose_device(None)[0] == "dml:0"
    assert torch_backend.choose_device("dml:2")[:2] == ("dml:2", torch.device("cpu", 2))
    assert torch_backend.choose_device("cpu")[0] == "cpu"


@pytest.mark.directml
@pytest.mark.parametrize("backend", ["onnxruntime", "torch"])
def test_relu_grad_on_directml(backend):
    from dmlops.demo import devices

    if "dml" not in devices(backend):  # a machine may have one DirectML path and not the other
        pytest.skip(f"{backend} has no DirectML device here")
    op = dmlops.compile(relu_grad(), backend, device="dml")
    assert op.device == "dml:0"
    np.testing.assert_array_equal(op(input_tensor=X, input_gradient_tensor=DY)["OutputGradientTensor"], WANT)


# --- IOBinding and concurrency --------------------------------------------------------------------------
def test_iobinding_keeps_outputs_on_the_device_as_ortvalues():
    import onnxruntime

    op = dmlops.compile(relu_grad(), "onnxruntime", device="cpu")
    out = op(input_tensor=X, input_gradient_tensor=DY, outputs_on_device=True)
    value = out["OutputGradientTensor"]
    assert isinstance(value, onnxruntime.OrtValue) and value.device_name() == "cpu"
    np.testing.assert_array_equal(value.numpy(), WANT)
    again = op(input_tensor=onnxruntime.OrtValue.ortvalue_from_numpy(X), input_gradient_tensor=DY,
               outputs_on_device=True)
    np.testing.assert_array_equal(again["OutputGradientTensor"].numpy(), WANT)
    with pytest.raises(dmlops.DmlOpsError, match=r"InputTensor: expected an OrtValue of tensor\(float\) with shape \[2, 3\]; "
                                                 r"got tensor\(double\) with shape \[2, 3\]"):
        op(input_tensor=onnxruntime.OrtValue.ortvalue_from_numpy(X.astype(np.float64)), input_gradient_tensor=DY,
           outputs_on_device=True)
    with pytest.raises(dmlops.DmlOpsError, match="outputs_on_device is for the onnxruntime backend"):
        dmlops.compile(relu_grad(), "torch")(input_tensor=X, input_gradient_tensor=DY, outputs_on_device=True)


def test_one_session_serves_many_threads():
    op = dmlops.compile(relu_grad((64, 64)), "onnxruntime")
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((64, 64), dtype=np.float32) for _ in range(8)]
    results = [None] * 8

    def work(i):
        results[i] = op(input_tensor=xs[i], input_gradient_tensor=xs[i])["OutputGradientTensor"]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, r in zip(xs, results):
        np.testing.assert_array_equal(r, np.where(x > 0, x, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_scale_bias_on_integers_is_computed_in_float64_then_truncated(backend):
    t = TensorDesc("INT32", [3])
    desc = dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t, scale_bias=dmlops.ScaleBias(0.5, 1.0))
    out = dmlops.run(desc, input_tensor=np.array([3, 4, -5], np.int32), backend=backend)["OutputTensor"]
    np.testing.assert_array_equal(out, [2, 3, -1])  # 2.5, 3.0, -1.5 truncated toward zero


@pytest.mark.parametrize("backend", ["onnxruntime", "torch"])
def test_float16_scale_bias_is_computed_in_float32_with_the_operator(backend):
    # DirectML's vectors decide: a FLOAT16 operator computes ScaleBias and the operator in float32 and rounds once,
    # toward zero, when it stores the result (ELEMENT_WISE_CLIP scale_bias_float16: 10 * 0.04998779 = 0.49987793
    # stays below 0.5 and is stored as 0.49975586; rounding the scaled input to FLOAT16 first would give 0.5).
    # So 1000 * 1.001 (Scale is a FLOAT: 1.00100005) = 1001.00006 in float32, and CEIL gives 1002.
    t = TensorDesc("FLOAT16", [3])
    desc = dmlops.ElementWiseCeil(input_tensor=t, output_tensor=t, scale_bias=dmlops.ScaleBias(1.001, 0))
    x = np.array([1000, 10, 3], np.float16)
    got = dmlops.run(desc, input_tensor=x, backend=backend)["OutputTensor"]
    np.testing.assert_array_equal(got, dmlops.run(desc, input_tensor=x, backend="reference")["OutputTensor"])
    np.testing.assert_array_equal(got, [1002, 11, 4])
    clip = dmlops.ElementWiseClip(input_tensor=t, output_tensor=t, scale_bias=dmlops.ScaleBias(10.0, 0), min=0.0,
                                  max=1.0)
    y = dmlops.run(clip, input_tensor=np.array([0.05, 0.25, -0.5], np.float16), backend=backend)["OutputTensor"]
    np.testing.assert_array_equal(y, np.array([0.499755859375, 1, 0], np.float16))
