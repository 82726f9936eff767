"""How closely each backend must match DirectML's vectors (tests/test_directml_vectors.py, dmlops selftest), with the reason.

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
                         "over the time steps: FLOAT32 up to 21 ULP, or 6.4e-8 absolute near 0 (torch's fused GRU, "
                         "torch.gru: 48 ULP = 8.9e-8 absolute on -0.031, backward_linear_before_reset). FLOAT16 up to "
                         "31 ULP: DirectML keeps intermediates (x W, h R, the gates, h) in FLOAT16 between steps; "
                         "modelling that brings backward_float16 from 31 to 5 ULP, but no model reproduces every case"),
    "GRU/hidden_init_broadcast_float16": Tolerance(ulps=32, atol=1e-4,
                                                   why="as GRU; one output cancels to 9e-4, where DirectML's FLOAT16 "
                                                       "intermediates leave 6.7e-5 absolute (141 FLOAT16 ULP of it)"),
    "LSTM": Tolerance(ulps=16, atol=2e-7,
                      why="as GRU: FLOAT32 up to 16 ULP, or 1.3e-7 absolute near 0; FLOAT16 up to 14 ULP"),
    "RNN": Tolerance(ulps=32, atol=3e-7,
                     why="as GRU: FLOAT32 up to 87 ULP on values near 0.02 (2.5e-7 absolute); FLOAT16 up to 23 ULP"),
    # ---- end of GEMM ... RNN
    # ---- Element-wise, activation, REDUCE (issue 9): measured on the three backends (CPU). Everything else in these
    # operators is exact: min/max/clip/select NaN rules, casts, integer arithmetic, FLOAT16 stores (toward zero).
    # The device's float32 exp, log, tanh and erf are not IEEE-exact; its exp is exp2(x * log2 e), whose rounding
    # grows with |x|. FLOAT16 bounds are FLOAT16 ULP: a float32 result one ULP either side of a FLOAT16 step is
    # stored (toward zero) one FLOAT16 step apart.
    "ELEMENT_WISE_EXP": Tolerance(ulps=2, why="the device's exp: 1 ULP (exp(1) = 2.718282, exp(-2**-149) = "
                                              "1 - 2**-24)"),
    "ELEMENT_WISE_LOG": Tolerance(ulps=2, why="the device's log: 1 ULP (ln 2.5 = 0.9162907)"),
    "ELEMENT_WISE_POW": Tolerance(ulps=2, why="exp2(y * log2|x|) with the device's exp2/log2: 2 ULP "
                                              "(2 ** 0.5 = 1.4142138); FLOAT16 1 ULP (3 ** 4 = 80.99999 -> 80.94)"),
    "ELEMENT_WISE_CONSTANT_POW": Tolerance(ulps=2, why="exp2(y * log2|x|) with the device's exp2/log2: 2 ULP "
                                                       "(2 ** 1.5 = 2.8284276)"),
    "ELEMENT_WISE_ADD1/fused_clip_fixed_sigmoid": Tolerance(ulps=2, why="the fused SIGMOID's exp: 2 ULP"),
    "ACTIVATION_SIGMOID": Tolerance(ulps=2, atol=2.0**-126,
                                    why="the device's exp and division: 1 ULP; results below the float32 normal range "
                                        "come back as 0 (sigmoid(-100) = 0, not 3.8e-44)"),
    "ACTIVATION_TANH": Tolerance(ulps=3, why="the device's tanh: 3 ULP (tanh 0.5 = 0.46211708); tanh(2**-149) = 0"),
    "ACTIVATION_SCALED_TANH": Tolerance(ulps=3, why="the device's tanh: 3 ULP"),
    "ACTIVATION_SWISH": Tolerance(ulps=2, why="the device's exp in sigmoid: 1 ULP"),
    "ACTIVATION_SWISH/default_scale": Tolerance(ulps=6, why="the device's exp of -s x = 5 (exp2 of 7.2): 5 ULP"),
    "ACTIVATION_SOFTPLUS": Tolerance(ulps=2, why="the device's exp and log: 2 ULP; FLOAT16 1 ULP (softplus(30) = "
                                                 "29.999998 -> 29.98)"),
    "ACTIVATION_GELU": Tolerance(ulps=2, atol=3e-7,
                                 why="the device's erf: 2 ULP, and 1 + erf(x / sqrt 2) cancels for x < 0, so an erf "
                                     "rounding of ulp(1) becomes 0.5 |x| 1.2e-7 absolute (GELU(-2.5): 2.4e-7)"),
    "ACTIVATION_ELU": Tolerance(ulps=4, atol=1.2e-7,
                                why="exp(x) - 1 as DirectML computes it (no expm1): the device's exp is 1 ULP of 1 "
                                    "off near x = 0 (ELU(-2**-149) = -2**-24), an absolute 1.2e-7 x Alpha; 4 ULP "
                                    "elsewhere"),
    "ACTIVATION_CELU": Tolerance(ulps=4, atol=1.2e-7, why="exp(x / Alpha) - 1 as for ACTIVATION_ELU"),
    "ACTIVATION_SCALED_ELU": Tolerance(ulps=4, atol=2.5e-7, why="Gamma * Alpha * (exp(x) - 1) as for ACTIVATION_ELU "
                                                                "(Gamma * Alpha = 1.76)"),
    "ACTIVATION_SOFTMAX": Tolerance(ulps=2, why="the device's exp and the sum's order: 2 ULP; FLOAT16 1 ULP"),
    "ACTIVATION_SOFTMAX1": Tolerance(ulps=3, why="the device's exp and the sum's order: 3 ULP; FLOAT16 2 ULP"),
    "ACTIVATION_SOFTMAX1/chw_broadcast_batch": Tolerance(ulps=8, why="exp(x - max) down to exp(-7.9): the device's "
                                                                     "exp2-based exp, 7 ULP"),
    "ACTIVATION_LOG_SOFTMAX": Tolerance(ulps=3, why="the device's exp and log: 3 ULP; FLOAT16 1 ULP"),
    "ACTIVATION_LOG_SOFTMAX1": Tolerance(ulps=3, why="the device's exp and log: 3 ULP; FLOAT16 2 ULP"),
    "REDUCE/sum_4d_axes_3_0_2": Tolerance(atol=2e-6, why="40 float32 terms summed in DirectML's parallel order (no "
                                                         "sequential or pairwise order reproduces it): an absolute "
                                                         "error of a few float32 steps of the terms (1.4e-6)"),
    "REDUCE/average_4d_axes_3_0_2": Tolerance(atol=5e-8, why="the sum of REDUCE/sum_4d_axes_3_0_2 over 40"),
    "REDUCE/multiply_4d_axes_3_0_2": Tolerance(ulps=8, why="40 float32 factors multiplied in another order: 7 ULP"),
    "REDUCE/sum_square_4d_axes_3_0_2": Tolerance(ulps=2, why="40 float32 squares summed in another order: 2 ULP"),
    "REDUCE/l1_4d_axes_3_0_2": Tolerance(ulps=2, why="40 float32 terms summed in another order: 1 ULP"),
    "REDUCE/l2_4d_axes_3_0_2": Tolerance(ulps=2, why="40 float32 squares summed in another order, then sqrt: 1 ULP"),
    "REDUCE/log_sum_exp_4d_axes_3_0_2": Tolerance(ulps=2, why="the device's exp and log: 1 ULP"),
    "REDUCE/log_sum_exp_rows": Tolerance(ulps=2, why="the device's exp and log: 1 ULP"),
    "REDUCE/edge_log_sum_exp_ties_nan_inf": Tolerance(ulps=2, why="the device's exp and log: 1 ULP"),
    "REDUCE/log_sum_rows": Tolerance(ulps=2, why="the device's log: 1 ULP"),
    "REDUCE/log_sum_positive_axis_1": Tolerance(ulps=2, why="the device's log: 1 ULP"),
    # ---- issue 11, B01 unary float math, B05 activations
    # Measured on the three backends (CPU) against float32_2x3x4x5 and float32_scalebias; every FLOAT16 case is
    # exact. ACOS, ASIN, ATAN, ASINH, ACOSH, ATANH and PARAMETRIC_SOFTPLUS are DirectML's own float32 formulas
    # (dmlops.ops._unary_math), so what is left is the device's sqrt, log and exp; the others are the frameworks'
    # functions against the device's. HARDMAX, HARDMAX1 and VALUE_SCALE_2D are exact.
    "ELEMENT_WISE_SIN": Tolerance(ulps=2, why="the device's sin: 1 ULP (sin(-0.9637021) = -0.8213092)"),
    "ELEMENT_WISE_COS": Tolerance(ulps=2, why="the device's cos: 1 ULP (cos(-2.0183268) = -0.43274048)"),
    "ELEMENT_WISE_TAN": Tolerance(ulps=3, why="the device's tan: 2 ULP (tan(1.0368133) = 1.6912463)"),
    "ELEMENT_WISE_COSH": Tolerance(ulps=4, why="the device's exp-based cosh: 3 ULP (cosh(-3.7526042) = 21.327715)"),
    "ELEMENT_WISE_SINH": Tolerance(ulps=4, atol=1.2e-7,
                                   why="the device's (e^x - e^-x) / 2 cancels near 0: 39 ULP (sinh(-0.009720792) = "
                                       "-0.009720981 for -0.009720945), 8.6e-8 absolute beyond 4 ULP"),
    "ELEMENT_WISE_TANH": Tolerance(ulps=4, atol=2e-7,
                                   why="the device's exp-based tanh cancels near 0: 117 ULP (tanh(0.001973778) = "
                                       "0.0019737482 for 0.0019737754), 1.5e-7 absolute beyond 4 ULP"),
    "ELEMENT_WISE_ERF": Tolerance(ulps=4, atol=5e-7,
                                  why="the device's erf is an approximation of absolute error ~1e-7 "
                                      "(1 - p(t) e^(-x^2), rounded in float32): 4.1e-7 absolute (erf(0.04152116) = "
                                      "0.04682511 for 0.046824704), 322 ULP near 0"),
    "ELEMENT_WISE_ACOS": Tolerance(ulps=3, why="DirectML's polynomial (A&S 4.4.45) with the device's sqrt: 2 ULP"),
    "ELEMENT_WISE_ASIN": Tolerance(ulps=3, atol=1.2e-7,
                                   why="pi/2 - acos(x) with DirectML's polynomial: 2 ULP, and where it cancels near "
                                       "0 one ULP of acos (torch's CPU sqrt is not correctly rounded) is 1.2e-7 "
                                       "absolute (64 ULP)"),
    "ELEMENT_WISE_ATAN": Tolerance(ulps=2, why="DirectML's polynomial (A&S 4.4.47) with the device's division: 1 ULP"),
    "ELEMENT_WISE_ASINH": Tolerance(ulps=4, atol=2.5e-6,
                                    why="ln(x + sqrt(x * x + 1)) with the device's log: 14 ULP near 0 (3e-8); x + "
                                        "sqrt(...) cancels for x < 0, so one ULP of sqrt (torch's CPU sqrt is not "
                                        "correctly rounded) moves asinh(-3.33) by 1.9e-6 absolute"),
    "ELEMENT_WISE_ACOSH": Tolerance(ulps=3, why="ln(x + sqrt(x * x - 1)) with the device's log and sqrt: 2 ULP"),
    "ELEMENT_WISE_ATANH": Tolerance(ulps=4, atol=6e-8,
                                    why="ln((1 + x) / (1 - x)) / 2 with the device's log near 1: 36 ULP near 0 "
                                        "(atanh(-0.0030876845) = -0.0030876852), 3.7e-8 absolute beyond 4 ULP"),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": Tolerance(ulps=4, atol=1.2e-7,
                                                why="Alpha * ln(1 + exp(Beta x)) with the device's exp and log: "
                                                    "32 ULP where the result is small (ln of a value near 1), 6e-8 "
                                                    "absolute beyond 4 ULP; FLOAT16 exact"),
    # ---- end B01 unary float math, B05 activations
    # ---- issue 11, B02 simple arithmetic
    # MEAN, SIGN, ROUND, MODULUS_*, DIFFERENCE_SQUARE, CLIP1 and NEGATE are exact (the modulus formula is evaluated
    # literally in float32, as the vectors show).
    "ELEMENT_WISE_ATAN_YX": Tolerance(ulps=2, atol=1.5e-5,
                                      why="the device's atan2 is an approximation: up to 1.17e-5 absolute from IEEE "
                                          "atan2 (pi/4 comes back as 0.7854096; 1522 ULP on atan2(0.0433, 2.03) = "
                                          "0.02135), measured on the three backends; FLOAT16 within 1 ULP"),
    # ---- end B02 simple arithmetic
    # ---- issue 11, B03 predicates and logic
    # None: comparisons, logic, IS_NAN, IS_INFINITY and IF are exact on the three backends (all 36 cases, CPU).
    # ---- end B03 predicates and logic
    # ---- issue 11, B04 bitwise
    # ---- end B04 bitwise
    # ---- issue 11, B06 layout
    # No entry: exact. SPLIT, TILE, PADDING(1), DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1) and REVERSE_SUBSEQUENCES move
    # elements and compute nothing; every vector case matches bit for bit on all three backends.
    # ---- end B06 layout
    # ---- issue 11, B07 gather/scatter
    # No entry: exact. GATHER, GATHER_ELEMENTS, GATHER_ND(1), SCATTER_ELEMENTS, SCATTER_ND, ONE_HOT, MAX_UNPOOLING and
    # SLICE_GRAD only move elements (dmlops/ops/_indexing.py); every vector matches bit for bit on every backend,
    # GATHER-float32_out_of_range_indices included (out-of-range addresses read the tensor's last element).
    # ---- end B07 gather/scatter
    # ---- issue 11, B08 generators and scans, B14 fold/unfold
    # No entry: exact. CUMULATIVE_SUMMATION / CUMULATIVE_PRODUCT reproduce every FLOAT32 / FLOAT16 vector bit for bit
    # with one float32 operation per element in traversal order (dmlops/ops/_scan.py; a doubling scan or a float64
    # sum misses 10 to 25 of 120 values); FILL_VALUE_SEQUENCE is float32(i) * Delta + Start per element; the
    # generators and DIAGONAL_MATRIX1 are selections. FOLD / UNFOLD have no vectors (feature level 6.4).
    # ---- end B08 generators and scans, B14 fold/unfold
    # ---- issue 11, B09 selection
    # ---- end B09 selection
    # ---- issue 12, B10a average and LP pooling
    # AVERAGE_POOLING(1) and AVERAGE_POOLING_GRAD are exact on every backend (the sums run in DirectML's order:
    # dmlops.ops._avg_lp_pooling). LP_POOLING(1) P = 2 is exact on the reference and ONNX Runtime; torch's sqrt is
    # the one inexact step.
    "LP_POOLING": Tolerance(ulps=1, why="torch's CPU sqrt is not correctly rounded: 1 ULP on "
                                        "float32_win2x2_s2x2_pad[0, 0][0, 0] (the reference and ONNX Runtime are "
                                        "exact; FLOAT16 exact everywhere)"),
    "LP_POOLING1": Tolerance(ulps=1, why="as LP_POOLING: torch's CPU sqrt, 1 ULP on float32_win2x2_s2x2_pad[0, 0]"
                                         "[0, 0]_dil1 and float32_win2x2_s1x1_pad[0, 0][0, 0]_dil2"),
    # ---- end B10a average and LP pooling
    # ---- issue 12, B10b max pooling
    # ---- end B10b max pooling
    # ---- issue 12, B12 normalization. Measured on the three backends (CPU). Every FLOAT16 case is exact (DirectML's
    # FLOAT16 intermediates are modelled, see dmlops/ops/_normalization.py); so are ELEMENT_WISE_CLIP_GRAD1 (a
    # select) and ONNX Runtime on LP_NORMALIZATION's float32 cases (float32 sums in DirectML's order).
    "MEAN_VARIANCE_NORMALIZATION": Tolerance(ulps=4, atol=1e-6,
                                             why="FLOAT32 statistics summed in another order (DirectML: mean(x^2) - "
                                                 "mean^2, one element after the other; dmlops: two-pass): up to "
                                                 "9.5e-7 absolute (1 ULP of an output of 8.5, cross_1_normvar_0), "
                                                 "128 ULP on an output of -0.023 where Input - Mean cancels"),
    "MEAN_VARIANCE_NORMALIZATION1": Tolerance(ulps=4, atol=1e-6,
                                              why="as MEAN_VARIANCE_NORMALIZATION: up to 7.2e-7 absolute (an output "
                                                  "of -1.1, axes_0_3), 192 ULP on an output of -0.016 (axes_1_2_3, "
                                                  "torch)"),
    "LOCAL_RESPONSE_NORMALIZATION": Tolerance(ulps=4, why="the device's pow (D^Beta, Beta 0.75): up to 4 ULP"),
    "LOCAL_RESPONSE_NORMALIZATION_GRAD": Tolerance(ulps=4, atol=5e-7,
                                                   why="the device's pow and the two terms of the gradient "
                                                       "cancelling: up to 4.8e-7 absolute (2 ULP of an output of "
                                                       "2.1), 30 ULP on an output of -0.03"),
    "LP_NORMALIZATION": Tolerance(ulps=2, why="the float64 reference and torch's sums round the norm differently "
                                              "from DirectML's float32 sums: up to 2 ULP"),
    # ---- end B12 normalization
    # ---- issue 12, B13 resample
    # Everything else in UPSAMPLE_2D and RESAMPLE* is exact (dmlops/ops/_resample.py: DirectML's float32 order).
    "RESAMPLE1": Tolerance(atol=3e-7, why="three dimensions interpolated with offsets (0.3, -0.2) "
                                          "(sample_linear_3d_random): up to 2.4e-7 (64 ULP of 0.055); no order of "
                                          "dimensions, coordinate or lerp formula tried is exact"),
    "RESAMPLE_GRAD": Tolerance(atol=1e-6, why="DirectML's summation order is not one order: batch 1 is bit exact "
                                              "in dmlops's order, batch 2 (sample_linear_2d_random) sums dimension "
                                              "by dimension (9.5e-7, 64 ULP of 0.018), sample_linear_3d_down in "
                                              "neither (2.4e-7)"),
    # ---- end B13 resample
    # ---- issue 12, B13b ROI
    # No entry: exact. ROI_POOLING (bins rounded half to even), ROI_ALIGN and ROI_ALIGN1 (DirectML's lerp order:
    # left/right columns in y, then x; float32 sums y outer, x inner) reproduce every FLOAT32 / FLOAT16 vector
    # bit for bit on all three backends. ROI_ALIGN_GRAD has no vectors (OutputGradientTensor: torch autograd;
    # OutputROIGradientTensor: the page's pseudo-code as a loop, tests/test_oracle_roi.py).
    # ---- end B13b ROI
    # ---- issue 12, B15 quantize
    # No entry: exact. ELEMENT_WISE_QUANTIZE_LINEAR (float32_to_uint8/int8_per_channel: float32 division, round half
    # to even, saturation, NaN -> 0) and ELEMENT_WISE_DEQUANTIZE_LINEAR (uint8/int8_to_float32_per_channel: one float32
    # subtraction and one multiply) match bit for bit on all three backends (dmlops/ops/_quantize.py), as does
    # DYNAMIC_QUANTIZE_LINEAR's one case (sample_uint8_basic: the range times float32(1 / 255)). QUANTIZE and
    # DEQUANTIZE (6.3) and ELEMENT_WISE_QUANTIZED_LINEAR_ADD have no vectors.
    # ---- end B15 quantize
    # ---- issue 12, B16 integer linear algebra
    # No entry: exact. MATRIX_MULTIPLY_INTEGER_TO_FLOAT's 16 vector cases (every data type, FLOAT32 and FLOAT16)
    # match bit for bit on all three backends: DirectML's dequantize-first float32 order, the K products added one
    # after the other, is computed as such everywhere (its module). MATRIX_MULTIPLY_INTEGER, CONVOLUTION_INTEGER and
    # QUANTIZED_LINEAR_MATRIX_MULTIPLY have only refusals among the vectors, QUANTIZED_LINEAR_CONVOLUTION none; their
    # integer products are exact on every backend and CPU (dmlops/ops/_integer_linear.py).
    # ---- end B16 integer linear algebra
    # ---- issue 12, B17 attention
    "MULTIHEAD_ATTENTION": Tolerance(ulps=16, atol=2e-7,
                                     why="the device's exp and its GEMM order: FLOAT32 up to 10 ULP, or 1.2e-7 "
                                         "absolute on outputs near 0 (sample_two_heads_all_optional: 512 ULP of "
                                         "3.4e-4 on onnxruntime / torch; no float32 order tried is exact). FLOAT16 "
                                         "is exact (DirectML's float16 stores modelled, dmlops/ops/_attention.py)"),
    # MULTIHEAD_ATTENTION1 (6.3) has no vectors (tests/test_oracle_attention.py).
    # ---- end B17 attention
}


def tolerance(op: str, case_name: str) -> Tolerance:
    """The bound for one case (per operator; a case-specific entry ``OP/case`` wins)."""
    return TOLERANCES.get(f"{op}/{case_name}", TOLERANCES.get(op, EXACT))
