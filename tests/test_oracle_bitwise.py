"""Independent oracles for the bitwise operators (issue 11, B04): ELEMENT_WISE_BIT_AND/OR/XOR/NOT/COUNT and
BIT_SHIFT_LEFT/RIGHT on all three backends.

* ONNX's node test cases (BitwiseAnd/Or/Xor/Not, BitShift): the unsigned BitShift cases with counts below the width
  (DirectML has no signed shifts: those descriptors are refused by the validator);
* torch's own bitwise ops (torch.bitwise_*) on the integer types torch has kernels for;
* exact Python integer arithmetic on bit patterns, for every DataType the tiers declare: random patterns (floats
  without NaN patterns, plus ±0, ±inf, subnormals and the extremes), shift counts over the whole type (the count is
  taken modulo 32; UINT64 is shifted in 32-bit halves, as DirectML's sample_uint64 answers show), compared bit for
  bit (a NaN result must be a NaN);
* what the ONNX and torch lowerings cannot preserve, pinned: FLOAT64 refused on ONNX Runtime with its reason, and a
  non-canonical NaN input read as the canonical NaN.
"""
import numpy as np
import pytest
import torch

import dmlops
from dmlops.sample import td
from dmlops.types import FeatureLevel
from tests.onnx_node_cases import attribute, generated

BACKENDS = ["reference", "onnxruntime", "torch"]
LEVEL = FeatureLevel.latest()
FLOATS = ["FLOAT64", "FLOAT32", "FLOAT16"]
SIGNED = ["INT64", "INT32", "INT16", "INT8"]
UNSIGNED = ["UINT64", "UINT32", "UINT16", "UINT8"]
ALL = FLOATS + SIGNED + UNSIGNED
BINARY = {"ELEMENT_WISE_BIT_AND": (dmlops.ElementWiseBitAnd, lambda a, b: a & b, torch.bitwise_and),
          "ELEMENT_WISE_BIT_OR": (dmlops.ElementWiseBitOr, lambda a, b: a | b, torch.bitwise_or),
          "ELEMENT_WISE_BIT_XOR": (dmlops.ElementWiseBitXor, lambda a, b: a ^ b, torch.bitwise_xor)}
SHIFTS = {"ELEMENT_WISE_BIT_SHIFT_LEFT": (dmlops.ElementWiseBitShiftLeft, "LEFT"),
          "ELEMENT_WISE_BIT_SHIFT_RIGHT": (dmlops.ElementWiseBitShiftRight, "RIGHT")}


def _np(data_type: str) -> np.dtype:
    return np.dtype(data_type.lower())


def _width(data_type: str) -> int:
    return 8 * _np(data_type).itemsize


def _unsigned(data_type: str) -> np.dtype:
    return np.dtype(f"u{_np(data_type).itemsize}")


def _patterns(data_type: str, n: int, seed: int) -> np.ndarray:
    """``n`` random bit patterns of ``data_type`` as Python-int-friendly unsigned integers; floats get no NaN pattern
    (a NaN input is read as the canonical NaN on ONNX and torch, pinned separately) and their special values."""
    rng = np.random.default_rng(seed)
    w = _width(data_type)
    u = rng.integers(0, 2**w, size=n, dtype=np.uint64 if w == 64 else np.int64).astype(_unsigned(data_type))
    if data_type in FLOATS:
        f = _np(data_type)
        info = np.finfo(f)
        specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, info.max, -info.max, info.tiny, -info.tiny,
                             info.smallest_subnormal, -info.smallest_subnormal, info.tiny - info.smallest_subnormal],
                            f).view(_unsigned(data_type))
        u = np.concatenate([specials, u])
        nan = np.isnan(u.view(f))
        exponent_low = _unsigned(data_type).type(1 << (info.nmant))
        u = np.where(nan, u & ~exponent_low, u)  # an exponent that is not all ones: no longer NaN
    return u


def _value(bits: np.ndarray, data_type: str) -> np.ndarray:
    return bits.astype(_unsigned(data_type)).view(_np(data_type))


def _from_ints(values, data_type: str) -> np.ndarray:
    return _value(np.array([v & (2 ** _width(data_type) - 1) for v in values], dtype=_unsigned(data_type)), data_type)


def _assert_bits(got: np.ndarray, want: np.ndarray, what: str):
    """Same dtype and bits; where DirectML's answer would be a NaN pattern, any NaN."""
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if want.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), f"{what}: NaN positions differ"
        gu, wu = got.view(_unsigned(want.dtype.name.upper())), want.view(_unsigned(want.dtype.name.upper()))
        bad = np.flatnonzero((gu != wu) & ~nan)
    else:
        bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{what}: {bad.size} elements differ, first at {bad[0]}: got {got.ravel()[bad[0]]!r}, " \
                          f"want {want.ravel()[bad[0]]!r}"


