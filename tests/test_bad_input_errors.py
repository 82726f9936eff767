"""Bad input gives the library's error with a message, never a foreign exception (issue 13, part 4)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import dmlops
from dmlops.types import ScaleBias, TensorDesc

T = TensorDesc("FLOAT32", [2])


def test_a_float_field_too_large_for_any_float_is_a_descriptor_error():
    with pytest.raises(dmlops.DescriptorError, match=r"^ELEMENT_WISE_CLIP\.Min: an integer of 401 digits is too "
                                                     r"large for a float\.$"):
        dmlops.ElementWiseClip(input_tensor=T, output_tensor=T, min=10**400, max=1.0)
    with pytest.raises(dmlops.DescriptorError, match=r"^Scale: an integer of 401 digits is too large for a float\.$"):
        ScaleBias(10**400, 0)
    doc = {"type": "ELEMENT_WISE_CLIP", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                 "Min": -(10**400), "Max": 1}}
    with pytest.raises(dmlops.DescriptorError, match=r"Min: an integer of 401 digits is too large for a float\.$"):
        dmlops.from_json(doc)


def test_a_numpy_scalar_in_a_descriptor_writes_plain_json_and_reads_back():
    desc = dmlops.FillValueConstant(output_tensor=TensorDesc("FLOAT16", [2]), value_data_type="FLOAT16",
                                    value=np.float16(1.5))
    text = json.dumps(dmlops.to_json(desc))
    assert '"Value": 1.5' in text
    assert dmlops.from_json(json.loads(text)) == desc


def test_a_zero_stride_output_is_refused_by_the_validator_with_the_compile_message():
    desc = dmlops.ElementWiseIdentity(input_tensor=T, output_tensor=TensorDesc("FLOAT32", [2], [0]))
    message = "Strides [0] broadcast (zero stride); an output's elements cannot share memory."
    assert [str(p) for p in dmlops.problems(desc, "6.4")] == [f"ELEMENT_WISE_IDENTITY.OutputTensor: {message}"]
    with pytest.raises(dmlops.ValidationError, match=r"ELEMENT_WISE_IDENTITY\.OutputTensor: Strides \[0\] broadcast"):
        dmlops.compile(desc, "reference")
    one = dmlops.ElementWiseIdentity(input_tensor=TensorDesc("FLOAT32", [1]), output_tensor=TensorDesc("FLOAT32", [1], [0]))
    assert dmlops.problems(one, "6.4") == []  # one element shares memory with nothing


def _relu_doc(**extra) -> dict:
    t = {"DataType": "FLOAT32", "Sizes": [2]}
    return {"type": "ACTIVATION_RELU", "desc": {"InputTensor": t, "OutputTensor": t}, **extra}


def test_a_nested_operator_must_be_an_activation_at_any_depth():
    inner = dmlops.ElementWiseAdd1(a_tensor=T, b_tensor=T, output_tensor=T, fused_activation=dmlops.ActivationRelu())
    with pytest.raises(dmlops.DescriptorError, match=r"^ELEMENT_WISE_ADD1\.FusedActivation: ELEMENT_WISE_ADD1 holds "
                                                     r"operators itself \(FusedActivation\); a nested operator must "
                                                     r"be an activation such as dmlops\.ActivationRelu\(\)\.$"):
        dmlops.ElementWiseAdd1(a_tensor=T, b_tensor=T, output_tensor=T, fused_activation=inner)
    doc = {"Type": "ACTIVATION_RELU"}
    for _ in range(1000):  # 1,000 levels: refused at the second, no RecursionError
        doc = {"Type": "ELEMENT_WISE_ADD1", "Desc": {"FusedActivation": doc}}
    top = {"type": "ELEMENT_WISE_ADD1", "desc": {"ATensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                 "BTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                 "FusedActivation": doc}}
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.desc\.FusedActivation\.Desc\.FusedActivation: a nested "
                                                     r"operator must be an activation; ELEMENT_WISE_ADD1 holds "
                                                     r"operators itself"):
        dmlops.from_json(top)


def test_from_json_takes_json_text_and_refuses_unknown_top_level_keys():
    assert dmlops.from_json(json.dumps(_relu_doc())) == dmlops.from_json(_relu_doc())
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.Bogus: unexpected key next to 'type' and 'desc' \(allowed "
                                                     r"besides them: dmlCompileType, executionFlags, bindings\)\.$"):
        dmlops.from_json(_relu_doc(Bogus=1))
    with pytest.raises(dmlops.DescriptorError, match=r"^\$: malformed JSON at line 1, column 2"):
        dmlops.from_json("{")


@pytest.mark.parametrize("text,message", [
    ("[" * 10000 + "]" * 10000, "JSON nested too deeply to read (a descriptor nests a few levels)."),
    ('{"type": "ELEMENT_WISE_CLIP", "desc": {"Min": 1' + "0" * 5000 + "}}",
     "a JSON integer is too long to read (thousands of digits)."),
    (json.dumps(_relu_doc(Bogus=1)), "$.Bogus: unexpected key next to 'type' and 'desc' (allowed besides them: "
                                     "dmlCompileType, executionFlags, bindings)."),
])
def test_the_cli_answers_unreadable_documents_with_one_line_and_exit_2(tmp_path, capsys, text, message):
    from dmlops import cli

    path = tmp_path / "bad.json"
    path.write_text(text)
    assert cli.main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(message)


def test_every_optional_field_of_the_descriptor_files_is_optional_in_its_class():
    """A field the descriptor file calls optional must be omittable in Python and JSON alike (issue 13:
    BATCH_NORMALIZATION_GRAD's Epsilon was optional in the file, required by the class: a TypeError traceback)."""
    import dataclasses

    from dmlops import schema
    from dmlops.descs import CLASSES

    wrong = []
    for op, s in schema.all_schemas().items():
        defaults = {f.name: f for f in dataclasses.fields(CLASSES[op])}
        for f in s.user_fields:
            d = defaults[f.py_name]
            if (f.optional or f.has_default) and d.default is dataclasses.MISSING and d.default_factory is dataclasses.MISSING:
                wrong.append(f"{op}.{f.name}")
    assert wrong == []


def test_batch_normalization_grad_without_epsilon_names_the_field():
    t = {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 1]}
    names = ["InputTensor", "InputGradientTensor", "MeanTensor", "VarianceTensor", "ScaleTensor",
             "OutputGradientTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor"]
    doc = {"type": "BATCH_NORMALIZATION_GRAD", "desc": {n: t for n in names}}
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.desc\.Epsilon: required field of "
                                                     r"DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC is missing\.$"):
        dmlops.from_json(doc)
    doc["desc"]["Epsilon"] = 1e-5
    assert dmlops.from_json(doc).epsilon == pytest.approx(1e-5)


