"""The native backend's memory (issue 23, items 1 to 3), through tests/fake_directml.py, which charges a
shader-visible descriptor heap what real DirectML charged (488 MiB, whatever its size) and a buffer its width.

One shader-visible descriptor heap per device, sub-allocated per compiled operator and grown by doubling; staging
buffers shared per device; the compile cache bounded by device memory; every operator of the selftest in one
process; and the native backend as the default wherever a DirectML device exists. Nothing here runs DirectML.
"""
import gc
import json
import math

import numpy as np
import pytest

import dmlops
from dmlops import compiled, selftest
from dmlops.backends.directml import adapters, runtime
from dmlops.errors import DmlOpsError
from dmlops.types import ScaleBias, TensorDesc
from tests import fake_directml as F

pytestmark = pytest.mark.skipif(not F.SUPPORTED, reason=F.WHY_UNSUPPORTED)

GB = 10**9
X = np.arange(4, dtype=np.float32)




def identity(k: int, n: int = 4):
    """A distinct descriptor per k: y = x + k, n FLOAT32 elements."""
    t = TensorDesc("FLOAT32", [n])
    return dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(1.0, float(k)))


# 4 FLOAT32 elements: a 256-byte slot each for input and output; descriptors: the initializer's 2 (one operator)
# and the operator's 2 (its input and output)
IDENTITY_BYTES = 2 * 256 + 4 * F.DESCRIPTOR_INCREMENT


# ------------------------------------------------------------------------------------------------ descriptor heaps


def test_300_distinct_compiled_operators_stay_under_1_gb(fake):
    """Issue 23: one shader-visible heap per compiled operator cost 488 MB each on real DirectML; 45 operators
    filled 24 GB. All 300 are held here, so none could give anything back."""
    f = fake()
    ops = []
    for k in range(300):
        ops.append(dmlops.compile(identity(k), "directml"))
        assert ops[-1](input_tensor=X)["OutputTensor"].tolist() == (X + k).tolist()
    assert f.peak_bytes < GB and f.live_bytes < GB
    assert f.count("CreateDescriptorHeap") == 1  # O(log n): one heap holds thousands of operators
    assert f.bytes_of(F.DescriptorHeap) == F.SHADER_VISIBLE_HEAP_BYTES
    uploads = [r for r in f.of(F.Resource) if r.heap_type == F.HEAP_UPLOAD]
    readbacks = [r for r in f.of(F.Resource) if r.heap_type == F.HEAP_READBACK]
    assert len(uploads) == len(readbacks) == 1  # staging shared by all 300, not a pair each
    assert ops[0](input_tensor=X)["OutputTensor"].tolist() == X.tolist()  # the first still runs
    assert {op.device_bytes for op in ops} == {IDENTITY_BYTES}
    memory = runtime.queue(0).memory()
    assert memory["programs"] == 300 and memory["program_bytes"] == 300 * IDENTITY_BYTES
    assert memory["descriptors_in_use"] == 300 * 4 and memory["descriptor_heaps"] == 1
    f.assert_clean()


def test_the_heap_grows_by_doubling_and_an_old_heap_goes_with_its_last_range(fake, monkeypatch):
    f = fake()
    monkeypatch.setattr(runtime, "FIRST_HEAP_DESCRIPTORS", 8)  # 2 operators per first heap
    ops = [dmlops.compile(identity(k), "directml") for k in range(300)]  # 1,200 descriptors, all held
    assert [h.count for h in f.heaps] == [8 * 2**i for i in range(8)]  # 8 + 16 + ... + 1024 >= 1,200
    assert f.count("CreateDescriptorHeap") <= math.ceil(math.log2(300))
    # every operator still runs: each list binds the heap its own tables are in
    for k in (0, 1, 2, 5, 100, 299):
        assert ops[k](input_tensor=X)["OutputTensor"].tolist() == (X + k).tolist()
    f.assert_clean()
    # the operators of the first heaps go: those heaps are released, the newest stays
    del ops[:14]  # the first 3 heaps' operators (2 + 4 + 8; the cache holds only the newest 256)
    gc.collect()
    alive = [h.count for h in f.heaps if h.refs > 0]
    assert alive == [64, 128, 256, 512, 1024]
    del ops
    compiled.clear_cache()
    gc.collect()
    assert [h.count for h in f.heaps if h.refs > 0] == [1024]
    assert runtime.queue(0).memory()["descriptors_in_use"] == 0
    assert f.bytes_of(F.DescriptorHeap) == F.SHADER_VISIBLE_HEAP_BYTES
    # the freed ranges are reused: 256 new operators fit in the newest heap
    again = [dmlops.compile(identity(1000 + k), "directml") for k in range(256)]
    assert f.count("CreateDescriptorHeap") == 8 and again[-1](input_tensor=X)["OutputTensor"][0] == 1255
    f.assert_clean()


