"""COM calling for the native DirectML backend, without DirectML: the packaged vtable table against
../shared/reference/com_vtables.json, slot lookup through base interfaces, the per-platform calling form of
struct-returning methods, and real calls through fake vtables built here with ctypes callbacks."""
import ctypes
import json
import platform
import sys
import uuid
from ctypes import POINTER, addressof, byref, c_int32, c_long, c_uint32, c_uint64, c_void_p, sizeof
from pathlib import Path

import pytest

from dmlops.backends.directml import com
from dmlops.errors import DmlOpsError

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT.parent / "shared" / "reference" / "com_vtables.json"
PACKAGED = ROOT / "dmlops" / "data" / "com_vtables.json"
needs_reference = pytest.mark.skipif(not REFERENCE.is_file(), reason="../shared/reference/com_vtables.json is not present")
sysv_x64 = pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")),
                              reason="emulates the SysV x86-64 hidden result pointer; only valid there")

TABLE = json.loads(PACKAGED.read_text(encoding="utf-8"))
BY_NAME = {e["interface"]: e for e in TABLE["interfaces"]}


def slot(interface: str, name: str) -> int:
    """The slot of interface::name read straight from the JSON (own list first, then the bases)."""
    while interface is not None:
        entry = BY_NAME[interface]
        for m in entry.get("methods") or entry.get("own_methods") or []:
            if m["name"] == name:
                return m["index"]
        interface = entry["base"]
    raise KeyError(name)


# ------------------------------------------------------------------------------------------------ the table


@needs_reference
def test_packaged_table_is_a_verbatim_copy():
    assert PACKAGED.read_bytes() == REFERENCE.read_bytes()


@needs_reference
def test_every_iid_and_slot_equals_the_reference():
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))["interfaces"]
    assert len(reference) == len(com.table()) == 53
    for entry in reference:
        name = entry["interface"]
        assert bytes(com.iid(name)) == uuid.UUID(entry["iid"]).bytes_le, name
        assert str(com.iid(name)) == entry["iid"].lower(), name
        methods = entry.get("methods") or entry.get("own_methods")
        assert methods, name
        for m in methods:
            assert com.method(name, m["name"]).index == m["index"], f"{name}::{m['name']}"
            assert com.method(name, m["name"]).returns_struct == bool(m.get("returns_struct")), f"{name}::{m['name']}"


def test_guid_layout_is_guiddef():
    # dxcore_interface.h: DEFINE_GUID(IID_IDXCoreAdapterFactory, 0x78ee5945, 0xc36e, 0x4b13, 0xa6, 0x69, 0x00, 0x5d,
    # 0xd1, 0x1c, 0x0f, 0x06)
    g = com.iid("IDXCoreAdapterFactory")
    assert sizeof(g) == 16
    assert (g.Data1, g.Data2, g.Data3) == (0x78EE5945, 0xC36E, 0x4B13)
    assert list(g.Data4) == [0xA6, 0x69, 0x00, 0x5D, 0xD1, 0x1C, 0x0F, 0x06]
    assert com.GUID.parse("{78EE5945-C36E-4B13-A669-005DD11C0F06}") == g


@needs_reference
def test_slots_through_base_interfaces_equal_the_reference():
    reference = {e["interface"]: e for e in json.loads(REFERENCE.read_text(encoding="utf-8"))["interfaces"]}

    def declared(interface, name):
        return next(m["index"] for m in reference[interface]["methods"] if m["name"] == name)

    assert com.method("ID3D12Device", "CreateCommandQueue").index == declared("ID3D12Device", "CreateCommandQueue")
    # ID3D12Device5 lists only its own methods: CreateCommandQueue is found in ID3D12Device.
    assert "methods" not in reference["ID3D12Device5"] or not reference["ID3D12Device5"]["methods"]
    assert com.method("ID3D12Device5", "CreateCommandQueue").index == declared("ID3D12Device", "CreateCommandQueue")
    assert com.method("ID3D12Device5", "Release").index == declared("IUnknown", "Release")
    assert com.method("IDMLDevice1", "CheckFeatureSupport").index == declared("IDMLDevice", "CheckFeatureSupport")
    assert com.method("IDMLCompiledOperator", "GetBindingProperties").index == \
        declared("IDMLDispatchable", "GetBindingProperties")
    assert com.bases("IDMLCompiledOperator") == ["IDMLCompiledOperator", "IDMLDispatchable", "IDMLPageable",
                                                 "IDMLDeviceChild", "IDMLObject", "IUnknown"]


