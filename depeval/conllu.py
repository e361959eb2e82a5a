"""Reading and checking a CoNLL-U file the way the CoNLL 2018 evaluation script does.

The script's reading rules, which :func:`read_conllu` follows exactly:

* Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (the script reads in text mode).
* Outside a sentence, lines starting with ``#`` are comments.  Any other line
  opens a sentence; an empty line closes it.  Inside a sentence a ``#`` line is
  an ordinary (and so usually malformed) word line.
* Every word line has exactly 10 tab-separated columns.  Lines whose ID holds a
  ``.`` are empty nodes and are ignored entirely.
* Each remaining line is a token: its FORM without the characters of Unicode
  category Zs is appended to the text of the file (it must not become empty).
* A multiword token ``a-b`` is followed by ``b - a + 1`` word lines that are
  taken as they come: only their column count is checked (their ID, FORM and
  HEAD are not, until the sentence ends).
* A basic word's ID must be the next word number of the sentence (words of
  multiword tokens count) and its HEAD a non-negative integer.
* At the end of a sentence every HEAD must point inside the sentence, heads must
  form no cycle (checked word by word, each following its chain of heads) and
  exactly one word must have HEAD 0.  A sentence without words is refused as
  having several roots, as in the script.
* A file must end with an empty line (after its last sentence).

Integers are read with Python's ``int``, as in the script (so ``+3``, `` 3 `` and
``0_3`` are numbers).  Universal features (the 21 of UD v2 that the script keeps)
are kept in sorted order; a DEPREL is cut at its first ``:``.
"""

from __future__ import annotations

import gc
import unicodedata
from dataclasses import dataclass, field

from .errors import DepevalError

ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
#: The column the reader appends to each word: the DEPREL cut at its first ``:``.
UNIVERSAL_DEPREL = 10

#: Relations of content words (scored by CLAS, MLAS and BLEX).
CONTENT_DEPRELS = frozenset(
    "nsubj obj iobj csubj ccomp xcomp obl vocative expl dislocated advcl advmod discourse nmod appos "
    "nummod acl amod conj fixed flat compound list parataxis orphan goeswith reparandum root dep".split()
)
#: Relations of function words (the children that MLAS compares).
FUNCTIONAL_DEPRELS = frozenset("aux cop mark det clf case cc".split())
#: Features kept for UFeats, AllTags and MLAS; every other feature is dropped.
UNIVERSAL_FEATURES = frozenset(
    "PronType NumType Poss Reflex Foreign Abbr Gender Animacy Number Case Definite Degree VerbForm Mood "
    "Tense Aspect Voice Evident Polarity Person Polite".split()
)

#: ``parents`` value of a root word.
ROOT = -1
_UNSET = -2
_VISITING = -3


