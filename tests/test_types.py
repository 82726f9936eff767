"""DataType, FeatureLevel, TensorFlags and TensorDesc (DML_BUFFER_TENSOR_DESC) rules."""
import subprocess
import sys

import numpy as np
import pytest

from dmlops import DataType, DescriptorError, FeatureLevel, TensorDesc, TensorFlags


@pytest.mark.parametrize("text", ["5.1", "5_1", "DML_FEATURE_LEVEL_5_1", "dml_feature_level_5_1", 0x5100, "0x5100"])
def test_feature_level_parses_every_spelling(text):
    assert FeatureLevel.parse(text) is FeatureLevel.FL_5_1


def test_feature_levels_are_ordered_not_compared_as_strings():
    assert FeatureLevel.parse("6.4") > FeatureLevel.parse("5.2") > FeatureLevel.parse("2.1")
    assert FeatureLevel.parse("3.0") > FeatureLevel.parse("2.1")
    assert str(FeatureLevel.FL_4_1) == "DML_FEATURE_LEVEL_4_1" and FeatureLevel.FL_4_1.short == "4.1"


@pytest.mark.parametrize("bad", ["5.3", "7", 0x5300, "", None, 5.1])
def test_feature_level_rejects_unknown(bad):
    with pytest.raises(DescriptorError, match=r"is not a DirectML feature level \(known: 1.0, 2.0,"):
        FeatureLevel.parse(bad)


def test_data_type_numpy_mapping_round_trips():
    for dt in DataType:
        if dt is DataType.UNKNOWN:
            with pytest.raises(DescriptorError, match="UNKNOWN has no NumPy dtype"):
                dt.numpy_dtype
        elif dt in (DataType.UINT4, DataType.INT4):  # values carried one per uint8 / int8 element
            assert dt.numpy_dtype == (np.uint8 if dt is DataType.UINT4 else np.int8)
            assert DataType.from_numpy(dt.numpy_dtype).name == dt.name[:-1] + "8"
        else:
            assert DataType.from_numpy(dt.numpy_dtype) is dt
    assert DataType.from_numpy(np.float16) is DataType.FLOAT16
    with pytest.raises(DescriptorError, match="NumPy dtype bool has no DirectML data type"):
        DataType.from_numpy(np.bool_)


def test_data_type_parse_short_full_and_int():
    assert DataType.parse("FLOAT16") is DataType.parse("DML_TENSOR_DATA_TYPE_FLOAT16") is DataType.parse(2)
    with pytest.raises(DescriptorError, match="'BFLOAT16' is not a DML_TENSOR_DATA_TYPE value"):
        DataType.parse("BFLOAT16")


def test_tensor_flags_parse():
    assert TensorFlags.parse(["OWNED_BY_DML"]) == TensorFlags.OWNED_BY_DML
    assert TensorFlags.parse("DML_TENSOR_FLAG_OWNED_BY_DML") == TensorFlags.OWNED_BY_DML
    with pytest.raises(DescriptorError, match="is not a DML_TENSOR_FLAG value"):
        TensorFlags.parse(["PINNED"])


# DMLCalcBufferTensorSize, computed by hand.
@pytest.mark.parametrize("data_type, sizes, strides, expected", [
    ("FLOAT32", [1, 2, 3], None, 24),
    ("FLOAT16", [3], None, 8),              # 6 bytes rounded up to 4
    ("UINT8", [5], None, 8),
    ("FLOAT32", [2, 3], [4, 1], 28),        # padded rows: last element at index 1*4 + 2*1 = 6 -> 7 elements
    ("FLOAT32", [4, 3], [0, 1], 12),        # broadcast rows: only 3 elements in memory
    ("FLOAT32", [2, 2, 2], [1, 2, 4], 32),  # transposed layout
    ("UINT4", [5], None, 4),                # 3 bytes, rounded to 4
    ("INT4", [9], None, 8),                 # 5 bytes, rounded to 8
    ("INT64", [3], None, 24),
])
def test_total_size_follows_dml_calc_buffer_tensor_size(data_type, sizes, strides, expected):
    t = TensorDesc(data_type, sizes, strides)
    assert t.total_tensor_size_in_bytes == t.minimum_size_in_bytes == expected


