"""Running descriptors and graphs on a DirectML device: DirectML's documented sequence, through ctypes.

One ``Queue`` per device, made on first use and shared by every compiled operator on it: a COMPUTE command queue,
a fence and a command recorder; the device's shader-visible descriptor heap (``DescriptorHeaps``); and its upload
and readback staging buffers (``Staging``). One ``Program`` per compiled operator or graph, made once and reused on
every call:

1. IDMLDevice::CreateOperator → CompileOperator (one descriptor), or IDMLDevice1::CompileGraph (a GraphDesc);
2. buffers, all created once: one default-heap buffer ``io`` holding every input and output at 256-byte aligned
   offsets, and the temporary and persistent resources DirectML asks for (GetBindingProperties);
3. one range of the device's descriptor heap with two binding tables: the initializer's and the operator's;
4. IDMLOperatorInitializer run once (OWNED_BY_DML inputs bound then, as a DML_BUFFER_ARRAY_BINDING; when their
   bytes change on a later call the operator is initialized again with the new ones);
5. one command list recorded once (copy in from the device's upload buffer, dispatch, copy out to its readback
   buffer) and executed on every call; a call with device buffers (``DeviceBuffer``) in or out records its own
   list.

Why one heap per device: D3D12 binds one CBV/SRV/UAV heap per command list, and a shader-visible heap can cost far
more than its descriptors (on the DirectML stack acceptance measured, 488 MB per CreateDescriptorHeap, whatever
its size: a heap per compiled operator ran out of memory after about 45 operators). So, as ONNX Runtime's DirectML
provider and TensorFlow-DirectML do, the device keeps one large heap and hands out ranges; when it is full a new heap
of twice the size is made, and a heap that is no longer the newest is released when its last range is returned.
A Program's range goes back when the Program is released (``release()``) or garbage-collected.

Why shared staging: calls are serialized per device, so one upload and one readback buffer serve every Program;
they grow (to a power of two) when a call needs more, up to ``STAGING_POOL_LIMIT`` each. A list recorded against
buffers that were since replaced is recorded again on the Program's next call (the replaced buffers are released
at once rather than kept alive for old lists). A Program whose inputs or outputs exceed the limit has its own
upload or readback buffer instead.

Every default buffer is in D3D12_RESOURCE_STATE_COMMON between command lists; each list transitions what it uses
explicitly and returns it to COMMON, so no list relies on another's state. Submission is serialized per device
(``Device.lock``): compiled operators may be called from several threads.

Errors: every failing HRESULT is a DmlOpsError (``com.HResultError``) naming the call, the operator and the code,
with GetDeviceRemovedReason when the device was lost and the D3D12 debug layer's messages when they exist. A
descriptor that dmlops validated but DirectML refused raises ``RefusedByDirectML``, which says so in those words.
"""
from __future__ import annotations

import bisect
import ctypes
import threading
import time
import weakref
from ctypes import POINTER, Structure, Union, byref, c_size_t, c_uint32, c_uint64, c_void_p

import numpy as np

from ... import tensors
from ...base import OperatorDesc
from ...errors import DmlOpsError
from ...graph import GraphDesc, slots
from ...types import DataType, FeatureLevel, TensorDesc, TensorFlags
from . import adapters, libraries
from . import structs as S
from .com import (D3D12_COMMAND_QUEUE_DESC, D3D12_DESCRIPTOR_HEAP_DESC, D3D12_HEAP_PROPERTIES, D3D12_RESOURCE_DESC,
                  DEVICE_LOST, DXGI_SAMPLE_DESC, HRESULT_VALUES, ComPtr, HResultError, failed, hresult_text, iid)
from .marshal import marshal, marshal_graph

# d3d12.h / DirectML.h values
COMMAND_LIST_TYPE_COMPUTE = 2
HEAP_DEFAULT, HEAP_UPLOAD, HEAP_READBACK = 1, 2, 3
STATE_COMMON, STATE_UNORDERED_ACCESS, STATE_COPY_DEST, STATE_COPY_SOURCE, STATE_GENERIC_READ = 0, 0x8, 0x400, 0x800, 0xAC3
RESOURCE_DIMENSION_BUFFER, TEXTURE_LAYOUT_ROW_MAJOR, RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS = 1, 1, 0x4
BARRIER_TRANSITION, BARRIER_UAV, ALL_SUBRESOURCES = 0, 2, 0xFFFFFFFF
DESCRIPTOR_HEAP_CBV_SRV_UAV, DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE = 0, 1
BINDING_NONE, BINDING_BUFFER, BINDING_BUFFER_ARRAY = 0, 1, 2
EXECUTION_FLAG_NONE = 0
ALIGNMENT = 256  # DML_TEMPORARY/PERSISTENT_BUFFER_ALIGNMENT; also used for every tensor's offset in ``io``
FENCE_LOST = 2**64 - 1  # ID3D12Fence::GetCompletedValue after the device was removed

# The device's descriptor heap: the first one holds FIRST_HEAP_DESCRIPTORS (a compiled operator takes one per tensor
# slot, plus its initializer's and one each for a persistent or temporary resource: a few dozen at most, so the
# first heap serves thousands of operators); each further one twice the last, up to D3D12's limit for shader-visible
# CBV/SRV/UAV heaps at resource binding tiers 1 and 2 (D3D12_MAX_SHADER_VISIBLE_DESCRIPTOR_HEAP_SIZE_TIER_1).
FIRST_HEAP_DESCRIPTORS = 1 << 16
MAX_HEAP_DESCRIPTORS = 1_000_000
# Staging: the device's upload and readback buffers start at STAGING_MIN_BYTES and double as calls need, up to
# STAGING_POOL_LIMIT each; a Program needing more has its own (its size is then counted in its device_bytes).
STAGING_MIN_BYTES = 1 << 16
STAGING_POOL_LIMIT = 64 << 20


class D3D12_RESOURCE_TRANSITION_BARRIER(Structure):
    """D3D12_RESOURCE_TRANSITION_BARRIER (24 bytes)."""

    _fields_ = [("pResource", c_void_p), ("Subresource", c_uint32), ("StateBefore", c_uint32),
                ("StateAfter", c_uint32)]


class D3D12_RESOURCE_ALIASING_BARRIER(Structure):
    """D3D12_RESOURCE_ALIASING_BARRIER (16 bytes)."""

    _fields_ = [("pResourceBefore", c_void_p), ("pResourceAfter", c_void_p)]


class D3D12_RESOURCE_UAV_BARRIER(Structure):
    """D3D12_RESOURCE_UAV_BARRIER (8 bytes)."""

    _fields_ = [("pResource", c_void_p)]


class _BARRIER_UNION(Union):
    _fields_ = [("Transition", D3D12_RESOURCE_TRANSITION_BARRIER), ("Aliasing", D3D12_RESOURCE_ALIASING_BARRIER),
                ("UAV", D3D12_RESOURCE_UAV_BARRIER)]


class D3D12_RESOURCE_BARRIER(Structure):
    """D3D12_RESOURCE_BARRIER (32 bytes: Type, Flags, then the union at offset 8)."""

    _anonymous_ = ("u",)
    _fields_ = [("Type", c_uint32), ("Flags", c_uint32), ("u", _BARRIER_UNION)]


class D3D12_RANGE(Structure):
    """D3D12_RANGE (16 bytes)."""

    _fields_ = [("Begin", c_size_t), ("End", c_size_t)]


