"""GATHER, GATHER_ELEMENTS, GATHER_ND(1), SCATTER_ELEMENTS, SCATTER_ND, ONE_HOT, MAX_UNPOOLING and SLICE_GRAD against
independent implementations, on every dmlops backend (reference, onnxruntime, torch), exactly.

Oracles:
* ONNX's node test cases (Gather, GatherElements, GatherND, ScatterElements/Scatter, ScatterND, OneHot, MaxUnpool),
  regenerated in memory from onnx.backend.test.case.node: each ONNX node becomes the DML descriptor that computes
  it (ranks padded with leading 1s to one DimensionCount, as DirectML requires) and the stored outputs are the
  expected values; float32 cases also run as FLOAT16 (data movement commutes with rounding to float16). Cases with
  a reduction other than "none" or a data type DirectML lacks (bfloat16) have no DML counterpart.
* PyTorch on random tensors of every DataType: torch.index_select, torch.gather, advanced indexing, torch.scatter,
  Tensor.index_put, torch.nn.functional.one_hot, torch.nn.functional.max_unpool2d after max_pool2d (its
  per-plane indices turned into DirectML's flat ones), and autograd of slicing (with torch.flip for negative
  strides) for SLICE_GRAD.
"""
import zlib

import numpy as np
import pytest

