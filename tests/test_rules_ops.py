"""Hand-written shape rules of the batch-norm family, GEMM, CONVOLUTION, REDUCE and the softmax / softplus
activations (dmlops/ops/*.py check hooks).

Each failing case asserts the complete list of messages, which also proves that the generic validator
and the hook do not report the same thing twice.
"""
import ast
import sys
from pathlib import Path

import pytest

import dmlops
from tests.rules_common import assert_missing_tensors_never_raise, assert_wrong_ranks_never_raise
from dmlops.ops import MODULES, module


def t(*sizes, dt="FLOAT32"):
    return dmlops.TensorDesc(dt, list(sizes))


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


# ---------------------------------------------------------------- batch normalization family

def bn(**changes):
    fields = dict(input_tensor=t(2, 3, 5, 5), mean_tensor=t(1, 3, 1, 1), variance_tensor=t(1, 3, 1, 1),
                  scale_tensor=t(1, 3, 1, 1), bias_tensor=t(1, 3, 1, 1), output_tensor=t(2, 3, 5, 5),
                  spatial=True, epsilon=1e-5)
    fields.update(changes)
    return dmlops.BatchNormalization(**fields)


def bn_grad(cls=dmlops.BatchNormalizationGrad, stats=(1, 3, 1, 1), **changes):
    fields = dict(input_tensor=t(2, 3, 5, 5), input_gradient_tensor=t(2, 3, 5, 5), mean_tensor=t(*stats),
                  variance_tensor=t(*stats), scale_tensor=t(*stats), output_gradient_tensor=t(2, 3, 5, 5),
                  output_scale_gradient_tensor=t(*stats), output_bias_gradient_tensor=t(*stats), epsilon=1e-5)
    fields.update(changes)
    return cls(**fields)


def bn_training(stats=(1, 3, 1, 1), **changes):
    fields = dict(input_tensor=t(2, 3, 5, 5), scale_tensor=t(*stats), bias_tensor=t(*stats),
                  fused_add_tensor=t(2, 3, 5, 5), output_tensor=t(2, 3, 5, 5), output_mean_tensor=t(*stats),
                  output_variance_tensor=t(*stats), epsilon=1e-5)
    fields.update(changes)
    return dmlops.BatchNormalizationTraining(**fields)


@pytest.mark.parametrize("desc", [
    bn(), bn(mean_tensor=t(1, 1, 1, 1), bias_tensor=t(2, 3, 5, 5)),  # any dimension may be 1 or InputTensor's
    bn(spatial=False),  # Spatial has no effect from DML_FEATURE_LEVEL_4_0
    bn_grad(), bn_grad(stats=(1, 1, 1, 5)),  # NHWC-style statistics
    bn_grad(dmlops.BatchNormalizationTrainingGrad), bn_grad(dmlops.BatchNormalizationTrainingGrad, stats=(2, 3, 5, 5)),
    bn_training(), bn_training(fused_add_tensor=None), bn_training(stats=(1, 3, 5, 1)),
], ids=lambda d: d.OPERATOR_TYPE)
def test_batch_norm_family_valid(desc):
    assert messages(desc) == []


def test_batch_norm_broadcast():
    assert messages(bn(mean_tensor=t(1, 4, 1, 1), scale_tensor=t(1, 3, 2, 5))) == [
        "BATCH_NORMALIZATION.MeanTensor: Sizes [1, 4, 1, 1] do not broadcast to InputTensor Sizes [2, 3, 5, 5]: "
        "dimension 1 is 4 (allowed: 1 or 3).",
        "BATCH_NORMALIZATION.ScaleTensor: Sizes [1, 3, 2, 5] do not broadcast to InputTensor Sizes [2, 3, 5, 5]: "
        "dimension 2 is 2 (allowed: 1 or 5).",
    ]


