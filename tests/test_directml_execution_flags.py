"""DML_EXECUTION_FLAGS (``dmlops.compile(..., execution_flags=...)``, DxDispatch's ``executionFlags``) and the
backend that ``dxdispatch.run``, ``dmlops validate --run`` and the framework adapters use when none is named, through
tests/fake_directml.py. Nothing here runs DirectML.

The flags reach IDMLDevice::CompileOperator and IDMLDevice1::CompileGraph as the fake received them through the
vtable. The lowering backends accept ALLOW_HALF_PRECISION_COMPUTATION (a permission: computing at the tensors' own
precision is what DirectML may do anyway) and DISABLE_META_COMMANDS (they have no metacommands), each said in
``op.notes``, and refuse DESCRIPTORS_VOLATILE, which is about binding tables only the native backend has.
"""
import gc
import json
from pathlib import Path

import numpy as np
import pytest

import dmlops
from dmlops import DmlOpsError, TensorDesc, cli, compiled, dxdispatch
from dmlops.backends.directml import adapters, runtime
from dmlops.enums import ExecutionFlags
from dmlops.errors import DescriptorError
from dmlops.frameworks import aclnn
from dmlops.frameworks import tensorflow as tf
from tests import fake_directml as F

DATA = Path(__file__).parent / "data" / "dxdispatch"
HALF, NO_META, VOLATILE = (ExecutionFlags.ALLOW_HALF_PRECISION_COMPUTATION, ExecutionFlags.DISABLE_META_COMMANDS,
                           ExecutionFlags.DESCRIPTORS_VOLATILE)

native = pytest.mark.skipif(not F.SUPPORTED, reason=F.WHY_UNSUPPORTED)




def add(n: int = 4):
    t = TensorDesc("FLOAT32", [n])
    return dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t)


A, B = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)


def compiled_flags(f) -> list[int]:
    """The flags each IDMLCompiledOperator was made with, as the fake's CompileOperator / CompileGraph got them."""
    return [c.flags for c in f.of(F.CompiledOperator)]


# ------------------------------------------------------------------------------------------------ dmlops.compile


@native
@pytest.mark.parametrize("given,value", [(None, 0), ("NONE", 0), (HALF, 1), ("DML_EXECUTION_FLAG_DISABLE_META_COMMANDS", 2),
                                         (["ALLOW_HALF_PRECISION_COMPUTATION", "DESCRIPTORS_VOLATILE"], 5), (7, 7)])
def test_the_flags_reach_compile_operator(fake, given, value):
    f = fake()
    op = dmlops.compile(add(), "directml", execution_flags=given)
    assert compiled_flags(f) == [value] and f.count("CompileOperator") == 1
    np.testing.assert_array_equal(op(a_tensor=A, b_tensor=B)["OutputTensor"], A + B)
    assert op(a_tensor=B, b_tensor=A)["OutputTensor"].tolist() == (A + B).tolist()  # steady calls, same list
    if value:
        names = "|".join("DML_EXECUTION_FLAG_" + n for n in ExecutionFlags(value).names())
        assert f"compiled with {names} (CompileOperator / CompileGraph)" in op.notes
        assert any("half precision" in n for n in op.notes) == bool(value & 1)
    else:
        assert not any("DML_EXECUTION_FLAG" in n for n in op.notes)
    f.assert_clean()


@native
def test_the_flags_reach_compile_graph(fake):
    f = fake()
    t = TensorDesc("FLOAT32", [4])
    b = dmlops.GraphBuilder()
    x, y = b.input("x"), b.input("y")
    s = b.add(add(), a_tensor=x, b_tensor=y)
    r = b.add(dmlops.ActivationRelu(input_tensor=t, output_tensor=t), input_tensor=s["OutputTensor"])
    b.output("out", r["OutputTensor"])
    op = dmlops.compile(b.build(), "directml", execution_flags=NO_META | VOLATILE)
    assert f.count("CompileGraph") == 1 and compiled_flags(f) == [6]
    np.testing.assert_array_equal(op(x=A - 2, y=B)["out"], np.maximum(A - 2 + B, 0))
    f.assert_clean()


