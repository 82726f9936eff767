"""dmlops.check_model on small models: each rule of ONNX Runtime's DirectML provider, one model each, with the
verdict and the reason it gives (issue 21)."""
import re

import pytest
from onnx import helper as h

import dmlops
from dmlops.check import Verdict, check_model
from dmlops.types import FeatureLevel
from tests.check_models import (B, D, F, F16, I8, I32, I64, binary, dynamic_reshape, gelu_between_relus, i64, if_model,
                                model, resize, unary, vi)


def only(report):
    assert len(report.nodes) == 1, [n.op for n in report.nodes]
    return report.nodes[0]


def test_a_registered_node_runs_on_directml_with_its_operator_and_level():
    n = only(check_model(unary("Relu"), feature_level="5.0"))
    assert n.verdict is Verdict.DIRECTML
    assert n.kernel == "Relu-14" and n.dml_operators == ["ACTIVATION_RELU"]
    assert n.min_level == FeatureLevel.FL_1_0
    assert n.reason == "Relu-14: ACTIVATION_RELU from 1.0 (4D FLOAT32)"  # rank 2 padded to 4, as the provider does
    assert n.inputs[0].type == "tensor(float)" and n.inputs[0].rank == 2


def test_check_model_is_exported_lazily_and_returns_a_report():
    r = dmlops.check_model(unary("Relu"))
    assert r.feature_level == FeatureLevel.latest() and r.exit_code == 0 and r.all_directml


def test_an_opset_resolving_to_an_unregistered_version_falls_back():
    n = h.make_node("ScatterElements", ["d", "i", "u"], ["o"], axis=0)
    m = model([n], [vi("d", F, [3]), vi("i", I64, [1]), vi("u", F, [1])], [vi("o", F, [3])], opset=18)
    node = only(check_model(m))
    assert node.verdict is Verdict.CPU_FALLBACK and node.kernel is None
    assert node.reason == ("opset 18 resolves ScatterElements to ScatterElements-18, which the DirectML provider does "
                           "not register (it has ScatterElements-11, -13, -16)")
    m16 = model([n], list(m.graph.input), list(m.graph.output), opset=16)
    assert only(check_model(m16)).verdict is Verdict.DIRECTML


def test_an_op_without_a_provider_kernel_falls_back_and_copies_tensors():
    r = check_model(gelu_between_relus(), feature_level="5.0")
    gelu = r.nodes[1]
    assert gelu.verdict is Verdict.CPU_FALLBACK
    assert gelu.reason == "the DirectML provider registers no Gelu kernel"
    assert gelu.copies == ["'a' in from DirectML", "'b' out to DirectML (1 node(s))"]
    assert [n.label for n in r.copy_fallbacks] == ["node 1 'gelu' (Gelu)"]
    assert r.exit_code == 1 and r.count(Verdict.DIRECTML) == 2
    assert r.directml_flops_share == pytest.approx(12 / 18)  # 6 elements per node; Gelu's 6 are on the CPU


def test_with_cpu_fallback_off_a_fallback_fails_the_session():
    r = check_model(gelu_between_relus(), feature_level="5.0", cpu_fallback=False)
    gelu = r.nodes[1]
    assert gelu.verdict is Verdict.FAILS
    assert gelu.reason == ("the DirectML provider registers no Gelu kernel; CPU fallback is off (as dmlops sets it), "
                           "so session creation fails")
    assert r.blocking_ops == {"Gelu": 1}


def test_a_function_op_no_provider_implements_is_inlined_as_onnx_runtime_does():
    # HardSwish: no DirectML kernel and no CPU kernel, so ONNX Runtime inlines HardSigmoid + Mul.
    r = check_model(unary("HardSwish", opset=17), feature_level="5.0")
    assert [(n.op, n.verdict) for n in r.nodes] == [("HardSigmoid", Verdict.DIRECTML), ("Mul", Verdict.DIRECTML)]
    assert all(n.origin == "inlined from HardSwish node 0" for n in r.nodes)
    assert r.model_nodes == 1 and r.exit_code == 0
    assert any("1 HardSwish node(s): no provider has a kernel for them, so ONNX Runtime inlines" in n for n in r.notes)


def test_a_type_outside_the_registration_falls_back_to_the_cpu_kernel():
    n = only(check_model(unary("Exp", elem=D)))
    assert n.verdict is Verdict.CPU_FALLBACK
    assert n.reason == "input 0 (input) is double; the provider's Exp-13 takes T in float, float16"


