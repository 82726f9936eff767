"""Hand-written rules of the existing element-wise and activation operators (dmlops/ops/*.py check hooks) that
DirectML's vectors showed the validator was missing.

ELEMENT_WISE_ADD1 accepted ELEMENT_WISE_CLIP as its FusedActivation; DirectML refuses it (vector
ELEMENT_WISE_ADD1-fused_clip, E_INVALIDARG at CreateOperator), as the fused-activation docs say: CLIP fuses "for
Convolution and GEMM only". Each case asserts the complete list of messages.
"""
import pytest

import dmlops
from dmlops.vectors import cases

LEVEL = "6.2"


def t(*sizes, dt="FLOAT32"):
    return dmlops.TensorDesc(dt, list(sizes))


def messages(desc, level=LEVEL):
    return [str(p) for p in dmlops.problems(desc, level)]


def add1(activation, dt="FLOAT32"):
    return dmlops.ElementWiseAdd1(a_tensor=t(2, 3, dt=dt), b_tensor=t(2, 3, dt=dt), output_tensor=t(2, 3, dt=dt),
                                  fused_activation=activation)


CLIP_IN_ADD1 = ("ELEMENT_WISE_ADD1.FusedActivation: ELEMENT_WISE_CLIP cannot be fused into ELEMENT_WISE_ADD1; it is "
                "a fused activation of CONVOLUTION and GEMM only.")


@pytest.mark.parametrize("dt", ["FLOAT32", "FLOAT16"])
def test_add1_refuses_clip_as_its_fused_activation(dt):
    assert messages(add1(dmlops.ElementWiseClip(min=-1.0, max=0.5), dt)) == [CLIP_IN_ADD1]


def test_the_refusal_is_raised_by_validate_with_the_message():
    with pytest.raises(dmlops.ValidationError) as e:
        dmlops.validate(add1(dmlops.ElementWiseClip(min=-1.0, max=0.5)), LEVEL)
    assert str(e.value) == f"1 problem(s):\n  - {CLIP_IN_ADD1}"
    assert [p.rule for p in e.value.problems] == ["fusable"]


@pytest.mark.parametrize("activation", [
    dmlops.ActivationRelu(), dmlops.ActivationSigmoid(), dmlops.ActivationLeakyRelu(alpha=0.5), None,
], ids=lambda a: a.OPERATOR_TYPE if a is not None else "none")
def test_add1_accepts_the_fusable_activations(activation):
    assert messages(add1(activation)) == []


def test_clip_stays_fusable_into_gemm():
    gemm = dmlops.Gemm(a_tensor=t(1, 1, 2, 3), b_tensor=t(1, 1, 3, 4), output_tensor=t(1, 1, 2, 4), trans_a="NONE",
                       trans_b="NONE", alpha=1.0, beta=0.0, fused_activation=dmlops.ElementWiseClip(min=0.0, max=6.0))
    assert messages(gemm) == []


def test_a_clip_with_tensors_is_refused_for_both_reasons():
    clip = dmlops.ElementWiseClip(input_tensor=t(2, 3), output_tensor=t(2, 3), min=0.0, max=1.0)
    assert messages(add1(clip)) == [
        CLIP_IN_ADD1,
        "ELEMENT_WISE_ADD1.FusedActivation.InputTensor: must be null when ELEMENT_WISE_CLIP is used as a fused "
        "activation.",
        "ELEMENT_WISE_ADD1.FusedActivation.OutputTensor: must be null when ELEMENT_WISE_CLIP is used as a fused "
        "activation.",
    ]


@pytest.mark.parametrize("case", [c for c in cases() if c.op == "ELEMENT_WISE_ADD1"], ids=lambda c: c.name)
def test_the_vectors_agree(case):
    # DirectML refused exactly the fused-CLIP descriptors and ran the *fixed* twins (CLIP replaced by SIGMOID).
    found = messages(case.desc())
    if case.rejected:
        assert found == [CLIP_IN_ADD1]
    else:
        assert found == []


@pytest.mark.parametrize("level,exponent,want", [
    ("2.1", "FLOAT16", ["ELEMENT_WISE_POW.ExponentTensor: DataType FLOAT16 differs from InputTensor's FLOAT32; until "
                        "DML_FEATURE_LEVEL_3_0 ExponentTensor must match the type of InputTensor."]),
    ("2.1", "FLOAT32", []),
    ("3.0", "FLOAT16", []),  # mixed types from 3.0 ("Until DML_FEATURE_LEVEL_3_0, ...")
])
def test_pow_exponent_type_matches_the_input_below_3_0(level, exponent, want):
    pow_ = dmlops.ElementWisePow(input_tensor=t(1, 1, 2, 3), exponent_tensor=t(1, 1, 2, 3, dt=exponent),
                                 output_tensor=t(1, 1, 2, 3))
    assert messages(pow_, level) == want
