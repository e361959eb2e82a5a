"""The run directory's layout is stated once, in mlparse.run_dir: the trainer writes and the report reads by it."""

from __future__ import annotations

import ast
from pathlib import Path

from mlparse.config import load_recipe
from mlparse.io_utils import atomic_write_text
from mlparse.run_index.collect import collect_runs
from mlparse.results import FAILED, RunResults
from mlparse.run_dir import (ANALYSIS_DIR, BEST_CHECKPOINT, CHECKPOINTS_DIR, ENSEMBLE_FILE, EXTERNAL_FILE, FOLD_FILE,
                             LAST_CHECKPOINT, LOCK_NAME, LOG_FILE, PROFILE_FILE, RECIPE_FILE, RESULTS_FILE, RunDir,
                             run_id_for)

PACKAGE = Path(__file__).resolve().parents[1] / "mlparse"


def test_the_report_reads_a_run_directory_written_through_run_dir(tmp_path: Path) -> None:
    config = load_recipe("ud/english-ewt", ["eval.dependency_scoring=ptb"])
    run = RunDir.for_recipe(tmp_path / "runs", config)
    run.path.mkdir(parents=True)
    atomic_write_text(run.recipe, config.to_yaml())
    # a dependency run that failed before scoring: the report takes its convention from recipe.yaml
    run.write_results(RunResults(status=FAILED, error="boom", recipe=config.name, run_id=run_id_for(config),
                                 task="dependency", model="biaffine"))
    run.write_log([{"step": 10, "epoch": 0.5, "dev_score": 71.25, "metric": "las", "lr": 0.001, "best": True,
                    "not_a_log_key": 1}])
    (record,) = collect_runs(tmp_path / "runs")
    assert record.run_dir == run.path
    assert (record.recipe, record.run_id, record.state) == (config.name, run.path.name, FAILED)
    assert [(entry.step, entry.dev_score, entry.metric, entry.best) for entry in record.log] == [(10, 71.25, "las", True)]
    assert record.scoring == "ptb"
    assert not record.warnings


def test_the_file_names_of_a_run_directory_are_spelled_only_in_run_dir() -> None:
    run = RunDir(Path("r"))
    assert (run.recipe.name, run.results.name, run.log.name, run.checkpoints.folder.name, run.best.name,
            run.last.name, run.lock.name, run.fold.name, run.analysis.name, run.errors("dev").parent.name) == (
        RECIPE_FILE, RESULTS_FILE, LOG_FILE, CHECKPOINTS_DIR, BEST_CHECKPOINT, LAST_CHECKPOINT, LOCK_NAME, FOLD_FILE,
        ANALYSIS_DIR, ANALYSIS_DIR)
    names = {RECIPE_FILE, RESULTS_FILE, LOG_FILE, CHECKPOINTS_DIR, BEST_CHECKPOINT, LAST_CHECKPOINT, LOCK_NAME,
             ENSEMBLE_FILE, FOLD_FILE, PROFILE_FILE, EXTERNAL_FILE, ANALYSIS_DIR}
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):  # every module of the package but run_dir.py itself
        if path == PACKAGE / "run_dir.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                spelled.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert not spelled, "use mlparse.run_dir's names instead:\n" + "\n".join(spelled)
