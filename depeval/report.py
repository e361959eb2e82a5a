"""The text the CoNLL 2018 script prints, and the report of the PTB convention.

Without options the script prints three lines (LAS, MLAS and BLEX F1); with
``-v`` a table of every metric (precision, recall, F1 and, for metrics computed
on aligned words, aligned accuracy), with ``-c`` (which wins over ``-v``) the
table of raw counts.  All figures are 100 times the fractions, with 2 decimals.
"""

from __future__ import annotations

from .results import METRIC_NAMES, Metric, PtbScores, Scores

RATIO_HEADER = "Metric     | Precision |    Recall |  F1 Score | AligndAcc"
COUNTS_HEADER = "Metric     | Correct   |      Gold | Predicted | Aligned"
RULE = "-----------+-----------+-----------+-----------+-----------"


def _ratio_row(name: str, metric: Metric) -> str:
    accuracy = "" if metric.aligned_accuracy is None else f"{100 * metric.aligned_accuracy:10.2f}"
    return f"{name:11}|{100 * metric.precision:10.2f} |{100 * metric.recall:10.2f} |{100 * metric.f1:10.2f} |{accuracy}"


def _counts_row(name: str, metric: Metric) -> str:
    # The script prints the aligned count, or for Words the correct count, or nothing (also for 0).
    aligned: int | str = metric.aligned_total or (metric.correct if name == "Words" else "")
    return f"{name:11}|{metric.correct:10} |{metric.gold_total:10} |{metric.system_total:10} |{aligned:10}"


def _table(rows: list[tuple[str, Metric]], counts: bool) -> list[str]:
    lines = [COUNTS_HEADER if counts else RATIO_HEADER, RULE]
    lines += [(_counts_row if counts else _ratio_row)(name, metric) for name, metric in rows]
    return lines


def conll18_lines(scores: Scores, verbose: bool = False, counts: bool = False) -> list[str]:
    """The lines the CoNLL 2018 script prints for these scores (without line ends)."""
    if not verbose and not counts:
        return [
            f"LAS F1 Score: {100 * scores.las.f1:.2f}",
            f"MLAS Score: {100 * scores.mlas.f1:.2f}",
            f"BLEX Score: {100 * scores.blex.f1:.2f}",
        ]
    return _table([(name, scores.metric(name)) for name in METRIC_NAMES], counts)


def describe_convention(ptb: PtbScores) -> str:
    """The first line of a PTB-convention report: what was left out, and that this is not CoNLL 2018."""
    tags = " ".join(ptb.punct_tags)
    return f"Convention: PTB, punctuation excluded (gold {ptb.column} in {tags}); not the CoNLL 2018 scoring"


def ptb_lines(ptb: PtbScores, verbose: bool = False, counts: bool = False) -> list[str]:
    """The report of the PTB convention: UAS and LAS F1, or their table with ``verbose`` / ``counts``."""
    lines = [describe_convention(ptb)]
    if not verbose and not counts:
        return lines + [f"UAS F1 Score: {100 * ptb.uas.f1:.2f}", f"LAS F1 Score: {100 * ptb.las.f1:.2f}"]
    lines.append(f"Words left out as punctuation: {ptb.gold_punct} gold, {ptb.system_punct} system")
    return lines + _table([("UAS", ptb.uas), ("LAS", ptb.las)], counts)


def format_report(scores: Scores, verbose: bool = False, counts: bool = False) -> str:
    """What ``depeval`` prints: the CoNLL 2018 script's output, or the PTB report when ``scores.ptb`` is set.

    Every line ends with ``\\n``; without ``ptb`` the text is byte for byte the script's.
    """
    lines = ptb_lines(scores.ptb, verbose, counts) if scores.ptb is not None else conll18_lines(scores, verbose, counts)
    return "".join(line + "\n" for line in lines)
