"""Constituency parsing: prepared ``.trees`` splits (one TOP-rooted tree per line), scored with the evalb port.

Examples are gold :class:`~mlparse.trees.tree.Tree` objects; a parser reads their words and POS
tags and predicts trees.  The main metric is bracket F1 (evalb, strict), with the recipe's
parameter file (``data.evalb_params``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from mlparse.tasks.base import DataError, EvalOutcome, Split, Task
from mlparse.train import corpus
from mlparse.train.evaluate import EvaluationError, score_parses
from mlparse.trees.tree import Tree
from mlparse.trees.writer import write_trees


class ConstituencyTask(Task):
    name = "constituency"
    suffix = ".trees"
    report_suffix = ".evalb"
    metric = "f1"
    metric_label = "F1"

    def read_split(self, path: Path) -> Split[Tree]:
        try:
            read = corpus.read_split(path)
        except corpus.DataError as error:
            raise DataError(str(error)) from None
        return Split(read.path, read.trees, read.lines)

    def length(self, example: Tree) -> int:
        return len(example.leaves())

    def write_predictions(self, path: Path, split: Split[Tree], predictions: Sequence[Tree]) -> None:
        write_trees(path, predictions)

    def score(self, split: Split[Tree], predictions: Sequence[Tree], config: Any) -> EvalOutcome:
        outcome = score_parses(split.examples, predictions, config.data.evalb_params,
                               predicted_tags=config.model.predict_tags)
        return EvalOutcome(outcome.scores, outcome.report)

    def check_scorable(self, split: Split[Tree], config: Any) -> None:
        try:
            score_parses(split.examples, split.examples, config.data.evalb_params)
        except EvaluationError as error:
            raise DataError(f"{split.path}: the gold trees cannot be scored against themselves with "
                            f"{config.data.evalb_params}, so no run on them could be evaluated: {error}") from None
