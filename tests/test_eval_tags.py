"""``data.eval_tags``: the POS tags a tag-input model gets on dev and test (gold, or predicted from a tag
file), its checks, what a run records and how the report shows it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import ConfigError, load_recipe
from mlparse.run_index.collect import parse_results
from mlparse.report.model import build_report
from mlparse.report.render_markdown import render_markdown
from mlparse.results import COMPLETE, RunResults
from mlparse.train import trainer as trainer_module
from mlparse.tasks.treebank import DataError, TreeSplit, read_split
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunError, RunOptions, run_recipe
from mlparse.train.tag_files import read_tags
from mlparse.trees.reader import parse_bracketed
from helpers.report_fixtures import write_run
from helpers.run_fixtures import REPO, TINY_TREES, Record, tiny_trees, write_tiny_recipe

DEMO = REPO / "recipes" / "demo.yaml"
OLD_DEMO_TAGS_ID = "a7d5bbce5ed5"  # recipes/demo.yaml with model.use_tags=true, before data.eval_tags existed


def tiny_split(tmp_path: Path) -> TreeSplit:
    path = tmp_path / "dev.trees"
    path.write_text("\n".join(TINY_TREES) + "\n", encoding="utf-8")
    return read_split(path)


def wrong_tags() -> List[List[str]]:
    """The tiny trees' tags with every DT replaced by NN: what a (poor) tagger might say."""
    return [["NN" if tag == "DT" else tag for tag in tree.tags()] for tree in tiny_trees()]


def retagged_trees(tags: List[List[str]]) -> List[str]:
    trees = tiny_trees()
    for tree, row in zip(trees, tags):
        for leaf, tag in zip(tree.leaves(), row):
            leaf.tag = tag
    return [tree.to_bracketed() for tree in trees]


def tag_recipe(tmp_path: Path, data: Dict[str, Any], model: Dict[str, Any] | None = None) -> Path:
    recipe = write_tiny_recipe(tmp_path, model={"use_tags": True, **(model or {})}, train={"max_epochs": 2})
    content = yaml.safe_load(recipe.read_text())
    content["data"].update(data)
    recipe.write_text(yaml.safe_dump(content, sort_keys=False), encoding="utf-8")
    return recipe


# --- recipe keys ----------------------------------------------------------------------------------


def test_eval_tags_at_its_default_keeps_existing_run_ids() -> None:
    assert load_recipe(DEMO, ["model.use_tags=true"]).data.eval_tags == "gold"
    then = ["train.subbatch_tokens=400"]  # demo.yaml's sub-batches when the id was pinned (before issue 46's auto)
    assert load_recipe(DEMO, [*then, "model.use_tags=true", "data.eval_tags=gold"]).hash()[:12] == OLD_DEMO_TAGS_ID
    predicted = load_recipe(DEMO, ["model.use_tags=true", "data.eval_tags=predicted", "data.dev_tags=d.tags",
                                   "data.test_tags=t.tags"])
    assert predicted.hash()[:12] != OLD_DEMO_TAGS_ID


