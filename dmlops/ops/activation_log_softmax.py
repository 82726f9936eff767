"""DML_OPERATOR_ACTIVATION_LOG_SOFTMAX: the same effective-rank rule as ACTIVATION_SOFTMAX (its docs state it identically)."""
from .activation_softmax import check

__all__ = ["check"]
