"""The corner cases of the CoNLL 2018 word alignment that depeval keeps (worked out by hand)."""

from __future__ import annotations

from depeval import align_words, evaluate_text, read_conllu
from helpers.depeval_fixtures import mwt, row


def aligned(gold: str, system: str) -> list[tuple[int, int]]:
    alignment = align_words(read_conllu(gold), read_conllu(system))
    return list(zip(alignment.gold, alignment.system))


def test_a_plain_system_word_before_a_gold_multiword_token_is_left_out_of_its_region():
    # Text "abcd". Gold: ab, then cd = "a" + "d"; system: a, bcd.  Gold ab and system a start together
    # but differ, so gold moves on to the multiword token; system a still starts before it and is the
    # one word dropped, so the region pairs gold [a, d] with system [bcd]: nothing in common.
    gold = row(1, "ab", 0, "root") + mwt("2-3", "cd") + row(2, "a", 1, "dep") + row(3, "d", 1, "dep") + "\n"
    system = row(1, "a", 0, "root") + row(2, "bcd", 1, "dep") + "\n"
    assert aligned(gold, system) == []


def test_a_plain_gold_word_before_a_system_multiword_token_is_left_out_too():
    # Mirror image: gold a, bcd; system ab, then cd = "bcd" + "x".  Gold bcd is dropped, although
    # the system token's first word has the same form.
    gold = row(1, "a", 0, "root") + row(2, "bcd", 1, "dep") + "\n"
    system = row(1, "ab", 0, "root") + mwt("2-3", "cd") + row(2, "bcd", 1, "dep") + row(3, "x", 1, "dep") + "\n"
    assert aligned(gold, system) == []
    assert evaluate_text(gold, system).words.correct == 0


def test_the_subsequence_walk_drops_gold_words_first():
    # Gold words x, y and system words y, x in the same token: one pair is possible.  At (x, y) dropping
    # the gold x keeps the subsequence as long, so gold y pairs with system y (whose UPOS is wrong).
    gold = mwt("1-2", "xy") + row(1, "x", 0, "root", upos="NOUN") + row(2, "y", 1, "dep", upos="VERB") + "\n"
    system = mwt("1-2", "xy") + row(1, "y", 0, "root", upos="ADJ") + row(2, "x", 1, "dep", upos="NOUN") + "\n"
    assert aligned(gold, system) == [(1, 0)]
    assert evaluate_text(gold, system).upos.correct == 0


def test_alignment_crosses_sentence_boundaries():
    # The same words, split into sentences differently, are all aligned.
    gold = row(1, "a", 0, "root") + row(2, "b", 1, "dep") + "\n" + row(1, "c", 0, "root") + "\n"
    system = row(1, "a", 0, "root") + "\n" + row(1, "b", 0, "root") + row(2, "c", 1, "dep") + "\n"
    assert aligned(gold, system) == [(0, 0), (1, 1), (2, 2)]
