"""dmlops on torch-directml as it really behaves (issue 23, items 4 to 6), through tests/torch_directml_double.py.

First the double itself against what real torch-directml did (torch_directml_facts.md and the selftest's rows);
then dmlops's workarounds for what torch-directml computes wrong; then every sample (FLOAT16 variants too) and every
executed DirectML vector through ``dmlops.compile(desc, backend="torch", device="dml")``, the real code path
reaching the double as ``torch_directml``, under a TorchDispatchMode recording each aten call: every case is right
within selftest's tolerances, or refused at compile time naming the operator, the field, the reason and
backend="directml", or refused at run time for a value its carrier cannot hold, naming the element. No float64
anywhere, no aten op outside torch-directml's registered list.
"""
import re
import warnings

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import dmlops
from tests import torch_directml_double as dd
from dmlops import selftest
from dmlops.backends.torch_directml_ops import BITS_OPS, MAX_RANK, runs_on_directml, workarounds
from dmlops.graph import GraphDesc
from dmlops.lower import runnable
from dmlops.ops import module

T = dmlops.TensorDesc
aten = torch.ops.aten


@pytest.fixture
def dml():
    with dd.installed() as device:
        yield device.torch_device


def on(t, dml):
    return t.to(dml)


# ----------------------------------------------------------------------------------------------- the double: facts.md
def test_the_double_has_no_storage_data_pointer_or_numpy_view_as_recorded(dml):
    x = on(torch.arange(12, dtype=torch.float32).reshape(3, 4), dml)
    assert x.device == torch.device("privateuseone", 0)
    with pytest.raises(NotImplementedError, match=r"^Cannot access storage of OpaqueTensorImpl$"):
        x.untyped_storage()
    with pytest.raises(RuntimeError, match=r"^Cannot access data pointer of Tensor that doesn't have storage$"):
        x.data_ptr()
    with pytest.raises(TypeError, match=r"^can't convert privateuseone:0 device type tensor to numpy\. Use "
                                        r"Tensor\.cpu\(\)"):
        x.numpy()
    with pytest.raises(TypeError, match="can't convert privateuseone:0"):
        np.asarray(x)
    assert (x.stride(), x.is_contiguous(), x.storage_offset()) == ((4, 1), True, 0)
    assert x.as_strided((2, 2), (4, 1)).cpu().tolist() == [[0, 1], [4, 5]]
    assert x.view(4, 3).cpu().tolist() == torch.arange(12.).reshape(4, 3).tolist()
    assert x.t().contiguous().cpu().tolist() == torch.arange(12.).reshape(3, 4).t().tolist()
    assert x.clone().cpu().tolist() == torch.arange(12.).reshape(3, 4).tolist()


def test_the_double_computes_nothing_in_float64_but_moves_it(dml):
    with pytest.raises(RuntimeError, match=r"^The GPU device does not support Double \(Float64\) operations!$"):
        on(torch.ones(2), dml).to(torch.float64)
    with pytest.raises(RuntimeError, match="does not support Double"):
        on(torch.ones(2, dtype=torch.float64), dml) + 1
    with pytest.raises(RuntimeError, match="does not support Double"):  # ACOS, LSTM, ...: 1.0 - x
        1.0 - on(torch.ones(2), dml)
    # FILL_VALUE_CONSTANT float64 ran: a float64 moved there and back.
    assert on(torch.tensor([1 + 2**-40], dtype=torch.float64), dml).cpu().item() == 1 + 2**-40


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_unsigned_tensors_abort_the_double_loudly(dml, dtype):
    with pytest.raises(dd.DeviceAbort, match=f"aborts the process on {str(dtype)[6:]} tensors"):
        on(torch.ones(2, dtype=dtype), dml)
    assert not issubclass(dd.DeviceAbort, Exception)  # no `except Exception` turns it into a result


def test_the_double_computes_integers_as_recorded(dml):
    u8 = lambda *v: on(torch.tensor(v, dtype=torch.uint8), dml)  # noqa: E731
    assert (u8(250, 3) + u8(10, 1)).cpu().tolist() == [4, 4]
    assert (u8(2) - u8(3)).cpu().tolist() == [2]
    # SUBTRACT int_uint8 / edge_uint8_underflow_wraps: DirectML 2, 5, 255, 251; torch-directml 5, 9, 0, 5.
    assert (u8(5, 9, 0, 5) - u8(3, 4, 1, 10)).cpu().tolist() == [5, 9, 0, 5]
    i32 = on(torch.tensor([-2**31, 2**31 - 1], dtype=torch.int32), dml)
    assert (-i32).cpu().tolist() == [2**31 - 1, -2**31]  # NEGATE int32_3x4x5
    big = on(torch.tensor([2**40 + 1]), dml)
    assert big.cpu().tolist() == [2**40 + 1] and (big + 1).cpu().tolist() == [2]
    assert (-on(torch.tensor([0.0]), dml)).cpu().item() == 0.0 and not (-on(torch.tensor([0.0]), dml)).cpu().signbit()
    i8 = on(torch.tensor([0, 2, 3, 100], dtype=torch.int8), dml)
    assert i8.clamp(min=2).cpu().tolist() == [2, 2, 2, 2]  # THRESHOLD int_int8
    div = torch.div(on(torch.tensor([-2**31], dtype=torch.int32), dml), on(torch.tensor([-1], dtype=torch.int32),
                                                                           dml), rounding_mode="trunc")
    assert div.cpu().tolist() == [2**31 - 1]  # DIVIDE edge_int32_divide_truncation_and_by_zero


