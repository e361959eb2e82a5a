"""The CoNLL 2018 metrics from two treebanks and their word alignment.

* Tokens, Sentences: spans of the text that are equal in both files.
* Words: aligned words (precision over system words, recall over gold words).
* On aligned words: UPOS, XPOS, UFeats (universal features), AllTags (all three),
  Lemmas (a gold lemma ``_`` matches anything), UAS (the system head is aligned to
  the gold head, or both are roots), LAS (UAS and the DEPREL's universal part).
* CLAS, MLAS, BLEX: LAS restricted to words whose relation is a content relation
  (gold words for recall and aligned accuracy, system words for precision);
  MLAS also needs UPOS, UFeats and the same functional children (each aligned to
  the gold child, with the same relation, UPOS and UFeats, in the same order);
  BLEX also needs the lemma.
"""

from __future__ import annotations

from .align import Alignment
from .conllu import CONTENT_DEPRELS, FEATS, LEMMA, ROOT, UNIVERSAL_DEPREL, UPOS, XPOS, Treebank
from .results import Metric


def spans_metric(gold_starts: list[int], gold_ends: list[int], system_starts: list[int], system_ends: list[int]) -> Metric:
    """Spans equal in both lists (each sorted by start): Tokens and Sentences."""
    correct = gi = si = 0
    n_gold, n_system = len(gold_starts), len(system_starts)
    while gi < n_gold and si < n_system:
        gold_start, system_start = gold_starts[gi], system_starts[si]
        if system_start < gold_start:
            si += 1
        elif gold_start < system_start:
            gi += 1
        else:
            correct += gold_ends[gi] == system_ends[si]
            gi += 1
            si += 1
    return Metric.of(correct, n_gold, n_system)


def _same_children(gold_children, system_children, system_to_gold, gold_columns, system_columns) -> bool:
    """MLAS: the functional children agree one by one (aligned, same relation, UPOS and UFeats)."""
    if gold_children is None or system_children is None:
        return gold_children is None and system_children is None
    if len(gold_children) != len(system_children):
        return False
    for gold_child, system_child in zip(gold_children, system_children):
        if system_to_gold[system_child] != gold_child:
            return False
        gold, system = gold_columns[gold_child], system_columns[system_child]
        if gold[UNIVERSAL_DEPREL] != system[UNIVERSAL_DEPREL] or gold[UPOS] != system[UPOS] or gold[FEATS] != system[FEATS]:
            return False
    return True


def content_words(bank: Treebank) -> int:
    """How many words of ``bank`` have a content relation."""
    return sum(1 for columns in bank.columns if columns[UNIVERSAL_DEPREL] in CONTENT_DEPRELS)


def attachment_hits(gold: Treebank, system: Treebank, alignment: Alignment) -> tuple[list[bool], list[bool]]:
    """Per aligned pair ``k`` (``alignment.gold[k]``, ``alignment.system[k]``): is the head right (UAS: the
    system head is aligned to the gold head, or both are roots), and are head and universal relation right (LAS)?

    The one place these hits are decided: :func:`compute_metrics` counts them for the corpus, and
    :mod:`depeval.sentences` counts them per sentence.
    """
    gold_columns, system_columns = gold.columns, system.columns
    gold_parents, system_parents = gold.parents, system.parents
    system_to_gold = alignment.system_to_gold
    heads: list[bool] = []
    labels: list[bool] = []
    for g, s in zip(alignment.gold, alignment.system):
        parent = system_parents[s]
        head_ok = gold_parents[g] == (ROOT if parent == ROOT else system_to_gold[parent])
        heads.append(head_ok)
        labels.append(head_ok and gold_columns[g][UNIVERSAL_DEPREL] == system_columns[s][UNIVERSAL_DEPREL])
    return heads, labels


def _lemma_ok(gold_word: list[str], system_word: list[str]) -> bool:
    """Lemmas, BLEX: a gold lemma ``_`` matches anything."""
    gold_lemma = gold_word[LEMMA]
    return gold_lemma == "_" or gold_lemma == system_word[LEMMA]