@pytest.mark.parametrize("fn", ["SUM", "MULTIPLY", "SUM_SQUARE", "L1"])
@pytest.mark.parametrize("dt", ["INT64", "UINT64", "INT32", "UINT32"])
@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
def test_integer_reductions_wrap_on_every_backend(fn, dt, backend):
    """DirectML's integer arithmetic wraps; ONNX Runtime's CPU ReduceSum/Prod/SumSquare/L1 saturated on int64.
    The oracle is Python's integers taken modulo 2**bits."""
    info = np.iinfo(dt.lower())
    a = np.random.default_rng(7).integers(info.min, info.max, (2, 3, 2), dtype=dt.lower(), endpoint=True)
    a[0, 0, 0] = info.max
    desc = dmlops.Reduce(input_tensor=TensorDesc(dt, [2, 3, 2]), output_tensor=TensorDesc(dt, [1, 3, 1]),
                         function=fn, axes=[0, 2])
    got = dmlops.run(desc, {"InputTensor": a}, backend=backend)["OutputTensor"].ravel().tolist()
    bits = info.bits
    want = []
    for j in range(3):
        values = [int(v) for v in a[:, j, :].ravel()]
        total = 1 if fn == "MULTIPLY" else 0
        for v in values:
            term = {"SUM": v, "MULTIPLY": v, "SUM_SQUARE": v * v, "L1": abs(v)}[fn]
            total = total * term if fn == "MULTIPLY" else total + term
        total %= 2**bits
        want.append(total - 2**bits if info.min < 0 and total >= 2 ** (bits - 1) else total)
    assert got == want


