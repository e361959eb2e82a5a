"""One run's breakdown: read its predictions and the gold file, call the scorers' per-item views, fill the tables."""

from __future__ import annotations

from typing import Callable, Optional

from .inputs import InputError, RunInputs, sha256_of
from .tables import Breakdown, SideBySide

Progress = Callable[[int, int], None]  # (done, total) sentences


def _constituency(inputs: RunInputs, breakdown: Breakdown, progress: Optional[Progress]) -> None:
    from evalb import equivalent_label, load_params

    from mlparse.tasks.evalb_scoring import EvaluationError, scored_brackets
    from mlparse.trees.reader import read_bracketed_file
    from mlparse.trees.errors import TreeReadError

    from .constituency import constituency_tables
    from .error_classes import error_class_table, repair_sentence

    try:
        gold = [t.to_bracketed() for t in read_bracketed_file(inputs.gold).trees]
        pred = [t.to_bracketed() for t in read_bracketed_file(inputs.pred).trees]
    except (TreeReadError, OSError, UnicodeDecodeError) as error:
        raise InputError(str(error)) from None
    if len(gold) != len(pred):
        raise InputError(f"{inputs.pred}: {len(pred)} trees, but the gold file {inputs.gold} has {len(gold)}")
    try:
        sentences = scored_brackets(gold, pred, inputs.evalb_params)
    except EvaluationError as error:
        raise InputError(f"{inputs.pred} against {inputs.gold}: {error}") from None
    breakdown.sentences = len(sentences)
    breakdown.tables.extend(constituency_tables(sentences))
    equivalent = equivalent_label(load_params(inputs.evalb_params))
    repaired = []
    for index, sentence in enumerate(sentences):
        if not sentence.emptied:
            repaired.append(repair_sentence(sentence, equivalent))
        if progress is not None:
            progress(index + 1, len(sentences))
    breakdown.tables.append(error_class_table(repaired))


def _dependency(inputs: RunInputs, breakdown: Breakdown) -> None:
    import depeval

    from .dependency import dependency_tables

    try:
        gold = depeval.read_file(inputs.gold)
        system = depeval.read_file(inputs.pred)
        breakdown.tables.extend(dependency_tables(gold, system, ptb_punct=inputs.ptb_punct,
                                                        punct_tags=inputs.punct_tags))
    except depeval.DepevalError as error:
        raise InputError(located(error)) from None
    except OSError as error:
        raise InputError(f"{error.filename}: {error.strerror}") from None
    breakdown.sentences = len(gold.sentence_starts)
    if inputs.ptb_punct:
        breakdown.notes.append(f"PTB convention: punctuation ({' '.join(inputs.punct_tags)} in gold "
                               f"{inputs.ptb_punct.upper()}) left out, relations compared whole")


def located(error) -> str:  # type: ignore[no-untyped-def]
    """depeval's message on one line, after the file and line it names: the predictions' (``FILE:LINE: ...``)
    where gold and predictions disagree, with gold's place at the end; ``FILE: at the end: ...`` for an error at
    the end of a file."""
    def where(source: str, line: Optional[int]) -> str:
        return f"{source}:{line}" if line is not None else f"{source}: at the end"

    message = "; ".join(part.strip() for part in error.message.splitlines() if part.strip())
    if error.system_source is not None:
        return f"{where(error.system_source, error.system_line)}: {message} (gold: {where(error.source, error.line)})"
    return f"{where(error.source, error.line)}: {message}" if error.source is not None else message


def breakdown_of(inputs: RunInputs, split: str, progress: Optional[Progress] = None) -> Breakdown:
    """Every table of one run (constituency: labels, lengths, error classes; dependency: the five tables)."""
    breakdown = Breakdown(str(inputs.run), inputs.system, inputs.task, split, str(inputs.gold), str(inputs.pred), 0)
    from mlparse.tasks import task_class

    if task_class(inputs.task).scorer == "evalb":
        _constituency(inputs, breakdown, progress)
    else:
        _dependency(inputs, breakdown)
    return breakdown


def side_by_side(a: RunInputs, b: RunInputs, split: str, progress: Optional[Progress] = None) -> SideBySide:
    """Two runs on the same gold file (same sha256) and task, each broken down."""
    if a.task != b.task:
        raise InputError(f"{a.run} is a {a.task} run and {b.run} a {b.task} run: nothing to put side by side")
    if sha256_of(a.gold) != sha256_of(b.gold):
        raise InputError(f"the runs were scored on different gold files: {a.gold} and {b.gold} (sha256 differ)")
    return SideBySide(breakdown_of(a, split, progress), breakdown_of(b, split, progress))
