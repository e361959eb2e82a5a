"""Every headed binary tree of a tiny sentence (n <= 7), for testing the joint decoders.

:func:`headed_trees` enumerates, recursively and without sharing code with the
decoders, every binary bracketing of ``(0, n)`` together with every choice of
which child gives each internal node its head: Catalan(n-1) * 2^(n-1) trees
(1,344 for n = 6, 8,448 for n = 7).  Each tree is scored directly (labels
chosen per span by a plain max over the L labels, EMPTY = 0, as
:mod:`mlparse.structs.brute_force` does) and the first optimum is kept.
"""

from __future__ import annotations

from functools import lru_cache
from typing import List, Optional, Tuple

import numpy as np

from mlparse.structs.brute_force import label_value
from mlparse.structs.chart_tree import GoldSpans
from mlparse.structs.dep_tree import HeadArray
from mlparse.structs.joint_tree import JointTree

MAX_LENGTH = 7

#: One headed subtree: (spans in pre-order, its head word, its arcs as (head, dependent) pairs).
Headed = Tuple[Tuple[Tuple[int, int], ...], int, Tuple[Tuple[int, int], ...]]


@lru_cache(maxsize=None)
def headed_subtrees(i: int, j: int) -> Tuple[Headed, ...]:
    """Every headed binary subtree over span (i, j)."""
    if j - i == 1:
        return ((((i, j),), j, ()),)
    out: List[Headed] = []
    for k in range(i + 1, j):
        for left_spans, left_head, left_arcs in headed_subtrees(i, k):
            for right_spans, right_head, right_arcs in headed_subtrees(k, j):
                spans = ((i, j),) + left_spans + right_spans
                arcs = left_arcs + right_arcs
                out.append((spans, left_head, arcs + ((left_head, right_head),)))
                out.append((spans, right_head, arcs + ((right_head, left_head),)))
    return tuple(out)


def headed_trees(n: int) -> List[Tuple[Tuple[Tuple[int, int], ...], np.ndarray]]:
    """Every headed binary tree of n words as (spans in pre-order, heads (n+1,) with heads[0] = -1)."""
    if not 1 <= n <= MAX_LENGTH:
        raise ValueError(f"brute force is for 1 <= n <= {MAX_LENGTH}, got {n}")
    trees = []
    for spans, root_head, arcs in headed_subtrees(0, n):
        heads = np.full(n + 1, -1, dtype=np.int64)
        heads[root_head] = 0
        for head, dependent in arcs:
            heads[dependent] = head
        trees.append((spans, heads))
    return trees


def brute_force_joint(
    span_scores: np.ndarray, arc_scores: np.ndarray, gold: Optional[Tuple[GoldSpans, HeadArray]] = None
) -> JointTree:
    """Best headed binary tree by enumeration (the first optimum); scores unpadded, (n+1, n+1, L) and (n+1, n+1)."""
    n = span_scores.shape[0] - 1
    gold_spans = None if gold is None else gold[0]
    labels = {}
    for i in range(n):
        for j in range(i + 1, n + 1):
            values = [label_value(span_scores, i, j, label, gold_spans) for label in range(span_scores.shape[2])]
            top = max(values)
            labels[i, j] = (top, values.index(top))
    best: Optional[JointTree] = None
    for spans, heads in headed_trees(n):
        score = sum(labels[span][0] for span in spans)
        for d in range(1, n + 1):
            score += float(arc_scores[heads[d], d])
            if gold is not None and heads[d] != int(gold[1][d]):
                score += 1.0
        if best is None or score > best.score:
            best = JointTree(spans=[(i, j, labels[i, j][1]) for i, j in spans], heads=heads, score=score)
    assert best is not None
    return best