class D3D12_MESSAGE(Structure):
    """D3D12_MESSAGE (32 bytes): the debug layer's message header, its text following it in the same buffer."""

    _fields_ = [("Category", c_uint32), ("Severity", c_uint32), ("ID", c_uint32), ("pDescription", c_void_p),
                ("DescriptionByteLength", c_size_t)]


class RefusedByDirectML(HResultError):
    """DirectML refused a descriptor or graph that dmlops had validated (CreateOperator, CompileOperator,
    CompileGraph or the initializer failed). ``hresult``, ``name`` and ``call`` as in HResultError."""

    def __init__(self, error: HResultError, label: str, level: FeatureLevel):
        self.hresult, self.name, self.call, self.operator = error.hresult, error.name, error.call, label
        text = str(error)
        prefix = f"{label}: "
        text = text[len(prefix):] if text.startswith(prefix) else text
        DmlOpsError.__init__(self, f"{label}: validated by dmlops at {level.dml_name} but refused by DirectML: {text}")


def _align(n: int, to: int = ALIGNMENT) -> int:
    return (n + to - 1) // to * to


def _transition(resource: ComPtr, before: int, after: int) -> D3D12_RESOURCE_BARRIER:
    b = D3D12_RESOURCE_BARRIER(Type=BARRIER_TRANSITION)
    b.Transition = D3D12_RESOURCE_TRANSITION_BARRIER(resource.address, ALL_SUBRESOURCES, before, after)
    return b


def _uav_barrier() -> D3D12_RESOURCE_BARRIER:
    return D3D12_RESOURCE_BARRIER(Type=BARRIER_UAV)  # pResource NULL: every UAV access before and after


# ---------------------------------------------------------------------------------------------------------- device


class Queue:
    """A device's command queue, fence and command recorder; ``lock`` is the device's (submission is serialized).

    ``debug_dml`` is the IDMLDevice made with DML_CREATE_DEVICE_FLAG_DEBUG (None until asked for, or when the
    DirectML debug layer is absent: ``debug_problem`` says why); ``info_queue`` the D3D12 debug layer's message
    queue when the D3D12 device was created with the debug layer on (DMLOPS_D3D12_DEBUG=1), else None.
    """

    def __init__(self, device: adapters.Device):
        self.device = device
        self.lock = device.lock
        self.name = device.adapter.device
        d3d12 = device.d3d12_device
        self.queue = self.create(d3d12, "CreateCommandQueue", "ID3D12CommandQueue",
                                 byref(D3D12_COMMAND_QUEUE_DESC(COMMAND_LIST_TYPE_COMPUTE, 0, 0, 0)))
        self.fence = self.create(d3d12, "CreateFence", "ID3D12Fence", c_uint64(0), 0)
        self.value = 0
        self.closed = False  # release() was called: nothing may be submitted any more
        # The three calls of every submission, looked up once (``submit``).
        self._queue_address, self._fence_address = self.queue.address, self.fence.address
        self._execute_lists = self.queue.function("ExecuteCommandLists")
        self._signal = self.queue.function("Signal")
        self._completed = self.fence.function("GetCompletedValue")
        self.increment = d3d12.call("GetDescriptorHandleIncrementSize", DESCRIPTOR_HEAP_CBV_SRV_UAV)
        self.recorder = self.create(device.dml_device, "CreateCommandRecorder", "IDMLCommandRecorder")
        self.allocator = self.create(d3d12, "CreateCommandAllocator", "ID3D12CommandAllocator",
                                     COMMAND_LIST_TYPE_COMPUTE)
        self.heaps = DescriptorHeaps(self)
        self.staging = Staging(self)
        self.programs: weakref.WeakSet[Program] = weakref.WeakSet()  # alive, for memory()
        self._dml1: dict[bool, ComPtr] = {}
        self.debug_dml: ComPtr | None = None
        self.debug_problem: str | None = None
        try:
            self.info_queue: ComPtr | None = d3d12.query_interface("ID3D12InfoQueue")
        except HResultError:
            self.info_queue = None

    # -- calls with the device's error handling

    def check(self, hr: int, call: str, operator: str | None = None) -> int:
        """Raise HResultError for a failing ``hr``: GetDeviceRemovedReason when the device is lost, and the debug
        layer's stored messages when there are any."""
        if not failed(hr):
            return hr
        try:
            self.device.check(hr, call, operator)
        except HResultError as e:
            messages = self.messages()
            if messages:
                e.args = (f"{e.args[0]}; debug layer: " + " | ".join(messages),)
            raise
        return hr

    def call(self, obj: ComPtr, method: str, *args, operator: str | None = None):
        """``obj.method(*args)``; a failing HRESULT raises through ``check``."""
        hr = obj.call(method, *args, check_hr=False)
        return self.check(hr, f"{obj.interface}::{method}", operator)

    def create(self, obj: ComPtr, method: str, interface: str, *args, operator: str | None = None) -> ComPtr:
        """Call a method ending in ``REFIID, void**`` and wrap the new object."""
        out = c_void_p()
        self.call(obj, method, *args, byref(iid(interface)), byref(out), operator=operator)
        return ComPtr(out, interface, context=self.name)

    def messages(self) -> list[str]:
        """The D3D12 debug layer's stored messages (then cleared); empty without the debug layer."""
        q = self.info_queue
        if q is None:
            return []
        out = []
        for i in range(min(q.call("GetNumStoredMessages"), 50)):
            size = c_size_t()
            if failed(q.call("GetMessage", c_uint64(i), None, byref(size), check_hr=False)) or not size.value:
                continue
            buf = ctypes.create_string_buffer(size.value)
            if failed(q.call("GetMessage", c_uint64(i), buf, byref(size), check_hr=False)):
                continue
            m = D3D12_MESSAGE.from_buffer(buf)
            if m.pDescription:
                out.append(ctypes.string_at(m.pDescription, max(m.DescriptionByteLength - 1, 0)).decode("utf-8", "replace"))
        q.call("ClearStoredMessages")
        return out

    def dml(self, debug: bool) -> ComPtr:
        """The IDMLDevice to build with: the adapter's, or with ``debug`` one made with DML_CREATE_DEVICE_FLAG_DEBUG
        (the adapter's when the DirectML debug layer is absent; ``debug_problem`` then says why)."""
        if not debug:
            return self.device.dml_device
        with self.lock:
            if self.debug_dml is None and self.debug_problem is None:
                create = adapters._export(libraries.load().directml, "DMLCreateDevice", ctypes.c_int32, c_void_p,
                                          c_uint32, c_void_p, c_void_p)
                out = c_void_p()
                hr = create(self.device.d3d12_device, adapters.DML_CREATE_DEVICE_FLAG_DEBUG, byref(iid("IDMLDevice")),
                            byref(out))
                if failed(hr):
                    self.debug_problem = (f"the DirectML debug layer is not available (DMLCreateDevice with "
                                          f"DML_CREATE_DEVICE_FLAG_DEBUG failed with HRESULT {hresult_text(hr)})")
                else:
                    self.debug_dml = ComPtr(out, "IDMLDevice", context=self.name)
            return self.debug_dml if self.debug_dml is not None else self.device.dml_device

    def dml1(self, debug: bool, operator: str) -> ComPtr:
        """IDMLDevice1 (CompileGraph) of ``dml(debug)``."""
        with self.lock:
            if debug not in self._dml1:
                try:
                    self._dml1[debug] = self.dml(debug).query_interface("IDMLDevice1")
                except HResultError as e:
                    raise DmlOpsError(f"{operator}: this DirectML has no IDMLDevice1, which graphs need "
                                      f"(CompileGraph, DirectML 1.1 and later): {e}") from None
            return self._dml1[debug]

    # -- submission

    def command_list(self, allocator: ComPtr | None = None) -> ComPtr:
        """A new command list, open for recording, on ``allocator`` (the queue's own when None)."""
        return self.create(self.device.d3d12_device, "CreateCommandList", "ID3D12GraphicsCommandList", 0,
                           COMMAND_LIST_TYPE_COMPUTE, allocator or self.allocator, None)

    def execute(self, command_list: ComPtr, operator: str | None = None) -> None:
        """Execute one closed command list and wait until the GPU has finished it. Hold ``lock``."""
        lists = (c_void_p * 1)(command_list.address)
        self.submit(ctypes.addressof(lists), operator)

    def submit(self, lists: int, operator: str | None = None) -> None:
        """Execute the closed command list whose pointer is stored at address ``lists`` (an
        ``ID3D12CommandList*[1]``), signal the fence and wait for it: ExecuteCommandLists, Signal, GetCompletedValue
        (and SetEventOnCompletion when the GPU is not done yet), the calls a C++ caller makes. Hold ``lock``."""
        if self.closed:
            raise DmlOpsError(f"{operator or self.name}: the device's queue was released (release_queues); compile "
                              "the operator again.")
        self._execute_lists(self._queue_address, 1, lists)
        self.value += 1
        hr = self._signal(self._queue_address, self._fence_address, self.value)
        if hr < 0:  # HRESULT is a signed 32-bit result: failures are negative
            self.check(hr, "ID3D12CommandQueue::Signal", operator)
        self.wait(self.value, operator)

    def wait(self, value: int, operator: str | None = None) -> None:
        """Block until the fence reaches ``value``: SetEventOnCompletion with no event blocks (d3d12.h: "If hEvent
        is NULL, the call blocks until the fence reaches the value"); where that fails, poll."""
        completed = self._completed(self._fence_address)
        if completed < value:
            hr = self.fence.call("SetEventOnCompletion", c_uint64(value), None, check_hr=False)
            if failed(hr) and hr & 0xFFFFFFFF not in DEVICE_LOST:
                delay = 1e-5
                while self.fence.call("GetCompletedValue") < value:
                    time.sleep(delay)
                    delay = min(delay * 2, 1e-3)
            completed = self.fence.call("GetCompletedValue")
        if completed == FENCE_LOST or completed < value:
            self.check(HRESULT_VALUES["DXGI_ERROR_DEVICE_REMOVED"], "ID3D12Fence::GetCompletedValue", operator)

    def run_once(self, record, operator: str | None = None) -> None:
        """Record a one-off command list with ``record(command_list)``, execute it and wait. Hold ``lock``."""
        self.call(self.allocator, "Reset", operator=operator)
        cl = self.command_list()
        record(cl)
        self.call(cl, "Close", operator=operator)
        self.execute(cl, operator)

    # -- buffers

    def buffer(self, size: int, heap: int, operator: str | None = None) -> "Buffer":
        """A committed buffer of at least ``size`` bytes on ``heap`` (HEAP_DEFAULT, HEAP_UPLOAD or HEAP_READBACK)."""
        return Buffer(self, size, heap, operator)

    def memory(self) -> dict:
        """What the device holds for dmlops now: its descriptor heaps (``descriptor_heaps`` alive, how many were ever
        created, their descriptors in all and in use), its staging buffers' bytes, and the compiled operators alive
        on it with the bytes they hold on their own (``Program.device_bytes``)."""
        programs = [p for p in list(self.programs) if not p.released]
        heaps = self.heaps
        with heaps.lock:
            alive = list(heaps.heaps)
            return {"descriptor_heaps": len(alive), "descriptor_heaps_created": heaps.created,
                    "heap_descriptors": sum(h.capacity for h in alive),
                    "descriptors_in_use": sum(h.capacity - h.free_count() for h in alive),
                    "staging_bytes": self.staging.nbytes(), "programs": len(programs),
                    "program_bytes": sum(p.device_bytes for p in programs)}

    def release(self) -> None:
        """Release the queue's COM objects, its descriptor heaps and staging buffers (after every Program using it
        is gone)."""
        self.closed = True
        self.heaps.release()
        self.staging.release()
        for p in (self.queue, self.fence, self.recorder, self.allocator, self.debug_dml, self.info_queue,
                  *self._dml1.values()):
            if p is not None:
                p.release()


