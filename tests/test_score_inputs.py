"""``mlparse score`` on CoNLL-U that depeval refuses, on a UD split without ``--task``, on a folder, and a
multiword range that runs backwards (issue 40, findings 4 and 19)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.trees.dependency import ConlluError, parse_conllu
from helpers.dep_fixtures import conllu_text

runner = CliRunner()


def score(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["score", *args], env={"COLUMNS": "300"})


@pytest.fixture()
def gold(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "tiny" / "english" / "test.conllu"
    path.parent.mkdir(parents=True)
    path.write_text(conllu_text(), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", ["bom", "no-final-blank-line"])
def test_predictions_depeval_refuses_are_refused_before_anything_is_written(gold: Path, tmp_path: Path,
                                                                            case: str) -> None:
    """They scored 100.00 and were written; `analyze errors` and `mlparse depeval` then refused the run."""
    text = conllu_text()
    pred = tmp_path / f"{case}.conllu"
    if case == "bom":
        pred.write_text("\ufeff" + text, encoding="utf-8")
        where, reason = f"{pred}:1:", "byte-order mark"
    else:
        pred.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
        where, reason = f"{pred}:{text.rstrip(chr(10)).count(chr(10)) + 1}:", "does not end with empty line"
    result = score(str(pred), "--gold", str(gold), "--name", case, "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"error: {where}") and reason in result.output, result.output
    assert "nothing written" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()
    depeval = runner.invoke(app, ["depeval", str(gold), str(pred)])
    assert depeval.exit_code != 0  # the same file, the same verdict


def test_a_gold_file_depeval_refuses_is_refused_too(gold: Path, tmp_path: Path) -> None:
    pred = tmp_path / "pred.conllu"
    pred.write_text(gold.read_text(encoding="utf-8"), encoding="utf-8")
    gold.write_text(gold.read_text(encoding="utf-8").rstrip("\n") + "\n", encoding="utf-8")
    result = score(str(pred), "--gold", str(gold), "--name", "x", "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1 and result.output.startswith(f"error: {gold}:"), result.output
    assert "does not end with empty line" in result.output and not (tmp_path / "runs").exists()


def test_a_scored_run_reads_back_in_analyze_errors(gold: Path, tmp_path: Path) -> None:
    pred = tmp_path / "crlf.conllu"
    pred.write_bytes(conllu_text().replace("\n", "\r\n").encode("utf-8"))  # both readers take CRLF
    result = score(str(pred), "--gold", str(gold), "--name", "crlf", "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / "runs" / "crlf").iterdir()
    assert runner.invoke(app, ["analyze", "errors", str(run)]).exit_code == 0


def test_the_task_follows_the_prepared_split_that_exists(gold: Path, tmp_path: Path) -> None:
    """A CoNLL-U prediction not named .conllu against FAMILY/LANGUAGE:SPLIT with only test.conllu prepared: it
    asked for test.trees and `mlparse prepare`."""
    pred = tmp_path / "pred.txt"
    pred.write_text(gold.read_text(encoding="utf-8"), encoding="utf-8")
    result = score(str(pred), "--gold", "tiny/english:test", "--name", "x", "--data-root", str(tmp_path / "data"),
                   "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("x: UAS 100.00  LAS 100.00")


def test_a_folder_given_as_predictions_is_named_a_folder(gold: Path, tmp_path: Path) -> None:
    result = score(str(tmp_path), "--gold", str(gold), "--name", "x", "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1
    assert f"{tmp_path} is a folder" in result.output and "no such" not in result.output


def test_a_multiword_range_that_runs_backwards_says_so() -> None:
    text = "5-3\tdont\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    with pytest.raises(ConlluError) as raised:
        parse_conllu(text, "x.conllu")
    assert "x.conllu:1" in str(raised.value) and "runs backwards" in str(raised.value)
    assert "neither a word number" not in str(raised.value)
