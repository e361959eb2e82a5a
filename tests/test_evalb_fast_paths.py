"""The compiled row printer and label sets against their pure-Python definitions; what the command imports."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

import evalb
from evalb.report import format_sentence

REPO = Path(__file__).resolve().parents[1]


def _rows_to_check() -> list[tuple[int, ...]]:
    rows = []
    line = 0
    for den in range(0, 161):  # every percentage of a small count, exact halves (1/32: 3.125) among them
        for num in range(0, den + 1):
            line += 1
            rows.append((line, den, 0, num, den, max(den - 1, 0), num % 7, den, num))
    rng = random.Random(7)
    for _ in range(3000):  # long sentences, big line numbers, counts in any order
        gold, test, words = rng.randint(0, 5000), rng.randint(0, 5000), rng.randint(0, 5000)
        rows.append((rng.randint(1, 10**7), rng.randint(0, 10**4), rng.choice([0, 1, 2, 3]), rng.randint(0, min(gold, test)),
                     gold, test, rng.randint(0, 400), words, rng.randint(0, words)))
    rows += [(1, 3, 0, 5, 3, 2, 0, 4, 7),  # more matched than gold or test, more correct tags than words
             (-1, -2, 1, -3, 4, -5, -6, 7, -8),  # negative counts: printf itself
             (10**12, 10**11, 0, 1, 3, 3, 0, 10**10, 10**10 - 1)]
    return rows


def test_compiled_rows_are_printf_rows():
    fast = pytest.importorskip("evalb._fast_report")
    rows = _rows_to_check()
    assert fast.format_rows(rows) == b"".join(map(format_sentence, rows))
    assert fast.format_rows([]) == b""


def test_an_exact_half_rounds_as_printf_does():
    fast = pytest.importorskip("evalb._fast_report")
    row = (1, 32, 0, 1, 32, 32, 0, 32, 1)  # 100/32 = 3.125, printed 3.12 (round half to even)
    assert fast.format_rows([row]) == format_sentence(row)
    assert b"   3.12   3.12 " in fast.format_rows([row])


def test_deleted_bracket_labels_add_the_eq_label_partners():
    fast = pytest.importorskip("evalb._fast")
    assert fast.deleted_bracket_labels([b"TOP", b","], [(b"ADVP", b"PRT")]) == [b"TOP", b","]
    assert fast.deleted_bracket_labels([b"TOP", b"PRT"], [(b"ADVP", b"PRT")]) == [b"TOP", b"PRT", b"ADVP"]
    # one pair, not a chain: X equals PRT, which equals the deleted ADVP, but X is not ADVP's partner
    assert fast.deleted_bracket_labels([b"ADVP"], [(b"ADVP", b"PRT"), (b"PRT", b"X")]) == [b"ADVP", b"PRT"]


@pytest.mark.parametrize("use_fast", [True, False])
def test_a_bracket_labelled_as_the_partner_of_a_deleted_label_is_deleted(use_fast):
    params = evalb.EvalbParams(delete_labels=[b"PRT"], eq_labels=[(b"ADVP", b"PRT"), (b"ADVP", b"X")])
    gold = "(S (ADVP (RB up)) (NP (NN a)))"
    test = "(S (X (RB up)) (NP (NN a)))"  # X equals ADVP, but only ADVP is PRT's partner: X stays
    row = evalb.score_trees([gold], [test], params, use_fast=use_fast).sentences[0]
    assert (row.matched, row.gold_brackets, row.test_brackets) == (2, 2, 3)


def test_the_package_names_load_on_first_use():
    assert evalb.score_trees is evalb.api.score_trees
    assert "score_trees" in dir(evalb) and set(evalb.__all__) <= set(dir(evalb))
    with pytest.raises(AttributeError):
        evalb.no_such_name  # noqa: B018


def test_the_command_imports_only_what_it_runs():
    code = "import sys, evalb.cli; print(sorted(m for m in sys.modules if m.startswith('evalb')))"
    modules = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": ""}).stdout
    assert "evalb.api" not in modules and "evalb.brackets" not in modules
    assert "evalb.engine" in modules
