"""The compile cache is bounded (least recently used first out) and ONNX Runtime sessions add no threads. The bound by
device memory (the native backend's) is tested with the fake DirectML in tests/test_directml_memory.py.

Counts, not times: thousands of distinct compiled descriptors must leave the cache at its size and the process's
thread count where it was.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import dmlops
from dmlops import compiled
from dmlops.types import ScaleBias, TensorDesc


def identity(k: int):
    t = TensorDesc("FLOAT32", [4])
    return dmlops.ElementWiseIdentity(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(1.0, float(k)))


@pytest.fixture
def small_cache():
    compiled.clear_cache()
    yield
    compiled.set_cache_size(compiled.DEFAULT_CACHE_SIZE)
    compiled.set_cache_budget(compiled.DEFAULT_CACHE_BUDGET)
    compiled.clear_cache()


def test_the_cache_keeps_the_most_recently_used(small_cache):
    compiled.set_cache_size(3)
    ops = [dmlops.compile(identity(k), "reference") for k in range(3)]
    assert dmlops.compile(identity(0), "reference") is ops[0]  # 0 is now the most recently used
    dmlops.compile(identity(3), "reference")  # evicts 1, the least recently used
    assert compiled.cached_count() == 3
    assert dmlops.compile(identity(0), "reference") is ops[0]
    assert dmlops.compile(identity(2), "reference") is ops[2]
    assert dmlops.compile(identity(1), "reference") is not ops[1]  # rebuilt
    x = np.arange(4, dtype=np.float32)
    assert ops[1](input_tensor=x)["OutputTensor"].tolist() == (x + 1).tolist()  # a forgotten operator still runs


def test_set_cache_size_shrinks_at_once_and_refuses_nonsense(small_cache):
    for k in range(5):
        dmlops.compile(identity(k), "reference")
    assert compiled.cached_count() == 5
    compiled.set_cache_size(2)
    assert compiled.cached_count() == 2 and compiled.cache_size() == 2
    compiled.set_cache_size(0)
    assert compiled.cached_count() == 0
    assert dmlops.compile(identity(7), "reference") is not dmlops.compile(identity(7), "reference")
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(dmlops.DmlOpsError, match=r"^set_cache_size: expected a whole number >= 0; got "):
            compiled.set_cache_size(bad)


def test_set_cache_budget_refuses_nonsense_and_reports_its_bytes(small_cache):
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(dmlops.DmlOpsError, match=r"^set_cache_budget: expected a whole number of bytes >= 0; got "):
            compiled.set_cache_budget(bad)
    assert compiled.cache_budget() == compiled.DEFAULT_CACHE_BUDGET == 1 << 30
    dmlops.compile(identity(1), "reference")
    assert compiled.cached_bytes() == 0  # the reference backend's operators hold no device memory dmlops counts
    assert dmlops.compile(identity(1), "reference").device_bytes is None


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through Linux's /proc")
def test_thousands_of_onnxruntime_sessions_stay_bounded_in_threads_and_entries(small_cache):
    compiled.set_cache_size(64)
    x = np.ones(4, np.float32)
    dmlops.compile(identity(-1), "onnxruntime")(input_tensor=x)
    before = _threads()
    for k in range(2000):
        out = dmlops.compile(identity(k), "onnxruntime")(input_tensor=x)
        if k % 500 == 0:
            assert out["OutputTensor"].tolist() == [1.0 + k] * 4
            assert _threads() <= before + 2
    assert compiled.cached_count() == 64
    assert _threads() <= before + 2  # one pool per session would be 2,000 threads


def test_the_callers_own_onnxruntime_sessions_keep_working():
    """dmlops must not change process-wide ONNX Runtime state (global thread pools would make every later
    session with default options fail)."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    dmlops.run(identity(1), input_tensor=np.ones(4, np.float32), backend="onnxruntime")
    v = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [v],
                                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]),
                              opset_imports=[helper.make_opsetid("", 18)], ir_version=9)
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.ones(1, np.float32)})[0].tolist() == [1.0]


def test_small_models_run_on_the_calling_thread_and_large_ones_get_a_pool():
    """A pool per small session would be threads that stay for nothing; a large GEMM is twice as fast with the
    default pool on 2 cores (the constant's comment). Nothing spins either way."""
    import onnxruntime as ort

    from dmlops.backends.onnxruntime import PARALLEL_ELEMENTS, session_config

    small, _ = session_config("cpu", ort, PARALLEL_ELEMENTS - 1)
    large, _ = session_config("cpu", ort, PARALLEL_ELEMENTS)
    assert small.intra_op_num_threads == 1 and large.intra_op_num_threads == 0  # 0: ONNX Runtime's default
    assert small.inter_op_num_threads == large.inter_op_num_threads == 1
    for options in (small, large):
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
