"""Rules of the element-wise, logical, bitwise and remaining activation operators that had no op module:
the hand-written check() hooks of ACTIVATION_HARDMAX, ACTIVATION_HARDMAX1, ELEMENT_WISE_CLIP1,
ELEMENT_WISE_CLIP_GRAD1 and VALUE_SCALE_2D, and, for the operators whose documented constraints the
descriptor files already express (same DataType / DimensionCount / Sizes, support tiers), proof that the
generic validator refuses a mismatch with the exact message.

Each failing case asserts the complete list of messages, which also proves that the generic validator
and the hook do not report the same thing twice.
"""

import pytest

import dmlops
from tests.rules_common import assert_missing_tensors_never_raise, assert_wrong_ranks_never_raise, replace_tensor
from dmlops.descs import CLASSES
from dmlops.ops import MODULES, module
from dmlops.vectors import cases


def t(*sizes, dt="FLOAT32"):
    return dmlops.TensorDesc(dt, list(sizes))


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


# ---------------------------------------------------------------- ACTIVATION_HARDMAX

def hardmax(*sizes, dt="FLOAT32"):
    return dmlops.ActivationHardmax(input_tensor=t(*sizes, dt=dt), output_tensor=t(*sizes, dt=dt))


@pytest.mark.parametrize("sizes", [(1, 1, 4, 5), (4, 5), (5,), (1, 1, 1, 1), (1, 1, 1, 1, 1, 1, 3, 7)])
def test_hardmax_valid(sizes):
    assert messages(hardmax(*sizes)) == []
    assert messages(hardmax(*sizes, dt="FLOAT16")) == []


def test_hardmax_effective_rank():
    assert messages(hardmax(2, 3, 4, 5)) == [
        "ACTIVATION_HARDMAX.InputTensor: Sizes [2, 3, 4, 5] have an effective rank of 4 "
        "(allowed: at most 2; leading dimensions of size 1 do not count).",
    ]
    # A size-1 dimension after the first larger one counts.
    assert messages(hardmax(1, 2, 1, 4)) == [
        "ACTIVATION_HARDMAX.InputTensor: Sizes [1, 2, 1, 4] have an effective rank of 3 "
        "(allowed: at most 2; leading dimensions of size 1 do not count).",
    ]
    # At DML_FEATURE_LEVEL_1_0 (4 dimensions only) the rule holds as well.
    assert messages(hardmax(1, 2, 3, 4), "1.0") == [
        "ACTIVATION_HARDMAX.InputTensor: Sizes [1, 2, 3, 4] have an effective rank of 3 "
        "(allowed: at most 2; leading dimensions of size 1 do not count).",
    ]


# ---------------------------------------------------------------- ACTIVATION_HARDMAX1

def hardmax1(sizes, axes, dt="FLOAT32"):
    return dmlops.ActivationHardmax1(input_tensor=t(*sizes, dt=dt), output_tensor=t(*sizes, dt=dt), axes=axes)


@pytest.mark.parametrize("sizes, axes", [
    ((2, 3, 4, 5), [2]), ((2, 3, 4, 5), [1, 3]), ((2, 3, 4, 5), [3, 1]), ((2, 2, 2), [0, 2]),
    ((7,), [0]), ((2, 3), [0, 1]),
    ((2, 3), []),  # not forbidden by the docs; DirectML accepts AxisCount 0 for SOFTMAX1 / LOG_SOFTMAX1
])
def test_hardmax1_valid(sizes, axes):
    assert messages(hardmax1(sizes, axes)) == []


def test_hardmax1_axis_out_of_range():
    assert messages(hardmax1((2, 3, 4, 5), [4])) == [
        "ACTIVATION_HARDMAX1.Axes: axis 4 is out of range for a 4-dimensional InputTensor (allowed: 0 to 3).",
    ]


def test_hardmax1_axis_repeated():
    assert messages(hardmax1((2, 3, 4, 5), [1, 2, 1])) == [
        "ACTIVATION_HARDMAX1.Axes: axis 1 appears more than once; each axis may be listed once.",
    ]


def test_hardmax1_directml_gap_case():
    # DirectML refused this descriptor (vector gap_factory_tier_5_1_dt_0_rank_min).
    assert messages(hardmax1((1,), [1, 1]), "6.2") == [
        "ACTIVATION_HARDMAX1.Axes: axis 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
        "ACTIVATION_HARDMAX1.Axes: axis 1 appears more than once; each axis may be listed once.",
    ]


