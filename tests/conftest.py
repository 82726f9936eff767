"""Skip tests marked ``directml`` where neither onnxruntime's DirectML provider nor torch-directml is importable."""
import importlib.util

import pytest


def _directml_reason():
    import onnxruntime

    if "DmlExecutionProvider" in onnxruntime.get_available_providers():
        return None
    if importlib.util.find_spec("torch_directml") is not None:
        return None
    return "DirectML is not available here (no DmlExecutionProvider in onnxruntime, no torch_directml)"


def pytest_collection_modifyitems(config, items):
    reason = _directml_reason()
    if reason is None:
        return
    for item in items:
        if "directml" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))
