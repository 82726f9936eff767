"""B02 arithmetic (MEAN, SIGN, ROUND, MODULUS_TRUNCATE/FLOOR, ATAN_YX, DIFFERENCE_SQUARE, CLIP1, NEGATE) against
independent implementations, on every dmlops backend (reference, onnxruntime, torch).

Oracles: ONNX's node test cases (Mean, Sign, Round, Mod, Neg, Clip; tests/onnx_node_cases.py), PyTorch aten ops
(torch.fmod, torch.remainder, torch.atan2, torch.round, torch.clamp, torch.neg, torch.sign), and exact Python
arithmetic (integers wrapped by hand, fractions for the rounding modes). Where DirectML's documented behaviour (or
its vectors) differs from the oracle, the test says so and expects DirectML's answer.
"""
import math
import random
from fractions import Fraction

import numpy as np
import pytest

import dmlops
from dmlops import descs
from dmlops.enums import RoundingMode
from dmlops.types import DataType, TensorDesc
from tests.onnx_node_cases import attribute, generated

torch = pytest.importorskip("torch")

BACKENDS = ("reference", "onnxruntime", "torch")
SIGNED = ("INT64", "INT32", "INT16", "INT8")
UNSIGNED = ("UINT64", "UINT32", "UINT16", "UINT8")
DATA_TYPES = {"float16": "FLOAT16", "float32": "FLOAT32", "int8": "INT8", "int16": "INT16", "int32": "INT32",
              "int64": "INT64", "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64"}


def run_all(desc, inputs):
    """{backend: OutputTensor} for the three dmlops backends."""
    return {b: np.asarray(dmlops.run(desc, inputs, backend=b)["OutputTensor"]) for b in BACKENDS}


def unary(cls, t, shape, **kw):
    return cls(input_tensor=TensorDesc(t, list(shape)), output_tensor=TensorDesc(t, list(shape)), **kw)


def binary(cls, t, shape):
    return cls(a_tensor=TensorDesc(t, list(shape)), b_tensor=TensorDesc(t, list(shape)),
               output_tensor=TensorDesc(t, list(shape)))


def assert_same(got, want, what, atol=0.0, rtol=0.0, signed_zeros=True):
    """Integers exactly; floats within atol/rtol, NaN where NaN, and the sign of every expected zero."""
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True,
                               err_msg=what)
    if signed_zeros:
        zero = want == 0
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]), err_msg=f"{what}: signed zeros")


def wrap(value: int, t: str) -> int:
    """A Python int wrapped to DataType ``t`` (two's complement)."""
    bits = np.dtype(t.lower()).itemsize * 8
    value %= 2**bits
    return value - 2**bits if t in SIGNED and value >= 2**(bits - 1) else value


def int_range(t):
    info = np.iinfo(np.dtype(t.lower()))
    return int(info.min), int(info.max)


def random_ints(t, n, seed, nonzero=False):
    """Values of ``t``: the extremes, small values and random ones."""
    lo, hi = int_range(t)
    rng = random.Random(seed)
    values = [lo, hi, lo + 1, hi - 1, 0, 1, -1 if lo < 0 else 2, 7, -7 if lo < 0 else 9]
    values += [rng.randint(lo, hi) for _ in range(n - len(values) - 8)]
    values += [rng.randint(max(lo, -20), min(hi, 20)) for _ in range(8)]
    if nonzero:
        values = [v if v != 0 else 3 for v in values]
    return values


# ============================================================ ONNX node test cases
NODE_CASES = generated(["mean", "sign", "round", "mod", "neg", "clip"])


def _onnx_params():
    out = []
    for name, c in sorted(NODE_CASES.items()):
        if c.inputs is None:
            continue
        dtype = np.asarray(c.inputs[0]).dtype.name
        if dtype not in DATA_TYPES:
            out.append(pytest.param(name, marks=pytest.mark.skip(reason=f"{dtype}: DirectML has no such DataType "
                                                                         "for these operators")))
        elif name in ("test_mean_example", "test_mean_one_input"):
            out.append(pytest.param(name, marks=pytest.mark.skip(reason="ELEMENT_WISE_MEAN is binary")))
        else:
            out.append(name)
    return out


