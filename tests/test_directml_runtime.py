"""The native backend (backend="directml") end to end.

Each test taking ``native`` runs twice:

- ``fake``: against tests/fake_directml.py, an in-process fake of D3D12 and DirectML that moves real bytes, tracks
  resource states, checks every binding and runs each dispatch with dmlops's NumPy reference. It proves the
  plumbing (marshalling, buffers and offsets, binding tables, barriers, initialization, reuse), not DirectML's
  numerics: a reference-vs-reference comparison cannot catch a wrong formula, and is not meant to.
- ``real`` (marked ``directml``): against the DirectML device ``dml:0`` where the native backend finds one
  (Windows, or WSL through DMLOPS_*_LIBRARY). There the comparisons are DirectML against the reference and against
  DirectML's own recorded answers. This machine has no DirectML: these runs are skipped here.
"""
import gc
import threading

import numpy as np
import pytest

import dmlops
from dmlops import demo, demo_adapters
from dmlops.backends.directml import adapters, runtime
from dmlops.compiled import clear_cache
from dmlops.errors import DmlOpsError
from dmlops.lower import module
from dmlops.sample import float16_variant
from dmlops.types import DataType, FeatureLevel, TensorDesc, TensorFlags
from dmlops.vector_tolerances import tolerance
from dmlops.vectors import cases, mismatches
from tests import fake_directml as F

OPS_WITH_SAMPLES = [op for op in sorted(dmlops.schema.all_schemas())
                    if module(op) is not None and hasattr(module(op), "reference") and getattr(module(op), "SAMPLES", ())]
VECTOR_OPS = sorted({c.op for c in cases()})


def _real_device():
    found = [a for a in adapters.devices() if a.feature_level is not None]
    if not found:
        pytest.skip(adapters.unavailable_reason() or "no native DirectML device here")
    return found[0]


@pytest.fixture(params=["fake", pytest.param("real", marks=pytest.mark.directml)])
def native(request, monkeypatch):
    """"fake": the FakeDirectML (checked for violations after the test); "real": None, with dml:0 present."""
    if request.param == "real":
        _real_device()
        clear_cache()
        yield None
        clear_cache()
        return
    fake = F.install(monkeypatch)
    yield fake
    fake.assert_clean()
    clear_cache()
    F._release_devices()




def _supports(desc) -> bool:
    a = adapters.adapter(0)
    return not dmlops.backends.directml.data_type_problems(dmlops.GraphDesc.single(desc), a)


def _close(got, want, atol, rtol):
    for k, w in want.items():
        np.testing.assert_allclose(np.asarray(got[k], np.float64), np.asarray(w, np.float64), atol=atol, rtol=rtol,
                                   equal_nan=True, err_msg=k)


# ------------------------------------------------------------------------------------------------ every operator


@pytest.mark.parametrize("op", OPS_WITH_SAMPLES)
def test_samples_agree_with_the_reference(native, op):
    level = adapters.adapter(0).feature_level
    samples = list(module(op).SAMPLES)
    samples += [v for v in (float16_variant(s, FeatureLevel.latest()) for s in samples) if v]
    ran = 0
    for s in samples:
        if not _supports(s.desc) or s.desc.problems(level):
            continue
        compiled = dmlops.compile(s.desc, "directml")
        assert compiled.backend == "directml" and compiled.device == "dml:0"
        got = compiled(s.inputs)
        _close(got, dmlops.run(s.desc, s.inputs, backend="reference"), s.atol, s.rtol)
        ran += 1
    assert ran or native is None


@pytest.mark.parametrize("op", VECTOR_OPS)
def test_directml_answers(native, op):
    """Every vector case of ``op``: DirectML's outputs again (within dmlops.vector_tolerances), and every descriptor
    DirectML refused refused again (by dmlops's validation or by DirectML)."""
    a = adapters.adapter(0)
    for case in (c for c in cases() if c.op == op):
        try:
            desc = case.desc()
        except DmlOpsError:  # a malformed case: tests/test_directml_vectors.py lists those
            continue
        if case.rejected:
            with pytest.raises(DmlOpsError):
                dmlops.compile(desc, "directml")
            continue
        if not _supports(desc) or desc.problems(a.feature_level):
            continue
        got = dmlops.compile(desc, "directml")(case.inputs())
        if native is not None and not hasattr(module(op), "reference"):
            assert native.unsimulated  # the fake has nothing to compute with: the plumbing alone was checked
            continue
        tol = tolerance(case.op, case.name)
        for k, w in case.outputs(desc).items():
            found = mismatches(np.asarray(got[k]), w, tol.ulps, tol.rtol, tol.atol, skip=case.unwritten(k, w.shape))
            assert not found, f"{case.id} {k}: {found[:3]}"


