"""DML_OPERATOR_MULTIHEAD_ATTENTION1: shape rules the descriptor file cannot express.

The docs page repeats MULTIHEAD_ATTENTION's members and is "TBD" for PastSequenceLengthsTensor,
QueryHeadCount and KeyValueHeadCount. ONNX Runtime's only user (its DirectML GroupQueryAttention)
fixes their meaning: grouped-query attention, QueryTensor [batchSize, sequenceLength, QueryHeadCount *
headSize], KeyTensor and ValueTensor [batchSize, keyValueSequenceLength, KeyValueHeadCount * headSize],
PastSequenceLengthsTensor [batchSize] (one past length per batch), and present key/value caches
[batchSize, KeyValueHeadCount, presentSequenceLength, headSize] whose length is the cache's, not
pastSequenceLength + keyValueSequenceLength. So every MULTIHEAD_ATTENTION rule applies (see
multihead_attention.py) with QueryHeadCount for the query, the output, RelativePositionBiasTensor and
a BOOLEAN mask, and KeyValueHeadCount for key, value, past and present tensors; both counts are at
least 1, QueryHeadCount is a multiple of KeyValueHeadCount, and a stacked tensor that holds query
and key heads needs the two counts equal. No DirectML vectors exist (DML_FEATURE_LEVEL_6_3).
The descriptor file lists PastSequenceLengthsTensor as FLOAT32/FLOAT16 after the docs table, while
ONNX Runtime passes INT32 sequence lengths; that data type is the descriptor's to decide. dmlops reads
each length truncated toward zero (a float-to-integer cast).

Math (dmlops.ops._attention, shared with MULTIHEAD_ATTENTION; no DirectML vectors exist at
DML_FEATURE_LEVEL_6_3, so the docs, ONNX Runtime's GroupQueryAttention and torch decide, and these are
decisions where they are silent):

* Without PastSequenceLengthsTensor: MULTIHEAD_ATTENTION with grouped heads. Query head n reads key/value
  head n // (QueryHeadCount / KeyValueHeadCount) (GroupQueryAttention's and torch's repeat_interleave
  convention); every mask type, Bias, RelativePositionBias and past/present tensors as there, including
  what MULTIHEAD_ATTENTION's vectors show (the bias scaled with the scores, (1 - mask) * MaskFilterValue, a row
  without keys left unmasked, the float16 stores), assumed to hold for this later version too.
* With PastSequenceLengthsTensor (ONNX Runtime's only use: lengths[b] for a one-token decode step, zeros
  for the prompt, with no PastKey/PastValue bound because its present buffers alias the past ones):
  the key/value cache of batch b is PastKey (zeros where absent) with the new keys written at positions
  lengths[b] .. lengths[b] + keyValueSequenceLength - 1; OutputPresentKey/ValueTensor return that cache
  (their own length; positions written past it are dropped). Attention reads the cache's first
  pastSequenceLength + keyValueSequenceLength positions, causally as GroupQueryAttention (ORT refuses
  causal=0 on DirectML): query i sits at position lengths[b] + keyValueSequenceLength - sequenceLength + i
  and sees the keys up to it; the scores beyond are set to MaskFilterValue (ORT passes -10000). dmlops
  cannot read an output buffer as ORT's aliasing does: cache positions below lengths[b] come from
  PastKeyTensor only.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _attention
from .multihead_attention import attention_problems, pair_problems


def check(desc, level) -> list[Problem]:
    """MULTIHEAD_ATTENTION's rules with QueryHeadCount / KeyValueHeadCount; PastSequenceLengthsTensor [batchSize]."""
    lengths = tensor(desc, "PastSequenceLengthsTensor")
    out = pair_problems(desc) + attention_problems(desc, desc.query_head_count, desc.key_value_head_count, "QueryHeadCount",
                             "KeyValueHeadCount", past_lengths=lengths is not None)
    if lengths is None or any(p.rule in ("exclusive", "required", "range") for p in out):
        return out
    batch = None
    for name in ("QueryTensor", "StackedQueryKeyTensor", "StackedQueryKeyValueTensor"):
        t = tensor(desc, name)
        if t is not None and t.dimension_count >= 3:
            batch = t.sizes[0] if name != "QueryTensor" else t.sizes[-3]
            break
    found = list(lengths.sizes)
    if batch is not None and found and found != [1] * (len(found) - 1) + [batch]:
        extra = len(found) - 1
        out.append(Problem(desc.OPERATOR_TYPE, "PastSequenceLengthsTensor", "shape",
                           f"Sizes {found} do not match {{{', '.join(['1'] * extra + ['batchSize'])}}} = "
                           f"{[1] * extra + [batch]}."))
    return out


def reference(desc, x):
    """The shared steps in NumPy (module docstring)."""
    return _attention.reference(desc, x)


def to_onnx(desc, g, x):
    """MatMul per key/value head group, Where, GatherElements for the cache, DirectML's softmax steps."""
    return _attention.to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """matmul per key/value head group, where, gather for the cache, DirectML's softmax steps."""
    return _attention.to_torch(desc, torch, x)


def _f(*rows):
    return np.array(rows, np.float32)


def _t(*sizes):
    return td("FLOAT32", list(sizes))


def _mha1(**fields):
    from ..descs import MultiheadAttention1

    fields.setdefault("scale", 1.0)
    fields.setdefault("mask_filter_value", -10000.0)
    fields.setdefault("mask_type", "NONE")
    return MultiheadAttention1(**fields)


