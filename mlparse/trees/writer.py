"""Writing trees in bracketed form, one tree per line (the form evalb and the reader take).

Round trips: the reader splits atoms on whitespace and brackets, so a label,
tag or word containing whitespace, ``(`` or ``)`` could not be read back.
None of the shared treebanks has one (the PTB and Keyaki write brackets as
``-LRB-``/``-RRB-``, CESS as ``-Fpa-``/``-Fpt-``, Floresta as ``{``/``}``),
and trees read by :mod:`mlparse.trees.reader` cannot contain one.  For trees
built some other way, :func:`write_trees` checks every atom and raises a
``ValueError`` naming the tree and the atom instead of writing a file that
would read back differently; it does not escape silently.  Also refused: an
empty word or a node with no children (``(NN )``, ``(NP)`` do not read back).
So is an empty POS tag: ``( word)`` reads back as the childless node
``(word)``.  Empty phrase labels are fine: ``( (S ...))`` reads back.
"""

from __future__ import annotations

import os
import re
from typing import IO, Iterable, List, Optional, Union

from mlparse.io_utils import atomic_write
from mlparse.trees.tree import Leaf, Tree

PathLike = Union[str, "os.PathLike[str]"]

_UNSAFE = re.compile(r"[\s()]")

#: Bracket characters cannot appear in a bracketed tree's words; treebanks write them as these tokens.
BRACKET_WORDS = {"(": "-LRB-", ")": "-RRB-"}


def escape_word(word: str) -> str:
    """``(`` and ``)`` inside a word become ``-LRB-`` and ``-RRB-``, as in the Penn Treebank."""
    if "(" not in word and ")" not in word:
        return word
    return "".join(BRACKET_WORDS.get(char, char) for char in word)


def format_tree(tree: Tree) -> str:
    """The tree on one line: ``tree.to_bracketed()``."""
    return tree.to_bracketed()


def unwritable_reason(tree: Tree) -> Optional[str]:
    """Why ``tree`` would not read back identically, or ``None`` if it would."""
    stack: List[Union[Tree, Leaf]] = [tree]
    while stack:
        node = stack.pop()
        if type(node) is Leaf:
            if not node.word:
                return f"leaf ({node.tag} ) has an empty word"
            if _UNSAFE.search(node.word):
                return f"word {node.word!r} contains whitespace or a bracket"
            if not node.tag:
                return f"leaf ( {node.word}) has an empty tag (it would read back as a label)"
            if _UNSAFE.search(node.tag):
                return f"tag {node.tag!r} contains whitespace or a bracket"
        else:
            if _UNSAFE.search(node.label):  # type: ignore[union-attr]
                return f"label {node.label!r} contains whitespace or a bracket"  # type: ignore[union-attr]
            if not node.children:  # type: ignore[union-attr]
                return f"node ({node.label}) has no children"  # type: ignore[union-attr]
            stack.extend(node.children)  # type: ignore[union-attr]
    return None


def check_writable(tree: Tree, position: Optional[int] = None) -> None:
    """Raise ``ValueError`` if ``tree`` would not read back identically."""
    reason = unwritable_reason(tree)
    if reason is not None:
        where = f"tree {position + 1}" if position is not None else "tree"
        raise ValueError(f"cannot write {where}: {reason}: {tree.to_bracketed()[:120]}")


def write_trees_to(handle: IO[str], trees: Iterable[Tree], *, check: bool = True) -> int:
    """Write one tree per line to an open text handle; returns the number written."""
    count = 0
    for count, tree in enumerate(trees, start=1):
        if check:
            check_writable(tree, count - 1)
        handle.write(tree.to_bracketed())
        handle.write("\n")
    return count


def write_trees(path: PathLike, trees: Iterable[Tree], *, check: bool = True, encoding: str = "utf-8") -> int:
    """Write one tree per line to ``path`` atomically (all or nothing); returns the number written."""
    written = [0]

    def write(handle: IO[str]) -> None:
        written[0] = write_trees_to(handle, trees, check=check)

    atomic_write(path, write, encoding=encoding)
    return written[0]
