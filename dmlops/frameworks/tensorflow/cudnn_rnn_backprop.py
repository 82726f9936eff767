"""CudnnRNNBackpropV3 composed from DirectML operators (DirectML has no GRU, LSTM or RNN gradient operator).

Per layer (last first) and direction, with T steps, N sequences, H units and G gates:

1. Inputs of the cell, for every step at once: the layer's input X [T * N, in] (the input, or the output sequence
   of the layer below times its dropout mask, both from reserve_space) and the previous states Hp [T * N, H]
   (input_h at the first step, else the direction's own output one step earlier in its order; with
   sequence_lengths the backward direction starts from input_h at t = length - 1, through the host mask ``last``).
2. Two GEMMs recompute every gate pre-activation (X W^T + b_W and Hp R^T + b_R), and element-wise operators give,
   per step, the factors K that turn the state gradient into gate gradients (the cell equations are linear in it).
   The mask ``valid`` (t < length) is folded into K, so padded steps add nothing to any gradient.
3. The recurrence, one step at a time in reverse order: dh_t = dh + dY_t; gate gradients A_t = dh_t * K_t;
   dh = GEMM(A_t, R) + dh_t * P_t (P = z for a GRU, 1 - valid otherwise: at padded steps the gradient passes
   through unchanged). An LSTM also carries dc and first rebuilds its cell states c_t step by step.
4. JOIN of the A_t over time, then one GEMM each: dW = A^T X, dR = A^T Hp, the layer's input gradient A W;
   REDUCE SUM over the rows gives the bias gradients.

The gradient equations are research/seed_semantics.md §2.4 (GRU, LinearBeforeReset TRUE) and the standard LSTM and
RNN backpropagation through time; tests/test_frameworks_cudnn_rnn.py checks them against torch autograd.
"""
from __future__ import annotations

import math

from ... import descs as _descs
from ...compose import Composer, Tensor
from .cudnn_rnn_params import RnnConfig, param_slice


class _Graph:
    """The composer with the shapes and masks every direction uses."""

    def __init__(self, c: Composer, config: RnnConfig, valid: Tensor | None, last: Tensor | None):
        self.c, self.config = c, config
        self.t, self.n, self.d, self.h = config.steps, config.batch, config.dirs, config.units
        self.valid4 = valid  # [T, N, 1, 1]
        self.valid = None if valid is None else valid.view([1, 1, self.t * self.n, 1])
        self.last = last  # [1, T, N, 1]
        self._keep: Tensor | None = None

    @property
    def keep(self) -> Tensor | None:
        """1 - valid: where the state gradient passes a padded step unchanged (None without sequence_lengths)."""
        if self._keep is None and self.valid is not None:
            self._keep = self.one_minus(self.valid)
        return self._keep

    def one_minus(self, a: Tensor) -> Tensor:
        """1 - a (ELEMENT_WISE_IDENTITY with ScaleBias)."""
        return self.c.identity(a, scale=-1.0, bias=1.0)

    def masked(self, a: Tensor) -> Tensor:
        """a * valid (zero at padded steps), or a without sequence_lengths."""
        return a if self.valid is None else self.c.mul(a, self.valid)

    def rows(self, a: Tensor, step: int) -> Tensor:
        """Step ``step``'s N rows of a [1, 1, T * N, W] tensor."""
        return self.c.slice(a, [0, 0, step * self.n, 0], [1, 1, self.n, a.sizes[3]])

    def cols(self, a: Tensor, start: int, width: int) -> Tensor:
        """Columns [start, start + width) of a packed [1, 1, R, W] node output (a view when start is 0)."""
        rows, full = a.sizes[2], a.sizes[3]
        if start == 0:
            return a if width == full else a.view([1, 1, rows, width], [0, 0, full, 1])
        return self.c.slice(a, [0, 0, 0, start], [1, 1, rows, width])


