"""One type for each constituency concept (issue 26 §2): the split, the scoring outcome, the loss output and the
joint gold each have one class, and the constituency split is the tasks' Split with its trees as examples."""

from __future__ import annotations

from pathlib import Path

import torch

from mlparse.models import base as model_base
from mlparse.structs.joint_tree import JointGold
from mlparse.tasks.base import EvalOutcome, Split
from mlparse.tasks.evalb_scoring import score_parses
from mlparse.tasks.treebank import TreeSplit, read_split
from helpers.run_fixtures import TINY_TREES


def write_trees(tmp_path: Path) -> Path:
    path = tmp_path / "dev.trees"
    path.write_text("\n".join(TINY_TREES) + "\n", encoding="utf-8")
    return path


def test_a_treebank_split_is_the_tasks_split_and_its_subset_keeps_lines_and_input_tags(tmp_path: Path) -> None:
    split = read_split(write_trees(tmp_path))
    assert isinstance(split, TreeSplit) and isinstance(split, Split)
    assert split.trees is split.examples and split.lines == list(range(1, len(TINY_TREES) + 1))
    split.input_tags = [["X"] * n for n in split.lengths]
    part = split.subset([2, 0])
    assert type(part) is TreeSplit and part.lines == [3, 1] and part.path == split.path
    assert [t.to_bracketed() for t in part.trees] == [TINY_TREES[2], TINY_TREES[0]]
    assert part.input_sentences[1] == [("X", "the"), ("X", "dog"), ("X", "barks"), ("X", ".")]
    assert TreeSplit(Path("f.trees"), part.trees).where(1) == "f.trees (tree 2)"  # no lines: the tree's number
    assert Split(Path("f.conllu"), ["a"]).where(0) == "f.conllu (sentence 1)"


def test_evalb_scoring_gives_the_tasks_outcome_with_its_evalb_result(tmp_path: Path) -> None:
    trees = read_split(write_trees(tmp_path)).trees
    outcome = score_parses(trees, trees, "COLLINS.prm")
    assert isinstance(outcome, EvalOutcome) and outcome.scores.f1 == 100.0
    rows = outcome.result.sentence_counts()
    assert len(rows) == len(trees) and all(matched == gold == test for matched, gold, test in rows)


def test_loss_parts_read_as_floats_and_absent_parts_as_zero() -> None:
    out = model_base.LossOutput(loss=torch.tensor(3.0), sentences=2, parts={"hinge": torch.tensor(2.5)})
    assert out.part("hinge") == 2.5 and out.part("tag") == 0.0


def test_the_joint_parser_trains_on_the_decoders_joint_gold() -> None:
    from mlparse.models import joint_parser

    assert joint_parser.JointGold is JointGold
    gold = JointGold({(0, 2): 1}, [-1, 2, 0], [3, 4])
    assert gold[0] == {(0, 2): 1} and list(gold[1]) == [-1, 2, 0]  # what the decoders read
    assert JointGold({}, [-1, 0]).relations == ()  # decoding needs no relations
