"""DML_GRAPH_DESC in Python: graph inputs, operator nodes and input / intermediate / output edges.

``GraphDesc`` mirrors the struct (indices, as DirectML has them); ``GraphBuilder`` is the pleasant
way to make one::

    b = dmlops.GraphBuilder()
    x = b.input("x", TensorDesc("FLOAT32", [4, 8]))
    h = b.add(dmlops.ActivationRelu(input_tensor=td, output_tensor=td), input_tensor=x)
    b.output("y", h.output_tensor)
    graph = b.build()

A node's input *slots* are its input tensor fields in struct order (a tensor array field gives one
slot per element), as ``ToNodeInputIndex`` counts them; output slots likewise.

An intermediate edge connects a producer's output buffer to a consumer's input TensorDesc. The two
must share a DataType; the consumer may *reinterpret* the buffer with other Sizes and Strides
(a reshape, a broadcast through zero strides, a transpose through permuted strides), as long as it
reads inside the producer's TotalTensorSizeInBytes. That is how DirectML graphs express reshapes
at no cost; Chromium's WebNN DirectML backend builds its reshape that way (a new node output with
other dimensions over the same operator output, ``services/webnn/dml/graph_impl.cc``). Every
consumer of one graph input must declare the same TensorDesc, since one buffer is bound to it.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

from .base import OperatorDesc
from .errors import DescriptorError, DmlOpsError, Problem, ValidationError
from .types import FeatureLevel, TensorDesc
from .validation import problems as node_problems


_UINT_MAX = 2**32 - 1


class _Edge:
    """Edge indices are DirectML UINTs: a whole number from 0 to 2**32 - 1, checked at construction."""

    def __post_init__(self):
        from dataclasses import fields

        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= _UINT_MAX:
                raise DescriptorError(f"{type(self).__name__}.{f.name}",
                                      f"expected a whole number from 0 to {_UINT_MAX}; got {value!r}.")
            object.__setattr__(self, f.name, int(value))  # NumPy integers become Python ints


@dataclass(frozen=True)
class InputEdge(_Edge):
    """DML_INPUT_GRAPH_EDGE_DESC: graph input → a node's input slot."""

    graph_input_index: int
    to_node_index: int
    to_node_input_index: int


@dataclass(frozen=True)
class IntermediateEdge(_Edge):
    """DML_INTERMEDIATE_GRAPH_EDGE_DESC: a node's output slot → another node's input slot."""

    from_node_index: int
    from_node_output_index: int
    to_node_index: int
    to_node_input_index: int


@dataclass(frozen=True)
class OutputEdge(_Edge):
    """DML_OUTPUT_GRAPH_EDGE_DESC: a node's output slot → graph output."""

    from_node_index: int
    from_node_output_index: int
    graph_output_index: int


def slots(desc: OperatorDesc, kind: str) -> list[tuple[str, TensorDesc | None]]:
    """A node's input (``kind="input"``) or output slots: (DML field name or ``Name[i]``, TensorDesc or None)."""
    out: list[tuple[str, TensorDesc | None]] = []
    for f in desc.schema().fields:
        if f.kind != kind or not f.is_tensor:
            continue
        value = getattr(desc, f.py_name)
        if f.type == "TENSOR_DESC_ARRAY":
            out.extend((f"{f.name}[{i}]", t) for i, t in enumerate(value))
        else:
            out.append((f.name, value))
    return out


