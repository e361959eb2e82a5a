"""Maximum spanning tree decoding (non-projective) with exactly one root dependent.

``decode_mst`` uses the Cython core (:mod:`mlparse.structs.mst_compiled`) when
it is importable and falls back to :func:`decode_mst_reference` otherwise
(logging a warning once).  Both return identical heads; the algorithm
(Chu-Liu/Edmonds contracting every cycle, O(n^2) time and memory) is described
in :mod:`mlparse.structs.mst_reference`, the conventions (``scores[h, d]``
head first, ``heads[0] = -1``) in :mod:`mlparse.structs.dep_tree`.
"""

from __future__ import annotations

import logging
from typing import Optional

import numpy as np

from mlparse.structs.dep_tree import check_arc_scores
from mlparse.structs.mst_reference import decode_mst_reference

logger = logging.getLogger(__name__)

try:
    from mlparse.structs.mst_compiled import mst_core as _mst_core
except ImportError:  # pragma: no cover - exercised when the extension is not built
    _mst_core = None

_warned = False


def compiled_available() -> bool:
    """True when the Cython MST decoder is built and importable."""
    return _mst_core is not None


def decode_mst_compiled(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """The Cython decoder (raises RuntimeError when it is not built); arguments as :func:`decode_mst`."""
    if _mst_core is None:
        raise RuntimeError("the compiled MST decoder is not built; run `python3 setup.py build_ext --inplace`")
    n = check_arc_scores(scores, length, finite=False)
    if scores.dtype != np.float32 and scores.dtype != np.float64:
        scores = scores.astype(np.float64)
    heads = _mst_core(scores, n)
    if heads is None:  # a non-finite score: name it
        check_arc_scores(scores, length)
    return heads


def decode_mst(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """Best non-projective tree with exactly one root dependent (Cython when built, else pure Python).

    Args:
        scores: float array (N+1, N+1); ``scores[h, d]`` is the score of the arc from
            head h to dependent d (head first; position 0 is the root pseudo-word),
            higher is better.  Only ``scores[:n+1, 1:n+1]`` off the diagonal is read;
            it must be finite.
        length: the sentence length n when the array is padded (default N).

    Returns:
        int64 heads (n+1,): ``heads[d]`` is the head of word d, ``heads[0] = -1``.
    """
    global _warned
    if _mst_core is not None:
        return decode_mst_compiled(scores, length)
    if not _warned:
        logger.warning("mlparse.structs.mst_compiled is not built: using the slow pure-Python MST decoder")
        _warned = True
    return decode_mst_reference(scores, length)
