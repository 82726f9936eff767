"""Finding and loading DirectML, D3D12 and DXGI / DXCore, once, on first use.

Windows: DirectML.dll from ``DMLOPS_DIRECTML_LIBRARY`` if set, else the onnxruntime(-directml) package's ``capi``
folder, else torch-directml's package folder, else the system's (by plain name); d3d12.dll and dxgi.dll from the
system. Linux (WSL): libdirectml.so from ``DMLOPS_DIRECTML_LIBRARY`` or the torch-directml package folder;
libd3d12.so and libdxcore.so from ``DMLOPS_D3D12_LIBRARY`` / ``DMLOPS_DXCORE_LIBRARY``, else /usr/lib/wsl/lib.

An environment variable that is set is the only place looked for its library (no silent fallback past it); it may
name the file or the folder holding it. Packages are found with importlib.util.find_spec, never imported.

``search`` only looks (its platform, environment, file test and package finder are parameters, so every platform's
order can be tested anywhere); ``load`` loads, once per process, thread-safe, and remembers a failure.
"""
from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass, field

from ...errors import DmlOpsError

WSL_LIB = "/usr/lib/wsl/lib"
PREFIX = "directml backend: DirectML cannot be loaded.\n"


@dataclass(frozen=True)
class Place:
    """One place looked: ``label`` says what it is, ``path`` the file (None where there was nothing to look at),
    ``found`` whether a file is there (or, for a plain system name, that the loader will be asked), ``note`` why
    not."""

    label: str
    path: str | None
    found: bool
    note: str = ""

    def __str__(self) -> str:
        if self.path is None:
            return f"{self.label}: {self.note}"
        return f"{self.label}: {self.path}" + ("" if self.found else f" ({self.note or 'no such file'})")


@dataclass(frozen=True)
class Library:
    """The search result for one library: ``key`` (directml, d3d12, dxgi, dxcore), its file ``name``, the
    environment variable that names it (or None), the places looked in order, and ``chosen``: the path (or plain
    system name) to load, None when nothing was found."""

    key: str
    name: str
    env_var: str | None
    places: tuple[Place, ...]
    chosen: str | None
    plain: bool = False  # chosen is a bare name resolved by the system loader

    def problem(self, load_error: str | None = None) -> str:
        """The message for this library missing (or failing to load with ``load_error``)."""
        head = f"{self.name} could not be loaded ({load_error})" if load_error else f"{self.name} was not found"
        lines = [f"{head}. Looked, in order:"]
        lines += [f"  {i}. {p}" for i, p in enumerate(self.places, 1)]
        if self.env_var:
            lines.append(f"  Set {self.env_var} to the full path of {self.name} (or the folder holding it).")
        return "\n".join(lines)


def _package_dir(package: str, find_spec) -> str | None:
    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0]
    return os.path.dirname(spec.origin) if spec.origin else None


def _from_env(env_var: str, name: str, environ, exists, isdir) -> Place:
    value = environ[env_var]
    path = os.path.join(value, name) if isdir(value) else value
    return Place(f"{env_var}={value}", path, exists(path),
                 f"no such file; nothing else is searched while {env_var} is set")


def _one(key, name, env_var, environ, exists, isdir, candidates, system: bool) -> Library:
    """Search ``env_var`` (authoritative when set), else ``candidates`` [(label, path or None, note)], else the
    system loader by plain name when ``system``."""
    places: list[Place] = []
    if env_var and environ.get(env_var):
        place = _from_env(env_var, name, environ, exists, isdir)
        return Library(key, name, env_var, (place,), place.path if place.found else None)
    if env_var:
        places.append(Place(env_var, None, False, "not set"))
    for label, path, note in candidates:
        if path is None:
            places.append(Place(label, None, False, note))
            continue
        place = Place(label, path, exists(path))
        places.append(place)
        if place.found:
            return Library(key, name, env_var, tuple(places), path)
    if system:
        places.append(Place("system search path", name, True, ""))
        return Library(key, name, env_var, tuple(places), name, plain=True)
    return Library(key, name, env_var, tuple(places), None)


