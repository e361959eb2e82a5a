"""The Slurm launcher's parts that need no cluster: GPUs per member (CPU jobs), sbatch refusals and how the
sweep goes on or stops, job states from squeue/scontrol text (no sacct), queued jobs followed on resume.
tests/test_sweep_slurm_cluster.py runs the same paths against a real slurmctld."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.results import COMPLETE, FAILED, RUNNING, RunResults
from mlparse.run_dir import RunDir
from mlparse.sweep import slurm_queue
from mlparse.sweep.driver import Outcome, SubmissionRefused, SweepRun, SweepStopped
from mlparse.sweep.slurm import (EXIT_FILE, SlurmJobHandle, job_parameters, member_gpus, refuses_every_member,
                                 sbatch_reason)
from mlparse.sweep.slurm_queue import JobState, QueueUnavailable, SlurmQueue, job_number, parse_scontrol, parse_squeue
from mlparse.sweep.status import QUEUED, SweepState, member_statuses
from mlparse.sweep.suite import SlurmSettings, SuiteError, load_suite
from helpers.sweep_fakes import Finished
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()
#: sbatch's stderr on Slurm 22.05 (Debian's slurm-wlm), as submitit's FailedJobError carries it.
PARTITION_REFUSAL = ("sbatch: error: invalid partition specified: nosuch\n"
                     "sbatch: error: Batch job submission failed: Invalid partition name specified")
GRES_REFUSAL = "sbatch: error: Invalid generic resource (gres) specification"


def members_of(tmp_path: Path, names: List[str], body: str = ""):  # type: ignore[no-untyped-def]
    lines = "".join(f"  - {write_tiny_recipe(tmp_path / name, name=name)}\n" for name in names)
    path = tmp_path / "suite.yaml"
    path.write_text(f"{body}members:\n{lines}", encoding="utf-8")
    return path, load_suite(str(path)).members()


class Refusing:
    """A launcher refusing the members named in ``refuse`` (reason → every member or not); the others complete."""

    name = "slurm"

    def __init__(self, runs: Path, refuse: dict, alive: dict = None) -> None:  # type: ignore[assignment]
        self.runs, self.refuse, self.alive = runs, refuse, alive or {}
        self.started: List[str] = []

    def start(self, member, argv, run_dir):  # type: ignore[no-untyped-def]
        if member.label in self.refuse:
            raise SubmissionRefused(*self.refuse[member.label])
        self.started.append(member.label)
        run_dir.path.mkdir(parents=True, exist_ok=True)
        run_dir.write_results(RunResults(status=COMPLETE, recipe=member.config.name))
        return Finished(f"job {100 + len(self.started)}")

    def adopt(self, member, job, run_dir):  # type: ignore[no-untyped-def]
        if job in self.alive:
            run_dir.path.mkdir(parents=True, exist_ok=True)
            run_dir.write_results(RunResults(status=COMPLETE, recipe=member.config.name))
            return Finished(job)
        return None

    def gpus_for(self, member) -> int:  # type: ignore[no-untyped-def]
        return 0

    def close(self) -> None:
        pass


# -- CPU jobs ----------------------------------------------------------------------------------------------

def test_gpus_follow_the_recipe_unless_set(tmp_path: Path) -> None:
    _, (auto, cpu) = members_of(tmp_path, ["auto", "cpu"])
    cpu = load_suite(str(tmp_path / "suite.yaml")).members(overrides=["train.device=cpu"])[1]
    assert member_gpus(SlurmSettings(), auto) == 1 and member_gpus(SlurmSettings(), cpu) == 0
    assert member_gpus(SlurmSettings(gpus_per_member=0), auto) == 0
    assert member_gpus(SlurmSettings(gpus_per_member=2), cpu) == 2
    assert "gpus_per_node" not in job_parameters(SlurmSettings(), "cpu", 0)  # a CPU partition accepts the job
    assert job_parameters(SlurmSettings(partition="gpu"), "x", 2)["gpus_per_node"] == 2


def test_gpus_per_member_zero_is_accepted_by_suite_and_command(tmp_path: Path) -> None:
    path, _ = members_of(tmp_path, ["a"], "slurm: {gpus_per_member: 0}\n")
    assert load_suite(str(path)).slurm.gpus_per_member == 0
    result = runner.invoke(app, ["sweep", str(path), "--gpus-per-member", "0", "--status",
                                 "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    path.write_text(path.read_text().replace("gpus_per_member: 0", "gpus_per_member: 0.5"))
    with pytest.raises(SuiteError, match=r"line 1: slurm.gpus_per_member must be a whole number"):
        load_suite(str(path))


# -- refusals ---------------------------------------------------------------------------------------------

def test_sbatch_reasons_are_quoted_and_classified() -> None:
    assert sbatch_reason(PARTITION_REFUSAL) == "Batch job submission failed: Invalid partition name specified"
    assert sbatch_reason(GRES_REFUSAL) == "Invalid generic resource (gres) specification"
    assert refuses_every_member(sbatch_reason(PARTITION_REFUSAL)) and refuses_every_member(sbatch_reason(GRES_REFUSAL))
    assert not refuses_every_member("Batch job submission failed: Socket timed out on send/recv operation")


def test_a_refusal_of_shared_settings_stops_before_the_rest(tmp_path: Path) -> None:
    _, members = members_of(tmp_path, ["a", "b", "c"])
    runs = tmp_path / "runs"
    reason = "sbatch refused the job: Invalid generic resource (gres) specification"
    launcher = Refusing(runs, {"b": (reason, True)})
    with pytest.raises(SweepStopped) as caught:
        SweepRun("suite", members, runs, None, launcher, announce=lambda text: None).run()
    assert launcher.started == ["a"]  # c was never submitted
    assert str(caught.value) == (f"b: {reason}; the other 1 member(s) were not submitted (the same settings would "
                                 "be refused for every member: fix them and run the sweep again)")
    recorded = SweepState.read(runs, "suite").members
    assert recorded["b"] == {"state": FAILED, "reason": reason, "run_dir": recorded["b"]["run_dir"]}
    assert recorded["c"]["state"] == FAILED and recorded["c"]["reason"].startswith("not submitted: b was refused")
    rows = {row.label: row for row in member_statuses(members, runs, SweepState.read(runs, "suite"))}
    assert (rows["a"].state, rows["b"].state, rows["c"].state) == (COMPLETE, FAILED, FAILED)


def test_a_member_specific_failure_is_recorded_and_the_others_go_on(tmp_path: Path) -> None:
    _, members = members_of(tmp_path, ["a", "b", "c"])
    runs = tmp_path / "runs"
    said: List[str] = []
    launcher = Refusing(runs, {"a": ("sbatch refused the job: Socket timed out on send/recv operation", False)})
    rows = {row.label: row for row in SweepRun("suite", members, runs, None, launcher, announce=said.append).run()}
    assert launcher.started == ["b", "c"]
    assert rows["a"].state == FAILED and rows["a"].reason == "sbatch refused the job: Socket timed out on send/recv operation"
    assert rows["b"].state == rows["c"].state == COMPLETE
    assert said[-1] == "a: not submitted: sbatch refused the job: Socket timed out on send/recv operation"


def test_the_command_says_a_refusal_once_and_exits_non_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlparse.cli.sweep as sweep_cli

    path, _ = members_of(tmp_path, ["a", "b"])
    monkeypatch.setattr(sweep_cli, "_launcher", lambda name, settings: Refusing(
        tmp_path / "runs", {"a": ("sbatch refused the job: Batch job submission failed: Invalid partition name "
                                  "specified", True)}))
    result = runner.invoke(app, ["sweep", str(path), "--launcher", "slurm", "--runs-dir", str(tmp_path / "runs")],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if "Invalid partition" in line]
    assert errors == ["error: sweep stopped: a: sbatch refused the job: Batch job submission failed: Invalid partition "
                      "name specified; the other 1 member(s) were not submitted (the same settings would be refused "
                      "for every member: fix them and run the sweep again)"]


def test_without_sbatch_the_slurm_launcher_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("submitit")
    import mlparse.sweep.slurm as slurm_module

    monkeypatch.setattr(slurm_module.shutil, "which", lambda name: None)
    path, _ = members_of(tmp_path, ["a"])
    result = runner.invoke(app, ["sweep", str(path), "--launcher", "slurm", "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "error: --launcher slurm: sbatch not found" in result.output


# -- job states without accounting ---------------------------------------------------------------------------

def test_squeue_and_scontrol_text_is_read() -> None:
    states = parse_squeue("7|PENDING|Resources\n8|PENDING|Priority\n9|RUNNING|None\n10|COMPLETED|None\n")
    assert states["7"] == JobState("7", "PENDING", "Resources") and states["7"].waiting
    assert states["9"].active and states["9"].reason == "" and not states["10"].alive
    line = ("JobId=12 JobName=tiny-a UserId=root(0) JobState=TIMEOUT Reason=TimeLimit Dependency=(null) "
            "ExitCode=0:15 RunTime=00:01:00")
    assert parse_scontrol(line, "12") == JobState("12", "TIMEOUT", "TimeLimit", "0:15")
    assert parse_scontrol("", "12") is None
    assert (job_number("job 12"), job_number("pid 12"), job_number(None)) == ("12", None, None)


def test_a_failing_squeue_never_ends_a_job(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [QueueUnavailable("squeue failed: Unable to contact slurm controller"), {}]

    def fake(ids):  # type: ignore[no-untyped-def]
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(slurm_queue, "squeue", fake)
    queue = SlurmQueue(poll_seconds=0)
    queue.follow("5")
    assert not queue.ended("5") and "Unable to contact" in queue.error  # kept as it was
    assert queue.ended("5") and queue.error is None  # squeue answered without it: it has ended


def test_a_job_that_ended_without_the_members_exit_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlparse.sweep.slurm as slurm_module

    monkeypatch.setattr(slurm_module, "scontrol_job", lambda job_id: JobState(job_id, "TIMEOUT", "TimeLimit"))
    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    handle = SlurmJobHandle("12", run_dir, SlurmQueue())
    outcome = handle.outcome()
    assert outcome.returncode == 1 and outcome.reason.startswith("Slurm job 12 ended TIMEOUT, TimeLimit before the "
                                                                 "member's process ended")
    (run_dir.path / EXIT_FILE).write_text('{"returncode": 0, "reason": null}')
    assert handle.outcome() == Outcome(0, None)
    (run_dir.path / EXIT_FILE).write_text('{"returncode": -15, "reason": "killed by SIGTERM"}')
    assert handle.outcome() == Outcome(-15, "killed by SIGTERM (Slurm job 12 ended TIMEOUT, TimeLimit)")


def test_queued_and_started_jobs_show_in_the_table(tmp_path: Path) -> None:
    _, members = members_of(tmp_path, ["a", "b", "c"])
    runs = tmp_path / "runs"
    state = SweepState("suite", "slurm")
    for index, member in enumerate(members):
        state.record(member.label, RUNNING, job=f"job {index + 1}")
    jobs = {"1": JobState("1", "PENDING", "Priority"), "2": JobState("2", "RUNNING")}
    rows = {row.label: row for row in member_statuses(members, runs, state, jobs)}
    assert (rows["a"].state, rows["a"].reason) == (QUEUED, "Slurm job 1 pending (Priority)")
    assert (rows["b"].state, rows["b"].reason) == (RUNNING, "Slurm job 2 running")
    assert rows["c"].state == QUEUED and rows["c"].reason is None  # job 3 ended: the run directory decides


def test_a_queued_job_is_followed_not_submitted_again(tmp_path: Path) -> None:
    _, members = members_of(tmp_path, ["a", "b"])
    runs = tmp_path / "runs"
    state = SweepState("suite", "slurm")
    state.record("a", RUNNING, job="job 41")
    state.record("b", RUNNING, job="job 42")
    state.write(runs)
    said: List[str] = []
    launcher = Refusing(runs, {}, alive={"job 41": True})
    SweepRun("suite", members, runs, None, launcher, announce=said.append).run()
    assert launcher.started == ["b"]  # job 42 is no longer queued: submitted again
    assert "a: job 41 is still queued or running; following it" in said
    assert SweepState.read(runs, "suite").members["a"]["job"] == "job 41"


def test_status_notes_an_unanswering_squeue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, members = members_of(tmp_path, ["a"])
    runs = tmp_path / "runs"
    state = SweepState("suite", "slurm")
    state.record("a", RUNNING, job="job 3")
    state.write(runs)

    def unavailable(ids):  # type: ignore[no-untyped-def]
        raise QueueUnavailable("squeue not found (is Slurm installed here?)")

    monkeypatch.setattr(slurm_queue, "squeue", unavailable)
    result = runner.invoke(app, ["sweep", str(path), "--status", "--runs-dir", str(runs)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "note: squeue not found (is Slurm installed here?); queued and running are read from the run" in result.output
    assert "1 queued" in result.output


def test_an_unanswering_squeue_never_submits_a_recorded_job_again(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("submitit")
    import mlparse.sweep.slurm as slurm_module

    def unavailable(ids):  # type: ignore[no-untyped-def]
        raise QueueUnavailable("squeue failed: Unable to contact slurm controller (connect failure)")

    monkeypatch.setattr(slurm_queue, "squeue", unavailable)
    monkeypatch.setattr(slurm_module.shutil, "which", lambda name: "/usr/bin/sbatch")
    _, members = members_of(tmp_path, ["a", "b"])
    runs = tmp_path / "runs"
    state = SweepState("suite", "slurm")
    state.record("a", RUNNING, job="job 41")
    state.write(runs)
    launcher = slurm_module.SlurmLauncher(SlurmSettings())
    submitted: List[str] = []
    monkeypatch.setattr(launcher, "start", lambda member, argv, run_dir: submitted.append(member.label))
    with pytest.raises(SweepStopped) as caught:
        SweepRun("suite", members, runs, None, launcher, announce=lambda text: None).run()
    assert submitted == []
    assert str(caught.value) == ("a: cannot tell whether its Slurm job 41 is still queued or running (squeue failed: "
                                 "Unable to contact slurm controller (connect failure)); not submitting it again; the "
                                 "other 1 member(s) were not submitted (run the sweep again once squeue answers)")
