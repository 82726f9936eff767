"""dmlops: DirectML's operator API in Python — typed descriptors, validation, execution.

``import dmlops`` is light: the 177 descriptor classes (``dmlops.Gru``, ...) load on first use, and
no execution backend (ONNX Runtime, PyTorch) is imported until something runs.
"""
from __future__ import annotations

from .errors import DescriptorError, DmlOpsError, Problem, UnsupportedValue, ValidationError
from .types import DataType, FeatureLevel, ScaleBias, Size2D, TensorDesc, TensorFlags

__version__ = "0.1.0"


def problems(desc, feature_level) -> list[Problem]:
    """Every problem that makes ``desc`` invalid at ``feature_level`` (empty list when valid)."""
    from .validation import problems as _problems

    return _problems(desc, feature_level)


def validate(desc, feature_level) -> None:
    """Raise ValidationError listing every problem of ``desc`` at ``feature_level``; return None when valid."""
    from .validation import validate as _validate

    _validate(desc, feature_level)


def from_json(document, path: str = "$"):
    """An operator descriptor from a DxDispatch-style dict ``{"type": "DML_OPERATOR_GRU", "desc": {...}}``."""
    from .jsonio import from_json as _from_json

    return _from_json(document, path)


def to_json(desc) -> dict:
    """A descriptor as a DxDispatch-style dict ``{"type": "DML_OPERATOR_...", "desc": {...}}``."""
    from .jsonio import to_json as _to_json

    return _to_json(desc)


def load(path):
    """Read an operator descriptor from a JSON file (DxDispatch's dispatchable format)."""
    from .jsonio import load as _load

    return _load(path)


def compile(target, backend: str | None = None, device=None, feature_level=None, *, debug: bool = False,
            execution_flags=None):
    """Validate a descriptor or GraphDesc and make it runnable on ``backend``: lowered for "onnxruntime", "torch" or
    "reference", or handed to DirectML unchanged by "directml" (``debug=True``: DirectML's debug layer;
    ``execution_flags``: DML_EXECUTION_FLAGS for CompileOperator); with no backend, "directml" where a DirectML
    device exists, else "onnxruntime"; returns a cached CompiledOperator (see dmlops.compiled.compile)."""
    from .compiled import compile as _compile

    return _compile(target, backend, device, feature_level, debug=debug, execution_flags=execution_flags)


def run(target, inputs=None, /, *, backend: str | None = None, device=None, feature_level=None, debug: bool = False,
        execution_flags=None, **kwargs):
    """Compile (or reuse) ``target`` and run it once; returns the outputs by name (see dmlops.compiled.run)."""
    from .compiled import run as _run

    return _run(target, inputs, backend=backend, device=device, feature_level=feature_level, debug=debug,
                execution_flags=execution_flags, **kwargs)


def devices():
    """Every DirectML adapter on this machine (``dml:0`` first) as ``Adapter`` records: name, vendor, memory, the
    highest DML_FEATURE_LEVEL and FLOAT16/FLOAT64 support. Empty when DirectML's libraries cannot be loaded here;
    ``dmlops.backends.directml.adapters.unavailable_reason()`` says where dmlops looked."""
    from .backends.directml.adapters import devices as _devices

    return _devices()


def check_model(model, feature_level=None, device=None, **options):
    """Check an ONNX model (a path or an onnx.ModelProto) against ONNX Runtime's DirectML provider, node by node:
    where each node runs at ``feature_level`` (or on ``device`` "dml:N") and why; returns a ModelReport (see
    dmlops.check.check_model for ``cpu_fallback``, ``float16``, ``float64``)."""
    from .check import check_model as _check_model

    return _check_model(model, feature_level, device, **options)


def __getattr__(name: str):
    # Descriptor classes and enums (CapWords names) load on first use: creating 177 dataclasses
    # costs ~0.1 s. Lower-case names are submodules and must not trigger this.
    if name[:1].isupper():
        import importlib

        if name in ("GraphBuilder", "GraphDesc", "InputEdge", "IntermediateEdge", "OutputEdge"):
            return getattr(importlib.import_module("dmlops.graph"), name)
        for module_name in ("dmlops.descs", "dmlops.enums"):
            module = importlib.import_module(module_name)
            if name in module.__all__:
                return getattr(module, name)
    raise AttributeError(f"module 'dmlops' has no attribute {name!r}")


def __dir__():
    import importlib

    descs, enums = importlib.import_module("dmlops.descs"), importlib.import_module("dmlops.enums")
    return sorted(set(globals()) | set(__all__) | set(descs.__all__) | set(enums.__all__))


__all__ = [
    "DataType", "FeatureLevel", "TensorFlags", "TensorDesc", "ScaleBias", "Size2D",
    "DmlOpsError", "DescriptorError", "ValidationError", "UnsupportedValue", "Problem",
    "problems", "validate", "from_json", "to_json", "load", "compile", "run", "check_model",
    "GraphBuilder", "GraphDesc", "InputEdge", "IntermediateEdge", "OutputEdge",
]
