"""Hand-written shape rules of the data-movement, gather/scatter, selection, generator and scan operators
(dmlops/ops/<op>.py check hooks, shared helpers in dmlops/ops/_layout.py).

For each operator: valid descriptors (the docs pages' own examples where they have them, and shapes DirectML ran
in dmlops/data/directml_vectors) give no problem, and each documented relation, broken, gives the complete list of
messages (which also proves that the generic validator and the hook do not report the same thing twice).
"""

import pytest

import dmlops
from tests.rules_common import assert_missing_tensors_never_raise, assert_wrong_ranks_never_raise
from dmlops.ops import MODULES, module


def t(*sizes, dt="FLOAT32"):
    return dmlops.TensorDesc(dt, list(sizes))


def u(*sizes):
    return t(*sizes, dt="UINT32")


def messages(desc, level="6.4"):
    return [str(p) for p in dmlops.problems(desc, level)]


# ---------------------------------------------------------------- SPLIT

def split(x, outs, axis):
    return dmlops.Split(input_tensor=t(*x), output_tensors=[t(*o) for o in outs], axis=axis)


@pytest.mark.parametrize("desc", [
    split((2, 3, 4, 5), [(2, 1, 4, 5), (2, 2, 4, 5)], 1),
    split((1, 1, 6, 2), [(1, 1, 2, 2), (1, 1, 1, 2), (1, 1, 3, 2)], 2),  # docs example 1
    split((1, 1, 6, 2), [(1, 1, 6, 1), (1, 1, 6, 1)], 3),  # docs example 2
    split((2, 3), [(2, 3)], 0),  # one output: a copy
])
def test_split_valid(desc):
    assert messages(desc) == []


def test_split_axis():
    assert messages(split((2, 3, 4, 5), [(2, 3, 4, 5)], 4)) == [
        "SPLIT.Axis: 4 is out of range for a 4-dimensional InputTensor (allowed: 0 to 3).",
    ]


def test_split_other_dimensions():
    assert messages(split((2, 3, 4, 5), [(2, 1, 4, 6), (1, 2, 4, 5)], 1)) == [
        "SPLIT.OutputTensors[0]: Sizes [2, 1, 4, 6] must match InputTensor Sizes [2, 3, 4, 5] in every dimension "
        "but Axis 1: dimension 3 is 6 (expected 5).",
        "SPLIT.OutputTensors[1]: Sizes [1, 2, 4, 5] must match InputTensor Sizes [2, 3, 4, 5] in every dimension "
        "but Axis 1: dimension 0 is 1 (expected 2).",
    ]


def test_split_sum():
    # DirectML refused two outputs of 1 along an axis of size 1 (vector gap_factory_tier_1_0_dt_0_rank_default).
    assert messages(split((1, 1, 1, 1), [(1, 1, 1, 1), (1, 1, 1, 1)], 1)) == [
        "SPLIT.OutputTensors: Sizes[1] sum to 2 (1 + 1); they must sum to InputTensor's Sizes[1] = 1.",
    ]
    assert messages(split((2, 3, 4, 5), [(2, 3, 4, 2), (2, 3, 4, 2)], 3)) == [
        "SPLIT.OutputTensors: Sizes[3] sum to 4 (2 + 2); they must sum to InputTensor's Sizes[3] = 5.",
    ]


# ---------------------------------------------------------------- PADDING, PADDING1

def padding(x, y, start, end, mode="CONSTANT"):
    return dmlops.Padding(input_tensor=t(*x), output_tensor=t(*y), padding_mode=mode, padding_value=9.0,
                          start_padding=start, end_padding=end)


def padding1(x, y, start, end, dt="FLOAT32", value_type="FLOAT32"):
    return dmlops.Padding1(input_tensor=t(*x, dt=dt), output_tensor=t(*y, dt=dt), padding_mode="CONSTANT",
                           padding_value_data_type=value_type, padding_value=9, start_padding=start,
                           end_padding=end)


@pytest.mark.parametrize("desc", [
    padding((1, 1, 4, 4), (1, 1, 8, 10), [0, 0, 1, 2], [0, 0, 3, 4]),  # docs example 1
    padding((1, 1, 4, 4), (1, 1, 8, 10), [0, 0, 1, 2], [0, 0, 3, 4], "REFLECTION"),  # docs example 3
    padding((1, 1, 2, 2), (1, 1, 5, 6), [0, 0, 3, 4], [0, 0, 0, 0], "SYMMETRIC"),  # periodic folding: pad > size
    padding((3,), (3,), [0], [0]),
    padding1((1, 2, 3, 4), (1, 3, 6, 7), [0, 0, 1, 2], [0, 1, 2, 1], "INT32", "INT32"),
])
def test_padding_valid(desc):
    assert messages(desc) == []


@pytest.mark.parametrize("make", [padding, padding1])
def test_padding_dimension_count(make):
    # DirectML refused DimensionCount 2 for 4- and 5-dimensional tensors (gap_factory_*_rank_default, _rank_max).
    op = make((1,), (1,), [0], [0]).OPERATOR_TYPE
    assert messages(make((1, 1, 1, 1), (1, 1, 1, 1), [1, 1], [1, 1])) == [
        f"{op}.DimensionCount: 2 (the length of StartPadding and EndPadding) does not match InputTensor's "
        "DimensionCount 4; they must be equal.",
    ]


@pytest.mark.parametrize("make", [padding, padding1])
def test_padding_output_sizes(make):
    op = make((1,), (1,), [0], [0]).OPERATOR_TYPE
    assert messages(make((1, 1, 4, 4), (1, 1, 8, 9), [0, 0, 1, 2], [0, 0, 3, 4])) == [
        f"{op}.OutputTensor: Sizes [1, 1, 8, 9] do not match InputTensor.Sizes + StartPadding + EndPadding = "
        "[1, 1, 8, 10].",
    ]


def test_padding1_value_data_type():
    assert messages(padding1((1, 2), (3, 4), [1, 1], [1, 1], "INT32", "FLOAT32")) == [
        "PADDING1.PaddingValueDataType: FLOAT32 does not match OutputTensor's DataType INT32; they must be equal.",
    ]


# ---------------------------------------------------------------- TILE