def _mod_expectation(a, b, want):
    """ONNX Mod's expectation, adjusted where DirectML's literal a - b * round(a / b) differs: x mod ±0, ±inf mod
    y and x mod ±inf are NaN (DirectML's vectors MODULUS_* float32_2x3x4x5 [5]: 1 mod inf = NaN), where fmod and
    Python's % give a finite value or a."""
    if a.dtype.kind != "f":
        return want
    a, b = np.broadcast_arrays(a, b)
    nan = (b == 0) | np.isinf(a) | np.isinf(b) | np.isnan(a) | np.isnan(b)
    return np.where(nan, np.nan, want).astype(want.dtype)


@pytest.mark.parametrize("name", _onnx_params())
def test_onnx_node_cases(name):
    c = NODE_CASES[name]
    op = c.node.op_type
    x = [np.asarray(v) for v in c.inputs]
    want = np.asarray(c.outputs[0])
    t = DATA_TYPES[x[0].dtype.name]
    atol = rtol = 0.0
    signed_zeros = True
    if op == "Mean":
        desc, inputs = binary(descs.ElementWiseMean, t, x[0].shape), {"ATensor": x[0], "BTensor": x[1]}
    elif op == "Sign":
        desc, inputs = unary(descs.ElementWiseSign, t, x[0].shape), {"InputTensor": x[0]}
    elif op == "Round":
        desc = unary(descs.ElementWiseRound, t, x[0].shape, rounding_mode=RoundingMode.HALVES_TO_NEAREST_EVEN)
        inputs = {"InputTensor": x[0]}
    elif op == "Neg":
        desc, inputs = unary(descs.ElementWiseNegate, t, x[0].shape), {"InputTensor": x[0]}
    elif op == "Mod":
        fmod = attribute(c.node, "fmod", 0)
        cls = descs.ElementWiseModulusTruncate if fmod else descs.ElementWiseModulusFloor
        a, b = np.broadcast_arrays(x[0], x[1])
        desc, inputs = binary(cls, t, a.shape), {"ATensor": np.ascontiguousarray(a), "BTensor": np.ascontiguousarray(b)}
        want = _mod_expectation(a, b, want)
        if a.dtype.kind == "f":
            # DirectML rounds a / b and b * q (fmod is exact): -4.3 mod 2.1 within an ulp of 4.3; and the sign of a zero
            # remainder is +0 for DirectML (-3 mod 1.5 = -3 - -3), -0 for fmod.
            atol, rtol, signed_zeros = (4e-3 if t == "FLOAT16" else 1e-6), 0.0, False
    elif op == "Clip":
        lo_default, hi_default = ((int_range(t)) if t not in ("FLOAT32", "FLOAT16") else (-3.0e38, 3.0e38))
        named = dict(zip([i for i in c.node.input if i], x))  # an omitted min or max is "" in node.input
        slots = list(c.node.input) + ["", ""]
        lo = named[slots[1]].item() if slots[1] else lo_default
        hi = named[slots[2]].item() if slots[2] else hi_default
        desc = unary(descs.ElementWiseClip1, t, x[0].shape, min_max_data_type=t, min=lo, max=hi)
        inputs = {"InputTensor": x[0]}
        if name == "test_clip_min_greater_than_max":  # ONNX gives Max; DirectML's max(Min, min(x, Max)) gives Min
            want = np.full_like(want, lo)
    else:
        pytest.fail(f"no mapping for {op}")
    for backend, got in run_all(desc, inputs).items():
        assert_same(got, want.astype(got.dtype) if want.dtype != got.dtype else want, f"{name} on {backend}",
                    atol=atol, rtol=rtol, signed_zeros=signed_zeros)