_queues: dict[int, Queue] = {}


def queue(index: int) -> Queue:
    """The Queue of ``dml:<index>`` (made on first use, shared)."""
    device = adapters.open_device(index)
    with device.lock:
        q = _queues.get(device.adapter.index)
        if q is None or q.device is not device:
            q = _queues[device.adapter.index] = Queue(device)
        return q


def release_queues() -> None:
    """Release every device's Queue (tests, or a process done with DirectML; compiled operators must be gone
    first: ``dmlops.compiled.clear_cache()`` and dropping one's own references)."""
    while _queues:
        _queues.popitem()[1].release()


class Buffer:
    """A committed ID3D12Resource buffer. Upload and readback buffers stay mapped (``pointer``); default ones are
    UAV-capable and rest in D3D12_RESOURCE_STATE_COMMON."""

    def __init__(self, q: Queue, size: int, heap: int, operator: str | None = None):
        self.size = _align(max(size, 4))
        self.heap = heap
        props = D3D12_HEAP_PROPERTIES(Type=heap)
        desc = D3D12_RESOURCE_DESC(Dimension=RESOURCE_DIMENSION_BUFFER, Alignment=0, Width=self.size, Height=1,
                                   DepthOrArraySize=1, MipLevels=1, Format=0, SampleDesc=DXGI_SAMPLE_DESC(1, 0),
                                   Layout=TEXTURE_LAYOUT_ROW_MAJOR,
                                   Flags=RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if heap == HEAP_DEFAULT else 0)
        state = {HEAP_DEFAULT: STATE_COMMON, HEAP_UPLOAD: STATE_GENERIC_READ, HEAP_READBACK: STATE_COPY_DEST}[heap]
        self.resource = q.create(q.device.d3d12_device, "CreateCommittedResource", "ID3D12Resource", byref(props), 0,
                                 byref(desc), state, None, operator=operator)
        self.pointer = 0
        if heap != HEAP_DEFAULT:
            out = c_void_p()
            no_read = D3D12_RANGE(0, 0)  # the CPU never reads an upload buffer
            q.call(self.resource, "Map", 0, byref(no_read) if heap == HEAP_UPLOAD else None, byref(out),
                   operator=operator)
            if not out.value:
                raise DmlOpsError(f"{operator}: ID3D12Resource::Map succeeded but returned a null pointer.")
            self.pointer = out.value

    def release(self) -> None:
        """Release the resource now (it must not be in use by a command list still to run)."""
        self.resource.release()
        self.pointer = 0

    def write(self, offset: int, data: bytes, limit: int) -> None:
        """Copy ``data`` (at most ``limit`` bytes) to ``offset`` of a mapped buffer."""
        ctypes.memmove(self.pointer + offset, data, min(len(data), limit))

    def read(self, offset: int, nbytes: int) -> bytes:
        """``nbytes`` from ``offset`` of a mapped buffer."""
        return ctypes.string_at(self.pointer + offset, nbytes)

    def view(self, offset: int, nbytes: int) -> np.ndarray:
        """``nbytes`` from ``offset`` of a mapped buffer as a uint8 NumPy array over the mapped memory itself (no
        copy). Valid only while the buffer is: never hand it to a caller."""
        return np.frombuffer(memoryview((ctypes.c_uint8 * nbytes).from_address(self.pointer + offset)), np.uint8)


