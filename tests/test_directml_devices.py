"""DirectML adapters: what ``devices()`` says where DirectML cannot be loaded (here), and the enumeration and device
queries run against fake DXCore / D3D12 / DirectML objects made of ctypes callbacks. Nothing here runs DirectML."""
import ctypes
import json
import sys
import uuid
from ctypes import c_bool, c_int32, c_size_t, c_uint32, c_uint64, c_void_p, sizeof
from pathlib import Path

import pytest

from dmlops.backends.directml import adapters, com, libraries
from dmlops.errors import DmlOpsError
from dmlops.types import DataType, FeatureLevel
from tests.test_directml_com import BY_NAME, Fake

ROOT = Path(__file__).resolve().parent.parent
LAYOUTS = ROOT.parent / "shared" / "reference" / "dml_struct_layouts.json"
S_OK, E_INVALIDARG, DXGI_ERROR_UNSUPPORTED = 0, 0x80070057 - 2**32, 0x887A0004 - 2**32
HRESULT = c_int32


def _loadable() -> bool:
    try:
        return libraries.missing_message(libraries.search()) is None
    except DmlOpsError:
        return False


no_directml = pytest.mark.skipif(_loadable(), reason="DirectML's libraries are present here")


# ------------------------------------------------------------------------------------------------ no DirectML


@no_directml
def test_no_devices_and_the_reason_names_the_missing_library():
    assert adapters.devices() == []
    reason = adapters.unavailable_reason()
    if sys.platform == "win32":
        assert "DirectML.dll" in reason and "DMLOPS_DIRECTML_LIBRARY" in reason
    else:
        assert reason.startswith("directml backend: DirectML cannot be loaded.")
        for name, var in (("libdxcore.so", "DMLOPS_DXCORE_LIBRARY"), ("libd3d12.so", "DMLOPS_D3D12_LIBRARY"),
                          ("libdirectml.so", "DMLOPS_DIRECTML_LIBRARY")):
            if name in reason:
                assert f"Set {var} to the full path of {name}" in reason
        assert "libdirectml.so" in reason or "libd3d12.so" in reason


@no_directml
def test_adapter_lists_none_found():
    reason = adapters.unavailable_reason()
    with pytest.raises(DmlOpsError, match=r"^dml:0: no such DirectML adapter; found none\. directml backend: ") as info:
        adapters.adapter(0)
    assert str(info.value).endswith(reason)
    with pytest.raises(DmlOpsError, match=r"^dml:3: no such DirectML adapter; found none"):
        adapters.adapter("dml:3")
    with pytest.raises(DmlOpsError, match=r"^dml:1: no such DirectML adapter"):
        adapters.open_device(1)


def test_device_names():
    with pytest.raises(DmlOpsError, match=r"^device 'gpu:0': a DirectML device is named dml:<index>, e\.g\. dml:0\.$"):
        adapters.adapter("gpu:0")


def test_adapter_record():
    a = adapters.Adapter(1, "Fake GPU", "NVIDIA", 0x10DE, 8 * 2**30, FeatureLevel.FL_6_4, True, False)
    assert str(a) == "dml:1: Fake GPU (NVIDIA, 8.0 GiB), DML_FEATURE_LEVEL_6_4, FLOAT16 yes, FLOAT64 no"
    assert a.supports(DataType.FLOAT16) and not a.supports(DataType.FLOAT64) and a.supports(DataType.INT8)
    assert a.to_dict()["feature_level"] == "6.4" and a.to_dict()["device"] == "dml:1"
    warp = adapters.Adapter(2, "Microsoft Basic Render Driver", "Microsoft", 0x1414, 0, None, False, False, True,
                            "dml:2 DMLCreateDevice failed")
    assert str(warp) == ("dml:2: Microsoft Basic Render Driver (Microsoft, software, 0.0 GiB), no DirectML device, "
                         "FLOAT16 no, FLOAT64 no; dml:2 DMLCreateDevice failed")
    with pytest.raises(AttributeError):
        a.index = 3


