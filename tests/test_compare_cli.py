"""``mlparse score`` and ``mlparse compare`` on tiny trained runs (constituency and dependency)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.run_dispatch import run_recipe
from mlparse.train.runner import RunOptions
from helpers.dep_fixtures import write_dep_recipe
from helpers.run_fixtures import train_tiny_seeds

runner = CliRunner()


@pytest.fixture(scope="module")
def span_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """Two tiny span runs differing only by seed (same data), and their runs folder."""
    tmp = tmp_path_factory.mktemp("compare")
    return tmp, train_tiny_seeds(tmp, train={"max_epochs": 2})


def _test_scores(run_dir: Path) -> dict:
    return json.loads((run_dir / "results.json").read_text())["test"]


def test_score_reproduces_a_trained_runs_scores(span_runs: tuple) -> None:
    tmp, (first, _) = span_runs
    result = runner.invoke(app, ["score", str(first / "test.pred.trees"), "--gold", str(tmp / "data" / "test.trees"),
                                 "--name", "mine", "--runs-dir", str(tmp / "runs")])
    assert result.exit_code == 0, result.output
    external = next((tmp / "runs" / "mine").iterdir())
    data = json.loads((external / "results.json").read_text())
    assert data["model"] == {"kind": "external", "name": "mine"}
    assert data["test"] == _test_scores(first)  # every key: F1, LR, LP, complete match, counts, scorer
    assert len(data["gold"]["test"]["sha256"]) == 64
    assert (external / "test.evalb").read_text() == (first / "test.evalb").read_text()
    # report reads it like any run
    report = runner.invoke(app, ["report", str(tmp / "runs")])
    assert report.exit_code == 0, report.output
    assert "mine" in report.output
    # the same predictions: nothing to tell apart
    compared = runner.invoke(app, ["compare", str(first), str(external), "--format", "json", "--samples", "200"])
    assert compared.exit_code == 0, compared.output
    (row,) = json.loads(compared.output)["comparisons"]
    assert row["delta"] == 0 and row["p_value"] == 1.0 and row["score_a"] == _test_scores(first)["f1"]
    assert set(row) >= {"a", "b", "runs_a", "runs_b", "split", "metric", "test", "method", "samples", "seed",
                        "score_a", "score_b", "delta", "p_value"} and "ci95" not in row
    assert row["test"] == "single-runs" and row["runs_b"] == [f"mine/{external.name}"]


def test_compare_two_seeds_json_table_markdown(span_runs: tuple) -> None:
    tmp, (first, second) = span_runs
    args = ["compare", str(first), str(second), "--samples", "500", "--runs-dir", str(tmp / "runs")]
    result = runner.invoke(app, args + ["--format", "json", "--method", "bootstrap", "--seed", "3"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["comparisons"]
    assert row["method"] == "bootstrap" and row["seed"] == 3 and row["samples"] == 500
    assert row["score_a"] == _test_scores(first)["f1"] and row["score_b"] == _test_scores(second)["f1"]
    assert row["delta"] == round(row["score_b"] - row["score_a"], 4)
    assert row["ci95"][0] <= row["delta"] <= row["ci95"][1]
    assert "seed_groups" not in row  # both runs are one group of seeds: no group test against itself
    again = runner.invoke(app, args + ["--format", "json", "--method", "bootstrap", "--seed", "3"])
    assert again.output == result.output
    assert "are seeds of one configuration" in " ".join(json.loads(result.output)["notes"])
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "paired randomization over sentences, 500 samples" in table.output
    assert "seed 12345" in table.output
    markdown = runner.invoke(app, args + ["--format", "markdown"])
    assert markdown.exit_code == 0 and "| A | B |" in markdown.output
    by_name = runner.invoke(app, ["compare", str(first), "tiny", "--samples", "100", "--runs-dir", str(tmp / "runs"),
                                  "--format", "json"])
    assert by_name.exit_code == 0, by_name.output
    (row,) = json.loads(by_name.output)["comparisons"]  # the recipe stands for both seeds: a run against a group
    assert row["test"] == "run-vs-group" and len(row["runs_b"]) == 2 and "permutation" in row["method"]


def test_three_systems_are_holm_adjusted(span_runs: tuple) -> None:
    tmp, (first, second) = span_runs
    result = runner.invoke(app, ["compare", str(first), str(second), str(second), "--samples", "300",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    output = json.loads(result.output)
    rows = output["comparisons"]
    assert len(rows) == 2 and all(r["p_holm"] >= r["p_value"] for r in rows)
    assert any("is given twice" in note for note in output["notes"])


def test_score_refuses_mismatches_and_writes_nothing(span_runs: tuple, tmp_path: Path) -> None:
    tmp, (first, _) = span_runs
    lines = (first / "test.pred.trees").read_text().splitlines()
    short = tmp_path / "short.trees"
    short.write_text("\n".join(lines[:-1]) + "\n")
    other = tmp_path / "other.trees"
    other.write_text("\n".join([lines[0].replace("dog", "cat", 1)] + lines[1:]) + "\n")
    broken = tmp_path / "broken.trees"
    broken.write_text("\n".join(lines[:2] + ["(TOP (S (NP (DT a)"] + lines[3:]) + "\n")
    runs = tmp_path / "runs"
    gold = str(tmp / "data" / "test.trees")
    for pred, expected in ((short, "sentences, but the gold file"), (other, f"{other}:1: sentence 1 has other words"),
                           (broken, f"{broken}:3")):
        result = runner.invoke(app, ["score", str(pred), "--gold", gold, "--name", "x", "--runs-dir", str(runs)])
        assert result.exit_code == 1, result.output
        assert expected in result.output and "Traceback" not in result.output
    assert not runs.exists()


def test_compare_refuses_a_different_gold_file(span_runs: tuple, tmp_path: Path) -> None:
    tmp, (first, _) = span_runs
    gold = tmp_path / "test.trees"
    gold.write_text((tmp / "data" / "test.trees").read_text() + "\n")  # the same trees, other bytes
    scored = runner.invoke(app, ["score", str(first / "test.pred.trees"), "--gold", str(gold), "--name", "y",
                                 "--runs-dir", str(tmp_path / "runs")])
    assert scored.exit_code == 0, scored.output
    external = next((tmp_path / "runs" / "y").iterdir())
    result = runner.invoke(app, ["compare", str(first), str(external)])
    assert result.exit_code == 1 and "not scored on the same gold test file" in result.output


def scored_dependency_run(tmp_path: Path, name: str, *options: str) -> tuple:
    """A tiny dependency run trained in ``tmp_path/runs`` and its test predictions scored by ``mlparse score`` as
    ``name`` (with ``options``): ``(config, run folder, scored folder)``."""
    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run = RunDir.for_recipe(tmp_path / "runs", config).path
    result = runner.invoke(app, ["score", str(run / "test.pred.conllu"), "--gold", config.data.test, "--name", name,
                                 *options, "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    return config, run, next((tmp_path / "runs" / name).iterdir())


def test_score_and_compare_a_dependency_run(tmp_path: Path) -> None:
    config, run, external = scored_dependency_run(tmp_path, "dep")
    assert json.loads((external / "results.json").read_text())["test"] == _test_scores(run)
    compared = runner.invoke(app, ["compare", str(run), str(external), "--metric", "uas", "--format", "json",
                                   "--samples", "100"])
    assert compared.exit_code == 0, compared.output
    (row,) = json.loads(compared.output)["comparisons"]
    assert row["metric"] == "uas" and row["p_value"] == 1.0 and row["score_a"] == _test_scores(run)["uas"]
    wrong = runner.invoke(app, ["compare", str(run), str(external), "--metric", "f1"])
    assert wrong.exit_code == 1 and "not a dependency metric" in wrong.output
    lines = (run / "test.pred.conllu").read_text(encoding="utf-8").split("\n")
    index = next(k for k, line in enumerate(lines) if line.split("\t")[0].isdigit())
    columns = lines[index].split("\t")
    lines[index] = "\t".join([columns[0], columns[1] + "x"] + columns[2:])
    other = tmp_path / "other.conllu"
    other.write_text("\n".join(lines), encoding="utf-8")
    refused = runner.invoke(app, ["score", str(other), "--gold", config.data.test, "--name", "bad",
                                  "--runs-dir", str(tmp_path / "runs")])
    assert refused.exit_code == 1 and f"{other}:" in refused.output and "other words" in refused.output
    assert not (tmp_path / "runs" / "bad").exists()


def test_seed_group_tests_come_from_scipy_and_deepsig_holm_corrected() -> None:
    from deepsig import aso
    from scipy.stats import ttest_ind

    from mlparse.compare.resampling import holm
    from mlparse.compare.seed_groups import DEFAULT_ASO_THRESHOLD, seed_group_tests

    a, b, c = [80.1, 80.4, 79.9, 80.2], [81.0, 81.3, 80.8, 81.4], [80.0, 80.5, 80.3, 79.8]
    (alone,) = seed_group_tests([(a, b)], seed=1, aso_iterations=50)
    assert alone is not None and alone.welch_p == pytest.approx(ttest_ind(b, a, equal_var=False).pvalue)
    assert alone.welch_p_holm == alone.welch_p and alone.aso_eps_min_holm == alone.aso_eps_min
    assert alone.aso_eps_min == aso(b, a, seed=1, show_progress=False, num_bootstrap_iterations=50)
    assert alone.aso_threshold == DEFAULT_ASO_THRESHOLD == 0.2 and alone.aso_b_better  # B dominates A
    one, two, single = seed_group_tests([(a, b), (a, c), (a, c[:1])], seed=1, aso_iterations=50, aso_threshold=0.3)
    assert single is None  # one run is no distribution: not tested, and not counted in the correction
    assert [one.welch_p_holm, two.welch_p_holm] == holm([one.welch_p, two.welch_p])
    # Holm's step-down over ASO: the smaller ε_min is made again as one of two comparisons (Bonferroni's level)
    assert one.aso_eps_min <= two.aso_eps_min
    assert one.aso_eps_min_holm == aso(b, a, num_comparisons=2, seed=1, show_progress=False,
                                       num_bootstrap_iterations=50) >= one.aso_eps_min
    assert two.aso_eps_min_holm == max(one.aso_eps_min_holm, two.aso_eps_min) and two.aso_threshold == 0.3


def _flat(tree: str) -> str:
    """The tree with every phrase but the root removed: (TOP (S (DT a) (NN b) ...))."""
    import re

    leaves = re.findall(r"\(([^()\s]+) ([^()\s]+)\)", tree)
    return "(TOP (S " + " ".join(f"({tag} {word})" for tag, word in leaves) + "))"


def test_report_marks_cells_significantly_worse_than_the_best(span_runs: tuple, tmp_path: Path) -> None:
    import shutil

    tmp, (first, second) = span_runs
    runs = tmp_path / "runs"
    shutil.copytree(tmp / "runs" / "tiny", runs / "tiny")
    gold = tmp / "data" / "test.trees"
    flat = tmp_path / "flat.trees"
    flat.write_text("".join(_flat(line) + "\n" for line in gold.read_text().splitlines()))
    for name, pred in (("oracle", gold), ("flat", flat)):
        result = runner.invoke(app, ["score", str(pred), "--gold", str(gold), "--name", name, "--runs-dir", str(runs),
                                     "--family", "tiny", "--language", "english"])
        assert result.exit_code == 0, result.output
    report = runner.invoke(app, ["report", str(runs), "--format", "markdown"])
    assert report.exit_code == 0, report.output
    rows = {line.split("|")[1].strip(" *"): line for line in report.output.splitlines() if line.startswith("| ")}
    assert "▾" in rows["flat"] and "▾" not in rows["oracle"]  # the best cell is never marked
    assert "worse than the column's best system" in report.output and "Holm" in report.output


def test_score_reads_a_prepared_split_by_name(span_runs: tuple, tmp_path: Path) -> None:
    tmp, (first, _) = span_runs
    prepared = tmp_path / "data" / "tiny" / "english"
    prepared.mkdir(parents=True)
    (prepared / "test.trees").write_bytes((tmp / "data" / "test.trees").read_bytes())
    result = runner.invoke(app, ["score", str(first / "test.pred.trees"), "--gold", "tiny/english:test", "--name", "z",
                                 "--runs-dir", str(tmp_path / "runs"), "--data-root", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    data = json.loads(next((tmp_path / "runs" / "z").glob("*/results.json")).read_text())
    assert (data["dataset"], data["language"], data["test"]) == ("tiny", "english", _test_scores(first))
    missing = runner.invoke(app, ["score", str(first / "test.pred.trees"), "--gold", "tiny/french:test", "--name", "z",
                                  "--data-root", str(tmp_path / "data")])
    assert missing.exit_code == 1 and "no prepared split" in missing.output


def test_compare_an_ensemble_with_its_member(span_runs: tuple, tmp_path: Path) -> None:
    tmp, (first, second) = span_runs
    out = tmp_path / "ens"
    made = runner.invoke(app, ["ensemble", str(first), str(second), "--out", str(out), "--runs-dir", str(tmp_path)])
    assert made.exit_code == 0, made.output
    result = runner.invoke(app, ["compare", str(first), str(out), "--samples", "200", "--format", "json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["comparisons"]
    ensemble = json.loads((out / "results.json").read_text())
    assert row["score_b"] == ensemble["test"]["f1"]
    assert ensemble["gold"] == json.loads((first / "results.json").read_text())["gold"]  # the gold checksums too


def test_clas_on_relations_that_are_not_ud_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dependency task counts CLAS only over UD relations; asking for it elsewhere names the run, not a KeyError."""
    from types import SimpleNamespace

    from mlparse.compare import comparison

    ref = SimpleNamespace(label="runs/dep/abc", gold=lambda split: Path(f"/data/{split}.conllu"))
    monkeypatch.setattr(comparison, "run_statistics", lambda ref, split: {"uas": [(1, 1, 1)], "las": [(1, 1, 1)]})
    with pytest.raises(comparison.CompareError, match=r"runs/dep/abc: CLAS is not scored on this data .*uas, las"):
        comparison.metric_rows(ref, "test", "clas")
    assert comparison.metric_rows(ref, "test", "uas") == [(1, 1, 1)]


