"""An in-process fake of the D3D12 and DirectML objects that the native DirectML backend drives, for CI machines
without DirectML (Linux x86-64 only: the vtables are made of ctypes callbacks in the SysV calling convention).

``install(monkeypatch, **options)`` (or the ``fake_directml`` fixture, a factory taking the same options) makes
``dmlops.backends.directml.adapters.devices()`` list one fake adapter ``dml:0`` and ``open_device(0)`` return its
fake ID3D12Device and IDMLDevice. Every object is a COM object whose vtable slots are callbacks with the
prototype ``com.call_form(interface, method, "linux")`` derives from dmlops/data/com_vtables.json, so a caller gets
the argument conversions a real DLL would apply. Slots the fake does not implement record the call in
``violations`` ("unimplemented: ...") and return E_NOTIMPL.

What the fake does, as D3D12 and DirectML do (synchronously):

- Resources (buffers only) are backed by real memory; Map works on UPLOAD and READBACK heaps, DEFAULT heaps
  refuse (E_INVALIDARG). Buffers start in COMMON whatever InitialResourceState says; UPLOAD buffers stay in
  GENERIC_READ and READBACK buffers in COPY_DEST.
- Command lists record ResourceBarrier / CopyBufferRegion / SetDescriptorHeaps / RecordDispatch and run them at
  ExecuteCommandLists, in order. A closed list may be executed any number of times. State tracking: a
  transition's StateBefore must be the tracked state; copies need COPY_DEST / COPY_SOURCE and dispatches
  UNORDERED_ACCESS, a default buffer in COMMON being promoted implicitly (and decaying back to COMMON at the end
  of each ExecuteCommandLists). A dispatch touching a range that an earlier dispatch of the same list wrote,
  with no UAV barrier (or transition) between them, is a missing-UAV-barrier violation.
- IDMLDevice::CreateOperator reads the DML_OPERATOR_DESC back (``marshal.read_back``) during the call;
  CompileOperator / IDMLDevice1::CompileGraph keep the dmlops descriptor or GraphDesc; a compiled operator's
  dispatch reads its bound inputs, runs ``dmlops.backends.reference`` and writes its outputs into the bound
  buffers. Initializers capture OWNED_BY_DML inputs and fill the persistent resources (with a pattern that a
  later dispatch checks is intact).
- Binding tables copy each binding when it is made (as DirectML writes descriptors at once) and check counts,
  sizes, 16-byte offsets (256 for temporary / persistent), ranges and descriptor counts. RecordDispatch
  snapshots the table; at execution the descriptors in the heap must still be the ones recorded (unless the
  operator was compiled with DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, whose dispatch reads the table then).
- Reference counts are tracked; ``live()`` lists what was not released.
- Memory is accounted as the real stack charged it: a buffer its Width, a shader-visible descriptor heap
  SHADER_VISIBLE_HEAP_BYTES (488 MiB, measured on real DirectML) whatever its size, other heaps their descriptors;
  ``live_bytes`` is what the objects still referenced hold, ``peak_bytes`` the most held at once.

Anything wrong is appended to ``violations`` (strings naming the call, the object and the rule); a Python error
inside the fake goes to ``errors``; neither ever crashes the caller. ``assert_clean()`` raises if either is
non-empty. Nothing here runs DirectML.

GetBindingProperties: a compiled operator needs one descriptor per input and output slot (absent optional ones
included), plus one for a persistent and one for a temporary resource when their sizes are not 0; an initializer
max(1, 2 x its operators, + 1 with a temporary resource). Binding tables write RequiredDescriptorCount
descriptors from their CPU handle.

Using it: ``fake = fake_directml(**options)`` in a test (import the fixture from this module), then
``adapters.open_device(0)`` or anything above it. Afterwards: ``fake.violations`` / ``fake.errors`` /
``fake.refused`` (lists of str), ``fake.calls`` ((Interface::Method, object label) tuples), ``fake.count(name)``,
``fake.objects`` / ``fake.of(Resource)``, ``fake.heaps`` (every descriptor heap made), ``fake.live_bytes`` /
``fake.peak_bytes`` / ``fake.bytes_of(DescriptorHeap)``, ``fake.seconds`` (wall time spent inside the fake's COM
methods, from entering a vtable callback to leaving it: what a benchmark subtracts to see dmlops's own Python time;
the ctypes crossing into each callback is not in it), ``fake.live()`` (objects not released; the adapter and the two devices
count only above the one reference ``adapters`` keeps), ``fake.assert_clean()``, ``fake.assert_no_leaks()``,
``fake.remove_device()``.

Options (keywords of ``install``/``FakeDirectML``):
  feature_level    highest DML_FEATURE_LEVEL the device grants ("6.4" by default; a FeatureLevel, "5.1", 0x5100)
  float16, float64 tensor data type support (True, False)
  refuse           operator types (e.g. {"GRU"}) whose CreateOperator fails with E_INVALIDARG
  sizes            {operator type: (temporary bytes, persistent bytes)} for GetBindingProperties (default (0, 0);
                   an operator with OWNED_BY_DML inputs defaults to a persistent size that holds them)
  initializer_temp TemporaryResourceSize of every operator initializer (0)
  validate         refuse (E_INVALIDARG) descriptors and graphs with dmlops validation problems (True)
  device_removed   False, True (the first ExecuteCommandLists hangs the device) or n (the n-th one does);
                   afterwards GetDeviceRemovedReason returns ``removed_reason`` (DXGI_ERROR_DEVICE_HUNG) and
                   fences report UINT64_MAX
  compute          True: a compiled operator's dispatch computes its outputs with the reference; False: it checks
                   everything as usual and leaves the outputs as they are (benchmarks of dmlops's own cost, and
                   tests that count host memory without the reference's)
"""
from __future__ import annotations

import ctypes
import gc
import platform
import sys
import time
import traceback
from ctypes import (POINTER, CFUNCTYPE, Structure, Union, addressof, c_bool, c_size_t, c_uint8, c_uint32, c_uint64,
                    c_void_p, sizeof)
from dataclasses import dataclass

import numpy as np
import pytest

from dmlops import compiled, tensors
from dmlops.backends import reference
from dmlops.backends.directml import adapters, com, libraries, marshal
from dmlops.backends.directml import structs as S
from dmlops.errors import DmlOpsError
from dmlops.graph import GraphDesc, slots
from dmlops.types import DataType, FeatureLevel, TensorFlags

_clock = time.perf_counter
SUPPORTED = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
WHY_UNSUPPORTED = "the fake DirectML builds SysV x86-64 vtables (Linux x86-64 only)"


def _signed(hr: int) -> int:
    return hr - 2**32 if hr >= 2**31 else hr


S_OK = 0
S_FALSE = 1
E_NOTIMPL = _signed(0x80004001)
E_NOINTERFACE = _signed(0x80004002)
E_POINTER = _signed(0x80004003)
E_FAIL = _signed(0x80004005)
E_INVALIDARG = _signed(0x80070057)
DXGI_ERROR_DEVICE_REMOVED = _signed(0x887A0005)
DXGI_ERROR_DEVICE_HUNG = _signed(0x887A0006)
UINT64_MAX = 2**64 - 1

# d3d12.h
COMMAND_LIST_DIRECT, COMMAND_LIST_COMPUTE, COMMAND_LIST_COPY = 0, 2, 3
HEAP_DEFAULT, HEAP_UPLOAD, HEAP_READBACK = 1, 2, 3
HEAP_NAMES = {HEAP_DEFAULT: "DEFAULT", HEAP_UPLOAD: "UPLOAD", HEAP_READBACK: "READBACK"}
STATE_COMMON, STATE_UNORDERED_ACCESS, STATE_COPY_DEST, STATE_COPY_SOURCE, STATE_GENERIC_READ = 0, 0x8, 0x400, 0x800, 0xAC3
READ_STATES = 0x1 | 0x2 | 0x40 | 0x80 | 0x200 | 0x800 | 0x2000  # VERTEX_AND_CONSTANT, INDEX, *_SHADER_RESOURCE, ...
STATE_NAMES = {STATE_COMMON: "COMMON", STATE_UNORDERED_ACCESS: "UNORDERED_ACCESS", STATE_COPY_DEST: "COPY_DEST",
               STATE_COPY_SOURCE: "COPY_SOURCE", STATE_GENERIC_READ: "GENERIC_READ"}
BARRIER_TRANSITION, BARRIER_ALIASING, BARRIER_UAV = 0, 1, 2
RESOURCE_DIMENSION_BUFFER = 1
TEXTURE_LAYOUT_ROW_MAJOR = 1
RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS = 4
DESCRIPTOR_HEAP_CBV_SRV_UAV = 0
DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE = 1
DESCRIPTOR_INCREMENT = 32
# What one shader-visible descriptor heap cost on the DirectML stack acceptance ran (Microsoft's DirectML, the Linux
# build in the torch-directml 0.2.5.dev240914 wheel, on a D3D12 device backed by a CPU Vulkan driver; measured
# 2026-11-28, ../shared/reference/real_directml/README.md): dmlops.compile of a one-element ELEMENT_WISE_ADD added
# 488 MB of resident memory, all of it inside ID3D12Device::CreateDescriptorHeap, for a heap of 2 descriptors. The
# fake charges that (read as MiB, the larger reading) for every shader-visible heap whatever its size, so tests see
# what a heap per compiled operator costs. A heap that is not shader-visible costs its descriptors.
SHADER_VISIBLE_HEAP_BYTES = 488 * 2**20
# DirectML.h
DML_BINDING_NONE, DML_BINDING_BUFFER, DML_BINDING_BUFFER_ARRAY = 0, 1, 2
DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE = 4
DML_EXECUTION_FLAGS_ALL = 1 | 2 | 4  # ALLOW_HALF_PRECISION_COMPUTATION, DISABLE_META_COMMANDS, DESCRIPTORS_VOLATILE
DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16
DML_TEMPORARY_BUFFER_ALIGNMENT = DML_PERSISTENT_BUFFER_ALIGNMENT = 256
DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, DML_FEATURE_FEATURE_LEVELS = 0, 1


def state_name(state: int) -> str:
    return STATE_NAMES.get(state, f"0x{state:X}")


class D3D12_RANGE(Structure):
    """D3D12_RANGE (16 bytes)."""

    _fields_ = [("Begin", c_size_t), ("End", c_size_t)]


