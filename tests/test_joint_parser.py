"""The joint span + dependency parser (kind ``joint``) end to end: the generic trainer, evalb and depeval
scores, both predictions, resume, ``mlparse parse``, and the joint task's data checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from helpers.joint_fixtures import TINY_HEADS, conllu_of, write_joint_data, write_joint_recipe
from mlparse.config import ConfigError, load_recipe
from mlparse.models.joint_parser import JointParser
from mlparse.models.registry import parser_class
from mlparse.results import COMPLETE, FAILED
from mlparse.run_dir import RunDir
from mlparse.tasks import DataError, task_for
from mlparse.tasks.joint import JointPrediction
from mlparse.train import checkpoint
from mlparse.train.runner import RunError, RunOptions, run_recipe
from mlparse.trees.dependency import DependencyPrediction
from mlparse.trees.tree import Leaf
from helpers.run_fixtures import TINY_TREES, Record
from helpers.train_fixtures import Interrupt, StopAfter, log_without_times, same_weights, weights


@pytest.fixture(scope="module")
def overfit(tmp_path_factory):
    """A tiny joint model trained until it knows its 8 training sentences (dev = test = train): (config, results)."""
    tmp_path = tmp_path_factory.mktemp("overfit")
    config = load_recipe(write_joint_recipe(tmp_path))
    return config, run_recipe(config, RunOptions(runs_dir=tmp_path / "runs")), tmp_path / "runs"


def test_a_tiny_joint_model_learns_its_trees_and_dependencies_and_writes_both(overfit) -> None:
    config, results, runs = overfit
    assert parser_class("joint") is JointParser and config.task == "joint"
    assert results.status == COMPLETE and results.task == "joint" and results.model == "joint"
    for scores in (results.dev, results.test):  # dev = test = train here
        assert (scores.f1, scores.uas, scores.las) == (100.0, 100.0, 100.0)
    assert results.dev.scorer.startswith("evalb COLLINS.prm + depeval") and results.dev.scorer.endswith("(conll18)")
    assert results.system == "mlparse joint LAL (CharLSTM + words)"
    run_dir = RunDir.for_recipe(runs, config)
    assert run_dir.pred("dev", ".trees").read_text().splitlines() == TINY_TREES
    assert run_dir.pred("dev", ".conllu").read_text() == conllu_of()
    assert "Bracketing FMeasure" in run_dir.report("test", ".evalb").read_text()
    assert "LAS        |    100.00" in run_dir.report("test", ".depeval").read_text()
    saved = json.loads(run_dir.results.read_text())
    assert saved["dev"]["f1"] == saved["dev"]["las"] == saved["dev"]["uas"] == 100.0
    entries = [json.loads(line) for line in run_dir.log.read_text().splitlines()]
    assert {e["metric"] for e in entries} == {"f1"}
    # the same weights decoded exactly (spans and heads together) find the same trees
    from mlparse.package import load_package

    parser = load_package(run_dir.path, torch.device("cpu"))[0]
    parser.joint_config.decoder = "exact"
    task = task_for("joint")
    split = task.read_split(Path(config.data.dev))
    exact = task.score(split, parser.predict(split.input_sentences), config).scores
    assert (exact.f1, exact.uas, exact.las) == (100.0, 100.0, 100.0)


def _spans(tree, start: int = 0) -> tuple:
    """(end, [(start, end) of every constituent: every node above the words])."""
    if isinstance(tree, Leaf):
        return start + 1, []
    found, end = [], start
    for child in tree.children:
        end, inner = _spans(child, end)
        found += inner
    return end, found + [(start, end)]


def _words_headed_outside(prediction: JointPrediction) -> list:
    heads = prediction.dependencies.heads
    _, spans = _spans(prediction.tree)
    return [sum(1 for d in range(i + 1, j + 1) if not i < heads[d - 1] <= j) for i, j in spans]


def test_exact_decoding_gives_heads_consistent_with_the_bracketing_and_separate_need_not(tmp_path: Path) -> None:
    config = load_recipe(write_joint_recipe(tmp_path))
    task = task_for("joint")
    split = task.read_split(Path(config.data.dev))
    torch.manual_seed(5)
    parser = JointParser.build(config, split.examples).eval()  # untrained: arbitrary scores
    parser.joint_config.decoder = "exact"
    exact = parser.predict(split.input_sentences)
    assert all(set(_words_headed_outside(p)) <= {1} for p in exact)  # every constituent: one word headed outside
    parser.joint_config.decoder = "separate"
    separate = parser.predict(split.input_sentences)
    assert any(set(_words_headed_outside(p)) - {1} for p in separate)


def test_a_killed_joint_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    config = load_recipe(write_joint_recipe(tmp_path, train={"max_epochs": 3}))
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    with pytest.raises(Interrupt):  # 8 sentences / 4 -> 2 updates an epoch, a check after each epoch
        run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), StopAfter(3))
    run_dir = RunDir.for_recipe(tmp_path / "run", config)
    assert json.loads(run_dir.results.read_text())["status"] == FAILED
    saved_step = checkpoint.load(run_dir.last)["state"]["step"]
    again = Record()
    resumed = run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), again)
    assert again.steps[0] == saved_step + 1 and resumed.status == COMPLETE
    ref_dir = RunDir.for_recipe(tmp_path / "ref", config)
    assert same_weights(weights(ref_dir.last), weights(run_dir.last))
    assert log_without_times(ref_dir) == log_without_times(run_dir)
    assert (resumed.dev.f1, resumed.dev.las) == (reference.dev.f1, reference.dev.las)


def test_the_saved_model_predicts_the_same_and_mlparse_parse_writes_its_trees(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mlparse.cli import app
    from mlparse.package import load_package

    config = load_recipe(write_joint_recipe(tmp_path, train={"max_epochs": 2}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    parser = load_package(run_dir.path, torch.device("cpu"))[0]
    assert isinstance(parser, JointParser)
    sentences = [[(leaf.tag, leaf.word) for leaf in tree.leaves()] for tree in
                 task_for("joint").read_split(Path(config.data.dev)).trees]
    predictions = parser.predict(sentences)
    assert all(isinstance(p, JointPrediction) for p in predictions)
    assert [p.tree.to_bracketed() for p in predictions] == run_dir.pred("dev", ".trees").read_text().splitlines()
    source = tmp_path / "in.txt"
    source.write_text("the dog barks .\n\nJohn saw a cat .\n", encoding="utf-8")
    out = tmp_path / "out.trees"
    result = CliRunner().invoke(app, ["parse", "--model", str(run_dir.path), "--input", str(source),
                                      "--output", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and lines[1] == "" and lines[0].startswith("(TOP")
    # CoNLL-U (issue 40, finding 3): one tree per sentence from FORM and XPOS, as the same sentences as trees give
    outputs = []
    for name in (config.data.dev, str(Path(config.data.dev).with_suffix(".conllu"))):
        result = CliRunner().invoke(app, ["parse", "--model", str(run_dir.path), "--input", name])
        assert result.exit_code == 0, result.output
        outputs.append(result.stdout)
    assert outputs[1] == outputs[0] and len(outputs[1].splitlines()) == len(sentences)


def test_the_joint_task_reads_the_conllu_beside_the_trees_and_checks_them(tmp_path: Path) -> None:
    task = task_for("joint")
    paths = write_joint_data(tmp_path / "ok")
    split = task.read_split(Path(paths["dev"]))
    assert [list(e.dependencies.heads) for e in split.examples] == [heads for heads, _ in TINY_HEADS]
    assert [e.tree.to_bracketed() for e in split.examples] == TINY_TREES
    subset = split.subset([1, 6])
    assert [e.tree.to_bracketed() for e in subset.examples] == [TINY_TREES[1], TINY_TREES[6]]
    assert list(subset.examples[1].dependencies.deprels) == TINY_HEADS[6][1].split()

    missing = write_joint_data(tmp_path / "missing")
    Path(missing["dev"]).with_suffix(".conllu").unlink()
    with pytest.raises(DataError, match=r"dev\.conllu: not found.*mlparse prepare"):
        task.read_split(Path(missing["dev"]))

    wrong = conllu_of().replace("\tbarks\t", "\tbarked\t", 1)
    bad = write_joint_data(tmp_path / "bad", conllu=wrong)
    with pytest.raises(DataError) as error:
        task.read_split(Path(bad["dev"]))
    message = str(error.value)
    assert f"{Path(bad['dev']).with_suffix('.conllu')}:1:" in message and "dev.trees:1" in message
    assert "word 3 is 'barked' here but 'barks' in the tree" in message

    fewer = write_joint_data(tmp_path / "fewer", conllu=conllu_of(TINY_TREES[:7], TINY_HEADS[:7]))
    with pytest.raises(DataError, match="7 sentences, but .* holds 8 trees"):
        task.read_split(Path(fewer["dev"]))


def test_mlparse_run_says_what_to_do_when_the_dependencies_are_missing(tmp_path: Path) -> None:
    config = load_recipe(write_joint_recipe(tmp_path))
    Path(config.data.train).with_suffix(".conllu").unlink()
    with pytest.raises(RunError, match="Run `mlparse prepare`"):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))


def test_the_joint_task_scores_both_structures(tmp_path: Path) -> None:
    task = task_for("joint")
    config = load_recipe(write_joint_recipe(tmp_path))
    split = task.read_split(Path(config.data.dev))
    gold = [JointPrediction(e.tree, DependencyPrediction(list(e.dependencies.heads), list(e.dependencies.deprels)))
            for e in split.examples]
    wrong_arc = list(gold)
    first = split.examples[0]
    wrong_arc[0] = JointPrediction(first.tree, DependencyPrediction([2, 3, 0, 2], list(first.dependencies.deprels)))
    outcome = task.score(split, wrong_arc, config)
    words = sum(len(heads) for heads, _ in TINY_HEADS)
    assert outcome.scores.f1 == 100.0 and outcome.scores.uas == outcome.scores.las == round(100 * (words - 1) / words, 4)
    assert ".depeval" in outcome.extra_reports and "UAS" in outcome.extra_reports[".depeval"]


def test_joint_settings_are_checked_and_count_only_for_the_joint_kind(tmp_path: Path) -> None:
    recipe = write_joint_recipe(tmp_path)
    with pytest.raises(ConfigError, match="joint.lal_d_head must be even"):
        load_recipe(recipe, ["joint.lal_d_head=7"])
    with pytest.raises(ConfigError, match="joint.lal_query must be one of vector, matrix"):
        load_recipe(recipe, ["joint.lal_query=both"])
    span = load_recipe(recipe, ["model.kind=span"])
    assert span.hash() == load_recipe(recipe, ["model.kind=span", "joint.lal_heads=9"]).hash()
    assert load_recipe(recipe).hash() != load_recipe(recipe, ["joint.lal_heads=9"]).hash()


def test_mlparse_load_gives_a_joint_models_tree_and_heads(overfit) -> None:
    import mlparse

    config, _, runs = overfit
    parser = mlparse.load(RunDir.for_recipe(runs, config).path, device="cpu")
    both = parser.parse([("the", "DT"), ("dog", "NN"), ("barks", "VBZ"), (".", ".")])
    assert isinstance(both, JointPrediction)
    assert both.tree.to_bracketed() == TINY_TREES[0] and list(both.dependencies.heads) == TINY_HEADS[0][0]
    assert list(both.dependencies.deprels) == TINY_HEADS[0][1].split()
    tree = parser.parse(["the", "dog", "barks", "."], output="tree")
    assert tree.words() == ["the", "dog", "barks", "."]


def test_relations_scored_for_the_decoded_heads_are_those_of_the_full_relation_tensor(tmp_path: Path) -> None:
    config = load_recipe(write_joint_recipe(tmp_path))
    split = task_for("joint").read_split(Path(config.data.dev))
    torch.manual_seed(3)
    parser = JointParser.build(config, split.examples).eval()
    with torch.no_grad():
        batch = parser.make_batch(split.input_sentences)
        scores = parser.scores(batch)
        predictions = parser.decode(batch, scores, split.input_sentences)
        full = parser.dependency_scorer(scores.words)[1].float().log_softmax(-1)  # [B, N+1, N+1, R]: every pair
    for b, prediction in enumerate(predictions):
        for d, head in enumerate(prediction.dependencies.heads, start=1):
            row = full[b, d, head].clone()
            row[: parser.relations.num_specials] = float("-inf")
            assert prediction.dependencies.deprels[d - 1] == parser.relations.token(int(row.argmax()))
