"""Pooling windows of up to 256 elements read one window element at a time (dmlops/ops/_pooling.py: Slices).

Issue 20's bound on the gather table (windows gathering more than 2**27 elements refused) also refused ordinary
CNN layers, such as a 3 x 3 stride-1 pool over 8 x 64 x 224 x 224. Such pools now read one strided slice of the
padded input per window element, folded in window order. These tests hold that lowering to:

* the gather-table lowering (what ran before, still used past 256 elements), bit for bit, signed zeros and NaN
  included, on every backend, over random geometries (asymmetric padding, strides, dilations, 2 and 3 spatial
  dimensions, padding-only windows) and values full of ties, NaN, infinities and signed zeros;
* torch's max_pool2d / avg_pool2d (independent oracles where their semantics are DirectML's: no NaN, symmetric
  padding) on the 8 x 64 x 224 x 224 layer itself, and max_pool2d's indices on a 7 x 7 MAX_POOLING1 over
  4 x 64 x 112 x 112; both above the gather table's cap;
* ONNX Runtime's own accounting (its profiler's arena peak): the peak does not grow with the window (3 x 3 against
  9 x 9), in its default and its priority-based execution order;
* small models (bytes).
"""
import json

import numpy as np
import pytest

import dmlops
from dmlops.compiled import clear_cache
from dmlops.descs import (AveragePooling, AveragePooling1, AveragePoolingGrad, LpPooling, LpPooling1, MaxPooling,
                          MaxPooling1, MaxPooling2, MaxPoolingGrad, QuantizedLinearAveragePooling)
from dmlops.ops import _pooling as P
from dmlops.sample import td

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
F = torch.nn.functional

BACKENDS = ("reference", "onnxruntime", "torch")
LEVEL = dmlops.FeatureLevel.latest()
LOWEST = np.finfo(np.float32).min
CAP = "dmlops allows 134217728"


