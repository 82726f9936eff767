"""DirectML adapters: enumeration (DXGI on Windows, DXCore on WSL), their D3D12 and DirectML devices, and what each
device supports (the highest DML_FEATURE_LEVEL, FLOAT16 and FLOAT64 tensors).

Enumeration runs once per process, on the first call of ``devices()``; the D3D12 and DML devices it creates are
kept for the execution part (``open_device``). An adapter whose D3D12 or DML device cannot be created is still
listed, with ``feature_level=None`` and the reason in ``problem``. Software adapters (WARP, DXGI's
DXGI_ADAPTER_FLAG_SOFTWARE or DXCore's IsHardware == false) are listed with ``software=True``, never hidden: they
run DirectML too, slowly.

The few structs needed here are defined locally with ctypes (the feature-query structs have the layouts of
reference/dml_struct_layouts.json; the generated structs.py has the same ones for the execution part).
"""
from __future__ import annotations

import ctypes
import re
import sys
import threading
from ctypes import Structure, byref, c_bool, c_int32, c_size_t, c_uint16, c_uint32, c_uint64, c_void_p, sizeof
from dataclasses import asdict, dataclass, field

from ...errors import DmlOpsError
from ...types import DataType, FeatureLevel
from . import libraries
from .com import (DEVICE_LOST, GUID, HRESULT_VALUES, ComPtr, HResultError, check, failed, functype, hresult_text,
                  iid)

D3D_FEATURE_LEVEL_11_0 = 0xB000
D3D_FEATURE_LEVEL_1_0_CORE = 0x1000
DML_CREATE_DEVICE_FLAG_NONE = 0
DML_CREATE_DEVICE_FLAG_DEBUG = 1
DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0
DML_FEATURE_FEATURE_LEVELS = 1
DXGI_ADAPTER_FLAG_SOFTWARE = 2
# dxcore_interface.h (microsoft/DirectX-Headers): DEFINE_GUID(DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE, ...)
DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE = "248e2800-a793-4724-abaa-23a6de1be090"
# dxcore_interface.h: enum class DXCoreAdapterProperty : uint32_t
DXCORE_PROPERTY = {"DriverVersion": 1, "DriverDescription": 2, "HardwareID": 3, "DedicatedAdapterMemory": 7, "IsHardware": 11}

# PCI vendor ids -> the name shown (PCI-SIG registry; 0x1414 is Microsoft's WARP / Basic Render Driver).
VENDORS = {0x10DE: "NVIDIA", 0x1002: "AMD", 0x1022: "AMD", 0x8086: "Intel", 0x1414: "Microsoft",
           0x5143: "Qualcomm", 0x4D4F4351: "Qualcomm", 0x13B5: "Arm"}


class DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(Structure):
    """DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT (4 bytes)."""

    _fields_ = [("DataType", c_uint32)]


class DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT(Structure):
    """DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT (4 bytes)."""

    _fields_ = [("IsSupported", c_int32)]


class DML_FEATURE_QUERY_FEATURE_LEVELS(Structure):
    """DML_FEATURE_QUERY_FEATURE_LEVELS (16 bytes: a count, then a pointer at offset 8)."""

    _fields_ = [("RequestedFeatureLevelCount", c_uint32), ("RequestedFeatureLevels", c_void_p)]


class DML_FEATURE_DATA_FEATURE_LEVELS(Structure):
    """DML_FEATURE_DATA_FEATURE_LEVELS (4 bytes)."""

    _fields_ = [("MaxSupportedFeatureLevel", c_uint32)]


class LUID(Structure):
    """LUID (8 bytes)."""

    _fields_ = [("LowPart", c_uint32), ("HighPart", c_int32)]