def test_unknown_interface_and_method_are_named():
    with pytest.raises(DmlOpsError, match=r"COM interface 'ID3D12Nothing' is not in com_vtables.json \(known: IUnknown,"):
        com.iid("ID3D12Nothing")
    with pytest.raises(DmlOpsError, match=r"^IDMLDevice::CompileGraph: no such method in IDMLDevice or its bases "
                                          r"\(IDMLObject, IUnknown\)\.$"):
        com.method("IDMLDevice", "CompileGraph")
    with pytest.raises(DmlOpsError, match=r"ID3D12Device5::RemoveDevice: the table records no signature"):
        com.derived_types("ID3D12Device5", "RemoveDevice")


def test_every_recorded_signature_maps_to_ctypes():
    simple = (ctypes._SimpleCData, ctypes.Structure)
    for name, entry in com.table().items():
        for m in entry.get("methods") or []:
            restype, argtypes = com.derived_types(name, m["name"])
            assert all(issubclass(t, simple) for t in argtypes), f"{name}::{m['name']}"
            assert restype is None or issubclass(restype, simple), f"{name}::{m['name']}"
            if m["c_signature"].rstrip().endswith("This)"):
                assert argtypes == (), f"{name}::{m['name']}"


def test_derived_types_of_known_methods():
    restype, argtypes = com.derived_types("ID3D12Device", "CreateCommittedResource")
    assert restype is c_int32
    # pHeapProperties, HeapFlags, pDesc, InitialResourceState, pOptimizedClearValue, riidResource, ppvResource
    assert argtypes == (c_void_p, c_uint32, c_void_p, c_uint32, c_void_p, c_void_p, c_void_p)
    assert com.derived_types("ID3D12Device", "GetDescriptorHandleIncrementSize") == (c_uint32, (c_uint32,))
    assert com.derived_types("IUnknown", "Release") == (c_uint32, ())
    assert com.derived_types("IDXCoreAdapter", "IsPropertySupported") == (ctypes.c_bool, (c_uint32,))
    with pytest.raises(DmlOpsError, match=r"cannot map the C type 'WIDGET' to ctypes"):
        com.c_type("WIDGET")


# ------------------------------------------------------------------------------------------------ calling forms


def _struct_methods(reference):
    return {(e["interface"], m["name"]): m["return_type"] for e in reference
            for m in e.get("methods") or [] if m.get("returns_struct")}


def test_every_struct_returning_method_has_a_form_per_platform():
    meta = TABLE["meta"]["struct_return_convention"]["returned_struct_types"]
    flagged = _struct_methods(TABLE["interfaces"])
    assert len(flagged) >= 10
    for (interface, name), type_name in flagged.items():
        struct = com.struct_type(type_name)
        assert sizeof(struct) == meta[type_name]["size"], type_name
        win = com.call_form(interface, name, "win32")
        lin = com.call_form(interface, name, "linux")
        _, args = com.derived_types(interface, name)
        assert win.hidden and win.struct is struct
        assert win.restype is POINTER(struct) and win.argtypes == (c_void_p, POINTER(struct)) + args
        assert not lin.hidden and lin.struct is struct
        assert lin.restype is struct and lin.argtypes == (c_void_p,) + args


