"""ARGMIN, ARGMAX, TOP_K, TOP_K1 and NONZERO_COORDINATES against independent implementations.

Oracles: ONNX's node test cases for ArgMax, ArgMin (select_last_index), TopK and NonZero (regenerated in memory from
onnx.backend.test.case.node); torch.argmax / torch.argmin on the reduced axes flattened, torch.topk on values
without ties, a plain Python sort by (NaN last, value, index) where ties and NaN matter, and torch.nonzero. Every
dmlops backend (reference, onnxruntime, torch) is checked, exactly: selection does no arithmetic.
"""
import numpy as np
import pytest

import dmlops
from dmlops.types import TensorDesc
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
INPUT_TYPES = ("FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
NODE_CASES = generated(["argmax", "argmin", "topk", "nonzero"])


def run_all(desc, inputs):
    """{backend: outputs} for the three dmlops backends."""
    return {b: dmlops.run(desc, inputs, backend=b) for b in BACKENDS}


def assert_exact(got, want, what):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=what)


def random_values(rng, data_type, shape, ties=False):
    """Random values of ``data_type``: with ``ties``, a few small integers (many equal elements)."""
    dtype = np.dtype(data_type.lower())
    if ties:
        return rng.integers(0, 4, size=shape).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def torch_tensor(array):
    """A torch tensor holding ``array`` (uint16/32/64 widened or reinterpreted so that torch orders them)."""
    if array.dtype in (np.uint16, np.uint32):
        array = array.astype(np.int64)
    if array.dtype == np.uint64:
        array = (array ^ np.uint64(1 << 63)).view(np.int64)
    if array.dtype == np.float16:
        array = array.astype(np.float32)
    return torch.from_numpy(np.ascontiguousarray(array))


# ============================================================ ONNX node cases
ARG_CASES = sorted(n for n, c in NODE_CASES.items() if c.node.op_type in ("ArgMax", "ArgMin"))
TOPK_CASES = sorted(n for n, c in NODE_CASES.items() if c.node.op_type == "TopK")


@pytest.mark.parametrize("name", ARG_CASES)
def test_argmax_argmin_match_onnx_node_cases(name):
    case = NODE_CASES[name]
    x = case.inputs[0]
    axis = attribute(case.node, "axis", 0) % x.ndim
    out_sizes = [1 if d == axis else s for d, s in enumerate(x.shape)]
    cls = dmlops.Argmax if case.node.op_type == "ArgMax" else dmlops.Argmin
    direction = "DECREASING" if attribute(case.node, "select_last_index", 0) else "INCREASING"
    desc = cls(input_tensor=TensorDesc("FLOAT32", x.shape), output_tensor=TensorDesc("INT64", out_sizes),
               axes=(axis,), axis_direction=direction)
    want = case.outputs[0].reshape(out_sizes)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, f"{name} on {backend}")


@pytest.mark.parametrize("name", TOPK_CASES)
def test_top_k_and_top_k1_match_onnx_node_cases(name):
    case = NODE_CASES[name]
    x, k = case.inputs[0], int(case.inputs[1][0])
    axis = attribute(case.node, "axis", -1) % x.ndim
    largest = bool(attribute(case.node, "largest", 1))
    data_type = x.dtype.name.upper()
    out = list(x.shape)
    out[axis] = k
    tensors = dict(input_tensor=TensorDesc(data_type, x.shape), output_value_tensor=TensorDesc(data_type, out),
                   output_index_tensor=TensorDesc("UINT64", out), axis=axis, k=k)
    descs = [dmlops.TopK1(**tensors, axis_direction="DECREASING" if largest else "INCREASING")]
    if largest:
        descs.append(dmlops.TopK(**tensors))
    values, index = case.outputs
    for desc in descs:
        for backend, got in run_all(desc, {"InputTensor": x}).items():
            what = f"{name} as {desc.OPERATOR_TYPE} on {backend}"
            assert_exact(got["OutputValueTensor"], values, what)
            assert_exact(got["OutputIndexTensor"], index.astype(np.uint64), what)


