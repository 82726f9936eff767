"""ROI_POOLING, ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD against independent implementations, on every dmlops
backend (reference, onnxruntime, torch).

Oracles: ONNX's node cases (roialign_aligned_false / aligned_true; roialign_mode_max only to pin the documented
difference), ONNX's reference evaluator and onnxruntime's CPU RoiAlign / MaxRoiPool where their semantics meet
DirectML's (AVERAGE, LINEAR, regions inside the input; integer ROI_POOLING coordinates), and torch autograd of
dmlops's torch ROI_ALIGN1 lowering for ROI_ALIGN_GRAD's OutputGradientTensor, and a plain NumPy loop transcribed
from the ROI_ALIGN_GRAD page's pseudo-code for its OutputROIGradientTensor (neither has a DirectML vector).
"""
import numpy as np
import pytest

import dmlops
from dmlops.errors import DmlOpsError
from dmlops.ops import roi_align1 as one
from dmlops.ops import roi_align_grad as grad_mod
from dmlops.ops import roi_pooling as pool_mod

from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")
BACKENDS = ("reference", "onnxruntime", "torch")


def _cpu_session(model):
    """An onnxruntime CPU session configured as dmlops configures its own (shared thread pools)."""
    import onnxruntime as ort

    from dmlops.backends.onnxruntime import session_config

    options, providers = session_config("cpu", ort)
    return ort.InferenceSession(model.SerializeToString(), options, providers=providers)


def _align_desc(cls, n_rois, x_sizes, out_hw, mode, ratio, scale=1.0, reduction="AVERAGE", **extra):
    low, high = (ratio, ratio) if ratio else (1, 2**32 - 1)
    return one.make(cls, list(x_sizes), n_rois, list(out_hw), reduction, "LINEAR", low, high, 0.0, (scale, scale),
                    **extra)


def _roi_align1(ct_mode, **kw):
    from dmlops.descs import RoiAlign1

    offset = 0.5 if ct_mode == "half_pixel" else 0.0
    return lambda *a, **k: _align_desc(RoiAlign1, *a, input_pixel_offset=offset, output_pixel_offset=-0.5,
                                       align_regions_to_corners=False, **k)


# ============================================================ ONNX node cases
NODE = generated(["roialign"])


@pytest.mark.parametrize("name", ["test_roialign_aligned_false", "test_roialign_aligned_true"])
def test_onnx_node_cases(name):
    c = NODE[name]
    mode = attribute(c.node, "coordinate_transformation_mode", b"half_pixel")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    x, rois, batch = c.inputs
    oh, ow = attribute(c.node, "output_height", 1), attribute(c.node, "output_width", 1)
    desc = _roi_align1(mode)(len(rois), x.shape, (oh, ow), mode, attribute(c.node, "sampling_ratio", 0),
                             attribute(c.node, "spatial_scale", 1.0))
    inputs = one.inputs(x, rois, batch)
    for b in BACKENDS:
        got = dmlops.run(desc, inputs, backend=b)["OutputTensor"]
        # the case's expected outputs are written with 4 decimals
        np.testing.assert_allclose(got, c.outputs[0], rtol=0, atol=1e-4, err_msg=b)


def test_onnx_max_mode_is_not_directmls():
    """ONNX's roialign_mode_max takes the max of weighted corner terms; DirectML the max of interpolated samples."""
    c = NODE["test_roialign_mode_max"]
    x, rois, batch = c.inputs
    desc = _roi_align1("output_half_pixel")(len(rois), x.shape, (5, 5), "output_half_pixel", 2, reduction="MAX")
    got = dmlops.run(desc, one.inputs(x, rois, batch), backend="reference")["OutputTensor"]
    assert not np.allclose(got, c.outputs[0], rtol=1e-3)
    ours = dmlops.run(desc, one.inputs(x, rois, batch), backend="onnxruntime")["OutputTensor"]
    np.testing.assert_array_equal(ours, got)


