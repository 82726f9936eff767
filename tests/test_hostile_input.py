"""Bad and big input, as a hostile user would try it (issue 20): each gets dmlops' own error, naming the field or the
JSON path and the rule, never a foreign exception, a traceback from the CLI, or a run that does not end."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import dmlops
from dmlops import cli
from dmlops.types import TensorDesc

T = TensorDesc("FLOAT32", [2])
T22 = TensorDesc("FLOAT32", [2, 2])


# ------------------------------------------------------------------------------ huge DML_SCALAR_UNION values
def _scalar_union_descs(value):
    """One descriptor per operator with a DML_SCALAR_UNION field, holding ``value`` there, with its field name."""
    return [
        ("FILL_VALUE_CONSTANT.Value", "ValueDataType",
         dmlops.FillValueConstant(output_tensor=T, value_data_type="FLOAT32", value=value)),
        ("FILL_VALUE_SEQUENCE.ValueStart", "ValueDataType",
         dmlops.FillValueSequence(output_tensor=T, value_data_type="FLOAT32", value_start=value, value_delta=1)),
        ("FILL_VALUE_SEQUENCE.ValueDelta", "ValueDataType",
         dmlops.FillValueSequence(output_tensor=T, value_data_type="FLOAT32", value_start=0, value_delta=value)),
        ("ELEMENT_WISE_CLIP1.Min", "MinMaxDataType",
         dmlops.ElementWiseClip1(input_tensor=T, output_tensor=T, min_max_data_type="FLOAT32", min=value, max=1)),
        ("ELEMENT_WISE_CLIP1.Max", "MinMaxDataType",
         dmlops.ElementWiseClip1(input_tensor=T, output_tensor=T, min_max_data_type="FLOAT32", min=0, max=value)),
        ("ELEMENT_WISE_CLIP_GRAD1.Min", "MinMaxDataType",
         dmlops.ElementWiseClipGrad1(input_tensor=T, input_gradient_tensor=T, output_gradient_tensor=T,
                                     min_max_data_type="FLOAT32", min=value, max=1)),
        ("DIAGONAL_MATRIX1.Value", "ValueDataType",
         dmlops.DiagonalMatrix1(output_tensor=T22, value_data_type="FLOAT32", value=value, diagonal_fill_begin=0,
                                diagonal_fill_end=1)),
        ("PADDING1.PaddingValue", "PaddingValueDataType",
         dmlops.Padding1(input_tensor=T, output_tensor=TensorDesc("FLOAT32", [4]), padding_mode="CONSTANT",
                         padding_value_data_type="FLOAT32", padding_value=value, start_padding=[1], end_padding=[1])),
    ]


@pytest.mark.parametrize("value,text", [(10**400, "an integer of 401 digits"), (-(10**400), "an integer of 401 digits"),
                                        (10**5000, "an integer of 5001 digits")],
                         ids=["10**400", "-10**400", "10**5000"])
def test_a_huge_integer_in_a_scalar_union_is_a_validation_problem_naming_the_field(value, text):
    """10**400 raised OverflowError from core.scalar_fits (and 10**5000 would have raised ValueError printing it)."""
    for field, type_field, desc in _scalar_union_descs(value):
        assert [str(p) for p in dmlops.problems(desc, "6.4")] == [
            f"{field}: {text} is not representable as {type_field} FLOAT32."]
        with pytest.raises(dmlops.ValidationError, match=rf"{field.replace('.', '[.]')}: {text} is not representable"):
            dmlops.compile(desc, "reference")


@pytest.mark.parametrize("data_type", ["FLOAT16", "FLOAT64", "INT8", "UINT32", "INT64", "UINT64"])
def test_a_huge_integer_fits_no_data_type(data_type):
    t = TensorDesc(data_type, [2])
    desc = dmlops.FillValueConstant(output_tensor=t, value_data_type=data_type, value=10**400)
    assert [str(p) for p in dmlops.problems(desc, "6.4")] == [
        f"FILL_VALUE_CONSTANT.Value: an integer of 401 digits is not representable as ValueDataType {data_type}."]


def test_float32_holds_what_rounds_to_a_finite_float32_and_nothing_beyond():
    """3.4028235e38 (how NumPy prints float32's largest value) rounds to it and fits; 1e39 and 2**128 would be
    infinities and do not; NaN and the infinities themselves fit."""
    def problems(value):
        desc = dmlops.FillValueConstant(output_tensor=T, value_data_type="FLOAT32", value=value)
        return [str(p) for p in dmlops.problems(desc, "6.4")]

    for fits in (3.4028235e38, -3.4028235e38, 2**128 - 2**103 - 1, float("inf"), float("-inf"), float("nan")):
        assert problems(fits) == [], fits
    assert problems(1e39) == ["FILL_VALUE_CONSTANT.Value: 1e+39 is not representable as ValueDataType FLOAT32."]
    assert problems(2**128 - 2**103) == ["FILL_VALUE_CONSTANT.Value: an integer of 39 digits is not representable as "
                                         "ValueDataType FLOAT32."]


def test_a_huge_scalar_in_a_json_file_is_listed_by_validate_with_exit_1(tmp_path):
    path = tmp_path / "fill.json"
    path.write_text('{"type": "DML_OPERATOR_FILL_VALUE_CONSTANT", "desc": {"OutputTensor": {"DataType": "FLOAT32", '
                    '"Sizes": [2]}, "ValueDataType": "FLOAT32", "Value": 1' + "0" * 400 + "}}")
    r = subprocess.run([sys.executable, "-m", "dmlops", "validate", str(path)], capture_output=True, text=True)
    assert "Traceback" not in r.stderr and r.returncode == 1, r.stderr
    assert ("FILL_VALUE_CONSTANT.Value: an integer of 401 digits is not representable as ValueDataType FLOAT32."
            in r.stdout)


def test_a_huge_integer_for_a_float_field_names_its_digits_without_printing_it():
    with pytest.raises(dmlops.DescriptorError, match=r"^ELEMENT_WISE_CLIP\.Min: an integer of 5001 digits is too "
                                                     r"large for a float\.$"):
        dmlops.ElementWiseClip(input_tensor=T, output_tensor=T, min=10**5000, max=1.0)


# ------------------------------------------------------------------------------ big valid descriptors on onnxruntime
def _initializer_bytes(model) -> list[int]:
    from onnx import numpy_helper

    return [numpy_helper.to_array(init).nbytes for init in model.graph.initializer]


@pytest.mark.parametrize("data_type", ["FLOAT32", "INT64", "UINT8"])
def test_fill_value_sequence_is_generated_in_the_model_not_stored_in_it(data_type):
    """FILL_VALUE_SEQUENCE was a constant folded on the host: [2**20] FLOAT32 made a 4 MiB model, [2**29] took 29 s
    and 6.2 GiB before protobuf's EncodeError. Now its model holds scalars whatever the size."""
    desc = dmlops.FillValueSequence(output_tensor=TensorDesc(data_type, [2**20]), value_data_type=data_type,
                                    value_start=3, value_delta=2)
    op = dmlops.compile(desc, "onnxruntime")
    assert max(_initializer_bytes(op.model)) <= 8
    out = op()["OutputTensor"]
    assert out[:3].tolist() == [3, 5, 7] and out[-1] == dmlops.run(desc, backend="reference")["OutputTensor"][-1]


def test_a_2_gib_fill_value_sequence_compiles_into_a_small_model():
    """The issue's case, compiled (not run: running it is 2 GiB of output): a model of a few hundred bytes."""
    desc = dmlops.FillValueSequence(output_tensor=TensorDesc("FLOAT32", [2**29]), value_data_type="FLOAT32",
                                    value_start=0, value_delta=1)
    assert dmlops.problems(desc, "6.4") == []
    assert dmlops.compile(desc, "onnxruntime").model.ByteSize() < 4096


def test_a_model_needing_gigabytes_of_constants_is_refused_before_they_are_allocated():
    """An INT8 [32768, 32768] input read through Strides [1, 32769] (1 GiB, valid) is no transpose: its read is a
    Gather whose int64 index table would be 8 GiB. The backend refuses it, giving the sizes, without allocating it."""
    import tracemalloc

    desc = dmlops.ElementWiseIdentity(input_tensor=TensorDesc("INT8", [2**15, 2**15], [1, 2**15 + 1]),
                                      output_tensor=TensorDesc("INT8", [2**15, 2**15]))
    assert dmlops.problems(desc, "6.4") == []
    tracemalloc.start()
    try:
        with pytest.raises(dmlops.DmlOpsError, match=(
                r"^ELEMENT_WISE_IDENTITY: onnxruntime: its ONNX model would hold 8589934592 bytes \(8\.0 GiB\) of "
                r"constants \(the int64 gather indices of a strided read of Sizes \[32768, 32768\]: 8589934592 bytes "
                r"\(8\.0 GiB\)\); the onnxruntime backend builds models with at most 1073741824 bytes \(1\.0 GiB\) of "
                r"constants \(protobuf cannot write a model of 2 GiB\)\.$")):
            dmlops.compile(desc, "onnxruntime")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20  # nothing near the 8 GiB table (or the 1 GiB tensor) was allocated


def test_every_constant_counts_toward_the_bound(monkeypatch):
    """An operator's own constant (DIAGONAL_MATRIX1 without InputTensor is one constant of the output's size) is
    refused once the model's constants would pass the bound, naming the operator, the constant and the sizes."""
    from dmlops.backends import onnx_graph

    monkeypatch.setattr(onnx_graph, "MAX_CONSTANT_BYTES", 1024)
    desc = dmlops.DiagonalMatrix1(output_tensor=TensorDesc("FLOAT32", [32, 32]), value_data_type="FLOAT32", value=1.0,
                                  diagonal_fill_begin=0, diagonal_fill_end=1)
    with pytest.raises(dmlops.DmlOpsError, match=r"^DIAGONAL_MATRIX1: onnxruntime: its ONNX model would hold 4096 "
                                                 r"bytes \(4\.0 KiB\) of constants \(a float32 constant of shape "
                                                 r"\[32, 32\]: 4096 bytes \(4\.0 KiB\)\); the onnxruntime backend "
                                                 r"builds models with at most 1024 bytes \(1\.0 KiB\) of constants"):
        dmlops.compile(desc, "onnxruntime")
    small = desc.replace(output_tensor=TensorDesc("FLOAT32", [8, 8]))
    assert dmlops.run(small, backend="onnxruntime")["OutputTensor"].trace() == 8


# ------------------------------------------------------------------------------ JSON round trips
def test_a_json_round_trip_keeps_a_total_tensor_size_of_0_and_so_the_problem():
    """TotalTensorSizeInBytes given as 0 was written as 0, which DxDispatch's JSON reads as "compute it": the round
    trip turned an invalid descriptor valid. It is written as "explicit 0" and read back as 0."""
    desc = dmlops.ActivationRelu(input_tensor=TensorDesc("FLOAT32", [2], total_tensor_size_in_bytes=0),
                                 output_tensor=T)
    problem = ["ACTIVATION_RELU.InputTensor: TotalTensorSizeInBytes 0 is smaller than the 8 bytes that Sizes [2] and "
               "Strides [1] need."]
    assert [str(p) for p in dmlops.problems(desc, "6.4")] == problem
    document = dmlops.to_json(desc)
    assert document["desc"]["InputTensor"]["TotalTensorSizeInBytes"] == "explicit 0"
    back = dmlops.from_json(json.loads(json.dumps(document)))
    assert back == desc and back.input_tensor.total_tensor_size_in_bytes == 0
    assert [str(p) for p in dmlops.problems(back, "6.4")] == problem
    graph = dmlops.graph.GraphDesc.single(desc)
    assert dmlops.jsonio.graph_from_json(dmlops.jsonio.graph_to_json(graph)) == graph


def test_total_tensor_size_0_in_a_file_still_means_compute_it_and_other_strings_are_refused():
    doc = {"type": "ACTIVATION_RELU", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2], "TotalTensorSizeInBytes": 0},
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}}
    assert dmlops.from_json(doc).input_tensor.total_tensor_size_in_bytes == 8
    doc["desc"]["InputTensor"]["TotalTensorSizeInBytes"] = "8"
    with pytest.raises(dmlops.DescriptorError, match=r"^\$\.desc\.InputTensor\.TotalTensorSizeInBytes: expected an "
                                                     r"integer \(0: compute it\) or 'explicit 0'; got '8'\.$"):
        dmlops.from_json(doc)