def test_batch_norm_spatial_false_before_4_0():
    desc = bn(spatial=False, variance_tensor=t(1, 3, 5, 5))
    assert messages(desc, "3.1") == [
        "BATCH_NORMALIZATION.MeanTensor: Sizes [1, 3, 1, 1] broadcast the Height or Width dimension, which "
        "Spatial = false does not allow at DML_FEATURE_LEVEL_3_1 (expected: [1, 3, 5, 5]); "
        "DML_FEATURE_LEVEL_4_0 ignores Spatial.",
    ]
    assert messages(desc, "4.0") == []
    assert messages(bn(spatial=False, mean_tensor=t(1, 3, 5, 5), variance_tensor=t(1, 3, 5, 5)), "1.0") == []
    assert messages(bn(), "1.0") == []  # Spatial = true broadcasts freely


@pytest.mark.parametrize("cls", [dmlops.BatchNormalizationGrad, dmlops.BatchNormalizationTrainingGrad])
def test_batch_norm_grad_broadcast(cls):
    op = cls.OPERATOR_TYPE
    tail = "do not broadcast to InputTensor Sizes [2, 3, 5, 5]: dimension 1 is 4 (allowed: 1 or 3)."
    assert messages(bn_grad(cls, stats=(1, 4, 1, 1))) == [
        f"{op}.{name}: Sizes [1, 4, 1, 1] {tail}"
        for name in ("MeanTensor", "VarianceTensor", "ScaleTensor", "OutputScaleGradientTensor",
                     "OutputBiasGradientTensor")
    ]


def test_batch_norm_grad_one_wrong_tensor_is_named():
    # The generic same-Sizes rule says the group disagrees; the hook says which member is wrong.
    assert messages(bn_grad(scale_tensor=t(1, 4, 1, 1))) == [
        "BATCH_NORMALIZATION_GRAD: MeanTensor, OutputBiasGradientTensor, OutputScaleGradientTensor, ScaleTensor "
        "and VarianceTensor must have the same Sizes; got [1, 3, 1, 1], [1, 3, 1, 1], [1, 3, 1, 1], [1, 4, 1, 1] "
        "and [1, 3, 1, 1].",
        "BATCH_NORMALIZATION_GRAD.ScaleTensor: Sizes [1, 4, 1, 1] do not broadcast to InputTensor Sizes "
        "[2, 3, 5, 5]: dimension 1 is 4 (allowed: 1 or 3).",
    ]


def test_batch_norm_training_broadcast():
    tail = "do not broadcast to InputTensor Sizes [2, 3, 5, 5]: dimension 0 is 3 (allowed: 1 or 2)."
    assert messages(bn_training(stats=(3, 1, 1, 1))) == [
        f"BATCH_NORMALIZATION_TRAINING.{name}: Sizes [3, 1, 1, 1] {tail}"
        for name in ("ScaleTensor", "BiasTensor", "OutputMeanTensor", "OutputVarianceTensor")
    ]


# ---------------------------------------------------------------- GEMM

def gemm(a, b, out, c=None, trans_a="NONE", trans_b="NONE"):
    return dmlops.Gemm(a_tensor=t(*a), b_tensor=t(*b), c_tensor=None if c is None else t(*c), output_tensor=t(*out),
                       trans_a=trans_a, trans_b=trans_b, alpha=1.0, beta=0.0)


@pytest.mark.parametrize("a, b, out, trans_a, trans_b", [
    ((1, 1, 2, 3), (1, 1, 3, 4), (1, 1, 2, 4), "NONE", "NONE"),
    ((2, 5, 3, 2), (2, 5, 3, 4), (2, 5, 2, 4), "TRANSPOSE", "NONE"),
    ((2, 3), (4, 3), (2, 4), "NONE", "TRANSPOSE"),
    ((6, 3, 2), (6, 4, 3), (6, 2, 4), "TRANSPOSE", "TRANSPOSE"),
])
def test_gemm_valid(a, b, out, trans_a, trans_b):
    assert messages(gemm(a, b, out, c=out, trans_a=trans_a, trans_b=trans_b)) == []
    assert messages(gemm(a, b, out, trans_a=trans_a, trans_b=trans_b)) == []


def test_gemm_output():
    assert messages(gemm((1, 1, 2, 3), (1, 1, 3, 4), (1, 1, 2, 5))) == [
        "GEMM.OutputTensor: Sizes [1, 1, 2, 5] do not match {BatchCount, ChannelCount, M, N} = [1, 1, 2, 4].",
    ]


