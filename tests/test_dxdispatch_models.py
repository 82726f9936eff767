"""DxDispatch's JSON, as its own parser reads it (rapidjson with comments and trailing commas; DML_TENSOR_DESC in its
long form {"Type", "Desc"}; TotalTensorSizeInBytes 0 meaning "compute it"), in model files written for these tests
(tests/data/dxdispatch/) and loaded through every entry point: dmlops.load, dmlops.from_json of the text, and the CLI."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dmlops
from dmlops import cli, dxdispatch
from dmlops.types import ScaleBias, TensorDesc

DATA = Path(__file__).parent / "data" / "dxdispatch"


def expected_gemm():
    return dmlops.Gemm(a_tensor=TensorDesc("FLOAT32", [1, 1, 2, 3]), b_tensor=TensorDesc("FLOAT32", [1, 1, 3, 2]),
                       output_tensor=TensorDesc("FLOAT32", [1, 1, 2, 2]), trans_a="NONE", trans_b="NONE", alpha=1.0,
                       beta=0.0, fused_activation=dmlops.ActivationRelu())


def expected_identity():
    return dmlops.ElementWiseIdentity(input_tensor=TensorDesc("FLOAT32", [2, 3], [1, 2]),
                                      output_tensor=TensorDesc("FLOAT32", [2, 3], [4, 1], total_tensor_size_in_bytes=64),
                                      scale_bias=ScaleBias(2.0, 0.5))


@pytest.mark.parametrize("name,expected", [("gemm_fused_relu", expected_gemm), ("identity_strided", expected_identity)])
def test_dxdispatch_files_load_through_every_entry_point(name, expected, capsys):
    path = DATA / f"{name}.json"
    text = path.read_text()
    assert "//" in text and ",\n" in text  # the files do use comments and trailing commas
    want = expected()
    assert dmlops.load(path) == want
    assert dmlops.from_json(text) == want
    assert cli.main(["validate", str(path)]) == 0
    assert "valid" in capsys.readouterr().out


def test_the_model_file_computes_what_its_commands_would_print():
    """The GEMM model's resources, run: [[1, -2, 3], [-4, 5, -6]] x [[1, 0], [0, 1], [1, 1]] = [[4, 1], [-10, -1]],
    through the fused ReLU: [[4, 1], [0, 0]]."""
    desc = dmlops.load(DATA / "gemm_fused_relu.json")
    a = np.array([1, -2, 3, -4, 5, -6], np.float32).reshape(1, 1, 2, 3)
    b = np.array([1, 0, 0, 1, 1, 1], np.float32).reshape(1, 1, 3, 2)
    for backend in ("reference", "onnxruntime", "torch"):
        out = dmlops.run(desc, a_tensor=a, b_tensor=b, backend=backend)["OutputTensor"]
        assert out.reshape(2, 2).tolist() == [[4, 1], [0, 0]]


def test_total_tensor_size_zero_is_computed_and_a_given_one_is_kept():
    desc = dmlops.load(DATA / "identity_strided.json")
    assert desc.input_tensor.total_tensor_size_in_bytes == TensorDesc("FLOAT32", [2, 3], [1, 2]).total_tensor_size_in_bytes
    assert desc.output_tensor.total_tensor_size_in_bytes == 64


def test_comment_markers_inside_strings_are_text_and_bad_json_keeps_its_position():
    doc = ('{"type": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},\n'
           '"OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}, "note": "// not a comment, ]"}')
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.note: unexpected key"):
        dmlops.from_json(doc)
    with pytest.raises(dmlops.DescriptorError, match=r"^\$: malformed JSON at line 2, column 3"):
        dmlops.from_json('{ /* a comment */\n  , "type": 1}')


def test_the_long_tensor_form_refuses_other_tensor_types():
    doc = {"type": "ACTIVATION_RELU", "desc": {
        "InputTensor": {"Type": "DML_TENSOR_TYPE_INVALID", "Desc": {"DataType": "FLOAT32", "Sizes": [2]}},
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}}
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.desc\.InputTensor\.Type: only DML_TENSOR_TYPE_BUFFER "
                                                     r"tensors exist; got 'DML_TENSOR_TYPE_INVALID'\.$"):
        dmlops.from_json(doc)


# ------------------------------------------------------------------------------ what DxDispatch reads on a dispatchable
# Models written for these tests in the shapes of Microsoft's DxDispatch/models (not copies): dml_gemm_graph.json
# (dmlCompileType, executionFlags as a string, bindings for an OWNED_BY_DML tensor), dml_owned_tensors.json
# (bindings), an owned-by-DML model with a binding object and an element offset, a convolution with dmlCompileType
# DmlCompileOp and two execution flags, and dml_mha.json (executionFlags as an array, commands dmlops skips).
# Each: the values its print command shows, worked out by hand (MHA: against the reference backend).
MODELS = {
    "gemm_owned_compile_graph": ("GEMM", "result", [5, 2, 11, 5]),  # [[1,2,3],[4,5,6]] x [[1,0],[-1,1],[2,0]]
    "add_owned_input": ("ELEMENT_WISE_ADD", "sum", [1.5, -1, 7, 4.25]),
    "owned_by_dml_offset": ("ELEMENT_WISE_MULTIPLY", "y", [8, 15, -6]),  # [2, 3, -1] (from element 2) x [4, 5, 6]
    "convolution_compile_op": ("CONVOLUTION", "features", [6, 6, 6, 6]),  # a - (a + 4) + 10 at every position
    "mha_half_precision": ("MULTIHEAD_ATTENTION", "attention", None),
}


@pytest.mark.parametrize("name", MODELS)
def test_every_dxdispatch_model_form_loads_through_every_entry_point(name, capsys):
    """These failed with "unexpected key" for bindings / dmlCompileType (and the MHA dispatchable's own object for
    executionFlags): the keys DxDispatch's parser reads on a DML dispatchable."""
    path = DATA / f"{name}.json"
    text = path.read_text()
    desc = dmlops.load(path)
    assert desc.OPERATOR_TYPE == MODELS[name][0]
    assert dmlops.from_json(text) == desc
    model = json.loads(dmlops.jsonio._TRAILING_COMMAS.sub(dmlops.jsonio._blank,
                                                           dmlops.jsonio._COMMENTS.sub(dmlops.jsonio._blank, text)))
    (dispatchable,) = [d for d in model["dispatchables"].values()]
    assert dmlops.from_json(dispatchable) == desc  # the dispatchable's own object, keys and all
    assert cli.main(["validate", str(path)]) == 0
    assert f"{MODELS[name][0]} is valid at DML_FEATURE_LEVEL_6_4." in capsys.readouterr().out