def format_bytes(n: int) -> str:
    """``n`` bytes for people: "512 B", "4.0 KiB", "1.5 MiB", "2.00 GiB"."""
    if n < 1024:
        return f"{n} B"
    for unit, scale in (("KiB", 1 << 10), ("MiB", 1 << 20)):
        if n < scale << 10:
            return f"{n / scale:.1f} {unit}"
    return f"{n / (1 << 30):.2f} GiB"


class DescriptorRange:
    """``count`` descriptors from descriptor ``first`` of one of the device's shader-visible heaps."""

    __slots__ = ("heap", "first", "count")

    def __init__(self, heap: "_Heap", first: int, count: int):
        self.heap, self.first, self.count = heap, first, count

    def cpu(self, index: int = 0) -> S.D3D12_CPU_DESCRIPTOR_HANDLE:
        """The CPU handle of descriptor ``index`` of the range."""
        return S.D3D12_CPU_DESCRIPTOR_HANDLE(self.heap.cpu_start + (self.first + index) * self.heap.increment)

    def gpu(self, index: int = 0) -> S.D3D12_GPU_DESCRIPTOR_HANDLE:
        """The GPU handle of descriptor ``index`` of the range."""
        return S.D3D12_GPU_DESCRIPTOR_HANDLE(self.heap.gpu_start + (self.first + index) * self.heap.increment)


class _Heap:
    """One shader-visible CBV/SRV/UAV heap: its free ranges (start, count), sorted and coalesced, and how many
    ranges are handed out (``live``)."""

    def __init__(self, com: ComPtr, capacity: int, increment: int):
        self.com, self.capacity, self.increment = com, capacity, increment
        self.cpu_start = com.call("GetCPUDescriptorHandleForHeapStart").ptr
        self.gpu_start = com.call("GetGPUDescriptorHandleForHeapStart").ptr
        self.free: list[tuple[int, int]] = [(0, capacity)]
        self.live = 0

    def free_count(self) -> int:
        return sum(n for _, n in self.free)

    def take(self, count: int) -> int | None:
        """The first descriptor of a free range of ``count`` (first fit), or None when none is that long."""
        for k, (start, n) in enumerate(self.free):
            if n >= count:
                if n == count:
                    del self.free[k]
                else:
                    self.free[k] = (start + count, n - count)
                self.live += 1
                return start
        return None

    def give(self, first: int, count: int) -> None:
        """Return a range, merging it with free neighbours."""
        k = bisect.bisect(self.free, (first, count))
        self.free.insert(k, (first, count))
        if k + 1 < len(self.free) and first + count == self.free[k + 1][0]:
            self.free[k] = (first, count + self.free.pop(k + 1)[1])
        if k > 0 and self.free[k - 1][0] + self.free[k - 1][1] == first:
            start, n = self.free[k - 1]
            self.free[k - 1] = (start, n + self.free.pop(k)[1])
        self.live -= 1


class DescriptorHeaps:
    """A device's shader-visible CBV/SRV/UAV descriptor heaps, handed out in ranges (one per Program).

    Ranges come from the newest heap. When it has no free range long enough, a new heap twice its size (at least
    FIRST_HEAP_DESCRIPTORS, at most MAX_HEAP_DESCRIPTORS) becomes the newest; older heaps keep the ranges they gave
    out, and each is released when its last range comes back. So n compiled operators cost O(log n) heaps, and a
    process whose operators come and go (the compile cache) settles on one. ``free`` may be called from a
    finalizer on any thread: it only queues the range when the lock is taken, and the next ``allocate`` (or
    ``free``) puts it back.
    """

    def __init__(self, q: Queue):
        self.queue = q
        self.heaps: list[_Heap] = []  # the newest last
        self.created = 0  # CreateDescriptorHeap calls made
        self.lock = threading.Lock()
        self._returned: list[DescriptorRange] = []
        self._closed = False

    def allocate(self, count: int, operator: str | None = None) -> DescriptorRange:
        """A range of ``count`` descriptors (growing the heaps when the newest is full)."""
        if count > MAX_HEAP_DESCRIPTORS:
            raise DmlOpsError(f"{operator}: needs {count} descriptors; a shader-visible descriptor heap holds at most "
                              f"{MAX_HEAP_DESCRIPTORS:,} (D3D12_MAX_SHADER_VISIBLE_DESCRIPTOR_HEAP_SIZE_TIER_1). "
                              "Split the graph into smaller ones.")
        with self.lock:
            if self._closed:
                raise DmlOpsError(f"{operator}: the device's queue was released (release_queues); no operator can be "
                                  "compiled on it any more.")
            self._drain()
            if self.heaps:
                first = self.heaps[-1].take(count)
                if first is not None:
                    return DescriptorRange(self.heaps[-1], first, count)
            heap = self._grow(count, operator)
            first = heap.take(count)
            assert first is not None  # a new heap holds at least count
            return DescriptorRange(heap, first, count)

    def _grow(self, count: int, operator: str | None) -> _Heap:
        q = self.queue
        last = self.heaps[-1].capacity if self.heaps else 0
        capacity = max(count, min(MAX_HEAP_DESCRIPTORS, max(FIRST_HEAP_DESCRIPTORS, 2 * last)))
        com = q.create(q.device.d3d12_device, "CreateDescriptorHeap", "ID3D12DescriptorHeap",
                       byref(D3D12_DESCRIPTOR_HEAP_DESC(DESCRIPTOR_HEAP_CBV_SRV_UAV, capacity,
                                                        DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0)),
                       operator=operator)
        self.created += 1
        heap = _Heap(com, capacity, q.increment)
        self.heaps.append(heap)
        self._release_empty()
        return heap

    def free(self, r: DescriptorRange) -> None:
        """Give a range back (a Program's finalizer)."""
        self._returned.append(r)
        if self.lock.acquire(blocking=False):
            try:
                self._drain()
            finally:
                self.lock.release()

    def _drain(self) -> None:
        while self._returned:
            r = self._returned.pop()
            if r.heap.com:  # not released with the queue
                r.heap.give(r.first, r.count)
        self._release_empty()

    def _release_empty(self) -> None:
        """Release every heap but the newest that holds no range any more."""
        if self._closed:
            return
        for h in [h for h in self.heaps[:-1] if h.live == 0]:
            self.heaps.remove(h)
            h.com.release()

    def release(self) -> None:
        """Release every heap (the queue's release)."""
        with self.lock:
            self._closed = True
            for h in self.heaps:
                h.com.release()
            self.heaps = []


