"""Predicted POS tags for dev and test (``data.eval_tags: predicted``), read from a tag file and checked
against the split they belong to.

A tag file is one of two formats, told apart by its first non-blank character:

* **tag lines**: line k holds the tags of sentence k of the split, separated by spaces or tabs
  (``DT NN VBZ .``), one tag per word; blank lines at the end of the file are ignored;
* **bracketed trees** (first non-blank character ``(``): tree k gives the tags of sentence k on its
  leaves, and its words must be the sentence's words; for instance the predicted trees of a run
  trained with ``span.predict_tags`` (``mlparse parse`` output or ``runs/.../dev.pred.trees``),
  whose leaves carry the tags of that model's tagging head.

Every mismatch is a :class:`~mlparse.tasks.base.DataError` naming the tag file and line, and the
sentence's line in the split.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Sequence, Union

from mlparse.tasks.treebank import DataError, TreeSplit


def read_tags(path: Union[str, Path], split: TreeSplit) -> List[List[str]]:
    """The tags of every sentence of ``split``, from ``path`` (either format above): ``tags[k][i]`` is word i of sentence k."""
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
    if text.lstrip().startswith("("):
        return _tags_from_trees(text, path, split)
    return _tags_from_lines(text, path, split)


def _tags_from_lines(text: str, path: Path, split: TreeSplit) -> List[List[str]]:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    tags = [line.split() for line in lines]
    for index, (row, tree) in enumerate(zip(tags, split.trees)):
        words = len(tree.leaves())
        if len(row) != words:
            what = "an empty line" if not row else f"{len(row)} tag{'s' if len(row) != 1 else ''}"
            raise DataError(f"{path}:{index + 1}: {what} for the {words} word{'s' if words != 1 else ''} of "
                            f"sentence {index + 1} ({split.where(index)})")
    _check_count(len(tags), "lines of tags", path, split)
    return tags


def _tags_from_trees(text: str, path: Path, split: TreeSplit) -> List[List[str]]:
    from mlparse.trees.reader import parse_bracketed

    try:
        result = parse_bracketed(text, source=str(path))
    except ValueError as error:  # the reader's errors name the file, line and column
        raise DataError(str(error)) from None
    lines = list(result.lines)
    for index, (tree, gold) in enumerate(zip(result.trees, split.trees)):
        words, gold_words = tree.words(), gold.words()
        if words != gold_words:
            place = f"{path}:{lines[index]}" if index < len(lines) else f"{path} (tree {index + 1})"
            raise DataError(f"{place}: tree {index + 1} does not have the words of sentence {index + 1} "
                            f"({split.where(index)}): {_first_difference(words, gold_words)}")
    _check_count(len(result.trees), "trees", path, split)
    return [tree.tags() for tree in result.trees]


def _first_difference(words: Sequence[str], gold: Sequence[str]) -> str:
    for position, (word, expected) in enumerate(zip(words, gold), start=1):
        if word != expected:
            return f"word {position} is {word!r}, expected {expected!r}"
    return f"{len(words)} words, expected {len(gold)}"


def _check_count(found: int, what: str, path: Path, split: TreeSplit) -> None:
    if found != len(split.trees):
        raise DataError(f"{path}: {found} {what} for the {len(split.trees)} sentences of {split.path}")


def unknown_tag_count(tags: Sequence[Sequence[str]], known: Sequence[str]) -> int:
    """How many of ``tags`` are not in ``known`` (the training tag set): the model sees them as unknown."""
    vocabulary = set(known)
    return sum(1 for row in tags for tag in row if tag not in vocabulary)
