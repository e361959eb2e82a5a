"""``mlparse score`` takes root wrappers off gold and predictions by one rule (issue 40, finding 1): an ``(S1 …)``
gold file, lowercase ``(root …)`` and nested ``(ROOT (S1 …))`` predictions score as the bare trees do, and a
wrapper label that stays (it has siblings) is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Tuple

import pytest
from typer.testing import CliRunner

from mlparse.cli import app

runner = CliRunner()

GOLD = [
    "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)))",
    "(TOP (S (NP (PRP he)) (VP (VBD left) (ADVP (RB very) (RB early))) (. .)))",
    "(TOP (FRAG (NP (NN yes)) (. !)))",
]


def _wrap(tree: str, *labels: str) -> str:
    """``tree`` (TOP-rooted) under the chain of root labels ``labels``, outermost first."""
    inner = tree[len("(TOP "):-1]
    for label in reversed(labels):
        inner = f"({label} {inner})"
    return inner


def _write(path: Path, lines: List[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _score(pred: Path, gold: Path, runs: Path) -> Tuple[str, dict]:
    result = runner.invoke(app, ["score", str(pred), "--gold", str(gold), "--name", "G", "--runs-dir", str(runs)])
    assert result.exit_code == 0, result.output
    written = Path(result.output.strip().splitlines()[-1].removeprefix("written: "))
    return result.output, json.loads((written / "results.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("labels", [("S1",), ("s1",), ("ROOT",), ("root",), ("ROOT", "S1"), ("TOP", "S1"), ("",)])
def test_a_wrapped_gold_file_scores_perfect_predictions_at_100(tmp_path: Path, labels: Tuple[str, ...]) -> None:
    gold = _write(tmp_path / "gold.trees", [_wrap(t, *labels) for t in GOLD])
    output, results = _score(_write(tmp_path / "pred.trees", GOLD), gold, tmp_path / "runs")
    assert results["test"]["f1"] == 100.0, output
    assert "root set to TOP" not in output  # it was a wrapper taken off, not a root relabelled
    named = "(" + " (".join(labels) + " …" + ")" * len(labels)
    if labels[0] == "TOP":  # a prepared split's root: only the wrapper under it is named
        named = "(S1 …)"
    assert named in output


@pytest.mark.parametrize("labels", [("root",), ("Root",), ("ROOT", "S1"), ("root", "s1"), ("TOP", "S1"),
                                    ("", "ROOT")])
def test_predictions_in_any_case_or_nested_wrappers_score_at_100(tmp_path: Path, labels: Tuple[str, ...]) -> None:
    gold = _write(tmp_path / "gold.trees", [_wrap(t, "ROOT") for t in GOLD])
    output, results = _score(_write(tmp_path / "pred.trees", [_wrap(t, *labels) for t in GOLD]), gold,
                             tmp_path / "runs")
    assert results["test"]["f1"] == 100.0, output
    removed = tuple(label for label in labels if label != "TOP")
    named = "(" + " (".join(removed) + " …" + ")" * len(removed)
    assert f"removed the root wrapper {named} of 3 of 3 trees" in output


def test_a_wrapper_label_with_siblings_is_kept_and_named(tmp_path: Path) -> None:
    """``(ROOT (S1 (S …)) (. .))``: S1 is not the only child, so it is no wrapper and costs a bracket; say so."""
    gold = _write(tmp_path / "gold.trees", ["(TOP (S (NP (PRP he)) (VP (VBD left))) (. .))"])
    pred = _write(tmp_path / "pred.trees", ["(ROOT (S1 (S (NP (PRP he)) (VP (VBD left)))) (. .))"])
    output, results = _score(pred, gold, tmp_path / "runs")
    assert results["test"]["precision"] < 100.0
    assert "kept (S1 …) under the root of 1 of 1 predicted trees" in output
    assert any("kept (S1 …)" in note for note in results["notes"])
