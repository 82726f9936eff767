"""Hand-written shape rules of the pooling, pooling-grad, resample, ROI, fold / unfold and integer-convolution
operators (their dmlops/ops/*.py check hooks and the shared dmlops/ops/_windows.py).

Each failing case asserts the complete list of messages, which also proves that the generic validator and the
hooks do not report the same thing twice. DirectML's own answers for these operators (accepted and refused
descriptors) are judged in tests/test_directml_vectors.py; the relations below go beyond those vectors.
"""
import dataclasses

import pytest

import dmlops
from tests.rules_common import assert_missing_tensors_never_raise, assert_wrong_ranks_never_raise
from dmlops.ops import MODULES, module


def t(*sizes, dt="FLOAT32"):
    return dmlops.TensorDesc(dt, list(sizes))


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


def hook(desc, level="6.4"):
    """The operator's check() alone, without the generic rules."""
    return [str(p) for p in module(desc.OPERATOR_TYPE).check(desc, dmlops.FeatureLevel.parse(level))]


def build(cls, **fields):
    """``cls`` with only the fields it has (the pooling versions differ by Dilations, P, IncludePadding, ...)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in fields.items() if k in names})


# ---------------------------------------------------------------- forward pooling

POOLING = {
    "AVERAGE_POOLING": dmlops.AveragePooling, "AVERAGE_POOLING1": dmlops.AveragePooling1,
    "LP_POOLING": dmlops.LpPooling, "LP_POOLING1": dmlops.LpPooling1, "MAX_POOLING": dmlops.MaxPooling,
    "MAX_POOLING1": dmlops.MaxPooling1, "MAX_POOLING2": dmlops.MaxPooling2,
}
DILATED = {"AVERAGE_POOLING1", "LP_POOLING1", "MAX_POOLING2"}
INDEXED = {"MAX_POOLING1", "MAX_POOLING2"}


def pool(op, x=(1, 2, 5, 6), y=(1, 2, 5, 3), strides=(1, 2), window=(3, 2), start=(1, 0), end=(1, 1),
         dilations=None, indices="same", p=2):
    """DirectML's vector float32_win3x2_s1x2_pad[1, 0][1, 1]: 5 x 6 into 5 x 3."""
    dims = len(strides)
    return build(POOLING[op], input_tensor=t(*x), output_tensor=t(*y),
                 output_indices_tensor=t(*(y if indices == "same" else indices), dt="UINT32") if indices else None,
                 strides=strides, window_size=window, start_padding=start, end_padding=end,
                 dilations=dilations or (1,) * dims, include_padding=True, p=p)


def arrays_text(op, window="WindowSize"):
    names = ["Strides", window, "StartPadding", "EndPadding"] + (["Dilations"] if op in DILATED else [])
    return ", ".join(names[:-1]) + " and " + names[-1]


@pytest.mark.parametrize("op", POOLING)
def test_pooling_valid(op):
    assert messages(pool(op)) == []
    assert messages(pool(op, indices=None)) == []
    # 3-D window (DirectML's vector float32_3d_rank5)
    assert messages(pool(op, x=(1, 2, 3, 4, 4), y=(1, 2, 2, 2, 2), strides=(1, 2, 2), window=(2, 2, 2),
                         start=(0, 0, 0), end=(0, 0, 0))) == []
    # windows made only of padding are allowed (DirectML's vector float32_fixed_twin_of_gap_rank4)
    assert messages(pool(op, x=(1, 1, 1, 1), y=(1, 1, 3, 3), strides=(1, 1), window=(1, 1), start=(1, 1),
                         end=(1, 1))) == []
    # floor: (6 + 0 + 0 - 2) / 3 + 1 = 2
    assert messages(pool(op, x=(2, 3, 6, 6), y=(2, 3, 2, 2), strides=(3, 3), window=(2, 2), start=(0, 0),
                         end=(0, 0))) == []


@pytest.mark.parametrize("op", POOLING)
def test_pooling_dimension_count(op):
    # DirectML refused a 5-D input with two-element arrays (vectors gap_factory_*_rank_max)
    assert messages(pool(op, x=(1, 2, 3, 5, 6), y=(1, 2, 3, 5, 3))) == [
        f"{op}.DimensionCount: 2 (the length of {arrays_text(op)}) does not fit a 5-dimensional InputTensor "
        "(expected: 3, its DimensionCount - 2).",
    ]


@pytest.mark.parametrize("op", POOLING)
def test_pooling_strides_window_dilations_at_least_one(op):
    desc = pool(op, strides=(0, 2), window=(3, 0), dilations=(1, 0) if op in DILATED else None)
    assert messages(desc) == [
        f"{op}.Strides[0]: 0 is not allowed (allowed: 1 or more).",
        f"{op}.WindowSize[1]: 0 is not allowed (allowed: 1 or more).",
    ] + ([f"{op}.Dilations[1]: 0 is not allowed (allowed: 1 or more)."] if op in DILATED else [])


@pytest.mark.parametrize("op", POOLING)
def test_pooling_output_sizes(op):
    found = (1, 2, 4, 3)
    tail = "do not match {BatchCount, ChannelCount, OutputHeight, OutputWidth} = [1, 2, 5, 3]."
    assert messages(pool(op, y=found)) == [f"{op}.OutputTensor: Sizes [1, 2, 4, 3] {tail}"] + (
        [f"{op}.OutputIndicesTensor: Sizes [1, 2, 4, 3] {tail}"] if op in INDEXED else [])
    # batch and channels are InputTensor's
    assert messages(pool(op, y=(2, 3, 5, 3))) == [
        f"{op}.OutputTensor: Sizes [2, 3, 5, 3] {tail}"] + (
        [f"{op}.OutputIndicesTensor: Sizes [2, 3, 5, 3] {tail}"] if op in INDEXED else [])
    assert messages(pool(op, x=(1, 2, 3, 4, 4), y=(1, 2, 2, 2, 3), strides=(1, 2, 2), window=(2, 2, 2),
                         start=(0, 0, 0), end=(0, 0, 0), indices=None)) == [
        f"{op}.OutputTensor: Sizes [1, 2, 2, 2, 3] do not match "
        "{BatchCount, ChannelCount, OutputDepth, OutputHeight, OutputWidth} = [1, 2, 2, 2, 2].",
    ]


@pytest.mark.parametrize("op", POOLING)
def test_pooling_window_larger_than_padded_input(op):
    desc = pool(op, x=(1, 2, 2, 6), y=(1, 2, 1, 3), window=(4, 2), start=(0, 0), end=(1, 1))
    what = "the dilated window extent 1 + (4 - 1) * 1 = 4" if op in DILATED else "the window extent 4"
    assert messages(desc) == [
        f"{op}.WindowSize: {what} in the Height dimension exceeds the padded InputTensor extent 2 + 0 + 1 = 3.",
    ]