def test_the_double_runs_what_torch_directml_did(dml):
    assert on(torch.ones([1] * 6), dml).add(1).cpu().sum().item() == 2  # rank-6 add
    ones = torch.nn.functional.conv1d(on(torch.ones(1, 1, 5), dml), on(torch.ones(1, 1, 3), dml))
    assert ones.cpu().tolist() == [[[3, 3, 3]]]
    with pytest.warns(UserWarning, match=r"^The operator 'aten::elu' is not currently supported on the DML backend "
                                         r"and will fall back to run on the CPU"):
        torch.nn.functional.elu(on(torch.ones(2), dml))
    # PADDING then PADDING1 of the same shape: the first value stays compiled in.
    x = on(torch.ones(1, 2), dml)
    assert torch.constant_pad_nd(x, [1, 0], -7.5).cpu()[0, 0].item() == -7.5
    assert torch.constant_pad_nd(x, [1, 0], 9.0).cpu()[0, 0].item() == -7.5
    with pytest.raises(RuntimeError, match=r"^Unknown error -2147024809$"):
        torch.nn.functional.conv_transpose2d(on(torch.ones(1, 4, 3, 3), dml), on(torch.ones(4, 1, 2, 2), dml),
                                             groups=2, dilation=2)
    with pytest.raises(RuntimeError, match="-2147024809"):
        on(torch.ones(1, 1, 2, 1, 2), dml).index_select(4, on(torch.tensor([0, 0]), dml))


# ----------------------------------------------------------------------------------------------- workarounds
def _same(got, want):
    assert got.dtype == want.dtype
    g, w = got.cpu(), want
    assert g.shape == w.shape
    if g.is_floating_point():
        assert torch.equal(g.isnan(), w.isnan()) and torch.equal(g.nan_to_num(), w.nan_to_num())
        assert torch.equal(g.signbit(), w.signbit())  # signed zeros too
    else:
        assert torch.equal(g, w)


SPECIALS = torch.tensor([0.0, -0.0, 1.5, -2.5, float("inf"), float("-inf")])


@pytest.mark.parametrize("case", [
    lambda a, b: -a, lambda a, b: a - b, lambda a, b: b - a, lambda a, b: a - 0.0, lambda a, b: 1.0 - a,
    lambda a, b: torch.rsub(a, b), lambda a, b: a.sub(b, alpha=2)], ids=["neg", "sub", "sub_rev", "sub_0",
                                                                       "rsub_float", "rsub", "sub_alpha"])
def test_float_negation_and_subtraction_keep_signed_zeros_on_torch_directml(dml, case):
    a, b = SPECIALS, SPECIALS.flip(0)
    with workarounds():
        got = case(on(a, dml), on(b, dml))
    _same(got, case(a, b))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
def test_integer_negation_and_subtraction_wrap_on_torch_directml(dml, dtype):
    info = torch.iinfo(dtype)
    a = torch.tensor([info.min, info.max, 0, 5, 3], dtype=dtype)
    b = torch.tensor([1, info.max, 1, 10, 3], dtype=dtype)
    for case in (lambda x, y: x - y, lambda x, y: x - 1, lambda x, y: 3 - x):
        with workarounds():
            got = case(on(a, dml), on(b, dml))
        _same(got, case(a, b))
    if dtype != torch.uint8:
        with workarounds():
            got = -on(a, dml)
        _same(got, -a)


def test_int8_clamps_with_one_bound_on_torch_directml(dml):
    x = torch.tensor([-5, -3, 0, 7, 100, -128, 127], dtype=torch.int8)
    for case in (lambda v: v.clamp(min=-3), lambda v: v.clamp(max=3), lambda v: v.clamp(min=2),
                 lambda v: torch.clamp_min(v, 1), lambda v: torch.clamp_max(v, -2), lambda v: v.clamp(-2, 3)):
        with workarounds():
            got = case(on(x, dml))
        _same(got, case(x))


@pytest.mark.parametrize("pad", [[1, 2], [0, 0], [-1, 2], [2, -1, 1, 1], [0, 0, 0, 0]])
def test_constant_padding_never_uses_torch_directml_s_cached_kernel(dml, pad):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    for value in (-7.5, -0.0, 9.0):
        with workarounds():
            got = torch.constant_pad_nd(on(x, dml), pad, value)
        _same(got, torch.constant_pad_nd(x, pad, value))
    assert not dd.DEVICE.pad_values  # constant_pad_nd itself never ran


