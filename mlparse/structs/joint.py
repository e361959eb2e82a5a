"""Joint span + dependency decoding for one sentence: exact (compiled or reference), or separate.

``decode_joint`` maximises span score + arc score over headed binary trees
(:mod:`mlparse.structs.joint_tree`), exactly, in O(n^4) time and O(n^3) memory
(the recurrences are in :mod:`mlparse.structs.joint_reference`).  It uses the
Cython core (:mod:`mlparse.structs.joint_compiled`) when it is importable and
falls back to :func:`decode_joint_reference` otherwise (logging a warning
once); both return identical trees and scores.

``decode_separate`` is the fast alternative: CKY for the bracketing and MST
(or Eisner) for the heads, each on its own scores; its heads need not agree
with its bracketing.
"""

from __future__ import annotations

import logging
from typing import Optional, Tuple

import numpy as np

from mlparse.structs.chart_tree import GoldSpans, gold_label_matrix
from mlparse.structs.cky import decode
from mlparse.structs.dep_tree import HeadArray
from mlparse.structs.eisner import decode_eisner
from mlparse.structs.joint_reference import decode_joint_reference
from mlparse.structs.joint_tree import JointGold, JointTree, augmented_arcs, check_joint_inputs
from mlparse.structs.mst import decode_mst

logger = logging.getLogger(__name__)

try:
    from mlparse.structs.joint_compiled import joint_core as _joint_core
except ImportError:  # pragma: no cover - exercised when the extension is not built
    _joint_core = None

_warned = False

__all__ = ["JointGold", "JointTree", "compiled_available", "decode_joint", "decode_joint_compiled", "decode_separate"]


def compiled_available() -> bool:
    """True when the Cython joint decoder is built and importable."""
    return _joint_core is not None


def decode_joint_compiled(
    span_scores: np.ndarray,
    arc_scores: np.ndarray,
    length: Optional[int] = None,
    gold: Optional[Tuple[GoldSpans, HeadArray]] = None,
) -> JointTree:
    """The Cython decoder (raises RuntimeError when it is not built); arguments as :func:`decode_joint`."""
    if _joint_core is None:
        raise RuntimeError("the compiled joint decoder is not built; run `python3 setup.py build_ext --inplace`")
    n = check_joint_inputs(span_scores, arc_scores, length, gold)
    if span_scores.dtype != np.float32 and span_scores.dtype != np.float64:
        span_scores = span_scores.astype(np.float32)
    span_scores = np.ascontiguousarray(span_scores)
    arcs = augmented_arcs(arc_scores, n, None if gold is None else gold[1])
    if gold is None:
        score, spans, heads = _joint_core(span_scores, arcs, n)
    else:
        score, spans, heads = _joint_core(span_scores, arcs, n, gold_label_matrix(gold[0], span_scores.shape[0] - 1))
    return JointTree(spans=spans, heads=heads, score=score)


def decode_joint(
    span_scores: np.ndarray,
    arc_scores: np.ndarray,
    length: Optional[int] = None,
    gold: Optional[Tuple[GoldSpans, HeadArray]] = None,
) -> JointTree:
    """Best headed binary tree of one sentence: span + arc score, exact (Cython when built, else pure Python).

    Args:
        span_scores: array (N+1, N+1, L), ``span_scores[i, j, l]`` = score of label l on
            span (i, j); label 0 is EMPTY and counts 0 (as :func:`mlparse.structs.cky.decode`).
        arc_scores: array (N+1, N+1), ``arc_scores[h, d]`` = score of head h for word d,
            position 0 the root (as :func:`mlparse.structs.eisner.decode_eisner`); finite.
        length: the sentence length n when the arrays are padded (default N).
        gold: optional ``(gold spans {(i, j): label}, gold heads (n+1,))`` (a
            :class:`JointGold`); decode with the Hamming cost on labelled spans plus
            1.0 per word whose head is not its gold head (loss-augmented decoding).

    Returns:
        JointTree: the 2n-1 spans in pre-order, int64 heads (n+1,) with ``heads[0] = -1``
        (projective, one root dependent, consistent with the spans), and the (augmented) score.
    """
    global _warned
    if _joint_core is not None:
        return decode_joint_compiled(span_scores, arc_scores, length, gold)
    if not _warned:
        logger.warning("mlparse.structs.joint_compiled is not built: using the slow pure-Python joint decoder")
        _warned = True
    return decode_joint_reference(span_scores, arc_scores, length, gold)


def decode_separate(
    span_scores: np.ndarray,
    arc_scores: np.ndarray,
    length: Optional[int] = None,
    gold: Optional[Tuple[GoldSpans, HeadArray]] = None,
    projective: bool = False,
) -> JointTree:
    """The two structures decoded independently: CKY for the spans, MST (or Eisner) for the heads.

    Arguments as :func:`decode_joint`; ``projective`` picks Eisner instead of MST.  The
    score is the CKY score plus the tree's arc score (both augmented against ``gold``
    when given); the heads need not be consistent with the bracketing.  O(n^3 + n^2 L).
    """
    n = check_joint_inputs(span_scores, arc_scores, length, gold)
    chart = decode(span_scores, gold=None if gold is None else gold[0], length=n)
    arcs = augmented_arcs(arc_scores, n, None if gold is None else gold[1])
    heads = decode_eisner(arcs) if projective else decode_mst(arcs)
    arc_total = 0.0
    for d in range(1, n + 1):
        arc_total += arcs[heads[d], d]
    return JointTree(spans=chart.spans, heads=heads, score=chart.score + arc_total)
