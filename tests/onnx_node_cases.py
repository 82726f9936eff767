"""ONNX's node test cases (onnx.backend.test.case.node), regenerated in memory, as an independent oracle.

``generated(modules)`` runs the generators that ``collect_testcases()`` runs, but only those of the named modules and
with their module's ``expect`` captured: ``collect_testcases()`` imports all ~200 generator modules (about 5 s) and
keeps a process-wide op-type filter, so a filtered call made by another test would hide cases.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class NodeCase:
    """One ONNX node case: the node, its inputs and expected outputs (None where NumPy cannot hold a tensor:
    float8, int4, bfloat16, which DirectML has no DataType for either) and the opset it was written for."""

    name: str
    node: object
    inputs: list | None
    outputs: list | None
    opset: int


def _array(v):
    from onnx import TensorProto, numpy_helper

    return numpy_helper.to_array(v) if isinstance(v, TensorProto) else np.asarray(v)


def generated(modules) -> dict[str, NodeCase]:
    """{case name: NodeCase} from the generators of ``onnx.backend.test.case.node.<module>`` for each module."""
    from onnx import defs

    captured = []
    state = np.random.get_state()
    for name in modules:
        with np.errstate(all="ignore"):  # importing runs nothing, but some generators overflow on purpose
            module = importlib.import_module(f"onnx.backend.test.case.node.{name}")
        original = module.expect
        module.expect = lambda node, inputs, outputs, name, **kw: captured.append((name, node, inputs, outputs, kw))
        try:
            for cls in vars(module).values():
                if inspect.isclass(cls) and cls.__module__ == module.__name__:
                    for attr in sorted(vars(cls)):
                        if attr.startswith("export"):
                            np.random.seed(0)  # as onnx's exporter does before each generator
                            with np.errstate(all="ignore"):
                                getattr(cls, attr)()
        finally:
            module.expect = original
    np.random.set_state(state)
    out = {}
    for name, node, inputs, outputs, kw in captured:
        imports = kw.get("opset_imports")
        opset = imports[0].version if imports else defs.get_schema(node.op_type, domain=node.domain).since_version
        try:
            out[name] = NodeCase(name, node, [_array(i) for i in inputs], [_array(o) for o in outputs], opset)
        except Exception:  # a tensor NumPy cannot hold
            out[name] = NodeCase(name, node, None, None, opset)
    return out


def attribute(node, name: str, default=None):
    """The value of attribute ``name`` of an ONNX node, or ``default``."""
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default