class Staging:
    """A device's upload and readback buffers, shared by every Program on it (calls are serialized by the device
    lock). ``reserve`` grows them to what a call needs, to the next power of two (at least STAGING_MIN_BYTES);
    buffers it replaces are released at once, and ``generation`` counts replacements so that a Program knows when to
    record its command list again. Hold the device lock."""

    def __init__(self, q: Queue):
        self.queue = q
        self.upload: Buffer | None = None
        self.readback: Buffer | None = None
        self.generation = 0

    def reserve(self, upload: int, readback: int, operator: str | None = None) -> None:
        """Make the upload buffer hold at least ``upload`` bytes and the readback buffer ``readback`` (each at most
        STAGING_POOL_LIMIT; 0: not needed)."""
        for attr, need, heap in (("upload", upload, HEAP_UPLOAD), ("readback", readback, HEAP_READBACK)):
            current = getattr(self, attr)
            if need and (current is None or current.size < need):
                assert need <= STAGING_POOL_LIMIT, "a Program needing more has its own staging"
                size = min(STAGING_POOL_LIMIT, max(STAGING_MIN_BYTES, 1 << (need - 1).bit_length()))
                setattr(self, attr, Buffer(self.queue, size, heap, operator))  # made first: a failure keeps the old
                if current is not None:
                    current.release()
                self.generation += 1

    def nbytes(self) -> int:
        """Bytes of the two buffers."""
        return sum(b.size for b in (self.upload, self.readback) if b is not None)

    def release(self) -> None:
        for b in (self.upload, self.readback):
            if b is not None:
                b.release()
        self.upload = self.readback = None
        self.generation += 1


class DeviceBuffer:
    """A tensor left on a DirectML device by ``op(..., outputs_on_device=True)``: feed it to another compiled operator
    on the same device (no copy through the CPU) or read it with ``numpy()``.

    ``tensor_desc`` is the output's TensorDesc; ``data_type``, ``sizes`` and ``nbytes`` (its TotalTensorSizeInBytes)
    come from it; ``device`` is ``dml:<index>``.
    """

    def __init__(self, q: Queue, buffer: Buffer, td: TensorDesc):
        self._queue = q
        self._buffer = buffer
        self.tensor_desc = td
        self.device = q.name

    @property
    def data_type(self) -> DataType:
        """The tensor's DataType."""
        return self.tensor_desc.data_type

    @property
    def sizes(self) -> tuple:
        """The tensor's Sizes."""
        return tuple(self.tensor_desc.sizes)

    @property
    def nbytes(self) -> int:
        """TotalTensorSizeInBytes: the bytes the buffer holds."""
        return self.tensor_desc.total_tensor_size_in_bytes

    def numpy(self) -> np.ndarray:
        """Copy the tensor to the CPU: an array of shape Sizes (for strided tensors a view over the declared
        buffer layout, as CompiledOperator outputs)."""
        q, td = self._queue, self.tensor_desc
        with q.lock:
            own = self.nbytes > STAGING_POOL_LIMIT
            readback: Buffer | None
            if own:
                readback = q.buffer(self.nbytes, HEAP_READBACK)
            else:
                q.staging.reserve(0, self.nbytes)
                readback = q.staging.readback
            assert readback is not None  # reserved above

            def record(cl):
                res = self._buffer.resource
                cl.call("ResourceBarrier", 1, byref(_transition(res, STATE_COMMON, STATE_COPY_SOURCE)))
                cl.call("CopyBufferRegion", readback.resource, c_uint64(0), res, c_uint64(0), c_uint64(self.nbytes))
                cl.call("ResourceBarrier", 1, byref(_transition(res, STATE_COPY_SOURCE, STATE_COMMON)))

            try:
                q.run_once(record)
                value = tensors.from_bytes(td, readback.view(0, self.nbytes))  # one copy, into an array of its own
            finally:
                if own:
                    readback.release()
        return tensors.numpy_output(td, value)

    def __repr__(self) -> str:
        return f"<DeviceBuffer {self.data_type.name} {list(self.sizes)} on {self.device}>"


# ---------------------------------------------------------------------------------------------------------- program


