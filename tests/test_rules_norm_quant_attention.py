"""Hand-written shape rules of the normalization, quantization, integer matrix multiply and attention
operators (dmlops/ops/*.py check hooks, shared helpers in dmlops/ops/_quantized.py).

Each failing case asserts the complete list of messages, which also proves that the generic validator
and the hook do not report the same thing twice. DirectML's own answers for these operators (valid
runs and refused validator-gap descriptors) are checked at the end.
"""

import pytest

import dmlops
from tests.rules_common import assert_missing_tensors_never_raise, assert_wrong_ranks_never_raise
from dmlops.ops import MODULES, module
from dmlops import vectors as V


def t(*sizes, dt="FLOAT32", strides=None):
    return dmlops.TensorDesc(dt, list(sizes), strides)


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


# ---------------------------------------------------------------- MEAN_VARIANCE_NORMALIZATION family

def mvn(**changes):
    fields = dict(input_tensor=t(2, 3, 4, 5), scale_tensor=t(1, 3, 1, 1), bias_tensor=t(1, 3, 1, 1),
                  output_tensor=t(2, 3, 4, 5), cross_channel=False, normalize_variance=True, epsilon=1e-5)
    fields.update(changes)
    return dmlops.MeanVarianceNormalization(**fields)


def mvn1(cls=dmlops.MeanVarianceNormalization1, x=(2, 3, 4, 5), scale=(1, 3, 1, 1), bias=(1, 3, 1, 1), y=None,
         axes=(2, 3), **changes):
    fields = dict(input_tensor=t(*x), scale_tensor=None if scale is None else t(*scale),
                  bias_tensor=None if bias is None else t(*bias), output_tensor=t(*(y or x)), axes=list(axes),
                  epsilon=1e-5)
    if cls is dmlops.MeanVarianceNormalization2:
        fields.update(use_mean=True, use_variance=True)
    else:
        fields.update(normalize_variance=True)
    fields.update(changes)
    return cls(**fields)


MVN1_CLASSES = [dmlops.MeanVarianceNormalization1, dmlops.MeanVarianceNormalization2]


@pytest.mark.parametrize("desc", [
    mvn(), mvn(cross_channel=True), mvn(scale_tensor=t(2, 3, 4, 5), bias_tensor=t(1, 1, 1, 5)),
    mvn(scale_tensor=None, bias_tensor=None),
    mvn(fused_activation=dmlops.ActivationRelu()),
], ids=str)
def test_mvn_valid(desc):
    assert messages(desc) == []


def test_mvn_scale_bias_broadcast():
    assert messages(mvn(scale_tensor=t(1, 2, 1, 1), bias_tensor=t(2, 3, 4, 4))) == [
        "MEAN_VARIANCE_NORMALIZATION.ScaleTensor: Sizes [1, 2, 1, 1] do not broadcast to InputTensor Sizes "
        "[2, 3, 4, 5]: dimension 1 is 2 (allowed: 1 or 3).",
        "MEAN_VARIANCE_NORMALIZATION.BiasTensor: Sizes [2, 3, 4, 4] do not broadcast to InputTensor Sizes "
        "[2, 3, 4, 5]: dimension 3 is 4 (allowed: 1 or 5).",
    ]


def test_mvn_scale_and_bias_pair_before_5_2():
    assert messages(mvn(bias_tensor=None), "5.1") == [
        "MEAN_VARIANCE_NORMALIZATION.ScaleTensor: is given without BiasTensor, which DML_FEATURE_LEVEL_5_1 does "
        "not allow (both or neither); DML_FEATURE_LEVEL_5_2 allows either alone.",
    ]
    assert messages(mvn(scale_tensor=None), "1.0") == [
        "MEAN_VARIANCE_NORMALIZATION.BiasTensor: is given without ScaleTensor, which DML_FEATURE_LEVEL_1_0 does "
        "not allow (both or neither); DML_FEATURE_LEVEL_5_2 allows either alone.",
    ]
    assert messages(mvn(bias_tensor=None), "5.2") == []
    assert messages(mvn(scale_tensor=None, bias_tensor=None), "1.0") == []


def test_mvn_output_sizes_are_the_generic_rule():
    assert messages(mvn(output_tensor=t(2, 3, 4, 4))) == [
        "MEAN_VARIANCE_NORMALIZATION: InputTensor and OutputTensor must have the same Sizes; got [2, 3, 4, 5] "
        "and [2, 3, 4, 4].",
    ]


@pytest.mark.parametrize("cls", MVN1_CLASSES)
@pytest.mark.parametrize("kwargs", [
    {}, {"axes": (1, 2, 3)}, {"axes": (0, 3)}, {"axes": (3, 2)}, {"axes": ()},  # DirectML runs AxisCount 0 (SOFTMAX1)
    {"scale": None, "bias": (1, 1, 4, 5)}, {"scale": None, "bias": None},
    {"x": (7,), "scale": (1,), "bias": (7,), "axes": (0,)},
    {"x": (2, 3, 4, 5, 6), "scale": (1, 1, 1, 1, 6), "bias": (2, 3, 1, 1, 1), "axes": (4,)},
], ids=str)
def test_mvn1_valid(cls, kwargs):
    assert messages(mvn1(cls, **kwargs)) == []


@pytest.mark.parametrize("cls", MVN1_CLASSES)
def test_mvn1_axes(cls):
    op = cls.OPERATOR_TYPE
    assert messages(mvn1(cls, axes=(2, 4, 2, 3))) == [
        f"{op}.Axes: axis 4 is out of range for a 4-dimensional InputTensor (allowed: 0 to 3).",
        f"{op}.Axes: axis 2 appears more than once; each axis may be listed once.",
    ]
    # an axis both repeated and out of range: each rule once
    assert messages(mvn1(cls, x=(3,), scale=(1,), bias=(1,), axes=(1, 1))) == [
        f"{op}.Axes: axis 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
        f"{op}.Axes: axis 1 appears more than once; each axis may be listed once.",
    ]


@pytest.mark.parametrize("cls", MVN1_CLASSES)
def test_mvn1_output_sizes(cls):
    op = cls.OPERATOR_TYPE
    assert messages(mvn1(cls, y=(2, 3, 4, 6))) == [
        f"{op}.OutputTensor: Sizes [2, 3, 4, 6] do not match InputTensor Sizes = [2, 3, 4, 5].",
    ]
    # another DimensionCount is the generic rule's
    assert messages(mvn1(cls, y=(2, 3, 20))) == [
        f"{op}: BiasTensor, InputTensor, OutputTensor and ScaleTensor must have the same DimensionCount; "
        "got 4, 4, 3 and 4.",
    ]


@pytest.mark.parametrize("cls", MVN1_CLASSES)
def test_mvn1_scale_bias_broadcast(cls):
    op = cls.OPERATOR_TYPE
    assert messages(mvn1(cls, scale=(2, 3, 4, 1), bias=(1, 3, 1, 2))) == [
        f"{op}.BiasTensor: Sizes [1, 3, 1, 2] do not broadcast to InputTensor Sizes [2, 3, 4, 5]: "
        "dimension 3 is 2 (allowed: 1 or 5).",
    ]


