"""`mlparse parse`: tokenized and bracketed input, empty lines, length limit, tagging head."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.trees.reader import parse_bracketed
from helpers.run_fixtures import TINY_TREES, write_tiny_recipe

runner = CliRunner()


def train_tiny(tmp_path: Path, **model: object) -> Path:
    recipe = write_tiny_recipe(tmp_path, model={"max_len": 12, **model}, train={"max_epochs": 40, "batch_size": 8})
    config = load_recipe(recipe)
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    return RunDir.for_recipe(tmp_path / "runs", config).path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("parse"))


def test_bracketed_input_reparses_with_gold_tags(run_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.trees"
    # multi-line trees and another root convention are fine: only words and tags are used
    source.write_text("( (S (NP (DT the) (NN dog))\n   (VP (VBZ barks)) (. .)) )\n" + "\n".join(TINY_TREES[1:4]) + "\n")
    out = tmp_path / "out.trees"
    result = runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(source), "--output", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert len(lines) == 4
    assert lines == TINY_TREES[:4]  # the model was trained to fit these trees


def test_tokenized_input_gets_placeholder_tags_and_keeps_empty_lines(run_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("the dog barks .\n\nhello\n")
    result = runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(source)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and lines[1] == ""
    assert lines[0].startswith("(TOP ") and "(UNK dog)" in lines[0] and "(UNK .)" in lines[0]
    assert lines[2] == "(TOP (NP (UNK hello)))"


def test_input_starting_with_a_byte_order_mark_parses_as_without(run_dir: Path, tmp_path: Path) -> None:
    for name, text in [("in.trees", "\n".join(TINY_TREES[:3]) + "\n"), ("in.txt", "the dog barks .\nhello\n")]:
        plain, marked = tmp_path / name, tmp_path / f"bom-{name}"
        plain.write_text(text, encoding="utf-8")
        marked.write_text("\ufeff" + text, encoding="utf-8")
        outputs = [runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(p)]) for p in (plain, marked)]
        assert [r.exit_code for r in outputs] == [0, 0], outputs[1].output
        assert outputs[1].stdout == outputs[0].stdout and "\ufeff" not in outputs[1].stdout


def test_sentence_beyond_position_table_is_a_clear_error(run_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "long.txt"
    source.write_text("a b\n" + " ".join(["w"] * 11) + "\n")
    result = runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(source)])
    assert result.exit_code == 1
    assert f"{source}:2:" in result.output and "11 words" in result.output and "maximum of 10" in result.output
    assert "Traceback" not in result.output


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["parse", "--model", str(tmp_path)], input="a b\n")
    assert result.exit_code == 1 and "best.pt" in result.output


def tag_accuracy(gold_file: Path, predicted_file: Path) -> float:
    """Percent of words whose predicted tag is the gold one, counted here from the two files."""
    gold = parse_bracketed(gold_file.read_text()).trees
    predicted = parse_bracketed(predicted_file.read_text()).trees
    assert len(gold) == len(predicted) > 0
    pairs = [(g.tag, p.tag) for a, b in zip(gold, predicted) for g, p in zip(a.leaves(), b.leaves(), strict=True)]
    return 100.0 * sum(g == p for g, p in pairs) / len(pairs)


def test_tagging_head_predicts_tags_for_tokenized_input(run_dir: Path, tmp_path: Path) -> None:
    without_head = json.loads((run_dir / "results.json").read_text())
    assert [without_head[split]["tagging_accuracy"] for split in ("dev", "test")] == [None, None]  # no tags predicted
    run_dir = train_tiny(tmp_path, predict_tags=True, d_tag_hidden=16)
    results = json.loads((run_dir / "results.json").read_text())
    for split in ("dev", "test"):  # reported when tags are predicted, and right
        expected = tag_accuracy(tmp_path / "data" / f"{split}.trees", run_dir / f"{split}.pred.trees")
        assert results[split]["tagging_accuracy"] == pytest.approx(expected, abs=1e-4), split
    result = runner.invoke(app, ["parse", "--model", str(run_dir)], input="the dog barks .\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == TINY_TREES[0]  # words and tags both learned


def _conllu(sentences: list) -> str:
    """CoNLL-U of (words, xpos or None) pairs, each after a comment; heads and relations left blank."""
    blocks = []
    for k, (words, tags) in enumerate(sentences, start=1):
        rows = [f"{i}\t{w}\t_\t_\t{tags[i - 1] if tags else '_'}\t_\t_\t_\t_\t_" for i, w in enumerate(words, start=1)]
        blocks.append(f"# sent_id = {k}\n" + "\n".join(rows) + "\n\n")
    return "".join(blocks)


def test_conllu_input_is_read_by_its_form_and_xpos_columns(run_dir: Path, tmp_path: Path) -> None:
    """Issue 40, finding 3: a constituency model read CoNLL-U as text, one "sentence" per line (5964 trees for
    245 sentences).  Now: one tree per sentence, its words and XPOS tags as a tree's, by suffix or content."""
    trees = [parse_bracketed(text).trees[0] for text in TINY_TREES[:2]]
    text = _conllu([([leaf.word for leaf in t.leaves()], [leaf.tag for leaf in t.leaves()]) for t in trees]
                   + [(["hello"], None)])
    by_suffix = tmp_path / "in.conllu"
    by_suffix.write_text(text, encoding="utf-8")
    out = tmp_path / "out.trees"
    result = runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(by_suffix), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 trees written" in result.output
    assert out.read_text().splitlines() == TINY_TREES[:2] + ["(TOP (NP (UNK hello)))"]
    by_content = runner.invoke(app, ["parse", "--model", str(run_dir)], input=text)  # stdin: no suffix
    assert by_content.exit_code == 0, by_content.output
    assert by_content.stdout == out.read_text()
    named = tmp_path / "in.txt"
    named.write_text("\n" + text.split("\n", 1)[1], encoding="utf-8")  # no comment first: a word line
    explicit = runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(named), "--format", "conllu"])
    assert explicit.exit_code == 0 and explicit.stdout == out.read_text(), explicit.output


def test_malformed_conllu_input_names_its_line(run_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "bad.conllu"
    source.write_text("1\tthe\t_\t_\tDT\t_\t_\t_\t_\t_\n2\tdog\n\n", encoding="utf-8")
    result = runner.invoke(app, ["parse", "--model", str(run_dir), "--input", str(source)])
    assert result.exit_code == 1 and f"{source}:2" in result.output and "Traceback" not in result.output
