"""GRU, LSTM and RNN through torch's fused RNN kernels (torch.gru / torch.lstm / torch.rnn_tanh: cuDNN on CUDA, ATen's
or oneDNN's loop on the CPU) wherever a descriptor means exactly what they compute; the per-step loop of
_recurrent_exec everywhere else (issue 22 item 2).

What torch's kernels compute, and so what a descriptor needs to take this path (``refusal`` names what is missing):

* GRU: LinearBeforeReset TRUE (PyTorch's and cuDNN's GRU has only that form), f = ACTIVATION_SIGMOID and
  g = ACTIVATION_TANH in every direction. Gate blocks: DirectML z, r, h; torch r, z, n (rows reordered per call).
* LSTM: f, g, h = SIGMOID, TANH, TANH in every direction, no PeepholeTensor, UseClipThreshold FALSE,
  CoupleInputForget FALSE. Gate blocks: DirectML i, o, f, c; torch i, f, g, o.
* RNN: f = ACTIVATION_TANH in every direction. ACTIVATION_RELU stays on the loop: DirectML's max(x, 0) gives 0 for
  NaN (ACTIVATION_RELU vector basic) where torch.rnn_relu keeps NaN, so a NaN anywhere would give different
  hidden states from there on.
* Data: float32 or float64 (FLOAT16 arrives as float32: lower.py), on the CPU or CUDA. torch-directml registers no
  fused RNN kernel (dmlops/data/torch_directml_ops.txt has no gru, lstm, rnn_tanh or _cudnn_rnn): the loop there.

DirectML's semantics that torch's calls are bent to (_recurrent_exec's docstring has them):

* BACKWARD runs torch's forward kernel over the sequence reversed in time (each sequence within its own length),
  and reverses the outputs back; BIDIRECTIONAL is torch's bidirectional layer (its reverse half starts at each
  sequence's last valid step, as DirectML's does).
* SequenceLengthsTensor: a packed sequence (lengths read on the host: on CUDA that waits for the device), with a
  length above seq_length taken as seq_length. Packing refuses a length of 0: such an entry runs with length 1, and
  then gets DirectML's answers: OutputSequence 0 at every step, final hidden state 0 forward and HiddenInit
  backward, LSTM's final cell the one after step 0 forward (what the length-1 run gives) and CellMemInit backward.
  When every length is seq_length, nothing is packed.
* Outputs past a sequence's end are +0.0, as the loop writes them.

Numerics: float32 sums in another order and torch's own cell arithmetic (e.g. GRU's h' = n + z * (h - n)) move
results by a few ULP from the loop's (against DirectML's vectors: at most 48 ULP = 8.9e-8 absolute, GRU
backward_linear_before_reset, the loop 16 ULP there; RNN ragged_lengths_3_1_0 60 ULP = 2.2e-7, the loop 76 ULP;
all inside dmlops/vector_tolerances.py's bounds, unchanged). Signs of zero are not DirectML's everywhere: torch's
tanh keeps -0.0 where DirectML's gives +0.0, so an output that is exactly 0 may come out as -0.0 (the recurrent
operators' tolerances count the two zeros as one value). tests/test_torch_fused.py holds the fused path to the
reference and to the loop.
"""
from __future__ import annotations

from ..enums import RecurrentNetworkDirection
from . import _torch_fused

# Per operator: torch's function, its cuDNN mode (torch.backends.cudnn.rnn.get_cudnn_mode), the DirectML gate block
# of each torch gate block, the activations each direction must have, the states (init input, final output).
KINDS = {
    "GRU": ("gru", 3, (1, 0, 2), ("ACTIVATION_SIGMOID", "ACTIVATION_TANH"),
            (("HiddenInitTensor", "OutputSingleTensor"),)),
    "LSTM": ("lstm", 2, (0, 2, 3, 1), ("ACTIVATION_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_TANH"),
             (("HiddenInitTensor", "OutputSingleTensor"), ("CellMemInitTensor", "OutputCellSingleTensor"))),
    "RNN": ("rnn_tanh", 1, (0,), ("ACTIVATION_TANH",), (("HiddenInitTensor", "OutputSingleTensor"),)),
}


