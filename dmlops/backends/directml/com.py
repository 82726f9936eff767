"""COM calls through vtables with ctypes, driven by the packaged table dmlops/data/com_vtables.json.

The table (a verbatim copy of reference/com_vtables.json) gives each interface's IID, its base and the vtable slot
of every method. ``ComPtr.call`` finds the slot (walking base interfaces), builds a ctypes prototype from the
recorded C signature (or from the argtypes passed) and calls through the object's vtable.

Methods that return a struct (``returns_struct`` in the table) are called differently per platform:

- Windows (MSVC): a member function returns a struct through a hidden result pointer passed right after ``this``,
  and returns that pointer; ctypes' own struct-return rule (for plain C functions) would be wrong here.
- Linux (the WSL builds of libd3d12.so and libdirectml.so): by value per the SysV ABI, exactly as a plain C
  function taking ``this`` first, so ``restype`` is the struct and libffi classifies it (registers up to 16
  bytes, a hidden pointer before ``this`` beyond).

``ComPtr.call`` returns the struct itself on both.

Lifetime: a ComPtr owns one reference unless made with ``owned=False``. The reference is released exactly once:
by ``release()``, by leaving a ``with`` block, or by the garbage collector (``__del__``), but never while the
interpreter shuts down, when the libraries may already be gone (the process exit frees everything anyway).
"""
from __future__ import annotations

import ctypes
import json
import re
import sys
import threading
import uuid
from ctypes import POINTER, Structure, c_bool, c_char_p, c_float, c_int32, c_size_t, c_uint8, c_uint16, c_uint32
from ctypes import c_uint64, c_void_p, c_wchar_p
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...errors import DmlOpsError

TABLE = Path(__file__).resolve().parents[2] / "data" / "com_vtables.json"


# ---------------------------------------------------------------------------------------------------------- HRESULTs

# value (as unsigned 32 bits) -> (name, what it means). Sources: winerror.h, dxgi/d3d12 docs ("DXGI_ERROR").
HRESULTS: dict[int, tuple[str, str]] = {
    0x00000000: ("S_OK", "success"),
    0x00000001: ("S_FALSE", "success, with nothing done"),
    0x80004001: ("E_NOTIMPL", "the method is not implemented"),
    0x80004002: ("E_NOINTERFACE", "the object does not support the interface asked for"),
    0x80004003: ("E_POINTER", "an invalid pointer was passed"),
    0x80004004: ("E_ABORT", "the operation was aborted"),
    0x80004005: ("E_FAIL", "unspecified failure"),
    0x8000FFFF: ("E_UNEXPECTED", "unexpected failure"),
    0x80070005: ("E_ACCESSDENIED", "access denied"),
    0x80070006: ("E_HANDLE", "an invalid handle was passed"),
    0x8007000E: ("E_OUTOFMEMORY", "out of memory"),
    0x80070057: ("E_INVALIDARG", "one or more arguments are invalid"),
    0x887A0001: ("DXGI_ERROR_INVALID_CALL", "the call is invalid (parameters or object state)"),
    0x887A0002: ("DXGI_ERROR_NOT_FOUND", "the item asked for does not exist"),
    0x887A0003: ("DXGI_ERROR_MORE_DATA", "the buffer is too small"),
    0x887A0004: ("DXGI_ERROR_UNSUPPORTED", "not supported by the device or driver"),
    0x887A0005: ("DXGI_ERROR_DEVICE_REMOVED", "the GPU device was removed (driver update, crash or TDR)"),
    0x887A0006: ("DXGI_ERROR_DEVICE_HUNG", "the device hung on a badly formed command"),
    0x887A0007: ("DXGI_ERROR_DEVICE_RESET", "the device was reset by a badly formed command"),
    0x887A000A: ("DXGI_ERROR_WAS_STILL_DRAWING", "the GPU was still busy"),
    0x887A0020: ("DXGI_ERROR_DRIVER_INTERNAL_ERROR", "the driver hit an internal error"),
    0x887A0022: ("DXGI_ERROR_NOT_CURRENTLY_AVAILABLE", "the resource is not available now"),
    0x887A0026: ("DXGI_ERROR_ACCESS_LOST", "access to the resource was lost"),
    0x887A002B: ("DXGI_ERROR_ACCESS_DENIED", "access denied"),
    0x887A002D: ("DXGI_ERROR_SDK_COMPONENT_MISSING", "an SDK component is missing or mismatched"),
    0x887E0001: ("D3D12_ERROR_ADAPTER_NOT_FOUND", "the adapter of the cached pipeline state is not present"),
    0x887E0002: ("D3D12_ERROR_DRIVER_VERSION_MISMATCH", "the driver differs from the one the data was made with"),
    0x887E0003: ("D3D12_ERROR_INVALID_REDIST", "the D3D12 redistributable is invalid"),
}
HRESULT_VALUES: dict[str, int] = {name: value for value, (name, _) in HRESULTS.items()}
# DXGI_ERROR_DEVICE_* codes after which the device is unusable; GetDeviceRemovedReason says why.
DEVICE_LOST = frozenset(HRESULT_VALUES[n] for n in
                        ("DXGI_ERROR_DEVICE_REMOVED", "DXGI_ERROR_DEVICE_HUNG", "DXGI_ERROR_DEVICE_RESET"))


