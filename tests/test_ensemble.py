"""Ensembles: score averaging on hand-made numbers, identical members = one model, refusals, jack-knifed folds,
relation scores for decoded heads only, and `mlparse ensemble` end to end with the report row."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
import yaml
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.models.dep_parser import BiaffineParser
from mlparse.models.ensemble import (EnsembleError, EnsembleParser, average_charts, average_distributions,
                                     merge_inventories)
from mlparse.models.span_parser import build_parser
from mlparse.config import ModelConfig, SpanConfig
from mlparse.report.model import build_report
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.tasks.dependency import DependencyTask
from mlparse.train.folds import fold_of, fold_record, kept_indices
from mlparse.train.runner import RunOptions, load_splits, run_recipe
from helpers.dep_fixtures import SENTENCES, write_dep_recipe
from helpers.run_fixtures import TINY_MODEL, TINY_SPAN, TINY_TREES, tiny_trees, write_tiny_recipe

runner = CliRunner()


# -- averaging on hand-made scores -------------------------------------------------------------------------------
def test_probabilities_are_averaged_and_a_missing_label_has_probability_zero() -> None:
    a = torch.tensor([[0.5, 0.25, 0.25]]).log()
    b = torch.tensor([[0.9, 0.1]]).log()  # member b has labels 0 and 2 of the ensemble's 3
    maps = [torch.tensor([0, 1, 2]), torch.tensor([0, 2])]
    mean = average_distributions([a, b], maps, 3, "probability").exp()
    assert torch.allclose(mean, torch.tensor([[0.7, 0.125, 0.175]]))
    assert math.isclose(float(mean.sum()), 1.0, rel_tol=1e-6)
    logs = average_distributions([a, b], maps, 3, "log-probability")
    # the mean of the logarithms over the members that have the label
    expected = torch.tensor([[(math.log(0.5) + math.log(0.9)) / 2, math.log(0.25), (math.log(0.25) + math.log(0.1)) / 2]])
    assert torch.allclose(logs, expected)


def test_arc_probabilities_average_with_padding_heads_kept_impossible() -> None:
    arc1 = torch.tensor([[[0.0, 0.2, 0.8, 0.0]]]).log()  # [B=1, d=1, h=4]; head 3 is padding
    arc2 = torch.tensor([[[0.0, 0.6, 0.4, 0.0]]]).log()
    mean = average_distributions([arc1, arc2], [None, None], 4, "probability")
    assert torch.allclose(mean.exp(), torch.tensor([[[0.0, 0.4, 0.6, 0.0]]]))
    assert mean[0, 0, 3] == float("-inf")


def test_span_charts_are_averaged_and_a_label_counts_only_the_members_that_have_it() -> None:
    chart1 = torch.zeros(1, 3, 3, 3)
    chart2 = torch.zeros(1, 3, 3, 2)
    chart1[0, 0, 2] = torch.tensor([0.0, 4.0, 1.0])
    chart2[0, 0, 2] = torch.tensor([0.0, 2.0])  # member 2 knows EMPTY and the ensemble's label 2 only
    maps = [torch.tensor([0, 1, 2]), torch.tensor([0, 2])]
    mean = average_charts([chart1, chart2], maps, 3)
    assert mean[0, 0, 2].tolist() == [0.0, 4.0, 1.5]
    assert float(mean.abs().sum()) == 5.5  # zero off that span, as in both charts


def test_label_lists_are_merged_or_refused_naming_the_runs_and_the_labels() -> None:
    first = {"relations": ["<pad>", "<unk>", "nsubj", "obj"]}
    second = {"relations": ["<pad>", "<unk>", "obj", "nsubj", "iobj"]}
    with pytest.raises(EnsembleError, match=r"runs/a and runs/b: their relations differ \(only runs/b has 'iobj'\)"):
        merge_inventories(["runs/a", "runs/b"], [first, second], union=False)
    assert merge_inventories(["a", "b"], [first, second], union=True) == {
        "relations": ["<pad>", "<unk>", "nsubj", "obj", "iobj"]}
    same = merge_inventories(["a", "b"], [first, {"relations": ["<pad>", "<unk>", "obj", "nsubj"]}], union=False)
    assert same == first  # the same labels in another order: the first member's order


# -- parsers ----------------------------------------------------------------------------------------------------
def _dep_parser(tmp_path: Path, seed: int) -> tuple:
    config = load_recipe(write_dep_recipe(tmp_path))
    train = DependencyTask().read_split(Path(config.data.train))
    torch.manual_seed(seed)
    parser = BiaffineParser.build(config, train.examples)
    with torch.no_grad():  # the biaffine weights start at zero (every arc equally likely): make the scores differ
        for weight in (parser.scorer.arc.weight, parser.scorer.relation.weight):
            weight.normal_()
    return parser.eval(), train.examples


def test_relation_scores_for_the_decoded_heads_equal_those_of_the_full_tensor(tmp_path: Path) -> None:
    parser, examples = _dep_parser(tmp_path, 1)
    batch = parser.make_batch(examples)
    with torch.no_grad():
        scores = parser.scores(batch)
        _, relation = parser.scorer(parser.input(batch))  # [B, T, T, L]: every pair, as before
    heads = torch.randint(0, batch.mask.shape[1], batch.mask.shape)
    full = relation.float().log_softmax(-1)
    expected = full.gather(2, heads.unsqueeze(-1).unsqueeze(-1).expand(-1, -1, 1, full.shape[-1])).squeeze(2)
    assert torch.allclose(scores.relations_at(heads), expected, atol=1e-5)
    assert torch.allclose(scores.all_relations(), full, atol=1e-5)


def test_an_ensemble_of_identical_dependency_models_is_the_single_model(tmp_path: Path) -> None:
    parser, examples = _dep_parser(tmp_path, 1)
    twin, _ = _dep_parser(tmp_path, 2)
    twin.load_state_dict(parser.state_dict())
    ensemble = EnsembleParser([parser, twin, parser], ["a", "b", "a"]).eval()
    single = parser.predict(examples)
    assert ensemble.predict(examples) == single
    with torch.no_grad():
        one, three = parser.scores(parser.make_batch(examples)), ensemble.scores(ensemble.make_batch(examples))
    assert torch.allclose(three.arc, one.arc, atol=1e-5)
    heads = torch.tensor([[max(h, 0) for h in [0] + p.heads] + [0] * (one.arc.shape[1] - len(p.heads) - 1)
                          for p in single])
    assert torch.allclose(three.relations_at(heads), one.relations_at(heads), atol=1e-5)


def test_an_ensemble_of_two_dependency_models_decodes_their_mean_arc_probabilities(tmp_path: Path) -> None:
    first, examples = _dep_parser(tmp_path, 1)
    second, _ = _dep_parser(tmp_path, 2)
    ensemble = EnsembleParser([first, second]).eval()
    with torch.no_grad():
        a, b = first.scores(first.make_batch(examples)), second.scores(second.make_batch(examples))
        both = ensemble.scores(ensemble.make_batch(examples))
    mean = (a.arc.exp() + b.arc.exp()) / 2
    assert torch.allclose(both.arc.exp(), mean, atol=1e-6)
    from mlparse.models.dep_parser import decode_heads

    heads = decode_heads(mean.log(), [len(e.words) for e in examples], "mst")
    predicted = ensemble.predict(examples)
    assert [p.heads for p in predicted] == [heads[b, 1:len(e.words) + 1].tolist() for b, e in enumerate(examples)]
    assert [p.heads for p in predicted] != [p.heads for p in first.predict(examples)] or \
        [p.heads for p in predicted] != [p.heads for p in second.predict(examples)]


def test_an_ensemble_of_identical_span_models_is_the_single_model() -> None:
    config = ModelConfig(**{k: v for k, v in TINY_MODEL.items()})
    torch.manual_seed(3)
    parser = build_parser(config, tiny_trees(), span=SpanConfig(**TINY_SPAN)).eval()
    sentences = [[(leaf.tag, leaf.word) for leaf in tree.leaves()] for tree in tiny_trees()]
    ensemble = EnsembleParser([parser, parser]).eval()
    assert [str(t) for t in ensemble.predict(sentences)] == [str(t) for t in parser.predict(sentences)]
    with torch.no_grad():
        (one, _), (two, _) = parser.scores(parser.make_batch(sentences)), ensemble.scores(ensemble.make_batch(sentences))
    assert torch.equal(one, two)


def test_members_of_different_tasks_are_refused_naming_them(tmp_path: Path) -> None:
    dep, _ = _dep_parser(tmp_path, 1)
    span = build_parser(ModelConfig(**TINY_MODEL), tiny_trees(), span=SpanConfig(**TINY_SPAN))
    with pytest.raises(EnsembleError, match=r"cannot ensemble runs/span \(span parser, constituency\) and runs/dep "
                                            r"\(biaffine parser, dependency\)"):
        EnsembleParser([span, dep], ["runs/span", "runs/dep"])


def test_span_members_with_different_labels_are_refused() -> None:
    trees = tiny_trees()
    first = build_parser(ModelConfig(**TINY_MODEL), trees, span=SpanConfig(**TINY_SPAN))
    second = build_parser(ModelConfig(**TINY_MODEL), trees[:3], span=SpanConfig(**TINY_SPAN))  # no ADJP, ADVP, PP, SQ ...
    with pytest.raises(EnsembleError, match=r"their span labels differ \(only a has 'ADJP'"):
        EnsembleParser([first, second], ["a", "b"])
    assert "SQ" in EnsembleParser([first, second], ["a", "b"], union=True).inventories["span labels"]


# -- folds ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("assignment", ["modulo", "permutation"])
def test_the_folds_partition_the_training_set(assignment: str) -> None:
    n, folds = 23, 4
    held_out = [set(fold_record("train", n, folds, k, assignment, 7)["held_out"]) for k in range(folds)]
    assert set().union(*held_out) == set(range(n)) and sum(len(h) for h in held_out) == n
    for k in range(folds):
        assert set(kept_indices(n, folds, k, assignment, 7)) == set(range(n)) - held_out[k]
        assert abs(len(held_out[k]) - n / folds) < 1
    if assignment == "modulo":
        assert held_out[1] == {1, 5, 9, 13, 17, 21}
    else:
        assert list(fold_of(n, folds, assignment, 7)) == list(fold_of(n, folds, assignment, 7))
        assert list(fold_of(n, folds, assignment, 7)) != list(fold_of(n, folds, assignment, 8))


def test_a_fold_run_trains_on_the_other_folds_and_records_them(tmp_path: Path) -> None:
    config = load_recipe(write_dep_recipe(tmp_path), ["data.folds=3", "data.fold=1"])
    notes: list = []
    train, _, _ = load_splits(config, DependencyTask(), notes)
    assert [list(s.words) for s in train.examples] == [words.split() for k, (words, *_) in enumerate(SENTENCES) if k % 3 != 1]
    assert "fold 1 of 3 left out" in notes[0] and len(notes) == 1
    capped = load_recipe(write_dep_recipe(tmp_path), ["data.folds=3", "data.fold=1", "data.max_train_sentences=2"])
    notes = []
    train, _, _ = load_splits(capped, DependencyTask(), notes)
    assert [list(s.words) for s in train.examples] == [SENTENCES[0][0].split(), SENTENCES[2][0].split()]
    assert notes[1].startswith("training on 2 of the 5 sentences of ") and notes[1].endswith(
        " outside its held-out fold (the rest beyond data.max_train_sentences=2)")
    plain = load_recipe(write_dep_recipe(tmp_path))
    assert config.hash() != plain.hash() and load_recipe(write_dep_recipe(tmp_path), ["data.fold_seed=1"]).hash() == plain.hash()


# -- the command, the run directory and the report --------------------------------------------------------------
def test_mlparse_ensemble_of_one_run_twice_scores_as_the_run(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 2}))
    member = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    path = RunDir.for_recipe(tmp_path / "runs", config).path
    result = runner.invoke(app, ["ensemble", str(path), str(path), "--runs-dir", str(tmp_path / "runs"),
                                 "--name", "twice"])
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "runs" / "twice").iterdir()
    saved = json.loads((folder / "results.json").read_text())
    assert saved["status"] == COMPLETE and saved["dev"]["f1"] == member.dev.f1 and saved["test"]["f1"] == member.test.f1
    assert [m["run_id"] for m in saved["members"]] == [member.run_id] * 2
    assert saved["members"][0]["dev"]["f1"] == member.dev.f1 and saved["averaging"] == "probability"
    assert (folder / "dev.pred.trees").read_text() == (path / "dev.pred.trees").read_text()
    definition = yaml.safe_load((folder / "ensemble.yaml").read_text())
    assert definition["members"][0]["run_dir"] == str(path)


def test_mlparse_ensemble_jackknifes_a_recipe_and_the_report_shows_the_ensemble(tmp_path: Path) -> None:
    recipe = write_dep_recipe(tmp_path, train={"max_epochs": 4})
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["ensemble", str(recipe), "--folds", "2", "--runs-dir", str(runs)])
    assert result.exit_code == 0, result.output
    members = sorted(p for p in (runs / "tiny-dep").iterdir())
    assert len(members) == 2
    held = [json.loads((m / "fold.json").read_text()) for m in members]
    assert sorted(h["fold"] for h in held) == [0, 1]
    assert sorted(i for h in held for i in h["held_out"]) == list(range(len(SENTENCES)))
    (folder,) = (runs / "ensemble-tiny-dep").iterdir()
    saved = json.loads((folder / "results.json").read_text())
    assert saved["status"] == COMPLETE and saved["dev"]["las"] is not None and len(saved["members"]) == 2
    assert saved["system"] == "mlparse biaffine (self-attentive, words + gold UPOS), ensemble of 2"
    report = build_report(runs, published_mode="none")
    rows = [row.system for board in report.leaderboards for row in board.measured_rows()]
    assert "mlparse biaffine (self-attentive, words + gold UPOS), ensemble of 2" in rows


def test_mlparse_ensemble_refuses_runs_of_different_tasks_in_one_line(tmp_path: Path) -> None:
    span = load_recipe(write_tiny_recipe(tmp_path / "s", train={"max_epochs": 1}))
    dep = load_recipe(write_dep_recipe(tmp_path / "d", train={"max_epochs": 1}))
    for config in (span, dep):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    paths = [str(RunDir.for_recipe(tmp_path / "runs", c).path) for c in (span, dep)]
    result = runner.invoke(app, ["ensemble", *paths, "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1
    assert f"cannot ensemble {paths[0]} and {paths[1]}: their task differs (constituency against dependency)" in \
        " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_an_ensemble_recipe_trains_a_repeated_recipe_with_the_next_seeds(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    (tmp_path / "pair.yaml").write_text(yaml.safe_dump({"name": "pair", "ensemble": {
        "members": [recipe.name, recipe.name], "average": "log-probability"}}), encoding="utf-8")
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["ensemble", str(tmp_path / "pair.yaml"), "--runs-dir", str(runs)])
    assert result.exit_code == 0, result.output
    seeds = sorted(yaml.safe_load((p / "recipe.yaml").read_text())["train"]["seed"] for p in (runs / "tiny").iterdir())
    assert seeds == [1, 2]
    (folder,) = (runs / "pair").iterdir()
    assert json.loads((folder / "results.json").read_text())["averaging"] == "log-probability"
    result = runner.invoke(app, ["run", str(tmp_path / "pair.yaml")])
    assert result.exit_code == 2 and "run it with `mlparse ensemble" in " ".join(result.output.split())
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"ensemble": {"members": [recipe.name], "fold": 2}}))
    result = runner.invoke(app, ["ensemble", str(tmp_path / "bad.yaml")])
    assert result.exit_code == 1 and "unknown key ensemble.fold; valid keys: members, folds" in " ".join(result.output.split())


def test_a_heterogeneous_jackknifed_ensemble_of_a_self_attentive_and_a_bilstm_recipe(tmp_path: Path) -> None:
    attentive = write_dep_recipe(tmp_path, train={"max_epochs": 1})
    data = yaml.safe_load(attentive.read_text())
    data["name"], data["model"]["encoder"] = "tiny-dep-bilstm", "bilstm"
    data["biaffine"].update({"lstm_hidden": 8, "lstm_layers": 1, "lstm_dropout": 0.0})
    bilstm = tmp_path / "tiny-dep-bilstm.yaml"
    bilstm.write_text(yaml.safe_dump(data), encoding="utf-8")
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["ensemble", str(attentive), str(bilstm), "--folds", "2", "--runs-dir", str(runs)])
    assert result.exit_code == 0, result.output
    (folder,) = (runs / "ensemble-tiny-dep+tiny-dep-bilstm").iterdir()
    saved = json.loads((folder / "results.json").read_text())
    assert saved["system"] == ("1 × mlparse biaffine (self-attentive, words + gold UPOS) + 1 × mlparse biaffine "
                               "(BiLSTM, words + gold UPOS), ensemble of 2")
    folds = [json.loads(p.read_text())["fold"] for name in ("tiny-dep", "tiny-dep-bilstm")
             for p in (runs / name).glob("*/fold.json")]
    assert folds == [0, 1]


def test_mlparse_ensemble_refuses_runs_trained_on_files_with_different_labels(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    fewer = tmp_path / "data" / "fewer.trees"
    fewer.write_text("\n".join(TINY_TREES[:3]) + "\n", encoding="utf-8")  # no ADJP, ADVP, PP, SQ
    configs = [load_recipe(recipe), load_recipe(recipe, [f"data.train={fewer}"])]
    for config in configs:
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    paths = [str(RunDir.for_recipe(tmp_path / "runs", c).path) for c in configs]
    result = runner.invoke(app, ["ensemble", *paths, "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cannot ensemble {paths[0]} and {paths[1]}: their span labels differ (only {paths[0]} has 'ADJP'" in \
        " ".join(result.output.split())


def test_the_report_reads_members_tolerantly_and_names_an_ensemble_row(tmp_path: Path) -> None:
    from mlparse.run_index.collect import collect_runs
    from mlparse.report.leaderboard import build_leaderboards
    from helpers.report_fixtures import write_raw, write_run

    runs = tmp_path / "runs"
    member = {"run_dir": "runs/demo/a", "run_id": "a", "recipe": "demo", "recipe_hash": "h", "system": "mlparse span"}
    write_run(runs, "demo", "a", test={"f1": 80.0})
    write_run(runs, "mine", "e", test={"f1": 81.0}, members=[member, {**member, "run_id": "b"}], averaging="probability")
    write_raw(runs, "bad", "x", json.dumps({"schema_version": 1, "status": "complete", "members": "a, b"}))
    records = {r.recipe: r for r in collect_runs(runs)}
    assert len(records["mine"].results.members) == 2 and records["mine"].results.averaging == "probability"
    assert records["bad"].results.members == [] and any("members: expected a list of objects" in w
                                                         for w in records["bad"].warnings)
    (board,) = build_leaderboards([records["demo"], records["mine"]], None)
    assert sorted((row.system, row.cells["hebrew"].value) for row in board.measured_rows()) == [
        ("mlparse span", 80.0), ("mlparse span, ensemble of 2", 81.0)]