def test_convolutions_torch_directml_refuses_or_reads_wrongly_are_computed_through_plain_ones(dml):
    g = torch.Generator().manual_seed(5)
    x, w, bias = torch.randn(2, 4, 3, 4, generator=g), torch.randn(4, 3, 3, 2, generator=g), torch.randn(6,
                                                                                                       generator=g)
    kw = dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 0), groups=2, dilation=(2, 1))
    with workarounds():
        got = torch.nn.functional.conv_transpose2d(on(x, dml), on(w, dml), on(bias, dml), **kw)
    torch.testing.assert_close(got.cpu(), torch.nn.functional.conv_transpose2d(x, w, bias, **kw))
    # An infinite input reaches only the outputs its taps write: nothing multiplies the dilation's gaps (zeros
    # written into the filter between its taps made NaN there).
    x[0, 1, 1, 2] = float("inf")
    for dilation in ((2, 1), (3, 2)):
        for groups in (1, 2):
            k = dict(kw, dilation=dilation, groups=groups)
            wg = w if groups == 2 else torch.cat([w, w], 1)
            with workarounds():
                got = torch.nn.functional.conv_transpose2d(on(x, dml), on(wg, dml), on(bias, dml), **k)
            want = torch.nn.functional.conv_transpose2d(x, wg, bias, **k)
            assert torch.isinf(want).any() and not torch.isnan(want).any()
            torch.testing.assert_close(got.cpu(), want, equal_nan=False)
    nhwc = torch.randn(1, 3, 3, 2, generator=g).permute(0, 3, 1, 2)  # channels-last strides
    w2 = torch.randn(2, 2, 2, 2, generator=g)
    with workarounds():
        got = torch.nn.functional.conv2d(on(nhwc, dml), on(w2, dml))
    torch.testing.assert_close(got.cpu(), torch.nn.functional.conv2d(nhwc, w2))


_CONV3D = [dict(), dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(2, 1, 1)),
           dict(stride=(3, 2, 1), padding=(2, 1, 0), dilation=(1, 2, 2), groups=2)]


@pytest.mark.parametrize("transposed, kw", [(False, kw) for kw in _CONV3D] + [(True, kw) for kw in _CONV3D] + [
    (True, dict(stride=(2, 2, 2), padding=(0, 1, 0), groups=2, output_padding=(1, 1, 0)))])
def test_3d_convolutions_are_2d_convolutions_per_depth_tap_on_torch_directml(dml, transposed, kw):
    # The double takes no 5-D convolution (never recorded on torch-directml); torch's own CPU conv3d /
    # conv_transpose3d is the oracle.
    g = torch.Generator().manual_seed(11)
    groups = kw.get("groups", 1)
    x = torch.randn(2, 4, 7, 5, 6, generator=g)
    w = torch.randn(4, 6 // groups, 3, 2, 3, generator=g) if transposed else torch.randn(6, 4 // groups, 3, 2, 3,
                                                                                          generator=g)
    bias = torch.randn(6, generator=g)
    f = torch.nn.functional.conv_transpose3d if transposed else torch.nn.functional.conv3d
    with workarounds():
        got = f(on(x, dml), on(w, dml), on(bias, dml), **kw)
    torch.testing.assert_close(got.cpu(), f(x, w, bias, **kw), rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError, match="3-D convolution on the torch-directml double"):
        f(on(x, dml), on(w, dml), on(bias, dml), **kw)  # without the workarounds


def test_a_3d_convolution_multiplies_the_padding_as_conv3d_does(dml):
    # An infinite filter tap over the padding gives NaN (inf * 0), as torch's CPU conv3d gives it; the 2-D pieces
    # read explicit zeros (a 2-D depthwise kernel would skip them).
    x = torch.ones(1, 2, 3, 3, 3)
    w = torch.zeros(2, 1, 3, 3, 3)
    w[:, :, 0, 1, 0] = float("inf")
    for groups, weight in ((2, w), (1, torch.cat([w, w], 1))):
        with workarounds():
            got = torch.nn.functional.conv3d(on(x, dml), on(weight, dml), padding=1, groups=groups)
        want = torch.nn.functional.conv3d(x, torch.cat([w, w], 1), padding=1)
        assert torch.isnan(want).any() and torch.isinf(want).any()
        torch.testing.assert_close(got.cpu(), want * (1 if groups == 1 else 0.5), equal_nan=True)


def test_five_dimensional_index_select_and_shifts_on_torch_directml(dml):
    x = torch.arange(24.).reshape(1, 2, 3, 1, 4)
    for dim in range(5):
        index = torch.tensor([0, x.shape[dim] - 1, 0])
        with workarounds():
            got = on(x, dml).index_select(dim, on(index, dml))
        _same(got, x.index_select(dim, index))
    for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32):
        info = torch.iinfo(dtype)
        v = torch.tensor([info.min, -1 if info.min else 200, 0, 1, 5, info.max], dtype=dtype)
        for amount in range(-1, info.bits + 2):
            s = torch.full_like(v, amount)
            for f in (torch.bitwise_left_shift, torch.bitwise_right_shift):
                with workarounds():
                    got = f(on(v, dml), on(s, dml))
                _same(got, f(v, s))


