"""DxDispatch's JSON, as its own parser reads it (rapidjson with comments and trailing commas; DML_TENSOR_DESC in its
long form {"Type", "Desc"}; TotalTensorSizeInBytes 0 meaning "compute it"), in model files written for these tests
(tests/data/dxdispatch/) and loaded through every entry point: dmlops.load, dmlops.from_json of the text, and the CLI."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dmlops
from dmlops import cli
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
