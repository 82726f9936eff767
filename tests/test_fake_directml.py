"""The fake D3D12 / DirectML objects of tests/fake_directml.py, driven by hand with raw ComPtr calls (the way the
native backend's runtime calls DirectML): buffers on every heap, copies, barriers, an ELEMENT_WISE_ADD dispatch
whose numbers come back, and the plumbing mistakes the fake must report. Nothing here runs DirectML."""
import ctypes
import re
from ctypes import byref, c_void_p

import numpy as np
import pytest

import dmlops
from dmlops.backends.directml import adapters, com, marshal
from dmlops.backends.directml import structs as S
from dmlops.graph import GraphBuilder
from dmlops.types import FeatureLevel, TensorDesc, TensorFlags
from tests import fake_directml as F
from tests.fake_directml import fake_directml  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(not F.SUPPORTED, reason=F.WHY_UNSUPPORTED)

A = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
B = np.array([[0.5, -2, 0], [10, -5, 0.25]], np.float32)
TD = TensorDesc("FLOAT32", [2, 3])  # 24 bytes
UAV = F.RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS


def add_desc(b_flags=TensorFlags.NONE):
    return dmlops.ElementWiseAdd(a_tensor=TD, b_tensor=TensorDesc("FLOAT32", [2, 3], flags=b_flags), output_tensor=TD)


def pointers(*ptrs):
    return (c_void_p * len(ptrs))(*[p.address for p in ptrs])


def buffer_binding(resource, offset, size):
    b = S.DML_BUFFER_BINDING(resource.address, offset, size)
    return b, S.DML_BINDING_DESC(F.DML_BINDING_BUFFER, ctypes.addressof(b))


def bindings(*entries):
    """DML_BINDING_DESC[] from (resource, offset, size) triples, None for NONE; keeps the structs alive."""
    keep, descs = [], []
    for e in entries:
        if e is None:
            descs.append(S.DML_BINDING_DESC(F.DML_BINDING_NONE, None))
        else:
            b, d = buffer_binding(*e)
            keep.append(b)
            descs.append(d)
    array = (S.DML_BINDING_DESC * len(descs))(*descs)
    array._keep = keep
    return array


