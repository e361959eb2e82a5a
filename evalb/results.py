"""Result dataclasses: one line of the per-sentence table, a summary block, a whole run."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

#: Sentence status codes, as printed in the ``Stat.`` column.
STATUS_OK = 0
STATUS_ERROR = 1
STATUS_SKIP = 2
STATUS_UNPARSED = 3  # evalb_spmrl -X: empty test tree counted against recall


#: A per-sentence row as the engine stores it:
#: (line, length, status, matched, gold_brackets, test_brackets, crossing, words, correct_tags).
Row = tuple


@dataclass(slots=True)
class SentenceResult:
    """One row of the per-sentence table (a row of zeros for errors and skips)."""

    line: int
    length: int
    status: int
    matched: int
    gold_brackets: int
    test_brackets: int
    crossing: int
    words: int
    correct_tags: int

    @classmethod
    def from_row(cls, row: Row) -> "SentenceResult":
        return cls(*row)

    def to_row(self) -> Row:
        """The engine's row tuple (the inverse of :meth:`from_row`)."""
        return (
            self.line, self.length, self.status, self.matched, self.gold_brackets,
            self.test_brackets, self.crossing, self.words, self.correct_tags,
        )

    @property
    def recall(self) -> float:
        return 0.0 if self.gold_brackets == 0 else 100.0 * self.matched / self.gold_brackets

    @property
    def precision(self) -> float:
        return 0.0 if self.test_brackets == 0 else 100.0 * self.matched / self.test_brackets

    @property
    def tag_accuracy(self) -> float:
        return 0.0 if self.words == 0 else 100.0 * self.correct_tags / self.words


def _ratio(num, den, scale: float = 100.0):
    """``scale * num / den``, 0.0 when ``den`` is 0.  Elementwise on NumPy arrays too (then every
    ``den`` must be positive): resampling tests recompute the totals' scores through this."""
    if getattr(den, "ndim", 0) == 0 and not den > 0:
        return 0.0
    return scale * num / den


def bracket_scores(matched, gold, test):
    """(recall, precision, F-measure) in percent from bracket counts, as the summary prints them.

    The one formula of the port: :class:`SummaryBlock` and the per-sentence resampling of
    ``mlparse compare`` (which passes NumPy arrays of totals) both call it.  The F-measure is
    ``2PR/(P+R)``, NaN when P and R are both zero (the original prints ``-nan``).
    """
    recall = _ratio(matched, gold)
    precision = _ratio(matched, test)
    total = precision + recall
    if getattr(total, "ndim", 0) == 0 and total == 0:
        return recall, precision, float("nan")
    return recall, precision, 2 * precision * recall / total


@dataclass(slots=True)
class SummaryBlock:
    """Totals over a set of sentences (``-- All --`` or ``-- len<=N --``); scores are percentages."""

    sentences: int = 0
    error_sentences: int = 0
    skip_sentences: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    matched_brackets: int = 0
    complete_match_sentences: int = 0
    words: int = 0
    correct_tags: int = 0
    crossing: int = 0
    no_crossing_sentences: int = 0
    two_or_less_crossing_sentences: int = 0

    @property
    def valid_sentences(self) -> int:
        return self.sentences - self.error_sentences - self.skip_sentences

    @property
    def recall(self) -> float:
        return bracket_scores(self.matched_brackets, self.gold_brackets, self.test_brackets)[0]

    @property
    def precision(self) -> float:
        return bracket_scores(self.matched_brackets, self.gold_brackets, self.test_brackets)[1]

    @property
    def fmeasure(self) -> float:
        """``2PR/(P+R)``; NaN when P and R are both zero (the original prints ``-nan``)."""
        return bracket_scores(self.matched_brackets, self.gold_brackets, self.test_brackets)[2]

    @property
    def complete_match(self) -> float:
        return _ratio(self.complete_match_sentences, self.valid_sentences)

    @property
    def average_crossing(self) -> float:
        return _ratio(self.crossing, self.valid_sentences, 1.0)

    @property
    def no_crossing(self) -> float:
        return _ratio(self.no_crossing_sentences, self.valid_sentences)

    @property
    def two_or_less_crossing(self) -> float:
        return _ratio(self.two_or_less_crossing_sentences, self.valid_sentences)

    @property
    def tagging_accuracy(self) -> float:
        return _ratio(self.correct_tags, self.words)


