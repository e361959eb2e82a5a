"""`mlparse sweep --launcher slurm` against a real Slurm controller (skipped when `sinfo` does not answer).

Start one on a Debian machine with ``sudo scripts/slurm-single-node.sh`` (one node, partition ``debug``, no
accounting), then ``python -m pytest -m slurm``.  Covered: CPU jobs (no GPU asked for), sbatch refusals as
one line that stop the sweep, no ``sacct`` warnings, the table's queued members from Slurm, and a second
sweep following queued jobs instead of submitting them again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.results import COMPLETE, FAILED
from mlparse.run_dir import RunDir
from mlparse.sweep.slurm_queue import slurm_answers
from mlparse.sweep.status import SweepState, member_statuses
from mlparse.sweep.suite import load_suite
from helpers.run_fixtures import REPO, write_tiny_recipe

pytestmark = [pytest.mark.slurm, pytest.mark.slow,
              pytest.mark.skipif(not slurm_answers(), reason="no Slurm controller answers sinfo "
                                 "(start one: sudo scripts/slurm-single-node.sh)")]
runner = CliRunner()
BROKEN_TREE = "(TOP (S (NP (DT the)\n"
#: Jobs small enough for the test node; the members run on CPU.
RESOURCES = ["--cpus", "1", "--mem-gb", "1", "--time", "10"]


@pytest.fixture(autouse=True)
def member_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs inherit the environment (sbatch's default): this checkout's mlparse, on one thread."""
    pytest.importorskip("submitit")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def suite_of(tmp_path: Path, broken: bool = True, body: str = "") -> Path:
    good = write_tiny_recipe(tmp_path / "good", name="tiny-good", train={"max_epochs": 1})
    lines = f"  - {good}\n"
    if broken:
        bad = write_tiny_recipe(tmp_path / "bad", name="tiny-bad", train={"max_epochs": 1})
        (tmp_path / "bad" / "data" / "train.trees").write_text(BROKEN_TREE, encoding="utf-8")
        lines = f"  - {bad}\n" + lines
    path = tmp_path / "suite.yaml"
    path.write_text(f"{body}members:\n{lines}", encoding="utf-8")
    return path


def sweep(suite: Path, runs: Path, *flags: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["sweep", str(suite), "--launcher", "slurm", "--runs-dir", str(runs), *RESOURCES,
                               *flags], env={"COLUMNS": "300"})


def recorded_jobs(runs: Path) -> dict:
    return {label: entry.get("job") for label, entry in SweepState.read(runs, "suite").members.items()}


def gpu_gres_configured() -> bool:
    shown = subprocess.run(["sinfo", "-h", "-o", "%G"], capture_output=True, text=True).stdout
    return "gpu" in shown


def test_refusals_are_one_line_and_stop_before_the_rest(tmp_path: Path) -> None:
    suite, runs = suite_of(tmp_path), tmp_path / "runs"
    result = sweep(suite, runs, "--partition", "nosuch-partition", "--gpus-per-member", "0")
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines[-1] == ("error: sweep stopped: tiny-bad: sbatch refused the job: Batch job submission failed: Invalid "
                         "partition name specified; the other 1 member(s) were not submitted (the same settings "
                         "would be refused for every member: fix them and run the sweep again)")
    assert sum("Invalid partition" in line for line in lines) == 1  # said once; sbatch's own lines not echoed
    assert recorded_jobs(runs) == {"tiny-bad": None, "tiny-good": None}  # nothing was submitted
    if not gpu_gres_configured():  # a GPU job on a node without GPUs: sbatch refuses the resources
        result = sweep(suite, runs, "--gpus-per-member", "1")
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert ("tiny-bad: sbatch refused the job: Invalid generic resource (gres) specification (it asked for 1 "
                "GPU(s); --gpus-per-member 0 submits CPU jobs)") in result.output


