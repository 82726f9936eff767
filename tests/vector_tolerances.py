"""How closely each backend must match DirectML's vectors (tests/test_directml_vectors.py), with the reason.

The default is exact: same bits, -0.0 and NaN included. That holds for selects, comparisons, min/max, casts,
integer arithmetic, data movement and the NaN / ±inf / -0.0 rules, which are facts of DirectML. Float results of
transcendental functions reflect the shader math of the device the vectors were computed on (a CPU device); a GPU's
exp/log/tanh may differ in the last bits, so those operators get a bound in ULP (units in the last place of the
output type) or a relative bound, written here with the reason. An element passes when it is within ``ulps`` ULP
or within ``atol + rtol * |DirectML|``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    ulps: int = 0
    rtol: float = 0.0
    atol: float = 0.0
    why: str = "exact: a fact of DirectML"


EXACT = Tolerance()

# Operator type -> tolerance for its float outputs (integer outputs are always compared exactly).
TOLERANCES: dict[str, Tolerance] = {
    # ---- GEMM, CONVOLUTION, batch normalization, ADAM_OPTIMIZER, GRU, LSTM, RNN. Bounds measured on the three
    # backends (CPU); FLOAT16 bounds are in FLOAT16 ULP. JOIN, SLICE, SLICE1 and RANDOM_GENERATOR are exact.
    "GEMM": Tolerance(ulps=8, why="FLOAT32 sums of products in another order (this device accumulates the K products "
                                  "one after the other in float32; ONNX Runtime and torch tile them): up to 7 ULP. "
                                  "FLOAT16 is exact (float32 arithmetic, stored rounded toward zero)"),
    "CONVOLUTION": Tolerance(ulps=8, atol=2.5e-7,
                             why="FLOAT32 sums of up to 36 products of values in [-1, 1] in another order: up to 8 ULP, "
                                 "or 1.8e-7 absolute where the sum nearly cancels. FLOAT16 is exact"),
    "BATCH_NORMALIZATION": Tolerance(ulps=16, atol=2.5e-7,
                                     why="FLOAT32 (Input - Mean) / sqrt(Variance + Epsilon) with the device's sqrt and "
                                         "division: up to 16 ULP, or 1.2e-7 absolute where Input - Mean cancels. "
                                         "FLOAT16 is exact"),
    "BATCH_NORMALIZATION_GRAD": Tolerance(ulps=16, why="float32 sums over the reduced dimensions in another order: up to "
                                                       "9 ULP. FLOAT16 up to 3 ULP: DirectML stores the partial sum over "
                                                       "the batch dimension as FLOAT16 (doing so reproduces "
                                                       "OutputBiasGradient exactly; not modelled)"),
    "BATCH_NORMALIZATION_TRAINING": Tolerance(ulps=8, atol=2.5e-7,
                                              why="FLOAT32 statistics summed in another order and the device's sqrt and "
                                                  "division: up to 8 ULP, or 1.2e-7 absolute where Input - Mean "
                                                  "cancels. FLOAT16: 7 ULP on nhwc_sizes_fused_add_zero_strides_float16 "
                                                  "(rounding the normalized value to FLOAT16 before the zero-strided "
                                                  "FusedAddTensor reproduces it, and breaks ncdhw_5d_float16)"),
    "BATCH_NORMALIZATION_TRAINING_GRAD": Tolerance(ulps=40, atol=6e-7,
                                                   why="sums of products over the reduced dimensions in another order "
                                                       "and the device's sqrt: FLOAT32 up to 36 ULP, or 5.4e-7 absolute "
                                                       "where OutputGradient cancels; FLOAT16 up to 39 ULP on values near "
                                                       "0.01 (DirectML keeps some intermediate sums in FLOAT16; no model "
                                                       "tried reproduces every case)"),
    "ADAM_OPTIMIZER": Tolerance(ulps=16, why="Alpha = sqrt(1 - Beta2^T) / (1 - Beta1^T) with the device's pow and sqrt is "
                                             "off by up to 6e-5 relative (T = 1: 0.316244 for 0.316226), which moves the "
                                             "updated parameters by up to 16 ULP; the moments are within 1 ULP"),
    "GRU": Tolerance(ulps=32, atol=1e-7,
                     why="the device's sigmoid and tanh (hand_two_steps gives 0.49999997 for an exact 1/2), compounded "
                         "over the time steps: FLOAT32 up to 21 ULP, or 6.4e-8 absolute near 0. FLOAT16 up to 31 ULP: "
                         "DirectML keeps intermediates (x W, h R, the gates, h) in FLOAT16 between steps; modelling that "
                         "brings backward_float16 from 31 to 5 ULP, but no model reproduces every case"),
    "GRU/hidden_init_broadcast_float16": Tolerance(ulps=32, atol=1e-4,
                                                   why="as GRU; one output cancels to 9e-4, where DirectML's FLOAT16 "
                                                       "intermediates leave 6.7e-5 absolute (141 FLOAT16 ULP of it)"),
    "LSTM": Tolerance(ulps=16, atol=2e-7,
                      why="as GRU: FLOAT32 up to 16 ULP, or 1.3e-7 absolute near 0; FLOAT16 up to 14 ULP"),
    "RNN": Tolerance(ulps=32, atol=3e-7,
                     why="as GRU: FLOAT32 up to 87 ULP on values near 0.02 (2.5e-7 absolute); FLOAT16 up to 23 ULP"),
    # ---- end of GEMM ... RNN
}


def tolerance(op: str, case_name: str) -> Tolerance:
    """The bound for one case (per operator; a case-specific entry ``OP/case`` wins)."""
    return TOLERANCES.get(f"{op}/{case_name}", TOLERANCES.get(op, EXACT))