@native
def test_each_set_of_flags_is_its_own_compiled_operator(fake):
    f = fake()
    plain = dmlops.compile(add(), "directml")
    half = dmlops.compile(add(), "directml", execution_flags=HALF)
    assert half is not plain and dmlops.compile(add(), "directml", execution_flags="ALLOW_HALF_PRECISION_COMPUTATION") is half
    assert dmlops.compile(add(), "directml", execution_flags=0) is plain
    assert compiled_flags(f) == [0, 1]
    assert dmlops.run(add(), a_tensor=A, b_tensor=B, backend="directml", execution_flags=HALF)["OutputTensor"].tolist() \
        == (A + B).tolist() and compiled_flags(f) == [0, 1]  # run reuses the compiled one


@native
def test_directml_refuses_flags_it_does_not_define_and_the_error_says_so(fake):
    f = fake()
    with pytest.raises(runtime.RefusedByDirectML, match=r"^ELEMENT_WISE_ADD: validated by dmlops at DML_FEATURE_LEVEL_6_4 "
                                                        r"but refused by DirectML: dml:0 IDMLDevice::CompileOperator "
                                                        r"failed with HRESULT 0x80070057 \(E_INVALIDARG"):
        runtime.Program(add(), dmlops.GraphDesc.single(add()), 0, f.feature_level, execution_flags=8)
    assert f.violations == ["CompileOperator: flags 0x8 are not DML_EXECUTION_FLAGS"]


def test_flags_that_are_not_dml_execution_flags_are_refused():
    allowed = "(allowed: NONE, ALLOW_HALF_PRECISION_COMPUTATION, DISABLE_META_COMMANDS, DESCRIPTORS_VOLATILE)"
    for value, shown in [("FAST_MATH", "'FAST_MATH'"), (8, "8"), (["NONE", "TURBO"], "['NONE', 'TURBO']"),
                         (True, "True")]:
        with pytest.raises(DescriptorError) as info:
            dmlops.compile(add(), "reference", execution_flags=value)
        assert str(info.value) == f"compile.execution_flags: {shown} is not a DML_EXECUTION_FLAG value {allowed}."


@pytest.mark.parametrize("backend", ["reference", "onnxruntime"])
def test_lowering_backends_accept_the_flags_that_allow_and_refuse_descriptors_volatile(backend):
    op = dmlops.compile(add(), backend, execution_flags=HALF | NO_META)
    assert op is not dmlops.compile(add(), backend)
    assert (f"execution_flags ALLOW_HALF_PRECISION_COMPUTATION accepted: it allows DirectML to compute in half "
            f"precision; the {backend} backend computes at the tensors' own precision") in op.notes
    assert (f"execution_flags DISABLE_META_COMMANDS accepted: it keeps DirectML from using driver metacommands; the "
            f"{backend} backend has none") in op.notes
    np.testing.assert_array_equal(op(a_tensor=A, b_tensor=B)["OutputTensor"], A + B)
    with pytest.raises(DmlOpsError, match=rf"^compile: execution_flags DESCRIPTORS_VOLATILE is for the directml backend "
                                          rf"\(it lets DirectML read a binding table's descriptors when the list "
                                          rf"executes\); the {backend} backend has no binding tables\.$"):
        dmlops.compile(add(), backend, execution_flags=["DESCRIPTORS_VOLATILE", "DISABLE_META_COMMANDS"])


# ------------------------------------------------------------------------------------------------ DxDispatch models


