"""DML_OPERATOR_DIAGONAL_MATRIX: no shape rule beyond the descriptor file's.

The page's only tensor is OutputTensor ({Batch1, Batch2, OutputHeight, OutputWidth}, "the height and width
don't need to be square"), whose DimensionCount and DataType the support tiers hold; Offset and Value take any
value (Value is truncated for integer types). DirectML runs every vector case (square and not, Offsets -1, 0
and 2), so check() finds nothing.
"""
from __future__ import annotations

from ..errors import Problem


def check(desc, level) -> list[Problem]:
    """Nothing to check beyond the generic rules: any OutputTensor Sizes, any Offset and Value."""
    return []
