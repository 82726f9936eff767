"""Running descriptors and graphs on a DirectML device: DirectML's documented sequence, through ctypes.

One ``Queue`` per device (a COMPUTE command queue, a fence, a command recorder), made on first use and shared.
One ``Program`` per compiled operator or graph, made once and reused on every call:

1. IDMLDevice::CreateOperator → CompileOperator (one descriptor), or IDMLDevice1::CompileGraph (a GraphDesc);
2. buffers, all created once: one default-heap buffer ``io`` holding every input and output at 256-byte aligned
   offsets, an upload buffer mirroring its input part and a readback buffer for its output part (both mapped for
   good), and the temporary and persistent resources DirectML asks for (GetBindingProperties);
3. one shader-visible descriptor heap with two binding tables: the initializer's and the operator's;
4. IDMLOperatorInitializer run once (OWNED_BY_DML inputs bound then, as a DML_BUFFER_ARRAY_BINDING; when their
   bytes change on a later call the operator is initialized again with the new ones);
5. one command list recorded once (copy in, dispatch, copy out) and executed on every call; a call with device
   buffers (``DeviceBuffer``) in or out records its own list.

Every default buffer is in D3D12_RESOURCE_STATE_COMMON between command lists; each list transitions what it uses
explicitly and returns it to COMMON, so no list relies on another's state. Submission is serialized per device
(``Device.lock``): compiled operators may be called from several threads.

Errors: every failing HRESULT is a DmlOpsError (``com.HResultError``) naming the call, the operator and the code,
with GetDeviceRemovedReason when the device was lost and the D3D12 debug layer's messages when they exist. A
descriptor that dmlops validated but DirectML refused raises ``RefusedByDirectML``, which says so in those words.
"""
from __future__ import annotations

import ctypes
import time
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
        self.increment = d3d12.call("GetDescriptorHandleIncrementSize", DESCRIPTOR_HEAP_CBV_SRV_UAV)
        self.recorder = self.create(device.dml_device, "CreateCommandRecorder", "IDMLCommandRecorder")
        self.allocator = self.create(d3d12, "CreateCommandAllocator", "ID3D12CommandAllocator",
                                     COMMAND_LIST_TYPE_COMPUTE)
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
        self.queue.call("ExecuteCommandLists", 1, lists)
        self.value += 1
        self.call(self.queue, "Signal", self.fence, c_uint64(self.value), operator=operator)
        self.wait(self.value, operator)

    def wait(self, value: int, operator: str | None = None) -> None:
        """Block until the fence reaches ``value``: SetEventOnCompletion with no event blocks (d3d12.h: "If hEvent
        is NULL, the call blocks until the fence reaches the value"); where that fails, poll."""
        completed = self.fence.call("GetCompletedValue")
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


    def release(self) -> None:
        """Release the queue's COM objects (after every Program using it is gone)."""
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

    def write(self, offset: int, data: bytes, limit: int) -> None:
        """Copy ``data`` (at most ``limit`` bytes) to ``offset`` of a mapped buffer."""
        ctypes.memmove(self.pointer + offset, data, min(len(data), limit))

    def read(self, offset: int, nbytes: int) -> bytes:
        """``nbytes`` from ``offset`` of a mapped buffer."""
        return ctypes.string_at(self.pointer + offset, nbytes)


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
            readback = q.buffer(self.nbytes, HEAP_READBACK)

            def record(cl):
                res = self._buffer.resource
                cl.call("ResourceBarrier", 1, byref(_transition(res, STATE_COMMON, STATE_COPY_SOURCE)))
                cl.call("CopyBufferRegion", readback.resource, c_uint64(0), res, c_uint64(0), c_uint64(self.nbytes))
                cl.call("ResourceBarrier", 1, byref(_transition(res, STATE_COPY_SOURCE, STATE_COMMON)))

            q.run_once(record)
            raw = readback.read(0, self.nbytes)
        return tensors.numpy_output(td, tensors.from_bytes(td, raw))

    def __repr__(self) -> str:
        return f"<DeviceBuffer {self.data_type.name} {list(self.sizes)} on {self.device}>"


# ---------------------------------------------------------------------------------------------------------- program