@dataclass(slots=True)
class Problem:
    """A sentence (or line-count) problem that the original program silently excludes from totals.

    ``kind`` is one of ``skip``, ``length``, ``words``, ``malformed``, ``line-count``.
    """

    line: int
    kind: str
    message: str
    gold_words: list[str] = field(default_factory=list)
    test_words: list[str] = field(default_factory=list)

    def describe(self) -> str:
        text = f"line {self.line}: {self.message}"
        if self.kind in ("length", "words", "skip", "malformed"):
            text += f"\n    gold ({len(self.gold_words)} words): {' '.join(self.gold_words)}"
            text += f"\n    test ({len(self.test_words)} words): {' '.join(self.test_words)}"
        return text


@dataclass
class EvalbResult:
    """A whole run: per-sentence rows (in line order), both summary blocks, error lines, problems."""

    sentences: list[SentenceResult]
    all: SummaryBlock
    cutoff: SummaryBlock
    cutoff_len: int
    errors: list[str]
    problems: list[Problem]
    aborted: bool = False
    spmrl: bool = False
    #: lines skipped (status 2, as in the original) because DELETE_LABEL removed every word of both
    #: trees, which had the same words (``(TOP (. .))`` under COLLINS.prm); strict mode accepts them
    emptied: list[int] = field(default_factory=list)

    def sentence_counts(self) -> list[tuple[int, int, int]]:
        """(matched, gold, test) brackets of every sentence row, in line order, after the parameter
        file's deletions: the counts the ``-- All --`` block sums (rows of errors and skips are zeros).

        ``sum`` of each column equals ``all.matched_brackets``, ``all.gold_brackets`` and
        ``all.test_brackets``; :func:`bracket_scores` of any resampled totals is the score the
        port would print for that resample.
        """
        return [(0, 0, 0) if r.status in (STATUS_ERROR, STATUS_SKIP) else (r.matched, r.gold_brackets, r.test_brackets)
                for r in self.sentences]

    @property
    def fmeasure(self) -> float:
        return self.all.fmeasure

    @property
    def recall(self) -> float:
        return self.all.recall

    @property
    def precision(self) -> float:
        return self.all.precision


def _summarize_python(rows: list[Row], cutoff_len: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Totals per block in SummaryBlock field order (the fallback of ``_fast.summarize_rows``)."""
    acc = [[0] * 12, [0] * 12]
    for _line, length, status, matched, gold, test, crossing, words, correct in rows:
        for block in (acc[0], acc[1]) if length <= cutoff_len else (acc[0],):
            block[0] += 1
            if status == 1:
                block[1] += 1
            elif status == 2:
                block[2] += 1
            else:
                block[3] += gold
                block[4] += test
                block[5] += matched
                if gold == test == matched:
                    block[6] += 1
                block[7] += words
                block[8] += correct
                block[9] += crossing
                if crossing == 0:
                    block[10] += 1
                if crossing <= 2:
                    block[11] += 1
    return tuple(acc[0]), tuple(acc[1])


def summarize(rows: list[Row], cutoff_len: int, use_fast: bool = True) -> tuple[SummaryBlock, SummaryBlock]:
    """Both summary blocks; a sentence enters the cutoff block when its gold length <= cutoff."""
    fast = None
    if use_fast and not os.environ.get("EVALB_PURE_PYTHON"):
        try:
            from ._fast_report import summarize_rows as fast
        except ImportError:
            fast = None
    every, short = (fast or _summarize_python)(rows, cutoff_len)
    return SummaryBlock(*every), SummaryBlock(*short)