@pytest.mark.skipif(not LAYOUTS.is_file(), reason="../shared/reference/dml_struct_layouts.json is not present")
def test_feature_query_structs_match_directml_h():
    layouts = {s["struct"]: s for s in json.loads(LAYOUTS.read_text(encoding="utf-8"))["structs"]}
    for cls in (adapters.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT, adapters.DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT,
                adapters.DML_FEATURE_QUERY_FEATURE_LEVELS, adapters.DML_FEATURE_DATA_FEATURE_LEVELS):
        ref = layouts[cls.__name__]
        assert sizeof(cls) == ref["size"] and ctypes.alignment(cls) == ref["align"], cls.__name__
        assert [(f["name"], f["offset"]) for f in ref["fields"]] == \
            [(name, getattr(cls, name).offset) for name, _ in cls._fields_], cls.__name__


def test_dxgi_adapter_desc1_layout():
    # dxgi.h, x64: WCHAR Description[128]; UINT VendorId, DeviceId, SubSysId, Revision; SIZE_T DedicatedVideoMemory,
    # DedicatedSystemMemory, SharedSystemMemory; LUID AdapterLuid; UINT Flags
    d = adapters.DXGI_ADAPTER_DESC1
    assert sizeof(d) == 312
    assert (d.VendorId.offset, d.DedicatedVideoMemory.offset, d.AdapterLuid.offset, d.Flags.offset) == (256, 272, 296, 304)
    desc = d()
    text = "Radeon RX 7900".encode("utf-16-le")
    ctypes.memmove(desc.Description, text, len(text))
    assert desc.name == "Radeon RX 7900"


# ------------------------------------------------------------------------------------------------ fakes


def fake_dml_device(max_level=0x5100, known_up_to=0x6200, float16=True, float64=False, calls=None):
    """An IDMLDevice whose CheckFeatureSupport answers like a DirectML that knows levels up to ``known_up_to``
    (refusing queries that name a newer one, with E_INVALIDARG) and supports up to ``max_level``."""
    calls = [] if calls is None else calls

    def check_feature_support(this, feature, query_size, query, data_size, data):
        if feature == adapters.DML_FEATURE_FEATURE_LEVELS:
            q = adapters.DML_FEATURE_QUERY_FEATURE_LEVELS.from_address(query)
            levels = list((c_uint32 * q.RequestedFeatureLevelCount).from_address(q.RequestedFeatureLevels))
            calls.append(("levels", query_size, data_size, levels))
            if any(level > known_up_to for level in levels):
                return E_INVALIDARG
            adapters.DML_FEATURE_DATA_FEATURE_LEVELS.from_address(data).MaxSupportedFeatureLevel = \
                max(level for level in levels if level <= max_level)
            return S_OK
        if feature == adapters.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:
            data_type = adapters.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT.from_address(query).DataType
            calls.append(("type", query_size, data_size, data_type))
            supported = {DataType.FLOAT16: float16, DataType.FLOAT64: float64}.get(DataType(data_type), True)
            adapters.DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT.from_address(data).IsSupported = int(supported)
            return S_OK
        return E_INVALIDARG

    proto = ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_uint32, c_void_p, c_uint32, c_void_p)
    return Fake("IDMLDevice", {"CheckFeatureSupport": (proto, check_feature_support)})


def test_highest_feature_level_retries_without_levels_directml_does_not_know():
    calls = []
    fake = fake_dml_device(max_level=0x5100, known_up_to=0x6200, calls=calls)
    dml = com.ComPtr(fake.address, "IDMLDevice", owned=False)
    assert adapters._max_feature_level(dml) == FeatureLevel.FL_5_1
    every = [fl.value for fl in sorted(FeatureLevel)]
    asked = [c[3] for c in calls]
    assert asked[0] == every and asked[0][0] == 0x1000 and asked[0][-1] == 0x6400  # 1.0 .. 6.4, all 15
    assert asked[-1] == [v for v in every if v <= 0x6200] and len(asked) == 3
    assert {c[1:3] for c in calls} == {(16, 4)}  # sizeof query / data as in DirectML.h
    assert adapters._supports_type(dml, DataType.FLOAT16) and not adapters._supports_type(dml, DataType.FLOAT64)
    assert calls[-1] == ("type", 4, 4, DataType.FLOAT64.value)