def _same(a, b, what=""):
    """Equal bit for bit: signed zeros told apart, NaN where NaN (its payload aside)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        assert (nan == np.isnan(b)).all(), what
        bits = np.dtype(f"u{a.dtype.itemsize}")
        diff = np.flatnonzero(a.view(bits)[~nan] != b.view(bits)[~nan])
        assert diff.size == 0, f"{what}: {diff.size} differ, first {a[~nan][diff[0]]!r} / {b[~nan][diff[0]]!r}"
    else:
        assert (a == b).all(), what


# ------------------------------------------------------------------------------ against the gather-table lowering
def _geometry(rng, dims: int, dilated: bool):
    while True:
        sizes = rng.integers(1, 7, dims)
        window = rng.integers(1, 4, dims)
        strides = rng.integers(1, 4, dims)
        dilations = rng.integers(1, 3, dims) if dilated else np.ones(dims, np.int64)
        start, end = rng.integers(0, 3, dims), rng.integers(0, 3, dims)
        extent = (window - 1) * dilations + 1
        if np.all(extent <= sizes + start + end):
            out = (sizes + start + end - extent) // strides + 1
            as_list = lambda a: [int(v) for v in a]  # noqa: E731
            return {"sizes": as_list(sizes), "out": as_list(out), "strides": as_list(strides),
                    "window_size": as_list(window), "start_padding": as_list(start), "end_padding": as_list(end),
                    "dilations": as_list(dilations)}


def _special_floats(rng, shape):
    """Few distinct values (ties), NaN, infinities, both zeros and the lowest float32."""
    pool = np.array([-2, -1, -0.0, 0.0, 1, 2, np.nan, np.inf, -np.inf, LOWEST], np.float32)
    return rng.choice(pool, shape, p=[.15, .15, .12, .12, .15, .15, .05, .04, .04, .03]).astype(np.float32)


def _sums_floats(rng, shape):
    x = rng.uniform(-3, 3, shape).astype(np.float32)
    x[rng.random(shape) < 0.1] = -0.0
    x[rng.random(shape) < 0.05] = 0.0
    return x


def _case(op: str, rng, dims: int):
    """(descriptor, inputs, exact across backends) for ``op`` over a random geometry."""
    dilated = op in ("MAX_POOLING2", "MAX_POOLING_GRAD", "AVERAGE_POOLING1", "LP_POOLING1",
                     "QUANTIZED_LINEAR_AVERAGE_POOLING")
    geo = _geometry(rng, dims, dilated)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x_sizes, y_sizes = [n, c] + geo["sizes"], [n, c] + geo["out"]
    win = {k: geo[k] for k in ("strides", "window_size", "start_padding", "end_padding")}
    if dilated:
        win["dilations"] = geo["dilations"]
    f32 = lambda sizes: td("FLOAT32", sizes)  # noqa: E731
    exact = True
    if op in ("MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"):
        data_type = rng.choice(["FLOAT32", "FLOAT32", "INT8", "UINT8", "INT32"])
        cls = {"MAX_POOLING": MaxPooling, "MAX_POOLING1": MaxPooling1, "MAX_POOLING2": MaxPooling2}[op]
        extra = {} if cls is MaxPooling else {"output_indices_tensor": td("UINT32", y_sizes)}
        desc = cls(input_tensor=td(data_type, x_sizes), output_tensor=td(data_type, y_sizes), **extra, **win)
        if data_type == "FLOAT32":
            x = _special_floats(rng, x_sizes)
        else:
            info = np.iinfo(data_type.lower())
            x = rng.choice(np.array([info.min, info.min + 1, 0, 3, info.max], data_type.lower()), x_sizes)
        inputs = {"InputTensor": x}
    elif op == "MAX_POOLING_GRAD":
        desc = MaxPoolingGrad(input_tensor=f32(x_sizes), input_gradient_tensor=f32(y_sizes),
                              output_gradient_tensor=f32(x_sizes), **win)
        inputs = {"InputTensor": _special_floats(rng, x_sizes), "InputGradientTensor": _sums_floats(rng, y_sizes)}
    elif op in ("AVERAGE_POOLING", "AVERAGE_POOLING1"):
        cls = AveragePooling if op == "AVERAGE_POOLING" else AveragePooling1
        desc = cls(input_tensor=f32(x_sizes), output_tensor=f32(y_sizes), include_padding=bool(rng.integers(2)),
                   **win)
        inputs = {"InputTensor": _sums_floats(rng, x_sizes)}
    elif op in ("LP_POOLING", "LP_POOLING1"):
        cls = LpPooling if op == "LP_POOLING" else LpPooling1
        p = int(rng.integers(1, 3))
        desc = cls(input_tensor=f32(x_sizes), output_tensor=f32(y_sizes), p=p, **win)
        inputs = {"InputTensor": _sums_floats(rng, x_sizes)}
        exact = p == 1  # torch's CPU sqrt is not correctly rounded (lp_pooling.py)
    elif op == "AVERAGE_POOLING_GRAD":
        desc = AveragePoolingGrad(input_gradient_tensor=f32(y_sizes), output_gradient_tensor=f32(x_sizes),
                                  include_padding=bool(rng.integers(2)), **win)
        dy = _sums_floats(rng, y_sizes)
        dy[rng.random(y_sizes) < 0.3] = -0.0  # sums of -0.0 shares only: +0
        inputs = {"InputGradientTensor": dy}
    else:
        q = [1] * len(x_sizes)
        desc = QuantizedLinearAveragePooling(
            input_tensor=td("UINT8", x_sizes), input_scale_tensor=f32(q), input_zero_point_tensor=td("UINT8", q),
            output_scale_tensor=f32(q), output_zero_point_tensor=td("UINT8", q), output_tensor=td("UINT8", y_sizes),
            include_padding=bool(rng.integers(2)), **win)
        one = lambda v, t: np.full(q, v, t)  # noqa: E731
        inputs = {"InputTensor": rng.integers(0, 256, x_sizes, dtype=np.uint8), "InputScaleTensor": one(0.1, np.float32),
                  "InputZeroPointTensor": one(128, np.uint8), "OutputScaleTensor": one(0.07, np.float32),
                  "OutputZeroPointTensor": one(120, np.uint8)}
    return desc, inputs, exact


OPS = ["MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2", "MAX_POOLING_GRAD", "AVERAGE_POOLING", "AVERAGE_POOLING1",
       "LP_POOLING", "LP_POOLING1", "AVERAGE_POOLING_GRAD", "QUANTIZED_LINEAR_AVERAGE_POOLING"]


def _run_fresh(desc, inputs, backend):
    clear_cache()  # the compiled-operator cache would hand back the other lowering
    return dmlops.run(desc, inputs, backend=backend)


@pytest.mark.parametrize("op", OPS)
def test_slices_equal_the_gather_table_bit_for_bit_on_every_backend(op, monkeypatch):
    rng = np.random.default_rng(OPS.index(op) + 2020)
    for i in range(6):
        desc, inputs, exact = _case(op, rng, 2 if i < 4 else 3)
        assert dmlops.problems(desc, LEVEL) == [], desc
        assert P.sliced(desc)
        sliced = {b: _run_fresh(desc, inputs, b) for b in BACKENDS}
        with monkeypatch.context() as m:
            m.setattr(P, "SLICE_MAX", 0)
            assert not P.sliced(desc)
            table = {b: _run_fresh(desc, inputs, b) for b in BACKENDS}
        clear_cache()
        for b in BACKENDS:
            assert sliced[b].keys() == table[b].keys()
            for name in sliced[b]:
                _same(sliced[b][name], table[b][name], f"{op} case {i} {b} {name}: slices vs table")
                if exact or b != "torch":
                    _same(sliced[b][name], sliced["reference"][name], f"{op} case {i} {b} {name} vs reference")


@pytest.mark.parametrize("cls", [MaxPooling, MaxPooling1])
def test_signed_zero_winners_are_the_first_zero_on_every_backend(cls):
    """Between +0 and -0 the first wins (the running maximum's >): windows {-0, +0}, {+0, -0}, {-1, -0}, {-0, -0}
    and a padding element before each first one. ONNX Runtime's CPU Where would turn a -0.0 taken from its X input
    into +0.0, and Max chooses between zeros its own way; the value is read back from the input instead."""
    x = np.array([-0.0, 0.0, 0.0, -0.0, -1, -0.0, -0.0, -0.0], np.float32).reshape(1, 4, 1, 2)
    # per channel {a, b}: windows {pad, a} and {a, b}
    extra = {} if cls is MaxPooling else {"output_indices_tensor": td("UINT32", [1, 4, 1, 2])}
    desc = cls(input_tensor=td("FLOAT32", [1, 4, 1, 2]), output_tensor=td("FLOAT32", [1, 4, 1, 2]),
               strides=[1, 1], window_size=[1, 2], start_padding=[0, 1], end_padding=[0, 0], **extra)
    want = np.array([-0.0, -0.0, 0.0, 0.0, -1, -0.0, -0.0, -0.0], np.float32).reshape(1, 4, 1, 2)
    index = np.array([0, 0, 2, 2, 4, 5, 6, 6], np.uint32).reshape(1, 4, 1, 2)
    for b in BACKENDS:
        got = dmlops.run(desc, {"InputTensor": x}, backend=b)
        _same(got["OutputTensor"], want, b)
        if cls is MaxPooling1:
            _same(got["OutputIndicesTensor"], index, b)


# ------------------------------------------------------------------------------ a standard CNN layer, above the cap
SHAPE = [8, 64, 224, 224]


def _layer(cls, **extra):
    t = td("FLOAT32", SHAPE)
    return cls(input_tensor=t, output_tensor=t, strides=[1, 1], window_size=[3, 3], start_padding=[1, 1],
               end_padding=[1, 1], **extra)


@pytest.fixture(scope="module")
def layer_input():
    return np.random.default_rng(224).standard_normal(SHAPE, dtype=np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cls", [MaxPooling, AveragePooling])
def test_a_3x3_stride_1_pool_over_8x64x224x224_runs_and_matches_torch(cls, backend, layer_input):
    """Its windows gather 8 x 64 x 50176 x 9 = 231211008 elements, above the gather table's cap (refused before);
    sliced, it compiles to a model of a few kB and runs, equal to torch's max_pool2d exactly and to avg_pool2d
    within its own summation order, and bit for bit to the reference (DirectML's order)."""
    extra = {"include_padding": False} if cls is AveragePooling else {}
    desc = _layer(cls, **extra)
    with pytest.raises(dmlops.DmlOpsError, match=CAP):
        P.budget(desc, SHAPE)  # what the gather table would need
    assert P.sliced(desc)
    compiled = dmlops.compile(desc, backend=backend)
    if backend == "onnxruntime":
        assert compiled.model.ByteSize() < 20_000
    got = compiled(input_tensor=layer_input)["OutputTensor"]
    clear_cache()  # not keep a session of this size for the next test
    assert got.shape == tuple(SHAPE) and got.dtype == np.float32
    x = torch.from_numpy(layer_input)
    if cls is MaxPooling:
        _same(got, F.max_pool2d(x, 3, 1, 1).numpy(), f"{backend} vs torch max_pool2d")
    else:
        want = F.avg_pool2d(x, 3, 1, 1, count_include_pad=False).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        # DirectML's order (the reference's, checked against its vectors): a corner, an edge and an inner window
        for i, j in ((0, 0), (0, 100), (57, 200)):
            rows = layer_input[3, 5, max(i - 1, 0):i + 2, max(j - 1, 0):j + 2]
            acc = np.float32(0)
            for v in rows.ravel():  # the padding adds +0 first where the window starts in it
                acc = np.float32(acc + v)
            assert got[3, 5, i, j] == np.float32(acc / np.float32(rows.size)), (i, j)


def test_a_7x7_max_pooling1_with_indices_above_the_cap_matches_torch():
    """MAX_POOLING1 over 4 x 64 x 112 x 112, 7 x 7 windows at stride 1 padded by 3 (4 x 64 x 12544 x 49 =
    157351936 window elements, above the cap): values and whole-tensor indices equal torch's max_pool2d with
    return_indices (per plane, plus the plane's offset) on distinct values, on ONNX Runtime and torch."""
    shape = [4, 64, 112, 112]
    count = int(np.prod(shape))
    x = np.random.default_rng(7).permutation(count).astype(np.float32).reshape(shape)  # distinct, exact (< 2**24)
    t = td("FLOAT32", shape)
    desc = MaxPooling1(input_tensor=t, output_tensor=t, output_indices_tensor=td("UINT32", shape), strides=[1, 1],
                       window_size=[7, 7], start_padding=[3, 3], end_padding=[3, 3])
    with pytest.raises(dmlops.DmlOpsError, match=CAP):
        P.budget(desc, shape)
    value, index = F.max_pool2d(torch.from_numpy(x), 7, 1, 3, return_indices=True)
    planes = (np.arange(shape[0] * shape[1], dtype=np.int64) * shape[2] * shape[3]).reshape(shape[0], shape[1], 1, 1)
    for b in ("onnxruntime", "torch"):
        got = dmlops.run(desc, {"InputTensor": x}, backend=b)
        clear_cache()
        _same(got["OutputTensor"], value.numpy(), b)
        np.testing.assert_array_equal(got["OutputIndicesTensor"], (index.numpy() + planes).astype(np.uint32), b)


# ------------------------------------------------------------------------------ memory and model size
MEMORY_SHAPE = [2, 16, 48, 48]


def _memory_case(op: str, w: int):
    s, x = MEMORY_SHAPE, td("FLOAT32", MEMORY_SHAPE)
    rng = np.random.default_rng(w)
    win = dict(strides=[1, 1], window_size=[w, w], start_padding=[w // 2] * 2, end_padding=[w // 2] * 2)
    data = rng.standard_normal(s, dtype=np.float32)
    if op == "MAX_POOLING":
        return MaxPooling(input_tensor=x, output_tensor=x, **win), {"InputTensor": data}
    if op == "MAX_POOLING1":
        return (MaxPooling1(input_tensor=x, output_tensor=x, output_indices_tensor=td("UINT32", s), **win),
                {"InputTensor": data})
    if op == "MAX_POOLING1_INT8":
        i8 = td("INT8", s)
        return (MaxPooling1(input_tensor=i8, output_tensor=i8, output_indices_tensor=td("UINT32", s), **win),
                {"InputTensor": rng.integers(-128, 128, s, dtype=np.int8)})
    if op == "AVERAGE_POOLING":
        return AveragePooling(input_tensor=x, output_tensor=x, include_padding=False, **win), {"InputTensor": data}
    if op == "LP_POOLING":
        return LpPooling(input_tensor=x, output_tensor=x, p=2, **win), {"InputTensor": data}
    if op == "MAX_POOLING_GRAD":
        return (MaxPoolingGrad(input_tensor=x, input_gradient_tensor=x, output_gradient_tensor=x, dilations=[1, 1],
                               **win), {"InputTensor": data, "InputGradientTensor": data})
    if op == "AVERAGE_POOLING_GRAD":
        return (AveragePoolingGrad(input_gradient_tensor=x, output_gradient_tensor=x, include_padding=True, **win),
                {"InputGradientTensor": data})
    u8, q = td("UINT8", s), td("FLOAT32", [1, 1, 1, 1])
    return (QuantizedLinearAveragePooling(input_tensor=u8, input_scale_tensor=q, input_zero_point_tensor=None,
                                          output_scale_tensor=q, output_zero_point_tensor=None, output_tensor=u8,
                                          dilations=[1, 1], include_padding=False, **win),
            {"InputTensor": rng.integers(0, 256, s, dtype=np.uint8), "InputScaleTensor": np.ones(q.sizes, np.float32),
             "OutputScaleTensor": np.ones(q.sizes, np.float32)})


def _arena_peak(model, inputs, order: str, tmp_path) -> int:
    """ONNX Runtime's own peak of memory in use during one run (its profiler's per-node arena statistics)."""
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(tmp_path / "profile")
    options.execution_order = getattr(ort.ExecutionOrder, order)
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    session.run(None, {i.name: inputs[i.name] for i in model.graph.input})
    with open(session.end_profiling()) as f:
        events = [e for e in json.load(f) if e.get("cat") == "Node"]
    peaks = [int(e["args"]["mem_in_use_peak"]) for e in events if "mem_in_use_peak" in e.get("args", {})]
    assert peaks, "ONNX Runtime's profile has no memory statistics"
    return max(peaks)


@pytest.mark.parametrize("order", ["DEFAULT", "PRIORITY_BASED"])
@pytest.mark.parametrize("op", ["MAX_POOLING", "MAX_POOLING1", "MAX_POOLING1_INT8", "AVERAGE_POOLING", "LP_POOLING",
                                "MAX_POOLING_GRAD", "AVERAGE_POOLING_GRAD", "QUANTIZED_LINEAR_AVERAGE_POOLING"])
def test_onnx_runtime_memory_does_not_grow_with_the_window(op, order, tmp_path):
    """9 x 9 windows (81 slices) need about as much of ONNX Runtime's memory as 3 x 3 ones (9 slices): at most
    twice (the padded extent, 56 x 56 against 50 x 50, accounts for a quarter more), where a lowering that held the
    window elements at once (the gather, or every slice computed before the first is used) would need 9 times as
    much. Both are within a small multiple of input + output (one float32 tensor is 295 kB here; integers are
    compared in int64, two such tensors' worth each)."""
    tensor = int(np.prod(MEMORY_SHAPE)) * 4
    peaks = {}
    for w in (3, 9):
        desc, inputs = _memory_case(op, w)
        model = dmlops.compile(desc, backend="onnxruntime").model
        peaks[w] = _arena_peak(model, inputs, order, tmp_path)
    assert peaks[9] <= 2 * peaks[3], peaks
    assert peaks[9] <= 24 * tensor, peaks


@pytest.mark.parametrize("desc", [
    MaxPoolingGrad(input_tensor=td("FLOAT32", [1, 8, 64, 64]), input_gradient_tensor=td("FLOAT32", [1, 8, 49, 49]),
                   output_gradient_tensor=td("FLOAT32", [1, 8, 64, 64]), strides=[1, 1], window_size=[16, 16],
                   start_padding=[0, 0], end_padding=[0, 0], dilations=[1, 1]),
    MaxPooling1(input_tensor=td("FLOAT32", [1, 8, 64, 64]), output_tensor=td("FLOAT32", [1, 8, 49, 49]),
                output_indices_tensor=td("UINT64", [1, 8, 49, 49]), strides=[1, 1], window_size=[16, 16],
                start_padding=[0, 0], end_padding=[0, 0]),
], ids=["MAX_POOLING_GRAD", "MAX_POOLING1"])
def test_the_largest_sliced_window_compiles_to_a_model_under_a_megabyte(desc):
    """256 window elements, the most that are sliced: a few hundred bytes of nodes and constants per element."""
    assert P.sliced(desc) and P.Slices(desc, desc.input_tensor.sizes[2:]).k == P.SLICE_MAX
    assert dmlops.compile(desc, backend="onnxruntime").model.ByteSize() < 1_000_000
    assert not P.sliced(desc.replace(window_size=[16, 17]))  # 272 elements: the gather table
