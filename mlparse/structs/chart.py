"""Conversion between trees and charts, and the span-label vocabulary.

Tree -> chart (:func:`gold_spans`): take a TOP-rooted tree, collapse its unary
chains into joint labels (``S::VP``), drop TOP, and read the labelled spans:
the sentence-level node and every constituent.  A single-word constituent
``(NP (NN dog))`` is the span (i, i+1) labelled ``NP``; POS tags live in the
leaves and are not spans.  Spans that are not in the dict are EMPTY.

Chart -> tree (:func:`tree_from_chart`): the n-ary tree whose binarized,
chain-collapsed form has exactly the decoded spans, built in one pass; it equals
building one node per span (EMPTY spans get the empty label), hanging the leaves
under the deepest span that covers them, putting everything under TOP, splicing
out the empty-labelled nodes (:func:`~mlparse.trees.transforms.unbinarize`) and
expanding the joint labels (:func:`~mlparse.trees.transforms.expand_unary`),
which :func:`tree_from_chart_reference` does.  For every tree ``t``
accepted by :func:`gold_spans`, decoding scores that prefer its gold spans and
converting back gives ``t`` again.

Unknown labels (a chain first seen in dev/test): :func:`gold_spans` raises
:class:`UnknownLabelError` by default; ``unknown="empty"`` maps such spans to
EMPTY instead (the tree can then not be rebuilt exactly; use it only for a dev
loss).  Evaluation never needs gold spans: it compares trees with evalb.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from mlparse.structs.chart_tree import EMPTY, ChartTree, IndexedSpan
from mlparse.trees.transforms import EMPTY_LABEL, JOIN, collapse_unary, expand_unary, unbinarize
from mlparse.trees.tree import Leaf, Tree

TOP = "TOP"
UNKNOWN_POLICIES = ("error", "empty")


class UnknownLabelError(KeyError):
    """A span label (or joint unary-chain label) that the vocabulary does not hold."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.label = label

    def __str__(self) -> str:
        return (
            f"span label {self.label!r} is not in the label vocabulary (built from the training trees); "
            "pass unknown='empty' to treat such spans as EMPTY"
        )


class LabelVocab:
    """Span labels (joint chain labels included) <-> indices; index 0 is EMPTY (``""``)."""

    def __init__(self, labels: Sequence[str]) -> None:
        labels = list(labels)
        if not labels or labels[0] != EMPTY_LABEL:
            raise ValueError("a label vocabulary starts with the EMPTY label '' at index 0")
        if len(set(labels)) != len(labels):
            raise ValueError("duplicate labels in the label vocabulary")
        if EMPTY_LABEL in labels[1:]:
            raise ValueError("the EMPTY label '' may only appear at index 0")
        self._labels = labels
        self._index: Dict[str, int] = {label: i for i, label in enumerate(labels)}

    @classmethod
    def from_trees(cls, trees: Iterable[Tree], top: str = TOP, join: str = JOIN) -> "LabelVocab":
        """Every collapsed span label of the (TOP-rooted) trees, sorted, after EMPTY."""
        seen = set()
        for tree in trees:
            seen.update(label for _, _, label in _collapsed_spans(tree, top, join))
        return cls([EMPTY_LABEL] + sorted(seen))

    @property
    def labels(self) -> List[str]:
        """All labels; ``labels[0] == ""``."""
        return list(self._labels)

    def __len__(self) -> int:
        return len(self._labels)

    def __contains__(self, label: object) -> bool:
        return label in self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LabelVocab) and self._labels == other._labels

    def __repr__(self) -> str:
        return f"LabelVocab({len(self)} labels)"

    def index(self, label: str) -> int:
        """Index of a label; raises :class:`UnknownLabelError` if it is not in the vocabulary."""
        try:
            return self._index[label]
        except KeyError:
            raise UnknownLabelError(label) from None

    def label(self, index: int) -> str:
        """Label string of an index."""
        if not 0 <= index < len(self._labels):
            raise ValueError(f"label index {index} is not in 0..{len(self._labels) - 1}")
        return self._labels[index]

    def to_list(self) -> List[str]:
        """JSON-friendly form; :class:`LabelVocab` (the list) restores it."""
        return list(self._labels)


def _collapsed_spans(tree: Tree, top: str, join: str) -> List[Tuple[int, int, str]]:
    """Labelled spans of a TOP-rooted tree after collapsing unary chains, TOP left out."""
    if tree.label != top:
        raise ValueError(f"expected a tree rooted in {top!r} (use ensure_top), got root {tree.label!r}")
    spans = collapse_unary(tree, join).labeled_spans(include_root=False)
    seen = set()
    for i, j, label in spans:
        if label == EMPTY_LABEL:
            raise ValueError(f"constituent ({i}, {j}) below {top} has an empty label: {tree.to_bracketed()[:120]}")
        if (i, j) in seen:  # cannot happen after collapse_unary; guards its contract
            raise ValueError(f"two constituents on span ({i}, {j}) after collapsing unary chains")
        seen.add((i, j))
    return spans