import dmlops
from dmlops.sample import td
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
ALL_TYPES = ("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
INDEX_TYPES = ("INT64", "INT32", "UINT64", "UINT32")
DML_TYPES = {np.dtype(t.lower()): t for t in ALL_TYPES}
# torch ops here only move elements, so they run on the bits: unsigned types as the signed type of their width, and
# floats too (torch's float16 copy in scatter turned a 0x7E00 NaN into 0x7FFF: the oracle must not change bits).
SIGNED_VIEW = {"uint16": np.int16, "uint32": np.int32, "uint64": np.int64,
               "float16": np.int16, "float32": np.int32, "float64": np.int64}


def assert_exact(got, want, what, any_float16_nan=False):
    """Equal dtype, shape and bits (NaN payloads and -0.0 included). ``any_float16_nan``: a FLOAT16 NaN may come back
    with another payload (see run_all)."""
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype, f"{what}: {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: {got.shape} != {want.shape}"
    if any_float16_nan and got.dtype == np.float16:
        nan = np.isnan(want)
        assert (np.isnan(got) == nan).all(), f"{what}: NaN positions differ:\n{got}\n!=\n{want}"
        got, want = np.where(nan, 0, got).astype(np.float16), np.where(nan, 0, want).astype(np.float16)
    same = got.view(np.uint8) == want.view(np.uint8)
    assert same.all(), f"{what}:\n{got}\n!=\n{want}"


def run_all(desc, inputs, want, what):
    assert dmlops.problems(desc, "6.4") == [], what
    for b in BACKENDS:
        out = dmlops.run(desc, inputs, backend=b)
        for name, value in want.items():
            # dmlops.lower computes FLOAT16 in float32 on every backend; torch's float16 -> float32 conversion makes
            # every NaN 0x7FFFFFFF (stored back as 0x7FFF), so on torch a FLOAT16 NaN keeps being NaN but not its
            # payload. The lowerings here copy bits; the conversion before them is dmlops.lower's.
            assert_exact(out[name], value, f"{what} [{b}] {name}", any_float16_nan=b == "torch")


def padded(shape, n):
    return [1] * (n - len(shape)) + list(shape)


def index_type(a):
    return DML_TYPES[np.dtype(a.dtype)]


# ============================================================ ONNX node test cases
MODULES = ["gather", "gatherelements", "gathernd", "scatterelements", "scatter", "scatternd", "onehot", "maxunpool"]


def _gather(node, ins, outs):
    data, idx = ins
    y = outs[0]
    n = max(data.ndim, idx.ndim, y.ndim, 1)
    axis = attribute(node, "axis", 0) % max(data.ndim, 1)
    desc = dmlops.Gather(input_tensor=td(DML_TYPES[data.dtype], padded(data.shape, n)),
                         indices_tensor=td(index_type(idx), padded(idx.shape, n)),
                         output_tensor=td(DML_TYPES[data.dtype], padded(y.shape, n)),
                         axis=axis + n - data.ndim, index_dimensions=idx.ndim)
    return desc, {"InputTensor": data.reshape(padded(data.shape, n)), "IndicesTensor": idx.reshape(padded(idx.shape, n))}, \
        {"OutputTensor": y.reshape(padded(y.shape, n))}


def _gather_elements(node, ins, outs):
    data, idx = ins
    axis = attribute(node, "axis", 0) % data.ndim
    desc = dmlops.GatherElements(input_tensor=td(DML_TYPES[data.dtype], data.shape),
                                 indices_tensor=td(index_type(idx), idx.shape),
                                 output_tensor=td(DML_TYPES[data.dtype], idx.shape), axis=axis)
    return desc, {"InputTensor": data, "IndicesTensor": idx}, {"OutputTensor": outs[0]}


def _gather_nd(node, ins, outs):
    data, idx = ins
    y = outs[0]
    n = max(data.ndim, idx.ndim, y.ndim)
    desc = dmlops.GatherNd1(input_tensor=td(DML_TYPES[data.dtype], padded(data.shape, n)),
                            indices_tensor=td(index_type(idx), padded(idx.shape, n)),
                            output_tensor=td(DML_TYPES[data.dtype], padded(y.shape, n)),
                            input_dimension_count=data.ndim, indices_dimension_count=idx.ndim,
                            batch_dimension_count=attribute(node, "batch_dims", 0))
    return desc, {"InputTensor": data.reshape(padded(data.shape, n)), "IndicesTensor": idx.reshape(padded(idx.shape, n))}, \
        {"OutputTensor": y.reshape(padded(y.shape, n))}


def _scatter_elements(node, ins, outs):
    data, idx, upd = ins
    axis = attribute(node, "axis", 0) % data.ndim
    t = DML_TYPES[data.dtype]
    desc = dmlops.ScatterElements(input_tensor=td(t, data.shape), indices_tensor=td(index_type(idx), idx.shape),
                                  updates_tensor=td(t, upd.shape), output_tensor=td(t, data.shape), axis=axis)
    return desc, {"InputTensor": data, "IndicesTensor": idx, "UpdatesTensor": upd}, {"OutputTensor": outs[0]}


def _scatter_nd(node, ins, outs):
    data, idx, upd = ins
    n = max(data.ndim, idx.ndim, upd.ndim)
    t = DML_TYPES[data.dtype]
    desc = dmlops.ScatterNd(input_tensor=td(t, padded(data.shape, n)), indices_tensor=td(index_type(idx), padded(idx.shape, n)),
                            updates_tensor=td(t, padded(upd.shape, n)), output_tensor=td(t, padded(data.shape, n)),
                            input_dimension_count=data.ndim, indices_dimension_count=idx.ndim)
    return desc, {"InputTensor": data.reshape(padded(data.shape, n)), "IndicesTensor": idx.reshape(padded(idx.shape, n)),
                  "UpdatesTensor": upd.reshape(padded(upd.shape, n))}, {"OutputTensor": outs[0].reshape(padded(data.shape, n))}


def _one_hot(node, ins, outs):
    idx, _depth, values = ins
    y = outs[0]
    axis = attribute(node, "axis", -1) % y.ndim
    idx = np.trunc(idx).astype(np.int64) if idx.dtype.kind == "f" else idx  # ONNX casts float indices to int
    dml_idx = np.expand_dims(idx, axis)
    t = DML_TYPES[values.dtype]
    desc = dmlops.OneHot(indices_tensor=td(index_type(dml_idx), dml_idx.shape),
                         values_tensor=td(t, padded(values.shape, y.ndim)), output_tensor=td(t, y.shape), axis=axis)
    return desc, {"IndicesTensor": dml_idx, "ValuesTensor": values.reshape(padded(values.shape, y.ndim))}, \
        {"OutputTensor": y}


def _max_unpool(node, ins, outs):
    x, idx = ins[:2]
    y = outs[0]
    # ONNX's indices are flat over the unpooled shape its kernel and strides infer; given a larger output_shape,
    # ONNX places them at the same coordinates. DirectML's are flat over OutputTensor itself: re-ravel them.
    kernel, strides = attribute(node, "kernel_shape"), attribute(node, "strides", [1] * (x.ndim - 2))
    inferred = list(x.shape[:2]) + [(n - 1) * s + k for n, s, k in zip(x.shape[2:], strides, kernel)]
    idx = np.ravel_multi_index(np.unravel_index(idx, inferred), y.shape)
    desc = dmlops.MaxUnpooling(input_tensor=td(DML_TYPES[x.dtype], x.shape), indices_tensor=td("UINT64", idx.shape),
                               output_tensor=td(DML_TYPES[x.dtype], y.shape))
    return desc, {"InputTensor": x, "IndicesTensor": idx.astype(np.uint64)}, {"OutputTensor": y}


TRANSLATE = {"Gather": _gather, "GatherElements": _gather_elements, "GatherND": _gather_nd,
             "ScatterElements": _scatter_elements, "Scatter": _scatter_elements, "ScatterND": _scatter_nd,
             "OneHot": _one_hot, "MaxUnpool": _max_unpool}


def _node_cases():
    out, skipped = [], []
    for case in generated(MODULES).values():
        if case.inputs is None or attribute(case.node, "reduction", b"none") not in (b"none", "none") or \
                any(np.asarray(a).dtype not in DML_TYPES and np.asarray(a).dtype.kind not in "iu" for a in case.inputs):
            skipped.append(case.name)
            continue
        out.append(case)
    return out, skipped


NODE_CASES, SKIPPED = _node_cases()


def test_the_node_cases_cover_every_operator():
    ops = {c.node.op_type for c in NODE_CASES}
    assert ops == set(TRANSLATE), ops
    assert len(NODE_CASES) >= 20
    # Only reductions (add/mul/max/min) and the bfloat16 OneHot have no DirectML counterpart.
    assert all(("reduction" in n or "scatternd_" in n or "bfloat16" in n or "duplicate" in n) for n in SKIPPED), SKIPPED


@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16"])
@pytest.mark.parametrize("case", NODE_CASES, ids=lambda c: c.name)
def test_onnx_node_case(case, float16):
    ins, outs = [np.asarray(a) for a in case.inputs], [np.asarray(a) for a in case.outputs]
    data_at = {"OneHot": 2}.get(case.node.op_type, 0)
    if float16:
        if ins[data_at].dtype != np.float32:
            pytest.skip("FLOAT16 runs of float32 cases only")
        ins = [a.astype(np.float16) if i in (data_at, 2 if case.node.op_type.startswith("Scatter") else -1) else a
               for i, a in enumerate(ins)]
        outs = [outs[0].astype(np.float16)]  # data movement: rounding the inputs rounds the outputs the same way
    desc, inputs, want = TRANSLATE[case.node.op_type](case.node, ins, outs)
    run_all(desc, inputs, want, case.name)


# ============================================================ PyTorch oracles
def random_values(rng, data_type, shape):
    """Values spread over the whole range of ``data_type`` (floats: with -0.0, inf and a NaN payload)."""
    dtype = np.dtype(data_type.lower())
    if dtype.kind == "f":
        v = rng.standard_normal(shape).astype(dtype)
        flat = v.reshape(-1)
        specials = np.array([-0.0, np.inf, np.nan], dtype)
        flat[:3] = specials[:flat.size]
        return v
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def as_torch(a):
    """A torch tensor with the bits of ``a`` (unsigned and float types as the signed type of their width)."""
    a = np.ascontiguousarray(a)
    signed = SIGNED_VIEW.get(a.dtype.name)
    return torch.from_numpy(a.view(signed) if signed else a)


def from_torch(t, dtype):
    return t.numpy().view(np.dtype(dtype))


def random_indices(rng, index_type, values, size):
    """``values`` (in [0, size)) written as ``index_type``: signed types take some as negative (from the end)."""
    values = np.asarray(values, np.int64)
    if index_type.startswith("INT"):
        values = np.where(rng.random(values.shape) < 0.5, values - size, values)
    return values.astype(index_type.lower())


def normalized(idx, size):
    i = idx.astype(np.int64)
    return np.where(i < 0, i + size, i)


TRIALS = range(12)


def _case(op, trial):
    rng = np.random.default_rng(zlib.crc32(f"{op}/{trial}".encode()))  # the same cases in every run (hash() is not)
    return rng, ALL_TYPES[trial % len(ALL_TYPES)], INDEX_TYPES[trial % len(INDEX_TYPES)]


@pytest.mark.parametrize("trial", TRIALS)
def test_gather_matches_torch_index_select(trial):
    rng, t, it = _case("gather", trial)
    rank = int(rng.integers(1, 6))
    x_sizes = [int(n) for n in rng.integers(1, 5, size=rank)]
    axis = int(rng.integers(0, rank))
    k = int(rng.integers(1, 3))  # IndexDimensions
    n = max(rank, k, rank + k - 1)
    idx_shape = [int(v) for v in rng.integers(1, 4, size=k)]
    x = random_values(rng, t, x_sizes)
    idx = random_indices(rng, it, rng.integers(0, x_sizes[axis], size=idx_shape), x_sizes[axis])
    flat = torch.index_select(as_torch(x), axis, torch.from_numpy(normalized(idx, x_sizes[axis]).reshape(-1)))
    want = from_torch(flat.reshape(x_sizes[:axis] + idx_shape + x_sizes[axis + 1:]), x.dtype)
    out_sizes = padded(want.shape, n)
    desc = dmlops.Gather(input_tensor=td(t, padded(x_sizes, n)), indices_tensor=td(it, padded(idx_shape, n)),
                         output_tensor=td(t, out_sizes), axis=axis + n - rank, index_dimensions=k)
    run_all(desc, {"InputTensor": x.reshape(padded(x_sizes, n)), "IndicesTensor": idx.reshape(padded(idx_shape, n))},
            {"OutputTensor": want.reshape(out_sizes)}, f"trial {trial}: {t} {x_sizes} axis {axis} by {it} {idx_shape}")


@pytest.mark.parametrize("trial", TRIALS)
def test_gather_elements_matches_torch_gather(trial):
    rng, t, it = _case("gather_elements", trial)
    rank = int(rng.integers(1, 6))
    x_sizes = [int(n) for n in rng.integers(1, 5, size=rank)]
    axis = int(rng.integers(0, rank))
    idx_sizes = list(x_sizes)
    idx_sizes[axis] = int(rng.integers(1, 5))
    x = random_values(rng, t, x_sizes)
    idx = random_indices(rng, it, rng.integers(0, x_sizes[axis], size=idx_sizes), x_sizes[axis])
    want = from_torch(torch.gather(as_torch(x), axis, torch.from_numpy(normalized(idx, x_sizes[axis]))), x.dtype)
    desc = dmlops.GatherElements(input_tensor=td(t, x_sizes), indices_tensor=td(it, idx_sizes),
                                 output_tensor=td(t, idx_sizes), axis=axis)
    run_all(desc, {"InputTensor": x, "IndicesTensor": idx}, {"OutputTensor": want}, f"trial {trial}: {t} axis {axis}")


@pytest.mark.parametrize("trial", TRIALS)
def test_gather_nd1_matches_torch_advanced_indexing(trial):
    rng, t, it = _case("gather_nd1", trial)
    batch = int(rng.integers(0, 2))
    rank = int(rng.integers(batch + 1, 5))
    x_sizes = [int(n) for n in rng.integers(1, 4, size=rank)]
    k = int(rng.integers(1, rank - batch + 1))
    mid = [int(n) for n in rng.integers(1, 4, size=int(rng.integers(0, 3)))]
    idx_sizes = x_sizes[:batch] + mid + [k]
    coords = np.stack([rng.integers(0, x_sizes[batch + c], size=idx_sizes[:-1]) for c in range(k)], axis=-1)
    idx = np.stack([random_indices(rng, it, coords[..., c], x_sizes[batch + c]) for c in range(k)], axis=-1)
    x = random_values(rng, t, x_sizes)
    xt = as_torch(x)
    if batch:
        parts = [xt[b][tuple(torch.from_numpy(coords[b][..., c]) for c in range(k))] for b in range(x_sizes[0])]
        got = torch.stack(parts)
    else:
        got = xt[tuple(torch.from_numpy(coords[..., c]) for c in range(k))]
    want = from_torch(got, x.dtype)
    n = max(len(x_sizes), len(idx_sizes), want.ndim)
    desc = dmlops.GatherNd1(input_tensor=td(t, padded(x_sizes, n)), indices_tensor=td(it, padded(idx_sizes, n)),
                            output_tensor=td(t, padded(want.shape, n)), input_dimension_count=len(x_sizes),
                            indices_dimension_count=len(idx_sizes), batch_dimension_count=batch)
    run_all(desc, {"InputTensor": x.reshape(padded(x_sizes, n)), "IndicesTensor": idx.reshape(padded(idx_sizes, n))},
            {"OutputTensor": want.reshape(padded(want.shape, n))}, f"trial {trial}: {t} {x_sizes} by {idx_sizes}")
    if batch == 0:  # GATHER_ND is GATHER_ND1 without batch dimensions
        nd = dmlops.GatherNd(input_tensor=desc.input_tensor, indices_tensor=desc.indices_tensor,
                             output_tensor=desc.output_tensor, input_dimension_count=len(x_sizes),
                             indices_dimension_count=len(idx_sizes))
        run_all(nd, {"InputTensor": x.reshape(padded(x_sizes, n)), "IndicesTensor": idx.reshape(padded(idx_sizes, n))},
                {"OutputTensor": want.reshape(padded(want.shape, n))}, f"GATHER_ND trial {trial}")


@pytest.mark.parametrize("trial", TRIALS)
def test_scatter_elements_matches_torch_scatter(trial):
    rng, t, it = _case("scatter_elements", trial)
    rank = int(rng.integers(1, 6))
    x_sizes = [int(n) for n in rng.integers(1, 5, size=rank)]
    axis = int(rng.integers(0, rank))
    idx_sizes = list(x_sizes)
    idx_sizes[axis] = int(rng.integers(1, x_sizes[axis] + 1))
    # Unique targets along Axis (DirectML leaves duplicates undefined): a permutation's first entries per line.
    perm = np.argsort(rng.random(x_sizes[:axis] + [x_sizes[axis]] + x_sizes[axis + 1:]), axis=axis)
    chosen = np.take(perm, np.arange(idx_sizes[axis]), axis=axis)
    idx = random_indices(rng, it, chosen, x_sizes[axis])
    x, upd = random_values(rng, t, x_sizes), random_values(rng, t, idx_sizes)
    got = torch.scatter(as_torch(x), axis, torch.from_numpy(chosen.astype(np.int64)), as_torch(upd))
    desc = dmlops.ScatterElements(input_tensor=td(t, x_sizes), indices_tensor=td(it, idx_sizes),
                                  updates_tensor=td(t, idx_sizes), output_tensor=td(t, x_sizes), axis=axis)
    run_all(desc, {"InputTensor": x, "IndicesTensor": idx, "UpdatesTensor": upd},
            {"OutputTensor": from_torch(got, x.dtype)}, f"trial {trial}: {t} axis {axis}")


@pytest.mark.parametrize("trial", TRIALS)
def test_scatter_nd_matches_torch_index_put(trial):
    rng, t, it = _case("scatter_nd", trial)
    rank = int(rng.integers(1, 5))
    x_sizes = [int(n) for n in rng.integers(1, 4, size=rank)]
    k = int(rng.integers(1, rank + 1))
    blocks = int(np.prod(x_sizes[:k]))
    count = int(rng.integers(1, blocks + 1))
    flat = rng.permutation(blocks)[:count]  # unique tuples
    coords = np.stack(np.unravel_index(flat, x_sizes[:k]), axis=-1) if k else flat[:, None]
    idx_sizes = [count, k]
    idx = np.stack([random_indices(rng, it, coords[:, c], x_sizes[c]) for c in range(k)], axis=-1)
    upd_sizes = [count] + x_sizes[k:]
    x, upd = random_values(rng, t, x_sizes), random_values(rng, t, upd_sizes)
    got = as_torch(x).index_put(tuple(torch.from_numpy(coords[:, c]) for c in range(k)), as_torch(upd))
    n = max(rank, 2, len(upd_sizes))
    desc = dmlops.ScatterNd(input_tensor=td(t, padded(x_sizes, n)), indices_tensor=td(it, padded(idx_sizes, n)),
                            updates_tensor=td(t, padded(upd_sizes, n)), output_tensor=td(t, padded(x_sizes, n)),
                            input_dimension_count=rank, indices_dimension_count=2)
    run_all(desc, {"InputTensor": x.reshape(padded(x_sizes, n)), "IndicesTensor": idx.reshape(padded(idx_sizes, n)),
                   "UpdatesTensor": upd.reshape(padded(upd_sizes, n))},
            {"OutputTensor": from_torch(got, x.dtype).reshape(padded(x_sizes, n))}, f"trial {trial}: {t} {x_sizes} k {k}")


ONE_HOT_VALUE_TYPES = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8", "INT64", "UINT64",
                       "FLOAT64")


