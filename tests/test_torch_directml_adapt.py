"""Descriptors torch-directml cannot run as they are, run rewritten (dmlops/backends/torch_directml_adapt.py), on the
test double (tests/torch_directml_double.py) through ``dmlops.compile(desc, backend="torch", device="dml")``: 64-bit
data of moving and bit operators in two int32 lanes, UINT32 data of comparing operators in flipped int32 order,
tensors of 7 and 8 dimensions on merged views. Each is compared with dmlops's NumPy reference bit for bit; without
the rewrite each would be refused (at compile time, or at run time for the values used here)."""
import numpy as np
import pytest
import torch

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
