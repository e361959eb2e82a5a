"""mlparse.structs: chart decoding for the span parser (no torch modules).

* :mod:`~mlparse.structs.chart_tree` -- ``ChartTree`` and the shared rules (EMPTY = 0, tie-breaking).
* :mod:`~mlparse.structs.cky` -- ``decode`` (Cython core, pure-Python fallback) and ``hinge_loss``.
* :mod:`~mlparse.structs.cky_reference` -- the clear pure-Python CKY every decoder must match.
* :mod:`~mlparse.structs.cky_torch` -- batched CKY over tensors (GPU training), ``hinge_loss_batch``.
* :mod:`~mlparse.structs.chart` -- ``LabelVocab``, ``gold_spans`` (tree -> chart), ``tree_from_chart``.
* :mod:`~mlparse.structs.brute_force` -- exhaustive decoding for tests (n <= 7).

Importing this package does not import torch; import ``mlparse.structs.cky_torch`` for that.
"""

from mlparse.structs.chart import LabelVocab, UnknownLabelError, gold_spans, tree_from_chart
from mlparse.structs.chart_tree import EMPTY, ChartTree
from mlparse.structs.cky import HingeLoss, compiled_available, decode, hinge_loss

__all__ = [
    "EMPTY",
    "ChartTree",
    "HingeLoss",
    "LabelVocab",
    "UnknownLabelError",
    "compiled_available",
    "decode",
    "gold_spans",
    "hinge_loss",
    "tree_from_chart",
]
