"""Sinica Treebank ICG notation → :class:`Tree`.

One sentence per line::

    #3:3.[12] S(theme:NP(Head:Nba:小林)|Head:VC1:去過|goal:NP(...))#，(COMMACATEGORY)

* the header ``#<n>:<doc>.[<id>]`` is followed by one root constituent ``LABEL(...)``;
* children are separated by ``|``; each is ``role:POS:word`` (a leaf) or
  ``role:LABEL(...)`` (a phrase); labels may hold ``‧``, ``_`` and ``[+...]``;
* the sentence-final punctuation follows ``#`` as ``word(XXXCATEGORY)``, or nothing.

The semantic roles (``theme``, ``Head``, ...) are dropped: a constituent's label is
its category and a leaf is ``Leaf(POS, word)``.  The final punctuation becomes a
last leaf beside the root constituent under an unlabelled root, which
``ensure_top`` turns into ``TOP``.  Brackets inside words are written ``-LRB-`` / ``-RRB-``.
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from mlparse.trees.tree import Leaf, Node, Tree

_HEADER = re.compile(r"#(\d+):([\d.]*)\[(\d+)\] ")
_TAIL = re.compile(r"#(?:(.+)\((\w+)\))?\Z")


class SinicaFormatError(ValueError):
    """A line that is not ICG notation; ``column`` is 1-based."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"column {column}: {message}")
        self.column = column


def _word(text: str) -> str:
    return text.replace("(", "-LRB-").replace(")", "-RRB-")


def parse_icg_line(line: str) -> Tuple[str, Tree]:
    """``(sentence id, tree)`` for one line of ``parsed``; raises :class:`SinicaFormatError`."""
    line = line.rstrip("\r\n")
    header = _HEADER.match(line)
    if not header:
        raise SinicaFormatError("expected a header '#<n>:<doc>.[<id>] '", 1)
    body_start = header.end()
    hash_at = line.rfind("#")
    if hash_at < body_start:
        raise SinicaFormatError("no '#' before the final punctuation", len(line) + 1)
    tail = _TAIL.match(line, hash_at)
    if not tail:
        raise SinicaFormatError(f"cannot read the final punctuation {line[hash_at:]!r}", hash_at + 1)
    root, end = _parse_phrase(line, body_start, hash_at, with_role=False)
    if end != hash_at:
        raise SinicaFormatError(f"unexpected text {line[end:hash_at]!r} after the tree", end + 1)
    children: List[Node] = [root]
    if tail.group(1) is not None:
        children.append(Leaf(tail.group(2), _word(tail.group(1))))
    return header.group(3), Tree("", children)


def _parse_phrase(text: str, start: int, stop: int, with_role: bool) -> Tuple[Node, int]:
    """Parse ``[role:]LABEL(children)`` or ``role:POS:word`` from ``start``; return (node, end)."""
    position = start
    if with_role:
        colon = _find_any(text, ":", position, stop)
        if colon is None:
            raise SinicaFormatError("expected 'role:' before a child", position + 1)
        position = colon + 1
    # category: up to '(' (phrase) or ':' (leaf POS)
    index = position
    while index < stop and text[index] not in "(:|)":
        index += 1
    if index >= stop or text[index] in "|)":
        raise SinicaFormatError("expected '(' or ':' after a category", index + 1)
    label = text[position:index]
    if not label:
        raise SinicaFormatError("empty category", index + 1)
    if text[index] == ":":
        if not with_role:
            raise SinicaFormatError("the root must be a phrase LABEL(...)", index + 1)
        word_start = index + 1
        end = word_start
        while end < stop and text[end] not in "|)":
            end += 1
        if end == word_start:
            raise SinicaFormatError("empty word", end + 1)
        return Leaf(label, _word(text[word_start:end])), end
    # phrase
    children: List[Node] = []
    position = index + 1
    while True:
        child, position = _parse_phrase(text, position, stop, with_role=True)
        children.append(child)
        if position >= stop:
            raise SinicaFormatError(f"'(' of {label} is never closed", index + 1)
        if text[position] == "|":
            position += 1
            continue
        if text[position] == ")":
            return Tree(label, children), position + 1
        raise SinicaFormatError(f"unexpected {text[position]!r}", position + 1)


def _find_any(text: str, chars: str, start: int, stop: int) -> Optional[int]:
    for index in range(start, stop):
        if text[index] in chars:
            return index
        if text[index] in "()|":
            return None
    return None
