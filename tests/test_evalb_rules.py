"""One test per scoring rule of the standard program, on small hand-written trees.

Each test runs with the compiled fast path and with the pure-Python scorer
(``use_fast`` parameter); both must give the same numbers.
"""

from __future__ import annotations

import pytest

from evalb import EvalbAbortedError, EvalbParams, EvalbStrictError, load_params, score_trees


@pytest.fixture(params=[True, False], ids=["fast", "pure"])
def use_fast(request):
    return request.param


def row(result, i=0):
    r = result.sentences[i]
    return (r.length, r.status, r.matched, r.gold_brackets, r.test_brackets, r.crossing, r.words, r.correct_tags)


def one(gold, test, params="COLLINS", use_fast=True, **kw):
    return score_trees([gold], [test], params, use_fast=use_fast, **kw)


def test_identical_tree(use_fast):
    t = "(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))"
    # brackets S[0,3] NP[0,2] VP[2,3]; "." deleted with its word; Len counts it
    assert row(one(t, t, use_fast=use_fast)) == (4, 0, 3, 3, 3, 0, 3, 3)


def test_deleted_punctuation_position_never_matters(use_fast):
    gold = "(S (NP (DT a) (NN b)) (, ,) (VP (VB c)))"
    test = "(S (NP (DT a) (NN b) (, ,)) (VP (VB c)))"
    assert row(one(gold, test, use_fast=use_fast)) == (4, 0, 3, 3, 3, 0, 3, 3)


def test_without_deletion_punctuation_attachment_counts(use_fast):
    gold = "(S (NP (DT a) (NN b)) (, ,) (VP (VB c)))"
    test = "(S (NP (DT a) (NN b) (, ,)) (VP (VB c)))"
    # nothing deleted: NP is [0,2] in gold, [0,3] in test
    assert row(one(gold, test, EvalbParams(), use_fast=use_fast)) == (4, 0, 2, 3, 3, 0, 4, 4)


def test_brackets_left_empty_are_removed(use_fast):
    gold = "(S (NP-SBJ (-NONE- *)) (VP (VB go) (NP (-NONE- *T*-1))))"
    test = "(S (VP (VB go)))"
    # NP-SBJ and NP dominate only the deleted trace: start == end, gone. Len excludes -NONE-.
    assert row(one(gold, test, use_fast=use_fast)) == (1, 0, 2, 2, 2, 0, 1, 1)


def test_label_cut_at_dash_or_equals_but_pos_tags_kept(use_fast):
    gold = "(S (NP-SBJ-1 (NN-X a)) (VP=2 (VB b)))"
    test = "(S (NP (NN a)) (VP (VB b)))"
    # brackets all match after cutting; the POS tag NN-X is compared raw -> 1 of 2 tags
    assert row(one(gold, test, use_fast=use_fast)) == (2, 0, 3, 3, 3, 0, 2, 1)


def test_label_starting_with_dash_becomes_empty(use_fast):
    gold = "(S (-LRB- (NN a)) (VP (VB b)))"
    test = "(S (X (NN a)) (VP (VB b)))"
    assert row(one(gold, test, EvalbParams(), use_fast=use_fast))[2] == 2  # "" != "X"
    assert row(one(gold, "(S (-RRB- (NN a)) (VP (VB b)))", EvalbParams(), use_fast=use_fast))[2] == 3


def test_empty_root_label_counts_unless_deleted(use_fast):
    t = "( (S (NP (NN a)) (VP (VB b))))"
    assert row(one(t, t, EvalbParams(), use_fast=use_fast))[3] == 4
    assert row(one(t, t, EvalbParams(delete_labels=[b""]), use_fast=use_fast))[3] == 3


def test_duplicates_score_min_n_m(use_fast):
    chain = "(S (S (NP (NN x))))"
    single = "(S (NP (NN x)))"
    assert row(one(chain, single, use_fast=use_fast))[2:5] == (2, 3, 2)
    assert row(one(single, chain, use_fast=use_fast))[2:5] == (2, 2, 3)
    assert row(one(chain, chain, use_fast=use_fast))[2:5] == (3, 3, 3)


def test_unlabeled_matching(use_fast):
    gold = "(S (NP (DT a) (NN b)) (VP (VB c)))"
    test = "(S (VP (DT a) (NN b)) (NP (VB c)))"
    assert row(one(gold, test, use_fast=use_fast))[2] == 1
    assert row(one(gold, test, EvalbParams(labeled=0), use_fast=use_fast))[2] == 3