@native
def test_dxdispatch_runs_on_the_native_backend_by_default_and_passes_the_flags(fake):
    f = fake()
    gemm = dmlops.jsonio.load_model(DATA / "gemm_owned_compile_graph.json")  # DmlCompileGraph, half precision
    result = dxdispatch.run(gemm)
    assert (result.backend, result.device) == ("directml", "dml:0")
    assert f.count("CompileGraph") == 1 and compiled_flags(f) == [int(HALF)]
    assert result.printed == ["Resource 'result': 5, 2, 11, 5"] and result.notes == []  # no executionFlags note
    conv = dmlops.jsonio.load_model(DATA / "convolution_compile_op.json")  # DmlCompileOp, DISABLE_META | VOLATILE
    result = dxdispatch.run(conv)
    assert f.count("CompileOperator") == 1 and compiled_flags(f)[-1] == int(NO_META | VOLATILE)
    want = dxdispatch.run(conv, "reference")
    assert result.printed == want.printed and result.notes == []
    assert want.notes == ["executionFlags DML_EXECUTION_FLAG_DISABLE_META_COMMANDS, DML_EXECUTION_FLAG_DESCRIPTORS_"
                          "VOLATILE: kept as data; the reference backend compiles without them (only DirectML's "
                          "CompileOperator takes them)."]
    f.assert_clean()


def test_dxdispatch_elsewhere_follows_dmlops_compile():
    conv = dmlops.jsonio.load_model(DATA / "convolution_compile_op.json")  # DESCRIPTORS_VOLATILE: not passed there
    result = dxdispatch.run(conv)
    assert result.backend == compiled.default_backend()
    if result.backend != "directml":
        assert result.notes[0].endswith(f"kept as data; the {result.backend} backend compiles without them (only "
                                        "DirectML's CompileOperator takes them).")
    assert result.printed == dxdispatch.run(conv, "reference").printed


@native
def test_validate_run_runs_on_the_native_backend_by_default(fake, capsys):
    f = fake()
    path = str(DATA / "gemm_owned_compile_graph.json")
    assert cli.main(["validate", path, "--run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == ["ran its commands on directml (dml:0):", "Resource 'result': 5, 2, 11, 5"]
    assert compiled_flags(f) == [int(HALF)]
    assert cli.main(["validate", path, "--run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["run"]["backend"] == "directml" and report["run"]["notes"] == []
    f.assert_clean()


@native
def test_validate_run_at_a_feature_level_the_device_lacks_says_so(fake, capsys):
    fake(feature_level="6.2")
    path = str(DATA / "gemm_owned_compile_graph.json")
    assert cli.main(["validate", path, "--run"]) == 0  # validated at the newest level, run at the device's
    assert capsys.readouterr().out.splitlines()[1] == "ran its commands on directml (dml:0):"
    assert cli.main(["validate", path, "--run", "--feature-level", "6.4"]) == 2
    assert capsys.readouterr().err.strip() == ("dmlops: error: compile: DML_FEATURE_LEVEL_6_4 was asked for, but dml:0 "
                                               f"({adapters.adapter(0).name}) supports up to DML_FEATURE_LEVEL_6_2.")


# ------------------------------------------------------------------------------------------------ framework adapters


def _bce_inputs():
    rng = np.random.default_rng(7)
    x = rng.uniform(0.05, 0.95, (3, 7)).astype(np.float32)  # a shape of its own: adapters cache graphs per shape
    y = (rng.uniform(size=(3, 7)) > 0.5).astype(np.float32)
    return x, y


@native
def test_framework_adapters_run_on_the_native_backend_by_default(fake):
    f = fake()
    x, y = _bce_inputs()
    plan = aclnn.binary_cross_entropy(x, y, reduction="none", return_graph=True)
    assert plan.compile().backend == "directml" and plan.compile().device == "dml:0"
    got = aclnn.binary_cross_entropy(x, y, reduction="none")
    assert f.count("CompileGraph") == 1  # the default ran there
    want = aclnn.binary_cross_entropy(x, y, reduction="none", backend="reference")
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    rng = np.random.default_rng(3)
    images = rng.standard_normal((2, 3, 5, 3)).astype(np.float32)
    c = np.ones(3, np.float32)
    default = tf.fused_batch_norm_v3(images, c, c * 0, c * 0, c, return_graph=True)
    assert default.compile().backend == "directml"
    f.assert_clean()


def test_framework_adapters_elsewhere_follow_dmlops_compile():
    x, y = _bce_inputs()
    plan = aclnn.binary_cross_entropy(x, y, reduction="none", return_graph=True)
    assert plan.compile().backend == compiled.default_backend()
    np.testing.assert_allclose(np.asarray(plan.run()), np.asarray(plan.run("reference")), rtol=1e-6)