def test_gemm_k_and_batch():
    assert messages(gemm((2, 3), (4, 5), (2, 5))) == [
        "GEMM.BTensor: Sizes [4, 5] do not match {K, N} = [3, 5].",
    ]
    assert messages(gemm((2, 3, 4), (2, 4, 5), (2, 3, 5), trans_a="TRANSPOSE")) == [
        "GEMM.BTensor: Sizes [2, 4, 5] do not match {ChannelCount, K, N} = [2, 3, 5].",
        "GEMM.OutputTensor: Sizes [2, 3, 5] do not match {ChannelCount, M, N} = [2, 4, 5].",
    ]
    assert messages(gemm((2, 1, 2, 3), (1, 1, 4, 3), (2, 1, 2, 4), trans_b="TRANSPOSE")) == [
        "GEMM.BTensor: Sizes [1, 1, 4, 3] do not match {BatchCount, ChannelCount, N, K} = [2, 1, 4, 3].",
    ]


def test_gemm_c_mismatch_is_left_to_the_generic_rule():
    assert messages(gemm((1, 1, 2, 3), (1, 1, 3, 4), (1, 1, 2, 4), c=(1, 1, 2, 1))) == [
        "GEMM: CTensor and OutputTensor must have the same Sizes; got [1, 1, 2, 1] and [1, 1, 2, 4].",
    ]


# ---------------------------------------------------------------- CONVOLUTION

def conv(x, w, y, bias=None, direction="FORWARD", strides=None, dilations=None, start=None, end=None,
         output_padding=None, groups=1):
    dims = len(x) - 2
    return dmlops.Convolution(
        input_tensor=t(*x), filter_tensor=t(*w), bias_tensor=None if bias is None else t(*bias), output_tensor=t(*y),
        mode="CROSS_CORRELATION", direction=direction, strides=strides or [1] * dims,
        dilations=dilations or [1] * dims, start_padding=start or [0] * dims, end_padding=end or [0] * dims,
        output_padding=output_padding or [0] * dims, group_count=groups)


@pytest.mark.parametrize("desc", [
    conv((1, 4, 5, 5), (6, 2, 3, 3), (1, 6, 3, 3), bias=(1, 6, 1, 1), groups=2),
    conv((2, 3, 7, 8), (5, 3, 3, 2), (2, 5, 4, 2), strides=[2, 3], dilations=[1, 2], start=[1, 0], end=[1, 0]),
    conv((1, 2, 9), (4, 2, 3), (1, 4, 4), bias=(1, 4, 1), strides=[2]),  # 1-D: floor((9 - 3) / 2) + 1
    conv((1, 2, 4, 5, 5), (3, 2, 2, 3, 3), (1, 3, 3, 3, 3)),
    conv((1, 8, 5, 5), (8, 1, 3, 3), (1, 8, 5, 5), start=[1, 1], end=[1, 1], groups=8),  # depth-wise
    conv((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 4, 4), output_padding=[1, 1]),
    # BACKWARD: Filter {InputChannelCount, OutputChannelCount / GroupCount, ...}; (3 - 1) * 2 + 3 = 7
    conv((1, 4, 3, 3), (4, 3, 3, 3), (1, 6, 7, 7), bias=(1, 6, 1, 1), direction="BACKWARD", strides=[2, 2], groups=2),
    conv((1, 4, 3, 3), (4, 2, 3, 3), (1, 2, 6, 6), direction="BACKWARD", strides=[2, 2], start=[1, 1], end=[1, 1],
         output_padding=[1, 1]),
])
def test_convolution_valid(desc):
    assert messages(desc) == []


