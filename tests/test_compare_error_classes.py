"""Kummerfeld et al. (2012) error classes: one hand-built tree pair per class, and the repair search's invariants."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import evalb
from mlparse.compare.breakdowns.error_classes import (
    CLASSES, error_class_table, repair_sentence)
from mlparse.compare.breakdowns.repair_tree import bracket_counts, build_tree, gold_counts
from mlparse.compare.breakdowns.repairs import RepairSearch


def repairs(gold: str, test: str):
    (sentence,) = list(evalb.sentence_brackets([gold], [test], "COLLINS"))
    return repair_sentence(sentence, {})


CASES = [
    # PP attachment: the PP moves from the object NP up to the VP (two errors in one move)
    ("PP attachment", 2,
     "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope))))))",
     "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man) (PP (IN with) (NP (DT a) (NN telescope)))))))"),
    # PP attachment by adding the NP that holds NP + PP
    ("PP attachment", 1,
     "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT a) (NN dog)) (PP (IN with) (NP (NN spots)))))))",
     "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT a) (NN dog)) (PP (IN with) (NP (NN spots))))))"),
    # NP attachment: the NP moves out of the wrong S to the VP
    ("NP attachment", 2,
     "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (S (VP (VBG leaving))))))",
     "(TOP (S (NP (PRP I)) (VP (VBD saw) (S (NP (DT the) (NN man)) (VP (VBG leaving))))))"),
    # clause attachment: the SBAR moves out of the NP to the VP
    ("clause attachment", 2,
     "(TOP (S (NP (PRP He)) (VP (VBD told) (NP (NNS us)) (SBAR (IN that) (S (NP (PRP it)) (VP (VBD rained)))))))",
     "(TOP (S (NP (PRP He)) (VP (VBD told) (NP (NNS us) (SBAR (IN that) (S (NP (PRP it)) (VP (VBD rained))))))))"),
    # modifier attachment: the ADVP moves from the VP up to the S
    ("modifier attachment", 2,
     "(TOP (S (NP (PRP he)) (ADVP (RB quickly)) (VP (VBD ran) (NP (NN home)))))",
     "(TOP (S (NP (PRP he)) (VP (ADVP (RB quickly)) (VBD ran) (NP (NN home)))))"),
    # NP-internal structure: a bracket over words inside an NP
    ("NP-internal structure", 1,
     "(TOP (S (NP (DT the) (ADJP (JJ big) (JJ red)) (NN car)) (VP (VBD stopped))))",
     "(TOP (S (NP (DT the) (JJ big) (JJ red) (NN car)) (VP (VBD stopped))))"),
    # coordination: the conjunction moves out of the first conjunct
    ("coordination", 2,
     "(TOP (S (NP (NP (NNS cats)) (CC and) (NP (NNS dogs))) (VP (VBP run))))",
     "(TOP (S (NP (NP (NNS cats) (CC and)) (NP (NNS dogs))) (VP (VBP run))))"),
    # unary: an SBAR over the S
    ("unary", 1,
     "(TOP (S (NP (PRP I)) (VP (VBP know) (SBAR (S (NP (PRP he)) (VP (VBD left)))))))",
     "(TOP (S (NP (PRP I)) (VP (VBP know) (S (NP (PRP he)) (VP (VBD left))))))"),
    # different label: ADVP predicted as NP
    ("different label", 2,
     "(TOP (S (NP (PRP he)) (VP (VBD left) (ADVP (RB very) (RB early)))))",
     "(TOP (S (NP (PRP he)) (VP (VBD left) (NP (RB very) (RB early)))))"),
    # single-word phrase: an ADVP over one word is missing
    ("single-word phrase", 1,
     "(TOP (S (NP (PRP he)) (VP (VBD left) (ADVP (RB early)))))",
     "(TOP (S (NP (PRP he)) (VP (VBD left) (RB early))))"),
    # other: a VP bracket left out (nothing in the rules names it)
    ("other", 1,
     "(TOP (S (NP (PRP he)) (VP (VBD said) (NP (NN hello)))))",
     "(TOP (S (NP (PRP he)) (VBD said) (NP (NN hello))))"),
]


@pytest.mark.parametrize("expected, errors, gold, test", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_class_on_a_hand_built_pair(expected: str, errors: int, gold: str, test: str) -> None:
    result = repairs(gold, test)
    assert result.errors == errors
    assert [r.error_class for r in result.repairs] == [expected]
    assert result.repairs[0].fixed == errors


def test_every_class_has_a_case() -> None:
    assert {c[0] for c in CASES} == set(CLASSES)


def test_identical_trees_need_no_repair() -> None:
    tree = CASES[0][2]
    assert repairs(tree, tree).repairs == []


def test_errors_are_the_scorers() -> None:
    """The search's starting errors are evalb's gold + test - 2 * matched."""
    for _, _, gold, test in CASES:
        (row,) = evalb.score_trees([gold], [test], "COLLINS").sentences
        assert repairs(gold, test).errors == row.gold_brackets + row.test_brackets - 2 * row.matched


def test_the_tree_is_rebuilt_from_evalbs_brackets() -> None:
    gold = "(TOP (S (NP (DT the) (NN man)) (, ,) (VP (VBD left) (NP (-NONE- *T*))) (. .)))"
    (sentence,) = list(evalb.sentence_brackets([gold], [gold], "COLLINS"))
    tree = build_tree(sentence.test, sentence.test_tags)
    assert repr(tree) == "(<root> (S (NP (DT 0) (NN 1)) (VP (VBD 2))))"
    assert bracket_counts(tree, {}) == gold_counts(sentence.gold, {})


def _random_tree(words: list, rng: random.Random) -> str:
    """A random binary-ish bracketing over ``words`` (tagged), labels from a small set."""
    labels = ["NP", "VP", "PP", "S", "SBAR", "ADJP"]

    def build(lo: int, hi: int) -> str:
        if hi - lo == 1:
            inner = f"({words[lo][0]} {words[lo][1]})"
            return f"({rng.choice(labels)} {inner})" if rng.random() < 0.2 else inner
        cut = rng.randint(lo + 1, hi - 1)
        body = build(lo, cut) + " " + build(cut, hi)
        return f"({rng.choice(labels)} {body})" if rng.random() < 0.8 else body
    return f"(TOP (S {build(0, len(words))}))"


def test_repairs_account_for_every_error_on_random_pairs() -> None:
    """Random gold/test pairs: the repairs end at the gold brackets and their fixes sum to the errors."""
    rng = random.Random(7)
    total = 0
    for _ in range(150):
        n = rng.randint(1, 12)
        words = [(rng.choice(["NN", "CC", "IN", "DT", "RB"]), f"w{i}") for i in range(n)]
        gold, test = _random_tree(words, rng), _random_tree(words, rng)
        (sentence,) = list(evalb.sentence_brackets([gold], [test], "COLLINS"))
        tree = build_tree(sentence.test, sentence.test_tags)
        search = RepairSearch(tree, gold_counts(sentence.gold, {}), {})
        errors = search.errors
        steps = search.run()
        assert sum(r.fixed for r in steps) == errors
        assert bracket_counts(tree, {}) == gold_counts(sentence.gold, {})
        total += errors
    assert total > 300


def test_class_table_counts_every_error() -> None:
    repaired = [repairs(g, t) for _, _, g, t in CASES]
    table = error_class_table(repaired)
    assert sum(row.extra.get("errors", 0) for row in table.rows) == sum(r.errors for r in repaired)
    assert Counter({row.key: row.extra.get("repairs", 0) for row in table.rows}) == Counter(c[0] for c in CASES)


def test_a_move_adds_the_missing_bracket_at_its_destination() -> None:
    """The PP moves into the VP and the NP that holds "the man in town" is added in the same step."""
    gold = "(TOP (S (NP (NNP John)) (VP (VBD saw) (NP (NP (DT the) (NN man)) (PP (IN in) (NP (NN town)))))))"
    test = "(TOP (S (NP (NNP John)) (VP (VBD saw) (NP (DT the) (NN man))) (PP (IN in) (NP (NN town)))))"
    result = repairs(gold, test)
    assert result.errors == 3
    (repair,) = result.repairs
    assert (repair.info.kind, repair.info.also_added, repair.fixed, repair.error_class) == ("move", "NP", 3,
                                                                                          "PP attachment")
