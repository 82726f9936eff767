"""Descriptors torch-directml cannot run as they are, run rewritten (dmlops/backends/torch_directml_adapt.py), on the
test double (tests/torch_directml_double.py) through ``dmlops.compile(desc, backend="torch", device="dml")``: 64-bit
data of moving and bit operators in two int32 lanes, UINT32 data of comparing operators in flipped int32 order,
tensors of 7 and 8 dimensions on merged views. Each is compared with dmlops's NumPy reference bit for bit; without
the rewrite each would be refused (at compile time, or at run time for the values used here)."""
import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import dmlops
from dmlops.backends.torch_directml_adapt import Adapted
from dmlops.backends.torch_directml_ops import MAX_RANK
from dmlops.ops import module
from tests import torch_directml_double as dd

T = dmlops.TensorDesc
I64 = np.iinfo(np.int64)
U64 = np.iinfo(np.uint64)


@pytest.fixture
def dml():
    with dd.installed() as device:
        yield device


def _compile(desc):
    return dmlops.compile(desc, backend="torch", device="dml")


def _same_as_reference(desc, inputs, kind: str):
    op = _compile(desc)
    assert isinstance(op._runner, Adapted) and op._runner.adaptation.kind == kind
    got = op(inputs)
    want = dmlops.compile(desc, backend="reference")(inputs)
    assert set(got) == set(want)
    for name in want:
        assert got[name].dtype == want[name].dtype, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name, strict=True)
    return op


# ----------------------------------------------------------------------------------------------- lanes
EXTREMES = {"INT64": np.array([I64.min, I64.max, -1, 2**40 + 1, -2**31 - 1, 7], np.int64),
            "UINT64": np.array([U64.max, 2**63, 2**63 - 1, 2**40 + 1, 2**32, 7], np.uint64)}


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_64_bit_data_of_moving_and_bit_operators_runs_in_two_int32_lanes(dml, t):
    x = EXTREMES[t].reshape(2, 3)
    y = x[::-1, ::-1].copy()
    cases = [
        (dmlops.Slice1(input_tensor=T(t, [2, 3]), output_tensor=T(t, [2, 2]), input_window_offsets=[0, 0],
                       input_window_sizes=[2, 3], input_window_strides=[-1, 2]), {"InputTensor": x}),
        (dmlops.Padding1(input_tensor=T(t, [2, 3]), output_tensor=T(t, [3, 5]), padding_mode="CONSTANT",
                         padding_value_data_type=t, padding_value=int(I64.min if t == "INT64" else U64.max),
                         start_padding=[1, 0], end_padding=[0, 2]), {"InputTensor": x}),
        (dmlops.Padding(input_tensor=T(t, [2, 3]), output_tensor=T(t, [2, 6]), padding_mode="REFLECTION",
                        padding_value=0.0, start_padding=[0, 2], end_padding=[0, 1]), {"InputTensor": x}),
        (dmlops.Padding(input_tensor=T(t, [2, 3]), output_tensor=T(t, [2, 4]), padding_mode="CONSTANT",
                        padding_value=-7.9 if t == "INT64" else 3e19, start_padding=[0, 1], end_padding=[0, 0]),
         {"InputTensor": x}),
        (dmlops.Join(input_tensors=[T(t, [2, 3]), T(t, [2, 3])], output_tensor=T(t, [2, 6]), axis=1),
         {"InputTensors[0]": x, "InputTensors[1]": y}),
        (dmlops.Gather(input_tensor=T(t, [2, 3]), indices_tensor=T("INT64", [1, 4]), output_tensor=T(t, [2, 4]),
                       axis=1, index_dimensions=1), {"InputTensor": x, "IndicesTensor": np.array([[2, -1, 0, 1]])}),
        (dmlops.ElementWiseIf(condition_tensor=T("UINT8", [2, 3]), a_tensor=T(t, [2, 3]), b_tensor=T(t, [2, 3]),
                              output_tensor=T(t, [2, 3])),
         {"ConditionTensor": np.array([[1, 0, 1], [0, 1, 0]], np.uint8), "ATensor": x, "BTensor": y}),
        (dmlops.ElementWiseBitXor(a_tensor=T(t, [2, 3]), b_tensor=T(t, [2, 3]), output_tensor=T(t, [2, 3])),
         {"ATensor": x, "BTensor": y}),
        (dmlops.ElementWiseBitNot(input_tensor=T(t, [2, 3]), output_tensor=T(t, [2, 3])), {"InputTensor": x}),
        (dmlops.DiagonalMatrix1(input_tensor=T(t, [2, 3]), output_tensor=T(t, [2, 3]), value_data_type=t,
                                value=int(I64.min if t == "INT64" else U64.max), diagonal_fill_begin=0,
                                diagonal_fill_end=1), {"InputTensor": x}),
        # A strided input (column-major): each lane is read through the same Strides.
        (dmlops.ElementWiseIdentity(input_tensor=T(t, [3, 2], [1, 3]), output_tensor=T(t, [3, 2])),
         {"InputTensor": x.reshape(-1)}),
    ]
    for desc, inputs in cases:
        op = _same_as_reference(desc, inputs, "lanes")
        nodes = op._runner.adaptation.graph.nodes
        assert len(nodes) == 2 and all(n.tensors()["OutputTensor"].data_type.name == "INT32" for n in nodes)


class DeviceDtypes(TorchDispatchMode):
    """The dtypes of every tensor on the double's device that an aten call touches."""

    def __init__(self) -> None:
        super().__init__()
        self.dtypes: set = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.dtypes |= {v.dtype for v in dd.tree_flatten((args, kwargs, out))[0] if isinstance(v, dd.DmlTensor)}
        return out


