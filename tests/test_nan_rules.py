"""NaN and infinity rules that a sweep of the samples with NaN / inf sprinkled in found the backends disagreeing on
(each operator's module docstring gives the rule and its evidence); every backend against values worked by hand."""
import numpy as np
import pytest

import dmlops
from dmlops.ops import roi_pooling

BACKENDS = ["reference", "onnxruntime", "torch"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_roi_pooling_skips_nan_and_a_bin_of_nan_only_is_nan(backend):
    # One region [0; 0, 0, 3, 3] of a 4 x 4 grid, 2 x 2 bins (the 2 x 2 blocks). Block (0, 0) holds a NaN beside
    # 0, 1, 4: its max is 4 (the 5 is NaN now); block (0, 1) is NaN only; block (1, 0) holds +inf; block (1, 1) -inf
    # beside 10, 11, 14.
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 0:2, 2:4] = np.nan
    x[0, 0, 3, 0] = np.inf
    x[0, 0, 3, 3] = -np.inf
    rois = np.array([[[[0, 0, 0, 3, 3]]]], np.float32)
    desc = roi_pooling._desc([1, 1, 4, 4], 1, [2, 2])
    y = dmlops.run(desc, {"InputTensor": x, "ROITensor": rois}, backend=backend)["OutputTensor"]
    np.testing.assert_array_equal(y.reshape(2, 2), np.array([[4, np.nan], [np.inf, 14]], np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_infinite_input_reaches_only_the_lrn_windows_that_hold_it(backend):
    # Channels [0, 3, 4, 0] with channel 0 made +inf, cross-channel windows of 3, Alpha 3, Beta 0.5, Bias 0:
    # y = x / sqrt(window sum of x^2). Channel 0 is inf / inf = NaN and channel 1 is 3 / inf = 0 (both windows hold
    # the inf); channel 2's window is channels 1..3: 4 / sqrt(9 + 16) = 0.8; channel 3's is 2..3: 0 / 4 = 0.
    # (ONNX Runtime's CPU LRN keeps a running sum and gave NaN for channels 2 and 3.)
    from dmlops.ops import local_response_normalization as lrn

    desc = lrn._desc([1, 4, 1, 1], True, 3, 3.0, 0.5, 0.0)
    x = np.array([np.inf, 3, 4, 0], np.float32).reshape(1, 4, 1, 1)
    y = dmlops.run(desc, {"InputTensor": x}, backend=backend)["OutputTensor"].ravel()
    np.testing.assert_allclose(y, [np.nan, 0, 0.8, 0], rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_quantize_linear_takes_its_range_without_the_nans(backend):
    # [-1.5, NaN, 3.6, 0.5]: the range is [-1.5, 3.6] as without the NaN: scale 5.1 * float32(1 / 255), zero point
    # round(1.5 / scale) = 75; the NaN element quantizes to 0. An input of NaN only has the range [0, 0]: scale 0.
    from dmlops.ops import module

    sample = next(s for s in module("DYNAMIC_QUANTIZE_LINEAR").SAMPLES if s.name == "uint8_basic")
    desc = sample.desc
    n = int(np.prod(desc.input_tensor.sizes))
    x = np.resize(np.array([-1.5, np.nan, 3.6, 0.5], np.float32), n).reshape(desc.input_tensor.sizes)
    out = dmlops.run(desc, {"InputTensor": x}, backend=backend)
    scale = np.float32(5.1) * (np.float32(1) / np.float32(255))
    assert out["OutputScaleTensor"].ravel().tolist() == [scale]
    assert out["OutputZeroPointTensor"].ravel().tolist() == [75]
    assert out["OutputTensor"].ravel()[:4].tolist() == [0, 0, 255, 75 + round(0.5 / float(scale))]
    nan = dmlops.run(desc, {"InputTensor": np.full(desc.input_tensor.sizes, np.nan, np.float32)}, backend=backend)
    assert nan["OutputScaleTensor"].ravel().tolist() == [0.0] and not nan["OutputTensor"].any()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("groups", [1, 2])
def test_an_infinite_filter_tap_over_the_padding_gives_nan_in_every_convolution(backend, groups):
    # Ones through a 3 x 3 filter of zeros with +inf at its top-left tap, padding 1: the output's first row and
    # column read that tap over the padding's zeros (inf * 0 = NaN), the rest over ones (inf). torch's depthwise
    # kernel (groups 2 over 2 channels) skipped the padded taps and gave 0 there.
    desc = dmlops.Convolution(
        input_tensor=dmlops.TensorDesc("FLOAT32", [1, 2, 3, 3]),
        filter_tensor=dmlops.TensorDesc("FLOAT32", [2, 2 // groups, 3, 3]),
        output_tensor=dmlops.TensorDesc("FLOAT32", [1, 2, 3, 3]), mode="CROSS_CORRELATION", direction="FORWARD",
        strides=[1, 1], dilations=[1, 1], start_padding=[1, 1], end_padding=[1, 1], output_padding=[0, 0],
        group_count=groups)
    w = np.zeros([2, 2 // groups, 3, 3], np.float32)
    w[:, :, 0, 0] = np.inf
    y = dmlops.run(desc, {"InputTensor": np.ones([1, 2, 3, 3], np.float32), "FilterTensor": w},
                   backend=backend)["OutputTensor"]
    want = np.full([3, 3], np.inf, np.float32)
    want[0, :] = want[:, 0] = np.nan
    for plane in y.reshape(2, 3, 3):
        np.testing.assert_array_equal(plane, want)
