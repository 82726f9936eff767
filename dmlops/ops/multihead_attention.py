"""DML_OPERATOR_MULTIHEAD_ATTENTION: shape rules the descriptor file cannot express.

From the docs (names as there: batchSize, sequenceLength, keyValueSequenceLength, pastSequenceLength,
hiddenSize = headCount * headSize, valueHiddenSize = headCount * valueHeadSize):

* Layouts. QueryTensor [batchSize, sequenceLength, hiddenSize], KeyTensor [batchSize,
  keyValueSequenceLength, hiddenSize], ValueTensor [batchSize, keyValueSequenceLength,
  valueHiddenSize] (each "can also have 4 or 5 dimensions, as long as the leading dimensions are 1's");
  StackedQueryKeyTensor [batchSize, sequenceLength, headCount, 2, headSize], StackedKeyValueTensor
  [batchSize, keyValueSequenceLength, headCount, 2, headSize], StackedQueryKeyValueTensor [batchSize,
  sequenceLength, headCount, 3, headSize]. The mutual exclusions are the docs' lists (QueryTensor with
  StackedQueryKeyTensor and StackedQueryKeyValueTensor, ...). A query is required; a key and a value
  are required unless PastKeyTensor / PastValueTensor supply them (ONNX Runtime's DirectML
  MultiHeadAttention passes only past key and value in that case).
* HeadCount is at least 1 and divides hiddenSize and valueHiddenSize.
* BiasTensor [hiddenSize + hiddenSize + valueHiddenSize] (leading 1s allowed up to 5 dimensions).
* PastKeyTensor / PastValueTensor [batchSize, headCount, pastSequenceLength, headSize /
  valueHeadSize] (the docs write headSize for both; they differ only when valueHiddenSize !=
  hiddenSize); OutputTensor [batchSize, sequenceLength, valueHiddenSize]; OutputPresentKeyTensor /
  OutputPresentValueTensor [batchSize, headCount, pastSequenceLength + keyValueSequenceLength,
  headSize / valueHeadSize] (pastSequenceLength 0 without past tensors).
* RelativePositionBiasTensor [batchSize, headCount, sequenceLength, pastSequenceLength +
  keyValueSequenceLength], the shape of the QxK product it is added to (ONNX Runtime checks the same).
* MaskType and MaskTensor: NONE takes no mask (a typed MaskType without a mask is let through: it
  describes nothing, and CTranslate2's DirectML backend passes one); KEY_SEQUENCE_LENGTH
  [1, batchSize], KEY_SEQUENCE_END_START [2, batchSize], KEY_QUERY_SEQUENCE_LENGTH_START_END
  [batchSize * 3 + 2]; BOOLEAN (shape not stated on the page) has the QxK product's shape [batchSize,
  headCount, sequenceLength, pastSequenceLength + keyValueSequenceLength], the full shape ONNX Runtime
  always hands DirectML (broadcast through zero Strides). Leading 1s are allowed for every mask.

* PastKeyTensor and PastValueTensor come together, and so do a new key and a new value (KeyTensor or a
  stacked key, ValueTensor or a stacked value): otherwise the key and value sequences differ in length and
  the second GEMM is undefined (dmlops' rule; the docs' "exactly one Query, Key and Value").

Math (dmlops.ops._attention writes it once for the three backends): [Bias] -> (Q x K^T + RelativePositionBias) *
Scale -> [mask] -> softmax -> x V, per head, in float32 (FLOAT16: with DirectML's float16 stores of the biased
query/key/value, the scores, the softmax's sum and quotients). Stacked tensors are sliced on their fourth dimension
(0 query, 1 key, 2 value; StackedKeyValueTensor 0 key, 1 value); BiasTensor [q | k | v] is added to the new query,
key and value, not to PastKey / PastValue; the keys are PastKey ++ Key (the docs' concatenation), which
OutputPresentKeyTensor returns (values alike). The softmax is DirectML's (ACTIVATION_SOFTMAX's steps and NaN
rules).

DirectML's answers (the vectors' sample_* cases, reproduced by every backend) where the docs are silent or wrong:

* Scale multiplies RelativePositionBias too: the docs' order (Q x K^T) * Scale + bias misses
  sample_two_heads_all_optional (Scale 0.7) by up to 0.13; (Q x K^T + bias) * Scale meets it to 1.2e-7.
* BOOLEAN adds (1 - mask) * MaskFilterValue: 1 adds nothing and 0 adds MaskFilterValue, as the docs say, and any
  other value its multiple: sample_hand_boolean's 7 adds -6 * MaskFilterValue = +60000, so that key takes the whole
  softmax (DirectML gives 0, the value of that key; "nonzero keeps" would give 4.5).
* The length types (KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START, KEY_QUERY_SEQUENCE_LENGTH_START_END) set the
  scores of the keys outside to MaskFilterValue, but a row that keeps no key is left unmasked:
  sample_key_length_zero_row (length 0) gives the plain softmax, 5.4 (float32(5.4) exactly, so not MaskFilterValue
  added in float32, which gives 5.39997), where setting every score would give the mean 7.
* KEY_QUERY_SEQUENCE_LENGTH_START_END ([keyLength (B) | queryStart (B) | queryEnd | keyStart (B) | keyEnd], ONNX
  Runtime's cumulative mask_index layout): sample_hand_key_query_lengths ([2, 1 | 0, 1 | 2 | 0, 2 | 3]) keeps keys
  0 and 1 of batch 0 but every key of batch 1, so keyLength[b] alone (which keeps key 0 of batch 1) is not the rule.
  dmlops keeps key j of batch b when j < keyLength[b] and keyStart[b] <= b * T + j < keyStart[b + 1] (keyStart[B] =
  keyEnd, T the total key length: ONNX Runtime's offsets over the batch's keys laid end to end), which empties
  batch 1's row (so it is left unmasked) and meets the vector; other readings meet it too (the first 2 * B values
  read as KEY_SEQUENCE_END_START), and the query offsets are read by nothing: one vector cannot tell them apart.
* FLOAT16 is computed with DirectML's float16 stores (dmlops/ops/_attention.py): every FLOAT16 vector bit exact,
  among them sample_boolean_all_zero_row_float16, where float16 resolves scores near -10000 to 8 and DirectML
  gives 3.006 instead of the float32 answer 5.4.
Key positions count over pastSequenceLength + keyValueSequenceLength (past keys first).

MaskTensor with fewer dimensions than its MaskType's layout (KEY_SEQUENCE_END_START with Sizes [1], ...) is refused
by name; the tiers allow 1 to 5 dimensions for any MaskType, and such a mask used to reach the backends and fail
there. The oracles beside the vectors: tests/test_oracle_attention.py (torch's scaled_dot_product_attention and
nn.MultiheadAttention, onnx's Attention node cases, NumPy by hand).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import tensor
from . import _attention
from ._quantized import braces

# The docs' exclusions, each pair once (the later field in struct order is reported).
EXCLUSIVE = [
    ("QueryTensor", "StackedQueryKeyTensor"), ("QueryTensor", "StackedQueryKeyValueTensor"),
    ("KeyTensor", "StackedQueryKeyTensor"), ("KeyTensor", "StackedKeyValueTensor"),
    ("KeyTensor", "StackedQueryKeyValueTensor"), ("ValueTensor", "StackedKeyValueTensor"),
    ("ValueTensor", "StackedQueryKeyValueTensor"), ("StackedQueryKeyTensor", "StackedKeyValueTensor"),
    ("StackedQueryKeyTensor", "StackedQueryKeyValueTensor"), ("StackedKeyValueTensor", "StackedQueryKeyValueTensor"),
]
SOURCES = {
    "query": ["QueryTensor", "StackedQueryKeyTensor", "StackedQueryKeyValueTensor"],
    "key": ["KeyTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"],
    "value": ["ValueTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"],
}
PAST = {"key": "PastKeyTensor", "value": "PastValueTensor"}


def check(desc, level) -> list[Problem]:
    """Q/K/V layouts and exclusions, HeadCount, and the Sizes of every other tensor (see the module docstring)."""
    return pair_problems(desc) + attention_problems(desc, desc.head_count, desc.head_count, "HeadCount", "HeadCount")


def pair_problems(desc) -> list[Problem]:
    """PastKeyTensor with PastValueTensor; a new key with a new value (module docstring)."""
    present = {name for name in desc.tensors() if tensor(desc, name) is not None}
    out = []
    if ("PastKeyTensor" in present) != ("PastValueTensor" in present):
        given, missing = (("PastKeyTensor", "PastValueTensor") if "PastKeyTensor" in present
                          else ("PastValueTensor", "PastKeyTensor"))
        out.append(Problem(desc.OPERATOR_TYPE, missing, "pair",
                           f"is missing while {given} is given; the past key and value come together."))
    new_key = present & {"KeyTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"}
    new_value = present & {"ValueTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"}
    if bool(new_key) != bool(new_value) and out == [] and present & {"PastKeyTensor", "PastValueTensor"}:
        # Without past tensors the missing one is already reported as required.
        out.append(Problem(desc.OPERATOR_TYPE, "ValueTensor" if new_key else "KeyTensor", "pair",
                           "is missing while a new " + ("key" if new_key else "value") + " is given; the key and "
                           "value sequences must have the same length."))
    return out


def _join_or(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1]


def _sizes(desc, name):
    t = tensor(desc, name)
    return None if t is None else list(t.sizes)


class _Shapes:
    """Collects problems for one descriptor; ``expect`` compares a tensor with a leading-1s layout."""

    def __init__(self, desc) -> None:
        self.desc = desc
        self.op = desc.OPERATOR_TYPE
        self.out: list[Problem] = []

    def add(self, field, rule, message):
        self.out.append(Problem(self.op, field, rule, message))

    def expect(self, name: str, expected: list, formula: list[str], fewer: bool = False) -> None:
        """``fewer``: fewer dimensions than the layout are reported here (MaskTensor: the tiers allow 1 to 5
        dimensions whatever the MaskType); otherwise they are a rank the support tiers refuse already."""
        found = _sizes(self.desc, name)
        if found is None or None in expected:
            return
        extra = len(found) - len(expected)
        if extra < 0:
            if fewer:
                self.add(name, "shape", f"Sizes {found} do not match {braces(formula)} = {list(expected)}.")
            return
        want = [1] * extra + list(expected)
        if found != want:
            self.add(name, "shape", f"Sizes {found} do not match {braces(['1'] * extra + formula)} = {want}.")


def attention_problems(desc, query_heads: int, kv_heads: int, query_heads_field: str,
                       kv_heads_field: str, past_lengths: bool = False) -> list[Problem]:
    """The MULTIHEAD_ATTENTION rules, with separate query and key/value head counts (MULTIHEAD_ATTENTION1).

    ``past_lengths``: a PastSequenceLengthsTensor is given, so the present key/value tensors are
    caches whose sequence length is not pastSequenceLength + keyValueSequenceLength.
    """
    s = _Shapes(desc)
    present = {name for name in desc.tensors() if tensor(desc, name) is not None}
    for a, b in EXCLUSIVE:
        if a in present and b in present:
            s.add(b, "exclusive", f"is given together with {a}; the two are mutually exclusive.")
    for role, names in SOURCES.items():
        if not present & set(names) and PAST.get(role) not in present:
            past = f" (or {PAST[role]})" if role in PAST else ""
            s.add(None, "required", f"the {role} is missing: one of {_join_or(names)}{past} is required.")
    one_field = kv_heads_field == query_heads_field
    counts = [(query_heads_field, query_heads)] + ([] if one_field else [(kv_heads_field, kv_heads)])
    for field, value in counts:
        if value < 1:
            s.add(field, "range", f"{value} is not allowed (allowed: 1 or more).")
    mask_given = _mask_presence_problems(s, desc, present)
    if s.out:
        return s.out  # the layout is ambiguous: no shape can be derived
    if not one_field:
        if query_heads % kv_heads:
            s.add(query_heads_field, "heads", f"{query_heads} is not a multiple of {kv_heads_field} {kv_heads}.")
        for name in ("StackedQueryKeyTensor", "StackedQueryKeyValueTensor"):
            if name in present and query_heads != kv_heads:
                s.add(name, "heads", f"stacks query and key heads, so {query_heads_field} ({query_heads}) must equal "
                                     f"{kv_heads_field} ({kv_heads}).")
        if s.out:
            return s.out

    def heads_problem(name, what, size, heads_field, heads):
        if size % heads:
            s.add(heads_field, "heads", f"{heads} does not divide {name}'s {what} {size}.")
            return None
        return size // heads

    q_formula = "hiddenSize" if one_field else f"{query_heads_field} * headSize"
    k_formula = "hiddenSize" if one_field else f"{kv_heads_field} * headSize"
    v_formula = "valueHiddenSize" if one_field else f"{kv_heads_field} * valueHeadSize"
    o_formula = "valueHiddenSize" if one_field else f"{query_heads_field} * valueHeadSize"
    heads_name = "headCount" if one_field else None

    # Query: batchSize, sequenceLength, headSize.
    batch = seq = head = None
    if "QueryTensor" in present:
        q = _sizes(desc, "QueryTensor")
        if len(q) >= 3:
            batch, seq, hidden = q[-3:]
            s.expect("QueryTensor", [batch, seq, hidden], ["batchSize", "sequenceLength", q_formula])
            head = heads_problem("QueryTensor", "hiddenSize", hidden, query_heads_field, query_heads)
    else:
        name, stack = (("StackedQueryKeyTensor", 2) if "StackedQueryKeyTensor" in present
                       else ("StackedQueryKeyValueTensor", 3))
        q = _sizes(desc, name)
        if len(q) == 5:
            batch, seq, head = q[0], q[1], q[4]
            s.expect(name, [batch, seq, query_heads, stack, head],
                     ["batchSize", "sequenceLength", heads_name or query_heads_field, str(stack), "headSize"])
            if q[2:4] != [query_heads, stack]:
                head = None  # no headSize to hold the other tensors to

    # Key: keyValueSequenceLength.
    kv_seq = None
    if "KeyTensor" in present:
        k = _sizes(desc, "KeyTensor")
        if len(k) >= 3:
            kv_seq = k[-2]
            s.expect("KeyTensor", [batch, kv_seq, None if head is None else kv_heads * head],
                     ["batchSize", "keyValueSequenceLength", k_formula])
    elif "StackedKeyValueTensor" in present:
        kv = _sizes(desc, "StackedKeyValueTensor")
        if len(kv) == 5:
            kv_seq = kv[1]
            s.expect("StackedKeyValueTensor", [batch, kv_seq, kv_heads, 2, head],
                     ["batchSize", "keyValueSequenceLength", heads_name or kv_heads_field, "2", "headSize"])
    elif present & {"StackedQueryKeyTensor", "StackedQueryKeyValueTensor"}:
        kv_seq = seq
    else:
        kv_seq = 0  # key and value come from PastKeyTensor / PastValueTensor alone

    # Value: valueHeadSize.
    value_head = None
    if "ValueTensor" in present:
        v = _sizes(desc, "ValueTensor")
        if len(v) >= 3:
            value_hidden = v[-1]
            s.expect("ValueTensor", [batch, kv_seq if kv_seq else v[-2], value_hidden],
                     ["batchSize", "keyValueSequenceLength", v_formula])
            value_head = heads_problem("ValueTensor", "valueHiddenSize", value_hidden, kv_heads_field, kv_heads)
            if not kv_seq:
                kv_seq = v[-2]
    elif present & {"StackedKeyValueTensor", "StackedQueryKeyValueTensor"}:
        value_head = head
    elif "PastValueTensor" in present:
        pv = _sizes(desc, "PastValueTensor")
        value_head = pv[-1] if len(pv) >= 4 else None

    # Past and present key / value.
    past_seq = 0
    for name in ("PastKeyTensor", "PastValueTensor"):
        p = _sizes(desc, name) if name in present else None
        if p is not None and len(p) >= 4:
            past_seq = p[-2]
            break
    s.expect("PastKeyTensor", [batch, kv_heads, past_seq, head],
             ["batchSize", heads_name or kv_heads_field, "pastSequenceLength", "headSize"])
    s.expect("PastValueTensor", [batch, kv_heads, past_seq, value_head],
             ["batchSize", heads_name or kv_heads_field, "pastSequenceLength", "valueHeadSize"])
    total = None if kv_seq is None else past_seq + kv_seq
    total_formula = "pastSequenceLength + keyValueSequenceLength"
    for name, size, size_name in (("OutputPresentKeyTensor", head, "headSize"),
                                  ("OutputPresentValueTensor", value_head, "valueHeadSize")):
        if past_lengths:
            found = _sizes(desc, name)
            present_seq = found[-2] if found is not None and len(found) >= 4 else None
            s.expect(name, [batch, kv_heads, present_seq, size],
                     ["batchSize", heads_name or kv_heads_field, "presentSequenceLength", size_name])
        else:
            s.expect(name, [batch, kv_heads, total, size],
                     ["batchSize", heads_name or kv_heads_field, total_formula, size_name])

    # Output, biases, mask.
    s.expect("OutputTensor", [batch, seq, None if head is None or value_head is None else query_heads * value_head],
             ["batchSize", "sequenceLength", o_formula])
    if head is not None and value_head is not None:
        bias = query_heads * head + kv_heads * head + kv_heads * value_head
        bias_formula = (["hiddenSize + hiddenSize + valueHiddenSize"] if one_field else
                        [f"({query_heads_field} + {kv_heads_field}) * headSize + {kv_heads_field} * valueHeadSize"])
        s.expect("BiasTensor", [bias], bias_formula)
    s.expect("RelativePositionBiasTensor", [batch, query_heads, seq, total],
             ["batchSize", heads_name or query_heads_field, "sequenceLength", total_formula])
    if mask_given:
        _mask_shape_problems(s, desc, batch, query_heads, seq, total, heads_name or query_heads_field, total_formula)
    return s.out


def _mask_presence_problems(s, desc, present) -> bool:
    """MaskType NONE takes no MaskTensor; True when a mask of another type is given.

    A MaskType other than NONE without a MaskTensor is not refused: the type then describes nothing
    (CTranslate2's DirectML backend sets BOOLEAN or KEY_SEQUENCE_LENGTH whether or not it has a mask).
    """
    given = "MaskTensor" in present
    if desc.mask_type.name == "NONE":
        if given:
            s.add("MaskTensor", "mask", f"is given but MaskType is {desc.mask_type.dml_name}, which takes no mask "
                                        "(give another MaskType or no MaskTensor).")
        return False
    return given


def _mask_shape_problems(s, desc, batch, heads, seq, total, heads_formula, total_formula) -> None:
    kind = desc.mask_type.name
    if kind == "KEY_SEQUENCE_LENGTH":
        s.expect("MaskTensor", [1, batch], ["1", "batchSize"], fewer=True)
    elif kind == "KEY_SEQUENCE_END_START":
        s.expect("MaskTensor", [2, batch], ["2", "batchSize"], fewer=True)
    elif kind == "KEY_QUERY_SEQUENCE_LENGTH_START_END":
        s.expect("MaskTensor", [None if batch is None else batch * 3 + 2], ["batchSize * 3 + 2"], fewer=True)
    elif kind == "BOOLEAN":
        s.expect("MaskTensor", [batch, heads, seq, total],
                 ["batchSize", heads_formula, "sequenceLength", total_formula], fewer=True)


def reference(desc, x):
    """The docs' steps in NumPy (dmlops.ops._attention)."""
    return _attention.reference(desc, x)


def to_onnx(desc, g, x):
    """MatMul, Mul, Add, Where, DirectML's softmax steps, Reshape/Transpose/Slice/Concat (no com.microsoft ops)."""
    return _attention.to_onnx(desc, g, x)


def to_torch(desc, torch, x):
    """matmul, where, cat, narrow/permute/reshape and DirectML's softmax steps."""
    return _attention.to_torch(desc, torch, x)


LN3 = float(np.log(3))


def _f(*rows):
    return np.array(rows, np.float32)


def _mha(**fields):
    from ..descs import MultiheadAttention

    fields.setdefault("scale", 1.0)
    fields.setdefault("mask_filter_value", -10000.0)
    fields.setdefault("head_count", 1)
    fields.setdefault("mask_type", "NONE")
    return MultiheadAttention(**fields)


def _t(*sizes, data_type="FLOAT32"):
    return td(data_type, list(sizes))


def _samples():
    ramp = lambda *shape: (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7 - 3) / 4  # noqa: E731
    # Key / value of 3 positions for 2 batches, one head of size 1, query 0: the scores are all 0 (q . k = 0), so
    # the softmax is uniform over the keys the mask keeps and the output is the mean of their values.
    zero_q = np.zeros((2, 1, 1), np.float32)
    k3 = _f([[1], [2], [3]], [[4], [5], [6]])
    v3 = _f([[3], [6], [12]], [[-3], [0], [9]])
    mask_io = dict(query_tensor=_t(2, 1, 1), key_tensor=_t(2, 3, 1), value_tensor=_t(2, 3, 1), output_tensor=_t(2, 1, 1))
    qkv3 = {"QueryTensor": zero_q, "KeyTensor": k3, "ValueTensor": v3}
    return [
        # One head, headSize 2, two keys. Scores q . k * 1 = [ln 3, 0] -> softmax [3/4, 1/4]; output
        # 3/4 * [4, 8] + 1/4 * [0, 4] = [3, 7]. The present key / value are K and V as [1, 1, 2, 2].
        Sample("hand_two_keys", _mha(query_tensor=_t(1, 1, 2), key_tensor=_t(1, 2, 2), value_tensor=_t(1, 2, 2),
                                     output_tensor=_t(1, 1, 2), output_present_key_tensor=_t(1, 1, 2, 2),
                                     output_present_value_tensor=_t(1, 1, 2, 2)),
               {"QueryTensor": _f([[1, 0]]), "KeyTensor": _f([[LN3, 5], [0, -5]]), "ValueTensor": _f([[4, 8], [0, 4]])},
               {"OutputTensor": _f([[3, 7]]), "OutputPresentKeyTensor": _f([[[LN3, 5], [0, -5]]]),
                "OutputPresentValueTensor": _f([[[4, 8], [0, 4]]])},
               why="float32 rounding of ln 3 and exp", atol=2e-6, rtol=1e-6),
        # Scale 1/2 and Bias [q 1 | k 0 | v 1]: q = 1 + 1 = 2, k = [ln 3, 0], scores 2 * [ln 3, 0] * 1/2 = [ln 3, 0]
        # -> [3/4, 1/4]; v = [3, -1] + 1 = [4, 0] -> 3.
        Sample("hand_scale_bias", _mha(query_tensor=_t(1, 1, 1), key_tensor=_t(1, 2, 1), value_tensor=_t(1, 2, 1),
                                       bias_tensor=_t(3), output_tensor=_t(1, 1, 1), scale=0.5),
               {"QueryTensor": _f([[1]]), "KeyTensor": _f([[LN3], [0]]), "ValueTensor": _f([[3], [-1]]),
                "BiasTensor": _f(1, 0, 1)},
               {"OutputTensor": _f([[3]])}, why="float32 rounding of ln 3 and exp", atol=2e-6, rtol=1e-6),
        # RelativePositionBias [ln 3, 0] on zero scores -> [3/4, 1/4]: 3/4 * 8 + 1/4 * 4 = 7.
        Sample("hand_relative_position_bias",
               _mha(query_tensor=_t(1, 1, 1), key_tensor=_t(1, 2, 1), value_tensor=_t(1, 2, 1),
                    relative_position_bias_tensor=_t(1, 1, 1, 2), output_tensor=_t(1, 1, 1)),
               {"QueryTensor": _f([[0]]), "KeyTensor": _f([[1], [2]]), "ValueTensor": _f([[8], [4]]),
                "RelativePositionBiasTensor": _f([[[LN3, 0]]])},
               {"OutputTensor": _f([[7]])}, why="float32 rounding of ln 3 and exp", atol=2e-6, rtol=1e-6),
        # KEY_SEQUENCE_LENGTH [1, 3]: batch 0 keeps key 0 (output 3), batch 1 all three (mean of -3, 0, 9 = 2).
        Sample("hand_key_sequence_length", _mha(**mask_io, mask_tensor=td("INT32", [1, 2]),
                                                mask_type="KEY_SEQUENCE_LENGTH"),
               {**qkv3, "MaskTensor": np.array([[1, 3]], np.int32)}, {"OutputTensor": _f([[3]], [[2]])},
               why="a mean of three values", atol=1e-6, rtol=1e-6),
        # KEY_SEQUENCE_END_START: row 0 the ends (exclusive), row 1 the starts. Batch 0 keys 1..2: (6 + 12) / 2 = 9;
        # batch 1 key 0..1: (-3 + 0) / 2 = -1.5.
        Sample("hand_key_sequence_end_start", _mha(**mask_io, mask_tensor=td("INT32", [2, 2]),
                                                   mask_type="KEY_SEQUENCE_END_START"),
               {**qkv3, "MaskTensor": np.array([[3, 2], [1, 0]], np.int32)}, {"OutputTensor": _f([[9]], [[-1.5]])},
               why="a mean of two values", atol=1e-6, rtol=1e-6),
        # KEY_QUERY_SEQUENCE_LENGTH_START_END [keyLength 2, 1 | queryStart 0, 1 | queryEnd 2 | keyStart 0, 2 |
        # keyEnd 3] (DirectML's answer, module docstring): batch 0 keeps keys 0 and 1 (j < 2, tokens 0, 1 in
        # [0, 2)): (3 + 6) / 2 = 4.5; batch 1 keeps none (tokens 3, 4, 5 are not in [2, 3)), so its row is left
        # unmasked: the mean of -3, 0, 9 = 2.
        Sample("hand_key_query_lengths", _mha(**mask_io, mask_tensor=td("INT32", [8]),
                                              mask_type="KEY_QUERY_SEQUENCE_LENGTH_START_END"),
               {**qkv3, "MaskTensor": np.array([2, 1, 0, 1, 2, 0, 2, 3], np.int32)},
               {"OutputTensor": _f([[4.5]], [[2]])}, why="a mean of two values", atol=1e-6, rtol=1e-6),
        # BOOLEAN [2, 1, 1, 3] adds (1 - mask) * -10000: 0 adds -10000 (exp(-10000) is 0 in float32). Batch 0
        # keeps keys 0 and 2: (3 + 12) / 2 = 7.5; batch 1 [0, 7, 1]: key 1 gets +60000 and the whole softmax: 0.
        Sample("hand_boolean", _mha(**mask_io, mask_tensor=td("INT32", [2, 1, 1, 3]), mask_type="BOOLEAN"),
               {**qkv3, "MaskTensor": np.array([1, 0, 1, 0, 7, 1], np.int32).reshape(2, 1, 1, 3)},
               {"OutputTensor": _f([[7.5]], [[0]])}, why="a mean of two values", atol=1e-6, rtol=1e-6),
        # A row with every key masked: the length types leave it unmasked, the BOOLEAN type adds MaskFilterValue to
        # every score: both the unmasked softmax. Scores q . k = [ln 3, 0, 0] -> [3/5, 1/5, 1/5]: 3/5 * 3 +
        # 1/5 * 6 + 1/5 * 12 = 5.4. (FLOAT16: DirectML gives 3.006 for the BOOLEAN row, module docstring.)
        Sample("key_length_zero_row", _mha(query_tensor=_t(1, 1, 1), key_tensor=_t(1, 3, 1), value_tensor=_t(1, 3, 1),
                                           output_tensor=_t(1, 1, 1), mask_tensor=td("INT32", [1, 1]),
                                           mask_type="KEY_SEQUENCE_LENGTH"),
               {"QueryTensor": _f([[1]]), "KeyTensor": _f([[LN3], [0], [0]]), "ValueTensor": _f([[3], [6], [12]]),
                "MaskTensor": np.array([[0]], np.int32)}, {"OutputTensor": _f([[5.4]])},
               why="float32 rounding of ln 3 and exp", atol=2e-6, rtol=1e-6),
        Sample("boolean_all_zero_row", _mha(query_tensor=_t(1, 1, 1), key_tensor=_t(1, 3, 1), value_tensor=_t(1, 3, 1),
                                            output_tensor=_t(1, 1, 1), mask_tensor=td("INT32", [1, 1, 1, 3]),
                                            mask_type="BOOLEAN"),
               {"QueryTensor": _f([[1]]), "KeyTensor": _f([[LN3], [0], [0]]), "ValueTensor": _f([[3], [6], [12]]),
                "MaskTensor": np.zeros((1, 1, 1, 3), np.int32)}, {"OutputTensor": _f([[5.4]])},
               why="float32 rounding of ln 3 and exp (scores near -10000 keep 1e-3 resolution)", atol=2e-3,
               rtol=2e-3),
        # Scale 1/2 multiplies RelativePositionBias too (DirectML's order): (0 + [2 ln 3, 0]) * 1/2 = [ln 3, 0] ->
        # [3/4, 1/4]: 3/4 * 8 + 1/4 * 4 = 7 (the docs' order, 0 * 1/2 + [2 ln 3, 0], would give 9/10: 7.6).
        Sample("hand_relative_position_bias_scaled",
               _mha(query_tensor=_t(1, 1, 1), key_tensor=_t(1, 2, 1), value_tensor=_t(1, 2, 1),
                    relative_position_bias_tensor=_t(1, 1, 1, 2), output_tensor=_t(1, 1, 1), scale=0.5),
               {"QueryTensor": _f([[0]]), "KeyTensor": _f([[1], [2]]), "ValueTensor": _f([[8], [4]]),
                "RelativePositionBiasTensor": _f([[[2 * LN3, 0]]])},
               {"OutputTensor": _f([[7]])}, why="float32 rounding of ln 3 and exp", atol=2e-6, rtol=1e-6),
        # PastKey / PastValue: keys [past 0, new 1] for one head of size 1, q = 0: mean of values
        # (10 + 20) / 2 = 15; present = past ++ new.
        Sample("hand_past_present", _mha(query_tensor=_t(1, 1, 1), key_tensor=_t(1, 1, 1), value_tensor=_t(1, 1, 1),
                                         past_key_tensor=_t(1, 1, 1, 1), past_value_tensor=_t(1, 1, 1, 1),
                                         output_tensor=_t(1, 1, 1), output_present_key_tensor=_t(1, 1, 2, 1),
                                         output_present_value_tensor=_t(1, 1, 2, 1)),
               {"QueryTensor": _f([[0]]), "KeyTensor": _f([[1]]), "ValueTensor": _f([[20]]),
                "PastKeyTensor": _f([[[0]]]), "PastValueTensor": _f([[[10]]])},
               {"OutputTensor": _f([[15]]), "OutputPresentKeyTensor": _f([[[0], [1]]]),
                "OutputPresentValueTensor": _f([[[10], [20]]])}, atol=1e-6, rtol=1e-6),
        # Two heads, larger shapes: every layout, compared across backends and with torch (tests/test_oracle_attention.py).
        Sample("two_heads_all_optional", _mha(
            query_tensor=_t(2, 3, 4), key_tensor=_t(2, 2, 4), value_tensor=_t(2, 2, 6), bias_tensor=_t(14),
            relative_position_bias_tensor=_t(2, 2, 3, 5), past_key_tensor=_t(2, 2, 3, 2),
            past_value_tensor=_t(2, 2, 3, 3), mask_tensor=td("INT32", [2, 2, 3, 5]), mask_type="BOOLEAN",
            output_tensor=_t(2, 3, 6), output_present_key_tensor=_t(2, 2, 5, 2),
            output_present_value_tensor=_t(2, 2, 5, 3), head_count=2, scale=0.7),
            {"QueryTensor": ramp(2, 3, 4), "KeyTensor": ramp(2, 2, 4) * 2, "ValueTensor": ramp(2, 2, 6),
             "BiasTensor": ramp(14) / 3, "RelativePositionBiasTensor": ramp(2, 2, 3, 5),
             "PastKeyTensor": ramp(2, 2, 3, 2), "PastValueTensor": ramp(2, 2, 3, 3) + 1,
             "MaskTensor": (np.arange(60).reshape(2, 2, 3, 5) % 4 != 1).astype(np.int32)}),
        Sample("stacked_query_key_value", _mha(stacked_query_key_value_tensor=_t(2, 3, 2, 3, 2), bias_tensor=_t(12),
                                               output_tensor=_t(2, 3, 4), output_present_key_tensor=_t(2, 2, 3, 2),
                                               head_count=2, scale=0.5),
               {"StackedQueryKeyValueTensor": ramp(2, 3, 2, 3, 2), "BiasTensor": ramp(12)}),
        Sample("stacked_query_key", _mha(stacked_query_key_tensor=_t(1, 3, 2, 2, 2), value_tensor=_t(1, 3, 4),
                                         output_tensor=_t(1, 3, 4), mask_tensor=td("INT32", [1, 1]),
                                         mask_type="KEY_SEQUENCE_LENGTH", head_count=2, scale=0.5),
               {"StackedQueryKeyTensor": ramp(1, 3, 2, 2, 2), "ValueTensor": ramp(1, 3, 4) * 3,
                "MaskTensor": np.array([[2]], np.int32)}),
        Sample("stacked_key_value_5d_query", _mha(query_tensor=_t(1, 1, 2, 1, 4), stacked_key_value_tensor=_t(2, 3, 2, 2, 2),
                                                  output_tensor=_t(1, 1, 2, 1, 4), mask_tensor=td("INT32", [2, 2]),
                                                  mask_type="KEY_SEQUENCE_END_START", head_count=2, scale=0.25),
               {"QueryTensor": ramp(1, 1, 2, 1, 4), "StackedKeyValueTensor": ramp(2, 3, 2, 2, 2) * 2,
                "MaskTensor": np.array([[3, 2], [0, 1]], np.int32)}),
        # Key and value from the past alone (ONNX Runtime's DirectML MultiHeadAttention passes them so).
        Sample("past_only", _mha(query_tensor=_t(1, 2, 4), past_key_tensor=_t(1, 2, 3, 2),
                                 past_value_tensor=_t(1, 2, 3, 2), output_tensor=_t(1, 2, 4), head_count=2,
                                 scale=0.5, output_present_value_tensor=_t(1, 2, 3, 2)),
               {"QueryTensor": ramp(1, 2, 4), "PastKeyTensor": ramp(1, 2, 3, 2), "PastValueTensor": ramp(1, 2, 3, 2)}),
    ]


SAMPLES = _samples()