def test_unsigned_tensors_asked_for_on_the_device_come_in_their_carriers(dml):
    with workarounds():
        a = on(torch.tensor([3, 2**31 + 5], dtype=torch.uint32), dml)
        b = on(torch.tensor([-1, 7]), dml).to(torch.uint32)
        c = on(torch.tensor([-1, 70000], dtype=torch.int32), dml).to(torch.uint16)
        d = on(torch.tensor([2.0, 3e9, 5e9]), dml).to(torch.uint32)
    assert a.dtype == torch.int32 and a.cpu().tolist() == [3, -2**31 + 5]  # the uint32 bits
    assert b.dtype == torch.int32 and b.cpu().tolist() == [-1, 7]
    assert c.dtype == torch.int32 and c.cpu().tolist() == [65535, 70000 - 65536]
    # 3e9: its uint32 bits (3e9 - 2**32 converted); 5e9 is beyond uint32: -1, whose top bit the output check refuses
    assert d.cpu().tolist() == [2, 3_000_000_000 - 2**32, -1]


# ----------------------------------------------------------------------------------------------- dmlops on the double
def _compile(desc):
    return dmlops.compile(desc, backend="torch", device="dml")


def test_dmlops_reaches_the_double_through_its_own_device_choice(dml):
    desc = dmlops.ElementWiseIdentity(input_tensor=T("FLOAT32", [2]), output_tensor=T("FLOAT32", [2]))
    op = _compile(desc)
    assert op.device == "dml:0" and op.provider == "privateuseone:0"
    x = on(torch.tensor([1.0, -0.0]), dml)
    y = op(input_tensor=x)["OutputTensor"]  # torch in, torch out: never through a storage
    assert type(y) is dd.DmlTensor and y is not x
    y.add_(1)
    assert x.cpu().tolist() == [1.0, -0.0]  # the output shares nothing with the input


def test_refusals_name_the_operator_the_field_the_reason_and_backend_directml(dml):
    # INT64 ADD runs in int32 pairs into a packed output (test_torch_directml_adapt); into a strided one there is no
    # exact 32-bit path left.
    add = dmlops.ElementWiseAdd(a_tensor=T("INT64", [2]), b_tensor=T("INT64", [2]), output_tensor=T("INT64", [2], [2]))
    with pytest.raises(dmlops.DmlOpsError) as e:
        _compile(add)
    why = ("DataType INT64; torch-directml computes 64-bit integers in 32 bits (int64 [2**40 + 1] + 1 gives [2]) and "
           "has no uint64 tensors, so dmlops takes INT64 and UINT64 there only for index, length and count tensors, "
           "for operators that only move, select or compare them, and for those it computes in 32-bit pieces into "
           "packed outputs (torch_directml_adapt).")
    assert str(e.value) == (
        f"torch-directml cannot run this safely: ELEMENT_WISE_ADD.ATensor: {why} ELEMENT_WISE_ADD.BTensor: {why} "
        f"ELEMENT_WISE_ADD.OutputTensor: {why} Use backend=\"directml\" (DirectML's own operator) or "
        "backend=\"onnxruntime\" (its DirectML provider).")
    # FLOAT64 arithmetic: an IDENTITY with a ScaleBias (CAST to float32 and moves run on its bits:
    # test_torch_directml_adapt)
    scaled = dmlops.ElementWiseIdentity(input_tensor=T("FLOAT64", [2]), output_tensor=T("FLOAT64", [2]),
                                        scale_bias=dmlops.ScaleBias(2.0, 0.5))
    with pytest.raises(dmlops.DmlOpsError, match=r"ELEMENT_WISE_IDENTITY\.InputTensor: DataType FLOAT64; torch-directml "
                                                 r"computes nothing in float64 .*backend=\"directml\""):
        _compile(scaled)
    # A strided 7-D tensor: no merged view of at most 6 dimensions is made (packed ones run: test_torch_directml_adapt).
    rank = [2] + [1] * (MAX_RANK - 1) + [2]
    relu = dmlops.ActivationRelu(input_tensor=T("FLOAT32", rank, [1] + [2] * MAX_RANK),
                                 output_tensor=T("FLOAT32", rank))
    with pytest.raises(dmlops.DmlOpsError, match=r"ACTIVATION_RELU\.InputTensor: 7 dimensions; torch-directml was "
                                                 r"measured with up to 6"):
        _compile(relu)


