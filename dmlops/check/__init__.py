"""``dmlops check``: will an ONNX model run on ONNX Runtime's DirectML provider at a feature level, node by node, and
if not, which nodes fall back to the CPU or fail, and why. Static: no Windows, no GPU, no session.

    report = dmlops.check_model("model.onnx", feature_level="5.0")
    print(report.text())                 # the nodes not on DirectML, per-op summary, the model's summary
    report.nodes[3].verdict, report.nodes[3].reason

The judge is the provider's own kernel table (dmlops/data/ort_dml_ep_kernels.json, read from onnxruntime's
OperatorRegistration.cpp: op, since-version, type lists, DirectML operators, CPU inputs, support queries) and the
per-feature-level tensor tables of the DirectML operators (dmlops.schema). Whatever dmlops infers where the table is
silent is marked "inferred" in the node's record.
"""
from __future__ import annotations

from .core import check_model
from .load import ModelInputError
from .many import check_paths, model_files
from .report import BadModel, ModelReport, NodeReport, TensorInfo, Verdict

__all__ = ["check_model", "check_paths", "model_files", "ModelReport", "NodeReport", "TensorInfo", "Verdict",
           "BadModel", "ModelInputError"]