# ------------------------------------------------------------------------------------------------ graphs


def test_the_demo_training_graph_runs_as_one_graph(native):
    graph = demo.training_step_graph(32, 2, 8, 0.05)
    x, y = demo.dataset(32, 2)
    rng = np.random.default_rng(3)
    feed = {"x": x, "y": y, "step": np.ones((1, 1, 1, 1), np.uint32)}
    for name, shape in (("w1", (2, 8)), ("b1", (1, 8)), ("w2", (8, 1)), ("b2", (1, 1))):
        feed[f"{name}_param"] = rng.standard_normal((1, 1, *shape)).astype(np.float32)
        feed[f"{name}_m"] = np.zeros((1, 1, *shape), np.float32)
        feed[f"{name}_v"] = np.zeros((1, 1, *shape), np.float32)
    feed["b1_row"], feed["b2_row"] = feed["b1_param"].ravel(), feed["b2_param"].ravel()
    op = dmlops.compile(graph, "directml", feature_level="5.0")
    got, want = op(feed), dmlops.run(graph, feed, backend="reference")
    assert set(got) == set(want)
    _close(got, want, 1e-5, 1e-4)
    if native is not None:
        assert native.count("CompileGraph") == 1 and native.count("CompileOperator") == 0
        assert native.count("CreateOperator") == len(graph.nodes)


@pytest.mark.parametrize("index", range(3))
def test_framework_adapters_agree_with_the_reference(native, index):
    case = demo_adapters.cases(np.random.default_rng(0))[index]
    want = case.run("reference", None)
    got = case.run("directml", "dml:0")
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), atol=case.atol,
                                   rtol=case.rtol, equal_nan=True)


# ------------------------------------------------------------------------------------------------ device buffers


def _relu(sizes=(2, 3), dtype="FLOAT32"):
    t = TensorDesc(dtype, [1, 1, *sizes])
    return dmlops.ActivationRelu(input_tensor=t, output_tensor=t)


def test_outputs_on_device_feed_the_next_call_without_a_round_trip(native):
    x = np.array([[[[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]]]], np.float32)
    relu = dmlops.compile(_relu(), "directml")
    neg = dmlops.compile(dmlops.ElementWiseIdentity(input_tensor=_relu().input_tensor, output_tensor=_relu().input_tensor,
                                                    scale_bias=dmlops.ScaleBias(-1.0, 0.0)), "directml")
    first = neg(input_tensor=x, outputs_on_device=True)["OutputTensor"]
    assert isinstance(first, runtime.DeviceBuffer) and first.device == "dml:0"
    assert first.data_type == DataType.FLOAT32 and first.sizes == (1, 1, 2, 3) and first.nbytes == 24
    assert "FLOAT32 [1, 1, 2, 3] on dml:0" in repr(first)
    np.testing.assert_array_equal(first.numpy(), -x)
    second = relu(input_tensor=first)["OutputTensor"]  # a DeviceBuffer in, NumPy out
    np.testing.assert_array_equal(second, np.maximum(-x, 0))
    chained = relu(input_tensor=first, outputs_on_device=True)["OutputTensor"]
    np.testing.assert_array_equal(chained.numpy(), np.maximum(-x, 0))
    with pytest.raises(DmlOpsError, match=r"^ACTIVATION_RELU\.InputTensor: expected FLOAT16 data; got a DeviceBuffer "
                                          r"of FLOAT32\. dmlops never casts inputs\.$"):
        dmlops.compile(_relu(dtype="FLOAT16"), "directml")(input_tensor=first)
    with pytest.raises(DmlOpsError, match=r"^ACTIVATION_RELU\.InputTensor: the DeviceBuffer holds 24 bytes; this "
                                          r"input's TotalTensorSizeInBytes is 48\.$"):
        dmlops.compile(_relu((4, 3)), "directml")(input_tensor=first)


