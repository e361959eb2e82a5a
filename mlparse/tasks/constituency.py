"""Constituency parsing: prepared ``.trees`` splits (one TOP-rooted tree per line), scored with the evalb port.

Examples are gold :class:`~mlparse.trees.tree.Tree` objects; a parser reads their words and POS
tags and predicts trees.  The main metric is bracket F1 (evalb, strict), with the recipe's
parameter file (``data.evalb_params``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mlparse.results import SplitScores
from mlparse.tasks.base import DataError, EvalOutcome, Task
from mlparse.tasks import treebank
from mlparse.tasks.treebank import Sentence
from mlparse.tasks.evalb_scoring import EvaluationError, check_params, check_scorable, score_parses
from mlparse.trees.tree import Tree
from mlparse.trees.writer import escape_word, write_trees


class ConstituencyTask(Task):
    name = "constituency"
    suffix = ".trees"
    report_suffix = ".evalb"
    writes_trees = True
    metric = "f1"
    metric_label = "F1"
    outputs = ("nltk", "tree")
    card_metrics = ("f1", "recall", "precision", "complete_match")
    card_usage = 'tree = parser.parse(["The", "dog", "barks", "."])   # an nltk.Tree'
    scorer = "evalb"
    compared = True
    parse_output = "trees"

    @classmethod
    def scorer_line(cls, scores: SplitScores) -> str:
        """Recall, precision and F1, in evalb's order."""
        return f"LR {scores.recall:.2f}  LP {scores.precision:.2f}  F1 {scores.f1:.2f}"

    @classmethod
    def summary(cls, scores: Any) -> str:
        return (f"F1 {scores.f1 or 0:.2f}  LP {scores.precision or 0:.2f}  LR {scores.recall or 0:.2f}  "
                f"complete match {scores.complete_match or 0:.2f}  ({scores.sentences} sentences)")

    def example_from_words(self, words: Sequence[str], tags: Optional[Sequence[str]], tag_column: str = "pos") -> Sentence:
        """(tag, word) pairs, words with brackets escaped (``-LRB-``) and the placeholder tag without tags."""
        from mlparse.data.vocab import UNKNOWN_TAG

        given = list(tags) if tags is not None else [UNKNOWN_TAG] * len(words)
        return [(tag, escape_word(word)) for tag, word in zip(given, words)]

    def render(self, example: Any, prediction: Any, output: str) -> Any:
        return prediction  # its tree

    def read_split(self, path: Path) -> treebank.TreeSplit:
        return treebank.read_split(path)  # its errors are DataErrors naming file and line

    def length(self, example: Tree) -> int:
        return len(example.leaves())

    def inputs(self, split: treebank.TreeSplit) -> List[Sentence]:
        return split.input_sentences  # the trees' words, with the tags data.eval_tags chose

    def bad_example(self, split: treebank.TreeSplit, error: Exception) -> str:
        return treebank.locate_bad_tree(split, error)

    def write_predictions(self, path: Path, split: treebank.TreeSplit, predictions: Sequence[Tree]) -> None:
        write_trees(path, predictions)

    def score(self, split: treebank.TreeSplit, predictions: Sequence[Tree], config: Any) -> EvalOutcome:
        """evalb (strict) with ``data.evalb_params``; tagging accuracy when the leaves' tags may differ from gold."""
        outcome = self._evalb(split, predictions, config)
        scores = outcome.scores
        scores.scorer = f"evalb {Path(config.data.evalb_params).name}"
        return EvalOutcome(scores, outcome.report)

    def sentence_counts(self, split: treebank.TreeSplit, predictions: Sequence[Tree],
                        config: Any) -> Dict[str, List[Tuple[int, int, int]]]:
        """(matched, gold, test) brackets per sentence from the same evalb call as :meth:`score` (every metric)."""
        rows = self._evalb(split, predictions, config).result.sentence_counts()
        return {"f1": rows, "lr": rows, "lp": rows}

    def _evalb(self, split: treebank.TreeSplit, predictions: Sequence[Tree], config: Any):  # type: ignore[no-untyped-def]
        with_tags = config.span.predict_tags or split.input_tags is not None
        return score_parses(split.trees[: len(predictions)], predictions, config.data.evalb_params,
                            predicted_tags=with_tags)

    def check_scorable(self, split: treebank.TreeSplit, config: Any, name: str) -> None:
        try:
            check_params(config.data.evalb_params)
            check_scorable(split, config.data.evalb_params, name)
        except (EvaluationError, DataError) as error:
            raise DataError(str(error)) from None