# ---------------------------------------------------------------- ELEMENT_WISE_CLIP1 / CLIP_GRAD1

def clip1(dt="FLOAT32", min_max="FLOAT32", lo=-1.0, hi=1.0, **changes):
    fields = dict(input_tensor=t(3, 4, 5, dt=dt), output_tensor=t(3, 4, 5, dt=dt), min_max_data_type=min_max,
                  min=lo, max=hi)
    fields.update(changes)
    return dmlops.ElementWiseClip1(**fields)


def clip_grad1(dt="FLOAT32", min_max="FLOAT32", lo=-1.0, hi=1.0, **changes):
    fields = dict(input_tensor=t(3, 4, 5, dt=dt), input_gradient_tensor=t(3, 4, 5, dt=dt),
                  output_gradient_tensor=t(3, 4, 5, dt=dt), min_max_data_type=min_max, min=lo, max=hi)
    fields.update(changes)
    return dmlops.ElementWiseClipGrad1(**fields)


@pytest.mark.parametrize("make", [clip1, clip_grad1])
@pytest.mark.parametrize("dt, lo, hi", [
    ("FLOAT32", -1.0, 1.5), ("FLOAT16", -0.5, 2.0), ("INT32", -5, 7), ("UINT8", 3, 200), ("INT64", -2**63, 2**63 - 1),
    ("UINT64", 0, 2**64 - 1), ("INT8", -128, 127),
    ("FLOAT32", 1.0, -1.0),  # Min > Max: DirectML accepts it (CLIP1 vector float32_min_1.0_max_-1.0)
    ("FLOAT32", float("nan"), float("inf")),
])
def test_clip1_valid(make, dt, lo, hi):
    assert messages(make(dt, dt, lo, hi)) == []


def test_clip1_min_max_data_type():
    assert messages(clip1("FLOAT16", "FLOAT32")) == [
        "ELEMENT_WISE_CLIP1.MinMaxDataType: FLOAT32 does not match OutputTensor's DataType FLOAT16; "
        "MinMaxDataType must match it.",
    ]
    assert messages(clip1("INT32", "UINT32", 0, 7)) == [
        "ELEMENT_WISE_CLIP1.MinMaxDataType: UINT32 does not match OutputTensor's DataType INT32; "
        "MinMaxDataType must match it.",
    ]


def test_clip_grad1_min_max_data_type():
    # DirectML refused exactly this (vector gap_factory_tier_5_0_dt_1_rank_default).
    desc = clip_grad1("FLOAT16", "FLOAT32", 0, 0, input_tensor=t(1, 1, 1, 1, dt="FLOAT16"),
                      input_gradient_tensor=t(1, 1, 1, 1, dt="FLOAT16"),
                      output_gradient_tensor=t(1, 1, 1, 1, dt="FLOAT16"))
    assert messages(desc, "6.2") == [
        "ELEMENT_WISE_CLIP_GRAD1.MinMaxDataType: FLOAT32 does not match OutputGradientTensor's DataType FLOAT16; "
        "MinMaxDataType must match it.",
    ]


def test_clip1_scalars_representable_in_min_max_data_type():
    # The generic DML_SCALAR_UNION rule: Min and Max must be values of MinMaxDataType.
    assert messages(clip1("UINT8", "UINT8", -1, 256)) == [
        "ELEMENT_WISE_CLIP1.Min: -1 is not representable as MinMaxDataType UINT8.",
        "ELEMENT_WISE_CLIP1.Max: 256 is not representable as MinMaxDataType UINT8.",
    ]
    assert messages(clip_grad1("INT32", "INT32", 1.5, 7)) == [
        "ELEMENT_WISE_CLIP_GRAD1.Min: 1.5 is not representable as MinMaxDataType INT32.",
    ]
    assert messages(clip1("FLOAT16", "FLOAT16", -1.0, 70000.0)) == [
        "ELEMENT_WISE_CLIP1.Max: 70000.0 is not representable as MinMaxDataType FLOAT16.",
    ]
    # Both rules at once: INT8 bounds on FLOAT32 tensors, 300 outside INT8.
    assert messages(clip1("FLOAT32", "INT8", 0, 300)) == [
        "ELEMENT_WISE_CLIP1.Max: 300 is not representable as MinMaxDataType INT8.",
        "ELEMENT_WISE_CLIP1.MinMaxDataType: INT8 does not match OutputTensor's DataType FLOAT32; "
        "MinMaxDataType must match it.",
    ]


