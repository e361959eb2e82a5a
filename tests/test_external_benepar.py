"""The bundled benepar recipe (``recipes/external/benepar-span.yaml``) and ``{repo}``, the checkout of a peer whose
trainer is not in its package: run by ``mlparse run`` over a fake benepar checkout whose ``src/main.py`` records
what it was given and saves its model with ``torch.save`` as benepar's does, so that the recipe's commands, its
launcher (``benepar_main.py``) and the absolute paths they receive are checked without the real toolkit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest

from mlparse.config import ConfigError, load_recipe
from mlparse.external.commands import PeerMissing, check_setup, peer_repo, repo_variable
from mlparse.run_dir import RunDir

REPO = Path(__file__).resolve().parents[1]

GOLD_TREES = ["(TOP (S (NP (DT the) (NN dog)) (VP (VBZ barks)) (. .)))",
              "(TOP (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ red)))))"]

#: benepar's src/main.py as far as the recipe meets it: ``train`` saves one "best model" as <base>_dev=<F1>.pt with
#: torch.save (and, with FAKE_BENEPAR_SIGINT_IN_SAVE, is stopped by SIGINT while saving it); ``test`` loads the model,
#: writes the input's words and tags under (TOP (S ...)) and calls benepar's evaluate.evalb as main.py does.
FAKE_MAIN = '''
import argparse, json, os, signal, sys
import torch
import evaluate

class StopWhileSaving:
    def __reduce__(self):
        os.kill(os.getpid(), signal.SIGINT)  # the budget's stop arrives in the middle of the save
        return (dict, ())

parser = argparse.ArgumentParser()
commands = parser.add_subparsers(dest="mode")
train = commands.add_parser("train")
for flag in ("--train-path", "--dev-path", "--evalb-dir", "--numpy-seed", "--model-path-base", "--num-layers",
             "--batch-size", "--learning-rate"):
    train.add_argument(flag)
for flag in ("--use-chars-lstm", "--use-encoder"):
    train.add_argument(flag, action="store_true")
test = commands.add_parser("test")
for flag in ("--model-path", "--test-path", "--output-path"):
    test.add_argument(flag)
test.add_argument("--no-predict-tags", action="store_true")
args = parser.parse_args()
record = {"argv": sys.argv[1:], "cwd": os.getcwd(), "threads": torch.get_num_threads()}
if args.mode == "train":
    record["sentences"] = len(open(args.train_path).read().splitlines())
    data = {"record": record}
    if os.environ.get("FAKE_BENEPAR_SIGINT_IN_SAVE"):
        data["stop"] = StopWhileSaving()
    torch.save(data, args.model_path_base + "_dev=50.00.pt")
    print("Saving new best model", flush=True)
else:
    import re
    trained = torch.load(args.model_path, weights_only=False)["record"]
    with open(args.output_path, "w") as out:
        for line in open(args.test_path):
            leaves = re.findall(r"\\(([^()\\s]+) ([^()\\s]+)\\)", line)
            out.write("(TOP (S " + " ".join(f"({tag} {word})" for tag, word in leaves) + "))\\n")
    fscore = evaluate.evalb("EVALB/", [], [])
    with open(os.path.join(os.path.dirname(args.output_path), "predicted-with.json"), "a") as log:
        log.write(json.dumps({"trained": trained, "test": record, "fscore": str(fscore)}) + "\\n")
'''

#: benepar's src/evaluate.py as main.py uses it: the recipe's launcher replaces evalb in ``test``.
FAKE_EVALUATE = '''
class FScore:
    def __init__(self, recall, precision, fscore, complete_match):
        self.fscore = fscore

    def __str__(self):
        return f"FScore={self.fscore}"


def evalb(evalb_dir, gold_trees, predicted_trees, ref_gold_path=None):
    raise RuntimeError("benepar's evalb was run on what the peer parsed")
'''


def fake_checkout(folder: Path, evalb: bool = True) -> Path:
    """A checkout of benepar as the recipe reads it: src/main.py, src/evaluate.py, EVALB/evalb (built or not), and a
    ``tokenizations`` module (pytokenizations) where benepar's treebanks.py would import it."""
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "main.py").write_text(FAKE_MAIN, encoding="utf-8")
    (folder / "src" / "evaluate.py").write_text(FAKE_EVALUATE, encoding="utf-8")
    (folder / "src" / "tokenizations.py").write_text("def get_alignments(a, b):\n    return [], []\n", encoding="utf-8")
    (folder / "EVALB").mkdir()
    if evalb:
        (folder / "EVALB" / "evalb").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (folder / "EVALB" / "evalb").chmod(0o755)
    return folder


def fake_benepar_package(site: Path) -> Path:
    """The installed benepar package as ``importlib.metadata`` sees it (the recipe's version command reads it)."""
    info = site / "benepar-0.2.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: benepar\nVersion: 0.2.0\n", encoding="utf-8")
    return site


def tree_data(folder: Path) -> Dict[str, str]:
    folder.mkdir(parents=True)
    for split in ("train", "dev", "test"):
        (folder / f"{split}.trees").write_text("\n".join(GOLD_TREES) + "\n", encoding="utf-8")
    return {split: str(folder / f"{split}.trees") for split in ("train", "dev", "test")}