def test_float64_data_of_moving_operators_moves_as_int32_lanes_without_float64_on_the_device(dml):
    f = np.array([1 / 3, -0.0, np.nan, 5e-324, -1e300, np.inf], np.float64)
    f[2:3].view(np.uint64)[0] |= np.uint64(0xDEADBEEF)  # a NaN payload survives a move, not a computation
    x, y = f.reshape(2, 3), f[::-1].reshape(2, 3).copy()
    cases = [
        (dmlops.Slice1(input_tensor=T("FLOAT64", [2, 3]), output_tensor=T("FLOAT64", [2, 2]),
                       input_window_offsets=[0, 0], input_window_sizes=[2, 3], input_window_strides=[-1, 2]),
         {"InputTensor": x}),
        (dmlops.Padding1(input_tensor=T("FLOAT64", [2, 3]), output_tensor=T("FLOAT64", [3, 4]), padding_mode="CONSTANT",
                         padding_value_data_type="FLOAT64", padding_value=1 / 3, start_padding=[1, 0],
                         end_padding=[0, 1]), {"InputTensor": x}),
        (dmlops.Padding(input_tensor=T("FLOAT64", [2, 3]), output_tensor=T("FLOAT64", [2, 5]), padding_mode="CONSTANT",
                        padding_value=0.1, start_padding=[0, 2], end_padding=[0, 0]), {"InputTensor": x}),
        (dmlops.Join(input_tensors=[T("FLOAT64", [2, 3]), T("FLOAT64", [2, 3])], output_tensor=T("FLOAT64", [4, 3]),
                     axis=0), {"InputTensors[0]": x, "InputTensors[1]": y}),
        (dmlops.ElementWiseIf(condition_tensor=T("UINT8", [2, 3]), a_tensor=T("FLOAT64", [2, 3]),
                              b_tensor=T("FLOAT64", [2, 3]), output_tensor=T("FLOAT64", [2, 3])),
         {"ConditionTensor": np.array([[1, 0, 1], [0, 1, 0]], np.uint8), "ATensor": x, "BTensor": y}),
        (dmlops.DiagonalMatrix1(input_tensor=T("FLOAT64", [2, 3]), output_tensor=T("FLOAT64", [2, 3]),
                                value_data_type="FLOAT64", value=1e300, diagonal_fill_begin=0, diagonal_fill_end=1),
         {"InputTensor": x}),
        (dmlops.ElementWiseIdentity(input_tensor=T("FLOAT64", [3, 2], [1, 3]), output_tensor=T("FLOAT64", [3, 2])),
         {"InputTensor": f}),
    ]
    for desc, inputs in cases:
        rec = DeviceDtypes()
        with rec:
            op = _same_as_reference(desc, inputs, "lanes")
            bits = op(inputs)["OutputTensor"].view(np.uint64)
        want = dmlops.compile(desc, backend="reference")(inputs)["OutputTensor"].view(np.uint64)
        np.testing.assert_array_equal(bits, want)  # bit for bit: NaN payloads and signed zeros
        assert torch.float64 not in rec.dtypes, desc.OPERATOR_TYPE


def test_lanes_take_and_give_int64_torch_tensors_on_the_device(dml):
    tile = dmlops.Tile(input_tensor=T("UINT64", [3]), output_tensor=T("UINT64", [6]), repeats=[2])
    op = _compile(tile)
    x = torch.tensor([-1, 2**40 + 1, -2**63], dtype=torch.int64)  # UINT64 2**64 - 1, 2**40 + 1, 2**63: their bits
    got = op(input_tensor=x.to(dml.torch_device))["OutputTensor"]
    assert type(got) is dd.DmlTensor and got.dtype == torch.int64
    assert got.cpu().tolist() == x.tolist() * 2
    with pytest.raises(dmlops.DmlOpsError, match=r"TILE\.InputTensor: expected UINT64 data \(torch\.int64 \(torch-"
                                                 r"directml has no unsigned 16-, 32- or 64-bit tensors"):
        op(input_tensor=x.to(torch.int32).to(dml.torch_device))


# ----------------------------------------------------------------------------------------------- order
U32 = np.array([2**32 - 1, 0, 2**31, 2**31 - 1, 1, 2**31 + 1], np.uint32)


def test_uint32_data_of_comparing_operators_runs_in_flipped_int32_order(dml):
    a, b = U32.reshape(2, 3), U32[::-1].reshape(2, 3).copy()
    u = lambda s: T("UINT32", s)  # noqa: E731
    binary = dict(a_tensor=u([2, 3]), b_tensor=u([2, 3]))
    cases = [
        (dmlops.ElementWiseMax(**binary, output_tensor=u([2, 3])), {"ATensor": a, "BTensor": b}),
        (dmlops.ElementWiseMin(**binary, output_tensor=u([2, 3])), {"ATensor": a, "BTensor": b}),
        *[(cls(**binary, output_tensor=T("UINT8", [2, 3])), {"ATensor": a, "BTensor": b})
          for cls in (dmlops.ElementWiseLogicalGreaterThan, dmlops.ElementWiseLogicalGreaterThanOrEqual,
                      dmlops.ElementWiseLogicalLessThan, dmlops.ElementWiseLogicalLessThanOrEqual)],
        *[(dmlops.TopK1(input_tensor=u([1, 6]), output_value_tensor=u([1, 4]), output_index_tensor=u([1, 4]), axis=1,
                        k=4, axis_direction=d), {"InputTensor": U32.reshape(1, 6)})
          for d in ("DECREASING", "INCREASING")],
        (dmlops.TopK(input_tensor=u([1, 1, 1, 6]), output_value_tensor=u([1, 1, 1, 2]),
                     output_index_tensor=u([1, 1, 1, 2]), axis=3, k=2), {"InputTensor": U32.reshape(1, 1, 1, 6)}),
        (dmlops.Argmax(input_tensor=u([2, 3]), output_tensor=T("UINT32", [1, 3]), axes=[0],
                       axis_direction="INCREASING"), {"InputTensor": a}),
        (dmlops.Argmin(input_tensor=u([2, 3]), output_tensor=T("UINT64", [2, 1]), axes=[1],
                       axis_direction="DECREASING"), {"InputTensor": a}),
        *[(dmlops.Reduce(function=f, input_tensor=u([2, 3]), output_tensor=u([2, 1]) if f in ("MIN", "MAX")
                         else T("UINT32", [2, 1]), axes=[1]), {"InputTensor": a})
          for f in ("MIN", "MAX", "ARGMIN", "ARGMAX")],
    ]
    for desc, inputs in cases:
        _same_as_reference(desc, inputs, "order")