def hresult_text(hr: int) -> str:
    """``0x80070057 (E_INVALIDARG: one or more arguments are invalid)``; unknown codes show the hex only."""
    value = hr & 0xFFFFFFFF
    known = HRESULTS.get(value)
    return f"0x{value:08X} ({known[0]}: {known[1]})" if known else f"0x{value:08X}"


def failed(hr: int) -> bool:
    """True when ``hr`` (signed or unsigned 32 bits) is a failure code (high bit set)."""
    return bool(hr & 0x80000000)


class HResultError(DmlOpsError):
    """A COM or DirectML call returned a failing HRESULT. ``hresult`` is the unsigned 32-bit code,
    ``name`` its symbolic name (or None), ``call`` ``Interface::Method`` or the function's name."""

    def __init__(self, hr: int, call: str, operator: str | None = None, extra: str | None = None):
        self.hresult = hr & 0xFFFFFFFF
        self.name = HRESULTS.get(self.hresult, (None,))[0]
        self.call = call
        self.operator = operator
        text = f"{call} failed with HRESULT {hresult_text(hr)}"
        if operator:
            text = f"{operator}: {text}"
        if extra:
            text += f"; {extra}"
        super().__init__(text)


def check(hr: int, call: str, operator: str | None = None, extra=None) -> int:
    """Return ``hr`` when it is a success code; raise HResultError naming ``call``, ``operator`` and the HRESULT.

    ``extra``: more text for the message (GetDeviceRemovedReason, debug-layer messages), or a callable taking the
    HRESULT and returning such text or None, called only on failure.
    """
    if not failed(hr):
        return hr
    if callable(extra):
        try:
            extra = extra(hr)
        except Exception as e:  # the extra text must never hide the original failure
            extra = f"(collecting more detail failed: {e})"
    raise HResultError(hr, call, operator, extra)


# ---------------------------------------------------------------------------------------------------------- GUIDs


class GUID(Structure):
    """GUID / IID, laid out as in guiddef.h (16 bytes, little-endian first three fields)."""

    _fields_ = [("Data1", c_uint32), ("Data2", c_uint16), ("Data3", c_uint16), ("Data4", c_uint8 * 8)]

    @classmethod
    def parse(cls, text: str) -> "GUID":
        """From ``"189819f1-1db6-4b57-be54-1821339b85f7"`` (braces allowed)."""
        return cls.from_buffer_copy(uuid.UUID(text.strip("{}")).bytes_le)

    def __str__(self) -> str:
        return str(uuid.UUID(bytes_le=bytes(self)))

    def __eq__(self, other) -> bool:
        return isinstance(other, GUID) and bytes(self) == bytes(other)

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable ctypes memory); typeshed types __hash__ as a method


# ---------------------------------------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Method:
    """One vtable entry: the slot of ``name`` as seen through ``interface`` (its own or a base's)."""

    interface: str
    name: str
    index: int
    return_type: str | None
    c_signature: str | None
    returns_struct: bool


