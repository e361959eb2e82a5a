"""CKY chart decoding for one sentence: the compiled decoder, or the reference.

``decode`` uses the Cython core (:mod:`mlparse.structs.cky_compiled`) when it
is importable and falls back to :func:`decode_reference` otherwise (logging a
warning once).  Both return identical trees and scores; the shared rules are
in :mod:`mlparse.structs.chart_tree`.

Training with the hinge loss of Kitaev & Klein (2018)::

    pred = decode(scores, gold=gold)              # loss-augmented decode
    loss = max(0, pred.score - gold_score(scores, gold))

and with torch, gather the predicted and gold label scores with autograd
(see :func:`mlparse.structs.cky_torch.span_index_tensors`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Optional

import numpy as np

from mlparse.structs.chart_tree import (
    ChartTree,
    GoldSpans,
    check_gold,
    check_scores,
    gold_label_matrix,
    gold_score,
    hamming_cost,
)
from mlparse.structs.cky_reference import decode_reference

logger = logging.getLogger(__name__)

try:
    from mlparse.structs.cky_compiled import cky_core as _cky_core
except ImportError:  # pragma: no cover - exercised when the extension is not built
    _cky_core = None

_warned = False


def compiled_available() -> bool:
    """True when the Cython decoder is built and importable."""
    return _cky_core is not None


def decode_compiled(scores: np.ndarray, gold: Optional[GoldSpans] = None, length: Optional[int] = None) -> ChartTree:
    """The Cython decoder (raises RuntimeError when it is not built).

    Args:
        scores: float32 or float64 array (n+1, n+1, L); other dtypes are cast to float32.
        gold: optional gold spans {(i, j): label} for loss-augmented decoding.
        length: decode only the first ``length`` words of a padded array.
    """
    if _cky_core is None:
        raise RuntimeError("the compiled CKY decoder is not built; run `python3 setup.py build_ext --inplace`")
    n = check_scores(scores, length)
    if scores.dtype != np.float32 and scores.dtype != np.float64:
        scores = scores.astype(np.float32)
    scores = np.ascontiguousarray(scores)
    if gold is None:
        score, spans = _cky_core(scores, n)
    else:
        check_gold(gold, n, scores.shape[2])
        score, spans = _cky_core(scores, n, gold_label_matrix(gold, scores.shape[0] - 1))
    return ChartTree(spans=spans, score=score)


def decode(scores: np.ndarray, gold: Optional[GoldSpans] = None, length: Optional[int] = None) -> ChartTree:
    """Highest-scoring binary bracketing of one sentence (Cython when built, else pure Python).

    Args:
        scores: array (n+1, n+1, L), ``scores[i, j, l]`` = score of label l on span (i, j);
            label 0 is EMPTY and counts 0 whatever the array holds.
        gold: optional gold spans {(i, j): label}; decode with the Hamming cost added.
        length: decode only the first ``length`` words of a padded array.

    Returns:
        ChartTree with the 2n-1 spans in pre-order and the (augmented) score.
    """
    global _warned
    if _cky_core is not None:
        return decode_compiled(scores, gold, length)
    if not _warned:
        logger.warning("mlparse.structs.cky_compiled is not built: using the slow pure-Python CKY decoder")
        _warned = True
    return decode_reference(scores, gold, length)


@dataclass(frozen=True)
class HingeLoss:
    """Structured hinge loss of one sentence.

    Attributes:
        loss: max(0, augmented_score - gold_score).
        predicted: the loss-augmented best tree.
        augmented_score: its score including the Hamming cost.
        gold_score: score of the gold tree (EMPTY spans count 0).
        hamming: Hamming cost of ``predicted`` against the gold spans.
    """

    loss: float
    predicted: ChartTree
    augmented_score: float
    gold_score: float
    hamming: int


def hinge_loss(scores: np.ndarray, gold: GoldSpans, length: Optional[int] = None) -> HingeLoss:
    """Loss-augmented decode and hinge loss for one sentence (numpy; no gradients)."""
    predicted = decode(scores, gold=gold, length=length)
    gold_value = gold_score(scores, gold)
    return HingeLoss(
        loss=max(0.0, predicted.score - gold_value),
        predicted=predicted,
        augmented_score=predicted.score,
        gold_score=gold_value,
        hamming=hamming_cost(predicted.spans, gold),
    )