class Rig:
    """A device, queue, allocator, open list, fence, descriptor heap and recorder, made through ComPtr calls."""

    def __init__(self, heap_descriptors=16):
        device = adapters.open_device(0)
        self.d3d, self.dml = device.d3d12_device, device.dml_device
        self.queue = self.d3d.create("CreateCommandQueue", "ID3D12CommandQueue",
                                     byref(com.D3D12_COMMAND_QUEUE_DESC(Type=F.COMMAND_LIST_COMPUTE)))
        self.alloc = self.d3d.create("CreateCommandAllocator", "ID3D12CommandAllocator", F.COMMAND_LIST_COMPUTE)
        self.list = self.d3d.create("CreateCommandList", "ID3D12GraphicsCommandList", 0, F.COMMAND_LIST_COMPUTE,
                                    self.alloc, None)
        self.fence = self.d3d.create("CreateFence", "ID3D12Fence", 0, 0)
        self.heap = self.d3d.create("CreateDescriptorHeap", "ID3D12DescriptorHeap", byref(com.D3D12_DESCRIPTOR_HEAP_DESC(
            Type=F.DESCRIPTOR_HEAP_CBV_SRV_UAV, NumDescriptors=heap_descriptors, Flags=F.DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)))
        self.increment = self.d3d.call("GetDescriptorHandleIncrementSize", F.DESCRIPTOR_HEAP_CBV_SRV_UAV)
        self.recorder = self.dml.create("CreateCommandRecorder", "IDMLCommandRecorder")
        self.made = [self.queue, self.alloc, self.list, self.fence, self.heap, self.recorder]
        self.fence_value = 0

    def keep(self, p):
        self.made.append(p)
        return p

    def buffer(self, heap_type, size, state, flags=0):
        props = com.D3D12_HEAP_PROPERTIES(Type=heap_type)
        desc = com.D3D12_RESOURCE_DESC(Dimension=1, Width=size, Height=1, DepthOrArraySize=1, MipLevels=1,
                                       SampleDesc=com.DXGI_SAMPLE_DESC(1, 0), Layout=1, Flags=flags)
        return self.keep(self.d3d.create("CreateCommittedResource", "ID3D12Resource", byref(props), 0, byref(desc),
                                         state, None))

    def write(self, upload, data: bytes, offset=0):
        ptr = c_void_p()
        upload.call("Map", 0, byref(F.D3D12_RANGE(0, 0)), byref(ptr))
        ctypes.memmove(ptr.value + offset, data, len(data))
        upload.call("Unmap", 0, None)

    def read(self, readback, size, offset=0) -> bytes:
        ptr = c_void_p()
        readback.call("Map", 0, byref(F.D3D12_RANGE(offset, offset + size)), byref(ptr))
        data = ctypes.string_at(ptr.value + offset, size)
        readback.call("Unmap", 0, byref(F.D3D12_RANGE(0, 0)))
        return data

    def operator(self, desc, flags=0):
        m = marshal.marshal(desc)
        op = self.dml.create("CreateOperator", "IDMLOperator", m.pointer)
        del m  # the fake read it during the call
        compiled = self.keep(self.dml.create("CompileOperator", "IDMLCompiledOperator", op, flags))
        op.release()
        return compiled

    def initializer(self, *compiled):
        return self.keep(self.dml.create("CreateOperatorInitializer", "IDMLOperatorInitializer", len(compiled),
                                         pointers(*compiled)))

    def table(self, dispatchable, first, size=None):
        props = dispatchable.call("GetBindingProperties")
        cpu = self.heap.call("GetCPUDescriptorHandleForHeapStart")
        gpu = self.heap.call("GetGPUDescriptorHandleForHeapStart")
        desc = S.DML_BINDING_TABLE_DESC(dispatchable.address, S.D3D12_CPU_DESCRIPTOR_HANDLE(cpu.ptr + first * self.increment),
                                        S.D3D12_GPU_DESCRIPTOR_HANDLE(gpu.ptr + first * self.increment),
                                        props.RequiredDescriptorCount if size is None else size)
        return self.keep(self.dml.create("CreateBindingTable", "IDMLBindingTable", byref(desc)))

    def set_heap(self):
        self.list.call("SetDescriptorHeaps", 1, pointers(self.heap))

    def transition(self, resource, before, after):
        b = F.D3D12_RESOURCE_BARRIER(Type=F.BARRIER_TRANSITION)
        b.Transition.pResource, b.Transition.Subresource = resource.address, 0xFFFFFFFF
        b.Transition.StateBefore, b.Transition.StateAfter = before, after
        self.list.call("ResourceBarrier", 1, byref(b))

    def uav_barrier(self, resource=None):
        b = F.D3D12_RESOURCE_BARRIER(Type=F.BARRIER_UAV)
        b.UAV.pResource = resource.address if resource is not None else None
        self.list.call("ResourceBarrier", 1, byref(b))

    def dispatch(self, dispatchable, table):
        self.recorder.call("RecordDispatch", self.list, dispatchable, table)

    def execute(self):
        self.queue.call("ExecuteCommandLists", 1, pointers(self.list))
        self.fence_value += 1
        self.queue.call("Signal", self.fence, self.fence_value)
        if self.fence.call("GetCompletedValue") < self.fence_value:
            self.fence.call("SetEventOnCompletion", self.fence_value, None)

    def release(self):
        for p in reversed(self.made):
            p.release()


@pytest.fixture
def rig(fake_directml):  # noqa: F811
    fake = fake_directml()
    r = Rig()
    r.fake = fake
    return r


def add_sequence(rig, *, initialize=True, before=F.STATE_COPY_DEST, b_size=24, temp=None):
    """The whole sequence for ELEMENT_WISE_ADD; returns (readback, objects made)."""
    upload = rig.buffer(F.HEAP_UPLOAD, 512, F.STATE_GENERIC_READ)
    work = rig.buffer(F.HEAP_DEFAULT, 1024, F.STATE_COMMON, UAV)
    readback = rig.buffer(F.HEAP_READBACK, 24, F.STATE_COPY_DEST)
    rig.write(upload, A.tobytes(), 0)
    rig.write(upload, B.tobytes(), 256)
    compiled = rig.operator(add_desc())
    init = rig.initializer(compiled)
    init_table = rig.table(init, 0)
    table = rig.table(compiled, 4)
    table.call("BindInputs", 2, bindings((work, 0, 24), (work, 256, b_size)))
    table.call("BindOutputs", 1, bindings((work, 512, 24)))
    if temp is not None:
        table.call("BindTemporaryResource", bindings(temp))
    rig.set_heap()
    if initialize:
        rig.dispatch(init, init_table)
    rig.list.call("CopyBufferRegion", work, 0, upload, 0, 512)
    rig.transition(work, before, F.STATE_UNORDERED_ACCESS)
    rig.dispatch(compiled, table)
    rig.transition(work, F.STATE_UNORDERED_ACCESS, F.STATE_COPY_SOURCE)
    rig.list.call("CopyBufferRegion", readback, 0, work, 512, 24)
    rig.list.call("Close")
    return readback, work