@pytest.mark.parametrize("op", sorted(DILATED))
def test_pooling_dilated_window(op):
    # DirectML's vectors *_dil2: window 2, dilation 2 over 5 x 6 gives 3 x 4 (the page's formula has no Dilations)
    desc = pool(op, y=(1, 2, 3, 4), strides=(1, 1), window=(2, 2), start=(0, 0), end=(0, 0), dilations=(2, 2))
    assert messages(desc) == []
    assert messages(pool(op, y=(1, 2, 4, 5), strides=(1, 1), window=(2, 2), start=(0, 0), end=(0, 0),
                         dilations=(2, 2), indices=None)) == [
        f"{op}.OutputTensor: Sizes [1, 2, 4, 5] do not match "
        "{BatchCount, ChannelCount, OutputHeight, OutputWidth} = [1, 2, 3, 4].",
    ]
    assert messages(pool(op, x=(1, 2, 5, 6), y=(1, 2, 1, 1), strides=(1, 1), window=(3, 2), start=(0, 0),
                         end=(0, 0), dilations=(3, 1), indices=None)) == [
        f"{op}.WindowSize: the dilated window extent 1 + (3 - 1) * 3 = 7 in the Height dimension exceeds the "
        "padded InputTensor extent 5 + 0 + 0 = 5.",
    ]


@pytest.mark.parametrize("op", sorted(INDEXED))
def test_pooling_indices_have_the_output_sizes(op):
    # DirectML refused OutputIndicesTensor [1, 1, 1, 1] beside OutputTensor [1, 1, 1, 2] (vectors
    # gap_factory_*_output_sizes_*); both are held to the formula, so the right one is never blamed.
    assert messages(pool(op, indices=(1, 2, 5, 2))) == [
        f"{op}.OutputIndicesTensor: Sizes [1, 2, 5, 2] do not match "
        "{BatchCount, ChannelCount, OutputHeight, OutputWidth} = [1, 2, 5, 3].",
    ]


@pytest.mark.parametrize("op", ["LP_POOLING", "LP_POOLING1"])
def test_lp_pooling_p(op):
    assert messages(pool(op, p=1)) == []
    assert messages(pool(op, p=0)) == [f"{op}.P: 0 is not allowed (allowed: 1 or more)."]


# ---------------------------------------------------------------- pooling gradients

def avg_grad(dy=(1, 2, 5, 3), dx=(1, 2, 5, 6), strides=(1, 2), window=(3, 2), start=(1, 0), end=(1, 1)):
    """DirectML's vector AVERAGE_POOLING_GRAD float32."""
    return dmlops.AveragePoolingGrad(input_gradient_tensor=t(*dy), output_gradient_tensor=t(*dx), strides=strides,
                                     window_size=window, start_padding=start, end_padding=end, include_padding=True)


def max_grad(x=(1, 2, 5, 6), dy=(1, 2, 5, 3), dx=(1, 2, 5, 6), strides=(1, 2), window=(3, 2), start=(1, 0),
             end=(1, 1), dilations=(1, 1)):
    """DirectML's vector MAX_POOLING_GRAD float32."""
    return dmlops.MaxPoolingGrad(input_tensor=None if x is None else t(*x), input_gradient_tensor=t(*dy),
                                 output_gradient_tensor=t(*dx), strides=strides, window_size=window,
                                 start_padding=start, end_padding=end, dilations=dilations)


def test_pooling_grads_valid():
    assert messages(avg_grad()) == []
    assert messages(max_grad()) == []
    assert messages(max_grad(dy=(1, 2, 3, 3), strides=(1, 1), window=(2, 2), start=(0, 0), end=(0, 0),
                             dilations=(2, 3))) == []
    assert messages(avg_grad(dy=(2, 1, 2, 2, 2), dx=(2, 1, 3, 4, 4), strides=(1, 2, 2), window=(2, 2, 2),
                             start=(0, 0, 0), end=(0, 0, 0))) == []


def test_pooling_grads_input_gradient_is_the_forward_output():
    tail = "do not match {BatchCount, ChannelCount, OutputHeight, OutputWidth}"
    assert messages(avg_grad(dy=(1, 2, 5, 4))) == [
        f"AVERAGE_POOLING_GRAD.InputGradientTensor: Sizes [1, 2, 5, 4] {tail} = [1, 2, 5, 3].",
    ]
    assert messages(max_grad(dy=(1, 3, 5, 3))) == [
        f"MAX_POOLING_GRAD.InputGradientTensor: Sizes [1, 3, 5, 3] {tail} = [1, 2, 5, 3].",
    ]
    # without InputTensor (required: a generic rule) the forward input Sizes come from OutputGradientTensor
    assert messages(max_grad(x=None, dy=(1, 2, 5, 4))) == [
        "MAX_POOLING_GRAD.InputTensor: is required but missing (null).",
        f"MAX_POOLING_GRAD.InputGradientTensor: Sizes [1, 2, 5, 4] {tail} = [1, 2, 5, 3].",
    ]


def test_pooling_grads_dimension_count_and_window():
    assert messages(avg_grad(dy=(1, 2, 1, 5, 3), dx=(1, 2, 1, 5, 6))) == [
        "AVERAGE_POOLING_GRAD.DimensionCount: 2 (the length of Strides, WindowSize, StartPadding and EndPadding) "
        "does not fit a 5-dimensional OutputGradientTensor (expected: 3, its DimensionCount - 2).",
    ]
    assert messages(avg_grad(dy=(1, 2, 1, 3), dx=(1, 2, 1, 6), start=(0, 0), end=(0, 1))) == [
        "AVERAGE_POOLING_GRAD.WindowSize: the window extent 3 in the Height dimension exceeds the padded "
        "OutputGradientTensor extent 1 + 0 + 0 = 1.",
    ]
    assert messages(max_grad(strides=(1, 0))) == ["MAX_POOLING_GRAD.Strides[1]: 0 is not allowed (allowed: 1 or more)."]
    assert messages(max_grad(x=(1, 2, 1, 5, 6), dy=(1, 2, 1, 5, 3), dx=(1, 2, 1, 5, 6))) == [
        "MAX_POOLING_GRAD.DimensionCount: 2 (the length of Strides, WindowSize, StartPadding, EndPadding and "
        "Dilations) does not fit a 5-dimensional InputTensor (expected: 3, its DimensionCount - 2).",
    ]


# ---------------------------------------------------------------- quantized average pooling

def qpool(x=(1, 3, 4, 4), y=(1, 3, 2, 2), scale=(1, 1, 1, 1), zero=(1, 1, 1, 1), out_scale=(1, 1, 1, 1),
          out_zero=(1, 1, 1, 1), dims=2, dilations=None):
    return dmlops.QuantizedLinearAveragePooling(
        input_tensor=t(*x, dt="UINT8"), input_scale_tensor=t(*scale),
        input_zero_point_tensor=None if zero is None else t(*zero, dt="UINT8"),
        output_scale_tensor=t(*out_scale), output_zero_point_tensor=None if out_zero is None else t(*out_zero, dt="UINT8"),
        output_tensor=t(*y, dt="UINT8"), strides=(2,) * dims, window_size=(2,) * dims, start_padding=(0,) * dims,
        end_padding=(0,) * dims, dilations=dilations or (1,) * dims, include_padding=False)


def test_quantized_average_pooling_valid():
    assert messages(qpool()) == []
    assert messages(qpool(zero=None, out_zero=None)) == []
    assert messages(qpool(scale=(1, 3, 1, 1), zero=(1, 3, 1, 1), out_scale=(1, 3, 1, 1), out_zero=(1, 1, 1, 1))) == []
    assert messages(qpool(x=(1, 3, 4, 4, 4), y=(1, 3, 2, 2, 2), scale=(1, 3, 1, 1, 1), zero=(1, 1, 1, 1, 1),
                          out_scale=(1, 3, 1, 1, 1), out_zero=(1, 1, 1, 1, 1), dims=3)) == []
    assert messages(qpool(y=(1, 3, 3, 3), dilations=(1, 1)).replace(strides=(1, 1))) == []