def test_cpu_jobs_run_and_report_without_accounting(tmp_path: Path) -> None:
    suite, runs = suite_of(tmp_path, body="set: [train.device=cpu]\n"), tmp_path / "runs"
    result = sweep(suite, runs)  # no --gpus-per-member: the recipes' device (cpu) asks for no GPU
    assert result.exit_code == 1, result.output
    assert "error: 1 of 2 member(s) failed: tiny-bad" in result.output
    assert "Traceback" not in result.output and "sacct" not in result.output and "warning" not in result.output.lower()
    members = load_suite(str(suite)).members()
    rows = {row.label: row for row in member_statuses(members, runs, SweepState.read(runs, "suite"))}
    assert rows["tiny-good"].state == COMPLETE and rows["tiny-good"].best_dev is not None
    assert rows["tiny-bad"].state == FAILED and "unbalanced brackets" in rows["tiny-bad"].reason
    for member in members:
        folder = RunDir.for_recipe(runs, member.config).path / "submitit"
        scripts = list(folder.glob("*_submission.sh"))
        assert len(scripts) == 1 and "gpus" not in scripts[0].read_text()
        assert rows[member.label].job == f"job {scripts[0].name.split('_')[0]}"


def read_lines_until(process: subprocess.Popen, wanted: List[str], seconds: float) -> List[str]:
    """Lines of the sweep's output until every wanted text has appeared (or the time is up)."""
    seen: List[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(any(text in line for line in seen) for text in wanted):
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
    return seen


def test_queued_members_show_and_are_followed_not_submitted_again(tmp_path: Path) -> None:
    suite, runs = suite_of(tmp_path), tmp_path / "runs"
    command = [sys.executable, "-m", "mlparse", "sweep", str(suite), "--launcher", "slurm", "--runs-dir", str(runs),
               "--gpus-per-member", "0", *RESOURCES]
    env = {**os.environ, "COLUMNS": "300"}
    blocker = subprocess.run(["sbatch", "--parsable", "--exclusive", "--job-name", "mlparse-test-blocker",
                              f"--output={tmp_path / 'blocker.out'}", "--wrap", "sleep 300"],
                             capture_output=True, text=True, check=True).stdout.strip()
    try:
        first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        lines = read_lines_until(first, ["tiny-bad: queued", "tiny-good: queued"], 120)
        first.terminate()  # as a batch system or Ctrl-C would: the jobs stay queued
        first.wait(timeout=60)
        assert any("tiny-good: queued (Slurm job" in line for line in lines), lines
        jobs = recorded_jobs(runs)
        assert all(job and job.startswith("job ") for job in jobs.values()), jobs
        status = runner.invoke(app, ["sweep", str(suite), "--status", "--runs-dir", str(runs)], env={"COLUMNS": "300"})
        assert status.exit_code == 0 and "2 queued" in status.output, status.output
        assert f"queued (Slurm job {jobs['tiny-good'][4:]} pending" in status.output
        again = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        lines = read_lines_until(again, ["tiny-bad: job", "tiny-good: job"], 120)
        subprocess.run(["scancel", blocker], check=True)  # the queued jobs may start now
        output, _ = again.communicate(timeout=240)
        lines += output.splitlines()
    finally:
        subprocess.run(["scancel", blocker])
    assert f"tiny-good: {jobs['tiny-good']} is still queued or running; following it" in lines, lines
    assert again.returncode == 1 and "error: 1 of 2 member(s) failed: tiny-bad" in lines[-1]
    assert recorded_jobs(runs) == jobs  # no second job for either member
    for member in load_suite(str(suite)).members():
        assert len(list((RunDir.for_recipe(runs, member.config).path / "submitit").glob("*_submission.sh"))) == 1
    state = json.loads(SweepState.path_for(runs, "suite").read_text())
    assert state["members"]["tiny-good"]["state"] == COMPLETE


def test_a_cancelled_job_fails_its_member_with_slurms_word(tmp_path: Path) -> None:
    long = write_tiny_recipe(tmp_path / "long", name="tiny-long", train={"max_epochs": 100000})
    suite, runs = tmp_path / "suite.yaml", tmp_path / "runs"
    suite.write_text(f"members:\n  - {long}\n", encoding="utf-8")
    command = [sys.executable, "-m", "mlparse", "sweep", str(suite), "--launcher", "slurm", "--runs-dir", str(runs),
               "--gpus-per-member", "0", *RESOURCES]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "COLUMNS": "300"})
    try:
        lines = read_lines_until(process, ["tiny-long: running"], 120)
        job = recorded_jobs(runs)["tiny-long"][4:]
        subprocess.run(["scancel", job], check=True)
        output, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    lines += output.splitlines()
    assert process.returncode == 1 and not any("Traceback" in line for line in lines)
    failed = [line for line in lines if line.startswith("tiny-long: failed: ")]
    assert failed and f"(Slurm job {job} ended CANCELLED" in failed[0], lines