def test_device_buffer_inputs_cost_no_upload(fake):
    f = fake()
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3) - 3
    relu = dmlops.compile(_relu(), "directml")
    on_device = relu(input_tensor=x, outputs_on_device=True)["OutputTensor"]
    uploads = [r for r in f.of(F.Resource) if r.heap_type == F.HEAP_UPLOAD]
    before = [bytes(r.read(0, r.width)) for r in uploads]
    np.testing.assert_array_equal(relu(input_tensor=on_device)["OutputTensor"], np.maximum(x, 0))
    assert [bytes(r.read(0, r.width)) for r in uploads] == before  # nothing went through the upload heap


# ------------------------------------------------------------------------------------------------ reuse, threads


def test_resources_are_made_once_and_reused_on_every_call(fake):
    f = fake()
    s = module("GRU").SAMPLES[0]
    op = dmlops.compile(s.desc, "directml")
    made = (f.count("CreateCommittedResource"), f.count("CreateDescriptorHeap"), f.count("CreateBindingTable"),
            f.count("CreateCommandList"))
    executions = f.count("ExecuteCommandLists")
    for _ in range(3):
        _close(op(s.inputs), dmlops.run(s.desc, s.inputs, backend="reference"), s.atol, s.rtol)
    assert (f.count("CreateCommittedResource"), f.count("CreateDescriptorHeap"), f.count("CreateBindingTable"),
            f.count("CreateCommandList")) == made
    assert f.count("ExecuteCommandLists") == executions + 3  # one submission per call
    assert f.count("RecordDispatch") == 2  # the initializer's and the operator's, recorded once each
    assert dmlops.compile(s.desc, "directml") is op
    f.assert_clean()


def test_temporary_and_persistent_resources(fake):
    f = fake(sizes={"GRU": (4096, 1024)}, initializer_temp=512)
    s = module("GRU").SAMPLES[0]
    _close(dmlops.run(s.desc, s.inputs, backend="directml"), dmlops.run(s.desc, s.inputs, backend="reference"),
           s.atol, s.rtol)
    _close(dmlops.run(s.desc, s.inputs, backend="directml"), dmlops.run(s.desc, s.inputs, backend="reference"),
           s.atol, s.rtol)
    f.assert_clean()


def test_compiled_operators_serve_many_threads(native):
    s = module("GEMM").SAMPLES[0]
    op = dmlops.compile(s.desc, "directml")
    want = dmlops.run(s.desc, s.inputs, backend="reference")
    errors = []

    def work():
        try:
            for _ in range(5):
                _close(op(s.inputs), want, s.atol, s.rtol)
        except Exception as e:  # noqa: BLE001 - collected and asserted below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_owned_by_dml_inputs_are_bound_at_initialization_and_again_when_they_change(fake):
    f = fake()
    a_t, c_t = TensorDesc("FLOAT32", [1, 1, 2, 3]), TensorDesc("FLOAT32", [1, 1, 2, 2])
    b_t = TensorDesc("FLOAT32", [1, 1, 3, 2], flags=TensorFlags.OWNED_BY_DML)
    gemm = dmlops.Gemm(a_tensor=a_t, b_tensor=b_t, c_tensor=None, output_tensor=c_t, trans_a="NONE", trans_b="NONE",
                       alpha=1.0, beta=0.0)
    op = dmlops.compile(gemm, "directml")
    a = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    b1 = np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2)
    b2 = b1 * -2
    np.testing.assert_allclose(op(a_tensor=a, b_tensor=b1)["OutputTensor"], a @ b1)
    np.testing.assert_allclose(op(a_tensor=a, b_tensor=b1)["OutputTensor"], a @ b1)
    np.testing.assert_allclose(op(a_tensor=a, b_tensor=b2)["OutputTensor"], a @ b2)  # initialized again
    initializations = [c for c in f.calls if c[0] == "IDMLCommandRecorder::RecordDispatch"]
    assert len(initializations) == 3  # first init, the operator's list once, the second init
    with pytest.raises(DmlOpsError, match=r"^GEMM\.BTensor: an OWNED_BY_DML input is read at initialization; pass it "
                                          r"as a NumPy array, not a DeviceBuffer\.$"):
        b_dev = dmlops.compile(_relu((3, 2)), "directml")(input_tensor=b1, outputs_on_device=True)["OutputTensor"]
        op(a_tensor=a, b_tensor=b_dev)
    f.assert_clean()