def test_construction_rejects_unrepresentable_values():
    with pytest.raises(DescriptorError, match=r"Sizes\[1\]: Sizes must be an unsigned integer; got -2"):
        TensorDesc("FLOAT32", [1, -2])
    with pytest.raises(DescriptorError, match=r"Sizes\[0\]: Sizes must be an unsigned integer; got 1.5"):
        TensorDesc("FLOAT32", [1.5])
    with pytest.raises(DescriptorError, match="DataType: 'float' is not a DML_TENSOR_DATA_TYPE value"):
        TensorDesc("float", [1])


def _messages(t, level="6.4", kind="input"):
    return [m for _, m in t.problems(FeatureLevel.parse(level), kind)]


def test_valid_tensor_has_no_problem():
    assert _messages(TensorDesc("FLOAT32", [1, 2, 3, 4])) == []


def test_dimension_count_limit_depends_on_feature_level():
    t = TensorDesc("FLOAT32", [1] * 6)
    assert _messages(t, "2.1") == ["6 dimensions exceed DML_TENSOR_DIMENSION_COUNT_MAX (5) at DML_FEATURE_LEVEL_2_1; "
                                   "DML_FEATURE_LEVEL_3_0 allows up to 8 (DML_TENSOR_DIMENSION_COUNT_MAX1)."]
    assert _messages(t, "3.0") == []
    assert _messages(TensorDesc("FLOAT32", [1] * 9), "6.4") == [
        "9 dimensions exceed DML_TENSOR_DIMENSION_COUNT_MAX1 (8) at DML_FEATURE_LEVEL_6_4."]
    assert _messages(TensorDesc("FLOAT32", [])) == ["Sizes is empty; DimensionCount must be at least 1."]


def test_zero_size_and_stride_count():
    assert _messages(TensorDesc("FLOAT32", [2, 0])) == ["Sizes [2, 0] contain 0; every size must be at least 1."]
    assert _messages(TensorDesc("FLOAT32", [2, 3], [3])) == ["Strides has 1 values but Sizes has 2; they must match."]


def test_total_size_rules():
    assert _messages(TensorDesc("FLOAT32", [2, 3], [4, 1], total_tensor_size_in_bytes=16)) == [
        "TotalTensorSizeInBytes 16 is smaller than the 28 bytes that Sizes [2, 3] and Strides [4, 1] need."]
    assert _messages(TensorDesc("UINT8", [2], total_tensor_size_in_bytes=6)) == [
        "TotalTensorSizeInBytes 6 is not a multiple of 4 (DirectML binds DWORD-aligned buffers)."]
    big = TensorDesc("FLOAT32", [2**30 + 1])
    assert _messages(big) == [f"TotalTensorSizeInBytes {4 * (2**30 + 1)} exceeds 4 GiB (4294967296 bytes), the largest D3D12 buffer."]
    many = TensorDesc("UINT8", [2**16, 2**16], [0, 0])
    assert _messages(many) == ["4294967296 elements exceed the limit of 2^32 - 1 elements."]


def test_alignment_flags_and_4bit_rules():
    assert _messages(TensorDesc("FLOAT32", [4], guaranteed_base_offset_alignment=2)) == [
        "GuaranteedBaseOffsetAlignment 2 must be 0 or a power of two of at least the element size (4 bytes)."]
    assert _messages(TensorDesc("FLOAT32", [4], guaranteed_base_offset_alignment=48)) != []
    assert _messages(TensorDesc("FLOAT32", [4], guaranteed_base_offset_alignment=64)) == []
    assert _messages(TensorDesc("FLOAT32", [4], flags="OWNED_BY_DML"), kind="output") == [
        "DML_TENSOR_FLAG_OWNED_BY_DML can only be used on input tensors."]
    assert _messages(TensorDesc("UINT4", [4]), "6.2") == [
        "DataType UINT4 was introduced in DML_FEATURE_LEVEL_6_3; the target is DML_FEATURE_LEVEL_6_2."]
    assert _messages(TensorDesc("UNKNOWN", [4])) == ["DataType UNKNOWN is not a valid tensor data type."]


def test_import_is_light_and_fast():
    code = ("import sys, time; t = time.perf_counter(); import dmlops; dt = time.perf_counter() - t; "
            "assert 'torch' not in sys.modules and 'onnxruntime' not in sys.modules and 'numpy' not in sys.modules, "
            "sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'onnxruntime', 'numpy')); print(dt)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
