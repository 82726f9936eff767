"""ROI_POOLING, ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD against independent implementations, on every dmlops
backend (reference, onnxruntime, torch).

Oracles: ONNX's node cases (roialign_aligned_false / aligned_true; roialign_mode_max only to pin the documented
difference), ONNX's reference evaluator and onnxruntime's CPU RoiAlign / MaxRoiPool where their semantics meet
DirectML's (AVERAGE, LINEAR, regions inside the input; integer ROI_POOLING coordinates), and torch autograd of
dmlops's torch ROI_ALIGN1 lowering for ROI_ALIGN_GRAD (which has no DirectML vector).
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


@pytest.mark.parametrize("sample", [s for s in grad_mod.SAMPLES], ids=lambda s: s.name)
def test_roi_align_grad_is_the_autograd_of_roi_align1(sample):
    want = _autograd(sample)
    for b in BACKENDS:
        got = dmlops.run(sample.desc, sample.inputs, backend=b)["OutputGradientTensor"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_roi_gradient_is_refused_with_the_reason(backend):
    s = grad_mod.SAMPLES[1]
    desc = grad_mod.make([1, 1, 4, 4], 4, [1, 3], "MAX", "NEAREST_NEIGHBOR", roi_gradient=True)
    assert dmlops.problems(desc, "6.2") == []
    with pytest.raises(DmlOpsError, match=r"ROI_ALIGN_GRAD\.OutputROIGradientTensor is not supported by dmlops "
                                          rf"\({backend}\): the docs define it only by pseudo-code"):
        dmlops.run(desc, s.inputs, backend=backend)


def test_too_many_sample_slots_are_refused():
    from dmlops.descs import RoiAlign1

    desc = one.make(RoiAlign1, [1, 64, 200, 200], 100, [7, 7], high=2**32 - 1, input_pixel_offset=0.5,
                    output_pixel_offset=-0.5, align_regions_to_corners=False)
    inputs = one.inputs(np.zeros((1, 64, 200, 200), np.float32), np.zeros((100, 4)), np.zeros(100))
    with pytest.raises(DmlOpsError, match=r"ROI_ALIGN1: the sampling is built in the graph from the runtime "
                                          r"ROITensor and gathers \d+ elements"):
        dmlops.run(desc, inputs, backend="reference")
