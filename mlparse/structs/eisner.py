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

from mlparse.structs.arc_decoder import ArcDecoder
from mlparse.structs.eisner_reference import decode_eisner_reference

logger = logging.getLogger(__name__)

try:
    from mlparse.structs.eisner_compiled import eisner_core as _core
except ImportError:  # pragma: no cover - exercised when the extension is not built
    _core = None

DECODER = ArcDecoder(
    name="Eisner",
    extension="mlparse.structs.eisner_compiled",
    core=_core,
    reference=decode_eisner_reference,
    logger=logger,
)


#: True when the Cython Eisner decoder is built and importable.
compiled_available = DECODER.compiled_available
#: The Cython decoder (RuntimeError when it is not built); arguments as :func:`decode_eisner`.
decode_eisner_compiled = DECODER.decode_compiled


def decode_eisner(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """Best projective tree with exactly one root dependent (Cython when built, else pure Python).

    ``scores[h, d]`` (N+1, N+1), the arc from head h to dependent d, higher is better;
    ``length`` the sentence length n of a padded array.  Returns int64 heads (n+1,),
    ``heads[0] = -1``; the rules of both arguments are in :meth:`ArcDecoder.decode`.
    """
    return DECODER.decode(scores, length)
