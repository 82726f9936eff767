"""DxDispatch-style JSON: every operator round-trips; bad documents name the JSON path."""
import json
import re

import pytest

import dmlops
from dmlops import DescriptorError
from dmlops import jsonio
from dmlops import schema as S
from dmlops.types import TensorDesc

from . import factory

OPS = list(S.all_schemas())


@pytest.mark.parametrize("op", OPS)
def test_every_operator_round_trips(op):
    for tier in S.get(op).support:
        desc = factory.build(op, tier)
        doc = desc.to_json()
        assert doc["type"] == "DML_OPERATOR_" + op
        again = dmlops.from_json(json.loads(json.dumps(doc)))
        assert again == desc and type(again) is type(desc)


def test_round_trip_keeps_strides_flags_sizes_and_fused_activation():
    t = dmlops.TensorDesc("FLOAT16", [1, 2, 3, 4], strides=[24, 1, 8, 2], flags="OWNED_BY_DML",
                          total_tensor_size_in_bytes=64, guaranteed_base_offset_alignment=16)
    desc = factory.build("CONVOLUTION", overrides={"input_tensor": t},
                         fused=dmlops.ActivationLeakyRelu(alpha=0.0))
    doc = desc.to_json()
    assert doc["desc"]["InputTensor"] == {"DataType": "FLOAT16", "Sizes": [1, 2, 3, 4], "Strides": [24, 1, 8, 2],
                                          "Flags": ["OWNED_BY_DML"], "TotalTensorSizeInBytes": 64,
                                          "GuaranteedBaseOffsetAlignment": 16}
    assert doc["desc"]["FusedActivation"] == {"Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Desc": {"Alpha": 0.0}}
    assert doc["desc"]["DimensionCount"] == 2
    back = dmlops.from_json(doc)
    assert back == desc and back.fused_activation.alpha == 0.0  # an explicit 0.0 stays 0.0


def test_short_and_full_enum_names_and_dxdispatch_inline_nested_descs():
    short = {"type": "GRU", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 8, 4]},
        "WeightTensor": {"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "Sizes": [1, 2, 15, 4]},
        "RecurrenceTensor": {"DataType": "FLOAT32", "Sizes": [1, 2, 15, 5]},
        "ActivationDescCount": 4,
        "ActivationDescs": [{"Type": "ACTIVATION_ELU", "Alpha": 0.5}, {"type": "DML_OPERATOR_ACTIVATION_TANH"},
                            {"Type": "ACTIVATION_SIGMOID", "Desc": {}}, {"Type": "ACTIVATION_TANH"}],
        "Direction": "DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL", "LinearBeforeReset": 0}}
    desc = dmlops.from_json(short)
    assert desc.direction == dmlops.RecurrentNetworkDirection.BIDIRECTIONAL
    assert desc.activation_descs[0] == dmlops.ActivationElu(alpha=0.5)
    assert desc.linear_before_reset is False
    assert desc.input_tensor.data_type == dmlops.DataType.FLOAT32