class D3D12_RESOURCE_TRANSITION_BARRIER(Structure):
    _fields_ = [("pResource", c_void_p), ("Subresource", c_uint32), ("StateBefore", c_uint32),
                ("StateAfter", c_uint32)]


class D3D12_RESOURCE_ALIASING_BARRIER(Structure):
    _fields_ = [("pResourceBefore", c_void_p), ("pResourceAfter", c_void_p)]


class D3D12_RESOURCE_UAV_BARRIER(Structure):
    _fields_ = [("pResource", c_void_p)]


class _BarrierUnion(Union):
    _fields_ = [("Transition", D3D12_RESOURCE_TRANSITION_BARRIER), ("Aliasing", D3D12_RESOURCE_ALIASING_BARRIER),
                ("UAV", D3D12_RESOURCE_UAV_BARRIER)]


class D3D12_RESOURCE_BARRIER(Structure):
    """D3D12_RESOURCE_BARRIER (32 bytes: Type, Flags, then the union at offset 8)."""

    _anonymous_ = ("u",)
    _fields_ = [("Type", c_uint32), ("Flags", c_uint32), ("u", _BarrierUnion)]


assert sizeof(D3D12_RESOURCE_BARRIER) == 32 and D3D12_RESOURCE_BARRIER.u.offset == 8


# ---------------------------------------------------------------------------------------------------- COM objects

# Every fake object ever made, by address (its ``word``), for the shared vtables' callbacks; like ``_KEEP`` it is never
# emptied, so an interface pointer released late by the garbage collector still reaches a live object.
_BY_ADDRESS: dict[int, "ComObject"] = {}
_VTABLES: dict[type, tuple] = {}  # class -> (vtable, its callbacks), shared by every object of the class


class ComObject:
    """A COM object: one pointer-sized word (``address``) holding the address of a vtable of ``INTERFACE``.

    A method named like a COM method of ``INTERFACE`` (or of its bases) fills that slot; it receives the
    arguments after ``this``, converted by the derived prototype, and returns the C result (an HRESULT, a
    number, None, or a struct for the struct-returning methods). ``QueryInterface`` answers ``INTERFACE``, its
    bases and ``ALSO``.
    """

    INTERFACE = "IUnknown"
    ALSO: tuple[str, ...] = ()
    KIND = "object"
    charge = 0  # bytes of memory this object holds while referenced (FakeDirectML.live_bytes)

    def __init__(self, fake: "FakeDirectML", detail: str = ""):
        self.fake = fake
        self.refs = 1
        self.serial = fake._next_serial()
        self.detail = detail
        self.name = None  # SetName
        self.vtable = type(self)._class_vtable()
        self.word = c_void_p(addressof(self.vtable))
        self.address = addressof(self.word)
        _BY_ADDRESS[self.address] = self
        fake._register(self)

    # -- plumbing
    @property
    def label(self) -> str:
        return f"{self.KIND}#{self.serial}" + (f"({self.detail})" if self.detail else "")

    def __repr__(self) -> str:
        return f"<{self.label} refs={self.refs}>"

    def _interfaces(self) -> set[str]:
        return set(com.bases(self.INTERFACE)) | {b for i in self.ALSO for b in com.bases(i)}

    @classmethod
    def _class_vtable(cls):
        """The vtable every object of this class shares (made on first use): each slot a callback that finds its
        object by ``this`` (``_BY_ADDRESS``) and calls the method of that name, or a stub for those not written."""
        built = _VTABLES.get(cls)
        if built is None:
            entry = com.table()[cls.INTERFACE]
            vtable = (c_void_p * entry["method_count"])()
            callbacks = []
            for owner in com.bases(cls.INTERFACE):
                e = com.table()[owner]
                for m in e.get("methods") or e.get("own_methods") or []:
                    if vtable[m["index"]]:
                        continue
                    impl = getattr(cls, m["name"], None)
                    cb = cls._callback(m["name"]) if callable(impl) else cls._stub(f"{owner}::{m['name']}")
                    callbacks.append(cb)
                    vtable[m["index"]] = ctypes.cast(cb, c_void_p).value
            built = _VTABLES[cls] = (vtable, callbacks)
        return built[0]

    @classmethod
    def _callback(cls, name: str):
        m = com.method(cls.INTERFACE, name)
        form = com.call_form(cls.INTERFACE, name, "linux")
        qual = f"{cls.INTERFACE}::{name}"
        hresult = m.return_type == "HRESULT"
        if form.struct is None:
            default = E_FAIL if hresult else (None if form.restype is None else 0)

            def cb(this, *args):
                start = _clock()
                obj = _BY_ADDRESS[this]
                try:
                    result = obj._invoke(qual, name, getattr(obj, name), args, default)
                    return _signed(result & 0xFFFFFFFF) if hresult and result is not None else result
                finally:
                    obj.fake.seconds += _clock() - start

            return CFUNCTYPE(form.restype, *form.argtypes)(cb)
        size = sizeof(form.struct)
        if size <= 8:  # SysV: an 8-byte INTEGER-class struct comes back in RAX
            def cb8(this, *args):
                start = _clock()
                obj = _BY_ADDRESS[this]
                try:
                    result = obj._invoke(qual, name, getattr(obj, name), args, form.struct())
                    return int.from_bytes(bytes(result).ljust(8, b"\0"), "little")
                finally:
                    obj.fake.seconds += _clock() - start

            return CFUNCTYPE(c_uint64, *form.argtypes)(cb8)
        if size > 16:  # SysV MEMORY class: the caller passes the result's address first, before `this`
            def cb_mem(ret, this, *args):
                start = _clock()
                obj = _BY_ADDRESS[this]
                try:
                    result = obj._invoke(qual, name, getattr(obj, name), args, form.struct())
                    ctypes.memmove(ret, ctypes.byref(result), size)
                    return ret
                finally:
                    obj.fake.seconds += _clock() - start

            return CFUNCTYPE(c_void_p, c_void_p, *form.argtypes)(cb_mem)
        return cls._stub(qual)  # 9..16 bytes come back in two registers, which a ctypes callback cannot do

    @staticmethod
    def _stub(qual: str):
        def stub(this):
            obj = _BY_ADDRESS[this]
            obj.fake.calls.append((qual, obj.label))
            obj.fake.violation(f"unimplemented: {qual} called on {obj.label}; the fake returns E_NOTIMPL")
            return E_NOTIMPL

        return CFUNCTYPE(ctypes.c_int32, c_void_p)(stub)

    def _invoke(self, qual, name, impl, args, default):
        self.fake.calls.append((qual, self.label))
        if self.refs <= 0 and name not in ("AddRef", "Release"):
            self.fake.violation(f"{qual}: called on {self.label} after its last Release")
        try:
            return impl(*args)
        except Exception:
            self.fake.errors.append(f"{qual} on {self.label}:\n{traceback.format_exc()}")
            return default

    def _out(self, out, obj: "ComObject | None") -> None:
        if out:
            c_void_p.from_address(out).value = obj.address if obj is not None else None

    # -- IUnknown
    def QueryInterface(self, riid, out):
        if not out:
            return E_POINTER
        name = self.fake.iid_name(riid)
        if name in self._interfaces():
            self.refs += 1
            self._out(out, self)
            return S_OK
        self._out(out, None)
        return E_NOINTERFACE

    def AddRef(self):
        self.refs += 1
        return self.refs

    def Release(self):
        if self.refs <= 0:
            self.fake.violation(f"Release: {self.label} released more often than referenced")
            return 0
        self.refs -= 1
        if self.refs == 0:
            self.fake.discharge(self)
            self.destroyed()
        return self.refs

    def destroyed(self) -> None:
        """Called when the last reference goes."""

    # -- ID3D12Object / IDMLObject
    def SetName(self, name):
        self.name = name
        return S_OK

    def GetDevice(self, riid, out):
        device = self.fake.dml if "IDMLDeviceChild" in self._interfaces() else self.fake.d3d12
        return device.QueryInterface(riid, out)

    def create(self, cls, riid, out, *args, **kwargs):
        """Make a ``cls`` object (one reference) and hand it out through ``out`` (see hand_out)."""
        if self.fake.removed is not None:
            self._out(out, None)
            return DXGI_ERROR_DEVICE_REMOVED
        return self.hand_out(cls(self.fake, *args, **kwargs), riid, out)

    def hand_out(self, obj: "ComObject", riid, out) -> int:
        """Give the new ``obj``'s reference to the caller through ``out`` if it answers ``riid``."""
        wanted = self.fake.iid_name(riid)
        if wanted not in obj._interfaces():
            self.fake.violation(f"{self.fake.last_call()}: asked for {wanted} but makes {obj.INTERFACE}")
            obj.refs = 0
            self.fake.discharge(obj)
            self._out(out, None)
            return E_NOINTERFACE
        self._out(out, obj)
        return S_OK


# ---------------------------------------------------------------------------------------------------- DXCore


class DXCoreAdapter(ComObject):
    INTERFACE, KIND = "IDXCoreAdapter", "dxcore-adapter"

    def __init__(self, fake):
        super().__init__(fake)
        self.props = {2: b"Fake DirectML GPU\0", 3: bytes(adapters.DXCoreHardwareID(0x8086, 0x56A0, 0, 8)),
                      7: bytes(c_uint64(8 * 2**30)), 11: bytes(c_bool(True))}

    def IsPropertySupported(self, prop):
        return prop in self.props

    def GetPropertySize(self, prop, out):
        if prop not in self.props:
            return E_INVALIDARG
        c_size_t.from_address(out).value = len(self.props[prop])
        return S_OK

    def GetProperty(self, prop, size, buf):
        if prop not in self.props:
            return E_INVALIDARG
        ctypes.memmove(buf, self.props[prop], min(size, len(self.props[prop])))
        return S_OK


class DXCoreAdapterList(ComObject):
    INTERFACE, KIND = "IDXCoreAdapterList", "dxcore-list"

    def GetAdapterCount(self):
        return 1

    def GetAdapter(self, index, riid, out):
        if index != 0:
            return E_INVALIDARG
        return self.fake.adapter.QueryInterface(riid, out)


class DXCoreAdapterFactory(ComObject):
    INTERFACE, KIND = "IDXCoreAdapterFactory", "dxcore-factory"

    def CreateAdapterList(self, count, attributes, riid, out):
        return self.create(DXCoreAdapterList, riid, out)


# ---------------------------------------------------------------------------------------------------- D3D12


