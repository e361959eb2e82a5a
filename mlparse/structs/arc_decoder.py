"""One tree decoder over arc scores: its compiled core when built, else its pure-Python reference.

:mod:`mlparse.structs.mst` and :mod:`mlparse.structs.eisner` each hold one
:class:`ArcDecoder`.  Both cores take the same arguments (a float32/float64
``(N+1, N+1)`` array ``scores[h, d]`` and the sentence length n) and return the
int64 heads ``(n+1,)`` with ``heads[0] = -1``, or ``None`` when they met a
non-finite score, which is then named by :func:`check_arc_scores`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from mlparse.structs.dep_tree import check_arc_scores

Core = Callable[[np.ndarray, int], Optional[np.ndarray]]
Reference = Callable[[np.ndarray, Optional[int]], np.ndarray]


@dataclass
class ArcDecoder:
    """A decoder's two implementations and its one-time fallback warning.

    Attributes:
        name: what the messages call it ("MST", "Eisner").
        extension: the compiled module's dotted name, for the warning.
        core: the compiled core, or None when the extension is not built.
        reference: the pure-Python decoder with the same results.
        logger: where the fallback warning goes.
    """

    name: str
    extension: str
    core: Optional[Core]
    reference: Reference
    logger: logging.Logger
    warned: bool = field(default=False)

    def compiled_available(self) -> bool:
        """True when the compiled core is built and importable."""
        return self.core is not None

    def decode_compiled(self, scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
        """The compiled core (RuntimeError when it is not built).

        Args:
            scores: float array (N+1, N+1), ``scores[h, d]``; other dtypes are cast to float64.
            length: the sentence length n when the array is padded (default N).

        Returns:
            int64 heads (n+1,), ``heads[0] = -1``.
        """
        if self.core is None:
            raise RuntimeError(
                f"the compiled {self.name} decoder is not built; run `python3 setup.py build_ext --inplace`"
            )
        n = check_arc_scores(scores, length, finite=False)
        if scores.dtype != np.float32 and scores.dtype != np.float64:
            scores = scores.astype(np.float64)
        heads = self.core(scores, n)
        if heads is None:  # a non-finite score: name it
            check_arc_scores(scores, length)
        return heads

    def decode(self, scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
        """The compiled core when built, else the reference (warning once).

        Args:
            scores: float array (N+1, N+1); ``scores[h, d]`` is the score of the arc from
                head h to dependent d (head first; position 0 is the root pseudo-word),
                higher is better.  Only ``scores[:n+1, 1:n+1]`` off the diagonal is read;
                it must be finite.
            length: the sentence length n when the array is padded (default N).

        Returns:
            int64 heads (n+1,): ``heads[d]`` is the head of word d, ``heads[0] = -1``.
        """
        if self.core is not None:
            return self.decode_compiled(scores, length)
        if not self.warned:
            self.logger.warning(f"{self.extension} is not built: using the slow pure-Python {self.name} decoder")
            self.warned = True
        return self.reference(scores, length)