def test_eq_label_for_matching_and_deletion(use_fast):
    gold = "(S (ADVP (RB up)) (VP (VB go)))"
    test = "(S (PRT (RB up)) (VP (VB go)))"
    assert row(one(gold, test, use_fast=use_fast))[2] == 3  # ADVP = PRT in COLLINS.prm
    params = EvalbParams(delete_labels=[b"PRT"], eq_labels=[(b"ADVP", b"PRT")])
    # a bracket whose label is the EQ partner of a DELETE_LABEL is deleted too
    assert row(one(gold, test, params, use_fast=use_fast))[3:5] == (2, 2)


def test_crossing_counts_test_brackets(use_fast):
    gold = "(S (NP (DT the) (JJ big) (NN dog)) (VP (VBD barked)))"
    test = "(S (DT the) (NP (JJ big) (NN dog) (VBD barked)))"
    assert row(one(gold, test, use_fast=use_fast)) == (4, 0, 1, 3, 2, 1, 4, 4)
    # one test bracket crossing two gold brackets counts once; two crossing ones count twice
    gold = "(S (A (NN a) (NN b)) (B (NN c) (NN d)) (NN e))"
    test = "(S (NN a) (X (NN b) (NN c)) (Y (NN d) (NN e)))"
    assert row(one(gold, test, EvalbParams(), use_fast=use_fast))[5] == 2
    nested = "(S (NN a) (X (NN b) (NN c) (NN d) (NN e)))"
    assert row(one(gold, nested, EvalbParams(), use_fast=use_fast))[5] == 1


def test_tagging_accuracy(use_fast):
    gold = "(S (NP (DT a) (NN b)) (VP (VB c)))"
    test = "(S (NP (DT a) (NNS b)) (VP (VBZ c)))"
    assert row(one(gold, test, use_fast=use_fast))[6:] == (3, 1)
    assert one(gold, test, use_fast=use_fast).all.tagging_accuracy == pytest.approx(100 / 3)


def test_eq_word(use_fast):
    gold = "(S (DT This) (VP (VB is)))"
    test = "(S (DT this) (VP (VB is)))"
    with pytest.raises(EvalbStrictError):
        one(gold, test, strict=True, use_fast=use_fast)
    params = load_params("COLLINS")
    params.eq_words.append((b"this", b"This"))
    assert row(one(gold, test, params, use_fast=use_fast))[1:3] == (0, 2)


def test_sentence_length_from_gold_only(use_fast):
    gold = "(S (NP (-NONE- *)) (VP (VB go) (. .) (, ,)))"
    test = "(S (VP (VB go)))"
    # Len: go . , (punctuation in, -NONE- out) = 3; words after deletion = 1
    assert row(one(gold, test, use_fast=use_fast))[0] == 3
    assert row(one(gold, test, use_fast=use_fast))[6] == 1


def test_cutoff_block_by_gold_length_includes_errors_and_skips(use_fast):
    gold = ["(S (NN a) (NN b) (NN c))", "(S (NN a))", "(S (NN a) (NN b))"]
    test = ["(S (NN a) (NN b) (NN c))", "", "(S (NN a) (NN x))"]
    params = load_params("COLLINS")
    params.cutoff_len = 2
    result = score_trees(gold, test, params, use_fast=use_fast)
    assert (result.cutoff.sentences, result.cutoff.skip_sentences, result.cutoff.error_sentences) == (2, 1, 1)
    assert result.cutoff.valid_sentences == 0 and result.cutoff.recall == 0.0
    assert result.all.valid_sentences == 1 and result.all.fmeasure == 100.0


def test_skip_and_error_sentences_are_excluded_from_totals(use_fast):
    """One punctuation-tag error and one empty line still give F1 = 100, as the issue says."""
    gold = ["(S (NP (NN a)) (VP (VB b)) (. .))", "(S (NP (NN c)) (VP (VB d)) (. .))", "(S (NP (NN e)) (VP (VB f)))"]
    test = ["(S (NP (NN a)) (VP (VB b)) (. .))", "(S (NP (NN c)) (VP (VB d)) (NN .))", ""]
    result = score_trees(gold, test, "COLLINS", use_fast=use_fast)
    assert [r.status for r in result.sentences] == [0, 1, 2]
    assert result.all.fmeasure == 100.0
    assert (result.all.error_sentences, result.all.skip_sentences, result.all.valid_sentences) == (1, 1, 1)
    assert result.errors == ["2 : Length unmatch (2|3)"]
    with pytest.raises(EvalbStrictError) as info:
        score_trees(gold, test, "COLLINS", strict=True, use_fast=use_fast)
    kinds = [(p.line, p.kind) for p in info.value.problems]
    assert kinds == [(2, "length"), (3, "skip")]
    assert info.value.problems[0].gold_words == ["c", "d"] and info.value.problems[0].test_words == ["c", "d", "."]
    assert "line 2: Length unmatch (2|3)" in str(info.value)
    assert info.value.result.all.fmeasure == 100.0