@pytest.mark.parametrize("sets, message", [
    (["model.use_tags=true", "data.eval_tags=predicted"],
     r"data.eval_tags=predicted needs data.dev_tags and data.test_tags: a file of predicted tags per split"),
    (["model.use_tags=true", "data.eval_tags=predicted", "data.dev_tags=d.tags"], r"needs data.test_tags:"),
    (["model.use_tags=true", "span.predict_tags=true", "data.eval_tags=predicted"],
     r"tagging head \(span.predict_tags\) cannot supply them: it reads the encoder, which takes the input tags"),
    (["data.eval_tags=predicted", "data.dev_tags=d.tags", "data.test_tags=t.tags"],
     r"the model takes no POS tags as input \(model.use_tags is false\)"),
    (["model.use_tags=true", "data.dev_tags=d.tags"], r"data.dev_tags is given but data.eval_tags is gold"),
    (["model.use_tags=true", "data.eval_tags=stanford"], r"data.eval_tags must be one of gold, predicted"),
])
def test_inconsistent_eval_tags_settings_are_refused(sets: List[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_recipe(DEMO, sets)


# --- tag files ------------------------------------------------------------------------------------


def test_tag_files_as_lines_or_as_trees(tmp_path: Path) -> None:
    split = tiny_split(tmp_path)
    tags = wrong_tags()
    lines = tmp_path / "dev.tags"
    lines.write_text("\n".join(" ".join(row) for row in tags) + "\n\n", encoding="utf-8")  # trailing blank lines ok
    assert read_tags(lines, split) == tags
    trees = tmp_path / "dev.pred.trees"
    trees.write_text("\n".join(retagged_trees(tags)) + "\n", encoding="utf-8")
    assert read_tags(trees, split) == tags


def test_tag_file_mismatches_name_the_file_and_line(tmp_path: Path) -> None:
    split = tiny_split(tmp_path)
    rows = [" ".join(row) for row in wrong_tags()]
    path = tmp_path / "dev.tags"
    cases = [
        (rows[:2] + [rows[2] + " NN"] + rows[3:], rf"{path}:3: 2 tags for the 1 word of sentence 3 \({split.path}:3\)"),
        (rows[:4] + [""] + rows[5:], rf"{path}:5: an empty line for the 5 words of sentence 5 \({split.path}:5\)"),
        (rows[:-1], rf"{path}: 7 lines of tags for the 8 sentences of {split.path}"),
    ]
    for lines, message in cases:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with pytest.raises(DataError, match=message):
            read_tags(path, split)
    trees = retagged_trees(wrong_tags())
    trees[1] = trees[1].replace("(NNP John)", "(NNP Mary)")
    path.write_text("\n".join(trees) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path}:2: tree 2 does not have the words of sentence 2 "
                                        rf"\({split.path}:2\): word 1 is 'Mary', expected 'John'"):
        read_tags(path, split)
    path.write_text("(TOP (S (NN a)\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path}:1"):
        read_tags(path, split)
    with pytest.raises(DataError, match="tag file not found"):
        read_tags(tmp_path / "missing.tags", split)


# --- runs -----------------------------------------------------------------------------------------


def test_a_run_with_predicted_tags_parses_dev_and_test_with_them_and_records_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tags = wrong_tags()
    (tmp_path / "dev.tags").write_text("\n".join(" ".join(row) for row in tags) + "\n", encoding="utf-8")
    (tmp_path / "test.pred.trees").write_text("\n".join(retagged_trees(tags)) + "\n", encoding="utf-8")
    recipe = tag_recipe(tmp_path, {"eval_tags": "predicted", "dev_tags": str(tmp_path / "dev.tags"),
                                   "test_tags": str(tmp_path / "test.pred.trees")})
    config = load_recipe(recipe)
    seen: List[List[List[str]]] = []
    original = trainer_module.predict_in_batches

    def spy(model, sentences, lengths, budget, decoder, *rest):  # type: ignore[no-untyped-def]
        seen.append([[tag for tag, _ in sentence] for sentence in sentences])
        return original(model, sentences, lengths, budget, decoder, *rest)

    monkeypatch.setattr(trainer_module, "predict_in_batches", spy)
    import mlparse.train.train_run as runner_module  # where a run parses dev and test

    monkeypatch.setattr(runner_module, "predict_in_batches", spy)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert results.status == COMPLETE and seen and all(given == tags for given in seen)  # dev checks and final parses
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    for split in ("dev", "test"):
        predicted = parse_bracketed(run_dir.pred(split).read_text()).trees
        assert [tree.tags() for tree in predicted] == tags  # the leaves carry the tags the model was given
    gold = [tag for tree in tiny_trees() for tag in tree.tags()]
    given = [tag for row in tags for tag in row]
    accuracy = 100.0 * sum(a == b for a, b in zip(gold, given)) / len(gold)
    assert results.dev is not None and results.dev.tagging_accuracy == pytest.approx(accuracy, abs=1e-3)
    saved = RunResults.from_json_dict(json.loads(run_dir.results.read_text()))
    assert saved.eval_tags == "predicted" and saved.system == "mlparse span (CharLSTM + words + predicted tags)"
    assert saved.eval_tag_files == {"dev": str(tmp_path / "dev.tags"), "test": str(tmp_path / "test.pred.trees")}
    assert any("parsed with predicted POS tags" in note for note in saved.notes)
    assert any("parsed with predicted POS tags" in note for note in record.notes)
    assert saved.input_tags["source"] == "files"  # issue 23: the same, as data.tags: files writes it
    assert saved.input_tags["accuracy"]["dev"] == pytest.approx(accuracy, abs=0.01)
    assert load_recipe(tag_recipe(tmp_path / "files", {"tags": "files", "dev_tags": str(tmp_path / "dev.tags"),
                                                       "test_tags": str(tmp_path / "test.pred.trees")})).data.tags == "files"


def test_a_run_with_gold_tags_says_so(tmp_path: Path) -> None:
    config = load_recipe(tag_recipe(tmp_path, {}))
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert results.eval_tags == "gold" and results.system == "mlparse span (CharLSTM + words + gold tags)"
    assert results.input_tags == {"source": "gold"}
    assert results.dev is not None and results.dev.tagging_accuracy is None
    note = next(note for note in record.notes if "gold POS tags" in note)
    assert "not comparable" in note and note in results.notes
    plain = load_recipe(write_tiny_recipe(tmp_path / "plain", train={"max_epochs": 1}))
    assert run_recipe(plain, RunOptions(runs_dir=tmp_path / "runs")).eval_tags is None  # no tag input, nothing to say


def test_a_tag_file_that_does_not_fit_stops_the_run_before_training(tmp_path: Path) -> None:
    rows = [" ".join(row) for row in wrong_tags()]
    (tmp_path / "dev.tags").write_text("\n".join(rows[:3] + ["DT"] + rows[4:]) + "\n", encoding="utf-8")
    (tmp_path / "test.tags").write_text("\n".join(rows) + "\n", encoding="utf-8")
    recipe = tag_recipe(tmp_path, {"eval_tags": "predicted", "dev_tags": str(tmp_path / "dev.tags"),
                                   "test_tags": str(tmp_path / "test.tags")})
    record = Record()
    with pytest.raises(RunError, match=rf"{tmp_path / 'dev.tags'}:4: 1 tag for the 3 words of sentence 4"):
        run_recipe(load_recipe(recipe), RunOptions(runs_dir=tmp_path / "runs"), record)
    assert record.steps == []
    result = CliRunner().invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code != 0 and "dev.tags:4: 1 tag for the 3 words" in result.output
    assert "Traceback" not in result.output


# --- report ---------------------------------------------------------------------------------------


def test_the_report_shows_which_tags_runs_were_given(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "gold", "r1", test={"f1": 90.0}, eval_tags="gold", system="mlparse span (words + gold tags)")
    write_run(runs, "pred", "r1", test={"f1": 89.0}, eval_tags="predicted", eval_tag_files={"dev": "d", "test": "t"},
              system="mlparse span (words + predicted tags)")
    write_run(runs, "older", "r1", test={"f1": 88.0}, system="mlparse span (words + tags)")
    write_run(runs, "jack", "r1", test={"f1": 87.0}, eval_tags="predicted", system="mlparse span (words + jack-knifed tags)",
              input_tags={"source": "jackknife", "folds": 10, "accuracy": {"train": 96.93, "dev": 97.12, "test": 97.0}})
    write_run(runs, "goldnew", "r1", test={"f1": 86.0}, eval_tags="gold", system="mlparse span (words + gold tags)",
              input_tags={"source": "gold"})
    older = json.loads((runs / "older" / "r1" / "results.json").read_text())
    for key in ("eval_tags", "eval_tag_files"):  # a results.json written before these fields existed
        del older[key]
    (runs / "older" / "r1" / "results.json").write_text(json.dumps(older))
    lines = render_markdown(build_report(runs, published_mode="none")).splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("| Run |"))
    table = [[cell.strip() for cell in line.strip("|").split("|")]
             for line in itertools.takewhile(lambda text: text.startswith("|"), lines[start:])]
    column = table[0].index("Input tags")
    shown = {row[0].rstrip(" *"): row[column] for row in table[2:]}
    assert shown == {"gold/r1": "gold tags", "older/r1": "–", "pred/r1": "predicted (tag files)",
                     "jack/r1": "jack-knifed, 10 folds, test 97.0%", "goldnew/r1": "gold tags"}
    board = next(line for line in lines if "predicted tags" in line and line.startswith("| **"))
    assert "89.00" in board and "90.00" not in board  # gold- and predicted-tag runs never share a leaderboard row


def test_results_readers_accept_files_with_and_without_eval_tags(tmp_path: Path) -> None:
    assert RunResults.from_json_dict({"status": "complete"}).eval_tags is None
    results, warnings, _ = parse_results({"schema_version": 1, "status": "complete", "eval_tags": 3,
                                          "eval_tag_files": ["x"]}, tmp_path / "results.json")
    assert results is not None and results.eval_tags is None and results.eval_tag_files == {}
    assert any("eval_tags: expected a string" in w for w in warnings)
    assert any("eval_tag_files: expected an object" in w for w in warnings)