# ------------------------------------------------------------------------------------------------ the adapter


def test_the_fake_adapter_is_listed_and_opened(fake_directml):  # noqa: F811
    fake = fake_directml(feature_level="5.1", float64=True)
    (a,) = adapters.devices()
    assert (a.device, a.feature_level, a.float16, a.float64, a.problem) == ("dml:0", FeatureLevel.FL_5_1, True, True,
                                                                           None)
    device = adapters.open_device("dml:0")
    assert device.d3d12_device.address == fake.d3d12.address and device.dml_device.address == fake.dml.address
    assert device.removed_reason() is None
    # QueryInterface: IDMLDevice1 from the same object; no ID3D12InfoQueue
    with device.dml_device.query_interface("IDMLDevice1") as d1:
        assert d1.address == fake.dml.address and fake.dml.refs == 2
    with pytest.raises(com.HResultError, match="E_NOINTERFACE"):
        device.d3d12_device.query_interface("ID3D12InfoQueue")
    assert fake.live() == [] and fake.violations == [] and fake.errors == []


def test_every_vtable_slot_is_filled(rig):
    add_sequence(rig)
    kinds = {type(o).__name__ for o in rig.fake.objects}
    assert kinds >= {"DXCoreAdapter", "D3D12Device", "DMLDevice", "Resource", "DescriptorHeap", "CommandAllocator",
                     "CommandList", "CommandQueue", "Fence", "CompiledOperator", "OperatorInitializer", "BindingTable",
                     "CommandRecorder", "Operator"}
    for obj in rig.fake.objects:
        assert all(obj.vtable), obj.label
    # prototypes come from the table: GetBindingProperties is the 24-byte hidden-pointer form
    assert com.call_form("IDMLCompiledOperator", "GetBindingProperties", "linux").struct is S.DML_BINDING_PROPERTIES


# ------------------------------------------------------------------------------------------------ the sequence


def test_element_wise_add_end_to_end(rig):
    readback, work = add_sequence(rig)
    for _ in range(2):  # a closed list runs again: buffers decayed to COMMON in between
        rig.execute()
        got = np.frombuffer(rig.read(readback, 24), np.float32).reshape(2, 3)
        np.testing.assert_array_equal(got, A + B)
    rig.fake.assert_clean()
    assert rig.fake.count("ExecuteCommandLists") == 2
    assert rig.fake.of(F.Resource)[1].state == F.STATE_COMMON
    rig.release()
    assert rig.fake.live() == []
    rig.fake.assert_no_leaks()


def test_binding_properties_and_buffers(rig, fake_directml):  # noqa: F811
    compiled = rig.operator(add_desc())
    props = compiled.call("GetBindingProperties")
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize, props.PersistentResourceSize) == (3, 0, 0)
    heap = rig.fake.of(F.DescriptorHeap)[0]
    assert rig.heap.call("GetCPUDescriptorHandleForHeapStart").ptr == heap.cpu_start != heap.gpu_start
    assert rig.increment == 32
    up = rig.buffer(F.HEAP_UPLOAD, 64, F.STATE_GENERIC_READ)
    assert up.call("GetDesc").Width == 64 and up.call("GetGPUVirtualAddress") != 0
    default = rig.buffer(F.HEAP_DEFAULT, 64, F.STATE_UNORDERED_ACCESS, UAV)
    assert rig.fake.of(F.Resource)[-1].state == F.STATE_COMMON  # buffers start COMMON
    ptr = c_void_p()
    assert default.call("Map", 0, None, byref(ptr), check_hr=False) == F.E_INVALIDARG
    with pytest.raises(com.HResultError, match="E_INVALIDARG"):
        rig.buffer(F.HEAP_DEFAULT, 0, F.STATE_COMMON)
    assert any("Width 0" in v for v in rig.fake.violations)


