"""Each aligned word's attachment as the scorer counts it: the per-word view behind UAS and LAS.

:func:`word_hits` walks the same alignment and applies the same tests as
:func:`depeval.metrics.compute_metrics` (CoNLL 2018: the system head aligned to the gold head or
both roots; LAS also the DEPREL's universal part) or, with ``ptb_punct``, as
:func:`depeval.ptb.ptb_scores` (punctuation by gold tag left out, the whole DEPREL compared).
Summed over the words, the hits are the metrics' correct counts (a test checks).
"""

from __future__ import annotations

from dataclasses import dataclass

from .align import Alignment
from .conllu import DEPREL, ROOT, UNIVERSAL_DEPREL, Treebank
from .ptb import PTB_PUNCT_TAGS, TAG_COLUMNS


@dataclass(frozen=True, slots=True)
class WordHit:
    """One aligned word pair: gold and system word indices, head right (UAS), head and relation right (LAS)."""

    gold: int
    system: int
    head: bool
    label: bool


def kept_words(bank: Treebank, ptb_punct: str | None, punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS) -> list[bool]:
    """Which words the convention scores: all (CoNLL 2018), or those whose tag is not punctuation."""
    if ptb_punct is None:
        return [True] * bank.n_words
    column = TAG_COLUMNS[ptb_punct.lower()]
    punct = frozenset(punct_tags)
    return [columns[column] not in punct for columns in bank.columns]


def word_hits(gold: Treebank, system: Treebank, alignment: Alignment, *, ptb_punct: str | None = None,
              punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS) -> list[WordHit]:
    """The scored aligned words, in order (words the PTB convention leaves out are not listed)."""
    keep = kept_words(gold, ptb_punct, punct_tags)
    relation = UNIVERSAL_DEPREL if ptb_punct is None else DEPREL
    system_to_gold = alignment.system_to_gold
    hits = []
    for g, s in zip(alignment.gold, alignment.system):
        if not keep[g]:
            continue
        parent = system.parents[s]
        head = gold.parents[g] == (ROOT if parent == ROOT else system_to_gold[parent])
        label = head and gold.columns[g][relation] == system.columns[s][relation]
        hits.append(WordHit(g, s, head, label))
    return hits