def test_mvn1_channel_broadcast_before_4_0():
    desc = mvn1(scale=(1, 1, 1, 1), bias=(2, 3, 1, 1))
    assert messages(desc, "3.1") == [
        "MEAN_VARIANCE_NORMALIZATION1.ScaleTensor: Sizes [1, 1, 1, 1] broadcast the ChannelCount dimension, which "
        "DML_FEATURE_LEVEL_3_1 does not allow (expected: 3, InputTensor's ChannelCount); DML_FEATURE_LEVEL_4_0 "
        "allows any dimension to be 1.",
    ]
    assert messages(desc, "4.0") == []


def test_mvn1_scale_and_bias_pair_before_5_2():
    assert messages(mvn1(bias=None), "4.0") == [
        "MEAN_VARIANCE_NORMALIZATION1.ScaleTensor: is given without BiasTensor, which DML_FEATURE_LEVEL_4_0 does "
        "not allow (both or neither); DML_FEATURE_LEVEL_5_2 allows either alone.",
    ]
    assert messages(mvn1(bias=None), "5.2") == []


# ---------------------------------------------------------------- LRN, LRN_GRAD, LP_NORMALIZATION

def lrn(local_size=3, cross_channel=True):
    return dmlops.LocalResponseNormalization(input_tensor=t(2, 3, 4, 5), output_tensor=t(2, 3, 4, 5),
                                             cross_channel=cross_channel, local_size=local_size, alpha=1e-4,
                                             beta=0.75, bias=1.0)


def lrn_grad(local_size=3, cross_channel=True):
    x = t(2, 3, 4, 5)
    return dmlops.LocalResponseNormalizationGrad(input_tensor=x, input_gradient_tensor=x, output_gradient_tensor=x,
                                                 cross_channel=cross_channel, local_size=local_size, alpha=1e-4,
                                                 beta=0.75, bias=1.0)


@pytest.mark.parametrize("make", [lrn, lrn_grad])
def test_lrn_local_size(make):
    op = make().OPERATOR_TYPE
    for size in (1, 2, 3, 4, 9):  # even sizes too: DirectML ran LocalSize 2
        assert messages(make(size)) == []
        assert messages(make(size, cross_channel=False)) == []
    assert messages(make(0)) == [f"{op}.LocalSize: 0 is not allowed (allowed: 1 or more)."]


def lp(x=(2, 3, 4, 5), axis=1, p=2):
    return dmlops.LpNormalization(input_tensor=t(*x), output_tensor=t(*x), axis=axis, epsilon=1e-5, p=p)


def test_lp_normalization_valid():
    for axis in range(4):
        for p in (1, 2):
            assert messages(lp(axis=axis, p=p)) == []
    assert messages(lp(x=(6,), axis=0)) == []


def test_lp_normalization_axis_and_p():
    assert messages(lp(axis=4)) == [
        "LP_NORMALIZATION.Axis: 4 is out of range for a 4-dimensional InputTensor (allowed: 0 to 3).",
    ]
    assert messages(lp(p=3)) == ["LP_NORMALIZATION.P: 3 is not allowed (allowed: 1 or 2)."]
    assert messages(lp(x=(6,), axis=1, p=0)) == [
        "LP_NORMALIZATION.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
        "LP_NORMALIZATION.P: 0 is not allowed (allowed: 1 or 2).",
    ]


# ---------------------------------------------------------------- integer and quantized matrix multiply

def mmi(a=(2, 3, 4, 5), b=(2, 3, 5, 6), y=None, az=None, bz=None, dt="UINT8"):
    y = y or tuple(a[:-1]) + (b[-1],)
    return dmlops.MatrixMultiplyInteger(
        a_tensor=t(*a, dt=dt), a_zero_point_tensor=None if az is None else t(*az, dt=dt), b_tensor=t(*b, dt=dt),
        b_zero_point_tensor=None if bz is None else t(*bz, dt=dt), output_tensor=t(*y, dt="INT32"))


@pytest.mark.parametrize("desc", [
    mmi(), mmi(az=(1, 1, 1, 1), bz=(1, 1, 1, 1)), mmi(az=(1, 1, 4, 1), bz=(1, 1, 1, 6), dt="INT8"),
    mmi(a=(4, 5), b=(5, 6), az=(4, 1), bz=(1, 6)), mmi(a=(4, 5), b=(5, 6), az=(1,), bz=(6,)),  # 1-D per-column {N}
    mmi(a=(4, 5), b=(5, 6), az=(1,), bz=(1,)), mmi(a=(3, 4, 5), b=(3, 5, 6), az=(1, 1, 4, 1), bz=(1, 6)),
], ids=str)
def test_matrix_multiply_integer_valid(desc):
    assert messages(desc) == []


def test_matrix_multiply_integer_shapes():
    assert messages(mmi(b=(2, 3, 4, 6))) == [
        "MATRIX_MULTIPLY_INTEGER.BTensor: Sizes [2, 3, 4, 6] do not match {BatchCount, ChannelCount, K, N} "
        "= [2, 3, 5, 6].",
    ]
    assert messages(mmi(a=(3, 4, 5), b=(1, 5, 6))) == [
        "MATRIX_MULTIPLY_INTEGER.BTensor: Sizes [1, 5, 6] do not match {ChannelCount, K, N} = [3, 5, 6].",
    ]
    assert messages(mmi(a=(4, 5), b=(5, 6), y=(5, 6))) == [
        "MATRIX_MULTIPLY_INTEGER.OutputTensor: Sizes [5, 6] do not match {M, N} = [4, 6].",
    ]


def test_matrix_multiply_integer_zero_points():
    assert messages(mmi(az=(1, 1, 1, 4), bz=(1, 1, 6, 1))) == [
        "MATRIX_MULTIPLY_INTEGER.AZeroPointTensor: Sizes [1, 1, 1, 4] are neither per-tensor {1, 1, 1, 1} nor "
        "per-row {1, 1, M, 1} = [1, 1, 4, 1].",
        "MATRIX_MULTIPLY_INTEGER.BZeroPointTensor: Sizes [1, 1, 6, 1] are neither per-tensor {1, 1, 1, 1} nor "
        "per-column {1, 1, 1, N} = [1, 1, 1, 6].",
    ]
    assert messages(mmi(az=(2, 1, 4, 1), bz=(1, 1, 1, 5))) == [
        "MATRIX_MULTIPLY_INTEGER.AZeroPointTensor: Sizes [2, 1, 4, 1] are neither per-tensor {1, 1, 1, 1} nor "
        "per-row {1, 1, M, 1} = [1, 1, 4, 1].",
        "MATRIX_MULTIPLY_INTEGER.BZeroPointTensor: Sizes [1, 1, 1, 5] are neither per-tensor {1, 1, 1, 1} nor "
        "per-column {1, 1, 1, N} = [1, 1, 1, 6].",
    ]
    # a 1-D per-row tensor is refused, whatever its length: DirectML reads 1-D along N (vector
    # sample_batched_3d_1d_zero_points)
    one_d = ("are neither per-tensor {1} nor per-row {M, 1} = [4, 1]: DirectML reads a 1-D tensor along its last "
             "dimension (per column), so a per-row tensor has 2 or more dimensions.")
    assert messages(mmi(a=(4, 5), b=(5, 6), az=(4,), bz=(6,))) == [
        f"MATRIX_MULTIPLY_INTEGER.AZeroPointTensor: Sizes [4] {one_d}"]
    assert messages(mmi(a=(4, 5), b=(5, 6), az=(5,), bz=(4, 6))) == [
        f"MATRIX_MULTIPLY_INTEGER.AZeroPointTensor: Sizes [5] {one_d}",
        "MATRIX_MULTIPLY_INTEGER.BZeroPointTensor: Sizes [4, 6] are neither per-tensor {1, 1} nor per-column "
        "{1, N} = [1, 6].",
    ]