def search(platform: str | None = None, environ=None, exists=None, find_spec=None, isdir=None) -> list[Library]:
    """Where each library would be loaded from, in load order, without loading anything.

    ``platform`` (``sys.platform``), ``environ`` (``os.environ``), ``exists`` (``os.path.isfile``), ``isdir``
    (``os.path.isdir``) and ``find_spec`` (``importlib.util.find_spec``) default to the real ones.
    """
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    exists = os.path.isfile if exists is None else exists
    isdir = os.path.isdir if isdir is None else isdir
    find_spec = importlib.util.find_spec if find_spec is None else find_spec

    def in_package(package: str, sub: str, name: str, label: str):
        folder = _package_dir(package, find_spec)
        if folder is None:
            return (label, None, f"{package} is not installed")
        return (label, os.path.join(folder, sub, name) if sub else os.path.join(folder, name), "")

    if platform == "win32":
        name = "DirectML.dll"
        directml = _one("directml", name, "DMLOPS_DIRECTML_LIBRARY", environ, exists, isdir, [
            in_package("onnxruntime", "capi", name, "onnxruntime-directml package"),
            in_package("torch_directml", "", name, "torch-directml package"),
        ], system=True)
        return [_one("d3d12", "d3d12.dll", None, environ, exists, isdir, [], system=True),
                _one("dxgi", "dxgi.dll", None, environ, exists, isdir, [], system=True),
                directml]
    if platform.startswith("linux"):
        name = "libdirectml.so"
        return [
            _one("dxcore", "libdxcore.so", "DMLOPS_DXCORE_LIBRARY", environ, exists, isdir,
                 [("WSL driver folder", os.path.join(WSL_LIB, "libdxcore.so"), "")], system=False),
            _one("d3d12", "libd3d12.so", "DMLOPS_D3D12_LIBRARY", environ, exists, isdir,
                 [("WSL driver folder", os.path.join(WSL_LIB, "libd3d12.so"), "")], system=False),
            _one("directml", name, "DMLOPS_DIRECTML_LIBRARY", environ, exists, isdir,
                 [in_package("torch_directml", "", name, "torch-directml package")], system=False),
        ]
    raise DmlOpsError(f"directml backend: DirectML runs on Windows and on Linux under WSL; this platform is {platform!r}.")


def missing_message(libraries: list[Library]) -> str | None:
    """The error text for every library ``search`` did not find, or None when all were found."""
    missing = [lib for lib in libraries if lib.chosen is None]
    if not missing:
        return None
    return PREFIX + "\n".join(lib.problem() for lib in missing)


@dataclass
class Loaded:
    """The loaded libraries: ``handles`` key -> ctypes library, ``paths`` key -> the file (or plain name) loaded."""

    handles: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)

    def __getattr__(self, key):
        try:
            return self.__dict__["handles"][key]
        except KeyError:
            raise AttributeError(key) from None


_lock = threading.Lock()
_loaded: Loaded | None = None
_error: DmlOpsError | None = None


def _open(lib: Library, platform: str):
    if platform == "win32":
        # typeshed declares WinDLL only when checking for win32 ("unused-ignore": clean on either platform)
        return ctypes.WinDLL(lib.chosen)  # type: ignore[attr-defined,unused-ignore]
    # d3d12 and dxcore first and global: libdirectml.so names them in DT_NEEDED and must find these copies.
    return ctypes.CDLL(lib.chosen, mode=ctypes.RTLD_GLOBAL)


def load() -> Loaded:
    """Load the libraries on first use (once, thread-safe) and return them; DmlOpsError listing every place
    looked when one is missing or fails to load (the same error again on later calls)."""
    global _loaded, _error
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        if _error is not None:
            raise _error
        try:
            _loaded = _load(sys.platform)
        except DmlOpsError as e:
            _error = e
            raise
        return _loaded


def _load(platform: str) -> Loaded:
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        raise DmlOpsError("directml backend: needs a 64-bit Python (DirectML and D3D12 are x64 / arm64 only).")
    libraries = search(platform)
    message = missing_message(libraries)
    if message:
        raise DmlOpsError(message)
    loaded = Loaded()
    for lib in libraries:
        try:
            loaded.handles[lib.key] = _open(lib, platform)
        except OSError as e:
            raise DmlOpsError(PREFIX + lib.problem(str(e))) from None
        loaded.paths[lib.key] = lib.chosen
    return loaded


def unavailable_reason() -> str | None:
    """Why the libraries cannot be loaded (loading them if not tried yet), or None when they are loaded."""
    try:
        load()
    except DmlOpsError as e:
        return str(e)
    return None


def loaded_paths() -> dict[str, str]:
    """The files loaded so far, key -> path (empty before the first use); for ``op.notes``."""
    return dict(_loaded.paths) if _loaded is not None else {}


def reset() -> None:
    """Forget a remembered load failure (tests; a user who fixed the environment). Loaded libraries stay loaded."""
    global _error
    with _lock:
        _error = None