def test_convolution_output_batch_and_channels():
    assert messages(conv((1, 2, 4, 5, 5), (3, 2, 2, 3, 3), (2, 3, 3, 3, 3))) == [
        "CONVOLUTION.OutputTensor: Sizes [2, 3, 3, 3, 3] do not match "
        "{BatchCount, OutputChannelCount, OutputDepth, OutputHeight, OutputWidth} = [1, 3, 3, 3, 3].",
    ]
    assert messages(conv((1, 4, 3, 3), (4, 3, 3, 3), (1, 4, 7, 7), direction="BACKWARD", strides=[2, 2],
                         groups=2)) == [
        "CONVOLUTION.OutputTensor: Sizes [1, 4, 7, 7] do not match "
        "{BatchCount, OutputChannelCount, OutputHeight, OutputWidth} = [1, 6, 7, 7].",
    ]


@pytest.mark.parametrize("desc", [
    # DirectML ran a FORWARD output one longer than the DirectMLX formula (vector
    # edge_forward_output_padding_0_output_too_long): the spatial extents are the user's; elements past the padded
    # input read zeros, a shorter output computes fewer windows.
    conv((1, 1, 5), (1, 1, 3), (1, 1, 4)),
    conv((1, 4, 5, 5), (6, 2, 3, 3), (1, 6, 5, 2), groups=2),
    conv((1, 4, 3, 3), (4, 3, 3, 3), (1, 6, 9, 6), direction="BACKWARD", strides=[2, 2], groups=2),
])
def test_convolution_spatial_output_sizes_are_free(desc):
    assert messages(desc) == []


def test_convolution_output_padding_leaves_a_computed_element():
    assert messages(conv((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 3, 3), output_padding=[3, 1])) == [
        "CONVOLUTION.OutputPadding[0]: 3 leaves no computed element in the Height dimension of OutputTensor "
        "(Sizes[2] = 3); allowed: less than 3.",
    ]
    assert messages(conv((1, 1, 3), (1, 1, 3), (1, 1, 2), direction="BACKWARD", output_padding=[4])) == [
        "CONVOLUTION.OutputPadding[0]: 4 leaves no computed element in the Width dimension of OutputTensor "
        "(Sizes[2] = 2); allowed: less than 2.",
    ]


def test_convolution_filter_layout():
    assert messages(conv((1, 4, 5, 5), (6, 4, 3, 3), (1, 6, 3, 3), groups=2)) == [
        "CONVOLUTION.FilterTensor: Sizes [6, 4, 3, 3] do not match "
        "{OutputChannelCount, InputChannelCount / GroupCount, FilterHeight, FilterWidth} = [6, 2, 3, 3].",
    ]
    assert messages(conv((1, 4, 3, 3), (3, 4, 3, 3), (1, 4, 5, 5), direction="BACKWARD")) == [
        "CONVOLUTION.FilterTensor: Sizes [3, 4, 3, 3] do not match "
        "{InputChannelCount, OutputChannelCount / GroupCount, FilterHeight, FilterWidth} = [4, 4, 3, 3].",
    ]


def test_convolution_group_count():
    assert messages(conv((1, 4, 5, 5), (6, 1, 3, 3), (1, 6, 3, 3), groups=3)) == [
        "CONVOLUTION.GroupCount: 3 does not divide InputTensor's channel count 4 (Sizes[1]).",
    ]
    assert messages(conv((1, 4, 5, 5), (5, 2, 3, 3), (1, 5, 3, 3), groups=2)) == [
        "CONVOLUTION.GroupCount: 2 does not divide FilterTensor's output channel count 5 (Sizes[0]).",
    ]
    assert messages(conv((1, 4, 5, 5), (6, 4, 3, 3), (1, 6, 3, 3), groups=0)) == [
        "CONVOLUTION.GroupCount: 0 is not allowed (allowed: 1 or more).",
    ]


def test_convolution_strides_and_dilations():
    assert messages(conv((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 3, 3), strides=[1, 0], dilations=[0, 1])) == [
        "CONVOLUTION.Strides[1]: 0 is not allowed (allowed: 1 or more).",
        "CONVOLUTION.Dilations[0]: 0 is not allowed (allowed: 1 or more).",
    ]