@pytest.mark.parametrize("trial", TRIALS)
def test_one_hot_matches_torch_one_hot(trial):
    rng, _, it = _case("one_hot", trial)
    t = ONE_HOT_VALUE_TYPES[trial % len(ONE_HOT_VALUE_TYPES)]
    rank = int(rng.integers(1, 5))
    out_sizes = [int(n) for n in rng.integers(1, 5, size=rank)]
    axis = int(rng.integers(0, rank))
    depth = out_sizes[axis]
    idx_sizes = list(out_sizes)
    idx_sizes[axis] = 1
    positions = rng.integers(0, depth, size=idx_sizes)
    idx = random_indices(rng, it, positions, depth)
    values = random_values(rng, t, [2])
    hot = torch.nn.functional.one_hot(torch.from_numpy(positions.astype(np.int64)), depth)  # {..., 1, ..., depth}
    hot = hot.squeeze(axis).movedim(-1, axis) if rank > 1 else hot.reshape(depth)
    want = values[hot.numpy()]  # [off, on] picked by torch's one-hot
    desc = dmlops.OneHot(indices_tensor=td(it, idx_sizes), values_tensor=td(t, padded([2], rank)),
                         output_tensor=td(t, out_sizes), axis=axis)
    run_all(desc, {"IndicesTensor": idx, "ValuesTensor": values.reshape(padded([2], rank))}, {"OutputTensor": want},
            f"trial {trial}: {t} {out_sizes} axis {axis}")


