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

DirectML refused the one validator-gap vector (every Q/K/V layout given at once, a NONE mask type with
a MaskTensor). Only check() is written so far; the math (Q x K^T * Scale + RelativePositionBias, mask,
softmax, x V) is in research/lowering_map.md.
"""
from __future__ import annotations

from ..errors import Problem
from ..validation import tensor
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
    return attention_problems(desc, desc.head_count, desc.head_count, "HeadCount", "HeadCount")


def _join_or(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1]


def _sizes(desc, name):
    t = tensor(desc, name)
    return None if t is None else list(t.sizes)


class _Shapes:
    """Collects problems for one descriptor; ``expect`` compares a tensor with a leading-1s layout."""

    def __init__(self, desc):
        self.desc = desc
        self.op = desc.OPERATOR_TYPE
        self.out: list[Problem] = []

    def add(self, field, rule, message):
        self.out.append(Problem(self.op, field, rule, message))

    def expect(self, name: str, expected: list, formula: list[str]) -> None:
        found = _sizes(self.desc, name)
        if found is None or None in expected:
            return
        extra = len(found) - len(expected)
        if extra < 0:
            return  # a rank the support tiers refuse
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
    s.expect("OutputTensor", [batch, seq, None if None in (head, value_head) else query_heads * value_head],
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
        s.expect("MaskTensor", [1, batch], ["1", "batchSize"])
    elif kind == "KEY_SEQUENCE_END_START":
        s.expect("MaskTensor", [2, batch], ["2", "batchSize"])
    elif kind == "KEY_QUERY_SEQUENCE_LENGTH_START_END":
        s.expect("MaskTensor", [None if batch is None else batch * 3 + 2], ["batchSize * 3 + 2"])
    elif kind == "BOOLEAN":
        s.expect("MaskTensor", [batch, heads, seq, total], ["batchSize", heads_formula, "sequenceLength", total_formula])