def test_nothing_leaks(fake):
    f = fake()
    s = module("ELEMENT_WISE_ADD").SAMPLES[0]
    op = dmlops.compile(s.desc, "directml")
    op(s.inputs)
    buffer = op(s.inputs, outputs_on_device=True)["OutputTensor"]
    del op, buffer
    clear_cache()
    gc.collect()
    runtime.release_queues()
    f.assert_no_leaks()


# ------------------------------------------------------------------------------------------------ refusals, errors


def test_a_descriptor_directml_refuses_says_dmlops_validated_it(fake):
    fake(refuse=("GRU",))
    s = module("GRU").SAMPLES[0]
    with pytest.raises(runtime.RefusedByDirectML, match=r"^GRU: validated by dmlops at DML_FEATURE_LEVEL_6_4 but "
                                                        r"refused by DirectML: dml:0 IDMLDevice::CreateOperator failed "
                                                        r"with HRESULT 0x80070057 \(E_INVALIDARG: one or more "
                                                        r"arguments are invalid\)$") as info:
        dmlops.compile(s.desc, "directml")
    assert info.value.name == "E_INVALIDARG" and info.value.call == "dml:0 IDMLDevice::CreateOperator"


def test_data_types_the_device_lacks_are_refused_before_directml_sees_them(fake):
    f = fake(float16=False, float64=False)
    t = TensorDesc("FLOAT64", [1, 1, 2, 2])
    with pytest.raises(DmlOpsError, match=r"^ELEMENT_WISE_IDENTITY\.InputTensor: FLOAT64 tensors are not supported by "
                                          r"dml:0 \(Fake DirectML GPU\); DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT says no\.\n"
                                          r"ELEMENT_WISE_IDENTITY\.OutputTensor: FLOAT64"):
        dmlops.compile(dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t), "directml")
    with pytest.raises(DmlOpsError, match=r"^ACTIVATION_RELU\.InputTensor: FLOAT16 tensors are not supported"):
        dmlops.compile(_relu(dtype="FLOAT16"), "directml")
    assert f.count("CreateOperator") == 0


def test_validation_happens_at_the_devices_feature_level(fake):
    fake(feature_level="5.1")
    s = module("GRU").SAMPLES[0]
    op = dmlops.compile(s.desc, "directml")
    assert op.feature_level == FeatureLevel.FL_5_1
    with pytest.raises(DmlOpsError, match=r"^compile: DML_FEATURE_LEVEL_6_4 was asked for, but dml:0 \(Fake DirectML "
                                          r"GPU\) supports up to DML_FEATURE_LEVEL_5_1\.$"):
        dmlops.compile(s.desc, "directml", feature_level="6.4")
    gelu = dmlops.ActivationGelu(input_tensor=_relu().input_tensor, output_tensor=_relu().input_tensor)
    with pytest.raises(DmlOpsError, match=r"ACTIVATION_GELU was introduced in DML_FEATURE_LEVEL_5_1; the target is "
                                          r"DML_FEATURE_LEVEL_5_0\.$"):
        dmlops.compile(gelu, "directml", feature_level="5.0")


def test_a_lost_device_is_an_error_with_the_removed_reason(fake):
    f = fake(device_removed=True)
    s = module("ELEMENT_WISE_ADD").SAMPLES[0]
    with pytest.raises(dmlops.backends.directml.com.HResultError,
                       match=r"DXGI_ERROR_DEVICE_REMOVED.*GetDeviceRemovedReason: 0x887A0006 \(DXGI_ERROR_DEVICE_HUNG"):
        dmlops.compile(s.desc, "directml")(s.inputs)
    assert f.removed is not None


