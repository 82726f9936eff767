"""What one call of a compiled operator costs on the native backend (issue 22, item 4), through tests/fake_directml.py.

A steady-state call with NumPy inputs makes the COM calls a C++ caller makes and no others: ExecuteCommandLists,
Signal and the fence wait (GetCompletedValue; SetEventOnCompletion when the GPU is not done, which never happens
in the synchronous fake). No CreateX, no Map/Unmap (staging buffers stay mapped), no Reset or re-recording: the
command list is recorded once. Host copies: each input once, from the caller's array straight into the mapped
upload buffer, and each output once, from the mapped readback buffer straight into a new array the caller owns;
tracemalloc shows that nothing tensor-sized is allocated besides the outputs (the old path made a bytes object per
input and two copies per output). Times are not asserted here: ``python -m benchmarks.run --backend directml
--fake-directml`` prints them. Nothing here runs DirectML.
"""
import gc
import tracemalloc

import numpy as np
import pytest

import dmlops
from dmlops import TensorDesc, compiled
from dmlops.backends.directml import adapters, runtime
from tests import fake_directml as F

pytestmark = pytest.mark.skipif(not F.SUPPORTED, reason=F.WHY_UNSUPPORTED)

# What a C++ caller makes per call, in order (the fake finishes every list at once, so the first wait succeeds).
CPP_CALLS = ["ID3D12CommandQueue::ExecuteCommandLists", "ID3D12CommandQueue::Signal", "ID3D12Fence::GetCompletedValue"]




def add(n: int):
    t = TensorDesc("FLOAT32", [n])
    return dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t)


def top_k(rows: int, width: int, k: int):
    """Two outputs of two data types: the k largest values (FLOAT32) and their indices (UINT32)."""
    return dmlops.TopK(input_tensor=TensorDesc("FLOAT32", [1, 1, rows, width]),
                       output_value_tensor=TensorDesc("FLOAT32", [1, 1, rows, k]),
                       output_index_tensor=TensorDesc("UINT32", [1, 1, rows, k]), axis=3, k=k)


def add_inputs(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"ATensor": rng.standard_normal(n, dtype=np.float32), "BTensor": rng.standard_normal(n, dtype=np.float32)}


def top_k_inputs(rows: int, width: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"InputTensor": rng.permutation(rows * width).astype(np.float32).reshape(1, 1, rows, width)}


CASES = {"ELEMENT_WISE_ADD": (lambda: add(8), lambda seed=0: add_inputs(8, seed)),
         "TOP_K": (lambda: top_k(3, 5, 2), lambda seed=0: top_k_inputs(3, 5, seed))}


def calls_of(f, fn) -> list[str]:
    """The COM methods ``fn()`` called, in order."""
    start = len(f.calls)
    fn()
    return [name for name, _ in f.calls[start:]]


# ------------------------------------------------------------------------------------------------ COM calls


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_steady_call_makes_only_the_com_calls_a_cpp_caller_makes(fake, case):
    f = fake()
    desc, inputs = CASES[case]
    op = dmlops.compile(desc(), "directml")
    want = dmlops.run(desc(), inputs(), backend="reference")
    first = calls_of(f, lambda: op(inputs()))
    assert first == CPP_CALLS  # compile did everything else: even the first call only submits
    for _ in range(3):
        got = {}
        assert calls_of(f, lambda: got.update(op(inputs()))) == CPP_CALLS
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])
    f.assert_clean()


def test_a_graph_call_makes_the_same_com_calls(fake):
    f = fake()
    t = TensorDesc("FLOAT32", [4])
    b = dmlops.GraphBuilder()
    x, y = b.input("x"), b.input("y")
    s = b.add(dmlops.ElementWiseAdd(a_tensor=t, b_tensor=t, output_tensor=t), a_tensor=x, b_tensor=y)
    b.output("sum", s["OutputTensor"])
    op = dmlops.compile(b.build(), "directml")
    feed = {"x": np.arange(4, dtype=np.float32), "y": np.ones(4, np.float32)}
    op(feed)
    assert calls_of(f, lambda: op(feed)) == CPP_CALLS
    np.testing.assert_array_equal(op(feed)["sum"], np.arange(4) + 1)
    f.assert_clean()


