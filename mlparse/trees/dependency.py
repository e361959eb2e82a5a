"""Dependency sentences, their CoNLL-U reader and writer, and the check that they form a tree.

CoNLL-U (Universal Dependencies) holds one sentence per block of lines; blocks are separated
by blank lines.  A block has comment lines (``#``) and word lines of ten tab-separated
columns ``ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC``.  A word line whose ID is an
integer is a *syntactic word*; a range ``3-4`` is a multiword token (its words follow) and a
decimal ``5.1`` an empty node.  A :class:`DependencySentence` holds the words' columns, in
order (word ``i`` at index ``i - 1``), and keeps every line of its block as read, multiword
tokens, empty nodes and comments included, so that a prediction can be written back.

* :func:`read_conllu` / :func:`parse_conllu` read a file / a text into a
  :class:`ConlluDocument`: the sentences and the exact text between them (blank lines), so
  that :func:`render_conllu` with no predictions gives the input back byte for byte.
* :func:`render_conllu` / :func:`write_conllu` (atomic) replace HEAD and DEPREL of every word,
  and UPOS / XPOS when a :class:`DependencyPrediction` carries them, and leave every other
  byte of the input as it was: comments, multiword tokens, empty nodes, the other columns,
  line endings, blank lines and a UTF-8 byte-order mark.
* :func:`sentence_from_words` makes a sentence of tokenized text (every column but FORM ``_``),
  which takes a prediction the same way.
* :func:`tree_problem` says why a sentence is not a tree a parser can learn from (no word,
  a HEAD out of range, not exactly one root, a cycle, a missing HEAD or DEPREL), or ``None``;
  :func:`head_problem` says which word breaks the HEAD column (to name a prediction's line).

Malformed input (a word line without ten columns, an empty column, an ID or HEAD that is not
a number, word IDs not numbered 1, 2, ... in order) raises :class:`ConlluError`, which names
the file, line and column.

Two engines read a block.  ``"conllu"`` is the reference: the ``conllu`` package parses the
block (IDs and HEADs with its own rules).  ``"fast"``, the default, splits the lines itself
with the same rules, and is stricter: exactly ten tab-separated columns, none empty (``conllu``
also splits at runs of two spaces and accepts fewer columns).  On valid input both give the
same sentences (tested on every CoNLL-U file of the shared treebanks).  On English-EWT's train
set (14 MB) the ``conllu`` engine takes 3.9x the fast one's time, and ``conllu.parse`` on the
whole text, with its default field parsers, 7.7x (``benchmarks/conllu_speed.py``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple, Union

import conllu
from conllu.exceptions import ParseException

from mlparse.io_utils import atomic_write_bytes
from mlparse.trees.errors import TreeReadError, locate
from mlparse.trees.reader import decode_text, has_utf8_bom

PathLike = Union[str, "os.PathLike[str]"]

#: The ten columns of a CoNLL-U word line, in order.
COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
#: What CoNLL-U writes for "no value".
NO_VALUE = "_"
ENGINES = ("fast", "conllu")
_UTF8_BOM = "\ufeff"

# The ID and HEAD grammars of the conllu package (conllu.parser): ASCII digits, no leading zero.
_WORD_ID = re.compile(r"0|[1-9][0-9]*")
_RANGE_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)")
_EMPTY_ID = re.compile(r"[0-9][0-9]*\.[1-9][0-9]*")
_HEAD = re.compile(r"0|-?[1-9][0-9]*")


class ConlluError(TreeReadError):
    """Malformed CoNLL-U at ``source:line:column``."""

    kind = "malformed CoNLL-U"


@dataclass(frozen=True)
class DependencySentence:
    """One sentence of ``n`` syntactic words; every column a tuple of length ``n``.

    ``heads[i]`` is the head of word ``i + 1``: 0 for the root, ``None`` where the file has
    ``_``.  The string columns hold the text of the file (``_`` for no value).  ``source`` and
    ``line`` locate the block's first line; ``lines`` are the block's lines as read (line
    endings included) and ``word_lines[i]`` is the index in ``lines`` of word ``i + 1``.
    """

    words: Tuple[str, ...]
    lemmas: Tuple[str, ...]
    upos: Tuple[str, ...]
    xpos: Tuple[str, ...]
    feats: Tuple[str, ...]
    heads: Tuple[Optional[int], ...]
    deprels: Tuple[str, ...]
    source: str
    line: int
    lines: Tuple[str, ...]
    word_lines: Tuple[int, ...]

    def __len__(self) -> int:
        return len(self.words)

    def feats_dict(self, index: int) -> Optional[dict]:
        """FEATS of word ``index + 1`` as ``{feature: value}`` (``conllu``'s reading), ``None`` for ``_``."""
        return conllu.parser.parse_dict_value(self.feats[index])

    def text(self) -> str:
        """The block as read."""
        return "".join(self.lines)


@dataclass(frozen=True)
class DependencyPrediction:
    """What a parser says about a sentence of ``n`` words: sequences of length ``n``.

    ``heads[i]`` (0 for the root) and ``deprels[i]`` are written for word ``i + 1``; ``upos``
    and ``xpos`` are written when given (a model with a tagging head), else left as read.
    """

    heads: Sequence[int]
    deprels: Sequence[str]
    upos: Optional[Sequence[str]] = None
    xpos: Optional[Sequence[str]] = None


@dataclass(frozen=True)
class ConlluDocument:
    """A CoNLL-U text as read: its sentences and everything between them.

    ``gaps[k]`` is the text (blank lines) before sentence ``k`` and ``gaps[-1]`` the text after
    the last one, so ``len(gaps) == len(sentences) + 1``.  ``bom`` records a UTF-8 byte-order
    mark at the start of the file (not part of any sentence); ``encoding`` is the one it was
    read with.
    """

    source: str
    sentences: Tuple[DependencySentence, ...]
    gaps: Tuple[str, ...]
    bom: bool = False
    encoding: str = "utf-8"

    def __len__(self) -> int:
        return len(self.sentences)


# -- reading --------------------------------------------------------------------------------------

#: A first CoNLL-U line: a comment, or a word line (ID, tab).
_CONLLU_START = re.compile(r"^(#|\d+(-\d+|\.\d+)?\t)")


def looks_like_conllu(text: str) -> bool:
    """Is ``text`` CoNLL-U rather than tokenized sentences or trees?  Decided on its first non-blank line: a
    comment or a word line (ID, tab)."""
    for line in text.lstrip(_UTF8_BOM).splitlines():
        if line.strip():
            return _CONLLU_START.match(line) is not None
    return False


def split_lines(text: str) -> List[str]:
    """The lines of ``text`` with their ``\\n`` kept (only ``\\n`` ends a line; ``\\r`` stays in it)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def iter_blocks(lines: Sequence[str], first_line: int = 1) -> Iterator[Tuple[int, str, List[str]]]:
    """``(line number, gap, block lines)`` for each block of non-blank lines.

    ``gap`` is the text of the blank lines before the block (a line is blank when it holds
    only whitespace).  The blank lines after the last block are not reported: they are
    ``"".join(lines[end:])``, see :func:`parse_conllu`.
    """
    gap: List[str] = []
    block: List[str] = []
    start = first_line
    for number, line in enumerate(lines, start=first_line):
        if line.isspace() or not line:
            if block:
                yield start, "".join(gap), block
                gap, block = [], []
            gap.append(line)
        else:
            if not block:
                start = number
            block.append(line)
    if block:
        yield start, "".join(gap), block


def _body(line: str) -> str:
    """A line without its ending (``\\n``, ``\\r\\n``, or a lone ``\\r`` at the end of the text)."""
    if line[-1:] == "\n":
        line = line[:-1]
    return line[:-1] if line[-1:] == "\r" else line


def _error(detail: str, source: str, line: int, body: str = "", offset: int = 0) -> ConlluError:
    if not body:
        return ConlluError(detail, source=source, line=line, column=1)
    _, column, snippet, caret = locate(body, offset, line)
    return ConlluError(detail, source=source, line=line, column=column, snippet=snippet, caret=caret)


def _field_offset(fields: Sequence[str], index: int) -> int:
    return sum(len(field) + 1 for field in fields[:index])


def _token_fields(body: str, source: str, number: int) -> List[str]:
    """The ten columns of a word line, or a :class:`ConlluError` naming what is wrong."""
    fields = body.split("\t")
    if len(fields) != len(COLUMNS):
        raise _error(f"a word line has {len(fields)} tab-separated column{'s' if len(fields) != 1 else ''}, "
                     f"CoNLL-U has {len(COLUMNS)} ({' '.join(COLUMNS)})", source, number, body)
    for index, value in enumerate(fields):
        if not value:
            raise _error(f"column {COLUMNS[index]} is empty (CoNLL-U writes _ for no value)",
                         source, number, body, _field_offset(fields, index))
    return fields


def _out_of_order(ident: str, expected: int, source: str, number: int, body: str) -> ConlluError:
    return _error(f"word ID {ident} where {expected} was expected: word IDs run 1, 2, ... in order",
                  source, number, body)


def parse_sentence(lines: Sequence[str], source: str = "<string>", first_line: int = 1,
                   engine: str = "fast") -> DependencySentence:
    """The sentence of one block (its lines with their endings); see the module doc for ``engine``."""
    if engine == "fast":
        return _parse_fast(lines, source, first_line)
    if engine == "conllu":
        return _parse_with_conllu(lines, source, first_line)
    raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")


def _parse_fast(lines: Sequence[str], source: str, first_line: int) -> DependencySentence:
    forms: List[str] = []
    lemmas: List[str] = []
    upos: List[str] = []
    xpos: List[str] = []
    feats: List[str] = []
    deprels: List[str] = []
    heads: List[Optional[int]] = []
    word_lines: List[int] = []
    for offset, line in enumerate(lines):
        if line[0] == "#":
            continue
        body = line[:-1] if line[-1] == "\n" else line  # _body, inlined (this loop is the reader's time)
        if body[-1:] == "\r":
            body = body[:-1]
        fields = body.split("\t")
        if len(fields) != 10 or "" in fields:
            _token_fields(body, source, first_line + offset)  # raises, naming the column
        ident, head_text = fields[0], fields[6]
        if head_text.isdigit() and head_text.isascii() and (head_text[0] != "0" or len(head_text) == 1):
            head: Optional[int] = int(head_text)
        elif head_text == NO_VALUE:
            head = None
        elif head_text.isascii() and _HEAD.fullmatch(head_text):
            head = int(head_text)
        else:
            raise _error(f"HEAD {head_text!r} is not a word number or _", source, first_line + offset, body,
                         _field_offset(fields, HEAD))
        if ident.isdigit() and ident.isascii() and (ident[0] != "0" or len(ident) == 1):
            if int(ident) != len(heads) + 1:
                raise _out_of_order(ident, len(heads) + 1, source, first_line + offset, body)
            forms.append(fields[1])
            lemmas.append(fields[2])
            upos.append(fields[3])
            xpos.append(fields[4])
            feats.append(fields[5])
            deprels.append(fields[7])
            heads.append(head)
            word_lines.append(offset)
            continue
        span = _RANGE_ID.fullmatch(ident) if ident.isascii() else None
        if span is not None and int(span.group(2)) >= int(span.group(1)):
            continue  # a multiword token
        if span is not None:
            raise _error(f"the multiword token range {ident} runs backwards: a range a-b spans words a to b, "
                         f"so a must not exceed b ({span.group(2)}-{span.group(1)}?)", source, first_line + offset, body)
        if ident.isascii() and _EMPTY_ID.fullmatch(ident):
            continue  # an empty node
        raise _error(f"ID {ident!r} is neither a word number, a range a-b nor an empty node a.b",
                     source, first_line + offset, body)
    return DependencySentence(
        words=tuple(forms), lemmas=tuple(lemmas), upos=tuple(upos), xpos=tuple(xpos), feats=tuple(feats),
        heads=tuple(heads), deprels=tuple(deprels), source=source, line=first_line, lines=tuple(lines),
        word_lines=tuple(word_lines),
    )


def _raw(line: Sequence[str], index: int) -> str:
    return line[index]


#: conllu parses these columns into None / dicts / lists; the reference keeps their text.
_RAW_COLUMNS = {"xpos": _raw, "feats": _raw, "deps": _raw, "misc": _raw}


def _parse_with_conllu(lines: Sequence[str], source: str, first_line: int) -> DependencySentence:
    """The reference engine: the ``conllu`` package reads the block."""
    try:
        tokens = conllu.parse_token_and_metadata("".join(lines), field_parsers=dict(_RAW_COLUMNS))
    except ParseException as error:
        raise _error(f"conllu: {error}", source, first_line) from None
    token_lines = [offset for offset, line in enumerate(lines) if line.strip() and not line.strip().startswith("#")]
    columns: List[List[str]] = [[] for _ in range(8)]
    heads: List[Optional[int]] = []
    word_lines: List[int] = []
    for offset, token in zip(token_lines, tokens):
        number = first_line + offset
        if len(token) != len(COLUMNS):
            raise _error(f"conllu read {len(token)} columns, CoNLL-U has {len(COLUMNS)}", source, number)
        if not isinstance(token["id"], int):
            continue
        if token["id"] != len(heads) + 1:
            raise _out_of_order(str(token["id"]), len(heads) + 1, source, number, "")
        for column, name in ((FORM, "form"), (LEMMA, "lemma"), (UPOS, "upos"), (XPOS, "xpos"),
                             (FEATS, "feats"), (DEPREL, "deprel")):
            columns[column].append(token[name])
        heads.append(token["head"])
        word_lines.append(offset)
    return DependencySentence(
        words=tuple(columns[FORM]), lemmas=tuple(columns[LEMMA]), upos=tuple(columns[UPOS]),
        xpos=tuple(columns[XPOS]), feats=tuple(columns[FEATS]), heads=tuple(heads),
        deprels=tuple(columns[DEPREL]), source=source, line=first_line, lines=tuple(lines),
        word_lines=tuple(word_lines),
    )


def sentence_from_words(words: Sequence[str], source: str = "<string>", line: int = 1) -> DependencySentence:
    """A sentence of tokenized text: one word line per word, every other column ``_``.

    For input without CoNLL-U (raw text to parse): :func:`format_sentence` then writes a
    prediction into these lines like into read ones.
    """
    for word in words:
        if not word or word.isspace() or any(c in word for c in "\t\n\r"):
            raise ValueError(f"{source}:{line}: cannot write the word {word!r} in a CoNLL-U column")
    lines = [f"{k}\t{word}" + "\t_" * 8 + "\n" for k, word in enumerate(words, start=1)]
    return _parse_fast(lines, source, line)


def parse_conllu(text: str, source: str = "<string>", *, engine: str = "fast", bom: bool = False,
                 encoding: str = "utf-8") -> ConlluDocument:
    """Every sentence of a CoNLL-U text (without byte-order mark: ``bom`` records one).

    Raises :class:`ConlluError` at the first malformed line.
    """
    lines = split_lines(text)
    sentences: List[DependencySentence] = []
    gaps: List[str] = []
    end = 0
    for number, gap, block in iter_blocks(lines):
        sentences.append(parse_sentence(block, source, number, engine))
        gaps.append(gap)
        end = number - 1 + len(block)
    gaps.append("".join(lines[end:]))
    return ConlluDocument(source, tuple(sentences), tuple(gaps), bom, encoding)


def read_conllu(path: PathLike, source: Optional[str] = None, *, encoding: str = "utf-8",
                engine: str = "fast") -> ConlluDocument:
    """Every sentence of a CoNLL-U file; errors name ``source`` (default: the path as given).

    A UTF-8 byte-order mark is read as such (recorded in ``bom``, written back by
    :func:`write_conllu`).  Raises :class:`ConlluError` (a ``ValueError``) for malformed input,
    a :class:`~mlparse.trees.errors.TreeEncodingError` for bytes that are not ``encoding``.
    """
    name = str(path) if source is None else source
    data = Path(path).read_bytes()
    text = decode_text(data, encoding, name)
    return parse_conllu(text, name, engine=engine, bom=has_utf8_bom(data, encoding), encoding=encoding)


# -- writing --------------------------------------------------------------------------------------

def _checked(values: Optional[Sequence], n: int, what: str, sentence: DependencySentence) -> None:
    if values is None:
        return
    if len(values) != n:
        raise ValueError(f"{sentence.source}:{sentence.line}: {len(values)} {what} for a sentence of {n} words")
    for value in values:
        if not isinstance(value, str) or not value or value.isspace() or "\t" in value or "\n" in value or "\r" in value:
            raise ValueError(f"{sentence.source}:{sentence.line}: cannot write {what[:-1]} {value!r} in a CoNLL-U column")


def format_sentence(sentence: DependencySentence, prediction: Optional[DependencyPrediction] = None) -> str:
    """The sentence's block as read, with the prediction's columns written in (see the module doc)."""
    if prediction is None:
        return sentence.text()
    n = len(sentence)
    if len(prediction.heads) != n:
        raise ValueError(f"{sentence.source}:{sentence.line}: {len(prediction.heads)} heads for a sentence of {n} words")
    for head in prediction.heads:
        if isinstance(head, bool) or not isinstance(head, int) or not 0 <= head <= n:
            raise ValueError(f"{sentence.source}:{sentence.line}: head {head!r} is not a word number in 0..{n}")
    _checked(prediction.deprels, n, "deprels", sentence)
    _checked(prediction.upos, n, "upos tags", sentence)
    _checked(prediction.xpos, n, "xpos tags", sentence)
    lines = list(sentence.lines)
    for k, index in enumerate(sentence.word_lines):
        line = lines[index]
        body = _body(line)
        fields = body.split("\t")
        fields[HEAD] = str(prediction.heads[k])
        fields[DEPREL] = prediction.deprels[k]
        if prediction.upos is not None:
            fields[UPOS] = prediction.upos[k]
        if prediction.xpos is not None:
            fields[XPOS] = prediction.xpos[k]
        lines[index] = "\t".join(fields) + line[len(body):]
    return "".join(lines)


def render_conllu(document: ConlluDocument, predictions: Optional[Sequence[DependencyPrediction]] = None) -> str:
    """The document's text (byte-order mark included), one prediction per sentence written in."""
    if predictions is not None and len(predictions) != len(document.sentences):
        raise ValueError(f"{document.source}: {len(predictions)} predictions for {len(document.sentences)} sentences")
    parts = [_UTF8_BOM] if document.bom else []
    for k, sentence in enumerate(document.sentences):
        parts.append(document.gaps[k])
        parts.append(format_sentence(sentence, predictions[k] if predictions is not None else None))
    parts.append(document.gaps[-1])
    return "".join(parts)


def write_conllu(path: PathLike, document: ConlluDocument,
                 predictions: Optional[Sequence[DependencyPrediction]] = None) -> None:
    """Write :func:`render_conllu` to ``path`` atomically, in the document's encoding."""
    data = render_conllu(document, predictions).encode(document.encoding)
    atomic_write_bytes(path, data)


# -- validity -------------------------------------------------------------------------------------

def tree_problem(sentence: DependencySentence) -> Optional[str]:
    """``None`` when the words form one tree a parser can learn from, else the reason.

    Reasons: no word; :func:`head_problem`'s (a word without HEAD, a HEAD outside ``0..n``, not
    exactly one word with HEAD 0, a cycle: the first one found is listed); a word without DEPREL (``_``).
    """
    if len(sentence) == 0:
        return "no syntactic words (an empty sentence)"
    problem = head_problem(sentence)
    if problem is not None:
        return problem[1]
    for word, deprel in enumerate(sentence.deprels, start=1):
        if deprel == NO_VALUE:
            return f"word {word} has no DEPREL (_)"
    return None


def head_problem(sentence: DependencySentence) -> Optional[Tuple[int, str]]:
    """``(word, reason)`` when the HEAD column does not make one tree, else None: the first word (1-based) without
    a HEAD or with a HEAD outside ``0..n``, the second word with HEAD 0 (or word 1 when none has it), or the first
    word of a cycle (the cycle listed).  A prediction file's sentence line of ``word`` is
    ``sentence.line + sentence.word_lines[word - 1]``.  DEPREL is not looked at; a sentence without words has
    no HEAD problem (see :func:`tree_problem`).
    """
    n = len(sentence)
    if n == 0:
        return None
    heads = sentence.heads
    for word, head in enumerate(heads, start=1):
        if head is None:
            return word, f"word {word} has no HEAD (_)"
        if not 0 <= head <= n:
            return word, f"word {word} has HEAD {head}, outside 0..{n}"
    roots = [word for word, head in enumerate(heads, start=1) if head == 0]
    if not roots:
        return 1, "no word has HEAD 0: a tree has exactly one root"
    if len(roots) > 1:
        listed = ", ".join(map(str, roots[:5])) + (", ..." if len(roots) > 5 else "")
        return roots[1], f"{len(roots)} words have HEAD 0 (words {listed}): a tree has exactly one root"
    state = [0] * (n + 1)  # 0 not seen, 1 on the path being followed, 2 known to reach the root
    state[0] = 2
    for start in range(1, n + 1):
        path: List[int] = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]  # type: ignore[assignment]
        if state[node] == 1:
            cycle = path[path.index(node):] + [node]
            return cycle[0], f"the heads form a cycle: {' -> '.join(map(str, cycle))}"
        for visited in path:
            state[visited] = 2
    return None
