"""evalb_spmrl: its differences from the standard program and its reproduced quirks."""

from __future__ import annotations

import pytest

from evalb import EvalbParams, load_params, score_trees
from evalb.cli import main_spmrl


@pytest.fixture(params=[True, False], ids=["fast", "pure"])
def use_fast(request):
    return request.param


def rows(result):
    return [
        (r.length, r.status, r.matched, r.gold_brackets, r.test_brackets, r.crossing, r.words, r.correct_tags)
        for r in result.sentences
    ]


def spmrl(gold, test, params="spmrl", use_fast=True, **kw):
    return score_trees(gold, test, params, spmrl=True, use_fast=use_fast, **kw)


def test_terminals_are_never_deleted(use_fast):
    gold = ["(ROOT (S (NP (DT a) (NN b)) (PONCT ,) (VP (VB c))))"]
    test = ["(ROOT (S (NP (DT a) (NN b) (PONCT ,)) (VP (VB c))))"]
    params = load_params("spmrl")
    params.delete_labels.append(b"PONCT")  # would delete the word in the standard program
    # the comma stays a word, so NP [0,2] vs [0,3] differ; ROOT is deleted
    assert rows(spmrl(gold, test, params, use_fast))[0] == (4, 0, 2, 3, 3, 0, 4, 4)
    assert rows(score_trees(gold, test, params, use_fast=use_fast))[0][2:5] == (3, 3, 3)


def test_labels_and_pos_tags_cut_at_hash(use_fast):
    gold = ["(ROOT (S (NP##case=nom## (NN##num=sg## a)) (VP-HD (VB##t=1## b))))"]
    test = ["(ROOT (S (NP (NN##num=pl## a)) (VP (VB b))))"]
    assert rows(spmrl(gold, test, use_fast=use_fast))[0] == (2, 0, 3, 3, 3, 0, 2, 2)
    # the standard program compares POS tags raw and cuts labels only at - and =
    assert rows(score_trees(gold, test, "spmrl", use_fast=use_fast))[0][2] == 2


def test_length_mismatch_counts_as_valid_complete_match(use_fast):
    gold = ["(ROOT (S (NP (DT a) (NN b)) (VP (VB c))))", "(ROOT (S (NP (NN d)) (VP (VB e))))"]
    test = ["(ROOT (S (NP (DT a) (NN b)) (VP (VB c) (NN x))))", "(ROOT (S (NP (NN d)) (VP (VB e))))"]
    result = spmrl(gold, test, use_fast=use_fast)
    assert rows(result)[0] == (3, 0, 0, 0, 0, 0, 0, 0)  # status 0, not 1
    assert result.errors == ["1 : Length unmatch (3|4)"]
    assert (result.all.valid_sentences, result.all.error_sentences) == (2, 0)
    assert result.all.complete_match == 100.0
    assert result.problems[0].kind == "length"


def test_one_word_gold_with_length_mismatch_is_counted_twice(use_fast):
    result = spmrl(["(S (NN a))"], ["(S (NN a) (NN b))"], use_fast=use_fast)
    # first a row of zeros, then the sentence is scored anyway: S[0,1] vs S[0,2]
    assert rows(result) == [(1, 0, 0, 0, 0, 0, 0, 0), (1, 0, 0, 1, 1, 0, 1, 1)]
    assert result.errors == [] and result.all.sentences == 2


def test_count_unparsed_overcounts_gold_brackets(use_fast):
    gold = ["(ROOT (S (NP (NN a)) (VP (VB b))))"]
    # -X: an empty test tree is status 3 and its gold brackets count.  With the five
    # DELETE_LABELs of spmrl.prm each bracket counts 1 + (non-matching delete labels):
    # ROOT 1+4, S 1+5, NP 1+5, VP 1+5 = 23.
    result = spmrl(gold, [""], count_unparsed=True, use_fast=use_fast)
    assert rows(result) == [(2, 3, 0, 23, 0, 0, 2, 0)]
    assert result.all.valid_sentences == 1 and result.all.recall == 0.0
    assert result.problems[0].kind == "skip"
    plain = spmrl(gold, [""], use_fast=use_fast)
    assert rows(plain) == [(2, 2, 0, 0, 0, 0, 0, 0)]