def test_replaced_staging_buffers_cost_one_re_recording_then_the_calls_are_minimal_again(fake):
    f = fake()
    small = dmlops.compile(add(8), "directml")
    small(add_inputs(8))
    big_n = 2 * runtime.STAGING_MIN_BYTES // 4  # inputs of 2 x 128 KiB: the shared staging buffers grow
    big = dmlops.compile(add(big_n), "directml")
    big_in = add_inputs(big_n, 1)
    np.testing.assert_array_equal(big(big_in)["OutputTensor"], big_in["ATensor"] + big_in["BTensor"])
    again = calls_of(f, lambda: small(add_inputs(8, 2)))
    assert again == ["ID3D12CommandAllocator::Reset", "ID3D12Device::CreateCommandList",
                     "ID3D12GraphicsCommandList::SetDescriptorHeaps", "ID3D12GraphicsCommandList::ResourceBarrier",
                     "ID3D12GraphicsCommandList::CopyBufferRegion", "ID3D12GraphicsCommandList::ResourceBarrier",
                     "IDMLCommandRecorder::RecordDispatch", "ID3D12GraphicsCommandList::ResourceBarrier",
                     "ID3D12GraphicsCommandList::ResourceBarrier", "ID3D12GraphicsCommandList::CopyBufferRegion",
                     "ID3D12GraphicsCommandList::ResourceBarrier", "ID3D12GraphicsCommandList::Close",
                     "ID3D12GraphicsCommandList::Release", *CPP_CALLS]
    ins = add_inputs(8, 3)
    out = {}
    assert calls_of(f, lambda: out.update(small(ins))) == CPP_CALLS
    np.testing.assert_array_equal(out["OutputTensor"], ins["ATensor"] + ins["BTensor"])  # through the new buffers
    f.assert_clean()


def test_device_buffer_inputs_record_their_own_list_and_numpy_calls_stay_minimal(fake):
    f = fake()
    op = dmlops.compile(add(8), "directml")
    ins = add_inputs(8)
    on_device = op(ins, outputs_on_device=True)["OutputTensor"]
    mixed = calls_of(f, lambda: op(ATensor=on_device, BTensor=ins["BTensor"]))
    assert "IDMLCommandRecorder::RecordDispatch" in mixed  # allowed: a device input needs its own list
    at = mixed.index(CPP_CALLS[0])
    assert mixed[at:at + 3] == CPP_CALLS
    assert calls_of(f, lambda: op(ins)) == CPP_CALLS
    f.assert_clean()


# ------------------------------------------------------------------------------------------------ host copies


def _mapped(f, heap: int) -> list[np.ndarray]:
    return [np.frombuffer(r.memory, np.uint8) for r in f.of(F.Resource) if r.heap_type == heap and r.refs > 0]