def test_strict_accepts_a_sentence_that_deletion_empties_and_counts_it_as_a_skip(use_fast):
    """Issue 14: a punctuation-only sentence scored against itself is no strict-mode problem.

    The original skips it (status 2: its test tree has no word left after COLLINS.prm
    deletes ``.``), counts it in "Number of sentence" and "Skip", and prints a row of
    zeros whose Len. (gold length, punctuation included) is 2.
    """
    gold = ["(TOP (S (NP (NN a)) (VP (VB b)) (. .)))", "(TOP (. .) (, ,))", "(TOP (S (NN c) (: ;)))"]
    result = score_trees(gold, gold, "COLLINS", strict=True, use_fast=use_fast)
    assert result.problems == [] and result.emptied == [2]
    assert row(result, 1) == (2, 2, 0, 0, 0, 0, 0, 0)
    assert (result.all.sentences, result.all.skip_sentences, result.all.error_sentences) == (3, 1, 0)
    assert (result.cutoff.sentences, result.cutoff.skip_sentences) == (3, 1)
    assert result.all.valid_sentences == 2 and result.all.fmeasure == 100.0
    # strict or not, the counts are the same
    loose = score_trees(gold, gold, "COLLINS", use_fast=use_fast)
    assert [r.to_row() for r in loose.sentences] == [r.to_row() for r in result.sentences]
    assert loose.all == result.all and loose.cutoff == result.cutoff
    # the tags of the deleted terminals need not agree, only their words
    test = ["(TOP (S (NP (NN a)) (VP (VB b)) (. .)))", "(TOP (, .) (. ,))", "(TOP (S (NN c) (: ;)))"]
    assert score_trees(gold, test, "COLLINS", strict=True, use_fast=use_fast).emptied == [2]


def test_strict_still_refuses_mismatches_beside_an_emptied_sentence(use_fast):
    gold = ["(TOP (. .))", "(TOP (S (NN a) (NN b)))"]
    test = ["(TOP (. .))", "(TOP (S (NN a) (NN c)))"]
    with pytest.raises(EvalbStrictError) as info:
        score_trees(gold, test, "COLLINS", strict=True, use_fast=use_fast)
    assert [(p.line, p.kind) for p in info.value.problems] == [(2, "words")]
    assert info.value.result.emptied == [1]
    assert "line 1" not in str(info.value) and "line 2: Words unmatch (b|c)" in str(info.value)


@pytest.mark.parametrize(
    "gold, test, kind",
    [
        ("(TOP (. .))", "(TOP (. !))", "skip"),  # both emptied, but the words differ
        ("(TOP (. .))", "", "skip"),  # no test tree at all
        ("(TOP (S (NN a) (. .)))", "(TOP (S (. a) (. .)))", "skip"),  # only the test side is emptied
        ("(TOP (. .))", "(TOP (NN .))", "length"),  # only the gold side is emptied
    ],
    ids=["other-words", "empty-line", "test-only", "gold-only"],
)
def test_strict_refuses_empty_trees_that_deletion_does_not_explain(gold, test, kind, use_fast):
    with pytest.raises(EvalbStrictError) as info:
        one(gold, test, strict=True, use_fast=use_fast)
    assert [(p.line, p.kind) for p in info.value.problems] == [(1, kind)]
    assert info.value.result.emptied == []


def test_emptied_sentences_are_a_standard_program_rule_only(use_fast):
    """The SPMRL program never deletes terminals: its empty test trees stay problems."""
    with pytest.raises(EvalbStrictError):
        score_trees(["(TOP (. .))"], ["()"], "spmrl", spmrl=True, strict=True, use_fast=use_fast)
    result = score_trees(["(TOP (. .))"], ["(TOP (. .))"], "spmrl", spmrl=True, strict=True, use_fast=use_fast)
    assert result.emptied == [] and row(result) == (1, 0, 0, 0, 0, 0, 1, 1)


