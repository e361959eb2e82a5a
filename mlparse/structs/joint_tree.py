"""Headed binary trees: a bracketing and a dependency tree at once, and the rules the joint decoders share.

A *headed binary tree* over words ``1..n`` (fenceposts ``0..n``) is a full
binary bracketing of ``(0, n)`` (as :class:`~mlparse.structs.chart_tree.ChartTree`)
in which every node has a lexical head, a word it covers:

* a width-1 span ``(i, i+1)`` is headed by its word ``i+1``;
* a node with children ``A`` and ``B`` takes the head of one of them, and the
  head of the other child depends on it (one arc per internal node);
* the head of the root span ``(0, n)`` depends on the root pseudo-word 0.

So the ``n`` arcs form a single-rooted dependency tree (heads as in
:mod:`mlparse.structs.dep_tree`: ``heads[d]``, ``heads[0] = -1``) that is
projective and consistent with the bracketing: every span has exactly one word
whose head lies outside it.  Every projective tree with one root dependent is
consistent with at least one bracketing (Zhou & Zhao's joint span
representation, used by Mrini et al. 2020, §3).

Scores (the conventions of CKY and of the dependency decoders):

* ``span_scores`` (N+1, N+1, L): ``span_scores[i, j, l]`` is the score of label
  ``l`` on span ``(i, j)``; label 0 is EMPTY and counts 0; every span takes its
  best label independently of the heads (:func:`mlparse.structs.cky_reference.best_label`).
* ``arc_scores`` (N+1, N+1): ``arc_scores[h, d]``, head first, position 0 the root.
* A tree's score is its span score plus its arc score; loss-augmented decoding
  adds CKY's Hamming cost on labelled spans and 1.0 for every word whose head
  differs from its gold head.

Deterministic tie-breaking, identical in the reference and the compiled decoder
(the brute force is compared on the score only):

* split ``k`` of a span for a given head: the smallest ``k`` on ties;
* the head ``h'`` of a child attached to a head ``h``: the smallest ``h'`` on ties;
* the head of the root span: the smallest word on ties.
* arithmetic: float64, in the order written in :mod:`mlparse.structs.joint_reference`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from mlparse.structs.chart_tree import GoldSpans, IndexedSpan, check_gold, check_scores, is_binary_bracketing
from mlparse.structs.dep_tree import NO_HEAD, HeadArray, check_arc_scores, tree_problem


@dataclass(frozen=True, eq=False)
class JointTree:
    """A decoded headed binary tree (``==`` compares spans, heads and score).

    Attributes:
        spans: the ``2n - 1`` spans ``(i, j, label_index)`` in pre-order (root first),
            EMPTY-labelled spans included, as :attr:`ChartTree.spans`.
        heads: int64 array (n+1,): ``heads[d]`` is the head of word d, ``heads[0] = -1``.
        score: the value the decoder maximised: span score + arc score (+ the
            Hamming costs when decoded with ``gold``).
    """

    spans: List[IndexedSpan]
    heads: np.ndarray
    score: float

    @property
    def length(self) -> int:
        """Sentence length n."""
        return self.spans[0][1]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JointTree):
            return NotImplemented
        return self.score == other.score and self.spans == other.spans and np.array_equal(self.heads, other.heads)


class JointGold(NamedTuple):
    """Gold structures of one sentence: the gold of loss-augmented joint decoding (``spans`` and ``heads``)
    and the joint parser's training target (all three).

    Attributes:
        spans: gold spans {(i, j): label index}; spans not listed are gold-EMPTY.
        heads: gold heads (n+1,), ``heads[0] = -1``, ``heads[d]`` the head of word d (0 = root).
        relations: relation ids of words 1..n (length n); empty when only decoding.
    """

    spans: GoldSpans
    heads: HeadArray
    relations: Sequence[int] = ()


def check_joint_inputs(
    span_scores: np.ndarray, arc_scores: np.ndarray, length: Optional[int], gold: Optional[Tuple[GoldSpans, HeadArray]]
) -> int:
    """Validate both score arrays (and the gold structures) and return the sentence length n.

    Raises:
        ValueError: wrong shapes, a length that does not fit both arrays, a non-finite
            arc score, or gold spans / heads out of range.
    """
    if span_scores.ndim == 3 and arc_scores.ndim == 2 and length is None:
        if span_scores.shape[0] != arc_scores.shape[0]:
            raise ValueError(
                f"span scores {tuple(span_scores.shape)} and arc scores {tuple(arc_scores.shape)} "
                "are for different lengths; pass length= for padded arrays"
            )
    n = check_scores(span_scores, length)
    check_arc_scores(arc_scores, n)
    if gold is not None:
        gold_spans, gold_heads = gold[0], gold[1]  # a JointGold or a (spans, heads) pair
        check_gold(gold_spans, n, span_scores.shape[2])
        if len(gold_heads) != n + 1:
            raise ValueError(f"gold heads have length {len(gold_heads)}, expected n + 1 = {n + 1}")
        problem = tree_problem(gold_heads)
        if problem is not None:
            raise ValueError(f"gold heads are not a tree: {problem}")
    return n


def augmented_arcs(arc_scores: np.ndarray, n: int, gold_heads: Optional[HeadArray]) -> np.ndarray:
    """float64 (n+1, n+1) arc scores, plus 1.0 on every arc that is not a gold arc when ``gold_heads`` is given."""
    arcs = np.array(arc_scores[: n + 1, : n + 1], dtype=np.float64, order="C")
    if gold_heads is not None:
        arcs += 1.0
        words = np.arange(1, n + 1)
        arcs[np.asarray(gold_heads, dtype=np.int64)[1:], words] -= 1.0
    return arcs


def node_heads(spans: Sequence[IndexedSpan], heads: HeadArray) -> dict:
    """{(i, j): the words of span (i, j) whose head lies outside it} for every span."""
    values = [int(h) for h in heads]
    return {(i, j): [d for d in range(i + 1, j + 1) if not i < values[d] <= j] for i, j, _ in spans}


def headed_tree_problem(spans: Sequence[IndexedSpan], heads: HeadArray) -> Optional[str]:
    """Why (spans, heads) is not a headed binary tree, or None if it is (see the module docstring)."""
    values = [int(h) for h in heads]
    n = len(values) - 1
    if not spans or spans[0][:2] != (0, n):
        return f"the first span is not the root span (0, {n})"
    if not is_binary_bracketing(spans, n):
        return "the spans are not a full binary bracketing"
    problem = tree_problem(values)
    if problem is not None:
        return problem
    outside = node_heads(spans, values)
    for (i, j), words in outside.items():
        if len(words) != 1:
            return f"span ({i}, {j}) has {len(words)} words headed outside it {words}, expected one"
    present = set(outside)
    for (i, j), (head,) in outside.items():
        if j - i < 2:
            continue
        k = next(k for k in range(i + 1, j) if (i, k) in present and (k, j) in present)
        (left,), (right,) = outside[i, k], outside[k, j]
        if head not in (left, right):
            return f"the head {head} of span ({i}, {j}) is not the head of a child"
        other = right if head == left else left
        if values[other] != head:
            return f"the head {other} of a child of span ({i}, {j}) depends on {values[other]}, not on {head}"
    if values[outside[0, n][0]] != 0:
        return "the head of the root span does not depend on the root"
    return None


def joint_score(
    span_scores: np.ndarray,
    arc_scores: np.ndarray,
    spans: Sequence[IndexedSpan],
    heads: HeadArray,
    gold: Optional[Tuple[GoldSpans, HeadArray]] = None,
) -> float:
    """Span score (EMPTY = 0) + arc score of a tree, plus the Hamming costs against ``gold`` (float64)."""
    values = [int(h) for h in heads]
    total = 0.0
    for i, j, label in spans:
        if label != 0:
            total += float(span_scores[i, j, label])
    for d in range(1, len(values)):
        total += float(arc_scores[values[d], d])
    if gold is not None:
        gold_spans, gold_heads = gold[0], gold[1]  # a JointGold or a (spans, heads) pair
        total += sum(1 for i, j, label in spans if label != gold_spans.get((i, j), 0))
        total += sum(1 for d in range(1, len(values)) if values[d] != int(gold_heads[d]))
    return total


def empty_heads(n: int) -> np.ndarray:
    """int64 (n+1,) filled with -1 (``NO_HEAD``), to be filled by a decoder."""
    return np.full(n + 1, NO_HEAD, dtype=np.int64)