def test_descriptor_heap_start_prototypes():
    handle = com.struct_type("D3D12_CPU_DESCRIPTOR_HANDLE")
    win = com.prototype("ID3D12DescriptorHeap", "GetCPUDescriptorHandleForHeapStart", "win32")
    lin = com.prototype("ID3D12DescriptorHeap", "GetCPUDescriptorHandleForHeapStart", "linux")
    assert win._restype_ is POINTER(handle) and win._argtypes_ == (c_void_p, POINTER(handle))
    assert lin._restype_ is handle and lin._argtypes_ == (c_void_p,)
    # a method that returns no struct: the same form on both
    for plat in ("win32", "linux"):
        p = com.prototype("ID3D12Device", "GetDescriptorHandleIncrementSize", plat)
        assert p._restype_ is c_int32 or p._restype_ is c_uint32
        assert p._argtypes_ == (c_void_p, c_uint32)


# ------------------------------------------------------------------------------------------------ fake objects


S_OK = 0
E_INVALIDARG = 0x80070057 - 2**32
E_NOINTERFACE = 0x80004002 - 2**32


class Fake:
    """A COM object made of ctypes callbacks: the object is one pointer-sized word holding the vtable's address."""

    def __init__(self, interface: str, methods: dict):
        entry = BY_NAME[interface]
        count = entry["method_count"]
        self.vtable = (c_void_p * count)()
        self.calls = []
        self.refs = 1
        self._keep = []
        base = {
            "AddRef": (ctypes.CFUNCTYPE(c_uint32, c_void_p), self._add_ref),
            "Release": (ctypes.CFUNCTYPE(c_uint32, c_void_p), self._release),
        }
        for name, (proto, fn) in {**base, **methods}.items():
            cb = proto(fn)
            self._keep.append(cb)
            self.vtable[slot(interface, name)] = ctypes.cast(cb, c_void_p).value
        self.word = c_void_p(addressof(self.vtable))
        self.address = addressof(self.word)

    def _add_ref(self, this):
        self.refs += 1
        return self.refs

    def _release(self, this):
        self.calls.append(("Release", this))
        self.refs -= 1
        return self.refs


def test_call_passes_this_and_arguments():
    def increment(this, heap_type):
        seen.append((this, heap_type))
        return 32 + heap_type

    seen = []
    fake = Fake("ID3D12Device", {"GetDescriptorHandleIncrementSize": (ctypes.CFUNCTYPE(c_uint32, c_void_p, c_uint32),
                                                                      increment)})
    device = com.ComPtr(fake.address, "ID3D12Device", owned=False)
    assert device.call("GetDescriptorHandleIncrementSize", 3) == 35
    assert seen == [(fake.address, 3)]


def test_create_passes_the_iid_and_wraps_the_new_object():
    queue = Fake("ID3D12CommandQueue", {})

    def create_queue(this, desc, riid, out):
        d = com.D3D12_COMMAND_QUEUE_DESC.from_address(desc)
        seen.append((this, d.Type, d.Priority, bytes(com.GUID.from_address(riid))))
        c_void_p.from_address(out).value = queue.address
        return S_OK

    seen = []
    fake = Fake("ID3D12Device", {"CreateCommandQueue": (ctypes.CFUNCTYPE(c_int32, c_void_p, c_void_p, c_void_p, c_void_p),
                                                        create_queue)})
    device = com.ComPtr(fake.address, "ID3D12Device", owned=False)
    desc = com.D3D12_COMMAND_QUEUE_DESC(Type=2, Priority=100)
    with device.create("CreateCommandQueue", "ID3D12CommandQueue", byref(desc)) as q:
        assert q.interface == "ID3D12CommandQueue" and q.address == queue.address
    assert seen == [(fake.address, 2, 100, uuid.UUID(BY_NAME["ID3D12CommandQueue"]["iid"]).bytes_le)]
    assert queue.calls == [("Release", queue.address)]


def test_release_happens_exactly_once():
    fake = Fake("IDMLDevice", {})
    p = com.ComPtr(fake.address, "IDMLDevice")
    assert p.release() == 0
    assert p.release() is None
    del p
    assert fake.calls == [("Release", fake.address)]
    detached = com.ComPtr(fake.address, "IDMLDevice")
    assert detached.detach() == fake.address
    with pytest.raises(DmlOpsError, match=r"^IDMLDevice::GetDeviceRemovedReason: called on a released interface pointer\.$"):
        detached.call("GetDeviceRemovedReason")
    del detached
    borrowed = com.ComPtr(fake.address, "IDMLDevice", owned=False)
    borrowed.release()
    assert fake.calls == [("Release", fake.address)]