class D3D12Device(ComObject):
    INTERFACE, KIND = "ID3D12Device", "d3d12-device"

    def GetDeviceRemovedReason(self):
        return S_OK if self.fake.removed is None else self.fake.removed

    def CreateCommandQueue(self, desc, riid, out):
        d = com.D3D12_COMMAND_QUEUE_DESC.from_address(desc)
        if d.Type not in (COMMAND_LIST_DIRECT, COMMAND_LIST_COMPUTE, COMMAND_LIST_COPY):
            return self.fake.refuse(E_INVALIDARG, f"CreateCommandQueue: D3D12_COMMAND_QUEUE_DESC.Type {d.Type}")
        return self.create(CommandQueue, riid, out, d.Type)

    def CreateCommandAllocator(self, type_, riid, out):
        if type_ not in (COMMAND_LIST_DIRECT, COMMAND_LIST_COMPUTE, COMMAND_LIST_COPY):
            return self.fake.refuse(E_INVALIDARG, f"CreateCommandAllocator: type {type_}")
        return self.create(CommandAllocator, riid, out, type_)

    def CreateCommandList(self, node_mask, type_, allocator, pipeline_state, riid, out):
        alloc = self.fake.resolve(allocator, CommandAllocator, "CreateCommandList: pCommandAllocator")
        if alloc is None:
            return E_INVALIDARG
        if alloc.type != type_:
            return self.fake.refuse(E_INVALIDARG, f"CreateCommandList: type {type_} but {alloc.label} has type "
                                                  f"{alloc.type}")
        if alloc.recording is not None:
            return self.fake.refuse(E_INVALIDARG, f"CreateCommandList: {alloc.label} is in use by the recording "
                                                  f"{alloc.recording.label}")
        if pipeline_state:
            self.fake.violation("CreateCommandList: pInitialState should be NULL (DirectML sets its own)")
        return self.create(CommandList, riid, out, type_, alloc)

    def CreateFence(self, initial, flags, riid, out):
        return self.create(Fence, riid, out, initial)

    def CreateDescriptorHeap(self, desc, riid, out):
        d = com.D3D12_DESCRIPTOR_HEAP_DESC.from_address(desc)
        if d.NumDescriptors == 0:
            return self.fake.refuse(E_INVALIDARG, "CreateDescriptorHeap: NumDescriptors is 0")
        return self.create(DescriptorHeap, riid, out, d.Type, d.NumDescriptors, d.Flags)

    def GetDescriptorHandleIncrementSize(self, heap_type):
        return DESCRIPTOR_INCREMENT

    def CreateCommittedResource(self, heap_props, heap_flags, desc, initial_state, clear_value, riid, out):
        hp = com.D3D12_HEAP_PROPERTIES.from_address(heap_props)
        d = com.D3D12_RESOURCE_DESC.from_address(desc)
        where = "CreateCommittedResource"
        if hp.Type not in HEAP_NAMES:
            return self.fake.refuse(E_INVALIDARG, f"{where}: heap type {hp.Type} (the fake has DEFAULT, UPLOAD, "
                                                  "READBACK)")
        problems = []
        if d.Dimension != RESOURCE_DIMENSION_BUFFER:
            problems.append(f"Dimension {d.Dimension} (only buffers, D3D12_RESOURCE_DIMENSION_BUFFER = 1)")
        if d.Width == 0:
            problems.append("Width 0")
        if (d.Height, d.DepthOrArraySize, d.MipLevels, d.SampleDesc.Count, d.Format) != (1, 1, 1, 1, 0):
            problems.append(f"Height {d.Height}, DepthOrArraySize {d.DepthOrArraySize}, MipLevels {d.MipLevels}, "
                            f"SampleDesc.Count {d.SampleDesc.Count}, Format {d.Format}; a buffer has 1, 1, 1, 1 and "
                            "DXGI_FORMAT_UNKNOWN")
        if d.Layout != TEXTURE_LAYOUT_ROW_MAJOR:
            problems.append(f"Layout {d.Layout}; buffers need D3D12_TEXTURE_LAYOUT_ROW_MAJOR (1)")
        if hp.Type == HEAP_UPLOAD and initial_state != STATE_GENERIC_READ:
            problems.append(f"an UPLOAD buffer must start in GENERIC_READ, not {state_name(initial_state)}")
        if hp.Type == HEAP_READBACK and initial_state != STATE_COPY_DEST:
            problems.append(f"a READBACK buffer must start in COPY_DEST, not {state_name(initial_state)}")
        if hp.Type != HEAP_DEFAULT and d.Flags & RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS:
            problems.append("ALLOW_UNORDERED_ACCESS on an UPLOAD or READBACK heap")
        if clear_value:
            problems.append("pOptimizedClearValue must be NULL for a buffer")
        if problems:
            return self.fake.refuse(E_INVALIDARG, f"{where}: " + "; ".join(problems))
        return self.create(Resource, riid, out, hp.Type, d.Width, d.Flags)


class Resource(ComObject):
    """A buffer with real memory (``memory``, zero-filled) and a tracked resource state."""

    INTERFACE, KIND = "ID3D12Resource", "resource"

    def __init__(self, fake, heap_type: int, width: int, flags: int):
        super().__init__(fake, f"{HEAP_NAMES[heap_type]} {width} B")
        self.heap_type, self.width, self.flags = heap_type, width, flags
        self.memory = (c_uint8 * width)()
        fake.charge(self, width)
        self.state = {HEAP_UPLOAD: STATE_GENERIC_READ, HEAP_READBACK: STATE_COPY_DEST}.get(heap_type, STATE_COMMON)
        self.promoted = False
        self.maps = 0
        self.gpu_address = (0x3000 + self.serial) << 32

    @property
    def uav(self) -> bool:
        return bool(self.flags & RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)

    def read(self, offset: int, size: int) -> bytes:
        self._inside(offset, size)
        return ctypes.string_at(addressof(self.memory) + offset, size)

    def write(self, offset: int, data: bytes) -> None:
        self._inside(offset, len(data))
        ctypes.memmove(addressof(self.memory) + offset, data, len(data))

    def copy_from(self, offset: int, src: "Resource", src_offset: int, size: int) -> None:
        """A GPU copy: ``size`` bytes of ``src`` into this one, memory to memory (no Python bytes in between)."""
        self._inside(offset, size)
        src._inside(src_offset, size)
        ctypes.memmove(addressof(self.memory) + offset, addressof(src.memory) + src_offset, size)

    def _inside(self, offset: int, size: int) -> None:
        if offset < 0 or size < 0 or offset + size > self.width:
            raise IndexError(f"[{offset}, {offset + size}) is outside the {self.width} bytes of {self.label}")

    def array(self, dtype, offset: int = 0, count: int = -1) -> np.ndarray:
        """A NumPy copy of the contents (for tests)."""
        return np.frombuffer(self.memory, dtype=dtype, count=count, offset=offset).copy()

    def Map(self, subresource, read_range, out):
        if self.fake.removed is not None:
            return DXGI_ERROR_DEVICE_REMOVED
        if self.heap_type == HEAP_DEFAULT:
            return self.fake.refuse(E_INVALIDARG, f"Map: {self.label} is on a DEFAULT heap, which the CPU cannot map")
        if subresource != 0:
            return self.fake.refuse(E_INVALIDARG, f"Map: subresource {subresource} of a buffer")
        if read_range:
            r = D3D12_RANGE.from_address(read_range)
            if r.Begin > r.End or r.End > self.width:
                self.fake.violation(f"Map: read range [{r.Begin}, {r.End}) outside {self.label}")
        self.maps += 1
        if out:
            c_void_p.from_address(out).value = addressof(self.memory)
        return S_OK

    def Unmap(self, subresource, written_range):
        if self.maps == 0:
            self.fake.violation(f"Unmap: {self.label} is not mapped")
            return
        if written_range:
            r = D3D12_RANGE.from_address(written_range)
            if r.Begin > r.End or r.End > self.width:
                self.fake.violation(f"Unmap: written range [{r.Begin}, {r.End}) outside {self.label}")
        self.maps -= 1

    def GetDesc(self):
        return com.D3D12_RESOURCE_DESC(Dimension=RESOURCE_DIMENSION_BUFFER, Width=self.width, Height=1,
                                       DepthOrArraySize=1, MipLevels=1, SampleDesc=com.DXGI_SAMPLE_DESC(1, 0),
                                       Layout=TEXTURE_LAYOUT_ROW_MAJOR, Flags=self.flags)

    def GetGPUVirtualAddress(self):
        return self.gpu_address


class DescriptorHeap(ComObject):
    """A descriptor heap; ``slots[i]`` is what the binding table that last wrote descriptor i put there."""

    INTERFACE, KIND = "ID3D12DescriptorHeap", "descriptor-heap"

    def __init__(self, fake, type_: int, count: int, flags: int):
        super().__init__(fake, f"{count} descriptors" + (", shader-visible" if flags & 1 else ""))
        self.type, self.count, self.flags = type_, count, flags
        fake.charge(self, SHADER_VISIBLE_HEAP_BYTES if self.shader_visible else count * DESCRIPTOR_INCREMENT)
        fake.heaps.append(self)
        self.cpu_start = (0x1000 + self.serial) << 32
        self.gpu_start = (0x2000 + self.serial) << 32 if self.shader_visible else 0
        self.slots: list = [None] * count

    @property
    def shader_visible(self) -> bool:
        return bool(self.flags & DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)

    def GetCPUDescriptorHandleForHeapStart(self):
        return S.D3D12_CPU_DESCRIPTOR_HANDLE(self.cpu_start)

    def GetGPUDescriptorHandleForHeapStart(self):
        if not self.shader_visible:
            self.fake.violation(f"GetGPUDescriptorHandleForHeapStart: {self.label} is not shader-visible (D3D12 "
                                "returns a NULL handle)")
        return S.D3D12_GPU_DESCRIPTOR_HANDLE(self.gpu_start)


class CommandAllocator(ComObject):
    INTERFACE, KIND = "ID3D12CommandAllocator", "command-allocator"

    def __init__(self, fake, type_: int):
        super().__init__(fake)
        self.type = type_
        self.generation = 0  # bumped by Reset: lists recorded before it can no longer be executed
        self.recording: CommandList | None = None

    def Reset(self):
        if self.recording is not None:
            return self.fake.refuse(E_FAIL, f"ID3D12CommandAllocator::Reset: {self.recording.label} is still "
                                            "recording into it")
        self.generation += 1
        return S_OK