@pytest.mark.parametrize("trial", TRIALS)
def test_max_unpooling_matches_torch_max_unpool2d(trial):
    rng, t, it = _case("max_unpooling", trial)
    t = [n for n in ALL_TYPES if n != "FLOAT64"][trial % 10]  # MAX_UNPOOLING has no FLOAT64
    it = ("UINT32", "UINT64")[trial % 2]
    batch, channels = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    h, w = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    kernel = int(rng.integers(1, 3))
    x = torch.from_numpy(rng.permutation(batch * channels * h * w).astype(np.float32).reshape(batch, channels, h, w))
    pooled, plane = torch.nn.functional.max_pool2d(x, kernel, return_indices=True)
    # The values: random ones of the DataType stand in for the pooled maxima (the placement is what is checked).
    values = random_values(rng, t, list(pooled.shape))
    floats = torch.from_numpy(values)  # max_unpool2d takes float values (not their bits)
    unpooled = torch.nn.functional.max_unpool2d(floats.to(torch.float64) if t == "FLOAT16" else floats, plane,
                                                kernel, output_size=(h, w)) \
        if np.dtype(t.lower()).kind == "f" else None
    planes = np.arange(batch * channels).reshape(batch, channels, 1, 1) * (h * w)
    flat = (plane.numpy() + planes).astype(it.lower())  # DirectML's indices address the whole output
    if unpooled is None:  # torch's max_unpool2d takes floats: place integers through the same flat positions
        want = np.zeros(batch * channels * h * w, values.dtype)
        want[flat.reshape(-1).astype(np.int64)] = values.reshape(-1)
        want = want.reshape(batch, channels, h, w)
    else:
        want = unpooled.numpy().astype(values.dtype)
    desc = dmlops.MaxUnpooling(input_tensor=td(t, pooled.shape), indices_tensor=td(it, pooled.shape),
                               output_tensor=td(t, [batch, channels, h, w]))
    run_all(desc, {"InputTensor": values, "IndicesTensor": flat}, {"OutputTensor": want},
            f"trial {trial}: {t} {[batch, channels, h, w]} kernel {kernel}")


