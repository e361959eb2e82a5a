"""The scorers' per-sentence statistics sum to their corpus counts, on the shared treebanks.

evalb: ``EvalbResult.sentence_counts`` (matched, gold, test brackets after the parameter file's deletions);
depeval: ``depeval.sentence_counts`` (UAS, LAS, CLAS, MLAS and BLEX hits and totals, CoNLL 2018 and PTB conventions).
The system side is the gold with labels changed, so that the counts are not all equal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import depeval
import evalb
from mlparse.compare.statistics import stats_from_rows


def _check_evalb(gold_lines: list, test_lines: list, params: str = "COLLINS") -> None:
    result = evalb.score_trees(gold_lines, test_lines, params)
    rows = result.sentence_counts()
    assert len(rows) == len(gold_lines)
    assert tuple(map(sum, zip(*rows))) == (result.all.matched_brackets, result.all.gold_brackets,
                                           result.all.test_brackets)
    for metric, value in (("f1", result.all.fmeasure), ("lr", result.all.recall), ("lp", result.all.precision)):
        stats = stats_from_rows(metric, rows)
        assert stats.corpus_score() == value  # exactly, not approximately
        assert float(stats.score(stats.totals())) == value


def _relabelled(lines: list) -> list:
    return [line.replace("(NP ", "(XP ", 1) if k % 2 else line for k, line in enumerate(lines)]


def test_evalb_sentence_counts_on_id_icon(treebanks: Path) -> None:
    gold = (treebanks / "id-icon" / "test.txt").read_text(encoding="utf-8").splitlines()
    gold = [line for line in gold if line.strip()]
    _check_evalb(gold, _relabelled(gold))


def test_evalb_sentence_counts_on_ptb_sample(treebanks: Path) -> None:
    from mlparse.trees.reader import read_bracketed_file

    files = sorted((treebanks / "ptb-sample").rglob("wsj_00*.mrg"))[:40]
    gold = [tree.to_bracketed() for path in files for tree in read_bracketed_file(path).trees]
    assert len(gold) > 300
    _check_evalb(gold, _relabelled(gold))


def _ud_files(treebanks: Path) -> list:
    return sorted(p for folder in ("ud", "ud-legacy") for p in (treebanks / folder).glob("*/*-ud-*.conllu")
                  if not p.name.endswith("-train.conllu"))


def _perturbed(text: str) -> str:
    """Every 3rd word's relation renamed; every 5th word attached to its grandparent (a tree still: each word's new
    head is one of its old ancestors, so no cycle and no second root); every 4th word's lemma and every 7th word's
    UFeats changed (MLAS and BLEX lose more than LAS)."""
    blocks = []
    for block in text.split("\n\n"):
        lines = [line.split("\t") for line in block.split("\n")]
        heads = {c[0]: c[6] for c in lines if len(c) == 10 and c[0].isdigit()}
        for k, columns in enumerate(lines):
            if len(columns) == 10 and columns[0].isdigit():
                if k % 3 == 0:
                    columns[7] = "dep" if columns[7] != "dep" else "obj"
                grand = heads.get(heads[columns[0]], "0")
                if k % 5 == 0 and grand != "0":
                    columns[6] = grand
                if k % 4 == 1:
                    columns[2] = columns[2] + "x"
                if k % 7 == 2:
                    columns[5] = "Typo=Yes" if columns[5] != "Typo=Yes" else "_"
        blocks.append("\n".join("\t".join(c) for c in lines))
    return "\n\n".join(blocks)


def test_depeval_sentence_counts_on_every_shared_ud_file(treebanks: Path) -> None:
    files = _ud_files(treebanks)
    assert files
    lower_mlas = lower_blex = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        system_text = _perturbed(text)
        gold, system = depeval.read_conllu(text, str(path)), depeval.read_conllu(system_text, "<system>")
        for ptb in (None, "upos"):
            scores = depeval.evaluate(gold, system, ptb_punct=ptb)
            counts = depeval.evaluate_sentences(gold, system, ptb_punct=ptb)
            assert len(counts.lines) == len(counts.counts["LAS"]) == len(gold.sentence_starts)
            uas, las = (scores.ptb.uas, scores.ptb.las) if ptb else (scores.uas, scores.las)
            lower_mlas += scores.mlas.correct < scores.clas.correct
            lower_blex += scores.blex.correct < scores.clas.correct  # equal where the gold has no lemmas
            for name, metric in (("UAS", uas), ("LAS", las), ("CLAS", scores.clas), ("MLAS", scores.mlas),
                                 ("BLEX", scores.blex)):
                assert counts.totals(name) == (metric.correct, metric.gold_total, metric.system_total), (path, name)
                stats = stats_from_rows(name.lower(), counts.counts[name])
                assert stats.corpus_score() == 100.0 * metric.f1
    assert lower_mlas == 2 * len(files) and lower_blex > len(files)  # the perturbation reaches both metrics


def test_depeval_sentence_counts_with_different_sentence_splits() -> None:
    gold = ("# text = a b\n1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n2\tb\t_\tX\tX\t_\t1\tobj\t_\t_\n\n"
            "1\tc\t_\tX\tX\t_\t0\troot\t_\t_\n\n")
    system = ("1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n\n1\tb\t_\tX\tX\t_\t0\troot\t_\t_\n2\tc\t_\tX\tX\t_\t1\tobj\t_\t_\n\n")
    g, s = depeval.read_conllu(gold, "<gold>"), depeval.read_conllu(system, "<system>")
    counts = depeval.evaluate_sentences(g, s)
    scores = depeval.evaluate(g, s)
    assert counts.totals("UAS") == (scores.uas.correct, scores.uas.gold_total, scores.uas.system_total)
    assert counts.counts["UAS"] == [(1, 2, 2), (0, 1, 1)]  # system word "b" belongs to gold sentence 1