def test_release_gives_the_memory_back_now_and_the_operator_refuses_to_run(fake):
    f = fake()
    op = dmlops.compile(identity(1), "directml")
    q = runtime.queue(0)
    before = f.live_bytes
    assert q.memory()["descriptors_in_use"] == 4 and compiled.cached_count() == 1
    op.release()
    assert f.live_bytes == before - 2 * 256  # its io buffer; the heap and staging are the device's
    assert q.memory()["descriptors_in_use"] == 0 and q.memory()["programs"] == 0
    assert compiled.cached_count() == 0 and op.device_bytes == 0
    with pytest.raises(DmlOpsError, match=r"^ELEMENT_WISE_IDENTITY: this compiled operator was released "
                                          r"\(release\(\)\); compile it again\.$"):
        op(input_tensor=X)
    again = dmlops.compile(identity(1), "directml")
    assert again is not op and again(input_tensor=X)["OutputTensor"].tolist() == (X + 1).tolist()
    f.assert_clean()


def test_an_operator_nobody_holds_gives_its_descriptors_back_when_the_cache_forgets_it(fake):
    fake()
    dmlops.compile(identity(1), "directml")
    q = runtime.queue(0)
    assert q.memory()["descriptors_in_use"] == 4
    compiled.clear_cache()  # no gc.collect(): a Program is in no reference cycle, so it goes at once
    assert q.memory()["descriptors_in_use"] == 0 and q.memory()["programs"] == 0


# ------------------------------------------------------------------------------------------------ staging


def test_staging_is_shared_and_grows_with_use(fake):
    f = fake()
    small = dmlops.compile(identity(1), "directml")
    assert small(input_tensor=X)["OutputTensor"].tolist() == (X + 1).tolist()
    q = runtime.queue(0)
    first = q.staging.upload
    assert first is not None and first.size == runtime.STAGING_MIN_BYTES
    n = 1 << 15  # 128 KiB per tensor: more than the first staging buffers hold
    big = dmlops.compile(identity(2, n), "directml")
    y = np.arange(n, dtype=np.float32)
    assert big(input_tensor=y)["OutputTensor"].tolist() == (y + 2).tolist()
    assert q.staging.upload is not first and q.staging.upload.size == 1 << 17
    assert first.resource.address is None  # the replaced buffer is released at once
    # the small operator's list copied from the released buffers: it is recorded again, once
    lists = f.count("CreateCommandList")
    assert small(input_tensor=X)["OutputTensor"].tolist() == (X + 1).tolist()
    assert small(input_tensor=X)["OutputTensor"].tolist() == (X + 1).tolist()
    assert f.count("CreateCommandList") == lists + 1
    live = [r for r in f.of(F.Resource) if r.heap_type in (F.HEAP_UPLOAD, F.HEAP_READBACK) and r.refs > 0]
    assert sorted(r.width for r in live) == [1 << 17, 1 << 17]
    dev = big(input_tensor=y, outputs_on_device=True)["OutputTensor"]
    assert dev.numpy().tolist() == (y + 2).tolist()  # read back through the shared readback buffer
    f.assert_clean()


def test_an_operator_beyond_the_staging_limit_has_its_own(fake, monkeypatch):
    f = fake()
    monkeypatch.setattr(runtime, "STAGING_POOL_LIMIT", 1 << 16)
    n = 1 << 15  # 128 KiB per tensor
    op = dmlops.compile(identity(3, n), "directml")
    y = np.arange(n, dtype=np.float32)
    assert op(input_tensor=y)["OutputTensor"].tolist() == (y + 3).tolist()
    assert runtime.queue(0).staging.nbytes() == 0  # the shared ones were never needed
    assert op.device_bytes == 2 * (1 << 17) + 2 * (1 << 17) + 4 * F.DESCRIPTOR_INCREMENT
    assert "own upload buffer 128.0 KiB, own readback buffer 128.0 KiB" in op.notes[2]
    f.assert_clean()


