"""Kummerfeld et al. (2012) error classes: one hand-built tree pair per class, the repair search's invariants,
and the rules it shares with the original analyser (each on a pair where the analyser's rule and the obvious
alternative give different repairs)."""

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
    # VP attachment: the VP moves out of the subject NP up to the S
    ("VP attachment", 2,
     "(TOP (S (NP (NN time)) (VP (VBZ flies) (NP (NN fast)))))",
     "(TOP (S (NP (NN time) (VP (VBZ flies) (NP (NN fast))))))"),
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


def search_of(gold: str, test: str) -> RepairSearch:
    (sentence,) = list(evalb.sentence_brackets([gold], [test], "COLLINS"))
    return RepairSearch(build_tree(sentence.test, sentence.test_tags), gold_counts(sentence.gold, {}), {})


def steps(gold: str, test: str) -> list:
    return [(r.error_class, r.fixed, r.info.kind, r.info.label) for r in repairs(gold, test).repairs]


def move_targets(search: RepairSearch, source_label: str) -> set:
    """(first and last child moved, the new parent's label) of every move out of the ``source_label`` bracket."""
    return {(action[2], action[3], action[4].label) for _, _, action in search.candidates()
            if action[0] == "move" and action[1].label == source_label}


def test_a_run_moves_up_to_the_parent_and_the_ancestors_sharing_its_edge() -> None:
    """The run at the extra ZP's left edge goes up to ZP's parent XP, and on only through ancestors that start
    where ZP starts: VP, which starts before, is no target (nor is anything above it)."""
    gold = "(TOP (S (NP (DT w0)) (VP (VBD w1) (XP (NN w2) (NN w3) (NN w4)))))"
    test = "(TOP (S (NP (DT w0)) (VP (VBD w1) (XP (ZP (NN w2) (NN w3)) (NN w4)))))"
    assert move_targets(search_of(gold, test), "ZP") == {(0, 0, "XP"), (1, 1, "XP")}
    gold = "(TOP (S (NP (DT w0)) (VP (VBD w1) (YP (XP (NN w2) (NN w3) (NN w4)) (NN w5)))))"
    test = "(TOP (S (NP (DT w0)) (VP (VBD w1) (YP (XP (ZP (NN w2) (NN w3)) (NN w4)) (NN w5)))))"
    assert move_targets(search_of(gold, test), "ZP") == {(0, 0, "XP"), (0, 0, "YP"), (1, 1, "XP")}


def test_the_x_over_x_left_by_a_move_goes_in_the_moves_step() -> None:
    """Moving the PP out of NP(NP PP) leaves NP over NP; the lower NP goes in the same step and the move adds
    the missing VP over PP + ADVP: one PP attachment repair fixing both errors (not a removal, then an add)."""
    gold = ("(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (NN it)) "
            "(VP (PP (IN in) (NP (NN town))) (ADVP (RB today))))))")
    test = ("(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (NP (NN it)) (PP (IN in) (NP (NN town)))) "
            "(ADVP (RB today)))))")
    assert steps(gold, test) == [("PP attachment", 2, "move", "")]


def test_a_move_into_the_bracket_it_collapses_adds_nothing() -> None:
    """Moving "and officer" into the inner NP makes it NP over NP, collapsed; the analyser then adds nothing with
    the move (it reads the collapsed bracket's old span), so the move fixes one error and the removal, first
    among equals, is taken instead."""
    gold = ("(TOP (S (NP (DT the) (JJ old) (NX (NX (NN chairman)) (CC and) (NX (NN officer)))) "
            "(VP (VBD left))))")
    test = ("(TOP (S (NP (NP (DT the) (JJ old) (NX (NN chairman))) (CC and) (NX (NN officer))) "
            "(VP (VBD left))))")
    assert steps(gold, test) == [("coordination", 1, "remove", "NP"), ("other", 1, "add", "NX")]


def test_a_missing_bracket_goes_above_the_highest_bracket_of_its_span() -> None:
    search = search_of("(TOP (X (S (VP (VBD w0) (NP (NN w1))))))", "(TOP (S (VP (VBD w0) (NP (NN w1)))))")
    search.run()
    assert repr(search.tree) == "(<root> (X (S (VP (VBD 0) (NP (NN 1))))))"


def test_extra_brackets_are_taken_by_span_then_missing_ones_in_gold_order() -> None:
    """Removals tie: the extra brackets go by (start, end), the inner ADJP(0,2) before the NP(0,3) that holds it.
    Adds tie: the missing brackets of one span go in the gold tree's order, VP before ADJP."""
    assert steps("(TOP (S (NN w0) (NN w1) (NN w2) (VBD w3)))",
                 "(TOP (S (NP (ADJP (NN w0) (NN w1)) (NN w2)) (VBD w3)))") == [
        ("NP-internal structure", 1, "remove", "ADJP"), ("other", 1, "remove", "NP")]
    assert steps("(TOP (S (VP (ADJP (JJ w0) (JJ w1))) (VBD w2)))",
                 "(TOP (S (JJ w0) (JJ w1) (VBD w2)))") == [("other", 1, "add", "VP"), ("unary", 1, "add", "ADJP")]


def test_a_particle_is_classified_as_an_adverb_phrase() -> None:
    """The analyser reads PRT as ADVP (Collins's rules): a moved particle is a modifier attachment."""
    assert steps("(TOP (S (VP (VB pick) (PRT (RP up)) (NP (DT the) (NN box)))))",
                 "(TOP (S (VP (VB pick) (NP (PRT (RP up)) (DT the) (NN box)))))") == [
        ("modifier attachment", 2, "move", "")]
