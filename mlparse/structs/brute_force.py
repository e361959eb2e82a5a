"""Exhaustive decoding for tiny sentences (n <= 7); used only by the tests.

Enumerates every binary bracketing in a fixed order -- the root split k
ascending, then the left subtrees, then the right subtrees, recursively -- and
keeps the first one with the highest score.  That order makes "first optimum"
equal to the CKY rule "leftmost split on ties" without sharing any code with
the decoders.  Labels are chosen per span by a plain max over all L labels of
``score + cost`` (EMPTY = 0), the lowest index on ties; :func:`all_labeled_trees`
also enumerates every labelling (tiny n and L only).
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterator, List, Optional, Tuple

import numpy as np

from mlparse.structs.chart_tree import EMPTY, ChartTree, GoldSpans

Bracketing = Tuple[Tuple[int, int], ...]

MAX_LENGTH = 7


@lru_cache(maxsize=None)
def bracketings(i: int, j: int) -> Tuple[Bracketing, ...]:
    """All binary bracketings of (i, j) as tuples of spans in pre-order, in enumeration order."""
    if j - i == 1:
        return (((i, j),),)
    out: List[Bracketing] = []
    for k in range(i + 1, j):
        for left in bracketings(i, k):
            for right in bracketings(k, j):
                out.append(((i, j),) + left + right)
    return tuple(out)


def label_value(scores: np.ndarray, i: int, j: int, label: int, gold: Optional[GoldSpans]) -> float:
    """Score of ``label`` on (i, j) with EMPTY = 0, plus 1.0 when it differs from the gold label."""
    value = 0.0 if label == EMPTY else float(scores[i, j, label])
    if gold is not None and label != gold.get((i, j), EMPTY):
        value += 1.0
    return value


def brute_force_decode(scores: np.ndarray, gold: Optional[GoldSpans] = None) -> ChartTree:
    """Best bracketing by enumeration (first optimum in enumeration order)."""
    n = scores.shape[0] - 1
    if not 1 <= n <= MAX_LENGTH:
        raise ValueError(f"brute force is for 1 <= n <= {MAX_LENGTH}, got {n}")
    num_labels = scores.shape[2]
    best_label = {}
    for i in range(n):
        for j in range(i + 1, n + 1):
            values = [label_value(scores, i, j, label, gold) for label in range(num_labels)]
            top = max(values)
            best_label[i, j] = (top, values.index(top))
    best: Optional[ChartTree] = None
    for bracketing in bracketings(0, n):
        score = sum(best_label[span][0] for span in bracketing)
        if best is None or score > best.score:
            best = ChartTree(spans=[(i, j, best_label[i, j][1]) for i, j in bracketing], score=score)
    assert best is not None
    return best


def all_labeled_trees(scores: np.ndarray, gold: Optional[GoldSpans] = None) -> Iterator[ChartTree]:
    """Every labelled bracketing with its score (L^(2n-1) labellings per bracketing)."""
    n, num_labels = scores.shape[0] - 1, scores.shape[2]
    for bracketing in bracketings(0, n):
        for labels in itertools.product(range(num_labels), repeat=len(bracketing)):
            score = sum(label_value(scores, i, j, l, gold) for (i, j), l in zip(bracketing, labels))
            yield ChartTree(spans=[(i, j, l) for (i, j), l in zip(bracketing, labels)], score=score)


def brute_force_best_score(scores: np.ndarray, gold: Optional[GoldSpans] = None) -> float:
    """Highest score over every labelled bracketing (tiny n and L only)."""
    return max(tree.score for tree in all_labeled_trees(scores, gold))
