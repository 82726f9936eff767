"""Framework-op adapters: other frameworks' operators, with their exact semantics, as DirectML graphs.

* ``dmlops.frameworks.tensorflow``: FusedBatchNormV3 / FusedBatchNormGradV3, CudnnRNNV3 / CudnnRNNBackpropV3
  (and the canonical params converters).
* ``dmlops.frameworks.aclnn``: Ascend's aclnnBinaryCrossEntropy / aclnnBinaryCrossEntropyBackward.

Each adapter takes the source op's arguments under the source's names and defaults, checks them as the
source does, builds a DirectML descriptor graph and runs it on any backend and device
(``backend=``, ``device=``, ``feature_level=``; no backend: as ``dmlops.compile`` chooses, the native backend
where a DirectML device exists, else onnxruntime), or returns it with ``return_graph=True`` (an
AdapterGraph: ``.graph``, ``.feeds``, ``.lowest_feature_level``, ``.run()``).
"""
from ._common import AdapterGraph

__all__ = ["AdapterGraph"]
