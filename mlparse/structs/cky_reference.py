"""The reference CKY decoder: small, clear, pure Python.  O(n^3 + n^2 L).

The fast decoders (Cython, batched torch) must return exactly what this one
returns; the rules (tie-breaking, arithmetic order) are in
:mod:`mlparse.structs.chart_tree`.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from mlparse.structs.chart_tree import EMPTY, ChartTree, GoldSpans, IndexedSpan, check_gold, check_scores


def best_label(row: List[float], gold_label: Optional[int]) -> Tuple[float, int]:
    """Best (value, label) for one span; ``row`` holds the L raw label scores.

    ``gold_label`` is None for plain decoding, else the gold label index of the
    span (EMPTY off the gold tree) for Hamming-augmented decoding.
    """
    row = [0.0] + row[1:]  # the EMPTY label scores 0
    if gold_label is None:
        value, label = row[0], 0
        for index in range(1, len(row)):
            if row[index] > value:
                value, label = row[index], index
        return value, label
    # Best non-gold label by raw score (lowest index on ties), then +1 against the gold label.
    other_value, other_label = float("-inf"), -1
    for index, score in enumerate(row):
        if index != gold_label and score > other_value:
            other_value, other_label = score, index
    augmented = other_value + 1.0
    gold_value = row[gold_label]
    if augmented > gold_value or (augmented == gold_value and other_label < gold_label):
        return augmented, other_label
    return gold_value, gold_label


def decode_reference(scores: np.ndarray, gold: Optional[GoldSpans] = None, length: Optional[int] = None) -> ChartTree:
    """Highest-scoring binary bracketing of one sentence.

    Args:
        scores: float array of shape (n+1, n+1, L); label 0 is EMPTY (scores 0).
        gold: optional gold spans {(i, j): label}; when given, decode with the
            Hamming cost added (loss-augmented decoding).
        length: decode only the first ``length`` words of a padded array.
    """
    n = check_scores(scores, length)
    if gold is not None:
        check_gold(gold, n, scores.shape[2])
    label_value: Dict[Tuple[int, int], float] = {}
    label_index: Dict[Tuple[int, int], int] = {}
    for i in range(n):
        for j in range(i + 1, n + 1):
            row = [float(x) for x in scores[i, j].tolist()]
            gold_label = None if gold is None else gold.get((i, j), EMPTY)
            label_value[i, j], label_index[i, j] = best_label(row, gold_label)

    best: Dict[Tuple[int, int], float] = {}
    split: Dict[Tuple[int, int], int] = {}
    for i in range(n):
        best[i, i + 1] = label_value[i, i + 1]
    for width in range(2, n + 1):
        for i in range(n - width + 1):
            j = i + width
            best_split_value, best_k = float("-inf"), i + 1
            for k in range(i + 1, j):
                value = best[i, k] + best[k, j]
                if value > best_split_value:
                    best_split_value, best_k = value, k
            best[i, j] = label_value[i, j] + best_split_value
            split[i, j] = best_k

    spans: List[IndexedSpan] = []
    stack = [(0, n)]
    while stack:
        i, j = stack.pop()
        spans.append((i, j, label_index[i, j]))
        if j - i >= 2:
            k = split[i, j]
            stack.append((k, j))
            stack.append((i, k))
    return ChartTree(spans=spans, score=best[0, n])
