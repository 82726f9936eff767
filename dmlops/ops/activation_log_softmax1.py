"""DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1: the same Axes rule as ACTIVATION_SOFTMAX1 (its docs state it identically)."""
from .activation_softmax1 import check

__all__ = ["check"]