def _run(desc, inputs, backend):
    return dmlops.run(desc, inputs, backend=backend, feature_level=LEVEL)


FLOAT64_ONNX = (r"\.ATensor: DataType FLOAT64 has no exact ONNX lowering: ONNX has no bit reinterpretation before "
                r"BitCast \(opset 26, which ONNX Runtime does not run\), and ONNX Runtime's DirectML provider "
                r"registers no float64 arithmetic or comparison kernel to take a float64 apart with\. The torch and "
                r"reference backends run it\.")


def _check_or_refused(desc, inputs, want, backend, data_type, field="ATensor"):
    if backend == "onnxruntime" and data_type == "FLOAT64":
        with pytest.raises(dmlops.DmlOpsError, match="^" + desc.OPERATOR_TYPE + FLOAT64_ONNX.replace("ATensor", field)):
            dmlops.compile(desc, backend="onnxruntime", feature_level=LEVEL)
        return
    got = _run(desc, inputs, backend)["OutputTensor"]
    _assert_bits(got, want, f"{desc.OPERATOR_TYPE} {data_type} on {backend}")


# ----------------------------------------------------------------------------------------------- Python integers
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data_type", ALL)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_match_python_integers_on_bit_patterns(op, data_type, backend):
    cls, fn, _ = BINARY[op]
    a, b = _patterns(data_type, 64, 1), _patterns(data_type, 64, 2)[::-1].copy()
    b[:8] = a[:8]  # a & a, a | a: each pattern rebuilt from its own decomposition
    want = _from_ints([fn(int(x), int(y)) for x, y in zip(a, b)], data_type)
    n = a.size
    desc = cls(a_tensor=td(data_type, [n]), b_tensor=td(data_type, [n]), output_tensor=td(data_type, [n]))
    inputs = {"ATensor": _value(a, data_type), "BTensor": _value(b, data_type)}
    _check_or_refused(desc, inputs, want, backend, data_type)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data_type", ALL)
def test_not_matches_python_integers_on_bit_patterns(data_type, backend):
    a = _patterns(data_type, 64, 3)
    want = _from_ints([~int(x) for x in a], data_type)
    desc = dmlops.ElementWiseBitNot(input_tensor=td(data_type, [a.size]), output_tensor=td(data_type, [a.size]))
    _check_or_refused(desc, {"InputTensor": _value(a, data_type)}, want, backend, data_type, "InputTensor")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("out", ["UINT8", "UINT32"])
@pytest.mark.parametrize("data_type", ALL)
def test_count_matches_python_integers_on_bit_patterns(data_type, out, backend):
    a = _patterns(data_type, 64, 4)
    want = np.array([bin(int(x)).count("1") for x in a], _np(out))
    desc = dmlops.ElementWiseBitCount(input_tensor=td(data_type, [a.size]), output_tensor=td(out, [a.size]))
    _check_or_refused(desc, {"InputTensor": _value(a, data_type)}, want, backend, data_type, "InputTensor")


def _shift64_by_halves(x: int, s: int, left: bool) -> int:
    """A UINT64 shift as DirectML computes it, in 32-bit halves with HLSL's shifts (the count modulo 32): a count
    below 32 moves bits across the halves; any other moves one half into the other, shifted by (count - 32) mod 32.
    The count's low 32 bits are used (unverified). DirectML's BIT_SHIFT_LEFT/RIGHT sample_uint64: 5 << 65 = 5 << 33,
    912 >> 65 = 0."""
    m = 0xFFFFFFFF
    lo, hi, c = x & m, x >> 32, s & m
    if c == 0:
        return x
    if c < 32:
        if left:
            hi, lo = ((hi << c) | (lo >> (32 - c))) & m, (lo << c) & m
        else:
            hi, lo = hi >> c, ((lo >> c) | (hi << (32 - c))) & m
    else:
        k = (c - 32) & 31
        hi, lo = ((lo << k) & m, 0) if left else (0, hi >> k)
    return (hi << 32) | lo


