"""`mlparse sweep`: suite files, resume of a half-finished sweep, failure isolation, the Slurm path through
submitit's local executor, and the status table rebuilt from run directories."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.results import COMPLETE, FAILED, RUNNING, RunResults
from mlparse.run_dir import RunDir
from mlparse.sweep.driver import SweepRun, member_argv
from mlparse.sweep.local import MEMBER_LOG, LocalLauncher, gpu_groups
from mlparse.sweep.prepare import needs_preparing, prepare_treebanks
from mlparse.sweep.status import QUEUED, STOPPED, SweepState, member_statuses
from mlparse.sweep.suite import SuiteError, bundled_suites, load_suite
from mlparse.run_lock import RunLock
from helpers.run_fixtures import REPO, write_tiny_recipe

runner = CliRunner()
BROKEN_TREE = "(TOP (S (NP (DT the)\n"


@pytest.fixture(autouse=True)
def member_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Member processes import this checkout's mlparse, on one thread."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def write_suite(tmp_path: Path, body: str, name: str = "suite") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def tiny(tmp_path: Path, name: str, broken: bool = False, **train) -> Path:  # type: ignore[no-untyped-def]
    recipe = write_tiny_recipe(tmp_path / name, name=name, train={"max_epochs": 2, **train})
    if broken:
        (tmp_path / name / "data" / "train.trees").write_text(BROKEN_TREE, encoding="utf-8")
    return recipe


# -- suite files ---------------------------------------------------------------------------------------------

def test_bundled_suites_load_with_every_member() -> None:
    assert {"spmrl", "free", "ud", "demo"} <= set(bundled_suites())
    free = load_suite("free").members()
    assert sorted(member.config.data.language for member in free) == sorted(
        ["english", "indonesian", "spanish", "portuguese", "chinese", "icelandic", "faroese", "japanese"])
    assert {member.config.model.d_model for member in free} == {128}  # the demo-size model
    demo = load_suite("demo").members()
    assert [member.label for member in demo] == ["demo seed 1", "demo seed 2", "demo-dep seed 1", "demo-dep seed 2"]
    assert len({RunDir.for_recipe(Path("runs"), member.config).path for member in demo}) == 4


def test_unknown_recipe_names_the_suite_file_and_line(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "description: x\nmembers:\n  - free/icelandic\n  - free/icelandc\n")
    with pytest.raises(SuiteError) as caught:
        load_suite(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}, line 4: ")
    assert "recipe 'free/icelandc' not found" in message and "Did you mean 'free/icelandic'?" in message


def test_bad_override_names_the_suite_file_and_line(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "members:\n  - free/english\n  - recipe: free/faroese\n    set: [train.lrr=0.1]\n")
    suite = load_suite(str(path))
    with pytest.raises(SuiteError) as caught:
        suite.members()
    message = str(caught.value)
    assert message.startswith(f"{path}, line 3: member ") and "unknown key 'lrr'" in message
    assert "Did you mean 'lr'?" in message


def test_unknown_suite_key_and_bad_seeds_are_reported_with_their_line(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "members:\n  - demo\nseed: [1, 2]\n")
    with pytest.raises(SuiteError, match=r"line 3: unknown key 'seed'\. Did you mean 'seeds'\?"):
        load_suite(str(path))
    path = write_suite(tmp_path, "members:\n  - demo\nseeds: [1, one]\n")
    with pytest.raises(SuiteError, match=r"line 3: seeds must be a list of whole numbers"):
        load_suite(str(path))
    path = write_suite(tmp_path, "members:\n  - demo\nslurm:\n  partiton: gpu\n")
    with pytest.raises(SuiteError, match=r"line 4: slurm: unknown key 'partiton'\. Did you mean 'partition'\?"):
        load_suite(str(path))


def test_the_command_reports_a_bad_suite_in_one_line(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "members:\n  - recipe: demo\n    set: [model.d_modle=3]\n")
    result = runner.invoke(app, ["sweep", str(path), "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}, line 2: member ")
    assert "unknown key 'd_modle'" in lines[0]
    result = runner.invoke(app, ["sweep", "fre"])
    assert result.exit_code == 2 and "Did you mean 'free'?" in result.output


def test_seeds_and_overrides_make_distinct_ordinary_runs(tmp_path: Path) -> None:
    recipe = tiny(tmp_path, "tiny-a")
    suite = load_suite(str(write_suite(tmp_path, f"set: [train.lr=0.02]\nmembers:\n  - {recipe}\n")))
    members = suite.members([1, 2], ["train.max_epochs=1"])
    assert [(member.seed, member.config.train.seed, member.config.train.lr, member.config.train.max_epochs)
            for member in members] == [(1, 1, 0.02, 1), (2, 2, 0.02, 1)]
    argv = member_argv(members[1], tmp_path / "runs", 3.0)
    assert argv[1:5] == ["-m", "mlparse", "run", str(recipe)]
    assert argv[-2:] == ["--max-minutes", "3"] and "train.seed=2" in argv
    with pytest.raises(SuiteError, match="same run as"):
        load_suite(str(write_suite(tmp_path, f"members:\n  - {recipe}\n  - {recipe}\n"))).members()


# -- running ---------------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.treebanks
def test_each_treebank_is_prepared_once_before_the_members(tmp_path: Path, treebanks: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import mlparse.data.prepare as prepare_module

    calls = []
    real = prepare_module.prepare_family

    def recording(family, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((family, tuple(kwargs.get("languages") or ())))
        return real(family, **kwargs)

    monkeypatch.setattr(prepare_module, "prepare_family", recording)
    suite = write_suite(tmp_path, f"seeds: [1, 2]\nset: [data.root={tmp_path / 'data'}]\nmembers:\n"
                                  "  - free/faroese\n  - recipe: free/faroese\n    set: [train.lr=0.001]\n")
    members = load_suite(str(suite)).members()
    assert len(members) == 4 and all(needs_preparing(member) for member in members)
    assert prepare_treebanks(members, lambda text: None) == {}
    assert calls == [("free", ("faroese",))]
    assert not any(needs_preparing(member) for member in members)
    assert (tmp_path / "data" / "free" / "faroese" / "manifest.json").is_file()
    prepare_treebanks(members, lambda text: None)  # prepared data is used as it is
    assert len(calls) == 1


class Recording(LocalLauncher):
    """The local launcher, remembering which members it started; ``kill`` members die by SIGKILL at once."""

    def __init__(self, kill: tuple = ()) -> None:
        super().__init__(gpus=[])
        self.started: List[str] = []
        self.kill = kill

    def start(self, member, argv, run_dir):  # type: ignore[no-untyped-def]
        if member.label in self.kill:
            argv = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]
        handle = super().start(member, argv, run_dir)
        if handle is not None:
            self.started.append(member.label)
        return handle


@pytest.mark.slow  # member processes (a tiny recipe each)
def test_a_half_finished_sweep_skips_finished_members_and_resumes_the_rest(tmp_path: Path) -> None:
    recipe = tiny(tmp_path, "tiny-a")
    members = load_suite(str(write_suite(tmp_path, f"seeds: [1, 2]\nmembers:\n  - {recipe}\n"))).members()
    runs = tmp_path / "runs"
    # the first sweep: seed 1 trains to the end; seed 2 is stopped by a zero budget after one update
    first = Recording()
    SweepRun("suite", members[:1], runs, None, first).run()
    SweepRun("suite", members[1:], runs, 0.0, Recording()).run()
    one, two = (RunDir.for_recipe(runs, member.config) for member in members)
    finished = one.results.read_text(encoding="utf-8")
    stopped = RunResults.from_json_dict(json.loads(two.results.read_text(encoding="utf-8")))
    assert stopped.status == COMPLETE and stopped.stop_reason == "max_minutes" and stopped.epochs < 2
    steps_before = [json.loads(line)["step"] for line in two.log.read_text().splitlines()]
    # running the sweep again: seed 1 is not started, seed 2 trains on from its checkpoint
    again = Recording()
    rows = SweepRun("suite", members, runs, None, again).run()
    assert again.started == ["tiny-a seed 2"]
    assert one.results.read_text(encoding="utf-8") == finished
    resumed = RunResults.from_json_dict(json.loads(two.results.read_text(encoding="utf-8")))
    assert resumed.stop_reason == "max_epochs" and resumed.epochs == 2
    steps_after = [json.loads(line)["step"] for line in two.log.read_text().splitlines()]
    assert steps_after[:len(steps_before)] == steps_before and len(steps_after) > len(steps_before)
    assert "training on from its last checkpoint" in (two.path / MEMBER_LOG).read_text()
    assert [row.state for row in rows] == [COMPLETE, COMPLETE]
    state = SweepState.read(runs, "suite")
    assert {label: entry["state"] for label, entry in state.members.items()} == {
        "tiny-a seed 1": COMPLETE, "tiny-a seed 2": COMPLETE}


@pytest.mark.slow  # member processes (a tiny recipe each)
def test_failing_members_do_not_stop_the_others(tmp_path: Path) -> None:
    bad = tiny(tmp_path, "tiny-bad", broken=True)
    killed, good = tiny(tmp_path, "tiny-killed"), tiny(tmp_path, "tiny-good", max_epochs=1)
    members = load_suite(str(write_suite(tmp_path, f"members:\n  - {bad}\n  - {killed}\n  - {good}\n"))).members()
    runs = tmp_path / "runs"
    launcher = Recording(kill=("tiny-killed",))
    rows = {row.label: row for row in SweepRun("suite", members, runs, None, launcher).run()}
    assert launcher.started == ["tiny-bad", "tiny-killed", "tiny-good"]
    assert rows["tiny-good"].state == COMPLETE and rows["tiny-good"].best_dev is not None
    assert rows["tiny-bad"].state == FAILED
    assert rows["tiny-bad"].reason.startswith(f"{tmp_path / 'tiny-bad' / 'data' / 'train.trees'}:1:1: unbalanced")
    assert rows["tiny-killed"].state == FAILED and rows["tiny-killed"].reason == "killed by SIGKILL (out of memory?)"
    # recorded in the state file, and shown again by --status
    recorded = SweepState.read(runs, "suite").members
    assert recorded["tiny-killed"]["state"] == FAILED and "SIGKILL" in recorded["tiny-killed"]["reason"]
    suite = write_suite(tmp_path, f"members:\n  - {bad}\n  - {killed}\n  - {good}\n")
    result = runner.invoke(app, ["sweep", str(suite), "--runs-dir", str(runs), "--status"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "1 complete, 2 failed" in result.output and "killed by SIGKILL" in result.output


@pytest.mark.slow  # member processes (a tiny recipe each)
def test_the_slurm_path_through_submitits_local_executor(tmp_path: Path) -> None:
    pytest.importorskip("submitit")
    bad, good = tiny(tmp_path, "tiny-bad", broken=True), tiny(tmp_path, "tiny-good", max_epochs=1)
    suite = write_suite(tmp_path, "slurm: {cluster: local, gpus_per_member: 0, cpus_per_task: 1, time_minutes: 5}\n"
                                  f"members:\n  - {bad}\n  - {good}\n")
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["sweep", str(suite), "--launcher", "slurm", "--runs-dir", str(runs)],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 1, result.output
    assert "error: 1 of 2 member(s) failed: tiny-bad" in result.output and "Traceback" not in result.output
    members = load_suite(str(suite)).members()
    rows = {row.label: row for row in member_statuses(members, runs, SweepState.read(runs, "suite"))}
    assert rows["tiny-good"].state == COMPLETE and rows["tiny-bad"].state == FAILED
    assert "unbalanced brackets" in rows["tiny-bad"].reason
    for member in members:  # submitit's files (job script, logs, pickled result) beside each run
        folder = RunDir.for_recipe(runs, member.config).path / "submitit"
        assert list(folder.glob("*_log.out")) and list(folder.glob("*_result.pkl"))
        assert rows[member.label].job.startswith("job ")


# -- the status table -----------------------------------------------------------------------------------------

def test_status_is_rebuilt_from_run_directories_alone(tmp_path: Path) -> None:
    names = ["done", "broken", "killed", "training", "waiting"]
    lines = "".join(f"  - {tiny(tmp_path, name)}\n" for name in names)
    suite = write_suite(tmp_path, f"members:\n{lines}")
    members = load_suite(str(suite)).members()
    runs = tmp_path / "runs"
    dirs = {member.label: RunDir.for_recipe(runs, member.config) for member in members}
    for name in names[:4]:
        dirs[name].path.mkdir(parents=True)
        dirs[name].write_log([{"step": 5, "epoch": 0.5, "dev_score": 41.5, "metric": "f1", "lr": 0.01,
                               "elapsed_seconds": 30.0, "best": True},
                              {"step": 10, "epoch": 1.0, "dev_score": 40.0, "metric": "f1", "lr": 0.01,
                               "elapsed_seconds": 61.0}])
    dirs["done"].write_results(RunResults(status=COMPLETE, recipe="done", epochs=1.0, training_seconds=62.0,
                                          stop_reason="patience"))
    dirs["broken"].write_results(RunResults(status=FAILED, recipe="broken", error="data.trees:3:1: bad tree\nmore"))
    dirs["killed"].write_results(RunResults(status=RUNNING, recipe="killed"))
    dirs["training"].write_results(RunResults(status=RUNNING, recipe="training"))
    with RunLock(dirs["training"].path):
        rows = {row.label: row for row in member_statuses(members, runs)}
        result = runner.invoke(app, ["sweep", str(suite), "--runs-dir", str(runs), "--status"], env={"COLUMNS": "300"})
    assert {label: row.state for label, row in rows.items()} == {
        "done": COMPLETE, "broken": FAILED, "killed": STOPPED, "training": RUNNING, "waiting": QUEUED}
    assert rows["broken"].reason == "data.trees:3:1: bad tree"
    assert (rows["training"].epoch, rows["training"].best_dev, rows["training"].elapsed_seconds) == (1.0, 41.5, 61.0)
    assert rows["done"].elapsed_seconds == 62.0 and rows["done"].reason == "patience"
    assert result.exit_code == 0, result.output
    table = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 3}
    assert "41.50 F1" in table["training"] and "1:01" in table["training"] and "running" in table["training"]
    assert "failed: data.trees:3:1: bad tree" in table["broken"]
    assert "stopped" in table["killed"] and "queued" in table["waiting"]
    assert "1 queued, 1 running, 1 complete, 1 failed, 1 stopped" in result.output
    assert not (runs / "sweeps").exists()  # --status only reads


def test_gpu_groups_give_each_member_its_own_devices() -> None:
    assert gpu_groups(["0", "1", "2", "3", "4"], 2) == [["0", "1"], ["2", "3"]]
    assert gpu_groups(["0", "1"], 1) == [["0"], ["1"]]
    assert gpu_groups([], 1) == []


def test_local_launcher_sets_cuda_visible_devices_per_member(tmp_path: Path) -> None:
    launcher = LocalLauncher(gpus=["3", "5"])
    handles = []
    script = "import os; print('sees', os.environ.get('CUDA_VISIBLE_DEVICES'))"

    class Fake:
        label = "x"

    for index in range(3):
        run_dir = RunDir(tmp_path / f"m{index}")
        handle = launcher.start(Fake(), [sys.executable, "-c", script], run_dir)  # type: ignore[arg-type]
        handles.append((run_dir, handle))
    assert handles[2][1] is None  # two GPUs: the third member waits for a free one
    for run_dir, handle in handles[:2]:
        assert handle.outcome().returncode == 0 and handle.done()
    seen = sorted((run_dir.path / MEMBER_LOG).read_text().split()[1] for run_dir, _ in handles[:2])
    assert seen == ["3", "5"]
    assert launcher.start(Fake(), [sys.executable, "-c", script], RunDir(tmp_path / "m2")) is not None  # type: ignore[arg-type]
    launcher.close()
