"""Breakdown tables: they add up to the scorers' own counts (evalb, depeval), and hand-counted cases."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import depeval
import evalb
from mlparse.compare.breakdowns.constituency import bucket_of, constituency_tables, SENTENCE_BUCKETS
from mlparse.compare.breakdowns.dependency import dependency_tables, nonprojective, sum_column
from mlparse.compare.breakdowns.tables import Breakdown, SideBySide

GOLD = "(TOP (S (NP (DT the) (NN man)) (VP (VBD saw) (NP (NP (DT a) (NN dog)) (PP (IN with) (NP (NN spots))))) (. .)))"
TEST = "(TOP (S (NP (DT the) (NN man)) (VP (VBD saw) (NP (DT a) (NN dog)) (PP (IN with) (NP (NN spots)))) (. .)))"


def test_bucket_names() -> None:
    assert [bucket_of(n, SENTENCE_BUCKETS) for n in (1, 10, 11, 40, 41, 200)] == [
        "1-10", "1-10", "11-20", "31-40", "over 40", "over 40"]


def test_label_rows_hand_counted() -> None:
    labels, lengths, spans = constituency_tables(list(evalb.sentence_brackets([GOLD], [TEST], "COLLINS")))
    np = next(r for r in labels.rows if r.key == "NP")
    assert (np.matched, np.gold, np.test) == (3, 4, 3)
    assert lengths.row("1-10").extra["sentences"] == 1
    four = spans.row("4-5")  # the VP (5 words, matched) and the missing NP "a dog with spots" (4)
    assert (four.matched, four.gold, four.test) == (1, 2, 1)


def _perturbed(tree: str, rng: random.Random) -> str:
    """Relabel some brackets of a one-line tree (words and tags untouched)."""
    out = []
    for part in tree.split("("):
        if part and " " in part and not part.split(" ")[1].startswith(("(",)) and part.count(")") > 0:
            out.append(part)  # a terminal "(TAG word)"
        elif part and rng.random() < 0.3:
            label, _, rest = part.partition(" ")
            out.append(rng.choice(["NP", "VP", "PP", "ADJP"]) + " " + rest if label not in ("TOP", "") else part)
        else:
            out.append(part)
    return "(".join(out)


def test_constituency_tables_add_up_to_evalb(treebanks: Path) -> None:
    """On real PTB trees: every table's counts sum to evalb's corpus totals."""
    from mlparse.trees.reader import read_bracketed_file

    files = sorted((treebanks / "ptb-sample" / "wsj" / "00").glob("wsj_00*.mrg"))[:6]
    lines = [tree.to_bracketed() for path in files for tree in read_bracketed_file(path).trees]
    assert len(lines) > 50
    rng = random.Random(3)
    test = [_perturbed(t, rng) for t in lines]
    total = evalb.score_trees(lines, test, "COLLINS").all
    sentences = list(evalb.sentence_brackets(lines, test, "COLLINS"))
    for table in constituency_tables(sentences):
        assert sum(r.matched for r in table.rows) == total.matched_brackets, table.name
        assert sum(r.gold for r in table.rows) == total.gold_brackets, table.name
        assert sum(r.test for r in table.rows) == total.test_brackets, table.name
    assert total.matched_brackets < total.gold_brackets  # the perturbation did something


def _ud_test(treebanks: Path) -> Path:
    return next((treebanks / "ud" / "UD_English-EWT").glob("*-ud-test.conllu"))


def _shuffled_heads(path: Path, rng: random.Random, share: float) -> str:
    """The file with some words raised to their grandparent (no cycle can appear) and some relations changed."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = [line.split("\t") for line in block.split("\n")]
        heads = {cols[0]: cols[6] for cols in lines if len(cols) == 10 and cols[0].isdigit()}
        for cols in lines:
            if len(cols) == 10 and cols[0].isdigit() and rng.random() < share:
                grand = heads.get(cols[6], "0")
                if cols[6] != "0" and grand != "0":
                    cols[6] = grand
                cols[7] = rng.choice(["nmod", "obj", cols[7]])
        out.append("\n".join("\t".join(cols) for cols in lines))
    return "\n\n".join(out)


@pytest.mark.parametrize("ptb", [False, True])
def test_dependency_tables_add_up_to_depeval(treebanks: Path, tmp_path: Path, ptb: bool) -> None:
    gold_path = _ud_test(treebanks)
    system_path = tmp_path / "system.conllu"
    system_path.write_text(_shuffled_heads(gold_path, random.Random(5), 0.1), encoding="utf-8")
    punct = "upos" if ptb else None
    tags = ("PUNCT",) if ptb else depeval.PTB_PUNCT_TAGS
    scores = depeval.evaluate_files(gold_path, system_path, ptb_punct=punct, punct_tags=tags)
    gold, system = depeval.read_file(gold_path), depeval.read_file(system_path)
    tables = dependency_tables(gold, system, ptb_punct=punct, punct_tags=tags)
    uas, las = (scores.ptb.uas, scores.ptb.las) if ptb else (scores.uas, scores.las)
    for table in tables:
        assert sum_column(table, "uas") == uas.correct, table.name
        assert sum_column(table, "uas_test") == uas.correct, table.name
        assert sum_column(table, "matched") == las.correct, table.name
        assert sum(r.matched_test for r in table.rows) == las.correct, table.name
        assert sum_column(table, "gold") == las.gold_total, table.name
        assert sum_column(table, "test") == las.system_total, table.name
    assert uas.correct < uas.gold_total


def test_nonprojective_arcs_agree_with_the_tree_check(treebanks: Path) -> None:
    import numpy as np

    from mlparse.structs.dep_tree import is_projective
    bank = depeval.read_file(_ud_test(treebanks))
    flags = nonprojective(bank)
    first = 0
    checked = 0
    for end in list(bank.sentence_starts[1:]) + [None]:
        # words of one sentence: those whose token starts before the next sentence's start
        last = first
        while last < bank.n_words and (end is None or bank.starts[last] < end):
            last += 1
        heads = np.array([-1] + [0 if bank.parents[w] == -1 else bank.parents[w] - first + 1 for w in range(first, last)])
        assert is_projective(heads) == (not any(flags[first:last]))
        checked += 1
        first = last
    assert checked > 100 and any(flags)


def test_side_by_side_delta() -> None:
    sentences_a = list(evalb.sentence_brackets([GOLD], [TEST], "COLLINS"))
    sentences_b = list(evalb.sentence_brackets([GOLD], [GOLD], "COLLINS"))
    a = Breakdown("a", "A", "constituency", "test", "g", "p", 1, constituency_tables(sentences_a))
    b = Breakdown("b", "B", "constituency", "test", "g", "p", 1, constituency_tables(sentences_b))
    data = SideBySide(a, b).to_json_dict()
    labels = next(t for t in data["tables"] if t["name"] == "labels")
    np_row = next(r for r in labels["rows"] if r["key"] == "NP")
    assert np_row["delta"]["recall"] == pytest.approx(25.0)
    assert np_row["delta"]["precision"] == pytest.approx(0.0)
