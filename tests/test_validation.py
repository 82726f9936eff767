"""Generic, descriptor-driven validation rules."""
import re

import pytest

import dmlops
from dmlops import TensorDesc as T
from dmlops import ValidationError

from . import factory


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


def relu(**kw):
    return dmlops.ActivationRelu(**{"input_tensor": T("FLOAT32", [4]), "output_tensor": T("FLOAT32", [4]), **kw})


def test_required_tensor_missing():
    assert messages(relu(output_tensor=None)) == ["ACTIVATION_RELU.OutputTensor: is required but missing (null)."]


def test_same_constraint_message_names_both_tensors():
    add = dmlops.ElementWiseAdd(a_tensor=T("FLOAT32", [2, 2]), b_tensor=T("FLOAT32", [2, 2]), output_tensor=T("FLOAT16", [2, 2]))
    assert messages(add) == ["ELEMENT_WISE_ADD: ATensor, BTensor and OutputTensor must have the same DataType; "
                             "got FLOAT32, FLOAT32 and FLOAT16."]


def test_validate_raises_with_every_problem_and_is_a_value_error():
    bad = relu(input_tensor=T("FLOAT64", [4]), output_tensor=None)
    with pytest.raises(ValueError) as info:
        dmlops.validate(bad, "6.4")
    assert isinstance(info.value, ValidationError) and len(info.value.problems) == 2
    assert "ACTIVATION_RELU.OutputTensor: is required but missing (null)." in str(info.value)
    assert dmlops.validate(relu(), "6.4") is None
    relu(input_tensor=T("FLOAT32", [1, 1, 1, 4]), output_tensor=T("FLOAT32", [1, 1, 1, 4])).validate("DML_FEATURE_LEVEL_1_0")


def test_fused_activation_must_be_fusable_have_null_tensors_and_exist_at_level():
    gemm = factory.build("GEMM", overrides={"a_tensor": T("FLOAT32", [1, 1, 2, 3]), "b_tensor": T("FLOAT32", [1, 1, 3, 4]),
                                            "c_tensor": None, "output_tensor": T("FLOAT32", [1, 1, 2, 4])})
    assert messages(gemm.replace(fused_activation=dmlops.ActivationRelu())) == []
    assert messages(gemm.replace(fused_activation=relu())) == [
        "GEMM.FusedActivation.InputTensor: must be null when ACTIVATION_RELU is used as a fused activation.",
        "GEMM.FusedActivation.OutputTensor: must be null when ACTIVATION_RELU is used as a fused activation."]
    found = messages(gemm.replace(fused_activation=dmlops.ActivationSoftmax()))
    assert found[0].startswith("GEMM.FusedActivation: ACTIVATION_SOFTMAX cannot be a fused activation (fusable: ")
    assert messages(gemm.replace(fused_activation=dmlops.ActivationGelu()), "5.0") == [
        "GEMM.FusedActivation: ACTIVATION_GELU was introduced in DML_FEATURE_LEVEL_5_1; the target is DML_FEATURE_LEVEL_5_0."]


def test_activation_list_entries_must_be_activations():
    gru = factory.build("GRU")
    found = messages(gru.replace(activation_descs=(dmlops.ActivationSigmoid(), relu())))
    assert "GRU.ActivationDescs[1].InputTensor: must be null when ACTIVATION_RELU is used as an activation in ActivationDescs." in found


def test_enum_member_introduced_later():
    from dmlops import schema as S

    data = S.enums_data()["enums"]["DML_PADDING_MODE"]["members"]
    later = [m for m in data if m["introduced"] != "DML_FEATURE_LEVEL_1_0"]
    assert later, "DML_PADDING_MODE has members introduced after 1.0"
    member = later[-1]
    pad = factory.build("PADDING1", overrides={"padding_mode": member["name"]})
    below = max(l for l in dmlops.FeatureLevel if l < dmlops.FeatureLevel.parse(member["introduced"]))
    assert (f"PADDING1.PaddingMode: {member['name']} was introduced in {member['introduced']}; "
            f"the target is {below.dml_name}.") in messages(pad, below)


def test_arrays_sharing_a_count_must_have_equal_length():
    pool = factory.build("AVERAGE_POOLING", overrides={"strides": (1, 1), "window_size": (2, 2, 2)})
    assert ("AVERAGE_POOLING.Strides: arrays counted by DimensionCount differ in length (Strides has 2, WindowSize has 3, "
            "StartPadding has 2, EndPadding has 2); they must be equal.") in messages(pool)