def test_feature_level_query_failing_otherwise_is_an_error():
    def refuse(this, feature, qs, q, ds, d):
        return DXGI_ERROR_UNSUPPORTED

    proto = ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_uint32, c_void_p, c_uint32, c_void_p)
    fake = Fake("IDMLDevice", {"CheckFeatureSupport": (proto, refuse)})
    dml = com.ComPtr(fake.address, "IDMLDevice", owned=False)
    with pytest.raises(com.HResultError, match=r"^IDMLDevice::CheckFeatureSupport\(DML_FEATURE_FEATURE_LEVELS\) "
                                               r"failed with HRESULT 0x887A0004 \(DXGI_ERROR_UNSUPPORTED"):
        adapters._max_feature_level(dml)


class FakeWsl:
    """libdxcore / libd3d12 / libdirectml exports and the objects they hand out, all fakes: one adapter."""

    def __init__(self, dml_result=S_OK):
        self.seen = []
        self.dml = fake_dml_device(max_level=0x6400, known_up_to=0x6400, float16=True, float64=True)
        self.d3d12 = Fake("ID3D12Device", {
            "GetDeviceRemovedReason": (ctypes.CFUNCTYPE(HRESULT, c_void_p), lambda this: 0x887A0006 - 2**32)})
        props = {1: bytes(c_uint64((32 << 48) | (0 << 32) | (101 << 16) | 6314)), 2: b"Fake WSL GPU\0", 3: bytes(adapters.DXCoreHardwareID(0x8086, 0x56A0, 0, 8)),
                 7: bytes(c_uint64(12 * 2**30)), 11: bytes(c_bool(True))}

        def size(this, prop, out):
            c_size_t.from_address(out).value = len(props[prop])
            return S_OK

        def get(this, prop, n, buf):
            ctypes.memmove(buf, props[prop], min(n, len(props[prop])))
            return S_OK

        self.adapter = Fake("IDXCoreAdapter", {
            "IsPropertySupported": (ctypes.CFUNCTYPE(c_bool, c_void_p, c_uint32), lambda this, p: p in props),
            "GetPropertySize": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_void_p), size),
            "GetProperty": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_size_t, c_void_p), get)})
        self.list = Fake("IDXCoreAdapterList", {
            "GetAdapterCount": (ctypes.CFUNCTYPE(c_uint32, c_void_p), lambda this: 1),
            "GetAdapter": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_void_p, c_void_p), self._out(self.adapter))})

        def create_list(this, count, attributes, riid, out):
            self.seen.append(("CreateAdapterList", count, str(com.GUID.from_address(attributes)), self._iid(riid)))
            c_void_p.from_address(out).value = self.list.address
            return S_OK

        self.factory = Fake("IDXCoreAdapterFactory", {
            "CreateAdapterList": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_void_p, c_void_p, c_void_p),
                                  create_list)})

        def d3d12_create(adapter, level, riid, out):
            self.seen.append(("D3D12CreateDevice", adapter, level, self._iid(riid)))
            c_void_p.from_address(out).value = self.d3d12.address
            return S_OK

        def dml_create(device, flags, riid, out):
            self.seen.append(("DMLCreateDevice", device, flags, self._iid(riid)))
            if dml_result != S_OK:
                return dml_result
            c_void_p.from_address(out).value = self.dml.address
            return S_OK

        def factory_create(riid, out):
            self.seen.append(("DXCoreCreateAdapterFactory", self._iid(riid)))
            c_void_p.from_address(out).value = self.factory.address
            return S_OK

        self.exports = {"DXCoreCreateAdapterFactory": factory_create, "D3D12CreateDevice": d3d12_create,
                        "DMLCreateDevice": dml_create}
        self.libs = libraries.Loaded({"dxcore": "dxcore", "d3d12": "d3d12", "directml": "directml"}, {})

    def _iid(self, riid):
        raw = bytes(com.GUID.from_address(riid))
        return next(name for name, e in BY_NAME.items() if uuid.UUID(e["iid"]).bytes_le == raw)

    def _out(self, fake):
        def get(this, index, riid, out):
            self.seen.append(("GetAdapter", index, self._iid(riid)))
            c_void_p.from_address(out).value = fake.address
            return S_OK
        return get

    def export(self, lib, name, restype, *argtypes):
        # the real prototype, around a Python function: arguments go through the same ctypes conversions
        return com.functype()(restype, *argtypes)(self.exports[name])