def test_quantized_average_pooling_window_rules():
    op = "QUANTIZED_LINEAR_AVERAGE_POOLING"
    assert messages(qpool(y=(1, 3, 2, 3))) == [
        f"{op}.OutputTensor: Sizes [1, 3, 2, 3] do not match "
        "{BatchCount, ChannelCount, OutputHeight, OutputWidth} = [1, 3, 2, 2].",
    ]
    five = (1, 1, 1, 1, 1)
    assert messages(qpool(x=(1, 3, 1, 4, 4), y=(1, 3, 1, 2, 2), scale=five, zero=five, out_scale=five,
                          out_zero=five)) == [
        f"{op}.DimensionCount: 2 (the length of Strides, WindowSize, StartPadding, EndPadding and Dilations) does "
        "not fit a 5-dimensional InputTensor (expected: 3, its DimensionCount - 2).",
    ]
    assert messages(qpool(dilations=(0, 1))) == [f"{op}.Dilations[0]: 0 is not allowed (allowed: 1 or more)."]


def test_quantized_average_pooling_scale_and_zero_point_sizes():
    op = "QUANTIZED_LINEAR_AVERAGE_POOLING"
    assert messages(qpool(scale=(1, 2, 1, 1), zero=(3, 1, 1, 1), out_scale=(1, 1, 1, 1), out_zero=(1, 1, 3, 1))) == [
        f"{op}.InputScaleTensor: Sizes [1, 2, 1, 1] match neither {{1, 1, 1, 1}} (per tensor) nor "
        "{1, ChannelCount, 1, 1} = [1, 3, 1, 1] (per channel).",
        f"{op}.InputZeroPointTensor: Sizes [3, 1, 1, 1] match neither {{1, 1, 1, 1}} (per tensor) nor "
        "{1, ChannelCount, 1, 1} = [1, 3, 1, 1] (per channel).",
        f"{op}.OutputZeroPointTensor: Sizes [1, 1, 3, 1] match neither {{1, 1, 1, 1}} (per tensor) nor "
        "{1, ChannelCount, 1, 1} = [1, 3, 1, 1] (per channel).",
    ]


@pytest.mark.parametrize("sizes", [(1,), (3,), (3, 1, 1), (1, 1), (1, 3, 1, 1, 1)])
def test_quantized_average_pooling_parameters_have_the_input_dimension_count(sizes):
    """DirectML refused a 5-D pooling whose four parameter tensors were {1} (vector
    QUANTIZED_LINEAR_AVERAGE_POOLING-sample_int8_to_uint8_5d_include_padding); the tiers allow 1 to 5 dimensions,
    but the page and onnxruntime's DirectML provider give them the input's rank, and dmlops requires it."""
    op = "QUANTIZED_LINEAR_AVERAGE_POOLING"
    desc = qpool(out_scale=sizes)
    assert messages(desc) == [
        f"{op}.OutputScaleTensor: Sizes {list(sizes)} have {len(sizes)} dimension(s); the scale and zero-point "
        "tensors have InputTensor's DimensionCount, 4: {1, 1, 1, 1} (per tensor) or {1, ChannelCount, 1, 1} (per "
        "channel); give it 4 dimensions."]
    with pytest.raises(dmlops.DmlOpsError, match=rf"{op}\.OutputScaleTensor: Sizes \[.*\] have {len(sizes)} "
                                                 r"dimension\(s\); .* give it 4 dimensions\."):
        dmlops.compile(desc, backend="reference")


WINDOWED = {  # op: (builder, the forward input, its padded Height text)
    "AVERAGE_POOLING_GRAD": (lambda dilations=None, **kw: avg_grad(**kw), "OutputGradientTensor", "5 + 1 + 1 = 7"),
    "MAX_POOLING_GRAD": (lambda **kw: max_grad(**kw), "InputTensor", "5 + 1 + 1 = 7"),
    "QUANTIZED_LINEAR_AVERAGE_POOLING": (
        lambda strides=(2, 2), window=(2, 2), dilations=(1, 1): qpool(dilations=dilations).replace(
            strides=strides, window_size=window), "InputTensor", "4 + 0 + 0 = 4"),
}


@pytest.mark.parametrize("op", WINDOWED)
def test_windowed_operators_strides_and_window(op):
    make, source, padded = WINDOWED[op]
    dilated = op != "AVERAGE_POOLING_GRAD"
    assert messages(make(strides=(2, 0), window=(0, 2), dilations=(1, 0))) == [
        f"{op}.Strides[1]: 0 is not allowed (allowed: 1 or more).",
        f"{op}.WindowSize[0]: 0 is not allowed (allowed: 1 or more).",
    ] + ([f"{op}.Dilations[1]: 0 is not allowed (allowed: 1 or more)."] if dilated else [])
    what = "the dilated window extent 1 + (8 - 1) * 1 = 8" if dilated else "the window extent 8"
    assert messages(make(window=(8, 2))) == [
        f"{op}.WindowSize: {what} in the Height dimension exceeds the padded {source} extent {padded}.",
    ]


# ---------------------------------------------------------------- MAX_UNPOOLING, ROI_POOLING, UPSAMPLE_2D

def unpool(x=(1, 3, 2, 2), indices=(1, 3, 2, 2), y=(1, 3, 4, 5)):
    """DirectML's vector MAX_UNPOOLING float32."""
    return dmlops.MaxUnpooling(input_tensor=t(*x), indices_tensor=t(*indices, dt="UINT32"), output_tensor=t(*y))


def test_max_unpooling():
    assert messages(unpool()) == []
    assert messages(unpool(y=(1, 3, 2, 2))) == []
    assert messages(unpool(indices=(1, 3, 2, 1))) == [
        "MAX_UNPOOLING.IndicesTensor: Sizes [1, 3, 2, 1] do not match InputTensor's Sizes = [1, 3, 2, 2].",
    ]
    assert messages(unpool(y=(2, 1, 4, 5))) == [
        "MAX_UNPOOLING.OutputTensor: Sizes [2, 1, 4, 5] do not match {Batch, Channel, OutputHeight, OutputWidth} "
        "= [1, 3, 4, 5].",
    ]


def roi_pool(x=(2, 3, 6, 5), rois=(1, 1, 3, 5), y=(3, 3, 2, 2), pooled=(2, 2)):
    """DirectML's vector ROI_POOLING float32_pooled_2x2."""
    return dmlops.RoiPooling(input_tensor=t(*x), roi_tensor=t(*rois), output_tensor=t(*y), spatial_scale=1.0,
                             pooled_size=dmlops.Size2D(width=pooled[0], height=pooled[1]))