def test_devices_and_options_errors(fake):
    fake()
    s = module("ELEMENT_WISE_ADD").SAMPLES[0]
    with pytest.raises(DmlOpsError, match=r"^dml:2: no such DirectML adapter; found: dml:0 \(Fake DirectML GPU\)\.$"):
        dmlops.compile(s.desc, "directml", device="dml:2")
    with pytest.raises(DmlOpsError, match=r"^directml: runs on DirectML devices only \(dml:N\); got device 'cuda'"):
        dmlops.compile(s.desc, "directml", device="cuda")
    with pytest.raises(DmlOpsError, match=r"^compile: debug=True is for the directml backend"):
        dmlops.compile(s.desc, "torch", debug=True)


def test_notes_say_what_was_loaded_and_whether_the_debug_layer_is_on(fake):
    fake()
    s = module("ELEMENT_WISE_ADD").SAMPLES[0]
    op = dmlops.compile(s.desc, "directml", debug=True)
    assert op.notes[0] == "DirectML native backend"
    assert op.notes[1] == ("semantics are DirectML's own: the descriptor is handed to DirectML unchanged "
                           "(CreateOperator, CompileOperator; CompileGraph for a graph)")
    assert op.notes[2].startswith("device memory held by this operator: ")
    assert op.notes[3] == ("debug=True asked for, but the DirectML debug layer is not available (DMLCreateDevice "
                           "with DML_CREATE_DEVICE_FLAG_DEBUG failed with HRESULT 0x887A002D "
                           "(DXGI_ERROR_SDK_COMPONENT_MISSING: an SDK component is missing or mismatched)); running "
                           "without it")
    assert "DMLOPS_D3D12_DEBUG=1" in op.notes[4]
    assert op.provider == "DirectML (Fake DirectML GPU)"
    assert dmlops.compile(s.desc, "directml") is not op  # debug and plain are cached apart


def test_debug_layer_on_where_installed(fake):
    fake(debug_layer=True)
    s = module("ELEMENT_WISE_ADD").SAMPLES[0]
    op = dmlops.compile(s.desc, "directml", debug=True)
    assert op.notes[3] == "DirectML debug layer on (DML_CREATE_DEVICE_FLAG_DEBUG)"
    _close(op(s.inputs), dmlops.run(s.desc, s.inputs, backend="reference"), 0, 0)


# ------------------------------------------------------------------------------------------------ selftest, demo


def test_selftest_finds_the_native_device_and_checks_every_operator(fake, tmp_path, monkeypatch):
    from dmlops import selftest

    fake()
    assert "directml:dml:0" in selftest.directml_paths()
    lines, report = [], tmp_path / "r.json"
    code = selftest.main(["directml:dml:0"], ["GRU", "ADAM_OPTIMIZER", "ELEMENT_WISE_ADD"], str(report),
                         out=lines.append)
    assert code == 0, lines
    import json

    doc = json.loads(report.read_text())
    assert doc["environment"]["directml"]["adapters"][0]["name"] == "Fake DirectML GPU"
    by = {(c["op"], c["source"]) for c in doc["cases"]}
    assert {("GRU", "sample"), ("GRU", "vector"), ("ADAM_OPTIMIZER", "vector")} <= by
    refused_again = [c for c in doc["cases"] if c["detail"].startswith("refused as by DirectML")]
    assert len(refused_again) == 7 and {c["op"] for c in refused_again} == {"ADAM_OPTIMIZER"}
    assert all(c["result"] == "ok" for c in refused_again)
    # memory: each compiled operator's bytes once (a case whose descriptor another case compiled adds none), per
    # operator on its line and in the report, in all in the last line
    memory = doc["memory"]["directml:dml:0"]
    held = {}
    for c in doc["cases"]:
        if c["device_bytes"] is not None:
            held[c["op"]] = held.get(c["op"], 0) + c["device_bytes"]
    assert memory["operators"] == held and set(held) == {"GRU", "ADAM_OPTIMIZER", "ELEMENT_WISE_ADD"}
    assert memory["total_bytes"] == sum(held.values()) > 0
    assert memory["device"]["descriptor_heaps"] == memory["device"]["descriptor_heaps_created"] == 1
    from dmlops.backends.directml.runtime import format_bytes

    rows = {l.split()[0]: l for l in lines[2:5]}
    for op, n in held.items():
        assert rows[op].split()[5:7] == format_bytes(n).split()
    assert lines[-1].startswith(f"directml:dml:0 device memory: {memory['compiled']} compiled operators held "
                                f"{format_bytes(memory['total_bytes'])} in all (the largest ")
    assert "at the end the device holds 1 shader-visible descriptor heap (65,536 descriptors; 1 made in all)" in lines[-1]
    # An operator without a dmlops reference runs too (vectors only). The fake cannot compute it and leaves its
    # output untouched (zeros): the selftest must call that a mismatch against DirectML's answers. Every operator
    # has a reference now; LP_NORMALIZATION's module stripped of it stands for one that has none.
    import types

    import dmlops.lower
    import dmlops.ops

    real = dmlops.ops.module
    stripped = types.SimpleNamespace(check=real("LP_NORMALIZATION").check)
    for where in (dmlops.ops, dmlops.lower):
        monkeypatch.setattr(where, "module", lambda op: stripped if op == "LP_NORMALIZATION" else real(op))
    lines = []
    assert selftest.main(["directml:dml:0"], ["LP_NORMALIZATION"], None, out=lines.append) == 1
    assert " FAIL " in lines[2] and lines[3].startswith("    mismatch vector float32_axis1_p2: OutputTensor")


