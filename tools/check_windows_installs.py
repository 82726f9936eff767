"""Check that dmlops and each of its extras install on Windows, for every Python dmlops supports.

    python -m tools.check_windows_installs [--python 3.13 ...] [--platform win_arm64 ...] [--extra torch ...]

For each (platform, Python, extra) this evaluates pyproject.toml's requirements for that Windows machine, then
asks pip to resolve them as Windows would: ``pip download --only-binary=:all: --platform win_amd64
--python-version X --implementation cp --dest <temp dir>``, dependencies included. It prints one row per
combination (resolves, with the versions pip picked, or fails, with pip's reason) and exits 1 if any fails.

pip evaluates dependencies' environment markers (``sys_platform == 'win32'``, ``platform_system == 'Linux'``)
against the machine it runs on, even with ``--platform``; so pip runs here with its marker environment set to the
target Windows machine's, which makes a check run on Linux or macOS resolve what Windows would. It needs the
network (or a mirror given with --index-url) and downloads the wheels it picks into temporary folders (pip's
cache keeps later runs quick). Resolving is not installing: nothing here proves that a package works on Windows.

Standard library only, plus ``packaging`` (which pip and pytest bring) for the markers.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
# pip's platform tag -> what platform.machine() says on that Windows.
PLATFORMS = {"win_amd64": "AMD64", "win_arm64": "ARM64"}
# "" is a plain `pip install dmlops`; "test,torch,samples" is the README's install line.
EXTRAS = ("", "torch", "test", "samples", "test,torch,samples")

# Runs pip with the target machine's marker environment (argv[1], JSON); the rest of argv is pip's.
_PIP_AS_WINDOWS = """
import json, sys
import pip._vendor.packaging.markers as markers
env = json.loads(sys.argv[1])
markers.default_environment = lambda: dict(env, sys_platform="probe")
if not markers.Marker("sys_platform == 'probe'").evaluate():
    sys.exit("check_windows_installs: this pip does not evaluate markers through "
             "pip._vendor.packaging.markers.default_environment; it cannot resolve as Windows would")
markers.default_environment = lambda: dict(env)
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def target_environment(platform: str, python: str) -> dict[str, str]:
    """The PEP 508 marker environment of CPython ``python`` (``"3.13"``) on Windows ``platform`` (``win_amd64``)."""
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; known: {', '.join(PLATFORMS)}")
    if not re.fullmatch(r"3\.\d+", python):
        raise ValueError(f"Python version {python!r}: expected MAJOR.MINOR such as 3.13")
    return {
        "implementation_name": "cpython", "implementation_version": f"{python}.0", "os_name": "nt",
        "platform_machine": PLATFORMS[platform], "platform_python_implementation": "CPython",
        "platform_release": "10", "platform_system": "Windows", "platform_version": "10.0.26100",
        "python_full_version": f"{python}.0", "python_version": python, "sys_platform": "win32",
    }


def read_pyproject(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Any]:
    """pyproject.toml as a dict."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: pytest brings tomli, and pip vendors it
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            from pip._vendor import tomli as tomllib
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))


def project_requirements(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, list[Requirement]]:
    """pyproject.toml's requirements: ``""`` -> the dependencies, then one entry per optional extra."""
    project = read_pyproject(pyproject)["project"]
    out = {"": [Requirement(r) for r in project.get("dependencies", [])]}
    for extra, reqs in project.get("optional-dependencies", {}).items():
        out[extra] = [Requirement(r) for r in reqs]
    return out


def requirements_for(extras: str, environment: dict[str, str],
                     requirements: dict[str, list[Requirement]] | None = None) -> list[Requirement]:
    """What ``pip install "dmlops[extras]"`` asks for on the machine ``environment`` describes (markers applied).

    ``extras`` is comma-separated (``"test,torch"``; ``""`` for none); the dependencies always come first.
    """
    requirements = project_requirements() if requirements is None else requirements
    names = [e.strip() for e in extras.split(",") if e.strip()]
    unknown = [e for e in names if e not in requirements]
    if unknown:
        raise ValueError(f"unknown extra {unknown[0]!r}; pyproject.toml has: {', '.join(sorted(set(requirements) - {''}))}")
    chosen = []
    for group in ["", *names]:
        for req in requirements[group]:
            if req.marker is None or req.marker.evaluate(environment):
                chosen.append(req)
    return chosen


def _without_marker(req: Requirement) -> str:
    """``torch>=2.4; sys_platform != 'win32'`` -> ``torch>=2.4`` (the marker is already applied)."""
    return f"{req.name}{'[' + ','.join(sorted(req.extras)) + ']' if req.extras else ''}{req.specifier}"