def test_sizes_option_temporary_resource(fake_directml):  # noqa: F811
    fake = fake_directml(sizes={"ELEMENT_WISE_ADD": (512, 0)})
    rig = Rig()
    temp = rig.buffer(F.HEAP_DEFAULT, 512, F.STATE_COMMON, UAV)
    readback, _ = add_sequence(rig, temp=(temp, 0, 512))
    rig.execute()
    np.testing.assert_array_equal(np.frombuffer(rig.read(readback, 24), np.float32).reshape(2, 3), A + B)
    fake.assert_clean()
    assert fake.of(F.CompiledOperator)[0].temporary_size == 512
    assert fake.of(F.Resource)[0].array(np.uint8).tolist() == [0xCD] * 512  # the dispatch scribbled on it


def test_missing_temporary_resource_is_reported(fake_directml):  # noqa: F811
    fake = fake_directml(sizes={"ELEMENT_WISE_ADD": (512, 0)})
    rig = Rig()
    add_sequence(rig)
    rig.execute()
    assert any("needs a temporary resource of 512 bytes; none is bound" in v for v in fake.violations)


def test_owned_by_dml_and_persistent_resource(fake_directml):  # noqa: F811
    fake = fake_directml()
    rig = Rig()
    upload = rig.buffer(F.HEAP_UPLOAD, 512, F.STATE_GENERIC_READ)
    work = rig.buffer(F.HEAP_DEFAULT, 1024, F.STATE_COMMON, UAV)
    persistent = rig.buffer(F.HEAP_DEFAULT, 256, F.STATE_COMMON, UAV)
    readback = rig.buffer(F.HEAP_READBACK, 24, F.STATE_COPY_DEST)
    rig.write(upload, A.tobytes(), 0)
    rig.write(upload, B.tobytes(), 256)
    compiled = rig.operator(add_desc(TensorFlags.OWNED_BY_DML))
    props = compiled.call("GetBindingProperties")
    assert props.PersistentResourceSize == 256 and props.RequiredDescriptorCount == 4
    init = rig.initializer(compiled)
    init_table = rig.table(init, 0)
    # the initializer's input: one DML_BUFFER_ARRAY_BINDING with B (from the upload heap) in slot 1
    array = (S.DML_BUFFER_BINDING * 2)(S.DML_BUFFER_BINDING(None, 0, 0), S.DML_BUFFER_BINDING(upload.address, 256, 24))
    arr = S.DML_BUFFER_ARRAY_BINDING(2, array)
    init_table.call("BindInputs", 1, byref(S.DML_BINDING_DESC(F.DML_BINDING_BUFFER_ARRAY, ctypes.addressof(arr))))
    init_table.call("BindOutputs", 1, bindings((persistent, 0, 256)))
    table = rig.table(compiled, 4)
    table.call("BindInputs", 2, bindings((work, 0, 24), None))  # B is OWNED_BY_DML: NONE at execution
    table.call("BindOutputs", 1, bindings((work, 512, 24)))
    table.call("BindPersistentResource", bindings((persistent, 0, 256)))
    rig.set_heap()
    rig.dispatch(init, init_table)
    rig.uav_barrier(persistent)
    rig.list.call("CopyBufferRegion", work, 0, upload, 0, 24)
    rig.transition(work, F.STATE_COPY_DEST, F.STATE_UNORDERED_ACCESS)
    rig.dispatch(compiled, table)
    rig.transition(work, F.STATE_UNORDERED_ACCESS, F.STATE_COPY_SOURCE)
    rig.list.call("CopyBufferRegion", readback, 0, work, 512, 24)
    rig.list.call("Close")
    rig.execute()
    np.testing.assert_array_equal(np.frombuffer(rig.read(readback, 24), np.float32).reshape(2, 3), A + B)
    fake.assert_clean()
    # a second list dispatches the operator alone (no initializer): its persistent resource must be intact
    rig.list.call("Reset", rig.alloc, None)
    rig.set_heap()
    rig.dispatch(compiled, table)
    rig.list.call("Close")
    rig.execute()
    fake.assert_clean()
    fake.of(F.Resource)[2].write(0, b"\0" * 16)  # something clobbers it
    rig.execute()
    assert any("changed since the initializer filled it" in v for v in fake.violations)


