"""mlparse.structs: chart decoding for the span parser, tree decoding for the dependency parser (no torch modules).

* :mod:`~mlparse.structs.chart_tree` -- ``ChartTree`` and the shared rules (EMPTY = 0, tie-breaking).
* :mod:`~mlparse.structs.cky` -- ``decode`` (Cython core, pure-Python fallback) and ``hinge_loss``.
* :mod:`~mlparse.structs.cky_reference` -- the clear pure-Python CKY every decoder must match.
* :mod:`~mlparse.structs.cky_torch` -- batched CKY over tensors (GPU training), ``hinge_loss_batch``.
* :mod:`~mlparse.structs.chart` -- ``LabelVocab``, ``gold_spans`` (tree -> chart), ``tree_from_chart``.
* :mod:`~mlparse.structs.brute_force` -- exhaustive decoding for tests (n <= 7).
* :mod:`~mlparse.structs.dep_tree` -- head arrays and the dependency conventions
  (``scores[h, d]`` head first, ``heads[0] = -1``); well-formedness, projectivity, tree scores.
* :mod:`~mlparse.structs.mst` -- ``decode_mst``: non-projective, one root dependent (Cython core,
  pure-Python twin :mod:`~mlparse.structs.mst_reference`).
* :mod:`~mlparse.structs.eisner` -- ``decode_eisner``: projective, one root dependent (Cython core,
  pure-Python twin :mod:`~mlparse.structs.eisner_reference`).
* :mod:`~mlparse.structs.eisner_torch` -- batched Eisner over tensors (GPU).
* :mod:`~mlparse.structs.dep_brute_force` -- every dependency tree of a tiny sentence, for tests.
* :mod:`~mlparse.structs.joint` -- ``decode_joint``: the exact joint span + dependency decoder over
  headed binary trees, O(n^4) (Cython core, pure-Python twin :mod:`~mlparse.structs.joint_reference`,
  brute force :mod:`~mlparse.structs.joint_brute_force`); ``decode_separate`` (CKY + MST).

Importing this package does not import torch; import ``mlparse.structs.cky_torch`` or
``mlparse.structs.eisner_torch`` for that.
"""

from mlparse.structs.chart import LabelVocab, UnknownLabelError, gold_spans, tree_from_chart
from mlparse.structs.chart_tree import EMPTY, ChartTree
from mlparse.structs.cky import HingeLoss, compiled_available, decode, hinge_loss
from mlparse.structs.dep_tree import is_projective, is_well_formed, tree_problem, tree_score
from mlparse.structs.eisner import decode_eisner
from mlparse.structs.joint import JointGold, JointTree, decode_joint, decode_separate
from mlparse.structs.mst import decode_mst

__all__ = [
    "EMPTY",
    "ChartTree",
    "HingeLoss",
    "JointGold",
    "JointTree",
    "LabelVocab",
    "UnknownLabelError",
    "compiled_available",
    "decode",
    "decode_eisner",
    "decode_joint",
    "decode_mst",
    "decode_separate",
    "gold_spans",
    "hinge_loss",
    "is_projective",
    "is_well_formed",
    "tree_from_chart",
    "tree_problem",
    "tree_score",
]