@dataclass(frozen=True)
class Buffer:
    """A DML_BUFFER_BINDING copied when bound: the resource object (None when the pointer was unknown)."""

    resource: Resource | None
    offset: int
    size: int

    def __str__(self) -> str:
        return f"{self.resource.label if self.resource else 'NULL'} [{self.offset}, {self.offset + self.size})"


@dataclass
class Dispatch:
    """A recorded RecordDispatch: the dispatchable, the table, and a snapshot of the table's bindings."""

    dispatchable: "Dispatchable"
    table: "BindingTable"
    heap: DescriptorHeap | None
    first: int
    count: int
    stamp: tuple
    inputs: list
    outputs: list
    temporary: Buffer | None
    persistent: Buffer | None


class CommandList(ComObject):
    """ID3D12GraphicsCommandList: records commands while open; ExecuteCommandLists runs them (``commands``)."""

    INTERFACE, KIND = "ID3D12GraphicsCommandList", "command-list"

    def __init__(self, fake, type_: int, allocator: CommandAllocator):
        super().__init__(fake)
        self.type = type_
        self.commands: list[tuple] = []
        self.open = True
        self.failed = False  # something invalid was recorded: Close returns E_INVALIDARG
        self.executions = 0
        self._start(allocator)

    def _start(self, allocator):
        self.allocator = allocator
        self.generation = allocator.generation
        allocator.recording = self

    def _record(self, method: str) -> bool:
        if not self.open:
            self.failed = True
            self.fake.violation(f"{method}: recorded into the closed {self.label} (Reset it first)")
            return False
        return True

    def Close(self):
        if not self.open:
            return self.fake.refuse(E_FAIL, f"Close: {self.label} is already closed")
        self.open = False
        self.allocator.recording = None
        if self.failed:
            return E_INVALIDARG
        return S_OK

    def Reset(self, allocator, pipeline_state):
        if self.open:
            return self.fake.refuse(E_FAIL, f"ID3D12GraphicsCommandList::Reset: {self.label} is still open")
        alloc = self.fake.resolve(allocator, CommandAllocator, "ID3D12GraphicsCommandList::Reset: pAllocator")
        if alloc is None:
            return E_INVALIDARG
        if alloc.recording is not None:
            return self.fake.refuse(E_INVALIDARG, f"ID3D12GraphicsCommandList::Reset: {alloc.label} is in use by the "
                                                  f"recording {alloc.recording.label}")
        self.commands, self.open, self.failed = [], True, False
        self._start(alloc)
        return S_OK

    def ResourceBarrier(self, count, barriers):
        if not self._record("ResourceBarrier"):
            return
        array = (D3D12_RESOURCE_BARRIER * count).from_address(barriers) if count else []
        for i, b in enumerate(array):
            where = f"ResourceBarrier[{i}] in {self.label}"
            if b.Flags:
                self.fake.violation(f"{where}: Flags {b.Flags} (split barriers are not modelled)")
            if b.Type == BARRIER_TRANSITION:
                t = b.Transition
                res = self.fake.resolve(t.pResource, Resource, f"{where}: pResource")
                if res is None:
                    self.failed = True
                    continue
                if t.StateBefore == t.StateAfter:
                    self.fake.violation(f"{where}: a transition of {res.label} from {state_name(t.StateBefore)} to "
                                        "itself")
                self.commands.append(("transition", res, t.StateBefore, t.StateAfter, where))
            elif b.Type == BARRIER_UAV:
                res = None
                if b.UAV.pResource:
                    res = self.fake.resolve(b.UAV.pResource, Resource, f"{where}: UAV pResource")
                    if res is not None and not res.uav:
                        self.fake.violation(f"{where}: UAV barrier on {res.label}, created without "
                                            "ALLOW_UNORDERED_ACCESS")
                self.commands.append(("uav", res, where))
            elif b.Type != BARRIER_ALIASING:
                self.failed = True
                self.fake.violation(f"{where}: Type {b.Type}")

    def CopyBufferRegion(self, dst, dst_offset, src, src_offset, size):
        if not self._record("CopyBufferRegion"):
            return
        where = f"CopyBufferRegion in {self.label}"
        d = self.fake.resolve(dst, Resource, f"{where}: pDstBuffer")
        s = self.fake.resolve(src, Resource, f"{where}: pSrcBuffer")
        if d is None or s is None:
            self.failed = True
            return
        bad = [f"{what} range [{off}, {off + size}) outside {r.label}"
               for what, r, off in (("destination", d, dst_offset), ("source", s, src_offset)) if off + size > r.width]
        if d is s and abs(dst_offset - src_offset) < size:
            bad.append("source and destination overlap in one resource")
        if bad:
            self.failed = True
            self.fake.violation(f"{where}: " + "; ".join(bad))
            return
        self.commands.append(("copy", d, dst_offset, s, src_offset, size, where))

    def SetDescriptorHeaps(self, count, heaps):
        if not self._record("SetDescriptorHeaps"):
            return
        where = f"SetDescriptorHeaps in {self.label}"
        found = []
        for i in range(count):
            heap = self.fake.resolve(c_void_p.from_address(heaps + 8 * i).value, DescriptorHeap, f"{where}[{i}]")
            if heap is not None:
                if not heap.shader_visible:
                    self.fake.violation(f"{where}: {heap.label} is not shader-visible")
                found.append(heap)
        self.commands.append(("heaps", found, where))


class Fence(ComObject):
    INTERFACE, KIND = "ID3D12Fence", "fence"

    def __init__(self, fake, initial: int):
        super().__init__(fake)
        self.value = initial

    def GetCompletedValue(self):
        return UINT64_MAX if self.fake.removed is not None else self.value

    def SetEventOnCompletion(self, value, event):
        if self.fake.removed is None and value > self.value:
            self.fake.violation(f"SetEventOnCompletion({value}) on {self.label} whose value is {self.value} and "
                                "nothing queued will signal it" + (": a NULL event would block forever" if not event
                                                                   else ""))
        return S_OK

    def Signal(self, value):
        self.value = value
        return S_OK


class CommandQueue(ComObject):
    INTERFACE, KIND = "ID3D12CommandQueue", "command-queue"

    def __init__(self, fake, type_: int):
        super().__init__(fake)
        self.type = type_

    def Signal(self, fence, value):
        f = self.fake.resolve(fence, Fence, "ID3D12CommandQueue::Signal: pFence")
        if f is None:
            return E_INVALIDARG
        if self.fake.removed is not None:
            return DXGI_ERROR_DEVICE_REMOVED
        f.value = value
        return S_OK

    def ExecuteCommandLists(self, count, lists):
        self.fake.executions += 1
        trigger = self.fake.options["device_removed"]
        if self.fake.removed is None and trigger is not False and self.fake.executions == int(trigger):
            self.fake.remove_device()
        if self.fake.removed is not None:
            return
        touched: set[Resource] = set()
        for i in range(count):
            cl = self.fake.resolve(c_void_p.from_address(lists + 8 * i).value, CommandList,
                                   f"ExecuteCommandLists[{i}]")
            if cl is not None:
                run = Execution(self.fake, self, cl)
                run.run()
                touched |= run.touched
        for obj in touched:  # buffers decay to COMMON when ExecuteCommandLists completes (the others are there)
            if obj.heap_type == HEAP_DEFAULT:
                obj.state, obj.promoted = STATE_COMMON, False


# ---------------------------------------------------------------------------------------------------- DirectML


class DMLDevice(ComObject):
    """IDMLDevice, with a vtable sized for IDMLDevice1 (QueryInterface answers both)."""

    INTERFACE, KIND = "IDMLDevice1", "dml-device"

    def CheckFeatureSupport(self, feature, query_size, query, data_size, data):
        if feature == DML_FEATURE_FEATURE_LEVELS:
            q = adapters.DML_FEATURE_QUERY_FEATURE_LEVELS.from_address(query)
            levels = list((c_uint32 * q.RequestedFeatureLevelCount).from_address(q.RequestedFeatureLevels))
            granted = [level for level in levels if level <= self.fake.feature_level]
            if not granted:
                return E_INVALIDARG
            adapters.DML_FEATURE_DATA_FEATURE_LEVELS.from_address(data).MaxSupportedFeatureLevel = max(granted)
            return S_OK
        if feature == DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:
            data_type = DataType(adapters.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT.from_address(query).DataType)
            supported = {DataType.FLOAT16: self.fake.options["float16"],
                         DataType.FLOAT64: self.fake.options["float64"]}.get(data_type, True)
            adapters.DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT.from_address(data).IsSupported = int(supported)
            return S_OK
        return E_INVALIDARG

    def GetDeviceRemovedReason(self):
        return S_OK if self.fake.removed is None else self.fake.removed

    def GetParentDevice(self, riid, out):
        return self.fake.d3d12.QueryInterface(riid, out)

    def Evict(self, count, objects):
        return S_OK

    def MakeResident(self, count, objects):
        return S_OK

    def CreateOperator(self, desc, riid, out):
        if not desc:
            return self.fake.refuse(E_INVALIDARG, "CreateOperator: desc is NULL")
        try:  # read now: the caller may free the struct after the call
            d = marshal.read_back(ctypes.cast(desc, POINTER(S.DML_OPERATOR_DESC)))
        except DmlOpsError as e:
            return self.fake.refuse(E_INVALIDARG, f"CreateOperator: the DML_OPERATOR_DESC cannot be read: {e}")
        if d.OPERATOR_TYPE in self.fake.options["refuse"]:
            self.fake.refused.append(f"CreateOperator({d.OPERATOR_TYPE}): refused by the fake's 'refuse' option")
            self._out(out, None)
            return E_INVALIDARG
        if self.fake.options["validate"]:
            from dmlops.validation import problems
            found = problems(d, self.fake.feature_level)
            if found:
                self.fake.refused.append(f"CreateOperator({d.OPERATOR_TYPE}): " + "; ".join(map(str, found)))
                self._out(out, None)
                return E_INVALIDARG
        return self.create(Operator, riid, out, d)

    def CompileOperator(self, op, flags, riid, out):
        if flags & ~DML_EXECUTION_FLAGS_ALL:
            return self.fake.refuse(E_INVALIDARG, f"CompileOperator: flags 0x{flags:X} are not DML_EXECUTION_FLAGS")
        o = self.fake.resolve(op, Operator, "CompileOperator: op")
        if o is None:
            return E_INVALIDARG
        return self.create(CompiledOperator, riid, out, GraphDesc.single(o.desc), flags, single=o.desc)

    def CompileGraph(self, desc, flags, riid, out):
        if not desc:
            return self.fake.refuse(E_INVALIDARG, "CompileGraph: desc is NULL")
        if flags & ~DML_EXECUTION_FLAGS_ALL:
            return self.fake.refuse(E_INVALIDARG, f"CompileGraph: flags 0x{flags:X} are not DML_EXECUTION_FLAGS")
        try:
            g = marshal.read_back(ctypes.cast(desc, POINTER(S.DML_GRAPH_DESC)))
        except DmlOpsError as e:
            return self.fake.refuse(E_INVALIDARG, f"CompileGraph: the DML_GRAPH_DESC cannot be read: {e}")
        nodes = []
        for k, address in enumerate(g["operators"]):
            o = self.fake.resolve(address, Operator, f"CompileGraph: Nodes[{k}].Operator")
            if o is None:
                return E_INVALIDARG
            nodes.append(o.desc)
        graph = GraphDesc(nodes, g["input_edges"], g["intermediate_edges"], g["output_edges"],
                          [f"input{i}" for i in range(g["input_count"])],
                          [f"output{i}" for i in range(g["output_count"])])
        found = graph.problems(self.fake.feature_level)
        if found:
            self.fake.refused.append("CompileGraph: " + "; ".join(map(str, found)))
            self._out(out, None)
            return E_INVALIDARG
        return self.create(CompiledOperator, riid, out, graph, flags)

    def CreateOperatorInitializer(self, count, ops, riid, out):
        targets = self.fake.compiled_list(count, ops, "CreateOperatorInitializer")
        if targets is None:
            return E_INVALIDARG
        return self.create(OperatorInitializer, riid, out, targets)

    def CreateBindingTable(self, desc, riid, out):
        if self.fake.removed is not None:
            return DXGI_ERROR_DEVICE_REMOVED
        table = BindingTable(self.fake)
        if desc and not table.point(S.DML_BINDING_TABLE_DESC.from_address(desc), "CreateBindingTable"):
            table.refs = 0
            self._out(out, None)
            return E_INVALIDARG
        return self.hand_out(table, riid, out)

    def CreateCommandRecorder(self, riid, out):
        return self.create(CommandRecorder, riid, out)