def test_roi_pooling():
    assert messages(roi_pool()) == []
    assert messages(roi_pool(y=(3, 3, 4, 2), pooled=(2, 4))) == []
    assert messages(roi_pool(rois=(1, 2, 3, 4))) == [
        "ROI_POOLING.ROITensor: Sizes [1, 2, 3, 4] do not match {1, 1, NumROIs, 5} = [1, 1, 3, 5].",
    ]
    assert messages(roi_pool(y=(2, 4, 2, 3))) == [
        "ROI_POOLING.OutputTensor: Sizes [2, 4, 2, 3] do not match "
        "{NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width} = [3, 3, 2, 2].",
    ]
    assert messages(roi_pool(pooled=(0, 2))) == [
        "ROI_POOLING.OutputTensor: Sizes [3, 3, 2, 2] do not match "
        "{NumROIs, InputChannelCount, PooledSize.Height, PooledSize.Width} = [3, 3, 2, 0].",
    ]


def upsample(x=(1, 2, 3, 4), y=(1, 2, 9, 8), height=3, width=2):
    """DirectML's vector UPSAMPLE_2D float32_nearest_neighbor_2x3."""
    return dmlops.Upsample2d(input_tensor=t(*x), output_tensor=t(*y), scale_size=dmlops.Size2D(width, height),
                             interpolation_mode="NEAREST_NEIGHBOR")


def test_upsample_2d():
    assert messages(upsample()) == []
    assert messages(upsample(x=(1, 2, 5, 3, 4), y=(1, 2, 5, 9, 8))) == []  # depth is never scaled
    assert messages(upsample(y=(1, 2, 9, 4))) == [
        "UPSAMPLE_2D.OutputTensor: Sizes [1, 2, 9, 4] do not match "
        "{InputBatchCount, InputChannelCount, InputHeight * HeightScale, InputWidth * WidthScale} = [1, 2, 9, 8].",
    ]
    assert messages(upsample(x=(1, 2, 5, 3, 4), y=(1, 2, 10, 9, 8))) == [
        "UPSAMPLE_2D.OutputTensor: Sizes [1, 2, 10, 9, 8] do not match {InputBatchCount, InputChannelCount, "
        "InputDepth, InputHeight * HeightScale, InputWidth * WidthScale} = [1, 2, 5, 9, 8].",
    ]
    assert messages(upsample(y=(1, 2, 3, 8), height=0)) == [
        "UPSAMPLE_2D.ScaleSize.Height: 0 is not allowed (allowed: 1 to UINT_MAX / InputHeight = 1431655765).",
        "UPSAMPLE_2D.OutputTensor: Sizes [1, 2, 3, 8] do not match "
        "{InputBatchCount, InputChannelCount, InputHeight * HeightScale, InputWidth * WidthScale} = [1, 2, 0, 8].",
    ]
    big = (2**32 - 1) // 4 + 1
    assert messages(upsample(x=(1, 1, 1, 4), y=(1, 1, 1, 4), height=1, width=big)) == [
        f"UPSAMPLE_2D.ScaleSize.Width: {big} is not allowed (allowed: 1 to UINT_MAX / InputWidth = {big - 1}).",
        "UPSAMPLE_2D.OutputTensor: Sizes [1, 1, 1, 4] do not match "
        "{InputBatchCount, InputChannelCount, InputHeight * HeightScale, InputWidth * WidthScale} = "
        f"[1, 1, 1, {4 * big}].",
    ]
    assert messages(upsample().replace(input_tensor=None)) == ["UPSAMPLE_2D.InputTensor: is required but missing (null)."]
    assert messages(upsample(height=0).replace(input_tensor=None)) == [
        "UPSAMPLE_2D.InputTensor: is required but missing (null).",
        "UPSAMPLE_2D.ScaleSize.Height: 0 is not allowed (allowed: 1 or more).",
    ]


@pytest.mark.parametrize("axis", [2, 3])
def test_upsample_2d_zero_sized_axis_is_named_not_divided_by(axis):
    """A 0 in InputHeight or InputWidth raised ZeroDivisionError in problems() (UINT_MAX / InputSize)."""
    x, y = [1, 2, 3, 4], [1, 2, 9, 8]
    x[axis] = y[axis] = 0
    name = {2: "Height", 3: "Width"}[axis]
    found = messages(upsample(x=x, y=y))
    assert found == [f"UPSAMPLE_2D.InputTensor: Sizes {x} contain 0; every size must be at least 1.",
                     f"UPSAMPLE_2D.OutputTensor: Sizes {y} contain 0; every size must be at least 1."]
    assert f"UPSAMPLE_2D.ScaleSize.{name}: 0 is not allowed (allowed: 1 or more)." in messages(
        upsample(x=x, y=y, **{name.lower(): 0}))
    with pytest.raises(dmlops.DmlOpsError, match=r"UPSAMPLE_2D\.InputTensor: Sizes \[.*\] contain 0"):
        dmlops.compile(upsample(x=x, y=y), backend="reference")


# ---------------------------------------------------------------- resample family

RESAMPLE = {
    "RESAMPLE1": dmlops.Resample1, "RESAMPLE2": dmlops.Resample2, "RESAMPLE3": dmlops.Resample3,
    "RESAMPLE_GRAD": dmlops.ResampleGrad, "RESAMPLE_GRAD1": dmlops.ResampleGrad1,
}


def resample(op, x=(1, 2, 3, 4), y=(1, 2, 6, 6), scales=(1.0, 1.0, 2.0, 1.5), offsets=None):
    """DirectML's vectors *_scales_2.0_1.5 (the grads take the forward output as InputGradientTensor)."""
    n = len(scales)
    fields = dict(interpolation_mode="LINEAR", rounding_direction="DECREASING", scales=scales,
                  input_pixel_offsets=offsets or (0.5,) * n, output_pixel_offsets=(-0.5,) * n, antialiased=False)
    if op == "RESAMPLE":
        return dmlops.Resample(input_tensor=t(*x), output_tensor=t(*y), interpolation_mode="LINEAR", scales=scales)
    if op.startswith("RESAMPLE_GRAD"):
        return build(RESAMPLE[op], input_gradient_tensor=t(*y), output_gradient_tensor=t(*x), **fields)
    return build(RESAMPLE[op], input_tensor=t(*x), output_tensor=t(*y), **fields)


ALL_RESAMPLE = ["RESAMPLE"] + list(RESAMPLE)


@pytest.mark.parametrize("op", ALL_RESAMPLE)
def test_resample_valid(op):
    assert messages(resample(op)) == []
    assert messages(resample(op, x=(5,), y=(2,), scales=(0.5,))) == []
    # the scales need not be OutputSize / InputSize (the page: cropped or clamped at the edges)
    assert messages(resample(op, y=(1, 2, 7, 5))) == []
    assert messages(resample(op, x=(4, 3), y=(1, 9), scales=(0.25, 3.0))) == []


@pytest.mark.parametrize("op", ALL_RESAMPLE)
def test_resample_scale_count(op):
    # DirectML refused two scales for 4-D tensors (vectors RESAMPLE gap_factory_*)
    field, arrays = ("ScaleCount", "Scales") if op == "RESAMPLE" else (
        "DimensionCount", "Scales, InputPixelOffsets and OutputPixelOffsets")
    source = "InputGradientTensor" if op.startswith("RESAMPLE_GRAD") else "InputTensor"
    assert messages(resample(op, scales=(2.0, 1.5))) == [
        f"{op}.{field}: 2 (the length of {arrays}) does not fit a 4-dimensional {source} "
        "(expected: 4, its DimensionCount).",
    ]