def test_unsigned_values_the_carrier_cannot_hold_are_refused_at_run_time_naming_the_element(dml):
    argmax = dmlops.Argmax(input_tensor=T("FLOAT32", [2, 3]), output_tensor=T("UINT64", [2, 1]), axes=[1],
                           axis_direction="INCREASING")
    x = np.array([[1, 5, 2], [7, 0, 7]], np.float32)
    out = _compile(argmax)(input_tensor=x)["OutputTensor"]
    assert out.dtype == np.uint64 and out.tolist() == [[1], [0]]  # carried as int64, written back as UINT64
    gather = dmlops.Gather(input_tensor=T("FLOAT32", [3]), indices_tensor=T("UINT32", [2]),
                           output_tensor=T("FLOAT32", [2]), axis=0, index_dimensions=1)
    op = _compile(gather)
    data = np.array([10, 20, 30], np.float32)
    assert op(input_tensor=data, indices_tensor=np.array([2, 0], np.uint32))["OutputTensor"].tolist() == [30, 10]
    # GATHER bounds its indices, so it takes 2**32 - 1 saturated (tests/test_torch_directml_adapt.py); ROI_ALIGN's
    # batch indices are read as they are.
    roi = module("ROI_ALIGN").SAMPLES[0]
    batch = np.array([[[[0, 2**32 - 1]]]], np.uint32)
    with pytest.raises(dmlops.UnsupportedValue, match=r"^ROI_ALIGN\.BatchIndicesTensor: element \(0, 0, 0, 1\) is "
                                                 r"4294967295; on torch-directml dmlops carries UINT32 in int32 tensors "
                                                 r".* takes 0 to 2\*\*31 - 1 \(no top bit\) only\. Use "
                                                 r"backend=\"directml\""):
        _compile(roi.desc)({**roi.inputs, "BatchIndicesTensor": batch})
    l1 = dmlops.Reduce(function="L1", input_tensor=T("UINT32", [2]), output_tensor=T("UINT32", [1]), axes=[0])
    with pytest.raises(dmlops.UnsupportedValue, match=r"^REDUCE\.InputTensor: element \(0,\) is 4294967295"):
        _compile(l1)(input_tensor=np.array([2**32 - 1, 0], np.uint32))


def test_uint32_bits_of_any_value_travel_through_operators_exact_on_bits(dml):
    add = dmlops.ElementWiseAdd(a_tensor=T("UINT32", [3]), b_tensor=T("UINT32", [3]), output_tensor=T("UINT32", [3]))
    assert "ELEMENT_WISE_ADD" in BITS_OPS
    a, b = np.array([2**32 - 1, 2**31, 5], np.uint32), np.array([1, 2**31, 2**32 - 2], np.uint32)
    got = _compile(add)(a_tensor=a, b_tensor=b)["OutputTensor"]
    assert got.dtype == np.uint32 and got.tolist() == (a + b).tolist()  # wraps modulo 2**32 as DirectML does


def _u(*values, t="UINT32"):
    return np.array(values, np.dtype(t.lower()))


U16, U32 = T("UINT16", [4]), T("UINT32", [4])
TOP = _u(2**32 - 1, 2**31, 2**31 + 7, 3)


@pytest.mark.parametrize("desc, inputs", [
    (dmlops.ElementWiseBitShiftLeft(a_tensor=U32, b_tensor=U32, output_tensor=U32),
     {"ATensor": TOP, "BTensor": _u(1, 33, 2**32 - 1, 31)}),  # counts modulo 32: 33 is 1, 2**32 - 1 is 31
    (dmlops.ElementWiseBitShiftLeft(a_tensor=U16, b_tensor=U16, output_tensor=U16),
     {"ATensor": _u(65535, 3, 2**15, 7, t="UINT16"), "BTensor": _u(1, 15, 1, 65535, t="UINT16")}),
    (dmlops.ElementWiseBitShiftRight(a_tensor=U32, b_tensor=U32, output_tensor=U32),
     {"ATensor": TOP, "BTensor": _u(1, 0, 2**32 - 1, 33)}),  # logical: no sign bit comes in
    (dmlops.ElementWiseBitShiftRight(a_tensor=U16, b_tensor=U16, output_tensor=U16),
     {"ATensor": _u(65535, 3, 2**15, 7, t="UINT16"), "BTensor": _u(1, 15, 15, 65535, t="UINT16")}),
    (dmlops.ElementWiseBitCount(input_tensor=U32, output_tensor=T("UINT8", [4])), {"InputTensor": TOP}),
    (dmlops.DiagonalMatrix1(input_tensor=T("UINT32", [2, 2]), output_tensor=T("UINT32", [2, 2]),
                            value_data_type="UINT32", value=2**32 - 2, diagonal_fill_begin=0, diagonal_fill_end=1),
     {"InputTensor": TOP.reshape(2, 2)}),
    *[(dmlops.Reduce(function=f, input_tensor=T("UINT32", [2, 2]), output_tensor=T("UINT32", [2, 1]), axes=[1]),
       {"InputTensor": TOP.reshape(2, 2)}) for f in ("SUM", "MULTIPLY", "SUM_SQUARE")],
    (module("FOLD").SAMPLES[[s.name for s in module("FOLD").SAMPLES].index("uint32_overlap_wraps")].desc, None),
    (dmlops.MatrixMultiplyIntegerToFloat(
        a_tensor=T("UINT32", [2, 2]), a_scale_tensor=T("FLOAT32", [1, 1]), a_zero_point_tensor=T("UINT32", [1, 1]),
        b_tensor=T("UINT32", [2, 2]), b_scale_tensor=T("FLOAT32", [1, 2]), b_zero_point_tensor=T("UINT32", [1, 2]),
        output_tensor=T("FLOAT32", [2, 2])),
     {"ATensor": TOP.reshape(2, 2), "AScaleTensor": np.array([[0.5]], np.float32),
      "AZeroPointTensor": _u(2**31 + 3).reshape(1, 1), "BTensor": TOP[::-1].reshape(2, 2).copy(),
      "BScaleTensor": np.array([[1.0, -2.0]], np.float32), "BZeroPointTensor": _u(7, 2**32 - 1).reshape(1, 2)}),
], ids=["shift_left_uint32", "shift_left_uint16", "shift_right_uint32", "shift_right_uint16", "bit_count", "diagonal_matrix1", "reduce_sum", "reduce_multiply",
        "reduce_sum_square", "fold", "matrix_multiply_integer_to_float"])
