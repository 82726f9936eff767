"""Property tests: TensorDesc sizes against a brute-force oracle, and JSON round-trips."""
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import dmlops
from dmlops import DataType, TensorDesc

sizes_st = st.lists(st.integers(1, 4), min_size=1, max_size=4)
types_st = st.sampled_from([d for d in DataType if d != DataType.UNKNOWN])


@st.composite
def tensors(draw):
    sizes = draw(sizes_st)
    strides = draw(st.one_of(st.none(), st.lists(st.integers(0, 20), min_size=len(sizes), max_size=len(sizes))))
    return TensorDesc(draw(types_st), sizes, strides)


@settings(max_examples=300, deadline=None)
@given(tensors())
def test_minimum_size_covers_every_element_exactly(t):
    strides = t.strides if t.strides is not None else t.packed_strides
    # Oracle: visit every index, find the furthest element, then bytes rounded up to 4 (DMLCalcBufferTensorSize).
    last = max(sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*(range(n) for n in t.sizes)))
    nbytes = -(-(last + 1) * t.data_type.size_in_bits // 8)
    assert t.total_tensor_size_in_bytes == nbytes + (-nbytes % 4)
    assert not [m for rule, m in t.problems(dmlops.FeatureLevel.FL_6_4) if rule == "size"]


@settings(max_examples=200, deadline=None)
@given(tensors(), st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_json_round_trip_of_any_tensor_and_float(t, alpha):
    desc = dmlops.ActivationLeakyRelu(input_tensor=t, output_tensor=t, alpha=alpha)
    assert dmlops.from_json(desc.to_json()) == desc