def test_matrix_multiply_integer_zero_point_without_b_matrix_checks_the_ones():
    # BTensor of a refused rank defines no N; the per-column layout's 1s are still checked.
    desc = mmi(a=(4, 5), b=(5,), y=(4, 6), bz=(2, 6))
    assert messages(desc)[-1] == (
        "MATRIX_MULTIPLY_INTEGER.BZeroPointTensor: Sizes [2, 6] are neither per-tensor {1, 1} nor per-column {1, N}.")


def mmi_float(a=(2, 4, 5), b=(2, 5, 6), a_scale=(1, 1, 1), a_zero=None, b_scale=(1, 1, 1), b_zero=None, bias=None,
              y=(2, 4, 6), dt="INT8"):
    return dmlops.MatrixMultiplyIntegerToFloat(
        a_tensor=t(*a, dt=dt), a_scale_tensor=t(*a_scale), a_zero_point_tensor=None if a_zero is None else t(*a_zero, dt=dt),
        b_tensor=t(*b, dt=dt), b_scale_tensor=t(*b_scale), b_zero_point_tensor=None if b_zero is None else t(*b_zero, dt=dt),
        bias_tensor=None if bias is None else t(*bias), output_tensor=t(*y))


@pytest.mark.parametrize("desc", [
    mmi_float(), mmi_float(a_scale=(1, 4, 1), a_zero=(1, 4, 1), b_scale=(1, 1, 6), b_zero=(1, 1, 6), bias=(2, 4, 6)),
    mmi_float(a_scale=(1, 4, 1), a_zero=(1, 4, 1), b_scale=(1, 1, 1), b_zero=(1, 1, 1), dt="UINT16"),
], ids=str)
def test_matrix_multiply_integer_to_float_valid(desc):
    assert messages(desc) == []


def test_matrix_multiply_integer_to_float_shapes():
    op = "MATRIX_MULTIPLY_INTEGER_TO_FLOAT"
    assert messages(mmi_float(a_scale=(1, 1, 6), a_zero=(1, 5, 1), b_scale=(1, 4, 1), b_zero=(2, 1, 6))) == [
        f"{op}.AScaleTensor: Sizes [1, 1, 6] are neither per-tensor {{1, 1, 1}} nor per-row {{1, M, 1}} = [1, 4, 1].",
        f"{op}.AZeroPointTensor: Sizes [1, 5, 1] are neither per-tensor {{1, 1, 1}} nor per-row {{1, M, 1}} = [1, 4, 1].",
        f"{op}.BScaleTensor: Sizes [1, 4, 1] are neither per-tensor {{1, 1, 1}} nor per-column {{1, 1, N}} "
        "= [1, 1, 6].",
        f"{op}.BZeroPointTensor: Sizes [2, 1, 6] are neither per-tensor {{1, 1, 1}} nor per-column {{1, 1, N}} "
        "= [1, 1, 6].",
    ]
    assert messages(mmi_float(b=(2, 6, 6), y=(2, 4, 7), bias=(2, 4, 7))) == [
        f"{op}.BTensor: Sizes [2, 6, 6] do not match {{ChannelCount, K, N}} = [2, 5, 6].",
        f"{op}.OutputTensor: Sizes [2, 4, 7] do not match {{ChannelCount, M, N}} = [2, 4, 6].",
    ]
    # a zero point has its scale's Sizes (vector sample_int8_zero_points_by_hand: DirectML refused them apart)
    assert messages(mmi_float(a_scale=(1, 1, 1), a_zero=(1, 4, 1), b_scale=(1, 1, 6), b_zero=(1, 1, 1))) == [
        f"{op}.AZeroPointTensor: Sizes [1, 4, 1] do not match AScaleTensor Sizes = [1, 1, 1].",
        f"{op}.BZeroPointTensor: Sizes [1, 1, 1] do not match BScaleTensor Sizes = [1, 1, 6].",
    ]
    # BiasTensor against OutputTensor is the generic 'same Sizes' rule
    assert messages(mmi_float(bias=(2, 1, 6))) == [
        f"{op}: BiasTensor and OutputTensor must have the same Sizes; got [2, 1, 6] and [2, 4, 6].",
    ]


def qlmm(a=(1, 1, 4, 5), b=(1, 1, 5, 6), y=(1, 1, 4, 6), q=None):
    q = {"a_scale": (1, 1, 1, 1), "a_zero": (1, 1, 1, 1), "b_scale": (1, 1, 1, 1), "b_zero": (1, 1, 1, 1),
         "y_scale": (1, 1, 1, 1), "y_zero": (1, 1, 1, 1), **(q or {})}
    return dmlops.QuantizedLinearMatrixMultiply(
        a_tensor=t(*a, dt="UINT8"), a_scale_tensor=t(*q["a_scale"]), a_zero_point_tensor=t(*q["a_zero"], dt="UINT8"),
        b_tensor=t(*b, dt="INT8"), b_scale_tensor=t(*q["b_scale"]), b_zero_point_tensor=t(*q["b_zero"], dt="INT8"),
        output_scale_tensor=t(*q["y_scale"]), output_zero_point_tensor=t(*q["y_zero"], dt="INT8"),
        output_tensor=t(*y, dt="INT8"))


@pytest.mark.parametrize("desc", [
    qlmm(), qlmm(q={"a_scale": (1, 1, 4, 1), "a_zero": (1, 1, 4, 1), "b_scale": (1, 1, 1, 6),
                    "b_zero": (1, 1, 1, 6), "y_scale": (1, 1, 4, 1), "y_zero": (1, 1, 4, 1)}),
    qlmm(a=(4, 5), b=(5, 6), y=(4, 6), q={k: (1,) for k in ("a_scale", "a_zero", "b_scale", "b_zero", "y_scale",
                                                           "y_zero")}),
    qlmm(a=(4, 5), b=(5, 6), y=(4, 6), q={"a_scale": (4, 1), "a_zero": (1, 1), "b_scale": (1, 6), "b_zero": (1, 6),
                                          "y_scale": (4, 1), "y_zero": (1, 1)}),
], ids=str)
def test_quantized_linear_matrix_multiply_valid(desc):
    assert messages(desc, "4.0") == []