@pytest.mark.parametrize("make", [clip1, clip_grad1])
def test_clip1_unknown_min_max_data_type_reported_once(make):
    op = make().OPERATOR_TYPE
    assert messages(make(min_max="UNKNOWN")) == [
        f"{op}.MinMaxDataType: DML_TENSOR_DATA_TYPE_UNKNOWN is not a valid data type here.",
    ]


def test_clip_grad1_tensors_disagree():
    # The generic same-DataType rule names the group; the hook compares MinMaxDataType with the output only.
    assert messages(clip_grad1(input_tensor=t(3, 4, 5, dt="FLOAT16"))) == [
        "ELEMENT_WISE_CLIP_GRAD1: InputGradientTensor, InputTensor and OutputGradientTensor must have the same "
        "DataType; got FLOAT32, FLOAT16 and FLOAT32.",
    ]


# ---------------------------------------------------------------- VALUE_SCALE_2D

def value_scale(sizes=(2, 3, 4, 5), bias=(-1.0, 0.0, 1.0), dt="FLOAT32", scale=0.5):
    return dmlops.ValueScale2d(input_tensor=t(*sizes, dt=dt), output_tensor=t(*sizes, dt=dt), scale=scale, bias=bias)


@pytest.mark.parametrize("sizes, bias", [((2, 3, 4, 5), (-1.0, 0.0, 1.0)), ((1, 1, 1, 1), (1.0,)),
                                         ((4, 1, 2, 2), (0.25,))])
def test_value_scale_2d_valid(sizes, bias):
    assert messages(value_scale(sizes, bias)) == []
    assert messages(value_scale(sizes, bias, dt="FLOAT16"), "1.0") == []


def test_value_scale_2d_channel_count_one_or_three():
    assert messages(value_scale((1, 2, 3, 3), (1.0, 2.0))) == [
        "VALUE_SCALE_2D.Bias: 2 elements (ChannelCount 2); ChannelCount must be 1 or 3.",
    ]
    assert messages(value_scale((1, 4, 3, 3), (1.0, 2.0, 3.0, 4.0))) == [
        "VALUE_SCALE_2D.Bias: 4 elements (ChannelCount 4); ChannelCount must be 1 or 3.",
    ]


def test_value_scale_2d_channel_count_matches_input():
    assert messages(value_scale((2, 1, 4, 5), (-1.0, 0.0, 1.0))) == [
        "VALUE_SCALE_2D.Bias: 3 elements (ChannelCount 3), but InputTensor's Channel dimension is 1 "
        "(Sizes [2, 1, 4, 5]); ChannelCount must match it.",
    ]
    assert messages(value_scale((2, 3, 4, 5), (1.0,))) == [
        "VALUE_SCALE_2D.Bias: 1 elements (ChannelCount 1), but InputTensor's Channel dimension is 3 "
        "(Sizes [2, 3, 4, 5]); ChannelCount must match it.",
    ]


def test_value_scale_2d_directml_gap_case():
    # DirectML refused this descriptor (vector gap_factory_tier_1_0_dt_0_rank_default); it breaks both rules.
    assert messages(value_scale((1, 1, 1, 1), (1.0, 1.0), scale=1.0), "6.2") == [
        "VALUE_SCALE_2D.Bias: 2 elements (ChannelCount 2); ChannelCount must be 1 or 3.",
        "VALUE_SCALE_2D.Bias: 2 elements (ChannelCount 2), but InputTensor's Channel dimension is 1 "
        "(Sizes [1, 1, 1, 1]); ChannelCount must match it.",
    ]
    assert messages(value_scale((1, 1, 1, 1), ()), "6.2") == [
        "VALUE_SCALE_2D.Bias: 0 elements (ChannelCount 0); ChannelCount must be 1 or 3.",
        "VALUE_SCALE_2D.Bias: 0 elements (ChannelCount 0), but InputTensor's Channel dimension is 1 "
        "(Sizes [1, 1, 1, 1]); ChannelCount must match it.",
    ]