def content_hits(gold: Treebank, system: Treebank, alignment: Alignment,
                 labels: list[bool]) -> tuple[list[bool], list[bool]]:
    """Per aligned pair ``k``: is it an MLAS hit, and a BLEX hit?  Both need a content relation (of the gold
    word) and a LAS hit (``labels[k]``, from :func:`attachment_hits`); MLAS also UPOS, UFeats and the same
    functional children, BLEX the lemma.

    The one place these hits are decided: :func:`compute_metrics` counts them for the corpus, and
    :mod:`depeval.sentences` counts them per sentence.
    """
    gold_columns, system_columns = gold.columns, system.columns
    gold_children, system_children = gold.functional_children, system.functional_children
    system_to_gold = alignment.system_to_gold
    mlas: list[bool] = []
    blex: list[bool] = []
    for g, s, label_ok in zip(alignment.gold, alignment.system, labels):
        gw, sw = gold_columns[g], system_columns[s]
        content_ok = label_ok and gw[UNIVERSAL_DEPREL] in CONTENT_DEPRELS
        blex.append(content_ok and _lemma_ok(gw, sw))
        mlas.append(content_ok and gw[UPOS] == sw[UPOS] and gw[FEATS] == sw[FEATS] and _same_children(
            gold_children[g], system_children[s], system_to_gold, gold_columns, system_columns))
    return mlas, blex


def compute_metrics(gold: Treebank, system: Treebank, alignment: Alignment) -> dict[str, Metric]:
    """Every metric, keyed by the name the script prints."""
    gold_columns, system_columns = gold.columns, system.columns
    heads, labels = attachment_hits(gold, system, alignment)
    mlas_hits, blex_hits = content_hits(gold, system, alignment, labels)
    upos = xpos = feats = alltags = lemmas = uas = las = 0
    aligned_content = clas = 0
    for g, s, head_ok, label_ok in zip(alignment.gold, alignment.system, heads, labels):
        gw, sw = gold_columns[g], system_columns[s]
        upos_ok = gw[UPOS] == sw[UPOS]
        feats_ok = gw[FEATS] == sw[FEATS]
        if upos_ok:
            upos += 1
        if feats_ok:
            feats += 1
        if gw[XPOS] == sw[XPOS]:
            xpos += 1
            if upos_ok and feats_ok:
                alltags += 1
        if _lemma_ok(gw, sw):
            lemmas += 1
        uas += head_ok
        las += label_ok
        if gw[UNIVERSAL_DEPREL] in CONTENT_DEPRELS:
            aligned_content += 1
            clas += label_ok
    mlas, blex = sum(mlas_hits), sum(blex_hits)
    n_gold, n_system, aligned = gold.n_words, system.n_words, len(alignment.gold)
    gold_content, system_content = content_words(gold), content_words(system)
    return {
        "Tokens": spans_metric(gold.token_starts, gold.token_ends, system.token_starts, system.token_ends),
        "Sentences": spans_metric(gold.sentence_starts, gold.sentence_ends, system.sentence_starts, system.sentence_ends),
        "Words": Metric.of(aligned, n_gold, n_system),
        "UPOS": Metric.of(upos, n_gold, n_system, aligned),
        "XPOS": Metric.of(xpos, n_gold, n_system, aligned),
        "UFeats": Metric.of(feats, n_gold, n_system, aligned),
        "AllTags": Metric.of(alltags, n_gold, n_system, aligned),
        "Lemmas": Metric.of(lemmas, n_gold, n_system, aligned),
        "UAS": Metric.of(uas, n_gold, n_system, aligned),
        "LAS": Metric.of(las, n_gold, n_system, aligned),
        "CLAS": Metric.of(clas, gold_content, system_content, aligned_content),
        "MLAS": Metric.of(mlas, gold_content, system_content, aligned_content),
        "BLEX": Metric.of(blex, gold_content, system_content, aligned_content),
    }

