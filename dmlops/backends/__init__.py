"""Execution backends: ``reference`` (NumPy), ``onnxruntime`` and ``torch``, each importing its library lazily, and
``directml``, the native backend (``backends/directml/``), which hands descriptors and graphs to DirectML unchanged.

Every lowering backend runs a GraphDesc (a single operator is a one-node graph) through ``evaluate``: nodes in
dependency order, each lowered by dmlops.lower, each output rounded to its declared data type.
"""
from __future__ import annotations

from ..graph import GraphDesc, reinterprets, slots

BACKENDS = ("onnxruntime", "torch", "reference", "directml")


def evaluate(graph: GraphDesc, inputs: list, lower, settle, reinterpret) -> list:
    """Run every node of ``graph``; return the graph outputs in order.

    ``inputs``: one logical value per graph input. ``lower(desc, x) -> y`` runs a node.
    ``settle(value, td)`` rounds a node output to its TensorDesc's data type (and back to the
    compute type, so a consumer sees what DirectML would have stored).
    ``reinterpret(value, frm, to)`` reads a producer's output (TensorDesc ``frm``) through a consumer's
    other Sizes/Strides (``to``): the graph's reshapes, broadcasts and transposes between nodes.
    """
    from ..lower import node_inputs

    bound: dict[tuple[int, int], object] = {}
    for e in graph.input_edges:
        bound[(e.to_node_index, e.to_node_input_index)] = inputs[e.graph_input_index]
    produced: dict[tuple[int, int], object] = {}
    out_slots = [slots(desc, "output") for desc in graph.nodes]
    consumers: dict[int, list] = {}
    for ie in graph.intermediate_edges:
        frm = out_slots[ie.from_node_index][ie.from_node_output_index][1]
        to = slots(graph.nodes[ie.to_node_index], "input")[ie.to_node_input_index][1]
        assert frm is not None and to is not None  # GraphDesc.problems refuses edges to null tensors
        consumers.setdefault(ie.from_node_index, []).append((ie, frm, to if reinterprets(frm, to) else None))
    for k in graph.order():
        desc = graph.nodes[k]
        values = {name: bound[(k, i)] for i, (name, td) in enumerate(slots(desc, "input")) if td is not None}
        y = lower(desc, node_inputs(desc, values))
        for i, (name, td) in enumerate(out_slots[k]):
            if td is None:
                continue
            field, _, index = name.partition("[")
            value = y[field][int(index[:-1])] if index else y[field]
            produced[(k, i)] = settle(value, td)
        for e, frm, to in consumers.get(k, ()):
            value = produced[(k, e.from_node_output_index)]
            bound[(e.to_node_index, e.to_node_input_index)] = value if to is None else reinterpret(value, frm, to)
    edges = sorted(graph.output_edges, key=lambda e: e.graph_output_index)
    return [produced[(e.from_node_index, e.from_node_output_index)] for e in edges]


def parse_device(device: str, backend: str) -> tuple[str, int]:
    """``"dml"``, ``"dml:1"``, ``"cuda:0"``, ``"cpu"`` → (kind, index)."""
    from ..errors import DmlOpsError

    if not isinstance(device, str):
        raise DmlOpsError(f"{backend}: device must be a string such as 'cpu', 'cuda:0' or 'dml:0'; got {device!r}.")
    kind, _, index = device.lower().partition(":")
    if kind not in ("cpu", "cuda", "dml") or (index and not index.isdigit()):
        raise DmlOpsError(f"{backend}: unknown device {device!r}; use 'cpu', 'cuda[:N]' or 'dml[:N]'.")
    return kind, int(index or 0)
