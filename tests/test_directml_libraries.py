"""Library discovery for the native DirectML backend: the order of places per platform, environment variables first
and alone, the error listing every place looked, loading only on first use."""
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from dmlops.backends.directml import libraries
from dmlops.errors import DmlOpsError

SITE = os.path.join(os.sep, "site")
ORT_DLL = os.path.join(SITE, "onnxruntime", "capi", "DirectML.dll")
TORCH_DLL = os.path.join(SITE, "torch_directml", "DirectML.dll")
TORCH_SO = os.path.join(SITE, "torch_directml", "libdirectml.so")


def packages(*names):
    """A find_spec that knows ``names`` as packages under /site and records what it was asked."""
    asked = []

    def find_spec(name):
        asked.append(name)
        if name not in names:
            return None
        folder = os.path.join(SITE, name)
        return SimpleNamespace(origin=os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])

    find_spec.asked = asked
    return find_spec


def files(*paths):
    return lambda p: p in paths


def chosen(found):
    return {lib.key: lib.chosen for lib in found}


def in_order(text, *parts):
    """Every part occurs in text, in this order."""
    at = -1
    for part in parts:
        i = text.find(part, at + 1)
        assert i > at, f"{part!r} not found after position {at} in:\n{text}"
        at = i


# ------------------------------------------------------------------------------------------------ Linux (WSL)


def test_linux_order_and_defaults():
    found = libraries.search("linux", {}, files("/usr/lib/wsl/lib/libd3d12.so", "/usr/lib/wsl/lib/libdxcore.so",
                                                TORCH_SO), packages("torch_directml"))
    # d3d12 and dxcore before libdirectml.so, which names them in DT_NEEDED
    assert [lib.key for lib in found] == ["dxcore", "d3d12", "directml"]
    assert chosen(found) == {"dxcore": "/usr/lib/wsl/lib/libdxcore.so", "d3d12": "/usr/lib/wsl/lib/libd3d12.so",
                             "directml": TORCH_SO}
    assert libraries.missing_message(found) is None


def test_linux_nothing_found_lists_every_place_in_order():
    find_spec = packages()
    found = libraries.search("linux", {}, files(), find_spec)
    assert chosen(found) == {"dxcore": None, "d3d12": None, "directml": None}
    message = libraries.missing_message(found)
    in_order(message,
             "directml backend: DirectML cannot be loaded.",
             "libdxcore.so was not found. Looked, in order:",
             "1. DMLOPS_DXCORE_LIBRARY: not set",
             "2. WSL driver folder: /usr/lib/wsl/lib/libdxcore.so (no such file)",
             "Set DMLOPS_DXCORE_LIBRARY to the full path of libdxcore.so",
             "libd3d12.so was not found.",
             "1. DMLOPS_D3D12_LIBRARY: not set",
             "2. WSL driver folder: /usr/lib/wsl/lib/libd3d12.so (no such file)",
             "Set DMLOPS_D3D12_LIBRARY",
             "libdirectml.so was not found.",
             "1. DMLOPS_DIRECTML_LIBRARY: not set",
             "2. torch-directml package: torch_directml is not installed",
             "Set DMLOPS_DIRECTML_LIBRARY to the full path of libdirectml.so (or the folder holding it).")
    assert find_spec.asked == ["torch_directml"]


def test_linux_torch_directml_without_the_library():
    found = libraries.search("linux", {}, files("/usr/lib/wsl/lib/libd3d12.so", "/usr/lib/wsl/lib/libdxcore.so"),
                             packages("torch_directml"))
    message = libraries.missing_message(found)
    assert f"2. torch-directml package: {TORCH_SO} (no such file)" in message
    assert "libd3d12.so" not in message and "libdxcore.so" not in message


def test_environment_variables_come_first():
    env = {"DMLOPS_DIRECTML_LIBRARY": "/opt/dml/libdirectml.so", "DMLOPS_D3D12_LIBRARY": "/opt/wsl/libd3d12.so",
           "DMLOPS_DXCORE_LIBRARY": "/opt/wsl/libdxcore.so"}
    everything = files(*env.values(), "/usr/lib/wsl/lib/libd3d12.so", "/usr/lib/wsl/lib/libdxcore.so", TORCH_SO)
    found = libraries.search("linux", env, everything, packages("torch_directml"))
    assert chosen(found) == {"dxcore": "/opt/wsl/libdxcore.so", "d3d12": "/opt/wsl/libd3d12.so",
                             "directml": "/opt/dml/libdirectml.so"}


def test_environment_variable_naming_a_folder():
    env = {"DMLOPS_DIRECTML_LIBRARY": "/opt/dml"}
    found = libraries.search("linux", env, files("/opt/dml/libdirectml.so"), packages(),
                             isdir=lambda p: p == "/opt/dml")
    assert chosen(found)["directml"] == "/opt/dml/libdirectml.so"


def test_a_set_variable_is_the_only_place_looked():
    env = {"DMLOPS_DIRECTML_LIBRARY": "/opt/missing/libdirectml.so"}
    found = libraries.search("linux", env, files(TORCH_SO), packages("torch_directml"))
    lib = {x.key: x for x in found}["directml"]
    assert lib.chosen is None and len(lib.places) == 1
    message = libraries.missing_message(found)
    in_order(message, "libdirectml.so was not found. Looked, in order:",
             "1. DMLOPS_DIRECTML_LIBRARY=/opt/missing/libdirectml.so: /opt/missing/libdirectml.so "
             "(no such file; nothing else is searched while DMLOPS_DIRECTML_LIBRARY is set)",
             "Set DMLOPS_DIRECTML_LIBRARY")
    assert TORCH_SO not in message