def compose_cudnn_rnn_backprop_v3(c: Composer, *, config: RnnConfig, input: Tensor, input_h: Tensor,
                                  input_c: Tensor | None, params: Tensor, output_backprop: Tensor,
                                  output_h_backprop: Tensor, output_c_backprop: Tensor | None, reserve_space: Tensor,
                                  valid: Tensor | None = None, last: Tensor | None = None) -> dict[str, Tensor]:
    """Add CudnnRNNBackpropV3's nodes to ``c`` (see the module docstring); return ``input_backprop``
    ([1, 1, T * N, I], time-major rows), ``input_h_backprop`` / ``input_c_backprop`` ([1, L * dir, N, H]) and
    ``params_backprop`` ([1, 1, 1, P], canonical layout).

    Tensors: ``input`` [1, 1, T * N, I] or [1, T, N, I] (any Strides), ``input_h`` / ``input_c`` /
    ``output_h_backprop`` / ``output_c_backprop`` [1, L * dir, N, H] (the ``_c`` ones for lstm only), ``params``
    [1, 1, 1, P], ``output_backprop`` [T, N, dir, H] (any Strides), ``reserve_space`` [blocks * T, N, dir, H] (any
    Strides) as compose_cudnn_rnn_v3 returns it, ``valid`` [T, N, 1, 1] and ``last`` [1, T, N, 1] from
    ``sequence_masks`` (None without sequence_lengths; ``last`` only for a bidirectional RNN with T > 1).
    """
    g = _Graph(c, config, valid, last)
    t, n, d, h, layers = g.t, g.n, g.d, g.h, config.layers

    def block(k):  # a packed [T, N, dir, H] copy of block k
        return c.slice(reserve_space, [k * t, 0, 0, 0], [t, n, d, h])

    sequences = [block(layer) for layer in range(layers)]
    masks = [None] + [block(layers + layer - 1) if config.dropout else None for layer in range(1, layers)]
    x = _matrix(c, input, t * n, config.shape.input_size)
    dy = output_backprop if valid is None else c.mul(output_backprop, valid)
    pieces, dh0, dc0 = {}, {}, {}
    for layer in reversed(range(layers)):
        if layer > 0:
            below = sequences[layer - 1].view([1, 1, t * n, d * h])
            x_layer = below if masks[layer] is None else c.mul(below, masks[layer].view([1, 1, t * n, d * h]))
        else:
            x_layer = x
        dx: Tensor | None = None
        for direction in range(d):
            k = layer * d + direction
            states = (_pick(c, input_h, k), _pick(c, input_c, k), _pick(c, output_h_backprop, k),
                      _pick(c, output_c_backprop, k))
            found = _direction(g, params, layer, direction, x_layer, sequences[layer], dy, states)
            pieces[k], dh0[k], dc0[k] = found["pieces"], found["dh0"], found["dc0"]
            for a, b in found["dx"]:
                dx = c.gemm(a, b, dx)
        assert dx is not None  # every direction adds to it
        if layer > 0:
            dy = dx if masks[layer] is None else c.mul(dx, masks[layer].view([1, 1, t * n, d * h]))
            dy = dy.view([t, n, d, h])
        else:
            input_backprop = dx
    order = range(layers * d)
    flat = [p for kind in ("weights", "biases") for k in order for p in pieces[k][kind]]
    out = {"input_backprop": input_backprop,
           "input_h_backprop": c.join([dh0[k] for k in order], 1),
           "params_backprop": c.join([p.view([1, 1, 1, math.prod(p.sizes)]) for p in flat], 3)}
    if config.shape.rnn_mode == "lstm":
        out["input_c_backprop"] = c.join([dc0[k] for k in order], 1)
    return out


def _matrix(c: Composer, a: Tensor, rows: int, cols: int) -> Tensor:
    """``a`` as a packed [1, 1, rows, cols] matrix (an IDENTITY copy when it is read through other strides)."""
    if tuple(a.sizes) == (1, 1, rows, cols) and (a.desc.strides is None or a.desc.strides == a.desc.packed_strides):
        return a
    if a.desc.strides is not None and tuple(a.desc.strides) != a.desc.packed_strides:
        a = c.identity(a)
    return a.reshape([1, 1, rows, cols])


def _pick(c: Composer, state: Tensor | None, k: int) -> Tensor | None:
    """State k ([1, 1, N, H]) of a [1, L * dir, N, H] tensor."""
    if state is None:
        return None
    if state.sizes[1] == 1:
        return state
    return c.slice(state, [0, k, 0, 0], [1, 1, state.sizes[2], state.sizes[3]])