def test_whole_dxdispatch_model_with_one_dispatchable():
    model = {"resources": {}, "commands": [], "dispatchables": {"relu": {"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}}}}
    assert isinstance(dmlops.from_json(model), dmlops.ActivationRelu)
    model["dispatchables"]["again"] = model["dispatchables"]["relu"]
    with pytest.raises(DescriptorError, match=re.escape(
            "$.dispatchables: expected exactly one DML operator dispatchable; found 2 (relu, again).")):
        dmlops.from_json(model)


RELU = {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}


@pytest.mark.parametrize("doc, message", [
    ({"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": dict(RELU, Alpha=1)},
     "$.desc.Alpha: unknown field for ACTIVATION_RELU (fields: InputTensor, OutputTensor)."),
    ({"type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "desc": dict(RELU, Alpha="big")},
     "$.desc.Alpha: expected a number; got a string."),
    ({"type": "DML_OPERATOR_REDUCE", "desc": {"InputTensor": RELU["InputTensor"], "OutputTensor": RELU["OutputTensor"],
                                             "Function": "MEDIAN", "Axes": [0]}},
     "$.desc.Function: 'MEDIAN' is not a DML_REDUCE_FUNCTION value (allowed: ARGMAX, ARGMIN, AVERAGE, L1, L2, "
     "LOG_SUM, LOG_SUM_EXP, MAX, MIN, MULTIPLY, SUM, SUM_SQUARE)."),
    ({"type": "DML_OPERATOR_REDUCE", "desc": {"InputTensor": RELU["InputTensor"], "OutputTensor": RELU["OutputTensor"],
                                             "Function": "SUM", "AxisCount": 2, "Axes": [0]}},
     "$.desc.AxisCount: 2 does not match the 1 entries of Axes."),
    ({"type": "DML_OPERATOR_REDUCE", "desc": {"InputTensor": RELU["InputTensor"], "OutputTensor": RELU["OutputTensor"],
                                             "Function": "SUM"}},
     "$.desc.Axes: required field of DML_REDUCE_OPERATOR_DESC is missing."),
    ({"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4, -1]},
                                                      "OutputTensor": RELU["OutputTensor"]}},
     "$.desc.InputTensor.Sizes[1]: Sizes must be an unsigned integer; got -1."),
    ({"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": 4},
                                                      "OutputTensor": RELU["OutputTensor"]}},
     "$.desc.InputTensor.Sizes: expected an array; got a number."),
    ({"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"Sizes": [4]}, "OutputTensor": RELU["OutputTensor"]}},
     "$.desc.InputTensor.DataType: required field of DML_BUFFER_TENSOR_DESC is missing."),
    ({"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": dict(RELU["InputTensor"], Shape=[4]),
                                                      "OutputTensor": RELU["OutputTensor"]}},
     "$.desc.InputTensor.Shape: unknown key (allowed: Type, DataType, Flags, DimensionCount, Sizes, Strides, "
     "TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment)."),
    ({"type": "DML_OPERATOR_GEMM", "desc": {"ATensor": RELU["InputTensor"], "BTensor": RELU["InputTensor"],
                                           "OutputTensor": RELU["OutputTensor"], "TransA": "NONE", "TransB": "NONE",
                                           "Alpha": 1, "Beta": 0, "FusedActivation": {"Type": "ACTIVATION_RELU", "Alpha": 2}}},
     "$.desc.FusedActivation.Alpha: unknown field for ACTIVATION_RELU (fields: InputTensor, OutputTensor)."),
    ({"type": "DML_OPERATOR_GRUU", "desc": {}}, "$.type: unknown operator type 'DML_OPERATOR_GRUU'. Did you mean: GRU?"),
    ({"desc": {}}, "$: missing 'type' (the operator type, e.g. \"DML_OPERATOR_GRU\")."),
    ({"type": "GRU"}, "$: missing 'desc' (the operator's fields)."),
    ([1, 2], "$: expected an object with 'type' and 'desc'; got an array."),
])
def test_bad_documents_name_the_json_path(doc, message):
    with pytest.raises(DescriptorError) as info:
        dmlops.from_json(doc)
    assert str(info.value) == message


def test_malformed_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "GRU",\n "desc": {,}}')
    with pytest.raises(DescriptorError, match=re.escape(f"{bad}: malformed JSON at line 2, column 11: Expecting property name")):
        jsonio.load(bad)
    with pytest.raises(DescriptorError, match=re.escape(f"{tmp_path / 'none.json'}: cannot read the file (No such file or directory).")):
        jsonio.load(tmp_path / "none.json")


