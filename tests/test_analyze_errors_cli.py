"""``mlparse analyze errors RUN [RUN2]`` on run directories made by hand (an external run's layout: results.json,
the predictions, the gold file recorded with its sha256)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app

GOLD = [
    "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)))",
    "(TOP (S (NP (PRP he)) (VP (VBD left) (ADVP (RB very) (RB early))) (. .)))",
    "(TOP (S (NP (NP (NNS cats)) (CC and) (NP (NNS dogs))) (VP (VBP run))))",
]
PRED_A = [
    "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man) (PP (IN with) (NP (DT a) (NN telescope))))) (. .)))",
    "(TOP (S (NP (PRP he)) (VP (VBD left) (NP (RB very) (RB early))) (. .)))",
    "(TOP (S (NP (NP (NNS cats)) (CC and) (NP (NNS dogs))) (VP (VBP run))))",
]
PRED_B = [GOLD[0], PRED_A[1], GOLD[2]]


def _run(tmp: Path, name: str, pred: list, gold: Path, sha: str | None = None) -> Path:
    run = tmp / "runs" / "external" / name
    run.mkdir(parents=True)
    (run / "test.pred.trees").write_text("\n".join(pred) + "\n")
    digest = sha or hashlib.sha256(gold.read_bytes()).hexdigest()
    results = {"status": "complete", "task": "constituency", "model": {"kind": "external", "name": name},
               "gold": {"path": str(gold), "sha256": digest},
               "test": {"f1": 0.0, "scorer": "evalb COLLINS.prm"}}
    (run / "results.json").write_text(json.dumps(results))
    return run


def _gold(tmp: Path) -> Path:
    path = tmp / "gold.trees"
    path.write_text("\n".join(GOLD) + "\n")
    return path


def test_one_run_json_and_files(tmp_path: Path) -> None:
    run = _run(tmp_path, "parser-a", PRED_A, _gold(tmp_path))
    result = CliRunner().invoke(app, ["analyze", "errors", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["system"] == "parser-a" and data["sentences"] == 3
    classes = {row["key"]: row for row in next(t for t in data["tables"] if t["name"] == "error_classes")["rows"]}
    assert classes["PP attachment"]["errors"] == 2 and classes["different label"]["errors"] == 2
    assert (run / "analysis" / "errors-test.json").is_file() and (run / "analysis" / "errors-test.md").is_file()


def test_two_runs_side_by_side_markdown(tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    a, b = _run(tmp_path, "parser-a", PRED_A, gold), _run(tmp_path, "parser-b", PRED_B, gold)
    result = CliRunner().invoke(app, ["analyze", "errors", str(a), str(b), "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "parser-a (A) and parser-b (B)" in result.stdout
    pp = next(line for line in result.stdout.splitlines() if line.startswith("| PP attachment"))
    assert "| -2 |" in pp  # B fixed both PP errors
    table = CliRunner().invoke(app, ["analyze", "errors", str(a), str(b)])
    assert table.exit_code == 0 and "Error classes" in table.stdout


def test_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    short = _run(tmp_path, "short", PRED_A[:2], gold)
    result = CliRunner().invoke(app, ["analyze", "errors", str(short)])
    assert result.exit_code == 1 and "2 trees" in result.output and "has 3" in result.output
    wrong_sha = _run(tmp_path, "sha", PRED_A, gold, sha="0" * 64)
    result = CliRunner().invoke(app, ["analyze", "errors", str(wrong_sha)])
    assert result.exit_code == 1 and "sha256" in result.output
    words = _run(tmp_path, "words", [PRED_A[0].replace("man", "woman")] + PRED_A[1:], gold)
    result = CliRunner().invoke(app, ["analyze", "errors", str(words)])
    assert result.exit_code == 1 and "line 1" in result.output and "Traceback" not in result.output
    assert not (words / "analysis").exists()
    result = CliRunner().invoke(app, ["analyze", "nonsense", str(words)])
    assert result.exit_code == 2 and "errors" in result.output
    result = CliRunner().invoke(app, ["analyze"])
    assert result.exit_code == 2 and "--model" in result.output


def test_dependency_run(tmp_path: Path) -> None:
    gold_text = ("1\tdogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n"
                 "3\tloudly\tloudly\tADV\tRB\t_\t2\tadvmod\t_\t_\n\n")
    pred_text = gold_text.replace("3\tloudly\tloudly\tADV\tRB\t_\t2\tadvmod", "3\tloudly\tloudly\tADV\tRB\t_\t1\tamod")
    gold = tmp_path / "gold.conllu"
    gold.write_text(gold_text)
    run = tmp_path / "dep"
    run.mkdir()
    (run / "test.pred.conllu").write_text(pred_text)
    (run / "results.json").write_text(json.dumps({"task": "dependency", "model": {"kind": "external", "name": "d"},
                                                  "gold": str(gold)}))
    result = CliRunner().invoke(app, ["analyze", "errors", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    tables = {t["name"]: t for t in json.loads(result.stdout)["tables"]}
    advmod = next(r for r in tables["relations"]["rows"] if r["key"] == "advmod")
    assert (advmod["gold"], advmod["test"], advmod["matched"], advmod["uas"]) == (1, 0, 0, 0)
    arcs = {r["key"]: r for r in tables["arc_length"]["rows"]}
    assert arcs["1"]["gold"] == 2 and arcs["2"]["test"] == 1 and arcs["root"]["matched"] == 1


def test_the_html_report_plots_a_runs_breakdown(tmp_path: Path) -> None:
    from mlparse.report.breakdown_plots import breakdown_plots
    from mlparse.report.model import build_report

    run = _run(tmp_path, "parser-a", PRED_A, _gold(tmp_path))
    results = json.loads((run / "results.json").read_text())
    results.update({"dataset": "hand", "language": "english", "system": "parser-a", "run_id": "parser-a",
                    "recipe": "external"})
    (run / "results.json").write_text(json.dumps(results))
    report = build_report(tmp_path / "runs", published_mode="none")
    assert breakdown_plots(report) == []  # nothing analysed yet
    assert CliRunner().invoke(app, ["analyze", "errors", str(run)]).exit_code == 0
    report = build_report(tmp_path / "runs", published_mode="none")
    (plot,) = breakdown_plots(report)
    assert plot.name == "errors-test-parser-a" and plot.png.startswith(b"\x89PNG")


def test_a_trained_runs_gold_comes_from_its_recipe(tmp_path: Path) -> None:
    from mlparse.compare.breakdowns.inputs import run_inputs
    from mlparse.config import load_recipe

    config = load_recipe("demo", [f"data.root={tmp_path / 'data'}"])
    gold = config.split_path("test")
    gold.parent.mkdir(parents=True)
    gold.write_text("\n".join(GOLD) + "\n")
    run = tmp_path / "runs" / "demo" / "r1"
    run.mkdir(parents=True)
    (run / "recipe.yaml").write_text(config.to_yaml())
    (run / "test.pred.trees").write_text("\n".join(PRED_B) + "\n")
    (run / "results.json").write_text(json.dumps({"task": "constituency", "system": "mlparse span", "run_id": "r1",
                                                  "test": {"scorer": "evalb COLLINS.prm"}}))
    inputs = run_inputs(run)
    assert (inputs.gold, inputs.evalb_params, inputs.system) == (gold, config.data.evalb_params, "mlparse span [r1]")
    result = CliRunner().invoke(app, ["analyze", "errors", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    labels = {r["key"]: r for r in json.loads(result.stdout)["tables"][0]["rows"]}
    assert labels["ADVP"]["recall"] == 0.0 and labels["PP"]["f1"] == 100.0


def test_errors_is_a_command_with_its_own_help_and_the_old_forms_still_work(tmp_path: Path) -> None:
    errors_help = CliRunner().invoke(app, ["analyze", "errors", "--help"])
    assert errors_help.exit_code == 0 and "--gold" in errors_help.output and "--windows" not in errors_help.output
    probes_help = CliRunner().invoke(app, ["analyze", "--help"])
    assert probes_help.exit_code == 0 and "--windows" in probes_help.output and "errors" in probes_help.output
    assert "--gold" not in probes_help.output  # errors' options are errors' own
    run = _run(tmp_path, "parser-a", PRED_A, _gold(tmp_path))
    out = tmp_path / "out"
    before = CliRunner().invoke(app, ["analyze", "--format", "json", "--output-dir", str(out), "errors", str(run)])
    assert before.exit_code == 0, before.output  # options before the word errors, as the old command took them
    assert json.loads(before.stdout)["split"] == "test" and (out / "errors-test.json").is_file()
    mixed = CliRunner().invoke(app, ["analyze", "--model", str(run), "errors", str(run)])
    assert mixed.exit_code == 2 and "mlparse analyze errors RUN" in mixed.output
    misplaced = CliRunner().invoke(app, ["analyze", "--model", str(run), "--gold", str(run)])
    assert misplaced.exit_code == 2 and "belong to mlparse analyze errors" in misplaced.output


def test_error_class_rows_carry_their_own_columns_only(tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    a, b = _run(tmp_path, "parser-a", PRED_A, gold), _run(tmp_path, "parser-b", PRED_B, gold)
    one = json.loads(CliRunner().invoke(app, ["analyze", "errors", str(a), "--format", "json"]).stdout)
    table = next(t for t in one["tables"] if t["name"] == "error_classes")
    assert table["columns"] == ["repairs", "errors", "share"]
    assert all(set(row) == {"key", "repairs", "errors", "share"} for row in table["rows"])
    pp = next(row for row in table["rows"] if row["key"] == "PP attachment")
    total = sum(row["errors"] for row in table["rows"])
    assert pp["share"] == pytest.approx(100.0 * pp["errors"] / total)
    labels = next(t for t in one["tables"] if t["name"] == "labels")  # tables of items keep their rates
    assert {"precision", "recall", "f1"} <= set(labels["rows"][0])
    two = json.loads(CliRunner().invoke(app, ["analyze", "errors", str(a), str(b), "--format", "json"]).stdout)
    pair = next(t for t in two["tables"] if t["name"] == "error_classes")
    row = next(r for r in pair["rows"] if r["key"] == "PP attachment")
    assert set(row["a"]) == set(row["b"]) == {"key", "repairs", "errors", "share"}
    assert row["delta"]["errors"] == -2 and set(row["delta"]) == {"repairs", "errors", "share"}