@pytest.mark.parametrize("trial", TRIALS)
def test_slice_grad_matches_torch_autograd(trial):
    rng = np.random.default_rng(1000 + trial)
    rank = int(rng.integers(1, 6))
    x_sizes = [int(n) for n in rng.integers(1, 6, size=rank)]
    offsets, sizes, strides, counts, index, flip = [], [], [], [], [], []
    for axis, n in enumerate(x_sizes):
        o = int(rng.integers(0, n))
        s = int(rng.integers(1, n - o + 1))
        d = int(rng.choice([-1, 1])) * int(rng.integers(1, 4))
        c = 1 + (s - 1) // abs(d)
        start = o + (s - 1 if d < 0 else 0)
        first = start if d > 0 else start + d * (c - 1)
        offsets.append(o), sizes.append(s), strides.append(d), counts.append(c)
        index.append(slice(first, first + abs(d) * (c - 1) + 1, abs(d)))
        if d < 0:
            flip.append(axis)
    x = torch.zeros(x_sizes, dtype=torch.float32, requires_grad=True)
    y = x[tuple(index)]
    y = torch.flip(y, flip) if flip else y  # SLICE1 with negative strides: the window read backwards
    dy = random_values(rng, "FLOAT32", counts)
    y.backward(torch.from_numpy(dy))
    want = x.grad.numpy()
    desc = dmlops.SliceGrad(input_gradient_tensor=td("FLOAT32", counts), output_gradient_tensor=td("FLOAT32", x_sizes),
                            input_window_offsets=tuple(offsets), input_window_sizes=tuple(sizes),
                            input_window_strides=tuple(strides))
    run_all(desc, {"InputGradientTensor": dy}, {"OutputGradientTensor": want},
            f"trial {trial}: {x_sizes} {offsets} {sizes} {strides}")
    # Integers move the same way: autograd of 1..M shows where each gradient element lands.
    x.grad = None
    y = x[tuple(index)]
    order = torch.arange(1, int(np.prod(counts)) + 1, dtype=torch.float32).reshape(counts)
    (torch.flip(y, flip) if flip else y).backward(order)
    source = x.grad.numpy().astype(np.int64)  # 0: no gradient element lands here
    for t in ("INT64", "UINT32", "INT8"):
        v = random_values(rng, t, counts)
        w = np.concatenate([np.zeros(1, v.dtype), v.reshape(-1)])[source]
        d = desc.replace(input_gradient_tensor=td(t, counts), output_gradient_tensor=td(t, x_sizes))
        run_all(d, {"InputGradientTensor": v}, {"OutputGradientTensor": w}, f"trial {trial} {t}")