def test_value_scale_2d_other_ranks_left_to_the_tiers():
    assert messages(value_scale((3, 4, 5), (1.0, 2.0, 3.0))) == [
        "VALUE_SCALE_2D.InputTensor: 3 dimensions not supported at DML_FEATURE_LEVEL_6_4 (supported: 4); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows 3.",
        "VALUE_SCALE_2D.OutputTensor: 3 dimensions not supported at DML_FEATURE_LEVEL_6_4 (supported: 4); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows 3.",
    ]


# ---------------------------------------------------------------- DirectML's refusals, by the vectors

@pytest.mark.parametrize("case", [c for c in cases() if c.rejected and not c.float64 and c.op in (
    "ACTIVATION_HARDMAX1", "ELEMENT_WISE_CLIP_GRAD1", "VALUE_SCALE_2D")], ids=lambda c: c.id)
def test_directml_refusals_are_refused(case):
    found = dmlops.problems(case.desc(), "6.2")
    assert found and all(p.operator == case.op for p in found)


# ---------------------------------------------------------------- operators the generic rules cover

# Operator -> (tensor fields, DataType of each, extra attributes). No hand-written check: the docs state only
# same-DataType / DimensionCount / Sizes constraints and the support tiers, which the descriptor files hold.
UNARY_FLOAT = ["ELEMENT_WISE_ACOS", "ELEMENT_WISE_ASIN", "ELEMENT_WISE_ATAN", "ELEMENT_WISE_COS", "ELEMENT_WISE_SIN",
               "ELEMENT_WISE_TAN", "ELEMENT_WISE_SINH", "ELEMENT_WISE_COSH", "ELEMENT_WISE_TANH", "ELEMENT_WISE_ASINH",
               "ELEMENT_WISE_ACOSH", "ELEMENT_WISE_ATANH", "ELEMENT_WISE_ERF"]
UNARY = {op: ("FLOAT32", "FLOAT16", {}) for op in UNARY_FLOAT}
UNARY.update({
    "ELEMENT_WISE_SIGN": ("INT32", "INT8", {}),
    "ELEMENT_WISE_NEGATE": ("INT64", "INT32", {}),
    "ELEMENT_WISE_ROUND": ("FLOAT32", "FLOAT16", {"rounding_mode": "HALVES_TO_NEAREST_EVEN"}),
    "ELEMENT_WISE_BIT_NOT": ("UINT32", "UINT16", {}),
    "ELEMENT_WISE_LOGICAL_NOT": ("UINT8", "UINT32", {}),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": ("FLOAT32", "FLOAT16", {"alpha": 0.5, "beta": 2.0}),
})
BINARY = {
    "ELEMENT_WISE_LOGICAL_AND": ("UINT8", "UINT32"), "ELEMENT_WISE_LOGICAL_OR": ("UINT8", "UINT32"),
    "ELEMENT_WISE_LOGICAL_XOR": ("UINT32", "UINT8"), "ELEMENT_WISE_MEAN": ("FLOAT32", "INT32"),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": ("UINT32", "UINT8"), "ELEMENT_WISE_BIT_SHIFT_RIGHT": ("UINT16", "UINT64"),
    "ELEMENT_WISE_BIT_AND": ("UINT32", "INT32"), "ELEMENT_WISE_BIT_OR": ("UINT8", "FLOAT16"),
    "ELEMENT_WISE_BIT_XOR": ("INT64", "UINT64"), "ELEMENT_WISE_MODULUS_TRUNCATE": ("INT32", "INT16"),
    "ELEMENT_WISE_MODULUS_FLOOR": ("FLOAT32", "UINT8"), "ELEMENT_WISE_ATAN_YX": ("FLOAT32", "FLOAT16"),
    "ELEMENT_WISE_DIFFERENCE_SQUARE": ("FLOAT32", "UINT32"),
}
COMPARE = ["ELEMENT_WISE_LOGICAL_EQUALS", "ELEMENT_WISE_LOGICAL_GREATER_THAN", "ELEMENT_WISE_LOGICAL_LESS_THAN",
           "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL"]
# Input -> output of another DataType (UINT8 flags / counts): only DimensionCount and Sizes are shared.
PREDICATE = {
    "ELEMENT_WISE_IS_NAN": ("FLOAT32", "UINT8", {}),
    "ELEMENT_WISE_IS_INFINITY": ("FLOAT16", "UINT8", {"infinity_mode": "EITHER"}),
    "ELEMENT_WISE_BIT_COUNT": ("INT16", "UINT8", {}),
}
NO_CHECK = sorted([*UNARY, *BINARY, *COMPARE, *PREDICATE, "ELEMENT_WISE_IF"])


