"""What the sections of ``dmlops demo`` share (dmlops/demo.py and dmlops/demo_adapters.py): the backends and
devices they run on, how a row reports a refusal, and the error measure."""
from __future__ import annotations

import numpy as np

from .errors import DmlOpsError

SHOWN = ("reference", "onnxruntime", "torch", "directml")  # the backends the demo's tables run


def devices(backend: str) -> list[str]:
    """Every device a backend can run on here (``directml``: each native DirectML adapter with a device)."""
    if backend == "reference":
        return ["cpu"]
    if backend == "directml":
        from .backends.directml import adapters

        return [a.device for a in adapters.devices() if a.feature_level is not None]
    if backend == "onnxruntime":
        import onnxruntime

        from .backends import onnxruntime as ort_backend
        return ort_backend.available_devices(onnxruntime)
    try:
        import torch
    except ImportError:  # the torch extra is not installed: no torch rows (said in the header)
        return []
    from .backends import torch as torch_backend
    return torch_backend.available_devices(torch)


def refused(out, prefix: str, device: str, error: DmlOpsError) -> bool:
    """Print a row for a backend and device that refused a graph before running it; return whether that is expected:
    a DirectML device refuses what it cannot run faithfully (for example torch-directml and UINT32 tensors), while a
    refusal anywhere else is a failure of the demo."""
    expected = device.startswith("dml")
    out(f"{prefix} refused{'' if expected else ' (FAIL)'}: {error}")
    return expected


def max_error(got, want) -> float:
    """Largest absolute difference over every output (NaN where both are NaN counts as equal)."""
    worst = 0.0
    for name, w in want.items():
        g = np.asarray(got[name], dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        with np.errstate(invalid="ignore"):  # inf - inf where both overflowed the same way
            diff = np.where((np.isnan(g) & np.isnan(w)) | (g == w), 0.0, np.abs(g - w))
        worst = max(worst, float(np.nanmax(diff)) if diff.size else 0.0)
    return worst