def test_more_operators_exact_on_uint32_bits_take_any_value(dml, desc, inputs):
    if inputs is None:  # a sample's own inputs (FOLD: overlapping 2**32 - 1 sums wrap)
        inputs = module(desc.OPERATOR_TYPE).SAMPLES[[s.desc for s in module(desc.OPERATOR_TYPE).SAMPLES].index(
            desc)].inputs
    got = _compile(desc)(inputs)
    want = dmlops.compile(desc, backend="reference")(inputs)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], strict=True)


def test_reductions_that_are_not_modular_still_refuse_the_top_bit(dml):
    l1 = dmlops.Reduce(function="L1", input_tensor=T("UINT32", [2, 2]), output_tensor=T("UINT32", [2, 1]), axes=[1])
    with pytest.raises(dmlops.UnsupportedValue, match=r"^REDUCE\.InputTensor: element \(0, 0\) is 4294967295; on "
                                                      r"torch-directml dmlops carries UINT32 in int32 tensors"):
        _compile(l1)(input_tensor=TOP.reshape(2, 2))


def test_int64_data_goes_only_where_32_bit_arithmetic_is_exact(dml):
    # MAX only compares (RANGE_CLOSED_64). Into a packed output it runs in int32 pairs for every value
    # (test_torch_directml_adapt); into a strided one, values within int32 run and others are refused by name.
    maximum = dmlops.ElementWiseMax(a_tensor=T("INT64", [3]), b_tensor=T("INT64", [3]),
                                    output_tensor=T("INT64", [3], [2]))
    op = _compile(maximum)
    a, b = np.array([-2**31, 5, 2**31 - 1], np.int64), np.array([3, -7, 0], np.int64)
    assert op(a_tensor=a, b_tensor=b)["OutputTensor"].tolist() == [3, 5, 2**31 - 1]
    with pytest.raises(dmlops.DmlOpsError, match=r"^ELEMENT_WISE_MAX\.ATensor: element \(0,\) is -2147483649; .*takes "
                                                 r"-2\*\*31 to 2\*\*31 - 1 only"):
        op(a_tensor=np.array([-2**31 - 1, 0, 0], np.int64), b_tensor=b)
    # CLIP of INT64 runs in pairs (test_torch_directml_adapt) but for a strided output, which pairs do not write:
    # then only the 32-bit path is left, which a bound beyond 32 bits rules out.
    clip = dmlops.ElementWiseClip(input_tensor=T("INT64", [2]), output_tensor=T("INT64", [2], [2]), min=-1e12,
                                  max=5.0)
    with pytest.raises(dmlops.DmlOpsError, match=r"ELEMENT_WISE_CLIP\.InputTensor: DataType INT64; .* \(this one has an "
                                                 r"attribute beyond 32 bits\), and for those"):
        _compile(clip)
    # An operator without inputs is computed on the host and moved: every bit arrives.
    fill = dmlops.FillValueConstant(output_tensor=T("INT64", [2]), value_data_type="INT64", value=-2**63)
    assert _compile(fill)()["OutputTensor"].tolist() == [-2**63, -2**63]


def test_a_torch_tensor_input_for_an_unsigned_tensor_is_its_carrier(dml):
    gather = dmlops.Gather(input_tensor=T("FLOAT32", [3]), indices_tensor=T("UINT32", [2]),
                           output_tensor=T("FLOAT32", [2]), axis=0, index_dimensions=1)
    op = _compile(gather)
    data = on(torch.tensor([10.0, 20.0, 30.0]), dml)
    got = op(input_tensor=data, indices_tensor=on(torch.tensor([2, 1], dtype=torch.int32), dml))["OutputTensor"]
    assert got.cpu().tolist() == [30, 20]
    with pytest.raises(dmlops.DmlOpsError, match=r"expected UINT32 data \(torch\.int32 \(torch-directml has no "
                                                 r"unsigned 16-, 32- or 64-bit tensors"):
        op(input_tensor=data, indices_tensor=on(torch.tensor([2, 1]), dml))
    with pytest.raises(dmlops.UnsupportedValue, match=r"IndicesTensor: element \(0,\) is -1"):
        op(input_tensor=data, indices_tensor=on(torch.tensor([-1, 1], dtype=torch.int32), dml))


