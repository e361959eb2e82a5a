"""Joint constituency + dependency parsing: a prepared ``.trees`` split and the ``.conllu`` beside it.

``mlparse prepare`` writes ``<split>.conllu`` beside ``<split>.trees`` for treebanks with a head table
(the dependencies the head finder derives from each tree, or the treebank's own heads).  An example is
a :class:`~mlparse.trees.joint.JointExample`: the gold tree and the gold dependency sentence of the same words (checked
word by word when the split is read).  A parser reads the words and POS tags of the tree and predicts
a :class:`~mlparse.trees.joint.JointPrediction` (a tree and heads with relations).  Scores: evalb on the trees (main metric
F1, the constituency task's scoring) and depeval on the dependencies (UAS, LAS, the dependency task's
scoring, ``eval.dependency_scoring``), both in one :class:`SplitScores`.  Predictions are written as
``<split>.pred.trees`` and ``<split>.pred.conllu``; the reports as ``<split>.evalb`` and ``<split>.depeval``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, List, Optional, Sequence

from mlparse.tasks.base import DataError, EvalOutcome, Split
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.tasks.dependency import DependencyTask
from mlparse.tasks import treebank
from mlparse.trees.dependency import DependencySentence
from mlparse.trees.joint import JointExample, JointPrediction
from mlparse.trees.tree import Tree
from mlparse.trees.writer import write_trees

#: The dependency file of a split: the ``.trees`` file's name with this suffix.
DEPENDENCY_SUFFIX = ".conllu"


@dataclass
class JointSplit(treebank.TreeSplit):
    """A constituency split whose examples are :class:`JointExample` s (tree and dependency sentence), with the
    dependency split of the ``.conllu`` beside it (for writing predictions in its layout); its trees, lines and
    input tags are the constituency split's."""

    dependency_split: Optional[Split[DependencySentence]] = None  # as the dependency task read the .conllu

    @property
    def trees(self) -> List[Tree]:  # type: ignore[override]
        return [example.tree for example in self.examples]  # type: ignore[attr-defined]

    @property
    def dependencies(self) -> List[DependencySentence]:
        """The gold dependency sentences, one per tree, in order."""
        return [example.dependencies for example in self.examples]  # type: ignore[attr-defined]

    def subset(self, keep: Sequence[int]) -> "JointSplit":
        assert self.dependency_split is not None
        base = treebank.TreeSplit.subset(self, keep)
        return replace(base, dependency_split=self.dependency_split.subset(keep))  # type: ignore[return-value]


def dependency_path(trees_path: Path) -> Path:
    """The ``.conllu`` beside a ``.trees`` file (``dev.trees`` -> ``dev.conllu``)."""
    return Path(trees_path).with_suffix(DEPENDENCY_SUFFIX)


class JointTask(ConstituencyTask):
    name = "joint"
    suffix = ".trees"
    report_suffix = ".evalb"
    writes_trees = True
    metric = "f1"
    metric_label = "F1"
    outputs = ("prediction", "tree", "nltk")  # the tree and the heads (JointPrediction), or the tree
    card_metrics = ("f1", "recall", "precision", "complete_match", "las", "uas")
    card_usage = 'both = parser.parse(["The", "dog", "barks", "."])   # .tree and .dependencies (heads, deprels)'
    scorer = "evalb"  # the main metric; its heads are scored by depeval too (``.depeval`` beside the predictions)
    scored_as = ("constituency", "dependency")  # its trees on the constituency board, its heads on the dependency one
    has_dependency_convention = True
    compared = False  # not yet: mlparse compare takes one view per run
    parse_output = "trees"

    @classmethod
    def summary(cls, scores: Any) -> str:
        return (f"F1 {scores.f1 or 0:.2f}  LP {scores.precision or 0:.2f}  LR {scores.recall or 0:.2f}  "
                f"complete match {scores.complete_match or 0:.2f}  LAS {scores.las or 0:.2f}  UAS {scores.uas or 0:.2f}  "
                f"({scores.sentences} sentences)")

    def render(self, example: Any, prediction: Any, output: str) -> Any:
        return prediction if output == "prediction" else prediction.tree

    def __init__(self) -> None:
        self.constituency = ConstituencyTask()
        self.dependency = DependencyTask()

    def gold_files(self, path: Path) -> List[Path]:
        return [Path(path), dependency_path(path)]

    def read_split(self, path: Path) -> JointSplit:
        trees = self.constituency.read_split(path)
        conllu = dependency_path(path)
        if not conllu.is_file():
            raise DataError(
                f"{conllu}: not found; a joint (span + dependency) parser reads the dependencies beside {Path(path).name}. "
                "Run `mlparse prepare` for this treebank again: it writes <split>.conllu beside <split>.trees for "
                "treebanks with a head table")
        deps = self.dependency.read_split(conllu)
        if len(deps.examples) != len(trees.trees):
            raise DataError(f"{conllu}: {len(deps.examples)} sentences, but {path} holds {len(trees.trees)} trees; "
                            "the two files were not prepared together (run `mlparse prepare` again)")
        for index, (tree, sentence) in enumerate(zip(trees.trees, deps.examples)):
            words = tree.words()
            if list(sentence.words) != list(words):
                first = next((k for k, (a, b) in enumerate(zip(words, sentence.words)) if a != b),
                             min(len(words), len(sentence.words)))
                mine = sentence.words[first] if first < len(sentence.words) else "(none)"
                theirs = words[first] if first < len(words) else "(none)"
                raise DataError(f"{conllu}:{sentence.line}: the words disagree with the tree at {trees.where(index)}: "
                                f"word {first + 1} is {mine!r} here but {theirs!r} in the tree "
                                f"({len(sentence.words)} words here, {len(words)} in the tree)")
        return JointSplit(trees.path, [JointExample(t, d) for t, d in zip(trees.trees, deps.examples)], trees.lines,
                          input_tags=trees.input_tags, dependency_split=deps)

    def length(self, example: Any) -> int:
        tree = example.tree if isinstance(example, JointExample) else example
        return len(tree.leaves())

    def write_predictions(self, path: Path, split: JointSplit, predictions: Sequence[JointPrediction]) -> None:
        """The trees at ``path`` (``dev.pred.trees``), the dependencies beside it (``dev.pred.conllu``)."""
        assert split.dependency_split is not None
        write_trees(path, [p.tree for p in predictions])
        self.dependency.write_predictions(Path(path).with_suffix(DEPENDENCY_SUFFIX), split.dependency_split,
                                          [p.dependencies for p in predictions])

    def score(self, split: JointSplit, predictions: Sequence[JointPrediction], config: Any) -> EvalOutcome:
        """evalb on the trees (F1, recall, precision, ...) and depeval on the dependencies (UAS, LAS, CLAS)."""
        assert split.dependency_split is not None
        trees = self.constituency.score(split, [p.tree for p in predictions], config)
        deps = self.dependency.score(split.dependency_split, [p.dependencies for p in predictions], config)
        scores = replace(trees.scores, uas=deps.scores.uas, las=deps.scores.las, clas=deps.scores.clas,
                         mlas=deps.scores.mlas, blex=deps.scores.blex,
                         scorer=f"{trees.scores.scorer} + {deps.scores.scorer}")
        return EvalOutcome(scores, trees.report, extra_reports={self.dependency.report_suffix: deps.report},
                           protocol=deps.protocol)

    def check_scorable(self, split: JointSplit, config: Any, name: str) -> None:
        assert split.dependency_split is not None
        self.constituency.check_scorable(split, config, name)
        self.dependency.check_scorable(split.dependency_split, config, name)