@pytest.mark.parametrize("op", ALL_RESAMPLE)
def test_resample_scales_positive(op):
    assert messages(resample(op, scales=(1.0, 0.0, -2.0, float("nan")))) == [
        f"{op}.Scales[1]: 0.0 is not allowed (allowed: greater than 0).",
        f"{op}.Scales[2]: -2.0 is not allowed (allowed: greater than 0).",
        f"{op}.Scales[3]: nan is not allowed (allowed: greater than 0).",
    ]


# ---------------------------------------------------------------- ROI align family

def roi_align(cls=dmlops.RoiAlign1, x=(2, 3, 6, 5), rois=(1, 1, 3, 4), indices=(1, 1, 1, 3), y=(3, 3, 2, 3),
              reduction="AVERAGE", low=1, high=4):
    """DirectML's vectors ROI_ALIGN(1) float32_average_linear."""
    return build(cls, input_tensor=t(*x), roi_tensor=t(*rois), batch_indices_tensor=t(*indices, dt="UINT32"),
                 output_tensor=t(*y), reduction_function=reduction, interpolation_mode="LINEAR", spatial_scale_x=1.0,
                 spatial_scale_y=1.0, input_pixel_offset=0.5, output_pixel_offset=-0.5, out_of_bounds_input_value=0.0,
                 minimum_samples_per_output=low, maximum_samples_per_output=high, align_regions_to_corners=False)


ROI_ALIGN = {"ROI_ALIGN": dmlops.RoiAlign, "ROI_ALIGN1": dmlops.RoiAlign1}


@pytest.mark.parametrize("op", ROI_ALIGN)
def test_roi_align_valid(op):
    cls = ROI_ALIGN[op]
    assert messages(roi_align(cls)) == []
    assert messages(roi_align(cls, reduction="MAX", low=2, high=2)) == []
    for rois, indices in [((3, 4), (3,)), ((1, 3, 4), (1, 3)), ((3, 4), (1, 1, 3)), ((1, 1, 3, 4), (3,))]:
        assert messages(roi_align(cls, rois=rois, indices=indices)) == []


@pytest.mark.parametrize("op", ROI_ALIGN)
def test_roi_align_rules(op):
    cls = ROI_ALIGN[op]
    # DirectML refused ARGMAX with a {1, 1, 1, 1} ROITensor (vector ROI_ALIGN gap_factory_tier_3_0_dt_0_rank_default)
    assert messages(roi_align(cls, reduction="ARGMAX", rois=(1, 1, 1, 1), indices=(1,), y=(1, 3, 2, 3))) == [
        f"{op}.ReductionFunction: DML_REDUCE_FUNCTION_ARGMAX is not allowed "
        "(allowed: DML_REDUCE_FUNCTION_AVERAGE or DML_REDUCE_FUNCTION_MAX).",
        f"{op}.ROITensor: Sizes [1, 1, 1, 1] do not match {{1, 1, NumROIs, 4}} = [1, 1, 1, 4].",
    ]
    assert messages(roi_align(cls, rois=(2, 3, 4), indices=(1, 1, 3))) == [
        f"{op}.ROITensor: Sizes [2, 3, 4] do not match {{1, NumROIs, 4}} = [1, 3, 4].",
    ]
    assert messages(roi_align(cls, indices=(1, 3, 1))) == [
        f"{op}.BatchIndicesTensor: Sizes [1, 3, 1] do not match {{1, 1, NumROIs}} = [1, 1, 3].",
    ]
    assert messages(roi_align(cls, indices=(2,))) == [
        f"{op}.BatchIndicesTensor: Sizes [2] do not match {{NumROIs}} = [3].",
    ]
    assert messages(roi_align(cls, y=(2, 1, 2, 3))) == [
        f"{op}.OutputTensor: Sizes [2, 1, 2, 3] do not match "
        "{NumROIs, ChannelCount, OutputHeight, OutputWidth} = [3, 3, 2, 3].",
    ]
    assert messages(roi_align(cls, low=5, high=4)) == [
        f"{op}.MinimumSamplesPerOutput: 5 is greater than MaximumSamplesPerOutput 4 (allowed: at most 4; the "
        "sample count is clamped to [MinimumSamplesPerOutput, MaximumSamplesPerOutput]).",
    ]


def roi_grad(x=(2, 3, 6, 5), dy=(3, 3, 2, 3), rois=(1, 1, 3, 4), indices=(1, 1, 1, 3), dx=(2, 3, 6, 5),
             droi=(1, 1, 3, 4), reduction="AVERAGE"):
    return dmlops.RoiAlignGrad(
        input_tensor=None if x is None else t(*x), input_gradient_tensor=t(*dy), roi_tensor=t(*rois),
        batch_indices_tensor=t(*indices, dt="UINT32"), output_gradient_tensor=None if dx is None else t(*dx),
        output_roi_gradient_tensor=None if droi is None else t(*droi), reduction_function=reduction,
        interpolation_mode="LINEAR", spatial_scale_x=1.0, spatial_scale_y=1.0, input_pixel_offset=0.5,
        output_pixel_offset=-0.5, minimum_samples_per_output=1, maximum_samples_per_output=4,
        align_regions_to_corners=False)


def test_roi_align_grad_valid():
    assert messages(roi_grad()) == []
    assert messages(roi_grad(x=None, droi=None)) == []  # AVERAGE and no ROI gradient: InputTensor optional
    assert messages(roi_grad(dx=None, reduction="MAX")) == []
    assert messages(roi_grad(rois=(3, 4), droi=(3, 4), indices=(3,))) == []


def test_roi_align_grad_required_tensors():
    op = "ROI_ALIGN_GRAD"
    assert messages(roi_grad(dx=None, droi=None)) == [
        f"{op}: OutputGradientTensor and OutputROIGradientTensor are both null; at least one must be supplied.",
    ]
    assert messages(roi_grad(x=None, reduction="MAX")) == [
        f"{op}.InputTensor: is missing (null); it is required when OutputROIGradientTensor is supplied.",
        f"{op}.InputTensor: is missing (null); it is required when ReductionFunction is DML_REDUCE_FUNCTION_MAX.",
    ]


def test_roi_align_grad_sizes():
    op = "ROI_ALIGN_GRAD"
    assert messages(roi_grad(dy=(3, 2, 2, 3))) == [
        f"{op}.InputGradientTensor: Sizes [3, 2, 2, 3] do not match "
        "{NumROIs, ChannelCount, OutputHeight, OutputWidth} = [3, 3, 2, 3].",
    ]
    assert messages(roi_grad(dx=(2, 3, 6, 4))) == [
        f"{op}.OutputGradientTensor: Sizes [2, 3, 6, 4] do not match InputTensor's Sizes = [2, 3, 6, 5].",
    ]
    # without InputTensor the channel count comes from OutputGradientTensor
    assert messages(roi_grad(x=None, droi=None, dy=(3, 2, 2, 3))) == [
        f"{op}.InputGradientTensor: Sizes [3, 2, 2, 3] do not match "
        "{NumROIs, ChannelCount, OutputHeight, OutputWidth} = [3, 3, 2, 3].",
    ]
    assert messages(roi_grad(droi=(3, 4))) == [
        f"{op}.OutputROIGradientTensor: Sizes [3, 4] do not match ROITensor's Sizes = [1, 1, 3, 4].",
    ]
    assert messages(roi_grad(rois=(1, 1, 3, 5), droi=(1, 1, 3, 5), indices=(1, 4), reduction="ARGMIN")) == [
        f"{op}.ReductionFunction: DML_REDUCE_FUNCTION_ARGMIN is not allowed "
        "(allowed: DML_REDUCE_FUNCTION_AVERAGE or DML_REDUCE_FUNCTION_MAX).",
        f"{op}.ROITensor: Sizes [1, 1, 3, 5] do not match {{1, 1, NumROIs, 4}} = [1, 1, 3, 4].",
        f"{op}.BatchIndicesTensor: Sizes [1, 4] do not match {{1, NumROIs}} = [1, 3].",
    ]