# ----------------------------------------------------------------------------------------------- every case
REFUSED = re.compile(r"^torch-directml cannot run this safely: ([A-Z0-9_]+\.\w+(\[\d+\])?: .+?\. )+Use "
                     r"backend=\"directml\"")
RUN_TIME = re.compile(r"^[A-Z0-9_]+\.\w+(\[\d+\])?: element \(.*\) (is|came out as) -?\d+.* on torch-directml "
                      r"dmlops .*Use backend=\"directml\" for this (value|result)\.$")


def _check_recording(rec, label: str, float64_allowed: bool) -> list[str]:
    problems = sorted({f"{label}: {op} is not registered by torch-directml" for op in rec.ops
                       if not runs_on_directml(op)})
    if torch.float64 in rec.dtypes and not float64_allowed:
        problems.append(f"{label}: a float64 tensor")
    if {torch.uint16, torch.uint32, torch.uint64} & rec.device_dtypes:
        problems.append(f"{label}: an unsigned 16/32/64-bit tensor on the device")
    if rec.max_rank > MAX_RANK:
        problems.append(f"{label}: a tensor of {rec.max_rank} dimensions")
    return problems


class Recorder(TorchDispatchMode):
    """Every aten call's overload, dtypes and ranks (the double's own log has what composite ops decompose into)."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: set = set()
        self.dtypes: set = set()  # of every tensor
        self.device_dtypes: set = set()  # of the tensors on the device
        self.max_rank = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func not in dd.METADATA:
            self.ops.add(func)
            for v in dd.tree_flatten((args, kwargs, out))[0]:
                if isinstance(v, torch.Tensor):
                    self.dtypes.add(v.dtype)
                    if isinstance(v, dd.DmlTensor):
                        self.device_dtypes.add(v.dtype)
                        self.max_rank = max(self.max_rank, v.dim())
        return out


def _recorded(monkeypatch, found: list):
    """selftest's per-case run with a Recorder around the compiled call."""
    real = selftest._run

    def run(path, op, name, source, desc, inputs, compare):
        rec = Recorder()
        with rec:
            result = real(path, op, name, source, desc, inputs, compare)
        float64 = any(td.data_type.name == "FLOAT64" for node in GraphDesc.single(desc).nodes
                      for td in _tensors(node))
        found.extend(_check_recording(rec, f"{op} {name} ({source})", float64))
        return result

    monkeypatch.setattr(selftest, "_run", run)


def _tensors(desc):
    for value in desc.tensors().values():
        yield from (v for v in (value if isinstance(value, tuple) else (value,)) if v is not None)


OPS = runnable()
CHUNKS = [OPS[i::8] for i in range(8)]  # about 20 operators each: a chunk is one test


@pytest.mark.parametrize("ops", CHUNKS, ids=[f"chunk{i}" for i in range(len(CHUNKS))])
def test_every_sample_and_vector_is_right_or_refused_with_its_reason_on_the_double(dml, monkeypatch, ops):
    found: list[str] = []
    _recorded(monkeypatch, found)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a CPU fallback would be one
        for op in ops:
            rows += selftest.sample_results("torch:dml", [op]) + selftest.vector_results("torch:dml", {op})
    assert rows
    refused = []
    for r in rows:
        label = f"{r.op} {r.case} ({r.source})"
        if r.result == "refused":  # at compile time, or at run time a value its carrier cannot hold (UnsupportedValue)
            assert REFUSED.match(r.detail) or RUN_TIME.match(r.detail), f"{label}: {r.detail}"
            refused.append(label)
        else:
            found.append(f"{label}: {r.result}: {r.detail[:300]}") if r.result != "ok" else None
    assert found == []
    # Every sample and vector runs there now (issue 23 item 6 asked for at most 150 refused of about 3,800): a new
    # refusal is a regression to look at, not a number to accept.
    assert refused == []
    assert dd.DEVICE.fallbacks == []


def test_the_chunks_cover_every_runnable_operator():
    assert sorted(op for chunk in CHUNKS for op in chunk) == sorted(OPS)