def test_selftest_flags_a_descriptor_that_runs_where_directml_refused_it(fake, monkeypatch):
    from dmlops import selftest

    fake()
    case = next(c for c in cases() if c.rejected)
    monkeypatch.setattr(dmlops, "compile", lambda *args, **kwargs: None)  # as if validation and DirectML accepted it
    result = selftest._refusal("directml:dml:0", case)
    assert result.result == "mismatch"
    assert result.detail == f"ran, but DirectML refused this descriptor ({case.rejected})"


def test_demo_table_has_native_rows(fake):
    fake()
    lines = []
    assert demo.table(lines.append)
    rows = [l for l in lines if l.split()[1:3] == ["directml", "dml:0"]]
    assert len(rows) == len(demo.TABLE_OPS) and all(" ok " in r for r in rows)


def test_four_bit_tensors_are_packed_two_to_a_byte(fake):
    """UINT4 / INT4 travel as uint8 / int8 values and reach DirectML's memory packed, first element in the low
    nibble (the DML_TENSOR_DATA_TYPE_UINT4 page's example: [1, 2, 3, 4, 5] is [0x21, 0x43, 0x05]); the fake
    dispatch reads the bytes back through tensors.from_bytes and writes the identity's output packed."""
    from dmlops import tensors

    u = TensorDesc("UINT4", [5])
    assert tensors.to_bytes(u, np.array([1, 2, 3, 4, 5], np.uint8)) == bytes([0x21, 0x43, 0x05])
    i = TensorDesc("INT4", [3])
    assert tensors.to_bytes(i, np.array([-8, 7, -1], np.int8)) == bytes([0x78, 0x0F])
    assert tensors.from_bytes(i, bytes([0x78, 0x0F, 0, 0])).tolist() == [-8, 7, -1]
    f = fake(validate=False)  # DirectML allows UINT4 / INT4 in QUANTIZE / DEQUANTIZE only; the copy is the point
    for dt, values in (("UINT4", np.arange(16, dtype=np.uint8)), ("INT4", np.arange(-8, 8, dtype=np.int8))):
        t = TensorDesc(dt, [1, 1, 2, 8])
        desc = dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t)
        program, _ = dmlops.backends.directml.build(desc, dmlops.GraphDesc.single(desc), 0, FeatureLevel.FL_6_4)
        (out,) = program([values.reshape(1, 1, 2, 8)])
        assert out.dtype == values.dtype and out.reshape(-1).tolist() == values.tolist()
    f.assert_clean()


def test_four_bit_values_out_of_range_are_refused():
    from dmlops import tensors

    with pytest.raises(DmlOpsError, match=r"^x: INT4 holds -8 to 7; the array has values outside that range "
                                          r"\(min -9, max 7\)\.$"):
        tensors.check_array(TensorDesc("INT4", [2]), np.array([-9, 7], np.int8), "x")