@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
@pytest.mark.parametrize("name", MODELS)
def test_every_dxdispatch_model_runs_with_its_bindings(name, backend):
    """The dispatchable's bindings feed the OWNED_BY_DML inputs, the dispatch command's bindings the others and the
    output; the print command shows the output resource."""
    _, resource, want = MODELS[name]
    result = dxdispatch.run(dmlops.jsonio.load_model(DATA / f"{name}.json"), backend)
    if want is None:  # MHA: the reference backend's answer for the same bound resources (every backend matches it)
        want = dxdispatch.run(dmlops.jsonio.load_model(DATA / f"{name}.json"), "reference").resources[resource]
        assert len(want) == 16 and np.count_nonzero(want) == 16
        assert result.resources[resource].tobytes() == want.tobytes()
        assert dmlops.run(dmlops.load(DATA / f"{name}.json"), backend="reference",  # the same as binding by hand
                          stacked_query_key_value_tensor=(np.arange(48) / 16 - 1).astype(np.float16).reshape(
                              1, 2, 2, 3, 4))["OutputTensor"].tobytes() == want.tobytes()
    else:
        assert result.resources[resource].tolist() == want
        assert result.printed == [f"Resource '{resource}': " + ", ".join(f"{v:g}" for v in want)]


def test_the_dispatchable_keys_keep_their_meaning():
    gemm = dmlops.jsonio.load_model(DATA / "gemm_owned_compile_graph.json")
    d = gemm.dispatchable
    assert (d.name, d.compile_type, d.execution_flags.names()) == ("matmul", "DmlCompileGraph",
                                                                   ["ALLOW_HALF_PRECISION_COMPUTATION"])
    assert d.bindings == {"BTensor": (dxdispatch.Binding("weights"),)}
    assert gemm.commands[0].bindings == {"ATensor": (dxdispatch.Binding("lhs"),),
                                         "OutputTensor": (dxdispatch.Binding("result"),)}
    conv = dmlops.jsonio.load_model(DATA / "convolution_compile_op.json").dispatchable
    assert conv.compile_type == "DmlCompileOp"
    assert conv.execution_flags.names() == ["DISABLE_META_COMMANDS", "DESCRIPTORS_VOLATILE"]
    offset = dmlops.jsonio.load_model(DATA / "owned_by_dml_offset.json").dispatchable
    assert offset.bindings == {"ATensor": (dxdispatch.Binding("shared", element_offset=2),)}
    mha = dmlops.jsonio.load_model(DATA / "mha_half_precision.json")
    assert mha.dispatchable.execution_flags.names() == ["ALLOW_HALF_PRECISION_COMPUTATION"]
    assert [c.type for c in mha.commands] == ["dispatch", "print", "printInitTemporary", "printExecTemporary"]


