"""depeval's metrics on hand-written cases, with the expected counts worked out by hand.

Each case says which words are right and why; the tests check the counts
(correct, gold, system, aligned) and the ratios derived from them.
"""

from __future__ import annotations

import pytest

from depeval import SCORER_VERSION, Metric, evaluate_lines, evaluate_text
from helpers.depeval_fixtures import GOLD, SYSTEM, mwt, row


def counts(metric: Metric) -> tuple:
    return metric.correct, metric.gold_total, metric.system_total, metric.aligned_total


def test_every_metric_on_one_sentence():
    s = evaluate_text(GOLD, SYSTEM)
    assert counts(s.tokens) == counts(s.words) == (4, 4, 4, None) and counts(s.sentences) == (1, 1, 1, None)
    assert counts(s.upos) == (4, 4, 4, 4)
    # XPOS, UFeats, AllTags and Lemmas miss word 2 (feature order and Typo=Yes do not count).
    assert counts(s.xpos) == counts(s.ufeats) == counts(s.alltags) == counts(s.lemmas) == (3, 4, 4, 4)
    assert counts(s.uas) == counts(s.las) == (3, 4, 4, 4)  # word 4's head; nsubj:pass is nsubj
    # Content words: dog (nsubj) and barks (root); det is functional, punct neither.
    assert counts(s.clas) == (2, 2, 2, 2)
    assert counts(s.mlas) == counts(s.blex) == (1, 2, 2, 2)  # dog's features / lemma
    assert (s.las.precision, s.las.recall, s.las.f1, s.las.aligned_accuracy) == (0.75, 0.75, 0.75, 0.75)
    assert s.mlas.f1 == 0.5 and s.words.aligned_accuracy is None and s.scorer_version == SCORER_VERSION


def test_mlas_compares_the_functional_children():
    # Only the determiner's features differ: UFeats misses it, and MLAS misses its head, dog.
    system = GOLD.replace("Definite=Def|PronType=Art", "Definite=Ind|PronType=Art")
    s = evaluate_text(GOLD, system)
    assert counts(s.ufeats) == (3, 4, 4, 4) and counts(s.clas) == (2, 2, 2, 2) and counts(s.mlas) == (1, 2, 2, 2)
    # A subtype on the determiner's relation changes nothing; a different relation (nmod, content) does.
    assert evaluate_text(GOLD, GOLD.replace("\tdet\t", "\tdet:poss\t")).mlas.f1 == 1.0
    s = evaluate_text(GOLD, GOLD.replace("\tdet\t", "\tnmod\t"))
    assert counts(s.las) == (3, 4, 4, 4) and counts(s.clas) == (2, 2, 3, 2) and counts(s.mlas) == (1, 2, 3, 2)


def test_a_gold_lemma_underscore_matches_any_lemma():
    gold = GOLD.replace("\tdog\tNOUN", "\t_\tNOUN")
    s = evaluate_text(gold, SYSTEM)
    assert counts(s.lemmas) == (4, 4, 4, 4) and counts(s.blex) == (2, 2, 2, 2)


def test_tokenization_differences_count_in_precision_and_recall():
    # Text "abcd": gold tokens ab, c, d; system a, b, c, d.
    gold = row(1, "ab", 0, "root") + row(2, "c", 1, "obj") + row(3, "d", 2, "amod") + "\n"
    system = row(1, "a", 0, "root") + row(2, "b", 1, "obj") + row(3, "c", 1, "obj") + row(4, "d", 3, "amod") + "\n"
    s = evaluate_text(gold, system)
    assert counts(s.tokens) == counts(s.words) == (2, 3, 4, None)  # c and d
    assert (round(100 * s.tokens.precision, 2), round(100 * s.tokens.recall, 2), round(100 * s.tokens.f1, 2)) == (50.0, 66.67, 57.14)
    # c's gold head (ab) is aligned to nothing, so c is wrong; d's head c is aligned: right.
    assert counts(s.uas) == (1, 3, 4, 2)
    assert (s.uas.precision, round(s.uas.recall, 4), round(s.uas.f1, 4), s.uas.aligned_accuracy) == (0.25, 0.3333, 0.2857, 0.5)


