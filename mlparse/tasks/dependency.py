"""Dependency parsing: prepared CoNLL-U splits, scored with ``depeval`` (the CoNLL 2018 evaluation).

Examples are :class:`~mlparse.trees.dependency.DependencySentence` objects (multiword tokens and
empty nodes kept for writing, skipped for parsing).  A prediction file is the gold file with HEAD
and DEPREL replaced, every other byte as read.  The main metric is LAS: the CoNLL 2018 shared
task's (punctuation included) or, with ``eval.dependency_scoring: ptb``, the Penn Treebank
convention of Li et al. and Mrini et al. (words whose gold tag marks punctuation left out, the tags
being the treebank's: :mod:`mlparse.tasks.dependency_protocol`).  CLAS, MLAS and BLEX are recorded only
when the gold relations are UD relations.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from depeval import (PTB_PUNCT_TAGS, DepevalError, evaluate_sentences, evaluate_text, format_report,
                     read_conllu as read_depeval)
from mlparse.results import SplitScores
from mlparse.tasks.base import DataError, EvalOutcome, Split, Task
from mlparse.tasks.dependency_protocol import CONTENT_METRICS, dependency_protocol
from mlparse.trees.dependency import (ConlluDocument, ConlluError, DependencyPrediction, DependencySentence,
                                      format_sentence, parse_conllu, read_conllu, tree_problem, write_conllu)


def sentence_from_words(words: Sequence[str], tags: Optional[Sequence[str]], tag_column: str = "upos") -> DependencySentence:
    """A CoNLL-U sentence of ``words`` (their ``tags`` in ``tag_column``: upos or xpos; ``_`` without tags)."""
    lines = []
    for number, word in enumerate(words, start=1):
        tag = tags[number - 1] if tags is not None else "_"
        upos, xpos = (tag, "_") if tag_column == "upos" else ("_", tag)
        lines.append(f"{number}\t{word}\t_\t{upos}\t{xpos}\t_\t_\t_\t_\t_\n")
    return parse_conllu("".join(lines), "<input>").sentences[0]


def render_conllu(example: DependencySentence, prediction: Any, output: str) -> Any:
    """``prediction`` itself, or (``conllu``) the ``conllu.TokenList`` of ``example`` with it filled in."""
    if output == "prediction":
        return prediction
    import conllu

    return conllu.parse(format_sentence(example, prediction))[0]


def _percent(value: float) -> float:
    return round(100.0 * value, 4)


def _figures(scores: Any, metrics: Sequence[str]) -> str:
    """``UAS 91.20  LAS 89.10 ...`` for the metrics that were scored: CLAS is None on data whose relations are not
    UD's (:mod:`mlparse.tasks.dependency_protocol`), and a metric that does not apply is left out, never 0."""
    return "  ".join(f"{name.upper()} {value:.2f}" for name in metrics
                     if (value := getattr(scores, name, None)) is not None)