def test_float64_follows_the_device():
    # Identity registers double; the device mask decides.
    n = only(check_model(unary("Abs", elem=D)))
    assert n.verdict is Verdict.CPU_FALLBACK  # Abs registers no double at all: the kernel lookup fails first
    assert n.reason.startswith("input 0 (X) is double; the provider's Abs-13 takes T in float")
    m = model([h.make_node("Where", ["c", "a", "b"], ["y"])],
              [vi("c", B, [2]), vi("a", D, [2]), vi("b", D, [2])], [vi("y", D, [2])])
    off = only(check_model(m))
    assert off.verdict is Verdict.CPU_FALLBACK
    assert off.reason == "input 1 (a) is double and the device does not support FLOAT64 tensors"
    on = only(check_model(m, float64=True))
    assert on.verdict is Verdict.DIRECTML and on.reason == "Where-16: ELEMENT_WISE_IF from 5.0 (4D FLOAT64, 4D UINT8)"  # FLOAT64 from 5.0


def test_float16_follows_the_device():
    assert only(check_model(unary("Relu", elem=F16))).verdict is Verdict.DIRECTML
    # Without FLOAT16 the provider refuses Relu, and the CPU provider has no float16 Relu: ONNX Runtime inlines Relu's
    # function body, Max(X, CastLike(0, X)), and CastLike's in turn, while it partitions, so nothing of it is folded
    # (onnxruntime on CPU does the same: Cast + Max); the body's Constant becomes an initializer.
    r = check_model(unary("Relu", elem=F16), float16=False)
    assert [(n.op, n.verdict) for n in r.nodes] == [("Constant", Verdict.FOLDED), ("Cast", Verdict.CPU_FALLBACK),
                                                   ("Max", Verdict.CPU_FALLBACK)]
    assert r.nodes[2].reason == "input 0 (x) is float16 and the device does not support FLOAT16 tensors"
    assert {n.origin for n in r.nodes} == {"inlined from Relu node 0"}


def test_the_feature_level_an_operator_needs_decides_between_directml_and_failure():
    low = only(check_model(resize(), feature_level="6.3"))
    assert low.verdict is Verdict.FAILS and low.claimed
    assert low.reason == ("the provider claims it, but it needs DML_FEATURE_LEVEL_6_4 (RESAMPLE3 from 6.4 (4D FLOAT32)); "
                          "the device is at 6.3: DirectML refuses to create the operator")
    high = only(check_model(resize(), feature_level="6.4"))
    assert high.verdict is Verdict.DIRECTML and high.dml_operators == ["RESAMPLE3"]


def test_data_types_and_ranks_raise_the_level():
    assert only(check_model(binary("Add"))).min_level == FeatureLevel.FL_1_0
    int8 = only(check_model(binary("Add", elem=I8), feature_level="5.0"))  # INT8 arithmetic from 5.1
    assert int8.min_level == FeatureLevel.FL_5_1 and int8.verdict is Verdict.FAILS
    assert "ELEMENT_WISE_ADD from 5.1 (4D INT8)" in int8.reason
    gather = model([h.make_node("Gather", ["d", "i"], ["o"], axis=0)], [vi("d", F, [2, 2, 2, 2, 2]), vi("i", I32, [1])],
                   [vi("o", F, [1, 2, 2, 2, 2])])
    assert only(check_model(gather)).min_level == FeatureLevel.FL_3_0  # a rank-5 GATHER needs 3.0
    gather64 = model([h.make_node("Gather", ["d", "i"], ["o"], axis=0)], [vi("d", I64, [4]), vi("i", I32, [1])],
                     [vi("o", I64, [1])])
    assert only(check_model(gather64)).min_level == FeatureLevel.FL_4_1  # INT64 data from 4.1


def test_an_operator_no_level_allows_fails_everywhere():
    m = model([h.make_node("MatMul", ["a", "b"], ["c"])], [vi("a", F, [2, 2, 2, 3, 4]), vi("b", F, [2, 2, 2, 4, 5])],
              [vi("c", F, [2, 2, 2, 3, 5])])
    r = check_model(m)
    n = only(r)
    assert n.verdict is Verdict.FAILS and n.level_refused
    assert n.reason.startswith("the provider claims it, but no feature level allows it: GEMM.ATensor: 5 dimensions not "
                               "supported (at 4.0: 2 to 4)")
    assert r.lowest_level is None