def test_graph_compile_and_dispatch(fake_directml):  # noqa: F811
    fake = fake_directml()
    rig = Rig()
    b = GraphBuilder()
    x, y = b.input("x"), b.input("y")
    s = b.add(add_desc(), a_tensor=x, b_tensor=y)
    r = b.add(dmlops.ActivationRelu(input_tensor=TD, output_tensor=TD), input_tensor=s.output_tensor)
    b.output("z", r.output_tensor)
    graph = b.build()
    ops = [rig.dml.create("CreateOperator", "IDMLOperator", marshal.marshal(n).pointer) for n in graph.nodes]
    m = marshal.marshal_graph(graph, [o.address for o in ops])
    with rig.dml.query_interface("IDMLDevice1") as d1:
        compiled = rig.keep(d1.create("CompileGraph", "IDMLCompiledOperator", m.pointer, 0))
    for o in ops:
        o.release()
    c = fake.of(F.CompiledOperator)[0]
    assert len(c.graph.nodes) == 2 and [n for n, _ in c.input_slots] == ["input0", "input1"]
    upload = rig.buffer(F.HEAP_UPLOAD, 512, F.STATE_GENERIC_READ)
    work = rig.buffer(F.HEAP_DEFAULT, 1024, F.STATE_COMMON, UAV)
    readback = rig.buffer(F.HEAP_READBACK, 24, F.STATE_COPY_DEST)
    rig.write(upload, A.tobytes(), 0)
    rig.write(upload, (-B).tobytes(), 256)
    init = rig.initializer(compiled)
    init_table, table = rig.table(init, 0), rig.table(compiled, 4)
    table.call("BindInputs", 2, bindings((work, 0, 24), (work, 256, 24)))
    table.call("BindOutputs", 1, bindings((work, 512, 24)))
    rig.set_heap()
    rig.dispatch(init, init_table)
    rig.list.call("CopyBufferRegion", work, 0, upload, 0, 512)
    rig.transition(work, F.STATE_COPY_DEST, F.STATE_UNORDERED_ACCESS)
    rig.dispatch(compiled, table)
    rig.transition(work, F.STATE_UNORDERED_ACCESS, F.STATE_COPY_SOURCE)
    rig.list.call("CopyBufferRegion", readback, 0, work, 512, 24)
    rig.list.call("Close")
    rig.execute()
    np.testing.assert_array_equal(np.frombuffer(rig.read(readback, 24), np.float32).reshape(2, 3),
                                  np.maximum(A - B, 0))
    fake.assert_clean()
    rig.release()
    fake.assert_no_leaks()


# ------------------------------------------------------------------------------------------------ violations


def test_wrong_state_before_is_a_violation(rig):
    add_sequence(rig, before=F.STATE_COMMON)  # the copy promoted the buffer to COPY_DEST
    rig.execute()
    (v,) = rig.fake.violations
    assert v.startswith("ExecuteCommandLists #1, ResourceBarrier[0] in command-list#")
    assert re.search(r": StateBefore COMMON but resource#\d+\(DEFAULT 1024 B\) is in state COPY_DEST$", v)


def test_too_small_binding_is_a_violation(rig):
    add_sequence(rig, b_size=16)
    (v,) = rig.fake.violations
    assert v.startswith("BindInputs on binding-table#")
    assert v.endswith("(ELEMENT_WISE_ADD)): input 1 (BTensor): SizeInBytes 16 < the tensor's TotalTensorSizeInBytes 24")


def test_missing_initializer_is_a_violation(rig):
    add_sequence(rig, initialize=False)
    rig.execute()
    (v,) = rig.fake.violations
    assert v.endswith("(ELEMENT_WISE_ADD) is dispatched before an operator initializer ran for it")