def test_flipped_order_takes_and_gives_int32_carriers_on_the_device(dml):
    maximum = dmlops.ElementWiseMax(a_tensor=T("UINT32", [3]), b_tensor=T("UINT32", [3]), output_tensor=T("UINT32", [3]))
    op = _compile(maximum)
    a = torch.tensor([-1, 0, 2**31 - 1], dtype=torch.int32)  # the bits of 2**32 - 1, 0, 2**31 - 1
    b = torch.tensor([5, -2**31, 2**31 - 2], dtype=torch.int32)  # 5, 2**31, 2**31 - 2
    got = op(a_tensor=a.to(dml.torch_device), b_tensor=b.to(dml.torch_device))["OutputTensor"]
    assert type(got) is dd.DmlTensor and got.dtype == torch.int32
    assert got.cpu().tolist() == [-1, -2**31, 2**31 - 1]


# ----------------------------------------------------------------------------------------------- rank
def _rank8_samples():
    out = []
    for op in ("ELEMENT_WISE_CEIL", "ELEMENT_WISE_FLOOR", "PADDING", "PADDING1", "JOIN", "SPLIT", "SLICE", "SLICE1",
               "TILE", "REVERSE_SUBSEQUENCES", "FILL_VALUE_SEQUENCE"):
        for s in module(op).SAMPLES:
            if any(td.dimension_count > MAX_RANK for td in _all(s.desc)):
                out.append(pytest.param(s, id=f"{op}-{s.name}"))
    return out


def _all(desc):
    for value in desc.tensors().values():
        yield from (v for v in (value if isinstance(value, tuple) else (value,)) if v is not None)


@pytest.mark.parametrize("sample", _rank8_samples())
def test_tensors_of_more_than_6_dimensions_run_on_merged_views(dml, sample):
    op = _same_as_reference(sample.desc, sample.inputs, "rank")
    assert all(td.dimension_count <= MAX_RANK for n in op._runner.adaptation.graph.nodes for td in _all(n))
    if sample.expected:
        got = op(sample.inputs)
        for name, want in sample.expected.items():
            np.testing.assert_array_equal(got[name], want)


def test_separable_operators_take_8_dimensions_in_two_steps_when_merging_is_not_enough(dml):
    x = np.arange(2 * 3 * 2 * 3 * 2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 3, 2, 3, 2, 3, 2, 3)
    pad = dmlops.Padding(input_tensor=T("FLOAT32", x.shape), output_tensor=T("FLOAT32", [n + 2 for n in x.shape]),
                         padding_mode="SYMMETRIC", padding_value=0.0, start_padding=[1] * 8, end_padding=[1] * 8)
    op = _same_as_reference(pad, {"InputTensor": x}, "rank")
    assert len(op._runner.adaptation.graph.nodes) == 2
    tile = dmlops.Tile(input_tensor=T("FLOAT32", x.shape), output_tensor=T("FLOAT32", [2 * n for n in x.shape]),
                       repeats=[2] * 8)
    assert len(_same_as_reference(tile, {"InputTensor": x}, "rank")._runner.adaptation.graph.nodes) == 2
    np.testing.assert_array_equal(_compile(pad)(input_tensor=x)["OutputTensor"],
                                  np.pad(x, 1, mode="symmetric"))  # an independent formula too


@pytest.mark.parametrize("axis", [0, 3, 6])
def test_join_and_split_merge_the_axes_around_theirs(dml, axis):
    shape = [2, 1, 3, 2, 1, 2, 3]
    other = list(shape)
    other[axis] = 1
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    b = -np.arange(np.prod(other), dtype=np.float32).reshape(other) - 1
    both = list(shape)
    both[axis] += 1
    join = dmlops.Join(input_tensors=[T("FLOAT32", shape), T("FLOAT32", other)], output_tensor=T("FLOAT32", both),
                       axis=axis)
    got = _same_as_reference(join, {"InputTensors[0]": a, "InputTensors[1]": b}, "rank")(
        {"InputTensors[0]": a, "InputTensors[1]": b})["OutputTensor"]
    np.testing.assert_array_equal(got, np.concatenate([a, b], axis))
    split = dmlops.Split(input_tensor=T("FLOAT32", both), output_tensors=[T("FLOAT32", shape), T("FLOAT32", other)],
                         axis=axis)
    _same_as_reference(split, {"InputTensor": got}, "rank")