def test_nonzero_coordinates_matches_the_onnx_node_case():
    case = NODE_CASES["test_nonzero_example"]
    x = case.inputs[0].astype(np.uint8)  # DirectML has no BOOL: the same non-zero elements as UINT8
    want = case.outputs[0].T  # ONNX NonZero is [rank, count]
    m, n = x.size, x.ndim
    desc = dmlops.NonzeroCoordinates(input_tensor=TensorDesc("UINT8", x.shape),
                                     output_count_tensor=TensorDesc("UINT32", [1, 1]),
                                     output_coordinates_tensor=TensorDesc("UINT32", [m, n]))
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputCountTensor"], [[len(want)]], backend)
        assert_exact(out["OutputCoordinatesTensor"][: len(want)], want, backend)


# ============================================================ torch oracles
def _torch_arg(x, axes, is_max, last):
    """torch.argmax/argmin over ``axes`` flattened row-major (the last extreme: on the flipped axis, counted back)."""
    t = torch_tensor(x)
    keep = [d for d in range(x.ndim) if d not in axes]
    t = t.permute(keep + sorted(axes)).reshape([x.shape[d] for d in keep] + [-1])
    pick = torch.argmax if is_max else torch.argmin
    if last:
        return (t.shape[-1] - 1 - pick(torch.flip(t, [-1]), dim=-1)).numpy()
    return pick(t, dim=-1).numpy()


@pytest.mark.parametrize("data_type", INPUT_TYPES)
@pytest.mark.parametrize("op", ["ARGMAX", "ARGMIN"])
@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
@pytest.mark.parametrize("ties", [False, True])
def test_argmax_argmin_match_torch_over_several_axes(op, data_type, direction, ties):
    rng = np.random.default_rng(INPUT_TYPES.index(data_type) * 8 + ties * 4 + (op == "ARGMAX") * 2
                                + (direction == "DECREASING"))
    rank = int(rng.integers(1, 6))
    sizes = [int(s) for s in rng.integers(1, 5, size=rank)]
    axes = sorted(int(a) for a in rng.choice(rank, size=int(rng.integers(1, rank + 1)), replace=False))
    x = random_values(rng, data_type, sizes, ties)
    if x.dtype.kind == "f" and x.size > 2:
        x.reshape(-1)[rng.choice(x.size, size=2, replace=False)] = np.nan  # NaN is the extreme, as in torch
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    cls = dmlops.Argmax if op == "ARGMAX" else dmlops.Argmin
    desc = cls(input_tensor=TensorDesc(data_type, sizes), output_tensor=TensorDesc("INT64", out_sizes),
               axes=tuple(reversed(axes)), axis_direction=direction)
    want = _torch_arg(x, axes, op == "ARGMAX", direction == "DECREASING").reshape(out_sizes)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, f"{op} {data_type} {direction} axes {axes} on {backend}")


def _sorted_oracle(x, axis, k, largest):
    """Indices by a plain Python sort of each sequence by (NaN last, value best first, index)."""
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = []
    for row in rows:
        values = [v.item() for v in row]

        def key(i, values=values):
            v = values[i]
            nan = v != v
            return (nan, 0 if nan else (-v if largest else v), i)

        out.append(sorted(range(len(values)), key=key)[:k])
    index = np.array(out, np.int64).reshape(moved.shape[:-1] + (k,))
    return np.moveaxis(index, -1, axis)


def _top_k_desc(cls, data_type, sizes, axis, k, largest):
    out = list(sizes)
    out[axis] = k
    extra = {"axis_direction": "DECREASING" if largest else "INCREASING"} if cls is dmlops.TopK1 else {}
    return cls(input_tensor=TensorDesc(data_type, sizes), output_value_tensor=TensorDesc(data_type, out),
               output_index_tensor=TensorDesc("UINT32", out), axis=axis, k=k, **extra)