@lru_cache(maxsize=1)
def table() -> dict[str, dict]:
    """The packaged COM table: interface name -> its entry (read once)."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    return {entry["interface"]: entry for entry in data["interfaces"]}


def _interface(name: str) -> dict:
    try:
        return table()[name]
    except KeyError:
        raise DmlOpsError(f"COM interface {name!r} is not in {TABLE.name} (known: {', '.join(table())}).") from None


@lru_cache(maxsize=None)
def iid(interface: str) -> GUID:
    """The IID of ``interface`` (``"ID3D12Device"``) as a GUID; callers pass ``ctypes.byref(iid(...))``."""
    return GUID.parse(_interface(interface)["iid"])


def bases(interface: str) -> list[str]:
    """``interface`` followed by its base interfaces, most derived first (ends with IUnknown)."""
    chain = []
    name: str | None = interface
    while name is not None:
        chain.append(name)
        name = _interface(name)["base"]
    return chain


@lru_cache(maxsize=None)
def method(interface: str, name: str) -> Method:
    """The vtable slot and signature of ``interface::name``, found in the interface or its bases."""
    for owner in bases(interface):
        entry = table()[owner]
        for m in entry.get("methods") or entry.get("own_methods") or []:
            if m["name"] == name:
                return Method(interface, name, m["index"], m.get("return_type"), m.get("c_signature"),
                              bool(m.get("returns_struct")))
    raise DmlOpsError(f"{interface}::{name}: no such method in {interface} or its bases ({', '.join(bases(interface)[1:])}).")


# ---------------------------------------------------------------------------------------------------------- types

# C scalar types of the recorded signatures -> ctypes. HRESULT/BOOL are 32-bit on both platforms (c_long is not).
SCALARS: dict[str, object] = {
    "void": None, "HRESULT": c_int32, "BOOL": c_int32, "WINBOOL": c_int32, "INT": c_int32, "bool": c_bool,
    "UINT": c_uint32, "ULONG": c_uint32, "DWORD": c_uint32, "uint32_t": c_uint32, "UINT8": c_uint8,
    "UINT64": c_uint64, "D3D12_GPU_VIRTUAL_ADDRESS": c_uint64, "SIZE_T": c_size_t, "size_t": c_size_t,
    "FLOAT": c_float, "HANDLE": c_void_p, "HMODULE": c_void_p, "HWND": c_void_p, "LPCSTR": c_char_p,
    # wchar_t strings: UTF-16 on Windows, UTF-32 in the WSL builds; c_wchar is the running platform's wchar_t.
    "LPCWSTR": c_wchar_p, "PCWSTR": c_wchar_p,
    "REFIID": c_void_p, "REFGUID": c_void_p, "PFN_DXCORE_NOTIFICATION_CALLBACK": c_void_p,
}
# C enums (D3D12_*, DML_*, DXGI_*, DXCore*) are 32-bit; anything else unknown is refused, never guessed.
ENUM_NAME = re.compile(r"(?:D3D12|D3D|DML|DXGI)_[A-Z0-9_]+|DXCore[A-Za-z]+")


class D3D12_COMMAND_QUEUE_DESC(Structure):
    """D3D12_COMMAND_QUEUE_DESC (16 bytes)."""

    _fields_ = [("Type", c_uint32), ("Priority", c_int32), ("Flags", c_uint32), ("NodeMask", c_uint32)]


class D3D12_DESCRIPTOR_HEAP_DESC(Structure):
    """D3D12_DESCRIPTOR_HEAP_DESC (16 bytes)."""

    _fields_ = [("Type", c_uint32), ("NumDescriptors", c_uint32), ("Flags", c_uint32), ("NodeMask", c_uint32)]


class D3D12_CPU_DESCRIPTOR_HANDLE(Structure):
    """D3D12_CPU_DESCRIPTOR_HANDLE (8 bytes)."""

    _fields_ = [("ptr", c_size_t)]


class D3D12_GPU_DESCRIPTOR_HANDLE(Structure):
    """D3D12_GPU_DESCRIPTOR_HANDLE (8 bytes)."""

    _fields_ = [("ptr", c_uint64)]


class D3D12_HEAP_PROPERTIES(Structure):
    """D3D12_HEAP_PROPERTIES (20 bytes)."""

    _fields_ = [("Type", c_uint32), ("CPUPageProperty", c_uint32), ("MemoryPoolPreference", c_uint32),
                ("CreationNodeMask", c_uint32), ("VisibleNodeMask", c_uint32)]


class D3D12_HEAP_DESC(Structure):
    """D3D12_HEAP_DESC (48 bytes)."""

    _fields_ = [("SizeInBytes", c_uint64), ("Properties", D3D12_HEAP_PROPERTIES), ("Alignment", c_uint64),
                ("Flags", c_uint32)]


class D3D12_RESOURCE_ALLOCATION_INFO(Structure):
    """D3D12_RESOURCE_ALLOCATION_INFO (16 bytes)."""

    _fields_ = [("SizeInBytes", c_uint64), ("Alignment", c_uint64)]


class DXGI_SAMPLE_DESC(Structure):
    """DXGI_SAMPLE_DESC (8 bytes)."""

    _fields_ = [("Count", c_uint32), ("Quality", c_uint32)]


class D3D12_RESOURCE_DESC(Structure):
    """D3D12_RESOURCE_DESC (56 bytes)."""

    _fields_ = [("Dimension", c_uint32), ("Alignment", c_uint64), ("Width", c_uint64), ("Height", c_uint32),
                ("DepthOrArraySize", c_uint16), ("MipLevels", c_uint16), ("Format", c_uint32),
                ("SampleDesc", DXGI_SAMPLE_DESC), ("Layout", c_uint32), ("Flags", c_uint32)]


class LUID(Structure):
    """LUID (8 bytes)."""

    _fields_ = [("LowPart", c_uint32), ("HighPart", c_int32)]


class DML_BINDING_PROPERTIES(Structure):
    """DML_BINDING_PROPERTIES (24 bytes)."""

    _fields_ = [("RequiredDescriptorCount", c_uint32), ("TemporaryResourceSize", c_uint64),
                ("PersistentResourceSize", c_uint64)]


# Structs that the recorded methods return or take by value. Where the generated structs.py defines the same name,
# its class is used instead (see struct_type), so that a struct returned by one call can be passed to the next.
LOCAL_STRUCTS: dict[str, type] = {cls.__name__: cls for cls in (
    D3D12_COMMAND_QUEUE_DESC, D3D12_DESCRIPTOR_HEAP_DESC, D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_GPU_DESCRIPTOR_HANDLE,
    D3D12_HEAP_PROPERTIES, D3D12_HEAP_DESC, D3D12_RESOURCE_ALLOCATION_INFO, D3D12_RESOURCE_DESC, LUID,
    DML_BINDING_PROPERTIES)}


def struct_type(name: str) -> type:
    """The ctypes class for a struct returned or passed by value: the generated structs.py's if it has one."""
    found = None
    try:
        from . import structs
    except ImportError:
        pass
    else:
        found = getattr(structs, name, None)
    if found is not None:
        return found
    try:
        return LOCAL_STRUCTS[name]
    except KeyError:
        raise DmlOpsError(f"no ctypes struct for {name} (known: {', '.join(LOCAL_STRUCTS)}); pass restype/argtypes.") from None


