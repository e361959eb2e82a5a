"""The one rule by which ``mlparse score`` takes other parsers' root wrappers off, for predictions and gold alike.

A wrapper is a root labelled ``S1`` (BLLIP / Charniak), ``ROOT`` (Stanford CoreNLP, spaCy-benepar), ``TOP``,
``VROOT`` or nothing at all (``( (S …))``, the PTB's own files), in any case (``(root …)``).  The wrapper at the
root, and every wrapper right under it that is its only child (``(ROOT (S1 (S …)))``), is replaced by mlparse's
``TOP`` root, keeping everything below; a tree without a wrapper is put under ``TOP``.  A wrapper label that
stays under the root because it has siblings (``(ROOT (S1 …) (. .))``) is scored as a constituent, and
:class:`WrapperCounts` names it so that nobody mistakes the lower score for the parser's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from mlparse.structs.chart import TOP
from mlparse.trees.tree import Tree

#: Root labels that wrap a parse rather than belong to it, upper-cased ("" is the unlabelled ``( (S …))``).
ROOT_WRAPPERS = ("", "ROOT", "TOP", "S1", "VROOT")


def is_wrapper(label: str) -> bool:
    """Whether ``label`` (in any case) is a parser's root wrapper rather than a constituent's label."""
    return label.upper() in ROOT_WRAPPERS


def wrapper_name(labels: Tuple[str, ...]) -> str:
    """How the output names a chain of wrappers, outermost first: ``(S1 …)``, ``( …)``, ``(ROOT (S1 …))``."""
    inner = "…"
    for label in reversed(labels):
        inner = f"({label} {inner})" if label else f"( {inner})"
    return inner


@dataclass(frozen=True)
class Unwrapped:
    """A tree under ``TOP``; ``removed``: the wrapper labels taken off, outermost first, as written (an
    upper-case ``TOP`` at the root is mlparse's own and not listed); ``kept``: the wrapper labels left under the
    root as constituents because they have siblings."""

    tree: Tree
    removed: Tuple[str, ...]
    kept: Tuple[str, ...]


def unwrap_root(tree: Tree) -> Unwrapped:
    """``tree`` under a ``TOP`` root (see the module text); ``tree`` itself is reused, not copied."""
    if not is_wrapper(tree.label):
        return Unwrapped(Tree(TOP, [tree]), (), _kept([tree]))
    removed: List[str] = [] if tree.label == TOP else [tree.label]
    node = tree
    while len(node.children) == 1 and not node.children[0].is_leaf and is_wrapper(node.children[0].label):  # type: ignore[union-attr]
        node = node.children[0]  # type: ignore[assignment]
        removed.append(node.label)
    return Unwrapped(Tree(TOP, node.children), tuple(removed), _kept(node.children))


def _kept(children: List) -> Tuple[str, ...]:
    return tuple(child.label for child in children if not child.is_leaf and is_wrapper(child.label))


@dataclass
class WrapperCounts:
    """How many trees of a file lost each chain of wrappers, or kept a wrapper label as a constituent."""

    total: int = 0
    removed: Dict[Tuple[str, ...], int] = field(default_factory=dict)
    kept: Dict[str, int] = field(default_factory=dict)

    def add(self, unwrapped: Unwrapped) -> Tree:
        """Count one tree's wrappers; its tree under ``TOP``."""
        self.total += 1
        if unwrapped.removed:
            self.removed[unwrapped.removed] = self.removed.get(unwrapped.removed, 0) + 1
        for label in dict.fromkeys(unwrapped.kept):
            self.kept[label] = self.kept.get(label, 0) + 1
        return unwrapped.tree

    def removed_notes(self, what: str) -> List[str]:
        """One line per chain of wrappers removed from ``what`` (``"trees"``, ``"gold trees"``)."""
        return [f"removed the root wrapper {wrapper_name(labels)} of {count:,} of {self.total:,} {what}: it is the "
                f"parser's root, not a constituent (trees are scored under mlparse's TOP root, as a trained run's)"
                for labels, count in self.removed.items()]

    def kept_notes(self, what: str) -> List[str]:
        """One line per wrapper label left under the root of some of ``what`` (and so scored as a bracket)."""
        return [f"kept {wrapper_name((label,))} under the root of {count:,} of {self.total:,} {what}: it has "
                f"siblings there, so it is scored as a constituent, not removed as a root wrapper"
                for label, count in self.kept.items()]