def test_create_operator_refusal(fake_directml):  # noqa: F811
    fake = fake_directml(refuse={"ELEMENT_WISE_ADD"})
    rig = Rig()
    with pytest.raises(com.HResultError, match=r"IDMLDevice::CreateOperator failed with HRESULT 0x80070057"):
        rig.operator(add_desc())
    assert fake.refused == ["CreateOperator(ELEMENT_WISE_ADD): refused by the fake's 'refuse' option"]
    rig.operator(dmlops.ActivationRelu(input_tensor=TD, output_tensor=TD))  # others are made


def test_list_misuse(rig):
    rig.list.call("Close")
    rig.set_heap()  # recording into a closed list
    assert rig.list.call("Close", check_hr=False) == F.E_FAIL
    assert any("recorded into the closed command-list#" in v for v in rig.fake.violations)
    rig.list.call("Reset", rig.alloc, None)
    rig.queue.call("ExecuteCommandLists", 1, pointers(rig.list))  # still open
    assert any("still open" in v for v in rig.fake.violations)
    rig.list.call("Close")
    rig.alloc.call("Reset")
    rig.queue.call("ExecuteCommandLists", 1, pointers(rig.list))
    assert any("was Reset after this list was recorded" in v for v in rig.fake.violations)


def test_descriptor_heap_not_set_and_missing_uav_barrier(rig):
    upload = rig.buffer(F.HEAP_UPLOAD, 512, F.STATE_GENERIC_READ)
    work = rig.buffer(F.HEAP_DEFAULT, 1024, F.STATE_COMMON, UAV)
    rig.write(upload, A.tobytes() + bytes(232) + B.tobytes())
    compiled = rig.operator(add_desc())
    init = rig.initializer(compiled)
    t_init, t1, t2 = rig.table(init, 0), rig.table(compiled, 3), rig.table(compiled, 6)
    t1.call("BindInputs", 2, bindings((work, 0, 24), (work, 256, 24)))
    t1.call("BindOutputs", 1, bindings((work, 512, 24)))
    t2.call("BindInputs", 2, bindings((work, 512, 24), (work, 256, 24)))  # reads what t1's dispatch writes
    t2.call("BindOutputs", 1, bindings((work, 768, 24)))
    rig.dispatch(init, t_init)  # no SetDescriptorHeaps yet
    rig.list.call("CopyBufferRegion", work, 0, upload, 0, 512)
    rig.transition(work, F.STATE_COPY_DEST, F.STATE_UNORDERED_ACCESS)
    rig.set_heap()
    rig.dispatch(compiled, t1)
    rig.dispatch(compiled, t2)  # no UAV barrier between
    rig.list.call("Close")
    rig.execute()
    v = rig.fake.violations
    assert any("descriptor heaps are not set" in x for x in v)
    assert any("input 0 (ATensor) resource#" in x and "no UAV barrier between" in x for x in v)
    # the numbers are still computed in order: (A + B) + B
    assert np.array_equal(rig.fake.of(F.Resource)[1].array(np.float32, 768, 6).reshape(2, 3), A + B + B)


def test_overlapping_binding_tables_are_reported(rig):
    work = rig.buffer(F.HEAP_DEFAULT, 1024, F.STATE_COMMON, UAV)
    compiled = rig.operator(add_desc())
    init = rig.initializer(compiled)
    t_init = rig.table(init, 0)
    t1, t2 = rig.table(compiled, 2), rig.table(compiled, 3)  # descriptors 2..4 and 3..5 overlap
    for t in (t1, t2):
        t.call("BindInputs", 2, bindings((work, 0, 24), (work, 256, 24)))
    t1.call("BindOutputs", 1, bindings((work, 512, 24)))
    rig.set_heap()
    rig.dispatch(init, t_init)
    rig.uav_barrier()
    rig.dispatch(compiled, t1)
    t2.call("BindOutputs", 1, bindings((work, 768, 24)))  # overwrites descriptors t1's dispatch uses
    rig.list.call("Close")
    rig.execute()
    assert any("changed after RecordDispatch" in v for v in rig.fake.violations)


def test_released_resource_before_execution(rig):
    readback, work = add_sequence(rig)
    rig.made.remove(work)
    work.release()
    rig.execute()
    assert any("was released before the command list ran" in v for v in rig.fake.violations)