def test_delete_labels_are_cut_in_place(use_fast):
    """The SPMRL label comparison cuts DELETE_LABEL -NONE- to "", so empty-label brackets go."""
    t = ["( (S (NP (NN a)) (VP (VB b))))"]
    assert rows(spmrl(t, t, use_fast=use_fast))[0][3] == 3
    assert rows(score_trees(t, t, "spmrl", use_fast=use_fast))[0][3] == 4


def test_max_sentences(use_fast):
    gold = ["(S (NN a))", "(S (NN b))", "(S (NN c))"]
    test = ["(S (NN a))", "(S (NN b))", "(S (NN c))", "(S (NN d))"]
    result = spmrl(gold, test, EvalbParams(), max_sentences=2, use_fast=use_fast)
    assert [r.line for r in result.sentences] == [1, 2] and result.errors == []
    result = spmrl(gold, test, EvalbParams(), use_fast=use_fast)
    assert result.errors == ["4 : Number of lines unmatch (too many lines in test file)"]


def run(capsysbinary, *args):
    code = main_spmrl(list(args))
    cap = capsysbinary.readouterr()
    return code, cap.out.decode(), cap.err.decode()


def files(tmp_path):
    g, t = tmp_path / "g.txt", tmp_path / "t.txt"
    # gold: S[0,3] NP[0,2] VP[2,3]; test: S[0,3] NP[0,1] VP[1,3]: 1 of 3 match,
    # test has 3 brackets -> R = P; make them differ with an extra test bracket
    g.write_text("(S (NP (DT a) (NN b)) (VP (VB c)))\n")
    t.write_text("(S (X (NP (DT a) (NN b)) (VP (VB c))))\n")
    return str(g), str(t)


def test_compact_view_swaps_precision_and_recall(tmp_path, capsysbinary, monkeypatch):
    monkeypatch.chdir(tmp_path)
    g, t = files(tmp_path)
    # gold 3 brackets all matched, test 4: R = 100, P = 75, F = 85.71
    code, out, err = run(capsysbinary, "-L", g, t)
    assert code == 0
    last = out.splitlines()[-1]
    assert last == f"F1:  85.71 %\tPrec: 100.00 %\tRec:  75.00 %\tPOS: 100.00 %\tEX:   0.00 %\tUnparsed:      0\tSent:      1\tfile: {t}"
    assert "=== Summary" not in out
    assert not (tmp_path / "status").exists()  # the compact view writes no status file


def test_status_file_names_header_and_cutoff_echo(tmp_path, capsysbinary, monkeypatch):
    monkeypatch.chdir(tmp_path)
    g, t = files(tmp_path)
    code, out, err = run(capsysbinary, "-V", "-c", "2", g, t)
    assert code == 0
    assert f"=== Summary: {g}\tvs\t{t} ===\n" in out
    assert "-- len<=2 --" in out and err == "cutoff 2\n"
    assert (tmp_path / "status").read_text() == "---\nF1: 85.71\nLP: 75.00\nLR: 100.00\nPOS: 100.00\nerrorRate: 14.29\n"


def test_more_than_two_elements_debug_line(tmp_path, capsysbinary, monkeypatch):
    monkeypatch.chdir(tmp_path)
    g = tmp_path / "g.txt"
    g.write_text("(X a b)\n")
    code, out, err = run(capsysbinary, "-e", "0", str(g), str(g))
    assert code == 1
    assert err == "debug djam: q=  b)\n\n1 : More than two elements in a bracket\n1 : Reading sentence\n"
    assert "=== Summary" not in out