_SAL = re.compile(r"\b_[A-Za-z]+(?:_[A-Za-z]+)*_\s*(?:\((?:[^()]|\([^()]*\))*\))?")


def c_type(text: str):
    """The ctypes type of one C parameter or return type from the table (``const D3D12_RESOURCE_DESC *`` ->
    c_void_p, ``UINT`` -> c_uint32, ``D3D12_CPU_DESCRIPTOR_HANDLE`` -> the struct)."""
    t = _SAL.sub("", text)
    t = re.sub(r"\bconst\b", " ", t).strip()
    if "*" in t or "&" in t or "[" in t:  # pointers, references and array parameters all travel as pointers
        return c_void_p
    if t in SCALARS:
        return SCALARS[t]
    if t in LOCAL_STRUCTS:
        return struct_type(t)
    if ENUM_NAME.fullmatch(t):
        return c_uint32
    raise DmlOpsError(f"cannot map the C type {text!r} to ctypes; pass argtypes/restype explicitly.")


def _split_params(signature: str) -> tuple[str, list[str]]:
    """Return type and parameter declarations (``this`` included) of a recorded C-style signature."""
    head, _, rest = signature.partition("(STDMETHODCALLTYPE")
    params = rest[rest.index(")") + 1:].strip()
    assert params.startswith("(") and params.endswith(")"), signature
    params = _SAL.sub("", params[1:-1])
    parts = [p.strip() for p in params.split(",") if p.strip()]
    return head.strip(), [p for p in parts if p != "void"]


