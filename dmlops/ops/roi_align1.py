"""DML_OPERATOR_ROI_ALIGN1: crops of InputTensor (one per ROI, from batch BatchIndicesTensor[r]) resampled to
{OutputHeight, OutputWidth}, each output element the AVERAGE or MAX of its input samples.

Per axis (x with SpatialScaleX and the width, y alike), as the docs' pseudo-code (its outputSampleToInputScaleY
line, which repeats the X values, is a typo): the scaled region [p1, p2] = ROI * SpatialScale, size = p2 - p1
(negative: a mirrored crop); n = clamp(ceil(|size| / OutputSize), MinimumSamplesPerOutput, MaximumSamplesPerOutput)
samples per output element; step = size / (OutputSize * n); sample j of output o reads
``((o * n + j) - OutputPixelOffset) * step + p1 - InputPixelOffset``. The samples are reduced from 0, y outer and
x inner: a float32 sum divided by n_y * n_x, or a max.

Where the docs are silent or wrong, DirectML's answers (the vectors' ROI_ALIGN-sample_* and ROI_ALIGN1-sample_*
cases, which dmlops reproduces bit for bit) settle it:

* Sample count: the page says ``clamp(size / OutputSize, Min, Max)`` without saying how it becomes an integer; it
  is rounded up, as ONNX's adaptive sampling_ratio (ceil(roi_size / pooled_size)), and a mirrored region counts by
  its length |size| (sample_random_*: the region [4.2, 5.5, -0.7, 0.25] takes 2 x 3 samples per output; with
  size / OutputSize, clamped to Min, it would take 1).
* Bounds, both modes: a sample with -1 < c < InputSize on both axes reads the input at c clamped to
  [0, InputSize - 1]; any other reads OutOfBoundsInputValue. ONNX's rule is the same with -1 and InputSize
  themselves inside; DirectML reads them as outside (sample_edges_and_mirror: x = 2 of a 2-wide input;
  sample_windowed_large_region: x = -1 and x = 2), and it reads -0.79 as index 0 in NEAREST mode
  (sample_random_average_nearest_neighbor). The vectors place the lower bound in [-1, -0.79) and the upper in
  (InputSize - 5/6, InputSize]; dmlops takes -1 and InputSize.
* LINEAR interpolation is DirectML's arithmetic, bit exact on every vector case (the ONNX weighted sum
  w1 v1 + ... + w4 v4 misses 9 to 12 of 54 values by 1 to 3 ULP):
  ``left = v00 + (v10 - v00) * ly; right = v01 + (v11 - v01) * ly; v = left + (right - left) * lx``.
* NEAREST_NEIGHBOR reads index floor(c + 0.5) of the clamped coordinate: half rounds up. The docs' example on the
  ROI_ALIGN_GRAD page reads coordinate 0.5 as index 0; DirectML reads it as 1 (sample_docs_nearest_example: that
  example's input gives [[5, 6, 6]], ..., not the page's [[1, 1, 2]], ...).
* Order: the samples of one output are summed y outer, x inner (the page's loop has x outer; x outer misses 3 and
  10 of 72 values of sample_random_average_linear / _nearest_neighbor by 1 ULP).
* AlignRegionsToCorners (no vector): the n * OutputSize samples are stretched to the region's corners: step =
  size / (OutputSize * n - 1) (0 for a single sample) and OutputPixelOffset is not applied, so the first sample
  reads p1 - InputPixelOffset and the last p2 - InputPixelOffset.
* MAX over samples takes the interpolated values (the docs' "maximum with inputValue"); onnxruntime's CPU RoiAlign
  (mode "max") takes the max of the weighted corner terms instead, so it is no oracle for MAX.
* BatchIndicesTensor values outside [0, BatchCount): the docs call the behaviour undefined and no vector has one;
  dmlops reads such a region as lying outside the input (every output element OutOfBoundsInputValue) on every
  backend (dmlops/ops/_roi.py).

The regions are a runtime input: every backend builds the sampling in its graph (dmlops/ops/_roi.py), with a
static number of sample slots per axis and a mask; the ONNX RoiAlign op is not used (onnxruntime's CPU kernel
rejects mirrored regions, clamps small ones in output_half_pixel mode and cannot express NEAREST,
OutOfBoundsInputValue, separate scales, other offsets or corners). Vectors: float32/float16 AVERAGE+LINEAR and
MAX+NEAREST, reproduced bit for bit.

Shape rules the descriptor file cannot express: ROITensor {[1], [1], NumROIs, 4}; BatchIndicesTensor
{[1], [1], [1], NumROIs}; OutputTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth}; ReductionFunction
AVERAGE or MAX; MinimumSamplesPerOutput at most MaximumSamplesPerOutput. Shared rules: dmlops/ops/_windows.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _roi
from ._windows import roi_align_problems


def check(desc, level) -> list[Problem]:
    """ReductionFunction, sample bounds, ROITensor, BatchIndicesTensor and OutputTensor sizes."""
    return roi_align_problems(desc)


def _run(kind, desc, x, *args):
    A, rois, batch = _roi.inputs(kind, x, "BatchIndicesTensor", *args)
    v = x["InputTensor"]
    y = _roi.align_forward(A, desc, v, rois, batch, list(desc.input_tensor.sizes), list(desc.output_tensor.sizes[2:]),
                           _roi.num_rois(desc))
    return {"OutputTensor": y}


def reference(desc, x):
    """The sampling of dmlops/ops/_roi.py in NumPy float32."""
    return _run("reference", desc, dict(x, InputTensor=np.asarray(x["InputTensor"], np.float32)))


def to_onnx(desc, g, x):
    """In-graph sampling: float32 coordinates, GatherElements of the corners, one Add (or Max) per sample slot."""
    return _run("onnx", desc, x, g)


def to_torch(desc, torch, x):
    """The same sampling with torch ops (gather, where, maximum)."""
    return _run("torch", desc, dict(x, InputTensor=x["InputTensor"].to(torch.float32)), torch,
                x["InputTensor"].device)


# ----------------------------------------------------------------------------------------------- samples
def make(cls, in_sizes, num, out_hw, reduction="AVERAGE", mode="LINEAR", low=1, high=1, oob=0.0, scale=(1.0, 1.0),
         data_type="FLOAT32", batch_type="UINT32", **extra):
    """A ROI_ALIGN / ROI_ALIGN1 descriptor ({1, 1, num, 4} ROIs, {1, 1, 1, num} batch indices)."""
    return cls(input_tensor=td(data_type, in_sizes), roi_tensor=td(data_type, [1, 1, num, 4]),
               batch_indices_tensor=td(batch_type, [1, 1, 1, num]),
               output_tensor=td(data_type, [num, in_sizes[1]] + list(out_hw)),
               reduction_function=reduction, interpolation_mode=mode, spatial_scale_x=scale[0],
               spatial_scale_y=scale[1], out_of_bounds_input_value=oob, minimum_samples_per_output=low,
               maximum_samples_per_output=high, **extra)


def inputs(image, rois, batch, batch_type="UINT32"):
    rois = np.asarray(rois, np.float32)
    return {"InputTensor": np.asarray(image, np.float32), "ROITensor": rois.reshape(1, 1, -1, 4),
            "BatchIndicesTensor": np.asarray(batch, np.dtype(batch_type.lower())).reshape(1, 1, 1, -1)}


SQUARE = np.array([[[[1, 2], [3, 4]]]], np.float32)  # {1, 1, 2, 2}
DOCS = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)  # the ROI_ALIGN_GRAD page's InputTensor
DOCS_ROIS = [[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [2, 2, 4, 4]]
EXACT = dict(atol=0, rtol=0, why="exact: sums of halves and quarters")


def common_samples(cls, **offsets):
    """Samples ROI_ALIGN and ROI_ALIGN1 (pixel-centre offsets) share, computed by hand."""
    f32 = np.float32
    out = [
        # ROI [0, 0, 2, 2] to 1 x 1, adaptive (Max 4): n = ceil(2 / 1) = 2 per axis, step 1; sample j reads
        # (j + 0.5) * 1 + 0 - 0.5 = j: the four pixels exactly, average 10 / 4 = 2.5. ROI [0.5, 0.5, 1.5, 1.5]:
        # n = 1, one sample at 0.5 + 0.5 - 0.5 = 0.5 in both axes: the bilinear centre 2.5.
        Sample("average_linear_by_hand", make(cls, [1, 1, 2, 2], 2, [1, 1], high=4, **offsets),
               inputs(SQUARE, [[0, 0, 2, 2], [0.5, 0.5, 1.5, 1.5]], [0, 0]),
               {"OutputTensor": np.array([2.5, 2.5], f32).reshape(2, 1, 1, 1)}, **EXACT),
        # The ROI_ALIGN_GRAD page's forward example: NEAREST, 1 sample per output (Min = Max = 1), 1 x 3 outputs
        # of 2 x 2 regions. x: step 2 / 3, samples at (o + 0.5) * 2 / 3 - 0.5 = -1/6, 1/2, 7/6 -> indices 0, 1
        # (half rounds up: DirectML's answer; the page reads 0 and prints [1, 1, 2]), 1; y: step 2, one sample at
        # 0.5 -> index 1. Region [0, 0, 2, 2] gives row 1's [5, 6, 6]; [2, 0, 4, 2]: x = 11/6, 5/2, 19/6 -> 2, 3, 3.
        Sample("docs_nearest_example", make(cls, [1, 1, 4, 4], 4, [1, 3], reduction="MAX",
                                            mode="NEAREST_NEIGHBOR", **offsets),
               inputs(DOCS, DOCS_ROIS, [0, 0, 0, 0]),
               {"OutputTensor": np.array([[5, 6, 6], [7, 8, 8], [13, 14, 14], [15, 16, 16]], f32).reshape(4, 1, 1, 3)},
               **EXACT),
        # Edges (1 x 2 outputs, Min 1, Max 4, OutOfBoundsInputValue -7). x: n = ceil(2 / 2) = 1, step 1, samples at
        # x1 + o. y: n = 2, samples at rows 0 and 1. ROI [1, 0, 3, 2]: x = 1 (column 1: (2 + 4) / 2 = 3) and x = 2
        # (= InputWidth: outside, -7; ONNX would clamp it to column 1). ROI [2, 0, 4, 2]: x = 2 and 3, both
        # outside: -7, -7. Inverted ROI [2, 0, 0, 2]: n = ceil(|-2| / 2) = 1, step -1, x = 1 - o: columns 1 and 0
        # (a mirror): [3, 2].
        Sample("edges_and_mirror", make(cls, [1, 1, 2, 2], 3, [1, 2], high=4, oob=-7.0, **offsets),
               inputs(SQUARE, [[1, 0, 3, 2], [2, 0, 4, 2], [2, 0, 0, 2]], [0, 0, 0]),
               {"OutputTensor": np.array([[3, -7], [-7, -7], [3, 2]], f32).reshape(3, 1, 1, 2)}, **EXACT),
        # Max 100 > InputSize + 5: the sample slots are windowed. ROI [-10, -10, 10, 10] to 1 x 1: n = 20 per axis,
        # step 1, samples at -10 + j; inside (-1, 2): j = 10, 11 reading rows/columns 0 and 1: 4 samples summing
        # 1 + 2 + 3 + 4 = 10; the other 396 read 0.5: (10 + 198) / 400. MAX: 4.
        Sample("windowed_large_region", make(cls, [1, 1, 2, 2], 1, [1, 1], high=100, oob=0.5, **offsets),
               inputs(SQUARE, [[-10, -10, 10, 10]], [0]),
               {"OutputTensor": np.array(f32(208) / f32(400), f32).reshape(1, 1, 1, 1)}, **EXACT),
        # A mirrored region counted by its length, with a sample at -1 (outside). ROI [2, 0, -1, 2] to 1 x 1, Max 4,
        # OutOfBoundsInputValue 10. x: size -3, n = ceil(3 / 1) = 3, step -1, x = (j + 0.5) * -1 + 2 - 0.5 = 1, 0, -1;
        # y: n = 2, rows 0 and 1. Summed y outer: 2 + 1 + 10 + 4 + 3 + 10 = 30, / 6 = 5 (a count from size / 1,
        # clamped to Min 1, would read column 0 alone: 2; ONNX's bounds would clamp x = -1 to column 0: 14 / 6).
        Sample("mirrored_sample_count", make(cls, [1, 1, 2, 2], 1, [1, 1], high=4, oob=10.0, **offsets),
               inputs(SQUARE, [[2, 0, -1, 2]], [0]), {"OutputTensor": np.array(5, f32).reshape(1, 1, 1, 1)}, **EXACT),
        Sample("windowed_large_region_max", make(cls, [1, 1, 2, 2], 1, [1, 1], reduction="MAX", high=100, oob=0.5,
                                                 **offsets),
               inputs(SQUARE, [[-10, -10, 10, 10]], [0]),
               {"OutputTensor": np.array(4, f32).reshape(1, 1, 1, 1)}, **EXACT),
    ]
    rng = np.random.default_rng(139)
    image = rng.uniform(-3, 3, (2, 3, 6, 5)).astype(np.float32)
    rois = [[0, 0, 3, 4], [1, 1, 4, 5], [0.5, 1.5, 2.5, 3.2], [4.2, 5.5, -0.7, 0.25]]
    for reduction, mode in (("AVERAGE", "LINEAR"), ("MAX", "LINEAR"), ("AVERAGE", "NEAREST_NEIGHBOR"),
                            ("MAX", "NEAREST_NEIGHBOR")):
        out.append(Sample(f"random_{reduction.lower()}_{mode.lower()}",
                          make(cls, [2, 3, 6, 5], 4, [2, 3], reduction, mode, high=3, oob=-1.0, scale=(1.0, 0.9),
                               **offsets),
                          inputs(image, rois, [0, 1, 0, 1]), atol=0, rtol=0,
                          why="exact: every backend does the same float32 operations in the same order"))
    # UINT64 batch indices (feature level 5.0), a ROI from batch 1
    out.append(Sample("uint64_batch_indices", make(cls, [2, 1, 2, 2], 1, [1, 1], high=4, batch_type="UINT64",
                                                   **offsets),
                      inputs(np.concatenate([SQUARE, SQUARE + 10]), [[0, 0, 2, 2]], [1], "UINT64"),
                      {"OutputTensor": np.array(12.5, np.float32).reshape(1, 1, 1, 1)}, **EXACT))
    return out


def _samples():
    from ..descs import RoiAlign1

    offsets = dict(input_pixel_offset=0.5, output_pixel_offset=-0.5, align_regions_to_corners=False)
    out = common_samples(RoiAlign1, **offsets)
    # InputPixelOffset 0, OutputPixelOffset 0 and AlignRegionsToCorners: ROI [0, 0, 1, 1] to 2 x 2, one sample per
    # output: N = 2 samples per axis, step 1 / (2 - 1) = 1, sample s reads s * 1 + 0 - 0 = s: the input itself.
    out.append(Sample("align_regions_to_corners", make(RoiAlign1, [1, 1, 2, 2], 1, [2, 2], input_pixel_offset=0.0,
                                                       output_pixel_offset=0.0, align_regions_to_corners=True),
                      inputs(SQUARE, [[0, 0, 1, 1]], [0]), {"OutputTensor": SQUARE.copy()}, **EXACT))
    # InputPixelOffset 0 (ONNX output_half_pixel), OutputPixelOffset -0.5: ROI [0, 0, 1, 1] to 1 x 1: the sample
    # reads (0 + 0.5) * 1 + 0 - 0 = 0.5: the bilinear centre 2.5.
    out.append(Sample("input_pixel_offset_0", make(RoiAlign1, [1, 1, 2, 2], 1, [1, 1], input_pixel_offset=0.0,
                                                   output_pixel_offset=-0.5, align_regions_to_corners=False),
                      inputs(SQUARE, [[0, 0, 1, 1]], [0]),
                      {"OutputTensor": np.array(2.5, np.float32).reshape(1, 1, 1, 1)}, **EXACT))
    return out


SAMPLES = _samples()
