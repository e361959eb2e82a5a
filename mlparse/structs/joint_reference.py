"""The reference joint span + dependency decoder: clear, pure Python, exact, O(n^4).

It maximises span score + arc score over headed binary trees
(:mod:`mlparse.structs.joint_tree`).  The compiled decoder
(:mod:`mlparse.structs.joint_compiled`) must return exactly what this one
returns: the same recurrences, the same float64 arithmetic order, the same
tie-breaking.

Recurrences.  ``lab(i, j)`` is the best label value of span (i, j) (EMPTY = 0,
plus the Hamming cost when loss-augmented), ``arc(h, d)`` the arc score.

* ``best[i, j, h]`` (0 <= i < j <= n, i < h <= j): the best headed subtree over
  span (i, j) whose head is word h.  Width 1: ``best[i, i+1, i+1] = lab(i, i+1)``.
* ``hook[a, b, h]`` for a head h outside (a, b]: the best way to hang a subtree
  over (a, b) from h::

      hook[a, b, h] = max over h' in (a, b] of  best[a, b, h'] + arc(h, h')

* a wider span takes its head from the left child (h <= k) or the right child
  (h > k) of its split k, and the other child hangs from h::

      best[i, j, h] = lab(i, j) + max over k in (i, j) of
                        best[i, k, h] + hook[k, j, h]     if h <= k
                        hook[i, k, h] + best[k, j, h]     if h > k

* the whole sentence: ``max over h in 1..n of best[0, n, h] + arc(0, h)``.

Complexity.  Naive lexicalized CKY maximises over (k, h, h') for every
(i, j): O(n^5).  With the hook table (the Eisner & Satta 1999 trick) the
maximisation over the dependent's head h' is done once per (span, h) and
shared by every parent span: computing ``hook`` costs O(n) per (a, b, h), and
``best`` costs O(n) per (i, j, h), so both are O(n^4) time (about n^4 / 12
steps each), with O(n^3) memory for the two tables and their back-pointers,
plus O(n^2 L) for the labels.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from mlparse.structs.chart_tree import EMPTY, GoldSpans, IndexedSpan
from mlparse.structs.cky_reference import best_label
from mlparse.structs.dep_tree import HeadArray
from mlparse.structs.joint_tree import JointTree, augmented_arcs, check_joint_inputs, empty_heads

Cell = Tuple[int, int, int]


def decode_joint_reference(
    span_scores: np.ndarray,
    arc_scores: np.ndarray,
    length: Optional[int] = None,
    gold: Optional[Tuple[GoldSpans, HeadArray]] = None,
) -> JointTree:
    """Best headed binary tree of one sentence; arguments as :func:`mlparse.structs.joint.decode_joint`."""
    n = check_joint_inputs(span_scores, arc_scores, length, gold)
    gold_spans = None if gold is None else gold[0]
    arcs = augmented_arcs(arc_scores, n, None if gold is None else gold[1]).tolist()

    label_value: Dict[Tuple[int, int], float] = {}
    label_index: Dict[Tuple[int, int], int] = {}
    for i in range(n):
        for j in range(i + 1, n + 1):
            row = [float(x) for x in span_scores[i, j].tolist()]
            gold_label = None if gold_spans is None else gold_spans.get((i, j), EMPTY)
            label_value[i, j], label_index[i, j] = best_label(row, gold_label)

    best: Dict[Cell, float] = {}
    split: Dict[Cell, int] = {}
    hook: Dict[Cell, float] = {}
    hook_head: Dict[Cell, int] = {}

    def make_hooks(a: int, b: int) -> None:
        for h in list(range(1, a + 1)) + list(range(b + 1, n + 1)):
            top, top_head = float("-inf"), -1
            for head in range(a + 1, b + 1):
                value = best[a, b, head] + arcs[h][head]
                if value > top:
                    top, top_head = value, head
            hook[a, b, h], hook_head[a, b, h] = top, top_head

    for i in range(n):
        best[i, i + 1, i + 1] = label_value[i, i + 1]
        make_hooks(i, i + 1)
    for width in range(2, n + 1):
        for i in range(n - width + 1):
            j = i + width
            for h in range(i + 1, j + 1):
                top, top_k = float("-inf"), -1
                for k in range(i + 1, j):
                    if h <= k:
                        value = best[i, k, h] + hook[k, j, h]
                    else:
                        value = hook[i, k, h] + best[k, j, h]
                    if value > top:
                        top, top_k = value, k
                best[i, j, h] = label_value[i, j] + top
                split[i, j, h] = top_k
            if width < n:
                make_hooks(i, j)

    score, root_head = float("-inf"), -1
    for h in range(1, n + 1):
        value = best[0, n, h] + arcs[0][h]
        if value > score:
            score, root_head = value, h

    heads = empty_heads(n)
    heads[root_head] = 0
    spans: List[IndexedSpan] = []
    stack = [(0, n, root_head)]
    while stack:
        i, j, h = stack.pop()
        spans.append((i, j, label_index[i, j]))
        if j - i < 2:
            continue
        k = split[i, j, h]
        if h <= k:
            dependent = hook_head[k, j, h]
            left, right = (i, k, h), (k, j, dependent)
        else:
            dependent = hook_head[i, k, h]
            left, right = (i, k, dependent), (k, j, h)
        heads[dependent] = h
        stack.append(right)
        stack.append(left)
    return JointTree(spans=spans, heads=heads, score=score)
