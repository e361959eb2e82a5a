"""Prepared treebank splits as the trainer sees them: trees, (tag, word) sentences and gold spans."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence, Tuple, Union

from mlparse.structs.chart import LabelVocab, gold_spans
from mlparse.structs.chart_tree import GoldSpans
from mlparse.trees.reader import read_bracketed_file
from mlparse.trees.tree import Tree

Sentence = List[Tuple[str, str]]


class DataError(ValueError):
    """A problem with the prepared data, with a message meant for the user."""


@dataclass
class Split:
    """One split: the gold trees (TOP-rooted) and their sentences."""

    path: Path
    trees: List[Tree]

    @property
    def sentences(self) -> List[Sentence]:
        return [sentence_of(tree) for tree in self.trees]

    @property
    def lengths(self) -> List[int]:
        return [len(tree.leaves()) for tree in self.trees]


def sentence_of(tree: Tree) -> Sentence:
    return [(leaf.tag, leaf.word) for leaf in tree.leaves()]


def read_split(path: Union[str, Path]) -> Split:
    """Read a prepared ``.trees`` file (one tree per line)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"prepared split not found: {path}")
    result = read_bracketed_file(path)
    trees = list(result.trees)
    if not trees:
        raise DataError(f"{path}: no trees")
    return Split(path=path, trees=trees)


def golds_of(trees: Sequence[Tree], labels: LabelVocab) -> List[GoldSpans]:
    """Gold spans (binarized, chains collapsed) of every tree; labels unseen in training are a clear error."""
    return [gold_spans(tree, labels) for tree in trees]