def gold_spans(
    tree: Tree, vocab: LabelVocab, unknown: str = "error", top: str = TOP, join: str = JOIN
) -> Dict[Tuple[int, int], int]:
    """Gold chart of a TOP-rooted tree: {(i, j): label index} of its labelled spans (EMPTY elsewhere).

    ``unknown``: ``"error"`` raises :class:`UnknownLabelError` for a label not in
    ``vocab``; ``"empty"`` leaves such spans out (they become EMPTY).
    """
    if unknown not in UNKNOWN_POLICIES:
        raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, not {unknown!r}")
    out: Dict[Tuple[int, int], int] = {}
    for i, j, label in _collapsed_spans(tree, top, join):
        if label in vocab:
            out[i, j] = vocab.index(label)
        elif unknown == "error":
            raise UnknownLabelError(label)
    return out


#: End of the sentinel span that closes :func:`tree_from_chart`'s loop (no real span ends there).
_END = -1


def _sorted_spans(chart_tree: ChartTree | Sequence[IndexedSpan], n: int) -> List[IndexedSpan]:
    """The spans in pre-order (start ascending, longer first), each checked to lie inside (0, n)."""
    spans = chart_tree.spans if isinstance(chart_tree, ChartTree) else list(chart_tree)
    if n == 0:
        raise ValueError("cannot build a tree over an empty sentence")
    ordered = sorted(spans, key=lambda span: (span[0], -span[1]))
    for i, j, _ in ordered:
        if not 0 <= i < j <= n:
            raise ValueError(f"span ({i}, {j}) is not inside the sentence (0, {n})")
    return ordered


def tree_from_chart(
    chart_tree: ChartTree | Sequence[IndexedSpan],
    vocab: LabelVocab,
    leaves: Sequence[Leaf],
    top: str = TOP,
    join: str = JOIN,
) -> Tree:
    """Rebuild a TOP-rooted n-ary tree from decoded spans and the sentence's leaves.

    Args:
        chart_tree: a decoded :class:`ChartTree`, or any non-crossing list of
            (i, j, label index) spans (a gold dict's items work too).
        vocab: the label vocabulary the indices refer to.
        leaves: the n leaves (words with their gold or predicted POS tags); copied.

    One pass over the spans in pre-order: an EMPTY span adds no node (its children go to
    the enclosing node, which is what un-binarizing does) and a joint label ``S::VP`` adds
    its chain at once.  The result equals :func:`tree_from_chart_reference` (tested).
    """
    n = len(leaves)
    spans = _sorted_spans(chart_tree, n)
    labels = vocab.labels
    root = Tree(top, [])
    # the spans that contain the current position: their ends, and the nodes that take their children
    open_ends: List[int] = [n]
    open_nodes: List[Tree] = [root]
    position = 0
    previous = (-1, -1)
    for i, j, index in [*spans, (n, _END, EMPTY)]:  # the sentinel attaches the leaves after the last span
        while position < i:
            while open_ends[-1] <= position:
                open_ends.pop()
                open_nodes.pop()
            leaf = leaves[position]
            open_nodes[-1].children.append(Leaf(leaf.tag, leaf.word))
            position += 1
        if j == _END:
            break
        if (i, j) == previous:
            raise ValueError(f"span ({i}, {j}) appears twice")
        previous = (i, j)
        while open_ends[-1] <= i:
            open_ends.pop()
            open_nodes.pop()
        if j > open_ends[-1]:
            raise ValueError(f"span ({i}, {j}) crosses another span")
        holder = open_nodes[-1]
        if index != EMPTY:
            if not 0 < index < len(labels):
                raise ValueError(f"label index {index} is not in 0..{len(labels) - 1}")
            for part in labels[index].split(join):  # a joint label S::VP adds its whole chain
                child = Tree(part, [])
                holder.children.append(child)
                holder = child
        open_ends.append(j)
        open_nodes.append(holder)
    return root


def tree_from_chart_reference(
    chart_tree: ChartTree | Sequence[IndexedSpan],
    vocab: LabelVocab,
    leaves: Sequence[Leaf],
    top: str = TOP,
    join: str = JOIN,
) -> Tree:
    """:func:`tree_from_chart` the long way, for tests: the binarized tree with one node per span
    (EMPTY spans get the empty label), then :func:`unbinarize` and :func:`expand_unary`."""
    n = len(leaves)
    nodes = [(i, j, Tree(vocab.label(index) if index != EMPTY else EMPTY_LABEL, []))
             for i, j, index in _sorted_spans(chart_tree, n)]
    root = Tree(top, [])
    # Pre-order walk of the nested spans: ``open_nodes`` holds the spans containing the position.
    open_nodes: List[Tuple[int, Tree]] = [(n, root)]
    position = 0

    def add_leaves_until(end: int) -> None:
        nonlocal position
        while position < end:
            while open_nodes[-1][0] <= position:
                open_nodes.pop()
            open_nodes[-1][1].children.append(Leaf(leaves[position].tag, leaves[position].word))
            position += 1

    previous: Optional[Tuple[int, int]] = None
    for i, j, node in nodes:
        if previous == (i, j):
            raise ValueError(f"span ({i}, {j}) appears twice")
        previous = (i, j)
        add_leaves_until(i)
        while open_nodes[-1][0] <= i:
            open_nodes.pop()
        if j > open_nodes[-1][0]:
            raise ValueError(f"span ({i}, {j}) crosses another span")
        open_nodes[-1][1].children.append(node)
        open_nodes.append((j, node))
    add_leaves_until(n)
    return expand_unary(unbinarize(root), join)