def test_convolution_dimension_count():
    desc = conv((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 3, 3), strides=[1, 1, 1], dilations=[1, 1, 1],
                start=[0, 0, 0], end=[0, 0, 0], output_padding=[0, 0, 0])
    assert messages(desc) == [
        "CONVOLUTION.DimensionCount: 3 (the length of Strides, Dilations, StartPadding, EndPadding and "
        "OutputPadding) does not fit a 4-dimensional InputTensor (expected: 2, its DimensionCount - 2).",
    ]


def test_convolution_bias():
    assert messages(conv((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 3, 3), bias=(1, 4, 3, 3))) == [
        "CONVOLUTION.BiasTensor: Sizes [1, 4, 3, 3] do not match {1, OutputChannelCount, 1, 1} = [1, 4, 1, 1].",
    ]
    assert messages(conv((1, 2, 9), (4, 2, 3), (1, 4, 7), bias=(1, 2, 1))) == [
        "CONVOLUTION.BiasTensor: Sizes [1, 2, 1] do not match {1, OutputChannelCount, 1} = [1, 4, 1].",
    ]


def test_convolution_window():
    assert messages(conv((1, 2, 5, 5), (4, 2, 7, 3), (1, 4, 1, 3))) == [
        "CONVOLUTION.FilterTensor: the dilated filter extent 1 + (7 - 1) * 1 = 7 in the Height dimension exceeds "
        "the padded input extent 5 + 0 + 0 = 5.",
    ]
    assert messages(conv((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 1, 1), dilations=[3, 3], start=[1, 0], end=[1, 0])) == [
        "CONVOLUTION.FilterTensor: the dilated filter extent 1 + (3 - 1) * 3 = 7 in the Width dimension exceeds "
        "the padded input extent 5 + 0 + 0 = 5.",
    ]
    assert messages(conv((1, 4, 3, 3), (4, 3, 3, 3), (1, 3, 7, 1), direction="BACKWARD", strides=[2, 2],
                         start=[0, 5], end=[0, 5])) == [
        "CONVOLUTION.StartPadding: StartPadding + EndPadding = 10 in the Width dimension leave no output "
        "(allowed: at most 6, one less than the unpadded output extent 7).",
    ]


# ---------------------------------------------------------------- REDUCE

def reduce(function="SUM", x=(2, 3, 4, 5), y=(2, 1, 1, 5), axes=(1, 2), out_dt="FLOAT32"):
    return dmlops.Reduce(function=function, input_tensor=t(*x), output_tensor=t(*y, dt=out_dt), axes=list(axes))


@pytest.mark.parametrize("desc", [
    reduce(), reduce(y=(1, 1, 1, 1), axes=(3, 0, 1, 2)), reduce(x=(3, 3), y=(1, 3), axes=(0,)),
    reduce("ARGMAX", y=(2, 1, 4, 5), axes=(1,), out_dt="UINT32"),
    reduce("ARGMIN", y=(2, 3, 4, 1), axes=(3,), out_dt="INT64"),
    reduce("MAX", x=(2, 1, 4, 5), y=(2, 1, 4, 5), axes=(1,)),  # a reduced axis of size 1 stays 1
])
def test_reduce_valid(desc):
    assert messages(desc) == []


def test_reduce_axes():
    assert messages(reduce(y=(2, 1, 1, 5), axes=(1, 2, 4, 1))) == [
        "REDUCE.Axes: axis 4 is out of range for a 4-dimensional InputTensor (allowed: 0 to 3).",
        "REDUCE.Axes: axis 1 appears more than once; each axis may be listed once.",
    ]
    assert messages(reduce(y=(2, 3, 4, 5), axes=())) == [
        "REDUCE.Axes: is empty (AxisCount 0); at least one axis is required.",
    ]


def test_reduce_output_sizes():
    assert messages(reduce(y=(2, 1, 4, 5))) == [
        "REDUCE.OutputTensor: Sizes [2, 1, 4, 5] do not match InputTensor Sizes with Axes {1, 2} set to 1 "
        "= [2, 1, 1, 5].",
    ]
    assert messages(reduce(y=(2, 1, 1, 1))) == [
        "REDUCE.OutputTensor: Sizes [2, 1, 1, 1] do not match InputTensor Sizes with Axes {1, 2} set to 1 "
        "= [2, 1, 1, 5].",
    ]


