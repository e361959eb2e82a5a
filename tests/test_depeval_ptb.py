"""The PTB convention (--ptb-punct): UAS and LAS without the words whose gold tag marks punctuation."""

from __future__ import annotations

import pytest

from depeval import PTB_PUNCT_TAGS, evaluate_text, format_report
from helpers.depeval_fixtures import row


def sentence(heads, deprels, xpos, upos=None):
    forms = ["He", "left", ",", "then", "."]
    upos = upos or ["PRON", "VERB", "PUNCT", "ADV", "PUNCT"]
    return "".join(row(k + 1, forms[k], heads[k], deprels[k], upos=upos[k], xpos=xpos[k]) for k in range(5)) + "\n"


XPOS = ["PRP", "VBD", ",", "RB", "."]
GOLD = sentence([2, 0, 2, 2, 2], ["nsubj", "root", "punct", "advmod", "punct"], XPOS)
# Both punctuation heads are wrong, and the adverb's relation.
SYSTEM = sentence([2, 0, 4, 2, 4], ["nsubj", "root", "punct", "obl", "punct"], XPOS)


def test_punctuation_is_left_out_by_gold_xpos():
    scores = evaluate_text(GOLD, SYSTEM, ptb_punct="xpos")
    ptb = scores.ptb
    assert (ptb.gold_punct, ptb.system_punct, ptb.column, ptb.punct_tags) == (2, 2, "XPOS", PTB_PUNCT_TAGS)
    assert (ptb.uas.correct, ptb.uas.gold_total, ptb.uas.system_total, ptb.uas.aligned_total) == (3, 3, 3, 3)
    assert (ptb.las.correct, round(ptb.las.f1, 4)) == (2, 0.6667)
    # The CoNLL 2018 numbers count every word: 3 and 2 of 5.
    assert (scores.uas.f1, scores.las.f1) == (0.6, 0.4)
    assert scores.convention == "ptb-punct-xpos" and scores.to_dict()["ptb"]["las"]["correct"] == 2


def test_the_report_says_which_convention_was_used():
    scores = evaluate_text(GOLD, SYSTEM, ptb_punct="xpos")
    assert format_report(scores) == (
        "Convention: PTB, punctuation excluded (gold XPOS in `` '' : , .); not the CoNLL 2018 scoring\n"
        "UAS F1 Score: 100.00\n"
        "LAS F1 Score: 66.67\n"
    )
    assert format_report(scores, verbose=True).splitlines()[1:] == [
        "Words left out as punctuation: 2 gold, 2 system",
        "Metric     | Precision |    Recall |  F1 Score | AligndAcc",
        "-----------+-----------+-----------+-----------+-----------",
        "UAS        |    100.00 |    100.00 |    100.00 |    100.00",
        "LAS        |     66.67 |     66.67 |     66.67 |     66.67",
    ]


def test_the_tag_column_can_be_upos_and_labels_keep_their_subtypes():
    upos = ["PRON", "VERB", ",", "ADV", "PUNCT"]  # only the comma carries a PTB tag in UPOS
    gold = sentence([2, 0, 2, 2, 2], ["nsubj", "root", "punct", "advmod", "punct"], XPOS, upos)
    system = sentence([2, 0, 4, 2, 4], ["nsubj:pass", "root", "punct", "advmod", "punct"], XPOS, upos)
    ptb = evaluate_text(gold, system, ptb_punct="upos").ptb
    assert (ptb.column, ptb.gold_punct, ptb.uas.correct, ptb.uas.gold_total) == ("UPOS", 1, 3, 4)
    assert ptb.las.correct == 2  # nsubj:pass is not nsubj here
    assert evaluate_text(gold, system).las.correct == 3  # whereas CoNLL 2018 compares universal parts


def test_system_words_are_left_out_with_their_gold_word_or_by_their_own_tag():
    gold = row(1, "a", 0, "root", xpos="NN") + row(2, "bc", 1, "dep", xpos="NN") + row(3, ".", 1, "punct", xpos=".") + "\n"
    # b is unaligned and tagged as a comma: left out; the final "." is tagged NN but its gold word is punctuation.
    system = (row(1, "a", 0, "root", xpos="NN") + row(2, "b", 1, "punct", xpos=",") + row(3, "c", 1, "dep", xpos="NN")
              + row(4, ".", 1, "punct", xpos="NN") + "\n")
    ptb = evaluate_text(gold, system, ptb_punct="xpos").ptb
    assert (ptb.gold_punct, ptb.system_punct) == (1, 2)
    assert (ptb.uas.correct, ptb.uas.gold_total, ptb.uas.system_total, ptb.uas.aligned_total) == (1, 2, 2, 1)


def test_an_unknown_column_is_refused():
    with pytest.raises(ValueError, match="xpos or upos"):
        evaluate_text(GOLD, SYSTEM, ptb_punct="feats")