class Program:
    """One operator descriptor or GraphDesc compiled on one DirectML device, with every resource it needs.

    ``program(inputs)`` takes the inputs in graph input order (each the NumPy backend form that
    ``tensors.numpy_input`` gives, or a DeviceBuffer) or a dict by input name, and returns the outputs' backend
    forms; ``run_bound(inputs)`` returns DeviceBuffers instead.
    """

    def __init__(self, target, graph: GraphDesc, index: int, level: FeatureLevel, debug: bool = False):
        self.graph = graph
        self.label = target.OPERATOR_TYPE if isinstance(target, OperatorDesc) else "GRAPH"
        self.level = level
        q = self.queue = queue(index)
        self.in_descs, self.out_descs = graph.input_descs(), graph.output_descs()
        self.input_names = tuple(graph.input_names)
        self._dynamic: ComPtr | None = None  # the allocator of calls that record their own list (device buffers)
        with q.lock:
            self.dml = q.dml(debug)
            self._compile(target, graph, self.dml, debug)
            self._allocate()
            self._bind()
            self._owned_bytes: bytes | None = None
            if not any(self.owned):
                self._initialize([])
            self._list = self._record_list({}, None)

    # -- compile

    def _refused(self, error: HResultError) -> RefusedByDirectML:
        return RefusedByDirectML(error, self.label, self.level)

    def _compile(self, target, graph: GraphDesc, dml: ComPtr, debug: bool) -> None:
        q = self.queue
        try:
            if isinstance(target, OperatorDesc):
                m = marshal(target)
                op = q.create(dml, "CreateOperator", "IDMLOperator", m.pointer, operator=self.label)
                self.compiled = q.create(dml, "CompileOperator", "IDMLCompiledOperator", op, EXECUTION_FLAG_NONE,
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
                                         g.pointer, EXECUTION_FLAG_NONE, operator=self.label)
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
        self.upload = q.buffer(self.in_end, HEAP_UPLOAD, self.label) if self.in_end else None
        self.readback = q.buffer(self.out_size, HEAP_READBACK, self.label)
        temp = max(self.exec_props.TemporaryResourceSize, self.init_props.TemporaryResourceSize)
        self.temporary = q.buffer(temp, HEAP_DEFAULT, self.label) if temp else None
        persistent = self.exec_props.PersistentResourceSize
        self.persistent = q.buffer(persistent, HEAP_DEFAULT, self.label) if persistent else None
        self._scratch = [b for b in (self.temporary, self.persistent) if b is not None]

    def _binding(self, buffer: Buffer | None, offset: int = 0, size: int = 0, *, keep: list):
        if buffer is None:
            return S.DML_BINDING_DESC(BINDING_NONE, None)
        b = S.DML_BUFFER_BINDING(buffer.resource.address, offset, size or buffer.size)
        keep.append(b)
        return S.DML_BINDING_DESC(BINDING_BUFFER, ctypes.addressof(b))

    def _table(self, dispatchable: ComPtr, first: int, count: int) -> ComPtr:
        q = self.queue
        cpu = self.heap.call("GetCPUDescriptorHandleForHeapStart")
        gpu = self.heap.call("GetGPUDescriptorHandleForHeapStart")
        desc = S.DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable.address,
            CPUDescriptorHandle=S.D3D12_CPU_DESCRIPTOR_HANDLE(cpu.ptr + first * q.increment),
            GPUDescriptorHandle=S.D3D12_GPU_DESCRIPTOR_HANDLE(gpu.ptr + first * q.increment),
            SizeInDescriptors=count)
        return q.create(self.dml, "CreateBindingTable", "IDMLBindingTable", byref(desc),
                        operator=self.label)

    def _bind(self) -> None:
        q = self.queue
        n_init = max(self.init_props.RequiredDescriptorCount, 1)
        n_exec = max(self.exec_props.RequiredDescriptorCount, 1)
        self.heap = q.create(q.device.d3d12_device, "CreateDescriptorHeap", "ID3D12DescriptorHeap",
                             byref(D3D12_DESCRIPTOR_HEAP_DESC(DESCRIPTOR_HEAP_CBV_SRV_UAV, n_init + n_exec,
                                                              DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0)),
                             operator=self.label)
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
        cl.call("SetDescriptorHeaps", 1, byref(c_void_p(self.heap.address)))

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

    def _upload(self, host: list) -> None:
        if self.upload is None:  # in_end == 0: no input has bytes, so nothing is uploaded or owned
            return
        for i, value in host:
            self.upload.write(self.in_offsets[i], tensors.to_bytes(self.in_descs[i], value),
                              self.in_descs[i].total_tensor_size_in_bytes)
        owned = [i for k, i in enumerate(self.in_bind) if i is not None and self.owned[k]]
        if owned:
            data = b"".join(self.upload.read(self.in_offsets[i], self.in_descs[i].total_tensor_size_in_bytes)
                            for i in owned)
            if data != self._owned_bytes:
                self._initialize(owned)
                self._owned_bytes = data

    def __call__(self, inputs) -> list:
        """Run with NumPy inputs (backend form) and DeviceBuffers; return the outputs' backend forms."""
        host, device_inputs = self._feed(inputs)
        q = self.queue
        with q.lock:
            self._upload(host)
            if device_inputs:
                allocator = self._one_off_allocator()
                q.execute(self._record_list(device_inputs, None, allocator), self.label)
            else:
                q.execute(self._list, self.label)
            return [tensors.from_bytes(td, self.readback.read(off - self.in_end, td.total_tensor_size_in_bytes))
                    for td, off in zip(self.out_descs, self.out_offsets)]

    def run_bound(self, inputs) -> list:
        """Like calling, but the outputs stay on the device as DeviceBuffers."""
        host, device_inputs = self._feed(inputs)
        q = self.queue
        with q.lock:
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
