"""ARGMIN, ARGMAX, TOP_K, TOP_K1, ACTIVATION_HARDMAX(1) and NONZERO_COORDINATES against independent implementations.

Oracles: ONNX's node test cases for ArgMax, ArgMin (select_last_index), TopK and NonZero (regenerated in memory from
onnx.backend.test.case.node); torch.argmax / torch.argmin on the reduced axes flattened, torch.topk on values
without ties, and torch.nonzero. Where NaN matters: DirectML's rule written as the loops it describes (one scan per
extreme; K rounds of a scan for TOP_K), element by element in plain Python; those loops reproduce every DirectML
vector case of the selection operators, while dmlops's backends compute a closed form of the same rule. Every
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


def scan_extreme(values, is_max, last):
    """DirectML's extreme, as a loop: start from element 0, take a later element when it is strictly better
    (``last``: at least as good). Python's comparisons with NaN are False, as the shader's are."""
    best = 0
    for i in range(1, len(values)):
        a, b = values[i], values[best]
        if last:
            take = a >= b if is_max else a <= b
        else:
            take = a > b if is_max else a < b
        if take:
            best = i
    return best


def scan_top_k(values, k, largest):
    """DirectML's TOP_K, as K rounds of a scan over the elements not taken yet, in index order: an element replaces
    the pick when !(x <= pick) (largest first) or !(x >= pick) (smallest first)."""
    remaining, out = list(range(len(values))), []
    for _ in range(k):
        pick = remaining[0]
        for i in remaining[1:]:
            x, p = values[i], values[pick]
            if not (x <= p if largest else x >= p):
                pick = i
        out.append(pick)
        remaining.remove(pick)
    return out


def _rows(x, axes):
    """The groups of ``x`` over ``axes`` (moved last in dimension order, flattened), as Python lists."""
    keep = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, keep + sorted(axes))
    flat = moved.reshape(-1, int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
    return [[v.item() for v in row] for row in flat]


def arg_oracle(x, axes, is_max, last):
    """scan_extreme over each group of ``axes``, shaped as ARGMAX's output."""
    out = [scan_extreme(row, is_max, last) for row in _rows(x, axes)]
    return np.array(out, np.int64).reshape([1 if d in axes else s for d, s in enumerate(x.shape)])


def top_k_oracle(x, axis, k, largest):
    """scan_top_k along ``axis``."""
    moved = np.moveaxis(x, axis, -1)
    rows = [[v.item() for v in row] for row in moved.reshape(-1, moved.shape[-1])]
    index = np.array([scan_top_k(row, k, largest) for row in rows], np.int64).reshape(moved.shape[:-1] + (k,))
    return np.moveaxis(index, -1, axis)


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
        # -0 ties +0 and inf is a value; NaN, where torch and DirectML differ, is left to the tests below
        x.reshape(-1)[rng.choice(x.size, size=2, replace=False)] = [-0.0, np.inf]
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    cls = dmlops.Argmax if op == "ARGMAX" else dmlops.Argmin
    desc = cls(input_tensor=TensorDesc(data_type, sizes), output_tensor=TensorDesc("INT64", out_sizes),
               axes=tuple(reversed(axes)), axis_direction=direction)
    want = _torch_arg(x, axes, op == "ARGMAX", direction == "DECREASING").reshape(out_sizes)
    for backend, out in run_all(desc, {"InputTensor": x}).items():
        assert_exact(out["OutputTensor"], want, f"{op} {data_type} {direction} axes {axes} on {backend}")


# ============================================================ DirectML's NaN rules
def test_the_scan_oracles_reproduce_every_directml_selection_case():
    """The loops above are DirectML's rule: they give DirectML's answer for every vector case of ARGMAX, ARGMIN,
    REDUCE's ARGMAX/ARGMIN, ACTIVATION_HARDMAX(1), TOP_K and TOP_K1 (NaN first, later, in runs; ties; -0 and +0)."""
    from dmlops.vectors import cases

    ops = {"ARGMAX", "ARGMIN", "REDUCE", "ACTIVATION_HARDMAX", "ACTIVATION_HARDMAX1", "TOP_K", "TOP_K1"}
    checked = set()
    for case in (c for c in cases() if c.op in ops and not c.rejected):
        desc, x = case.desc(), case.inputs()["InputTensor"]
        want = case.outputs(desc)
        if case.op in ("ARGMAX", "ARGMIN", "REDUCE"):
            fn = desc.function.name if case.op == "REDUCE" else case.op
            if fn not in ("ARGMAX", "ARGMIN"):
                continue
            last = int(getattr(desc, "axis_direction", 0)) == 1
            got = arg_oracle(x, sorted(set(desc.axes)), fn == "ARGMAX", last)
            assert_exact(got, want["OutputTensor"].astype(np.int64), case.id)
        elif case.op.startswith("ACTIVATION_HARDMAX"):
            axes = sorted(set(desc.axes)) if case.op.endswith("1") else [x.ndim - 1]
            rows = _rows(np.asarray(want["OutputTensor"]), axes)
            assert all(sum(row) == 1 for row in rows), case.id
            assert [row.index(1.0) for row in rows] == arg_oracle(x, axes, True, False).reshape(-1).tolist(), case.id
        else:
            largest = case.op == "TOP_K" or int(desc.axis_direction) == 1
            got = top_k_oracle(x, desc.axis, desc.k, largest)
            assert_exact(got, want["OutputIndexTensor"].astype(np.int64), case.id)
        checked.add(case.id)
    # among them the cases that pin NaN: at element 0, after it, in runs of a full TOP_K
    assert {"ARGMAX-sample_nan_increasing", "ARGMIN-sample_nan_and_zeros_decreasing", "REDUCE-sample_arg_nan_not_first",
            "ACTIVATION_HARDMAX-sample_later_nan_5d", "TOP_K-sample_nan_inf_zeros_all",
            "TOP_K1-sample_nan_inf_zeros_increasing", "REDUCE-edge_argmax_ties_nan_inf",
            "ARGMIN-float32_axes3_uint32"} <= checked