def test_a_carried_value_between_two_operators_is_range_checked_where_it_is_made(dml):
    # UINT32 ADD then GREATER_THAN: the sum travels in an int32 carrier, so 2**31 would read as -2**31 in the
    # comparison (False where DirectML says True). In a graph it is refused where ADD makes it, naming the element.
    from dmlops.graph import InputEdge, IntermediateEdge, OutputEdge

    u = T("UINT32", [3])
    add = dmlops.ElementWiseAdd(a_tensor=u, b_tensor=u, output_tensor=u)
    greater = dmlops.ElementWiseLogicalGreaterThan(a_tensor=u, b_tensor=u, output_tensor=T("UINT8", [3]))
    graph = GraphDesc([add, greater], [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(2, 1, 1)],
                      [IntermediateEdge(0, 0, 1, 0)], [OutputEdge(1, 0, 0)], ["a", "b", "c"], ["y"])
    op = dmlops.compile(graph, backend="torch", device="dml")
    c = np.array([5, 5, 5], np.uint32)
    (y,) = op(a=np.array([3, 7, 1], np.uint32), b=np.array([4, 0, 2], np.uint32), c=c).values()
    assert y.tolist() == [1, 1, 0]
    with pytest.raises(dmlops.UnsupportedValue) as e:
        op(a=np.array([3, 2**31 - 1, 1], np.uint32), b=np.array([4, 1, 2], np.uint32), c=c)
    assert str(e.value) == (
        "ELEMENT_WISE_ADD.OutputTensor: element (1,) came out as -2147483648 in its int32 carrier, and the next "
        "operator of the graph reads it; on torch-directml dmlops takes UINT32 values of 0 to 2**31 - 1 (no top bit) "
        "only between operators (torch-directml has no unsigned 16-, 32- or 64-bit tensors and computes integers in "
        "32 bits). Use backend=\"directml\" for this graph.")
    # The reference says what DirectML would: the comparison of the true sum.
    (want,) = dmlops.compile(graph, backend="reference")(a=np.array([3, 2**31 - 1, 1], np.uint32),
                                                         b=np.array([4, 1, 2], np.uint32), c=c).values()
    assert want.tolist() == [1, 1, 0]


def test_a_carried_value_read_as_bits_by_the_next_operator_is_not_refused(dml):
    # UINT32 ADD then BIT_AND: the AND takes the sum's bits (torch_directml_ops.BITS_OPS), so a sum needing the top
    # bit is exact in between; the graph's inputs and output are range-checked as ever.
    from dmlops.graph import InputEdge, IntermediateEdge, OutputEdge

    u = T("UINT32", [2])
    add = dmlops.ElementWiseAdd(a_tensor=u, b_tensor=u, output_tensor=u)
    mask = dmlops.ElementWiseBitAnd(a_tensor=u, b_tensor=u, output_tensor=u)
    graph = GraphDesc([add, mask], [InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(2, 1, 1)],
                      [IntermediateEdge(0, 0, 1, 0)], [OutputEdge(1, 0, 0)], ["a", "b", "m"], ["y"])
    a, b, m = (np.array(v, np.uint32) for v in ([2**31 - 1, 5], [3, 9], [0xFFFF, 0xFFFF]))
    (y,) = dmlops.compile(graph, backend="torch", device="dml")(a=a, b=b, m=m).values()
    (want,) = dmlops.compile(graph, backend="reference")(a=a, b=b, m=m).values()
    assert y.tolist() == want.tolist() == [2, 14]


@pytest.mark.parametrize("name", ["ElementWiseDivide", "ElementWiseModulusTruncate", "ElementWiseModulusFloor"])
@pytest.mark.parametrize("t", ["UINT8", "UINT16", "INT16"])
def test_integer_division_by_zero_and_by_the_largest_value_on_torch_directml(dml, name, t):
    # A UINT16 arrives in its int32 carrier there: x / 0 and x mod 0 are still UINT16's maximum (65535), not the
    # int32 rule's -1 (which the output check refused). Every pair of edge values, against the reference.
    info = np.iinfo(np.dtype(t.lower()))
    edges = np.array(sorted({info.min, info.min + 1, -1 if info.min else 2, 0, 1, 7, info.max - 1, info.max}),
                     dtype=object).astype(t.lower())
    a, b = (v.ravel() for v in np.meshgrid(edges, edges))
    desc = getattr(dmlops, name)(a_tensor=T(t, [a.size]), b_tensor=T(t, [a.size]), output_tensor=T(t, [a.size]))
    got = dmlops.run(desc, {"ATensor": a, "BTensor": b}, backend="torch", device="dml")["OutputTensor"]
    want = dmlops.run(desc, {"ATensor": a, "BTensor": b}, backend="reference")["OutputTensor"]
    assert got.tolist() == want.tolist()


def test_op_notes_say_how_values_travel_and_what_runs_rewritten_on_torch_directml(dml):
    add = dmlops.ElementWiseAdd(a_tensor=T("UINT32", [2]), b_tensor=T("UINT32", [2]), output_tensor=T("UINT32", [2]))
    notes = _compile(add).notes
    assert notes[0].startswith("semantics are dmlops's lowering of DirectML's: torch ops")
    assert notes[1:] == ("UINT32 values travel in int32 tensors on torch-directml (it has no unsigned 16-, 32- or "
                         "64-bit tensors); a value its carrier cannot hold is refused at run time (UnsupportedValue)",)
    wide = dmlops.ElementWiseAdd(a_tensor=T("INT64", [2]), b_tensor=T("INT64", [2]), output_tensor=T("INT64", [2]))
    assert _compile(wide).notes[1:] == (
        "runs rewritten for torch-directml (torch_directml_adapt): 64-bit values computed as (low, high) int32 pairs",)