def _reason(output: str) -> str:
    """The line of pip's output that says why it failed."""
    lines = [ln.strip() for ln in output.splitlines()]
    marker = "no matching distributions available for your environment:"
    if any(ln.endswith(marker) for ln in lines):  # a conflict whose real cause is a missing wheel
        start = next(i for i, ln in enumerate(lines) if ln.endswith(marker)) + 1
        names = []
        for ln in lines[start:]:
            if not ln:
                break
            names.append(ln)
        return f"No matching distribution found for {', '.join(names)} (no wheel for this platform and Python)"
    for pattern in (r"No matching distribution found for .*", r"Could not find a version that satisfies .*",
                    r"Cannot install .*", r"ERROR: .*"):
        for ln in lines:
            m = re.search(pattern, ln)
            if m and not ln.startswith("WARNING"):
                text = m.group(0).removeprefix("ERROR: ")
                if text.startswith("Cannot install"):  # the conflict's details follow
                    cause = [x for x in lines if x.startswith(("The user requested", "The conflict"))]
                    text += " " + "; ".join(cause[1:4])
                return text[:300]
    return (lines[-1] if lines else "pip failed without output")[:300]


def check(platform: str, python: str, extras: str, index_url: str | None = None,
          pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Any]:
    """Resolve ``dmlops[extras]`` for ``platform`` and ``python`` with pip download; a result row (a dict)."""
    env = target_environment(platform, python)
    chosen = requirements_for(extras, env, project_requirements(pyproject))
    reqs = [_without_marker(r) for r in chosen]
    row: dict[str, Any] = {"platform": platform, "python": python, "extras": extras, "requirements": reqs}
    with tempfile.TemporaryDirectory(prefix="dmlops-wincheck-") as dest:
        cmd = [sys.executable, "-c", _PIP_AS_WINDOWS, json.dumps(env), "download", "--only-binary=:all:",
               "--platform", platform, "--python-version", python, "--implementation", "cp",
               "--dest", dest, "--progress-bar", "off", "--disable-pip-version-check", "--no-input"]
        if index_url:
            cmd += ["--index-url", index_url]
        r = subprocess.run(cmd + reqs, capture_output=True, text=True)
        if r.returncode == 0:
            picked = {}
            for p in Path(dest).glob("*.whl"):
                name, version, _, _ = parse_wheel_filename(p.name)
                picked[str(name)] = str(version)
            # What was asked for, and the torch that torch-directml pins.
            shown = dict.fromkeys([*(str(canonicalize_name(q.name)) for q in chosen), "torch"])
            row.update(ok=True, picked=picked, detail=", ".join(f"{k} {picked[k]}" for k in shown if k in picked))
        else:
            row.update(ok=False, picked={}, detail=_reason(r.stdout + "\n" + r.stderr))
    return row


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 if any combination fails to resolve."""
    ap = argparse.ArgumentParser(description="Check dmlops's Windows installs (every extra, every Python) "
                                             "by resolving them with pip download.")
    ap.add_argument("--python", action="append", help=f"Python version(s) to check (default: {' '.join(PYTHONS)})")
    ap.add_argument("--platform", action="append", choices=sorted(PLATFORMS),
                    help="Windows platform tag(s) to check (default: win_amd64)")
    ap.add_argument("--extra", action="append",
                    help="extras to check, comma-separated for several at once; '' for none "
                         f"(default: {', '.join(repr(e) for e in EXTRAS)})")
    ap.add_argument("--index-url", help="the package index to resolve against (default: pip's configuration)")
    ap.add_argument("--pyproject", type=Path, default=ROOT / "pyproject.toml",
                    help="the pyproject.toml whose requirements are checked (default: this checkout's)")
    ap.add_argument("--jobs", type=int, default=4, help="resolutions run in parallel (default 4)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    pythons, platforms = args.python or list(PYTHONS), args.platform or ["win_amd64"]
    extras = args.extra if args.extra is not None else list(EXTRAS)
    try:
        for p in pythons:
            target_environment(platforms[0], p)
        for e in extras:
            requirements_for(e, target_environment(platforms[0], pythons[0]), project_requirements(args.pyproject))
    except ValueError as e:
        ap.error(str(e))
    combos = [(pl, py, ex) for pl in platforms for py in pythons for ex in extras]
    pip_version = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True).stdout
    print(f"dmlops Windows installs, resolved with pip download --only-binary=:all: --platform P --python-version X "
          f"({' '.join(pip_version.split()[:2])}, index: {args.index_url or 'pip configuration'})")
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(lambda c: check(c[0], c[1], c[2], index_url=args.index_url, pyproject=args.pyproject),
                             combos))
    width = max(len(f"dmlops[{r['extras']}]") for r in rows)
    print(f"{'platform':<10} {'python':<6} {'install':<{width}} {'result':<8} details")
    for r in rows:
        name = f"dmlops[{r['extras']}]" if r["extras"] else "dmlops"
        print(f"{r['platform']:<10} {r['python']:<6} {name:<{width}} {'resolves' if r['ok'] else 'FAILS':<8} "
              f"{r['detail']}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    failed = sum(not r["ok"] for r in rows)
    print(f"{len(rows) - failed} of {len(rows)} resolve" + (f"; {failed} FAIL" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