def test_no_check_list_is_the_brief():
    assert len(NO_CHECK) == 41 and len(set(NO_CHECK)) == 41


@pytest.mark.parametrize("op", NO_CHECK)
def test_no_hand_written_check(op):
    assert not hasattr(module(op), "check")


def unary(op, dt, out_dt=None, sizes=(2, 3, 4), out_sizes=None, **attrs):
    return CLASSES[op](input_tensor=t(*sizes, dt=dt), output_tensor=t(*(out_sizes or sizes), dt=out_dt or dt), **attrs)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_same_rules(op):
    dt, other, attrs = UNARY[op]
    assert messages(unary(op, dt, **attrs)) == []
    assert messages(unary(op, dt, out_sizes=(2, 3, 5), **attrs)) == [
        f"{op}: InputTensor and OutputTensor must have the same Sizes; got [2, 3, 4] and [2, 3, 5].",
    ]
    assert messages(unary(op, dt, other, **attrs)) == [
        f"{op}: InputTensor and OutputTensor must have the same DataType; got {dt} and {other}.",
    ]


@pytest.mark.parametrize("op", UNARY_FLOAT)
def test_unary_float_with_scale_bias(op):
    assert messages(unary(op, "FLOAT32", scale_bias=dmlops.ScaleBias(2.0, 1.0))) == []


@pytest.mark.parametrize("op", sorted(PREDICATE))
def test_predicate_same_rules(op):
    dt, out_dt, attrs = PREDICATE[op]
    assert messages(unary(op, dt, out_dt, **attrs)) == []
    assert messages(unary(op, dt, out_dt, out_sizes=(2, 4, 4), **attrs)) == [
        f"{op}: InputTensor and OutputTensor must have the same Sizes; got [2, 3, 4] and [2, 4, 4].",
    ]
    # The output's DataType is the support tiers' to judge (UINT8 flags; not the input's type).
    assert messages(unary(op, dt, dt, **attrs)) == [
        f"{op}.OutputTensor: DataType {dt} not supported at DML_FEATURE_LEVEL_6_4 (supported: "
        f"{'UINT32, UINT8' if op != 'ELEMENT_WISE_IS_INFINITY' else 'UINT8'}); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows it.",
    ]


def binary(op, dt, b_dt=None, out_dt=None, b_sizes=(2, 3, 4)):
    return CLASSES[op](a_tensor=t(2, 3, 4, dt=dt), b_tensor=t(*b_sizes, dt=b_dt or dt),
                       output_tensor=t(2, 3, 4, dt=out_dt or dt))


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_same_rules(op):
    dt, other = BINARY[op]
    assert messages(binary(op, dt)) == []
    assert messages(binary(op, other)) == []
    assert messages(binary(op, dt, b_sizes=(2, 3, 1))) == [
        f"{op}: ATensor, BTensor and OutputTensor must have the same Sizes; got [2, 3, 4], [2, 3, 1] and [2, 3, 4].",
    ]
    assert messages(binary(op, dt, out_dt=other)) == [
        f"{op}: ATensor, BTensor and OutputTensor must have the same DataType; got {dt}, {dt} and {other}.",
    ]


@pytest.mark.parametrize("op", COMPARE)
def test_compare_same_rules(op):
    assert messages(binary(op, "FLOAT32", out_dt="UINT8")) == []
    assert messages(binary(op, "INT64", out_dt="UINT32")) == []
    assert messages(binary(op, "FLOAT32", out_dt="UINT8", b_sizes=(1, 3, 4))) == [
        f"{op}: ATensor, BTensor and OutputTensor must have the same Sizes; got [2, 3, 4], [1, 3, 4] and [2, 3, 4].",
    ]
    assert messages(binary(op, "FLOAT32", "FLOAT16", out_dt="UINT8")) == [
        f"{op}: ATensor and BTensor must have the same DataType; got FLOAT32 and FLOAT16.",
    ]


def element_wise_if(cond_dt="UINT8", dt="FLOAT32", b_dt=None, cond_sizes=(2, 3, 4)):
    return dmlops.ElementWiseIf(condition_tensor=t(*cond_sizes, dt=cond_dt), a_tensor=t(2, 3, 4, dt=dt),
                                b_tensor=t(2, 3, 4, dt=b_dt or dt), output_tensor=t(2, 3, 4, dt=dt))