@dataclass(slots=True)
class Treebank:
    """One CoNLL-U file as the scorer sees it (empty nodes left out).

    Spans are character offsets into ``text``, the concatenation of every
    token's FORM without Zs characters; ``end`` is exclusive.  Per-word lists
    have one entry per word of the file (``n_words``), in file order:

    * ``columns[i]``: the word's 10 columns (FORM without Zs characters for a basic
      word, FEATS reduced to the sorted universal features) plus, as an 11th, the
      DEPREL's universal part; column 7 keeps the DEPREL as written.
    * ``starts[i]``, ``ends[i]``: the span of the word's token (the whole
      multiword token for its words); ``multiword[i]``: the word is part of one.
    * ``parents[i]``: index of the head word, or ``ROOT`` (-1).
    * ``functional_children[i]``: indices of the children whose relation is
      functional, in file order (None when there are none).
    * ``lines[i]``: the word's 1-based line number.

    Tokens and sentences are spans too (``n_tokens``, ``n_sentences`` entries),
    with the line where each starts.
    """

    source: str
    text: str = ""
    token_starts: list[int] = field(default_factory=list)
    token_ends: list[int] = field(default_factory=list)
    token_lines: list[int] = field(default_factory=list)
    sentence_starts: list[int] = field(default_factory=list)
    sentence_ends: list[int] = field(default_factory=list)
    sentence_lines: list[int] = field(default_factory=list)
    columns: list[list[str]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    multiword: list[bool] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    functional_children: list = field(default_factory=list)
    lines: list[int] = field(default_factory=list)

    @property
    def n_words(self) -> int:
        return len(self.columns)


def split_text_lines(text: str) -> list[str]:
    """The lines of ``text`` as Python's text-mode ``readline`` gives them, without line ends."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def strip_spaces(form: str) -> str:
    """``form`` without its characters of Unicode category Zs (spaces of every width)."""
    if form.isascii():
        return form.replace(" ", "") if " " in form else form
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


def _columns_error(line: str, source: str, number: int | None) -> DepevalError:
    return DepevalError(f"The CoNLL-U line does not contain 10 tab-separated columns: '{line}'", source, number)


def _normalize(bank: Treebank) -> None:
    """Reduce FEATS to the sorted universal features, append the DEPREL's universal part, link functional children."""
    columns = bank.columns
    feats = {}
    for raw in {c[FEATS] for c in columns}:
        feats[raw] = "|".join(sorted(f for f in raw.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))
    universal = {raw: raw.split(":", 1)[0] for raw in {c[DEPREL] for c in columns}}
    for c in columns:
        c[FEATS] = feats[c[FEATS]]
        c.append(universal[c[DEPREL]])
    children: list = [None] * len(columns)
    for word, parent in enumerate(bank.parents):
        if parent >= 0 and columns[word][UNIVERSAL_DEPREL] in FUNCTIONAL_DEPRELS:
            if children[parent] is None:
                children[parent] = [word]
            else:
                children[parent].append(word)
    bank.functional_children = children


def _close_sentence(bank: Treebank, spans: list[tuple[int, int, bool, int]], first: int, opening_line: int) -> None:
    """Resolve the heads of words ``first..`` and check the tree, in the script's order of checks.

    ``spans`` holds each word's (start, end, multiword, line); the line names errors.
    """
    columns = bank.columns
    count = len(columns) - first
    parents = bank.parents
    parents.extend([_UNSET] * count)
    roots = 0
    for word in range(first, first + count):
        path = []
        current = word
        while True:
            state = parents[current]
            if state == _VISITING:
                raise DepevalError("There is a cycle in a sentence", bank.source, spans[current][3])
            if state != _UNSET:
                break
            raw = columns[current][HEAD]
            try:
                head = int(raw)
            except ValueError:
                # The script stops here with a ValueError (a word of a multiword token).
                raise DepevalError(f"Cannot parse HEAD '{raw}'", bank.source, spans[current][3]) from None
            if head < 0 or head > count:
                raise DepevalError(f"HEAD '{raw}' points outside of the sentence", bank.source, spans[current][3])
            if head == 0:
                parents[current] = ROOT
                roots += 1
                break
            parents[current] = _VISITING
            path.append(current)
            current = first + head - 1
        for step in reversed(path):
            parents[step] = current
            current = step
    if roots != 1:
        raise DepevalError("There are multiple roots in a sentence", bank.source, opening_line)


def read_conllu(text: str, source: str = "<text>") -> Treebank:
    """Read and check CoNLL-U ``text``; raises :class:`DepevalError` with the script's message.

    ``source`` names the file in error locations.  Returns the :class:`Treebank`.  The cyclic
    garbage collector is paused meanwhile (the treebank holds no cycles; 1.3x faster).
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _read(text, source)
    finally:
        if paused:
            gc.enable()


def _read(text: str, source: str) -> Treebank:
    bank = Treebank(source)
    lines = split_text_lines(text)
    n_lines = len(lines)
    pieces: list[str] = []
    token_starts, token_ends, token_lines = bank.token_starts, bank.token_ends, bank.token_lines
    words = bank.columns
    spans: list[tuple[int, int, bool, int]] = []  # per word: start, end, multiword, line
    index = 0
    first = -1  # index of the current sentence's first word; -1 outside a sentence
    opening = 0
    number = 0
    while number < n_lines:
        line = lines[number]
        number += 1
        if first < 0:
            if line.startswith("#"):
                continue
            bank.sentence_starts.append(index)
            bank.sentence_lines.append(number)
            first = len(words)
            opening = number
        if not line:
            _close_sentence(bank, spans, first, opening)
            bank.sentence_ends.append(index)
            first = -1
            continue
        columns = line.split("\t")
        if len(columns) != 10:
            raise _columns_error(line, source, number)
        word_id = columns[ID]
        if "." in word_id:
            continue
        form = columns[FORM]
        if " " in form or not form.isascii():
            form = columns[FORM] = strip_spaces(form)
        if not form:
            raise DepevalError("There is an empty FORM in the CoNLL-U file", source, number)
        pieces.append(form)
        start = index
        index += len(form)
        token_starts.append(start)
        token_ends.append(index)
        token_lines.append(number)
        if "-" in word_id:
            try:
                low, high = map(int, word_id.split("-"))
            except ValueError:
                raise DepevalError(f"Cannot parse multi-word token ID '{word_id}'", source, number) from None
            for _ in range(low, high + 1):
                part = lines[number] if number < n_lines else ""
                number += 1
                part_columns = part.split("\t")
                if len(part_columns) != 10:
                    raise _columns_error(part, source, number if number <= n_lines else None)
                words.append(part_columns)
                spans.append((start, index, True, number))
            continue
        expected = len(words) - first + 1
        try:
            value = int(word_id)
        except ValueError:
            raise DepevalError(f"Cannot parse word ID '{word_id}'", source, number) from None
        if value != expected:
            raise DepevalError(f"Incorrect word ID '{word_id}' for word '{form}', expected '{expected}'", source, number)
        try:
            head = int(columns[HEAD])
        except ValueError:
            raise DepevalError(f"Cannot parse HEAD '{columns[HEAD]}'", source, number) from None
        if head < 0:
            raise DepevalError("HEAD cannot be negative", source, number)
        words.append(columns)
        spans.append((start, index, False, number))
    if first >= 0:
        raise DepevalError("The CoNLL-U file does not end with empty line", source, n_lines)
    bank.text = "".join(pieces)
    if spans:
        starts, ends, multiword, word_lines = zip(*spans)
        bank.starts, bank.ends, bank.multiword, bank.lines = list(starts), list(ends), list(multiword), list(word_lines)
    _normalize(bank)
    return bank
