"""The result type of the chart decoders and the scoring rules they share.

Conventions (every decoder in this package follows them exactly):

* A sentence of ``n`` words has fenceposts ``0..n``.  Scores for one sentence
  are an array ``scores`` of shape ``(n+1, n+1, L)``: ``scores[i, j, l]`` is the
  score of label ``l`` on the span ``(i, j)``, ``i < j``.  Only the strict upper
  triangle is read.
* Label index 0 is the EMPTY label.  Its score is 0 whatever the array holds.
* A decoded tree is a full binary bracketing of ``(0, n)``: the root, every
  width-1 span, and for every span of width >= 2 exactly one split into two
  child spans.  Every span carries its best label (possibly EMPTY).
* Loss-augmented decoding with gold spans ``gold: dict[(i, j)] -> label``
  (spans not in the dict are gold-EMPTY) adds 1.0 to every label that differs
  from the gold label of the span (Hamming cost on labelled spans).

Deterministic tie-breaking, identical in all implementations:

* label: the highest score wins, the lowest label index on ties (so EMPTY wins
  a tie at 0).  With augmentation, the best *non-gold* label is chosen by its
  raw score (lowest index on ties), then ``raw + 1.0`` competes with the gold
  label's raw score; on a tie the lower index of the two wins.
* split: the highest ``best(i, k) + best(k, j)`` wins, the smallest ``k``
  (leftmost split) on ties.
* arithmetic: chart sums are accumulated in float64 in the order
  ``label + (left + right)``, so all decoders return bit-identical scores.

Spans are listed in pre-order: a span, then its left subtree, then its right
subtree (the root first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

#: Index of the EMPTY label ("") in every label vocabulary.
EMPTY: int = 0

#: A labelled span over fenceposts, with the label as an index: (start, end, label).
IndexedSpan = Tuple[int, int, int]

#: Gold spans of one sentence: (start, end) -> label index; missing spans are EMPTY.
GoldSpans = Mapping[Tuple[int, int], int]


@dataclass(frozen=True)
class ChartTree:
    """A decoded binary bracketing.

    Attributes:
        spans: the ``2n - 1`` spans ``(i, j, label_index)`` of the bracketing in
            pre-order (root first); EMPTY-labelled spans included.
        score: the value the decoder maximised: the sum of the chosen labels'
            scores (EMPTY = 0), plus the Hamming cost when decoded with
            augmentation.
    """

    spans: List[IndexedSpan]
    score: float

    @property
    def length(self) -> int:
        """Sentence length n (the root span is ``(0, n)``)."""
        return self.spans[0][1]

    def labeled_spans(self) -> List[IndexedSpan]:
        """The spans whose label is not EMPTY (the ones that carry a score)."""
        return [span for span in self.spans if span[2] != EMPTY]


def check_scores(scores: np.ndarray, length: int | None = None) -> int:
    """Validate a score array of shape (n+1, n+1, L) and return the sentence length.

    ``length`` decodes only the first ``length`` words of a padded array.
    """
    if scores.ndim != 3 or scores.shape[0] != scores.shape[1]:
        raise ValueError(f"scores must have shape (n+1, n+1, L), got {tuple(scores.shape)}")
    if scores.shape[2] < 1:
        raise ValueError("scores need at least one label (the EMPTY label, index 0)")
    padded = scores.shape[0] - 1
    n = padded if length is None else int(length)
    if not 1 <= n <= padded:
        raise ValueError(f"sentence length must be in 1..{padded}, got {n}")
    return n


def check_gold(gold: GoldSpans, n: int, num_labels: int) -> None:
    """Raise ValueError when a gold span or label is out of range."""
    for (i, j), label in gold.items():
        if not 0 <= i < j <= n:
            raise ValueError(f"gold span ({i}, {j}) is not inside (0, {n})")
        if not 0 <= label < num_labels:
            raise ValueError(f"gold label {label} of span ({i}, {j}) is not in 0..{num_labels - 1}")


def gold_label_matrix(gold: GoldSpans, n: int) -> np.ndarray:
    """Gold labels as an int32 matrix of shape (n+1, n+1); 0 (EMPTY) off the gold spans."""
    matrix = np.zeros((n + 1, n + 1), dtype=np.int32)
    for (i, j), label in gold.items():
        matrix[i, j] = label
    return matrix


def span_score(scores: np.ndarray, spans: Sequence[IndexedSpan]) -> float:
    """Sum of ``scores[i, j, l]`` over the spans, EMPTY counting 0 (float64 sum)."""
    return float(sum(float(scores[i, j, l]) for i, j, l in spans if l != EMPTY))


def gold_score(scores: np.ndarray, gold: GoldSpans) -> float:
    """Score of the gold tree: sum of the gold labels' scores (EMPTY = 0)."""
    return span_score(scores, [(i, j, l) for (i, j), l in gold.items()])


def hamming_cost(spans: Sequence[IndexedSpan], gold: GoldSpans) -> int:
    """Number of spans whose label differs from the gold label of that span (EMPTY off gold)."""
    return sum(1 for i, j, l in spans if l != gold.get((i, j), EMPTY))


def is_binary_bracketing(spans: Sequence[IndexedSpan], n: int) -> bool:
    """True when the spans form a full binary tree over (0, n) with every width-1 span."""
    bounds = [(i, j) for i, j, _ in spans]
    if len(bounds) != 2 * n - 1 or len(set(bounds)) != len(bounds) or (0, n) not in bounds:
        return False
    present = set(bounds)
    for i, j in bounds:
        if j - i >= 2 and sum(1 for k in range(i + 1, j) if (i, k) in present and (k, j) in present) != 1:
            return False
    return all((i, i + 1) in present for i in range(n))
