"""DML_OPERATOR_RANDOM_GENERATOR: Philox4x32-10 random bits (the only DML_RANDOM_GENERATOR_TYPE).

State (docs): InputStateTensor holds 6 UINT32 values, {1, .., 1, 6}: elements 0-3 a 128-bit counter,
elements 4-5 the 64-bit key. OutputTensor (any Sizes) is filled with ceil(N / 4) Philox blocks, N its
element count; OutputStateTensor is the input state with the counter advanced by ceil(N / 4) and the
key unchanged.

The docs do not spell out the word order or how blocks map to output elements; dmlops follows the
Random123 conventions the docs cite: counter element 0 is the least significant word (Random123
increments ctr.v[0] first, carrying into v[1..3]), block j uses counter + j, and output element i
(row-major over OutputTensor's Sizes) is word i % 4 of block i // 4; a last partial block is
truncated. (The docs' increment example - "HelloFromSeattle" becoming "HelloFromSeatown" - is
ASCII word play: 0x74746c65 + 324855 is not 0x746f776e, so it fixes neither order.)

Philox4x32-10 (Salmon et al. 2011; Random123 philox.h): 10 rounds of
  (c0, c1, c2, c3) <- (hi(M1 * c2) ^ c1 ^ k0, lo(M1 * c2), hi(M0 * c0) ^ c3 ^ k1, lo(M0 * c0))
with the key bumped by (W0, W1) mod 2**32 between rounds. The lowerings need the full 64-bit
product of two 32-bit words: the reference and ONNX take it in uint64 (exact: it is below 2**64;
onnxruntime's CPU provider has uint64 Mul, BitShift and BitwiseAnd); torch 2.4 has few unsigned
kernels, so the torch lowering splits M into 16-bit halves and stays in int64 without overflow.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from ..validation import shape_problem, tensor

M0, M1 = 0xD2511F53, 0xCD9E8D57  # Philox multipliers
W0, W1 = 0x9E3779B9, 0xBB67AE85  # Weyl key increments
ROUNDS = 10
MASK = 0xFFFFFFFF


def check(desc, level) -> list[Problem]:
    """InputStateTensor is {1, .., 1, 6} (OutputStateTensor must match it: a same-constraint)."""
    state = tensor(desc, "InputStateTensor")
    if state is None or not state.sizes:
        return []
    found = list(state.sizes)
    expected = [1] * (len(found) - 1) + [6]
    if found != expected:
        formula = "{" + ", ".join(["1"] * (len(found) - 1) + ["6"]) + "}"
        return [shape_problem(desc, "InputStateTensor", found, formula, expected)]
    return []


def _blocks(desc) -> tuple[int, int]:
    """(N, ceil(N / 4)): OutputTensor's element count and the number of Philox blocks."""
    n = int(np.prod(desc.output_tensor.sizes))
    return n, -(-n // 4)


# ---------------------------------------------------------------- reference (NumPy, uint64)
def _add_counter(words, j):
    """The 128-bit counter ``words`` (4 uint64 values below 2**32, least significant first) plus ``j``."""
    out, carry = [], np.asarray(j, np.uint64)
    for w in words:
        s = w + carry
        out.append(s & np.uint64(MASK))
        carry = s >> np.uint64(32)
    return out  # the carry out of the top word is dropped: the counter wraps modulo 2**128


def philox4x32_10(counter, key):
    """Philox4x32-10 of counter words (c0..c3) and key words (k0, k1), uint64 arrays below 2**32."""
    c0, c1, c2, c3 = (np.asarray(c, np.uint64) for c in counter)
    k0, k1 = (np.uint64(k) for k in key)
    mask, shift = np.uint64(MASK), np.uint64(32)
    for r in range(ROUNDS):
        if r:
            k0, k1 = (k0 + np.uint64(W0)) & mask, (k1 + np.uint64(W1)) & mask
        p0, p1 = np.uint64(M0) * c0, np.uint64(M1) * c2  # exact 64-bit products
        c0, c1, c2, c3 = (p1 >> shift) ^ c1 ^ k0, p1 & mask, (p0 >> shift) ^ c3 ^ k1, p0 & mask
    return c0, c1, c2, c3


def reference(desc, x):
    """Blocks counter + j for j < ceil(N / 4), interleaved word by word, truncated to N."""
    state = x["InputStateTensor"].reshape(6).astype(np.uint64)
    n, blocks = _blocks(desc)
    words = philox4x32_10(_add_counter(state[:4], np.arange(blocks, dtype=np.uint64)), state[4:])
    values = np.stack(words, axis=-1).reshape(-1)[:n].reshape(desc.output_tensor.sizes)
    out = {"OutputTensor": values}
    if desc.output_state_tensor is not None:
        counter = _add_counter(state[:4], blocks)
        out["OutputStateTensor"] = np.array(counter + list(state[4:]), np.uint64).reshape(
            desc.output_state_tensor.sizes)
    return out


# ---------------------------------------------------------------- ONNX (uint64 integer ops)
def _onnx_add(g, words, j):
    out, carry = [], j
    mask, shift = g.const(np.uint64(MASK)), g.const(np.uint64(32))
    for w in words:
        s = g.node("Add", [w, carry])
        out.append(g.node("BitwiseAnd", [s, mask]))
        carry = g.node("BitShift", [s, shift], direction="RIGHT")
    return out


def to_onnx(desc, g, x):
    """The reference algorithm with Mul/BitShift/BitwiseAnd/BitwiseXor on uint64 values."""
    state = g.cast(g.node("Reshape", [x["InputStateTensor"], g.ints([6])]), np.uint64)
    word = [g.node("Slice", [state, g.ints([i]), g.ints([i + 1])]) for i in range(6)]  # each of shape [1]
    n, blocks = _blocks(desc)
    j = g.cast(g.node("Range", [g.const(np.int64(0)), g.const(np.int64(blocks)), g.const(np.int64(1))]), np.uint64)
    c0, c1, c2, c3 = _onnx_add(g, word[:4], j)
    k0, k1 = word[4], word[5]
    mask, shift = g.const(np.uint64(MASK)), g.const(np.uint64(32))
    for r in range(ROUNDS):
        if r:
            k0 = g.node("BitwiseAnd", [g.node("Add", [k0, g.const(np.uint64(W0))]), mask])
            k1 = g.node("BitwiseAnd", [g.node("Add", [k1, g.const(np.uint64(W1))]), mask])
        p0 = g.node("Mul", [c0, g.const(np.uint64(M0))])
        p1 = g.node("Mul", [c2, g.const(np.uint64(M1))])
        hi0, hi1 = (g.node("BitShift", [p, shift], direction="RIGHT") for p in (p0, p1))
        c0, c1, c2, c3 = (g.node("BitwiseXor", [g.node("BitwiseXor", [hi1, c1]), k0]),
                          g.node("BitwiseAnd", [p1, mask]),
                          g.node("BitwiseXor", [g.node("BitwiseXor", [hi0, c3]), k1]),
                          g.node("BitwiseAnd", [p0, mask]))
    columns = [g.node("Unsqueeze", [c, g.ints([1])]) for c in (c0, c1, c2, c3)]
    flat = g.node("Reshape", [g.node("Concat", columns, axis=1), g.ints([-1])])
    flat = g.node("Slice", [flat, g.ints([0]), g.ints([n])])
    out = {"OutputTensor": g.node("Reshape", [flat, g.ints(desc.output_tensor.sizes)])}
    if desc.output_state_tensor is not None:
        counter = _onnx_add(g, word[:4], g.const(np.array([blocks], np.uint64)))
        new = g.node("Concat", counter + word[4:], axis=0)
        out["OutputStateTensor"] = g.node("Reshape", [new, g.ints(desc.output_state_tensor.sizes)])
    return out


# ---------------------------------------------------------------- torch (int64, no overflow)
def _mulhilo(a, m: int):
    """(hi, lo) 32-bit words of a * m for int64 tensors ``a`` below 2**32, every partial product below 2**49."""
    p_low, p_high = a * (m & 0xFFFF), a * (m >> 16)  # a * m = p_high * 2**16 + p_low
    t = p_low + ((p_high & 0xFFFF) << 16)
    return (p_high >> 16) + (t >> 32), t & MASK


def _torch_add(words, j):
    out, carry = [], j
    for w in words:
        s = w + carry
        out.append(s & MASK)
        carry = s >> 32
    return out


def to_torch(desc, torch, x):
    """The reference algorithm in int64 torch ops (products split into 16-bit halves of M)."""
    state = x["InputStateTensor"].reshape(6).to(torch.int64)
    n, blocks = _blocks(desc)
    j = torch.arange(blocks, dtype=torch.int64, device=state.device)
    c0, c1, c2, c3 = _torch_add([state[i] for i in range(4)], j)
    k0, k1 = state[4], state[5]
    for r in range(ROUNDS):
        if r:
            k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
        hi0, lo0 = _mulhilo(c0, M0)
        hi1, lo1 = _mulhilo(c2, M1)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    values = torch.stack([c0, c1, c2, c3], dim=-1).reshape(-1)[:n].reshape(desc.output_tensor.sizes)
    out = {"OutputTensor": values}
    if desc.output_state_tensor is not None:
        counter = _torch_add([state[i] for i in range(4)], blocks)
        out["OutputStateTensor"] = torch.stack(counter + [state[4], state[5]]).reshape(
            desc.output_state_tensor.sizes)
    return out


# ---------------------------------------------------------------- samples
def _random(out_sizes, state_sizes=(1, 1, 1, 6), with_state=True):
    from ..descs import RandomGenerator

    state = td("UINT32", list(state_sizes))
    return RandomGenerator(input_state_tensor=state, output_tensor=td("UINT32", out_sizes),
                           output_state_tensor=state if with_state else None, type="PHILOX_4X32_10")


def _samples():
    u32 = np.uint32
    ones = 0xFFFFFFFF
    pi = [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0]
    exact = dict(atol=0, rtol=0, why="integer bits: exact")

    def state(words):
        return np.array(words, u32).reshape(1, 1, 1, 6)

    return [
        # One block each: the outputs are Random123's known answers (tests/kat_vectors, "philox4x32 10"
        # lines); the output states are counter + 1 by hand (all-ones wraps to zero, the key stays).
        Sample("kat_zero", _random([1, 1, 1, 4]), {"InputStateTensor": state([0] * 6)},
               {"OutputTensor": np.array([0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8], u32).reshape(1, 1, 1, 4),
                "OutputStateTensor": state([1, 0, 0, 0, 0, 0])}, **exact),
        Sample("kat_all_ones_counter_wraps", _random([1, 1, 1, 4]), {"InputStateTensor": state([ones] * 6)},
               {"OutputTensor": np.array([0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD], u32).reshape(1, 1, 1, 4),
                "OutputStateTensor": state([0, 0, 0, 0, ones, ones])}, **exact),
        Sample("kat_pi", _random([2, 2]), {"InputStateTensor": state(pi)},
               {"OutputTensor": np.array([[0xD16CFE09, 0x94FDCCEB], [0x5001E420, 0x24126EA1]], u32),
                "OutputStateTensor": state([0x243F6A89] + pi[1:])}, **exact),
        # By hand: 10 outputs use ceil(10 / 4) = 3 blocks, so the counter [0xffffffff, 0xffffffff, 7, 0]
        # advances by 3 to [2, 0, 8, 0] (two carries); the first block is the counter itself, so the first 4
        # outputs are philox(counter, key) - checked against the torch and ONNX lowerings only.
        Sample("three_blocks_carry", _random([1, 1, 2, 5]),
               {"InputStateTensor": state([ones, ones, 7, 0, 12345, 67890])},
               {"OutputStateTensor": state([2, 0, 8, 0, 12345, 67890])}, **exact),
        Sample("no_output_state_1d", _random([7], state_sizes=(6,), with_state=False),
               {"InputStateTensor": np.array([3, 1, 4, 1, 5, 9], u32)}, **exact),
        Sample("many_blocks_3d", _random([3, 5, 17], state_sizes=(1, 1, 6)),
               {"InputStateTensor": np.array([ones - 100, 2, ones, 0, 0xDEADBEEF, 0xCAFEF00D], u32).reshape(1, 1, 6)},
               **exact),
    ]


SAMPLES = _samples()
