"""The task interface: reading a prepared split into examples, writing predictions, scoring them.

A task knows its data and its metric, never a model: ``constituency`` reads ``.trees`` files and
scores with the evalb port (main metric F1); ``dependency`` reads ``.conllu`` files and scores with
``depeval`` (main metric LAS).  The trainer selects checkpoints on :attr:`Task.metric`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Dict, Generic, List, Optional, Sequence, Tuple, TypeVar

from mlparse.results import SplitScores

Example = TypeVar("Example")


class DataError(ValueError):
    """A problem with prepared data, with a message meant for the user (file and line)."""


@dataclass
class Split(Generic[Example]):
    """One prepared split of any task: its examples and where each starts in the file.

    The one split type: the constituency task's (:class:`mlparse.tasks.treebank.TreeSplit`, whose
    examples are trees) and the joint task's add views of their examples, not other data.
    """

    path: Path
    examples: List[Example]
    lines: Optional[List[int]] = None  # 1-based line where each example starts in ``path``
    document: Any = None  # what the task needs to write predictions back in the file's layout (CoNLL-U)
    input_tags: Optional[List[List[str]]] = None  # predicted tags the parser reads instead of the file's (data.tags)
    input_tag_column: str = "upos"  # the column those tags replace

    #: What an example is called in :meth:`where` when the split has no line numbers.
    unit: ClassVar[str] = "sentence"

    def where(self, index: int) -> str:
        """``path:line`` of example ``index`` (for messages)."""
        if self.lines is not None and index < len(self.lines):
            return f"{self.path}:{self.lines[index]}"
        return f"{self.path} ({self.unit} {index + 1})"

    def subset(self, keep: Sequence[int]) -> "Split[Example]":
        """The examples at ``keep``, their lines and input tags with them, as a split of the same type; a subset
        has no whole document."""
        lines = [self.lines[k] for k in keep] if self.lines is not None else None
        tags = [self.input_tags[k] for k in keep] if self.input_tags is not None else None
        return replace(self, examples=[self.examples[k] for k in keep], lines=lines, document=None, input_tags=tags)


@dataclass
class EvalOutcome:
    """Scores of one split and the scorer's report text (what goes into ``<split>.<report_suffix>``)."""

    scores: SplitScores
    report: str
    extra_reports: Dict[str, str] = field(default_factory=dict)  # suffix -> report of a second scorer (joint: .depeval)
    # dependency scoring: how UAS/LAS were counted and which metrics exist (DependencyProtocol.to_json_dict())
    protocol: Optional[Dict[str, Any]] = None
    result: Any = None  # the evalb port's EvalbResult when evalb scored (per-sentence rows: EvalbResult.sentence_counts)


