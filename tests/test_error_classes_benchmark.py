"""The pieces of ``benchmarks/error_classes_vs_analyser.py`` that need no copy of the analyser: reading its
output, the perturbed WSJ pairs, and the skip."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import evalb
import pytest

from benchmarks.instrumentation import analyser_reference as reference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
bench = importlib.import_module("error_classes_vs_analyser")

# The analyser's .out layout (written here by hand): a header, then per sentence its steps as
# "<errors fixed> Error:<class>", followed by the steps' details.
OUT = """# Time of run:
Printing tree transformations
Sentence 1:
3 Initial errors
0 on fringe, 2 iterations
2 Error:PP Attachment
1 Error:XoverX Unary
Step:UNSET init
{'type': 'init', 'classified_type': 'UNSET init'}

Sentence 2:
0 Initial errors
0 on fringe, 0 iterations

Sentence 3:
2 Initial errors
0 on fringe, 2 iterations
1 Error:UNSET add
1 Error:VP Attachment
"""


def test_the_analysers_steps_are_read_per_sentence_in_mlparse_terms() -> None:
    assert reference.read_analyser_output(OUT) == [
        [("PP attachment", 2), ("unary", 1)], [], [("other", 1), ("VP attachment", 1)]]


def test_an_unknown_class_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="Gapping"):
        reference.read_analyser_output("Sentence 1:\n1 Error:Gapping\n")


def test_a_sentence_agrees_when_every_class_has_the_same_errors() -> None:
    same = reference.SentenceComparison("p", 1, 3, [("unary", 1), ("unary", 2)], [("unary", 3)])
    other = reference.SentenceComparison("p", 2, 2, [("unary", 2)], [("other", 2)])
    agreement = reference.Agreement([same, other])
    assert same.agrees and not other.agrees
    assert agreement.agreeing == 1 and agreement.differing() == [other]
    assert agreement.totals("ours") == {"unary": 5} and agreement.repairs("theirs") == {"unary": 1, "other": 1}


def test_perturbed_pairs_keep_the_words_and_change_the_brackets(treebanks: Path) -> None:
    gold, test = reference.perturbed_pairs(treebanks / "ptb-sample", 40, seed=3)
    assert (gold, test) == reference.perturbed_pairs(treebanks / "ptb-sample", 40, seed=3)
    assert len(gold) == len(test) == 40
    rows = evalb.score_trees([reference.as_top(g) for g in gold], [reference.as_top(t) for t in test],
                             "COLLINS").sentences
    assert len(rows) == 40  # same words: evalb excludes none
    assert all("-NONE-" not in line for line in gold)
    assert sum(row.gold_brackets + row.test_brackets - 2 * row.matched > 0 for row in rows) >= 35


def test_the_benchmark_skips_without_a_copy_of_the_analyser(monkeypatch, capsys) -> None:
    monkeypatch.delenv("BPA_REFERENCE", raising=False)
    assert bench.main([]) == 0
    assert capsys.readouterr().out.startswith("skipped: give --analyser DIR")


def test_the_benchmark_refuses_a_folder_that_is_not_the_analyser(tmp_path, capsys) -> None:
    assert bench.main(["--analyser", str(tmp_path)]) == 2
    assert "not a copy of jkkummerfeld/berkeley-parser-analyser" in capsys.readouterr().err
