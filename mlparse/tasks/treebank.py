"""Prepared treebank splits (``.trees``, one TOP-rooted tree per line) as the constituency and joint tasks
read them: trees, (tag, word) sentences and gold spans."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence, Tuple, Union

from mlparse.structs.chart import TOP, LabelVocab, gold_spans
from mlparse.structs.chart_tree import GoldSpans
from mlparse.tasks.base import DataError, Split
from mlparse.trees.reader import read_bracketed_file
from mlparse.trees.tree import Tree

Sentence = List[Tuple[str, str]]


@dataclass
class TreeSplit(Split[Tree]):
    """A constituency split: its examples are the gold trees (TOP-rooted); ``input_tags`` replace their tags
    as the parser's input when set."""

    unit = "tree"

    @property
    def trees(self) -> List[Tree]:
        """The gold trees (the split's examples)."""
        return self.examples

    @property
    def sentences(self) -> List[Sentence]:
        return [sentence_of(tree) for tree in self.trees]

    @property
    def input_sentences(self) -> List[Sentence]:
        """What the model parses: the trees' words with ``input_tags`` when set, else with the trees' own tags."""
        if self.input_tags is None:
            return self.sentences
        return [list(zip(tags, tree.words())) for tags, tree in zip(self.input_tags, self.trees)]

    @property
    def lengths(self) -> List[int]:
        return [len(tree.leaves()) for tree in self.trees]


def sentence_of(tree: Tree) -> Sentence:
    return [(leaf.tag, leaf.word) for leaf in tree.leaves()]


def read_split(path: Union[str, Path]) -> TreeSplit:
    """Read a prepared ``.trees`` file (one tree per line)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"prepared split not found: {path}" + (" (it is a folder)" if path.is_dir() else ""))
    try:
        result = read_bracketed_file(path)
    except OSError as error:
        raise DataError(f"{path}: cannot read ({error.strerror or error})") from None
    trees = list(result.trees)
    if not trees:
        raise DataError(f"{path}: no trees (an empty split file; prepare the data again or point the recipe elsewhere)")
    split = TreeSplit(path=path, examples=trees, lines=list(result.lines))
    for index, tree in enumerate(trees):
        if tree.label != TOP:
            raise DataError(f"{split.where(index)}: the tree's root is {tree.label!r}, but prepared trees are rooted "
                            f"in {TOP}: (TOP (S ...)); `mlparse prepare` writes them so")
    return split


def check_lengths(split: TreeSplit, max_words: int, setting: str) -> None:
    """A clear error, naming file and line, for the first sentence longer than ``max_words``."""
    for index, tree in enumerate(split.trees):
        length = len(tree.leaves())
        if length > max_words:
            longer = sum(1 for t in split.trees if len(t.leaves()) > max_words)
            raise DataError(f"{split.where(index)}: sentence of {length} words is longer than the model allows "
                            f"({max_words} words; {longer} sentence(s) of this file are longer); {setting}")


def locate_bad_tree(split: TreeSplit, error: Exception) -> str:
    """The message of ``error`` prefixed with ``file:line`` of the first tree of ``split`` that raises it."""
    for index, tree in enumerate(split.trees):
        try:
            LabelVocab.from_trees([tree])
        except ValueError as tree_error:
            return f"{split.where(index)}: {tree_error}"
    return f"{split.path}: {error}"


def golds_of(trees: Sequence[Tree], labels: LabelVocab) -> List[GoldSpans]:
    """Gold spans (binarized, chains collapsed) of every tree; labels unseen in training are a clear error."""
    return [gold_spans(tree, labels) for tree in trees]