@pytest.mark.parametrize("m, reason", [
    (resize(mode="cubic"), "QueryResize: mode 'cubic' is not supported"),
    (unary("MaxPool", shape=(1, 1, 4, 4), kernel_shape=[2, 2], storage_order=1),
     "QueryMaxPool: storage_order=1 is not supported"),
    (model([h.make_node("ScatterElements", ["d", "i", "u"], ["o"], axis=0, reduction="add")],
           [vi("d", F, [3]), vi("i", I64, [1]), vi("u", F, [1])], [vi("o", F, [3])], opset=16),
     "QueryScatter: reduction 'add' is not supported"),
    (model([h.make_node("LayerNormalization", ["x", "s"], ["y", "mean"])],
           [vi("x", F, [2, 4]), vi("s", F, [4])], [vi("y", F, [2, 4]), vi("mean", F, [2, 1])], opset=17),
     "QueryLayerNormalization: the Mean / InvStdDev outputs are not supported"),
])
def test_support_queries_send_nodes_to_the_cpu(m, reason):
    n = check_model(m).nodes[0]
    assert n.verdict is Verdict.CPU_FALLBACK and n.kernel is not None  # a kernel matched; the query refused it
    assert n.reason == reason


def test_lstm_layout_1_is_refused_by_the_recurrent_query_and_the_cpu_kernel():
    x, w, r = vi("x", F, [2, 5, 3]), vi("w", F, [1, 16, 3]), vi("r", F, [1, 16, 4])
    ok = model([h.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=4)], [x, w, r], [vi("y", F, [5, 1, 2, 4])])
    assert only(check_model(ok)).verdict is Verdict.DIRECTML
    bad = model([h.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=4, layout=1)], [x, w, r],
                [vi("y", F, [2, 5, 1, 4])])
    n = only(check_model(bad))
    # The provider's query refuses it, and ONNX Runtime's CPU kernels refuse batch-first layouts as they are created:
    # the session fails (tests/test_check_models.py checks this against onnxruntime on ONNX's node test cases).
    assert n.verdict is Verdict.FAILS
    assert n.reason == ("QueryRecurrentNeuralNetwork: layout=1 (batch first) is not supported; ONNX Runtime's CPU "
                        "kernel refuses layout=1 when it is created ('Batchwise recurrent operations (layout == 1) are "
                        "not supported'): no provider can run it")


def test_if_is_a_cpu_kernel_of_the_provider_and_its_branches_are_checked():
    r = check_model(if_model(), cpu_fallback=False)
    top = r.nodes[0]
    assert top.op == "If" and top.verdict is Verdict.CPU_FALLBACK  # not "fails": the provider registers it
    assert top.reason.startswith("a CPU kernel registered under the DirectML provider")
    branches = {n.graph: (n.op, n.verdict) for n in r.nodes[1:]}
    assert branches == {"branch.then_branch": ("Add", Verdict.DIRECTML), "branch.else_branch": ("Sub", Verdict.DIRECTML)}


def test_shape_arithmetic_on_a_dynamic_shape_stays_on_the_cpu():
    r = check_model(dynamic_reshape(), feature_level="5.0")
    verdicts = {n.name: n.verdict for n in r.nodes}
    assert verdicts == {"shape": Verdict.DIRECTML, "batch": Verdict.CPU_FALLBACK, "unsq": Verdict.CPU_FALLBACK,
                        "concat": Verdict.CPU_FALLBACK, "reshape": Verdict.DIRECTML}
    batch = r.nodes[1]
    assert batch.reason == ("ONNX Runtime keeps it on the CPU (GetCpuPreferredNodes): it computes on CPU tensors "
                            "(Shape output 's') and small or graph inputs only")
    assert r.copy_fallbacks == []  # Shape's output is on the CPU, and Reshape reads its shape there


def test_static_shape_arithmetic_is_folded_before_partitioning():
    m = dynamic_reshape()
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 2
    r = check_model(m)
    assert [(n.name, n.verdict) for n in r.nodes] == [
        ("shape", Verdict.FOLDED), ("batch", Verdict.FOLDED), ("unsq", Verdict.FOLDED), ("concat", Verdict.FOLDED),
        ("reshape", Verdict.DIRECTML)]
    assert r.nodes[0].reason == "Shape of a static shape: ONNX Runtime's constant folding computes it"
    assert r.nodes[3].reason == "every input is constant: ONNX Runtime's constant folding computes it"
    assert r.nodes[4].outputs[0].shape == (2, 12)  # the folded shape reaches shape inference


def test_constants_and_identities_are_not_placed():
    nodes = [h.make_node("Constant", [], ["k"], value=h.make_tensor("v", F, [1], [2.0])),
             h.make_node("Identity", ["x"], ["x2"]), h.make_node("Mul", ["x2", "k"], ["y"])]
    r = check_model(model(nodes, [vi("x", F, [3])], [vi("y", F, [3])]))
    assert [(n.op, n.verdict) for n in r.nodes] == [("Constant", Verdict.FOLDED), ("Identity", Verdict.FOLDED),
                                                   ("Mul", Verdict.DIRECTML)]
    assert r.nodes[0].reason == "a Constant node: ONNX Runtime makes it an initializer when it loads the model"
    assert r.nodes[1].reason == "an Identity: ONNX Runtime's EliminateIdentity removes it"
    assert r.nodes[1].inferred and not r.nodes[0].inferred


