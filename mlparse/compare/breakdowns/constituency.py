"""Constituency breakdowns from evalb's bracket view: per label, by sentence length, by span length.

Every count comes from :func:`evalb.sentence_brackets`, i.e. the scorer's own deletions
(``DELETE_LABEL``), label cuts and ``EQ_LABEL`` matching: the rows of each table add up to the
corpus's matched, gold and test brackets.  A gold bracket counts in its own label's recall, a test
bracket in its own label's precision (under ``EQ_LABEL`` a matched pair may carry two labels).
"""

from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalb import SentenceBrackets

from .tables import Table

#: Sentence-length buckets (the report's Len column): inclusive bounds, None = no upper bound.
SENTENCE_BUCKETS: Tuple[Tuple[int, int | None], ...] = ((1, 10), (11, 20), (21, 30), (31, 40), (41, None))
#: Span-length buckets, in kept words.
SPAN_BUCKETS: Tuple[Tuple[int, int | None], ...] = ((1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 20), (21, 40), (41, None))

PRF = ["precision", "recall", "f1", "gold", "test"]


def bucket_name(bounds: Tuple[int, int | None]) -> str:
    low, high = bounds
    if high is None:
        return f"over {low - 1}"
    return str(low) if low == high else f"{low}-{high}"


def bucket_of(value: int, buckets: Sequence[Tuple[int, int | None]]) -> str:
    for low, high in buckets:
        if value >= low and (high is None or value <= high):
            return bucket_name((low, high))
    return bucket_name(buckets[0]) if value < buckets[0][0] else bucket_name(buckets[-1])


def _bucket_table(name: str, title: str, buckets) -> Table:  # type: ignore[no-untyped-def]
    table = Table(name, title, list(PRF))
    for bounds in buckets:
        table.row(bucket_name(bounds))
    return table


def label_table(sentences: Iterable[SentenceBrackets]) -> Table:
    """Per-label precision, recall and F1, labels by gold frequency (then name)."""
    table = Table("labels", "Per label", list(PRF))
    for sentence in sentences:
        for b in sentence.gold:
            row = table.row(b.label)
            row.gold += 1
            row.matched += b.matched
        for b in sentence.test:
            table.row(b.label).test += 1
    table.rows.sort(key=lambda r: (-r.gold, -r.test, r.key))
    return table


def sentence_length_table(sentences: Iterable[SentenceBrackets]) -> Table:
    """F1 by sentence length (evalb's Len: words not in DELETE_LABEL_FOR_LENGTH)."""
    table = _bucket_table("sentence_length", "By sentence length", SENTENCE_BUCKETS)
    for sentence in sentences:
        row = table.row(bucket_of(sentence.length, SENTENCE_BUCKETS))
        row.matched += sentence.matched
        row.gold += len(sentence.gold)
        row.test += len(sentence.test)
        row.extra["sentences"] = row.extra.get("sentences", 0) + 1
    table.columns.append("sentences")
    return table


def span_length_table(sentences: Iterable[SentenceBrackets]) -> Table:
    """Recall by gold span length, precision by test span length (kept words)."""
    table = _bucket_table("span_length", "By span length (words)", SPAN_BUCKETS)
    for sentence in sentences:
        for b in sentence.gold:
            row = table.row(bucket_of(b.end - b.start, SPAN_BUCKETS))
            row.gold += 1
            row.matched += b.matched
        for b in sentence.test:
            table.row(bucket_of(b.end - b.start, SPAN_BUCKETS)).test += 1
    return table


def constituency_tables(sentences: List[SentenceBrackets]) -> List[Table]:
    """The three count tables (the error classes come from :mod:`.error_classes`)."""
    scored = [s for s in sentences if not s.emptied]
    return [label_table(scored), sentence_length_table(scored), span_length_table(scored)]