def _param_type(decl: str) -> str:
    """``_In_ const D3D12_RESOURCE_DESC *pDesc`` -> ``const D3D12_RESOURCE_DESC *`` (drops the name)."""
    decl = re.sub(r"\[[^\]]*\]\s*$", "[]", decl.strip())
    m = re.fullmatch(r"(.*?[\s*&])\s*([A-Za-z_]\w*)(\[\])?", decl)
    if not m:
        return decl
    return m.group(1) + ("[]" if m.group(3) else "")


@lru_cache(maxsize=None)
def derived_types(interface: str, name: str) -> tuple[object, tuple]:
    """(restype, argtypes without ``this``) derived from the table's C signature of ``interface::name``."""
    m = method(interface, name)
    if not m.c_signature:
        raise DmlOpsError(f"{interface}::{name}: the table records no signature for it; pass argtypes and restype.")
    ret, params = _split_params(m.c_signature)
    return_type = m.return_type or ret
    restype = struct_type(return_type) if m.returns_struct else c_type(return_type)
    return restype, tuple(c_type(_param_type(p)) for p in params[1:])


@dataclass(frozen=True)
class Form:
    """How one method is called on one platform: the prototype's restype and argtypes (``this`` included), and
    ``struct``: the returned struct type when the method returns one, ``hidden`` True when it comes back through a
    result pointer that the caller passes after ``this`` (Windows) rather than by value (Linux)."""

    restype: object
    argtypes: tuple
    struct: type | None
    hidden: bool


def call_form(interface: str, name: str, platform: str | None = None, argtypes=None, restype=None) -> Form:
    """The calling form of ``interface::name`` on ``platform`` (``sys.platform`` by default; ``"win32"`` or other).

    ``argtypes`` (without ``this``) and ``restype`` override the types derived from the recorded signature; for a
    struct-returning method ``restype`` is the struct type.
    """
    platform = sys.platform if platform is None else platform
    m = method(interface, name)
    if argtypes is None or restype is None:
        d_res, d_args = derived_types(interface, name)
        argtypes = d_args if argtypes is None else argtypes
        restype = d_res if restype is None else restype
    args = tuple(argtypes)
    if m.returns_struct:
        if platform == "win32":
            return Form(POINTER(restype), (c_void_p, POINTER(restype)) + args, restype, True)
        return Form(restype, (c_void_p,) + args, restype, False)
    return Form(restype, (c_void_p,) + args, None, False)


def functype(platform: str | None = None):
    """The prototype factory for COM methods: WINFUNCTYPE on Windows (same as the C convention on x64), else
    CFUNCTYPE."""
    platform = sys.platform if platform is None else platform
    if platform == "win32" and hasattr(ctypes, "WINFUNCTYPE"):
        return ctypes.WINFUNCTYPE
    return ctypes.CFUNCTYPE


def prototype(interface: str, name: str, platform: str | None = None, argtypes=None, restype=None):
    """A ctypes function type for ``interface::name`` on ``platform`` (see call_form)."""
    form = call_form(interface, name, platform, argtypes, restype)
    return functype(platform)(form.restype, *form.argtypes)


# ---------------------------------------------------------------------------------------------------------- ComPtr


def _address(ptr) -> int | None:
    if isinstance(ptr, ComPtr):
        return ptr.address
    if isinstance(ptr, c_void_p):
        return ptr.value
    if ptr is None or isinstance(ptr, int):
        return ptr or None
    return ctypes.cast(ptr, c_void_p).value