def test_more_than_6_dimensional_torch_tensors_are_refused_by_name(dml):
    shape = [1] * 6 + [2, 2]
    add = dmlops.ElementWiseAdd(a_tensor=T("FLOAT32", shape), b_tensor=T("FLOAT32", shape),
                                output_tensor=T("FLOAT32", shape))
    x = np.arange(4, dtype=np.float32).reshape(shape)
    op = _compile(add)
    np.testing.assert_array_equal(op(a_tensor=x, b_tensor=x)["OutputTensor"], x + x)
    with pytest.raises(dmlops.UnsupportedValue, match=r"^ELEMENT_WISE_ADD\.ATensor: a torch tensor; on torch-directml "
                                                      r"dmlops runs this operator, whose tensors have more than 6 "
                                                      r"dimensions, on a view of at most 6 .*pass NumPy arrays"):
        op(a_tensor=torch.from_numpy(x), b_tensor=x)


# ----------------------------------------------------------------------------------------------- saturated indices
def _gather(index_type, indices):
    return (dmlops.Gather(input_tensor=T("FLOAT32", [3, 2]), indices_tensor=T(index_type, [1, len(indices)]),
                          output_tensor=T("FLOAT32", [len(indices), 2]), axis=0, index_dimensions=1),
            {"InputTensor": np.arange(6, dtype=np.float32).reshape(3, 2),
             "IndicesTensor": np.array([indices], np.dtype(index_type.lower()))})


@pytest.mark.parametrize("desc, inputs", [
    _gather("UINT32", [2**32 - 1, 2**31, 1, 3]),
    _gather("UINT64", [2**64 - 1, 2**63, 2**40, 2**64 - 4, 0]),  # read as INT64: -1 (last row), -2**63, ...
    _gather("INT64", [-2**40, 2**40, -3, -4, 2**31]),
    (dmlops.OneHot(indices_tensor=T("UINT64", [3, 1]), values_tensor=T("FLOAT32", [1, 2]),
                   output_tensor=T("FLOAT32", [3, 4]), axis=1),
     {"IndicesTensor": np.array([[2**64 - 1], [2**63], [3]], np.uint64), "ValuesTensor": np.array([[-1, 5]], np.float32)}),
    (dmlops.OneHot(indices_tensor=T("INT64", [3, 1]), values_tensor=T("FLOAT32", [1, 2]),
                   output_tensor=T("FLOAT32", [3, 4]), axis=1),
     {"IndicesTensor": np.array([[-2**40], [2**40], [-4]], np.int64), "ValuesTensor": np.array([[-1, 5]], np.float32)}),
    (dmlops.ReverseSubsequences(input_tensor=T("FLOAT32", [3, 2]), sequence_lengths_tensor=T("UINT32", [1, 2]),
                                output_tensor=T("FLOAT32", [3, 2]), axis=0),
     {"InputTensor": np.arange(6, dtype=np.float32).reshape(3, 2), "SequenceLengthsTensor": np.array([[2**32 - 1, 2]],
                                                                                                      np.uint32)}),
], ids=["gather_uint32", "gather_uint64", "gather_int64", "one_hot_uint64", "one_hot_int64", "reverse_uint32"])
def test_indices_beyond_int32_are_saturated_where_the_operator_bounds_them(dml, desc, inputs):
    op = _compile(desc)
    got = op(inputs)["OutputTensor"]
    want = dmlops.compile(desc, backend="reference")(inputs)["OutputTensor"]
    np.testing.assert_array_equal(got, want, strict=True)
    index = next(n for n in inputs if n != "InputTensor" and n != "ValuesTensor")
    on_device = torch.from_numpy(inputs[index].view(np.int64) if inputs[index].dtype == np.uint64
                                 else inputs[index].astype(np.int64 if inputs[index].dtype == np.int64 else np.int32))
    with pytest.raises(dmlops.UnsupportedValue, match=rf"{index}: element \(.*\) is -?\d+; on torch-directml dmlops "
                                                      r"carries"):
        # a torch tensor is the caller's carrier, checked as it is (saturating it would compute on the host)
        op({**{k: torch.from_numpy(v).to(dml.torch_device) for k, v in inputs.items() if k != index},
            index: on_device.to(dml.torch_device)})


# ----------------------------------------------------------------------------------------------- pairs
def _wide_values(t, count, seed):
    """Extremes, values around the 32-bit digit boundaries, and random 64-bit patterns, shuffled."""
    info = np.iinfo(np.dtype(t.lower()))
    edges = [info.min, info.max, 0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1]
    edges += [-1, -2**31, -2**31 - 1, -2**32, 2**40 + 3] if t == "INT64" else [2**63, 2**64 - 2**32, 2**64 - 2]
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**64, size=count, dtype=np.uint64, endpoint=False)
    out = np.concatenate([np.array(edges, dtype=object).astype(np.dtype(t.lower())),
                          bits.view(np.dtype(t.lower()))[:count - len(edges)]])
    rng.shuffle(out)
    return out[:count]