def test_words_mismatch(use_fast):
    result = one("(S (NN a) (NN b))", "(S (NN a) (NN c))", use_fast=use_fast)
    assert row(result)[1:] == (1, 0, 0, 0, 0, 0, 0)
    assert result.errors == ["1 : Words unmatch (b|c)"]
    assert result.problems[0].kind == "words"


def test_fix_quote_reinserts_a_deleted_quote_terminal(use_fast):
    gold = "(S (NP (NP (NNP Jones) (POS ')) (NN dog)) (VP (VBZ barks)))"
    test = "(S (NP (NP (NNP Jones) ('' ')) (NN dog)) (VP (VBZ barks)))"
    # nk.prm: '' is deleted in the test, POS is a QUOTE_LABEL: the quote goes back in
    # the test, its open brackets are widened and VP is shifted -> a full match.
    assert row(one(gold, test, "nk", use_fast=use_fast)) == (4, 0, 4, 4, 4, 0, 4, 3)
    # COLLINS.prm has no QUOTE_LABEL: a plain length mismatch
    result = one(gold, test, "COLLINS", use_fast=use_fast)
    assert row(result)[1] == 1 and result.errors == ["1 : Length unmatch (4|3)"]


def test_fix_quote_on_the_gold_side(use_fast):
    gold = "(S (NP (NNP Jones) ('' ')) (VP (VBZ barks)))"
    test = "(S (NP (NNP Jones) (POS ')) (VP (VBZ barks)))"
    assert row(one(gold, test, "nk", use_fast=use_fast))[1:5] == (0, 3, 3, 3)


def test_line_count_mismatch_too_many_gold_lines(use_fast):
    result = score_trees(["(S (NN a))", "(S (NN b))", "(S (NN c))"], ["(S (NN a))"], "COLLINS", use_fast=use_fast)
    assert len(result.sentences) == 1  # reading stops at the first missing test line
    assert result.errors == ["2 : Number of lines unmatch (too many lines in gold file)"]
    assert result.problems[0].kind == "line-count"


def test_line_count_mismatch_too_many_test_lines(use_fast):
    result = score_trees(["(S (NN a))"], ["(S (NN a))", "(S (NN b))"], "COLLINS", use_fast=use_fast)
    assert len(result.sentences) == 1 and result.all.fmeasure == 100.0
    assert result.errors == ["2 : Number of lines unmatch (too many lines in test file)"]


def test_max_error_abort(use_fast):
    gold = ["(S (NN a) (. .))"] * 5
    test = ["(S (NN a) (NN .))"] * 5
    params = load_params("COLLINS")
    params.max_error = 2
    # errors are counted from 0 and the run stops when the count before an error
    # exceeds MAX_ERROR: the 4th error (count 3 > 2) is the last one printed
    with pytest.raises(EvalbAbortedError) as info:
        score_trees(gold, test, params, use_fast=use_fast)
    assert info.value.result.aborted and len(info.value.result.errors) == 4
    assert len(info.value.result.sentences) == 3


def test_malformed_trees(use_fast):
    params = load_params("COLLINS")
    params.max_error = 1
    with pytest.raises(EvalbAbortedError) as info:
        score_trees(["(X a b)"], ["(X a b)"], params, use_fast=use_fast)
    # the original loops on the stray word until MAX_ERROR ends it
    assert info.value.result.errors == [
        "1 : More than two elements in a bracket",
        "1 : Reading sentence",
        "1 : Reading sentence",
    ]
    result = score_trees(["(S (NN a)"], ["(S (NN a))"], "COLLINS", use_fast=use_fast)
    assert result.errors == ["1 : Bracketing is unbalanced (too many open bracket)"]
    assert result.sentences[0].status == 1 and result.problems[0].kind == "malformed"


def test_no_limits(use_fast):
    """Far above the original's 200 words / 5000 bytes / 30-character labels."""
    words = " ".join(f"(NN w{i})" for i in range(1500))
    label = "L" * 100
    tree = f"(S ({label} {words}) (VP (VB end)))"
    r = row(one(tree, tree, use_fast=use_fast))
    assert r == (1501, 0, 3, 3, 3, 0, 1501, 1501)


def test_multiline_tree_strings_in_the_api(use_fast):
    gold = "(S\n  (NP (NN a))\n  (VP (VB b)))"
    assert row(one(gold, "(S (NP (NN a)) (VP (VB b)))", use_fast=use_fast))[2:5] == (3, 3, 3)