# ------------------------------------------------------------------------------------------------ the compile cache


def test_the_cache_is_bounded_by_device_memory(fake):
    fake()
    compiled.set_cache_budget(3 * IDENTITY_BYTES)
    ops = [dmlops.compile(identity(k), "directml") for k in range(5)]
    assert compiled.cached_count() == 3 and compiled.cached_bytes() == 3 * IDENTITY_BYTES
    assert dmlops.compile(identity(4), "directml") is ops[4] and dmlops.compile(identity(1), "directml") is not ops[1]
    assert ops[0](input_tensor=X)["OutputTensor"].tolist() == X.tolist()  # forgotten, still held: still runs
    q = runtime.queue(0)
    assert q.memory()["programs"] == 6  # 5 held here, the rebuilt identity(1) in the cache
    del ops
    assert q.memory()["programs"] == 3  # the ones only the cache holds
    compiled.set_cache_budget(IDENTITY_BYTES)  # shrinks at once
    assert compiled.cached_count() == 1 and q.memory()["programs"] == 1
    compiled.set_cache_budget(0)
    dmlops.compile(identity(9), "reference")
    assert compiled.cached_count() == 1  # what holds no device memory is bounded by count only
    with pytest.raises(DmlOpsError, match=r"^set_cache_budget: expected a whole number of bytes >= 0; got -1\.$"):
        compiled.set_cache_budget(-1)
    assert compiled.DEFAULT_CACHE_BUDGET == 1 << 30


# ------------------------------------------------------------------------------------------------ the default backend


def test_the_default_backend_is_directml_where_a_directml_device_exists(fake):
    f = fake()
    op = dmlops.compile(identity(1))
    assert (op.backend, op.device) == ("directml", "dml:0")
    assert dmlops.compile(identity(1), "directml") is op
    assert dmlops.run(identity(1), input_tensor=X)["OutputTensor"].tolist() == (X + 1).tolist()
    assert compiled.cached_count() == 1  # run took the same compiled operator
    assert "semantics are DirectML's own" in op.notes[1]
    assert dmlops.compile(identity(1), device="dml:0") is op
    assert dmlops.compile(identity(1), device="cpu").backend == "onnxruntime"  # asked for the CPU
    assert compiled.default_backend("dml:1") == "onnxruntime"  # no native dml:1 here: ONNX Runtime reports on it
    assert f.count("CompileOperator") == 1


def test_the_default_backend_is_onnxruntime_without_directml(monkeypatch):
    from dmlops.backends.directml.adapters import Adapter

    compiled.clear_cache()
    monkeypatch.setattr(adapters, "_state", {"adapters": [], "devices": {}, "reason": "no DirectML here"})
    op = dmlops.compile(identity(1))
    assert op.backend == "onnxruntime"
    no_device = Adapter(0, "An NPU", "vendor 0x1234", 0x1234, 0, None, False, False, False, "DMLCreateDevice failed")
    monkeypatch.setattr(adapters, "_state", {"adapters": [no_device], "devices": {}, "reason": None})
    assert compiled.default_backend() == "onnxruntime"  # an adapter without a DirectML device does not count
    compiled.clear_cache()


# ------------------------------------------------------------------------------------------------ selftest


def test_the_native_selftest_completes_every_operator_in_one_process(fake, tmp_path):
    """Issue 23: on real DirectML the selftest ended with SIGSEGV after 4 operators under a 16 GB limit."""
    f = fake()
    lines, report = [], tmp_path / "native.json"
    code = selftest.main(["directml:dml:0"], None, str(report), out=lines.append)
    rows = [l for l in lines[2:] if l.split()[1:2] == ["directml:dml:0"]]
    assert [r.split()[0] for r in rows] == sorted(dmlops.schema.all_schemas())  # all 177, in one process
    assert len(rows) == 177
    doc = json.loads(report.read_text())
    assert doc["totals"]["error"] == 0 and code in (0, 1)  # a mismatch is the reference's, not the plumbing's
    assert f.peak_bytes < GB and f.count("CreateDescriptorHeap") == 1
    memory = doc["memory"]["directml:dml:0"]
    assert len(memory["operators"]) == 177 and all(n > 0 for n in memory["operators"].values())
    assert memory["device"]["descriptor_heaps"] == 1
    assert lines[-1].startswith("directml:dml:0 device memory: ")
    f.assert_clean()
