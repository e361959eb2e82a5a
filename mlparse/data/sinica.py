"""Sinica Treebank ICG notation → :class:`Tree`.

One sentence per line::

    #3:3.[39029] S(theme:NP(Head:Nba:嘉珍)|Head:VC1:住在|goal:NP(...))#，(COMMACATEGORY)

* the header ``#<n>:<doc>.[<id>]`` is followed by one root constituent ``LABEL(...)``;
* children are separated by ``|``; each is ``role:POS:word`` (a leaf) or
  ``role:LABEL(...)`` (a phrase); labels may hold ``‧``, ``_`` and ``[+...]``;
* the sentence-final punctuation follows ``#`` as ``word(XXXCATEGORY)``, or nothing.

A constituent's label is its category and a leaf is ``Leaf(POS, word)``.  The final
punctuation becomes a last leaf beside the root constituent under an unlabelled root, which
``ensure_top`` turns into ``TOP``.  Brackets inside words are written ``-LRB-`` / ``-RRB-``.

The roles are kept as the treebank's dependency tree (:func:`parse_icg_sentence`): in each
phrase the child whose role is ``Head`` is the head child; the head word of a phrase is the
head word of its head child (a word heads itself); the head word of every other child
depends on the phrase's head word with that child's role as relation (``theme``, ``goal``,
``DUMMY1``, ``head`` -- the lowercase ``head`` of ``‧的`` phrases is a role like the others).
The root constituent's head word depends on the root (relation ``root``) and the final
punctuation on that word (relation ``punct``, the treebank gives it no role).  Where the
treebank does not mark exactly one head:

* several ``Head`` children (coordinations without a conjunction, ``Head:VH11:落後|Head:VH11:
  貧困``, correlatives ``又…又``): the first is the head child, the others depend on it with
  the relation ``Head``;
* no ``Head`` child: the last child is the head child (phrases are head-final in the
  treebank's majority), the others keep their roles.

Each sentence counts its phrases of either kind (:class:`IcgSentence`), and ``prepare``
records the totals in the manifest.  Such a tree is always projective with one root.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from mlparse.trees.heads import NO_HEAD, NO_RELATION, ROOT_RELATION, TreeDependencies
from mlparse.trees.tree import Leaf, Node, Tree

_HEADER = re.compile(r"#(\d+):([\d.]*)\[(\d+)\] ")
_TAIL = re.compile(r"#(?:(.+)\((\w+)\))?\Z")


class SinicaFormatError(ValueError):
    """A line that is not ICG notation; ``column`` is 1-based."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"column {column}: {message}")
        self.column = column


#: The role that marks a phrase's head child.
HEAD_ROLE = "Head"
#: Relation of the final punctuation (which has no role in the treebank).
PUNCT_RELATION = "punct"


@dataclass(frozen=True)
class IcgSentence:
    """One line of ICG notation: its id, its constituency tree and its dependency tree.

    ``dependencies`` covers the tree's ``n`` words (the final punctuation included) with the
    shapes of :class:`~mlparse.trees.heads.TreeDependencies`; ``headless`` and ``multi_headed``
    count the phrases with no ``Head`` child and with several (see the module doc).
    """

    ident: str
    tree: Tree
    dependencies: TreeDependencies
    headless: int = 0
    multi_headed: int = 0


class _Arcs:
    """The dependency tree being built while a line is parsed (words numbered from 1)."""

    __slots__ = ("heads", "relations", "headless", "multi_headed")

    def __init__(self) -> None:
        self.heads: List[int] = [NO_HEAD]
        self.relations: List[str] = [NO_RELATION]
        self.headless = 0
        self.multi_headed = 0

    def word(self) -> int:
        self.heads.append(0)
        self.relations.append(NO_RELATION)
        return len(self.heads) - 1

    def phrase(self, roles: List[str], words: List[int]) -> int:
        """Attach the children (their roles and head words) of a phrase; return its head word."""
        marked = [k for k, role in enumerate(roles) if role == HEAD_ROLE]
        if not marked:
            self.headless += 1
            head_child = len(roles) - 1
        else:
            if len(marked) > 1:
                self.multi_headed += 1
            head_child = marked[0]
        head = words[head_child]
        for k, word in enumerate(words):
            if k != head_child:
                self.heads[word] = head
                self.relations[word] = roles[k]
        return head


def _word(text: str) -> str:
    return text.replace("(", "-LRB-").replace(")", "-RRB-")


def parse_icg_line(line: str) -> Tuple[str, Tree]:
    """``(sentence id, tree)`` for one line of ``parsed``; raises :class:`SinicaFormatError`."""
    sentence = parse_icg_sentence(line)
    return sentence.ident, sentence.tree


def parse_icg_sentence(line: str) -> IcgSentence:
    """The id, tree and dependency tree of one line of ``parsed``; raises :class:`SinicaFormatError`."""
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
    arcs = _Arcs()
    root, end, _, head = _parse_phrase(line, body_start, hash_at, False, arcs)
    if end != hash_at:
        raise SinicaFormatError(f"unexpected text {line[end:hash_at]!r} after the tree", end + 1)
    children: List[Node] = [root]
    arcs.heads[head] = 0
    arcs.relations[head] = ROOT_RELATION
    if tail.group(1) is not None:
        children.append(Leaf(tail.group(2), _word(tail.group(1))))
        punct = arcs.word()
        arcs.heads[punct] = head
        arcs.relations[punct] = PUNCT_RELATION
    dependencies = TreeDependencies(arcs.heads, arcs.relations)
    return IcgSentence(header.group(3), Tree("", children), dependencies, arcs.headless, arcs.multi_headed)


def _parse_phrase(text: str, start: int, stop: int, with_role: bool, arcs: _Arcs) -> Tuple[Node, int, str, int]:
    """Parse ``[role:]LABEL(children)`` or ``role:POS:word`` from ``start``.

    Returns ``(node, end, role, head word)``: the role is ``""`` without ``with_role``.
    """
    position = start
    role = ""
    if with_role:
        colon = _find_any(text, ":", position, stop)
        if colon is None:
            raise SinicaFormatError("expected 'role:' before a child", position + 1)
        role = text[position:colon]
        if not role:
            raise SinicaFormatError("empty role before ':'", colon + 1)
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
        return Leaf(label, _word(text[word_start:end])), end, role, arcs.word()
    # phrase
    children: List[Node] = []
    roles: List[str] = []
    words: List[int] = []
    position = index + 1
    while True:
        child, position, child_role, child_head = _parse_phrase(text, position, stop, True, arcs)
        children.append(child)
        roles.append(child_role)
        words.append(child_head)
        if position >= stop:
            raise SinicaFormatError(f"'(' of {label} is never closed", index + 1)
        if text[position] == "|":
            position += 1
            continue
        if text[position] == ")":
            return Tree(label, children), position + 1, role, arcs.phrase(roles, words)
        raise SinicaFormatError(f"unexpected {text[position]!r}", position + 1)


def _find_any(text: str, chars: str, start: int, stop: int) -> Optional[int]:
    for index in range(start, stop):
        if text[index] in chars:
            return index
        if text[index] in "()|":
            return None
    return None
