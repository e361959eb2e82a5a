"""Typed errors of the bracketed-tree reader, each pointing at file, line and column.

Every error is a :class:`TreeReadError`, itself a ``ValueError``, so callers
that only want "bad input" can catch ``ValueError``.  ``str(error)`` reads like
a compiler message::

    wsj_0001.mrg:12:5: unbalanced brackets: '(' opened here is never closed
        (NP (DT the) (NN ...
        ^
"""

from __future__ import annotations

from typing import Optional

#: Characters of context shown on each side of the offending position.
SNIPPET_RADIUS = 30


class TreeReadError(ValueError):
    """Malformed bracketed input at ``source:line:column`` (both 1-based)."""

    #: Short description shared by every instance of a subclass.
    kind = "malformed tree"

    def __init__(
        self,
        detail: str,
        *,
        source: str = "<string>",
        line: int = 1,
        column: int = 1,
        snippet: str = "",
        caret: Optional[int] = None,
    ) -> None:
        self.detail = detail
        self.source = source
        self.line = line
        self.column = column
        self.snippet = snippet
        #: 0-based position of the offending character inside ``snippet``.
        self.caret = column - 1 if caret is None else caret
        super().__init__(str(self))

    @property
    def message(self) -> str:
        """``kind: detail`` without the location."""
        return f"{self.kind}: {self.detail}" if self.detail else self.kind

    def __str__(self) -> str:
        head = f"{self.source}:{self.line}:{self.column}: {self.message}"
        if not self.snippet:
            return head
        return f"{head}\n    {self.snippet}\n    {' ' * self.caret}^"

    def __reduce__(self):  # keep the keyword-only arguments through pickling (multiprocessing)
        return (
            _rebuild,
            (type(self), self.detail, self.source, self.line, self.column, self.snippet, self.caret),
        )


def _rebuild(cls, detail, source, line, column, snippet, caret):  # type: ignore[no-untyped-def]
    return cls(detail, source=source, line=line, column=column, snippet=snippet, caret=caret)


class UnclosedBracketError(TreeReadError):
    """A ``(`` that is never closed before the end of the input."""

    kind = "unbalanced brackets"


class ExtraCloseBracketError(TreeReadError):
    """A ``)`` at depth 0, closing nothing."""

    kind = "unbalanced brackets"


class ChildlessNodeError(TreeReadError):
    """A node with no children, ``(NP )`` or ``()``."""

    kind = "childless node"


class TextOutsideTreeError(TreeReadError):
    """An atom at depth 0, outside every tree."""

    kind = "text outside any tree"


class MixedLeafError(TreeReadError):
    """A node with several atom children, or atoms mixed with subtrees: ``(X a b)``, ``(X a (Y b))``."""

    kind = "malformed leaf"


class TreeEncodingError(TreeReadError):
    """The file's bytes are not valid in the encoding it was read with."""

    kind = "cannot decode"


def locate(text: str, offset: int, first_line: int = 1) -> tuple[int, int, str, int]:
    """``(line, column, snippet, caret)`` of character ``offset`` in ``text``.

    Lines count ``\\n`` only (CRLF files count once per line); the column is
    1-based in characters, a tab counting as one.  The snippet is the part of
    the offending line around ``offset`` with tabs shown as spaces so that the
    caret lines up.
    """
    offset = max(0, min(offset, len(text)))
    line = first_line + text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    if line_end < 0:
        line_end = len(text)
    column = offset - line_start + 1
    lo = max(line_start, offset - SNIPPET_RADIUS)
    hi = min(line_end, offset + SNIPPET_RADIUS)
    snippet = text[lo:hi].replace("\t", " ").rstrip("\r")
    caret = offset - lo
    prefix = "..." if lo > line_start else ""
    suffix = " ..." if hi < line_end and text[hi:line_end].strip() else ""
    return line, column, prefix + snippet + suffix, caret + len(prefix)