def test_an_old_opset_op_no_provider_implements_fails():
    # Add-6: the DirectML provider registers 7, 13, 14 and ONNX Runtime's CPU provider starts at 7 too.
    n = only(check_model(binary("Add", opset=6, shape=(3,)), feature_level="5.0"))
    assert n.verdict is Verdict.FAILS
    assert n.reason == ("opset 6 resolves Add to Add-6, which the DirectML provider does not register (it has Add-7, "
                        "-13, -14); ONNX Runtime's CPU provider has no Add-6 kernel for these types either (it "
                        "registers versions 7-12, 13, 14+): no provider can run it")


def test_unknown_domains_and_ops_fail():
    m = model([h.make_node("Frobnicate", ["x"], ["y"], domain="com.example")], [vi("x", F, [2])], [vi("y", F, [2])],
              extra_opsets=[("com.example", 1)])
    n = only(check_model(m))
    assert n.verdict is Verdict.FAILS
    assert n.reason == ("domain 'com.example' is not one ONNX Runtime knows: no provider implements Frobnicate (a "
                        "custom-op library would have to be registered)")
    n = only(check_model(unary("Frobnicate")))
    assert n.reason == "ai.onnx has no Frobnicate at opset 18: ONNX Runtime refuses the model at load"


def test_a_level_below_the_providers_minimum_runs_nothing():
    r = check_model(unary("Relu"), feature_level="4.1")
    assert only(r).verdict is Verdict.FAILS
    assert only(r).reason == ("the DirectML provider needs DML_FEATURE_LEVEL_5_0 (DMLCreateDevice1's minimum); the "
                              "device is at 4.1")
    assert any("creates its device with DML_FEATURE_LEVEL_5_0" in n for n in r.notes)


def test_the_summary_names_the_lowest_level_and_the_blocking_ops():
    nodes = [h.make_node("Resize", ["x", "", "scales"], ["r"], mode="nearest"), h.make_node("Relu", ["r"], ["y"])]
    m = model(nodes, [vi("x", F, [1, 1, 4, 4])], [vi("y", F, [1, 1, 8, 8])],
              initializers=[h.make_tensor("scales", F, [4], [1, 1, 2, 2])])
    r = check_model(m, feature_level="5.0")
    assert r.lowest_level == FeatureLevel.FL_6_4
    assert r.blocking_ops == {"Resize": 1}
    text = r.text()
    assert "lowest feature level keeping every supported node on DirectML: DML_FEATURE_LEVEL_6_4" in text
    assert "blocking ops (session creation fails): Resize x1" in text
    assert r.headline() == ("model 't' at DML_FEATURE_LEVEL_5_0: 1 of 2 nodes on DirectML (50.0% of 128 FLOPs); "
                            "1 failing.")
    doc = r.to_dict()
    assert doc["summary"]["lowest_feature_level"] == "6.4" and doc["nodes"][0]["verdict"] == "fails"


def test_device_reads_level_and_types_from_the_adapter(monkeypatch):
    from dmlops.backends.directml import adapters

    fake = adapters.Adapter(index=0, name="Test GPU", vendor="test", vendor_id=1, memory_bytes=1 << 30,
                            feature_level=FeatureLevel.FL_6_3, float16=True, float64=True)
    monkeypatch.setattr(adapters, "devices", lambda: [fake])
    r = check_model(resize(), device="dml:0")
    assert r.feature_level == FeatureLevel.FL_6_3 and r.float64 and not r.assumed
    assert r.device == "dml:0 (Test GPU)" and only(r).verdict is Verdict.FAILS
    with pytest.raises(dmlops.DmlOpsError, match=re.escape("dml:1: no such DirectML adapter")):
        check_model(resize(), device="dml:1")
    with pytest.raises(dmlops.DmlOpsError, match="give a feature level or a device, not both"):
        check_model(resize(), feature_level="5.0", device="dml:0")


def test_int64_indices_reach_the_table_as_their_own_type():
    m = model([h.make_node("Gather", ["d", "i"], ["o"], axis=0)], [vi("d", F, [4]), vi("i", I64, [2])],
              [vi("o", F, [2])], initializers=[i64("unused", [1])])
    n = only(check_model(m))
    assert n.level_detail == "GATHER from 3.0 (4D FLOAT32, 4D INT64)"  # INT64 indices arrive with GATHER's 3.0 tier
