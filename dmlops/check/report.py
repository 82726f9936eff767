"""The records ``dmlops check`` produces: one NodeReport per node, one ModelReport per model, and their text and JSON.

Nothing here imports onnx: the records are plain data, built by :mod:`dmlops.check.core`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..types import FeatureLevel

# ONNX Runtime's DirectML provider creates its device with DMLCreateDevice1(..., DML_FEATURE_LEVEL_5_0, ...)
# (onnxruntime/core/providers/dml/dml_provider_factory.cc): below 5.0 there is no provider at all.
PROVIDER_MIN_LEVEL = FeatureLevel.FL_5_0
MAX_LISTED = 12  # nodes off DirectML listed one by one in the text report; more are grouped per op and reason


class Verdict(str, enum.Enum):
    """Where ONNX Runtime's DirectML provider puts a node, or that it cannot."""

    DIRECTML = "DirectML"          # the provider claims it and DirectML can create its operator(s) at the level
    CPU_FALLBACK = "CPU fallback"  # ONNX Runtime runs it on the CPU (the CPU provider, or a CPU kernel of the provider)
    FAILS = "fails"                # session creation fails because of it
    FOLDED = "folded"              # never placed: ONNX Runtime folds or removes it before partitioning

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class TensorInfo:
    """A node input or output after shape inference: ONNX type string (``tensor(float)``) and shape (ints for known
    dimensions, strings for symbolic ones, None for unknown ones; the shape itself None when the rank is unknown)."""

    name: str
    type: str | None
    shape: tuple | None

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when shape inference could not tell."""
        return None if self.shape is None else len(self.shape)

    @property
    def elem(self) -> str | None:
        """The element type of a tensor (``float``), None for other values or an unknown type."""
        if self.type and self.type.startswith("tensor(") and self.type.endswith(")"):
            return self.type[7:-1]
        return None

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return {"name": self.name, "type": self.type, "shape": None if self.shape is None else list(self.shape)}


@dataclass
class NodeReport:
    """What ONNX Runtime's DirectML provider does with one node, and why.

    ``kernel``: the matched DirectML-provider registration (``Conv-11``), None when none matches.
    ``dml_operators``: the DirectML operators that kernel creates for this node (dmlops' choice among the kernel's
    alternatives). ``min_level``: the lowest feature level those operators accept for the node's data types and
    ranks (None: no level does, or the kernel creates no DirectML operator; ``level_detail`` says which).
    ``inferred``: what in this verdict dmlops inferred where the provider's table is silent.
    """

    index: int
    name: str
    op: str
    domain: str
    opset: int | None
    since_version: int | None
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    verdict: Verdict = Verdict.DIRECTML
    reason: str = ""
    kernel: str | None = None
    dml_operators: list[str] = field(default_factory=list)
    min_level: FeatureLevel | None = None
    level_detail: str = ""
    inferred: list[str] = field(default_factory=list)
    flops: int = 0
    copies: list[str] = field(default_factory=list)
    graph: str = ""  # "" for the main graph, else the path of the subgraph ("If_0/then_branch")
    claimed: bool = False  # the provider takes the node (it runs on DirectML if DirectML can create its operators)
    level_refused: bool = False  # DirectML refuses the node's operators at every feature level
    origin: str = ""  # "inlined from HardSwish node 38 '...'" for the nodes of an inlined function body

    @property
    def label(self) -> str:
        """``node 12 'Conv_12' (Conv)``, with the subgraph path when the node is in one."""
        where = f"{self.graph}/" if self.graph else ""
        return f"node {where}{self.index} {self.name!r} ({self.op})" if self.name else f"node {where}{self.index} ({self.op})"

    @property
    def qualified_op(self) -> str:
        """``Conv``, or ``com.microsoft.Gelu`` outside the ONNX domain."""
        return self.op if self.domain == "ai.onnx" else f"{self.domain}.{self.op}"

    def types_text(self) -> str:
        """The element types of the inputs and outputs, ``float,float -> float``."""
        def one(t: TensorInfo) -> str:
            return t.elem or (t.type or "?")
        return ",".join(one(t) for t in self.inputs) + " -> " + ",".join(one(t) for t in self.outputs)

    def ranks_text(self) -> str:
        """The ranks of the inputs and outputs, ``4,4,1 -> 4`` (? where unknown)."""
        def one(t: TensorInfo) -> str:
            return "?" if t.rank is None else str(t.rank)
        return ",".join(one(t) for t in self.inputs) + " -> " + ",".join(one(t) for t in self.outputs)

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return {"index": self.index, "graph": self.graph, "name": self.name, "op": self.op, "domain": self.domain,
                "opset": self.opset, "since_version": self.since_version,
                "inputs": [t.to_dict() for t in self.inputs], "outputs": [t.to_dict() for t in self.outputs],
                "verdict": self.verdict.value, "reason": self.reason, "kernel": self.kernel,
                "dml_operators": list(self.dml_operators),
                "min_feature_level": self.min_level.short if self.min_level is not None else None,
                "level_detail": self.level_detail, "inferred": list(self.inferred), "flops": self.flops,
                "device_copies": list(self.copies), "claimed_by_provider": self.claimed,
                "origin": self.origin}


def _gflops(n: float) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.2f} GFLOPs"
    if n >= 1e6:
        return f"{n / 1e6:.2f} MFLOPs"
    return f"{n:.0f} FLOPs"


@dataclass
class ModelReport:
    """The check of one model at one feature level: every node's verdict and the model's summary.

    ``cpu_fallback``: whether the session would allow CPU fallback (ONNX Runtime's default); dmlops' own sessions
    turn it off (``session.disable_cpu_ep_fallback``), and then every node that would fall back fails.
    ``float16`` / ``float64``: whether the device supports those tensor types (``assumed`` says when this is a
    guess rather than a device's answer). ``notes``: what the whole model needs to know (shape inference failed,
    an opset newer than the provider's table, missing weight files...).
    """

    source: str
    feature_level: FeatureLevel
    device: str | None
    float16: bool
    float64: bool
    assumed: bool
    cpu_fallback: bool
    ir_version: int
    opsets: dict[str, int]
    producer: str
    nodes: list[NodeReport]
    notes: list[str] = field(default_factory=list)
    model_nodes: int = 0  # the main graph's nodes as written (before function bodies are inlined)

    # -- counts -----------------------------------------------------------------------------------------------------
    def count(self, verdict: Verdict) -> int:
        """How many nodes have ``verdict``."""
        return sum(1 for n in self.nodes if n.verdict is verdict)

    @property
    def placed(self) -> list[NodeReport]:
        """The nodes ONNX Runtime places on a device (every node but the folded ones)."""
        return [n for n in self.nodes if n.verdict is not Verdict.FOLDED]

    @property
    def directml_flops_share(self) -> float | None:
        """The share of the estimated FLOPs that runs on DirectML (None when the model has no placed node)."""
        total = sum(n.flops for n in self.placed)
        if not total:
            return None
        return sum(n.flops for n in self.placed if n.verdict is Verdict.DIRECTML) / total

    @property
    def total_flops(self) -> int:
        """The estimated FLOPs of the placed nodes."""
        return sum(n.flops for n in self.placed)

    @property
    def all_directml(self) -> bool:
        """True when every placed node runs on DirectML (folded nodes never run)."""
        return all(n.verdict is Verdict.DIRECTML for n in self.placed)

    @property
    def exit_code(self) -> int:
        """0 when every node runs on DirectML, 1 when a node falls back to the CPU or fails (``validate``'s codes)."""
        return 0 if self.all_directml else 1

    @property
    def claimed(self) -> list[NodeReport]:
        """The nodes the provider takes (DirectML, or failing only because DirectML cannot create their operators)."""
        return [n for n in self.nodes if n.claimed]

    @property
    def lowest_level(self) -> FeatureLevel | None:
        """The lowest feature level at which every node the provider takes stays on DirectML: the highest level
        any of them needs, and at least the provider's own minimum (5.0). None when some node's operators are
        refused at every level."""
        level = PROVIDER_MIN_LEVEL
        for n in self.claimed:
            if n.level_refused:
                return None
            if n.min_level is not None:
                level = max(level, n.min_level)
        return level

    @property
    def copy_fallbacks(self) -> list[NodeReport]:
        """The CPU-fallback nodes that make ONNX Runtime copy tensors between the device and the CPU."""
        return [n for n in self.nodes if n.copies and n.verdict is not Verdict.DIRECTML]

    @property
    def blocking_ops(self) -> dict[str, int]:
        """The ops that make session creation fail (with CPU fallback as set), with how many nodes of each."""
        out: dict[str, int] = {}
        for n in self.nodes:
            if n.verdict is Verdict.FAILS:
                out[n.qualified_op] = out.get(n.qualified_op, 0) + 1
        return out

    # -- text -------------------------------------------------------------------------------------------------------
    def headline(self) -> str:
        """One line: the model, where its nodes go and how much of the work runs on DirectML."""
        placed = self.placed
        share = self.directml_flops_share
        parts = [f"{self.count(Verdict.DIRECTML)} of {len(placed)} nodes on DirectML"
                 + (f" ({share:.1%} of {_gflops(self.total_flops)})" if share is not None else "")]
        if self.count(Verdict.CPU_FALLBACK):
            parts.append(f"{self.count(Verdict.CPU_FALLBACK)} CPU fallback")
        if self.count(Verdict.FAILS):
            parts.append(f"{self.count(Verdict.FAILS)} failing")
        if self.count(Verdict.FOLDED):
            parts.append(f"{self.count(Verdict.FOLDED)} folded")
        return f"{self.source} at {self.feature_level.dml_name}: {'; '.join(parts)}."

    def device_text(self) -> str:
        """How the device was described: the adapter, or the feature level with assumed FLOAT16/FLOAT64 support."""
        yes = {True: "yes", False: "no"}
        where = self.device or "a device"
        how = "assumed; --device reads them from an adapter" if self.assumed else f"from {self.device}"
        return (f"{where} at {self.feature_level.dml_name}, FLOAT16 {yes[self.float16]}, FLOAT64 "
                f"{yes[self.float64]} ({how}); CPU fallback {'on' if self.cpu_fallback else 'off (as dmlops sets it)'}")

    def summary_lines(self) -> list[str]:
        """The summary: counts, the lowest feature level, the fallbacks that copy, the blocking ops."""
        lines = [self.headline()]
        lowest = self.lowest_level
        needed = max((n.min_level for n in self.claimed if n.min_level is not None), default=None)
        if lowest is None:
            lines.append("  lowest feature level keeping every supported node on DirectML: none (a node's DirectML "
                         "operators are refused at every level)")
        else:
            extra = ""
            if needed is not None and needed < lowest:
                extra = f" (the provider's minimum; the nodes alone need {needed.short})"
            lines.append(f"  lowest feature level keeping every supported node on DirectML: {lowest.dml_name}{extra}")
        copies = self.copy_fallbacks
        if copies:
            crossings = sum(len(n.copies) for n in copies)
            lines.append(f"  CPU fallbacks that copy tensors between the device and the CPU: {len(copies)} node(s), "
                         f"{crossings} copies per run")
            for n in copies[:5]:
                lines.append(f"    {n.label}: {'; '.join(n.copies)}")
            if len(copies) > 5:
                lines.append(f"    ... and {len(copies) - 5} more (--json or --html lists them)")
        else:
            lines.append("  CPU fallbacks that copy tensors between the device and the CPU: none")
        blocking = self.blocking_ops
        if blocking:
            lines.append("  blocking ops (session creation fails): "
                         + ", ".join(f"{op} x{k}" for op, k in sorted(blocking.items(), key=lambda kv: -kv[1])))
        else:
            lines.append("  blocking ops (session creation fails): none")
        lines.extend(f"  note: {n}" for n in self.notes)
        return lines

    def text(self, all_nodes: bool = False) -> str:
        """The report as text: the device, the nodes (those not on DirectML, or all with ``all_nodes``; the rest
        summed up per op), then the summary."""
        main = sum(1 for n in self.nodes if not n.graph)
        count = (f"{self.model_nodes} nodes ({main} after inlining)" if self.model_nodes and self.model_nodes != main
                 else f"{len(self.nodes)} nodes")
        lines = [f"{self.source}: {count}, IR {self.ir_version}, opsets "
                 + ", ".join(f"{d} {v}" for d, v in sorted(self.opsets.items()))
                 + (f", from {self.producer}" if self.producer else "")]
        lines.append(f"  checked for {self.device_text()}")
        shown = self.nodes if all_nodes else [n for n in self.nodes if n.verdict not in (Verdict.DIRECTML,
                                                                                          Verdict.FOLDED)]
        if shown and (all_nodes or len(shown) <= MAX_LISTED):
            lines.append("")
            lines.extend(self.node_table(shown))
        elif shown:  # many: one line per op, verdict and reason (--nodes lists them all)
            groups: dict[tuple, list[NodeReport]] = {}
            for n in shown:
                groups.setdefault((n.qualified_op, n.verdict, n.reason), []).append(n)
            lines.append("")
            lines.append(f"  {len(shown)} nodes not on DirectML, per op and reason (--nodes lists each):")
            for (op, verdict, reason), members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                at = ", ".join(str(m.index) for m in members[:6]) + (", ..." if len(members) > 6 else "")
                lines.append(f"    {op} x{len(members)} ({verdict.value}; nodes {at}): {reason}")
        if not all_nodes:
            grouped: dict[tuple, int] = {}
            for n in self.nodes:
                if n.verdict in (Verdict.DIRECTML, Verdict.FOLDED):
                    key = (n.verdict, n.qualified_op, "+".join(n.dml_operators),
                           n.min_level.short if n.min_level is not None else "-")
                    grouped[key] = grouped.get(key, 0) + 1
            if grouped:
                lines.append("")
                lines.append("  on DirectML or folded, per op:")
                for (verdict, op, dml, level), k in sorted(grouped.items(), key=lambda kv: (kv[0][0] != Verdict.DIRECTML,
                                                                                           kv[0][1])):
                    where = f"{dml or 'no DirectML operator'} from {level}" if verdict is Verdict.DIRECTML else "folded"
                    lines.append(f"    {op} x{k}: {where}")
        lines.append("")
        lines.extend(self.summary_lines())
        return "\n".join(lines)

    @staticmethod
    def node_table(nodes: list[NodeReport]) -> list[str]:
        """Rows for ``nodes``: index, name, op, types, ranks, verdict, DirectML operators, level, reason."""
        rows = [("#", "node", "op", "types", "ranks", "verdict", "DirectML op(s)", "level", "reason")]
        for n in nodes:
            rows.append((f"{n.graph + '/' if n.graph else ''}{n.index}", n.name[:28], n.qualified_op[:28],
                         n.types_text()[:34], n.ranks_text(), n.verdict.value, "+".join(n.dml_operators)[:30] or "-",
                         n.min_level.short if n.min_level is not None else "-", n.reason))
        widths = [max(len(r[i]) for r in rows) for i in range(8)]
        return ["  " + "  ".join(c.ljust(w) for c, w in zip(r[:8], widths)) + "  " + r[8] for r in rows]

    def to_dict(self) -> dict:
        """A JSON-ready dict: the settings, the summary and every node."""
        lowest = self.lowest_level
        return {"source": self.source, "feature_level": self.feature_level.short, "device": self.device,
                "float16": self.float16, "float64": self.float64, "device_support_assumed": self.assumed,
                "cpu_fallback": self.cpu_fallback, "ir_version": self.ir_version, "opsets": dict(self.opsets),
                "producer": self.producer, "model_nodes": self.model_nodes,
                "summary": {"nodes": len(self.nodes), "directml": self.count(Verdict.DIRECTML),
                            "cpu_fallback": self.count(Verdict.CPU_FALLBACK), "fails": self.count(Verdict.FAILS),
                            "folded": self.count(Verdict.FOLDED), "flops": self.total_flops,
                            "directml_flops_share": self.directml_flops_share,
                            "lowest_feature_level": lowest.short if lowest is not None else None,
                            "copying_fallbacks": [n.label for n in self.copy_fallbacks],
                            "blocking_ops": self.blocking_ops, "exit_code": self.exit_code},
                "notes": list(self.notes), "nodes": [n.to_dict() for n in self.nodes]}


@dataclass
class BadModel:
    """A file ``dmlops check`` could not read as an ONNX model, and why (one line)."""

    source: str
    error: str
    exit_code: int = 2

    def headline(self) -> str:
        """``path: error``."""
        return f"{self.source}: {self.error}"

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return {"source": self.source, "error": self.error, "exit_code": self.exit_code}
