"""Every dependency tree of a tiny sentence (n <= 7), for testing the decoders.

:func:`all_trees` enumerates all ``n^n`` head assignments (each word takes a
head in 0..n other than itself) with numpy and keeps those with exactly one
root dependent and no cycle: ``n^(n-1)`` trees (117,649 for n = 7).  With
``projective=True`` it keeps those whose arcs do not cross (the root's arc from
position 0 included), a definition independent of the decoders'.  Scoring all
trees at once is one gather, so many random cases per n stay fast.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mlparse.structs.dep_tree import NO_HEAD

MAX_LENGTH = 7


@lru_cache(maxsize=None)
def _all_trees(n: int, projective: bool) -> np.ndarray:
    if not 1 <= n <= MAX_LENGTH:
        raise ValueError(f"brute force is for 1 <= n <= {MAX_LENGTH}, got {n}")
    codes = np.arange(n**n, dtype=np.int64)
    heads = np.empty((codes.size, n + 1), dtype=np.int64)
    heads[:, 0] = 0  # a fixed point while following heads; set to NO_HEAD at the end
    for d in range(1, n + 1):
        choice = (codes // n ** (d - 1)) % n  # 0..n-1 over the heads 0..n without d
        heads[:, d] = choice + (choice >= d)
    keep = (heads[:, 1:] == 0).sum(axis=1) == 1
    heads = heads[keep]
    reach = heads.copy()
    for _ in range(n):  # after n steps from any word, a tree is at the root
        reach = np.take_along_axis(heads, reach, axis=1)
    heads = heads[(reach == 0).all(axis=1)]
    if projective:
        heads = heads[~_crossing(heads)]
    heads[:, 0] = NO_HEAD
    heads.setflags(write=False)
    return heads


def _crossing(heads: np.ndarray) -> np.ndarray:
    """For each tree (row), whether two of its arcs cross (endpoints strictly interleaved)."""
    n = heads.shape[1] - 1
    words = np.arange(1, n + 1)
    low = np.minimum(heads[:, 1:], words)  # (T, n)
    high = np.maximum(heads[:, 1:], words)
    a_low, a_high = low[:, :, None], high[:, :, None]
    b_low, b_high = low[:, None, :], high[:, None, :]
    crosses = (a_low < b_low) & (b_low < a_high) & (a_high < b_high)
    return crosses.any(axis=(1, 2))


def all_trees(n: int, projective: bool = False) -> np.ndarray:
    """Every single-rooted tree of n words: read-only int64 array (T, n+1), heads[:, 0] = -1."""
    return _all_trees(n, projective)


def all_tree_scores(scores: np.ndarray, projective: bool = False) -> np.ndarray:
    """float64 (T,) scores of :func:`all_trees` for ``scores`` (n+1, n+1), head first.

    Summed over d = 1..n in that order, like :func:`mlparse.structs.dep_tree.tree_score`.
    """
    n = scores.shape[0] - 1
    trees = all_trees(n, projective)
    arcs = np.asarray(scores, dtype=np.float64)[trees[:, 1:], np.arange(1, n + 1)]  # (T, n)
    total = np.zeros(trees.shape[0])
    for d in range(n):
        total += arcs[:, d]
    return total


def brute_force_best_score(scores: np.ndarray, projective: bool = False) -> float:
    """Highest score over every (projective) single-rooted tree of ``scores`` (n+1, n+1)."""
    return float(all_tree_scores(scores, projective).max())