def test_sentence_boundaries():
    gold = "".join(row(1, w, 0, "root") + "\n" for w in "abc")
    system = row(1, "a", 0, "root") + "\n" + row(1, "b", 0, "root") + row(2, "c", 1, "dep") + "\n"
    s = evaluate_text(gold, system)
    assert counts(s.sentences) == (1, 3, 2, None) and round(s.sentences.f1, 4) == 0.4
    assert counts(s.las) == (2, 3, 3, 3)  # c is a root in gold, headed by b in the system


def test_multiword_tokens_are_aligned_by_their_words_forms():
    gold = mwt("1-2", "del") + row(1, "de", 2, "case") + row(2, "el", 3, "det") + row(3, "perro", 0, "root") + "\n"
    # The same token unsplit: tokens all match, but only perro is an aligned word.
    s = evaluate_text(gold, row(1, "del", 2, "det") + row(2, "perro", 0, "root") + "\n")
    assert counts(s.tokens) == (2, 2, 2, None) and counts(s.words) == (1, 3, 2, None) and round(s.words.f1, 4) == 0.4
    # Split into other words: the longest common subsequence of the forms pairs de with de.
    s = evaluate_text(gold, mwt("1-2", "del") + row(1, "de", 3, "case") + row(2, "l", 3, "det") + row(3, "perro", 0, "root") + "\n")
    assert counts(s.words) == (2, 3, 3, None) and counts(s.uas) == (1, 3, 3, 2)  # de's head is wrong
    # Forms are compared without case.
    s = evaluate_text(gold, gold.replace("\tde\t", "\tDE\t").replace("\tel\t", "\tEl\t"))
    assert counts(s.words) == (3, 3, 3, None) and s.las.f1 == 1.0


def test_a_multiword_region_spans_every_overlapping_multiword_token():
    # Text "abcd". Gold: abc = a + b + c, then d; system: ab = a + b, cd = c + d.
    gold = mwt("1-3", "abc") + row(1, "a", 0, "root") + row(2, "b", 1, "dep") + row(3, "c", 1, "dep") + row(4, "d", 1, "dep") + "\n"
    system = (mwt("1-2", "ab") + row(1, "a", 0, "root") + row(2, "b", 1, "dep")
              + mwt("3-4", "cd") + row(3, "c", 1, "dep") + row(4, "d", 1, "dep") + "\n")
    s = evaluate_text(gold, system)
    assert counts(s.tokens) == (0, 2, 2, None) and counts(s.words) == (4, 4, 4, None) and s.las.f1 == 1.0


def test_spaces_inside_forms_and_empty_nodes_do_not_count():
    gold = row(1, "New York", 0, "root") + row("1.1", "e", "_", "_") + row(2, "!", 1, "punct") + "\n"
    system = row(1, "New\u00a0York", 0, "root") + row(2, "!", 1, "punct") + "\n"
    s = evaluate_text(gold, system)
    assert s.words.f1 == s.las.f1 == 1.0 and counts(s.tokens) == (2, 2, 2, None)


def test_empty_files_score_zero_with_zero_aligned_accuracy():
    s = evaluate_text("", "# nothing\n")
    assert counts(s.words) == (0, 0, 0, None) and counts(s.las) == (0, 0, 0, 0)
    assert (s.las.f1, s.las.aligned_accuracy, s.tokens.aligned_accuracy) == (0.0, 0.0, None)


def test_lines_api_and_dict_view():
    s = evaluate_lines(GOLD.splitlines(), [line + "\r\n" for line in SYSTEM.splitlines()])
    assert s == evaluate_text(GOLD, SYSTEM)
    view = s.to_dict()
    assert view["convention"] == "conll18" and view["LAS"]["f1"] == 0.75 and view["MLAS"]["correct"] == 1
    assert s.metric("UFeats") is s.ufeats
    with pytest.raises(KeyError, match="unknown metric"):
        s.metric("F1")