PAIR_BINARY = ["ElementWiseAdd", "ElementWiseSubtract", "ElementWiseMultiply", "ElementWiseMax", "ElementWiseMin",
               "ElementWiseLogicalEquals", "ElementWiseLogicalGreaterThan", "ElementWiseLogicalGreaterThanOrEqual",
               "ElementWiseLogicalLessThan", "ElementWiseLogicalLessThanOrEqual"]


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
@pytest.mark.parametrize("name", PAIR_BINARY)
def test_64_bit_element_wise_arithmetic_and_comparisons_are_exact_in_int32_pairs(dml, t, name):
    n = 64
    a, b = _wide_values(t, n, 1), _wide_values(t, n, 2)
    b[:8] = a[:8]  # ties, for the comparisons
    b[8:12] = a[8:12] ^ np.array(1, a.dtype)  # equal high halves
    out_type = "UINT8" if "Logical" in name else t
    desc = getattr(dmlops, name)(a_tensor=T(t, [n]), b_tensor=T(t, [n]), output_tensor=T(out_type, [n]))
    _same_as_reference(desc, {"ATensor": a, "BTensor": b}, "pairs")


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_64_bit_unary_operators_clips_shifts_and_counts_are_exact_in_int32_pairs(dml, t):
    n = 48
    x = _wide_values(t, n, 3)
    for cls in [dmlops.ElementWiseSign] + ([dmlops.ElementWiseNegate, dmlops.ElementWiseAbs] if t == "INT64" else []):
        _same_as_reference(cls(input_tensor=T(t, [n]), output_tensor=T(t, [n])), {"InputTensor": x}, "pairs")
    for out in ("UINT8", "UINT32"):
        _same_as_reference(dmlops.ElementWiseBitCount(input_tensor=T(t, [n]), output_tensor=T(out, [n])),
                           {"InputTensor": x}, "pairs")
    lo, hi = (-2**40, 2**33 + 5) if t == "INT64" else (2**31, 2**63 + 9)
    dy = _wide_values(t, n, 4)
    for clip in (dmlops.ElementWiseClip1(input_tensor=T(t, [n]), output_tensor=T(t, [n]), min_max_data_type=t,
                                         min=lo, max=hi),
                 dmlops.ElementWiseClip(input_tensor=T(t, [n]), output_tensor=T(t, [n]), min=-1e12, max=3e18)):
        _same_as_reference(clip, {"InputTensor": x}, "pairs")
    grad = dmlops.ElementWiseClipGrad1(input_tensor=T(t, [n]), input_gradient_tensor=T(t, [n]),
                                       output_gradient_tensor=T(t, [n]), min_max_data_type=t, min=lo, max=hi)
    _same_as_reference(grad, {"InputTensor": x, "InputGradientTensor": dy}, "pairs")
    grad = dmlops.ElementWiseClipGrad(input_tensor=T(t, [n]), input_gradient_tensor=T(t, [n]),
                                      output_gradient_tensor=T(t, [n]), min=-1e12, max=3e18)
    _same_as_reference(grad, {"InputTensor": x, "InputGradientTensor": dy}, "pairs")
    if t == "UINT64":  # DirectML's shifts take unsigned types: counts 0 to 70 and beyond 2**32 (low half read)
        counts = np.concatenate([np.arange(n - 4, dtype=np.uint64), np.array([2**32 + 3, 2**40, 2**64 - 1, 96],
                                                                                np.uint64)])
        for cls in (dmlops.ElementWiseBitShiftLeft, dmlops.ElementWiseBitShiftRight):
            _same_as_reference(cls(a_tensor=T(t, [n]), b_tensor=T(t, [n]), output_tensor=T(t, [n])),
                               {"ATensor": x, "BTensor": counts}, "pairs")


def test_pairs_read_strided_inputs_and_take_int64_torch_tensors(dml):
    # B broadcast along rows (zero strides), A column-major: each lane is read through the same Strides.
    add = dmlops.ElementWiseAdd(a_tensor=T("UINT64", [2, 3], [1, 2]), b_tensor=T("UINT64", [2, 3], [0, 1]),
                                output_tensor=T("UINT64", [2, 3]))
    a = np.array([2**64 - 1, 2**32, 5, 2**63, 2**32 - 1, 0], np.uint64)
    b = np.array([1, 2**32 - 1, 2**63], np.uint64)
    _same_as_reference(add, {"ATensor": a, "BTensor": b}, "pairs")
    mul = dmlops.ElementWiseMultiply(a_tensor=T("INT64", [3]), b_tensor=T("INT64", [3]), output_tensor=T("INT64", [3]))
    op = _compile(mul)
    x, y = torch.tensor([-2**63, 2**40 + 1, -3]), torch.tensor([-1, 2**30 + 7, 2**62])
    got = op(a_tensor=x.to(dml.torch_device), b_tensor=y.to(dml.torch_device))["OutputTensor"]
    assert type(got) is dd.DmlTensor and got.dtype == torch.int64
    assert got.cpu().tolist() == (x * y).tolist()  # wraps modulo 2**64 as torch's CPU int64 does
    with pytest.raises(dmlops.DmlOpsError, match=r"ELEMENT_WISE_MULTIPLY\.ATensor: expected INT64 data \(torch\.int64 "
                                                 r"\(torch-directml has no unsigned .*got torch\.int32"):
        op(a_tensor=x.to(torch.int32).to(dml.torch_device), b_tensor=y.to(dml.torch_device))


# ----------------------------------------------------------------------------------------------- CAST
def _cast(src, dst, values):
    v = np.asarray(values, dtype=np.dtype(src.lower()))
    return dmlops.Cast(input_tensor=T(src, [v.size]), output_tensor=T(dst, [v.size])), {"InputTensor": v}


def _floats(seed):
    """Float32 values across every magnitude up to beyond 2**64, both signs, the 2**31 / 2**32 / 2**63 / 2**64
    edges, NaN, infinities and fractions."""
    rng = np.random.default_rng(seed)
    mags = 2.0 ** rng.uniform(-2, 70, 200)
    edges = [2.0**31, 2.0**31 - 128, 2.0**32 - 256, 2.0**32, 2.0**32 + 512, 2.0**63, 2.0**63 - 2**39, 2.0**64,
             2.0**64 - 2**40, 0.0, -0.0, 0.5, -0.5, 1.9, -1.9, np.nan, np.inf, -np.inf]
    values = np.concatenate([mags, -mags, edges, [-e for e in edges]]).astype(np.float32)
    return values