class DXGI_ADAPTER_DESC1(Structure):
    """DXGI_ADAPTER_DESC1 (312 bytes on x64). Description is WCHAR[128], UTF-16 on Windows; kept as uint16 so the
    layout is the same wherever it is built."""

    _fields_ = [("Description", c_uint16 * 128), ("VendorId", c_uint32), ("DeviceId", c_uint32),
                ("SubSysId", c_uint32), ("Revision", c_uint32), ("DedicatedVideoMemory", c_size_t),
                ("DedicatedSystemMemory", c_size_t), ("SharedSystemMemory", c_size_t), ("AdapterLuid", LUID),
                ("Flags", c_uint32)]

    @property
    def name(self) -> str:
        """Description as text (up to the first NUL)."""
        return bytes(self.Description).decode("utf-16-le", "replace").split("\x00", 1)[0]


class DXCoreHardwareID(Structure):
    """DXCoreHardwareID (16 bytes)."""

    _fields_ = [("vendorID", c_uint32), ("deviceID", c_uint32), ("subSysID", c_uint32), ("revision", c_uint32)]


@dataclass(frozen=True)
class Adapter:
    """One DirectML adapter, ``dml:<index>``. ``feature_level`` is the highest DML_FEATURE_LEVEL its DirectML device
    supports (None when no device could be made, ``problem`` says why)."""

    index: int
    name: str
    vendor: str
    vendor_id: int
    memory_bytes: int
    feature_level: FeatureLevel | None
    float16: bool
    float64: bool
    software: bool = False
    problem: str | None = None
    driver_version: str | None = None  # "a.b.c.d" (DXCore DriverVersion / DXGI's user-mode driver version)

    @property
    def device(self) -> str:
        """``"dml:<index>"``, the name ``compile(..., device=...)`` takes."""
        return f"dml:{self.index}"

    def supports(self, data_type: DataType) -> bool:
        """Whether tensors of ``data_type`` can be used on this adapter (FLOAT16/FLOAT64 are optional in DirectML;
        every other type is assumed present and left to DirectML's own validation)."""
        if data_type == DataType.FLOAT16:
            return self.float16
        if data_type == DataType.FLOAT64:
            return self.float64
        return self.feature_level is not None

    def to_dict(self) -> dict:
        """A JSON-ready dict (feature level as ``"6.4"``)."""
        d = asdict(self)
        d["feature_level"] = self.feature_level.short if self.feature_level is not None else None
        d["device"] = self.device
        return d

    def __str__(self) -> str:
        level = self.feature_level.dml_name if self.feature_level is not None else "no DirectML device"
        kind = ", software" if self.software else ""
        yes = {True: "yes", False: "no"}
        text = (f"{self.device}: {self.name} ({self.vendor}{kind}, {self.memory_bytes / 2**30:.1f} GiB), {level}, "
                f"FLOAT16 {yes[self.float16]}, FLOAT64 {yes[self.float64]}")
        return text + (f"; {self.problem}" if self.problem else "")


@dataclass
class Device:
    """An adapter's opened devices, kept for the process: ``d3d12_device`` (ID3D12Device) and ``dml_device``
    (IDMLDevice), ``adapter_com`` the DXGI/DXCore adapter. ``lock`` serializes submission to this device."""

    adapter: Adapter
    adapter_com: ComPtr
    d3d12_device: ComPtr
    dml_device: ComPtr
    lock: threading.RLock = field(default_factory=threading.RLock)

    def removed_reason(self) -> str | None:
        """ID3D12Device::GetDeviceRemovedReason as text when the device was removed, else None."""
        hr = self.d3d12_device.call("GetDeviceRemovedReason", check_hr=False)
        return None if hr == 0 else f"GetDeviceRemovedReason: {hresult_text(hr)}"

    def check(self, hr: int, call: str, operator: str | None = None) -> int:
        """``com.check`` that adds GetDeviceRemovedReason when ``hr`` says the device was lost."""
        return check(hr, f"{self.adapter.device} {call}", operator,
                     lambda h: self.removed_reason() if (h & 0xFFFFFFFF) in DEVICE_LOST else None)


# ---------------------------------------------------------------------------------------------------------- state