def test_quantized_linear_matrix_multiply_shapes():
    op = "QUANTIZED_LINEAR_MATRIX_MULTIPLY"
    assert messages(qlmm(q={"b_scale": (1, 1, 5, 1), "y_scale": (1, 1, 1, 6), "y_zero": (1, 1, 3, 1)})) == [
        f"{op}.OutputScaleTensor: Sizes [1, 1, 1, 6] are neither per-tensor {{1, 1, 1, 1}} nor per-row "
        "{1, 1, M, 1} = [1, 1, 4, 1].",
        f"{op}.OutputZeroPointTensor: Sizes [1, 1, 3, 1] are neither per-tensor {{1, 1, 1, 1}} nor per-row "
        "{1, 1, M, 1} = [1, 1, 4, 1].",
        f"{op}.BScaleTensor: Sizes [1, 1, 5, 1] are neither per-tensor {{1, 1, 1, 1}} nor per-column "
        "{1, 1, 1, N} = [1, 1, 1, 6].",
    ]
    assert messages(qlmm(b=(1, 2, 5, 6), y=(1, 1, 4, 5))) == [
        f"{op}.BTensor: Sizes [1, 2, 5, 6] do not match {{BatchCount, ChannelCount, K, N}} = [1, 1, 5, 6].",
        f"{op}.OutputTensor: Sizes [1, 1, 4, 5] do not match {{BatchCount, ChannelCount, M, N}} = [1, 1, 4, 6].",
    ]


# ---------------------------------------------------------------- element-wise quantization

def quantize_linear(x_dt="FLOAT32", scale_dt="FLOAT32", y=(2, 3, 4, 5), zero=True):
    per_channel = [0, 1, 0, 0]
    return dmlops.ElementWiseQuantizeLinear(
        input_tensor=t(2, 3, 4, 5, dt=x_dt), scale_tensor=t(2, 3, 4, 5, dt=scale_dt, strides=per_channel),
        zero_point_tensor=t(2, 3, 4, 5, dt="UINT8", strides=per_channel) if zero else None,
        output_tensor=t(*y, dt="UINT8"))


def test_quantize_linear_valid():
    assert messages(quantize_linear()) == []
    assert messages(quantize_linear("INT32", "FLOAT32")) == []
    assert messages(quantize_linear("FLOAT16", "FLOAT16")) == []
    assert messages(quantize_linear(zero=False), "6.2") == []


def test_quantize_linear_scale_data_type():
    assert messages(quantize_linear("INT32", "FLOAT16")) == [
        "ELEMENT_WISE_QUANTIZE_LINEAR.ScaleTensor: DataType FLOAT16 does not fit InputTensor DataType INT32 "
        "(allowed: FLOAT32 for an INT32 InputTensor).",
    ]
    assert messages(quantize_linear("FLOAT32", "FLOAT16")) == [
        "ELEMENT_WISE_QUANTIZE_LINEAR.ScaleTensor: DataType FLOAT16 does not fit InputTensor DataType FLOAT32 "
        "(allowed: FLOAT32, InputTensor's DataType).",
    ]


def test_quantize_and_dequantize_linear_sizes_are_generic():
    assert messages(quantize_linear(y=(2, 3, 4, 1))) == [
        "ELEMENT_WISE_QUANTIZE_LINEAR: InputTensor, OutputTensor, ScaleTensor and ZeroPointTensor must have the "
        "same Sizes; got [2, 3, 4, 5], [2, 3, 4, 1], [2, 3, 4, 5] and [2, 3, 4, 5].",
    ]
    desc = dmlops.ElementWiseDequantizeLinear(input_tensor=t(2, 3, dt="INT8"), scale_tensor=t(2, 3, strides=[0, 0]),
                                              zero_point_tensor=t(2, 3, dt="INT8", strides=[0, 0]),
                                              output_tensor=t(2, 3))
    assert messages(desc) == []
    assert messages(desc.replace(scale_tensor=t(1, 3))) == [
        "ELEMENT_WISE_DEQUANTIZE_LINEAR: InputTensor, OutputTensor, ScaleTensor and ZeroPointTensor must have the "
        "same Sizes; got [2, 3], [2, 3], [1, 3] and [2, 3].",
    ]
    assert module("ELEMENT_WISE_DEQUANTIZE_LINEAR").check(desc.replace(scale_tensor=t(1, 3)), "6.4") == []


def quantized_add(a=(2, 3), b=(2, 3), y=(2, 3), q=(1, 1)):
    def scale():
        return t(*q)

    def zero():
        return t(*q, dt="UINT8")

    return dmlops.ElementWiseQuantizedLinearAdd(
        a_tensor=t(*a, dt="UINT8"), a_scale_tensor=scale(), a_zero_point_tensor=zero(), b_tensor=t(*b, dt="UINT8"),
        b_scale_tensor=scale(), b_zero_point_tensor=zero(), output_scale_tensor=scale(),
        output_zero_point_tensor=zero(), output_tensor=t(*y, dt="UINT8"))


def test_quantized_linear_add():
    assert messages(quantized_add()) == []
    assert messages(quantized_add(a=(1,), b=(1,), y=(1,), q=(1,)).replace(a_zero_point_tensor=None)) == []
    assert messages(quantized_add(b=(2, 1), y=(3, 3))) == [
        "ELEMENT_WISE_QUANTIZED_LINEAR_ADD.BTensor: Sizes [2, 1] do not match ATensor Sizes = [2, 3].",
        "ELEMENT_WISE_QUANTIZED_LINEAR_ADD.OutputTensor: Sizes [3, 3] do not match ATensor Sizes = [2, 3].",
    ]
    found = messages(quantized_add(q=(1, 2)))
    assert found == [
        f"ELEMENT_WISE_QUANTIZED_LINEAR_ADD.{name}: Sizes [1, 2] hold 2 elements; exactly 1 is expected."
        for name in ("AScaleTensor", "AZeroPointTensor", "BScaleTensor", "BZeroPointTensor", "OutputScaleTensor",
                     "OutputZeroPointTensor")
    ]


def dynamic_quantize(x=(2, 3, 4), y=(2, 3, 4), s=(1, 1, 1), z=(1, 1, 1)):
    return dmlops.DynamicQuantizeLinear(input_tensor=t(*x), output_tensor=t(*y, dt="INT8"), output_scale_tensor=t(*s),
                                        output_zero_point_tensor=t(*z, dt="INT8"))


def test_dynamic_quantize_linear():
    assert messages(dynamic_quantize()) == []
    assert messages(dynamic_quantize(y=(2, 3, 5), s=(1, 2, 1), z=(3, 1, 1))) == [
        "DYNAMIC_QUANTIZE_LINEAR.OutputTensor: Sizes [2, 3, 5] do not match InputTensor Sizes = [2, 3, 4].",
        "DYNAMIC_QUANTIZE_LINEAR.OutputScaleTensor: Sizes [1, 2, 1] hold 2 elements; exactly 1 is expected.",
        "DYNAMIC_QUANTIZE_LINEAR.OutputZeroPointTensor: Sizes [3, 1, 1] hold 3 elements; exactly 1 is expected.",
    ]