def _nan_values(rng, data_type, shape):
    """Few distinct values (ties), with NaN (a quarter), ±inf and ±0 sprinkled."""
    x = rng.integers(-2, 3, size=shape).astype(data_type.lower())
    flat = x.reshape(-1)
    flat[rng.choice(x.size, size=x.size // 4, replace=False)] = np.nan
    flat[rng.choice(x.size, size=4, replace=False)] = [np.inf, -np.inf, -0.0, 0.0]
    return x


ARG_OPS = [("ARGMAX", "INCREASING"), ("ARGMAX", "DECREASING"), ("ARGMIN", "INCREASING"), ("ARGMIN", "DECREASING"),
           ("REDUCE_ARGMAX", "INCREASING"), ("REDUCE_ARGMIN", "INCREASING")]


def _arg_desc(op, direction, data_type, sizes, axes, out_type="UINT32"):
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    if op.startswith("REDUCE"):
        return dmlops.Reduce(function=op.removeprefix("REDUCE_"), input_tensor=TensorDesc(data_type, sizes),
                             output_tensor=TensorDesc(out_type, out_sizes), axes=tuple(axes))
    cls = dmlops.Argmax if op == "ARGMAX" else dmlops.Argmin
    return cls(input_tensor=TensorDesc(data_type, sizes), output_tensor=TensorDesc(out_type, out_sizes),
               axes=tuple(reversed(axes)), axis_direction=direction)


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("op,direction", ARG_OPS, ids=["-".join(o) for o in ARG_OPS])
def test_arg_nan_rule_matches_the_scan(op, direction, data_type):
    rng = np.random.default_rng(ARG_OPS.index((op, direction)) * 2 + (data_type == "FLOAT16"))
    for _ in range(6):
        rank = int(rng.integers(2, 5))
        sizes = [int(s) for s in rng.integers(2, 5, size=rank)]
        axes = sorted(int(a) for a in rng.choice(rank, size=int(rng.integers(1, rank + 1)), replace=False))
        x = _nan_values(rng, data_type, sizes)
        desc = _arg_desc(op, direction, data_type, sizes, axes)
        want = arg_oracle(x, axes, op.endswith("ARGMAX"), direction == "DECREASING")
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            assert_exact(out["OutputTensor"].astype(np.int64), want, f"{op} {direction} axes {axes} on {backend}")


# Hand-made rows from the rule (no vector holds them): values, then ARGMAX first / last, ARGMIN first / last.
ARG_ROWS = [
    ([np.nan, np.nan, 3, 1], 0, 0, 0, 0),          # element 0 is NaN: never replaced
    ([1, np.nan, np.nan, np.nan], 0, 0, 0, 0),     # later NaNs are passed over: the 1 stands alone
    ([-np.inf, np.nan, -np.inf, np.nan], 0, 2, 0, 2),  # -inf ties -inf; the NaN between them never counts
    ([2, np.nan, 2, -1], 0, 2, 3, 3),
    ([np.nan] * 4, 0, 0, 0, 0),                    # all NaN: element 0
    ([0.0, np.nan, -0.0, np.inf], 3, 3, 0, 2),     # the zeros tie
]


@pytest.mark.parametrize("row", ARG_ROWS, ids=lambda r: str(r[0]))
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_arg_rows_by_hand(row, data_type):
    x = np.array([row[0]], data_type.lower())
    wants = dict(zip(ARG_OPS[:4], row[1:]))
    wants.update({("REDUCE_ARGMAX", "INCREASING"): row[1], ("REDUCE_ARGMIN", "INCREASING"): row[3]})
    for (op, direction), index in wants.items():
        assert scan_extreme(x[0].tolist(), op.endswith("ARGMAX"), direction == "DECREASING") == index
        desc = _arg_desc(op, direction, data_type, [1, 4], [1], "INT32")
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            assert_exact(out["OutputTensor"], [[index]], f"{op} {direction} {row[0]} on {backend}")


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("axes", [(2,), (0, 2), (0, 1, 2)])
def test_hardmax_nan_rule_matches_the_scan(axes, data_type):
    rng = np.random.default_rng(len(axes) * 2 + (data_type == "FLOAT16"))
    x = _nan_values(rng, data_type, (3, 2, 5))
    want = arg_oracle(x, list(axes), True, False).reshape(-1).tolist()
    descs = [dmlops.ActivationHardmax1(input_tensor=TensorDesc(data_type, [3, 2, 5]),
                                       output_tensor=TensorDesc(data_type, [3, 2, 5]), axes=axes)]
    if axes == (2,):  # ACTIVATION_HARDMAX: rows of the last dimension, effective rank 2
        descs.append(dmlops.ActivationHardmax(input_tensor=TensorDesc(data_type, [1, 1, 6, 5]),
                                              output_tensor=TensorDesc(data_type, [1, 1, 6, 5])))
    for desc in descs:
        for backend, out in run_all(desc, {"InputTensor": x.reshape(desc.input_tensor.sizes)}).items():
            rows = _rows(np.asarray(out["OutputTensor"]).reshape(x.shape), list(axes))
            what = f"{desc.OPERATOR_TYPE} axes {axes} on {backend}"
            assert all(sum(r) == 1 for r in rows), what
            assert [r.index(1.0) for r in rows] == want, what


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
def test_top_k_ties_and_nan_match_the_scan(cls, largest, data_type):
    rng = np.random.default_rng(INPUT_TYPES.index(data_type) * 3 + largest + (cls is dmlops.TopK))
    sizes = [2, 3, 9]
    for trial in range(4):
        axis = int(rng.integers(0, 3))
        k = int(rng.integers(1, sizes[axis] + 1)) if trial else sizes[axis]  # the first trial orders everything
        x = random_values(rng, data_type, sizes, ties=True)
        if x.dtype.kind == "f":
            flat = x.reshape(-1)
            flat[rng.choice(x.size, size=12, replace=False)] = np.nan
            flat[rng.choice(x.size, size=4, replace=False)] = [np.inf, -np.inf, -0.0, np.inf]
        index = top_k_oracle(x, axis, k, largest)
        desc = _top_k_desc(cls, data_type, sizes, axis, k, largest)
        for backend, out in run_all(desc, {"InputTensor": x}).items():
            what = f"{desc.OPERATOR_TYPE} {data_type} largest={largest} axis {axis} K {k} on {backend}"
            assert_exact(out["OutputIndexTensor"], index.astype(np.uint32), what)
            assert_exact(out["OutputValueTensor"], np.take_along_axis(x, index, axis), what)


# Hand-made sequences from the rule (no vector holds them): values, indices largest first, smallest first.
TOP_K_ROWS = [
    ([1, np.nan, 2], [2, 1, 0], [2, 1, 0]),                   # runs [1] and [2]: the last run, its NaN, the first
    ([np.nan, np.nan], [1, 0], [1, 0]),                       # NaNs only: the last first
    ([3, np.nan, 1, 5, np.nan, 2, -1], [5, 6, 4, 3, 2, 1, 0], [6, 5, 4, 2, 3, 1, 0]),
    ([np.inf, -np.inf, np.nan], [2, 0, 1], [2, 1, 0]),        # a NaN at the end comes first
    ([-0.0, 0.0, np.nan, 0.0], [3, 2, 0, 1], [3, 2, 0, 1]),   # the zeros tie, by index
]


@pytest.mark.parametrize("row", TOP_K_ROWS, ids=lambda r: str(r[0]))
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_top_k_rows_by_hand(row, data_type):
    x = np.array(row[0], data_type.lower())
    n = len(row[0])
    for largest, want in ((True, row[1]), (False, row[2])):
        assert scan_top_k(x.tolist(), n, largest) == want
        for k in range(1, n + 1):
            descs = [_top_k_desc(dmlops.TopK1, data_type, [n], 0, k, largest)]
            if largest:
                descs.append(_top_k_desc(dmlops.TopK, data_type, [n], 0, k, largest))
            for desc in descs:
                for backend, out in run_all(desc, {"InputTensor": x}).items():
                    what = f"{desc.OPERATOR_TYPE} largest={largest} K {k} {row[0]} on {backend}"
                    assert_exact(out["OutputIndexTensor"], np.array(want[:k], np.uint32), what)
                    got, expected = np.asarray(out["OutputValueTensor"]), x[want[:k]]
                    assert_exact(got, expected, what)  # NaN meets NaN (its payload is not DirectML's concern)
                    zero = expected == 0
                    assert_exact(np.signbit(got[zero]), np.signbit(expected[zero]), what + ": the sign of zero")


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
