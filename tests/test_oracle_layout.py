"""SPLIT, TILE, PADDING, PADDING1, DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1) and REVERSE_SUBSEQUENCES against independent
implementations, on every dmlops backend (reference, onnxruntime, torch).

Oracles: torch.split, torch.tile, numpy.pad (constant, edge, reflect, symmetric, wrap; pads larger than the size
included), torch.nn.functional.pad (constant, replicate, reflect, circular), torch.nn.functional.pixel_shuffle /
pixel_unshuffle (COLUMN_ROW_DEPTH) and torch.flip of each subsequence; ONNX's node test cases for Split, Tile, Pad,
DepthToSpace, SpaceToDepth and ReverseSequence (tests/onnx_node_cases.py). Data movement is bit exact: results are
compared bit for bit (NaN payloads, -0.0, 64-bit integer extremes).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import dmlops
from dmlops.types import FeatureLevel, TensorDesc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onnx_node_cases import attribute, generated  # noqa: E402

torch = pytest.importorskip("torch")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
LATEST = FeatureLevel.latest()
ALL_TYPES = ("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
NO_FLOAT64 = ALL_TYPES[1:]  # TILE's tiers have no FLOAT64
DATA_TYPES = {t.lower(): t for t in ALL_TYPES}
PAYLOAD_NAN32 = np.array([0x7FC12345, 0xFFA00001], np.uint32).view(np.float32)  # a quiet and a signalling payload
PAYLOAD_NAN64 = np.array([0x7FF8000012345678], np.uint64).view(np.float64)


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    assert desc.problems(LATEST) == [], desc.problems(LATEST)
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def random_values(rng, data_type, shape):
    """Values over the whole range of ``data_type``: integers with their extremes, floats with -0.0, ±inf and NaNs
    with payloads (FLOAT16: -0.0, ±inf, NaN)."""
    dtype = np.dtype(data_type.lower())
    if dtype.kind == "f":
        v = rng.standard_normal(shape).astype(dtype)
        specials = {4: [-0.0, np.inf, *PAYLOAD_NAN32], 8: [-0.0, -np.inf, *PAYLOAD_NAN64]}.get(
            dtype.itemsize, [-0.0, np.inf, np.nan])
        flat = v.reshape(-1)
        k = min(flat.size, len(specials))
        flat[:k] = np.array(specials[:k]).astype(dtype) if dtype.itemsize == 2 else np.array(specials[:k], dtype)
        return v
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    flat = v.reshape(-1)
    flat[:2] = [info.min, info.max][: flat.size]
    return v


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


def assert_bits(got, want, what):
    """Equal dtypes, shapes and bits (NaN payloads and the sign of zero included).

    One exception, named: FLOAT16 NaNs on the torch backend. dmlops.lower computes FLOAT16 in float32, and torch's
    CPU half-to-float conversion turns every half NaN into 0x7FFFFFFF (sign and payload lost; back in half: 0x7FFF),
    so there a NaN is only checked to be a NaN; every other bit pattern still must match.
    """
    want = np.asarray(want)
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    if got.dtype == np.float16 and "torch" in what:
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=what)
        got, want = np.where(nan, 0, got).astype(np.float16), np.where(nan, 0, want).astype(np.float16)
    np.testing.assert_array_equal(bits(got), bits(want), err_msg=what)


def torch_tensor(array):
    return torch.from_numpy(np.ascontiguousarray(array))


def torch_oracle(fn, x, *args, **kwargs):
    """``fn`` on ``x`` through int64 for uint16/32/64 (torch's CPU lacks most kernels for them); exact either way."""
    wide = x.dtype.kind == "u" and x.itemsize > 1
    t = torch_tensor(x.view(np.dtype(f"i{x.itemsize}")) if wide else x)
    out = fn(t, *args, **kwargs)
    convert = (lambda r: r.numpy().view(x.dtype)) if wide else (lambda r: r.numpy())
    return tuple(convert(r) for r in out) if isinstance(out, (tuple, list)) else convert(out)


def T(data_type, sizes):
    return TensorDesc(data_type, list(sizes))


# ============================================================ SPLIT / TILE against torch
@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("rank", [1, 4, 8])
def test_split_matches_torch_split(rank, data_type):
    rng = np.random.default_rng(100 * rank + ALL_TYPES.index(data_type))
    sizes = [int(n) for n in rng.integers(1, 4, size=rank)]
    axis = int(rng.integers(0, rank))
    sizes[axis] = 7
    parts = [2, 1, 4] if rank != 4 else [7]  # rank 4: one output, a copy
    x = random_values(rng, data_type, sizes)
    outs = tuple(T(data_type, sizes[:axis] + [p] + sizes[axis + 1:]) for p in parts)
    desc = dmlops.Split(input_tensor=T(data_type, sizes), output_tensors=outs, axis=axis)
    want = torch_oracle(torch.split, x, parts, dim=axis)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        for i, w in enumerate(want):
            assert_bits(out[f"OutputTensors[{i}]"], w, f"{backend} output {i}")


@pytest.mark.parametrize("data_type", NO_FLOAT64)
@pytest.mark.parametrize("rank", [1, 3, 5, 8])
def test_tile_matches_torch_tile(rank, data_type):
    rng = np.random.default_rng(200 * rank + ALL_TYPES.index(data_type))
    sizes = [int(n) for n in rng.integers(1, 4, size=rank)]
    repeats = [int(n) for n in rng.integers(1, 4 if rank < 8 else 3, size=rank)]
    x = random_values(rng, data_type, sizes)
    out_sizes = [n * r for n, r in zip(sizes, repeats)]
    desc = dmlops.Tile(input_tensor=T(data_type, sizes), output_tensor=T(data_type, out_sizes), repeats=tuple(repeats))
    want = torch_oracle(torch.tile, x, repeats)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_bits(out["OutputTensor"], want, backend)


# ============================================================ PADDING / PADDING1 against numpy.pad and F.pad
NUMPY_MODES = {"CONSTANT": "constant", "EDGE": "edge", "REFLECTION": "reflect", "SYMMETRIC": "symmetric",
               "WRAP": "wrap"}


def padding_desc(cls, data_type, sizes, mode, value, start, end):
    out = [n + s + e for n, s, e in zip(sizes, start, end)]
    extra = {"padding_value_data_type": data_type} if cls is dmlops.Padding1 else {}
    return cls(input_tensor=T(data_type, sizes), output_tensor=T(data_type, out), padding_mode=mode,
               padding_value=value, start_padding=tuple(start), end_padding=tuple(end), **extra)


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("mode", sorted(NUMPY_MODES))
@pytest.mark.parametrize("rank", [1, 3, 8])
def test_padding1_matches_numpy_pad(rank, mode, data_type):
    rng = np.random.default_rng(300 * rank + 17 * sorted(NUMPY_MODES).index(mode) + ALL_TYPES.index(data_type))
    sizes = [int(n) for n in rng.integers(1, 4, size=rank)]
    high = 8 if rank < 8 else 2  # pads up to more than twice the size: the periodic folds
    start, end = ([int(n) for n in rng.integers(0, high, size=rank)] for _ in range(2))
    x = random_values(rng, data_type, sizes)
    dtype = x.dtype
    value = ({"f": -0.0, "i": int(np.iinfo(dtype).min) if dtype.kind == "i" else 0}.get(dtype.kind)
             if dtype.kind != "u" else int(np.iinfo(dtype).max))
    kw = {"constant_values": np.asarray(value, dtype)} if mode == "CONSTANT" else {}
    want = np.pad(x, list(zip(start, end)), mode=NUMPY_MODES[mode], **kw)
    desc = padding_desc(dmlops.Padding1, data_type, sizes, mode, value, start, end)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_bits(out["OutputTensor"], want, backend)


@pytest.mark.parametrize("mode", sorted(NUMPY_MODES))
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16", "INT32", "UINT8"])
def test_padding_matches_numpy_pad(data_type, mode):
    """PADDING (FLOAT PaddingValue) with pads far beyond the sizes, 5-D."""
    rng = np.random.default_rng(400 + ALL_TYPES.index(data_type) + 31 * sorted(NUMPY_MODES).index(mode))
    sizes, start, end = [1, 2, 3, 1, 4], [0, 5, 1, 2, 9], [3, 0, 7, 1, 4]
    x = random_values(rng, data_type, sizes)
    value = 7.75 if x.dtype.kind == "f" else 7  # 7.75 is exact in FLOAT16; integers receive 7.75 truncated
    desc = padding_desc(dmlops.Padding, data_type, sizes, mode, 7.75, start, end)
    kw = {"constant_values": np.asarray(value, x.dtype)} if mode == "CONSTANT" else {}
    want = np.pad(x, list(zip(start, end)), mode=NUMPY_MODES[mode], **kw)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_bits(out["OutputTensor"], want, backend)


TORCH_MODES = {"CONSTANT": "constant", "EDGE": "replicate", "REFLECTION": "reflect", "WRAP": "circular"}


@pytest.mark.parametrize("mode", sorted(TORCH_MODES))
@pytest.mark.parametrize("rank", [3, 4, 5])
def test_padding1_matches_torch_f_pad(rank, mode):
    """F.pad pads the last rank - 2 dimensions of float tensors, within the size for reflect and circular."""
    rng = np.random.default_rng(500 + 10 * rank + sorted(TORCH_MODES).index(mode))
    sizes = [2, 3] + [int(n) for n in rng.integers(3, 6, size=rank - 2)]
    start = [0, 0] + [int(rng.integers(0, n)) for n in sizes[2:]]
    end = [0, 0] + [int(rng.integers(0, n)) for n in sizes[2:]]
    x = random_values(rng, "FLOAT32", sizes)
    pad = []
    for s, e in zip(reversed(start[2:]), reversed(end[2:])):
        pad += [s, e]
    kw = {"value": -2.5} if mode == "CONSTANT" else {}
    want = F.pad(torch_tensor(x), pad, mode=TORCH_MODES[mode], **kw).numpy()
    desc = padding_desc(dmlops.Padding1, "FLOAT32", sizes, mode, -2.5, start, end)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_bits(out["OutputTensor"], want, backend)


def test_reflection_is_not_symmetric_and_folds_periodically():
    """The docs' rows: REFLECTION of [1 2 3 4] by 2 and 4 is 3 2 | 1 2 3 4 | 3 2 1 2; SYMMETRIC is 2 1 | ... | 4 3 2
    1 (ONNX Pad's reflect is REFLECTION; SYMMETRIC has no ONNX mode)."""
    x = np.array([1, 2, 3, 4], np.float32)
    for mode, want in (("REFLECTION", [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]), ("SYMMETRIC", [2, 1, 1, 2, 3, 4, 4, 3, 2, 1])):
        desc = padding_desc(dmlops.Padding, "FLOAT32", [4], mode, 0, [2], [4])
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            assert_bits(out["OutputTensor"], np.array(want, np.float32), f"{mode} on {backend}")


def test_padding1_value_is_typed():
    """INT64 -2**63 + 1 and UINT64 2**64 - 1 (no float holds them), FLOAT64 1 + 2**-52."""
    for data_type, value in (("INT64", -2**63 + 1), ("UINT64", 2**64 - 1), ("FLOAT64", 1 + 2**-52)):
        dtype = np.dtype(data_type.lower())
        x = np.zeros([2], dtype)
        desc = padding_desc(dmlops.Padding1, data_type, [2], "CONSTANT", value, [1], [1])
        want = np.array([value, 0, 0, value], dtype)
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            assert_bits(out["OutputTensor"], want, f"{data_type} on {backend}")


# ============================================================ DEPTH_TO_SPACE / SPACE_TO_DEPTH
def dcr_depth_to_space(x, b):
    """ONNX DepthToSpace's DCR formula (its operator page), in NumPy."""
    n, c, h, w = x.shape
    return x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // (b * b), h * b, w * b)


def dcr_space_to_depth(x, b):
    """ONNX SpaceToDepth's formula (its operator page), in NumPy."""
    n, c, h, w = x.shape
    return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * b * b, h // b, w // b)


def block_descs(data_type, in_sizes, b, depth_to_space, order):
    n, c, h, w = in_sizes
    out = [n, c // (b * b), h * b, w * b] if depth_to_space else [n, c * b * b, h // b, w // b]
    v1, v0 = (dmlops.DepthToSpace1, dmlops.DepthToSpace) if depth_to_space else (dmlops.SpaceToDepth1,
                                                                                  dmlops.SpaceToDepth)
    descs = [v1(input_tensor=T(data_type, in_sizes), output_tensor=T(data_type, out), block_size=b, order=order)]
    if order == "DEPTH_COLUMN_ROW":
        descs.append(v0(input_tensor=T(data_type, in_sizes), output_tensor=T(data_type, out), block_size=b))
    return descs


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("block", [1, 2, 3])
def test_column_row_depth_matches_torch_pixel_shuffle(block, data_type):
    rng = np.random.default_rng(600 + 10 * block + ALL_TYPES.index(data_type))
    depth = random_values(rng, data_type, [2, 2 * block * block, 3, 2])
    space = torch_oracle(F.pixel_shuffle, depth, block)
    assert_bits(torch_oracle(F.pixel_unshuffle, space, block), depth, "pixel_unshuffle inverts pixel_shuffle")
    for desc in block_descs(data_type, depth.shape, block, True, "COLUMN_ROW_DEPTH"):
        for backend, out in run_all(desc, {"InputTensor": depth}).items():
            assert_bits(out["OutputTensor"], space, f"{desc.OPERATOR_TYPE} on {backend}")
    for desc in block_descs(data_type, space.shape, block, False, "COLUMN_ROW_DEPTH"):
        for backend, out in run_all(desc, {"InputTensor": space}).items():
            assert_bits(out["OutputTensor"], depth, f"{desc.OPERATOR_TYPE} on {backend}")


@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("block", [1, 2, 3])
def test_depth_column_row_matches_onnx_dcr_formula(block, data_type):
    rng = np.random.default_rng(700 + 10 * block + ALL_TYPES.index(data_type))
    depth = random_values(rng, data_type, [2, 3 * block * block, 2, 3])
    space = dcr_depth_to_space(depth, block)
    assert_bits(dcr_space_to_depth(space, block), depth, "the ONNX formulas invert each other")
    for desc in block_descs(data_type, depth.shape, block, True, "DEPTH_COLUMN_ROW"):
        for backend, out in run_all(desc, {"InputTensor": depth}).items():
            assert_bits(out["OutputTensor"], space, f"{desc.OPERATOR_TYPE} on {backend}")
    for desc in block_descs(data_type, space.shape, block, False, "DEPTH_COLUMN_ROW"):
        for backend, out in run_all(desc, {"InputTensor": space}).items():
            assert_bits(out["OutputTensor"], depth, f"{desc.OPERATOR_TYPE} on {backend}")


# ============================================================ REVERSE_SUBSEQUENCES against torch.flip
def reverse_oracle(x, lengths, axis):
    """Every line along ``axis``: torch.flip of its first L elements, the rest copied; a length L above the size n
    is not clamped (DirectML's vectors REVERSE_SUBSEQUENCES-sample_lengths_above_size, sample_uint64_lengths):
    position i reads L - 1 - i, the line's last element where that lies beyond it."""
    t = torch_tensor(x.view(np.dtype(f"i{x.itemsize}")) if x.dtype.kind == "u" and x.itemsize > 1 else x)
    moved = t.movedim(axis, -1).clone()
    lines = moved.reshape(-1, moved.shape[-1])
    lens = np.broadcast_to(np.moveaxis(lengths, axis, -1), moved.shape[:-1] + (1,)).reshape(-1)
    n = lines.shape[1]
    for k, length in enumerate(lens):
        if int(length) <= n:
            lines[k, :int(length)] = torch.flip(lines[k, :int(length)].clone(), [0])
        else:
            lines[k] = lines[k, [min(int(length) - 1 - i, n - 1) for i in range(n)]].clone()
    out = lines.reshape(moved.shape).movedim(-1, axis).contiguous().numpy()
    return out.view(x.dtype)


@pytest.mark.parametrize("lengths_type", ["UINT32", "UINT64"])
@pytest.mark.parametrize("data_type", ALL_TYPES)
@pytest.mark.parametrize("rank", [1, 3, 6])
def test_reverse_subsequences_matches_torch_flip(rank, data_type, lengths_type):
    rng = np.random.default_rng(800 + 10 * rank + ALL_TYPES.index(data_type) + 300 * (lengths_type == "UINT64"))
    sizes = [int(n) for n in rng.integers(1, 4, size=rank)]
    axis = int(rng.integers(0, rank))
    sizes[axis] = 5
    len_sizes = list(sizes)
    len_sizes[axis] = 1
    # 0 to 7 (above the size 5: positions beyond the line read its last element), and the type's largest value.
    lengths = rng.integers(0, 8, size=len_sizes).astype(lengths_type.lower())
    lengths.reshape(-1)[0] = np.iinfo(lengths.dtype).max
    x = random_values(rng, data_type, sizes)
    desc = dmlops.ReverseSubsequences(input_tensor=T(data_type, sizes),
                                      sequence_lengths_tensor=T(lengths_type, len_sizes),
                                      output_tensor=T(data_type, sizes), axis=axis)
    want = reverse_oracle(x, lengths, axis)
    for backend, out in run_all(desc, {"InputTensor": x, "SequenceLengthsTensor": lengths}).items():
        assert_bits(out["OutputTensor"], want, backend)


# ============================================================ ONNX node test cases
ONNX_NODE_CASES = generated(["split", "tile", "pad", "depthtospace", "spacetodepth", "reversesequence"])
SKIPPED = {
    "test_split_zero_size_splits_opset13": "the ONNX tensors are empty; DirectML tensors have no size 0",
    "test_split_zero_size_splits_opset18": "the ONNX tensors are empty; DirectML tensors have no size 0",
    "test_reversesequence_bfloat16": "bfloat16: DirectML has no such DataType",
}


def _axis(node, rank, default=0):
    a = attribute(node, "axis", default)
    return a + rank if a < 0 else a


def _dml_descs(case):
    """[(desc, inputs)] computing the ONNX node case with DirectML operators."""
    node, values = case.node, case.inputs
    x = values[0]
    data_type = DATA_TYPES[x.dtype.name]
    rank = x.ndim
    outs = case.outputs
    if node.op_type == "Split":
        axis = _axis(node, rank)
        tds = tuple(T(data_type, o.shape) for o in outs)
        return [(dmlops.Split(input_tensor=T(data_type, x.shape), output_tensors=tds, axis=axis), {"InputTensor": x})]
    if node.op_type == "Tile":
        return [(dmlops.Tile(input_tensor=T(data_type, x.shape), output_tensor=T(data_type, outs[0].shape),
                             repeats=tuple(int(r) for r in values[1])), {"InputTensor": x})]
    if node.op_type == "Pad":
        pads = [int(p) for p in values[1]]
        axes = list(range(rank)) if len(values) < 4 or values[3] is None else [int(a) % rank for a in values[3]]
        start, end = [0] * rank, [0] * rank
        for k, a in enumerate(axes):
            start[a], end[a] = pads[k], pads[k + len(axes)]
        mode = {"constant": "CONSTANT", "edge": "EDGE", "reflect": "REFLECTION", "wrap": "WRAP"}[
            attribute(node, "mode", b"constant").decode()]
        value = values[2].item() if len(values) > 2 and values[2] is not None else 0
        return [(padding_desc(cls, data_type, x.shape, mode, value, start, end), {"InputTensor": x})
                for cls in (dmlops.Padding, dmlops.Padding1)]
    if node.op_type in ("DepthToSpace", "SpaceToDepth"):
        order = {"DCR": "DEPTH_COLUMN_ROW", "CRD": "COLUMN_ROW_DEPTH"}[attribute(node, "mode", b"DCR").decode()]
        descs = block_descs(data_type, x.shape, attribute(node, "blocksize"), node.op_type == "DepthToSpace", order)
        return [(d, {"InputTensor": x}) for d in descs]
    assert node.op_type == "ReverseSequence"
    batch_axis, time_axis = attribute(node, "batch_axis", 1), attribute(node, "time_axis", 0)
    len_sizes = list(x.shape)
    len_sizes[time_axis] = 1
    shape = [1] * rank
    shape[batch_axis] = x.shape[batch_axis]
    lengths = np.broadcast_to(values[1].reshape(shape), len_sizes).astype(np.uint32)
    desc = dmlops.ReverseSubsequences(input_tensor=T(data_type, x.shape),
                                      sequence_lengths_tensor=T("UINT32", len_sizes),
                                      output_tensor=T(data_type, x.shape), axis=time_axis)
    return [(desc, {"InputTensor": x, "SequenceLengthsTensor": lengths})]


def _onnx_params():
    for name in sorted(ONNX_NODE_CASES):
        marks = [pytest.mark.skip(reason=SKIPPED[name])] if name in SKIPPED else []
        yield pytest.param(name, False, id=name, marks=marks)
        if name not in SKIPPED:
            yield pytest.param(name, True, id=f"{name}-float16", marks=marks)


@pytest.mark.parametrize(("name", "float16"), list(_onnx_params()))
def test_matches_onnx_node_case(name, float16):
    case = ONNX_NODE_CASES[name]
    expected = case.outputs
    if float16:
        if case.inputs[0].dtype != np.float32:
            pytest.skip("an integer case: FLOAT32 only has a FLOAT16 twin")
        from onnx.reference import ReferenceEvaluator

        # The oracle: ONNX's reference evaluator on the float16 inputs (integer inputs are sizes and indices).
        values = [v.astype(np.float16) if v is not None and v.dtype == np.float32 else v for v in case.inputs]
        feeds = {n: v for n, v in zip([n for n in case.node.input if n], values)}
        expected = ReferenceEvaluator(case.node).run(None, feeds)
        assert all(e.dtype == np.float16 for e in expected)
        case = type(case)(case.name, case.node, values, expected, case.opset)
    for desc, inputs in _dml_descs(case):
        for backend, out in run_all(desc, inputs).items():
            if isinstance(desc, dmlops.Split):
                got = [out[f"OutputTensors[{i}]"] for i in range(len(expected))]
            else:
                got = [out["OutputTensor"]]
            for g, e in zip(got, expected):
                assert_bits(g, e, f"{desc.OPERATOR_TYPE} on {backend}")


def test_onnx_node_cases_are_all_there():
    names = set(ONNX_NODE_CASES)
    for expected in ("test_split_variable_parts_2d_opset18", "test_tile", "test_constant_pad", "test_edge_pad",
                     "test_reflect_pad", "test_wrap_pad", "test_constant_pad_axes",
                     "test_depthtospace_crd_mode_example", "test_spacetodepth", "test_reversesequence_batch",
                     "test_reversesequence_time"):
        assert expected in names
