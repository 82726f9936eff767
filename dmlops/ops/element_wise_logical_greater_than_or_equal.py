"""DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL: f(a, b) = a >= b ? 1 : 0, stored in OutputTensor's DataType
(UINT8 or UINT32).

A and B share one DataType (floats, and every integer type from DML_FEATURE_LEVEL_4_1); equal Sizes, zero strides
broadcast. IEEE comparison: NaN compares false and +0 equals -0 (DirectML's vectors: float32_2x3x4x5 gives -0 >= +0 = 1,
-1 >= -inf = 1, NaN >= 1 = 0); FLOAT16 compares as float32 (exact). Integers compare exactly, unsigned as unsigned
(UINT64 above 2**63). Lowered to ONNX GreaterOrEqual / torch.ge, whose bool result is converted to the output type:
dmlops.ops._logic.
"""
from __future__ import annotations

import numpy as np

from ..sample import Sample, td
from ._logic import FLOAT_A, FLOAT_B, comparison_samples
from ._logic import compare_onnx as to_onnx  # noqa: F401
from ._logic import compare_reference as reference  # noqa: F401
from ._logic import compare_torch as to_torch  # noqa: F401


def _samples():
    from ..descs import ElementWiseLogicalGreaterThanOrEqual as cls

    n = len(FLOAT_A)
    # By hand, pair by pair (a >= b; NaN on either side gives 0; -0 and +0 are equal):
    #   A = NaN NaN 1   +0 -0 inf -inf inf  2.5 -3 1         7
    #   B = NaN 1   NaN -0 +0 inf -inf 3e38 2.5 -2 1.0000001 -7
    specials = Sample("specials", cls(a_tensor=td("FLOAT32", [n]), b_tensor=td("FLOAT32", [n]),
                                      output_tensor=td("UINT8", [n])),
                      {"ATensor": np.array(FLOAT_A, np.float32), "BTensor": np.array(FLOAT_B, np.float32)},
                      {"OutputTensor": np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1], np.uint8)},
                      atol=0, rtol=0, why="a comparison: exact", float16=False)  # 3e38 is no float16 value
    # The other samples spell the rule out in Python (lambda a, b: a >= b) on each pair.
    return [specials] + comparison_samples(cls, lambda a, b: a >= b)


SAMPLES = _samples()