def test_construction_errors_name_the_dml_field():
    with pytest.raises(DescriptorError, match=re.escape("GRU.Direction: 'SIDEWAYS' is not a DML_RECURRENT_NETWORK_DIRECTION value")):
        factory.build("GRU", overrides={"direction": "SIDEWAYS"})
    with pytest.raises(DescriptorError, match=re.escape("GRU.InputTensor: expected a TensorDesc or None; got list.")):
        factory.build("GRU", overrides={"input_tensor": [1, 2]})
    with pytest.raises(DescriptorError, match=re.escape("GEMM.Alpha: expected a number; got '1'.")):
        factory.build("GEMM", overrides={"alpha": "1"})
    with pytest.raises(DescriptorError, match=re.escape("REDUCE.Axes[1]: -1 is outside the UINT range [0, 4294967295].")):
        factory.build("REDUCE", overrides={"axes": [0, -1]})


def test_numpy_scalars_are_accepted_and_normalized():
    import numpy as np

    t = dmlops.TensorDesc(np.dtype("float32").name.upper(), [np.int64(2), np.uint32(3)])
    elu = dmlops.ActivationElu(input_tensor=t, output_tensor=t, alpha=np.float32(0.5))
    assert t.sizes == (2, 3) and type(t.sizes[0]) is int
    assert elu.alpha == 0.5 and type(elu.alpha) is float
    assert dmlops.from_json(json.loads(json.dumps(elu.to_json()))) == elu
    with pytest.raises(DescriptorError, match=re.escape("ACTIVATION_ELU.Alpha: expected a number; got True.")):
        dmlops.ActivationElu(alpha=True)


IDENTITY = {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}


@pytest.mark.parametrize("desc, message", [
    (dict(IDENTITY, InputTensor={"DataType": "FLOAT32", "Sizes": [4], "DimensionCount": 2}),
     "$.desc.InputTensor.DimensionCount: 2 does not match the 1 Sizes."),
    (dict(IDENTITY, InputTensor={"Type": "DML_TENSOR_TYPE_INVALID", "DataType": "FLOAT32", "Sizes": [4]}),
     "$.desc.InputTensor.Type: only DML_TENSOR_TYPE_BUFFER tensors exist; got 'DML_TENSOR_TYPE_INVALID'."),
    (dict(IDENTITY, ScaleBias={"Scale": 2, "Offset": 1}),
     "$.desc.ScaleBias.Offset: unknown key (allowed: Scale, Bias)."),
    (dict(IDENTITY, ScaleBias={"Scale": "2"}),
     "$.desc.ScaleBias.Scale: expected a number; got a string."),
])
def test_bad_tensor_and_struct_members_name_the_json_path(desc, message):
    with pytest.raises(DescriptorError) as info:
        dmlops.from_json({"type": "ELEMENT_WISE_IDENTITY", "desc": desc})
    assert str(info.value) == message


def test_bad_size_2d_and_nested_extra_key():
    doc = factory.build("ROI_POOLING").to_json()
    doc["desc"]["PooledSize"] = {"Width": 2}
    with pytest.raises(DescriptorError, match=re.escape("$.desc.PooledSize.Height: required field of DML_SIZE_2D is missing.")):
        dmlops.from_json(doc)
    gemm = factory.build("GEMM", fused=dmlops.ActivationRelu()).to_json()
    gemm["desc"]["FusedActivation"]["Alpha"] = 1
    with pytest.raises(DescriptorError, match=re.escape("$.desc.FusedActivation.Alpha: unexpected key next to 'Type' and 'Desc'.")):
        dmlops.from_json(gemm)


def test_a_missing_tensor_reads_back_as_none_and_validation_reports_it():
    """What to_json writes of any descriptor reads back (issue 13: one missing a required tensor did not)."""
    desc = dmlops.ActivationRelu(input_tensor=TensorDesc("FLOAT32", [2]))
    back = dmlops.from_json(dmlops.to_json(desc))
    assert back == desc and back.output_tensor is None
    assert [str(p) for p in back.problems("6.4")] == ["ACTIVATION_RELU.OutputTensor: is required but missing (null)."]