class Task:
    """Base class of the tasks; see the module docstring."""

    name: ClassVar[str] = ""
    suffix: ClassVar[str] = ""  # prepared and predicted files: train<suffix>, dev.pred<suffix>
    report_suffix: ClassVar[str] = ""  # the scorer's report beside the predictions
    metric: ClassVar[str] = ""  # the SplitScores field checkpoints are selected on
    metric_label: ClassVar[str] = ""  # how people write it: F1, LAS
    writes_trees: ClassVar[bool] = False  # predictions are bracketed trees (their preterminals carry tags)
    #: What the Python API gives for a parse (``LoadedParser.parse(output=...)``), the default first; ``nltk``
    #: is :meth:`render`'s ``tree`` as an ``nltk.Tree``.
    outputs: ClassVar[Tuple[str, ...]] = ()
    #: The scores a model package's card shows, and its line of Python that parses a sentence.
    card_metrics: ClassVar[Tuple[str, ...]] = ()
    card_usage: ClassVar[str] = ""
    #: The scorer of the main metric: ``evalb`` (labelled brackets), ``depeval`` (heads and relations, CoNLL 2018)
    #: or ``tagacc`` (tag accuracy).  ``mlparse compare``, ``mlparse score`` and the breakdowns read predictions and
    #: choose their tables by it.
    scorer: ClassVar[str] = ""
    #: The tasks whose leaderboards show this task's scores, the main one first; empty: the task itself
    #: (:meth:`views`).  The joint task's trees are scored as ``constituency`` and its heads as ``dependency``.
    scored_as: ClassVar[Tuple[str, ...]] = ()
    #: Its scores count heads and relations under a dependency scoring convention (``eval.dependency_scoring``:
    #: conll18 or ptb), which the report records and names in the leaderboard's title.
    has_dependency_convention: ClassVar[bool] = False
    #: ``mlparse compare``, ``mlparse score`` and the breakdowns take its runs: one view, scored by ``evalb`` or
    #: ``depeval``, whose per-sentence counts they resample.
    compared: ClassVar[bool] = False
    #: What ``mlparse parse`` writes and the spaCy component sets: ``trees`` (bracketed trees; spaCy:
    #: ``Doc._.mlparse_parse``), ``conllu`` (heads and relations; spaCy: ``Token.head`` and ``Token.dep_``), or
    #: empty: no text output of its own.
    parse_output: ClassVar[str] = ""
    #: The metrics the report's leaderboards of this task show, one table each (:meth:`board_metrics`); empty: the
    #: main :attr:`metric`.
    leaderboard_metrics: ClassVar[Tuple[str, ...]] = ()

    @classmethod
    def for_recipe(cls, config: Any = None) -> "Task":
        """This task for the recipe ``config`` (None: its defaults). Default: the task takes no settings."""
        return cls()

    @classmethod
    def for_model(cls, parser: Any) -> "Task":
        """This task for a trained ``parser`` of it (its text input and output in the Python API and
        ``mlparse parse``). Default: the task takes no settings."""
        return cls()

    @property
    def prepared_suffix(self) -> str:
        """The suffix of the prepared files this task reads (``train<prepared_suffix>``). Default: :attr:`suffix`."""
        return self.suffix

    def read_split(self, path: Path) -> Split[Any]:
        raise NotImplementedError

    def gold_files(self, path: Path) -> List[Path]:
        """Every file :meth:`read_split` reads for the split at ``path`` (a run records their sha256 checksums, so
        that a gold file changed later is noticed). Default: ``path`` alone."""
        return [Path(path)]

    def length(self, example: Any) -> int:
        """Number of words of an example."""
        raise NotImplementedError

    def inputs(self, split: Any) -> List[Any]:
        """What a parser reads for each example of ``split`` (the examples themselves, or their words and the
        tags the recipe gives on dev and test)."""
        return list(split.examples)

    def bad_example(self, split: Any, error: Exception) -> str:
        """A message naming the example of ``split`` a parser could not be built from or learn (``error``)."""
        return f"{split.path}: {error}"

    def write_predictions(self, path: Path, split: Split[Any], predictions: Sequence[Any]) -> None:
        raise NotImplementedError

    def example_from_words(self, words: Sequence[str], tags: Optional[Sequence[str]], tag_column: str = "upos") -> Any:
        """The example a parser reads for a sentence given as words (and their tags, or None; ``tag_column``: which
        column the tags fill in CoNLL-U), as the Python API takes sentences."""
        raise NotImplementedError(f"the {self.name} task takes no sentences given as words")

    def render(self, example: Any, prediction: Any, output: str) -> Any:
        """``prediction`` of ``example`` as :attr:`outputs` names it (``tree``: the tree the API turns into ``nltk``)."""
        raise NotImplementedError(f"the {self.name} task has no output {output!r}")

    def score(self, split: Any, predictions: Sequence[Any], config: Any) -> EvalOutcome:
        """Scores of ``predictions`` against the first ``len(predictions)`` examples of the gold ``split``
        (all of them, or the first ``eval.max_sentences`` at dev checks); ``config`` is the recipe."""
        raise NotImplementedError

    def sentence_counts(self, split: Any, predictions: Sequence[Any], config: Any) -> Dict[str, List[Tuple[int, int, int]]]:
        """Per-sentence sufficient statistics of :meth:`score`, by metric (``f1``, ``lr``, ``lp``; ``uas``, ``las``,
        ``clas``), taken from the scorer itself (``mlparse compare`` resamples them)."""
        raise NotImplementedError(f"the {self.name} task has no per-sentence statistics")

    def check_scorable(self, split: Any, config: Any, name: str) -> None:
        """Raise :class:`DataError` now, before training, if ``split`` (``dev`` or ``test``: ``name``) cannot be
        scored against itself."""
        raise NotImplementedError

    @classmethod
    def summary(cls, scores: SplitScores) -> str:
        """One line of a split's scores (``mlparse run`` prints it for dev and test). Default: the main metric."""
        value = getattr(scores, cls.metric, None)
        return f"{cls.metric_label or cls.metric} {value or 0:.2f}  ({scores.sentences} sentences; {scores.scorer})"

    @classmethod
    def views(cls) -> Tuple[str, ...]:
        """The tasks whose leaderboards show this task's scores (:attr:`scored_as`, else the task itself)."""
        return cls.scored_as or (cls.name,)

    @classmethod
    def board_metrics(cls) -> Tuple[str, ...]:
        """The metrics of this task's leaderboards (:attr:`leaderboard_metrics`, else the main metric)."""
        return cls.leaderboard_metrics or (cls.metric,)

    @classmethod
    def scorer_line(cls, scores: SplitScores) -> str:
        """The scorer's own figures, as ``mlparse score`` prints them. Default: the main metric."""
        return f"{cls.metric_label or cls.metric} {getattr(scores, cls.metric, None) or 0:.2f}"

    def main_score(self, scores: SplitScores) -> float:
        value = getattr(scores, self.metric)
        return float(value) if value is not None else 0.0
