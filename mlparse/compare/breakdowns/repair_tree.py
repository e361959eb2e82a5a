"""The mutable tree that the error search repairs, built from evalb's kept brackets.

Leaves are words (their label is the POS tag); internal nodes are the brackets the scorer counts,
under one virtual root that is never an error.  Spans are fenceposts ``[start, end)`` over the
kept words, recomputed after each change (:meth:`Node.refresh`).  A bracket's *key* is
``(start, end, label)`` with the label mapped to its ``EQ_LABEL`` group, so that keys match
exactly when the scorer matches brackets.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalb import KeptBracket

Key = Tuple[int, int, str]
ROOT_LABEL = "<root>"


class Node:
    """A word (``word`` set: its index) or a bracket (``children`` in order)."""

    __slots__ = ("label", "children", "parent", "start", "end", "word")

    def __init__(self, label: str, children: Optional[List["Node"]] = None, word: Optional[int] = None) -> None:
        self.label = label
        self.children: List[Node] = children if children is not None else []
        self.parent: Optional[Node] = None
        self.word = word
        self.start = word if word is not None else 0
        self.end = word + 1 if word is not None else 0
        for child in self.children:
            child.parent = self

    @property
    def is_word(self) -> bool:
        return self.word is not None

    @property
    def is_root(self) -> bool:
        return self.parent is None

    def refresh(self) -> None:
        """Recompute the spans of this subtree from its words."""
        if self.is_word:
            return
        for child in self.children:
            child.refresh()
        self.start, self.end = self.children[0].start, self.children[-1].end

    def brackets(self) -> Iterator["Node"]:
        """Every bracket below and including this node, in opening order (the root excluded)."""
        if self.is_word:
            return
        if not self.is_root:
            yield self
        for child in self.children:
            yield from child.brackets()

    def path_up(self) -> Iterator["Node"]:
        node: Optional[Node] = self
        while node is not None:
            yield node
            node = node.parent

    def __repr__(self) -> str:
        if self.is_word:
            return f"({self.label} {self.word})"
        return f"({self.label} {' '.join(map(repr, self.children))})"


def build_tree(brackets: Sequence[KeptBracket], tags: Sequence[str]) -> Node:
    """The tree of kept ``brackets`` (opening order, properly nested) over the words tagged ``tags``.

    Once empty spans and deleted labels are gone the brackets of one tree still nest, and a bracket
    opened before another that holds its span is its ancestor; a bracket with the span of the whole
    sentence goes under the virtual root like any other.
    """
    root = Node(ROOT_LABEL)
    root.start, root.end = 0, len(tags)
    stack: List[Node] = [root]
    pending: List[Tuple[Node, KeptBracket]] = []
    for bracket in brackets:
        node = Node(bracket.label)
        node.start, node.end = bracket.start, bracket.end
        while len(stack) > 1 and not (stack[-1].start <= bracket.start and bracket.end <= stack[-1].end):
            stack.pop()
        parent = stack[-1]
        node.parent = parent
        pending.append((node, bracket))
        parent.children.append(node)
        stack.append(node)
    # words go into the lowest bracket holding them
    lowest: List[Node] = [root] * len(tags)
    for node, bracket in pending:  # opening order: a later bracket over a word is lower
        for index in range(bracket.start, bracket.end):
            lowest[index] = node
    for index, tag in enumerate(tags):
        word = Node(tag, word=index)
        word.parent = lowest[index]
        lowest[index].children.append(word)
    _order(root)
    root.refresh()
    return root


def _order(node: Node) -> None:
    node.children.sort(key=lambda child: (child.start, -child.end))
    for child in node.children:
        if not child.is_word:
            _order(child)


def key_of(node: Node, start: int, end: int, equivalent: Dict[str, str]) -> Key:
    return (start, end, equivalent.get(node.label, node.label))


def bracket_counts(root: Node, equivalent: Dict[str, str]) -> Counter:
    """The multiset of bracket keys of a tree."""
    return Counter(key_of(node, node.start, node.end, equivalent) for node in root.brackets())


def gold_counts(brackets: Sequence[KeptBracket], equivalent: Dict[str, str]) -> Counter:
    return Counter((b.start, b.end, equivalent.get(b.label, b.label)) for b in brackets)


def lowest_common_ancestor(a: Node, b: Node) -> Node:
    above = set(map(id, a.path_up()))
    for node in b.path_up():
        if id(node) in above:
            return node
    raise ValueError("nodes of two different trees")