def tile(x, y, repeats):
    return dmlops.Tile(input_tensor=t(*x), output_tensor=t(*y), repeats=repeats)


def test_tile_valid():
    assert messages(tile((1, 1, 2, 3), (1, 1, 6, 9), [1, 1, 3, 3])) == []  # docs example
    assert messages(tile((1, 2, 3, 2), (2, 2, 6, 6), [2, 1, 2, 3])) == []


def test_tile_repeats_count():
    # DirectML refused RepeatsCount 2 for a 4-dimensional input (vector gap_factory_tier_1_0_dt_0_rank_default).
    assert messages(tile((1, 1, 1, 1), (1, 1, 1, 1), [1, 1])) == [
        "TILE.RepeatsCount: 2 (the length of Repeats) does not match InputTensor's DimensionCount 4; "
        "they must be equal.",
    ]


def test_tile_repeats_positive():
    assert messages(tile((1, 1, 2, 3), (1, 1, 0, 3), [1, 1, 0, 1])) == [
        "TILE.OutputTensor: Sizes [1, 1, 0, 3] contain 0; every size must be at least 1.",
        "TILE.Repeats[2]: 0 is not allowed (allowed: 1 or more; each value is a number of copies).",
    ]


def test_tile_output():
    assert messages(tile((1, 1, 2, 3), (1, 1, 6, 6), [1, 1, 3, 3])) == [
        "TILE.OutputTensor: Sizes [1, 1, 6, 6] do not match InputTensor.Sizes * Repeats = [1, 1, 6, 9].",
    ]
    assert messages(tile((1, 1, 2, 3), (1, 6, 9), [1, 1, 3, 3])) == [
        "TILE.OutputTensor: DimensionCount 3 does not match InputTensor's DimensionCount 4; they must be equal.",
    ]


# ---------------------------------------------------------------- GATHER

def gather(x, i, y, axis, index_dims):
    return dmlops.Gather(input_tensor=t(*x), indices_tensor=u(*i), output_tensor=t(*y), axis=axis,
                         index_dimensions=index_dims)


GATHER_FORMULA = ("{1..., InputTensor.Sizes[0 .. Axis] without leading 1s, IndicesTensor.Sizes[-IndexDimensions ..], "
                  "InputTensor.Sizes[Axis + 1 ..]}")


@pytest.mark.parametrize("desc", [
    gather((4,), (5,), (5,), 0, 1),  # docs example 1 (IndexDimensions = DimensionCount)
    gather((3, 2), (1, 4), (4, 2), 0, 1),  # docs example 2
    gather((3, 2), (1, 2), (3, 2), 1, 1),  # docs example 3, with the IndexDimensions its Sizes describe
    gather((1, 3, 3), (1, 1, 2), (3, 1, 2), 2, 2),  # docs example 4
    gather((1, 3, 2), (1, 2, 2), (2, 2, 2), 1, 2),  # docs example 5
    gather((2, 3, 4, 5), (1, 1, 1, 3), (2, 3, 3, 5), 2, 1),  # DirectML vectors
    gather((1, 3, 4, 5), (1, 1, 2, 3), (2, 3, 4, 5), 1, 2),
    gather((1, 3, 4, 5), (1, 1, 1, 1), (1, 1, 4, 5), 1, 0),  # a scalar index
])
def test_gather_valid(desc):
    assert messages(desc) == []


