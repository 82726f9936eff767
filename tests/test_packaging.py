"""Packaging: the wheel ships the descriptors (built and installed into a fresh venv here), and the dependency
markers give every Windows Python an install that resolves (checked offline; the online check is
tools/check_windows_installs.py)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from tools import check_windows_installs as W

ROOT = Path(__file__).resolve().parent.parent
# Python versions with torch-directml wheels for win_amd64 on PyPI (torch-directml 0.2.5.dev240914, the newest;
# tools/check_windows_installs.py re-checks). onnxruntime-directml has win_amd64 wheels for all of 3.10 to 3.14.
TORCH_DIRECTML_PYTHONS = {"3.10", "3.11", "3.12"}
LINUX = {"implementation_name": "cpython", "implementation_version": "3.12.0", "os_name": "posix",
         "platform_machine": "x86_64", "platform_python_implementation": "CPython", "platform_release": "6.8",
         "platform_system": "Linux", "platform_version": "#1", "python_full_version": "3.12.0",
         "python_version": "3.12", "sys_platform": "linux"}


def _pyproject() -> dict:
    return W.read_pyproject(ROOT / "pyproject.toml")


def _names(extras: str, env: dict) -> set[str]:
    return {str(canonicalize_name(r.name)) for r in W.requirements_for(extras, env)}


# ------------------------------------------------------------------ the wheel


def test_the_package_list_names_every_package():
    # Discovery cannot see dmlops.descriptors (mapped from the top-level descriptors/), so the list is explicit;
    # a package missing from it would be missing from the wheel while every in-tree test still passes.
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "dmlops").rglob("__init__.py")}
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    assert "dmlops.descriptors" in listed, "pyproject.toml must list dmlops.descriptors, or the wheel lacks them"
    assert listed - {"dmlops.descriptors"} == on_disk, (
        f"pyproject.toml [tool.setuptools] packages must list every package: missing {sorted(on_disk - listed)}, "
        f"not a package {sorted(listed - on_disk - {'dmlops.descriptors'})}")
    assert _pyproject()["tool"]["setuptools"]["package-dir"] == {"dmlops.descriptors": "descriptors"}
    assert not (ROOT / "dmlops" / "descriptors").exists(), "the descriptors live in the top-level descriptors/ only"


def test_a_checkout_reads_the_top_level_descriptors():
    from dmlops import schema

    assert Path(str(schema.descriptor_folder())) == ROOT / "descriptors"


def test_the_built_wheel_installs_into_a_fresh_venv_and_loads_all_177_descriptors(tmp_path):
    # Build from a copy, so the checkout gets no build/ folder and parallel runs do not share one.
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("dmlops", "descriptors"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    dist = tmp_path / "dist"
    # No build isolation: the build uses this environment's setuptools (the test extra names it), so nothing is
    # downloaded; --check-build-dependencies says which one is missing if it is.
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "--check-build-dependencies", "--no-index", "-q", "-w", str(dist), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = dist.glob("dmlops-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = [n for n in names if n.startswith("dmlops/descriptors/")]
    assert {"dmlops/descriptors/_schema.json", "dmlops/descriptors/_enums.json"} <= set(shipped)
    assert len([n for n in shipped if not n.split("/")[-1].startswith("_")]) == 177
    assert not [n for n in names if n.startswith("descriptors/")], "descriptors/ must not install as a top level"

    # A venv without pip (pip installs into it from here). It sees this environment's packages (numpy, onnx)
    # through a .pth line, which adds the folder but runs none of its .pth files: this checkout's editable
    # install stays invisible, so dmlops can only come from the wheel.
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    import sysconfig

    (purelib / "outer_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                        "--force-reinstall", "--no-index", str(wheel)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH")}
    probe = ("import json, dmlops\nfrom dmlops import schema\n"
             "print(json.dumps({'file': dmlops.__file__, 'folder': str(schema.descriptor_folder()), "
             "'count': len(schema.all_schemas()), 'enums': len(schema.enums_data()['enums']), "
             "'gru': schema.get('GRU').struct_name}))")
    r = subprocess.run([str(python), "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    site = purelib.resolve()
    assert Path(got["file"]).resolve().is_relative_to(site), f"dmlops came from {got['file']}, not the wheel"
    assert Path(got["folder"]).resolve() == site / "dmlops" / "descriptors"
    assert got["count"] == 177 and got["gru"] == "DML_GRU_OPERATOR_DESC"
    assert got["enums"] > 0

    script = venv / ("Scripts/dmlops.exe" if os.name == "nt" else "bin/dmlops")
    r = subprocess.run([str(script), "describe", "GRU"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("GRU  (DML_GRU_OPERATOR_DESC, DML_OPERATOR_TYPE value 78)")


# ------------------------------------------------------------------ Windows markers (offline)


@pytest.mark.parametrize("python", W.PYTHONS)
def test_windows_x64_gets_torch_directml_exactly_where_it_has_wheels(python):
    env = W.target_environment("win_amd64", python)
    base, torch = _names("", env), _names("torch", env)
    assert base == {"numpy", "onnx", "onnxruntime-directml"}  # never both onnxruntime packages: one module
    if python in TORCH_DIRECTML_PYTHONS:
        assert torch - base == {"torch-directml"}  # it pins its own torch (2.4.1)
    else:
        assert torch - base == {"torch"}  # CPU torch; DirectML through onnxruntime-directml
    assert _names("test,torch,samples", env) == torch | _names("test", env) | _names("samples", env)


@pytest.mark.parametrize("python", W.PYTHONS)
def test_windows_arm64_and_linux_get_the_plain_packages(python):
    # onnxruntime-directml and torch-directml have no win_arm64 wheels.
    for env in (W.target_environment("win_arm64", python), LINUX):
        assert _names("torch", env) == {"numpy", "onnx", "onnxruntime", "torch"}


def test_requirements_for_refuses_an_unknown_extra():
    with pytest.raises(ValueError, match="unknown extra 'cuda'; pyproject.toml has: samples, test, torch"):
        W.requirements_for("torch,cuda", W.target_environment("win_amd64", "3.12"))
    with pytest.raises(ValueError, match="unknown platform 'win32'"):
        W.target_environment("win32", "3.12")


def test_check_asks_pip_for_a_windows_binary_resolution(monkeypatch):
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        dest = Path(cmd[cmd.index("--dest") + 1])
        for wheel in ("torch-2.9.0-cp313-cp313-win_amd64.whl", "onnxruntime_directml-1.24.4-cp313-cp313-win_amd64.whl"):
            (dest / wheel).write_bytes(b"")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(W.subprocess, "run", fake_run)
    row = W.check("win_amd64", "3.13", "torch")
    (cmd,) = calls
    assert json.loads(cmd[3])["sys_platform"] == "win32" and json.loads(cmd[3])["python_version"] == "3.13"
    args = cmd[4:]
    assert args[0] == "download" and "--only-binary=:all:" in args
    assert args[args.index("--platform") + 1] == "win_amd64" and args[args.index("--python-version") + 1] == "3.13"
    assert "torch>=2.4" in args and not [a for a in args if a.startswith("torch-directml")]
    assert row["ok"] and row["detail"] == "onnxruntime-directml 1.24.4, torch 2.9.0"


def test_pip_runs_with_the_windows_marker_environment(tmp_path):
    # Offline: with an empty index, pip says it found no `nothere` only if it evaluated the marker as Windows.
    env = json.dumps(W.target_environment("win_amd64", "3.13"))
    cmd = [sys.executable, "-c", W._PIP_AS_WINDOWS, env, "download", "--no-index", "--find-links", str(tmp_path),
           "--dest", str(tmp_path), "--no-deps", "nothere; sys_platform == 'win32' and python_version >= '3.13'"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 1 and "No matching distribution found for nothere" in r.stderr, r.stdout + r.stderr
    linux = json.dumps(LINUX)
    r = subprocess.run(cmd[:3] + [linux] + cmd[4:], capture_output=True, text=True)
    assert r.returncode == 0 and "Ignoring nothere" in r.stdout + r.stderr, r.stdout + r.stderr


def test_pip_failure_reasons_are_read_from_its_output():
    assert W._reason("ERROR: Could not find a version that satisfies the requirement torch-directml (from versions: "
                     "none)\nERROR: No matching distribution found for torch-directml\n") == (
        "No matching distribution found for torch-directml")
    conflict = ("ERROR: Cannot install torch>=2.4 because these package versions have conflicting dependencies.\n\n"
                "The conflict is caused by:\n    The user requested torch>=2.4\n\n"
                "Additionally, some packages in these conflicts have no matching distributions available for your "
                "environment:\n    torch\n\nTo fix this you could try to:\n")
    assert W._reason(conflict) == "No matching distribution found for torch (no wheel for this platform and Python)"


def test_readme_windows_quickstart_pins_no_linux_torch():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Windows", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    assert 'pip install -e ".[test,torch,samples]"' in block and "torch==" not in block
    assert "python -m tools.check_windows_installs" in section