def _samples():
    ramp = lambda *shape: (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 5 - 2) / 3  # noqa: E731
    ln3 = float(np.log(3))
    return [
        # Two query heads share one key/value head (headSize 1). Keys [ln 3, 0], values [8, 4]. Head 0 (q = 1):
        # scores [ln 3, 0] -> [3/4, 1/4] -> 7; head 1 (q = 0): uniform -> 6. Output [7, 6].
        Sample("hand_grouped", _mha1(query_tensor=_t(1, 1, 2), key_tensor=_t(1, 2, 1), value_tensor=_t(1, 2, 1),
                                     output_tensor=_t(1, 1, 2), query_head_count=2, key_value_head_count=1),
               {"QueryTensor": _f([[1, 0]]), "KeyTensor": _f([[ln3], [0]]), "ValueTensor": _f([[8], [4]])},
               {"OutputTensor": _f([[7, 6]])}, why="float32 rounding of ln 3 and exp", atol=2e-6, rtol=1e-6),
        # Decode step: past buffer of 3, lengths [1, 2], one new key/value per batch, query 0 (uniform over the
        # visible keys). Batch 0: new value 20 written at position 1; keys 0..1 visible -> (10 + 20) / 2 = 15;
        # cache values [10, 20, 0] (position 2 keeps the past buffer's 0). Batch 1: written at 2; keys 0..2 ->
        # (1 + 2 + 9) / 3 = 4; cache [1, 2, 9].
        Sample("hand_decode_lengths", _mha1(
            query_tensor=_t(2, 1, 1), key_tensor=_t(2, 1, 1), value_tensor=_t(2, 1, 1), past_key_tensor=_t(2, 1, 3, 1),
            past_value_tensor=_t(2, 1, 3, 1), past_sequence_lengths_tensor=_t(2), output_tensor=_t(2, 1, 1),
            output_present_key_tensor=_t(2, 1, 3, 1), output_present_value_tensor=_t(2, 1, 3, 1),
            query_head_count=1, key_value_head_count=1),
            {"QueryTensor": np.zeros((2, 1, 1), np.float32), "KeyTensor": _f([[5]], [[6]]),
             "ValueTensor": _f([[20]], [[9]]), "PastKeyTensor": _f([[[1], [2], [0]]], [[[3], [4], [0]]]),
             "PastValueTensor": _f([[[10], [0], [0]]], [[[1], [2], [7]]]), "PastSequenceLengthsTensor": _f(1, 2)},
            {"OutputTensor": _f([[15]], [[4]]), "OutputPresentKeyTensor": _f([[[1], [5], [0]]], [[[3], [4], [6]]]),
             "OutputPresentValueTensor": _f([[[10], [20], [0]]], [[[1], [2], [9]]])}, atol=1e-6, rtol=1e-6),
        # Prompt (lengths 0, as ONNX Runtime passes it): causal. Query 0 sees key 0 -> 3; query 1 keys 0..1 ->
        # (3 + 9) / 2 = 6. Present caches of 4 positions: the two new ones, then zeros.
        Sample("hand_prompt_causal", _mha1(
            query_tensor=_t(1, 2, 1), key_tensor=_t(1, 2, 1), value_tensor=_t(1, 2, 1),
            past_sequence_lengths_tensor=_t(1), output_tensor=_t(1, 2, 1), output_present_value_tensor=_t(1, 1, 4, 1),
            query_head_count=1, key_value_head_count=1),
            {"QueryTensor": np.zeros((1, 2, 1), np.float32), "KeyTensor": _f([[1], [2]]),
             "ValueTensor": _f([[3], [9]]), "PastSequenceLengthsTensor": _f(0)},
            {"OutputTensor": _f([[3], [6]]), "OutputPresentValueTensor": _f([[[3], [9], [0], [0]]])},
            atol=1e-6, rtol=1e-6),
        Sample("grouped_4_2_mask_bias", _mha1(
            query_tensor=_t(2, 3, 8), key_tensor=_t(2, 4, 4), value_tensor=_t(2, 4, 6), bias_tensor=_t(18),
            relative_position_bias_tensor=_t(2, 4, 3, 4), mask_tensor=td("INT32", [1, 2]),
            mask_type="KEY_SEQUENCE_LENGTH", output_tensor=_t(2, 3, 12), output_present_key_tensor=_t(2, 2, 4, 2),
            query_head_count=4, key_value_head_count=2, scale=0.6),
            {"QueryTensor": ramp(2, 3, 8), "KeyTensor": ramp(2, 4, 4) * 2, "ValueTensor": ramp(2, 4, 6),
             "BiasTensor": ramp(18), "RelativePositionBiasTensor": ramp(2, 4, 3, 4),
             "MaskTensor": np.array([[3, 4]], np.int32)}),
        Sample("grouped_decode_cache", _mha1(
            query_tensor=_t(2, 1, 6), key_tensor=_t(2, 1, 2), value_tensor=_t(2, 1, 2), past_key_tensor=_t(2, 1, 4, 2),
            past_value_tensor=_t(2, 1, 4, 2), past_sequence_lengths_tensor=_t(2), output_tensor=_t(2, 1, 6),
            output_present_key_tensor=_t(2, 1, 4, 2), output_present_value_tensor=_t(2, 1, 4, 2),
            query_head_count=3, key_value_head_count=1, scale=0.7),
            {"QueryTensor": ramp(2, 1, 6) * 3, "KeyTensor": ramp(2, 1, 2), "ValueTensor": ramp(2, 1, 2) + 1,
             "PastKeyTensor": ramp(2, 1, 4, 2) * 2, "PastValueTensor": ramp(2, 1, 4, 2),
             "PastSequenceLengthsTensor": _f(3, 0)}),
    ]


SAMPLES = _samples()
