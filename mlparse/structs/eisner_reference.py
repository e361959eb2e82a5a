"""Eisner's projective decoder with exactly one root dependent: pure Python, O(n^3).

The compiled twin (:mod:`mlparse.structs.eisner_compiled`) and the batched torch
version (:mod:`mlparse.structs.eisner_torch`) follow the same rules, so all three
return identical heads:

Spans over the words 1..n (the root is left out of the chart), for s <= t:

* ``complete_right[s][t]``: s heads everything in s..t (arcs point right);
  ``complete_left[s][t]``: t heads everything in s..t; both 0 when s == t.
* ``incomplete_right[s][t]`` holds the arc s -> t and ``incomplete_left[s][t]``
  the arc t -> s, over the same split:
  ``split = max over k in s..t-1 of complete_right[s][k] + complete_left[k+1][t]``,
  then ``incomplete_right[s][t] = split + scores[s][t]``,
  ``incomplete_left[s][t] = split + scores[t][s]``.
* ``complete_right[s][t] = max over k in s+1..t of incomplete_right[s][k] + complete_right[k][t]``,
  ``complete_left[s][t] = max over k in s..t-1 of complete_left[s][k] + incomplete_left[k][t]``.
* The root takes one dependent r: the best ``(complete_left[1][r] +
  complete_right[r][n]) + scores[0][r]`` over r in 1..n.  The root's arc is
  projective whatever r is (the root dominates every word), and with the root
  outside the chart no second root arc can be built; so the best projective
  single-rooted tree is that arc plus the best projective tree of the words
  headed by r, which is exactly r's left and right complete spans.

Ties: the smallest k (and the smallest r) wins.  Arithmetic: float64, summed in
the order written above.
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from mlparse.structs.dep_tree import NO_HEAD, ROOT, check_arc_scores

NEG_INF = float("-inf")

# Span kinds on the back-tracking stack.
COMPLETE_RIGHT, COMPLETE_LEFT, INCOMPLETE_RIGHT, INCOMPLETE_LEFT = range(4)


def eisner_heads(scores: List[List[float]], n: int) -> List[int]:
    """Heads of the best projective single-rooted tree; ``scores[h][d]`` (head first), n >= 1."""
    size = n + 1
    complete_right = [[0.0] * size for _ in range(size)]
    complete_left = [[0.0] * size for _ in range(size)]
    incomplete_right = [[0.0] * size for _ in range(size)]
    incomplete_left = [[0.0] * size for _ in range(size)]
    split_incomplete = [[0] * size for _ in range(size)]
    split_right = [[0] * size for _ in range(size)]
    split_left = [[0] * size for _ in range(size)]
    for width in range(1, n):
        for s in range(1, n - width + 1):
            t = s + width
            best, best_k = NEG_INF, s
            for k in range(s, t):
                value = complete_right[s][k] + complete_left[k + 1][t]
                if value > best:
                    best, best_k = value, k
            incomplete_right[s][t] = best + scores[s][t]
            incomplete_left[s][t] = best + scores[t][s]
            split_incomplete[s][t] = best_k
            best, best_k = NEG_INF, s + 1
            for k in range(s + 1, t + 1):
                value = incomplete_right[s][k] + complete_right[k][t]
                if value > best:
                    best, best_k = value, k
            complete_right[s][t] = best
            split_right[s][t] = best_k
            best, best_k = NEG_INF, s
            for k in range(s, t):
                value = complete_left[s][k] + incomplete_left[k][t]
                if value > best:
                    best, best_k = value, k
            complete_left[s][t] = best
            split_left[s][t] = best_k
    best, root_dependent = NEG_INF, 1
    for r in range(1, n + 1):
        value = (complete_left[1][r] + complete_right[r][n]) + scores[ROOT][r]
        if value > best:
            best, root_dependent = value, r

    heads = [NO_HEAD] * (n + 1)
    heads[root_dependent] = ROOT
    stack = [(COMPLETE_LEFT, 1, root_dependent), (COMPLETE_RIGHT, root_dependent, n)]
    while stack:
        kind, s, t = stack.pop()
        if s == t:
            continue
        if kind == COMPLETE_RIGHT:
            k = split_right[s][t]
            stack.append((INCOMPLETE_RIGHT, s, k))
            stack.append((COMPLETE_RIGHT, k, t))
        elif kind == COMPLETE_LEFT:
            k = split_left[s][t]
            stack.append((COMPLETE_LEFT, s, k))
            stack.append((INCOMPLETE_LEFT, k, t))
        else:
            if kind == INCOMPLETE_RIGHT:
                heads[t] = s
            else:
                heads[s] = t
            k = split_incomplete[s][t]
            stack.append((COMPLETE_RIGHT, s, k))
            stack.append((COMPLETE_LEFT, k + 1, t))
    return heads


def decode_eisner_reference(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """Best projective tree with exactly one root dependent (pure Python).

    Args:
        scores: float array (N+1, N+1), ``scores[h, d]`` = score of the arc head h ->
            dependent d (head first; position 0 is the root); only
            ``scores[:n+1, 1:n+1]`` off the diagonal is read.
        length: the sentence length n when the array is padded (default N).

    Returns:
        int64 heads (n+1,), ``heads[0] = -1`` (see :mod:`mlparse.structs.dep_tree`).
    """
    n = check_arc_scores(scores, length)
    rows = np.asarray(scores[: n + 1, : n + 1], dtype=np.float64).tolist()
    return np.asarray(eisner_heads(rows, n), dtype=np.int64)