def test_duplicate_scatter_indices_follow_the_docs_example():
    # The SCATTER page's example 1 writes [5, 6, 7, 8] at [3, 1, 3, 0] and shows [8, 6, 2, 7, 4]: the later write
    # to 3 wins, as dmlops' reference lets it. The page also says no order is guaranteed, so another backend (a GPU)
    # may keep either update there; everywhere else the result is fixed.
    desc = dmlops.ScatterElements(input_tensor=td("FLOAT32", [5]), indices_tensor=td("UINT32", [4]),
                                  updates_tensor=td("FLOAT32", [4]), output_tensor=td("FLOAT32", [5]), axis=0)
    inputs = {"InputTensor": np.arange(5, dtype=np.float32), "IndicesTensor": np.array([3, 1, 3, 0], np.uint32),
              "UpdatesTensor": np.array([5, 6, 7, 8], np.float32)}
    assert_exact(dmlops.run(desc, inputs, backend="reference")["OutputTensor"], np.array([8, 6, 2, 7, 4], np.float32),
                 "reference")
    for b in BACKENDS[1:]:
        got = dmlops.run(desc, inputs, backend=b)["OutputTensor"]
        assert got[[0, 1, 2, 4]].tolist() == [8, 6, 2, 4] and got[3] in (5, 7), (b, got)