class Operator(ComObject):
    INTERFACE, KIND = "IDMLOperator", "operator"

    def __init__(self, fake, desc):
        super().__init__(fake, desc.OPERATOR_TYPE)
        self.desc = desc


def _align(n: int, to: int = 256) -> int:
    return (n + to - 1) // to * to


class Dispatchable(ComObject):
    """What IDMLCompiledOperator and IDMLOperatorInitializer share: binding properties and binding checks."""

    temporary_size = 0
    persistent_size = 0
    flags = 0

    def required_descriptors(self) -> int:
        raise NotImplementedError

    def needs_inputs(self) -> bool:
        raise NotImplementedError

    def needs_outputs(self) -> bool:
        raise NotImplementedError

    def GetBindingProperties(self):
        return S.DML_BINDING_PROPERTIES(self.required_descriptors(), self.temporary_size, self.persistent_size)


class CompiledOperator(Dispatchable):
    """IDMLCompiledOperator of one operator (``single``: its descriptor) or of a graph.

    ``input_slots``/``output_slots``: (name, TensorDesc or None) in binding order; for one operator every tensor
    slot of the descriptor (None for absent optional ones), for a graph its inputs / outputs in index order.
    """

    INTERFACE, KIND = "IDMLCompiledOperator", "compiled"

    def __init__(self, fake, graph: GraphDesc, flags: int, single=None):
        detail = single.OPERATOR_TYPE if single is not None else f"graph of {len(graph.nodes)} nodes"
        super().__init__(fake, detail)
        self.graph, self.flags, self.single = graph, flags, single
        if single is not None:
            self.input_slots, self.output_slots = slots(single, "input"), slots(single, "output")
        else:
            self.input_slots = list(zip(graph.input_names, graph.input_descs()))
            self.output_slots = list(zip(graph.output_names, graph.output_descs()))
        self.owned = [i for i, (_, td) in enumerate(self.input_slots)
                      if td is not None and TensorFlags.OWNED_BY_DML in td.flags]
        sizes = fake.options["sizes"]
        types = [n.OPERATOR_TYPE for n in graph.nodes]
        configured = [sizes[t] for t in types if t in sizes]
        owned_bytes = sum(_align(self.input_slots[i][1].total_tensor_size_in_bytes) for i in self.owned)
        self.temporary_size = max([t for t, _ in configured], default=0)
        self.persistent_size = sum(p for _, p in configured) if configured else owned_bytes
        self.initialized = None  # (persistent Buffer or None, its expected bytes, {slot: owned bytes})
        self._runner = None

    def required_descriptors(self) -> int:
        return len(self.input_slots) + len(self.output_slots) + bool(self.persistent_size) + bool(self.temporary_size)

    def needs_inputs(self) -> bool:
        return bool(self.input_slots)

    def needs_outputs(self) -> bool:
        return bool(self.output_slots)

    def runner(self):
        if self._runner is None:
            self._runner = reference.build(self.graph, "cpu")
        return self._runner

    def check_inputs(self, bindings, where):
        if len(bindings) != len(self.input_slots):
            return [f"{where}: {len(bindings)} input bindings; {self.label} has {len(self.input_slots)} input "
                    f"slots ({', '.join(n for n, _ in self.input_slots)}; absent optional ones bound as NONE)"]
        out = []
        for i, ((name, td), b) in enumerate(zip(self.input_slots, bindings)):
            at = f"{where}: input {i} ({name})"
            owned = td is not None and TensorFlags.OWNED_BY_DML in td.flags
            if isinstance(b, tuple):
                out.append(f"{at} is a DML_BUFFER_ARRAY_BINDING; an operator's tensors take DML_BUFFER_BINDINGs")
            elif td is None and b is not None:
                out.append(f"{at} is an absent optional tensor but is bound to a buffer; bind DML_BINDING_TYPE_NONE")
            elif td is not None and b is None and not owned:
                out.append(f"{at} is a tensor but is bound as NONE")
            elif owned and b is not None:
                out.append(f"{at} is OWNED_BY_DML: it is bound at initialization, never at execution")
            elif b is not None:
                out.extend(self.fake.check_buffer(b, td, at))
        return out

    def check_outputs(self, bindings, where):
        if len(bindings) != len(self.output_slots):
            return [f"{where}: {len(bindings)} output bindings; {self.label} has {len(self.output_slots)} output "
                    f"slots ({', '.join(n for n, _ in self.output_slots)})"]
        out = []
        for i, ((name, td), b) in enumerate(zip(self.output_slots, bindings)):
            at = f"{where}: output {i} ({name})"
            if isinstance(b, tuple):
                out.append(f"{at} is a DML_BUFFER_ARRAY_BINDING; an operator's tensors take DML_BUFFER_BINDINGs")
            elif td is None and b is not None:
                out.append(f"{at} is an absent optional tensor but is bound to a buffer")
            elif td is not None and b is None:
                out.append(f"{at} is a tensor but is bound as NONE")
            elif b is not None:
                out.extend(self.fake.check_buffer(b, td, at))
        return out


class OperatorInitializer(Dispatchable):
    """IDMLOperatorInitializer: inputs are one BUFFER_ARRAY (or NONE) per target, outputs their persistent
    resources."""

    INTERFACE, KIND = "IDMLOperatorInitializer", "initializer"

    def __init__(self, fake, targets: list[CompiledOperator]):
        super().__init__(fake, f"{len(targets)} operators")
        self.targets = targets
        self.temporary_size = fake.options["initializer_temp"]

    def required_descriptors(self) -> int:
        return max(1, 2 * len(self.targets) + bool(self.temporary_size))

    def needs_inputs(self) -> bool:
        return any(t.owned for t in self.targets)

    def needs_outputs(self) -> bool:
        return any(t.persistent_size for t in self.targets)

    def Reset(self, count, ops):
        targets = self.fake.compiled_list(count, ops, "IDMLOperatorInitializer::Reset")
        if targets is None:
            return E_INVALIDARG
        self.targets = targets
        self.detail = f"{len(targets)} operators"
        return S_OK

    def check_inputs(self, bindings, where):
        if not bindings and not self.needs_inputs():
            return []
        if len(bindings) != len(self.targets):
            return [f"{where}: {len(bindings)} input bindings; the initializer has {len(self.targets)} operators "
                    "(one DML_BUFFER_ARRAY_BINDING or NONE each)"]
        out = []
        for k, (op, b) in enumerate(zip(self.targets, bindings)):
            at = f"{where}: input {k} ({op.label})"
            if b is None:
                if op.owned:
                    out.append(f"{at} has OWNED_BY_DML inputs {op.owned} but is bound as NONE")
                continue
            if not isinstance(b, tuple):
                out.append(f"{at} must be a DML_BUFFER_ARRAY_BINDING (or NONE)")
                continue
            if len(b) != len(op.input_slots):
                out.append(f"{at}: the array has {len(b)} bindings; the operator has {len(op.input_slots)} inputs")
                continue
            for i, ((name, td), e) in enumerate(zip(op.input_slots, b)):
                owned = i in op.owned
                if owned and e.resource is None:
                    out.append(f"{at}[{i}] ({name}) is OWNED_BY_DML but has no buffer")
                elif not owned and e.resource is not None:
                    out.append(f"{at}[{i}] ({name}) is not OWNED_BY_DML: it is bound at execution, not here")
                elif owned:
                    out.extend(self.fake.check_buffer(e, td, f"{at}[{i}] ({name})", upload_ok=True))
        return out

    def check_outputs(self, bindings, where):
        if not bindings and not self.needs_outputs():
            return []
        if len(bindings) != len(self.targets):
            return [f"{where}: {len(bindings)} output bindings; the initializer has {len(self.targets)} operators "
                    "(one persistent resource or NONE each)"]
        out = []
        for k, (op, b) in enumerate(zip(self.targets, bindings)):
            at = f"{where}: output {k} ({op.label})"
            if isinstance(b, tuple):
                out.append(f"{at} must be a DML_BUFFER_BINDING (or NONE)")
            elif op.persistent_size and b is None:
                out.append(f"{at} needs its persistent resource ({op.persistent_size} bytes) bound")
            elif b is not None:
                out.extend(self.fake.check_extra(b, op.persistent_size, DML_PERSISTENT_BUFFER_ALIGNMENT, at))
        return out