_lock = threading.Lock()
_state: dict | None = None  # {"adapters": [Adapter], "devices": {index: Device}, "reason": str | None}


def _vendor(vendor_id: int) -> str:
    return VENDORS.get(vendor_id, f"vendor 0x{vendor_id:04X}")


def _export(lib, name: str, restype, *argtypes):
    """A prototype for an exported C function (STDAPI: the C convention on x64 Windows and on Linux)."""
    return functype()(restype, *argtypes)((name, lib))


@dataclass
class _Found:
    index: int
    name: str
    vendor_id: int
    memory_bytes: int
    software: bool
    com: ComPtr
    driver_version: str | None = None


# dxgi.h: the IID of IDXGIDevice, which IDXGIAdapter::CheckInterfaceSupport takes to report the user-mode driver version
IDXGIDEVICE = "54ec77fa-1377-44e6-8c32-88fd5f44c84c"


def _version(value: int | None) -> str | None:
    """A driver version packed as four 16-bit parts (LARGE_INTEGER / uint64) as "a.b.c.d"."""
    if not value:
        return None
    return ".".join(str((value >> shift) & 0xFFFF) for shift in (48, 32, 16, 0))


def _dxgi_adapters(libs) -> list[_Found]:
    create = _export(libs.dxgi, "CreateDXGIFactory1", c_int32, c_void_p, c_void_p)
    out = c_void_p()
    check(create(byref(iid("IDXGIFactory1")), byref(out)), "CreateDXGIFactory1")
    found: list[_Found] = []
    with ComPtr(out, "IDXGIFactory1") as factory:
        while True:
            out = c_void_p()
            hr = factory.call("EnumAdapters1", len(found), byref(out), check_hr=False)
            if hr & 0xFFFFFFFF == HRESULT_VALUES["DXGI_ERROR_NOT_FOUND"]:
                return found
            check(hr, "IDXGIFactory1::EnumAdapters1")
            adapter = ComPtr(out, "IDXGIAdapter1")
            desc = DXGI_ADAPTER_DESC1()
            adapter.call("GetDesc1", byref(desc))
            umd = ctypes.c_int64()
            hr = adapter.call("CheckInterfaceSupport", byref(GUID.parse(IDXGIDEVICE)), byref(umd), check_hr=False)
            found.append(_Found(len(found), desc.name, desc.VendorId, desc.DedicatedVideoMemory,
                                bool(desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE), adapter,
                                None if failed(hr) else _version(umd.value & 0xFFFFFFFFFFFFFFFF)))


def _dxcore_property(adapter: ComPtr, name: str, ctype):
    prop = DXCORE_PROPERTY[name]
    if not adapter.call("IsPropertySupported", prop):
        return None
    value = ctype()
    adapter.call("GetProperty", prop, sizeof(value), byref(value))
    return value


def _dxcore_text(adapter: ComPtr, name: str) -> str | None:
    prop = DXCORE_PROPERTY[name]
    if not adapter.call("IsPropertySupported", prop):
        return None
    size = c_size_t()
    adapter.call("GetPropertySize", prop, byref(size))
    buf = ctypes.create_string_buffer(size.value)
    adapter.call("GetProperty", prop, size.value, buf)
    return buf.value.decode("utf-8", "replace")


def _dxcore_adapters(libs) -> list[_Found]:
    create = _export(libs.dxcore, "DXCoreCreateAdapterFactory", c_int32, c_void_p, c_void_p)
    out = c_void_p()
    check(create(byref(iid("IDXCoreAdapterFactory")), byref(out)), "DXCoreCreateAdapterFactory")
    found = []
    with ComPtr(out, "IDXCoreAdapterFactory") as factory:
        attribute = GUID.parse(DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE)
        with factory.create("CreateAdapterList", "IDXCoreAdapterList", 1, byref(attribute)) as adapter_list:
            for i in range(adapter_list.call("GetAdapterCount")):
                adapter = adapter_list.create("GetAdapter", "IDXCoreAdapter", i)
                hw = _dxcore_property(adapter, "HardwareID", DXCoreHardwareID)
                memory = _dxcore_property(adapter, "DedicatedAdapterMemory", c_uint64)
                is_hardware = _dxcore_property(adapter, "IsHardware", c_bool)
                driver = _dxcore_property(adapter, "DriverVersion", c_uint64)
                vendor_id = hw.vendorID if hw is not None else 0
                name = _dxcore_text(adapter, "DriverDescription") or f"adapter {i}"
                found.append(_Found(i, name, vendor_id, memory.value if memory is not None else 0,
                                    is_hardware is not None and not is_hardware.value, adapter,
                                    _version(driver.value) if driver is not None else None))
    return found