class DependencyTask(Task):
    name = "dependency"
    suffix = ".conllu"
    report_suffix = ".depeval"
    metric = "las"
    metric_label = "LAS"
    outputs = ("conllu", "prediction")
    card_metrics = ("las", "uas", "clas")
    card_usage = 'sentence = parser.parse(["The", "dog", "barks", "."])   # a conllu TokenList'
    scorer = "depeval"
    leaderboard_metrics = ("uas", "las")
    has_dependency_convention = True
    compared = True
    parse_output = "conllu"

    @classmethod
    def scorer_line(cls, scores: SplitScores) -> str:
        """UAS, LAS and CLAS, in depeval's order; CLAS only where it was scored (over UD relations)."""
        return _figures(scores, ("uas", "las", "clas"))

    @classmethod
    def summary(cls, scores: Any) -> str:
        tags = f"  tags {scores.tagging_accuracy:.2f}" if scores.tagging_accuracy is not None else ""  # a tagging head's
        return f"{_figures(scores, ('las', 'uas', 'clas'))}{tags}  ({scores.sentences} sentences; {scores.scorer})"

    def example_from_words(self, words: Sequence[str], tags: Optional[Sequence[str]],
                           tag_column: str = "upos") -> DependencySentence:
        return sentence_from_words(words, tags, tag_column)

    def render(self, example: Any, prediction: Any, output: str) -> Any:
        return render_conllu(example, prediction, output)

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
        """UAS/LAS under ``eval.dependency_scoring`` (PTB: the data's punctuation left out, see
        :mod:`mlparse.tasks.dependency_protocol`); CLAS, MLAS and BLEX only when the gold relations are UD's."""
        examples = split.examples[: len(predictions)]  # dev checks may score the first eval.max_sentences
        gold = _text(examples)
        system = _text(examples, predictions)
        protocol = dependency_protocol(config, (r for sentence in examples for r in sentence.deprels))
        ptb = protocol.convention == "ptb"
        try:
            scores = evaluate_text(gold, system, ptb_punct=protocol.punct_column if ptb else None,
                                   punct_tags=tuple(protocol.punct_tags or ()) or PTB_PUNCT_TAGS)
        except DepevalError as error:
            raise DataError(f"{split.path}: depeval refused the predictions: {error}") from None
        uas, las = (scores.ptb.uas, scores.ptb.las) if ptb and scores.ptb is not None else (scores.uas, scores.las)
        content = {name: (_percent(getattr(scores, name).f1) if protocol.ud_relations else None)
                   for name in CONTENT_METRICS}
        tagged = predicted_tag_column(predictions)  # a tagging head's tags: depeval's UPOS or XPOS (gold words)
        result = SplitScores(
            uas=_percent(uas.f1), las=_percent(las.f1), **content,
            tagging_accuracy=_percent(getattr(scores, tagged).f1) if tagged is not None else None,
            scorer=f"depeval {scores.scorer_version} ({protocol.convention})",
            sentences=len(examples))
        report = format_report(scores, verbose=True)
        if not protocol.ud_relations:
            report += f"Note: {protocol.absent_reason}.\n"
        return EvalOutcome(result, report, protocol=protocol.to_json_dict())

    def sentence_counts(self, split: Split[DependencySentence], predictions: Sequence[DependencyPrediction],
                        config: Any) -> Dict[str, List[Tuple[int, int, int]]]:
        """(correct, gold_total, system_total) per sentence of UAS, LAS (under ``eval.dependency_scoring``), CLAS,
        MLAS and BLEX (UD relations only), from depeval's own hits (:func:`depeval.sentence_counts`) on the texts
        :meth:`score` scores."""
        examples = split.examples[: len(predictions)]
        protocol = dependency_protocol(config, (r for sentence in examples for r in sentence.deprels))
        ptb = protocol.convention == "ptb"
        try:
            counts = evaluate_sentences(read_depeval(_text(examples), "<gold>"),
                                        read_depeval(_text(examples, predictions), "<system>"),
                                        ptb_punct=protocol.punct_column if ptb else None,
                                        punct_tags=tuple(protocol.punct_tags or ()) or PTB_PUNCT_TAGS)
        except DepevalError as error:
            raise DataError(f"{split.path}: depeval refused the predictions: {error}") from None
        result = {"uas": counts.counts["UAS"], "las": counts.counts["LAS"]}
        if protocol.ud_relations:  # CLAS, MLAS and BLEX mean something only over UD relations (as in score)
            result.update({name: counts.counts[name.upper()] for name in CONTENT_METRICS})
        return result

    def check_scorable(self, split: Split[DependencySentence], config: Any, name: str) -> None:
        gold = [DependencyPrediction([int(h) for h in s.heads], list(s.deprels)) for s in split.examples]
        try:
            self.score(split, gold, config)
        except (DataError, ValueError) as error:
            raise DataError(f"{split.path}: depeval cannot score this {name} file even against itself: {error} "
                            "(checked before training, which has not started)") from None


def predicted_tag_column(predictions: Sequence[DependencyPrediction]) -> Optional[str]:
    """The column (``upos``, ``xpos``) whose tags the predictions carry (a parser with a tagging head), else None."""
    for column in ("upos", "xpos"):
        if predictions and all(getattr(p, column) is not None for p in predictions):
            return column
    return None


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