@dataclass(frozen=True)
class GraphDesc:
    """DML_GRAPH_DESC. ``input_names``/``output_names`` name the graph's inputs and outputs for Python callers."""

    nodes: tuple[OperatorDesc, ...]
    input_edges: tuple[InputEdge, ...]
    intermediate_edges: tuple[IntermediateEdge, ...]
    output_edges: tuple[OutputEdge, ...]
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]

    def __post_init__(self):
        for name in ("nodes", "input_edges", "intermediate_edges", "output_edges", "input_names", "output_names"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    @property
    def input_count(self) -> int:
        """InputCount."""
        return len(self.input_names)

    @property
    def output_count(self) -> int:
        """OutputCount."""
        return len(self.output_names)

    @classmethod
    def single(cls, desc: OperatorDesc) -> "GraphDesc":
        """A one-node graph whose inputs and outputs are the operator's present tensors, named by DML field."""
        ins = [(n, t) for n, t in slots(desc, "input")]
        outs = [(n, t) for n, t in slots(desc, "output")]
        in_names = [n for n, t in ins if t is not None]
        out_names = [n for n, t in outs if t is not None]
        return cls(
            nodes=(desc,),
            input_edges=tuple(InputEdge(in_names.index(n), 0, i) for i, (n, t) in enumerate(ins) if t is not None),
            intermediate_edges=(),
            output_edges=tuple(OutputEdge(0, i, out_names.index(n)) for i, (n, t) in enumerate(outs) if t is not None),
            input_names=tuple(in_names), output_names=tuple(out_names))

    # ---------------------------------------------------------------------------------------
    def problems(self, feature_level) -> list[Problem]:
        """Every problem of the graph at ``feature_level``: each node's, and the edges' (binding, agreement, cycles)."""
        level = FeatureLevel.parse(feature_level)
        out: list[Problem] = []

        def add(where, message, rule="graph"):
            out.append(Problem("GRAPH", where, rule, message))

        for k, node in enumerate(self.nodes):
            if not isinstance(node, OperatorDesc):
                add(f"Nodes[{k}]", f"expected an operator descriptor; got {type(node).__name__}.", "type")
                return out
            for p in node_problems(node, level):
                out.append(Problem("GRAPH", f"Nodes[{k}] ({p.operator})" + (f".{p.field}" if p.field else ""),
                                   p.rule, p.message))
        ins = [slots(n, "input") for n in self.nodes]
        outs = [slots(n, "output") for n in self.nodes]

        def node_ref(k, name):
            return f"Nodes[{k}] ({self.nodes[k].OPERATOR_TYPE}).{name}"

        def slot(table, k, i, where, what):
            if not 0 <= k < len(self.nodes):
                add(where, f"node index {k} is out of range (the graph has {len(self.nodes)} nodes).", "index")
                return None
            if not 0 <= i < len(table[k]):
                add(where, f"{what} index {i} is out of range: {self.nodes[k].OPERATOR_TYPE} has "
                           f"{len(table[k])} {what} tensor slots.", "index")
                return None
            name, td = table[k][i]
            if td is None:
                add(where, f"{node_ref(k, name)} is null (an absent optional tensor); it cannot be connected.", "null")
                return None
            return name, td

        bound: dict[tuple[int, int], str] = {}
        first_use: dict[int, tuple[str, TensorDesc]] = {}
        for e, edge in enumerate(self.input_edges):
            where = f"InputEdges[{e}]"
            if not 0 <= edge.graph_input_index < self.input_count:
                add(where, f"graph input index {edge.graph_input_index} is out of range "
                           f"(the graph has {self.input_count} inputs).", "index")
                continue
            to = slot(ins, edge.to_node_index, edge.to_node_input_index, where, "input")
            if to is None:
                continue
            self._bind(bound, (edge.to_node_index, edge.to_node_input_index), where, add, node_ref)
            gi = edge.graph_input_index
            if gi in first_use:
                other_ref, other = first_use[gi]
                ref = node_ref(edge.to_node_index, to[0])
                if _layout(other) != _layout(to[1]):
                    add(where, f"graph input '{self.input_names[gi]}' feeds {other_ref} as {_show(other)} and "
                               f"{ref} as {_show(to[1])}; one input must agree in DataType, Sizes and Strides.",
                        "edge")
            else:
                first_use[gi] = (node_ref(edge.to_node_index, to[0]), to[1])
        for gi, name in enumerate(self.input_names):
            if gi not in first_use:
                add(f"Inputs[{gi}]", f"graph input '{name}' is connected to no node.", "unused")
        for e, link in enumerate(self.intermediate_edges):
            where = f"IntermediateEdges[{e}]"
            frm = slot(outs, link.from_node_index, link.from_node_output_index, where, "output")
            to = slot(ins, link.to_node_index, link.to_node_input_index, where, "input")
            if frm is None or to is None:
                continue
            self._bind(bound, (link.to_node_index, link.to_node_input_index), where, add, node_ref)
            if frm[1].data_type != to[1].data_type:
                add(where, f"{node_ref(link.from_node_index, frm[0])} is {_show(frm[1])} but "
                           f"{node_ref(link.to_node_index, to[0])} is {_show(to[1])}; an edge's two ends must agree "
                           "in DataType.", "edge")
            elif _reach_bytes(to[1]) > frm[1].total_tensor_size_in_bytes:
                add(where, f"{node_ref(link.to_node_index, to[0])} reads {_show(to[1])} (Strides "
                           f"{list(to[1].strides or to[1].packed_strides)}) up to byte {_reach_bytes(to[1])}, past the "
                           f"{frm[1].total_tensor_size_in_bytes} bytes that {node_ref(link.from_node_index, frm[0])} "
                           "writes; a consumer may reinterpret a buffer, not read beyond it.", "edge")
        for k, table in enumerate(ins):
            for i, (name, td) in enumerate(table):
                if td is not None and (k, i) not in bound:
                    add(f"Nodes[{k}]", f"{node_ref(k, name)} is connected to no edge; every input tensor must be bound.",
                        "unbound")
        outputs_bound: dict[int, int] = {}
        for e, out_edge in enumerate(self.output_edges):
            where = f"OutputEdges[{e}]"
            if not 0 <= out_edge.graph_output_index < self.output_count:
                add(where, f"graph output index {out_edge.graph_output_index} is out of range "
                           f"(the graph has {self.output_count} outputs).", "index")
                continue
            if slot(outs, out_edge.from_node_index, out_edge.from_node_output_index, where, "output") is None:
                continue
            if out_edge.graph_output_index in outputs_bound:
                add(where, f"graph output '{self.output_names[out_edge.graph_output_index]}' is already written by "
                           f"OutputEdges[{outputs_bound[out_edge.graph_output_index]}].", "duplicate")
            outputs_bound[out_edge.graph_output_index] = e
        for go, name in enumerate(self.output_names):
            if go not in outputs_bound:
                add(f"Outputs[{go}]", f"graph output '{name}' is written by no node.", "unbound")
        if not out:
            cycle = self._cycle()
            if cycle:
                add(None, "the nodes form a cycle: " + " -> ".join(f"Nodes[{k}]" for k in cycle) + ".", "cycle")
        return out

    def lowest_feature_level(self) -> FeatureLevel:
        """The lowest DML_FEATURE_LEVEL at which the graph validates; ValidationError (at the newest) if none."""
        for level in FeatureLevel:
            if not self.problems(level):
                return level
        self.validate(FeatureLevel.latest())
        raise AssertionError("unreachable: the graph is valid at the newest level")

    def _bind(self, bound, key, where, add, node_ref):
        k, i = key
        if key in bound:
            add(where, f"{node_ref(k, slots(self.nodes[k], 'input')[i][0])} is already bound by {bound[key]}.",
                "duplicate")
        bound[key] = where

    def validate(self, feature_level) -> None:
        """Raise ValidationError with every problem; return None when the graph is valid."""
        found = self.problems(feature_level)
        if found:
            raise ValidationError(found)

    def _cycle(self) -> list[int] | None:
        """One cycle as node indices (first repeated last), or None. Iterative: graphs can be thousands deep."""
        succ: dict[int, list[int]] = {k: [] for k in range(len(self.nodes))}
        for e in self.intermediate_edges:
            succ[e.from_node_index].append(e.to_node_index)
        state: dict[int, int] = {}  # 1: on the current path, 2: finished
        for root in range(len(self.nodes)):
            if root in state:
                continue
            path, iters = [root], [iter(succ[root])]
            state[root] = 1
            while path:
                n = next(iters[-1], None)
                if n is None:
                    state[path.pop()] = 2
                    iters.pop()
                elif state.get(n) == 1:
                    return path[path.index(n):] + [n]
                elif n not in state:
                    state[n] = 1
                    path.append(n)
                    iters.append(iter(succ[n]))
        return None

    def order(self) -> list[int]:
        """The nodes in an order where every producer comes before its consumers, lowest index first among the
        ready ones (the graph must be acyclic). Linear in nodes and edges: recurrent backprop graphs are large."""
        import heapq

        waiting = [0] * len(self.nodes)
        succ: dict[int, list[int]] = {}
        for e in {(e.from_node_index, e.to_node_index) for e in self.intermediate_edges}:
            waiting[e[1]] += 1
            succ.setdefault(e[0], []).append(e[1])
        ready = [k for k, n in enumerate(waiting) if n == 0]
        heapq.heapify(ready)
        done: list[int] = []
        while ready:
            k = heapq.heappop(ready)
            done.append(k)
            for n in succ.get(k, ()):
                waiting[n] -= 1
                if waiting[n] == 0:
                    heapq.heappush(ready, n)
        if len(done) < len(self.nodes):
            raise DmlOpsError("GRAPH: the nodes form a cycle.")
        return done

    def input_descs(self) -> list[TensorDesc]:
        """Each graph input's TensorDesc (taken from the first node slot it feeds)."""
        descs: dict[int, TensorDesc] = {}
        for e in self.input_edges:
            td = slots(self.nodes[e.to_node_index], "input")[e.to_node_input_index][1]
            assert td is not None, "validation refuses an edge to an absent tensor"
            descs.setdefault(e.graph_input_index, td)
        return [descs[i] for i in range(self.input_count)]

    def output_descs(self) -> list[TensorDesc]:
        """Each graph output's TensorDesc."""
        descs: dict[int, TensorDesc] = {}
        for e in self.output_edges:
            td = slots(self.nodes[e.from_node_index], "output")[e.from_node_output_index][1]
            assert td is not None, "validation refuses an edge from an absent tensor"
            descs[e.graph_output_index] = td
        return [descs[i] for i in range(self.output_count)]


def _show(td: TensorDesc) -> str:
    return f"{td.data_type.name} {list(td.sizes)}"


def _layout(td: TensorDesc) -> tuple:
    return td.data_type, tuple(td.sizes), tuple(td.strides or td.packed_strides)


def _reach_bytes(td: TensorDesc) -> int:
    """Bytes a reader of ``td`` touches: up to the end of its last element."""
    from .tensors import needed_elements

    return (needed_elements(td) * td.data_type.size_in_bits + 7) // 8


def reinterprets(frm: TensorDesc, to: TensorDesc) -> bool:
    """Whether an edge's consumer reads the producer's buffer with other Sizes or Strides."""
    return _layout(frm)[1:] != _layout(to)[1:]


@dataclass(frozen=True)
class NodeHandle:
    """A node added to a GraphBuilder; ``handle.output_tensor`` or ``handle["OutputTensor"]`` is one of its outputs."""

    builder: "GraphBuilder"
    index: int

    def __getitem__(self, name: str) -> "Value":
        desc = self.builder.nodes[self.index]
        names = [n for n, _ in slots(desc, "output")]
        if name not in names:
            py = {v: k for k, v in desc.FIELD_NAMES.items()}.get(name, name)
            if py in desc.FIELD_NAMES and desc.FIELD_NAMES[py] in names:
                name = desc.FIELD_NAMES[py]
            else:
                raise DmlOpsError(f"{desc.OPERATOR_TYPE}: {name!r} is not an output (outputs: {', '.join(names)}).")
        return Value("node", (self.index, names.index(name)))

    def __getattr__(self, name: str) -> "Value":
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]


