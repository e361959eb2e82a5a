"""Head finding: a constituency tree with a head table gives a dependency tree.

Every phrase has one head child, chosen by the rule of its label in a
:class:`~mlparse.trees.head_table.HeadTable` (the table format, the file loader and the
bundled tables are in :mod:`mlparse.trees.head_table`); the head word of a phrase is the
head word of its head child, a word being its own head word.  Then, in every phrase, the
head word of each non-head child depends on the head word of the phrase, and the head word
of the whole tree depends on the root.  Punctuation attaches like any other child (to the
head word of the phrase holding it).  Such a tree is always projective.

Relations (``"derived"``: the treebank gives none) name the three categories of the
attachment, ``parent/head/dependent``: the label of the phrase where the dependent attaches,
the label of that phrase's head child and the label of the dependent (the maximal phrase it
heads, or its POS tag when it is a single word).  In ``(S (NP (DT the) (NN dog)) (VP (VBZ
barks)))`` *the* depends on *dog* as ``NP/NN/DT`` and *dog* on *barks* as ``S/VP/NP``; the
root word's relation is ``root`` (:data:`ROOT_RELATION`).  ``/`` is used rather than ``:``
because CoNLL-U scoring cuts relations at ``:`` (subtypes).

Shapes follow :mod:`mlparse.structs.dep_tree`: for a tree of ``n`` words, ``heads`` has
``n + 1`` entries, ``heads[0] = -1`` and ``heads[d]`` in ``0..n`` is the head of word ``d``
(words numbered from 1, 0 the root); ``relations`` has ``n + 1`` entries too, aligned with
``heads``: ``relations[0] = ""`` and ``relations[d]`` is the relation of word ``d``.
"""

from __future__ import annotations

from typing import Callable, List, NamedTuple, Tuple

from mlparse.trees.head_table import (
    HeadTable,
    HeadTableError,
    SearchStep,
    bundled_head_table,
    bundled_table_names,
    load_head_table,
    parse_head_table,
)
from mlparse.trees.tree import Leaf, Tree

#: ``heads[0]``: the root pseudo-word has no head (as :data:`mlparse.structs.dep_tree.NO_HEAD`).
NO_HEAD = -1
#: Relation of the word attached to the root.
ROOT_RELATION = "root"
#: ``relations[0]``: the root pseudo-word has no relation.
NO_RELATION = ""
#: Separator of the three categories of a derived relation.
RELATION_SEPARATOR = "/"


_Find = Callable[[str, Tuple[str, ...]], Tuple[int, int]]


class TreeDependencies(NamedTuple):
    """A dependency tree over the ``n`` words of a sentence (unpacks as ``heads, relations``).

    ``heads``: ``n + 1`` ints, ``heads[0] = -1``, ``heads[d]`` in ``0..n`` (0: the root).
    ``relations``: ``n + 1`` strings aligned with ``heads``, ``relations[0] = ""``.
    """

    heads: List[int]
    relations: List[str]

    def words(self) -> int:
        """``n``, the number of words."""
        return len(self.heads) - 1


def derived_relation(parent: str, head: str, dependent: str) -> str:
    """``parent/head/dependent``: the relation of a dependent derived from the categories."""
    return f"{parent}{RELATION_SEPARATOR}{head}{RELATION_SEPARATOR}{dependent}"


def _label(node: object) -> str:
    return node.tag if type(node) is Leaf else node.label  # type: ignore[attr-defined]


def tree_dependencies(tree: Tree, table: HeadTable) -> TreeDependencies:
    """The dependency tree of ``tree`` under ``table``, relations derived (see the module doc).

    Args:
        tree: a constituency tree of ``n >= 1`` words (function tags and empty elements
            already stripped, as ``prepare`` does before this runs).
        table: the head table.

    Returns:
        :class:`TreeDependencies`: ``heads`` and ``relations``, each of length ``n + 1``.
    """
    heads: List[int] = [NO_HEAD]
    relations: List[str] = [NO_RELATION]
    try:
        root = _attach_recursive(tree, table.find, heads, relations)
    except RecursionError:  # deeper than the interpreter allows: redo with an explicit stack
        heads, relations = [NO_HEAD], [NO_RELATION]
        root = _attach_iterative(tree, table.find, heads, relations)
    heads[root] = 0
    relations[root] = ROOT_RELATION
    return TreeDependencies(heads, relations)


def _attach(node: Tree, labels: Tuple[str, ...], child_heads: List[int], find: _Find,
            heads: List[int], relations: List[str]) -> int:
    """Attach the children's head words of ``node`` to its head child's; return its head word."""
    k = find(node.label, labels)[0]
    head = child_heads[k]
    if len(child_heads) > 1:
        prefix = f"{node.label}{RELATION_SEPARATOR}{labels[k]}{RELATION_SEPARATOR}"
        for j, word in enumerate(child_heads):
            if j != k:
                heads[word] = head
                relations[word] = prefix + labels[j]
    return head


def _attach_recursive(node: Tree, find: _Find, heads: List[int], relations: List[str]) -> int:
    # Recursion is faster than an explicit stack at treebank depths (as in trees/transforms.py).
    child_heads: List[int] = []
    labels: List[str] = []
    for child in node.children:
        if type(child) is Leaf:
            child_heads.append(len(heads))
            heads.append(0)
            relations.append(NO_RELATION)
            labels.append(child.tag)
        else:
            child_heads.append(_attach_recursive(child, find, heads, relations))  # type: ignore[arg-type]
            labels.append(child.label)  # type: ignore[union-attr]
    return _attach(node, tuple(labels), child_heads, find, heads, relations)


def _attach_iterative(tree: Tree, find: _Find, heads: List[int], relations: List[str]) -> int:
    # frames: [phrase, index of the next child, head words of the children done]
    frames: List[list] = [[tree, 0, []]]
    while True:
        frame = frames[-1]
        node, index, child_heads = frame
        if index < len(node.children):
            frame[1] = index + 1
            child = node.children[index]
            if type(child) is Leaf:
                child_heads.append(len(heads))
                heads.append(0)
                relations.append(NO_RELATION)
            else:
                frames.append([child, 0, []])
            continue
        frames.pop()
        labels = tuple([_label(child) for child in node.children])
        head = _attach(node, labels, child_heads, find, heads, relations)
        if not frames:
            return head
        frames[-1][2].append(head)


def head_words(tree: Tree, table: HeadTable) -> List[int]:
    """The head word (1-based position) of every phrase of ``tree``, in pre-order (as ``tree.subtrees()``)."""
    dependencies = tree_dependencies(tree, table)
    spans = tree.labeled_spans()
    heads = dependencies.heads
    out: List[int] = []
    for start, end, _ in spans:
        # The head word of a span is its one word whose head lies outside the span.
        outside = [d for d in range(start + 1, end + 1) if not start < heads[d] <= end]
        out.append(outside[0])
    return out


__all__ = [
    "HeadTable", "HeadTableError", "SearchStep", "TreeDependencies",
    "NO_HEAD", "NO_RELATION", "ROOT_RELATION", "RELATION_SEPARATOR",
    "tree_dependencies", "head_words", "derived_relation",
    "bundled_head_table", "bundled_table_names", "load_head_table", "parse_head_table",
]