def test_validate_run_prints_what_the_model_prints_and_notes_the_execution_flags():
    path = DATA / "gemm_owned_compile_graph.json"
    r = subprocess.run([sys.executable, "-m", "dmlops", "validate", str(path), "--run", "--backend", "reference"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1:3] == ["ran its commands on reference (cpu):", "Resource 'result': 5, 2, 11, 5"]
    assert lines[3] == ("note: executionFlags DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION: kept as data; the "
                        "reference backend compiles without them (only DirectML's CompileOperator takes them).")
    r = subprocess.run([sys.executable, "-m", "dmlops", "validate", str(path), "--json"], capture_output=True, text=True)
    report = json.loads(r.stdout)
    assert report["executionFlags"] == ["DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION"]
    assert report["dmlCompileType"] == "DmlCompileGraph" and report["valid"] is True


def _gemm_model() -> dict:
    text = (DATA / "gemm_owned_compile_graph.json").read_text()
    return json.loads(text)


@pytest.mark.parametrize("change,path,message", [
    (lambda m, d: d.update(bindPoints={}), "$.dispatchables.matmul.bindPoints",
     "unexpected key next to 'type' and 'desc' (allowed besides them: dmlCompileType, executionFlags, bindings)."),
    (lambda m, d: d.update(executionFlag="NONE"), "$.dispatchables.matmul.executionFlag", "unexpected key"),
    (lambda m, d: d.update(executionFlags=1), "$.dispatchables.matmul.executionFlags",
     "expected a DML_EXECUTION_FLAGS name or an array of them; got a number."),
    (lambda m, d: d.update(executionFlags=["NONE", "FAST_MATH"]), r"$.dispatchables.matmul.executionFlags[1]",
     "'FAST_MATH' is not a DML_EXECUTION_FLAG value (allowed: NONE, ALLOW_HALF_PRECISION_COMPUTATION, "
     "DISABLE_META_COMMANDS, DESCRIPTORS_VOLATILE)."),
    (lambda m, d: d.update(dmlCompileType="dmlcompilegraph"), "$.dispatchables.matmul.dmlCompileType",
     "'dmlcompilegraph' is not a DmlCompileType (allowed: DmlCompileOp, DmlCompileGraph)."),
    (lambda m, d: d.update(bindings={"BTensr": "weights"}), "$.dispatchables.matmul.bindings.BTensr",
     "GEMM has no tensor BTensr; tensors: ATensor, BTensor, OutputTensor."),
    (lambda m, d: d.update(bindings={"CTensor": "weights"}), "$.dispatchables.matmul.bindings.CTensor",
     "GEMM's desc has no CTensor (an absent optional tensor takes no binding); tensors: ATensor, BTensor, "
     "OutputTensor."),
    (lambda m, d: d.update(bindings={"BTensor": "W"}), "$.dispatchables.matmul.bindings.BTensor",
     "no resource named 'W' (resources: lhs, weights, result)."),
    (lambda m, d: d.update(bindings={"BTensor": ["weights", "lhs"]}), "$.dispatchables.matmul.bindings.BTensor",
     "2 resource(s) bound; GEMM.BTensor takes 1."),
    (lambda m, d: d.update(bindings={"BTensor": {"name": "weights", "elementOfset": 1}}),
     "$.dispatchables.matmul.bindings.BTensor.elementOfset", "unknown key (allowed: name, format, elementCount, "),
    (lambda m, d: m["commands"][0]["bindings"].update(OutputTensr="result"), "$.commands[0].bindings.OutputTensr",
     "GEMM has no tensor OutputTensr"),
    (lambda m, d: m.update(bindings={}), "$.bindings",
     "unknown key (allowed: $schema, resources, dispatchables, commands)."),
])
def test_keys_and_values_dxdispatch_does_not_know_are_refused_naming_the_json_path(change, path, message):
    model = _gemm_model()
    change(model, model["dispatchables"]["matmul"])
    with pytest.raises(dmlops.DescriptorError) as e:
        dmlops.from_json(model)
    assert e.value.path == path and e.value.message.startswith(message), str(e.value)


def test_an_owned_input_must_be_bound_by_the_dispatchable():
    model = _gemm_model()
    del model["dispatchables"]["matmul"]["bindings"]
    m = dmlops.jsonio.model_from_json(model)
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.dispatchables\.matmul\.bindings: GEMM\.BTensor is not "
                                                     r"bound \(an OWNED_BY_DML input is bound by the dispatchable's "
                                                     r"bindings, which DirectML reads at initialization\)\.$"):
        dxdispatch.run(m, "reference")


