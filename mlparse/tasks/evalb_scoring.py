"""The one place where mlparse calls the evalb port: gold vs predicted trees → scores and report text
(the constituency task's scorer, :class:`~mlparse.tasks.base.EvalOutcome` with the evalb result).

Scoring is strict: a sentence that evalb would exclude (word or length
mismatch, unparseable line) is an error with a clear message, never silently
dropped from the score.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence, Tuple, Union

from mlparse.results import SplitScores
from mlparse.tasks.base import EvalOutcome
from mlparse.trees.tree import Tree

if TYPE_CHECKING:
    from evalb.api import EvalbStrictError
    from mlparse.tasks.treebank import TreeSplit


class EvaluationError(ValueError):
    """evalb refused sentences in strict mode."""


def _nan_to_none(value: float) -> Union[float, None]:
    return None if value != value else round(float(value), 4)


def check_params(params: str) -> None:
    """Fail now, not after training, when the evalb parameter file cannot be read."""
    from evalb.params import BUILTIN_PARAMS, load_params

    try:
        load_params(params)
    except (OSError, ValueError):
        raise EvaluationError(f"data.evalb_params: cannot read the evalb parameter file {params!r}: it is neither a "
                              f"file nor one shipped with evalb ({', '.join(BUILTIN_PARAMS)})") from None


def check_scorable(split: "TreeSplit", params: str, name: str) -> None:
    """Fail now, not at the first dev check, when evalb cannot score ``split`` (its gold trees against themselves).

    Gold against gold, in strict mode with ``params``: a sentence evalb refuses is an
    :class:`EvaluationError` naming its file and line; so is a split in which evalb finds
    no bracket at all (every sentence emptied by the parameter file's deletions, or without
    brackets), whose F1 would be undefined at every check.  ``name`` is ``dev`` or ``test``.
    Sentences whose every word the parameter file deletes (``(TOP (. .))`` under
    COLLINS.prm) are fine: evalb skips them, as the original program does.
    """
    from evalb.api import EvalbError, EvalbStrictError, score_trees as evalb_score

    check_params(params)
    lines = [tree.to_bracketed() for tree in split.trees]
    try:
        result = evalb_score(lines, lines, params, spmrl=Path(params).name.startswith("spmrl"), strict=True)
    except EvalbStrictError as error:
        line, reason = _first_refusal(error)
        where = split.where(line - 1) if 1 <= line <= len(lines) else str(split.path)
        more = f" ({len(error.problems) - 1} more sentence(s) of this file too)" if len(error.problems) > 1 else ""
        raise EvaluationError(f"{where}: evalb ({params}) cannot score this {name} sentence even against itself: "
                              f"{reason}{more} (checked before training, which has not started)") from None
    except EvalbError as error:
        raise EvaluationError(f"{split.path}: evalb ({params}) cannot score the {name} split: {error}") from None
    if result.all.gold_brackets == 0:
        emptied = (f"; {len(result.emptied)} of them have no word left after the parameter file's deletions "
                   f"(first: {split.where(result.emptied[0] - 1)})") if result.emptied else ""
        raise EvaluationError(f"{split.path}: evalb ({params}) finds no bracket to score in any of the {len(lines)} "
                              f"{name} sentence(s){emptied}, so its F1 would be undefined (checked before training, "
                              "which has not started)")


def _first_refusal(error: "EvalbStrictError") -> Tuple[int, str]:
    """(1-based sentence, reason) of the first sentence evalb refused; 0 when it names none.

    A line evalb cannot read at all (``Reading sentence``) stops it before the sentence is
    listed among the problems; its error line (``"2 : More than two elements ..."``) names it.
    """
    if error.problems:
        return error.problems[0].line, error.problems[0].message
    for text in error.result.errors:
        number, _, message = text.partition(" : ")
        if number.strip().isdigit():
            return int(number), message.strip()
    return 0, "more errors than MAX_ERROR"


def score_lines(gold_lines: Sequence[str], test_lines: Sequence[str], params: str, with_tags: bool = False) -> EvalOutcome:
    """Score bracketed lines with the evalb port in strict mode.

    ``params``: a parameter file shipped in evalb/params (``COLLINS.prm``, ``spmrl.prm``, ...) or a path;
    the SPMRL parameter files select the evalb_spmrl program.
    """
    from evalb.api import EvalbError, score_trees as evalb_score

    spmrl = Path(params).name.startswith("spmrl")
    check_params(params)
    try:
        result = evalb_score(list(gold_lines), list(test_lines), params, spmrl=spmrl, strict=True)
    except EvalbError as error:
        raise EvaluationError(str(error)) from None
    every = result.all
    report = report_text(result)
    scores = SplitScores(
        recall=_nan_to_none(every.recall), precision=_nan_to_none(every.precision), f1=_nan_to_none(every.fmeasure),
        complete_match=_nan_to_none(every.complete_match),
        tagging_accuracy=_nan_to_none(every.tagging_accuracy) if with_tags else None,
        sentences=every.sentences, error_sentences=every.error_sentences, skip_sentences=every.skip_sentences,
    )
    if scores.f1 is None:
        scores.f1 = 0.0
    return EvalOutcome(scores=scores, report=report, result=result)


def report_text(result: object) -> str:
    """The evalb port's report (header, per-sentence rows, summary) for an ``EvalbResult``."""
    from evalb.api import format_report

    return format_report(result).decode("utf-8", "replace")  # type: ignore[arg-type]