def _max_feature_level(dml: ComPtr) -> FeatureLevel:
    """The highest level IDMLDevice::CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS) grants among 1.0 .. 6.4.

    A DirectML older than the newest level dmlops knows may refuse the whole query (E_INVALIDARG) for a level it
    has never heard of, so the query is repeated without the highest level until it is answered.
    """
    levels = [fl.value for fl in sorted(FeatureLevel)]
    last_hr = 0
    while levels:
        requested = (c_uint32 * len(levels))(*levels)
        query = DML_FEATURE_QUERY_FEATURE_LEVELS(len(levels), ctypes.cast(requested, c_void_p))
        data = DML_FEATURE_DATA_FEATURE_LEVELS()
        last_hr = dml.call("CheckFeatureSupport", DML_FEATURE_FEATURE_LEVELS, sizeof(query), byref(query),
                           sizeof(data), byref(data), check_hr=False)
        if not failed(last_hr):
            return FeatureLevel(data.MaxSupportedFeatureLevel)
        if last_hr & 0xFFFFFFFF != HRESULT_VALUES["E_INVALIDARG"]:
            break
        levels.pop()
    check(last_hr, "IDMLDevice::CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS)")
    raise AssertionError("unreachable")


def _supports_type(dml: ComPtr, data_type: DataType) -> bool:
    query = DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(int(data_type))
    data = DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT()
    dml.call("CheckFeatureSupport", DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), byref(query),
             sizeof(data), byref(data), operator=None)
    return bool(data.IsSupported)


def _open(libs, found: _Found) -> tuple[Adapter, Device | None]:
    """Create the D3D12 and DML devices of one adapter and ask what they support."""
    vendor = _vendor(found.vendor_id)
    d3d12_create = _export(libs.d3d12, "D3D12CreateDevice", c_int32, c_void_p, c_uint32, c_void_p, c_void_p)
    dml_create = _export(libs.directml, "DMLCreateDevice", c_int32, c_void_p, c_uint32, c_void_p, c_void_p)
    context = f"dml:{found.index}"
    d3d12 = dml = None
    try:
        out = c_void_p()
        hr = d3d12_create(found.com, D3D_FEATURE_LEVEL_11_0, byref(iid("ID3D12Device")), byref(out))
        if failed(hr):  # a compute-only adapter (an NPU listed by DXCore) has only the 1_0_CORE level
            out = c_void_p()
            hr_core = d3d12_create(found.com, D3D_FEATURE_LEVEL_1_0_CORE, byref(iid("ID3D12Device")), byref(out))
            check(hr_core, f"{context} D3D12CreateDevice(D3D_FEATURE_LEVEL_1_0_CORE)", None,
                  f"D3D_FEATURE_LEVEL_11_0 failed before with HRESULT {hresult_text(hr)}")
        d3d12 = ComPtr(out, "ID3D12Device", context=context)
        out = c_void_p()
        check(dml_create(d3d12, DML_CREATE_DEVICE_FLAG_NONE, byref(iid("IDMLDevice")), byref(out)),
              f"{context} DMLCreateDevice")
        dml = ComPtr(out, "IDMLDevice", context=context)
        level = _max_feature_level(dml)
        f16, f64 = _supports_type(dml, DataType.FLOAT16), _supports_type(dml, DataType.FLOAT64)
    except HResultError as e:
        for p in (dml, d3d12):
            if p is not None:
                p.release()
        adapter = Adapter(found.index, found.name, vendor, found.vendor_id, found.memory_bytes, None, False, False,
                          found.software, str(e), found.driver_version)
        return adapter, None
    adapter = Adapter(found.index, found.name, vendor, found.vendor_id, found.memory_bytes, level, f16, f64,
                      found.software, None, found.driver_version)
    return adapter, Device(adapter, found.com, d3d12, dml)