def refusal(desc) -> str | None:
    """Why torch's fused kernel cannot compute ``desc`` as DirectML does (one sentence), or None when it can."""
    op = desc.OPERATOR_TYPE
    _, _, _, acts, _ = KINDS[op]
    names = tuple(a.OPERATOR_TYPE for a in desc.activation_descs)
    if names != acts * (len(names) // len(acts)):
        want = ", ".join(a.removeprefix("ACTIVATION_") for a in acts)
        return f"{op}: ActivationDescs {', '.join(n.removeprefix('ACTIVATION_') for n in names)} are not {want} " \
               "in every direction."
    if op == "GRU" and not desc.linear_before_reset:
        return "GRU: LinearBeforeReset FALSE; torch's GRU computes only LinearBeforeReset TRUE."
    if op == "LSTM":
        if desc.peephole_tensor is not None:
            return "LSTM: PeepholeTensor given; torch's LSTM has no peepholes."
        if desc.use_clip_threshold:
            return "LSTM: UseClipThreshold TRUE; torch's LSTM has no clip."
        if desc.couple_input_forget:
            return "LSTM: CoupleInputForget TRUE; torch's LSTM has no coupled input and forget gates."
    return None


def run(desc, torch, x: dict) -> dict | None:
    """The declared outputs of ``desc`` by DML name from one fused torch call, or None where ``refusal`` gives a
    reason or the data is not float32 / float64 on the CPU or CUDA (the caller then runs the loop)."""
    seq = x["InputTensor"][0]  # [T, N, I]
    if (seq.device.type not in _torch_fused.NATIVE or seq.dtype not in (torch.float32, torch.float64)
            or refusal(desc) is not None):
        return None
    fn, mode, order, _, states = KINDS[desc.OPERATOR_TYPE]
    T, N = seq.shape[0], seq.shape[1]
    H = desc.recurrence_tensor.sizes[3]
    bidirectional = desc.direction == RecurrentNetworkDirection.BIDIRECTIONAL
    backward = desc.direction == RecurrentNetworkDirection.BACKWARD
    dirs = 2 if bidirectional else 1
    inits = [x[name][0].contiguous() if x.get(name) is not None
             else torch.zeros((dirs, N, H), dtype=seq.dtype, device=seq.device) for name, _ in states]  # [D, N, H]
    params = _params(torch, desc, x, order, H, dirs, fn, mode, seq)
    has_bias = x.get("BiasTensor") is not None

    lengths = x.get("SequenceLengthsTensor")
    lens = empty = None
    if lengths is not None:
        lens = lengths.reshape(-1).to(device="cpu", dtype=torch.int64)  # packing wants them on the host
        empty = lens == 0
        lens = lens.clamp(1, T)
        if not bool(empty.any()) and bool((lens == T).all()):
            lens = empty = None  # every sequence is whole: nothing to pack
    if backward:  # torch's forward kernel over each sequence reversed within its length
        index = _reversal(torch, T, N, lens, seq.device)
        seq = seq.flip(0) if index is None else seq.gather(0, index.unsqueeze(-1).expand(seq.shape))

    call = getattr(torch, fn)
    hx = inits[0] if len(inits) == 1 else tuple(inits)
    with _torch_fused.exact_float32(torch, seq.device):
        if lens is None:
            out, *finals = call(seq, hx, params, has_bias, 1, 0.0, False, bidirectional, False)
        else:
            out, finals = _packed(torch, call, seq, lens, inits, params, has_bias, bidirectional, T)

    if backward:
        out = out.flip(0) if index is None else out.gather(0, index.unsqueeze(-1).expand(out.shape))
    if empty is not None and bool(empty.any()):
        finals = _empty_sequences(torch, desc, out, finals, inits, empty.to(seq.device), bidirectional)
    result = {}
    if desc.output_sequence_tensor is not None:
        result["OutputSequenceTensor"] = out.view(T, N, dirs, H).transpose(1, 2)  # [T, D, N, H]
    tensors = desc.tensors()
    for (_, final), value in zip(states, finals):
        if tensors.get(final) is not None:
            result[final] = value.unsqueeze(0)  # [1, D, N, H]
    return result


def _params(torch, desc, x, order, H, dirs, fn, mode, seq) -> list:
    """torch's flat weight list: per direction w_ih, w_hh (and b_ih, b_hh), gate blocks in torch's order; on CUDA one
    buffer in cuDNN's layout, as nn.RNNBase.flatten_parameters makes it (else cuDNN copies them at every call)."""
    def reorder(m):  # DirectML's gate blocks (rows) in torch's order; always a new tensor
        return torch.cat([m[i * H:(i + 1) * H] for i in order]) if len(order) > 1 else m.clone()

    params = []
    gh = len(order) * H
    for d in range(dirs):
        params += [reorder(x["WeightTensor"][0, d]), reorder(x["RecurrenceTensor"][0, d])]
        if x.get("BiasTensor") is not None:
            b = x["BiasTensor"][0, 0, d]
            params += [reorder(b[:gh]), reorder(b[gh:])]
    if (seq.device.type == "cuda" and torch.backends.cudnn.is_acceptable(seq)
            and getattr(torch, "_use_cudnn_rnn_flatten_weight", lambda: False)()):
        torch._cudnn_rnn_flatten_weight(params, len(params) // dirs, desc.input_tensor.sizes[3], mode, H, 0, 1, False,
                                        dirs == 2)  # the tensors in ``params`` become views of one buffer
    return params


def _reversal(torch, T: int, N: int, lens, device):
    """[T, N] time indices reversing each sequence within its length (t -> len - 1 - t, steps past it in place), or
    None when every sequence is whole (a flip)."""
    if lens is None:
        return None
    t = torch.arange(T).unsqueeze(1)
    n = lens.unsqueeze(0)
    return torch.where(t < n, n - 1 - t, t).to(device)


def _packed(torch, call, seq, lens, inits, params, has_bias, bidirectional, T):
    """The call on a packed sequence (sorted by length inside, as nn.GRU does it): [T, N, D * H] zero-padded output and
    the final states in the batch's own order."""
    rnn = torch.nn.utils.rnn  # the backend module passed in (op modules import only NumPy and dmlops)
    packed = rnn.pack_padded_sequence(seq, lens, enforce_sorted=False)
    order, back = packed.sorted_indices, packed.unsorted_indices
    sorted_inits = [h.index_select(1, order) for h in inits]
    hx = sorted_inits[0] if len(sorted_inits) == 1 else tuple(sorted_inits)
    data, *finals = call(packed.data, packed.batch_sizes, hx, params, has_bias, 1, 0.0, False, bidirectional)
    out, _ = rnn.pad_packed_sequence(rnn.PackedSequence(data, packed.batch_sizes, order, back), total_length=T)
    return out, [f.index_select(1, back) for f in finals]


def _empty_sequences(torch, desc, out, finals, inits, empty, bidirectional):
    """DirectML's answers for the entries of length 0 (they ran with length 1: see the module docstring)."""
    out[0].masked_fill_(empty.unsqueeze(-1), 0.0)  # only step 0 ran, in either direction
    mask = empty.unsqueeze(-1)  # [N, 1]
    backward = [desc.direction == RecurrentNetworkDirection.BACKWARD] if not bidirectional else [False, True]
    fixed = []
    for i, (final, init) in enumerate(zip(finals, inits)):
        rows = []
        for d, reverse in enumerate(backward):
            if reverse:
                rows.append(torch.where(mask, init[d], final[d]))  # no step ran: the initial state
            elif i == 0:
                rows.append(final[d].masked_fill(mask, 0.0))  # forward hidden state: 0
            else:
                rows.append(final[d])  # forward cell: the one after step 0
        fixed.append(torch.stack(rows))
    return fixed