@pytest.mark.parametrize("dst", ["INT8", "UINT8", "INT16", "UINT16", "INT32", "FLOAT32", "FLOAT16"])
def test_cast_reads_uint32_bits_of_any_value(dml, dst):
    values = np.concatenate([U32, np.random.default_rng(5).integers(0, 2**32, 40, dtype=np.uint32)])
    desc, inputs = _cast("UINT32", dst, values)
    op = _compile(desc)
    np.testing.assert_array_equal(op(inputs)["OutputTensor"], dmlops.compile(desc, backend="reference")(inputs)[
        "OutputTensor"], strict=True)


@pytest.mark.parametrize("src", ["INT8", "INT16", "INT32", "UINT8", "UINT16", "FLOAT32", "FLOAT16"])
def test_cast_writes_uint32_bits_of_any_value(dml, src):
    if src.startswith("FLOAT"):
        values = _floats(6)
        if src == "FLOAT16":
            values = values[np.abs(values) < 65504]
    else:
        info = np.iinfo(np.dtype(src.lower()))
        values = [info.min, info.max, -1 if info.min else 0, 0, 1, 7]
    desc, inputs = _cast(src, "UINT32", values)
    op = _compile(desc)
    np.testing.assert_array_equal(op(inputs)["OutputTensor"], dmlops.compile(desc, backend="reference")(inputs)[
        "OutputTensor"], strict=True)


@pytest.mark.parametrize("dst", ["INT64", "UINT64"])
@pytest.mark.parametrize("src", ["INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32", "INT64", "UINT64", "FLOAT32",
                                 "FLOAT16"])
def test_cast_to_64_bit_integers_runs_in_int32_pairs(dml, src, dst):
    if src.startswith("FLOAT"):
        values = _floats(7)
        if src == "FLOAT16":
            values = np.concatenate([values[np.abs(values) < 65504], [65504, -65504, np.inf]])
    else:
        info = np.iinfo(np.dtype(src.lower()))
        values = np.array([info.min, info.max, 0, 1, 7], dtype=object)
        if src in ("INT64", "UINT64"):
            values = EXTREMES[src]
    desc, inputs = _cast(src, dst, values)
    _same_as_reference(desc, inputs, "lanes" if src in ("INT64", "UINT64") else "pairs")


@pytest.mark.parametrize("src", ["INT64", "UINT64"])
@pytest.mark.parametrize("dst", ["INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "FLOAT32", "FLOAT16"])
def test_cast_from_64_bit_integers_saturates_and_rounds_exactly_in_int32_pairs(dml, src, dst):
    values = list(_wide_values(src, 64, 16))
    # float32 rounding edges: halfway between neighbours (ties to even), just above and below, at 2**32 scales
    for k in (0, 7, 8, 20, 39):
        for base in (2**24 + 1, 2**24 + 3, 2**25 - 1):
            for d in (-1, 0, 1):
                v = base * 2**k + d
                if v < 2**63:
                    values += [v, -v] if src == "INT64" else [v]
    values += [2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32, 65504, 65520, 70000] if src == "INT64" else [
        2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 65504, 65520]
    desc, inputs = _cast(src, dst, np.array(values, dtype=object).astype(np.dtype(src.lower())))
    _same_as_reference(desc, inputs, "pairs")


def test_cast_pairs_take_a_torch_tensor_and_give_an_int64_one(dml):
    desc, _ = _cast("INT32", "UINT64", [0, 0, 0])
    x = torch.tensor([-1, 2**31 - 1, -2**31], dtype=torch.int32)
    got = _compile(desc)(input_tensor=x.to(dml.torch_device))["OutputTensor"]
    assert got.dtype == torch.int64 and got.cpu().tolist() == x.to(torch.int64).tolist()  # the sign-extended bits


# ----------------------------------------------------------------------------------------------- RANDOM_GENERATOR
@pytest.mark.parametrize("words, sizes, with_state", [
    ([0] * 6, [1, 1, 1, 4], True),
    ([2**32 - 1] * 6, [3, 5], True),  # the counter wraps to zero, then counts on
    ([2**32 - 3, 2**32 - 1, 2**32 - 1, 7, 0x9E3779B9, 1], [2, 3, 3], True),  # carries across words mid-call
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0], [1, 1, 37], False),
])
def test_philox_runs_in_32_bit_words(dml, words, sizes, with_state):
    state = T("UINT32", [1, 1, 1, 6])
    desc = dmlops.RandomGenerator(input_state_tensor=state, output_tensor=T("UINT32", sizes),
                                  output_state_tensor=state if with_state else None, type="PHILOX_4X32_10")
    _same_as_reference(desc, {"InputStateTensor": np.array(words, np.uint32).reshape(1, 1, 1, 6)}, "pairs")