def test_reduce_output_rank():
    assert messages(reduce(y=(2, 1, 5))) == [
        "REDUCE: InputTensor and OutputTensor must have the same DimensionCount; got 4 and 3.",
    ]


def test_reduce_data_types():
    assert messages(reduce(out_dt="FLOAT16")) == [
        "REDUCE: InputTensor and OutputTensor must have the same DataType for DML_REDUCE_FUNCTION_SUM; "
        "got FLOAT32 and FLOAT16.",
    ]
    # ARGMAX / ARGMIN output an integral type: the support tiers judge it, the hook does not.
    assert messages(reduce("ARGMAX", y=(2, 1, 1, 5), out_dt="INT32")) == []


# ---------------------------------------------------------------- activations

@pytest.mark.parametrize("cls", [dmlops.ActivationSoftmax, dmlops.ActivationLogSoftmax])
def test_softmax_effective_rank(cls):
    for sizes in [(1, 1, 4, 7), (4, 7), (7,), (1, 1, 1, 1)]:
        assert messages(cls(input_tensor=t(*sizes), output_tensor=t(*sizes))) == []
    assert messages(cls(input_tensor=t(1, 2, 3, 4), output_tensor=t(1, 2, 3, 4))) == [
        f"{cls.OPERATOR_TYPE}.InputTensor: Sizes [1, 2, 3, 4] have an effective rank of 3 "
        "(allowed: at most 2; leading dimensions of size 1 do not count).",
    ]
    assert messages(cls(input_tensor=t(2, 1, 1, 4), output_tensor=t(2, 1, 1, 4)), "1.0") == [
        f"{cls.OPERATOR_TYPE}.InputTensor: Sizes [2, 1, 1, 4] have an effective rank of 4 "
        "(allowed: at most 2; leading dimensions of size 1 do not count).",
    ]


@pytest.mark.parametrize("cls", [dmlops.ActivationSoftmax1, dmlops.ActivationLogSoftmax1])
def test_softmax1_axes(cls):
    op = cls.OPERATOR_TYPE
    assert messages(cls(input_tensor=t(2, 3, 4), output_tensor=t(2, 3, 4), axes=[0, 2])) == []
    assert messages(cls(input_tensor=t(2, 3, 4), output_tensor=t(2, 3, 4), axes=[2, 3, 2])) == [
        f"{op}.Axes: axis 3 is out of range for a 3-dimensional InputTensor (allowed: 0 to 2).",
        f"{op}.Axes: axis 2 appears more than once; each axis may be listed once.",
    ]


def test_softplus_steepness():
    def softplus(steepness):
        return dmlops.ActivationSoftplus(input_tensor=t(1, 2, 3, 4), output_tensor=t(1, 2, 3, 4), steepness=steepness)

    assert messages(softplus(1.0)) == []
    assert messages(softplus(2.5)) == []
    assert messages(softplus(0.5)) == ["ACTIVATION_SOFTPLUS.Steepness: 0.5 is less than 1 (allowed: 1 or more)."]
    assert messages(softplus(float("nan"))) == [
        "ACTIVATION_SOFTPLUS.Steepness: nan is less than 1 (allowed: 1 or more).",
    ]


# ---------------------------------------------------------------- robustness and hygiene

OURS = ["BATCH_NORMALIZATION", "BATCH_NORMALIZATION_GRAD", "BATCH_NORMALIZATION_TRAINING",
        "BATCH_NORMALIZATION_TRAINING_GRAD", "GEMM", "CONVOLUTION", "REDUCE", "ACTIVATION_SOFTMAX",
        "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX1", "ACTIVATION_SOFTPLUS"]