@dataclass(frozen=True)
class Value:
    """A graph input or a node output, to connect to node inputs or graph outputs."""

    kind: str  # "input" | "node"
    key: tuple


@dataclass
class GraphBuilder:
    """Builds a GraphDesc: ``input()``, ``add()``, ``output()``, then ``build()``."""

    nodes: list = field(default_factory=list)
    _inputs: list = field(default_factory=list)
    _outputs: list = field(default_factory=list)
    _input_edges: list = field(default_factory=list)
    _intermediate: list = field(default_factory=list)
    _output_edges: list = field(default_factory=list)

    def input(self, name: str) -> Value:
        """A new graph input; its TensorDesc is the one of the node inputs it feeds."""
        if name in self._inputs:
            raise DmlOpsError(f"GRAPH: an input named {name!r} already exists.")
        self._inputs.append(name)
        return Value("input", (len(self._inputs) - 1,))

    def add(self, desc: OperatorDesc, **inputs: Value) -> NodeHandle:
        """Add ``desc`` as a node; connect its input fields (Python or DML names) to graph inputs or node outputs."""
        if not isinstance(desc, OperatorDesc):
            raise DmlOpsError(f"GRAPH: expected an operator descriptor; got {type(desc).__name__}.")
        k = len(self.nodes)
        self.nodes.append(desc)
        names = [n for n, _ in slots(desc, "input")]
        for key, value in inputs.items():
            name = desc.FIELD_NAMES.get(key, key)
            if name not in names:
                raise DmlOpsError(f"GRAPH: {desc.OPERATOR_TYPE} has no input {key!r} (inputs: {', '.join(names)}).")
            if not isinstance(value, Value):
                raise DmlOpsError(f"GRAPH: {desc.OPERATOR_TYPE}.{name} must be connected to a graph input or a node "
                                  f"output; got {type(value).__name__}.")
            slot = names.index(name)
            if value.kind == "input":
                self._input_edges.append(InputEdge(value.key[0], k, slot))
            else:
                self._intermediate.append(IntermediateEdge(value.key[0], value.key[1], k, slot))
        return NodeHandle(self, k)

    def output(self, name: str, value: Value) -> None:
        """Expose a node output as graph output ``name``."""
        if name in self._outputs:
            raise DmlOpsError(f"GRAPH: an output named {name!r} already exists.")
        if not isinstance(value, Value) or value.kind != "node":
            raise DmlOpsError(f"GRAPH: output {name!r} must be a node output (e.g. node.output_tensor).")
        self._outputs.append(name)
        self._output_edges.append(OutputEdge(value.key[0], value.key[1], len(self._outputs) - 1))

    def build(self) -> GraphDesc:
        """The GraphDesc (validate it with ``graph.validate(level)``; ``dmlops.compile`` does)."""
        return GraphDesc(tuple(self.nodes), tuple(self._input_edges), tuple(self._intermediate),
                         tuple(self._output_edges), tuple(self._inputs), tuple(self._outputs))