# ============================================================ ONNX reference evaluator and onnxruntime's CPU kernel
def _onnx_roialign(x, rois, batch, oh, ow, ratio, scale, mode):
    from onnx import helper, TensorProto

    node = helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], output_height=oh, output_width=ow,
                            sampling_ratio=ratio, spatial_scale=scale, coordinate_transformation_mode=mode)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
                                            helper.make_tensor_value_info("r", TensorProto.FLOAT, rois.shape),
                                            helper.make_tensor_value_info("b", TensorProto.INT64, batch.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    feed = {"x": x, "r": rois, "b": batch}
    from onnx.reference import ReferenceEvaluator
    ref = ReferenceEvaluator(model).run(None, feed)[0]
    cpu = _cpu_session(model).run(None, feed)[0]
    return ref, cpu


@pytest.mark.parametrize("mode", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("ratio", [0, 1, 3])
def test_against_onnx_reference_and_onnxruntime(mode, ratio):
    rng = np.random.default_rng(ratio * 7 + len(mode))
    x = rng.uniform(-2, 2, (2, 3, 9, 8)).astype(np.float32)
    # regions inside the input, larger than one pixel (onnxruntime clamps smaller ones in output_half_pixel mode)
    rois = np.array([[0.3, 0.7, 6.1, 8.2], [1.5, 2.0, 3.1, 4.4], [0.0, 0.0, 7.0, 8.0], [2.2, 1.1, 5.9, 3.6]],
                    np.float32)
    batch = np.array([0, 1, 1, 0], np.int64)
    want_ref, want_ort = _onnx_roialign(x, rois, batch, 3, 4, ratio, 1.0, mode)
    np.testing.assert_allclose(want_ref, want_ort, rtol=1e-5, atol=1e-6)
    desc = _roi_align1(mode)(4, x.shape, (3, 4), mode, ratio)
    for b in BACKENDS:
        got = dmlops.run(desc, one.inputs(x, rois, batch), backend=b)["OutputTensor"]
        np.testing.assert_allclose(got, want_ort, rtol=1e-5, atol=1e-6, err_msg=b)


def test_roi_align_is_roi_align1_with_pixel_centres():
    from dmlops.descs import RoiAlign, RoiAlign1

    s = next(s for s in one.SAMPLES if s.name == "random_average_linear")
    fields = {f: getattr(s.desc, f) for f in ("input_tensor", "roi_tensor", "batch_indices_tensor", "output_tensor",
                                              "reduction_function", "interpolation_mode", "spatial_scale_x",
                                              "spatial_scale_y", "out_of_bounds_input_value",
                                              "minimum_samples_per_output", "maximum_samples_per_output")}
    v0 = RoiAlign(**fields)
    v1 = RoiAlign1(**fields, input_pixel_offset=0.5, output_pixel_offset=-0.5, align_regions_to_corners=False)
    for b in BACKENDS:
        np.testing.assert_array_equal(dmlops.run(v0, s.inputs, backend=b)["OutputTensor"],
                                      dmlops.run(v1, s.inputs, backend=b)["OutputTensor"])


# ============================================================ ROI_POOLING vs MaxRoiPool
def _max_roi_pool(x, rois, pooled, scale):
    from onnx import helper, TensorProto

    node = helper.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=list(pooled), spatial_scale=scale)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
                                            helper.make_tensor_value_info("r", TensorProto.FLOAT, rois.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    return _cpu_session(model).run(None, {"x": x, "r": rois})[0]


def test_roi_pooling_matches_max_roi_pool_without_ties():
    rng = np.random.default_rng(59)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    rois = np.array([[0, 0, 0, 5, 6], [1, 1.2, 2.4, 4.8, 5.9], [0, 3, 1, 3, 6], [1, 2, 2, 9, 9]], np.float32)
    want = _max_roi_pool(x, rois, (3, 2), 1.0)
    desc = pool_mod._desc([2, 3, 7, 6], 4, [3, 2])
    for b in BACKENDS:
        got = dmlops.run(desc, {"InputTensor": x, "ROITensor": rois.reshape(1, 1, 4, 5)}, backend=b)["OutputTensor"]
        np.testing.assert_array_equal(got, want, err_msg=b)


def test_roi_pooling_rounds_half_to_even_unlike_max_roi_pool():
    """DirectML's vector float32_pooled_2x2 needs round(0.5) = 0 and round(2.5) = 2; MaxRoiPool rounds away."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0.5, 0.5, 2.5, 2.5]], np.float32)
    desc = pool_mod._desc([1, 1, 4, 4], 1, [1, 1])
    got = dmlops.run(desc, {"InputTensor": x, "ROITensor": rois.reshape(1, 1, 1, 5)}, backend="onnxruntime")
    assert got["OutputTensor"].ravel().tolist() == [10.0]  # [0, 0, 2, 2] -> max at (2, 2)
    assert _max_roi_pool(x, rois, (1, 1), 1.0).ravel().tolist() == [15.0]  # [1, 1, 3, 3] -> (3, 3)


# ============================================================ batch indices outside the batch
# DirectML leaves them undefined (the docs: "The behavior is undefined if the values are not in the range
# [0, BatchCount)") and no vector has one. dmlops's choice, the same on every backend: the region lies outside the
# input (ROI_ALIGN / ROI_ALIGN1: OutOfBoundsInputValue everywhere; ROI_ALIGN_GRAD: no gradient; ROI_POOLING: 0).
# Before, the reference raised IndexError, onnxruntime its Gather error, and 2**64 - 1 read the last batch.
@pytest.mark.parametrize("cls_name", ["RoiAlign", "RoiAlign1"])
@pytest.mark.parametrize("batch_type,bad", [("UINT32", 2), ("UINT32", 2**32 - 1), ("UINT64", 2**64 - 1),
                                            ("UINT64", 2**63)])
def test_roi_align_batch_index_outside_the_batch_reads_out_of_bounds(cls_name, batch_type, bad):
    import dmlops.descs as descs

    offsets = {} if cls_name == "RoiAlign" else dict(input_pixel_offset=0.5, output_pixel_offset=-0.5,
                                                      align_regions_to_corners=False)
    for reduction in ("AVERAGE", "MAX"):
        desc = one.make(getattr(descs, cls_name), [2, 1, 2, 2], 2, [1, 2], reduction, high=4, oob=-3.5,
                        batch_type=batch_type, **offsets)
        assert dmlops.problems(desc, "6.2") == []
        image = np.concatenate([one.SQUARE, one.SQUARE + 10])
        x = one.inputs(image, [[0, 0, 2, 2], [0, 0, 2, 2]], [1, bad], batch_type)
        for b in BACKENDS:
            got = dmlops.run(desc, x, backend=b)["OutputTensor"].reshape(2, 2)
            # region 0 reads batch 1 ([[11, 12], [13, 14]]): column 0, then column 1, rows 0 and 1 each
            want0 = [12, 13] if reduction == "AVERAGE" else [13, 14]
            assert got.tolist() == [want0, [-3.5, -3.5]], (b, reduction)


@pytest.mark.parametrize("bad", [2, 2**32 - 1])
def test_roi_align_grad_batch_index_outside_the_batch_sends_nothing(bad):
    desc = grad_mod.make([2, 1, 2, 2], 2, [1, 1], high=4, roi_gradient=True)
    image = np.concatenate([one.SQUARE, one.SQUARE + 10])
    x = grad_mod.inputs(image, np.array([4, 4], F).reshape(2, 1, 1, 1), [[0.5, 0.5, 1.5, 1.5]] * 2, [0, bad])
    for b in BACKENDS:
        got = dmlops.run(desc, x, backend=b)
        # region 0: one sample at (0.5, 0.5) of batch 0: 1 to each corner; region 1: nothing
        assert got["OutputGradientTensor"].ravel().tolist() == [1, 1, 1, 1, 0, 0, 0, 0], b
        assert got["OutputROIGradientTensor"].reshape(2, 4).tolist() == [[4, 8, 0, 0], [0, 0, 0, 0]], b


def test_roi_pooling_batch_index_outside_the_batch_gives_zero():
    x = np.arange(32, dtype=F).reshape(2, 1, 4, 4) + 1
    rois = np.array([[1, 0, 0, 3, 3], [2, 0, 0, 3, 3], [-1, 0, 0, 3, 3], [np.nan, 0, 0, 3, 3], [1.9, 0, 0, 1, 1],
                     [-0.5, 0, 0, 1, 1]], F)
    desc = pool_mod._desc([2, 1, 4, 4], 6, [1, 1])
    for b in BACKENDS:
        got = dmlops.run(desc, {"InputTensor": x, "ROITensor": rois.reshape(1, 1, 6, 5)}, backend=b)
        # batch 1's max 32; 2, -1 and NaN: 0; 1.9 truncates to 1 (max over [0, 1] x [0, 1]: 22); -0.5 to 0: 6
        assert got["OutputTensor"].ravel().tolist() == [32, 0, 0, 0, 22, 6], b


# ============================================================ ROI_ALIGN_GRAD vs torch autograd
def _autograd(sample):
    """d(sum(OutputTensor * InputGradientTensor)) / d(InputTensor) through dmlops's torch ROI_ALIGN1 lowering."""
    from dmlops.descs import RoiAlign1

    d = sample.desc
    fwd = RoiAlign1(input_tensor=d.output_gradient_tensor, roi_tensor=d.roi_tensor,
                    batch_indices_tensor=d.batch_indices_tensor, output_tensor=d.input_gradient_tensor,
                    reduction_function=d.reduction_function, interpolation_mode=d.interpolation_mode,
                    spatial_scale_x=d.spatial_scale_x, spatial_scale_y=d.spatial_scale_y,
                    input_pixel_offset=d.input_pixel_offset, output_pixel_offset=d.output_pixel_offset,
                    out_of_bounds_input_value=0.0, minimum_samples_per_output=d.minimum_samples_per_output,
                    maximum_samples_per_output=d.maximum_samples_per_output,
                    align_regions_to_corners=d.align_regions_to_corners)
    image = sample.inputs.get("InputTensor")
    if image is None:
        image = np.random.default_rng(0).standard_normal(d.output_gradient_tensor.sizes).astype(np.float32)
    x = torch.tensor(image, requires_grad=True)
    y = one.to_torch(fwd, torch, {"InputTensor": x, "ROITensor": torch.tensor(sample.inputs["ROITensor"]),
                                  "BatchIndicesTensor": torch.tensor(sample.inputs["BatchIndicesTensor"]
                                                                     .astype(np.int64))})["OutputTensor"]
    (y * torch.tensor(sample.inputs["InputGradientTensor"])).sum().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("sample", [s for s in grad_mod.SAMPLES if s.desc.output_gradient_tensor is not None],
                         ids=lambda s: s.name)
def test_roi_align_grad_is_the_autograd_of_roi_align1(sample):
    want = _autograd(sample)
    for b in BACKENDS:
        got = dmlops.run(sample.desc, sample.inputs, backend=b)["OutputGradientTensor"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=b)


# ============================================================ OutputROIGradientTensor vs the page's pseudo-code
F = np.float32


def _axis_samples(roi, i, scale, out, low, high, corners, opo, ipo):
    """The forward ROI_ALIGN1's sample coordinates of one axis, per output: [[c_0, ..., c_{n-1}], ...], float32 in
    the order of roi_align1.py's formula ((o * n + j) - OutputPixelOffset) * step + p1 - InputPixelOffset (the same
    float32 values matter: an integer coordinate has floor == ceil); n = ceil(|size| / out) clamped to [low, high]
    (DirectML counts a mirrored region's samples by its length: vector ROI_ALIGN1-sample_random_*)."""
    p1, p2 = F(roi[i]) * F(scale), F(roi[i + 2]) * F(scale)
    size = F(p2 - p1)
    n = int(min(max(np.ceil(F(abs(size) / F(out))), low), high))
    if corners:
        step = F(size / F(out * n - 1)) if out * n > 1 else F(0)
        opo = 0.0
    else:
        step = F(size / F(out * n))
    return [[F(F(F(F(F(o * n + j) - F(opo)) * step) + p1) - F(ipo)) for j in range(n)] for o in range(out)]


def _value(plane, cy, cx, linear):
    """(inside, value) of one forward sample (0 outside, what ROI_ALIGN_GRAD's MAX compares). DirectML's rules
    (vectors ROI_ALIGN-sample_*): inside when -1 < c < size on both axes, read at c clamped to [0, size - 1];
    NEAREST rounds half up."""
    h, w = plane.shape
    if not (-1 < cy < h and -1 < cx < w):
        return False, F(0)
    if not linear:
        iy, ix = np.floor(min(max(cy, 0), h - 1) + 0.5), np.floor(min(max(cx, 0), w - 1) + 0.5)
        return True, plane[int(iy), int(ix)]

    def split(c, size):
        c = max(c, F(0))
        lo = np.floor(c)
        if lo >= size - 1:
            return size - 1, size - 1, F(0)
        return int(lo), int(lo) + 1, F(c - lo)

    y0, y1, ly = split(cy, h)
    x0, x1, lx = split(cx, w)
    left = F(plane[y0, x0] + F(F(plane[y1, x0] - plane[y0, x0]) * ly))
    right = F(plane[y0, x1] + F(F(plane[y1, x1] - plane[y0, x1]) * ly))
    return True, F(left + F(F(right - left) * lx))


def _roi_gradient_loop(desc, inputs):
    """The page's pseudo-code, a plain loop (float64 sums): per ROI, per InputGradientTensor element, per sample
    that contributed (AVERAGE: every sample inside the input; MAX: the first sample holding the maximum, if inside),
    the four corners at floor/ceil of the coordinate clamped to [0, size - 1], imageGradX/Y times the gradient,
    weighted by (inputWidth - x), (inputHeight - y), x, y with inputWidth/Height the InputGradientTensor's."""
    image = inputs["InputTensor"].astype(F)
    grad = inputs["InputGradientTensor"].astype(F)
    rois = inputs["ROITensor"].astype(F).reshape(-1, 4)
    batch = inputs["BatchIndicesTensor"].reshape(-1)
    _, _, h, w = image.shape
    _, channels, out_h, out_w = grad.shape
    linear = desc.interpolation_mode.name == "LINEAR"
    is_max = desc.reduction_function.name == "MAX"
    low, high = desc.minimum_samples_per_output, desc.maximum_samples_per_output
    args = (low, high, desc.align_regions_to_corners, desc.output_pixel_offset, desc.input_pixel_offset)
    result = np.zeros((len(rois), 4))
    for r, roi in enumerate(rois):
        ys = _axis_samples(roi, 1, desc.spatial_scale_y, out_h, *args)
        xs = _axis_samples(roi, 0, desc.spatial_scale_x, out_w, *args)
        for ch in range(channels):
            plane = image[batch[r], ch]
            for oy in range(out_h):
                for ox in range(out_w):
                    samples = [(cy, cx) for cy in ys[oy] for cx in xs[ox]]  # y outer, x inner (DirectML's sum)
                    read = [_value(plane, cy, cx, linear) for cy, cx in samples]
                    if is_max:
                        best = max(v for _, v in read)
                        k = next(k for k, (_, v) in enumerate(read) if v == best)
                        contributing = [samples[k]] if read[k][0] else []
                    else:
                        contributing = [smp for smp, (inside, _) in zip(samples, read) if inside]
                    for cy, cx in contributing:
                        y = min(max(float(cy), 0.0), h - 1.0)
                        x = min(max(float(cx), 0.0), w - 1.0)
                        top, bottom = int(np.floor(y)), int(np.ceil(y))
                        left, right = int(np.floor(x)), int(np.ceil(x))
                        y_lerp, x_lerp = y - top, x - left
                        top_left, top_right = float(plane[top, left]), float(plane[top, right])
                        bottom_left, bottom_right = float(plane[bottom, left]), float(plane[bottom, right])
                        weight = float(grad[r, ch, oy, ox])
                        grad_y = (1 - x_lerp) * (bottom_left - top_left) + x_lerp * (bottom_right - top_right)
                        grad_x = (1 - y_lerp) * (top_right - top_left) + y_lerp * (bottom_right - bottom_left)
                        grad_y *= weight
                        grad_x *= weight
                        result[r, 0] += grad_x * (out_w - ox)
                        result[r, 1] += grad_y * (out_h - oy)
                        result[r, 2] += grad_x * ox
                        result[r, 3] += grad_y * oy
    return result


def _check_roi_gradient(desc, inputs, rtol=2e-5, float16=False):
    want = _roi_gradient_loop(desc, inputs)
    scale = max(1.0, float(np.abs(want).max()))
    for b in BACKENDS:
        got = dmlops.run(desc, inputs, backend=b)["OutputROIGradientTensor"]
        assert list(got.shape) == list(desc.roi_tensor.sizes), b
        if float16:
            assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float64).reshape(-1, 4), want, rtol=rtol, atol=rtol * scale,
                                   err_msg=b)