class ComPtr:
    """A COM interface pointer with its interface name; owns one reference unless ``owned=False``.

    ``call("CreateCommandQueue", byref(desc), byref(iid("ID3D12CommandQueue")), byref(out))`` calls through the
    vtable; a ComPtr can be passed wherever a pointer argument is expected (``_as_parameter_``). ``platform``
    picks the calling form of struct-returning methods (tests build the Windows form on Linux with it).
    """

    def __init__(self, ptr, interface: str, *, owned: bool = True, platform: str | None = None, context: str = ""):
        _interface(interface)
        self._ptr = _address(ptr)
        self.interface = interface
        self.owned = owned
        self.platform = sys.platform if platform is None else platform
        self.context = context  # e.g. "dml:0", prefixed to error messages by callers who want it
        self._fns: dict = {}
        self._lock = threading.Lock()

    @property
    def address(self) -> int | None:
        """The interface pointer as an int (None once released)."""
        return self._ptr

    @property
    def _as_parameter_(self):
        return c_void_p(self._ptr)

    def __bool__(self) -> bool:
        return self._ptr is not None

    def __repr__(self) -> str:
        where = f"0x{self._ptr:x}" if self._ptr else "released"
        return f"<ComPtr {self.interface} {where}>"

    def _function(self, name: str, argtypes, restype):
        key = (name, None if argtypes is None else tuple(argtypes), restype)
        fn = self._fns.get(key)
        if fn is None:
            if self._ptr is None:
                raise DmlOpsError(f"{self.interface}::{name}: called on a released interface pointer.")
            form = call_form(self.interface, name, self.platform, argtypes, restype)
            slot = method(self.interface, name).index
            vtable = ctypes.cast(self._ptr, POINTER(POINTER(c_void_p))).contents
            fn = (functype(self.platform)(form.restype, *form.argtypes)(vtable[slot]), form)
            self._fns[key] = fn
        return fn

    def call(self, name: str, *args, argtypes=None, restype=None, operator: str | None = None, check_hr: bool = True,
             extra=None):
        """Call ``name`` through the vtable with ``this`` prepended; return its result.

        A method returning HRESULT is checked (``check``; ``operator`` and ``extra`` go into the error) unless
        ``check_hr=False``, and returns the HRESULT. A method returning a struct returns the struct (by value on
        Linux, through the hidden result pointer on Windows). ``argtypes``/``restype`` override the types derived
        from the table's signature.
        """
        fn, form = self._function(name, argtypes, restype)
        if self._ptr is None:
            raise DmlOpsError(f"{self.interface}::{name}: called on a released interface pointer.")
        if form.hidden:
            result = form.struct()
            fn(self._ptr, ctypes.byref(result), *args)
            return result
        result = fn(self._ptr, *args)
        if check_hr and method(self.interface, name).return_type == "HRESULT":
            check(result, f"{self.interface}::{name}", operator, extra)
        return result

    def function(self, name: str):
        """The ctypes function of ``name`` itself, called as ``fn(address, *args)``: what a call made on every
        dispatch uses (``call`` looks the method up, checks the HRESULT and handles struct returns each time). The
        caller checks HRESULTs and must not call it once this pointer is released. Refused for a method that
        returns a struct through a hidden pointer (Windows)."""
        fn, form = self._function(name, None, None)
        if form.hidden:
            raise DmlOpsError(f"{self.interface}::{name} returns a struct through a hidden pointer here; use call().")
        return fn

    def create(self, name: str, interface: str, *args, operator: str | None = None, extra=None) -> "ComPtr":
        """Call a method whose last two parameters are ``REFIID riid, void **ppv`` and wrap the new object:
        ``device.create("CreateCommandQueue", "ID3D12CommandQueue", byref(desc))``."""
        out = c_void_p()
        self.call(name, *args, ctypes.byref(iid(interface)), ctypes.byref(out), operator=operator, extra=extra)
        return ComPtr(out, interface, platform=self.platform, context=self.context)

    def query_interface(self, interface: str) -> "ComPtr":
        """QueryInterface for ``interface``; a new owned ComPtr, or HResultError (E_NOINTERFACE)."""
        out = c_void_p()
        self.call("QueryInterface", ctypes.byref(iid(interface)), ctypes.byref(out),
                  argtypes=(c_void_p, c_void_p), restype=c_int32)
        return ComPtr(out, interface, platform=self.platform, context=self.context)

    def add_ref(self) -> int:
        """AddRef; the new reference count (for diagnostics only, as COM says)."""
        return self.call("AddRef")

    def release(self) -> int | None:
        """Release the owned reference once; later calls (and a non-owning ComPtr) do nothing and return None."""
        with self._lock:
            ptr, owned = self._ptr, self.owned
            if ptr is None:
                return None
            fn, _ = self._function("Release", None, None)
            self._ptr = None
            self._fns = {}
        return fn(ptr) if owned else None

    def detach(self) -> int | None:
        """Give up ownership without releasing; returns the raw pointer (the caller now owns that reference)."""
        with self._lock:
            ptr, self._ptr, self._fns = self._ptr, None, {}
        return ptr

    def __enter__(self) -> "ComPtr":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self, _finalizing=sys.is_finalizing):  # bound now: at interpreter exit the module's globals may be gone
        if getattr(self, "_ptr", None) is None or not getattr(self, "owned", False) or _finalizing():
            return
        try:
            self.release()
        except Exception:  # never raise from a finalizer
            pass
