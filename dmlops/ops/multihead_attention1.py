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
ONNX Runtime passes INT32 sequence lengths; that data type is the descriptor's to decide.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor
from .multihead_attention import attention_problems


def check(desc, level) -> list[Problem]:
    """MULTIHEAD_ATTENTION's rules with QueryHeadCount / KeyValueHeadCount; PastSequenceLengthsTensor [batchSize]."""
    lengths = tensor(desc, "PastSequenceLengthsTensor")
    out = attention_problems(desc, desc.query_head_count, desc.key_value_head_count, "QueryHeadCount",
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