@pytest.mark.parametrize("sample", [s for s in grad_mod.SAMPLES if s.desc.output_roi_gradient_tensor is not None],
                         ids=lambda s: s.name)
def test_roi_gradient_samples_match_the_pseudo_code_loop(sample):
    _check_roi_gradient(sample.desc, sample.inputs)


def test_roi_gradient_by_hand_one_sample():
    # 1 ROI [0.5, 0.5, 1.5, 1.5], 1 x 1 output, 2 x 2 input [[1, 2], [3, 4]], gradient 1: one sample at y = x = 0.5
    # ((0 + 0.5) * 1 + 0.5 - 0.5). Corners top-left 1, top-right 2, bottom-left 3, bottom-right 4; lerps 0.5:
    # imageGradY = .5 (3 - 1) + .5 (4 - 2) = 2, imageGradX = .5 (2 - 1) + .5 (4 - 3) = 1; (inputWidth, inputHeight) =
    # (1, 1), (x, y) = (0, 0): ROI gradient [1 * (1 - 0), 2 * (1 - 0), 1 * 0, 2 * 0] = [1, 2, 0, 0].
    # Gradient 3 and MAX: the single sample is the maximum: [3, 6, 0, 0]. OutputGradientTensor: g / 4 per corner.
    for reduction, g, want in (("AVERAGE", 1, [1, 2, 0, 0]), ("MAX", 3, [3, 6, 0, 0])):
        desc = grad_mod.make([1, 1, 2, 2], 1, [1, 1], reduction, roi_gradient=True)
        x = grad_mod.inputs(np.array([[1, 2], [3, 4]], F).reshape(1, 1, 2, 2), np.full((1, 1, 1, 1), g, F),
                            [[0.5, 0.5, 1.5, 1.5]], [0])
        for b in BACKENDS:
            got = dmlops.run(desc, x, backend=b)
            assert got["OutputROIGradientTensor"].ravel().tolist() == want, b
            # one sample (the maximum too) splits g over its four corners in quarters
            assert got["OutputGradientTensor"].ravel().tolist() == [g / 4] * 4, b