def test_gather_axis():
    # DirectML refused Axis 1 of a 1-dimensional input (vector gap_factory_tier_3_0_dt_0_rank_min).
    assert messages(gather((4,), (4,), (4,), 1, 1)) == [
        "GATHER.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]


def test_gather_index_dimensions():
    assert messages(gather((2, 3), (1, 2), (2, 2), 1, 3)) == [
        "GATHER.IndexDimensions: 3 is out of range (allowed: 0 to 2, IndicesTensor's DimensionCount is 2).",
    ]
    assert messages(gather((2, 3, 4, 5), (2, 1, 1, 3), (2, 3, 3, 5), 2, 1)) == [
        "GATHER.IndicesTensor: Sizes [2, 1, 1, 3]: dimension 0 is 2; the dimensions before the last "
        "IndexDimensions = 1 must be 1.",
    ]


def test_gather_output():
    # DirectML refused {1, 1, 1, 2} (vector gap_factory_tier_1_0_dt_0_rank_default_output_sizes_...).
    assert messages(gather((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 2), 1, 1)) == [
        f"GATHER.OutputTensor: Sizes [1, 1, 1, 2] do not match {GATHER_FORMULA} = [1, 1, 1, 1].",
    ]
    assert messages(gather((1, 3, 4, 5), (1, 1, 2, 3), (1, 3, 4, 5), 1, 2)) == [
        f"GATHER.OutputTensor: Sizes [1, 3, 4, 5] do not match {GATHER_FORMULA} = [2, 3, 4, 5].",
    ]


def test_gather_relevant_dimensions_must_fit():
    # The original rank of InputTensor (4) + IndexDimensions (2) - 1 = 5 > DimensionCount 4.
    assert messages(gather((2, 3, 4, 5), (1, 1, 2, 3), (2, 3, 4, 5), 1, 2)) == [
        f"GATHER.OutputTensor: 4 dimensions cannot hold the 5 relevant dimensions of {GATHER_FORMULA} = "
        "[2, 2, 3, 4, 5] (allowed: at least 5).",
    ]


# ---------------------------------------------------------------- GATHER_ELEMENTS, SCATTER_ELEMENTS

def gather_elements(x, i, y, axis):
    return dmlops.GatherElements(input_tensor=t(*x), indices_tensor=u(*i), output_tensor=t(*y), axis=axis)


def scatter_elements(x, i, upd, y, axis):
    return dmlops.ScatterElements(input_tensor=t(*x), indices_tensor=u(*i), updates_tensor=t(*upd),
                                  output_tensor=t(*y), axis=axis)


def test_gather_elements_valid():
    assert messages(gather_elements((3, 3), (2, 3), (2, 3), 0)) == []  # docs example
    assert messages(gather_elements((2, 3, 4, 5), (2, 3, 2, 5), (2, 3, 2, 5), 2)) == []
    assert messages(gather_elements((2, 3, 4, 5), (2, 3, 7, 5), (2, 3, 7, 5), 2)) == []  # any size along Axis


def test_gather_elements_rules():
    assert messages(gather_elements((3,), (3,), (3,), 1)) == [
        "GATHER_ELEMENTS.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]
    assert messages(gather_elements((2, 3, 4, 5), (2, 3, 2, 4), (2, 3, 2, 4), 2)) == [
        "GATHER_ELEMENTS.IndicesTensor: Sizes [2, 3, 2, 4] must match InputTensor Sizes [2, 3, 4, 5] in every "
        "dimension but Axis 2: dimension 3 is 4 (expected 5).",
    ]
    # DirectML refused {1, 1, 1, 2} (vector gap_factory_tier_2_1_dt_0_rank_default_output_sizes_...).
    assert messages(gather_elements((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 2), 1)) == [
        "GATHER_ELEMENTS.OutputTensor: Sizes [1, 1, 1, 2] do not match IndicesTensor.Sizes = [1, 1, 1, 1].",
    ]


def test_scatter_elements_valid():
    assert messages(scatter_elements((2, 3, 4, 5), (2, 3, 2, 5), (2, 3, 2, 5), (2, 3, 4, 5), 2)) == []
    assert messages(scatter_elements((3, 3), (2, 3), (2, 3), (3, 3), 0)) == []


def test_scatter_elements_rules():
    assert messages(scatter_elements((3,), (3,), (3,), (3,), 1)) == [
        "SCATTER_ELEMENTS.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]
    assert messages(scatter_elements((2, 3, 4, 5), (1, 3, 2, 5), (1, 3, 2, 5), (2, 3, 4, 5), 2)) == [
        "SCATTER_ELEMENTS.IndicesTensor: Sizes [1, 3, 2, 5] must match InputTensor Sizes [2, 3, 4, 5] in every "
        "dimension but Axis 2: dimension 0 is 1 (expected 2).",
    ]
    assert messages(scatter_elements((2, 3, 4, 5), (2, 3, 2, 5), (2, 3, 3, 5), (2, 3, 4, 5), 2)) == [
        "SCATTER_ELEMENTS.UpdatesTensor: Sizes [2, 3, 3, 5] do not match IndicesTensor.Sizes = [2, 3, 2, 5].",
    ]
    # DirectML refused {1, 1, 1, 2} (vector gap_factory_tier_2_0_dt_0_rank_default_output_sizes_...).
    assert messages(scatter_elements((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 2), 1)) == [
        "SCATTER_ELEMENTS.OutputTensor: Sizes [1, 1, 1, 2] do not match InputTensor.Sizes = [1, 1, 1, 1].",
    ]


# ---------------------------------------------------------------- GATHER_ND, GATHER_ND1, SCATTER_ND

def gather_nd(x, i, y, input_dims, indices_dims, batch=None):
    fields = dict(input_tensor=t(*x), indices_tensor=u(*i), output_tensor=t(*y), input_dimension_count=input_dims,
                  indices_dimension_count=indices_dims)
    if batch is None:
        return dmlops.GatherNd(**fields)
    return dmlops.GatherNd1(batch_dimension_count=batch, **fields)


def scatter_nd(x, i, upd, y, input_dims, indices_dims):
    return dmlops.ScatterNd(input_tensor=t(*x), indices_tensor=u(*i), updates_tensor=t(*upd), output_tensor=t(*y),
                            input_dimension_count=input_dims, indices_dimension_count=indices_dims)


ND_FORMULA = ("{1..., IndicesTensor.Sizes[-IndicesDimensionCount .. -1], "
              "InputTensor.Sizes[-InputDimensionCount + indexTupleSize ..]}")
ND1_FORMULA = ("{1..., IndicesTensor.Sizes[-IndicesDimensionCount .. -1], "
               "InputTensor.Sizes[-InputDimensionCount + BatchDimensionCount + indexTupleSize ..]}")


@pytest.mark.parametrize("batch", [None, 0])
@pytest.mark.parametrize("x, i, y, input_dims, indices_dims", [
    ((2, 2), (2, 1), (2, 2), 2, 2),  # docs example 1
    ((1, 2, 2, 2), (1, 1, 2, 2), (1, 1, 2, 2), 3, 2),  # docs example 2
    ((3, 4, 5, 6, 7), (1, 1, 1, 2, 3), (1, 1, 2, 6, 7), 5, 3),  # the OutputTensor example
    ((1, 1, 4, 5), (1, 1, 3, 2), (1, 1, 1, 3), 2, 2),  # DirectML vectors
    ((1, 3, 4, 5), (1, 1, 2, 1), (1, 2, 4, 5), 3, 2),
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), 1, 1),
])
def test_gather_nd_valid(x, i, y, input_dims, indices_dims, batch):
    assert messages(gather_nd(x, i, y, input_dims, indices_dims, batch)) == []


def test_gather_nd1_batch_valid():
    assert messages(gather_nd((1, 3, 2, 2), (1, 3, 2, 2), (1, 1, 3, 2), 3, 3, 1)) == []  # docs example 2
    assert messages(gather_nd((1, 3, 4, 5), (1, 3, 2, 1), (1, 3, 2, 5), 3, 3, 1)) == []  # DirectML vector


@pytest.mark.parametrize("batch", [None, 0])
def test_gather_nd_dimension_counts(batch):
    op = "GATHER_ND" if batch is None else "GATHER_ND1"
    assert messages(gather_nd((2, 2), (2, 1), (2, 2), 0, 3, batch)) == [
        f"{op}.InputDimensionCount: 0 is out of range (allowed: 1 to 2, InputTensor's DimensionCount is 2).",
        f"{op}.IndicesDimensionCount: 3 is out of range (allowed: 1 to 2, IndicesTensor's DimensionCount is 2).",
    ]
    assert messages(gather_nd((2, 4, 5), (2, 3, 1), (2, 3, 5), 2, 2, batch)) == [
        f"{op}.InputTensor: Sizes [2, 4, 5]: dimension 0 is 2; the dimensions before the last "
        "InputDimensionCount = 2 must be 1.",
        f"{op}.IndicesTensor: Sizes [2, 3, 1]: dimension 0 is 2; the dimensions before the last "
        "IndicesDimensionCount = 2 must be 1.",
    ]


@pytest.mark.parametrize("batch", [None, 0])
def test_gather_nd_index_tuple(batch):
    op, what = ("GATHER_ND", "InputDimensionCount") if batch is None else (
        "GATHER_ND1", "InputDimensionCount - BatchDimensionCount")
    assert messages(gather_nd((1, 4, 5), (1, 2, 3), (1, 1, 2), 2, 2, batch)) == [
        f"{op}.IndicesTensor: the index tuple size (the last dimension of Sizes) 3 exceeds {what} = 2 "
        "(allowed: 1 to 2).",
    ]


@pytest.mark.parametrize("batch", [None, 0])
def test_gather_nd_output(batch):
    op, formula = ("GATHER_ND", ND_FORMULA) if batch is None else ("GATHER_ND1", ND1_FORMULA)
    assert messages(gather_nd((1, 1, 4, 5), (1, 1, 3, 2), (1, 1, 3, 1), 2, 2, batch)) == [
        f"{op}.OutputTensor: Sizes [1, 1, 3, 1] do not match {formula} = [1, 1, 1, 3].",
    ]
    assert messages(gather_nd((4, 5), (3, 1), (3, 5), 2, 2, batch)) == []
    assert messages(gather_nd((2, 3, 4, 5), (2, 3, 4, 1), (2, 3, 4, 5), 4, 4, batch)) == [
        f"{op}.OutputTensor: 4 dimensions cannot hold the 6 relevant dimensions of {formula} = "
        "[2, 3, 4, 3, 4, 5] (allowed: at least 6).",
    ]


def test_gather_nd1_batch_dimension_count():
    # DirectML refused BatchDimensionCount 1 with both counts 1 (vector gap_factory_tier_3_0_dt_0_rank_default).
    assert messages(gather_nd((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), 1, 1, 1)) == [
        "GATHER_ND1.BatchDimensionCount: 1 is not less than InputDimensionCount 1 (allowed: 0 to 0).",
        "GATHER_ND1.BatchDimensionCount: 1 is not less than IndicesDimensionCount 1 (allowed: 0 to 0).",
    ]
    assert messages(gather_nd((1, 3, 2, 2), (1, 4, 2, 2), (1, 1, 4, 2), 3, 3, 1)) == [
        "GATHER_ND1.IndicesTensor: batch Sizes [4] (the first BatchDimensionCount = 1 meaningful dimensions) do not "
        "match InputTensor's [3]; they must be equal.",
    ]
    assert messages(gather_nd((1, 3, 2, 2), (1, 3, 2, 3), (1, 1, 3, 2), 3, 3, 1)) == [
        "GATHER_ND1.IndicesTensor: the index tuple size (the last dimension of Sizes) 3 exceeds "
        "InputDimensionCount - BatchDimensionCount = 2 (allowed: 1 to 2).",
    ]
    assert messages(gather_nd((1, 3, 2, 2), (1, 3, 2, 2), (1, 3, 2, 1), 3, 3, 1)) == [
        f"GATHER_ND1.OutputTensor: Sizes [1, 3, 2, 1] do not match {ND1_FORMULA} = [1, 1, 3, 2].",
    ]


def test_scatter_nd_valid():
    assert messages(scatter_nd((3, 4, 5, 6, 7), (1, 1, 1, 2, 3), (1, 1, 2, 6, 7), (3, 4, 5, 6, 7), 5, 3)) == []
    assert messages(scatter_nd((1, 1, 4, 5), (1, 1, 3, 1), (1, 1, 3, 5), (1, 1, 4, 5), 2, 2)) == []  # vectors
    assert messages(scatter_nd((1, 1, 4, 5), (1, 1, 4, 2), (1, 1, 1, 4), (1, 1, 4, 5), 2, 2)) == []
    assert messages(scatter_nd((2, 4, 5), (1, 3, 3), (1, 1, 3), (2, 4, 5), 3, 2)) == []  # counts = DimensionCount


def test_scatter_nd_rules():
    formula = ("{1..., IndicesTensor.Sizes[-IndicesDimensionCount .. -1], "
               "InputTensor.Sizes[-InputDimensionCount + indexTupleSize ..]}")
    assert messages(scatter_nd((1, 1, 4, 5), (1, 1, 3, 1), (1, 1, 3, 4), (1, 1, 4, 5), 2, 2)) == [
        f"SCATTER_ND.UpdatesTensor: Sizes [1, 1, 3, 4] do not match {formula} = [1, 1, 3, 5].",
    ]
    assert messages(scatter_nd((1, 1, 4, 5), (1, 1, 3, 3), (1, 1, 1, 3), (1, 1, 4, 5), 2, 2)) == [
        "SCATTER_ND.IndicesTensor: the index tuple size (the last dimension of Sizes) 3 exceeds "
        "InputDimensionCount = 2 (allowed: 1 to 2).",
    ]
    assert messages(scatter_nd((1, 1, 4, 5), (1, 1, 3, 1), (1, 1, 3, 5), (1, 1, 4, 5), 5, 2)) == [
        "SCATTER_ND.InputDimensionCount: 5 is out of range (allowed: 1 to 4, InputTensor's DimensionCount is 4).",
    ]
    # DirectML refused {1, 1, 1, 2} (vector gap_factory_tier_2_1_dt_0_rank_default_output_sizes_...).
    assert messages(scatter_nd((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 2), 1, 1)) == [
        "SCATTER_ND.OutputTensor: Sizes [1, 1, 1, 2] do not match InputTensor.Sizes = [1, 1, 1, 1].",
    ]


# ---------------------------------------------------------------- ONE_HOT

def one_hot(i, v, y, axis):
    return dmlops.OneHot(indices_tensor=u(*i), values_tensor=t(*v), output_tensor=t(*y), axis=axis)


def test_one_hot_valid():
    assert messages(one_hot((2, 3, 4, 1), (1, 1, 1, 2), (2, 3, 4, 5), 3)) == []
    assert messages(one_hot((2, 1, 4, 5), (2, 1, 1, 3), (2, 3, 4, 5), 1)) == []  # any ValuesTensor of 2+ elements


def test_one_hot_rules():
    assert messages(one_hot((2, 3, 4, 1), (1, 1, 1, 2), (2, 3, 4, 5), 4)) == [
        "ONE_HOT.Axis: 4 is out of range for a 4-dimensional IndicesTensor (allowed: 0 to 3).",
    ]
    assert messages(one_hot((2, 3, 4, 2), (1, 1, 1, 2), (2, 3, 4, 5), 3)) == [
        "ONE_HOT.IndicesTensor: Sizes[3] is 2; it must be 1 along Axis 3.",
    ]
    assert messages(one_hot((2, 3, 4, 1), (1, 1, 1, 2), (2, 3, 5, 5), 3)) == [
        "ONE_HOT.OutputTensor: Sizes [2, 3, 5, 5] must match IndicesTensor Sizes [2, 3, 4, 1] in every dimension "
        "but Axis 3: dimension 2 is 5 (expected 4).",
    ]
    # DirectML refused a one-element ValuesTensor (vector gap_factory_tier_2_0_dt_0_rank_default).
    assert messages(one_hot((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), 1)) == [
        "ONE_HOT.ValuesTensor: Sizes [1, 1, 1, 1] hold 1 element(s); at least 2 are required (the OffValue and the "
        "OnValue).",
    ]


# ---------------------------------------------------------------- SPACE_TO_DEPTH, DEPTH_TO_SPACE (and their 1s)

def space_depth(cls, x, y, block):
    fields = dict(input_tensor=t(*x), output_tensor=t(*y), block_size=block)
    if cls in (dmlops.SpaceToDepth1, dmlops.DepthToSpace1):
        fields["order"] = "COLUMN_ROW_DEPTH"
    return cls(**fields)


S2D = [dmlops.SpaceToDepth, dmlops.SpaceToDepth1]
D2S = [dmlops.DepthToSpace, dmlops.DepthToSpace1]


@pytest.mark.parametrize("cls", S2D)
def test_space_to_depth(cls):
    op = cls.OPERATOR_TYPE
    assert messages(space_depth(cls, (1, 2, 4, 6), (1, 8, 2, 3), 2)) == []  # docs example
    assert messages(space_depth(cls, (1, 1, 1, 1), (1, 1, 1, 1), 1)) == []
    assert messages(space_depth(cls, (1, 2, 4, 6), (1, 2, 4, 6), 0)) == [
        f"{op}.BlockSize: 0 is not allowed (allowed: 1 or more).",
    ]
    assert messages(space_depth(cls, (1, 2, 5, 7), (1, 8, 2, 3), 2)) == [
        f"{op}.InputTensor: Height (Sizes[2]) 5 is not divisible by BlockSize 2.",
        f"{op}.InputTensor: Width (Sizes[3]) 7 is not divisible by BlockSize 2.",
    ]
    # The page's text gives DEPTH_TO_SPACE's Sizes; its example and DirectML follow C * b * b, H / b, W / b.
    assert messages(space_depth(cls, (1, 8, 4, 6), (1, 2, 8, 12), 2)) == [
        f"{op}.OutputTensor: Sizes [1, 2, 8, 12] do not match {{Batch, Channels * BlockSize * BlockSize, "
        "Height / BlockSize, Width / BlockSize} = [1, 32, 2, 3].",
    ]
    assert messages(space_depth(cls, (1, 8, 2, 4), (1, 2, 4, 6), 2)) == [
        f"{op}.OutputTensor: Sizes [1, 2, 4, 6] do not match {{Batch, Channels * BlockSize * BlockSize, "
        "Height / BlockSize, Width / BlockSize} = [1, 32, 1, 2].",
    ]


@pytest.mark.parametrize("cls", D2S)
def test_depth_to_space(cls):
    op = cls.OPERATOR_TYPE
    assert messages(space_depth(cls, (1, 8, 2, 3), (1, 2, 4, 6), 2)) == []  # docs example
    assert messages(space_depth(cls, (1, 8, 2, 3), (1, 8, 2, 3), 0)) == [
        f"{op}.BlockSize: 0 is not allowed (allowed: 1 or more).",
    ]
    assert messages(space_depth(cls, (1, 6, 2, 3), (1, 1, 4, 6), 2)) == [
        f"{op}.InputTensor: InputChannelCount (Sizes[1]) 6 is not divisible by BlockSize * BlockSize = 4.",
    ]
    # DirectML refused {1, 1, 1, 2} from {1, 1, 1, 1} (vector gap_factory_tier_1_0_dt_0_rank_default_output_sizes_...).
    assert messages(space_depth(cls, (1, 1, 1, 1), (1, 1, 1, 2), 1)) == [
        f"{op}.OutputTensor: Sizes [1, 1, 1, 2] do not match {{BatchCount, InputChannelCount / (BlockSize * "
        "BlockSize), InputHeight * BlockSize, InputWidth * BlockSize} = [1, 1, 1, 1].",
    ]


# ---------------------------------------------------------------- REVERSE_SUBSEQUENCES

def reverse(x, lengths, y, axis):
    return dmlops.ReverseSubsequences(input_tensor=t(*x), sequence_lengths_tensor=u(*lengths), output_tensor=t(*y),
                                      axis=axis)


def test_reverse_subsequences():
    assert messages(reverse((2, 3, 4, 5), (1, 3, 4, 5), (2, 3, 4, 5), 0)) == []
    assert messages(reverse((2, 3, 4, 5), (2, 3, 1, 5), (2, 3, 4, 5), 2)) == []
    # DirectML refused Axis 1 of 1-dimensional tensors (vector gap_factory_tier_4_0_dt_0_rank_min).
    assert messages(reverse((3,), (1,), (3,), 1)) == [
        "REVERSE_SUBSEQUENCES.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]
    assert messages(reverse((2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5), 2)) == [
        "REVERSE_SUBSEQUENCES.SequenceLengthsTensor: Sizes [2, 3, 4, 5] do not match InputTensor Sizes with "
        "Sizes[2] = 1 = [2, 3, 1, 5].",
    ]
    # DirectML refused {1, 1, 1, 2} (vector gap_factory_tier_2_1_dt_0_rank_default_output_sizes_...).
    assert messages(reverse((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 2), 1)) == [
        "REVERSE_SUBSEQUENCES.OutputTensor: Sizes [1, 1, 1, 2] do not match InputTensor.Sizes = [1, 1, 1, 1].",
    ]


# ---------------------------------------------------------------- SLICE_GRAD

def slice_grad(dy, dx, offsets, sizes, strides):
    return dmlops.SliceGrad(input_gradient_tensor=t(*dy), output_gradient_tensor=t(*dx), input_window_offsets=offsets,
                            input_window_sizes=sizes, input_window_strides=strides)


@pytest.mark.parametrize("desc", [
    slice_grad((2, 2), (4, 4), [0, 0], [4, 4], [2, 2]),  # the docs' example
    slice_grad((2, 3, 4, 5), (2, 3, 4, 7), [0, 0, 0, 1], [2, 3, 4, 5], [1, 1, -1, -1]),  # DirectML vectors
    # DirectML ran 5 gradient rows from a window of 4 (vector float32_offsets_strides): no MaxCopiedElements bound.
    slice_grad((2, 3, 5, 4), (2, 3, 6, 8), [0, 0, 1, 0], [2, 3, 4, 8], [1, 1, 1, 2]),
])
def test_slice_grad_valid(desc):
    assert messages(desc) == []


def test_slice_grad_dimension_count():
    # DirectML refused DimensionCount 2 for 4-dimensional tensors (vector gap_factory_tier_3_0_dt_0_rank_default).
    assert messages(slice_grad((1, 1, 1, 1), (1, 1, 1, 1), [1, 1], [1, 1], [1, 1])) == [
        "SLICE_GRAD.DimensionCount: 2 (the length of InputWindowOffsets, InputWindowSizes and InputWindowStrides) "
        "does not match InputGradientTensor's DimensionCount 4; they must be equal.",
    ]


def test_slice_grad_window():
    assert messages(slice_grad((2, 2), (4, 4), [0, 0], [0, 4], [0, 2])) == [
        "SLICE_GRAD.InputWindowStrides[0]: 0 is not allowed (allowed: a positive or negative stride; this operator "
        "requires non-zero strides).",
        "SLICE_GRAD.InputWindowSizes[0]: 0 is not allowed (allowed: 1 or more; the input window mustn't be empty).",
    ]
    assert messages(slice_grad((2, 2), (4, 4), [1, 0], [4, 4], [2, 2])) == [
        "SLICE_GRAD: dimension 0: InputWindowOffsets[0] + InputWindowSizes[0] = 1 + 4 = 5 exceeds "
        "OutputGradientTensor's Sizes[0] = 4 (allowed: up to 4).",
    ]


def test_slice_grad_elements_land_inside_the_output_gradient():
    assert messages(slice_grad((3, 2), (4, 4), [0, 0], [4, 4], [2, 2])) == [
        "SLICE_GRAD.InputGradientTensor: Sizes[0] = 3 elements from CopyStart 0 at stride 2 reach index 4, outside "
        "OutputGradientTensor's Sizes[0] = 4 (allowed: 0 to 3).",
    ]
    assert messages(slice_grad((2, 3), (4, 4), [0, 1], [4, 2], [1, -1])) == []  # CopyStart 2, then 1 and 0
    assert messages(slice_grad((2, 4), (4, 4), [0, 1], [4, 2], [1, -1])) == [
        "SLICE_GRAD.InputGradientTensor: Sizes[1] = 4 elements from CopyStart 2 at stride -1 reach index -1, outside "
        "OutputGradientTensor's Sizes[1] = 4 (allowed: 0 to 3).",
    ]


# ---------------------------------------------------------------- DIAGONAL_MATRIX(1), FILL_VALUE_SEQUENCE

def test_diagonal_matrix_has_no_shape_rule():
    for sizes, offset in [((1, 1, 4, 5), 2), ((1, 1, 5, 4), -7), ((3, 3), 0)]:
        assert messages(dmlops.DiagonalMatrix(output_tensor=t(*sizes), offset=offset, value=2.5)) == []


def diagonal_matrix1(x, y, dt="FLOAT32", value_type="FLOAT32"):
    return dmlops.DiagonalMatrix1(input_tensor=None if x is None else t(*x, dt=dt), output_tensor=t(*y, dt=dt),
                                  value_data_type=value_type, value=3, diagonal_fill_begin=1, diagonal_fill_end=-1)


def test_diagonal_matrix1():
    assert messages(diagonal_matrix1(None, (1, 1, 4, 5))) == []
    assert messages(diagonal_matrix1((1, 1, 4, 5), (1, 1, 4, 5), "INT32", "INT32")) == []
    # DirectML refused both (vectors gap_factory_tier_5_1_dt_2_rank_default, ..._dt_1_rank_default_output_sizes_...).
    assert messages(diagonal_matrix1((1, 1, 1, 1), (1, 1, 1, 1), "FLOAT16", "FLOAT32")) == [
        "DIAGONAL_MATRIX1.ValueDataType: FLOAT32 does not match OutputTensor's DataType FLOAT16; they must be equal.",
    ]
    assert messages(diagonal_matrix1((1, 1, 1, 1), (1, 1, 1, 2))) == [
        "DIAGONAL_MATRIX1.OutputTensor: Sizes [1, 1, 1, 2] do not match InputTensor.Sizes = [1, 1, 1, 1].",
    ]


def test_fill_value_sequence():
    def fill(dt, value_type):
        return dmlops.FillValueSequence(output_tensor=t(3, 4, 5, dt=dt), value_data_type=value_type, value_start=1,
                                        value_delta=2)

    assert messages(fill("UINT8", "UINT8")) == []
    # DirectML refused it (vector gap_factory_tier_2_1_dt_1_rank_default).
    assert messages(fill("FLOAT16", "FLOAT32")) == [
        "FILL_VALUE_SEQUENCE.ValueDataType: FLOAT32 does not match OutputTensor's DataType FLOAT16; "
        "they must be equal.",
    ]


# ---------------------------------------------------------------- NONZERO_COORDINATES

def nonzero(x, count, coordinates):
    return dmlops.NonzeroCoordinates(input_tensor=t(*x), output_count_tensor=u(*count),
                                     output_coordinates_tensor=u(*coordinates))


@pytest.mark.parametrize("desc", [
    nonzero((1, 1, 12, 5), (1, 1, 1, 1), (1, 1, 60, 2)),  # the docs' example: N from 2 (effective rank) ...
    nonzero((1, 1, 12, 5), (1, 1, 1, 1), (1, 1, 60, 4)),  # ... to 4 (DimensionCount)
    nonzero((1, 1, 4, 5), (1, 1, 1, 1), (1, 1, 20, 4)),  # DirectML vectors
    nonzero((2, 3), (1,), (6, 2)),
    nonzero((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)),  # effective rank 0
])
def test_nonzero_coordinates_valid(desc):
    assert messages(desc) == []


def test_nonzero_coordinates_rules():
    assert messages(nonzero((1, 1, 12, 5), (1, 1, 1, 2), (2, 1, 60, 2))) == [
        "NONZERO_COORDINATES.OutputCountTensor: Sizes [1, 1, 1, 2] must all be 1 (a scalar holding the count).",
        "NONZERO_COORDINATES.OutputCoordinatesTensor: Sizes [2, 1, 60, 2]: dimension 0 is 2; the dimensions before "
        "the last two (M and N) must be 1.",
    ]
    assert messages(nonzero((1, 1, 12, 5), (1, 1, 1, 1), (1, 1, 59, 2))) == [
        "NONZERO_COORDINATES.OutputCoordinatesTensor: M (Sizes[2]) is 59; it must be InputTensor's element count 60.",
    ]
    assert messages(nonzero((1, 1, 12, 5), (1, 1, 1, 1), (1, 1, 60, 1))) == [
        "NONZERO_COORDINATES.OutputCoordinatesTensor: N (Sizes[3]) is 1; it must be at least InputTensor's "
        "effective rank (2) and at most its DimensionCount (4).",
    ]
    assert messages(nonzero((1, 1, 12, 5), (1, 1, 1, 1), (1, 1, 60, 5))) == [
        "NONZERO_COORDINATES.OutputCoordinatesTensor: N (Sizes[3]) is 5; it must be at least InputTensor's "
        "effective rank (2) and at most its DimensionCount (4).",
    ]


# ---------------------------------------------------------------- TOP_K, TOP_K1

def top_k(cls, x, values, indices, axis, k):
    fields = dict(input_tensor=t(*x), output_value_tensor=t(*values), output_index_tensor=u(*indices), axis=axis, k=k)
    if cls is dmlops.TopK1:
        fields["axis_direction"] = "DECREASING"
    return cls(**fields)


@pytest.mark.parametrize("cls", [dmlops.TopK, dmlops.TopK1])
def test_top_k_valid(cls):
    assert messages(top_k(cls, (2, 3, 4, 5), (2, 3, 4, 3), (2, 3, 4, 3), 3, 3)) == []
    assert messages(top_k(cls, (6,), (3,), (3,), 0, 3)) == []
    # K equal to the axis size: the page says "less than", DirectML runs it.
    assert messages(top_k(cls, (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), 1, 1)) == []
    assert messages(top_k(cls, (2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5), 3, 5)) == []


@pytest.mark.parametrize("cls", [dmlops.TopK, dmlops.TopK1])
def test_top_k_rules(cls):
    op = cls.OPERATOR_TYPE
    # DirectML refused Axis 1 of 1-dimensional tensors (vector gap_factory_tier_3_1_dt_0_rank_min).
    assert messages(top_k(cls, (6,), (6,), (6,), 1, 1)) == [
        f"{op}.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]
    assert messages(top_k(cls, (2, 3, 4, 5), (2, 3, 4, 0), (2, 3, 4, 0), 3, 0)) == [
        f"{op}.OutputValueTensor: Sizes [2, 3, 4, 0] contain 0; every size must be at least 1.",
        f"{op}.OutputIndexTensor: Sizes [2, 3, 4, 0] contain 0; every size must be at least 1.",
        f"{op}.K: 0 is not allowed (allowed: 1 or more).",
    ]
    assert messages(top_k(cls, (2, 3, 4, 5), (2, 3, 4, 6), (2, 3, 4, 6), 3, 6)) == [
        f"{op}.K: 6 exceeds InputTensor's Sizes[3] = 5, the number of elements along Axis (allowed: 1 to 5).",
    ]
    # DirectML refused {1, 1, 1, 2} (vectors gap_factory_tier_2_*_dt_0_rank_default_output_sizes_...).
    assert messages(top_k(cls, (2, 3, 4, 5), (2, 2, 4, 6), (2, 3, 4, 5), 1, 2)) == [
        f"{op}.OutputValueTensor: Sizes [2, 2, 4, 6] do not match InputTensor Sizes with Sizes[1] = K = [2, 2, 4, 5].",
        f"{op}.OutputIndexTensor: Sizes [2, 3, 4, 5] do not match InputTensor Sizes with Sizes[1] = K = [2, 2, 4, 5].",
    ]


# ---------------------------------------------------------------- ARGMIN, ARGMAX

def arg(cls, x, y, axes):
    return cls(input_tensor=t(*x), output_tensor=u(*y), axes=axes, axis_direction="INCREASING")


@pytest.mark.parametrize("cls", [dmlops.Argmin, dmlops.Argmax])
def test_arg_valid(cls):
    assert messages(arg(cls, (2, 3, 4, 5), (2, 3, 4, 1), [3])) == []
    assert messages(arg(cls, (2, 3, 4, 5), (2, 1, 1, 5), [1, 2])) == []
    assert messages(arg(cls, (3, 3), (1, 1), [0, 1])) == []  # the docs' example 3
    assert messages(arg(cls, (1, 1, 1, 1), (1, 1, 1, 1), [1, 1])) == []  # DirectML runs a repeated axis


@pytest.mark.parametrize("cls", [dmlops.Argmin, dmlops.Argmax])
def test_arg_rules(cls):
    op = cls.OPERATOR_TYPE
    # DirectML refused these (vectors gap_factory_tier_3_0_dt_0_rank_min, ..._rank_default_output_sizes_...).
    assert messages(arg(cls, (1,), (1,), [1, 1])) == [
        f"{op}.Axes[0]: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
        f"{op}.Axes[1]: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]
    assert messages(arg(cls, (2, 3, 4, 5), (2, 3, 4, 5), [0, 3])) == [
        f"{op}.OutputTensor: Sizes [2, 3, 4, 5] do not match InputTensor Sizes with Axes {{0, 3}} set to 1 = "
        "[1, 3, 4, 1].",
    ]


# ---------------------------------------------------------------- CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT

@pytest.mark.parametrize("cls, flag", [(dmlops.CumulativeSummation, "has_exclusive_sum"),
                                       (dmlops.CumulativeProduct, "has_exclusive_product")])
def test_cumulative(cls, flag):
    def make(x, axis):
        return cls(input_tensor=t(*x), output_tensor=t(*x), axis=axis, axis_direction="DECREASING", **{flag: True})

    assert messages(make((2, 3, 4, 5), 3)) == []
    # DirectML refused Axis 1 of 1-dimensional tensors (vector gap_factory_tier_4_0_dt_0_rank_min).
    assert messages(make((5,), 1)) == [
        f"{cls.OPERATOR_TYPE}.Axis: 1 is out of range for a 1-dimensional InputTensor (allowed: 0 to 0).",
    ]


# ---------------------------------------------------------------- robustness and hygiene

VALID = {
    "SPLIT": split((2, 3, 4, 5), [(2, 1, 4, 5), (2, 2, 4, 5)], 1),
    "PADDING": padding((1, 1, 4, 4), (1, 1, 8, 10), [0, 0, 1, 2], [0, 0, 3, 4]),
    "PADDING1": padding1((1, 1, 4, 4), (1, 1, 8, 10), [0, 0, 1, 2], [0, 0, 3, 4]),
    "TILE": tile((1, 1, 2, 3), (1, 1, 6, 9), [1, 1, 3, 3]),
    "GATHER": gather((1, 3, 4, 5), (1, 1, 2, 3), (2, 3, 4, 5), 1, 2),
    "GATHER_ELEMENTS": gather_elements((2, 3, 4, 5), (2, 3, 2, 5), (2, 3, 2, 5), 2),
    "GATHER_ND": gather_nd((1, 2, 2, 2), (1, 1, 2, 2), (1, 1, 2, 2), 3, 2),
    "GATHER_ND1": gather_nd((1, 3, 2, 2), (1, 3, 2, 2), (1, 1, 3, 2), 3, 3, 1),
    "SCATTER_ELEMENTS": scatter_elements((2, 3, 4, 5), (2, 3, 2, 5), (2, 3, 2, 5), (2, 3, 4, 5), 2),
    "SCATTER_ND": scatter_nd((1, 1, 4, 5), (1, 1, 3, 1), (1, 1, 3, 5), (1, 1, 4, 5), 2, 2),
    "ONE_HOT": one_hot((2, 3, 4, 1), (1, 1, 1, 2), (2, 3, 4, 5), 3),
    "SPACE_TO_DEPTH": space_depth(dmlops.SpaceToDepth, (1, 2, 4, 6), (1, 8, 2, 3), 2),
    "SPACE_TO_DEPTH1": space_depth(dmlops.SpaceToDepth1, (1, 2, 4, 6), (1, 8, 2, 3), 2),
    "DEPTH_TO_SPACE": space_depth(dmlops.DepthToSpace, (1, 8, 2, 3), (1, 2, 4, 6), 2),
    "DEPTH_TO_SPACE1": space_depth(dmlops.DepthToSpace1, (1, 8, 2, 3), (1, 2, 4, 6), 2),
    "REVERSE_SUBSEQUENCES": reverse((2, 3, 4, 5), (2, 3, 1, 5), (2, 3, 4, 5), 2),
    "SLICE_GRAD": slice_grad((2, 3, 4, 5), (2, 3, 4, 7), [0, 0, 0, 1], [2, 3, 4, 5], [1, 1, -1, -1]),
    "DIAGONAL_MATRIX": dmlops.DiagonalMatrix(output_tensor=t(1, 1, 4, 5), offset=1, value=1.0),
    "DIAGONAL_MATRIX1": diagonal_matrix1((1, 1, 4, 5), (1, 1, 4, 5)),
    "FILL_VALUE_SEQUENCE": dmlops.FillValueSequence(output_tensor=t(3, 4), value_data_type="FLOAT32", value_start=0,
                                                    value_delta=1),
    "NONZERO_COORDINATES": nonzero((1, 1, 4, 5), (1, 1, 1, 1), (1, 1, 20, 4)),
    "TOP_K": top_k(dmlops.TopK, (2, 3, 4, 5), (2, 3, 4, 3), (2, 3, 4, 3), 3, 3),
    "TOP_K1": top_k(dmlops.TopK1, (2, 3, 4, 5), (2, 3, 4, 3), (2, 3, 4, 3), 3, 3),
    "ARGMIN": arg(dmlops.Argmin, (2, 3, 4, 5), (2, 1, 1, 5), [1, 2]),
    "ARGMAX": arg(dmlops.Argmax, (2, 3, 4, 5), (2, 1, 1, 5), [1, 2]),
    "CUMULATIVE_SUMMATION": dmlops.CumulativeSummation(input_tensor=t(2, 3), output_tensor=t(2, 3), axis=1,
                                                       axis_direction="INCREASING", has_exclusive_sum=False),
    "CUMULATIVE_PRODUCT": dmlops.CumulativeProduct(input_tensor=t(2, 3), output_tensor=t(2, 3), axis=0,
                                                   axis_direction="INCREASING", has_exclusive_product=False),
}
OURS = sorted(VALID)


@pytest.mark.parametrize("op", OURS)
def test_registered_and_valid(op):
    assert MODULES[op] == op.lower()
    assert module(op).check.__doc__
    assert messages(VALID[op]) == []


@pytest.mark.parametrize("op", OURS)
def test_missing_tensors_never_raise(op):
    assert_missing_tensors_never_raise(VALID[op])


@pytest.mark.parametrize("op", OURS)
@pytest.mark.parametrize("rank", [1, 2, 3, 5, 9])
def test_wrong_ranks_never_raise(op, rank):
    assert_wrong_ranks_never_raise(VALID[op], rank, ("FLOAT32",))