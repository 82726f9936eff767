"""``dmlops check`` on real models (issue 21, part 4): every model ONNX's wheel ships (onnx/backend/test/data: light/,
pytorch-converted/, pytorch-operator/, simple/) and models exported here from torchvision architectures built without
weights, an LSTM model and a transformer encoder layer, at two opsets each.

Two oracles run beside the expectations, both from the onnxruntime installed here (its CPU provider):
- session creation: a model ONNX Runtime cannot load for want of a kernel ("Could not find an implementation for
  Add(6)") must have a failing node of that op and version whose reason is that no provider can run it, and a model it
  loads must have none;
- the graph ONNX Runtime partitions: its basic optimizations (fusions off) must leave exactly the nodes dmlops does not
  report as folded (constant folding, EliminateIdentity / Dropout, function inlining, as dmlops replays them).
"""
import collections
import importlib.util
import re
from pathlib import Path

import onnx
import pytest

from dmlops.check import BadModel, Verdict, check_model, check_paths
from dmlops.types import FeatureLevel
from tests.check_exports import export_all

BACKEND = Path(onnx.__file__).parent / "backend" / "test" / "data"
FOLDERS = {"light": 9, "pytorch-converted": 82, "pytorch-operator": 35, "simple": 23}
# Level-1 optimizations that rewrite nodes rather than remove them: off in the oracle, which compares node lists.
FUSIONS = ["ConvBNFusion", "ConvAddFusion", "ConvMulFusion", "MatMulAddFusion", "GemmTransposeFusion", "DivMulFusion",
           "FuseReluClip", "NotWhereFusion", "TransposeOptimizer", "CommonSubexpressionElimination",
           "UnsqueezeElimination", "ExpandElimination", "CastElimination", "NoopElimination", "EliminateSlice",
           "ConstantSharing", "ReshapeFusion"]


def backend_files() -> list[Path]:
    return sorted([*BACKEND.glob("light/*.onnx"), *BACKEND.glob("*/*/model.onnx")])


@pytest.fixture(scope="module")
def backend_reports():
    files = backend_files()
    reports = check_paths([BACKEND / f for f in FOLDERS])
    return dict(zip(files, reports))


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    if importlib.util.find_spec("torchvision") is None:
        pytest.skip("torchvision is not installed (.ci/run installs it: pip install --no-deps 'torchvision==0.28.*')")
    return export_all(tmp_path_factory.mktemp("exports"))


def test_every_model_onnx_ships_is_checked(backend_reports):
    counts = collections.Counter(p.relative_to(BACKEND).parts[0] for p in backend_reports)
    assert counts == FOLDERS  # 149 models
    for path, r in backend_reports.items():
        assert not isinstance(r, BadModel), r
        graph = onnx.load(str(path), load_external_data=False).graph
        assert r.model_nodes == len(graph.node)
        assert all(n.reason for n in r.nodes), path


def test_the_light_classic_cnns_need_6_2_for_average_pooling(backend_reports):
    light = {p.stem.removeprefix("light_"): r for p, r in backend_reports.items() if p.parent.name == "light"}
    assert {k for k, r in light.items() if r.all_directml} == set(light)  # at the newest level, 6.4
    needs = {k: r.lowest_level.short for k, r in light.items()}
    assert needs == {"bvlc_alexnet": "5.0", "densenet121": "6.2", "inception_v1": "6.2", "inception_v2": "6.2",
                     "resnet50": "6.2", "shufflenet": "6.2", "squeezenet": "5.0", "vgg19": "5.0", "zfnet512": "5.0"}
    r = check_model(BACKEND / "light" / "light_resnet50.onnx", feature_level="5.0")
    failing = [n for n in r.nodes if n.verdict is Verdict.FAILS]
    assert [n.op for n in failing] == ["AveragePool"]
    assert failing[0].reason == ("the provider claims it, but it needs DML_FEATURE_LEVEL_6_2 (AVERAGE_POOLING1 from 6.2 "
                                 "(4D FLOAT32)); the device is at 5.0: DirectML refuses to create the operator")
    assert r.blocking_ops == {"AveragePool": 1}
    # The weights are made by ConstantOfShape from constant shapes: folded, never placed.
    assert r.count(Verdict.FOLDED) == 239 and {n.op for n in r.nodes if n.verdict is Verdict.FOLDED} == {
        "ConstantOfShape"}


def test_opset_6_models_fail_where_no_provider_has_the_old_version(backend_reports):
    r = backend_reports[BACKEND / "pytorch-converted" / "test_BatchNorm2d_eval" / "model.onnx"]
    (n,) = r.nodes
    assert n.verdict is Verdict.FAILS and n.since_version == 6
    assert n.reason == ("opset 6 resolves BatchNormalization to BatchNormalization-6, which the DirectML provider does "
                        "not register (it has BatchNormalization-7, -9, -14, -15); ONNX Runtime's CPU provider has no "
                        "BatchNormalization-6 kernel for these types either (it registers versions 7-8, 9-13, 14, 15+): "
                        "no provider can run it")
    conv = backend_reports[BACKEND / "pytorch-converted" / "test_Conv2d" / "model.onnx"]
    assert [n.kernel for n in conv.nodes] == ["Conv-1"] and conv.all_directml