def test_gather_reads_uint64_indices_as_int64_on_every_backend():
    """DirectML's vector GATHER-sample_out_of_range: UINT64 2**64 - 1 gathers the last row ([5, 6]), as INT64 -1
    would, where an unsigned reading (far past the tensor) would give its last element twice. 2**64 - 3 is -3:
    the first row; 2**63 is -2**63, before the tensor: its last element; 3 is past it: the last element too."""
    desc = dmlops.Gather(input_tensor=td("FLOAT32", [3, 2]), indices_tensor=td("UINT64", [1, 4]),
                         output_tensor=td("FLOAT32", [4, 2]), axis=0, index_dimensions=1)
    x = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    idx = np.array([[2**64 - 1, 2**64 - 3, 2**63, 3]], np.uint64)
    run_all(desc, {"InputTensor": x, "IndicesTensor": idx},
            {"OutputTensor": np.array([[5, 6], [1, 2], [6, 6], [6, 6]], np.float32)}, "uint64 as int64")


def test_out_of_range_reads_the_last_element_on_every_backend():
    # DirectML's vector GATHER-float32_out_of_range_indices, in small: addresses past the tensor (or before it)
    # read its last element on every backend (ONNX Gather and torch.index_select would raise).
    desc = dmlops.GatherElements(input_tensor=td("INT64", [2, 3]), indices_tensor=td("INT64", [2, 2]),
                                 output_tensor=td("INT64", [2, 2]), axis=1)
    x = np.array([[1, 2, 3], [4, 5, 2**62]], np.int64)
    idx = np.array([[-2**63, 2**63 - 1], [7, -1]], np.int64)  # -1: the last column, read in range
    run_all(desc, {"InputTensor": x, "IndicesTensor": idx},
            {"OutputTensor": np.array([[2**62, 2**62], [2**62, 2**62]], np.int64)}, "out of range")