def test_philox_takes_and_gives_int32_carriers_and_refuses_a_strided_output(dml):
    state = T("UINT32", [1, 1, 1, 6])
    desc = dmlops.RandomGenerator(input_state_tensor=state, output_tensor=T("UINT32", [4]), output_state_tensor=state,
                                  type="PHILOX_4X32_10")
    words = np.array([2**32 - 1] * 6, np.uint32).reshape(1, 1, 1, 6)
    want = dmlops.compile(desc, backend="reference")(input_state_tensor=words)
    got = _compile(desc)(input_state_tensor=torch.from_numpy(words.view(np.int32)).to(dml.torch_device))
    assert got["OutputTensor"].dtype == torch.int32
    assert got["OutputTensor"].cpu().numpy().view(np.uint32).tolist() == want["OutputTensor"].tolist()
    assert got["OutputStateTensor"].cpu().numpy().view(np.uint32).tolist() == want["OutputStateTensor"].tolist()
    strided = dmlops.RandomGenerator(input_state_tensor=state, output_tensor=T("UINT32", [2, 2], [1, 2]),
                                     type="PHILOX_4X32_10")
    with pytest.raises(dmlops.DmlOpsError, match=r"RANDOM_GENERATOR\.InputStateTensor: Philox needs .* into a packed "
                                                 r"OutputTensor and OutputStateTensor only\."):
        _compile(strided)


# ----------------------------------------------------------------------------------------------- 64-bit selection
def _selection_values(t):
    """A {3, 8} block of 64-bit values with ties: equal values, equal high halves, equal low halves."""
    v = _wide_values(t, 24, 8).reshape(3, 8)
    v[0, 5] = v[0, 1]  # a tie
    v[1, :4] = v[1, 4]  # four equal values
    v[2, 3] = v[2, 6] ^ np.array(1, v.dtype)  # the same high half
    v[2, 0] = v[2, 7] ^ np.array(2**40, v.dtype)  # the same low half
    return v


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_64_bit_selection_along_axes_is_exact_in_int32_keys(dml, t):
    x = _selection_values(t)
    inputs = {"InputTensor": x}
    cases = [dmlops.TopK(input_tensor=T(t, [1, 1, 3, 8]), output_value_tensor=T(t, [1, 1, 3, 5]),
                         output_index_tensor=T("UINT32", [1, 1, 3, 5]), axis=3, k=5)]
    for d in ("DECREASING", "INCREASING"):
        cases += [dmlops.TopK1(input_tensor=T(t, [3, 8]), output_value_tensor=T(t, [3, 8]),
                               output_index_tensor=T("UINT64", [3, 8]), axis=1, k=8, axis_direction=d),
                  dmlops.TopK1(input_tensor=T(t, [3, 8]), output_value_tensor=T(t, [2, 8]),
                               output_index_tensor=T("UINT32", [2, 8]), axis=0, k=2, axis_direction=d)]
        for cls in (dmlops.Argmax, dmlops.Argmin):
            cases += [cls(input_tensor=T(t, [3, 8]), output_tensor=T("UINT32", [3, 1]), axes=[1], axis_direction=d),
                      cls(input_tensor=T(t, [3, 8]), output_tensor=T("UINT64", [1, 1]), axes=[0, 1],
                          axis_direction=d)]
    for f in ("MIN", "MAX", "ARGMIN", "ARGMAX"):
        out = t if f in ("MIN", "MAX") else "UINT32"
        cases += [dmlops.Reduce(function=f, input_tensor=T(t, [3, 8]), output_tensor=T(out, [3, 1]), axes=[1]),
                  dmlops.Reduce(function=f, input_tensor=T(t, [3, 8]), output_tensor=T(out, [1, 8]), axes=[0]),
                  dmlops.Reduce(function=f, input_tensor=T(t, [3, 8]), output_tensor=T(out, [1, 1]), axes=[0, 1])]
    for desc in cases:
        shaped = {"InputTensor": x.reshape(desc.input_tensor.sizes)}
        _same_as_reference(desc, shaped if desc.OPERATOR_TYPE == "TOP_K" else inputs, "pairs")


# ----------------------------------------------------------------------------------------------- division
@pytest.mark.parametrize("t", ["INT64", "UINT64", "UINT32"])
@pytest.mark.parametrize("name", ["ElementWiseDivide", "ElementWiseModulusTruncate", "ElementWiseModulusFloor"])
def test_division_and_remainders_of_64_bit_and_uint32_values_are_exact(dml, t, name):
    n = 64
    if t == "UINT32":
        rng = np.random.default_rng(9)
        a = np.concatenate([U32, rng.integers(0, 2**32, n - 6, dtype=np.uint32)])
        b = np.concatenate([[0, 1, 2**32 - 1, 7, 2**31, 0], rng.integers(0, 2**32, n - 6, dtype=np.uint32) >>
                            rng.integers(0, 32, n - 6).astype(np.uint32)]).astype(np.uint32)
    else:
        a = _wide_values(t, n, 10)
        b = _wide_values(t, n, 11) >> np.array(np.random.default_rng(12).integers(0, 63, n), a.dtype)  # all sizes
        b[:6] = np.array([0, 1, 3, 2**40, 0, 7], dtype=object).astype(a.dtype)
        if t == "INT64":
            a[:4] = [I64.min, I64.min, -7, 7]
            b[:4] = [-1, 3, 2, -2]  # INT64_MIN / -1 wraps; signs of quotient and remainders
    desc = getattr(dmlops, name)(a_tensor=T(t, [n]), b_tensor=T(t, [n]), output_tensor=T(t, [n]))
    _same_as_reference(desc, {"ATensor": a, "BTensor": b}, "pairs")


def test_uint32_mean_is_the_wrapped_sum_halved(dml):
    mean = dmlops.ElementWiseMean(a_tensor=T("UINT32", [6]), b_tensor=T("UINT32", [6]), output_tensor=T("UINT32", [6]))
    _same_as_reference(mean, {"ATensor": U32, "BTensor": U32[::-1].copy()}, "pairs")