# ---------------------------------------------------------------- QUANTIZE / DEQUANTIZE (6.3)

def quantize(cls=dmlops.Quantize, kind="SCALE_ZERO_POINT", x=(4, 8), y=None, scale=(4, 2), zero=(4, 2),
             float_dt="FLOAT16", quant_dt="INT4", scale_dt=None, zero_dt=None, count=None):
    tensors = [t(*scale, dt=scale_dt or float_dt), t(*zero, dt=zero_dt or quant_dt)]
    tensors = tensors[:count if count is not None else (1 if kind == "SCALE" else 2)]
    float_t, quant_t = t(*x, dt=float_dt), t(*(y or x), dt=quant_dt)
    if cls is dmlops.Quantize:
        return cls(input_tensor=float_t, quantization_type=kind, quantization_tensors=tensors, output_tensor=quant_t)
    return cls(input_tensor=t(*x, dt=quant_dt), quantization_type=kind, quantization_tensors=tensors,
               output_tensor=t(*(y or x), dt=float_dt))


QUANT_CLASSES = [dmlops.Quantize, dmlops.Dequantize]


@pytest.mark.parametrize("cls", QUANT_CLASSES)
@pytest.mark.parametrize("kwargs", [
    {}, {"kind": "SCALE"}, {"scale": (1, 1), "zero": (1, 1), "quant_dt": "UINT8", "float_dt": "FLOAT32"},
    {"scale": (4, 8), "zero": (4, 1)}, {"scale": (1, 8), "zero": (2, 4), "quant_dt": "UINT4"},
    {"x": (2, 3, 64), "scale": (2, 3, 2), "zero": (2, 3, 2), "quant_dt": "INT8"},  # MatMulNBits: blocks of 32
], ids=str)
def test_quantize_dequantize_valid(cls, kwargs):
    assert messages(quantize(cls, **kwargs)) == []


@pytest.mark.parametrize("cls", QUANT_CLASSES)
def test_quantize_dequantize_type_and_count(cls):
    op = cls.OPERATOR_TYPE
    assert messages(quantize(cls, kind="SCALE", count=2)) == [
        f"{op}.QuantizationTensorCount: 2 tensors given; DML_QUANTIZATION_TYPE_SCALE takes 1 (a scale tensor).",
    ]
    assert messages(quantize(cls, count=1)) == [
        f"{op}.QuantizationTensorCount: 1 tensor given; DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT takes 2 "
        "(a scale and a zero-point tensor).",
    ]
    assert messages(quantize(cls, kind="NONE", count=0)) == [
        f"{op}.QuantizationTensors: needs at least one tensor.",
        f"{op}.QuantizationType: DML_QUANTIZATION_TYPE_NONE is not allowed (allowed: DML_QUANTIZATION_TYPE_SCALE, "
        "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT).",
    ]


@pytest.mark.parametrize("cls", QUANT_CLASSES)
def test_quantize_dequantize_data_types(cls):
    op = cls.OPERATOR_TYPE
    float_name, quant_name = ("InputTensor", "OutputTensor") if cls is dmlops.Quantize else ("OutputTensor", "InputTensor")
    assert messages(quantize(cls, scale_dt="FLOAT32", zero_dt="UINT4")) == [
        f"{op}.QuantizationTensors[0]: the scale has DataType FLOAT32; it must have {float_name}'s DataType FLOAT16.",
        f"{op}.QuantizationTensors[1]: the zero point has DataType UINT4; it must have {quant_name}'s DataType INT4.",
    ]
    assert messages(quantize(cls, quant_dt="UINT8", scale_dt="UINT8")) == [
        f"{op}.QuantizationTensors[0]: the scale has DataType UINT8; it must have {float_name}'s DataType FLOAT16.",
    ]


@pytest.mark.parametrize("cls", QUANT_CLASSES)
def test_quantize_dequantize_sizes(cls):
    op = cls.OPERATOR_TYPE
    assert messages(quantize(cls, scale=(3, 2), zero=(4, 5))) == [
        f"{op}.QuantizationTensors[0]: Sizes [3, 2] do not divide InputTensor Sizes [4, 8] into equal blocks: "
        "dimension 0 is 3 (allowed: a divisor of 4).",
        f"{op}.QuantizationTensors[1]: Sizes [4, 5] do not divide InputTensor Sizes [4, 8] into equal blocks: "
        "dimension 1 is 5 (allowed: a divisor of 8).",
    ]
    assert messages(quantize(cls, y=(4, 4))) == [
        f"{op}.OutputTensor: Sizes [4, 4] do not match InputTensor Sizes = [4, 8].",
    ]
    assert messages(quantize(cls, scale=(4, 16), zero=(8,))) == [
        f"{op}: InputTensor, OutputTensor, QuantizationTensors[0] and QuantizationTensors[1] must have the same "
        "DimensionCount; got 2, 2, 2 and 1.",
        f"{op}.QuantizationTensors[0]: Sizes [4, 16] do not divide InputTensor Sizes [4, 8] into equal blocks: "
        "dimension 1 is 16 (allowed: a divisor of 8).",
    ]


def test_quantize_dequantize_need_6_3():
    for cls in QUANT_CLASSES:
        found = messages(quantize(cls), "6.2")
        assert found[0] == f"{cls.OPERATOR_TYPE} was introduced in DML_FEATURE_LEVEL_6_3; the target is DML_FEATURE_LEVEL_6_2."


# ---------------------------------------------------------------- MULTIHEAD_ATTENTION

def mha(**changes):
    # batchSize 2, sequenceLength 3, keyValueSequenceLength 5, 4 heads, headSize 2, valueHeadSize 3
    fields = dict(query_tensor=t(2, 3, 8), key_tensor=t(2, 5, 8), value_tensor=t(2, 5, 12), output_tensor=t(2, 3, 12),
                  scale=0.5, mask_filter_value=-10000.0, head_count=4, mask_type="NONE")
    fields.update(changes)
    return dmlops.MultiheadAttention(**fields)


def mask(*sizes):
    return t(*sizes, dt="INT32")


PAST = dict(past_key_tensor=t(2, 4, 7, 2), past_value_tensor=t(2, 4, 7, 3), output_present_key_tensor=t(2, 4, 12, 2),
            output_present_value_tensor=t(2, 4, 12, 3))