def test_the_halves_oracle_gives_directml_s_uint64_answers():
    from dmlops.vectors import cases

    found = 0
    for case in cases():
        if case.op in SHIFTS and not case.rejected and case.inputs()["ATensor"].dtype == np.uint64:
            x, s = case.inputs()["ATensor"], case.inputs()["BTensor"]
            got = [_shift64_by_halves(int(a), int(b), SHIFTS[case.op][1] == "LEFT") for a, b in zip(x, s)]
            assert got == [int(v) for v in case.outputs(case.desc())["OutputTensor"]], case.id
            found += 1
    assert found == 2


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data_type", UNSIGNED)
@pytest.mark.parametrize("op", sorted(SHIFTS))
def test_shifts_match_python_integers_with_the_count_modulo_the_register(op, data_type, backend):
    cls, direction = SHIFTS[op]
    w = _width(data_type)
    a = _patterns(data_type, 96, 5)
    rng = np.random.default_rng(6)
    b = np.concatenate([np.arange(0, 70), rng.integers(0, 2**w, 26, dtype=np.uint64)]).astype(_unsigned(data_type))
    if w == 64:  # DirectML's 32-bit halves
        b[66:70] = [96, 127, 2**32 + 3, 2**33 + 40]
        want = _from_ints([_shift64_by_halves(int(x), int(s), direction == "LEFT") for x, s in zip(a, b)], data_type)
    else:  # DirectML's vectors: a 32-bit register, the count modulo 32
        counts = [int(s) % 32 for s in b]
        if direction == "LEFT":
            want = _from_ints([int(x) << s for x, s in zip(a, counts)], data_type)
        else:
            want = _from_ints([int(x) >> s for x, s in zip(a, counts)], data_type)
    n = a.size
    desc = cls(a_tensor=td(data_type, [n]), b_tensor=td(data_type, [n]), output_tensor=td(data_type, [n]))
    _check_or_refused(desc, {"ATensor": a, "BTensor": b}, want, backend, data_type)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_every_float_pattern_class_round_trips_through_the_decomposition(data_type, backend):
    """a & a = a for every exponent (0 ... all ones but NaN) with mantissas 0, 1, all ones and random, both signs."""
    f = _np(data_type)
    info = np.finfo(f)
    mant, top = info.nmant, 2 ** (_width(data_type) - 1 - info.nmant) - 1
    rng = np.random.default_rng(7)
    values = []
    for e in range(top):
        for m in (0, 1, 2**mant - 1, int(rng.integers(0, 2**mant))):
            for sign in (0, 1):
                values.append((sign << (_width(data_type) - 1)) | (e << mant) | m)
    values += [top << mant, (1 << (_width(data_type) - 1)) | (top << mant)]  # ±inf
    a = _from_ints(values, data_type)
    desc = dmlops.ElementWiseBitAnd(a_tensor=td(data_type, [a.size]), b_tensor=td(data_type, [a.size]),
                                    output_tensor=td(data_type, [a.size]))
    got = _run(desc, {"ATensor": a, "BTensor": a}, backend)["OutputTensor"]
    _assert_bits(got, a, f"{data_type} a & a on {backend}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_canonical_nan_inputs_are_exact(backend):
    """DirectML's vectors use the canonical quiet NaN: BIT_COUNT float32 gives 9, float16 6; NaN & 1.0 = 1.0."""
    for data_type, bits in (("FLOAT32", 9), ("FLOAT16", 6)):
        x = np.array([np.nan, np.nan], _np(data_type))
        desc = dmlops.ElementWiseBitCount(input_tensor=td(data_type, [2]), output_tensor=td("UINT8", [2]))
        assert _run(desc, {"InputTensor": x}, backend)["OutputTensor"].tolist() == [bits, bits]
        desc = dmlops.ElementWiseBitAnd(a_tensor=td(data_type, [2]), b_tensor=td(data_type, [2]),
                                        output_tensor=td(data_type, [2]))
        one = np.array([1.0, -1.0], _np(data_type))
        _assert_bits(_run(desc, {"ATensor": x, "BTensor": one}, backend)["OutputTensor"],
                     np.array([1.0, 1.0], _np(data_type)), f"{data_type} NaN & ±1 on {backend}")


@pytest.mark.parametrize("backend", ["onnxruntime", "torch"])
def test_a_non_canonical_nan_input_is_read_as_the_canonical_nan_by_the_float_decomposition(backend):
    """The documented limitation (dmlops.ops._bits): float arithmetic cannot see a NaN's sign or payload. The
    reference reads the bits."""
    x = np.array([0xFFC00000, 0x7F800001], np.uint32).view(np.float32)
    desc = dmlops.ElementWiseBitCount(input_tensor=td("FLOAT32", [2]), output_tensor=td("UINT8", [2]))
    assert _run(desc, {"InputTensor": x}, "reference")["OutputTensor"].tolist() == [10, 9]
    assert _run(desc, {"InputTensor": x}, backend)["OutputTensor"].tolist() == [9, 9]


# ----------------------------------------------------------------------------------------------- torch's own ops
TORCH_TYPES = ["INT64", "INT32", "INT16", "INT8", "UINT8"]  # torch's bitwise kernels


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data_type", TORCH_TYPES)
@pytest.mark.parametrize("op", sorted(BINARY) + ["ELEMENT_WISE_BIT_NOT"])
def test_bitwise_ops_match_torch(op, data_type, backend):
    a = _value(_patterns(data_type, 40, 8), data_type)
    b = _value(_patterns(data_type, 40, 9), data_type)
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    n = a.size
    if op == "ELEMENT_WISE_BIT_NOT":
        want = torch.bitwise_not(ta).numpy()
        desc = dmlops.ElementWiseBitNot(input_tensor=td(data_type, [n]), output_tensor=td(data_type, [n]))
        inputs = {"InputTensor": a}
    else:
        cls, _, fn = BINARY[op]
        want = fn(ta, tb).numpy()
        desc = cls(a_tensor=td(data_type, [n]), b_tensor=td(data_type, [n]), output_tensor=td(data_type, [n]))
        inputs = {"ATensor": a, "BTensor": b}
    _assert_bits(_run(desc, inputs, backend)["OutputTensor"], want, f"{op} {data_type} on {backend}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", sorted(SHIFTS))
def test_uint8_shifts_below_the_width_match_torch(op, backend):
    cls, direction = SHIFTS[op]
    a = np.arange(256, dtype=np.uint8)
    b = (np.arange(256) % 8).astype(np.uint8)
    fn = torch.bitwise_left_shift if direction == "LEFT" else torch.bitwise_right_shift
    want = fn(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    desc = cls(a_tensor=td("UINT8", [256]), b_tensor=td("UINT8", [256]), output_tensor=td("UINT8", [256]))
    _assert_bits(_run(desc, {"ATensor": a, "BTensor": b}, backend)["OutputTensor"], want, f"{op} on {backend}")


# ----------------------------------------------------------------------------------------------- ONNX's node cases
CASES = generated(["bitshift", "bitwiseand", "bitwiseor", "bitwisexor", "bitwisenot"])
ONNX_OPS = {"BitwiseAnd": dmlops.ElementWiseBitAnd, "BitwiseOr": dmlops.ElementWiseBitOr,
            "BitwiseXor": dmlops.ElementWiseBitXor}


def _data_type(array: np.ndarray) -> str:
    return array.dtype.name.upper()


def _broadcast_desc(shape, array):
    """A TensorDesc of ``shape`` reading ``array`` through zero strides (ONNX broadcasting, right-aligned)."""
    own = (1,) * (len(shape) - array.ndim) + array.shape
    packed = np.cumprod((1,) + own[::-1])[:-1][::-1]
    strides = [0 if o == 1 and s != 1 else int(p) for o, s, p in zip(own, shape, packed)]
    return td(_data_type(array), list(shape), None if own == tuple(shape) else strides)


def _onnx_desc(case):
    node = case.node
    shape = np.broadcast_shapes(*(i.shape for i in case.inputs))
    out = td(_data_type(case.outputs[0]), list(shape))
    if node.op_type == "BitwiseNot":
        return dmlops.ElementWiseBitNot(input_tensor=_broadcast_desc(shape, case.inputs[0]), output_tensor=out)
    a, b = (_broadcast_desc(shape, i) for i in case.inputs)
    if node.op_type == "BitShift":
        cls = SHIFTS["ELEMENT_WISE_BIT_SHIFT_" + attribute(node, "direction").decode()][0]
    else:
        cls = ONNX_OPS[node.op_type]
    return cls(a_tensor=a, b_tensor=b, output_tensor=out)


def _usable(case) -> str | None:
    """Why ONNX's answer is not DirectML's for this case (None: it is)."""
    if case.node.op_type == "BitShift":
        if case.inputs[0].dtype.kind != "u":
            return "DirectML has no signed shifts"
        if int(case.inputs[1].max()) >= 8 * case.inputs[0].dtype.itemsize:
            return "ONNX gives 0 for counts >= the width; DirectML takes the count modulo 32"
    return None


USABLE = sorted(n for n, c in CASES.items() if _usable(c) is None)
SIGNED_SHIFTS = sorted(n for n, c in CASES.items() if _usable(c) == "DirectML has no signed shifts")


def test_the_onnx_node_cases_are_found():
    assert len(CASES) == 43
    assert len(USABLE) == 23 and len(SIGNED_SHIFTS) == 20


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", USABLE)
def test_onnx_node_cases(name, backend):
    case = CASES[name]
    desc = _onnx_desc(case)
    assert dmlops.problems(desc, LEVEL) == []
    fields = ["InputTensor"] if case.node.op_type == "BitwiseNot" else ["ATensor", "BTensor"]
    inputs = {f: np.ascontiguousarray(i).ravel() if desc.tensors()[f].strides is not None else i
              for f, i in zip(fields, case.inputs)}
    got = _run(desc, inputs, backend)["OutputTensor"]
    _assert_bits(got, case.outputs[0], f"{name} on {backend}")


@pytest.mark.parametrize("name", SIGNED_SHIFTS)
def test_signed_shift_cases_are_refused_by_the_validator(name):
    found = dmlops.problems(_onnx_desc(CASES[name]), LEVEL)
    assert found and all("DataType" in str(p) for p in found), found