def score_trees(gold: Sequence[Tree], predicted: Sequence[Tree], params: str, with_tags: bool = False) -> EvalOutcome:
    """evalb (strict) on two lists of trees; ``with_tags`` reports evalb's tagging accuracy."""
    if len(gold) != len(predicted):
        raise EvaluationError(f"{len(gold)} gold trees but {len(predicted)} predicted trees")
    return score_lines([t.to_bracketed() for t in gold], [t.to_bracketed() for t in predicted], params, with_tags)


def retagged(tree: Tree, tags: Sequence[str]) -> Tree:
    """A copy of ``tree`` whose leaves carry ``tags`` (same words, same brackets)."""
    copy = tree.copy()
    leaves = copy.leaves()
    if len(leaves) != len(tags):
        raise EvaluationError(f"{len(tags)} tags for a tree of {len(leaves)} words: {tree.to_bracketed()[:120]}")
    for leaf, tag in zip(leaves, tags):
        leaf.tag = tag
    return copy


def score_parses(gold: Sequence[Tree], predicted: Sequence[Tree], params: str, predicted_tags: bool = False) -> EvalOutcome:
    """Bracket scores of parses against gold trees.

    Parses normally carry the gold POS tags already.  When the tags were predicted (tagging
    head), brackets are scored on copies that carry the gold tags (so that evalb's
    tag-based punctuation deletion cannot make a sentence mismatch), and the tagging
    accuracy over all words is computed here from the predicted tags.
    """
    if not predicted_tags:
        return score_trees(gold, predicted, params)
    if len(gold) != len(predicted):
        raise EvaluationError(f"{len(gold)} gold trees but {len(predicted)} predicted trees")
    correct = total = 0
    scored = []
    for g, p in zip(gold, predicted):
        gold_tags, pred_tags = g.tags(), p.tags()
        correct += sum(a == b for a, b in zip(gold_tags, pred_tags))
        total += len(gold_tags)
        scored.append(retagged(p, gold_tags))
    outcome = score_trees(gold, scored, params)
    outcome.scores.tagging_accuracy = round(100.0 * correct / total, 4) if total else None
    return outcome


def scored_brackets(gold_lines: Sequence[str], test_lines: Sequence[str], params: str) -> list:
    """Each sentence's brackets as evalb counts them (``evalb.SentenceBrackets``: kept brackets, cut labels,
    matched or not), for error analyses; the parameter file as in :func:`score_lines`.  A sentence evalb would
    exclude is an :class:`EvaluationError` naming its line."""
    from evalb import BracketError, sentence_brackets

    check_params(params)
    try:
        return list(sentence_brackets(list(gold_lines), list(test_lines), params,
                                      spmrl=Path(params).name.startswith("spmrl")))
    except BracketError as error:
        raise EvaluationError(f"evalb would exclude a sentence: {error}") from None