class Program:
    """One operator descriptor or GraphDesc compiled on one DirectML device, with every resource it needs.

    ``program(inputs)`` takes the inputs in graph input order (each the NumPy backend form that
    ``tensors.numpy_input`` gives, or a DeviceBuffer) or a dict by input name, and returns the outputs' backend
    forms; ``run_bound(inputs)`` returns DeviceBuffers instead. ``device_bytes`` is the device memory it holds on
    its own; ``release()`` gives it back now (the garbage collector does the same once nobody holds the Program).
    ``execution_flags`` (DML_EXECUTION_FLAGS as an int) go to CompileOperator / CompileGraph unchanged.

    A call with NumPy inputs makes the COM calls a C++ caller makes and no others (ExecuteCommandLists, Signal, the
    fence wait: ``Queue.submit``), and copies each tensor once: each input from its array straight into the mapped
    upload buffer, each output from the mapped readback buffer straight into a new array that the caller owns (never
    a view of the readback buffer, which the next call overwrites).
    """

    def __init__(self, target, graph: GraphDesc, index: int, level: FeatureLevel, debug: bool = False,
                 execution_flags: int = EXECUTION_FLAG_NONE):
        self.graph = graph
        self.label = target.OPERATOR_TYPE if isinstance(target, OperatorDesc) else "GRAPH"
        self.level = level
        self.execution_flags = int(execution_flags)
        self.released = False
        q = self.queue = queue(index)
        self.in_descs, self.out_descs = graph.input_descs(), graph.output_descs()
        self.input_names = tuple(graph.input_names)
        self._dynamic: ComPtr | None = None  # the allocator of calls that record their own list (device buffers)
        self._range: DescriptorRange | None = None
        self._own_upload: Buffer | None = None
        self._own_readback: Buffer | None = None
        self.temporary: Buffer | None = None
        self.persistent: Buffer | None = None
        with q.lock:
            self.dml = q.dml(debug)
            self._compile(target, graph, self.dml, debug)
            self._allocate()
            self._bind()
            self._owned_bytes: bytes | None = None
            self._owned_inputs = [i for k, i in enumerate(self.in_bind) if i is not None and self.owned[k]]
            self._stage()
            if not any(self.owned):
                self._initialize([])
            self._list_staging = (self.upload, self.readback)
            self._list = self._record_list({}, None)
            self._lists = (c_void_p * 1)(self._list.address)  # what ExecuteCommandLists reads on every call
            self._lists_address = ctypes.addressof(self._lists)
        q.programs.add(self)

    # -- memory

    @property
    def device_bytes(self) -> int:
        """Bytes of device memory this operator holds on its own: its ``io`` buffer (every input and output),
        DirectML's persistent and temporary resources, its own staging buffers if its tensors exceed the shared
        ones' limit, and its descriptors (at the device's descriptor size). The device's descriptor heap and shared
        staging buffers are not counted (``Queue.memory()`` has them); 0 once released."""
        if self.released:
            return 0
        buffers = sum(b.size for b in (self.io, self.temporary, self.persistent, self._own_upload, self._own_readback)
                      if b is not None)
        return buffers + (self._range.count * self.queue.increment if self._range is not None else 0)

    def memory_note(self) -> str:
        """What ``device_bytes`` is made of, in words (for ``op.notes``)."""
        parts = [f"inputs and outputs {format_bytes(self.io.size)}"]
        parts += [f"{what} {format_bytes(b.size)}" for what, b in (("persistent", self.persistent),
                                                                   ("temporary", self.temporary),
                                                                   ("own upload buffer", self._own_upload),
                                                                   ("own readback buffer", self._own_readback))
                  if b is not None]
        n = self._range.count if self._range is not None else 0
        parts.append(f"{n} descriptors of the device's shared descriptor heap")
        return (f"device memory held by this operator: {format_bytes(self.device_bytes)} ({', '.join(parts)}); "
                "shared by every operator on the device: one shader-visible descriptor heap and the upload and "
                "readback staging buffers")

    def release(self) -> None:
        """Release this operator's DirectML objects and buffers now and return its descriptors to the device's heap.
        Later calls raise DmlOpsError. (Without it the garbage collector does the same once nobody holds it.)"""
        q = self.queue
        with q.lock:
            if self.released:
                return
            self.released = True
            for name in ("_list", "_allocator", "_dynamic", "exec_table", "init_table", "initializer", "compiled"):
                p = getattr(self, name, None)
                if p is not None:
                    p.release()
            for b in (self.io, self.temporary, self.persistent, self._own_upload, self._own_readback):
                if b is not None:
                    b.release()
            if self._range is not None:
                self._finalizer()

    def _alive(self) -> None:
        if self.released:
            raise DmlOpsError(f"{self.label}: this compiled operator was released (release()); compile it again.")
        if self.queue.closed:
            raise DmlOpsError(f"{self.label}: the device's queue was released (release_queues); compile the operator "
                              "again.")

    # -- compile

    def _refused(self, error: HResultError) -> RefusedByDirectML:
        return RefusedByDirectML(error, self.label, self.level)

    def _compile(self, target, graph: GraphDesc, dml: ComPtr, debug: bool) -> None:
        q = self.queue
        try:
            if isinstance(target, OperatorDesc):
                m = marshal(target)
                op = q.create(dml, "CreateOperator", "IDMLOperator", m.pointer, operator=self.label)
                self.compiled = q.create(dml, "CompileOperator", "IDMLCompiledOperator", op, self.execution_flags,
                                         operator=self.label)
                # binding order is the operator's: every tensor slot, absent optional ones included (bound NONE)
                in_slots, out_slots = slots(target, "input"), slots(target, "output")
                self.in_bind = [None if td is None else self.input_names.index(name) for name, td in in_slots]
                self.out_bind = [None if td is None else graph.output_names.index(name) for name, td in out_slots]
                self.owned = [td is not None and TensorFlags.OWNED_BY_DML in td.flags for _, td in in_slots]
            else:
                ops = []
                for k, node in enumerate(graph.nodes):
                    m = marshal(node)
                    ops.append(q.create(dml, "CreateOperator", "IDMLOperator", m.pointer,
                                        operator=f"GRAPH node {k} ({node.OPERATOR_TYPE})"))
                g = marshal_graph(graph, [op.address for op in ops])
                self.compiled = q.create(q.dml1(debug, self.label), "CompileGraph", "IDMLCompiledOperator",
                                         g.pointer, self.execution_flags, operator=self.label)
                self.in_bind = list(range(graph.input_count))
                self.out_bind = list(range(graph.output_count))
                owned = [False] * graph.input_count
                for e in graph.input_edges:
                    td = slots(graph.nodes[e.to_node_index], "input")[e.to_node_input_index][1]
                    owned[e.graph_input_index] |= td is not None and TensorFlags.OWNED_BY_DML in td.flags
                self.owned = owned
            self.initializer = q.create(dml, "CreateOperatorInitializer", "IDMLOperatorInitializer", 1,
                                        byref(c_void_p(self.compiled.address)), operator=self.label)
        except HResultError as e:
            if e.hresult in DEVICE_LOST:
                raise
            raise self._refused(e) from None
        self.exec_props = self.compiled.call("GetBindingProperties")
        self.init_props = self.initializer.call("GetBindingProperties")

    # -- resources

    def _allocate(self) -> None:
        q = self.queue
        offset = 0
        self.in_offsets = []
        for td in self.in_descs:
            self.in_offsets.append(offset)
            offset = _align(offset + td.total_tensor_size_in_bytes)
        self.in_end = offset
        self.out_offsets = []
        for td in self.out_descs:
            self.out_offsets.append(offset)
            offset = _align(offset + td.total_tensor_size_in_bytes)
        self.out_size = offset - self.in_end
        self.io = q.buffer(offset, HEAP_DEFAULT, self.label)
        if self.in_end > STAGING_POOL_LIMIT:
            self._own_upload = q.buffer(self.in_end, HEAP_UPLOAD, self.label)
        if self.out_size > STAGING_POOL_LIMIT:
            self._own_readback = q.buffer(self.out_size, HEAP_READBACK, self.label)
        temp = max(self.exec_props.TemporaryResourceSize, self.init_props.TemporaryResourceSize)
        self.temporary = q.buffer(temp, HEAP_DEFAULT, self.label) if temp else None
        persistent = self.exec_props.PersistentResourceSize
        self.persistent = q.buffer(persistent, HEAP_DEFAULT, self.label) if persistent else None
        self._scratch = [b for b in (self.temporary, self.persistent) if b is not None]

    # -- staging: the device's shared upload / readback buffers, or this Program's own

    @property
    def upload(self) -> Buffer | None:
        """The upload buffer this operator's inputs go through (None when no input has bytes)."""
        if not self.in_end:
            return None
        return self._own_upload if self._own_upload is not None else self.queue.staging.upload

    @property
    def readback(self) -> Buffer:
        """The readback buffer its outputs come back through."""
        b = self._own_readback if self._own_readback is not None else self.queue.staging.readback
        assert b is not None  # reserved by _stage
        return b

    def _stage(self) -> None:
        """Make the shared staging buffers big enough for this operator, record its command list again if they
        were replaced since it was recorded, and make its views of them (``_views``). A call does this only when the
        device's staging buffers changed since this operator's last (``Staging.generation``). Hold the lock."""
        staging = self.queue.staging
        staging.reserve(self.in_end if self._own_upload is None else 0,
                        self.out_size if self._own_readback is None else 0, self.label)
        recorded = getattr(self, "_list_staging", None)
        if recorded is not None and (recorded[0] is not self.upload or recorded[1] is not self.readback):
            q = self.queue
            q.call(self._allocator, "Reset", operator=self.label)
            old = self._list
            self._list_staging = (self.upload, self.readback)
            self._list = self._record_list({}, None, self._allocator)
            self._lists[0] = self._list.address
            old.release()
        self._views()
        self._staged = staging.generation

    def _views(self) -> None:
        """NumPy views of this operator's slots in its upload and readback buffers, over the mapped memory:
        ``_in_bytes[i]`` / ``_out_bytes[i]`` (uint8, TotalTensorSizeInBytes) and, for tensors a NumPy array holds
        as they are (packed, not 4-bit), ``_in_views[i]`` / ``_out_views[i]`` of the tensor's dtype and Sizes (else
        None). Made again whenever the buffers are replaced (``_stage``); they never leave this Program."""
        def typed(raw, td):
            if tensors.is_strided(td) or td.data_type.four_bit_range is not None:
                return None
            dtype = td.data_type.numpy_dtype
            return raw[:td.element_count * dtype.itemsize].view(dtype).reshape(td.sizes)

        up = self.upload
        self._in_bytes: list = [up.view(off, td.total_tensor_size_in_bytes) if up is not None else None
                          for off, td in zip(self.in_offsets, self.in_descs)]
        self._in_views = [typed(raw, td) if raw is not None else None for raw, td in zip(self._in_bytes, self.in_descs)]
        rb = self.readback
        self._out_bytes = [rb.view(off - self.in_end, td.total_tensor_size_in_bytes)
                           for off, td in zip(self.out_offsets, self.out_descs)]
        self._out_views = [typed(raw, td) for raw, td in zip(self._out_bytes, self.out_descs)]
        self._out_packed = all(v is not None for v in self._out_views)

    def _binding(self, buffer: Buffer | None, offset: int = 0, size: int = 0, *, keep: list):
        if buffer is None:
            return S.DML_BINDING_DESC(BINDING_NONE, None)
        b = S.DML_BUFFER_BINDING(buffer.resource.address, offset, size or buffer.size)
        keep.append(b)
        return S.DML_BINDING_DESC(BINDING_BUFFER, ctypes.addressof(b))

    def _table(self, dispatchable: ComPtr, first: int, count: int) -> ComPtr:
        q = self.queue
        assert self._range is not None
        desc = S.DML_BINDING_TABLE_DESC(Dispatchable=dispatchable.address, CPUDescriptorHandle=self._range.cpu(first),
                                        GPUDescriptorHandle=self._range.gpu(first), SizeInDescriptors=count)
        return q.create(self.dml, "CreateBindingTable", "IDMLBindingTable", byref(desc),
                        operator=self.label)

    def _bind(self) -> None:
        q = self.queue
        n_init = max(self.init_props.RequiredDescriptorCount, 1)
        n_exec = max(self.exec_props.RequiredDescriptorCount, 1)
        self._range = q.heaps.allocate(n_init + n_exec, self.label)
        self._finalizer = weakref.finalize(self, q.heaps.free, self._range)
        self._finalizer.atexit = False  # at exit nothing is given back: the process's memory goes with it
        self.init_table = self._table(self.initializer, 0, n_init)
        self.exec_table = self._table(self.compiled, n_init, n_exec)
        keep: list = []
        t = self.exec_table
        ins = [self._binding(None if i is None or self.owned[k] else self.io, self.in_offsets[i] if i is not None else 0,
                             self.in_descs[i].total_tensor_size_in_bytes if i is not None else 0, keep=keep)
               for k, i in enumerate(self.in_bind)]
        outs = [self._binding(None if i is None else self.io, self.out_offsets[i] if i is not None else 0,
                              self.out_descs[i].total_tensor_size_in_bytes if i is not None else 0, keep=keep)
                for i in self.out_bind]
        t.call("BindInputs", len(ins), (S.DML_BINDING_DESC * len(ins))(*ins) if ins else None)
        t.call("BindOutputs", len(outs), (S.DML_BINDING_DESC * len(outs))(*outs) if outs else None)
        if self.exec_props.TemporaryResourceSize:
            t.call("BindTemporaryResource", byref(self._binding(self.temporary, keep=keep)))
        if self.exec_props.PersistentResourceSize:
            t.call("BindPersistentResource", byref(self._binding(self.persistent, keep=keep)))

    # -- initialization

    def _initialize(self, owned_inputs: list) -> None:
        """Run the IDMLOperatorInitializer: OWNED_BY_DML inputs (already copied into ``io``) bound as one buffer
        array, the persistent resource as its output. Hold the lock."""
        q, t = self.queue, self.init_table
        keep: list = []
        if any(self.owned):
            entries = (S.DML_BUFFER_BINDING * len(self.in_bind))()
            for k, i in enumerate(self.in_bind):
                if i is not None and self.owned[k]:
                    entries[k] = S.DML_BUFFER_BINDING(self.io.resource.address, self.in_offsets[i],
                                                      self.in_descs[i].total_tensor_size_in_bytes)
            array = S.DML_BUFFER_ARRAY_BINDING(len(self.in_bind), ctypes.cast(entries, POINTER(S.DML_BUFFER_BINDING)))
            keep += [entries, array]
            t.call("BindInputs", 1, byref(S.DML_BINDING_DESC(BINDING_BUFFER_ARRAY, ctypes.addressof(array))))
        if self.persistent is not None:
            t.call("BindOutputs", 1, byref(self._binding(self.persistent, keep=keep)))
        if self.init_props.TemporaryResourceSize:
            t.call("BindTemporaryResource", byref(self._binding(self.temporary, keep=keep)))
        used = [self.io] + self._scratch

        def record(cl):
            self._set_heap(cl)
            if owned_inputs:
                self._barriers(cl, [(self.io, STATE_COMMON, STATE_COPY_DEST)])
                for i in owned_inputs:
                    cl.call("CopyBufferRegion", self.io.resource, c_uint64(self.in_offsets[i]), self.upload.resource,
                            c_uint64(self.in_offsets[i]), c_uint64(self.in_descs[i].total_tensor_size_in_bytes))
                self._barriers(cl, [(self.io, STATE_COPY_DEST, STATE_UNORDERED_ACCESS)] +
                               [(b, STATE_COMMON, STATE_UNORDERED_ACCESS) for b in self._scratch])
            else:
                self._barriers(cl, [(b, STATE_COMMON, STATE_UNORDERED_ACCESS) for b in used])
            q.recorder.call("RecordDispatch", cl, self.initializer, t)
            cl.call("ResourceBarrier", 1, byref(_uav_barrier()))
            self._barriers(cl, [(b, STATE_UNORDERED_ACCESS, STATE_COMMON) for b in used])

        try:
            q.run_once(record, self.label)
        except HResultError as e:
            if e.hresult in DEVICE_LOST:
                raise
            raise self._refused(e) from None

    # -- recording

    def _set_heap(self, cl: ComPtr) -> None:
        """Bind the heap this operator's tables are in (each list sets its own: the device may have grown a newer
        one since)."""
        assert self._range is not None
        cl.call("SetDescriptorHeaps", 1, byref(c_void_p(self._range.heap.com.address)))

    @staticmethod
    def _barriers(cl: ComPtr, changes: list) -> None:
        if changes:
            arr = (D3D12_RESOURCE_BARRIER * len(changes))(*[_transition(b.resource, s0, s1) for b, s0, s1 in changes])
            cl.call("ResourceBarrier", len(changes), arr)

    def _record_list(self, device_inputs: dict, device_outputs: list | None, allocator: ComPtr | None = None):
        """Record (and close) the command list of one call: inputs copied into ``io`` (from the upload buffer, or
        from a DeviceBuffer's resource), the dispatch, outputs copied to the readback buffer or ``device_outputs``."""
        q = self.queue
        if allocator is None:
            allocator = self._allocator = q.create(q.device.d3d12_device, "CreateCommandAllocator",
                                                   "ID3D12CommandAllocator", COMMAND_LIST_TYPE_COMPUTE,
                                                   operator=self.label)
        cl = q.command_list(allocator)
        u64 = c_uint64
        self._set_heap(cl)
        sources = list({id(b._buffer): b._buffer for b in device_inputs.values()}.values())  # each resource once
        self._barriers(cl, [(self.io, STATE_COMMON, STATE_COPY_DEST)] +
                       [(b, STATE_COMMON, STATE_COPY_SOURCE) for b in sources])
        if self.in_end and not device_inputs:
            assert self.upload is not None  # made whenever in_end > 0
            cl.call("CopyBufferRegion", self.io.resource, u64(0), self.upload.resource, u64(0), u64(self.in_end))
        else:
            for i, td in enumerate(self.in_descs):
                src, at = (device_inputs[i]._buffer, 0) if i in device_inputs else (self.upload, self.in_offsets[i])
                assert src is not None  # an input here has bytes, so in_end > 0 and the upload buffer exists
                cl.call("CopyBufferRegion", self.io.resource, u64(self.in_offsets[i]), src.resource, u64(at),
                        u64(td.total_tensor_size_in_bytes))
        self._barriers(cl, [(self.io, STATE_COPY_DEST, STATE_UNORDERED_ACCESS)] +
                       [(b, STATE_COPY_SOURCE, STATE_COMMON) for b in sources] +
                       [(b, STATE_COMMON, STATE_UNORDERED_ACCESS) for b in self._scratch])
        q.recorder.call("RecordDispatch", cl, self.compiled, self.exec_table)
        cl.call("ResourceBarrier", 1, byref(_uav_barrier()))
        self._barriers(cl, [(self.io, STATE_UNORDERED_ACCESS, STATE_COPY_SOURCE)] +
                       [(b, STATE_UNORDERED_ACCESS, STATE_COMMON) for b in self._scratch])
        if device_outputs is None:
            cl.call("CopyBufferRegion", self.readback.resource, u64(0), self.io.resource, u64(self.in_end),
                    u64(self.out_size))
        else:
            self._barriers(cl, [(b, STATE_COMMON, STATE_COPY_DEST) for b in device_outputs])
            for i, (td, b) in enumerate(zip(self.out_descs, device_outputs)):
                cl.call("CopyBufferRegion", b.resource, u64(0), self.io.resource, u64(self.out_offsets[i]),
                        u64(td.total_tensor_size_in_bytes))
            self._barriers(cl, [(b, STATE_COPY_DEST, STATE_COMMON) for b in device_outputs])
        self._barriers(cl, [(self.io, STATE_COPY_SOURCE, STATE_COMMON)])
        q.call(cl, "Close", operator=self.label)
        return cl

    # -- calls

    def _feed(self, inputs) -> tuple[list, dict]:
        """The host inputs as (index, array) and the DeviceBuffer inputs by index (checked)."""
        if isinstance(inputs, dict):
            inputs = [inputs[n] for n in self.input_names]
        host, device_inputs = [], {}
        for i, (name, td, value) in enumerate(zip(self.input_names, self.in_descs, inputs)):
            if isinstance(value, DeviceBuffer):
                if self.owned[self.in_bind.index(i)]:
                    raise DmlOpsError(f"{self.label}.{name}: an OWNED_BY_DML input is read at initialization; pass it "
                                      "as a NumPy array, not a DeviceBuffer.")
                device_inputs[i] = check_device_input(f"{self.label}.{name}", td, value, self.queue)
            else:
                host.append((i, value))
        return host, device_inputs

    def _upload(self, host) -> None:
        """Copy the host inputs ((index, array) pairs) into the upload buffer, each once, straight from its array
        (and initialize again when OWNED_BY_DML bytes changed). Hold the lock, after ``_stage``."""
        views = self._in_views
        for i, value in host:
            dst = views[i]
            if dst is not None and type(value) is np.ndarray and value.shape == dst.shape and value.dtype == dst.dtype:
                dst[...] = value
            else:
                self._upload_other(i, value)
        if self._owned_inputs:
            data = b"".join(self._in_bytes[i].tobytes() for i in self._owned_inputs)
            if data != self._owned_bytes:
                self._initialize(self._owned_inputs)
                self._owned_bytes = data

    def _upload_other(self, i: int, value) -> None:
        """An input in any other backend form (a strided tensor's buffer, 4-bit values): its bytes, at most
        TotalTensorSizeInBytes of them, as ``tensors.to_bytes`` lays them out."""
        td, dst = self.in_descs[i], self._in_bytes[i]
        if td.data_type.four_bit_range is not None:
            raw = np.frombuffer(tensors.to_bytes(td, value), np.uint8)
        else:
            raw = np.ascontiguousarray(value, dtype=td.data_type.numpy_dtype).reshape(-1).view(np.uint8)
        n = min(raw.size, dst.size)
        dst[:n] = raw[:n]

    def _download(self) -> list:
        """The outputs' backend forms, each copied once from the readback buffer into a new array of its own.
        Hold the lock, after the list ran."""
        if self._out_packed:
            return [v.copy() for v in self._out_views]
        return [v.copy() if v is not None else tensors.from_bytes(td, raw)  # from_bytes copies
                for v, td, raw in zip(self._out_views, self.out_descs, self._out_bytes)]

    def __call__(self, inputs) -> list:
        """Run with NumPy inputs (backend form) and DeviceBuffers; return the outputs' backend forms."""
        if isinstance(inputs, dict):
            inputs = [inputs[n] for n in self.input_names]
        for value in inputs:
            if isinstance(value, DeviceBuffer):
                return self._call_with_device_inputs(inputs)
        q = self.queue
        with q.lock:
            if self.released or q.closed:
                self._alive()
            if self._staged != q.staging.generation:
                self._stage()
            self._upload(enumerate(inputs))
            q.submit(self._lists_address, self.label)
            return self._download()

    def _call_with_device_inputs(self, inputs) -> list:
        """A call with DeviceBuffer inputs: its own command list, copying them on the device."""
        host, device_inputs = self._feed(inputs)
        q = self.queue
        with q.lock:
            self._alive()
            self._stage()
            self._upload(host)
            q.execute(self._record_list(device_inputs, None, self._one_off_allocator()), self.label)
            return self._download()

    def run_bound(self, inputs) -> list:
        """Like calling, but the outputs stay on the device as DeviceBuffers."""
        host, device_inputs = self._feed(inputs)
        q = self.queue
        with q.lock:
            self._alive()
            self._stage()
            self._upload(host)
            outs = [q.buffer(td.total_tensor_size_in_bytes, HEAP_DEFAULT, self.label) for td in self.out_descs]
            q.execute(self._record_list(device_inputs, outs, self._one_off_allocator()), self.label)
            return [DeviceBuffer(q, b, td) for b, td in zip(outs, self.out_descs)]

    def _one_off_allocator(self) -> ComPtr:
        q = self.queue
        if self._dynamic is None:
            self._dynamic = q.create(q.device.d3d12_device, "CreateCommandAllocator", "ID3D12CommandAllocator",
                                     COMMAND_LIST_TYPE_COMPUTE, operator=self.label)
        else:
            q.call(self._dynamic, "Reset", operator=self.label)
        return self._dynamic


def check_device_input(path: str, td: TensorDesc, value: DeviceBuffer, q: Queue) -> DeviceBuffer:
    """A DeviceBuffer fed as an input: on the same device, of the same data type, holding at least the bytes the
    input's TotalTensorSizeInBytes covers (its bytes are then read through this input's Sizes and Strides)."""
    if value._queue is not q:
        raise DmlOpsError(f"{path}: the DeviceBuffer lives on {value.device}; this operator runs on {q.name}. "
                          "dmlops never moves data between devices unasked: read it with .numpy() first.")
    if value.data_type != td.data_type:
        raise DmlOpsError(f"{path}: expected {td.data_type.name} data; got a DeviceBuffer of {value.data_type.name}. "
                          "dmlops never casts inputs.")
    if value.nbytes < td.total_tensor_size_in_bytes:
        raise DmlOpsError(f"{path}: the DeviceBuffer holds {value.nbytes} bytes; this input's TotalTensorSizeInBytes "
                          f"is {td.total_tensor_size_in_bytes}.")
    return value


__all__ = ["Program", "DeviceBuffer", "RefusedByDirectML", "Queue", "queue", "check_device_input"]