def test_roi_gradient_by_hand_edges_and_integers():
    # 2 x 2 input [[1, 2], [3, 4]], 1 x 1 output, gradient 1, MaximumSamplesPerOutput 1:
    # ROI [0, 0, 2, 2]: n = 1 (Max), step 2: sample at (0 + 0.5) * 2 + 0 - 0.5 = 0.5 on both axes: [1, 2, 0, 0].
    # ROI [1, 1, 3, 3]: sample at 1.5 on both axes, inside (-1, 2), clamped to 1: floor = ceil = 1, image gradients 0.
    # ROI [-0.5, 0, 0.5, 1]: x = (0 + .5) * 1 - .5 - .5 = -.5, inside (-1, 2), clamped to 0 (floor = ceil:
    #   imageGradX 0); y = .5 - .5 = 0, an integer (floor = ceil: imageGradY 0): [0, 0, 0, 0].
    # ROI [0, 0, 1, 2]: x = 0 (integer: imageGradX 0), y = (0 + .5) * 2 - .5 = .5:
    #   imageGradY = 1 * (3 - 1) + 0 * (4 - 2) = 2: [0, 2, 0, 0].
    # ROI [5, 5, 6, 6]: outside (-1, 2): nothing.
    desc = grad_mod.make([1, 1, 2, 2], 5, [1, 1], roi_gradient=True)
    x = grad_mod.inputs(np.array([[1, 2], [3, 4]], F).reshape(1, 1, 2, 2), np.ones((5, 1, 1, 1), F),
                        [[0, 0, 2, 2], [1, 1, 3, 3], [-0.5, 0, 0.5, 1], [0, 0, 1, 2], [5, 5, 6, 6]], [0] * 5)
    want = [[1, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0]]
    for b in BACKENDS:
        assert dmlops.run(desc, x, backend=b)["OutputROIGradientTensor"].reshape(5, 4).tolist() == want, b
    np.testing.assert_array_equal(_roi_gradient_loop(desc, x), want)


