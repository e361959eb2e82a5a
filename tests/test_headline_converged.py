"""benchmarks/headline_converged.py: each row's command, the run directory it will write, and the table built from
the saved files alone."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

bench = importlib.import_module("headline_converged")


def test_a_rows_command_and_run_directory_agree_and_threads_do_not_change_the_id(tmp_path: Path) -> None:
    from mlparse.config import load_recipe

    sets = bench.row_sets("demo+minilm", str(tmp_path / "model"), 1, None)
    assert sets == [f"pretrained.model={(tmp_path / 'model').resolve()}", "train.num_threads=1"]
    command = bench.command("demo+minilm", tmp_path, sets)
    assert command[:5] == ["python3", "-m", "mlparse", "run", "demo"] and "--until-converged" in command
    assert command[-2:] == ["--runs-dir", str(tmp_path / "demo+minilm")]
    run = bench.run_dir("demo+minilm", tmp_path, sets)
    assert run.parent.parent == tmp_path / "demo+minilm"
    assert run.name == load_recipe("demo", sets[:1]).hash()[:12] != load_recipe("demo").hash()[:12]
    assert bench.row_sets("ud-english-ewt", None, None, "gold") == ["data.tags=gold"]
    assert bench.row_sets("demo", None, None, "gold") == []  # tags are the UD rows' only
    patient = bench.row_sets("ud-english-ewt-bilstm", None, 1, None, patience=10)
    assert patient == ["train.patience_epochs=10", "train.num_threads=1"]
    assert bench.run_dir("ud-english-ewt-bilstm", tmp_path, patient).name == \
        load_recipe("ud/english-ewt-bilstm", patient[:1]).hash()[:12] != load_recipe("ud/english-ewt-bilstm").hash()[:12]
    with pytest.raises(SystemExit, match="--minilm"):
        bench.row_sets("demo+minilm", None, None, None)


def test_the_table_reads_the_saved_rows_alone(tmp_path: Path) -> None:
    saved = tmp_path / "demo"
    saved.mkdir()
    (saved / "results.json").write_text(json.dumps({
        "task": "constituency", "epochs": 46.5, "training_seconds": 1800, "dev": {"f1": 82.48}, "test": {"f1": 80.92},
        "convergence": {"converged": True, "patience_epochs": 4}}), encoding="utf-8")
    (saved / "machine.json").write_text(json.dumps({"machine": "m", "sessions": [{"commit": "a"}, {"commit": "b"}]}),
                                        encoding="utf-8")
    lines = bench.table(tmp_path, ["demo", "demo+minilm"]).splitlines()
    assert lines[2] == "| demo | demo | yes (patience 4 epochs) | 46.5 | 0.50 | F1 | 82.48 | 80.92 | m, a then b |"
    assert "not converged yet" in lines[3]


def test_read_without_rows_prints_every_row(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert bench.main(["--read", "--save", str(tmp_path)]) == 0
    printed = [line.split(" | ")[0].lstrip("| ") for line in capsys.readouterr().out.splitlines()[2:]]
    assert printed == list(bench.ROWS)
    assert bench.main(["--read", "--save", str(tmp_path), "--rows", "ud-english-ewt"]) == 0
    assert [line.split(" | ")[0].lstrip("| ") for line in capsys.readouterr().out.splitlines()[2:]] == ["ud-english-ewt"]


def test_a_peers_patience_is_its_own_and_written_into_a_recipe_beside_its_runs(tmp_path: Path) -> None:
    from mlparse.config import load_recipe
    from mlparse.train.convergence import convergence_rule

    sets = bench.row_sets("supar-biaffine-dep", None, 2, "jackknife", patience=10)
    assert sets == ["data.tags=jackknife", "train.num_threads=2"]  # not mlparse's train.patience_epochs
    assert bench.recipe_of("supar-biaffine-dep", tmp_path) == "external/supar-biaffine-dep"  # no --patience: as bundled
    recipe = bench.recipe_of("supar-biaffine-dep", tmp_path, 10)
    assert Path(recipe) == tmp_path / "supar-biaffine-dep" / "patience-10.yaml"
    config, bundled = load_recipe(recipe, sets[:1]), load_recipe("external/supar-biaffine-dep", sets[:1])
    assert config.external.train == bundled.external.train + " --patience=10"  # one word: SuPar reads it as an option
    assert config.external.files == bundled.external.files and config.data.tags == "jackknife"
    assert "patience 10 epochs instead of SuPar's own" in config.deviation
    assert convergence_rule(config).startswith("SuPar's own stopping rule: dev LAS not improved for 10 epochs")
    command = bench.command("supar-biaffine-dep", tmp_path, sets, recipe)
    assert command[4] == recipe and "--until-converged" in command
    assert bench.run_dir("supar-biaffine-dep", tmp_path, sets, recipe).name == config.hash()[:12] != bundled.hash()[:12]


def test_a_peers_converged_row_says_its_rule() -> None:
    from benchmarks.tag_protocols_converged import converged_cell

    peer = {"convergence": {"converged": True, "patience_epochs": None,
                            "rule": "SuPar's own stopping rule: dev LAS not improved for 10 epochs; no time bound"}}
    assert converged_cell(peer) == "yes (SuPar's own stopping rule)"
    assert converged_cell({"convergence": {"converged": True, "patience_epochs": 10}}) == "yes (patience 10 epochs)"
    assert converged_cell({"convergence": {"converged": None}}) == "-"
