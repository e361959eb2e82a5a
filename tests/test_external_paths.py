"""``model.kind: external`` run as the docs run it: ``mlparse run`` typed in some folder, the run folder relative to
it (the default ``runs``, a relative ``--runs-dir``, one with a space), while the peer works in ``RUN_DIR/peer``:
every path it is given is absolute, and a relative ``external.python`` is the typing folder's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from mlparse.config import load_recipe
from mlparse.external.commands import PeerMissing, peer_python
from mlparse.run_dir import RunDir
from helpers.external_fixtures import chain_uas, write_external_recipe

REPO = Path(__file__).resolve().parents[1]


def mlparse_run(cwd: Path, *args: str, env: Optional[Dict[str, str]] = None) -> "subprocess.CompletedProcess[str]":
    """``mlparse run ARGS`` typed in ``cwd``."""
    environ = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "mlparse", "run", *args], capture_output=True, text=True, cwd=cwd,
                          env=environ, timeout=300)


def complete_run(recipe: Path, runs: Path, overrides: List[str]) -> Path:
    """The run folder of ``recipe`` under ``runs``, checked complete: trained, predicted and scored."""
    folder = RunDir.for_recipe(runs, load_recipe(str(recipe), overrides)).path
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert results["status"] == "complete", results.get("error")
    assert results["dev"]["uas"] == pytest.approx(chain_uas(), abs=0.01)
    assert results["test"]["uas"] == pytest.approx(chain_uas(), abs=0.01)
    assert (folder / "test.pred.conllu").is_file() and (folder / "dev.depeval").is_file()
    return folder


@pytest.mark.parametrize("runs_dir", [None, "out/runs", "my runs/here"],
                         ids=["default-runs", "relative-runs-dir", "runs-dir-with-a-space"])
def test_a_peer_runs_from_another_folder_with_a_relative_runs_folder(tmp_path: Path, runs_dir: Optional[str]) -> None:
    # a relative external.model is the peer's, in its folder, as the docs say
    recipe = write_external_recipe(tmp_path / "recipes", external={"model": "model.json"})
    typed_in = tmp_path / "elsewhere"
    typed_in.mkdir()
    args = [str(recipe)] + (["--runs-dir", runs_dir] if runs_dir is not None else [])
    result = mlparse_run(typed_in, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    folder = complete_run(recipe, typed_in / (runs_dir or "runs"), [])
    peer = folder / "peer"
    # what reached the peer: absolute paths, to the files of this run
    argv = json.loads((peer / "model.json").read_text(encoding="utf-8"))["argv"]
    for flag, path in (("--train", peer / "data/train.conllu"), ("--dev", peer / "data/dev.conllu"),
                       ("--model", peer / "model.json")):
        assert Path(argv[argv.index(flag) + 1]).is_absolute()
        assert Path(argv[argv.index(flag) + 1]).samefile(path)
    commands = json.loads((peer / "commands.json").read_text(encoding="utf-8"))
    assert str(peer.resolve() / "data" / "test.input.conllu") in commands["predict"]["test"]


def test_a_relative_python_is_taken_from_where_the_command_is_typed(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path / "recipes", external={"python": None})
    typed_in = tmp_path / "project"
    (typed_in / "venv" / "bin").mkdir(parents=True)
    (typed_in / "venv" / "bin" / "python").symlink_to(sys.executable)  # a virtual environment's python is a link
    result = mlparse_run(typed_in, str(recipe), "--set", "external.python=venv/bin/python")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((complete_run(recipe, typed_in / "runs", []) / "results.json").read_text(encoding="utf-8"))
    assert results["external"]["python"] == str(typed_in / "venv" / "bin" / "python")  # absolute, the link kept
    # the same from MLPARSE_<SYSTEM>_PYTHON, typed in a sub-folder (another seed: another run)
    below = typed_in / "sub"
    below.mkdir()
    result = mlparse_run(below, str(recipe), "--runs-dir", "../runs", "--set", "train.seed=8",
                         env={"MLPARSE_FAKEPEER_PYTHON": "../venv/bin/python"})
    assert result.returncode == 0, result.stdout + result.stderr
    complete_run(recipe, typed_in / "runs", ["train.seed=8"])


def test_a_python_that_is_not_there_is_refused_naming_the_folder_it_was_looked_for_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)
    assert peer_python("FakePeer", "bin/python", "") == str(tmp_path / "bin" / "python")
    with pytest.raises(PeerMissing, match=r"external\.python=venv/bin/python is not an executable file .*"
                                          + re.escape(str(tmp_path / "venv" / "bin" / "python"))):
        peer_python("FakePeer", "venv/bin/python", "")
    # a bare name is a file of that folder too, never a search of PATH (the docs ask for the interpreter's path)
    with pytest.raises(PeerMissing, match="MLPARSE_FAKEPEER_PYTHON=python3 is not an executable file .*"
                                          + re.escape(str(tmp_path / "python3"))):
        peer_python("FakePeer", None, "", {"MLPARSE_FAKEPEER_PYTHON": "python3"})
