"""What every framework adapter shares: argument checks in the source framework's terms, and AdapterGraph.

An adapter (``dmlops.frameworks.tensorflow.fused_batch_norm_grad_v3`` ...) checks its arguments as the
source framework does, builds a DirectML graph for their shapes and attributes (cached: one graph per
signature), binds the arrays, and runs it on any backend and device. With ``return_graph=True`` it
returns the AdapterGraph instead of running it, to inspect, validate or serialize the descriptors.
"""
from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from ..errors import DmlOpsError
from ..graph import GraphDesc
from ..types import FeatureLevel


class Built:
    """A graph for one argument signature, with its compiled operators (per backend, device and level) and
    ``finish``, which turns the graph's outputs (a dict by name) into the adapter's result."""

    def __init__(self, op: str, graph: GraphDesc, finish: Callable):
        self.op = op
        self.graph = graph
        self.finish = finish
        self._compiled: dict = {}
        self._lowest: FeatureLevel | None = None
        self._lock = threading.Lock()

    @property
    def lowest_feature_level(self) -> FeatureLevel:
        """The lowest DML_FEATURE_LEVEL at which this graph validates."""
        if self._lowest is None:
            self._lowest = self.graph.lowest_feature_level()
        return self._lowest

    def compiled(self, backend: str | None, device, feature_level):
        """The compiled graph (compiled once per backend, device and level; hashing a large graph per call
        would cost more than running it). No backend: as ``dmlops.compile`` chooses (the native backend where a
        DirectML device exists, else onnxruntime)."""
        from ..compiled import compile, resolve_backend

        backend, device = resolve_backend(backend, device)
        key = (backend, device, None if feature_level is None else FeatureLevel.parse(feature_level))
        with self._lock:
            if key not in self._compiled:
                self._compiled[key] = compile(self.graph, backend, device, feature_level)
            return self._compiled[key]


class AdapterGraph:
    """An adapter call as a DirectML graph: ``graph`` (a GraphDesc), ``feeds`` (its inputs by name, as bound),
    ``lowest_feature_level``, and ``run(backend, device, feature_level)`` giving the adapter's result."""

    def __init__(self, built: Built, feeds: dict):
        self._built = built
        self.feeds = feeds

    @property
    def op(self) -> str:
        """The source operator, e.g. ``tensorflow.FusedBatchNormGradV3``."""
        return self._built.op

    @property
    def graph(self) -> GraphDesc:
        """The DirectML graph (DML_GRAPH_DESC mirror)."""
        return self._built.graph

    @property
    def lowest_feature_level(self) -> FeatureLevel:
        """The lowest DML_FEATURE_LEVEL at which the graph validates."""
        return self._built.lowest_feature_level

    def compile(self, backend: str | None = None, device=None, feature_level=None):
        """The CompiledOperator of the graph (see dmlops.compile; no backend: the one it chooses)."""
        return self._built.compiled(backend, device, feature_level)

    def run(self, backend: str | None = None, device=None, feature_level=None):
        """Run the graph and return the adapter's result (no backend: the one dmlops.compile chooses)."""
        outputs = self.compile(backend, device, feature_level)(self.feeds)
        return self._built.finish(outputs)

    def __repr__(self) -> str:
        count = len(self.graph.nodes)
        return (f"<AdapterGraph {self.op}: {count} DirectML node{'s' if count != 1 else ''}, lowest level "
                f"{self.lowest_feature_level.short}>")


def finish_or_graph(built: Built, feeds: dict, return_graph: bool, backend: str | None, device, feature_level):
    """The adapters' last line: the AdapterGraph, or its result on ``backend``/``device``."""
    plan = AdapterGraph(built, feeds)
    return plan if return_graph else plan.run(backend, device, feature_level)


# ---------------------------------------------------------------------------------------------- argument checks
_NO_BFLOAT16 = " DirectML has no bfloat16 (no DML_TENSOR_DATA_TYPE for it at any feature level)."


def array(op: str, name: str, value, dtypes: tuple[str, ...], ranks: tuple[int, ...] | None = None) -> np.ndarray:
    """``value`` as a NumPy array of one of ``dtypes`` (NumPy names) and ``ranks``; errors name the argument.
    Nothing is cast: a float64 array where float32 is expected is an error, as a dtype mismatch is in TF."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        if "bfloat16" in str(value.dtype):  # NumPy has no bfloat16: say why before .numpy() fails
            raise DmlOpsError(f"{op}: {name} has dtype bfloat16; expected {' or '.join(dtypes)}.{_NO_BFLOAT16}")
        value = value.detach().cpu().numpy()
    if not isinstance(value, np.ndarray):
        if isinstance(value, (list, tuple, int, float)):
            raise DmlOpsError(f"{op}: {name} must be an array; got {type(value).__name__}. "
                              f"Use numpy.asarray(..., dtype=numpy.{dtypes[0]}).")
        raise DmlOpsError(f"{op}: {name} must be a NumPy array; got {type(value).__name__}.")
    if value.dtype.name not in dtypes:
        hint = _NO_BFLOAT16 if "bfloat16" in value.dtype.name or value.dtype.name == "V2" else ""
        raise DmlOpsError(f"{op}: {name} has dtype {value.dtype.name}; expected {' or '.join(dtypes)}.{hint}")
    if ranks is not None and value.ndim not in ranks:
        raise DmlOpsError(f"{op}: {name} must be {' or '.join(f'{r}-D' for r in ranks)}; got shape "
                          f"{list(value.shape)}.")
    return value


def choice(op: str, name: str, value, allowed) -> str:
    """``value`` if it is one of ``allowed`` (strings), else an error listing them."""
    if value not in allowed:
        raise DmlOpsError(f"{op}: {name} must be one of {', '.join(repr(a) for a in allowed)}; got {value!r}.")
    return value


def packed(value: np.ndarray) -> np.ndarray:
    """A C-contiguous array (the graph binds packed buffers)."""
    return np.ascontiguousarray(value)


__all__ = ["AdapterGraph", "Built", "finish_or_graph", "array", "choice", "packed"]