def mlparse_run(cwd: Path, *args: str, env: Optional[Dict[str, str]] = None,
                drop: tuple = ()) -> "subprocess.CompletedProcess[str]":
    environ = dict(os.environ, PYTHONPATH=str(REPO))
    environ.update(env or {})
    for name in drop:
        environ.pop(name, None)
    return subprocess.run([sys.executable, "-m", "mlparse", "run", *args], capture_output=True, text=True, cwd=cwd,
                          env=environ, timeout=600)


def overrides(data: Dict[str, str], *more: str) -> list:
    return [f"data.{split}={path}" for split, path in data.items()] + ["train.num_threads=1", *more]


def test_the_recipe_runs_benepars_trainer_from_its_checkout_with_absolute_paths(tmp_path: Path) -> None:
    data = tree_data(tmp_path / "trees")
    typed_in = tmp_path / "project"
    checkout = fake_checkout(typed_in / "self-attentive-parser")
    site = fake_benepar_package(tmp_path / "site")
    sets = overrides(data, "train.seed=4")
    args = ["external/benepar-span", "--runs-dir", "out/runs", "--max-minutes", "5"]
    for item in sets:
        args += ["--set", item]
    result = mlparse_run(typed_in, *args, env={  # both relative: taken from the folder the command is typed in
        "MLPARSE_BENEPAR_PYTHON": os.path.relpath(sys.executable, typed_in),
        "MLPARSE_BENEPAR_REPO": "self-attentive-parser",
        "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])})
    assert result.returncode == 0, result.stdout + result.stderr
    folder = RunDir.for_recipe(typed_in / "out/runs", load_recipe("external/benepar-span", sets)).path
    peer = folder / "peer"
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert results["status"] == "complete" and results["versions"]["benepar"] == "0.2.0"
    assert results["system"] == "benepar 0.2.0 (chart parser, CharLSTM + partitioned transformer 8×1024; no tags)"
    # flat trees under (TOP (S ...)) with the gold tags put back: S and the words right, the NPs and VPs missed
    assert results["test"]["precision"] == pytest.approx(100.0)
    assert any("gold tags put back" in note for note in results["notes"])
    # the model benepar saved as model_dev=<F1>.pt is model.pt, the same file
    assert (peer / "model.pt").samefile(peer / "model_dev=50.00.pt")
    runs = [json.loads(line) for line in (peer / "predicted-with.json").read_text(encoding="utf-8").splitlines()]
    trained = runs[0]["trained"]["argv"]
    assert trained[0] == "train" and runs[0]["trained"]["cwd"] == str(peer)

    def value(argv: list, flag: str) -> str:
        return argv[argv.index(flag) + 1]

    for flag, path in (("--train-path", peer / "data/train.trees"), ("--dev-path", peer / "data/dev.trees"),
                       ("--evalb-dir", checkout / "EVALB"), ("--model-path-base", peer / "model")):
        assert value(trained, flag) == str(path), flag  # absolute, whatever folder mlparse was started in
    assert value(trained, "--numpy-seed") == "4" and value(trained, "--num-layers") == "8"
    assert {"--use-chars-lstm", "--use-encoder"} <= set(trained)
    assert runs[0]["trained"]["threads"] >= 1 and runs[0]["trained"]["sentences"] == len(GOLD_TREES)
    # dev and test predicted from their flat inputs with the model, benepar's own evalb of them left out
    assert [value(run["test"]["argv"], "--test-path") for run in runs] == \
        [str(peer / "data/dev.input.trees"), str(peer / "data/test.input.trees")]
    assert all(value(run["test"]["argv"], "--model-path") == str(peer / "model.pt") for run in runs)
    assert all(run["test"]["argv"][0] == "test" and run["fscore"] == "FScore=nan" for run in runs)
    commands = json.loads((peer / "commands.json").read_text(encoding="utf-8"))
    launched = commands["train"][0].split()
    assert launched[1] == str(peer / "benepar_main.py") and launched[2] == str(checkout)
    assert (peer / "data/test.input.trees").read_text(encoding="utf-8").splitlines()[0] == \
        "(TOP (XX the) (XX dog) (XX barks) (XX .))"
    # where the checkout is is this machine's, not the recipe's: not part of the run id
    elsewhere = load_recipe("external/benepar-span", sets + [f"external.repo={checkout}"])
    assert RunDir.for_recipe(tmp_path, elsewhere).path == RunDir.for_recipe(tmp_path, load_recipe(
        "external/benepar-span", sets)).path


def test_a_missing_checkout_is_one_line_naming_the_variable_before_anything_is_prepared(tmp_path: Path) -> None:
    root = tmp_path / "prepared"  # the recipe's data would be prepared here
    args = ["external/benepar-span", "--runs-dir", str(tmp_path / "runs"), "--set", f"data.root={root}"]
    python = {"MLPARSE_BENEPAR_PYTHON": sys.executable}
    result = mlparse_run(tmp_path, *args, env=python, drop=("MLPARSE_BENEPAR_REPO",))
    message = " ".join(result.stderr.split())
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "benepar needs a checkout of its source, which is not given: git clone" in message
    assert message.endswith("then set MLPARSE_BENEPAR_REPO=/path/to/its/checkout (or --set external.repo=...)")
    assert not root.exists() and not (tmp_path / "runs").exists()  # nothing prepared, no run folder
    # a path that is not a folder is said so, where it was looked for
    result = mlparse_run(tmp_path, *args, env=dict(python, MLPARSE_BENEPAR_REPO="nowhere"))
    assert result.returncode == 1 and "MLPARSE_BENEPAR_REPO=nowhere is not a folder" in result.stderr
    assert str(tmp_path / "nowhere") in " ".join(result.stderr.split()) and not root.exists()
    # without its Python either, the Python is said first
    result = mlparse_run(tmp_path, *args, drop=("MLPARSE_BENEPAR_REPO", "MLPARSE_BENEPAR_PYTHON"))
    assert result.returncode == 1 and "set MLPARSE_BENEPAR_PYTHON=" in result.stderr


def test_a_run_started_from_python_without_a_checkout_fails_before_the_peer_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.run_dispatch import run_recipe
    from mlparse.train.runner import RunError, RunOptions

    monkeypatch.delenv("MLPARSE_BENEPAR_REPO", raising=False)
    config = load_recipe("external/benepar-span", overrides(tree_data(tmp_path / "trees"),
                                                            f"external.python={sys.executable}"))
    with pytest.raises(RunError, match=r"benepar needs a checkout of its source, which is not given: .*"
                                       r"MLPARSE_BENEPAR_REPO="):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert not (RunDir.for_recipe(tmp_path / "runs", config).path / "peer" / "train.log").exists()


def test_a_checkout_without_evalb_built_fails_saying_so(tmp_path: Path) -> None:
    data = tree_data(tmp_path / "trees")
    checkout = fake_checkout(tmp_path / "checkout", evalb=False)
    args = ["external/benepar-span", "--runs-dir", str(tmp_path / "runs"),
            "--set", "external.version_command=echo 0.2.0"]
    for item in overrides(data):
        args += ["--set", item]
    result = mlparse_run(tmp_path, *args, env={"MLPARSE_BENEPAR_PYTHON": sys.executable,
                                               "MLPARSE_BENEPAR_REPO": str(checkout)})
    assert result.returncode == 1
    assert f"EVALB, which is not built: make -C {checkout / 'EVALB'}" in result.stderr


def test_a_stop_during_the_save_waits_for_it_and_ends_the_training(tmp_path: Path) -> None:
    """SIGINT (the budget's stop) while benepar saves its best model: the save and model.pt are whole, exit 0."""
    launcher = tmp_path / "benepar_main.py"
    launcher.write_text(load_recipe("external/benepar-span").external.files["benepar_main.py"], encoding="utf-8")
    checkout = fake_checkout(tmp_path / "checkout")
    trees = tree_data(tmp_path / "trees")
    base = tmp_path / "model"
    result = subprocess.run([sys.executable, str(launcher), str(checkout), "1", "train", "--train-path", trees["train"],
                             "--dev-path", trees["dev"], "--evalb-dir", str(checkout / "EVALB"), "--model-path-base",
                             str(base)], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                            env=dict(os.environ, FAKE_BENEPAR_SIGINT_IN_SAVE="1"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stopped (SIGINT) while saving" in result.stdout and "Saving new best model" not in result.stdout
    import torch

    saved = torch.load(Path(f"{base}.pt"), weights_only=False)
    assert saved["record"]["sentences"] == len(GOLD_TREES) and Path(f"{base}.pt").samefile(f"{base}_dev=50.00.pt")


def test_repo_resolution_and_the_recipe_checks() -> None:
    assert repo_variable("benepar") == "MLPARSE_BENEPAR_REPO" and repo_variable("My Peer") == "MLPARSE_MY_PEER_REPO"
    with pytest.raises(PeerMissing, match=r"external\.repo=/no/such/folder is not a folder; pip install x; then set "
                                          r"MLPARSE_BENEPAR_REPO="):
        peer_repo("benepar", "/no/such/folder", "pip install x", {})
    assert peer_repo("benepar", None, "", {"MLPARSE_BENEPAR_REPO": str(REPO)}) == str(REPO)
    # a recipe whose commands do not use {repo} needs none
    check_setup(load_recipe("external/supar-crf-con", [f"external.python={sys.executable}"]), environ={})
    with pytest.raises(PeerMissing, match="MLPARSE_BENEPAR_REPO"):
        check_setup(load_recipe("external/benepar-span", [f"external.python={sys.executable}"]), environ={})
    # the version command is given {python} alone: {repo} is refused there when the recipe loads
    with pytest.raises(ConfigError, match=r"external\.version_command: \{repo\} cannot be used in "
                                          r"external\.version_command"):
        load_recipe("external/benepar-span", ["external.version_command={python} {repo}/setup.py --version"])