def test_scalar_union_must_fit_its_data_type():
    fill = factory.build("FILL_VALUE_CONSTANT", overrides={"value_data_type": "UINT8", "value": 300})
    assert "FILL_VALUE_CONSTANT.Value: 300 is not representable as ValueDataType UINT8." in messages(fill)
    assert not [m for m in messages(fill.replace(value=255)) if "representable" in m]


def test_level_spellings_and_bad_level():
    r4 = relu(input_tensor=T("FLOAT32", [1, 1, 1, 4]), output_tensor=T("FLOAT32", [1, 1, 1, 4]))
    assert messages(r4, 0x1000) == messages(r4, "1.0") == []
    with pytest.raises(dmlops.DescriptorError, match=re.escape("'1.5' is not a DirectML feature level")):
        dmlops.problems(relu(), "1.5")
    with pytest.raises(TypeError, match="expected an operator descriptor"):
        dmlops.problems({"type": "GRU"}, "6.4")


def test_op_rules_apply_to_nested_descs():
    conv = factory.build("CONVOLUTION", fused=dmlops.ActivationSoftplus(steepness=0.5))
    found = [m for m in messages(conv) if m.startswith("CONVOLUTION.FusedActivation")]
    assert found == ["CONVOLUTION.FusedActivation.Steepness: 0.5 is less than 1 (allowed: 1 or more)."]


@pytest.mark.parametrize("op", ["ELEMENT_WISE_ADD", "ELEMENT_WISE_ADD1", "ELEMENT_WISE_SUBTRACT",
                                "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE"])
def test_element_wise_binary_shape_relations(op):
    # The docs' only shape rule for these: A, B and Output have the same DataType, DimensionCount and Sizes
    # (broadcasting is expressed through zero strides, so a broadcast B still has the output's Sizes).
    ok = factory.build(op, overrides={"a_tensor": T("FLOAT32", [2, 3]), "b_tensor": T("FLOAT32", [2, 3], strides=[0, 1]),
                                      "output_tensor": T("FLOAT32", [2, 3])})
    assert messages(ok) == []
    bad = ok.replace(b_tensor=T("FLOAT32", [1, 3]))
    assert messages(bad) == [f"{op}: ATensor, BTensor and OutputTensor must have the same Sizes; got [2, 3], [1, 3] and [2, 3]."]
    bad = ok.replace(output_tensor=T("FLOAT32", [6]))
    assert messages(bad) == [
        f"{op}: ATensor, BTensor and OutputTensor must have the same DimensionCount; got 2, 2 and 1.",
        f"{op}: ATensor, BTensor and OutputTensor must have the same Sizes; got [2, 3], [2, 3] and [6]."]


def _mvn(op_cls):
    x = T("FLOAT32", [1, 2, 3, 4])
    if op_cls is dmlops.MeanVarianceNormalization:
        return op_cls(input_tensor=x, output_tensor=x, cross_channel=False, normalize_variance=True, epsilon=1e-5)
    return op_cls(input_tensor=x, output_tensor=x, axes=(2, 3), normalize_variance=True, epsilon=1e-5)


def _fusing_descs():
    from dmlops.ops import module

    for op in ("BATCH_NORMALIZATION", "BATCH_NORMALIZATION_TRAINING", "CONVOLUTION", "GEMM", "ELEMENT_WISE_ADD1"):
        yield module(op).SAMPLES[0].desc
    yield _mvn(dmlops.MeanVarianceNormalization)
    yield _mvn(dmlops.MeanVarianceNormalization1)


@pytest.mark.parametrize("desc", list(_fusing_descs()), ids=lambda d: d.OPERATOR_TYPE)
def test_clip_is_a_fused_activation_of_convolution_and_gemm_only(desc):
    """dml-fused-activations: ELEMENT_WISE_CLIP fuses "for Convolution and GEMM only" (DirectML refuses it on ADD1,
    its vectors' fused_clip case); every other operator with a FusedActivation refuses it with the same words."""
    from dataclasses import replace

    op = desc.OPERATOR_TYPE
    assert messages(desc) == []
    clipped = replace(desc, fused_activation=dmlops.ElementWiseClip(min=-1.0, max=1.0))
    if op in ("CONVOLUTION", "GEMM"):
        assert messages(clipped) == []
    else:
        assert messages(clipped) == [f"{op}.FusedActivation: ELEMENT_WISE_CLIP cannot be fused into {op}; it is a "
                                     "fused activation of CONVOLUTION and GEMM only."]
    assert messages(replace(desc, fused_activation=dmlops.ActivationRelu())) == []