def test_binding_rules(rig):
    upload = rig.buffer(F.HEAP_UPLOAD, 512, F.STATE_GENERIC_READ)
    work = rig.buffer(F.HEAP_DEFAULT, 64, F.STATE_COMMON)  # no ALLOW_UNORDERED_ACCESS
    compiled = rig.operator(add_desc())
    table = rig.table(compiled, 0)
    table.call("BindInputs", 1, bindings((upload, 8, 24)))
    table.call("BindOutputs", 1, bindings((work, 48, 24)))
    v = "\n".join(rig.fake.violations)
    assert "1 input bindings; compiled#" in v and "has 2 input slots (ATensor, BTensor" in v
    assert "output 0 (OutputTensor): [48, 72) runs past the 64 bytes" in v
    assert "must be a DEFAULT-heap buffer with ALLOW_UNORDERED_ACCESS" in v
    rig.fake.violations.clear()
    table.call("BindInputs", 2, bindings((upload, 8, 24), None))
    v = "\n".join(rig.fake.violations)
    assert "Offset 8 is not a multiple of 16" in v and "input 1 (BTensor) is a tensor but is bound as NONE" in v
    # a table too small for the dispatchable is refused
    with pytest.raises(com.HResultError, match="E_INVALIDARG"):
        rig.table(compiled, 0, size=2)
    assert any("SizeInDescriptors 2 < RequiredDescriptorCount 3" in x for x in rig.fake.violations)


def test_device_removed(fake_directml):  # noqa: F811
    fake = fake_directml(device_removed=True)
    rig = Rig()
    readback, _ = add_sequence(rig)
    rig.queue.call("ExecuteCommandLists", 1, pointers(rig.list))
    assert rig.d3d.call("GetDeviceRemovedReason", check_hr=False) == F.DXGI_ERROR_DEVICE_HUNG
    assert rig.dml.call("GetDeviceRemovedReason", check_hr=False) == F.DXGI_ERROR_DEVICE_HUNG
    assert rig.fence.call("GetCompletedValue") == F.UINT64_MAX
    assert rig.queue.call("Signal", rig.fence, 1, check_hr=False) == F.DXGI_ERROR_DEVICE_REMOVED
    device = adapters.open_device(0)
    assert device.removed_reason().startswith("GetDeviceRemovedReason: 0x887A0006 (DXGI_ERROR_DEVICE_HUNG")
    assert readback.call("Map", 0, None, byref(c_void_p()), check_hr=False) == F.DXGI_ERROR_DEVICE_REMOVED
    assert fake.of(F.Resource)[2].read(0, 24) == bytes(24)  # nothing ran
    fake.assert_clean()


def test_leaks_are_listed(rig):
    add_sequence(rig)
    rig.release()
    assert rig.fake.live() == []
    rig.d3d.create("CreateFence", "ID3D12Fence", 0, 0).detach()  # a reference nobody releases
    assert [o.KIND for o in rig.fake.live()] == ["fence"]
    with pytest.raises(AssertionError, match="1 objects not released"):
        rig.fake.assert_no_leaks()


def test_compute_off_checks_everything_and_leaves_the_outputs_alone(fake_directml):  # noqa: F811
    fake = fake_directml(compute=False)
    rig = Rig()
    rig.fake = fake
    readback, _ = add_sequence(rig)
    before = fake.seconds
    rig.execute()
    assert fake.seconds > before  # time inside the fake's COM methods is counted
    work = next(r for r in fake.of(F.Resource) if r.heap_type == F.HEAP_DEFAULT and r.width == 1024)
    np.testing.assert_array_equal(work.array(np.float32, 0, 6).reshape(2, 3), A)  # the copies ran, memory to memory
    np.testing.assert_array_equal(work.array(np.float32, 256, 6).reshape(2, 3), B)
    assert rig.read(readback, 24) == bytes(24)  # the dispatch wrote nothing
    fake.assert_clean()
    rig.release()


def test_compile_refuses_flags_that_are_not_dml_execution_flags(fake_directml):  # noqa: F811
    fake = fake_directml()
    rig = Rig()
    with pytest.raises(com.HResultError, match=r"::CompileOperator failed with HRESULT 0x80070057 \(E_INVALIDARG"):
        rig.operator(add_desc(), flags=8)
    assert fake.violations == ["CompileOperator: flags 0x8 are not DML_EXECUTION_FLAGS"]
    rig.operator(add_desc(), flags=7)
    assert [c.flags for c in fake.of(F.CompiledOperator)] == [7]
    rig.release()
