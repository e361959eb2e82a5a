"""Prepared treebank splits as the trainer sees them: trees, (tag, word) sentences and gold spans."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

from mlparse.structs.chart import TOP, LabelVocab, gold_spans
from mlparse.structs.chart_tree import GoldSpans
from mlparse.trees.reader import read_bracketed_file
from mlparse.trees.tree import Tree

Sentence = List[Tuple[str, str]]


from mlparse.tasks.base import DataError  # noqa: E402  (one error type for prepared data, whatever the task)


@dataclass
class Split:
    """One split: the gold trees (TOP-rooted) and their sentences."""

    path: Path
    trees: List[Tree]
    lines: Optional[List[int]] = None  # 1-based line where each tree starts in ``path``
    input_tags: Optional[List[List[str]]] = None  # tags the model gets instead of the trees' (data.eval_tags: predicted)

    def where(self, index: int) -> str:
        """``path:line`` of tree ``index`` (for messages)."""
        if self.lines is not None and index < len(self.lines):
            return f"{self.path}:{self.lines[index]}"
        return f"{self.path} (tree {index + 1})"

    @property
    def examples(self) -> List[Tree]:
        """The gold trees (the task interface's name for them)."""
        return self.trees

    def subset(self, keep: Sequence[int]) -> "Split":
        """The trees at ``keep`` (their lines and input tags with them)."""
        lines = [self.lines[k] for k in keep] if self.lines is not None else None
        tags = [self.input_tags[k] for k in keep] if self.input_tags is not None else None
        return Split(self.path, [self.trees[k] for k in keep], lines, tags)

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


def read_split(path: Union[str, Path]) -> Split:
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
    split = Split(path=path, trees=trees, lines=list(result.lines))
    for index, tree in enumerate(trees):
        if tree.label != TOP:
            raise DataError(f"{split.where(index)}: the tree's root is {tree.label!r}, but prepared trees are rooted "
                            f"in {TOP}: (TOP (S ...)); `mlparse prepare` writes them so")
    return split


def check_lengths(split: Split, max_words: int, setting: str) -> None:
    """A clear error, naming file and line, for the first sentence longer than ``max_words``."""
    for index, tree in enumerate(split.trees):
        length = len(tree.leaves())
        if length > max_words:
            longer = sum(1 for t in split.trees if len(t.leaves()) > max_words)
            raise DataError(f"{split.where(index)}: sentence of {length} words is longer than the model allows "
                            f"({max_words} words; {longer} sentence(s) of this file are longer); {setting}")


def locate_bad_tree(split: Split, error: Exception) -> str:
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