def test_roi_gradient_several_samples_each_add_the_whole_gradient():
    # ROI [0, 0, 2, 1] on a 2 x 3 input [[1, 2, 4], [3, 5, 9]], output 1 x 1, Min = Max = 2 samples per axis:
    # x step 2 / 2 = 1: x = (j + .5) * 1 + 0 - .5 = 0, 1 (integers: imageGradX 0); y step .5: y = .25 - .5 + (0, .5)
    # = -.25 (clamped to 0: floor = ceil, imageGradY 0) and .25: imageGradY = (3 - 1) at x = 0 and (5 - 2) at x = 1.
    # AVERAGE: each sample adds the whole gradient 2 (not 2 / 4): ROI[1] = 2 * (2 + 3) * (1 - 0) = 10.
    desc = grad_mod.make([1, 1, 2, 3], 1, [1, 1], low=2, high=2, roi_gradient=True)
    x = grad_mod.inputs(np.array([[1, 2, 4], [3, 5, 9]], F).reshape(1, 1, 2, 3), np.full((1, 1, 1, 1), 2, F),
                        [[0, 0, 2, 1]], [0])
    for b in BACKENDS:
        assert dmlops.run(desc, x, backend=b)["OutputROIGradientTensor"].ravel().tolist() == [0, 10, 0, 0], b
    np.testing.assert_array_equal(_roi_gradient_loop(desc, x), [[0, 10, 0, 0]])