@pytest.mark.parametrize("desc", [
    mha(),
    mha(bias_tensor=t(28), relative_position_bias_tensor=t(2, 4, 3, 5), mask_type="BOOLEAN", mask_tensor=mask(2, 4, 3, 5),
        output_present_key_tensor=t(2, 4, 5, 2), output_present_value_tensor=t(2, 4, 5, 3)),
    mha(**PAST, relative_position_bias_tensor=t(2, 4, 3, 12), mask_type="BOOLEAN", mask_tensor=mask(1, 2, 4, 3, 12)),
    mha(query_tensor=t(1, 1, 2, 3, 8), key_tensor=t(1, 2, 5, 8), output_tensor=t(1, 2, 3, 12), bias_tensor=t(1, 1, 28)),
    mha(query_tensor=None, key_tensor=None, value_tensor=None, stacked_query_key_value_tensor=t(2, 3, 4, 3, 2),
        output_tensor=t(2, 3, 8), bias_tensor=t(24)),
    mha(query_tensor=None, key_tensor=None, stacked_query_key_tensor=t(2, 3, 4, 2, 2), value_tensor=t(2, 3, 12)),
    mha(key_tensor=None, value_tensor=None, stacked_key_value_tensor=t(2, 5, 4, 2, 2), output_tensor=t(2, 3, 8)),
    mha(key_tensor=None, value_tensor=None, past_key_tensor=t(2, 4, 7, 2), past_value_tensor=t(2, 4, 7, 3),
        output_present_key_tensor=t(2, 4, 7, 2)),  # key and value from the past alone (ONNX Runtime's DirectML MHA)
    mha(mask_type="KEY_SEQUENCE_LENGTH", mask_tensor=mask(1, 2)),
    mha(mask_type="KEY_SEQUENCE_END_START", mask_tensor=mask(1, 1, 2, 2)),
    mha(mask_type="KEY_QUERY_SEQUENCE_LENGTH_START_END", mask_tensor=mask(8)),
], ids=range(11))
def test_multihead_attention_valid(desc):
    assert messages(desc) == []


def test_multihead_attention_exclusive_and_required():
    op = "MULTIHEAD_ATTENTION"
    assert messages(mha(stacked_query_key_tensor=t(2, 3, 4, 2, 2), stacked_key_value_tensor=t(2, 5, 4, 2, 2))) == [
        f"{op}.StackedQueryKeyTensor: is given together with QueryTensor; the two are mutually exclusive.",
        f"{op}.StackedQueryKeyTensor: is given together with KeyTensor; the two are mutually exclusive.",
        f"{op}.StackedKeyValueTensor: is given together with KeyTensor; the two are mutually exclusive.",
        f"{op}.StackedKeyValueTensor: is given together with ValueTensor; the two are mutually exclusive.",
        f"{op}.StackedKeyValueTensor: is given together with StackedQueryKeyTensor; the two are mutually exclusive.",
    ]
    assert messages(mha(query_tensor=None, value_tensor=None)) == [
        f"{op}: the query is missing: one of QueryTensor, StackedQueryKeyTensor or StackedQueryKeyValueTensor is "
        "required.",
        f"{op}: the value is missing: one of ValueTensor, StackedKeyValueTensor or StackedQueryKeyValueTensor "
        "(or PastValueTensor) is required.",
    ]
    assert messages(mha(key_tensor=None)) == [
        f"{op}: the key is missing: one of KeyTensor, StackedQueryKeyTensor, StackedKeyValueTensor or "
        "StackedQueryKeyValueTensor (or PastKeyTensor) is required.",
    ]


def test_multihead_attention_head_count():
    assert messages(mha(head_count=0)) == ["MULTIHEAD_ATTENTION.HeadCount: 0 is not allowed (allowed: 1 or more)."]
    assert messages(mha(head_count=3, output_tensor=t(2, 3, 12))) == [
        "MULTIHEAD_ATTENTION.HeadCount: 3 does not divide QueryTensor's hiddenSize 8.",
    ]
    assert messages(mha(value_tensor=t(2, 5, 10), output_tensor=t(2, 3, 10))) == [
        "MULTIHEAD_ATTENTION.HeadCount: 4 does not divide ValueTensor's valueHiddenSize 10.",
    ]


def test_multihead_attention_query_key_value_sizes():
    op = "MULTIHEAD_ATTENTION"
    assert messages(mha(key_tensor=t(3, 5, 6), value_tensor=t(2, 4, 12), output_tensor=t(2, 2, 12))) == [
        f"{op}.KeyTensor: Sizes [3, 5, 6] do not match {{batchSize, keyValueSequenceLength, hiddenSize}} = [2, 5, 8].",
        f"{op}.ValueTensor: Sizes [2, 4, 12] do not match {{batchSize, keyValueSequenceLength, valueHiddenSize}} "
        "= [2, 5, 12].",
        f"{op}.OutputTensor: Sizes [2, 2, 12] do not match {{batchSize, sequenceLength, valueHiddenSize}} "
        "= [2, 3, 12].",
    ]
    assert messages(mha(query_tensor=t(2, 2, 3, 8))) == [
        f"{op}.QueryTensor: Sizes [2, 2, 3, 8] do not match {{1, batchSize, sequenceLength, hiddenSize}} "
        "= [1, 2, 3, 8].",
    ]


def test_multihead_attention_stacked_sizes():
    op = "MULTIHEAD_ATTENTION"
    desc = mha(query_tensor=None, key_tensor=None, value_tensor=None, output_tensor=t(2, 3, 8),
               stacked_query_key_value_tensor=t(2, 3, 2, 3, 4))
    assert messages(desc) == [
        f"{op}.StackedQueryKeyValueTensor: Sizes [2, 3, 2, 3, 4] do not match "
        "{batchSize, sequenceLength, headCount, 3, headSize} = [2, 3, 4, 3, 4].",
    ]
    desc = mha(query_tensor=None, key_tensor=None, stacked_query_key_tensor=t(2, 3, 4, 2, 2), value_tensor=t(2, 5, 12))
    assert messages(desc) == [
        f"{op}.ValueTensor: Sizes [2, 5, 12] do not match {{batchSize, keyValueSequenceLength, valueHiddenSize}} "
        "= [2, 3, 12].",
    ]
    desc = mha(key_tensor=None, value_tensor=None, stacked_key_value_tensor=t(1, 5, 4, 3, 2), output_tensor=t(2, 3, 8))
    assert messages(desc) == [
        f"{op}.StackedKeyValueTensor: Sizes [1, 5, 4, 3, 2] do not match "
        "{batchSize, keyValueSequenceLength, headCount, 2, headSize} = [2, 5, 4, 2, 2].",
    ]


