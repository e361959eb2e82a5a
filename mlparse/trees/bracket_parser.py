"""Pure-Python engine of the bracketed reader: tokenizer, explicit-stack parser, error positions.

:mod:`mlparse.trees.reader` is the public interface; it calls :func:`parse_text`
when the compiled scanner is not built or cannot handle the input alone
(errors, repairs).  See the reader's docstring for the node rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Type

from mlparse.trees.errors import (
    ChildlessNodeError,
    ExtraCloseBracketError,
    MixedLeafError,
    TextOutsideTreeError,
    TreeReadError,
    UnclosedBracketError,
)
from mlparse.trees.tree import Leaf, Node, Tree

#: Groups: (tag, word) of a one-line leaf ``(tag word)``, else one token:
#: ``(``, ``)``, ``\n`` or an atom.  ``[^\S\n]`` is whitespace other than a
#: newline, so that newlines are always tokens of their own (line counting).
_TOKEN = re.compile(r"\(([^\s()]+)[^\S\n]+([^\s()]+)[^\S\n]*\)|([^\s()]+|[()\n])")


@dataclass
class Repair:
    """One repair made in tolerant mode."""

    source: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"


@dataclass
class ReadResult:
    """The trees of a text, the 1-based line on which each starts, and the repairs made."""

    trees: List[Tree] = field(default_factory=list)
    lines: List[int] = field(default_factory=list)
    repairs: List[Repair] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.trees)

    def __iter__(self) -> Iterator[Tree]:
        return iter(self.trees)


class ParseFailure(Exception):
    """Internal: an error found at token ``index``; turned into a TreeReadError with a position."""

    def __init__(self, cls: Type[TreeReadError], detail: str, index: int) -> None:
        super().__init__(detail)
        self.cls = cls
        self.detail = detail
        self.index = index


def tree_start_lines(text: str, pattern: str, first_line: int) -> frozenset:
    """Line numbers (offset by ``first_line``) whose text matches ``pattern`` at its start."""
    compiled = re.compile(pattern)
    return frozenset(
        number
        for number, line in enumerate(text.split("\n"), start=first_line)
        if compiled.match(line.rstrip("\r"))
    )


def token_offset(text: str, index: int) -> int:
    """Character offset of the ``index``-th token of ``_TOKEN`` (slow; errors only)."""
    for i, match in enumerate(_TOKEN.finditer(text)):
        if i == index:
            return match.start()
    return len(text)


def _close(frame: list, pick: Optional[int], childless_leaf: bool) -> Node:
    """Build the node of a frame ``[label, children, atoms, token_index]`` whose ``)`` was read."""
    label, children, atoms, index = frame
    if atoms is None:
        if children:
            return Tree(label, children)
        if childless_leaf and label:
            return Leaf(label, label)
        shown = f"({label} )" if label else "()"
        raise ParseFailure(ChildlessNodeError, f"{shown} has no children", index)
    if children:
        raise ParseFailure(
            MixedLeafError,
            f"({label} ...) mixes words ({atoms[0]!r}) with bracketed children",
            index,
        )
    if len(atoms) == 1:
        return Leaf(label, atoms[0])
    if pick is not None and label:
        return Leaf(label, atoms[pick])
    raise ParseFailure(
        MixedLeafError,
        f"({label} {' '.join(atoms[:3])}{' ...' if len(atoms) > 3 else ''}) has {len(atoms)} words; "
        "a leaf is (tag word) (use leaf_atoms='first' for (tag word lemma))",
        index,
    )


def parse_text(
    text: str,
    source: str,
    first_line: int,
    tolerant: bool,
    pick: Optional[int],
    childless_leaf: bool,
    starts: Optional[frozenset] = None,
) -> ReadResult:
    trees: List[Tree] = []
    lines: List[int] = []
    repairs: List[Repair] = []
    stack: List[list] = []  # frames: [label, children, atoms or None, token index of "("]
    children: Optional[List[Node]] = None  # children list of the top frame
    fresh = False  # the last token was "(": an atom now is the label
    line = first_line
    tree_index = 0
    for index, (tag, word, token) in enumerate(_TOKEN.findall(text)):
        if tag:
            fresh = False
            if children is not None:
                children.append(Leaf(tag, word))
            else:
                trees.append(Tree("", [Leaf(tag, word)]))
                lines.append(line)
        elif token == "\n":
            line += 1
            if starts and stack and line in starts:
                where = f"before the tree on line {line}"
                if not tolerant:
                    raise _unclosed(len(stack), where, tree_index)
                repairs.append(Repair(source, lines[-1], f"added {len(stack)} missing ')' {where}"))
                _close_all(stack, trees, pick, childless_leaf)
                children = None
                fresh = False
        elif token == "(":
            if not stack:
                lines.append(line)
                tree_index = index
            frame = ["", [], None, index]
            stack.append(frame)
            children = frame[1]
            fresh = True
        elif token == ")":
            fresh = False
            if not stack:
                if tolerant:
                    repairs.append(Repair(source, line, "dropped 1 extra ')' outside any tree"))
                    continue
                raise ParseFailure(ExtraCloseBracketError, "')' closes nothing (no tree is open)", index)
            frame = stack.pop()
            if frame[2] is None and frame[1]:
                node: Node = Tree(frame[0], frame[1])
            else:
                node = _close(frame, pick, childless_leaf)
            if stack:
                children = stack[-1][1]
                children.append(node)
            else:
                children = None
                if isinstance(node, Leaf):
                    node = Tree("", [node])
                trees.append(node)  # type: ignore[arg-type]
        elif fresh:
            stack[-1][0] = token
            fresh = False
        elif stack:
            frame = stack[-1]
            if frame[2] is None:
                frame[2] = [token]
            else:
                frame[2].append(token)
        else:
            raise ParseFailure(TextOutsideTreeError, f"{_short(token)!r} is not inside any '(' ... ')'", index)
    if stack:
        if not tolerant:
            raise _unclosed(len(stack), "at end of input", tree_index)
        repairs.append(Repair(source, lines[-1], f"added {len(stack)} missing ')' at end of tree"))
        _close_all(stack, trees, pick, childless_leaf)
    return ReadResult(trees, lines, repairs)


def _unclosed(missing: int, where: str, index: int) -> ParseFailure:
    return ParseFailure(
        UnclosedBracketError, f"'(' opened here is never closed ({missing} ')' missing {where})", index
    )


def _close_all(stack: List[list], trees: List[Tree], pick: Optional[int], childless_leaf: bool) -> None:
    """Tolerant mode: close every open frame, appending the finished tree to ``trees``."""
    while stack:
        node = _close(stack.pop(), pick, childless_leaf)
        if stack:
            stack[-1][1].append(node)
        else:
            trees.append(node if isinstance(node, Tree) else Tree("", [node]))


def _short(token: str, limit: int = 40) -> str:
    return token if len(token) <= limit else token[: limit - 3] + "..."