# ------------------------------------------------------------------------------------------------ Windows


def test_windows_onnxruntime_first():
    find_spec = packages("onnxruntime", "torch_directml")
    found = libraries.search("win32", {}, files(ORT_DLL, TORCH_DLL), find_spec)
    assert [lib.key for lib in found] == ["d3d12", "dxgi", "directml"]
    assert chosen(found) == {"d3d12": "d3d12.dll", "dxgi": "dxgi.dll", "directml": ORT_DLL}
    assert find_spec.asked == ["onnxruntime", "torch_directml"]  # looked up, never imported


def test_windows_torch_directml_second():
    found = libraries.search("win32", {}, files(TORCH_DLL), packages("onnxruntime", "torch_directml"))
    assert chosen(found)["directml"] == TORCH_DLL


def test_windows_system_last_and_its_load_error():
    found = libraries.search("win32", {}, files(), packages("onnxruntime"))
    lib = {x.key: x for x in found}["directml"]
    assert lib.chosen == "DirectML.dll" and lib.plain
    assert libraries.missing_message(found) is None  # the system loader still has to be asked
    message = lib.problem("[WinError 126] The specified module could not be found")
    in_order(message,
             "DirectML.dll could not be loaded ([WinError 126] The specified module could not be found). "
             "Looked, in order:",
             "1. DMLOPS_DIRECTML_LIBRARY: not set",
             f"2. onnxruntime-directml package: {ORT_DLL} (no such file)",
             "3. torch-directml package: torch_directml is not installed",
             "4. system search path: DirectML.dll",
             "Set DMLOPS_DIRECTML_LIBRARY to the full path of DirectML.dll")


def test_windows_environment_variable():
    env = {"DMLOPS_DIRECTML_LIBRARY": r"C:\dml\DirectML.dll"}
    found = libraries.search("win32", env, files(r"C:\dml\DirectML.dll", ORT_DLL), packages("onnxruntime"))
    assert chosen(found)["directml"] == r"C:\dml\DirectML.dll"


def test_other_platforms_are_refused():
    with pytest.raises(DmlOpsError, match=r"^directml backend: DirectML runs on Windows and on Linux under WSL; "
                                          r"this platform is 'darwin'\.$"):
        libraries.search("darwin", {}, files(), packages())


# ------------------------------------------------------------------------------------------------ loading


@pytest.fixture
def fresh(monkeypatch):
    if libraries.loaded_paths():
        pytest.skip("DirectML is loaded in this process; the failure paths cannot be exercised")
    for var in ("DMLOPS_DIRECTML_LIBRARY", "DMLOPS_D3D12_LIBRARY", "DMLOPS_DXCORE_LIBRARY"):
        monkeypatch.delenv(var, raising=False)
    libraries.reset()
    yield monkeypatch
    libraries.reset()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux (WSL) variables")
def test_load_reports_the_variable_that_points_nowhere(fresh, tmp_path):
    missing = tmp_path / "libdirectml.so"
    fresh.setenv("DMLOPS_DIRECTML_LIBRARY", str(missing))
    with pytest.raises(DmlOpsError, match=r"libdirectml.so was not found") as info:
        libraries.load()
    assert f"DMLOPS_DIRECTML_LIBRARY={missing}: {missing} (no such file;" in str(info.value)
    # the failure is remembered: the same error, without searching again
    with pytest.raises(DmlOpsError) as again:
        libraries.load()
    assert again.value is info.value
    assert libraries.loaded_paths() == {}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux (WSL) variables")
def test_load_reports_a_file_that_is_not_a_library(fresh, tmp_path):
    for name, var in (("libdxcore.so", "DMLOPS_DXCORE_LIBRARY"), ("libd3d12.so", "DMLOPS_D3D12_LIBRARY"),
                      ("libdirectml.so", "DMLOPS_DIRECTML_LIBRARY")):
        (tmp_path / name).write_bytes(b"not an ELF file")
        fresh.setenv(var, str(tmp_path / name))
    with pytest.raises(DmlOpsError, match=r"^directml backend: DirectML cannot be loaded\.\nlibdxcore\.so could not "
                                          r"be loaded \(.*\)\. Looked, in order:\n  1\. DMLOPS_DXCORE_LIBRARY="):
        libraries.load()
    assert libraries.unavailable_reason().startswith("directml backend: DirectML cannot be loaded.")


def test_import_dmlops_loads_no_library():
    code = """
import ctypes, sys
opened = []
real = ctypes.CDLL.__init__
def record(self, name, *a, **k):
    opened.append(name)
    return real(self, name, *a, **k)
ctypes.CDLL.__init__ = record
import dmlops
import dmlops.backends.directml.com, dmlops.backends.directml.libraries, dmlops.backends.directml.adapters
from dmlops.backends.directml import libraries
found = libraries.search()
print(repr(opened), libraries.loaded_paths(), libraries._loaded, libraries._error,
      sorted(m for m in ("onnxruntime", "torch", "torch_directml") if m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    opened, rest = out.split("] ", 1) if out.startswith("[") else ("", out)
    assert not any(k in opened.lower() for k in ("directml", "d3d12", "dxcore", "dxgi")), out
    assert rest == "{} None None []", out
