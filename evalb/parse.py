"""Reading one bracketed tree, exactly as the original programs tokenize it.

Rules (see evalb/README.md):

* ``(`` starts a node; its label is every byte up to whitespace or a paren.
* If whitespace follows the label, the next token is read; when it is directly
  followed by ``)`` the node is a terminal ``(TAG word)``.  Anything else than
  ``(`` after that token is the "More than two elements in a bracket" error.
* A terminal whose tag is a DELETE_LABEL is dropped with its word (standard
  program only; the SPMRL program keeps every terminal) and gets no index.
* Sentence length counts terminals whose tag is not a DELETE_LABEL_FOR_LENGTH,
  deleted ones included.
* Quote terminals (tag in QUOTE_LABEL, word ``'`` ``"`` or ``/``) are remembered
  with the position and open brackets they were found at, for ``fix_quote``.
* A byte that is neither whitespace nor a paren where a node should start makes
  the original loop forever on "Reading sentence" until MAX_ERROR aborts it.

Unlike the original there is no limit on line, word, label or bracket sizes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .params import C_SPACE, EvalbParams

_SPACE = frozenset(C_SPACE)
_TERMINATOR = frozenset(C_SPACE + b"()")
_QUOTE_WORDS = (b"'", b'"', b"/")


class ErrorSink(Protocol):
    """Where parse-time messages go (see :class:`evalb.engine.Sink`)."""

    def error(self, message: str) -> None: ...

    def error_forever(self, message: str) -> None: ...

    def raw_stderr(self, data: bytes) -> None: ...

    def out(self, data: bytes) -> None: ...


@dataclass(slots=True)
class Bracket:
    """One constituent: span ``[start, end)`` over kept words; ``result`` 0/1/5/9 as in C."""

    start: int
    end: int
    label: bytes
    buf_start: int
    buf_end: int
    result: int = 9


@dataclass(slots=True)
class QuoteTerm:
    """A quote terminal: its word index, the number of brackets opened before it, the open brackets."""

    word: bytes
    label: bytes
    index: int
    bracket: int
    ends: list[int]


@dataclass(slots=True)
class ParsedTree:
    """One line: kept words/tags (parallel lists), brackets in opening order, quote terminals."""

    buf: bytes
    words: list[bytes] = field(default_factory=list)
    tags: list[bytes] = field(default_factory=list)
    brackets: list[Bracket] = field(default_factory=list)
    quotes: list[QuoteTerm] = field(default_factory=list)
    length: int = 0
    malformed: bool = False
    results: list[int] = field(default_factory=list)


def parse_tree(buf: bytes, params: EvalbParams, spmrl: bool, sink: ErrorSink, newline: bool = True) -> ParsedTree:
    """Tokenize one line (without its newline; ``newline`` says whether it had one).

    Errors are reported to ``sink`` as they happen.
    """
    tree = ParsedTree(buf)
    words, tags, brackets, quotes = tree.words, tree.tags, tree.brackets, tree.quotes
    delete = params.delete_labels
    delete_for_length = params.delete_labels_for_length
    quote_labels = params.quote_labels
    debug = params.debug
    stack: list[int] = []
    underflow = 0
    length = 0
    n = len(buf)
    p = 0
    while p < n:
        c = buf[p]
        if c in _SPACE:
            p += 1
            continue
        if c == 40:  # "("
            p += 1
            start = p
            while p < n and buf[p] not in _TERMINATOR:
                p += 1
            label = buf[start:p]
            if p < n and buf[p] in _SPACE:
                q = p + 1
                while q < n and buf[q] in _SPACE:
                    q += 1
                word_start = q
                while q < n and buf[q] not in _TERMINATOR:
                    q += 1
                word = buf[word_start:q]
                closed = q < n and buf[q] == 41
                if closed and label not in delete_for_length:
                    length += 1
                if debug > 1:
                    sink.out(b"label=%s, word=%s, wid=%d\n" % (label, word, len(words)))
                if closed and label in quote_labels and word in _QUOTE_WORDS:
                    quotes.append(QuoteTerm(word, label, len(words), len(brackets), list(stack)))
                if closed:
                    p = q + 1
                    if not spmrl and label in delete:
                        continue
                    words.append(word)
                    tags.append(label)
                    continue
                if not (q < n and buf[q] == 40):
                    if spmrl:
                        sink.raw_stderr(b"debug djam: q= %s%s\n" % (buf[q:], b"\n" if newline else b""))
                    tree.malformed = True
                    sink.error("More than two elements in a bracket\n")
            stack.append(len(brackets))
            brackets.append(Bracket(len(words), -1, label, p, p))
        elif c == 41:  # ")"
            if stack:
                bracket = brackets[stack.pop()]
                bracket.end = len(words)
                bracket.buf_end = p
            else:
                underflow += 1
            p += 1
        else:
            tree.malformed = True
            sink.error_forever("Reading sentence\n")
            break  # only reached when the sink does not abort
    if stack or underflow:
        tree.malformed = True
        sink.error("Bracketing is unbalanced (too many open bracket)\n")
    tree.length = length
    return tree