@pytest.mark.parametrize("data_type", INPUT_TYPES)
@pytest.mark.parametrize("largest", [True, False])
def test_top_k1_matches_torch_topk_without_ties(data_type, largest):
    rng = np.random.default_rng(INPUT_TYPES.index(data_type) * 2 + largest)
    rank = int(rng.integers(1, 6))
    sizes = [int(s) for s in rng.integers(1, 5, size=rank)]
    axis = int(rng.integers(0, rank))
    sizes[axis] = 7
    k = int(rng.integers(1, 8))
    dtype = np.dtype(data_type.lower())
    # Distinct values along the axis: torch.topk's order of ties is unspecified.
    base = rng.permuted(np.broadcast_to(np.arange(7), sizes[:axis] + sizes[axis + 1:] + [7]), axis=-1)
    x = np.moveaxis(base, -1, axis)
    if dtype.kind == "u":
        x = x.astype(dtype)
    else:
        x = (x - 3).astype(dtype)
    values, index = torch.topk(torch_tensor(x), k, dim=axis, largest=largest, sorted=True)
    desc = _top_k_desc(dmlops.TopK1, data_type, sizes, axis, k, largest)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        what = f"TOP_K1 {data_type} largest={largest} on {backend}"
        assert_exact(out["OutputIndexTensor"], index.numpy().astype(np.uint32), what)
        assert_exact(out["OutputValueTensor"], np.take_along_axis(x, index.numpy(), axis), what)


@pytest.mark.parametrize("data_type", INPUT_TYPES)
@pytest.mark.parametrize("cls,largest", [(dmlops.TopK, True), (dmlops.TopK1, True), (dmlops.TopK1, False)],
                         ids=["TOP_K", "TOP_K1-DECREASING", "TOP_K1-INCREASING"])
def test_top_k_ties_and_nan_match_a_plain_sort(cls, largest, data_type):
    rng = np.random.default_rng(INPUT_TYPES.index(data_type) * 3 + largest + (cls is dmlops.TopK))
    sizes = [2, 3, 9]
    axis = int(rng.integers(0, 3))
    k = int(rng.integers(1, sizes[axis] + 1))
    x = random_values(rng, data_type, sizes, ties=True)
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[rng.choice(x.size, size=6, replace=False)] = np.nan
        flat[rng.choice(x.size, size=4, replace=False)] = [np.inf, -np.inf, -0.0, np.inf]
    index = _sorted_oracle(x, axis, k, largest)
    desc = _top_k_desc(cls, data_type, sizes, axis, k, largest)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        what = f"{desc.OPERATOR_TYPE} {data_type} largest={largest} axis {axis} K {k} on {backend}"
        assert_exact(out["OutputIndexTensor"], index.astype(np.uint32), what)
        assert_exact(out["OutputValueTensor"], np.take_along_axis(x, index, axis), what)


NONZERO_TYPES = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")


@pytest.mark.parametrize("data_type", NONZERO_TYPES)
@pytest.mark.parametrize("rank", [1, 3, 5, 8])
def test_nonzero_coordinates_match_torch_nonzero(rank, data_type):
    rng = np.random.default_rng(rank * 10 + NONZERO_TYPES.index(data_type))
    sizes = [int(s) for s in rng.integers(1, 4, size=rank)]
    sizes[0] = 1  # a leading 1 lowers the effective rank, so N may leave its coordinate out
    x = random_values(rng, data_type, sizes, ties=True)  # 0 to 3: about a quarter zeros
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[rng.choice(x.size, size=min(3, x.size), replace=False)] = [np.nan, -0.0, 1e-45][: min(3, x.size)]
    lead = next((i for i, s in enumerate(sizes) if s != 1), rank)
    n = int(rng.integers(max(rank - lead, 1), rank + 1))
    out_rank = max(rank, 2)
    m = x.size
    desc = dmlops.NonzeroCoordinates(
        input_tensor=TensorDesc(data_type, sizes), output_count_tensor=TensorDesc("UINT32", [1] * out_rank),
        output_coordinates_tensor=TensorDesc("UINT32", [1] * (out_rank - 2) + [m, n]))
    want = torch.nonzero(torch_tensor(x) != 0).numpy()[:, rank - n:]
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        what = f"{data_type} sizes {sizes} N {n} on {backend}"
        assert_exact(out["OutputCountTensor"].reshape(-1), [len(want)], what)
        coordinates = out["OutputCoordinatesTensor"].reshape(m, n)
        assert_exact(coordinates[: len(want)], want, what)