@pytest.mark.parametrize("seed", ["-1", str(2 ** 31)])
def test_compare_refuses_a_seed_numpy_cannot_take_in_one_line(span_runs: tuple, seed: str) -> None:
    tmp, (first, second) = span_runs
    result = runner.invoke(app, ["compare", str(first), str(second), "--samples", "100", "--seed", seed])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "Invalid value for '--seed'" in result.output


def test_compare_refuses_runs_scored_under_different_rules(span_runs: tuple, tmp_path: Path) -> None:
    """The same predictions scored under two rules differ by points no parser earned: refused, both rules named."""
    tmp, (first, _) = span_runs
    gold = str(tmp / "data" / "test.trees")
    for name, params in (("collins", "COLLINS.prm"), ("spmrl", "spmrl.prm")):
        scored = runner.invoke(app, ["score", str(first / "test.pred.trees"), "--gold", gold, "--name", name,
                                     "--evalb-params", params, "--runs-dir", str(tmp_path / "runs")])
        assert scored.exit_code == 0, scored.output
    collins, spmrl = (next((tmp_path / "runs" / name).iterdir()) for name in ("collins", "spmrl"))
    refused = runner.invoke(app, ["compare", str(collins), str(spmrl)], env={"COLUMNS": "300"})
    assert refused.exit_code == 1, refused.output
    assert "COLLINS.prm" in refused.output and "spmrl.prm" in refused.output and "one scoring rule" in refused.output
    alike = runner.invoke(app, ["compare", str(first), str(collins), "--samples", "100"])  # the run's own rule
    assert alike.exit_code == 0, alike.output


def test_compare_refuses_dependency_runs_scored_with_and_without_punctuation(tmp_path: Path) -> None:
    _, run, external = scored_dependency_run(tmp_path, "ptb", "--scoring", "ptb")
    refused = runner.invoke(app, ["compare", str(run), str(external)], env={"COLUMNS": "300"})
    assert refused.exit_code == 1 and "dependency scoring ptb" in refused.output \
        and "dependency scoring conll18" in refused.output, refused.output