# ------------------------------------------------------------------------------ what validate reads
def test_validate_reads_at_most_64_mib_so_dev_zero_ends_with_one_line_and_exit_2():
    """``dmlops validate /dev/zero`` read without limit (until memory ran out)."""
    r = subprocess.run([sys.executable, "-m", "dmlops", "validate", "/dev/zero"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == ["dmlops: error: /dev/zero: the file is larger than 67108864 bytes (64 MiB), the "
                                     "most dmlops reads of a JSON document."]


def test_a_file_one_byte_over_the_limit_is_refused_and_one_at_the_limit_is_read(tmp_path, monkeypatch, capsys):
    from dmlops import jsonio

    doc = json.dumps({"type": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                                                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}})
    path = tmp_path / "relu.json"
    path.write_text(doc)
    monkeypatch.setattr(jsonio, "MAX_FILE_BYTES", len(doc))
    assert cli.main(["validate", str(path)]) == 0
    path.write_text(doc + " ")
    assert cli.main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"the file is larger than {len(doc)} bytes, the most dmlops reads "
                                                    "of a JSON document.")
    with pytest.raises(dmlops.DescriptorError, match=r"the file is larger than"):
        dmlops.load(path)


def test_run_options_without_run_are_a_usage_error(capsys):
    assert cli.main(["validate", "samples/descriptors/relu_grad.json", "--backend", "torch"]) == 2
    assert capsys.readouterr().err.strip() == ("dmlops: error: validate: --backend and --device choose where --run "
                                               "runs the model; add --run.")


def test_a_json_number_beyond_a_double_is_refused_not_read_as_an_infinity(tmp_path):
    """json.loads read 1e400 as inf, a value nobody wrote (rapidjson, DxDispatch's parser, refuses it)."""
    doc = ('{"type": "FILL_VALUE_CONSTANT", "desc": {"OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, '
           '"ValueDataType": "FLOAT32", "Value": -1e400}}')
    with pytest.raises(dmlops.DescriptorError, match=r'^\$: the JSON number -1e400 is too large for a double \(write '
                                                     r'"Infinity" for an infinity\)\.$'):
        dmlops.from_json(doc)
    assert dmlops.from_json(doc.replace("-1e400", '"-Infinity"')).value == float("-inf")
    path = tmp_path / "fill.json"
    path.write_text(doc)
    assert cli.main(["validate", str(path)]) == 2