# ============================================================ torch oracles
def _floats(seed, n=64, scale=8):
    """Multiples of 1/8 in [-scale, scale] (every modulus step is exact on them), with ±0."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-8 * scale, 8 * scale + 1, n).astype(np.float32) / 8
    v[:2] = [0.0, -0.0]
    return v


@pytest.mark.parametrize("t", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("floor", [False, True], ids=["truncate", "floor"])
def test_float_modulus_matches_torch_where_exact(t, floor):
    """On multiples of 1/8 every step of a - b * round(a / b) is exact, so DirectML's formula equals torch.fmod /
    torch.remainder (zero divisors give NaN in both)."""
    a, b = _floats(1), _floats(2, scale=3)
    b[5] = 0
    dtype = np.float16 if t == "FLOAT16" else np.float32
    a, b = a.astype(dtype), b.astype(dtype)
    fn = torch.remainder if floor else torch.fmod
    want = fn(torch.from_numpy(a.astype(np.float32)), torch.from_numpy(b.astype(np.float32))).numpy().astype(dtype)
    cls = descs.ElementWiseModulusFloor if floor else descs.ElementWiseModulusTruncate
    for backend, got in run_all(binary(cls, t, a.shape), {"ATensor": a, "BTensor": b}).items():
        assert_same(got, want, f"{cls.OPERATOR_TYPE} {t} on {backend}", signed_zeros=False)


def test_float_modulus_rounds_where_fmod_is_exact():
    """Off the exact grid DirectML's literal formula (DirectML's vectors) and torch.fmod part in the last bits."""
    a, b = np.array([1.7206758], np.float32), np.array([0.29743248], np.float32)
    fmod = torch.fmod(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    for backend, got in run_all(binary(descs.ElementWiseModulusTruncate, "FLOAT32", [1]),
                                {"ATensor": a, "BTensor": b}).items():
        assert got[0] == np.float32(0.23351347) != fmod[0], backend


@pytest.mark.parametrize("t", SIGNED + UNSIGNED)
@pytest.mark.parametrize("floor", [False, True], ids=["truncate", "floor"])
def test_integer_modulus_matches_torch(t, floor):
    """torch.fmod (C's %) and torch.remainder (Python's %) for non-zero divisors; uint16/32/64 through Python ints
    (torch has no remainder kernels for them)."""
    a = np.array(random_ints(t, 48, 3), np.dtype(t.lower()))
    b = np.array(random_ints(t, 48, 4, nonzero=True), np.dtype(t.lower()))[::-1].copy()
    if t in ("UINT16", "UINT32", "UINT64"):
        want = np.array([(x % y) for x, y in zip(a.tolist(), b.tolist())], a.dtype)
    else:
        fn = torch.remainder if floor else torch.fmod
        ta, tb = torch.from_numpy(a.astype(np.int64)), torch.from_numpy(b.astype(np.int64))
        want = fn(ta, tb).numpy()
        if t == "INT64":  # torch traps on INT64_MIN % -1: Python's answer is 0
            want = np.array([0 if (x == -2**63 and y == -1) else int(w) for x, y, w in
                             zip(a.tolist(), b.tolist(), want.tolist())], np.int64)
        want = want.astype(a.dtype)
    cls = descs.ElementWiseModulusFloor if floor else descs.ElementWiseModulusTruncate
    for backend, got in run_all(binary(cls, t, a.shape), {"ATensor": a, "BTensor": b}).items():
        assert_same(got, want, f"{cls.OPERATOR_TYPE} {t} on {backend}")


@pytest.mark.parametrize("t", SIGNED + UNSIGNED)
@pytest.mark.parametrize("floor", [False, True], ids=["truncate", "floor"])
def test_integer_modulus_exact_python(t, floor):
    """Exact Python: C's or Python's remainder, INT_MIN mod -1 = 0, and x mod 0 = DIVIDE's x / 0 (-1 for x >= 0, 1
    for x < 0, the unsigned maximum: DirectML's MODULUS_FLOOR sample_int8_edges and MODULUS_TRUNCATE
    sample_uint64_large)."""
    a = random_ints(t, 40, 5)
    b = random_ints(t, 40, 6)[::-1]
    b[:4] = [0, 0, -1 if t in SIGNED else 1, 3]
    a[:4] = [int_range(t)[0], 5, int_range(t)[0], -5 if t in SIGNED else 5]

    def expected(x, y):
        if y == 0:
            return int_range(t)[1] if t in UNSIGNED else (1 if x < 0 else -1)
        r = x % y  # Python: the divisor's sign
        if not floor and r != 0 and (x < 0) != (y < 0):
            r -= y  # C: the dividend's sign
        return r

    dtype = np.dtype(t.lower())
    want = np.array([expected(x, y) for x, y in zip(a, b)], dtype)
    cls = descs.ElementWiseModulusFloor if floor else descs.ElementWiseModulusTruncate
    for backend, got in run_all(binary(cls, t, [len(a)]), {"ATensor": np.array(a, dtype),
                                                           "BTensor": np.array(b, dtype)}).items():
        assert_same(got, want, f"{cls.OPERATOR_TYPE} {t} on {backend}")


def test_atan_yx_matches_torch_atan2():
    """torch.atan2 (IEEE quadrants, signed zeros, infinities) on a grid of y and x, ATensor = y. DirectML's NaN rule
    (vectors ATAN_YX float32_2x3x4x5 [0], sample_specials [9], [10]; the module docstring): a NaN reads as the other
    operand's magnitude where that is finite and nonzero, so torch.atan2 is asked for atan2(|x|, x) or atan2(y, |y|)
    there; NaN against ±0, ±inf or NaN stays NaN (torch.atan2's own answer)."""
    values = np.array([0.0, -0.0, 1, -1, 0.5, -2.5, 1e-20, -3e10, np.inf, -np.inf, np.nan], np.float32)
    y, x = (a.ravel() for a in np.meshgrid(values, values, indexing="ij"))
    usable_y, usable_x = np.isfinite(y) & (y != 0), np.isfinite(x) & (x != 0)
    ty = np.where(np.isnan(y) & usable_x, np.abs(x), y)
    tx = np.where(np.isnan(x) & usable_y, np.abs(y), x)
    want = torch.atan2(torch.from_numpy(ty), torch.from_numpy(tx)).numpy()
    assert np.isnan(want).sum() == 21 - 2 * 6  # 21 pairs hold a NaN; 6 + 6 of them are finite, nonzero across
    desc = binary(descs.ElementWiseAtanYx, "FLOAT32", y.shape)
    for backend, got in run_all(desc, {"ATensor": y, "BTensor": x}).items():
        assert_same(got, want, f"ATAN_YX on {backend}", atol=2.5e-7, rtol=2.5e-7)


@pytest.mark.parametrize("t", ["FLOAT32", "FLOAT16"])
def test_atan_yx_nan_with_zero_or_infinity_is_nan(t):
    """The issue's held-back rule: a NaN with a zero on the other side is NaN (IEEE atan2(0, 0) = 0 is not taken),
    as with an infinity; with a finite nonzero value it is that value's pi/4 octant."""
    dtype = np.dtype(t.lower())
    y = np.array([np.nan, np.nan, 0, -0.0, np.nan, -np.inf, np.nan, 2, -2], dtype)
    x = np.array([0, -0.0, np.nan, np.nan, np.inf, np.nan, -0.5, np.nan, np.nan], dtype)
    pi = math.pi
    want = np.array([np.nan] * 6 + [3 * pi / 4, pi / 4, -pi / 4], dtype)
    for backend, got in run_all(binary(descs.ElementWiseAtanYx, t, [9]), {"ATensor": y, "BTensor": x}).items():
        assert_same(got, want, f"ATAN_YX {t} on {backend}", atol=2e-3 if t == "FLOAT16" else 2.5e-7, rtol=0)


def test_atan_yx_general_points_match_torch():
    rng = np.random.default_rng(7)
    y = (rng.standard_normal(200) * np.exp(rng.uniform(-8, 8, 200))).astype(np.float32)
    x = (rng.standard_normal(200) * np.exp(rng.uniform(-8, 8, 200))).astype(np.float32)
    want = torch.atan2(torch.from_numpy(y), torch.from_numpy(x)).numpy()
    desc = binary(descs.ElementWiseAtanYx, "FLOAT32", y.shape)
    for backend, got in run_all(desc, {"ATensor": y, "BTensor": x}).items():
        assert_same(got, want, f"ATAN_YX on {backend}", atol=1e-7, rtol=5e-7)


ROUND_VALUES = np.array([-2.5, -1.75, -1.5, -1.25, -0.5, -0.49999997, -0.25, -0.0, 0.0, 0.25, 0.49999997, 0.5, 1.5,
                         2.5, 3.5, 4.5, 1e7 + 0.5, 8388607.5, 8388609, 1.0000001, -0.9999999, np.inf, -np.inf, np.nan],
                        np.float32)


def _half_away(v: float) -> float:
    """DML_ROUNDING_MODE_TOWARD_INFINITY as DirectML computes it (the module docstring; DirectML's
    sample_specials_toward_infinity): x >= 0 ? floor(x + 0.5) : ceil(x - 0.5), the sum rounded to float32 (the
    float64 sum of a float32 and 0.5 is exact, then rounded once by np.float32)."""
    if not math.isfinite(v):
        return v
    if v >= 0:  # -0 too: +0
        return float(math.floor(np.float32(v + 0.5)))
    return -float(-math.ceil(np.float32(v - 0.5)))  # a negative x rounding to 0 gives -0


def test_round_toward_infinity_differs_from_exact_halves_away_where_directml_does():
    """The two places where the float32 sum moves the answer, by exact arithmetic: 0.49999997 and 2**23 + 1."""
    for v, exact, directml in ((0.49999997, 0, 1), (-0.49999997, 0, -1), (8388609, 8388609, 8388610),
                               (-8388609, -8388609, -8388610), (0.5, 1, 1), (-2.5, -3, -3)):
        v = float(np.float32(v))
        assert math.floor(abs(Fraction(v)) + Fraction(1, 2)) == abs(exact)
        assert _half_away(v) == directml
    x = np.array([0.49999997, -0.49999997, 8388609, -8388609], np.float32)
    desc = unary(descs.ElementWiseRound, "FLOAT32", x.shape, rounding_mode=RoundingMode.TOWARD_INFINITY)
    for backend, got in run_all(desc, {"InputTensor": x}).items():
        assert_same(got, np.array([1, -1, 8388610, -8388610], np.float32), f"ROUND on {backend}")


@pytest.mark.parametrize("mode", list(RoundingMode), ids=lambda m: m.name)
def test_round_modes(mode):
    """torch.round (ties to even), torch.trunc (toward zero) and DirectML's ties-away-from-zero formula in Python."""
    x = ROUND_VALUES
    if mode == RoundingMode.HALVES_TO_NEAREST_EVEN:
        want = torch.round(torch.from_numpy(x)).numpy()
    elif mode == RoundingMode.TOWARD_ZERO:
        want = torch.trunc(torch.from_numpy(x)).numpy()
    else:
        want = np.array([_half_away(float(v)) for v in x], np.float32)
    for backend, got in run_all(unary(descs.ElementWiseRound, "FLOAT32", x.shape, rounding_mode=mode),
                                {"InputTensor": x}).items():
        assert_same(got, want, f"ROUND {mode.name} on {backend}")


@pytest.mark.parametrize("t", ["FLOAT32", "INT8", "INT16", "INT32", "INT64"])
def test_negate_matches_torch_neg(t):
    if t == "FLOAT32":
        x = np.array([0.0, -0.0, 1.5, -3, np.inf, -np.inf, np.nan, 1e-45], np.float32)
    else:
        x = np.array(random_ints(t, 32, 8), np.dtype(t.lower()))
    want = torch.neg(torch.from_numpy(x)).numpy()  # INT_MIN wraps to INT_MIN
    assert x.dtype.kind == "f" or want[0] == int_range(t)[0]
    if t in ("INT8", "INT16"):  # DirectML saturates the narrow types (NEGATE sample_int8_wrap: -(-128) = 127)
        want = np.array([min(-int(v), int_range(t)[1]) for v in x], x.dtype)
        assert want[0] == int_range(t)[1]
    for backend, got in run_all(unary(descs.ElementWiseNegate, t, x.shape), {"InputTensor": x}).items():
        assert_same(got, want, f"NEGATE {t} on {backend}")


@pytest.mark.parametrize("t", ["FLOAT32", "FLOAT16"] + list(SIGNED + UNSIGNED))
def test_sign(t):
    """torch.sign, except NaN: the docs' "0 otherwise" (and DirectML's vectors) give 0 where torch gives NaN."""
    if t.startswith("FLOAT"):
        x = np.array([0.0, -0.0, 2.5, -1e-30, np.inf, -np.inf, np.nan, 7], np.dtype(t.lower()))
        want = torch.sign(torch.from_numpy(x.astype(np.float32))).numpy()
        want = np.where(np.isnan(x), 0, want + 0.0).astype(x.dtype)  # + 0.0: sign(-0) is +0 for DirectML
    else:
        vals = random_ints(t, 24, 9)
        x = np.array(vals, np.dtype(t.lower()))
        want = np.array([(v > 0) - (v < 0) for v in vals], x.dtype)
    for backend, got in run_all(unary(descs.ElementWiseSign, t, x.shape), {"InputTensor": x}).items():
        assert_same(got, want, f"SIGN {t} on {backend}")


@pytest.mark.parametrize("t", ["INT32", "UINT32"])
def test_integer_mean_and_difference_square_exact_python(t):
    """Exact Python: (a + b) wrapped, halved toward zero (the vectors' int32_3x4x5 truncates; the wrap is unverified);
    (a - b) wrapped, squared, wrapped."""
    a, b = random_ints(t, 40, 10), random_ints(t, 40, 11)[::-1]
    dtype = np.dtype(t.lower())
    mean = np.array([int(Fraction(wrap(x + y, t), 2)) for x, y in zip(a, b)], dtype)  # int() truncates toward zero
    square = np.array([wrap(wrap(x - y, t) ** 2, t) for x, y in zip(a, b)], dtype)
    inputs = {"ATensor": np.array(a, dtype), "BTensor": np.array(b, dtype)}
    for cls, want in ((descs.ElementWiseMean, mean), (descs.ElementWiseDifferenceSquare, square)):
        for backend, got in run_all(binary(cls, t, [len(a)]), inputs).items():
            assert_same(got, want, f"{cls.OPERATOR_TYPE} {t} on {backend}")


def test_float_mean_and_difference_square_match_torch():
    rng = np.random.default_rng(12)
    a = (rng.standard_normal(64) * 100).astype(np.float32)
    b = (rng.standard_normal(64) * 100).astype(np.float32)
    a[:4], b[:4] = [3e38, np.inf, -0.0, np.nan], [3e38, -np.inf, -0.0, 1]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    cases = ((descs.ElementWiseMean, ((ta + tb) / 2).numpy()),  # the float32 sum first: 3e38 + 3e38 = inf
             (descs.ElementWiseDifferenceSquare, ((ta - tb) * (ta - tb)).numpy()))
    for cls, want in cases:
        for backend, got in run_all(binary(cls, "FLOAT32", a.shape), {"ATensor": a, "BTensor": b}).items():
            assert_same(got, want, f"{cls.OPERATOR_TYPE} on {backend}")


@pytest.mark.parametrize("t", ["FLOAT32", "FLOAT16"] + list(SIGNED + UNSIGNED))
def test_clip1_matches_torch_clamp(t):
    """torch.clamp with Min <= Max and no NaN (where both agree with DirectML), the bounds typed by the tensor:
    64-bit bounds beyond float32 are exact."""
    if t.startswith("FLOAT"):
        x = np.linspace(-4, 4, 33).astype(np.dtype(t.lower()))
        lo, hi = -1.25, 2.5
        want = torch.clamp(torch.from_numpy(x.astype(np.float32)), lo, hi).numpy().astype(x.dtype)
    else:
        vals = random_ints(t, 32, 13)
        x = np.array(vals, np.dtype(t.lower()))
        tlo, thi = int_range(t)
        lo, hi = tlo + (thi - tlo) // 3 + 1, thi - (thi - tlo) // 5 - 1  # not float32-representable for 64-bit types
        want = np.array([min(max(v, lo), hi) for v in vals], x.dtype)
    desc = unary(descs.ElementWiseClip1, t, x.shape, min_max_data_type=DataType[t], min=lo, max=hi)
    for backend, got in run_all(desc, {"InputTensor": x}).items():
        assert_same(got, want, f"CLIP1 {t} on {backend}")


def test_clip1_min_above_max_and_nan():
    """DirectML's max(Min, min(x, Max)): Min when Min > Max (torch.clamp gives Max), and Max for NaN (torch keeps
    NaN), as DirectML's vectors show (CLIP1 float32_min_1.0_max_-1.0, float32_min_-1.0_max_1.5 [0])."""
    x = np.array([-3, 0, 3, np.nan], np.float32)
    assert torch.clamp(torch.from_numpy(x), 1.0, -1.0).numpy()[0] == -1  # torch: Max
    for backend, got in run_all(unary(descs.ElementWiseClip1, "FLOAT32", [4], min_max_data_type="FLOAT32", min=1.0,
                                      max=-1.0), {"InputTensor": x}).items():
        assert_same(got, np.ones(4, np.float32), backend)
    for backend, got in run_all(unary(descs.ElementWiseClip1, "FLOAT32", [4], min_max_data_type="FLOAT32", min=-1.0,
                                      max=1.5), {"InputTensor": x}).items():
        assert_same(got, np.array([-1, 0, 1.5, 1.5], np.float32), backend)