# ---------------------------------------------------------------- FOLD / UNFOLD

def fold(cls, x, y, window, strides=None, dilations=None, start=None, end=None):
    n = len(window)
    return cls(input_tensor=t(*x), output_tensor=t(*y), window_sizes=window, strides=strides or (1,) * n,
               dilations=dilations or (1,) * n, start_padding=start or (0,) * n, end_padding=end or (0,) * n)


def test_fold_unfold_valid():
    # one spatial dimension: both tensors are 3-D, which the descriptor's same-DimensionCount rule also accepts
    assert messages(fold(dmlops.Unfold, (2, 3, 7), (2, 6, 6), (2,))) == []
    assert messages(fold(dmlops.Fold, (2, 6, 6), (2, 3, 7), (2,))) == []
    assert messages(fold(dmlops.Unfold, (1, 2, 9), (1, 6, 4), (3,), strides=(2,), dilations=(2,), start=(1,),
                         end=(2,))) == []


@pytest.mark.parametrize("name, cls, x, y, window, start, end", [
    # the pages' examples: ranks differ, against the pages' own "same DimensionCount" constraint
    ("unfold example 1", dmlops.Unfold, (1, 1, 5, 5), (1, 9, 9), (3, 3), (0, 0), (0, 0)),
    ("unfold example 2", dmlops.Unfold, (1, 1, 5, 5), (1, 9, 15), (3, 3), (1, 0), (1, 0)),
    ("fold example 1", dmlops.Fold, (1, 9, 4), (1, 1, 4, 4), (3, 3), (0, 0), (0, 0)),
    ("fold example 3", dmlops.Fold, (1, 18, 8), (1, 2, 4, 4), (3, 3), (1, 0), (1, 0)),
])
def test_fold_unfold_docs_examples_pass_the_hook(name, cls, x, y, window, start, end):
    desc = fold(cls, x, y, window, start=start, end=end)
    assert module(cls.OPERATOR_TYPE).check(desc, dmlops.FeatureLevel.parse("6.4")) == []


def test_fold_unfold_column_tensor():
    assert messages(fold(dmlops.Unfold, (2, 3, 7), (2, 6, 5), (2,))) == [
        "UNFOLD.OutputTensor: Sizes [2, 6, 5] do not match {BatchCount, ChannelCount * prod(WindowSizes), "
        "BlockCount} = [2, 6, 6].",
    ]
    assert messages(fold(dmlops.Fold, (2, 5, 6), (2, 3, 7), (2,))) == [
        "FOLD.InputTensor: Sizes [2, 5, 6] do not match {BatchCount, ChannelCount * prod(WindowSizes), "
        "BlockCount} = [2, 6, 6].",
    ]
    # the column tensor is 3-D (the generic rule adds the pages' same-DimensionCount constraint)
    assert messages(fold(dmlops.Unfold, (1, 1, 5, 5), (1, 9, 9, 1), (3, 3))) == [
        "UNFOLD.OutputTensor: 4 dimensions (Sizes [1, 9, 9, 1]); OutputTensor is {BatchCount, ChannelCount * "
        "prod(WindowSizes), BlockCount} (allowed: 3).",
    ]
    assert hook(fold(dmlops.Unfold, (1, 1, 2, 5), (1, 9, 9, 1), (3, 3))) == [
        "UNFOLD.OutputTensor: 4 dimensions (Sizes [1, 9, 9, 1]); OutputTensor is {BatchCount, ChannelCount * "
        "prod(WindowSizes), BlockCount} (allowed: 3).",
        "UNFOLD.WindowSizes: the dilated window extent 1 + (3 - 1) * 1 = 3 in the Height dimension exceeds the "
        "padded InputTensor extent 2 + 0 + 0 = 2.",
    ]


def test_fold_unfold_dimension_count_and_window():
    assert messages(fold(dmlops.Unfold, (2, 3, 7), (2, 6, 6), (2, 2))) == [
        "UNFOLD.DimensionCount: 2 (the length of WindowSizes, Strides, Dilations, StartPadding and EndPadding) "
        "does not fit a 3-dimensional InputTensor (expected: 1, its DimensionCount - 2).",
    ]
    assert messages(fold(dmlops.Fold, (2, 6, 6), (2, 3, 7), (2, 2))) == [
        "FOLD.DimensionCount: 2 (the length of WindowSizes, Strides, Dilations, StartPadding and EndPadding) "
        "does not fit a 3-dimensional OutputTensor (expected: 1, its DimensionCount - 2).",
    ]
    assert messages(fold(dmlops.Unfold, (2, 3, 7), (2, 6, 6), (2,), strides=(0,), dilations=(0,))) == [
        "UNFOLD.Strides[0]: 0 is not allowed (allowed: 1 or more).",
        "UNFOLD.Dilations[0]: 0 is not allowed (allowed: 1 or more).",
    ]
    assert messages(fold(dmlops.Fold, (2, 9, 1), (2, 3, 3), (3,), dilations=(2,), start=(1,))) == [
        "FOLD.WindowSizes: the dilated window extent 1 + (3 - 1) * 2 = 5 in the Width dimension exceeds the padded "
        "OutputTensor extent 3 + 1 + 0 = 4.",
    ]
    # 7 spatial dimensions; the image tensors below are 8-D and the column tensors 3-D, so the hook alone is asked
    # (the descriptor's same-DimensionCount rule, which the pages' examples contradict, would add its own problem)
    assert hook(fold(dmlops.Unfold, (1, 1, 2, 2, 2, 2, 2, 2), (1, 1, 64), (1,) * 7)) == [
        "UNFOLD.DimensionCount: 7 is not allowed (allowed: 1 to 6).",
    ]
    assert hook(fold(dmlops.Fold, (1, 1, 64), (1, 1, 2, 2, 2, 2, 2, 2), (1,) * 7)) == [
        "FOLD.DimensionCount: 7 is not allowed (allowed: at most 6).",
    ]
    assert hook(fold(dmlops.Unfold, (1, 1, 2, 2, 2, 2, 2, 2), (1, 1, 64), (1,) * 5)) == [
        "UNFOLD.DimensionCount: 5 (the length of WindowSizes, Strides, Dilations, StartPadding and EndPadding) "
        "does not fit an 8-dimensional InputTensor (expected: 6, its DimensionCount - 2).",
    ]
    assert hook(fold(dmlops.Unfold, (1, 1, 2, 2, 2, 2, 2, 2), (1, 1, 64), (1,) * 6)) == []
    assert hook(fold(dmlops.Unfold, (1, 2, 3, 2, 2, 2, 2, 2), (1, 2, 64), (2, 1, 1, 1, 1, 1))) == [
        "UNFOLD.OutputTensor: Sizes [1, 2, 64] do not match {BatchCount, ChannelCount * prod(WindowSizes), "
        "BlockCount} = [1, 4, 64].",
    ]
    assert hook(fold(dmlops.Unfold, (1, 2, 3, 2, 2, 2, 2, 2), (1, 4, 64), (2, 1, 1, 3, 1, 1))) == [
        "UNFOLD.WindowSizes: the dilated window extent 1 + (3 - 1) * 1 = 3 in spatial dimension 3 exceeds the "
        "padded InputTensor extent 2 + 0 + 0 = 2.",
    ]


