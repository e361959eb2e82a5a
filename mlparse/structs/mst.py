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

from mlparse.structs.arc_decoder import ArcDecoder
from mlparse.structs.mst_reference import decode_mst_reference

logger = logging.getLogger(__name__)

try:
    from mlparse.structs.mst_compiled import mst_core as _core
except ImportError:  # pragma: no cover - exercised when the extension is not built
    _core = None

DECODER = ArcDecoder(
    name="MST",
    extension="mlparse.structs.mst_compiled",
    core=_core,
    reference=decode_mst_reference,
    logger=logger,
)


#: True when the Cython MST decoder is built and importable.
compiled_available = DECODER.compiled_available
#: The Cython decoder (RuntimeError when it is not built); arguments as :func:`decode_mst`.
decode_mst_compiled = DECODER.decode_compiled


def decode_mst(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """Best non-projective tree with exactly one root dependent (Cython when built, else pure Python).

    ``scores[h, d]`` (N+1, N+1), the arc from head h to dependent d, higher is better;
    ``length`` the sentence length n of a padded array.  Returns int64 heads (n+1,),
    ``heads[0] = -1``; the rules of both arguments are in :meth:`ArcDecoder.decode`.
    """
    return DECODER.decode(scores, length)
