"""Predicted POS tags for dev and test (``data.tags: files``, or ``data.eval_tags: predicted``), read from a tag
file and checked against the split they belong to: trees (constituency and joint parsers) or CoNLL-U
sentences (dependency parsers).

A tag file is one of three formats, told apart by its content:

* **tag lines**: line k holds the tags of sentence k of the split, separated by spaces or tabs
  (``DT NN VBZ .``), one tag per word; blank lines at the end of the file are ignored.  This is the layout
  the jack-knifing writes (``<data>/tags/<column>-<key>/dev.tags``) and a tagger run's ``dev.pred.tags``;
* **bracketed trees** (first non-blank character ``(``): tree k gives the tags of sentence k on its
  leaves, and its words must be the sentence's words; for instance the predicted trees of a run
  trained with ``span.predict_tags`` (``mlparse parse`` output or ``runs/.../dev.pred.trees``),
  whose leaves carry the tags of that model's tagging head;
* **CoNLL-U** (a ``.conllu`` file, or a first line that is not a comment with the ten tab-separated
  columns of a word): sentence k gives the tags of sentence k in ``column`` (``upos`` or ``xpos``:
  ``biaffine.tag_column`` for a dependency parser, ``xpos`` for trees), and its syntactic words must be
  the sentence's words; for instance a tagger's or another parser's predicted CoNLL-U.

Every mismatch (another number of sentences, of words in a sentence, other words) is a
:class:`~mlparse.tasks.base.DataError` naming the tag file and line, and the sentence's line in the split.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional, Sequence, Union

from mlparse.tasks.base import DataError, Split

#: A CoNLL-U word line: an id (a word, a multiword range or an empty node), then nine more tab-separated columns.
_CONLLU_LINE = re.compile(r"^\d+(?:[-.]\d+)?\t(?:[^\t]*\t){8}[^\t]*$")


def split_words(split: Split) -> List[List[str]]:
    """The words of every sentence of ``split``: a tree split's leaves, else its CoNLL-U sentences' words."""
    trees = getattr(split, "trees", None)
    if trees is not None:
        return [list(tree.words()) for tree in trees]
    return [list(sentence.words) for sentence in split.examples]


def read_tags(path: Union[str, Path], split: Split, column: Optional[str] = None) -> List[List[str]]:
    """The tags of every sentence of ``split``, from ``path`` (any format above): ``tags[k][i]`` is word i of
    sentence k.  ``column``: the column of a CoNLL-U tag file (default: ``xpos`` for trees, ``upos`` otherwise)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"tag file not found: {path}") from None
    except IsADirectoryError:
        raise DataError(f"tag file {path} is a folder") from None
    except UnicodeDecodeError as error:
        raise DataError(f"{path}: not UTF-8 text (byte {error.start}: {error.reason})") from None
    except OSError as error:
        raise DataError(f"{path}: cannot read ({error.strerror or error})") from None
    words = split_words(split)
    if path.suffix == ".conllu" or _looks_like_conllu(text):
        chosen = column or ("xpos" if getattr(split, "trees", None) is not None else "upos")
        return _tags_from_conllu(text, path, split, words, chosen)
    if text.lstrip().startswith("("):
        return _tags_from_trees(text, path, split, words)
    return _tags_from_lines(text, path, split, words)


def _looks_like_conllu(text: str) -> bool:
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        return bool(_CONLLU_LINE.match(line.rstrip("\r\n")))
    return False


def _tags_from_lines(text: str, path: Path, split: Split, words: List[List[str]]) -> List[List[str]]:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    tags = [line.split() for line in lines]
    for index, (row, sentence) in enumerate(zip(tags, words)):
        count = len(sentence)
        if len(row) != count:
            what = "an empty line" if not row else f"{len(row)} tag{'s' if len(row) != 1 else ''}"
            raise DataError(f"{path}:{index + 1}: {what} for the {count} word{'s' if count != 1 else ''} of "
                            f"sentence {index + 1} ({split.where(index)})")
    _check_count(len(tags), "lines of tags", path, split, words)
    return tags


def _tags_from_trees(text: str, path: Path, split: Split, words: List[List[str]]) -> List[List[str]]:
    from mlparse.trees.reader import parse_bracketed

    try:
        result = parse_bracketed(text, source=str(path))
    except ValueError as error:  # the reader's errors name the file, line and column
        raise DataError(str(error)) from None
    lines = list(result.lines)
    for index, (tree, gold_words) in enumerate(zip(result.trees, words)):
        found = tree.words()
        if found != gold_words:
            place = f"{path}:{lines[index]}" if index < len(lines) else f"{path} (tree {index + 1})"
            raise DataError(f"{place}: tree {index + 1} does not have the words of sentence {index + 1} "
                            f"({split.where(index)}): {_first_difference(found, gold_words)}")
    _check_count(len(result.trees), "trees", path, split, words)
    return [tree.tags() for tree in result.trees]


def _tags_from_conllu(text: str, path: Path, split: Split, words: List[List[str]], column: str) -> List[List[str]]:
    from mlparse.trees.dependency import parse_conllu

    if column not in ("upos", "xpos"):
        raise DataError(f"{path}: a CoNLL-U tag file gives upos or xpos tags, not {column!r}")
    try:
        document = parse_conllu(text, str(path))
    except ValueError as error:  # the reader's errors name the file and line
        raise DataError(str(error)) from None
    sentences = document.sentences
    for index, (sentence, gold_words) in enumerate(zip(sentences, words)):
        found = list(sentence.words)
        if found != gold_words:
            raise DataError(f"{path}:{sentence.line}: sentence {index + 1} does not have the words of sentence "
                            f"{index + 1} of the data ({split.where(index)}): {_first_difference(found, gold_words)}")
        tags = list(getattr(sentence, column))
        if any(tag in ("", "_") for tag in tags):
            raise DataError(f"{path}:{sentence.line}: sentence {index + 1} has no {column.upper()} tag for word "
                            f"{next(i for i, tag in enumerate(tags, 1) if tag in ('', '_'))} "
                            f"(the {column.upper()} column holds '_')")
    _check_count(len(sentences), "sentences", path, split, words)
    return [list(getattr(sentence, column)) for sentence in sentences]


def _first_difference(words: Sequence[str], gold: Sequence[str]) -> str:
    for position, (word, expected) in enumerate(zip(words, gold), start=1):
        if word != expected:
            return f"word {position} is {word!r}, expected {expected!r}"
    return f"{len(words)} words, expected {len(gold)}"


def _check_count(found: int, what: str, path: Path, split: Split, words: List[List[str]]) -> None:
    if found != len(words):
        raise DataError(f"{path}: {found} {what} for the {len(words)} sentences of {split.path}")


def unknown_tag_count(tags: Sequence[Sequence[str]], known: Sequence[str]) -> int:
    """How many of ``tags`` are not in ``known`` (the training tag set): the model sees them as unknown."""
    vocabulary = set(known)
    return sum(1 for row in tags for tag in row if tag not in vocabulary)