CONFIGS = [
    # reduction, mode, low, high, corners, scale, ipo, opo
    ("AVERAGE", "LINEAR", 1, 1, False, (1.0, 1.0), 0.5, -0.5),
    ("AVERAGE", "LINEAR", 1, 4, False, (0.7, 1.3), 0.5, -0.5),
    ("MAX", "LINEAR", 1, 3, False, (1.0, 0.9), 0.0, -0.5),
    ("AVERAGE", "NEAREST_NEIGHBOR", 2, 2, False, (1.1, 1.0), 0.5, -0.5),
    ("MAX", "NEAREST_NEIGHBOR", 1, 2, False, (1.0, 1.0), 0.25, 0.0),
    ("AVERAGE", "LINEAR", 2, 3, True, (1.0, 1.0), 0.5, -0.5),
    ("MAX", "LINEAR", 1, 2**32 - 1, False, (0.5, 0.5), 0.5, -0.5),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "_".join(map(str, c[:5])))
def test_roi_gradient_random_matches_the_pseudo_code_loop(config, seed):
    reduction, mode, low, high, corners, scale, ipo, opo = config
    rng = np.random.default_rng(seed)
    b, c, h, w = 2, 3, int(rng.integers(3, 7)), int(rng.integers(3, 7))
    num, out_hw = 5, (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    rois = rng.uniform(-2, max(h, w) + 2, (num, 4)).astype(F)
    rois[0] = [1, 1, w - 1, h - 1]  # integer coordinates
    rois[1] = np.round(rois[1] * 4) / 4  # quarter coordinates
    desc = grad_mod.make([b, c, h, w], num, out_hw, reduction, mode, low, high, scale, ipo=ipo, opo=opo,
                         corners=corners, roi_gradient=True, output_gradient=bool(seed % 2), roi_dims=2 + seed)
    x = grad_mod.inputs(rng.standard_normal((b, c, h, w)).astype(F), rng.standard_normal((num, c) + out_hw),
                        rois, rng.integers(0, b, num), roi_dims=2 + seed)
    assert dmlops.problems(desc, "6.2") == []
    _check_roi_gradient(desc, x)


@pytest.mark.parametrize("config", CONFIGS[:5], ids=lambda c: "_".join(map(str, c[:5])))
def test_roi_gradient_float16_matches_the_pseudo_code_loop(config):
    from dmlops.sample import with_data_type
    from dmlops.types import DataType

    reduction, mode, low, high, corners, scale, ipo, opo = config
    rng = np.random.default_rng(7)
    desc = grad_mod.make([1, 2, 5, 4], 3, (2, 2), reduction, mode, low, high, scale, ipo=ipo, opo=opo,
                         corners=corners, roi_gradient=True)
    desc = with_data_type(desc, DataType.FLOAT32, DataType.FLOAT16)
    assert dmlops.problems(desc, "6.2") == []
    x = grad_mod.inputs(rng.standard_normal((1, 2, 5, 4)), rng.standard_normal((3, 2, 2, 2)),
                        np.round(rng.uniform(-1, 6, (3, 4)) * 8) / 8, [0, 0, 0])
    x = {k: (v.astype(np.float16) if v.dtype == F else v) for k, v in x.items()}
    # computed in float32 from the float16 inputs, stored rounded toward zero to float16 (lower.py)
    _check_roi_gradient(desc, x, rtol=2e-3, float16=True)


def test_roi_gradient_rules():
    desc = grad_mod.make([1, 1, 4, 4], 2, [1, 1], roi_gradient=True, with_input=False)
    assert [str(p) for p in dmlops.problems(desc, "6.2")] == [
        "ROI_ALIGN_GRAD.InputTensor: is missing (null); it is required when OutputROIGradientTensor is supplied."]
    desc = grad_mod.make([1, 1, 4, 4], 2, [1, 1], output_gradient=False)
    assert [str(p) for p in dmlops.problems(desc, "6.2")] == [
        "ROI_ALIGN_GRAD: OutputGradientTensor and OutputROIGradientTensor are both null; at least one must be "
        "supplied."]


def test_too_many_sample_slots_are_refused():
    from dmlops.descs import RoiAlign1

    desc = one.make(RoiAlign1, [1, 64, 200, 200], 100, [7, 7], high=2**32 - 1, input_pixel_offset=0.5,
                    output_pixel_offset=-0.5, align_regions_to_corners=False)
    inputs = one.inputs(np.zeros((1, 64, 200, 200), np.float32), np.zeros((100, 4)), np.zeros(100))
    with pytest.raises(DmlOpsError, match=r"ROI_ALIGN1: the sampling is built in the graph from the runtime "
                                          r"ROITensor and gathers \d+ elements"):
        dmlops.run(desc, inputs, backend="reference")
