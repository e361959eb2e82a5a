"""Checkpoints hold data, not objects: every path that reads a model file refuses one that would run code."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import mlparse
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.results import RunResults
from mlparse.train import checkpoint
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.checkpoint_fixtures import to_format_1, write_crafted
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()

#: 8 tiny trees, batches of 4, two dev checks per epoch: checks at steps 1..8.
TRAIN = {"max_epochs": 4, "evals_per_epoch": 2}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """(recipe, run directory, results) of one finished tiny run; tests work on copies."""
    root = tmp_path_factory.mktemp("safety")
    recipe = write_tiny_recipe(root, train=TRAIN)
    config = load_recipe(recipe)
    results = run_recipe(config, RunOptions(runs_dir=root / "runs"))
    return recipe, RunDir.for_recipe(root / "runs", config), results


def copy_run(trained: tuple, tmp_path: Path, running: bool = False) -> RunDir:
    """A copy of the trained run under ``tmp_path/runs``; ``running``: as if it had been killed (so `run` resumes)."""
    recipe, source, _ = trained
    target = RunDir(tmp_path / "runs" / source.path.relative_to(source.path.parents[1]))
    shutil.copytree(source.path, target.path)
    if running:
        results = json.loads(target.results.read_text())
        results["status"] = "running"
        target.results.write_text(json.dumps(results))
    return target


def invoke(*args: str, stdin: str = "the dog barks .\n"):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), input=stdin)


#: Every command that reads a checkpoint, and how (the victim file is crafted in each case).
LOAD_PATHS = {
    "parse a file": ("best.pt", lambda recipe, run: ["parse", "--model", str(run.best)]),
    "parse a run directory": ("best.pt", lambda recipe, run: ["parse", "--model", str(run.path)]),
    "analyze a run directory": ("best.pt", lambda recipe, run: ["analyze", "--model", str(run.path), "--windows", "5"]),
    "run: resume from last.pt": ("last.pt", lambda recipe, run: ["run", str(recipe), "--runs-dir", str(run.path.parents[1])]),
    "run: best.pt beside last.pt": ("best.pt", lambda recipe, run: ["run", str(recipe), "--runs-dir", str(run.path.parents[1])]),
    "upgrade a run directory": ("last.pt", lambda recipe, run: ["upgrade", str(run.path)]),
    "upgrade a file": ("best.pt", lambda recipe, run: ["upgrade", str(run.best)]),
}


@pytest.mark.parametrize("path", list(LOAD_PATHS))
def test_a_crafted_model_file_runs_nothing_on_any_load_path(path: str, trained: tuple, tmp_path: Path) -> None:
    victim_name, command = LOAD_PATHS[path]
    run = copy_run(trained, tmp_path, running=True)
    victim = run.checkpoints.folder / victim_name
    marker = tmp_path / "command-ran"
    write_crafted(victim, marker, like=victim)
    before = victim.read_bytes()
    result = invoke(*command(trained[0], run))
    assert not marker.exists(), f"{path}: loading the file ran its command"
    assert result.exit_code == 1, result.output
    assert str(victim) in result.output and "refused" in result.output and "system" in result.output, result.output
    assert "Nothing in the file was run" in result.output and "Traceback" not in result.output
    assert victim.read_bytes() == before  # upgrade left it alone


def test_the_crafted_file_does_run_its_command_when_trusted(trained: tuple, tmp_path: Path) -> None:
    """The control: the file of the test above is a working exploit, and --trust-checkpoint says so before."""
    run = copy_run(trained, tmp_path)
    marker = tmp_path / "command-ran"
    write_crafted(run.best, marker, like=run.best)
    result = invoke("parse", "--model", str(run.path), "--trust-checkpoint")
    assert marker.exists()
    assert "warning" in result.output and "runs any code the file carries" in result.output
    assert str(run.best) in result.output and "system" in result.output


def test_checkpoints_hold_only_plain_data_with_a_format_version(trained: tuple) -> None:
    _, run, _ = trained
    for path in (run.best, run.last):
        data = torch.load(path, map_location="cpu", weights_only=True)  # torch's own safe reader, nothing allowed extra
        assert data["format"] == "mlparse-checkpoint" and data["format_version"] == checkpoint.FORMAT_VERSION
        spec = json.loads(json.dumps(data["spec"]))  # the spec is JSON
        assert spec["versions"]["mlparse"] == mlparse.__version__ and spec["versions"]["torch"] == torch.__version__
        assert spec["labels"][0] == "" and "words" in spec["vocab"] and spec["model_config"]["d_model"] == 32
        assert set(data) >= {"model", "optimizer", "schedule", "state", "rng", "recipe", "recipe_hash"}
    with pytest.raises(TypeError, match=r"checkpoint\.rng\.numpy: numpy\.ndarray is not plain data"):
        checkpoint.save({"rng": {"numpy": np.zeros(3)}}, run.path / "never.pt")
    with pytest.raises(TypeError, match=r"checkpoint\.counts: collections\.defaultdict is not plain data"):
        checkpoint.save({"counts": defaultdict(int)}, run.path / "never.pt")  # it pickles its factory
    assert not (run.path / "never.pt").exists()


def test_an_old_format_run_resumes_once_upgraded(trained: tuple, tmp_path: Path) -> None:
    recipe, _, finished = trained
    run = copy_run(trained, tmp_path, running=True)
    original = torch.load(run.last, map_location="cpu", weights_only=True)
    to_format_1(run.best)
    to_format_1(run.last)
    with pytest.raises(Exception, match="Weights only load failed"):
        torch.load(run.last, weights_only=True)  # the old last.pt is not plain data
    # an old best.pt is plain data: it loads as it is
    result = invoke("parse", "--model", str(run.path))
    assert result.exit_code == 0 and result.stdout.startswith("(TOP"), result.output
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1
    assert "old checkpoint format" in result.output and "mlparse upgrade" in result.output, result.output
    result = invoke("upgrade", str(run.path))
    assert result.exit_code == 0, result.output
    assert result.output.count("converted from format 1") == 2
    upgraded = torch.load(run.last, map_location="cpu", weights_only=True)
    assert upgraded["format_version"] == checkpoint.FORMAT_VERSION and upgraded["upgraded_from"] == 1
    assert torch.equal(upgraded["rng"]["numpy"][1], original["rng"]["numpy"][1])
    assert all(torch.equal(upgraded["model"][k], original["model"][k]) for k in original["model"])
    again = invoke("upgrade", str(run.path))
    assert again.exit_code == 0 and again.output.count("already in the current format") == 2
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    resumed = RunResults.from_json_dict(json.loads(run.results.read_text()))
    assert resumed.status == "complete" and resumed.dev.f1 == finished.dev.f1 and resumed.test.f1 == finished.test.f1


def test_trust_checkpoint_reads_an_old_file_as_it_is_with_a_warning(trained: tuple, tmp_path: Path) -> None:
    recipe, _, finished = trained
    run = copy_run(trained, tmp_path, running=True)
    expected = invoke("parse", "--model", str(run.last)).stdout
    to_format_1(run.last)
    refused = invoke("parse", "--model", str(run.last))
    assert refused.exit_code == 1 and "--trust-checkpoint" in refused.output and "mlparse upgrade" in refused.output
    trusted = invoke("parse", "--model", str(run.last), "--trust-checkpoint")
    assert trusted.exit_code == 0 and trusted.stdout == expected
    assert "warning" in trusted.output and "only with files you trust" in trusted.output
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--trust-checkpoint")
    assert result.exit_code == 0, result.output
    assert "warning" in result.output and "old checkpoint format" in result.output
    resumed = RunResults.from_json_dict(json.loads(run.results.read_text()))
    assert resumed.dev.f1 == finished.dev.f1
    assert torch.load(run.last, weights_only=True)["format_version"] == checkpoint.FORMAT_VERSION  # written anew


def test_mlparse_load_is_the_loader_of_parse_same_refusal_and_trust(trained: tuple, tmp_path: Path) -> None:
    """One loader: mlparse.load refuses an old-format file with the message mlparse parse prints, and reads it
    with trust (after the warning) into a parser that parses as mlparse parse does."""
    from mlparse.package import PackageError

    run = copy_run(trained, tmp_path, running=True)
    expected = invoke("parse", "--model", str(run.last)).stdout
    to_format_1(run.last)
    with pytest.raises(PackageError) as caught:
        mlparse.load(run.last, device="cpu")
    refused = invoke("parse", "--model", str(run.last))
    assert refused.exit_code == 1 and "".join(str(caught.value).split()) in "".join(refused.output.split())
    warned: list = []
    loaded = mlparse.load(run.last, device="cpu", trust=True, warn=warned.append)
    assert len(warned) == 1 and "only with files you trust" in warned[0]
    trees = loaded.parse_sents([["the", "dog", "barks", "."]], output="tree")
    assert [tree.to_bracketed() + "\n" for tree in trees] == [expected]
