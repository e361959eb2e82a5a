"""Eisner's projective decoding with exactly one root dependent, for one sentence.

``decode_eisner`` uses the Cython core (:mod:`mlparse.structs.eisner_compiled`)
when it is importable and falls back to :func:`decode_eisner_reference`
otherwise (logging a warning once).  Both return identical heads, and so does
the batched :func:`mlparse.structs.eisner_torch.decode_batch`; the rules are in
:mod:`mlparse.structs.eisner_reference`, the conventions (``scores[h, d]`` head
first, ``heads[0] = -1``) in :mod:`mlparse.structs.dep_tree`.  O(n^3) time,
O(n^2) memory.
"""

from __future__ import annotations

import logging
from typing import Optional

import numpy as np

from mlparse.structs.dep_tree import check_arc_scores
from mlparse.structs.eisner_reference import decode_eisner_reference

logger = logging.getLogger(__name__)

try:
    from mlparse.structs.eisner_compiled import eisner_core as _eisner_core
except ImportError:  # pragma: no cover - exercised when the extension is not built
    _eisner_core = None

_warned = False


def compiled_available() -> bool:
    """True when the Cython Eisner decoder is built and importable."""
    return _eisner_core is not None


def decode_eisner_compiled(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """The Cython decoder (raises RuntimeError when it is not built); arguments as :func:`decode_eisner`."""
    if _eisner_core is None:
        raise RuntimeError("the compiled Eisner decoder is not built; run `python3 setup.py build_ext --inplace`")
    n = check_arc_scores(scores, length, finite=False)
    if scores.dtype != np.float32 and scores.dtype != np.float64:
        scores = scores.astype(np.float64)
    heads = _eisner_core(scores, n)
    if heads is None:  # a non-finite score: name it
        check_arc_scores(scores, length)
    return heads


def decode_eisner(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """Best projective tree with exactly one root dependent (Cython when built, else pure Python).

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
    if _eisner_core is not None:
        return decode_eisner_compiled(scores, length)
    if not _warned:
        logger.warning("mlparse.structs.eisner_compiled is not built: using the slow pure-Python Eisner decoder")
        _warned = True
    return decode_eisner_reference(scores, length)
