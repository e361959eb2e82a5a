"""A sweep member's state, read from its run directory; the sweep state file.

The run directory is the truth (``results.json``, ``log.jsonl``, ``run.lock``), so ``mlparse sweep SUITE
--status`` rebuilds the table from the run directories alone.  The sweep state file
(``<runs-dir>/sweeps/<suite>.json``, written atomically) adds what a run directory cannot hold: a member
that failed before its run wrote anything (its data could not be prepared, its process was killed
before it started), and the launcher's job ids.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from mlparse.io_utils import atomic_write_json
from mlparse.run_index.collect import load_run
from mlparse.results import COMPLETE, FAILED, RUNNING
from mlparse.run_dir import RunDir
from mlparse.tasks import dev_metric
from mlparse.sweep.slurm_queue import JobState, job_number
from mlparse.sweep.suite import Member
from mlparse.run_lock import RunLocked, check_free

QUEUED, STOPPED = "queued", "stopped"
#: Member states, in the order the table counts them.
STATES = (QUEUED, RUNNING, COMPLETE, FAILED, STOPPED)
STATE_VERSION = 1


@dataclass
class MemberStatus:
    """One row of the status table."""

    label: str
    run_dir: str
    state: str = QUEUED  # queued | running | complete | failed | stopped (a run left running by a killed process)
    reason: Optional[str] = None  # why it failed or stopped
    epoch: Optional[float] = None
    best_dev: Optional[float] = None
    metric: Optional[str] = None
    elapsed_seconds: Optional[float] = None  # training time so far
    job: Optional[str] = None  # the launcher's id (a Slurm job id, a process id)


def read_member(member: Member, runs_dir: Path) -> MemberStatus:
    """The member's state as its run directory tells it."""
    run_dir = RunDir.for_recipe(runs_dir, member.config)
    status = MemberStatus(label=member.label, run_dir=str(run_dir.path))
    if not run_dir.path.is_dir() or not (run_dir.results.is_file() or run_dir.log.is_file()):
        return status
    record = load_run(run_dir.path, Path(runs_dir))
    scored = [entry for entry in record.log if not math.isnan(entry.dev_score)]
    if scored:
        best = max(scored, key=lambda entry: entry.dev_score)
        status.best_dev, status.metric = best.dev_score, best.metric
        last = record.log[-1]
        status.epoch = None if math.isnan(last.epoch) else last.epoch
        status.elapsed_seconds = last.elapsed_seconds
    results = record.results
    if results is None:
        status.state = RUNNING if _held(run_dir.path) else STOPPED
        status.reason = None if status.state == RUNNING else "no results.json"
        return status
    if results.training_seconds is not None:
        status.elapsed_seconds = results.training_seconds
    if results.epochs is not None:
        status.epoch = results.epochs
    if results.status == COMPLETE:
        status.state = COMPLETE
        dev = results.dev
        metric = status.metric or dev_metric(results.task)
        value = getattr(dev, metric, None) if dev is not None else None
        if value is not None:  # the best checkpoint's dev score, as scored at the end
            status.best_dev, status.metric = value, metric
        if results.stop_reason:
            status.reason = results.stop_reason
    elif results.status == FAILED:
        status.state, status.reason = FAILED, _first_line(results.error) or "failed without a message"
    elif _held(run_dir.path):
        status.state = RUNNING
    else:
        status.state, status.reason = STOPPED, "its process ended without finishing (killed?); running the sweep again resumes it"
    return status


def _held(folder: Path) -> bool:
    try:
        check_free(folder)
    except RunLocked:
        return True
    return False


def _first_line(text: Optional[str]) -> Optional[str]:
    if not text:
        return None
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else None


@dataclass
class SweepState:
    """What the launcher knows beyond the run directories: per member label, a recorded state and reason."""

    suite: str
    launcher: str = "local"
    members: Dict[str, Dict[str, Optional[str]]] = field(default_factory=dict)  # label -> {state, reason, job, run_dir}
    version: int = STATE_VERSION

    @staticmethod
    def path_for(runs_dir: Path, suite: str) -> Path:
        return Path(runs_dir) / "sweeps" / f"{suite}.json"

    @classmethod
    def read(cls, runs_dir: Path, suite: str) -> "SweepState":
        path = cls.path_for(runs_dir, suite)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            members = data.get("members") if isinstance(data, dict) else None
            if isinstance(members, dict):
                return cls(suite=suite, launcher=str(data.get("launcher", "local")),
                           members={k: v for k, v in members.items() if isinstance(v, dict)})
        except (OSError, ValueError):
            pass
        return cls(suite=suite)

    def record(self, label: str, state: str, reason: Optional[str] = None, job: Optional[str] = None,
               run_dir: Optional[str] = None) -> None:
        entry = self.members.setdefault(label, {})
        entry.update({"state": state, "reason": reason})
        if job is not None:
            entry["job"] = job
        if run_dir is not None:
            entry["run_dir"] = run_dir

    def write(self, runs_dir: Path) -> None:
        atomic_write_json(self.path_for(runs_dir, self.suite), asdict(self))


def member_statuses(members: List[Member], runs_dir: Path, state: Optional[SweepState] = None,
                    jobs: Optional[Dict[str, JobState]] = None) -> List[MemberStatus]:
    """Every member's row: its run directory's state; a failure the state file recorded for a member whose run
    directory holds nothing (or nothing newer) is shown with its reason.  ``jobs`` (Slurm job id → state, from
    ``squeue``) adds what only the scheduler knows: a member whose recorded job Slurm still queues is
    ``queued``, one whose job has started but not yet taken its run's lock is ``running``."""
    rows = []
    for member in members:
        status = read_member(member, runs_dir)
        recorded = (state.members.get(member.label) if state is not None else None) or {}
        status.job = recorded.get("job")
        if recorded.get("state") == FAILED and status.state in (QUEUED, STOPPED):
            status.state, status.reason = FAILED, recorded.get("reason") or status.reason
        elif recorded.get("state") == RUNNING and status.state == RUNNING and recorded.get("reason"):
            status.reason = recorded["reason"]  # a process the sweep follows but did not start
        job_id = job_number(status.job)
        live = jobs.get(job_id) if jobs and job_id else None
        if live is not None and live.alive and status.state != RUNNING:
            status.state = QUEUED if live.waiting else RUNNING
            why = f" ({live.reason})" if live.reason else ""
            status.reason = f"Slurm job {job_id} {live.state.lower()}{why}"
        rows.append(status)
    return rows
