"""`mlparse run` end to end: run-directory files, errors, SIGKILL + resume, two-process DDP (gloo)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.data.vocab import ParserVocab
from mlparse.models.span_parser import SpanParser
from mlparse.results import COMPLETE, RUNNING, RunResults
from mlparse.structs.chart import LabelVocab
from mlparse.train import checkpoint
from mlparse.tasks.treebank import sentence_of
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunError, RunOptions, run_recipe
from helpers.run_fixtures import REPO, TINY_TREES, Record, tiny_trees, write_tiny_recipe

runner = CliRunner()


def subprocess_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env["OMP_NUM_THREADS"] = "1"
    return env


def test_run_writes_every_run_directory_file(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    overrides = ["train.max_epochs=3", "train.device=cpu"]  # the same run with or without a GPU
    result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"),
                                 *(arg for override in overrides for arg in ("--set", override))])
    assert result.exit_code == 0, result.output
    config = load_recipe(recipe, overrides)
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    for path in (run_dir.recipe, run_dir.log, run_dir.best, run_dir.last, run_dir.pred("dev"), run_dir.pred("test"),
                 run_dir.evalb("dev"), run_dir.evalb("test"), run_dir.results):
        assert path.is_file() and path.stat().st_size > 0, path
    results = RunResults.from_json_dict(json.loads(run_dir.results.read_text()))
    assert results.status == COMPLETE and results.recipe == "tiny" and results.recipe_hash == config.hash()
    assert results.dev is not None and results.test is not None and results.dev.sentences == len(TINY_TREES)
    assert 0 <= results.dev.f1 <= 100 and results.parse_sentences_per_second > 0 and results.training_seconds > 0
    assert results.hardware["device"] == "cpu" and "torch" in results.versions
    assert load_recipe(run_dir.recipe) == config  # the resolved recipe reproduces the run
    entries = [json.loads(line) for line in run_dir.log.read_text().splitlines()]
    assert [e["step"] for e in entries] == [2, 4, 6] and entries[0]["epoch"] == 1.0
    assert len(run_dir.pred("dev").read_text().splitlines()) == len(TINY_TREES)
    assert "Bracketing FMeasure" in run_dir.evalb("dev").read_text()
    assert f"{results.dev.f1:.2f}" in run_dir.evalb("dev").read_text()
    assert not run_dir.lock.exists()  # released on exit


def test_run_reports_bad_recipe_and_missing_data(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    result = runner.invoke(app, ["run", str(recipe), "--set", "train.lr_decay=0.1"])
    assert result.exit_code == 2
    assert "unknown key 'lr_decay'" in result.output and "lr_decay_factor" in result.output
    data = yaml.safe_load(recipe.read_text())
    data["data"]["dev"] = str(tmp_path / "nowhere.trees")
    recipe.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1
    assert "nowhere.trees" in result.output and "Traceback" not in result.output


def test_sigkill_mid_training_then_resume(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 200, "evals_per_epoch": 2})
    config = load_recipe(recipe)
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    process = subprocess.Popen([sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(tmp_path / "runs")],
                               env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not run_dir.last.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert run_dir.last.exists(), "the run wrote no checkpoint"
        with pytest.raises(RunError, match=f"process {process.pid} on .*kill {process.pid}"):  # one writer at a time
            run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=None))
        time.sleep(0.3)  # somewhere in the middle of training, writes included
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    assert json.loads(run_dir.results.read_text())["status"] == RUNNING  # never half-written
    saved = checkpoint.load(run_dir.last)  # loads: never a truncated checkpoint
    step = saved["state"]["step"]
    assert step >= 1 and not saved["state"]["done"]
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=None), record)
    assert record.steps and record.steps[0] == step + 1
    assert any(f"left by process {process.pid}" in note for note in record.notes)  # its lock, taken over
    assert results.status == COMPLETE
    assert checkpoint.load(run_dir.last)["state"]["done"]


def test_two_process_gloo_ddp_matches_single_process(tmp_path: Path) -> None:
    # adam_eps 1e-3: some parameters (e.g. the last LayerNorm bias, which cancels in the fencepost
    # differences) have an analytically zero gradient; with eps 1e-9 Adam would turn their float
    # noise, which differs between one and two processes, into full-size steps.  train.device=cpu:
    # gloo on the CPU even where CUDA is present (--gpus 2 would otherwise want two GPUs).
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 2, "batch_size": 4, "subbatch_tokens": 1000, "adam_eps": 1e-3,
                                                "device": "cpu"})
    config = load_recipe(recipe)
    single = run_recipe(config, RunOptions(runs_dir=tmp_path / "single"))
    done = subprocess.run([sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(tmp_path / "ddp"), "--gpus", "2"],
                          env=subprocess_env(), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    ddp_dir, single_dir = RunDir.for_recipe(tmp_path / "ddp", config), RunDir.for_recipe(tmp_path / "single", config)
    ddp = RunResults.from_json_dict(json.loads(ddp_dir.results.read_text()))
    assert ddp.status == COMPLETE and ddp.hardware["processes"] == 2
    assert not ddp_dir.lock.exists()  # rank 0 held it (rank 1 never asked) and released it
    a, b = checkpoint.load(single_dir.last), checkpoint.load(ddp_dir.last)
    assert a["state"]["step"] == b["state"]["step"] == 4
    # initial weights, rebuilt the way the runner builds them
    checkpoint.seed_everything(config.train.seed)
    trees = tiny_trees()
    initial = SpanParser(config.model, ParserVocab.build([sentence_of(t) for t in trees]), LabelVocab.from_trees(trees),
                         span=config.span).state_dict()
    moved = sum(float((a["model"][k] - initial[k]).abs().sum()) for k in initial)
    differ = sum(float((a["model"][k] - b["model"][k]).abs().sum()) for k in initial)
    assert moved > 1.0
    assert differ < 1e-4 * moved, (differ, moved)
    assert abs(ddp.dev.f1 - single.dev.f1) < 1e-6


def test_run_prepares_missing_data_from_the_catalog(tmp_path: Path, treebanks: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, model={"max_len": 300}, train={"max_epochs": 1, "batch_size": 10})
    data = yaml.safe_load(recipe.read_text())
    data["data"] = {"family": "ptb-sample", "language": "english", "root": str(tmp_path / "prepared"),
                    "max_train_sentences": 20}
    data["eval"] = {"max_sentences": 5}
    recipe.write_text(yaml.safe_dump(data))
    config = load_recipe(recipe)
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert (tmp_path / "prepared" / "ptb-sample" / "english" / "train.trees").is_file()
    assert results.status == COMPLETE and results.dataset == "ptb-sample"
    gold_dev = (tmp_path / "prepared" / "ptb-sample" / "english" / "dev.trees").read_text().splitlines()
    assert results.dev.sentences == len(gold_dev)  # the final evaluation covers the whole split


def test_unknown_family_without_data_names_the_prepare_command(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    data = yaml.safe_load(recipe.read_text())
    data["data"] = {"family": "no-such-family", "language": "english", "root": str(tmp_path / "prepared")}
    recipe.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1
    assert "mlparse prepare no-such-family" in result.output and "Traceback" not in result.output
    config = load_recipe(recipe)
    failed = RunResults.from_json_dict(json.loads(RunDir.for_recipe(tmp_path / "runs", config).results.read_text()))
    assert failed.status == "failed" and "no-such-family" in failed.error