def _enable_d3d12_debug_layer(libs) -> str | None:
    """With DMLOPS_D3D12_DEBUG=1, turn the D3D12 debug layer on before any device exists (d3d12.h: enabling it
    later removes the devices); its messages then reach ID3D12InfoQueue. Returns why it could not be, or None."""
    import os

    if os.environ.get("DMLOPS_D3D12_DEBUG", "") not in ("1", "true", "yes"):
        return None
    get = _export(libs.d3d12, "D3D12GetDebugInterface", c_int32, c_void_p, c_void_p)
    out = c_void_p()
    hr = get(byref(iid("ID3D12Debug")), byref(out))
    if failed(hr):
        return f"D3D12GetDebugInterface failed with HRESULT {hresult_text(hr)} (is the Graphics Tools feature installed?)"
    with ComPtr(out, "ID3D12Debug") as debug:
        debug.call("EnableDebugLayer")
    return None


def _enumerate() -> dict:
    try:
        libs = libraries.load()
        debug_problem = _enable_d3d12_debug_layer(libs)
        found = _dxgi_adapters(libs) if sys.platform == "win32" else _dxcore_adapters(libs)
    except DmlOpsError as e:
        return {"adapters": [], "devices": {}, "reason": str(e)}
    adapters, devices_ = [], {}
    for f in found:
        adapter, device = _open(libs, f)
        adapters.append(adapter)
        if device is not None:
            devices_[adapter.index] = device
        else:
            f.com.release()
    return {"adapters": adapters, "devices": devices_, "reason": None, "debug_problem": debug_problem}


def _get() -> dict:
    global _state
    if _state is None:
        with _lock:
            if _state is None:
                _state = _enumerate()
    return _state


# ---------------------------------------------------------------------------------------------------------- public


def devices() -> list[Adapter]:
    """Every DirectML adapter, ``dml:0`` first; an empty list when DirectML cannot be loaded here
    (``unavailable_reason()`` says why). Enumerates once per process."""
    return list(_get()["adapters"])


def unavailable_reason() -> str | None:
    """Why no DirectML adapter can be listed (the library discovery error: every place looked), or None."""
    return _get()["reason"]


def _index(index) -> int:
    if isinstance(index, str):
        m = re.fullmatch(r"\s*dml:(\d+)\s*", index)
        if not m:
            raise DmlOpsError(f"device {index!r}: a DirectML device is named dml:<index>, e.g. dml:0.")
        return int(m.group(1))
    return int(index)


def _listing() -> str:
    adapters = devices()
    if adapters:
        return "found: " + ", ".join(f"{a.device} ({a.name})" for a in adapters) + "."
    reason = unavailable_reason()
    return "found none" + (f". {reason}" if reason else " (no adapter supports D3D12 compute).")


def adapter(index) -> Adapter:
    """The adapter ``dml:<index>`` (an int or ``"dml:N"``); DmlOpsError listing what exists when there is none."""
    i = _index(index)
    for a in devices():
        if a.index == i:
            return a
    raise DmlOpsError(f"dml:{i}: no such DirectML adapter; {_listing()}")


def open_device(index) -> Device:
    """The opened D3D12 and DML devices of ``dml:<index>`` (created during enumeration, shared by every caller)."""
    a = adapter(index)
    device = _get()["devices"].get(a.index)
    if device is None:
        raise DmlOpsError(f"{a.device} ({a.name}): no DirectML device could be created: {a.problem}")
    return device