# ----------------------------------------------------------------------------------------------- 64-bit accumulation
@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_64_bit_scans_reductions_folds_and_max_pooling_accumulate_in_int32_pairs(dml, t):
    x = _wide_values(t, 30, 13).reshape(2, 3, 5)
    inputs = {"InputTensor": x}
    cases = []
    for cls, flag in ((dmlops.CumulativeSummation, "has_exclusive_sum"),
                      (dmlops.CumulativeProduct, "has_exclusive_product")):
        for axis in (1, 2):
            for d in ("INCREASING", "DECREASING"):
                for exclusive in (False, True):
                    cases.append(cls(input_tensor=T(t, [2, 3, 5]), output_tensor=T(t, [2, 3, 5]), axis=axis,
                                     axis_direction=d, **{flag: exclusive}))
    for f in ("SUM", "MULTIPLY", "SUM_SQUARE"):
        for axes, out in (([2], [2, 3, 1]), ([0, 1], [1, 1, 5]), ([0, 1, 2], [1, 1, 1])):
            cases.append(dmlops.Reduce(function=f, input_tensor=T(t, [2, 3, 5]), output_tensor=T(t, out), axes=axes))
    for desc in cases:
        _same_as_reference(desc, inputs, "pairs")
    image = _wide_values(t, 2 * 2 * 4 * 5, 14).reshape(2, 2, 4, 5)
    image[0, 0, 1, :3] = image[0, 0, 0, 0]  # ties inside a window
    for name in ("MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"):
        kw = dict(strides=[1, 2], start_padding=[1, 0], end_padding=[0, 1])
        out = T(t, [2, 2, 4, 3])
        if name == "MAX_POOLING":
            desc = dmlops.MaxPooling(input_tensor=T(t, [2, 2, 4, 5]), output_tensor=out, window_size=[2, 2], **kw)
        elif name == "MAX_POOLING1":
            desc = dmlops.MaxPooling1(input_tensor=T(t, [2, 2, 4, 5]), output_tensor=out,
                                      output_indices_tensor=T("UINT32", [2, 2, 4, 3]), window_size=[2, 2], **kw)
        else:
            desc = dmlops.MaxPooling2(input_tensor=T(t, [2, 2, 4, 5]), output_tensor=T(t, [2, 2, 3, 3]),
                                      output_indices_tensor=T("UINT64", [2, 2, 3, 3]), window_size=[2, 2],
                                      dilations=[2, 1], **kw)
        _same_as_reference(desc, {"InputTensor": image}, "pairs")
    for s in module("FOLD").SAMPLES:
        if s.desc.input_tensor.data_type.name == t:
            _same_as_reference(s.desc, s.inputs, "pairs")
            wide = _wide_values(t, int(np.prod(s.desc.input_tensor.sizes)), 15).reshape(s.desc.input_tensor.sizes)
            _same_as_reference(s.desc, {"InputTensor": wide}, "pairs")


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_64_bit_max_pooling_compares_low_digits_unsigned(dml, t):
    # Values with the same high 32 bits whose low digits differ in their top bit (2**31 > 1 as a low digit): a
    # signed compare of the low digit picked the smaller (a random fuzz found [2**31, 0] pooled to 0).
    high = [0, 5, -1] if t == "INT64" else [0, 5, 2**32 - 1]
    low = [0, 1, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1]
    values = np.array([(h << 32) + lo for h in high for lo in low], dtype=object)
    x = (values.astype(np.int64) if t == "INT64" else values.astype(np.uint64)).reshape(1, 1, 1, -1)
    for order in (x, x[..., ::-1].copy()):
        n = order.shape[-1]
        desc = dmlops.MaxPooling1(input_tensor=T(t, [1, 1, 1, n]), output_tensor=T(t, [1, 1, 1, n - 1]),
                                  output_indices_tensor=T("UINT32", [1, 1, 1, n - 1]), strides=[1, 1],
                                  window_size=[1, 2], start_padding=[0, 0], end_padding=[0, 0])
        _same_as_reference(desc, {"InputTensor": order}, "pairs")


@pytest.mark.parametrize("dst", ["FLOAT32", "FLOAT16"])
def test_cast_from_float64_rounds_its_bits_in_int32_lanes_without_float64_on_the_device(dml, dst):
    rng = np.random.default_rng(17)
    # every float32 binade and beyond, both signs: random fractions, the halfway points between float32 neighbours
    # (ties to even) and their float64 neighbours, the subnormal and overflow boundaries
    exps = rng.integers(1023 - 160, 1023 + 140, 300)
    bits = (exps.astype(np.uint64) << np.uint64(52)) | rng.integers(0, 2**52, 300, dtype=np.uint64)
    values = list(bits.view(np.float64))
    for f in (1.0, 1.5, 2.0**-126, 2.0**-149, 3 * 2.0**-149, 2.0**-127, np.finfo(np.float32).max, 2.0**127, 7.0):
        # the next float32 up (past the largest finite one: 2**128, the overflow threshold's other side)
        up = 2.0**128 if f == np.finfo(np.float32).max else np.nextafter(np.float32(f), np.float32(np.inf))
        half = (np.float64(f) + np.float64(up)) / 2  # exactly halfway in float64
        values += [f, half, np.nextafter(half, -np.inf), np.nextafter(half, np.inf)]
    values += [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -1e-310, 1e300, -3.4028235677973366e38, 2.0**128]
    values = np.array(values, np.float64)
    values = np.concatenate([values, -values])
    desc, inputs = _cast("FLOAT64", dst, values)
    rec = DeviceDtypes()
    with rec:
        _same_as_reference(desc, inputs, "pairs")
    assert torch.float64 not in rec.dtypes
