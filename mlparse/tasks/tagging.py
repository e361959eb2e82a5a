"""Part-of-speech tagging: the words and tags of prepared splits, scored by tag accuracy.

A tagger (``model.kind: tagger``) reads the same prepared files as the parsers: ``.trees`` (the
preterminals, ``tagger.column: pos``) or ``.conllu`` (``upos`` or ``xpos``).  Examples are
:class:`TaggedSentence` (words and every tag column the file has); predictions are lists of tags,
written as tag lines (``<split>.pred.tags``: line k holds the tags of sentence k, separated by
spaces, the format :mod:`mlparse.train.tag_files` reads).  The main metric is tag accuracy
(``SplitScores.tagging_accuracy``, percent of words).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mlparse.io_utils import atomic_write_text
from mlparse.results import SplitScores
from mlparse.tasks.base import DataError, EvalOutcome, Split, Task

#: The tag columns of each prepared format.
TREE_COLUMNS = ("pos",)
CONLLU_COLUMNS = ("upos", "xpos")


@dataclass(frozen=True)
class TaggedSentence:
    """The words of one sentence and its tag columns (``pos`` for trees; ``upos`` and ``xpos`` for CoNLL-U),
    each a tuple as long as ``words``."""

    words: Tuple[str, ...]
    columns: Dict[str, Tuple[str, ...]]

    def tags(self, column: str) -> Tuple[str, ...]:
        """The tags of ``column``; ``ValueError`` naming the columns this data has when it has no such column."""
        if column not in self.columns:
            raise ValueError(f"tagger.column {column} is not in this data (it has {', '.join(self.columns)}); "
                             f"{'pos reads .trees files' if column == 'pos' else 'upos and xpos read .conllu files'}")
        return self.columns[column]


def tagged_sentences(path: Path) -> Split[TaggedSentence]:
    """The words and tags of a prepared ``.trees`` or ``.conllu`` file (by its suffix), with their lines."""
    path = Path(path)
    if path.suffix == ".trees":
        from mlparse.tasks.constituency import ConstituencyTask

        trees = ConstituencyTask().read_split(path)
        examples = [TaggedSentence(tuple(t.words()), {"pos": tuple(t.tags())}) for t in trees.trees]
        return Split(path, examples, trees.lines)
    from mlparse.tasks.dependency import DependencyTask

    deps = DependencyTask().read_split(path)
    examples = [TaggedSentence(tuple(s.words), {"upos": tuple(s.upos), "xpos": tuple(s.xpos)}) for s in deps.examples]
    return Split(path, examples, deps.lines)


def tag_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> Tuple[int, int]:
    """(correct, total) words of ``predicted`` against ``gold``, sentence by sentence (equal lengths required)."""
    correct = total = 0
    for k, (g, p) in enumerate(zip(gold, predicted)):
        if len(g) != len(p):
            raise ValueError(f"sentence {k + 1}: {len(p)} predicted tags for {len(g)} words")
        correct += sum(1 for a, b in zip(g, p) if a == b)
        total += len(g)
    return correct, total


class TaggingTask(Task):
    name = "tagging"
    suffix = ".tags"
    report_suffix = ".tagacc"
    metric = "tagging_accuracy"
    metric_label = "tag accuracy"
    outputs = ("conllu", "prediction")
    card_metrics = ("tagging_accuracy",)
    card_usage = 'sentence = parser.parse(["The", "dog", "barks", "."])   # a conllu TokenList with the tags'
    scorer = "tagacc"
    parse_output = "tags"

    def example_from_words(self, words: Sequence[str], tags: Optional[Sequence[str]], tag_column: str = "upos") -> Any:
        from mlparse.tasks.dependency import sentence_from_words

        return sentence_from_words(words, tags, tag_column)

    def render(self, example: Any, prediction: Any, output: str) -> Any:
        """The tags (``prediction``), or (``conllu``) a ``conllu.TokenList`` of the words with the tags in the
        UPOS column (a UPOS tagger) or the XPOS column (an XPOS or tree-POS tagger), no heads."""
        if output == "prediction":
            return list(prediction)
        import conllu

        lines = []
        for number, (word, tag) in enumerate(zip(example.words, prediction), start=1):
            upos, xpos = (tag, "_") if self.column == "upos" else ("_", tag)
            lines.append(f"{number}\t{word}\t_\t{upos}\t{xpos}\t_\t_\t_\t_\t_")
        return conllu.parse("\n".join(lines) + "\n\n")[0]

    def __init__(self, column: str = "upos") -> None:
        self.column = column

    @classmethod
    def for_model(cls, parser: Any) -> "TaggingTask":
        """The tags of the tagger's own column."""
        return cls(parser.tagger_config.column)

    @classmethod
    def for_recipe(cls, config: Any = None) -> "TaggingTask":
        """The tags of ``tagger.column``."""
        return cls(config.tagger.column) if config is not None else cls()

    @property
    def prepared_suffix(self) -> str:
        """A tagger reads trees (column pos: their preterminals) or CoNLL-U (upos, xpos)."""
        return ".trees" if self.column == "pos" else ".conllu"

    def read_split(self, path: Path) -> Split[TaggedSentence]:
        split = tagged_sentences(path)
        if not split.examples:
            raise DataError(f"{path}: no sentences (an empty split file; prepare the data again)")
        for index, sentence in enumerate(split.examples):
            try:
                sentence.tags(self.column)
            except ValueError as error:
                raise DataError(f"{split.where(index)}: {error}") from None
        return split

    def length(self, example: TaggedSentence) -> int:
        return len(example.words)

    def write_predictions(self, path: Path, split: Split[TaggedSentence], predictions: Sequence[List[str]]) -> None:
        atomic_write_text(path, "".join(" ".join(tags) + "\n" for tags in predictions))

    def score(self, split: Split[TaggedSentence], predictions: Sequence[List[str]], config: Any) -> EvalOutcome:
        gold = [s.tags(self.column) for s in split.examples[: len(predictions)]]
        try:
            correct, total = tag_accuracy(gold, predictions)
        except ValueError as error:
            raise DataError(f"{split.path}: {error}") from None
        accuracy = round(100.0 * correct / max(1, total), 4)
        scores = SplitScores(tagging_accuracy=accuracy, scorer=f"tag accuracy ({self.column})", sentences=len(gold))
        report = (f"file: {split.path}\ncolumn: {self.column}\nsentences: {len(gold)}\nwords: {total}\n"
                  f"correct: {correct}\naccuracy: {accuracy:.2f}\n")
        return EvalOutcome(scores, report)

    def check_scorable(self, split: Split[TaggedSentence], config: Any, name: str) -> None:
        for index, sentence in enumerate(split.examples):
            if not sentence.words:
                raise DataError(f"{split.where(index)}: an empty sentence in the {name} file")