@pytest.fixture
def wsl(monkeypatch):
    if sys.platform == "win32":
        pytest.skip("the DXCore path is the Linux one")
    fake = FakeWsl()
    monkeypatch.setattr(adapters, "_export", fake.export)
    monkeypatch.setattr(libraries, "load", lambda: fake.libs)
    monkeypatch.setattr(adapters, "_state", None)
    yield fake
    state = adapters._state
    for device in (state or {}).get("devices", {}).values():
        for p in (device.dml_device, device.d3d12_device, device.adapter_com):
            p.release()


def test_dxcore_enumeration_and_device_queries(wsl):
    found = adapters.devices()
    assert found == [adapters.Adapter(0, "Fake WSL GPU", "Intel", 0x8086, 12 * 2**30, FeatureLevel.FL_6_4, True,
                                      True, False, None, "32.0.101.6314")]
    assert adapters.unavailable_reason() is None
    assert wsl.seen == [
        ("DXCoreCreateAdapterFactory", "IDXCoreAdapterFactory"),
        ("CreateAdapterList", 1, "248e2800-a793-4724-abaa-23a6de1be090", "IDXCoreAdapterList"),
        ("GetAdapter", 0, "IDXCoreAdapter"),
        ("D3D12CreateDevice", wsl.adapter.address, 0xB000, "ID3D12Device"),
        ("DMLCreateDevice", wsl.d3d12.address, 0, "IDMLDevice"),
    ]
    device = adapters.open_device("dml:0")
    assert device is adapters.open_device(0)  # created once, shared
    assert device.d3d12_device.address == wsl.d3d12.address and device.dml_device.address == wsl.dml.address
    assert device.adapter is found[0]
    # the factory and the list were released after enumeration; the adapter and the devices are kept
    assert wsl.factory.calls == [("Release", wsl.factory.address)] and wsl.list.calls == [("Release", wsl.list.address)]
    assert wsl.adapter.calls == [] and wsl.d3d12.calls == [] and wsl.dml.calls == []
    with pytest.raises(DmlOpsError, match=r"^dml:1: no such DirectML adapter; found: dml:0 \(Fake WSL GPU\)\.$"):
        adapters.adapter(1)


def test_device_lost_errors_carry_the_removed_reason(wsl):
    device = adapters.open_device(0)
    with pytest.raises(com.HResultError, match=r"^GRU: dml:0 ID3D12CommandQueue::ExecuteCommandLists failed with "
                                               r"HRESULT 0x887A0005 \(DXGI_ERROR_DEVICE_REMOVED: .*\); "
                                               r"GetDeviceRemovedReason: 0x887A0006 \(DXGI_ERROR_DEVICE_HUNG: "):
        device.check(0x887A0005, "ID3D12CommandQueue::ExecuteCommandLists", "GRU")
    with pytest.raises(com.HResultError, match=r"^dml:0 IDMLDevice::CreateOperator failed with HRESULT 0x80070057 "
                                               r"\(E_INVALIDARG: one or more arguments are invalid\)$"):
        device.check(E_INVALIDARG, "IDMLDevice::CreateOperator")


