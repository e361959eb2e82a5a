"""``model.kind: external``: another toolkit's parser trained and scored by ``mlparse run`` (mlparse/external/),
tested with a fake peer (tests/helpers/fake_peer.py) that learns nothing and writes left chains."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli.app import app
from mlparse.config import ConfigError, load_recipe
from mlparse.results import COMPLETE, FAILED, RunResults
from mlparse.run_dir import RunDir
from mlparse.run_dispatch import run_recipe
from mlparse.train.runner import RunError, RunOptions
from helpers.external_fixtures import chain_uas, write_external_recipe

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run(recipe: Path, tmp_path: Path, *overrides: str, minutes=None) -> RunResults:
    config = load_recipe(str(recipe), list(overrides))
    return run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=minutes))


def run_dir_of(recipe: Path, tmp_path: Path, *overrides: str) -> Path:
    config = load_recipe(str(recipe), list(overrides))
    return RunDir.for_recipe(tmp_path / "runs", config).path


def test_a_peer_is_trained_run_and_scored_into_an_ordinary_run(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path)
    results = run(recipe, tmp_path)
    folder = run_dir_of(recipe, tmp_path)
    assert results.status == COMPLETE and results.model == "external" and results.task == "dependency"
    # the scores are depeval's on the peer's left chains: UAS counted by hand
    assert results.dev.uas == pytest.approx(chain_uas(), abs=0.01) and results.test.uas == pytest.approx(chain_uas(), abs=0.01)
    assert results.system == "FakePeer 0.3 (left chains; gold UPOS)"
    assert results.versions["FakePeer"] == "fake-peer 0.3.1" and results.external["installed_version"] == "fake-peer 0.3.1"
    assert results.input_tags == {"source": "gold"} and results.gold["test"]["sha256"]
    saved = json.loads((folder / "results.json").read_text())
    assert saved["status"] == "complete" and saved["external"]["attempts"] == 1
    # the commands were templated with the run's files, seed and folder
    model = json.loads((folder / "peer" / "model.json").read_text())
    argv = model["argv"]
    assert argv[argv.index("--seed") + 1] == "7" and argv[argv.index("--train") + 1] == str(folder / "peer/data/train.conllu")
    assert argv[argv.index("--model") + 1] == str(folder / "peer" / "model.json")
    commands = json.loads((folder / "peer" / "commands.json").read_text())
    assert str(folder / "peer/data/test.input.conllu") in commands["predict"]["test"]
    # what the peer read: FORM and UPOS, LEMMA blanked; HEAD and DEPREL blanked in what it predicted
    train_line = (folder / "peer/data/train.conllu").read_text().splitlines()[2].split("\t")
    assert train_line[1:4] == ["the", "_", "DET"] and train_line[6:8] == ["2", "det"]
    lines = [l.split("\t") for l in (folder / "peer/data/test.input.conllu").read_text().splitlines() if "\t" in l]
    assert lines[0][0] == "1-2" and all(l[6:9] == ["_", "_", "_"] for l in lines if l[0].isdigit())
    # the run directory holds what a trained run holds
    assert (folder / "test.pred.conllu").is_file() and (folder / "dev.depeval").is_file()
    assert (folder / "recipe.yaml").is_file() and (folder / "peer" / "train.log").is_file()
    # a second `mlparse run` finds it finished and runs nothing
    before = (folder / "peer" / "model.json").stat().st_mtime_ns
    assert run(recipe, tmp_path).status == COMPLETE
    assert (folder / "peer" / "model.json").stat().st_mtime_ns == before


def test_the_tag_protocols_reach_the_peer(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path)
    results = run(recipe, tmp_path, "data.tags=none")
    folder = run_dir_of(recipe, tmp_path, "data.tags=none")
    assert results.status == COMPLETE and results.input_tags == {"source": "none"} and "no tags" in results.system
    for line in (folder / "peer/data/train.conllu").read_text().splitlines():
        cells = line.split("\t")
        if len(cells) == 10 and cells[0].isdigit():
            assert cells[3] == "_" and cells[4] == "_"
    assert run_dir_of(recipe, tmp_path, "data.tags=none") != run_dir_of(recipe, tmp_path)  # another run id
    with pytest.raises(ConfigError, match="data.tags: files is not for an external parser"):
        load_recipe(str(recipe), ["data.tags=files", "data.eval_tags=predicted", "data.dev_tags=x", "data.test_tags=x"])


def test_the_budget_stops_a_hanging_peer_which_keeps_its_model(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, train_extra="--hang --minutes {minutes}")
    started = time.monotonic()
    results = run(recipe, tmp_path, minutes=0.05)
    assert time.monotonic() - started < 30
    assert results.status == COMPLETE and "stopped at its budget" in results.stop_reason and "SIGINT" in results.stop_reason
    assert results.external["stopped_at_budget"] and 2.5 < results.training_seconds < 15
    model = json.loads((run_dir_of(recipe, tmp_path) / "peer" / "model.json").read_text())
    assert 0 < float(model["minutes"]) <= 0.05  # {minutes}: what was left of the budget


def test_a_peer_deaf_to_sigint_is_terminated(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, train_extra="--hang --ignore-sigint")
    results = run(recipe, tmp_path, minutes=0.03)
    assert results.status == COMPLETE and "SIGTERM" in results.stop_reason


def test_minutes_without_a_budget_is_refused(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, train_extra="--minutes {minutes}")
    with pytest.raises(RunError, match="needs a time budget"):
        run(recipe, tmp_path)


@pytest.mark.parametrize("train_extra, predict_extra, message", [
    ("--crash", "", r"FakePeer's training ended with exit status 3; its last lines:\n  \| fake peer: training on 8 "
                    r"sentences \(seed 7\)\n  \| RuntimeError: the fake peer ran out of memory\nits log: .*peer/train.log$"),
    ("", "--mode crash-on-test", r"(?s)prediction of test ended with exit status 1; its last lines:\n.*cannot read"),
    ("", "--mode crash", r"(?s)prediction of dev ended with exit status 1; its last lines:\n.*cannot read its input"),
    ("", "--mode empty", r"prediction of dev wrote nothing to .*dev.pred.conllu"),
    ("", "--mode short", r"dev.pred.conllu:\d+: 7 sentences, but the gold file .* has 8"),
    ("", "--mode badhead", r"dev.pred.conllu:\d+: sentence 1 .*"),
    ("--sleep-before-model 30", "", r"no model at .*model.json"),
])
def test_a_failing_peer_is_a_failed_run_with_its_last_lines(tmp_path: Path, train_extra: str, predict_extra: str,
                                                           message: str) -> None:
    recipe = write_external_recipe(tmp_path, train_extra=train_extra, predict_extra=predict_extra)
    with pytest.raises(RunError, match=message):
        run(recipe, tmp_path, minutes=0.03 if "sleep" in train_extra else None)
    folder = run_dir_of(recipe, tmp_path)
    results = RunResults.from_json_dict(json.loads((folder / "results.json").read_text()))
    assert results.status == FAILED and results.dev is None and results.test is None  # never half-written
    assert not list(folder.glob("*.pred.*")) and not list(folder.glob("*.depeval"))


def test_a_hanging_prediction_is_bounded(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, predict_extra="--mode hang", external={"predict_minutes": 0.03})
    started = time.monotonic()
    with pytest.raises(RunError, match=r"prediction of dev was stopped at its bound of 0.0 minutes \(SIGINT\); its last "
                                       r"lines:\n  \| fake peer: predicting\n(?s:.*)KeyboardInterrupt\nits log"):
        run(recipe, tmp_path)
    assert time.monotonic() - started < 30


def test_a_missing_peer_is_one_line_saying_what_to_do(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, external={"python": None})
    environ = dict(os.environ, PYTHONPATH=str(REPO))
    environ.pop("MLPARSE_FAKEPEER_PYTHON", None)
    result = subprocess.run([sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(tmp_path / "runs")],
                            capture_output=True, text=True, cwd=tmp_path, env=environ)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert ("FakePeer is not set up for mlparse: pip install fake-peer; then set MLPARSE_FAKEPEER_PYTHON="
            in " ".join(result.stderr.split()))
    # the environment variable points at it
    environ["MLPARSE_FAKEPEER_PYTHON"] = sys.executable
    result = subprocess.run([sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(tmp_path / "runs")],
                            capture_output=True, text=True, cwd=tmp_path, env=environ)
    assert result.returncode == 0, result.stderr
    # where the peer lives is not part of the run id
    assert run_dir_of(recipe, tmp_path) == run_dir_of(recipe, tmp_path, f"external.python={sys.executable}")


def _kill_while_training(recipe: Path, tmp_path: Path) -> Path:
    """Start ``mlparse run`` on ``recipe``, SIGKILL it while its peer trains; returns the peer's folder."""
    peer = run_dir_of(recipe, tmp_path) / "peer"
    process = subprocess.Popen([sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(tmp_path / "runs")],
                               cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    deadline = time.monotonic() + 60
    while not (peer / "model.json").is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (peer / "model.json").is_file()
    time.sleep(2)  # it trains a while
    process.send_signal(signal.SIGKILL)
    process.wait()
    return peer


def _peer_processes(peer: Path) -> int:
    found = subprocess.run(["pgrep", "-f", f"--model {peer}/model.json"], capture_output=True, text=True)
    return len(found.stdout.split())


def test_kill_and_resume_with_the_peers_own_resume(tmp_path: Path) -> None:
    checkpoint = "{workdir}/checkpoint"
    recipe = write_external_recipe(tmp_path, train_extra="--sleep 600 --checkpoint " + checkpoint, external={
        "resume": "{python} " + str(Path(__file__).parent / "helpers" / "fake_peer.py") +
                  " train --train {train} --dev {dev} --model {workdir}/model.json --resume --minutes {minutes}"
                  " --checkpoint " + checkpoint,
        "resume_when": "checkpoint"},  # a relative file is the peer's, in {workdir}
        train={"max_minutes": 5})
    peer = _kill_while_training(recipe, tmp_path)
    deadline = time.monotonic() + 10
    while _peer_processes(peer) and time.monotonic() < deadline:  # the peer got SIGTERM when mlparse died
        time.sleep(0.1)
    assert _peer_processes(peer) == 0
    results = run(recipe, tmp_path)
    assert results.status == COMPLETE and results.external["attempts"] == 2
    assert any("resumed from its checkpoint" in note for note in results.notes)
    model = json.loads((peer / "model.json").read_text())
    assert model["resumed"] and float(model["minutes"]) <= 4.97  # the killed attempt's 2 s count (its log's last write)
    assert json.loads((peer / "state.json").read_text())["running_since"] is None


def test_kill_and_restart_without_a_resume(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, train_extra="--sleep 600", name="fake-restart",
                                   external={"files": {"peer.ini": "[Network]\n"}})
    peer = _kill_while_training(recipe, tmp_path)
    (peer / "leftover.bin").write_text("x")
    results = run(recipe, tmp_path, minutes=0.05)  # the recipe sleeps: its budget stops it
    assert results.status == COMPLETE and results.external["attempts"] == 2
    assert any("restarted from the beginning (it has no resume command)" in note for note in results.notes)
    assert not (peer / "leftover.bin").exists() and (peer / "data" / "train.conllu").is_file()
    assert not (peer / "data" / "test.conllu").exists() and (peer / "data" / "test.input.conllu").is_file()  # no gold
    assert (peer / "peer.ini").read_text() == "[Network]\n"  # the recipe's files are kept (and written again)


def test_recipe_checks_name_the_key(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path)
    cases = [("external.train={python} x --model {output}", r"external.train: \{output\} cannot be used in external.train"),
             ("external.predict={python} x {input}", r"external.predict must use \{output\}"),
             ("external.train={python} {nonsense}", r"\{nonsense\} is not a placeholder of external.train"),
             ("external.resume={python} x {train}", "external.resume and external.resume_when go together"),
             ("external.columns=[form, deprel]", "'deprel' is not a column the peer can be given"),
             ("external.system=", "external.system names the parser"),
             ("external.predict_minutes=0", "external.predict_minutes bounds each prediction"),
             ("external.train='{python} x", "No closing quotation"),
             ("external.model={workdir}/a {workdir}/b", "external.model names one file, got 2 words"),
             ("external.train={python} x {train} --test {test}", r"\{test\} cannot be used in external.train"),
             ("external.predict={python} x {input} {output} {test}", r"\{test\} cannot be used in external.predict")]
    for override, message in cases:
        with pytest.raises(ConfigError, match=message):
            load_recipe(str(recipe), [override])


def test_compare_and_report_read_a_peers_runs(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path)
    for seed in (1, 2):
        assert run(recipe, tmp_path, f"train.seed={seed}").status == COMPLETE
    other = write_external_recipe(tmp_path, name="fake-peer-none")
    assert run(other, tmp_path, "data.tags=none").status == COMPLETE
    result = runner.invoke(app, ["report", str(tmp_path / "runs"), "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "FakePeer 0.3 (left chains; gold UPOS)" in result.output and "FakePeer 0.3 (left chains; no tags)" in result.output
    result = runner.invoke(app, ["compare", "fake-peer", "fake-peer-none", "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


def test_a_sweep_with_a_failing_peer_finishes_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.sweep.driver import SweepRun
    from mlparse.sweep.local import LocalLauncher
    from mlparse.sweep.suite import load_suite

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    good = write_external_recipe(tmp_path / "good", name="peer-good")
    bad = write_external_recipe(tmp_path / "bad", name="peer-bad", train_extra="--crash")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"seeds: [1, 2]\nmembers:\n  - {bad}\n  - {good}\n", encoding="utf-8")
    runs = tmp_path / "runs"
    rows = {row.label: row for row in SweepRun("suite", load_suite(str(suite)).members(), runs, None,
                                               LocalLauncher(gpus_per_member=0)).run()}
    assert [rows[f"peer-good seed {s}"].state for s in (1, 2)] == [COMPLETE, COMPLETE]
    assert [rows[f"peer-bad seed {s}"].state for s in (1, 2)] == [FAILED, FAILED]
    assert "FakePeer's training ended with exit status 3" in rows["peer-bad seed 1"].reason


def test_sigint_reaches_a_peer_started_from_a_background_job(tmp_path: Path) -> None:
    """A shell's background job ignores SIGINT, and its children inherit that: the peer must still get it."""
    recipe = write_external_recipe(tmp_path, train_extra="--hang")
    script = (f"cd {tmp_path} && PYTHONPATH={REPO} {sys.executable} -m mlparse run {recipe} --runs-dir {tmp_path / 'runs'} "
              f"--max-minutes 0.05 > {tmp_path / 'out.txt'} 2>&1 & wait")
    subprocess.run(["bash", "-c", script], check=True, timeout=120)
    results = json.loads((run_dir_of(recipe, tmp_path) / "results.json").read_text())
    assert results["status"] == "complete" and "SIGINT" in results["stop_reason"]


def test_a_training_stopped_before_its_model_is_said_so(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, train_extra="--sleep-before-model 4",
                                   external={"model": "{workdir}/model.json"})
    with pytest.raises(RunError, match=r"FakePeer's training was stopped at its budget after 0\.\d minutes, before it "
                                       r"saved a model \(.*model.json\): give it more time"):
        run(recipe, tmp_path, minutes=0.03)
    # the same command with more time trains again (a restart: the fake peer has no resume) and finishes
    results = run(recipe, tmp_path, minutes=0.5)
    assert results.status == COMPLETE and results.external["attempts"] == 2
    assert any("restarted from the beginning" in note for note in results.notes)
    recipe = write_external_recipe(tmp_path, name="no-model", external={"model": "{workdir}/elsewhere.bin"})
    with pytest.raises(RunError, match=r"(?s)training ended without the model .*elsewhere.bin; its last lines:.*fake peer"):
        run(recipe, tmp_path)


def test_the_peers_files_are_written_and_kept_on_a_restart(tmp_path: Path) -> None:
    recipe = write_external_recipe(tmp_path, external={"files": {"peer.ini": "[Network]\nn = 1\n"}},
                                   train_extra="--checkpoint {workdir}/peer.ini.bak")
    assert run(recipe, tmp_path).status == COMPLETE
    assert (run_dir_of(recipe, tmp_path) / "peer" / "peer.ini").read_text() == "[Network]\nn = 1\n"
    with pytest.raises(ConfigError, match="external.files maps file names"):
        load_recipe(str(recipe), ["external.files={a/b: x}"])
    with pytest.raises(ConfigError, match="state.json is mlparse's own file"):
        load_recipe(str(recipe), ["external.files={state.json: x}"])


GOLD_TREES = ["(TOP (S (NP (DT the) (NN dog)) (VP (VBZ barks)) (. .)))",
              "(TOP (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ red)))))"]


def test_a_constituency_peer_given_no_tags_is_scored_with_the_gold_tags_put_back(tmp_path: Path) -> None:
    folder = tmp_path / "trees"
    folder.mkdir()
    for split in ("train", "dev", "test"):
        (folder / f"{split}.trees").write_text("\n".join(GOLD_TREES) + "\n", encoding="utf-8")
    recipe = write_external_recipe(tmp_path, data={s: str(folder / f"{s}.trees") for s in ("train", "dev", "test")},
                                   external={"task": "constituency"})
    results = run(recipe, tmp_path, "data.tags=none", "model.use_tags=false")
    peer = run_dir_of(recipe, tmp_path, "data.tags=none", "model.use_tags=false") / "peer"
    assert (peer / "data" / "train.trees").read_text().splitlines()[0] == \
        "(TOP (S (NP (XX the) (XX dog)) (VP (XX barks)) (XX .)))"
    # the fake peer writes flat trees (TOP (S ...)): S matches in both sentences; gold has NP, VP / NP, VP, ADJP more
    assert results.status == COMPLETE and results.test.recall == pytest.approx(100 * 2 / 7, abs=0.01)
    assert results.test.precision == pytest.approx(100.0) and results.test.tagging_accuracy in (None, 100.0)
    assert any("gold tags put back" in note for note in results.notes)
    assert (run_dir_of(recipe, tmp_path, "data.tags=none", "model.use_tags=false") / "test.evalb").is_file()


def test_jack_knifed_tags_reach_the_peer_and_never_the_scorer(tmp_path: Path) -> None:
    from helpers.tagger_fixtures import ONE_AT_A_TIME, write_tagger_recipe
    from mlparse.train.jackknife import load_tags

    recipe = write_external_recipe(tmp_path)
    tagger = write_tagger_recipe(tmp_path)
    overrides = ["data.tags=jackknife", "tagger.folds=2", f"tagger.recipe={tagger}", ONE_AT_A_TIME]
    results = run(recipe, tmp_path, *overrides)
    config = load_recipe(str(recipe), overrides)
    tags = load_tags(config).tags
    assert results.status == COMPLETE and results.input_tags["source"] == "jackknife" and results.input_tags["folds"] == 2
    assert "jack-knifed UPOS" in results.system and "tag input added" not in results.system
    peer = run_dir_of(recipe, tmp_path, *overrides) / "peer" / "data"
    for split, name in (("train", "train.conllu"), ("test", "test.input.conllu")):  # the taggers' tags, sentence by sentence
        lines = [l.split("\t") for l in (peer / name).read_text().splitlines() if "\t" in l]
        assert [l[3] for l in lines if l[0].isdigit()] == [tag for sentence in tags[split] for tag in sentence]
    # scored against the data's own gold file: the left chains' UAS, whatever the tags
    assert results.test.uas == pytest.approx(chain_uas(), abs=0.01)


def test_a_model_trained_under_another_budget_is_not_reused(tmp_path: Path) -> None:
    """A run whose training finished but whose scoring failed, run again with a larger budget: once it predicted with
    the old model and recorded the new budget; now the peer trains again, said in the notes."""
    recipe = write_external_recipe(tmp_path)
    assert run(recipe, tmp_path, minutes=5).status == COMPLETE
    folder = run_dir_of(recipe, tmp_path)
    state = json.loads((folder / "peer" / "state.json").read_text())
    assert state["trained"] and state["trained_under"]["minutes"] == 5
    results = json.loads((folder / "results.json").read_text())
    (folder / "results.json").write_text(json.dumps({**results, "status": "failed"}))  # as a failed prediction
    again = run(recipe, tmp_path, minutes=9)
    assert again.status == COMPLETE
    assert any("a budget of 5 minutes (now 9 minutes)" in note and "trains again" in note for note in again.notes)
    commands = json.loads((folder / "peer" / "commands.json").read_text())
    assert len(commands["train"]) == 1  # the new training's command (the old one's files were cleared)
    assert json.loads((folder / "peer" / "state.json").read_text())["trained_under"]["minutes"] == 9
    same = json.loads((folder / "results.json").read_text())
    (folder / "results.json").write_text(json.dumps({**same, "status": "failed"}))
    kept = run(recipe, tmp_path, minutes=9)  # the same conditions: the model stands
    assert any("it was not run again" in note for note in kept.notes)
