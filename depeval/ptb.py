"""UAS and LAS without punctuation, the convention of PTB dependency parsing papers.

Not part of the CoNLL 2018 script.  Li et al. (2019) and Mrini et al. (2020),
following Dozat & Manning (2017), score Penn Treebank dependency conversions
leaving out every word whose gold part-of-speech tag is one of
:data:`PTB_PUNCT_TAGS`.  Computed here on the CoNLL 2018 reading and word
alignment (so the same input checks apply):

* a gold word is left out when its tag (XPOS, or UPOS when asked) is exactly one
  of the tags;
* an aligned system word is left out with its gold word; an unaligned system
  word is left out by its own tag;
* UAS counts the kept aligned words whose system head is aligned to the gold head
  (or both are roots); LAS also needs the whole DEPREL to be equal, subtypes
  included (the convention compares labels as they are written);
* precision, recall and F1 divide by the kept system words, the kept gold words
  and both, as the CoNLL 2018 metrics do; aligned accuracy by the kept aligned
  words.  With identical tokenization (the usual case) all four are the
  attachment accuracy over the non-punctuation words.
"""

from __future__ import annotations

from .align import Alignment
from .conllu import DEPREL, ROOT, UPOS, XPOS, Treebank
from .results import Metric, PtbScores

#: Gold tags marking punctuation in the PTB convention.
PTB_PUNCT_TAGS = ("``", "''", ":", ",", ".")

#: Which gold column the tags are read from.
TAG_COLUMNS = {"xpos": XPOS, "upos": UPOS}


def parse_punct_tags(values: "list[str] | tuple[str, ...]") -> tuple[str, ...]:
    """Punctuation tags from command-line values, each a tag or a comma-separated list (``PU``,
    ``PUNCT,SYM``); a value that is exactly ``,`` is the comma tag itself.  Order kept, repeats dropped.

    Raises ValueError when no tag is left (``--punct-tags ""``)."""
    tags: list[str] = []
    for value in values:
        items = [value] if value == "," else [item.strip() for item in value.split(",")]
        for item in items:
            if item and item not in tags:
                tags.append(item)
    if not tags:
        raise ValueError("no punctuation tag given (--punct-tags takes TAG or TAG,TAG,...)")
    return tuple(tags)


def ptb_scores(
    gold: Treebank,
    system: Treebank,
    alignment: Alignment,
    column: str = "xpos",
    punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS,
) -> PtbScores:
    """UAS and LAS over the words whose gold ``column`` tag is not in ``punct_tags`` (see the module text)."""
    gold_kept, system_kept = ptb_kept(gold, system, alignment, column, punct_tags)
    kept, heads, labels = ptb_attachment_hits(gold, system, alignment, gold_kept)
    n_gold, n_system = sum(gold_kept), sum(system_kept)
    return PtbScores(
        column=column.upper(),
        punct_tags=tuple(punct_tags),
        gold_punct=len(gold_kept) - n_gold,
        system_punct=len(system_kept) - n_system,
        uas=Metric.of(sum(heads), n_gold, n_system, sum(kept)),
        las=Metric.of(sum(labels), n_gold, n_system, sum(kept)),
    )


def ptb_kept(gold: Treebank, system: Treebank, alignment: Alignment, column: str = "xpos",
             punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS) -> tuple[list[bool], list[bool]]:
    """Which gold and which system words the convention keeps (see the module text)."""
    if column.lower() not in TAG_COLUMNS:
        raise ValueError(f"the punctuation tags come from xpos or upos, not {column!r}")
    tag = TAG_COLUMNS[column.lower()]
    punct = frozenset(punct_tags)
    gold_kept = [columns[tag] not in punct for columns in gold.columns]
    system_kept = [columns[tag] not in punct for columns in system.columns]
    for g, s in zip(alignment.gold, alignment.system):
        system_kept[s] = gold_kept[g]
    return gold_kept, system_kept


def ptb_attachment_hits(gold: Treebank, system: Treebank, alignment: Alignment,
                        gold_kept: list[bool]) -> tuple[list[bool], list[bool], list[bool]]:
    """Per aligned pair ``k``: kept (its gold word is not punctuation), head right, head and whole DEPREL
    right (False for pairs not kept).  :func:`ptb_scores` sums them; :mod:`depeval.sentences` sums them per
    sentence."""
    system_to_gold = alignment.system_to_gold
    kept: list[bool] = []
    heads: list[bool] = []
    labels: list[bool] = []
    for g, s in zip(alignment.gold, alignment.system):
        keep = gold_kept[g]
        head_ok = label_ok = False
        if keep:
            parent = system.parents[s]
            head_ok = gold.parents[g] == (ROOT if parent == ROOT else system_to_gold[parent])
            label_ok = head_ok and gold.columns[g][DEPREL] == system.columns[s][DEPREL]
        kept.append(keep)
        heads.append(head_ok)
        labels.append(label_ok)
    return kept, heads, labels