def test_sequences_and_strings(backend_reports):
    seq = backend_reports[BACKEND / "simple" / "test_sequence_model4" / "model.onnx"]
    assert [(n.op, n.verdict) for n in seq.nodes] == [("SequenceConstruct", Verdict.CPU_FALLBACK),
                                                     ("ConcatFromSequence", Verdict.DIRECTML)]
    strings = backend_reports[BACKEND / "simple" / "test_strnorm_model_monday_empty_output" / "model.onnx"]
    (n,) = strings.nodes
    assert n.verdict is Verdict.CPU_FALLBACK and n.reason == "the DirectML provider registers no StringNormalizer kernel"


def unrunnable_nodes(report) -> set[tuple[str, int | None]]:
    """(op, since-version) of the nodes dmlops says no ONNX Runtime provider can run (or ONNX Runtime refuses)."""
    return {(n.op, n.since_version) for n in report.nodes if n.verdict is Verdict.FAILS and (
        n.reason.endswith("no provider can run it") or "refuses the model" in n.reason
        or "is not one ONNX Runtime knows" in n.reason)}


def _ort():
    ort = pytest.importorskip("onnxruntime")
    ort.set_default_logger_severity(4)
    return ort


def test_onnx_runtime_loads_exactly_the_models_with_no_unrunnable_node(backend_reports):
    ort = _ort()
    checked = 0
    for path, r in backend_reports.items():
        unrunnable = unrunnable_nodes(r)
        try:
            ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own classes
            text = str(e)
            if "locale" in text:  # StringNormalizer needs en_US.UTF-8 on this machine: not a kernel question
                continue
            missing = re.search(r"Could not find an implementation for (\w+)\((\d+)\)", text)
            if missing:
                assert (missing.group(1), int(missing.group(2))) in unrunnable, (path, text, unrunnable)
            else:  # refused at load (ai.onnx.preview.training.Gradient)
                assert unrunnable, (path, text)
            checked += 1
            continue
        assert not unrunnable, (path, unrunnable)
        checked += 1
    assert checked >= 140


def _placed_by_onnx_runtime(ort, path: Path, tmp: Path) -> collections.Counter:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(tmp)
    ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"], disabled_optimizers=FUSIONS)
    return collections.Counter(n.op_type for n in onnx.load(str(tmp)).graph.node)


def _placed_by_dmlops(report) -> collections.Counter:
    return collections.Counter(n.op for n in report.nodes if n.verdict is not Verdict.FOLDED and not n.graph)


def test_the_nodes_left_after_onnx_runtimes_basic_optimizations_are_those_not_folded(backend_reports, exports,
                                                                                      tmp_path):
    ort = _ort()
    compared = 0
    for path in [*backend_reports, *map(Path, exports.values())]:
        try:
            want = _placed_by_onnx_runtime(ort, path, tmp_path / "optimized.onnx")
        except Exception:  # noqa: BLE001 - the models ONNX Runtime cannot load: the test above covers them
            continue
        report = backend_reports.get(path) or check_model(path)
        assert _placed_by_dmlops(report) == want, path
        compared += 1
    assert compared >= 115


def test_resnet18(exports):
    for opset in (13, 17):
        r = check_model(exports[f"resnet18_{opset}"], feature_level="5.0")
        assert r.all_directml and r.exit_code == 0 and r.lowest_level == FeatureLevel.FL_5_0
        ops = collections.Counter((n.op, "+".join(n.dml_operators)) for n in r.nodes if n.verdict is Verdict.DIRECTML)
        assert ops == {("Conv", "CONVOLUTION"): 20, ("Relu", "ACTIVATION_RELU"): 17, ("Add", "ELEMENT_WISE_ADD"): 8,
                       ("MaxPool", "MAX_POOLING2"): 1, ("GlobalAveragePool", "AVERAGE_POOLING"): 1,
                       ("Flatten", "ELEMENT_WISE_IDENTITY"): 1, ("Gemm", "GEMM"): 1}
        assert r.directml_flops_share == 1.0 and r.total_flops > 3.6e9  # ~1.8 GMACs


def test_mobilenet_v3_small_hardswish_is_inlined_at_opset_17(exports):
    r13 = check_model(exports["mobilenet_v3_small_13"], feature_level="5.0")
    assert r13.all_directml and "HardSwish" not in {n.op for n in r13.nodes}  # exported as HardSigmoid * x
    r17 = check_model(exports["mobilenet_v3_small_17"], feature_level="5.0")
    assert r17.all_directml and r17.exit_code == 0
    inlined = [n for n in r17.nodes if n.origin]
    assert collections.Counter(n.op for n in inlined) == {"HardSigmoid": 19, "Mul": 19}
    assert all(n.origin.startswith("inlined from HardSwish node ") for n in inlined)
    assert ("19 HardSwish node(s): no provider has a kernel for them, so ONNX Runtime inlines their ONNX function "
            "body; the body's nodes are checked instead (named '<node>/<op>_<k>')") in r17.notes


