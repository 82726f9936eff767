"""Execution backends: ``reference`` (NumPy), ``onnxruntime`` and ``torch``, each importing its library lazily, and
``directml``, the native backend (``backends/directml/``), which hands descriptors and graphs to DirectML unchanged.

Every lowering backend runs a GraphDesc (a single operator is a one-node graph) through ``evaluate``: nodes in
dependency order, each lowered by dmlops.lower, each output rounded to its declared data type. ``plan`` is the
graph's wiring worked out once (which value feeds which field of which node, which edges reinterpret): the torch
backend keeps it with its compiled operator, so a call walks no slots and builds no dicts of names but ``x``.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..graph import GraphDesc, reinterprets, slots
from ..types import TensorDesc

BACKENDS = ("onnxruntime", "torch", "reference", "directml")


@dataclass(frozen=True)
class Step:
    """One node of a Plan. Values live in numbered registers (a list): graph input ``i`` in register ``i``.

    ``fields``: the node's input tensor fields in schema order, each (DML name, None for an absent tensor, a
    register, or a tuple of registers for a tensor-array field): what ``x`` holds. ``outputs``: (DML field, index in
    a tensor-array field or None, register, TensorDesc) of each present output slot. ``reinterprets``: (register
    read, register written, producer's TensorDesc, consumer's TensorDesc) of each edge out of this node whose
    consumer reads the buffer through other Sizes/Strides."""

    node: int
    desc: object
    fields: tuple[tuple[str, int | tuple[int, ...] | None], ...]
    outputs: tuple[tuple[str, int | None, int, TensorDesc], ...]
    reinterprets: tuple[tuple[int, int, TensorDesc, TensorDesc], ...]

    def x(self, registers: list) -> dict:
        """The node's ``x`` (dmlops.lower): every input tensor field by DML name, None where absent."""
        return {name: None if ref is None else registers[ref] if isinstance(ref, int)
                else tuple(registers[r] for r in ref) for name, ref in self.fields}


@dataclass(frozen=True)
class Plan:
    """A graph's evaluation worked out once: ``steps`` in dependency order; ``outputs``: the register of each graph
    output; ``descs``: the TensorDesc whose data type each register holds (a graph input's, a producer's output's,
    or a reinterpreting consumer's)."""

    registers: int
    steps: tuple[Step, ...]
    outputs: tuple[int, ...]
    descs: tuple[TensorDesc, ...]


def plan(graph: GraphDesc) -> Plan:
    """The Plan of a validated ``graph`` (every input slot bound: GraphDesc.problems)."""
    descs: list = list(graph.input_descs())
    bound: dict[tuple[int, int], int] = {}
    for e in graph.input_edges:
        bound[(e.to_node_index, e.to_node_input_index)] = e.graph_input_index
    in_slots = [slots(desc, "input") for desc in graph.nodes]
    out_slots = [slots(desc, "output") for desc in graph.nodes]
    produced: dict[tuple[int, int], int] = {}
    for k, table in enumerate(out_slots):
        for i, (_, td) in enumerate(table):
            if td is not None:
                produced[(k, i)] = len(descs)
                descs.append(td)
    edges: dict[int, list] = {}
    for ie in graph.intermediate_edges:
        frm = out_slots[ie.from_node_index][ie.from_node_output_index][1]
        to = in_slots[ie.to_node_index][ie.to_node_input_index][1]
        assert frm is not None and to is not None  # GraphDesc.problems refuses edges to null tensors
        src = produced[(ie.from_node_index, ie.from_node_output_index)]
        if reinterprets(frm, to):
            bound[(ie.to_node_index, ie.to_node_input_index)] = len(descs)
            edges.setdefault(ie.from_node_index, []).append((src, len(descs), frm, to))
            descs.append(to)
        else:
            bound[(ie.to_node_index, ie.to_node_input_index)] = src
    steps = []
    for k in graph.order():
        desc = graph.nodes[k]
        slot_of = {name: i for i, (name, _) in enumerate(in_slots[k])}
        fields: list[tuple[str, int | tuple[int, ...] | None]] = []
        for f in desc.schema().fields:
            if f.kind != "input" or not f.is_tensor:
                continue
            if f.type == "TENSOR_DESC_ARRAY":
                count = len(getattr(desc, f.py_name))
                fields.append((f.name, tuple(bound[(k, slot_of[f"{f.name}[{i}]"])] for i in range(count))))
            else:
                i = slot_of[f.name]
                fields.append((f.name, bound[(k, i)] if in_slots[k][i][1] is not None else None))
        outputs = []
        for i, (name, td) in enumerate(out_slots[k]):
            if td is not None:
                field, _, index = name.partition("[")
                outputs.append((field, int(index[:-1]) if index else None, produced[(k, i)], td))
        steps.append(Step(k, desc, tuple(fields), tuple(outputs), tuple(edges.get(k, ()))))
    out_edges = sorted(graph.output_edges, key=lambda e: e.graph_output_index)
    return Plan(len(descs), tuple(steps), tuple(produced[(e.from_node_index, e.from_node_output_index)]
                                                for e in out_edges), tuple(descs))


def evaluate(graph: GraphDesc, inputs: list, lower, settle, reinterpret, prepared: Plan | None = None) -> list:
    """Run every node of ``graph``; return the graph outputs in order.

    ``inputs``: one logical value per graph input. ``lower(desc, x) -> y`` runs a node.
    ``settle(value, td)`` rounds a node output to its TensorDesc's data type (and back to the
    compute type, so a consumer sees what DirectML would have stored).
    ``reinterpret(value, frm, to)`` reads a producer's output (TensorDesc ``frm``) through a consumer's
    other Sizes/Strides (``to``): the graph's reshapes, broadcasts and transposes between nodes.
    ``prepared``: the graph's ``plan``, where the caller keeps one.
    """
    p = plan(graph) if prepared is None else prepared
    registers: list = [None] * p.registers
    registers[: len(inputs)] = inputs
    for step in p.steps:
        y = lower(step.desc, step.x(registers))
        for field, index, reg, td in step.outputs:
            registers[reg] = settle(y[field] if index is None else y[field][index], td)
        for src, dst, frm, to in step.reinterprets:
            registers[dst] = reinterpret(registers[src], frm, to)
    return [registers[r] for r in p.outputs]


def parse_device(device: str, backend: str) -> tuple[str, int]:
    """``"dml"``, ``"dml:1"``, ``"cuda:0"``, ``"cpu"`` → (kind, index)."""
    from ..errors import DmlOpsError

    if not isinstance(device, str):
        raise DmlOpsError(f"{backend}: device must be a string such as 'cpu', 'cuda:0' or 'dml:0'; got {device!r}.")
    kind, _, index = device.lower().partition(":")
    if kind not in ("cpu", "cuda", "dml") or (index and not index.isdigit()):
        raise DmlOpsError(f"{backend}: unknown device {device!r}; use 'cpu', 'cuda[:N]' or 'dml[:N]'.")
    return kind, int(index or 0)
