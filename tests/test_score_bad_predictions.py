"""``mlparse score`` and ``mlparse analyze errors`` on predictions that are valid but unusual, or broken (issue 34):
CoNLL-U on data without UD relations prints the metrics that apply and writes only once every step passed; a
HEAD outside the sentence, a second root or a cycle names the prediction file's line; depeval's refusals in
``analyze errors`` name the prediction file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.data.prepare import prepare_family
from helpers.dep_fixtures import conllu_text

runner = CliRunner()


@pytest.fixture(scope="module")
def ptb_sample(treebanks: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The prepared WSJ sample (its dependency version has relations derived from the trees, not UD's)."""
    data = tmp_path_factory.mktemp("ptb") / "data"
    prepare_family("ptb-sample", source=treebanks / "ptb-sample", languages=["english"], out=data)
    return data


def score(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["score", *args], env={"COLUMNS": "200"})


@pytest.mark.parametrize("scoring", ["conll18", "ptb"])
def test_conllu_on_ptb_sample_prints_its_line_without_clas(ptb_sample: Path, tmp_path: Path, scoring: str) -> None:
    """CLAS is defined over UD relations only: it is left out of the line (it crashed the command after the
    run was written)."""
    gold = ptb_sample / "ptb-sample" / "english" / "test.conllu"
    result = score(str(gold), "--gold", "ptb-sample/english:test", "--name", "X", "--data-root", str(ptb_sample),
                   "--runs-dir", str(tmp_path / "runs"), "--scoring", scoring)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("X: UAS 100.00  LAS 100.00  (depeval ")
    assert "CLAS" not in result.output and "Traceback" not in result.output and f"({scoring})" in result.output
    (run,) = (tmp_path / "runs" / "X").iterdir()
    scores = json.loads((run / "results.json").read_text())["test"]
    assert (scores["uas"], scores["las"], scores["clas"]) == (100.0, 100.0, None)


def test_a_step_that_fails_after_scoring_leaves_nothing_written(ptb_sample: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.tasks.dependency import DependencyTask

    def broken(cls, scores):  # type: ignore[no-untyped-def]
        raise ValueError("cannot make the line")

    monkeypatch.setattr(DependencyTask, "scorer_line", classmethod(broken))
    gold = ptb_sample / "ptb-sample" / "english" / "test.conllu"
    result = score(str(gold), "--gold", "ptb-sample/english:test", "--name", "X", "--data-root", str(ptb_sample),
                   "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1
    assert "cannot make the line; nothing written" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()


def word_line(text: str, sentence: int, word: int) -> int:
    """The 1-based line of ``word`` of ``sentence`` (both 1-based) in CoNLL-U ``text``."""
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        fields = line.split("\t")
        if len(fields) == 10 and fields[0] == "1":
            seen += 1
        if seen == sentence and len(fields) == 10 and fields[0] == str(word):
            return number
    raise AssertionError("no such word")


def with_heads(text: str, sentence: int, heads: dict) -> str:
    """``text`` with the HEAD of some words of ``sentence`` changed (``{word: head}``)."""
    lines = text.split("\n")
    for word, head in heads.items():
        index = word_line(text, sentence, word) - 1
        fields = lines[index].split("\t")
        fields[6] = str(head)
        lines[index] = "\t".join(fields)
    return "\n".join(lines)


def test_bad_heads_name_the_prediction_files_line(tmp_path: Path) -> None:
    """Issue 34: a head outside the sentence named the gold file's line, a cycle no line at all."""
    gold = tmp_path / "data" / "tiny" / "english" / "test.conllu"
    gold.parent.mkdir(parents=True)
    text = conllu_text()
    gold.write_text(text, encoding="utf-8")
    predicted = "# a comment the gold file does not have\n" + text  # the prediction's lines are not gold's
    cases = {
        "head": (with_heads(predicted, 2, {3: 99}), 2, 3, "word 3 has HEAD 99, outside 0..5"),
        "cycle": (with_heads(predicted, 1, {1: 2, 2: 1}), 1, 1, "the heads form a cycle: 1 -> 2 -> 1"),
        "roots": (with_heads(predicted, 5, {4: 0}), 5, 4, "2 words have HEAD 0 (words 3, 4)"),
    }
    for name, (content, sentence, word, reason) in cases.items():
        pred = tmp_path / f"{name}.conllu"
        pred.write_text(content, encoding="utf-8")
        result = score(str(pred), "--gold", str(gold), "--name", name, "--runs-dir", str(tmp_path / "runs"))
        assert result.exit_code == 1, result.output
        line = word_line(content, sentence, word)
        assert result.output.startswith(f"error: {pred}:{line}: sentence {sentence} "), result.output
        assert reason in result.output and "nothing written" in result.output
        assert str(gold) not in result.output
    assert not (tmp_path / "runs").exists()


def test_analyze_errors_names_the_prediction_file_and_line_of_depevals_refusals(tmp_path: Path) -> None:
    gold = tmp_path / "data" / "tiny" / "english" / "test.conllu"
    gold.parent.mkdir(parents=True)
    text = conllu_text()
    gold.write_text(text, encoding="utf-8")
    result = score(str(gold), "--gold", str(gold), "--name", "mine", "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / "runs" / "mine").iterdir()
    pred = run / "test.pred.conllu"
    lines = text.rstrip("\n").split("\n")
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")  # the last blank line cut off
    result = runner.invoke(app, ["analyze", "errors", str(run)])
    assert result.exit_code == 1
    assert f"error: {pred}:{len(lines)}: The CoNLL-U file does not end with empty line" in result.output
    cut = text.split("\n\n")
    pred.write_text("\n\n".join(cut[:3]) + "\n\n", encoding="utf-8")  # sentences 4 on missing
    result = runner.invoke(app, ["analyze", "errors", str(run)], env={"COLUMNS": "300"})
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert message.startswith(f"error: {pred}: at the end: The concatenation of tokens in gold file and in system "
                              "file differ!; First 20 differing characters")
    assert f"(gold: {gold}:" in message