def test_lstm_model(exports):
    for opset in (13, 17):
        r = check_model(exports[f"lstm_{opset}"], feature_level="5.0")
        assert r.all_directml
        lstm = [n for n in r.nodes if n.op == "LSTM"]
        kernel = "LSTM-7" if opset == 13 else "LSTM-14"  # opset 13 resolves LSTM to LSTM-7
        assert len(lstm) == 2 and all(n.dml_operators == ["LSTM"] and n.kernel == kernel for n in lstm)
        assert lstm[0].reason == f"{kernel}: LSTM from 1.0 (4D FLOAT32)"
        # The exporter's Shape -> Gather -> ... -> Expand chains for the initial states have static shapes: folded.
        assert {n.op for n in r.nodes if n.verdict is Verdict.FOLDED} >= {"Shape", "Gather", "Expand", "Constant"}
        gather = next(n for n in r.nodes if n.op == "Gather" and n.verdict is Verdict.DIRECTML)
        assert gather.level_detail == "GATHER from 3.0 (4D FLOAT32, 4D INT64)"  # y[:, -1]: int64 index


def test_transformer_encoder_layer(exports):
    r14 = check_model(exports["encoder_14"], feature_level="5.0")
    softmax = [n for n in r14.nodes if n.op == "Softmax"]
    assert [n.verdict for n in softmax] == [Verdict.FAILS]
    assert softmax[0].reason == ("the provider claims it, but it needs DML_FEATURE_LEVEL_5_1 (ACTIVATION_SOFTMAX1 from "
                                 "5.1 (4D FLOAT32)); the device is at 5.0: DirectML refuses to create the operator")
    assert r14.lowest_level == FeatureLevel.FL_5_1  # LayerNorm is exported as ReduceMean / Pow / Sqrt at opset 14
    assert check_model(exports["encoder_14"], feature_level="5.1").all_directml
    r17 = check_model(exports["encoder_17"], feature_level="5.0")
    assert r17.blocking_ops == {"LayerNormalization": 2, "Softmax": 1}
    norm = next(n for n in r17.nodes if n.op == "LayerNormalization")
    assert norm.reason == ("the provider claims it, but it needs DML_FEATURE_LEVEL_6_3 (MEAN_VARIANCE_NORMALIZATION2 "
                           "from 6.3 (4D FLOAT32)); the device is at 5.0: DirectML refuses to create the operator")
    assert r17.lowest_level == FeatureLevel.FL_6_3
    at_63 = check_model(exports["encoder_17"], feature_level="6.3")
    assert at_63.all_directml and at_63.exit_code == 0
    # Every rank is known after the shape arithmetic is folded (ONNX's own inference stops at a Mod).
    assert all(t.rank is not None for n in at_63.placed for t in n.inputs + n.outputs if t.name)


def test_onnx_runtime_loads_exactly_the_node_cases_with_no_unrunnable_node():
    # ONNX's node test cases: one model per case, every op and many type combinations (about 1900 models). Where
    # ONNX Runtime (CPU) cannot find a kernel, dmlops must say no provider can run that node, unless it says the
    # DirectML provider takes it (which a CPU-only session cannot show); where it loads the model, dmlops must not.
    ort = _ort()
    from onnx.backend.test.case.node import collect_testcases

    wrong, judged = [], 0
    for case in collect_testcases():
        m = case.model
        m.ir_version = min(m.ir_version, 10)  # what this onnxruntime reads; the graphs are unchanged
        r = check_model(m)
        unrunnable = unrunnable_nodes(r)
        directml = {(n.op, n.since_version) for n in r.nodes if n.claimed}
        try:
            ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime's own exception classes
            text = str(e)
            if "locale" in text:  # StringNormalizer needs en_US.UTF-8 here: not a kernel question
                continue
            missing = re.search(r"(?:Could not find an implementation for|Failed to find kernel for) (\w+)\((\d+)\)",
                                text)
            if missing and (missing.group(1), int(missing.group(2))) in directml:
                continue
            judged += 1
            if not (missing and (missing.group(1), int(missing.group(2))) in unrunnable) and not (
                    not missing and unrunnable):
                wrong.append(f"{case.name}: onnxruntime refused it ({text.splitlines()[0][:160]}); dmlops: "
                             f"{sorted(unrunnable) or r.headline()}")
            continue
        judged += 1
        if unrunnable:
            wrong.append(f"{case.name}: onnxruntime loaded it; dmlops says no provider runs {sorted(unrunnable)}")
    assert not wrong, "\n".join(wrong)
    assert judged > 1800
