"""Dependency parsing: prepared CoNLL-U splits, scored with ``depeval`` (the CoNLL 2018 evaluation).

Examples are :class:`~mlparse.trees.dependency.DependencySentence` objects (multiword tokens and
empty nodes kept for writing, skipped for parsing).  A prediction file is the gold file with HEAD
and DEPREL replaced, every other byte as read.  The main metric is LAS: the CoNLL 2018 shared
task's (punctuation included) or, with ``eval.dependency_scoring: ptb``, the Penn Treebank
convention of Li et al. and Mrini et al. (words whose gold XPOS is punctuation left out).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, List, Sequence

from depeval import DepevalError, evaluate_text, format_report
from mlparse.results import SplitScores
from mlparse.tasks.base import DataError, EvalOutcome, Split, Task
from mlparse.trees.dependency import (ConlluDocument, ConlluError, DependencyPrediction, DependencySentence,
                                      format_sentence, read_conllu, tree_problem, write_conllu)


def _percent(value: float) -> float:
    return round(100.0 * value, 4)


class DependencyTask(Task):
    name = "dependency"
    suffix = ".conllu"
    report_suffix = ".depeval"
    metric = "las"
    metric_label = "LAS"

    def read_split(self, path: Path) -> Split[DependencySentence]:
        path = Path(path)
        if not path.is_file():
            raise DataError(f"prepared split not found: {path}" + (" (it is a folder)" if path.is_dir() else ""))
        try:
            document = read_conllu(path)
        except ConlluError as error:
            raise DataError(str(error)) from None
        except OSError as error:
            raise DataError(f"{path}: cannot read ({error.strerror or error})") from None
        if not document.sentences:
            raise DataError(f"{path}: no sentences (an empty split file; prepare the data again)")
        for sentence in document.sentences:
            problem = tree_problem(sentence)
            if problem is not None:
                raise DataError(f"{path}:{sentence.line}: {problem} (`mlparse prepare` leaves such sentences out)")
        return Split(path, list(document.sentences), [s.line for s in document.sentences], document=document)

    def length(self, example: DependencySentence) -> int:
        return len(example.words)

    def inputs(self, split: Split[DependencySentence]) -> List[DependencySentence]:
        """The sentences, with the predicted tags of ``split.input_tags`` in their ``input_tag_column`` when set
        (jack-knifed tags, ``data.tags``); scoring always reads the file's own columns (``split.examples``)."""
        if split.input_tags is None:
            return list(split.examples)
        column = split.input_tag_column
        return [replace(s, **{column: tuple(tags)}) for s, tags in zip(split.examples, split.input_tags)]

    def write_predictions(self, path: Path, split: Split[DependencySentence],
                          predictions: Sequence[DependencyPrediction]) -> None:
        document = split.document
        if not (isinstance(document, ConlluDocument) and len(document.sentences) == len(split.examples)):
            document = _separated(split)  # a subset of the file's sentences
        write_conllu(path, document, predictions)

    def score(self, split: Split[DependencySentence], predictions: Sequence[DependencyPrediction],
              config: Any) -> EvalOutcome:
        examples = split.examples[: len(predictions)]  # dev checks may score the first eval.max_sentences
        gold = _text(examples)
        system = _text(examples, predictions)
        ptb = config.eval.dependency_scoring == "ptb"
        try:
            scores = evaluate_text(gold, system, ptb_punct="xpos" if ptb else None)
        except DepevalError as error:
            raise DataError(f"{split.path}: depeval refused the predictions: {error}") from None
        uas, las = (scores.ptb.uas, scores.ptb.las) if ptb and scores.ptb is not None else (scores.uas, scores.las)
        result = SplitScores(
            uas=_percent(uas.f1), las=_percent(las.f1), clas=_percent(scores.clas.f1),
            scorer=f"depeval {scores.scorer_version} ({config.eval.dependency_scoring})",
            sentences=len(examples))
        return EvalOutcome(result, format_report(scores, verbose=True))

    def check_scorable(self, split: Split[DependencySentence], config: Any, name: str) -> None:
        gold = [DependencyPrediction([int(h) for h in s.heads], list(s.deprels)) for s in split.examples]
        try:
            self.score(split, gold, config)
        except (DataError, ValueError) as error:
            raise DataError(f"{split.path}: depeval cannot score this {name} file even against itself: {error} "
                            "(checked before training, which has not started)") from None


def _text(sentences: Sequence[DependencySentence], predictions: Sequence[DependencyPrediction] | None = None) -> str:
    """The sentences as one CoNLL-U text, each block followed by a blank line."""
    parts: List[str] = []
    for k, sentence in enumerate(sentences):
        block = format_sentence(sentence, predictions[k] if predictions is not None else None)
        parts.append(block if block.endswith("\n") else block + "\n")
        parts.append("\n")
    return "".join(parts)


def _separated(split: Split[DependencySentence]) -> ConlluDocument:
    """The split's sentences as a document of their own, each followed by a blank line."""
    gaps = ("",) + ("\n",) * len(split.examples)
    return ConlluDocument(str(split.path), tuple(split.examples), gaps)
