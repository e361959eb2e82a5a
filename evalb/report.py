"""The report text, byte for byte as the original programs print it."""

from __future__ import annotations

import math
import os

from .parse import ParsedTree
from .results import Row, SummaryBlock

HEADER = (
    b"  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
    b" ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
    b"============================================================================\n"
)
RULE = b"============================================================================\n"

_SENTENCE = b"%4d  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f\n"


def c_float(value: float, spec: bytes = b"%6.2f") -> bytes:
    """printf of a double; the 0/0 F-measure is a negative NaN on x86, printed ``-nan``."""
    if math.isnan(value):
        width = spec[1:].split(b".")[0]
        return b"%*s" % (int(width) if width else 0, b"-nan")
    return spec % value


def format_sentence(row: Row) -> bytes:
    """One row of the per-sentence table, from an engine row tuple."""
    line, length, status, m, g, t, crossing, w, correct = row
    return _SENTENCE % (
        line,
        length,
        status,
        0.0 if g == 0 else 100.0 * m / g,
        0.0 if t == 0 else 100.0 * m / t,
        m,
        g,
        t,
        crossing,
        w,
        correct,
        0.0 if w == 0 else 100.0 * correct / w,
    )


def format_sentences(rows: list[Row], use_fast: bool = True) -> bytes:
    """All rows; the compiled formatter (C printf itself) when available."""
    if use_fast and not os.environ.get("EVALB_PURE_PYTHON"):
        try:
            from ._fast_report import format_rows
        except ImportError:
            pass
        else:
            return format_rows(rows)
    return b"".join(map(format_sentence, rows))


def format_totals(total: SummaryBlock) -> bytes:
    """The line under the table (brackets only when both totals are non-zero)."""
    out = b""
    if total.gold_brackets > 0 and total.test_brackets > 0:
        out += b"                %6.2f %6.2f %6d %5d %5d  %5d" % (
            total.recall,
            total.precision,
            total.matched_brackets,
            total.gold_brackets,
            total.test_brackets,
            total.crossing,
        )
    out += b"  %5d %5d   %6.2f\n" % (total.words, total.correct_tags, total.tagging_accuracy)
    return out


def format_block(title: bytes, s: SummaryBlock) -> bytes:
    """A summary block: a title line and twelve ``name = value`` lines."""
    lines = [
        b"\n" + title + b"\n",
        b"Number of sentence        = %6d\n" % s.sentences,
        b"Number of Error sentence  = %6d\n" % s.error_sentences,
        b"Number of Skip  sentence  = %6d\n" % s.skip_sentences,
        b"Number of Valid sentence  = %6d\n" % s.valid_sentences,
        b"Bracketing Recall         = %6.2f\n" % s.recall,
        b"Bracketing Precision      = %6.2f\n" % s.precision,
        b"Bracketing FMeasure       = " + c_float(s.fmeasure) + b"\n",
        b"Complete match            = %6.2f\n" % s.complete_match,
        b"Average crossing          = %6.2f\n" % s.average_crossing,
        b"No crossing               = %6.2f\n" % s.no_crossing,
        b"2 or less crossing        = %6.2f\n" % s.two_or_less_crossing,
        b"Tagging accuracy          = %6.2f\n" % s.tagging_accuracy,
    ]
    return b"".join(lines)


def format_summary(every: SummaryBlock, short: SummaryBlock, cutoff_len: int, title: bytes = b"=== Summary ===") -> bytes:
    """Everything after the per-sentence rows: rule, totals line, both blocks."""
    return (
        RULE
        + format_totals(every)
        + title
        + b"\n"
        + format_block(b"-- All --", every)
        + format_block(b"-- len<=%d --" % cutoff_len, short)
    )


def format_compact(s: SummaryBlock, test_name: bytes) -> bytes:
    """evalb_spmrl ``-L``/``-l`` line.  As in the original, "Prec" shows recall and "Rec" precision."""
    return (
        b"F1: " + c_float(s.fmeasure) + b" %%\tPrec: %6.2f %%\tRec: %6.2f %%\t" % (s.recall, s.precision)
        + b"POS: %6.2f %%\tEX: %6.2f %%\tUnparsed: %6d\tSent: %6d\tfile: %s\n"
        % (s.tagging_accuracy, s.complete_match, s.skip_sentences + s.error_sentences, s.sentences, test_name)
    )


def format_status_file(s: SummaryBlock) -> bytes:
    """The ``status`` file evalb_spmrl writes in the current directory."""
    f = s.fmeasure
    return (
        b"---\nF1: " + c_float(f, b"%.2f") + b"\n"
        + b"LP: %.2f\nLR: %.2f\nPOS: %.2f\n" % (s.precision, s.recall, s.tagging_accuracy)
        + b"errorRate: " + c_float(100 - f, b"%.2f") + b"\n"
    )


def format_debug(gold: ParsedTree, test: ParsedTree) -> bytes:
    """``dsp_info``: the terminals and brackets of both trees (``-d``/``-D``)."""
    out = [b"-<1>---(wn1=%3d, bn1=%3d)-           -<2>---(wn2=%3d, bn2=%3d)-\n" % (len(gold.words), len(gold.brackets), len(test.words), len(test.brackets))]
    for i in range(max(len(gold.words), len(test.words))):
        if i < len(gold.words) and gold.words[i]:
            res = gold.results[i] if i < len(gold.results) else 9
            out.append(b"%3d : %d : %-6s  %-16s      " % (i, res, gold.tags[i], gold.words[i]))
        else:
            out.append(b" " * 40)
        if i < len(test.words) and test.words[i]:
            res = test.results[i] if i < len(test.results) else 9
            out.append(b"%3d : %d : %-6s  %-16s\n" % (i, res, test.tags[i], test.words[i]))
        else:
            out.append(b"\n")
    out.append(b"\n")
    for i in range(max(len(gold.brackets), len(test.brackets))):
        if i < len(gold.brackets):
            b = gold.brackets[i]
            out.append(b"%3d : %d : %3d  %3d  %-6s      " % (i, b.result, b.start, b.end, b.label))
        else:
            out.append(b" " * 32)
        if i < len(test.brackets):
            b = test.brackets[i]
            out.append(b"%3d : %d : %3d  %3d  %-6s\n" % (i, b.result, b.start, b.end, b.label))
        else:
            out.append(b"\n")
    out.append(b"\n========\n")
    return b"".join(out)
