"""Per-sentence sufficient statistics of UAS, LAS, CLAS, MLAS and BLEX: what paired significance tests resample.

Every word is given to the gold sentence its token starts in (the texts are equal, so the
character offsets are shared; a system file may even split sentences differently).  For each
gold sentence and metric the counts are ``(correct, gold_total, system_total)``; the columns sum
to the corpus :class:`~depeval.results.Metric` counts exactly, and
:func:`~depeval.results.ratios` of any resampled totals is the score the scorer would give.

The hits come from the scorer's own functions (:func:`depeval.metrics.attachment_hits`,
:func:`depeval.metrics.content_hits`, :func:`depeval.ptb.ptb_attachment_hits`): no second implementation
of a metric.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from .align import Alignment, align_words, check_same_text
from .conllu import CONTENT_DEPRELS, UNIVERSAL_DEPREL, Treebank
from .metrics import attachment_hits, content_hits
from .ptb import PTB_PUNCT_TAGS, ptb_attachment_hits, ptb_kept

#: The metrics with per-sentence counts, by the names the script prints.
SENTENCE_METRICS = ("UAS", "LAS", "CLAS", "MLAS", "BLEX")


@dataclass(frozen=True)
class SentenceCounts:
    """Counts per gold sentence: ``counts[metric][i] == (correct, gold_total, system_total)`` of sentence ``i``.

    ``convention`` is ``conll18`` or ``ptb-punct-xpos`` / ``ptb-punct-upos`` (UAS and LAS then follow the
    PTB convention, as :attr:`depeval.results.Scores.ptb` does; CLAS, MLAS and BLEX stay the CoNLL 2018 ones).
    ``lines[i]`` is the 1-based line where gold sentence ``i`` starts.
    """

    counts: dict[str, list[tuple[int, int, int]]]
    lines: list[int]
    convention: str = "conll18"

    def totals(self, metric: str) -> tuple[int, int, int]:
        """Column sums of one metric: the corpus counts."""
        rows = self.counts[metric]
        return (sum(r[0] for r in rows), sum(r[1] for r in rows), sum(r[2] for r in rows))


def _sentence_of(bank: Treebank, gold: Treebank) -> list[int]:
    """The gold sentence each word of ``bank`` starts in (by character offset)."""
    starts = gold.sentence_starts
    return [max(bisect_right(starts, start) - 1, 0) for start in bank.starts]


def _tally(n: int, gold_sentence: list[int], system_sentence: list[int], alignment: Alignment,
           hits: list[bool], gold_counted: list[bool], system_counted: list[bool],
           aligned_counted: list[bool]) -> list[tuple[int, int, int]]:
    correct, gold_total, system_total = [0] * n, [0] * n, [0] * n
    for word, counted in enumerate(gold_counted):
        if counted:
            gold_total[gold_sentence[word]] += 1
    for word, counted in enumerate(system_counted):
        if counted:
            system_total[system_sentence[word]] += 1
    for g, hit, counted in zip(alignment.gold, hits, aligned_counted):
        if hit and counted:
            correct[gold_sentence[g]] += 1
    return list(zip(correct, gold_total, system_total))


def sentence_counts(gold: Treebank, system: Treebank, alignment: Alignment, *, ptb_punct: str | None = None,
                    punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS) -> SentenceCounts:
    """UAS, LAS, CLAS, MLAS and BLEX counts per gold sentence (see the module text)."""
    n = len(gold.sentence_starts)
    gold_sentence, system_sentence = _sentence_of(gold, gold), _sentence_of(system, gold)
    heads, labels = attachment_hits(gold, system, alignment)
    every_gold, every_system = [True] * gold.n_words, [True] * system.n_words
    every_aligned = [True] * len(alignment.gold)
    gold_content = [c[UNIVERSAL_DEPREL] in CONTENT_DEPRELS for c in gold.columns]
    system_content = [c[UNIVERSAL_DEPREL] in CONTENT_DEPRELS for c in system.columns]
    aligned_content = [gold_content[g] for g in alignment.gold]
    mlas, blex = content_hits(gold, system, alignment, labels)
    counts = {
        "UAS": _tally(n, gold_sentence, system_sentence, alignment, heads, every_gold, every_system, every_aligned),
        "LAS": _tally(n, gold_sentence, system_sentence, alignment, labels, every_gold, every_system, every_aligned),
        "CLAS": _tally(n, gold_sentence, system_sentence, alignment, labels, gold_content, system_content,
                       aligned_content),
        "MLAS": _tally(n, gold_sentence, system_sentence, alignment, mlas, gold_content, system_content,
                       aligned_content),
        "BLEX": _tally(n, gold_sentence, system_sentence, alignment, blex, gold_content, system_content,
                       aligned_content),
    }
    convention = "conll18"
    if ptb_punct:
        gold_kept, system_kept = ptb_kept(gold, system, alignment, ptb_punct, punct_tags)
        kept, ptb_heads, ptb_labels = ptb_attachment_hits(gold, system, alignment, gold_kept)
        counts["UAS"] = _tally(n, gold_sentence, system_sentence, alignment, ptb_heads, gold_kept, system_kept, kept)
        counts["LAS"] = _tally(n, gold_sentence, system_sentence, alignment, ptb_labels, gold_kept, system_kept, kept)
        convention = f"ptb-punct-{ptb_punct.lower()}"
    return SentenceCounts(counts, list(gold.sentence_lines), convention)


def evaluate_sentences(gold: Treebank, system: Treebank, *, ptb_punct: str | None = None,
                       punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS) -> SentenceCounts:
    """:func:`sentence_counts` after the scorer's own checks and alignment (as :func:`depeval.evaluate`)."""
    check_same_text(gold, system)
    return sentence_counts(gold, system, align_words(gold, system), ptb_punct=ptb_punct, punct_tags=punct_tags)