def test_multihead_attention_bias_past_present_relative_position():
    op = "MULTIHEAD_ATTENTION"
    desc = mha(bias_tensor=t(24), relative_position_bias_tensor=t(2, 4, 3, 5), **PAST)
    assert messages(desc) == [
        f"{op}.BiasTensor: Sizes [24] do not match {{hiddenSize + hiddenSize + valueHiddenSize}} = [28].",
        f"{op}.RelativePositionBiasTensor: Sizes [2, 4, 3, 5] do not match {{batchSize, headCount, sequenceLength, "
        "pastSequenceLength + keyValueSequenceLength} = [2, 4, 3, 12].",
    ]
    desc = mha(**{**PAST, "past_value_tensor": t(2, 4, 6, 2), "output_present_key_tensor": t(2, 4, 5, 2),
                  "output_present_value_tensor": t(2, 2, 12, 3)})
    assert messages(desc) == [
        f"{op}.PastValueTensor: Sizes [2, 4, 6, 2] do not match {{batchSize, headCount, pastSequenceLength, "
        "valueHeadSize} = [2, 4, 7, 3].",
        f"{op}.OutputPresentKeyTensor: Sizes [2, 4, 5, 2] do not match {{batchSize, headCount, pastSequenceLength + "
        "keyValueSequenceLength, headSize} = [2, 4, 12, 2].",
        f"{op}.OutputPresentValueTensor: Sizes [2, 2, 12, 3] do not match {{batchSize, headCount, "
        "pastSequenceLength + keyValueSequenceLength, valueHeadSize} = [2, 4, 12, 3].",
    ]
    assert messages(mha(past_key_tensor=t(2, 4, 7, 3), past_value_tensor=t(2, 4, 7, 3))) == [
        f"{op}.PastKeyTensor: Sizes [2, 4, 7, 3] do not match {{batchSize, headCount, pastSequenceLength, "
        "headSize} = [2, 4, 7, 2].",
    ]


def test_multihead_attention_masks():
    op = "MULTIHEAD_ATTENTION"
    assert messages(mha(mask_tensor=mask(1, 2))) == [
        f"{op}.MaskTensor: is given but MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE, which takes no mask "
        "(give another MaskType or no MaskTensor).",
    ]
    assert messages(mha(mask_type="BOOLEAN")) == []  # the type describes no mask; not refused
    expected = {
        "KEY_SEQUENCE_LENGTH": ((2, 1), "{1, batchSize} = [1, 2]"),
        "KEY_SEQUENCE_END_START": ((2, 2, 1), "{1, 2, batchSize} = [1, 2, 2]"),
        "KEY_QUERY_SEQUENCE_LENGTH_START_END": ((6,), "{batchSize * 3 + 2} = [8]"),
        "BOOLEAN": ((2, 1, 3, 5), "{batchSize, headCount, sequenceLength, pastSequenceLength + "
                                  "keyValueSequenceLength} = [2, 4, 3, 5]"),
    }
    for kind, (sizes, formula) in expected.items():
        assert messages(mha(mask_type=kind, mask_tensor=mask(*sizes))) == [
            f"{op}.MaskTensor: Sizes {list(sizes)} do not match {formula}.",
        ], kind


# ---------------------------------------------------------------- MULTIHEAD_ATTENTION1 (grouped-query)

def mha1(**changes):
    # 4 query heads over 2 key/value heads, headSize 2, valueHeadSize 3
    fields = dict(query_tensor=t(2, 3, 8), key_tensor=t(2, 5, 4), value_tensor=t(2, 5, 6), output_tensor=t(2, 3, 12),
                  scale=0.5, mask_filter_value=-10000.0, query_head_count=4, key_value_head_count=2, mask_type="NONE")
    fields.update(changes)
    return dmlops.MultiheadAttention1(**fields)


@pytest.mark.parametrize("desc", [
    mha1(),
    mha1(past_sequence_lengths_tensor=t(2), output_present_key_tensor=t(2, 2, 16, 2),
         output_present_value_tensor=t(2, 2, 16, 3)),  # ONNX Runtime's GroupQueryAttention: present = a cache
    mha1(bias_tensor=t(18), past_key_tensor=t(2, 2, 7, 2), past_value_tensor=t(2, 2, 7, 3),
         output_present_key_tensor=t(2, 2, 12, 2), relative_position_bias_tensor=t(2, 4, 3, 12),
         mask_type="BOOLEAN", mask_tensor=mask(2, 4, 3, 12)),
    mha1(query_head_count=2, query_tensor=None, key_tensor=None, value_tensor=None,
         stacked_query_key_value_tensor=t(2, 3, 2, 3, 2), output_tensor=t(2, 3, 4)),
    mha1(key_tensor=None, value_tensor=None, stacked_key_value_tensor=t(2, 5, 2, 2, 2), output_tensor=t(2, 3, 8)),
], ids=range(5))
def test_multihead_attention1_valid(desc):
    assert messages(desc) == []


def test_multihead_attention1_head_counts():
    op = "MULTIHEAD_ATTENTION1"
    assert messages(mha1(query_head_count=0, key_value_head_count=0)) == [
        f"{op}.QueryHeadCount: 0 is not allowed (allowed: 1 or more).",
        f"{op}.KeyValueHeadCount: 0 is not allowed (allowed: 1 or more).",
    ]
    assert messages(mha1(key_value_head_count=3)) == [f"{op}.QueryHeadCount: 4 is not a multiple of KeyValueHeadCount 3."]
    desc = mha1(query_tensor=None, key_tensor=None, value_tensor=None, stacked_query_key_value_tensor=t(2, 3, 4, 3, 2))
    assert messages(desc) == [
        f"{op}.StackedQueryKeyValueTensor: stacks query and key heads, so QueryHeadCount (4) must equal "
        "KeyValueHeadCount (2).",
    ]
    assert messages(mha1(query_tensor=t(2, 3, 6), output_tensor=t(2, 3, 12))) == [
        f"{op}.QueryHeadCount: 4 does not divide QueryTensor's hiddenSize 6.",
    ]


def test_multihead_attention1_sizes():
    op = "MULTIHEAD_ATTENTION1"
    assert messages(mha1(key_tensor=t(2, 5, 8), output_tensor=t(2, 3, 6), bias_tensor=t(28))) == [
        f"{op}.KeyTensor: Sizes [2, 5, 8] do not match {{batchSize, keyValueSequenceLength, KeyValueHeadCount * "
        "headSize} = [2, 5, 4].",
        f"{op}.OutputTensor: Sizes [2, 3, 6] do not match {{batchSize, sequenceLength, QueryHeadCount * "
        "valueHeadSize} = [2, 3, 12].",
        f"{op}.BiasTensor: Sizes [28] do not match {{(QueryHeadCount + KeyValueHeadCount) * headSize + "
        "KeyValueHeadCount * valueHeadSize} = [18].",
    ]
    assert messages(mha1(past_key_tensor=t(2, 4, 7, 2), past_value_tensor=t(2, 2, 7, 3),
                         output_present_value_tensor=t(2, 2, 5, 3))) == [
        f"{op}.PastKeyTensor: Sizes [2, 4, 7, 2] do not match {{batchSize, KeyValueHeadCount, pastSequenceLength, "
        "headSize} = [2, 2, 7, 2].",
        f"{op}.OutputPresentValueTensor: Sizes [2, 2, 5, 3] do not match {{batchSize, KeyValueHeadCount, "
        "pastSequenceLength + keyValueSequenceLength, valueHeadSize} = [2, 2, 12, 3].",
    ]
    assert messages(mha1(past_sequence_lengths_tensor=t(2, 1), output_present_key_tensor=t(2, 4, 9, 2))) == [
        f"{op}.OutputPresentKeyTensor: Sizes [2, 4, 9, 2] do not match {{batchSize, KeyValueHeadCount, "
        "presentSequenceLength, headSize} = [2, 2, 9, 2].",
        f"{op}.PastSequenceLengthsTensor: Sizes [2, 1] do not match {{1, batchSize}} = [1, 2].",
    ]
    assert messages(mha1(mask_type="BOOLEAN", mask_tensor=mask(2, 2, 3, 5))) == [
        f"{op}.MaskTensor: Sizes [2, 2, 3, 5] do not match {{batchSize, QueryHeadCount, sequenceLength, "
        "pastSequenceLength + keyValueSequenceLength} = [2, 4, 3, 5].",
    ]