def _direction(g: _Graph, params: Tensor, layer: int, direction: int, x: Tensor, sequence: Tensor, dy: Tensor,
               states) -> dict:
    """The gradients of one (layer, direction): params pieces in canonical order, dh0, dc0, and the GEMM terms
    (A, W) whose sum is the layer input's gradient."""
    c, config = g.c, g.config
    shape = config.shape
    t, n, d, h = g.t, g.n, g.d, g.h
    gates = len(shape.gates)
    width = shape.layer_input_size(layer)
    h0, c0, dh, dc = states

    def weights(kind, source, gate_index, count, sizes):
        first = shape.block(kind, layer, direction, source, shape.gates[gate_index])
        return param_slice(c, params, first.offset, first.size * count, sizes)

    w = weights("weight", "input", 0, gates, [1, 1, gates * h, width])
    r = weights("weight", "recurrent", 0, gates, [1, 1, gates * h, h])
    # The previous states Hp [T * N, H] (time order), from this direction's output sequence.
    seq4 = sequence.view([t, n, d, h])
    if t == 1:
        hp = h0
    elif direction == 0:
        hp = c.join([h0, sequence.view([1, 1, (t - 1) * n, h], [0, 0, d * h, 1])], 2)
    else:
        later = c.slice(seq4, [1, 0, 1, 0], [t - 1, n, 1, h]).view([1, 1, (t - 1) * n, h])
        hp = c.join([later, h0], 2)
        if g.last is not None:  # the step where a shorter sequence starts from input_h
            hp = c.add(hp.view([1, t, n, h]), c.mul(g.last, h0)).view([1, 1, t * n, h])
    forward_order = list(range(t)) if direction == 0 else list(reversed(range(t)))
    backward_order = list(reversed(forward_order))

    def dy_at(step):
        return c.slice(dy, [step, 0, direction, 0], [1, n, 1, h]).view([1, 1, n, h])

    def keep_at(step):
        return None if g.keep is None else g.rows(g.keep, step)

    if shape.rnn_mode == "gru":
        return _gru(g, weights, w, r, x, hp, dh, forward_order, backward_order, dy_at)
    if shape.rnn_mode == "lstm":
        return _lstm(g, weights, w, r, x, hp, c0, dh, dc, forward_order, backward_order, dy_at, keep_at)
    if direction == 0:
        own = sequence.view([1, 1, t * n, h], [0, 0, d * h, 1])
    else:
        own = c.slice(seq4, [0, 0, 1, 0], [t, n, 1, h]).view([1, 1, t * n, h])
    return _rnn(g, w, r, x, hp, own, dh, backward_order, dy_at, keep_at)


def _biased_gemms(g: _Graph, weights, w, r, x, hp):
    """X W^T + b_W and Hp R^T + b_R for every step: [1, 1, T * N, G * H] each."""
    c, h, gates = g.c, g.h, len(g.config.shape.gates)
    b_w = weights("bias", "input", 0, gates, [1, 1, 1, gates * h])
    b_r = weights("bias", "recurrent", 0, gates, [1, 1, 1, gates * h])
    return c.gemm(x, w, b_w, trans_b=True), c.gemm(hp, r, b_r, trans_b=True)


def _gru(g, weights, w, r, x, hp, dh, forward_order, backward_order, dy_at):
    """GRU, gates r, z, h, LinearBeforeReset: n = tanh(x W_h^T + b_Wh + r * q), q = h R_h^T + b_Rh."""
    c, n, h = g.c, g.n, g.h
    xw, hr = _biased_gemms(g, weights, w, r, x, hp)
    rz = c.activation("SIGMOID", c.add(g.cols(xw, 0, 2 * h), g.cols(hr, 0, 2 * h)))
    reset, update = g.cols(rz, 0, h), g.cols(rz, h, h)
    q = g.cols(hr, 2 * h, h)
    new = c.activation("TANH", c.add(g.cols(xw, 2 * h, h), c.mul(reset, q)))
    keep = g.one_minus(update)
    k_h = c.mul(keep, g.one_minus(c.mul(new, new)))  # dh_t -> d(pre-activation of n)
    k_z = c.mul(c.sub(hp, new), c.mul(update, keep))  # dh_t -> d(pre-activation of z)
    k_q = c.mul(k_h, reset)  # dh_t -> dq
    k_r = c.mul(c.mul(k_q, q), g.one_minus(reset))  # dh_t -> d(pre-activation of r)
    factors = g.masked(c.join([k_r, k_z, k_q, k_h], 3))  # [T * N, 4H]: r, z, q, h
    # dh_{t-1} gets dh_t * z directly at a valid step, dh_t unchanged at a padded one: 1 + valid * (z - 1).
    carry = update if g.valid is None else c.identity(c.mul(g.valid, c.identity(update, bias=-1.0)), bias=1.0)
    grads = {}
    for step in backward_order:
        total = c.add(dh, dy_at(step))
        a = c.mul(total.view([1, n, 1, h]).broadcast([1, n, 4, h]), g.rows(factors, step).view([1, n, 4, h]))
        grads[step] = a.view([1, 1, n, 4 * h])
        dh = c.gemm(a.view([1, 1, n, 3 * h], [0, 0, 4 * h, 1]), r, c.mul(total, g.rows(carry, step)))
    da = c.join([grads[step] for step in range(g.t)], 2)  # [T * N, 4H], time order
    da_rz, da_rzq, da_h = g.cols(da, 0, 2 * h), g.cols(da, 0, 3 * h), g.cols(da, 3 * h, h)
    sums = c.reduce(da, "SUM", [2])
    w_h = weights("weight", "input", 2, 1, [1, 1, h, w.sizes[3]])
    return {"pieces": {"weights": [c.gemm(da_rz, x, trans_a=True), c.gemm(da_h, x, trans_a=True),
                                   c.gemm(da_rzq, hp, trans_a=True)],
                       "biases": [g.cols(sums, 0, 2 * h), g.cols(sums, 3 * h, h), g.cols(sums, 0, 3 * h)]},
            "dh0": dh, "dc0": None, "dx": [(da_rz, w.view([1, 1, 2 * h, w.sizes[3]])), (da_h, w_h)]}