# ---------------------------------------------------------------- integer convolutions

def conv_int(x=(1, 4, 5, 5), w=(6, 2, 3, 3), y=(1, 6, 3, 3), x_zero=(1, 1, 1, 1), w_zero=(1, 1, 1, 1), groups=2,
             strides=None, dilations=None, start=None, end=None):
    n = len(x) - 2
    return dmlops.ConvolutionInteger(
        input_tensor=t(*x, dt="UINT8"), input_zero_point_tensor=None if x_zero is None else t(*x_zero, dt="UINT8"),
        filter_tensor=t(*w, dt="UINT8"), filter_zero_point_tensor=None if w_zero is None else t(*w_zero, dt="UINT8"),
        output_tensor=t(*y, dt="INT32"), strides=strides or (1,) * n, dilations=dilations or (1,) * n,
        start_padding=start or (0,) * n, end_padding=end or (0,) * n, group_count=groups)


def qconv(x=(1, 4, 5, 5), w=(6, 2, 3, 3), y=(1, 6, 3, 3), bias=(1, 6, 1, 1), scales=None, zeros=None, groups=2,
          strides=None, dilations=None, start=None, end=None):
    """Scale / zero-point Sizes: per tensor unless given."""
    n = len(x) - 2
    one = (1,) * len(x)
    scales, zeros = dict(scales or {}), dict(zeros or {})
    return dmlops.QuantizedLinearConvolution(
        input_tensor=t(*x, dt="INT8"), input_scale_tensor=t(*scales.get("input", one)),
        input_zero_point_tensor=t(*zeros.get("input", one), dt="INT8"), filter_tensor=t(*w, dt="INT8"),
        filter_scale_tensor=t(*scales.get("filter", one)),
        filter_zero_point_tensor=t(*zeros.get("filter", one), dt="INT8"),
        bias_tensor=None if bias is None else t(*bias, dt="INT32"), output_scale_tensor=t(*scales.get("output", one)),
        output_zero_point_tensor=t(*zeros.get("output", one), dt="INT8"), output_tensor=t(*y, dt="INT8"),
        strides=strides or (1,) * n, dilations=dilations or (1,) * n, start_padding=start or (0,) * n,
        end_padding=end or (0,) * n, group_count=groups)


CONV = {"CONVOLUTION_INTEGER": lambda **kw: conv_int(**kw),
        "QUANTIZED_LINEAR_CONVOLUTION": lambda **kw: qconv(bias=None, **kw)}


def test_integer_convolutions_valid():
    assert messages(conv_int()) == []
    assert messages(conv_int(x_zero=None, w_zero=(1, 6, 1, 1))) == []
    assert messages(conv_int(x=(2, 3, 7), w=(4, 3, 3), y=(2, 4, 3), x_zero=(1, 1, 1), w_zero=(1, 4, 1), groups=1,
                             strides=(2,))) == []
    # per tensor, fewer dimensions; per channel, InputTensor's DimensionCount (DirectML refused {2, 1, 1} for 4-D)
    assert messages(conv_int(x=(2, 3, 7), w=(4, 3, 3), y=(2, 4, 3), x_zero=(1, 1), w_zero=(1, 1), groups=1)) == []
    assert messages(conv_int(x=(2, 3, 7), w=(4, 3, 3), y=(2, 4, 3), x_zero=(1, 1), w_zero=(4, 1), groups=1)) == [
        "CONVOLUTION_INTEGER.FilterZeroPointTensor: Sizes [4, 1] hold 4 zero points in 2 dimensions; a per-channel "
        "FilterZeroPointTensor has InputTensor's DimensionCount (3): {1, OutputChannelCount, 1} = [1, 4, 1].",
    ]
    # spatial output sizes are free, as for CONVOLUTION (module docstring)
    assert messages(conv_int(y=(1, 6, 4, 2))) == []
    assert messages(qconv()) == []
    assert messages(qconv(y=(1, 6, 5, 1))) == []
    assert messages(qconv(x=(2, 3, 7), w=(4, 3, 3), y=(2, 4, 3), bias=(1, 4, 1), groups=1,
                          scales={"input": (1,), "filter": (4, 1)}, zeros={"filter": (1, 4, 1)})) == []
    assert messages(qconv(bias=None, scales={"filter": (1, 6, 1, 1)}, zeros={"filter": (6, 1, 1), "output": (1,)})) == []


@pytest.mark.parametrize("op", CONV)
def test_integer_convolution_window_rules(op):
    conv = CONV[op]
    assert messages(conv(x=(1, 4, 5), w=(6, 2, 3), y=(1, 6, 3), strides=(1, 1), dilations=(1, 1), start=(0, 0),
                         end=(0, 0))) == [
        f"{op}.DimensionCount: 2 (the length of Strides, Dilations, StartPadding and EndPadding) does not fit a "
        "3-dimensional InputTensor (expected: 1, its DimensionCount - 2).",
    ]
    assert messages(conv(strides=(1, 1, 1), dilations=(1, 1, 1), start=(0, 0, 0), end=(0, 0, 0))) == [
        f"{op}.DimensionCount: 3 (the length of Strides, Dilations, StartPadding and EndPadding) does not fit a "
        "4-dimensional InputTensor (expected: 2, its DimensionCount - 2).",
    ]
    assert messages(conv(strides=(0, 1), dilations=(1, 0), groups=0)) == [
        f"{op}.Strides[0]: 0 is not allowed (allowed: 1 or more).",
        f"{op}.Dilations[1]: 0 is not allowed (allowed: 1 or more).",
        f"{op}.GroupCount: 0 is not allowed (allowed: 1 or more).",
    ]
    assert messages(conv(dilations=(3, 1))) == [
        f"{op}.FilterTensor: the dilated filter extent 1 + (3 - 1) * 3 = 7 in the Height dimension exceeds the "
        "padded input extent 5 + 0 + 0 = 5.",
    ]


@pytest.mark.parametrize("op", CONV)
def test_integer_convolution_channels(op):
    conv = CONV[op]
    assert messages(conv(groups=3, w=(6, 1, 3, 3))) == [
        f"{op}.GroupCount: 3 does not divide InputTensor's channel count 4 (Sizes[1]).",
    ]
    assert messages(conv(w=(5, 2, 3, 3), y=(1, 5, 3, 3))) == [
        f"{op}.GroupCount: 2 does not divide FilterTensor's output channel count 5 (Sizes[0]).",
    ]
    assert messages(conv(w=(6, 4, 3, 3))) == [
        f"{op}.FilterTensor: Sizes [6, 4, 3, 3] do not match "
        "{OutputChannelCount, InputChannelCount / GroupCount, FilterHeight, FilterWidth} = [6, 2, 3, 3].",
    ]
    assert messages(conv(y=(2, 4, 3, 3))) == [
        f"{op}.OutputTensor: Sizes [2, 4, 3, 3] do not match "
        "{BatchCount, OutputChannelCount, OutputHeight, OutputWidth} = [1, 6, 3, 3].",
    ]