def test_garbage_collected_pointer_is_released():
    fake = Fake("IDMLOperator", {})
    p = com.ComPtr(fake.address, "IDMLOperator")
    del p
    assert fake.calls == [("Release", fake.address)]


def test_query_interface_and_e_nointerface():
    other = Fake("IDMLDevice1", {})

    def qi(this, riid, out):
        if bytes(com.GUID.from_address(riid)) == uuid.UUID(BY_NAME["IDMLDevice1"]["iid"]).bytes_le:
            c_void_p.from_address(out).value = other.address
            return S_OK
        c_void_p.from_address(out).value = None
        return E_NOINTERFACE

    fake = Fake("IDMLDevice", {"QueryInterface": (ctypes.CFUNCTYPE(c_int32, c_void_p, c_void_p, c_void_p), qi)})
    device = com.ComPtr(fake.address, "IDMLDevice", owned=False)
    d1 = device.query_interface("IDMLDevice1")
    assert d1.interface == "IDMLDevice1" and d1.address == other.address
    d1.release()
    with pytest.raises(com.HResultError, match=r"^IDMLDevice::QueryInterface failed with HRESULT 0x80004002 "
                                               r"\(E_NOINTERFACE: .*\)$") as info:
        device.query_interface("ID3D12Device")
    assert info.value.name == "E_NOINTERFACE" and info.value.hresult == 0x80004002


def test_failing_hresult_names_call_operator_and_code():
    fake = Fake("IDMLDevice", {"CreateOperator": (ctypes.CFUNCTYPE(c_int32, c_void_p, c_void_p, c_void_p, c_void_p),
                                                  lambda this, desc, riid, out: E_INVALIDARG)})
    device = com.ComPtr(fake.address, "IDMLDevice", owned=False)
    out = c_void_p()
    with pytest.raises(com.HResultError, match=r"^GRU: IDMLDevice::CreateOperator failed with HRESULT 0x80070057 "
                                               r"\(E_INVALIDARG: one or more arguments are invalid\); "
                                               r"DirectML refused the descriptor$"):
        device.call("CreateOperator", None, byref(com.iid("IDMLOperator")), byref(out), operator="GRU",
                    extra="DirectML refused the descriptor")
    assert device.call("CreateOperator", None, None, byref(out), check_hr=False) == E_INVALIDARG


def test_hresult_names_are_data():
    # winerror.h / dxgi docs values, written here independently of dmlops
    expected = {"E_INVALIDARG": 0x80070057, "E_OUTOFMEMORY": 0x8007000E, "E_NOINTERFACE": 0x80004002,
                "E_NOTIMPL": 0x80004001, "E_FAIL": 0x80004005, "DXGI_ERROR_DEVICE_REMOVED": 0x887A0005,
                "DXGI_ERROR_DEVICE_HUNG": 0x887A0006, "DXGI_ERROR_DEVICE_RESET": 0x887A0007,
                "DXGI_ERROR_UNSUPPORTED": 0x887A0004, "DXGI_ERROR_NOT_FOUND": 0x887A0002}
    for name, value in expected.items():
        assert com.HRESULTS[value][0] == name
        assert com.HRESULT_VALUES[name] == value


def test_check():
    assert com.check(0, "X::Y") == 0
    assert com.check(1, "X::Y") == 1  # S_FALSE is a success
    with pytest.raises(com.HResultError, match=r"^ID3D12CommandQueue::Signal failed with HRESULT 0x887A0005 "
                                               r"\(DXGI_ERROR_DEVICE_REMOVED: .*\); GetDeviceRemovedReason: "
                                               r"0x887A0006 \(DXGI_ERROR_DEVICE_HUNG: .*\)$"):
        com.check(0x887A0005, "ID3D12CommandQueue::Signal",
                  extra=lambda hr: "GetDeviceRemovedReason: " + com.hresult_text(0x887A0006))
    with pytest.raises(com.HResultError, match=r"^D3D12CreateDevice failed with HRESULT 0x8BADF00D$"):
        com.check(0x8BADF00D - 2**32, "D3D12CreateDevice")

    def broken(hr):
        raise RuntimeError("nope")

    with pytest.raises(com.HResultError, match=r"E_FAIL.*; \(collecting more detail failed: nope\)$"):
        com.check(0x80004005, "X::Y", extra=broken)