def _lstm(g, weights, w, r, x, hp, c0, dh, dc, forward_order, backward_order, dy_at, keep_at):
    """LSTM, gates i, f, c (g), o: c_t = f c_{t-1} + i g, h_t = o tanh(c_t)."""
    c, n, h = g.c, g.n, g.h
    xw, hr = _biased_gemms(g, weights, w, r, x, hp)
    pre = c.add(xw, hr)
    s = c.activation("SIGMOID", pre)
    i, f, o = g.cols(s, 0, h), g.cols(s, h, h), g.cols(s, 3 * h, h)
    cand = c.activation("TANH", g.cols(pre, 2 * h, h))
    forget = f if g.valid is None else c.identity(c.mul(g.valid, c.identity(f, bias=-1.0)), bias=1.0)
    added = g.masked(c.mul(i, cand))
    cell, before, after = c0, {}, {}
    for step in forward_order:  # the cell states, which DirectML's LSTM does not return
        before[step] = cell
        cell = c.add(c.mul(cell, g.rows(forget, step)), g.rows(added, step))
        after[step] = cell
    cells = c.join([after[step] for step in range(g.t)], 2)
    previous = c.join([before[step] for step in range(g.t)], 2)
    tc = c.activation("TANH", cells)
    k_dc = g.masked(c.mul(o, g.one_minus(c.mul(tc, tc))))  # dh_t -> dc_t
    k_o = g.masked(c.mul(tc, c.mul(o, g.one_minus(o))))  # dh_t -> d(pre-activation of o)
    k_ifc = g.masked(c.join([c.mul(cand, c.mul(i, g.one_minus(i))),  # dc_t -> d(pre-activations of i, f, c)
                             c.mul(previous, c.mul(f, g.one_minus(f))),
                             c.mul(i, g.one_minus(c.mul(cand, cand)))], 3))
    grads = {}
    for step in backward_order:
        total = c.add(dh, dy_at(step))
        total_c = c.add(dc, c.mul(total, g.rows(k_dc, step)))
        a = c.mul(total_c.view([1, n, 1, h]).broadcast([1, n, 3, h]), g.rows(k_ifc, step).view([1, n, 3, h]))
        grads[step] = c.join([a.view([1, 1, n, 3 * h]), c.mul(total, g.rows(k_o, step))], 3)
        dc = c.mul(total_c, g.rows(forget, step))
        keep = keep_at(step)
        dh = c.gemm(grads[step], r, None if keep is None else c.mul(total, keep))
    da = c.join([grads[step] for step in range(g.t)], 2)
    sums = c.reduce(da, "SUM", [2])
    return {"pieces": {"weights": [c.gemm(da, x, trans_a=True), c.gemm(da, hp, trans_a=True)],
                       "biases": [sums, sums]},
            "dh0": dh, "dc0": dc, "dx": [(da, w)]}


def _rnn(g, w, r, x, hp, own, dh, backward_order, dy_at, keep_at):
    """rnn_tanh / rnn_relu: h_t = act(x W^T + b_W + h R^T + b_R); the derivative comes from h_t itself."""
    c = g.c
    if g.config.shape.rnn_mode == "rnn_tanh":
        slope = g.one_minus(c.mul(own, own))
    else:  # 1 where h_t > 0: CEIL of h clipped to [0, 1] (FL 1.0; ACTIVATION_RELU_GRAD needs 3.0)
        slope = c.unary(_descs.ElementWiseCeil, c.clip(own, 0.0, 1.0))
    slope = g.masked(slope)
    grads = {}
    for step in backward_order:
        total = c.add(dh, dy_at(step))
        grads[step] = c.mul(total, g.rows(slope, step))
        keep = keep_at(step)
        dh = c.gemm(grads[step], r, None if keep is None else c.mul(total, keep))
    da = c.join([grads[step] for step in range(g.t)], 2)
    sums = c.reduce(da, "SUM", [2])
    return {"pieces": {"weights": [c.gemm(da, x, trans_a=True), c.gemm(da, hp, trans_a=True)],
                       "biases": [sums, sums]},
            "dh0": dh, "dc0": None, "dx": [(da, w)]}


__all__ = ["compose_cudnn_rnn_backprop_v3"]