def test_integer_convolution_zero_points():
    assert messages(conv_int(x_zero=(1, 4, 1, 1), w_zero=(1, 4, 1, 1))) == [
        "CONVOLUTION_INTEGER.InputZeroPointTensor: Sizes [1, 4, 1, 1] do not match {1, 1, 1, 1} = [1, 1, 1, 1].",
        "CONVOLUTION_INTEGER.FilterZeroPointTensor: Sizes [1, 4, 1, 1] match neither {1, 1, 1, 1} (per tensor) nor "
        "{1, OutputChannelCount, 1, 1} = [1, 6, 1, 1] (per channel).",
    ]


def test_quantized_linear_convolution_parameters():
    op = "QUANTIZED_LINEAR_CONVOLUTION"
    assert messages(qconv(scales={"input": (1, 4, 1, 1), "filter": (1, 1, 6, 1), "output": (2,)},
                          zeros={"input": (1, 1, 1, 2), "filter": (6,), "output": (1, 1, 1, 6)})) == [
        f"{op}.InputScaleTensor: Sizes [1, 4, 1, 1] do not match {{1, 1, 1, 1}} = [1, 1, 1, 1].",
        f"{op}.InputZeroPointTensor: Sizes [1, 1, 1, 2] do not match {{1, 1, 1, 1}} = [1, 1, 1, 1].",
        f"{op}.OutputScaleTensor: Sizes [2] do not match {{1}} = [1].",
        f"{op}.OutputZeroPointTensor: Sizes [1, 1, 1, 6] do not match {{1, 1, 1, 1}} = [1, 1, 1, 1].",
        f"{op}.FilterScaleTensor: Sizes [1, 1, 6, 1] match neither {{1, 1, 1, 1}} (per tensor) nor "
        "{1, OutputChannelCount, 1, 1} = [1, 6, 1, 1] (per channel).",
        f"{op}.FilterZeroPointTensor: Sizes [6] do not match {{1}} = [1].",
    ]
    assert messages(qconv(bias=(1, 4, 1, 1))) == [
        f"{op}.BiasTensor: Sizes [1, 4, 1, 1] do not match {{1, OutputChannelCount, 1, 1}} = [1, 6, 1, 1].",
    ]
    assert messages(qconv(w=(6, 2, 3, 3), y=(1, 5, 3, 3))) == [
        f"{op}.OutputTensor: Sizes [1, 5, 3, 3] do not match "
        "{BatchCount, OutputChannelCount, OutputHeight, OutputWidth} = [1, 6, 3, 3].",
    ]


# ---------------------------------------------------------------- robustness and hygiene

VALID = {
    **{op: pool(op) for op in POOLING},
    "AVERAGE_POOLING_GRAD": avg_grad(), "MAX_POOLING_GRAD": max_grad(),
    "QUANTIZED_LINEAR_AVERAGE_POOLING": qpool(), "MAX_UNPOOLING": unpool(), "ROI_POOLING": roi_pool(),
    "UPSAMPLE_2D": upsample(), **{op: resample(op) for op in ALL_RESAMPLE},
    "ROI_ALIGN": roi_align(dmlops.RoiAlign), "ROI_ALIGN1": roi_align(), "ROI_ALIGN_GRAD": roi_grad(reduction="MAX"),
    "FOLD": fold(dmlops.Fold, (2, 6, 6), (2, 3, 7), (2,)), "UNFOLD": fold(dmlops.Unfold, (2, 3, 7), (2, 6, 6), (2,)),
    "CONVOLUTION_INTEGER": conv_int(), "QUANTIZED_LINEAR_CONVOLUTION": qconv(),
}
OURS = sorted(VALID)


def test_every_operator_is_covered():
    assert len(OURS) == 26


@pytest.mark.parametrize("op", OURS)
def test_registered_and_valid(op):
    assert MODULES[op] == op.lower()
    assert module(op).check.__doc__
    assert messages(VALID[op]) == []


@pytest.mark.parametrize("op", OURS)
def test_missing_tensors_never_raise(op):
    assert_missing_tensors_never_raise(VALID[op])


@pytest.mark.parametrize("op", OURS)
@pytest.mark.parametrize("rank", [1, 2, 3, 5, 9])
def test_wrong_ranks_never_raise(op, rank):
    assert_wrong_ranks_never_raise(VALID[op], rank, ("FLOAT32",))

# ---------------------------------------------------------------- outputs one element longer (ceil mode)
@pytest.mark.parametrize("cls", ["AveragePooling", "AveragePooling1", "LpPooling", "LpPooling1", "MaxPooling",
                                 "MaxPooling1", "MaxPooling2"])
def test_an_output_one_longer_than_the_formula_is_refused(cls):
    """DirectML accepts an output one element longer (ONNX's ceil_mode; issue 20 counts 40 such descriptors), but
    what it writes there is recorded nowhere: dmlops refuses it (dmlops/ops/_pooling.py) and the same windows are
    reachable with EndPadding + 1, which MAX pooling reads as padding. 5 x 5, window 2, stride 2: 2 x 2 by the
    formula, 3 x 3 with ceil_mode."""
    from dmlops.ops import _avg_lp_pooling as A

    cls = getattr(dmlops, cls)
    extra = {"p": 2} if "Lp" in cls.__name__ else {} if "Max" in cls.__name__ else {"include_padding": False}
    if "dilations" in cls.FIELD_NAMES and "Lp" not in cls.__name__ and "Average" not in cls.__name__:
        extra["dilations"] = (1, 1)
    longer = A.sample_desc(cls, (1, 1, 5, 5), (1, 1, 3, 3), window=(2, 2), strides=(2, 2), **extra)
    op = longer.OPERATOR_TYPE
    assert messages(longer, "6.2") == [
        f"{op}.OutputTensor: Sizes [1, 1, 3, 3] do not match {{BatchCount, ChannelCount, OutputHeight, OutputWidth}} "
        "= [1, 1, 2, 2]."]
    padded = A.sample_desc(cls, (1, 1, 5, 5), (1, 1, 3, 3), window=(2, 2), strides=(2, 2), end=(1, 1), **extra)
    assert messages(padded, "6.2") == []
    if "Max" in cls.__name__:  # the windows of ceil_mode: torch's max_pool2d(ceil_mode=True) is the oracle
        torch = pytest.importorskip("torch")
        import numpy as np

        x = np.random.default_rng(3).standard_normal((1, 1, 5, 5)).astype(np.float32)
        want = torch.nn.functional.max_pool2d(torch.from_numpy(x), 2, 2, ceil_mode=True).numpy()
        for backend in ("reference", "onnxruntime", "torch"):
            got = dmlops.run(padded, {"InputTensor": x}, backend=backend)["OutputTensor"]
            np.testing.assert_array_equal(got, want, err_msg=backend)
