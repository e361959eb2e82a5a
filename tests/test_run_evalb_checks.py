"""Issue 14: a run scores its dev and test splits gold against gold before training, and a dev split
with a punctuation-only sentence (evalb deletes its only word) trains and checkpoints like any other."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlparse.config import load_recipe
from mlparse.results import COMPLETE
from mlparse.tasks.treebank import TreeSplit, read_split
from mlparse.tasks.evalb_scoring import EvaluationError, check_scorable
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunError, RunOptions, run_recipe
from mlparse.trees.tree import Leaf, Tree
from helpers.run_fixtures import TINY_TREES, Record, write_tiny_recipe

#: IcePaHC's dev split has two of these (lines 1534 and 6906): COLLINS.prm deletes "." and its word.
PUNCTUATION_ONLY = "(TOP (. .))"


def test_run_with_a_punctuation_only_dev_sentence_completes(tmp_path: Path) -> None:
    dev = TINY_TREES[:3] + [PUNCTUATION_ONLY] + TINY_TREES[3:5]
    recipe = write_tiny_recipe(tmp_path, dev_trees=dev)
    overrides = ["train.max_epochs=1"]
    config = load_recipe(recipe, overrides)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    assert results.status == COMPLETE and run_dir.best.is_file() and run_dir.log.is_file()
    assert record.steps == [1, 2]  # 8 training trees in batches of 4, then the dev check
    for scores in (results.dev, results.test):
        assert scores is not None and scores.sentences == len(dev)
        assert scores.skip_sentences == 1 and scores.error_sentences == 0  # skipped, as the original evalb does
    row = run_dir.evalb("dev").read_text().splitlines()[3 + 3]  # header (3 lines), then sentence 4
    assert row.split()[:3] == ["4", "1", "2"]  # line 4, gold length 1, status 2 (skip)


def test_run_refuses_a_split_evalb_cannot_score_before_training(tmp_path: Path) -> None:
    """A dev split made only of punctuation: evalb scores no bracket in it, so dev F1 is undefined."""
    recipe = write_tiny_recipe(tmp_path, dev_trees=[PUNCTUATION_ONLY, "(TOP (. ?))"])
    config = load_recipe(recipe)
    record = Record()
    with pytest.raises(RunError) as info:
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    dev_path = tmp_path / "data" / "dev.trees"
    message = str(info.value)
    assert message.startswith(f"{dev_path}: evalb (COLLINS.prm) finds no bracket to score in any of the 2 dev")
    assert f"(first: {dev_path}:1)" in message and "before training" in message
    assert record.steps == []  # not one update
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    assert not run_dir.best.exists() and not run_dir.last.exists()
    assert '"status": "failed"' in run_dir.results.read_text()


def test_check_scorable_names_the_file_and_line_evalb_refuses(tmp_path: Path) -> None:
    path = tmp_path / "dev.trees"
    path.write_text("\n".join(TINY_TREES[:3]) + "\n", encoding="utf-8")
    split = read_split(path)
    check_scorable(split, "COLLINS.prm", "dev")  # fine as it is
    # a tree built in code, whose word holds a space, is a line evalb cannot read
    bad = Tree("TOP", [Tree("S", [Leaf("NN", "two words"), Leaf("VB", "go")])])
    split = TreeSplit(path, [split.trees[0], bad, split.trees[2]], [1, 2, 3])
    with pytest.raises(EvaluationError) as info:
        check_scorable(split, "COLLINS.prm", "dev")
    assert str(info.value).startswith(f"{path}:2: evalb (COLLINS.prm) cannot score this dev sentence even against "
                                      "itself: More than two elements in a bracket")