class BindingTable(ComObject):
    """IDMLBindingTable: bindings copied when made; each Bind* stamps the table's descriptor range in the heap."""

    INTERFACE, KIND = "IDMLBindingTable", "binding-table"

    def __init__(self, fake):
        super().__init__(fake)
        self.dispatchable: Dispatchable | None = None
        self.heap: DescriptorHeap | None = None
        self.first = self.count = 0
        self.inputs: list | None = None
        self.outputs: list | None = None
        self.temporary: Buffer | None = None
        self.persistent: Buffer | None = None

    def point(self, d: S.DML_BINDING_TABLE_DESC, where: str) -> bool:
        """Take a DML_BINDING_TABLE_DESC; False (with a violation) when DirectML would refuse it."""
        disp = self.fake.resolve(d.Dispatchable, Dispatchable, f"{where}: Dispatchable")
        if disp is None:
            return False
        heap, first = self.fake.descriptor(d.CPUDescriptorHandle.ptr, "cpu")
        gheap, gfirst = self.fake.descriptor(d.GPUDescriptorHandle.ptr, "gpu")
        problems = []
        if heap is None or gheap is None:
            problems.append(f"the CPU handle 0x{d.CPUDescriptorHandle.ptr:x} or GPU handle "
                            f"0x{d.GPUDescriptorHandle.ptr:x} is not in a descriptor heap of this device")
        elif heap is not gheap or first != gfirst:
            problems.append(f"the CPU handle (descriptor {first} of {heap.label}) and the GPU handle (descriptor "
                            f"{gfirst} of {gheap.label}) differ")
        elif first + d.SizeInDescriptors > heap.count:
            problems.append(f"descriptors [{first}, {first + d.SizeInDescriptors}) run past the "
                            f"{heap.count} of {heap.label}")
        required = disp.required_descriptors()
        if d.SizeInDescriptors < required:
            problems.append(f"SizeInDescriptors {d.SizeInDescriptors} < RequiredDescriptorCount {required} of "
                            f"{disp.label}")
        if problems:
            self.fake.violation(f"{where}: " + "; ".join(problems))
            return False
        # DirectML writes the RequiredDescriptorCount descriptors it uses; the rest of the range stays untouched
        self.dispatchable, self.heap, self.first, self.count = disp, heap, first, required
        self.inputs = self.outputs = self.temporary = self.persistent = None
        self.detail = disp.label
        self._stamp()
        return True

    def stamp(self) -> tuple:
        return (self.serial, tuple(self.inputs or ()), tuple(self.outputs or ()), self.temporary, self.persistent)

    def _stamp(self) -> None:
        if self.heap is not None:
            for i in range(self.first, self.first + self.count):
                self.heap.slots[i] = self.stamp()

    def _where(self, method: str) -> str | None:
        if self.dispatchable is None:
            self.fake.violation(f"{method}: {self.label} has no dispatchable (Reset it with a DML_BINDING_TABLE_DESC)")
            return None
        return f"{method} on {self.label}"

    def BindInputs(self, count, bindings):
        where = self._where("BindInputs")
        if where is not None:
            self.inputs = self.fake.read_bindings(count, bindings, where)
            self.fake.violations.extend(self.dispatchable.check_inputs(self.inputs, where))
            self._stamp()

    def BindOutputs(self, count, bindings):
        where = self._where("BindOutputs")
        if where is not None:
            self.outputs = self.fake.read_bindings(count, bindings, where)
            self.fake.violations.extend(self.dispatchable.check_outputs(self.outputs, where))
            self._stamp()

    def BindTemporaryResource(self, binding):
        where = self._where("BindTemporaryResource")
        if where is not None:
            self.temporary = self.fake.read_bindings(1, binding, where)[0] if binding else None
            self.fake.violations.extend(self.fake.check_extra(self.temporary, self.dispatchable.temporary_size,
                                                              DML_TEMPORARY_BUFFER_ALIGNMENT, where))
            self._stamp()

    def BindPersistentResource(self, binding):
        where = self._where("BindPersistentResource")
        if where is not None:
            if isinstance(self.dispatchable, OperatorInitializer):
                self.fake.violation(f"{where}: an operator initializer has no persistent resource of its own")
            self.persistent = self.fake.read_bindings(1, binding, where)[0] if binding else None
            self.fake.violations.extend(self.fake.check_extra(self.persistent, self.dispatchable.persistent_size,
                                                              DML_PERSISTENT_BUFFER_ALIGNMENT, where))
            self._stamp()

    def Reset(self, desc):
        self.dispatchable = self.heap = None
        self.inputs = self.outputs = self.temporary = self.persistent = None
        if desc and not self.point(S.DML_BINDING_TABLE_DESC.from_address(desc), "IDMLBindingTable::Reset"):
            return E_INVALIDARG
        return S_OK


