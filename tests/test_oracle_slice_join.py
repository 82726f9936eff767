"""SLICE, SLICE1, JOIN, ELEMENT_WISE_CEIL and ELEMENT_WISE_FLOOR against independent implementations.

Oracles: PyTorch tensor slicing, torch.flip, torch.cat, torch.ceil and torch.floor on random windows of every
DirectML DataType and rank 1 to 8; ONNX's node test cases for Slice, Concat, Ceil and Floor (regenerated in
memory from onnx.backend.test.case.node, with ONNX's reference evaluator for the FLOAT16 runs). Every dmlops
backend (reference, onnxruntime, torch) is checked. The shape rules these operators' check() hooks add are
asserted message by message.
"""
import re

import numpy as np
import pytest

import dmlops
from dmlops.errors import ValidationError
from dmlops.types import FeatureLevel, ScaleBias, TensorDesc
from tests.onnx_node_cases import generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
LATEST = FeatureLevel.latest()
ALL_TYPES = ("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
DATA_TYPES = {t.lower(): t for t in ALL_TYPES}


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def random_values(rng, data_type, shape):
    """Values spread over the whole range of ``data_type`` (integers: the extremes included)."""
    dtype = np.dtype(data_type.lower())
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    flat = v.reshape(-1)
    flat[:2] = [info.min, info.max][: flat.size]
    return v


def torch_tensor(array):
    """A torch tensor of the same dtype (uint16/32/64 included) holding ``array``."""
    return torch.from_numpy(np.ascontiguousarray(array))


def assert_exact(got, want, what):
    """Data movement and ceil/floor are exact: equal values, dtypes and shapes (NaN equal to NaN)."""
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    np.testing.assert_array_equal(got, want, err_msg=what)


# ============================================================ PyTorch oracles
def random_shape(rng, rank, low=1, high=5):
    return [int(n) for n in rng.integers(low, high, size=rank)]


def slice_case(rng, rank, data_type):
    """A valid random SLICE and the torch oracle's slices (start:stop:step, positive steps)."""
    sizes = random_shape(rng, rank, 1, 7)
    offsets, counts, strides = [], [], []
    for n in sizes:
        offset = int(rng.integers(0, n))
        stride = int(rng.integers(1, 4))
        count = int(rng.integers(1, (n - 1 - offset) // stride + 2))  # the last read stays inside
        offsets.append(offset)
        counts.append(count)
        strides.append(stride)
    desc = dmlops.Slice(input_tensor=TensorDesc(data_type, sizes), output_tensor=TensorDesc(data_type, counts),
                        offsets=tuple(offsets), sizes=tuple(counts), strides=tuple(strides))
    index = tuple(slice(o, o + s * (c - 1) + 1, s) for o, c, s in zip(offsets, counts, strides))
    return desc, sizes, index


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("rank", [1, 4, 8])
def test_slice_matches_torch_indexing(rank, data_type):
    rng = np.random.default_rng(rank * 100 + ALL_TYPES.index(data_type))
    desc, sizes, index = slice_case(rng, rank, data_type)
    x = random_values(rng, data_type, sizes)
    want = torch_tensor(x)[index].numpy()
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


def slice1_case(rng, rank, data_type):
    """A valid random SLICE1 (signed strides, outputs that may stop short of the window) and its torch oracle.

    The oracle reads the window in torch's terms: narrow to the window, flip it where the stride is negative,
    then take every |stride|-th element from its start; no CopyStart arithmetic.
    """
    sizes = random_shape(rng, rank, 1, 7)
    offsets, windows, strides, counts = [], [], [], []
    for n in sizes:
        offset = int(rng.integers(0, n))
        window = int(rng.integers(1, n - offset + 1))
        stride = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        most = 1 + (window - 1) // abs(stride)
        offsets.append(offset)
        windows.append(window)
        strides.append(stride)
        counts.append(int(rng.integers(1, most + 1)))
    desc = dmlops.Slice1(input_tensor=TensorDesc(data_type, sizes), output_tensor=TensorDesc(data_type, counts),
                         input_window_offsets=tuple(offsets), input_window_sizes=tuple(windows),
                         input_window_strides=tuple(strides))

    def oracle(t):
        for axis, (o, w, s, c) in enumerate(zip(offsets, windows, strides, counts)):
            t = t.narrow(axis, o, w)
            if s < 0:
                t = torch.flip(t, [axis])
            index = [slice(None)] * rank
            index[axis] = slice(0, abs(s) * (c - 1) + 1, abs(s))
            t = t[tuple(index)]
        return t

    return desc, sizes, oracle


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("rank", [1, 3, 5, 8])
def test_slice1_matches_torch_narrow_flip_and_step(rank, data_type):
    rng = np.random.default_rng(1000 + rank * 100 + ALL_TYPES.index(data_type))
    desc, sizes, oracle = slice1_case(rng, rank, data_type)
    x = random_values(rng, data_type, sizes)
    # torch 2.13 CPU flips uint16/32/64 along the first dimension only (flip_cpu lacks them): the oracle flips int64.
    wide_unsigned = x.dtype.kind == "u" and x.itemsize > 1
    want = oracle(torch_tensor(x.astype(np.int64) if wide_unsigned else x)).numpy().astype(x.dtype)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


def test_slice1_every_negative_stride_reverses_like_torch_flip():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    t = TensorDesc("FLOAT32", [2, 3, 4])
    desc = dmlops.Slice1(input_tensor=t, output_tensor=t, input_window_offsets=(0, 0, 0),
                         input_window_sizes=(2, 3, 4), input_window_strides=(-1, -1, -1))
    want = torch.flip(torch_tensor(x), [0, 1, 2]).numpy()
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("rank", [1, 4, 8])
def test_join_matches_torch_cat(rank, data_type):
    rng = np.random.default_rng(2000 + rank * 100 + ALL_TYPES.index(data_type))
    axis = int(rng.integers(0, rank))
    base = random_shape(rng, rank, 1, 4)
    shapes = []
    for _ in range(int(rng.integers(1, 5))):  # one input is a copy
        s = list(base)
        s[axis] = int(rng.integers(1, 4))
        shapes.append(s)
    xs = [random_values(rng, data_type, s) for s in shapes]
    out_sizes = list(base)
    out_sizes[axis] = sum(s[axis] for s in shapes)
    desc = dmlops.Join(input_tensors=tuple(TensorDesc(data_type, s) for s in shapes),
                       output_tensor=TensorDesc(data_type, out_sizes), axis=axis)
    want = torch.cat([torch_tensor(x) for x in xs], dim=axis).numpy()
    inputs = {f"InputTensors[{i}]": x for i, x in enumerate(xs)}
    for backend, out in run_all(desc, inputs).items():
        assert_exact(out["OutputTensor"], want, backend)


ROUNDING = {"ceil": (dmlops.ElementWiseCeil, torch.ceil), "floor": (dmlops.ElementWiseFloor, torch.floor)}


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_ceil_floor_match_torch(name, data_type):
    cls, oracle = ROUNDING[name]
    rng = np.random.default_rng(3000 + len(name) + len(data_type))
    dtype = np.dtype(data_type.lower())
    # Halves and quarters (exact in both types), random values, signed zeros and the specials.
    x = np.concatenate([np.arange(-8, 8.25, 0.25), rng.standard_normal(65) * 100,
                        [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dtype).reshape(3, 5, 9)
    t = TensorDesc(data_type, list(x.shape))
    want = oracle(torch_tensor(x.astype(np.float32))).numpy().astype(dtype)  # ceil/floor of a float16 fit float16
    for backend, out in run_all(cls(input_tensor=t, output_tensor=t), {"InputTensor": x}).items():
        got = out["OutputTensor"]
        assert_exact(got, want, backend)  # exact: the result is an integer of the input's type
        assert np.array_equal(np.signbit(got), np.signbit(want)), backend  # -0 where torch gives -0 (ceil(-0.5))


@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_ceil_floor_scale_bias_match_torch(name):
    cls, oracle = ROUNDING[name]
    x = np.random.default_rng(7).uniform(-4, 4, 50).astype(np.float32)
    t = TensorDesc("FLOAT32", [50])
    desc = cls(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(0.75, -0.5))
    y = torch_tensor(x) * 0.75 - 0.5  # float32 x * Scale + Bias
    # The backends may round x * Scale + Bias once (fused, or float64 in the reference) or twice; that moves it
    # by an ulp (< 5e-7 here) at most, which changes no ceil or floor while no value lies that close to an integer.
    assert (y - torch.round(y)).abs().min() > 1e-5
    want = oracle(y).numpy()
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, backend)


def test_torch_results_do_not_alias_the_input():
    # A whole-tensor SLICE, a SLICE of the leading dimension (a contiguous view in torch) and a one-input JOIN.
    t = TensorDesc("FLOAT32", [2, 3])
    whole = dmlops.Slice(input_tensor=t, output_tensor=t, offsets=(0, 0), sizes=(2, 3), strides=(1, 1))
    row = dmlops.Slice1(input_tensor=t, output_tensor=TensorDesc("FLOAT32", [1, 3]), input_window_offsets=(1, 0),
                        input_window_sizes=(1, 3), input_window_strides=(1, 1))
    copy = dmlops.Join(input_tensors=(t,), output_tensor=t, axis=0)
    for desc, name in ((whole, "InputTensor"), (row, "InputTensor"), (copy, "InputTensors[0]")):
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        y = dmlops.run(desc, {name: x}, backend="torch", device="cpu")["OutputTensor"]  # x lives on the CPU
        before = y.clone()
        x.fill_(-1)
        assert torch.equal(y, before), desc.OPERATOR_TYPE


# ============================================================ ONNX node test cases
ONNX_MODULES = ("slice", "concat", "ceil", "floor")


# {name: (node, inputs, outputs)} from onnx's node-case generators, regenerated in memory (tests/onnx_node_cases.py).
ONNX_NODE_CASES = {name: (case.node, case.inputs, case.outputs) for name, case in generated(ONNX_MODULES).items()}
SKIPPED = {
    "test_slice_start_out_of_bounds": "the ONNX output is empty; DirectML tensors have no size 0",
}


def onnx_slice_window(shape, starts, ends, axes=None, steps=None):
    """Per dimension (first index read, step, count) under ONNX Slice's clamping rules (opset 13+)."""
    rank = len(shape)
    axes = list(range(len(starts))) if axes is None else [a + rank if a < 0 else a for a in axes]
    steps = [1] * len(starts) if steps is None else steps
    window = [(0, 1, n) for n in shape]
    for axis, start, end, step in zip(axes, starts, ends, steps):
        n = shape[axis]
        start, end = (start + n if start < 0 else start), (end + n if end < 0 else end)
        if step > 0:
            start, end = min(max(start, 0), n), min(max(end, 0), n)
        else:
            start, end = min(max(start, 0), n - 1), min(max(end, -1), n - 1)
        count = max(0, -(-(end - start) // step))
        window[axis] = (int(start), int(step), int(count))
    return window


def _dml_descs(node, values):
    """[desc] computing the ONNX node with DirectML operators (Slice: SLICE1, and SLICE too when no step is
    negative)."""
    from onnx import helper

    x = values[0]
    data_type = DATA_TYPES[x.dtype.name]
    if node.op_type in ("Ceil", "Floor"):
        t = TensorDesc(data_type, list(x.shape))
        cls = dmlops.ElementWiseCeil if node.op_type == "Ceil" else dmlops.ElementWiseFloor
        return [cls(input_tensor=t, output_tensor=t)]
    if node.op_type == "Concat":
        axis = helper.get_attribute_value(node.attribute[0])
        axis = axis + x.ndim if axis < 0 else axis
        out = list(x.shape)
        out[axis] = sum(v.shape[axis] for v in values)
        return [dmlops.Join(input_tensors=tuple(TensorDesc(data_type, list(v.shape)) for v in values),
                            output_tensor=TensorDesc(data_type, out), axis=axis)]
    assert node.op_type == "Slice"
    window = onnx_slice_window(x.shape, *[None if v is None else v.tolist() for v in values[1:]])
    counts = [c for _, _, c in window]
    t_in, t_out = TensorDesc(data_type, list(x.shape)), TensorDesc(data_type, counts)
    offsets, sizes, strides = [], [], []
    for first, step, count in window:
        last = first + step * (count - 1)
        offsets.append(min(first, last))
        sizes.append(abs(last - first) + 1)
        strides.append(step)
    descs = [dmlops.Slice1(input_tensor=t_in, output_tensor=t_out, input_window_offsets=tuple(offsets),
                           input_window_sizes=tuple(sizes), input_window_strides=tuple(strides))]
    if min(strides) > 0:
        descs.append(dmlops.Slice(input_tensor=t_in, output_tensor=t_out, offsets=tuple(offsets), sizes=tuple(counts),
                                  strides=tuple(strides)))
    return descs


def _onnx_params():
    for name in sorted(ONNX_NODE_CASES):
        marks = [pytest.mark.skip(reason=SKIPPED[name])] if name in SKIPPED else []
        yield pytest.param(name, False, id=name, marks=marks)
        if name not in SKIPPED:
            yield pytest.param(name, True, id=f"{name}-float16", marks=marks)


@pytest.mark.parametrize(("name", "float16"), list(_onnx_params()))
def test_matches_onnx_node_case(name, float16):
    node, inputs, outputs = ONNX_NODE_CASES[name]
    present = dict(zip([n for n in node.input if n], inputs))
    values = [present.get(n) if n else None for n in node.input]
    expected = outputs[0]
    if float16:
        from onnx.reference import ReferenceEvaluator

        # The oracle: ONNX's reference evaluator on the float16 inputs (integer inputs are Slice's indices).
        values = [v.astype(np.float16) if v is not None and v.dtype == np.float32 else v for v in values]
        feeds = {n: v for n, v in zip(node.input, values) if n}
        expected = ReferenceEvaluator(node).run(None, feeds)[0]
        assert expected.dtype == np.float16
    data = [v for v in values if v is not None and v.dtype.kind == "f"]
    for desc in _dml_descs(node, values):
        assert not desc.problems(LATEST), desc.problems(LATEST)  # every unskipped case maps to a valid desc
        if isinstance(desc, dmlops.Join):
            inputs = {f"InputTensors[{i}]": v for i, v in enumerate(data)}
        else:
            inputs = {"InputTensor": data[0]}
        for backend, out in run_all(desc, inputs).items():
            # Exact: copies, and ceil/floor, whose results are integers of the input's type.
            assert_exact(out["OutputTensor"], expected, f"{desc.OPERATOR_TYPE} on {backend}")


def test_onnx_node_cases_are_all_there():
    names = set(ONNX_NODE_CASES)
    for expected in ("test_slice", "test_slice_neg_steps", "test_slice_negative_axes", "test_slice_end_out_of_bounds",
                     "test_concat_3d_axis_negative_1", "test_concat_1d_axis_0", "test_ceil_example", "test_floor"):
        assert expected in names
    assert len([n for n in names if n.startswith("test_concat_")]) == 12


def test_onnx_slice_window_matches_numpy_on_the_neg_steps_case():
    # The converter's own check, by hand: x[20:0:-1, 10:0:-3, 4:1:-2] of a {20, 10, 5} tensor.
    assert onnx_slice_window([20, 10, 5], [20, 10, 4], [0, 0, 1], [0, 1, 2], [-1, -3, -2]) == [
        (19, -1, 19), (9, -3, 3), (4, -2, 2)]


# ============================================================ shape rules (check hooks)
def t(*sizes, dt="FLOAT32"):
    return TensorDesc(dt, list(sizes))


def slice_desc(in_sizes=(1, 1, 4, 4), out_sizes=(1, 1, 2, 2), offsets=(0, 0, 1, 0), sizes=(1, 1, 2, 2),
               strides=(1, 1, 2, 3)):
    return dmlops.Slice(input_tensor=t(*in_sizes), output_tensor=t(*out_sizes), offsets=offsets, sizes=sizes,
                        strides=strides)


def slice1_desc(in_sizes=(1, 1, 4, 4), out_sizes=(1, 1, 2, 2), offsets=(0, 0, 0, 1), sizes=(1, 1, 4, 3),
                strides=(1, 1, -2, 2)):
    return dmlops.Slice1(input_tensor=t(*in_sizes), output_tensor=t(*out_sizes), input_window_offsets=offsets,
                         input_window_sizes=sizes, input_window_strides=strides)


def join_desc(inputs=((1, 1, 2, 3), (1, 1, 2, 4)), out=(1, 1, 2, 7), axis=3):
    return dmlops.Join(input_tensors=tuple(t(*s) for s in inputs), output_tensor=t(*out), axis=axis)


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


@pytest.mark.parametrize("desc", [slice_desc(), slice1_desc(), join_desc(),
                                  slice1_desc(out_sizes=(1, 1, 1, 1)),  # fewer than the window holds
                                  join_desc(inputs=((1, 1, 2, 3),), out=(1, 1, 2, 3))],
                         ids=lambda d: d.OPERATOR_TYPE)
def test_valid_descs_have_no_problems(desc):
    assert messages(desc) == []
    assert messages(desc, "3.0") == []  # 4-D FLOAT32 at DML_FEATURE_LEVEL_3_0 too


def test_slice_stride_zero():
    with pytest.raises(ValidationError, match=re.escape("SLICE.Strides[3]: 0 is not allowed (allowed: 1 or more).")):
        slice_desc(strides=(1, 1, 2, 0)).validate(LATEST)


def test_slice_dimension_count():
    desc = slice_desc(offsets=(1, 0), sizes=(2, 2), strides=(2, 3))
    with pytest.raises(ValidationError, match=re.escape(
            "SLICE.DimensionCount: 2 (the length of Offsets, Sizes and Strides) does not match InputTensor's "
            "DimensionCount 4; they must be equal.")):
        desc.validate(LATEST)
    assert len(messages(desc)) == 1  # no per-dimension rule runs on arrays of the wrong length


def test_slice_sizes_must_match_the_output():
    with pytest.raises(ValidationError, match=re.escape(
            "SLICE.OutputTensor: Sizes [1, 1, 2, 2] do not match the slice's Sizes [1, 1, 2, 1]; they must be "
            "equal.")):
        slice_desc(sizes=(1, 1, 2, 1)).validate(LATEST)


def test_slice_reads_out_of_bounds():
    # Offsets 1 + Strides 3 * (Sizes 2 - 1) = 4 in a dimension of 4.
    desc = slice_desc(offsets=(0, 0, 1, 1))
    with pytest.raises(ValidationError, match=re.escape(
            "SLICE: dimension 3 reads index 4 = Offsets[3] 1 + Strides[3] 3 * (Sizes[3] 2 - 1), outside "
            "InputTensor's Sizes[3] = 4 (allowed: up to 3; out-of-bounds reads are not permitted).")):
        desc.validate(LATEST)
    assert len(messages(desc)) == 1
    assert messages(slice_desc(offsets=(0, 0, 1, 0))) == []  # 0 + 3 * 1 = 3: the last element, inside


def test_slice1_stride_and_window_zero():
    desc = slice1_desc(sizes=(1, 1, 4, 0), strides=(1, 0, -2, 2))
    with pytest.raises(ValidationError) as info:
        desc.validate(LATEST)
    assert [str(p) for p in info.value.problems] == [
        "SLICE1.InputWindowStrides[1]: 0 is not allowed (allowed: a positive or negative stride; strides may not "
        "be 0).",
        "SLICE1.InputWindowSizes[3]: 0 is not allowed (allowed: 1 or more; the input window mustn't be empty).",
    ]
    with pytest.raises(ValidationError, match=re.escape("SLICE1.InputWindowStrides[1]: 0 is not allowed")):
        slice1_desc(strides=(1, 0, -2, 2)).validate(LATEST)


def test_slice1_dimension_count():
    with pytest.raises(ValidationError, match=re.escape(
            "SLICE1.DimensionCount: 3 (the length of InputWindowOffsets, InputWindowSizes and InputWindowStrides) "
            "does not match InputTensor's DimensionCount 4; they must be equal.")):
        slice1_desc(offsets=(0, 0, 1), sizes=(1, 4, 3), strides=(1, -2, 2)).validate(LATEST)


def test_slice1_window_out_of_bounds():
    with pytest.raises(ValidationError, match=re.escape(
            "SLICE1: dimension 2: InputWindowOffsets[2] + InputWindowSizes[2] = 1 + 4 = 5 exceeds InputTensor's "
            "Sizes[2] = 4 (allowed: up to 4; out-of-bounds reads are not permitted).")):
        slice1_desc(offsets=(0, 0, 1, 1)).validate(LATEST)


def test_slice1_output_larger_than_the_window():
    # A window of 4 at stride -2 holds 1 + 3 // 2 = 2 elements; 3 are asked for.
    desc = slice1_desc(out_sizes=(1, 1, 3, 2))
    with pytest.raises(ValidationError, match=re.escape(
            "SLICE1.OutputTensor: Sizes[2] is 3, more than the window holds: 1 + (InputWindowSizes[2] - 1) / "
            "|InputWindowStrides[2]| = 1 + (4 - 1) / 2 = 2 (allowed: 1 to 2).")):
        desc.validate(LATEST)
    assert len(messages(desc)) == 1


def test_join_axis_out_of_range():
    with pytest.raises(ValidationError, match=re.escape(
            "JOIN.Axis: 4 is out of range for a 4-dimensional OutputTensor (allowed: 0 to 3).")):
        join_desc(axis=4).validate(LATEST)


def test_join_sizes_outside_the_axis():
    desc = join_desc(inputs=((1, 1, 2, 3), (1, 2, 2, 4)))
    with pytest.raises(ValidationError, match=re.escape(
            "JOIN.InputTensors[1]: Sizes [1, 2, 2, 4] do not match OutputTensor's Sizes outside Axis 3 = "
            "[1, 1, 2, 4].")):
        desc.validate(LATEST)
    assert len(messages(desc)) == 1


def test_join_axis_sizes_must_add_up():
    with pytest.raises(ValidationError, match=re.escape(
            "JOIN.OutputTensor: Sizes[3] is 6; along Axis 3 it must be the sum of the InputTensors' Sizes[3] = "
            "3 + 4 = 7.")):
        join_desc(out=(1, 1, 2, 6)).validate(LATEST)


def test_join_rank_difference_is_reported_once():
    # Different DimensionCounts are the generic same-constraint's; the hook skips that input.
    desc = join_desc(inputs=((1, 1, 2, 3), (1, 2, 4)))
    assert messages(desc) == [
        "JOIN: InputTensors[0], InputTensors[1] and OutputTensor must have the same DimensionCount; got 4, 3 and 4.",
    ]


def test_compile_refuses_an_invalid_slice():
    with pytest.raises(ValidationError, match=re.escape("SLICE.Strides[3]: 0 is not allowed")):
        dmlops.compile(slice_desc(strides=(1, 1, 2, 0)), "reference")
