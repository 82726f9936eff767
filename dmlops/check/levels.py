"""Which DirectML operators the provider creates for a node, and the lowest feature level they accept for the node's
data types and ranks (from the descriptors' per-feature-level tensor support tables, dmlops.schema).

The provider's kernel table names the DirectML operators each kernel can create (``dml_operators``, the union over
its code paths). For kernels with alternatives (Abs on unsigned types is an IDENTITY, Pow with a constant exponent is
CONSTANT_POW, Cast to bool adds CLIP1, ...) :func:`plan` picks the path the node takes. Each ONNX tensor is mapped
onto the DirectML operator's tensor fields: by position (DirectML inputs after the inputs the provider reads on the
CPU, outputs in order) unless :data:`FIELDS` says otherwise, with the rank the provider gives it: at least 4
(DmlOperator::Initialize pads every tensor to ``NchwDimensionCount`` by default, right-aligned). DirectML has no
BOOL: the provider passes bool as UINT8.

Where the table is silent and this module guesses, the plan says so in ``inferred``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .. import schema as _schema
from ..types import FeatureLevel
from .report import TensorInfo

# ONNX element type -> DirectML data type name (bool travels as UINT8; others have no DirectML type).
DML_TYPES = {"float": "FLOAT32", "float16": "FLOAT16", "double": "FLOAT64", "int8": "INT8", "int16": "INT16",
             "int32": "INT32", "int64": "INT64", "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32",
             "uint64": "UINT64", "bool": "UINT8", "int4": "INT4", "uint4": "UINT4"}

MIN_RANK = 4  # NchwDimensionCount: the provider's default minimum dimension count

REDUCE_FUNCTIONS = {"ReduceSum": "SUM", "ReduceMean": "AVERAGE", "ReduceMax": "MAX", "ReduceMin": "MIN",
                    "ReduceProd": "MULTIPLY", "ReduceL1": "L1", "ReduceL2": "L2", "ReduceLogSum": "LOG_SUM",
                    "ReduceLogSumExp": "LOG_SUM_EXP", "ReduceSumSquare": "SUM_SQUARE"}


@dataclass(frozen=True)
class Slot:
    """An ONNX tensor of the node: input (``kind`` "i") or output ("o") ``index``; ``as_type`` overrides the DirectML
    type (index outputs the provider writes as unsigned)."""

    kind: str
    index: int
    as_type: str | None = None


@dataclass
class Use:
    """One DirectML operator the node's kernel creates, with the node's tensors on its fields (an array field takes
    a list of slots)."""

    op: str
    fields: dict = field(default_factory=dict)
    function: str | None = None  # REDUCE: the DML_REDUCE_FUNCTION


@dataclass
class Plan:
    """The DirectML operators for a node; ``inferred`` lists what dmlops guessed."""

    uses: list[Use]
    inferred: list[str] = field(default_factory=list)


@dataclass
class LevelResult:
    """The lowest feature level of a plan (None when no level accepts it, or when it has no DirectML operator) and
    one line saying why."""

    level: FeatureLevel | None
    detail: str
    refused: bool = False


def _i(k: int, as_type: str | None = None) -> Slot:
    return Slot("i", k, as_type)


def _o(k: int, as_type: str | None = None) -> Slot:
    return Slot("o", k, as_type)


# ONNX ops whose tensors do not map onto their DirectML operator's fields by position.
FIELDS: dict[str, dict[str, Slot]] = {
    # ONNX: X, W, R, B, sequence_lens, initial_h, initial_c, P; DirectML: Input, Weight, Recurrence, Bias,
    # HiddenInit, (CellMemInit,) SequenceLengths (UINT32 only: the provider reads the int32 lengths as such), Peephole.
    "LSTM": {"InputTensor": _i(0), "WeightTensor": _i(1), "RecurrenceTensor": _i(2), "BiasTensor": _i(3),
             "SequenceLengthsTensor": _i(4, "UINT32"), "HiddenInitTensor": _i(5), "CellMemInitTensor": _i(6),
             "PeepholeTensor": _i(7), "OutputSequenceTensor": _o(0), "OutputSingleTensor": _o(1),
             "OutputCellSingleTensor": _o(2)},
    "GRU": {"InputTensor": _i(0), "WeightTensor": _i(1), "RecurrenceTensor": _i(2), "BiasTensor": _i(3),
            "SequenceLengthsTensor": _i(4, "UINT32"), "HiddenInitTensor": _i(5), "OutputSequenceTensor": _o(0),
            "OutputSingleTensor": _o(1)},
    "RNN": {"InputTensor": _i(0), "WeightTensor": _i(1), "RecurrenceTensor": _i(2), "BiasTensor": _i(3),
            "SequenceLengthsTensor": _i(4, "UINT32"), "HiddenInitTensor": _i(5), "OutputSequenceTensor": _o(0),
            "OutputSingleTensor": _o(1)},
    # ONNX: X, scale, B, mean, var (all float; the order matters only for the record).
    "BatchNormalization": {"InputTensor": _i(0), "ScaleTensor": _i(1), "BiasTensor": _i(2), "MeanTensor": _i(3),
                           "VarianceTensor": _i(4), "OutputTensor": _o(0)},
    # Indices leave MAX_POOLING2 as UINT64/UINT32; ONNX's int64 indices are read as UINT64.
    "MaxPool": {"InputTensor": _i(0), "OutputTensor": _o(0), "OutputIndicesTensor": _o(1, "UINT64")},
}


def _elem(t: TensorInfo | None) -> str | None:
    return t.elem if t is not None else None


def _is_unsigned(t: TensorInfo | None) -> bool:
    e = _elem(t)
    return e is not None and e.startswith("uint")


def plan(node, reg: dict, infos_in: Sequence[TensorInfo | None], infos_out: Sequence[TensorInfo | None],
         constant_numel) -> Plan:
    """The DirectML operators ``reg`` (a kernel-table record) creates for ``node`` (an ONNX NodeProto).

    ``constant_numel(name)``: the element count of a constant (initializer) input, or None when it is not one.
    """
    op = node.op_type
    table_ops = [o for o in reg.get("dml_operators") or [] if o in _schema.all_schemas()]
    n_in = sum(1 for x in node.input if x)
    attrs = {a.name: a for a in node.attribute}

    def single(dml: str, **fields) -> Plan:
        return Plan([Use(dml, dict(fields) or positional(dml, node, reg))])

    if reg.get("domain") == "ai.onnx":
        if op == "Abs":
            return single("ELEMENT_WISE_IDENTITY" if _is_unsigned(infos_in[0] if infos_in else None)
                          else "ELEMENT_WISE_ABS")
        if op in ("Cast", "CastLike"):
            uses = [Use("CAST", {"InputTensor": _i(0), "OutputTensor": _o(0)})]
            if _elem(infos_out[0] if infos_out else None) == "bool":  # CAST then CLIP1 to [0, 1] (PR #22665)
                uses.append(Use("ELEMENT_WISE_CLIP1", {"InputTensor": _o(0), "OutputTensor": _o(0)}))
            return Plan(uses)
        if op == "Clip":
            if reg["since_version"] >= 11:
                return Plan([Use("ELEMENT_WISE_CLIP1", {"InputTensor": _i(0), "OutputTensor": _o(0)})],
                            ["Clip-11 and later as ELEMENT_WISE_CLIP1 (min/max as typed scalars; the table lists "
                             "ELEMENT_WISE_CLIP)"])
            return single("ELEMENT_WISE_CLIP")
        if op in ("Sum", "Max", "Min", "Mean"):
            if n_in == 1:
                return single("ELEMENT_WISE_IDENTITY")
            binary = {"Sum": "ELEMENT_WISE_ADD", "Max": "ELEMENT_WISE_MAX", "Min": "ELEMENT_WISE_MIN",
                      "Mean": "ELEMENT_WISE_MEAN" if n_in == 2 else "ELEMENT_WISE_ADD"}[op]
            uses = [Use(binary, {"ATensor": _i(0), "BTensor": _i(1), "OutputTensor": _o(0)})]
            if op == "Mean" and n_in > 2:
                uses.append(Use("ELEMENT_WISE_IDENTITY", {"InputTensor": _o(0), "OutputTensor": _o(0)}))
            return Plan(uses)
        if op == "Pow":
            numel = constant_numel(node.input[1]) if len(node.input) > 1 else None
            if numel == 1:
                return single("ELEMENT_WISE_CONSTANT_POW", InputTensor=_i(0), OutputTensor=_o(0))
            return single("ELEMENT_WISE_POW", InputTensor=_i(0), ExponentTensor=_i(1), OutputTensor=_o(0))
        if op == "Mod":
            fmod = attrs.get("fmod")
            return single("ELEMENT_WISE_MODULUS_TRUNCATE" if fmod is not None and fmod.i else
                          "ELEMENT_WISE_MODULUS_FLOOR")
        if op == "BitShift":
            direction = attrs.get("direction")
            right = direction is not None and direction.s.decode(errors="replace").upper() == "RIGHT"
            return single("ELEMENT_WISE_BIT_SHIFT_RIGHT" if right else "ELEMENT_WISE_BIT_SHIFT_LEFT")
        if op in REDUCE_FUNCTIONS:
            return Plan([Use("REDUCE", {"InputTensor": _i(0), "OutputTensor": _o(0)},
                             "DML_REDUCE_FUNCTION_" + REDUCE_FUNCTIONS[op])])
        if op in ("ScatterElements", "Scatter"):
            return single("SCATTER_ELEMENTS", InputTensor=_i(0), IndicesTensor=_i(1), UpdatesTensor=_i(2),
                          OutputTensor=_o(0))
        if op == "ScatterND":
            return single("SCATTER_ND", InputTensor=_i(0), IndicesTensor=_i(1), UpdatesTensor=_i(2),
                          OutputTensor=_o(0))
        if op in FIELDS:
            dml = {"LSTM": "LSTM", "GRU": "GRU", "RNN": "RNN", "BatchNormalization": "BATCH_NORMALIZATION",
                   "MaxPool": "MAX_POOLING2"}[op]
            return Plan([Use(dml, dict(FIELDS[op]))])
        if op in ("LayerNormalization", "SimplifiedLayerNormalization"):
            # (the CAST the kernel adds for mixed scale types exists from 1.0 and never raises the level)
            return Plan([Use("MEAN_VARIANCE_NORMALIZATION2", {"InputTensor": _i(0), "ScaleTensor": _i(1),
                                                              "BiasTensor": _i(2), "OutputTensor": _o(0)})])
        if op == "RoiAlign":  # the table lists no operator; DmlOperatorRoiAlign.cpp creates ROI_ALIGN1
            return Plan([Use("ROI_ALIGN1", {"InputTensor": _i(0), "ROITensor": _i(1), "BatchIndicesTensor": _i(2),
                                            "OutputTensor": _o(0)})],
                        ["RoiAlign as ROI_ALIGN1 (the table names no DirectML operator for it)"])
        if op == "NonZero":
            return Plan([Use("NONZERO_COORDINATES", {"InputTensor": _i(0)})],
                        ["only NonZero's input is checked against NONZERO_COORDINATES"])
        if op == "Einsum":
            return Plan([], ["dmlops does not replay the provider's Einsum pattern matching (QueryEinSum): the level "
                             "is the kernel's implied one"])
    if not table_ops:
        return Plan([])
    if len(table_ops) == 1:
        return Plan([Use(table_ops[0], positional(table_ops[0], node, reg))])
    return Plan([], [f"the kernel creates {', '.join(table_ops)} depending on the node; dmlops does not know which, "
                     "so the level is the kernel's implied one"])


def positional(dml_op: str, node, reg: dict) -> dict:
    """The node's tensors on ``dml_op``'s tensor fields by position: inputs (skipping those the provider reads on the
    CPU) onto the input fields, outputs onto the output fields; an array field takes the rest."""
    cpu = set(reg.get("required_constant_cpu_inputs") or [])
    ins = [k for k in range(len(node.input)) if k not in cpu]
    outs = list(range(len(node.output)))
    fields: dict = {}
    s = _schema.get(dml_op)
    for kind, pool in (("input", ins), ("output", outs)):
        for f in s.fields:
            if f.kind != kind or not f.is_tensor or not pool:
                continue
            if f.type == "TENSOR_DESC_ARRAY":
                fields[f.name] = [Slot(kind[0], k) for k in pool]
                pool = []
            else:
                fields[f.name] = Slot(kind[0], pool.pop(0))
    return fields


def _tensor(slot: Slot, infos_in, infos_out) -> TensorInfo | None:
    pool = infos_in if slot.kind == "i" else infos_out
    return pool[slot.index] if 0 <= slot.index < len(pool) else None


def _needs(use: Use, infos_in, infos_out) -> list[tuple[str, str | None, int | None]]:
    """(field, DirectML type, DirectML rank) for each tensor of ``use`` the node has."""
    out = []
    for name, slots in use.fields.items():
        for slot in slots if isinstance(slots, list) else [slots]:
            t = _tensor(slot, infos_in, infos_out)
            if t is None or not t.name:
                continue
            dtype = slot.as_type or DML_TYPES.get(t.elem or "")
            rank = None if t.rank is None else max(t.rank, MIN_RANK)
            out.append((name, dtype, rank))
    return out


def use_level(use: Use, infos_in, infos_out) -> LevelResult:
    """The lowest feature level at which ``use`` accepts the node's tensors (the first support tier that does)."""
    s = _schema.get(use.op)
    tiers = sorted(s.tiers_for(use.function), key=lambda t: t.level)
    needs = _needs(use, infos_in, infos_out)
    if not tiers:
        return LevelResult(s.introduced, f"{use.op} from {s.introduced.short} (no tensor support table)")
    last_problem = ""
    for tier in tiers:
        problem = None
        for name, dtype, rank in needs:
            sup = tier.tensors.get(name)
            if sup is None:
                continue
            if dtype is not None and sup.data_types is not None and dtype not in sup.data_types:
                problem = (f"{use.op}.{name}: {dtype} not supported (at {tier.level.short}: "
                           f"{', '.join(sup.data_types)})")
                break
            if rank is not None and rank not in sup.dimension_counts:
                problem = (f"{use.op}.{name}: {rank} dimensions not supported (at {tier.level.short}: "
                           f"{_schema.ranks_text(sup.dimension_counts)})")
                break
        if problem is None:
            level = max(s.introduced, tier.level)
            shown = ", ".join(sorted({f"{r}D {d}" for _, d, r in needs if d and r}))
            return LevelResult(level, f"{use.op} from {level.short}" + (f" ({shown})" if shown else ""))
        last_problem = problem
    return LevelResult(None, f"no feature level allows it: {last_problem}", refused=True)


def plan_level(p: Plan, reg: dict, infos_in, infos_out) -> LevelResult:
    """The lowest feature level of every operator in ``p`` (their maximum). A plan without operators takes the
    kernel's implied level from the table (None for kernels that create no DirectML operator)."""
    if not p.uses:
        implied = reg.get("implied_dml_feature_level")
        if implied:
            return LevelResult(FeatureLevel.parse(implied), f"the kernel's implied level {implied}")
        return LevelResult(None, "the kernel creates no DirectML operator")
    results = [use_level(u, infos_in, infos_out) for u in p.uses]
    refused = [r for r in results if r.refused]
    if refused:
        return refused[0]
    level = max(r.level for r in results if r.level is not None)
    return LevelResult(level, "; ".join(r.detail for r in results))