class CommandRecorder(ComObject):
    INTERFACE, KIND = "IDMLCommandRecorder", "command-recorder"

    def RecordDispatch(self, command_list, dispatchable, table):
        where = "RecordDispatch"
        cl = self.fake.resolve(command_list, CommandList, f"{where}: commandList")
        disp = self.fake.resolve(dispatchable, Dispatchable, f"{where}: dispatchable")
        t = self.fake.resolve(table, BindingTable, f"{where}: bindings")
        if cl is None or disp is None or t is None or not cl._record(where):
            if cl is not None:
                cl.failed = True
            return
        if cl.type not in (COMMAND_LIST_DIRECT, COMMAND_LIST_COMPUTE):
            cl.failed = True
            self.fake.violation(f"{where}: {cl.label} is a COPY list; DirectML needs DIRECT or COMPUTE")
            return
        if t.dispatchable is not disp:
            cl.failed = True
            self.fake.violation(f"{where}: {t.label} was made for {t.dispatchable.label if t.dispatchable else 'nothing'},"
                                f" not {disp.label}")
            return
        volatile = bool(disp.flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
        if not volatile:
            missing = [what for what, bound, needed in (("inputs", t.inputs, disp.needs_inputs()),
                                                        ("outputs", t.outputs, disp.needs_outputs()))
                       if bound is None and needed]
            if missing:
                self.fake.violation(f"{where} of {disp.label}: {' and '.join(missing)} not bound before RecordDispatch "
                                    "(required unless compiled with DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)")
        cl.commands.append(("dispatch", Dispatch(disp, t, t.heap, t.first, t.count, t.stamp(), list(t.inputs or []),
                                                 list(t.outputs or []), t.temporary, t.persistent),
                            f"RecordDispatch of {disp.label} in {cl.label}"))


# ---------------------------------------------------------------------------------------------------- execution


class Execution:
    """One command list run by ExecuteCommandLists: commands in order, states, descriptor heaps, UAV hazards."""

    def __init__(self, fake, queue: CommandQueue, cl: CommandList):
        self.fake, self.queue, self.cl = fake, queue, cl
        self.heaps: list[DescriptorHeap] = []
        self.pending: list[tuple[Resource, int, int, str]] = []  # dispatch writes not yet behind a UAV barrier
        self.touched: set[Resource] = set()  # resources whose state this execution may have changed

    def violation(self, where: str, text: str) -> None:
        self.fake.violation(f"ExecuteCommandLists #{self.fake.executions}, {where}: {text}")

    def run(self) -> None:
        cl = self.cl
        if cl.refs <= 0:
            return  # resolve() reported it
        if cl.failed and not cl.open:
            return self.violation(cl.label, "executing a command list whose Close failed")
        if cl.open:
            return self.violation(cl.label, "executing a command list that is still open (Close it first)")
        if cl.allocator.generation != cl.generation:
            return self.violation(cl.label, f"{cl.allocator.label} was Reset after this list was recorded, which "
                                            "frees its commands (Reset the list too)")
        if cl.type != self.queue.type:
            self.violation(cl.label, f"list type {cl.type} on a queue of type {self.queue.type}")
        cl.executions += 1
        for command in cl.commands:
            try:
                getattr(self, "_" + command[0])(*command[1:])
            except Exception:
                self.fake.errors.append(f"{command[-1]}:\n{traceback.format_exc()}")

    def _alive(self, res: Resource | None, where: str) -> bool:
        if res is not None and res.refs <= 0:
            self.violation(where, f"{res.label} was released before the command list ran")
            return False
        return res is not None

    def use(self, res: Resource, needed: int, where: str) -> None:
        """Check that ``res`` is in ``needed`` state, promoting a default buffer from COMMON as D3D12 does."""
        self.touched.add(res)
        write = not needed & READ_STATES or needed & ~READ_STATES
        if res.state == needed or (not write and res.state & needed == needed):
            return
        if res.heap_type == HEAP_DEFAULT and (res.state == STATE_COMMON or
                                              (res.promoted and not write and not res.state & ~READ_STATES)):
            res.state = needed if res.state == STATE_COMMON or write else res.state | needed
            res.promoted = True
            return
        self.violation(where, f"{res.label} is in state {state_name(res.state)}; this needs {state_name(needed)}")

    def _transition(self, res, before, after, where):
        if not self._alive(res, where):
            return
        self.touched.add(res)
        if res.heap_type != HEAP_DEFAULT:
            self.violation(where, f"{res.label} is on an {HEAP_NAMES[res.heap_type]} heap, whose state is fixed")
        elif before != res.state:
            self.violation(where, f"StateBefore {state_name(before)} but {res.label} is in state "
                                  f"{state_name(res.state)}")
        res.state, res.promoted = after, False
        self.pending = [p for p in self.pending if p[0] is not res]

    def _uav(self, res, where):
        if res is not None and not self._alive(res, where):
            return
        self.pending = [p for p in self.pending if res is not None and p[0] is not res]

    def _heaps(self, heaps, where):
        for heap in heaps:
            self._alive_heap(heap, where)
        self.heaps = heaps

    def _alive_heap(self, heap, where) -> bool:
        if heap.refs <= 0:
            self.violation(where, f"{heap.label} was released before the command list ran")
            return False
        return True

    def _copy(self, dst, dst_offset, src, src_offset, size, where):
        if not (self._alive(dst, where) and self._alive(src, where)):
            return
        self.use(dst, STATE_COPY_DEST, where + " (destination)")
        self.use(src, STATE_COPY_SOURCE, where + " (source)")
        dst.copy_from(dst_offset, src, src_offset, size)

    # -- dispatches
    def _dispatch(self, d: Dispatch, where: str):
        disp = d.dispatchable
        if disp.refs <= 0:
            return self.violation(where, f"{disp.label} was released before the command list ran")
        if d.heap is None or not self._alive_heap(d.heap, where):
            return
        if d.heap not in self.heaps:
            self.violation(where, f"the binding table's descriptors are in {d.heap.label}, but the list's descriptor "
                                  f"heaps are {[h.label for h in self.heaps] or 'not set'} (SetDescriptorHeaps)")
        volatile = bool(disp.flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
        if volatile:  # the descriptors are read now, from the table
            t = d.table
            d = Dispatch(disp, t, t.heap, t.first, t.count, t.stamp(), list(t.inputs or []), list(t.outputs or []),
                         t.temporary, t.persistent)
        overwritten = [i for i in range(d.first, d.first + d.count) if d.heap.slots[i] != d.stamp]
        if overwritten:
            self.violation(where, f"descriptors {overwritten[0]}..{overwritten[-1]} of {d.heap.label} changed after "
                                  "RecordDispatch (another binding table shares them, or the table was rebound)")
        if isinstance(disp, OperatorInitializer):
            self._initialize(disp, d, where)
        else:
            self._execute(disp, d, where)

    def _buffers(self, d: Dispatch, where: str, reads, writes) -> bool:
        """States, liveness and UAV hazards of every bound buffer; True when all are alive."""
        ok = True
        for role, b, write in [(r, b, False) for r, b in reads] + [(r, b, True) for r, b in writes]:
            if b is None:
                continue
            if b.resource is None or not self._alive(b.resource, f"{where}: {role}"):
                ok = False
                continue
            res = b.resource
            if res.heap_type == HEAP_UPLOAD and not write:
                continue  # GENERIC_READ upload heaps are allowed for initializer inputs (checked at bind)
            self.use(res, STATE_UNORDERED_ACCESS, f"{where}: {role}")
            start, end = b.offset, b.offset + b.size
            for other, s, e, who in self.pending:
                if other is res and s < end and start < e:
                    self.violation(where, f"{role} {b} overlaps what {who} wrote, with no UAV barrier between")
                    break
        for role, b in writes:
            if b is not None and b.resource is not None:
                self.pending.append((b.resource, b.offset, b.offset + b.size, where))
        return ok

    def _extra(self, disp: Dispatchable, d: Dispatch, where: str):
        if disp.temporary_size and d.temporary is None:
            self.violation(where, f"{disp.label} needs a temporary resource of {disp.temporary_size} bytes; none is "
                                  "bound")
        if disp.persistent_size and d.persistent is None:
            self.violation(where, f"{disp.label} needs its persistent resource of {disp.persistent_size} bytes; none "
                                  "is bound")

    def _scribble(self, b: Buffer | None):
        if b is not None and b.resource is not None and b.resource.refs > 0:
            b.resource.write(b.offset, b"\xcd" * min(b.size, b.resource.width - b.offset))

    def _initialize(self, init: OperatorInitializer, d: Dispatch, where: str):
        inputs = d.inputs or [None] * len(init.targets)
        outputs = d.outputs or [None] * len(init.targets)
        reads = [(f"input {k}[{i}]", e) for k, arr in enumerate(inputs) if isinstance(arr, tuple)
                 for i, e in enumerate(arr) if e.resource is not None]
        writes = [(f"output {k} (persistent)", b) for k, b in enumerate(outputs) if isinstance(b, Buffer)]
        writes += [("temporary", d.temporary)]
        if not self._buffers(d, where, reads, writes):
            return
        self._extra(init, d, where)
        self._scribble(d.temporary)
        for k, op in enumerate(init.targets):
            if op.refs <= 0:
                self.violation(where, f"target {op.label} was released")
                continue
            owned = {}
            arr = inputs[k] if k < len(inputs) else None
            for i in op.owned:
                e = arr[i] if isinstance(arr, tuple) and i < len(arr) else None
                if e is not None and e.resource is not None:
                    owned[i] = e.resource.read(e.offset, op.input_slots[i][1].total_tensor_size_in_bytes)
            p = outputs[k] if k < len(outputs) and isinstance(outputs[k], Buffer) else None
            expected = None
            if p is not None and op.persistent_size:
                expected = bytes((op.serial * 37 + j) & 0xFF for j in range(op.persistent_size))
                p.resource.write(p.offset, expected)
            op.initialized = (p, expected, owned)

    def _execute(self, op: CompiledOperator, d: Dispatch, where: str):
        def plain(bindings):  # a BUFFER_ARRAY here was reported at bind time
            return [b if isinstance(b, Buffer) else None for b in bindings]

        d.inputs, d.outputs = plain(d.inputs), plain(d.outputs)
        reads = [(f"input {i} ({n})", b) for i, ((n, _), b) in enumerate(zip(op.input_slots, d.inputs))]
        reads += [("persistent", d.persistent)]
        writes = [(f"output {i} ({n})", b) for i, ((n, _), b) in enumerate(zip(op.output_slots, d.outputs))]
        writes += [("temporary", d.temporary)]
        if not self._buffers(d, where, reads, writes):
            return
        self._extra(op, d, where)
        if op.initialized is None:
            self.violation(where, f"{op.label} is dispatched before an operator initializer ran for it")
        elif op.persistent_size:
            p, expected, _ = op.initialized
            b = d.persistent
            if b is not None and p is not None and (b.resource is not p.resource or b.offset != p.offset):
                self.violation(where, f"the persistent resource {b} is not the one the initializer filled ({p})")
            elif b is not None and expected is not None and b.resource.read(b.offset, len(expected)) != expected:
                self.violation(where, f"the persistent resource {b} changed since the initializer filled it")
        self._scribble(d.temporary)
        if len(d.inputs) != len(op.input_slots) or len(d.outputs) != len(op.output_slots):
            return self.violation(where, f"{op.label} has {len(d.inputs)}/{len(op.input_slots)} inputs and "
                                         f"{len(d.outputs)}/{len(op.output_slots)} outputs bound; nothing computed")
        arrays = []
        compute = self.fake.options["compute"]
        for i, ((name, td), b) in enumerate(zip(op.input_slots, d.inputs)):
            if td is None:
                continue
            if i in op.owned:
                data = (op.initialized or (None, None, {}))[2].get(i)
                if data is None:
                    return self.violation(where, f"input {i} ({name}) is OWNED_BY_DML and no initializer captured "
                                                 "it; nothing computed")
            elif b is None:
                return self.violation(where, f"input {i} ({name}) is not bound; nothing computed")
            elif compute:
                data = b.resource.read(b.offset, td.total_tensor_size_in_bytes)
            if compute:
                arrays.append(tensors.from_bytes(td, data))
        if not compute:
            return None  # everything was checked; the outputs are left as they are
        from dmlops.lower import module

        missing = [n.OPERATOR_TYPE for n in op.graph.nodes if not hasattr(module(n.OPERATOR_TYPE), "reference")]
        if missing:  # no reference to compute with: everything else was checked; outputs are left as they are
            self.fake.unsimulated.append(", ".join(missing))
            return None
        results = op.runner()(arrays)
        for ((name, td), b), value in zip([(s, b) for s, b in zip(op.output_slots, d.outputs) if s[1] is not None],
                                          results):
            if b is None:
                continue
            if tensors.is_strided(td):
                current = tensors.from_bytes(td, b.resource.read(b.offset, td.total_tensor_size_in_bytes))
                tensors.strided_view(td, current)[...] = tensors.strided_view(td, value)
                value = current
            b.resource.write(b.offset, tensors.to_bytes(td, value)[:td.total_tensor_size_in_bytes])


# ---------------------------------------------------------------------------------------------------- the fake


DEFAULTS = dict(feature_level="6.4", float16=True, float64=False, refuse=(), sizes=None, initializer_temp=0,
                validate=True, device_removed=False, removed_reason=DXGI_ERROR_DEVICE_HUNG, debug_layer=False,
                compute=True)


class FakeDirectML:
    """The fake's state: ``objects`` (every COM object made, in order), ``violations``, ``errors``, ``refused``
    (creations refused on purpose, with why), ``calls`` ((Interface::Method, object label) in order), and the
    device-level objects ``adapter``, ``d3d12``, ``dml``."""

    def __init__(self, **options):
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown fake DirectML options {sorted(unknown)} (known: {sorted(DEFAULTS)})")
        self.options = {**DEFAULTS, **options}
        self.options["refuse"] = {str(t).upper() for t in self.options["refuse"]}
        self.options["sizes"] = {str(k).upper(): v for k, v in (self.options["sizes"] or {}).items()}
        self.feature_level = FeatureLevel.parse(self.options["feature_level"])
        self.objects: list[ComObject] = []
        self.violations: list[str] = []
        self.errors: list[str] = []
        self.refused: list[str] = []
        self.unsimulated: list[str] = []  # dispatches of operators without a dmlops reference (outputs untouched)
        self.calls: list[tuple[str, str]] = []
        self.seconds = 0.0  # wall time spent inside the fake's COM methods (benchmarks subtract it)
        self.executions = 0
        self.removed: int | None = None
        self.heaps: list[DescriptorHeap] = []  # every descriptor heap made, in order
        self.live_bytes = 0  # bytes held by objects still referenced (``charge``), and the most ever held at once
        self.peak_bytes = 0
        self._by_address: dict[int, ComObject] = {}
        self._serial = 0
        self._iids = {bytes(com.iid(name)): name for name in com.table()}
        self.adapter = DXCoreAdapter(self)
        self.d3d12 = D3D12Device(self)
        self.dml = DMLDevice(self)
        for obj in (self.adapter, self.d3d12, self.dml):
            obj.refs = 0  # until DXCore's GetAdapter, D3D12CreateDevice and DMLCreateDevice hand them out
        self.baseline = {self.adapter: 1, self.d3d12: 1, self.dml: 1}
        self.libraries = libraries.Loaded({"dxcore": "fake dxcore", "d3d12": "fake d3d12",
                                           "directml": "fake directml"}, {})
        self._exports = {"DXCoreCreateAdapterFactory": self._create_factory, "D3D12CreateDevice": self._create_d3d12,
                         "DMLCreateDevice": self._create_dml}

    # -- bookkeeping
    def _next_serial(self) -> int:
        self._serial += 1
        return self._serial

    def _register(self, obj: ComObject) -> None:
        self.objects.append(obj)
        self._by_address[obj.address] = obj

    def violation(self, text: str) -> None:
        self.violations.append(text)

    def charge(self, obj: ComObject, nbytes: int) -> None:
        """Count ``nbytes`` as held by ``obj`` until its last Release."""
        obj.charge = nbytes
        self.live_bytes += nbytes
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)

    def discharge(self, obj: ComObject) -> None:
        self.live_bytes -= obj.charge
        obj.charge = 0

    def bytes_of(self, cls) -> int:
        """Bytes held now by the live objects of ``cls`` (e.g. ``fake.bytes_of(DescriptorHeap)``)."""
        return sum(o.charge for o in self.objects if isinstance(o, cls) and o.refs > 0)

    def refuse(self, hr: int, text: str) -> int:
        """A call that D3D12 / DirectML fails: record why as a violation and return ``hr``."""
        self.violation(text)
        return hr

    def last_call(self) -> str:
        return self.calls[-1][0] if self.calls else "?"

    def iid_name(self, riid) -> str:
        return self._iids.get(bytes(com.GUID.from_address(riid)), "an unknown IID") if riid else "NULL riid"

    def resolve(self, address, cls, where: str):
        """The fake object at ``address`` if it is a ``cls``; else None and a violation."""
        obj = self._by_address.get(address or 0)
        if obj is None:
            self.violation(f"{where}: {'NULL' if not address else hex(address)} is not a {cls.__name__} of this fake")
            return None
        if not isinstance(obj, cls):
            self.violation(f"{where}: {obj.label} is not a {cls.__name__}")
            return None
        if obj.refs <= 0:
            self.violation(f"{where}: {obj.label} was released")
        return obj

    def descriptor(self, handle: int, kind: str) -> tuple[DescriptorHeap | None, int]:
        """The heap and descriptor index of a CPU or GPU descriptor handle."""
        for obj in self.heaps:
            start = obj.cpu_start if kind == "cpu" else obj.gpu_start
            if start and start <= handle < start + obj.count * DESCRIPTOR_INCREMENT:
                if (handle - start) % DESCRIPTOR_INCREMENT:
                    return None, 0
                return obj, (handle - start) // DESCRIPTOR_INCREMENT
        return None, 0

    def compiled_list(self, count, ops, where) -> list[CompiledOperator] | None:
        targets = []
        for i in range(count):
            op = self.resolve(c_void_p.from_address(ops + 8 * i).value, CompiledOperator, f"{where}: operators[{i}]")
            if op is None:
                return None
            targets.append(op)
        return targets

    def read_bindings(self, count, address, where) -> list:
        """DML_BINDING_DESC[count] as a list of None (NONE), Buffer (BUFFER) or tuple of Buffer (BUFFER_ARRAY)."""
        out = []
        for i, b in enumerate((S.DML_BINDING_DESC * count).from_address(address) if count and address else []):
            if b.Type == DML_BINDING_NONE:
                out.append(None)
            elif b.Type == DML_BINDING_BUFFER and b.Desc:
                out.append(self._buffer(S.DML_BUFFER_BINDING.from_address(b.Desc), f"{where}[{i}]"))
            elif b.Type == DML_BINDING_BUFFER_ARRAY and b.Desc:
                a = S.DML_BUFFER_ARRAY_BINDING.from_address(b.Desc)
                out.append(tuple(self._buffer(a.Bindings[j], f"{where}[{i}][{j}]") for j in range(a.BindingCount)))
            else:
                self.violation(f"{where}[{i}]: binding Type {b.Type} with Desc {b.Desc!r}")
                out.append(None)
        if count and not address:
            self.violation(f"{where}: {count} bindings but a NULL array")
        return out

    def _buffer(self, b: S.DML_BUFFER_BINDING, where: str) -> Buffer:
        res = self.resolve(b.Buffer, Resource, f"{where}.Buffer") if b.Buffer else None
        return Buffer(res, b.Offset, b.SizeInBytes)

    def check_buffer(self, b: Buffer, td, where: str, upload_ok: bool = False) -> list[str]:
        """Rules of a tensor's DML_BUFFER_BINDING."""
        if b.resource is None:
            return [f"{where}: no buffer"]
        out = self._range(b, where)
        if b.size < td.total_tensor_size_in_bytes:
            out.append(f"{where}: SizeInBytes {b.size} < the tensor's TotalTensorSizeInBytes "
                       f"{td.total_tensor_size_in_bytes}")
        if b.offset % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT:
            out.append(f"{where}: Offset {b.offset} is not a multiple of {DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT}")
        if td.guaranteed_base_offset_alignment and b.offset % td.guaranteed_base_offset_alignment:
            out.append(f"{where}: Offset {b.offset} breaks GuaranteedBaseOffsetAlignment "
                       f"{td.guaranteed_base_offset_alignment}")
        out.extend(self._uav_capable(b, where, upload_ok))
        return out

    def check_extra(self, b: Buffer | None, size: int, alignment: int, where: str) -> list[str]:
        """Rules of a temporary or persistent resource binding."""
        if b is None:
            return []
        if b.resource is None:
            return [f"{where}: no buffer"]
        out = self._range(b, where)
        if size == 0:
            out.append(f"{where}: bound although the dispatchable needs none (size 0)")
        elif b.size < size:
            out.append(f"{where}: SizeInBytes {b.size} < the {size} bytes GetBindingProperties asks for")
        if b.offset % alignment:
            out.append(f"{where}: Offset {b.offset} is not a multiple of {alignment}")
        return out + self._uav_capable(b, where, False)

    def _range(self, b: Buffer, where: str) -> list[str]:
        if b.offset + b.size > b.resource.width:
            return [f"{where}: [{b.offset}, {b.offset + b.size}) runs past the {b.resource.width} bytes of "
                    f"{b.resource.label}"]
        return []

    def _uav_capable(self, b: Buffer, where: str, upload_ok: bool) -> list[str]:
        res = b.resource
        if upload_ok and res.heap_type == HEAP_UPLOAD:
            return []
        if res.heap_type != HEAP_DEFAULT or not res.uav:
            return [f"{where}: {res.label} must be a DEFAULT-heap buffer with ALLOW_UNORDERED_ACCESS"]
        return []

    # -- device removal
    def remove_device(self, reason: int | None = None) -> None:
        """Mark the device removed (GetDeviceRemovedReason returns ``reason``, fences UINT64_MAX)."""
        self.removed = _signed((self.options["removed_reason"] if reason is None else reason) & 0xFFFFFFFF)

    # -- exports (adapters._export)
    def export(self, lib, name: str, restype, *argtypes):
        return com.functype()(restype, *argtypes)(self._exports[name])

    def _create_factory(self, riid, out):
        return self.adapter.create(DXCoreAdapterFactory, riid, out)

    def _create_d3d12(self, adapter, level, riid, out):  # device creation is not timed (``seconds``)
        self.calls.append(("D3D12CreateDevice", self.d3d12.label))
        return self.d3d12.QueryInterface(riid, out)

    def _create_dml(self, device, flags, riid, out):
        self.calls.append(("DMLCreateDevice", self.dml.label))
        if device != self.d3d12.address:
            self.violation("DMLCreateDevice: the device is not the fake ID3D12Device")
        if flags & 1 and not self.options["debug_layer"]:  # DML_CREATE_DEVICE_FLAG_DEBUG without DirectML.Debug
            return _signed(0x887A002D)  # DXGI_ERROR_SDK_COMPONENT_MISSING
        return self.dml.QueryInterface(riid, out)

    # -- what tests ask
    def live(self) -> list[ComObject]:
        """Objects still referenced (device-level ones only above the one reference the adapter keeps)."""
        return [o for o in self.objects if o.refs > self.baseline.get(o, 0)]

    def of(self, cls) -> list:
        """Every object of a class (e.g. ``fake.of(Resource)``)."""
        return [o for o in self.objects if isinstance(o, cls)]

    def count(self, method: str) -> int:
        """How often ``method`` ("ExecuteCommandLists" or "ID3D12CommandQueue::ExecuteCommandLists") was called."""
        return sum(1 for name, _ in self.calls if name == method or name.endswith("::" + method))

    def assert_clean(self) -> None:
        """AssertionError listing every violation and fake-internal error, if any."""
        if self.violations or self.errors:
            raise AssertionError("fake DirectML: " + "\n".join(
                [f"violation: {v}" for v in self.violations] + [f"error: {e}" for e in self.errors]))

    def assert_no_leaks(self) -> None:
        """AssertionError listing the objects still referenced, if any."""
        left = self.live()
        if left:
            raise AssertionError(f"fake DirectML: {len(left)} objects not released: {left}")


# ---------------------------------------------------------------------------------------------------- installing

_KEEP = []  # every fake ever installed: its vtables must outlive any ComPtr released late by the garbage collector


def _release_devices() -> None:
    state = adapters._state
    for device in (state or {}).get("devices", {}).values():
        for p in (device.dml_device, device.d3d12_device, device.adapter_com):
            p.release()


def install(monkeypatch, **options) -> FakeDirectML:
    """Make ``adapters.devices()`` list the fake's one adapter ``dml:0`` and ``open_device(0)`` return its devices
    (``.d3d12_device`` is ``fake.d3d12``, ``.dml_device`` ``fake.dml``). Resets the adapter state and
    ``dmlops.compiled``'s cache; the ``fake_directml`` fixture undoes it after the test."""
    if not SUPPORTED:
        pytest.skip(WHY_UNSUPPORTED)
    compiled.clear_cache()
    _release_devices()
    fake = FakeDirectML(**options)
    _KEEP.append(fake)
    monkeypatch.setattr(adapters, "_export", fake.export)
    monkeypatch.setattr(libraries, "load", lambda: fake.libraries)
    monkeypatch.setattr(adapters, "_state", None)
    return fake


def release_all() -> None:
    """Undo what tests with fakes leave behind: the compile cache emptied (its size and budget back to their
    defaults), the queues and staging buffers and the devices the adapter state holds released."""
    from dmlops.backends.directml import runtime

    compiled.set_cache_size(compiled.DEFAULT_CACHE_SIZE)
    compiled.set_cache_budget(compiled.DEFAULT_CACHE_BUDGET)
    compiled.clear_cache()
    gc.collect()
    runtime.release_queues()
    _release_devices()
    adapters._state = None


@pytest.fixture
def fake_directml(monkeypatch):
    """A factory: ``fake = fake_directml(**options)`` installs a FakeDirectML (see ``install``); everything is
    released after the test (``release_all``). tests/conftest.py offers it as ``fake`` too."""
    yield lambda **options: install(monkeypatch, **options)
    release_all()
