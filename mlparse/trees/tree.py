"""The tree model every part of mlparse relies on.

A constituency tree is a :class:`Tree` (a labelled internal node) whose
children are trees or :class:`Leaf` objects.  A leaf is a preterminal and its
word together: ``(NN dog)`` is ``Leaf(tag="NN", word="dog")``.  Keeping the
preterminal inside the leaf means that "a label with no children" is not a
representable state, and that span indices are simply leaf positions.

Spans use fencepost indices: the leaves of a sentence of length n sit between
fenceposts 0..n, and a constituent over leaves i..j-1 is the span (i, j).

Both classes use ``__slots__``: preparing the 1M-token Icelandic treebank
builds millions of nodes, and attribute dictionaries would double the memory
and slow the reader down.
"""

from __future__ import annotations

from typing import Iterator, List, Sequence, Tuple, Union

Node = Union["Tree", "Leaf"]

#: A labelled span over fenceposts: (start, end, label), 0 <= start < end <= n.
LabeledSpan = Tuple[int, int, str]


class Leaf:
    """A preterminal with its word: ``(tag word)``."""

    __slots__ = ("tag", "word")

    def __init__(self, tag: str, word: str) -> None:
        self.tag = tag
        self.word = word

    @property
    def is_leaf(self) -> bool:
        return True

    def leaves(self) -> List["Leaf"]:
        return [self]

    def copy(self) -> "Leaf":
        return Leaf(self.tag, self.word)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Leaf) and self.tag == other.tag and self.word == other.word

    def __hash__(self) -> int:
        return hash((self.tag, self.word))

    def __repr__(self) -> str:
        return f"Leaf({self.tag!r}, {self.word!r})"

    def to_bracketed(self) -> str:
        return f"({self.tag} {self.word})"


class Tree:
    """An internal node: a label and a non-empty list of children.

    The label may be the empty string: that is both the PTB's unlabelled
    root ``( (S ...) )`` and, after binarization, the empty label of the
    intermediate nodes.
    """

    __slots__ = ("label", "children")

    def __init__(self, label: str, children: Sequence[Node]) -> None:
        self.label = label
        self.children: List[Node] = list(children)

    @property
    def is_leaf(self) -> bool:
        return False

    # -- reading -----------------------------------------------------------
    def leaves(self) -> List[Leaf]:
        """All leaves, left to right (iterative: deep trees do not recurse)."""
        out: List[Leaf] = []
        stack: List[Node] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, Leaf):
                out.append(node)
            else:
                stack.extend(reversed(node.children))
        return out

    def words(self) -> List[str]:
        return [leaf.word for leaf in self.leaves()]

    def tags(self) -> List[str]:
        return [leaf.tag for leaf in self.leaves()]

    def __len__(self) -> int:
        """Number of leaves (sentence length)."""
        return len(self.leaves())

    def subtrees(self) -> Iterator["Tree"]:
        """Internal nodes in pre-order (the root first)."""
        stack: List[Node] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, Tree):
                yield node
                stack.extend(reversed(node.children))

    def labeled_spans(self, include_root: bool = True) -> List[LabeledSpan]:
        """Every internal node as (start, end, label), in pre-order.

        Preterminals are not spans (they live in the leaves).  Unary chains
        give several spans with the same (start, end).
        """
        spans: List[LabeledSpan] = []
        # Explicit stack (deep trees): entries are (node, index of its span) on
        # entry and (None, index) on exit, when the node's end is known.
        position = 0
        stack: List[Tuple[Node, int]] = [(self, -1)]
        while stack:
            node, index = stack.pop()
            if node is None:
                start, _, label = spans[index]
                spans[index] = (start, position, label)
            elif isinstance(node, Leaf):
                position += 1
            else:
                spans.append((position, position, node.label))  # placeholder end
                stack.append((None, len(spans) - 1))  # type: ignore[arg-type]
                stack.extend((child, -1) for child in reversed(node.children))
        return spans if include_root else spans[1:]

    # -- writing -----------------------------------------------------------
    def to_bracketed(self) -> str:
        """One line, the form evalb reads: ``(S (NP (DT the) (NN dog)) (VP (VBZ barks)))``."""
        parts: List[str] = []
        stack: List[object] = [self]  # nodes, and ")" markers
        while stack:
            node = stack.pop()
            if type(node) is Leaf:
                parts.append(f" ({node.tag} {node.word})")
            elif type(node) is str:
                parts.append(node)
            else:
                parts.append(" (" + node.label)  # type: ignore[union-attr]
                stack.append(")")
                stack.extend(reversed(node.children))  # type: ignore[union-attr]
        return "".join(parts)[1:]

    def __str__(self) -> str:
        return self.to_bracketed()

    def __repr__(self) -> str:
        return f"Tree({self.to_bracketed()!r})"

    def copy(self) -> "Tree":
        """A deep copy (iterative: deep trees do not recurse)."""
        root = Tree(self.label, self.children)
        stack: List[Tree] = [root]
        while stack:
            node = stack.pop()
            children = node.children
            for i, child in enumerate(children):
                if type(child) is Leaf:
                    children[i] = Leaf(child.tag, child.word)
                else:
                    copy = Tree(child.label, child.children)  # type: ignore[union-attr]
                    children[i] = copy
                    stack.append(copy)
        return root

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return False
        # Iterative structural comparison (list == would recurse once per level).
        stack: List[Tuple[Node, Node]] = [(self, other)]
        while stack:
            a, b = stack.pop()
            if isinstance(a, Leaf) or isinstance(b, Leaf):
                if a != b:  # Leaf.__eq__: both must be equal leaves
                    return False
                continue
            if not isinstance(b, Tree) or a.label != b.label or len(a.children) != len(b.children):
                return False
            stack.extend(zip(a.children, b.children))
        return True

    def __hash__(self) -> int:  # trees are mutable; hash by value for sets of test fixtures
        return hash(self.to_bracketed())
