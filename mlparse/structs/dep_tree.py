"""Dependency trees as head arrays, and the conventions every dependency decoder follows.

Conventions (MST, Eisner, the batched torch Eisner and the brute force):

* A sentence of ``n`` words has positions ``0..n``; position 0 is the root
  pseudo-word (:data:`ROOT`), words are ``1..n``.
* Arc scores are an array ``scores`` of shape ``(n+1, n+1)`` (or larger, padded,
  with a ``length``), oriented **head first**: ``scores[h, d]`` is the score of
  the arc from head ``h`` to dependent ``d``; higher is better (typically the
  log-probabilities of the biaffine arc softmax, transposed if the softmax is
  over heads in the last dimension).  Column 0 (arcs into the root) and the
  diagonal (self-loops) are never read.  The read part must be finite.
* A tree is a head array ``heads`` of ``n+1`` integers: ``heads[d]`` is the head
  of word ``d`` (0 for the root's dependent), and ``heads[0] = -1``
  (:data:`NO_HEAD`: the root has no head).  Batched decoders also put -1 on the
  padding positions ``d > n``.
* Every decoder returns a well-formed tree (:func:`tree_problem`): every word
  has a head in ``0..n`` other than itself, there is no cycle, and the root
  has **exactly one** dependent.
* A tree's score is ``sum(scores[heads[d], d] for d in 1..n)`` accumulated in
  float64 in that order (:func:`tree_score`).

Projectivity (:func:`is_projective`): every arc (h, d) dominates the words
strictly between h and d (they are all descendants of h).  Equivalently (the
tests check it on every small tree), no two arcs cross when drawn above the
sentence with the root at position 0, the root's arc included.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Union

import numpy as np

#: Position of the root pseudo-word.
ROOT: int = 0

#: ``heads[0]`` and padding positions: no head.
NO_HEAD: int = -1

HeadArray = Union[np.ndarray, Sequence[int]]


def check_arc_scores(scores: np.ndarray, length: Optional[int] = None, finite: bool = True) -> int:
    """Validate a (padded) arc score matrix and return the sentence length n.

    Args:
        scores: array (N+1, N+1), ``scores[h, d]`` (head first).
        length: the sentence length n <= N when the array is padded; None means N.
        finite: also check that the part the decoders read is finite (the compiled
            decoders check that themselves while reading, and call this again to
            name the culprit).

    Raises:
        ValueError: wrong shape or dtype, a length outside 1..N, or a non-finite score
            in the part the decoders read (``scores[:n+1, 1:n+1]`` off the diagonal).
    """
    if not isinstance(scores, np.ndarray):
        raise ValueError(f"arc scores must be a numpy array, got {type(scores).__name__}")
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1]:
        raise ValueError(f"arc scores must have shape (n+1, n+1), got {tuple(scores.shape)}")
    if scores.dtype.kind not in "iuf":
        raise ValueError(f"arc scores must be real numbers, got dtype {scores.dtype}")
    padded = scores.shape[0] - 1
    n = padded if length is None else int(length)
    if not 1 <= n <= padded:
        raise ValueError(f"sentence length {n} is not in 1..{padded} (arc scores of shape {tuple(scores.shape)})")
    if finite:
        block = scores[: n + 1, 1 : n + 1]
        ok = np.isfinite(block)
        if not ok.all():
            ok[1:, :] |= np.eye(n, dtype=bool)  # self-loops are never read
            if not ok.all():
                h, d = np.argwhere(~ok)[0]
                raise ValueError(f"arc score scores[{h}, {d + 1}] is {block[h, d]}; arc scores must be finite")
    return n


def tree_problem(heads: HeadArray) -> Optional[str]:
    """Why ``heads`` is not a well-formed single-rooted tree, or None if it is.

    Well-formed: ``heads[0] == -1``; for d in 1..n, ``heads[d]`` is in 0..n and
    is not d; exactly one word has head 0; following heads from any word reaches 0.
    """
    values = [int(h) for h in heads]
    n = len(values) - 1
    if n < 1:
        return "a tree needs at least one word (heads has length >= 2)"
    if values[0] != NO_HEAD:
        return f"heads[0] is {values[0]}, expected {NO_HEAD} (the root has no head)"
    for d in range(1, n + 1):
        if not 0 <= values[d] <= n:
            return f"heads[{d}] = {values[d]} is not a position in 0..{n}"
        if values[d] == d:
            return f"word {d} is its own head"
    root_dependents = [d for d in range(1, n + 1) if values[d] == ROOT]
    if len(root_dependents) != 1:
        return f"the root has {len(root_dependents)} dependents {root_dependents}, expected exactly one"
    state = [0] * (n + 1)  # 0 unvisited, 1 on the current path, 2 reaches the root
    state[ROOT] = 2
    for start in range(1, n + 1):
        path: List[int] = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = values[node]
        if state[node] == 1:
            cycle = path[path.index(node) :]
            return f"words {sorted(cycle)} form a cycle"
        for visited in path:
            state[visited] = 2
    return None


def is_well_formed(heads: HeadArray) -> bool:
    """True when ``heads`` is a single-rooted tree (see :func:`tree_problem`)."""
    return tree_problem(heads) is None


def is_projective(heads: HeadArray) -> bool:
    """True when every arc (h, d) dominates all words strictly between h and d.

    Raises:
        ValueError: ``heads`` is not a well-formed tree.
    """
    problem = tree_problem(heads)
    if problem is not None:
        raise ValueError(f"not a well-formed tree: {problem}")
    values = [int(h) for h in heads]
    n = len(values) - 1
    for d in range(1, n + 1):
        h = values[d]
        for between in range(min(h, d) + 1, max(h, d)):
            node = between
            while node != h and node != ROOT:
                node = values[node]
            if node != h:
                return False
    return True


def tree_score(scores: np.ndarray, heads: HeadArray) -> float:
    """Sum of ``scores[heads[d], d]`` for d = 1..n, in float64, in that order."""
    values = [int(h) for h in heads]
    total = 0.0
    for d in range(1, len(values)):
        total += float(scores[values[d], d])
    return total