@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16", "FLOAT64", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32",
                                "INT64", "UINT64"])
@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
def test_a_strided_output_with_a_zero_tail_runs_for_every_data_type(dt, backend):
    """The ONNX write of a strided output buffer longer than its last element padded with Pad(18), which ONNX
    Runtime's CPU provider has no INT16/UINT16 kernel for (issue 13)."""
    n = np.dtype(dt.lower()).itemsize
    desc = dmlops.ElementWiseIdentity(input_tensor=TensorDesc(dt, [2, 3]),
                                      output_tensor=TensorDesc(dt, [2, 3], [1, 2], total_tensor_size_in_bytes=16 * n))
    x = np.arange(6, dtype=dt.lower()).reshape(2, 3)
    out = dmlops.run(desc, {"InputTensor": x}, backend=backend)["OutputTensor"]
    assert out.tolist() == x.tolist()


@pytest.mark.parametrize("bad", [None, "1", 1.0, -1, True, 2**32])
def test_graph_edge_indices_must_be_uints_at_construction(bad):
    from dmlops.graph import InputEdge, IntermediateEdge, OutputEdge

    for make, name in ((lambda v: InputEdge(v, 0, 0), "InputEdge.graph_input_index"),
                       (lambda v: IntermediateEdge(0, 0, 1, v), "IntermediateEdge.to_node_input_index"),
                       (lambda v: OutputEdge(0, v, 0), "OutputEdge.from_node_output_index")):
        with pytest.raises(dmlops.DescriptorError, match=rf"^{name}: expected a whole number from 0 to 4294967295; "
                                                         rf"got {re.escape(repr(bad))}\.$"):
            make(bad)
    assert InputEdge(np.int64(1), 0, 0).graph_input_index == 1


@pytest.mark.parametrize("dt", ["INT16", "INT32", "INT8"])
@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "torch"])
def test_relu_and_relu_grad_run_for_every_integer_type_they_declare(dt, backend):
    """ONNX Runtime's CPU provider has no Max(13) or Where(16) kernel for INT16 (issue 13): the lowerings go
    through int32 there. Oracle: NumPy."""
    t = TensorDesc(dt, [5])
    x = np.array([-3, -1, 0, 1, 7], dt.lower())
    dy = np.array([5, 6, 7, 8, 9], dt.lower())
    relu = dmlops.ActivationRelu(input_tensor=t, output_tensor=t)
    grad = dmlops.ActivationReluGrad(input_tensor=t, input_gradient_tensor=t, output_gradient_tensor=t)
    for desc in (relu, grad):
        if dmlops.problems(desc, "6.4"):
            pytest.skip(f"{desc.OPERATOR_TYPE} does not declare {dt}")
    assert dmlops.run(relu, input_tensor=x, backend=backend)["OutputTensor"].tolist() == np.maximum(x, 0).tolist()
    out = dmlops.run(grad, {"InputTensor": x, "InputGradientTensor": dy}, backend=backend)["OutputGradientTensor"]
    assert out.tolist() == np.where(x > 0, dy, 0).tolist()


def test_a_rank_0_tensor_round_trips_through_json():
    """Sizes [] (which validation then refuses: DirectML tensors have 1 to 8 dimensions) reads, writes and reads
    back the same descriptor."""
    t = {"DataType": "FLOAT32", "Sizes": []}
    desc = dmlops.from_json({"type": "ACTIVATION_RELU", "desc": {"InputTensor": t, "OutputTensor": t}})
    assert desc.input_tensor.sizes == ()
    assert dmlops.from_json(json.loads(json.dumps(dmlops.to_json(desc)))) == desc