def test_an_adapter_without_a_dml_device_is_listed_with_the_reason(monkeypatch):
    if sys.platform == "win32":
        pytest.skip("the DXCore path is the Linux one")
    fake = FakeWsl(dml_result=DXGI_ERROR_UNSUPPORTED)
    monkeypatch.setattr(adapters, "_export", fake.export)
    monkeypatch.setattr(libraries, "load", lambda: fake.libs)
    monkeypatch.setattr(adapters, "_state", None)
    (a,) = adapters.devices()
    assert a.feature_level is None and not a.float16 and not a.float64
    assert a.problem == ("dml:0 DMLCreateDevice failed with HRESULT 0x887A0004 (DXGI_ERROR_UNSUPPORTED: not "
                         "supported by the device or driver)")
    # the D3D12 device and the adapter are released at once; nothing is kept for an unusable adapter
    assert fake.d3d12.calls == [("Release", fake.d3d12.address)]
    assert fake.adapter.calls == [("Release", fake.adapter.address)]
    with pytest.raises(DmlOpsError, match=r"^dml:0 \(Fake WSL GPU\): no DirectML device could be created: dml:0 "
                                          r"DMLCreateDevice failed with HRESULT 0x887A0004"):
        adapters.open_device(0)


@pytest.mark.directml
def test_real_devices_answer():
    """On a machine with DirectML: at least one adapter with a feature level (runs only where DirectML loads)."""
    if adapters.unavailable_reason() is not None:
        pytest.skip(adapters.unavailable_reason())
    found = adapters.devices()
    assert found and all(a.index == i for i, a in enumerate(found))
    assert any(a.feature_level is not None for a in found)


def test_dxgi_enumeration_lists_software_adapters_marked(monkeypatch):
    """The Windows path (DXGI), called directly with fake objects: every adapter until DXGI_ERROR_NOT_FOUND."""
    descs = [("NVIDIA GeForce RTX 4090", 0x10DE, 24 * 2**30, 0), ("Microsoft Basic Render Driver", 0x1414, 0, 2)]
    fakes = []
    for name, vendor, memory, flags in descs:
        def get_desc1(this, out, name=name, vendor=vendor, memory=memory, flags=flags):
            d = adapters.DXGI_ADAPTER_DESC1.from_address(out)
            text = name.encode("utf-16-le")
            ctypes.memmove(d.Description, text, len(text))
            d.VendorId, d.DedicatedVideoMemory, d.Flags = vendor, memory, flags
            return S_OK
        def umd_version(this, guid, out, vendor=vendor):
            if str(com.GUID.from_address(guid)) != adapters.IDXGIDEVICE:
                return E_INVALIDARG
            if vendor == 0x1414:
                return DXGI_ERROR_UNSUPPORTED  # no user-mode driver version: None, not an error
            ctypes.c_int64.from_address(out).value = (31 << 48) | (0 << 32) | (15 << 16) | 5555
            return S_OK

        fakes.append(Fake("IDXGIAdapter1", {
            "GetDesc1": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_void_p), get_desc1),
            "CheckInterfaceSupport": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_void_p, c_void_p), umd_version)}))

    def enum_adapters1(this, index, out):
        if index >= len(fakes):
            c_void_p.from_address(out).value = None
            return 0x887A0002 - 2**32  # DXGI_ERROR_NOT_FOUND
        c_void_p.from_address(out).value = fakes[index].address
        return S_OK

    factory = Fake("IDXGIFactory1", {"EnumAdapters1": (ctypes.CFUNCTYPE(HRESULT, c_void_p, c_uint32, c_void_p),
                                                       enum_adapters1)})
    seen = []

    def create_factory(riid, out):
        seen.append(bytes(com.GUID.from_address(riid)))
        c_void_p.from_address(out).value = factory.address
        return S_OK

    exports = {"CreateDXGIFactory1": create_factory}
    monkeypatch.setattr(adapters, "_export",
                        lambda lib, name, restype, *argtypes: com.functype()(restype, *argtypes)(exports[name]))
    found = adapters._dxgi_adapters(libraries.Loaded({"dxgi": "dxgi"}, {}))
    assert seen == [uuid.UUID(BY_NAME["IDXGIFactory1"]["iid"]).bytes_le]
    assert [(f.index, f.name, f.vendor_id, f.memory_bytes, f.software, f.driver_version) for f in found] == [
        (0, "NVIDIA GeForce RTX 4090", 0x10DE, 24 * 2**30, False, "31.0.15.5555"),
        (1, "Microsoft Basic Render Driver", 0x1414, 0, True, None)]
    assert [f.com.address for f in found] == [f.address for f in fakes]
    assert factory.calls == [("Release", factory.address)]
    for f in found:
        f.com.release()
