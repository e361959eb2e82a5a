"""Slurm job states without accounting: ``squeue`` for jobs still queued or running, ``scontrol`` for a job
that just ended, never ``sacct`` (many clusters run without slurmdbd, where every ``sacct`` call fails).

A job that ``squeue`` no longer lists has ended; how it ended comes from the member's own exit file (written
by the job, :mod:`mlparse.sweep.slurm`) and, while Slurm still remembers the job (``MinJobAge``, 5 minutes by
default), from ``scontrol show job``.  A failing ``squeue`` call (controller restarting, network) changes
nothing: the last states are kept and asked again later, so a job is never taken for ended by mistake.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional

#: Slurm states of a job that waits for resources (shown as ``queued``).
WAITING = {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD", "SUSPENDED",
           "STOPPED", "RESIZING", "SIGNALING", "STAGE_OUT"}
#: Slurm states of a job whose script runs (shown as ``running``).
ACTIVE = {"RUNNING", "COMPLETING"}
#: How often the sweep asks ``squeue`` at most (seconds).
POLL_SECONDS = 5.0
COMMAND_TIMEOUT = 30


@dataclass(frozen=True)
class JobState:
    """A job as ``squeue``/``scontrol`` show it: Slurm's state name and its reason (``Priority``, ``Resources``…)."""

    job_id: str
    state: str
    reason: str = ""
    exit_code: Optional[str] = None  # scontrol's ExitCode (status:signal), for an ended job

    @property
    def waiting(self) -> bool:
        return self.state in WAITING

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def alive(self) -> bool:
        return self.waiting or self.active


class QueueUnavailable(RuntimeError):
    """``squeue`` is missing or did not answer."""


def slurm_answers(timeout: float = 5) -> bool:
    """Does a Slurm controller answer (``sinfo``)?  Used to skip the tests marked ``slurm``."""
    if shutil.which("sinfo") is None:
        return False
    try:
        return subprocess.run(["sinfo", "-h"], capture_output=True, timeout=timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def job_number(job: Optional[str]) -> Optional[str]:
    """The Slurm job id in a recorded job (``"job 123"`` → ``"123"``); None for anything else (a pid)."""
    if not job:
        return None
    text = job[4:] if job.startswith("job ") else job
    return text if text.replace("_", "").isdigit() else None


def squeue(job_ids: Iterable[str]) -> Dict[str, JobState]:
    """The listed jobs that Slurm still knows (queued, running, or ended a few minutes ago; forgotten ones are
    absent); raises :class:`QueueUnavailable`."""
    ids = sorted(set(job_ids))
    if not ids:
        return {}
    command = ["squeue", "--noheader", "--format=%i|%T|%r", f"--jobs={','.join(ids)}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    except FileNotFoundError:
        raise QueueUnavailable("squeue not found (is Slurm installed here?)") from None
    except (OSError, subprocess.TimeoutExpired) as error:
        raise QueueUnavailable(f"squeue did not answer: {error}") from None
    if done.returncode != 0:
        if "Invalid job id" in done.stderr:  # every listed job has ended and been forgotten
            return {}
        raise QueueUnavailable(f"squeue failed: {_last_line(done.stderr) or f'exit status {done.returncode}'}")
    return parse_squeue(done.stdout)


def parse_squeue(text: str) -> Dict[str, JobState]:
    """``%i|%T|%r`` lines → states by job id."""
    states = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) >= 2 and parts[0]:
            reason = parts[2].strip() if len(parts) > 2 and parts[2].strip() not in ("None", "(null)") else ""
            states[parts[0]] = JobState(parts[0], parts[1].strip(), reason)
    return states


def scontrol_job(job_id: str) -> Optional[JobState]:
    """A job Slurm still remembers (also shortly after it ended), or None."""
    try:
        done = subprocess.run(["scontrol", "show", "job", "--oneliner", job_id], capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return parse_scontrol(done.stdout, job_id)


def parse_scontrol(text: str, job_id: str) -> Optional[JobState]:
    """``scontrol show job --oneliner`` → the job's state, reason and exit code."""
    fields = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        if sep and key not in fields:
            fields[key] = value
    if "JobState" not in fields:
        return None
    reason = fields.get("Reason", "")
    return JobState(job_id, fields["JobState"], "" if reason in ("None", "(null)") else reason, fields.get("ExitCode"))


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


class SlurmQueue:
    """The states of the sweep's jobs, from one ``squeue`` call for all of them every ``POLL_SECONDS`` at most."""

    def __init__(self, poll_seconds: float = POLL_SECONDS) -> None:
        self.poll_seconds = poll_seconds
        self.jobs: List[str] = []
        self.states: Dict[str, JobState] = {}
        self.asked_at: Optional[float] = None
        self.error: Optional[str] = None  # the last failure of squeue, while it fails

    def follow(self, job_id: str, state: Optional[JobState] = None) -> None:
        if job_id not in self.jobs:
            self.jobs.append(job_id)
        self.states[job_id] = state or self.states.get(job_id) or JobState(job_id, "PENDING")

    def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and self.asked_at is not None and now - self.asked_at < self.poll_seconds:
            return
        self.asked_at = now
        try:
            listed = squeue(self.jobs)
        except QueueUnavailable as error:
            self.error = str(error)
            return
        self.error = None
        self.states = {job_id: listed[job_id] for job_id in self.jobs if job_id in listed}

    def state(self, job_id: str) -> Optional[JobState]:
        """The job's state as Slurm shows it (with ``--jobs``, also an ended job's for a few minutes);
        None once Slurm has forgotten it."""
        self.refresh()
        return self.states.get(job_id)

    def ended(self, job_id: str) -> bool:
        state = self.state(job_id)
        return state is None or not state.alive