# ---------------------------------------------------------------- DirectML's answers

OURS = ["MEAN_VARIANCE_NORMALIZATION", "MEAN_VARIANCE_NORMALIZATION1", "MEAN_VARIANCE_NORMALIZATION2",
        "LOCAL_RESPONSE_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION_GRAD", "LP_NORMALIZATION",
        "MATRIX_MULTIPLY_INTEGER", "MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "QUANTIZED_LINEAR_MATRIX_MULTIPLY",
        "MULTIHEAD_ATTENTION", "MULTIHEAD_ATTENTION1", "ELEMENT_WISE_QUANTIZE_LINEAR",
        "ELEMENT_WISE_DEQUANTIZE_LINEAR", "ELEMENT_WISE_QUANTIZED_LINEAR_ADD", "DYNAMIC_QUANTIZE_LINEAR", "QUANTIZE",
        "DEQUANTIZE"]
VECTOR_CASES = [c for c in V.cases() if c.op in OURS and not c.float64]


@pytest.mark.parametrize("case", VECTOR_CASES, ids=lambda c: c.id)
def test_directml_vectors(case):
    found = messages(case.desc(), "6.2")
    if case.rejected:
        assert found, "DirectML refused this descriptor"
    else:
        assert found == [], "DirectML ran this descriptor"


def test_directml_gap_vectors_name_the_field():
    gaps = {c.id: messages(c.desc(), "6.2") for c in VECTOR_CASES if c.name.startswith("gap_")}
    assert gaps == {
        "LP_NORMALIZATION-gap_factory_tier_3_1_dt_0_rank_min": [
            "LP_NORMALIZATION.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
        ],
        "MEAN_VARIANCE_NORMALIZATION1-gap_factory_tier_2_1_dt_0_rank_default_output_sizes_1_1_1_1_1_1_1_2": [
            "MEAN_VARIANCE_NORMALIZATION1.Axes: axis 1 appears more than once; each axis may be listed once.",
            "MEAN_VARIANCE_NORMALIZATION1.OutputTensor: Sizes [1, 1, 1, 2] do not match InputTensor Sizes "
            "= [1, 1, 1, 1].",
        ],
        "MEAN_VARIANCE_NORMALIZATION1-gap_factory_tier_3_1_dt_0_rank_min": [
            "MEAN_VARIANCE_NORMALIZATION1.Axes: axis 1 is out of range for a 1-dimensional InputTensor "
            "(allowed: 0 to 0).",
            "MEAN_VARIANCE_NORMALIZATION1.Axes: axis 1 appears more than once; each axis may be listed once.",
        ],
        "MULTIHEAD_ATTENTION-gap_factory_tier_6_1_dt_0_rank_default": [
            f"MULTIHEAD_ATTENTION.{b}: is given together with {a}; the two are mutually exclusive."
            for a, b in module("MULTIHEAD_ATTENTION").EXCLUSIVE
        ] + [
            "MULTIHEAD_ATTENTION.MaskTensor: is given but MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE, which "
            "takes no mask (give another MaskType or no MaskTensor).",
        ],
    }


# ---------------------------------------------------------------- robustness and hygiene

VALID = {
    "MEAN_VARIANCE_NORMALIZATION": mvn(), "MEAN_VARIANCE_NORMALIZATION1": mvn1(),
    "MEAN_VARIANCE_NORMALIZATION2": mvn1(dmlops.MeanVarianceNormalization2),
    "LOCAL_RESPONSE_NORMALIZATION": lrn(), "LOCAL_RESPONSE_NORMALIZATION_GRAD": lrn_grad(),
    "LP_NORMALIZATION": lp(), "MATRIX_MULTIPLY_INTEGER": mmi(az=(1, 1, 4, 1), bz=(1, 1, 1, 6)),
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT": mmi_float(a_scale=(1, 4, 1), a_zero=(1, 4, 1), b_scale=(1, 1, 6),
                                                  b_zero=(1, 1, 6), bias=(2, 4, 6)),
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": qlmm(),
    "MULTIHEAD_ATTENTION": mha(bias_tensor=t(28), relative_position_bias_tensor=t(2, 4, 3, 12), mask_type="BOOLEAN",
                               mask_tensor=mask(2, 4, 3, 12), **PAST),
    "MULTIHEAD_ATTENTION1": mha1(past_sequence_lengths_tensor=t(2), output_present_key_tensor=t(2, 2, 16, 2),
                                 output_present_value_tensor=t(2, 2, 16, 3)),
    "ELEMENT_WISE_QUANTIZE_LINEAR": quantize_linear(),
    "ELEMENT_WISE_DEQUANTIZE_LINEAR": dmlops.ElementWiseDequantizeLinear(
        input_tensor=t(2, 3, dt="INT8"), scale_tensor=t(2, 3), zero_point_tensor=t(2, 3, dt="INT8"),
        output_tensor=t(2, 3)),
    "ELEMENT_WISE_QUANTIZED_LINEAR_ADD": quantized_add(), "DYNAMIC_QUANTIZE_LINEAR": dynamic_quantize(),
    "QUANTIZE": quantize(), "DEQUANTIZE": quantize(dmlops.Dequantize),
}


@pytest.mark.parametrize("op", OURS)
def test_valid_examples(op):
    assert VALID[op].OPERATOR_TYPE == op
    assert messages(VALID[op]) == []


@pytest.mark.parametrize("op", OURS)
def test_registered(op):
    assert MODULES[op] == op.lower()
    assert module(op).check.__doc__


@pytest.mark.parametrize("op", OURS)
def test_missing_tensors_never_raise(op):
    assert_missing_tensors_never_raise(VALID[op], bare_only_required=False)


@pytest.mark.parametrize("op", OURS)
@pytest.mark.parametrize("rank", [1, 2, 3, 5, 9])
def test_wrong_ranks_never_raise(op, rank):
    assert_wrong_ranks_never_raise(VALID[op], rank, ("FLOAT32", "INT32", "UINT4"))


@pytest.mark.parametrize("op", OURS)
def test_odd_attributes_never_raise(op):
    desc = VALID[op]
    changes = {}
    for field in ("head_count", "query_head_count", "key_value_head_count", "local_size", "p", "axis"):
        if hasattr(desc, field):
            changes[field] = 0
    if hasattr(desc, "axes"):
        changes["axes"] = [9, 9, 0]
    if changes:
        assert isinstance(dmlops.problems(desc.replace(**changes), "6.4"), list)