@pytest.mark.parametrize("case", ["ELEMENT_WISE_ADD", "TOP_K"])
def test_each_tensor_is_copied_once_and_nothing_tensor_sized_is_allocated_but_the_outputs(fake, case):
    """1 MiB tensors; the fake computes nothing (compute=False), so every host allocation during the call is
    dmlops's. Transient allocations (peak above what is left after the call) would be intermediate copies: the
    earlier code made a bytes object per input and read each output as bytes before copying it into an array."""
    f = fake(compute=False)
    if case == "ELEMENT_WISE_ADD":
        n = 1 << 18
        desc, feed = add(n), add_inputs(n)
    else:
        desc, feed = top_k(256, 1024, 256), top_k_inputs(256, 1024)
    op = dmlops.compile(desc, "directml")
    op(feed)
    tracemalloc.start()
    try:
        op(feed)
        out = None
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = op(feed)
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    outputs = sum(v.nbytes for v in out.values())
    assert outputs >= 1 << 19
    assert outputs <= after - before < outputs + (16 << 10)  # the outputs' arrays, and small objects
    assert peak - after < 16 << 10  # nothing tensor-sized came and went: no intermediate copy
    uploads = _mapped(f, F.HEAP_UPLOAD)
    for name, value in feed.items():  # each input arrived in the upload buffer (copied once, from its array)
        raw = value.view(np.uint8).reshape(-1)
        assert any(u[k:k + raw.size].tobytes() == raw.tobytes()
                   for u in uploads for k in range(0, u.size - raw.size + 1, 256)), name
    f.assert_clean()


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_own_their_memory_and_an_earlier_output_never_changes(fake, case):
    f = fake()
    desc, inputs = CASES[case]
    op = dmlops.compile(desc(), "directml")
    first_in, second_in = inputs(0), inputs(1)
    first = op(first_in)
    kept = {n: v.copy() for n, v in first.items()}
    second = op(second_in)
    readbacks = _mapped(f, F.HEAP_READBACK)
    assert readbacks
    for name in first:
        for v in (first[name], second[name]):
            assert v.flags.owndata and v.flags.writeable and v.flags.c_contiguous and v.base is None
            assert not any(np.shares_memory(v, r) for r in readbacks)
        np.testing.assert_array_equal(first[name], kept[name])  # the later call left it alone
        assert not np.shares_memory(first[name], second[name])
    want = dmlops.run(desc(), second_in, backend="reference")
    for name in second:
        np.testing.assert_array_equal(second[name], want[name])
        second[name][...] = 0  # a caller writing into an output changes nothing the next call returns
    third = op(second_in)
    for name in third:
        np.testing.assert_array_equal(third[name], want[name])
    f.assert_clean()


def test_a_strided_output_is_a_view_of_an_array_the_caller_owns(fake):
    f = fake()
    packed = TensorDesc("FLOAT32", [2, 3])
    transposed = TensorDesc("FLOAT32", [2, 3], strides=[1, 2])  # column-major buffer
    op = dmlops.compile(dmlops.ElementWiseIdentity(input_tensor=packed, output_tensor=transposed), "directml")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    first = op(input_tensor=x)["OutputTensor"]
    np.testing.assert_array_equal(first, x)
    op(input_tensor=-x)
    np.testing.assert_array_equal(first, x)  # unchanged by the later call
    assert not any(np.shares_memory(first, r) for r in _mapped(f, F.HEAP_READBACK))
    f.assert_clean()


# ------------------------------------------------------------------------------------------------ the benchmark


def test_the_benchmark_prints_dmlops_cost_per_call_through_the_fake(capsys):
    """``python -m benchmarks.run --backend directml --fake-directml``: a row per case with dmlops's Python time,
    the COM calls and host copies per call (the times are printed, not judged here)."""
    from benchmarks import run

    export, state = adapters._export, adapters._state
    rows = {}
    for case in ("ELEMENT_WISE_ADD 8", "TOP_K"):
        assert run.main(["--backend", "directml", "--fake-directml", "--quick", "--case", case]) == 0
        out = capsys.readouterr().out
        assert "| case | dmlops Python / call | fake / call | COM calls / call | host copies / call |" in out
        assert "COM calls of one call: ExecuteCommandLists Signal GetCompletedValue\n" in out
        rows.update({line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in out.splitlines()
                     if " us | " in line})
    assert set(rows) == {"ELEMENT_WISE_ADD 8", "TOP_K 3x5 k=2 (2 outputs)"}
    assert rows["ELEMENT_WISE_ADD 8"][3:5] == ["3", "2 in + 1 out"]
    assert rows["TOP_K 3x5 k=2 (2 outputs)"][3:5] == ["3", "1 in + 2 out"]
    for cells in rows.values():
        assert cells[1].endswith(" us") and cells[6] == "<= 50 us"
        assert int(cells[5].removesuffix(" B")) < 16 << 10  # small objects only: no tensor was copied twice
    assert (adapters._export, adapters._state) == (export, state)  # the fake was taken away again


def test_the_fake_benchmark_is_for_the_directml_backend(capsys):
    from benchmarks import run

    with pytest.raises(SystemExit) as exit_info:
        run.main(["--fake-directml", "--quick"])
    assert exit_info.value.code == 2
    assert "--fake-directml measures the native backend: use it with --backend directml" in capsys.readouterr().err