def test_if_rules():
    for dt in ["FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64"]:
        assert messages(element_wise_if(dt=dt)) == []
    assert messages(element_wise_if(cond_sizes=(2, 3, 1))) == [
        "ELEMENT_WISE_IF: ATensor, BTensor, ConditionTensor and OutputTensor must have the same Sizes; "
        "got [2, 3, 4], [2, 3, 4], [2, 3, 1] and [2, 3, 4].",
    ]
    assert messages(element_wise_if(b_dt="FLOAT16")) == [
        "ELEMENT_WISE_IF: ATensor, BTensor and OutputTensor must have the same DataType; "
        "got FLOAT32, FLOAT16 and FLOAT32.",
    ]
    # ConditionTensor is UINT8 at every feature level (the support tiers), whatever the data's type.
    assert messages(element_wise_if(cond_dt="FLOAT32")) == [
        "ELEMENT_WISE_IF.ConditionTensor: DataType FLOAT32 not supported at DML_FEATURE_LEVEL_6_4 (supported: UINT8); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows it.",
    ]
    assert messages(element_wise_if(cond_dt="UINT32", dt="UINT32")) == [
        "ELEMENT_WISE_IF.ConditionTensor: DataType UINT32 not supported at DML_FEATURE_LEVEL_6_4 (supported: UINT8); "
        "no feature level up to DML_FEATURE_LEVEL_6_4 allows it.",
    ]


def test_parametric_softplus_as_fused_activation():
    # Fusable (null tensors); the docs put no bound on Alpha or Beta.
    fused = dmlops.ActivationParametricSoftplus(alpha=-3.0, beta=0.0)
    desc = dmlops.ElementWiseAdd1(a_tensor=t(2, 3), b_tensor=t(2, 3), output_tensor=t(2, 3), fused_activation=fused)
    assert messages(desc) == []


# ---------------------------------------------------------------- robustness and hygiene

OURS = ["ACTIVATION_HARDMAX", "ACTIVATION_HARDMAX1", "ELEMENT_WISE_CLIP1", "ELEMENT_WISE_CLIP_GRAD1", "VALUE_SCALE_2D"]
VALID = {
    "ACTIVATION_HARDMAX": hardmax(1, 1, 4, 5),
    "ACTIVATION_HARDMAX1": hardmax1((2, 3, 4, 5), [1, 3]),
    "ELEMENT_WISE_CLIP1": clip1(),
    "ELEMENT_WISE_CLIP_GRAD1": clip_grad1(),
    "VALUE_SCALE_2D": value_scale(),
}


@pytest.mark.parametrize("op", OURS)
def test_registered(op):
    assert MODULES[op] == op.lower()
    assert module(op).check.__doc__
    assert messages(VALID[op]) == []


@pytest.mark.parametrize("op", OURS)
def test_missing_tensors_never_raise(op):
    desc = VALID[op]
    assert_missing_tensors_never_raise(desc, bare_only_required=False)
    for name in desc.tensors():  # and each absent tensor is reported as required, once
        found = dmlops.problems(replace_tensor(desc, name, None), "6.4")
        assert [p.rule for p in found if p.field == name] == ["required"]


@pytest.mark.parametrize("op", OURS)
@pytest.mark.parametrize("rank", [1, 2, 3, 5, 8, 9])
def test_wrong_ranks_never_raise(op, rank):
    assert_wrong_ranks_never_raise(VALID[op], rank, ("UINT16",))


def test_nested_use_never_raises():
    # check() also receives nested descs (null tensors): HARDMAX is not fusable, which the generic rule says.
    desc = dmlops.ElementWiseAdd1(a_tensor=t(2, 3), b_tensor=t(2, 3), output_tensor=t(2, 3),
                                  fused_activation=dmlops.ActivationHardmax())
    found = messages(desc)
    assert len(found) == 1 and found[0].startswith(
        "ELEMENT_WISE_ADD1.FusedActivation: ACTIVATION_HARDMAX cannot be a fused activation (fusable: ")
    for op in OURS:
        bare = VALID[op].replace(**{dmlops.schema.snake_case(n): None for n in VALID[op].tensors()})
        assert isinstance(module(op).check(bare, dmlops.FeatureLevel.parse("6.4")), list)
