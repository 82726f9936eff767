"""Skip tests marked ``directml`` where neither onnxruntime's DirectML provider nor torch-directml is importable;
mark the open work listed in tests/known_failures.txt as strict expected failures."""
import importlib.util
from pathlib import Path

import pytest


def _directml_reason():
    import onnxruntime

    if "DmlExecutionProvider" in onnxruntime.get_available_providers():
        return None
    if importlib.util.find_spec("torch_directml") is not None:
        return None
    from dmlops.backends.directml import adapters

    if adapters.devices():  # the native backend's libraries load (Windows, or WSL through DMLOPS_*_LIBRARY)
        return None
    return ("DirectML is not available here (no DmlExecutionProvider in onnxruntime, no torch_directml, no DirectML "
            "adapter for the native backend)")


KNOWN_FAILURES = Path(__file__).parent / "known_failures.txt"


def _known_failures() -> dict[str, str]:
    out = {}
    for line in KNOWN_FAILURES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            nodeid, _, why = line.partition(" # ")
            out[nodeid.strip()] = why.strip()
    return out


def pytest_collection_modifyitems(config, items):
    # Work still open (listed with its reason in tests/known_failures.txt): strict expected failures, so a fix
    # makes the suite fail until its line is removed, and nothing listed can silently pass or be forgotten.
    known = _known_failures()
    for item in items:
        if item.nodeid in known:
            item.add_marker(pytest.mark.xfail(strict=True, reason=known[item.nodeid]))
    reason = _directml_reason()
    if reason is None:
        return
    for item in items:
        if "directml" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def fake(monkeypatch):
    """``fake(**options)`` installs the fake DirectML (tests/fake_directml.py); everything is released after the
    test (``fake_directml.release_all``)."""
    from tests import fake_directml as F

    yield lambda **options: F.install(monkeypatch, **options)
    F.release_all()