VALID = {
    "BATCH_NORMALIZATION": bn(), "BATCH_NORMALIZATION_GRAD": bn_grad(),
    "BATCH_NORMALIZATION_TRAINING": bn_training(),
    "BATCH_NORMALIZATION_TRAINING_GRAD": bn_grad(dmlops.BatchNormalizationTrainingGrad),
    "GEMM": gemm((1, 1, 2, 3), (1, 1, 3, 4), (1, 1, 2, 4), c=(1, 1, 2, 4)),
    "CONVOLUTION": conv((1, 4, 5, 5), (6, 2, 3, 3), (1, 6, 3, 3), bias=(1, 6, 1, 1), groups=2),
    "REDUCE": reduce(),
    "ACTIVATION_SOFTMAX": dmlops.ActivationSoftmax(input_tensor=t(2, 3), output_tensor=t(2, 3)),
    "ACTIVATION_LOG_SOFTMAX": dmlops.ActivationLogSoftmax(input_tensor=t(2, 3), output_tensor=t(2, 3)),
    "ACTIVATION_SOFTMAX1": dmlops.ActivationSoftmax1(input_tensor=t(2, 3), output_tensor=t(2, 3), axes=[1]),
    "ACTIVATION_LOG_SOFTMAX1": dmlops.ActivationLogSoftmax1(input_tensor=t(2, 3), output_tensor=t(2, 3), axes=[1]),
    "ACTIVATION_SOFTPLUS": dmlops.ActivationSoftplus(input_tensor=t(2, 3), output_tensor=t(2, 3), steepness=1.0),
}


@pytest.mark.parametrize("op", OURS)
def test_registered(op):
    assert MODULES[op] == op.lower()
    assert module(op).check.__doc__


@pytest.mark.parametrize("op", OURS)
def test_missing_tensors_never_raise(op):
    assert_missing_tensors_never_raise(VALID[op])


@pytest.mark.parametrize("op", OURS)
@pytest.mark.parametrize("rank", [1, 2, 3, 5, 9])
def test_wrong_ranks_never_raise(op, rank):
    assert_wrong_ranks_never_raise(VALID[op], rank, ("FLOAT32",))


def test_element_wise_and_other_activations_need_no_check():
    # The generic 'same' rules (DataType, DimensionCount, Sizes) already cover every documented constraint.
    from dmlops.ops import module

    for op in ["ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY",
               "ELEMENT_WISE_DIVIDE", "ACTIVATION_RELU", "ACTIVATION_SIGMOID", "ACTIVATION_TANH",
               "ACTIVATION_LEAKY_RELU", "ACTIVATION_PARAMETERIZED_RELU"]:
        assert not hasattr(module(op), "check")
    desc = dmlops.ElementWiseAdd(a_tensor=t(1, 2, 3, 4), b_tensor=t(1, 2, 3, 1), output_tensor=t(1, 2, 3, 4))
    assert messages(desc) == [
        "ELEMENT_WISE_ADD: ATensor, BTensor and OutputTensor must have the same Sizes; got [1, 2, 3, 4], "
        "[1, 2, 3, 1] and [1, 2, 3, 4].",
    ]
    desc = dmlops.ActivationParameterizedRelu(input_tensor=t(1, 2, 3, 4), slope_tensor=t(1, 2, 1, 1),
                                              output_tensor=t(1, 2, 3, 4))
    assert messages(desc) == [
        "ACTIVATION_PARAMETERIZED_RELU: InputTensor, OutputTensor and SlopeTensor must have the same Sizes; "
        "got [1, 2, 3, 4], [1, 2, 3, 4] and [1, 2, 1, 1].",
    ]


OP_MODULES = sorted(p.stem for p in (Path(dmlops.__file__).parent / "ops").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", OP_MODULES)
def test_module_imports_only_numpy_and_dmlops(name):
    # Every op module and shared helper (_shapes, _windows, _layout, _quantized, ...), one test for all of them.
    # Backends (torch, the ONNX builder) are passed in; NumPy is the reference's own language (DESIGN.md).
    path = Path(dmlops.__file__).parent / "ops" / f"{name}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level > 0 or node.module.split(".")[0] in sys.stdlib_module_names, node.module
        elif isinstance(node, ast.Import) and any(a.name != "numpy" and a.name not in sys.stdlib_module_names
                                                  for a in node.names):
            pytest.fail(f"{name}.py imports {[a.name for a in node.names]}")