def test_other_dispatchable_types_are_not_the_operator():
    """An HLSL, ONNX or dmlSerializedGraph dispatchable beside the DML one is skipped when choosing the operator
    (dmlSerializedGraph was taken for a DML operator: 'unknown operator')."""
    model = _gemm_model()
    model["dispatchables"]["graph"] = {"type": "dmlSerializedGraph", "sourcePath": "g.dml"}
    model["dispatchables"]["shader"] = {"type": "hlsl", "sourcePath": "a.hlsl", "compiler": "dxc", "compilerArgs": []}
    assert dmlops.from_json(model).OPERATOR_TYPE == "GEMM"
    model["commands"].append({"type": "dispatch", "dispatchable": "shader", "bindings": {}})
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.commands\[2\]\.dispatchable: dmlops runs DML operator "
                                                     r"dispatchables only; 'shader' is not one\.$"):
        dxdispatch.run(dmlops.jsonio.model_from_json(model), "reference")


def test_resources_are_bounded_before_they_are_allocated():
    model = _gemm_model()
    model["resources"]["huge"] = {"initialValuesDataType": "FLOAT64", "initialValues": {"valueCount": 2**32 - 1,
                                                                                          "value": 0}}
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.resources: the resources need 34359738424 bytes "
                                                     r"\('huge': 34359738360\); dmlops creates at most 1073741824 "
                                                     r"bytes \(1 GiB\) of them\.$"):
        dxdispatch.run(dmlops.jsonio.model_from_json(model), "reference")


def test_every_initial_values_form_and_a_binding_offset(tmp_path):
    """Resources as DxDispatch makes them: a .npy and a raw .dat file beside the model, a list of typed values, a
    UINT8 sequence that wraps (DxDispatch's running sum in the type: 250, 253, 0, 3), and an output resource larger
    than its values (sizeInBytes) written from element 4 on, its first bytes left as they were."""
    np.save(tmp_path / "a.npy", np.array([1, 2, 3, 4], np.uint8))
    (tmp_path / "raw.dat").write_bytes(np.array([7, -7], np.int16).tobytes())
    t = {"DataType": "UINT8", "Sizes": [4]}
    model = {
        "resources": {
            "A": {"initialValues": {"sourcePath": "a.npy"}},
            "B": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 4, "valueStart": 250,
                                                                      "valueDelta": 3}},
            "raw": {"initialValuesDataType": "INT16", "initialValues": {"sourcePath": "raw.dat"}},
            "mixed": {"initialValues": [{"type": "UINT8", "value": 1}, {"type": "UINT8", "value": 2},
                                        {"type": "UINT16", "value": 515}]},
            "out": {"initialValuesDataType": "UINT8", "initialValues": [9, 9, 9, 9], "sizeInBytes": 8},
        },
        "dispatchables": {"add": {"type": "DML_OPERATOR_ELEMENT_WISE_ADD", "bindings": {"ATensor": "A"},
                                  "desc": {"ATensor": {**t, "Flags": "OWNED_BY_DML"}, "BTensor": t, "OutputTensor": t}}},
        "commands": [{"type": "dispatch", "dispatchable": "add",
                      "bindings": {"BTensor": "B", "OutputTensor": {"name": "out", "elementOffset": 4}}},
                     {"type": "print", "resource": "out"}, {"type": "print", "resource": "raw"},
                     {"type": "print", "resource": "mixed"}],
    }
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    result = dxdispatch.run(dmlops.jsonio.load_model(path), "onnxruntime")
    assert result.printed == ["Resource 'out': 9, 9, 9, 9, 251, 255, 3, 7",  # 1+250, 2+253, 3+0 (wrapped), 4+3
                              "Resource 'raw': 7, -7", "Resource 'mixed': 1, 2, 3, 2"]  # mixed: shown as bytes
    model["commands"][0]["bindings"]["OutputTensor"]["elementOffset"] = 5
    path.write_text(json.dumps(model))
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.commands\[0\]\.bindings\.OutputTensor: resource 'out' "
                                                     r"holds 3 bytes from offset 5; the tensor's TotalTensorSizeInBytes "
                                                     r"is 4\.$"):
        dxdispatch.run(dmlops.jsonio.load_model(path), "reference")