# ------------------------------------------------------------------------------------------------ struct returns


def test_linux_struct_return_in_a_register():
    # D3D12_CPU_DESCRIPTOR_HANDLE (8 bytes, INTEGER class): the callee returns it in the return register, which a
    # callback returning uint64 does; .call must read it back as the struct.
    seen = []

    def start(this):
        seen.append(this)
        return 0x0000_1234_5678_9ABC

    fake = Fake("ID3D12DescriptorHeap", {"GetCPUDescriptorHandleForHeapStart": (ctypes.CFUNCTYPE(c_uint64, c_void_p),
                                                                                 start)})
    heap = com.ComPtr(fake.address, "ID3D12DescriptorHeap", owned=False, platform="linux")
    handle = heap.call("GetCPUDescriptorHandleForHeapStart")
    assert isinstance(handle, com.struct_type("D3D12_CPU_DESCRIPTOR_HANDLE"))
    assert handle.ptr == 0x0000_1234_5678_9ABC and seen == [fake.address]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses the C library's ldiv")
def test_linux_struct_return_in_two_registers():
    # A real C function returning a 16-byte struct by value (ldiv_t {long quot; long rem;}, like
    # D3D12_RESOURCE_ALLOCATION_INFO) put in the vtable slot: .call passes `this` as the first argument.
    ldiv = ctypes.cast(ctypes.CDLL(None).ldiv, c_void_p).value
    vtable = (c_void_p * BY_NAME["ID3D12Device"]["method_count"])()
    vtable[slot("ID3D12Device", "GetResourceAllocationInfo")] = ldiv
    word = c_void_p(addressof(vtable))
    device = com.ComPtr(addressof(word), "ID3D12Device", owned=False, platform="linux")
    info = device.call("GetResourceAllocationInfo", 1000, argtypes=(c_long,))
    assert (info.SizeInBytes, info.Alignment) == divmod(addressof(word), 1000)


@sysv_x64
def test_linux_struct_return_through_the_hidden_pointer():
    # DML_BINDING_PROPERTIES (24 bytes, MEMORY class): the caller passes the result's address first and `this`
    # second, and the callee returns that address, exactly what this callback does by hand.
    seen = []

    def binding_properties(ret, this):
        seen.append(this)
        p = com.struct_type("DML_BINDING_PROPERTIES").from_address(ret)
        p.RequiredDescriptorCount, p.TemporaryResourceSize, p.PersistentResourceSize = 7, 2**33 + 5, 4096
        return ret

    fake = Fake("IDMLCompiledOperator", {"GetBindingProperties": (ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p),
                                                                   binding_properties)})
    op = com.ComPtr(fake.address, "IDMLCompiledOperator", owned=False, platform="linux")
    props = op.call("GetBindingProperties")
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize, props.PersistentResourceSize) == \
        (7, 2**33 + 5, 4096)
    assert seen == [fake.address]


def test_windows_form_passes_the_result_pointer_after_this():
    seen = []

    def binding_properties(this, ret):
        seen.append(this)
        p = com.struct_type("DML_BINDING_PROPERTIES").from_address(ret)
        p.RequiredDescriptorCount, p.TemporaryResourceSize, p.PersistentResourceSize = 3, 256, 2**40
        return ret

    fake = Fake("IDMLOperatorInitializer", {"GetBindingProperties": (ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p),
                                                                      binding_properties)})
    init = com.ComPtr(fake.address, "IDMLOperatorInitializer", owned=False, platform="win32")
    props = init.call("GetBindingProperties")
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize, props.PersistentResourceSize) == \
        (3, 256, 2**40)
    assert seen == [fake.address]
