"""``--launcher slurm``: one Slurm job per member through submitit (``pip install mlparse[slurm]``).

Each job runs the member's ``mlparse run`` command (``--gpus N`` for a member of N GPUs, which starts
torchrun inside the job); the job's resources come from the suite's ``slurm:`` section and the command's
flags.  A member asks for ``gpus_per_member`` GPUs when it is set (0: a CPU job, no ``--gpus-per-node``),
else for what its recipe needs: none when ``train.device`` is ``cpu``, one otherwise.

submitit writes the job script and its logs to ``submitit/`` in the member's run directory; the member's
output goes to ``sweep.log`` and its exit status to ``sweep-exit.json`` beside it.  Job states come from
``squeue`` (:mod:`mlparse.sweep.slurm_queue`), never from ``sacct``, so clusters without accounting work and
the terminal stays clean.  ``sbatch``'s refusals become :class:`SubmissionRefused` (one line quoting its
reason).  ``slurm.cluster: local`` runs the same jobs as local processes through submitit's local executor.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from mlparse.io_utils import atomic_write_json
from mlparse.run_dir import RunDir
from mlparse.sweep.driver import Outcome, SubmissionRefused, exit_reason
from mlparse.sweep.local import MEMBER_LOG, log_tail
from mlparse.sweep.slurm_queue import JobState, SlurmQueue, job_number, scontrol_job
from mlparse.sweep.suite import Member, SlurmSettings

#: submitit's files, in the member's run directory.
SUBMITIT_DIR = "submitit"
#: The member's exit status, written by the job when the member's process ends.
EXIT_FILE = "sweep-exit.json"
#: Parts of ``sbatch`` errors that concern this one submission only (the next member may well be accepted).
MEMBER_ONLY_ERRORS = ("socket timed out", "zero bytes were transmitted", "pathname", "too long",
                      "resource temporarily unavailable", "try again")


class SlurmUnavailable(RuntimeError):
    """submitit is not installed, or Slurm's ``sbatch`` is not on this machine."""


def member_gpus(settings: SlurmSettings, member: Member) -> int:
    """GPUs of the member's job: ``gpus_per_member`` when set, else none for a CPU recipe and one otherwise."""
    if settings.gpus_per_member is not None:
        return int(settings.gpus_per_member)
    return 0 if member.config.train.device == "cpu" else 1


def sbatch_reason(text: str) -> str:
    """``sbatch``'s own words from its error output: the last ``error:`` line without its prefixes."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line]
    chosen = (errors or lines or ["sbatch failed without a message"])[-1]
    for prefix in ("sbatch: error:", "error:"):
        if chosen.startswith(prefix):
            chosen = chosen[len(prefix):].strip()
    return chosen


def refuses_every_member(reason: str) -> bool:
    """A refusal of the job's settings (partition, resources, account, controller unreachable) hits every
    member, since all members share them; a transient or path-specific one concerns this member only."""
    lowered = reason.lower()
    return not any(part in lowered for part in MEMBER_ONLY_ERRORS)


@dataclass
class MemberJob:
    """What a job runs: the member's command, its output appended to ``log``, its exit status written to
    ``exit_file`` (picklable for submitit)."""

    argv: List[str]
    log: str
    exit_file: str
    env: Dict[str, str] = field(default_factory=dict)

    def __call__(self) -> Dict[str, Any]:
        with open(self.log, "ab") as output:
            code = subprocess.call(self.argv, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env={**os.environ, **self.env})
        reason = None if code == 0 else exit_reason(code, log_tail(Path(self.log)))
        result = {"returncode": code, "reason": reason}
        atomic_write_json(Path(self.exit_file), result)
        return result


def read_exit(path: Path) -> Optional[Outcome]:
    """The member's exit status as its job wrote it, or None (not written: the job was stopped first)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Outcome(int(data["returncode"]), data.get("reason"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


class SlurmJobHandle:
    """A member's job on Slurm, followed through ``squeue`` (shared :class:`SlurmQueue`)."""

    def __init__(self, job_id: str, run_dir: RunDir, queue: SlurmQueue) -> None:
        self.job_id, self.run_dir, self.queue = job_id, run_dir, queue
        self.job = f"job {job_id}"

    def done(self) -> bool:
        return self.queue.ended(self.job_id)

    def outcome(self) -> Outcome:
        written = read_exit(self.run_dir.path / EXIT_FILE)
        if written is not None and written.returncode >= 0:
            return written
        known = scontrol_job(self.job_id) or self.queue.states.get(self.job_id)
        if written is not None:  # killed by a signal: say what Slurm did, when it remembers (scancel, time limit)
            said = f" (Slurm job {self.job_id} {_ended_text(known)})" if known is not None else ""
            return Outcome(written.returncode, f"{written.reason or 'killed'}{said}")
        how = _ended_text(known)
        logs = self.run_dir.path / SUBMITIT_DIR
        return Outcome(1, f"Slurm job {self.job_id} {how} before the member's process ended "
                          f"(time limit, scancel, node failure?); its logs are in {logs}")


def _remove_new_files(folder: Path, before: set) -> None:
    if folder.is_dir():
        for path in set(folder.iterdir()) - before:
            if path.is_file() or path.is_symlink():
                path.unlink(missing_ok=True)


def _ended_text(known: Optional[JobState]) -> str:
    if known is None:
        return "ended"
    reason = f", {known.reason}" if known.reason else ""
    return f"ended {known.state}{reason}"


class LocalJobHandle:
    """A job of submitit's local executor (``slurm.cluster: local``): submitit follows the process."""

    def __init__(self, job: Any, run_dir: RunDir) -> None:
        self.job_object, self.run_dir = job, run_dir
        self.job = f"job {job.job_id}"

    def done(self) -> bool:
        return bool(self.job_object.done())

    def outcome(self) -> Outcome:
        written = read_exit(self.run_dir.path / EXIT_FILE)
        if written is not None:
            return written
        try:
            self.job_object.result()
        except Exception as error:  # the job itself failed: cancelled, killed
            lines = [line for line in str(error).strip().splitlines() if line.strip()]
            return Outcome(1, f"job {self.job_object.job_id} failed: {lines[-1] if lines else type(error).__name__}")
        return Outcome(1, f"job {self.job_object.job_id} ended without the member's exit status")


def job_name(label: str) -> str:
    """A member's label as a Slurm job name: letters, digits, ``.``, ``_`` and ``-``, any other run of characters
    one ``-`` (``tagger-x fold tagger 1 of 2 (fold 0 held out)`` -> ``tagger-x-fold-tagger-1-of-2-fold-0-held-out``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-")


def job_parameters(settings: SlurmSettings, name: str, gpus: int = 1, after: Sequence[str] = ()) -> Dict[str, Any]:
    """submitit parameters of one member's job (cluster-specific ones prefixed, as submitit expects); a job
    of 0 GPUs asks for none (``--gpus-per-node`` is left out, so CPU partitions accept it); a job that waits for
    the jobs ``after`` (a parser for its taggers) starts once they all succeeded and is cancelled when one fails."""
    parameters: Dict[str, Any] = {"name": name, "timeout_min": int(settings.time_minutes), "nodes": 1,
                                  "tasks_per_node": 1, "cpus_per_task": int(settings.cpus_per_task)}
    if gpus > 0:
        parameters["gpus_per_node"] = int(gpus)
    if settings.mem_gb is not None:
        parameters["mem_gb"] = settings.mem_gb
    if settings.partition:
        parameters["slurm_partition"] = settings.partition
    if after:
        parameters["slurm_dependency"] = "afterok:" + ":".join(after)
        parameters["slurm_additional_parameters"] = {"kill-on-invalid-dep": "yes"}
    return parameters


class SlurmLauncher:
    """Submits every member at once; Slurm (or submitit's local executor) decides when each runs."""

    name = "slurm"

    def __init__(self, settings: SlurmSettings, queue: Optional[SlurmQueue] = None) -> None:
        try:
            import submitit
        except ImportError:
            raise SlurmUnavailable("--launcher slurm needs submitit: pip install 'mlparse[slurm]'") from None
        self.local = settings.cluster == "local"
        if not self.local and shutil.which("sbatch") is None:
            raise SlurmUnavailable("--launcher slurm: sbatch not found; run the sweep on a machine that submits "
                                   "Slurm jobs (a login node), or use --launcher local")
        self.submitit = submitit
        self.settings = settings
        # Slurm holds a job until the jobs it depends on succeed; submitit's local executor cannot, so there the
        # driver starts a member once those members are complete
        self.dependencies = not self.local
        self.queue = queue or SlurmQueue()
        self.handles: List[Any] = []

    def gpus_for(self, member: Member) -> int:
        return member_gpus(self.settings, member)

    def start(self, member: Member, argv: List[str], run_dir: RunDir, after: Sequence[str] = ()) -> Any:
        """Submit the member's job; ``after``: Slurm job ids it waits for (``--dependency=afterok:``, with
        ``--kill-on-invalid-dep=yes`` so that Slurm cancels it when one of them fails instead of keeping it queued)."""
        gpus = self.gpus_for(member)
        try:
            run_dir.path.mkdir(parents=True, exist_ok=True)
            (run_dir.path / EXIT_FILE).unlink(missing_ok=True)
            executor = self.submitit.AutoExecutor(folder=run_dir.path / SUBMITIT_DIR,
                                                  cluster="local" if self.local else "slurm")
            executor.update_parameters(**job_parameters(self.settings, job_name(member.label), gpus, after))
        except OSError as error:
            raise SubmissionRefused(f"cannot write its job files in {run_dir.path}: {error.strerror or error}",
                                    every_member=False) from None
        env = {"CUDA_VISIBLE_DEVICES": ""} if gpus == 0 else {}
        job_function = MemberJob(argv, str(run_dir.path / MEMBER_LOG), str(run_dir.path / EXIT_FILE), env)
        printed = io.StringIO()
        folder = run_dir.path / SUBMITIT_DIR
        before = set(folder.iterdir()) if folder.is_dir() else set()
        try:
            with contextlib.redirect_stderr(printed):  # submitit echoes sbatch's errors; ours say it once
                job = executor.submit(job_function)
        except (self.submitit.core.utils.FailedJobError, OSError) as error:
            _remove_new_files(folder, before)  # the refused attempt's pickles and job script
            if isinstance(error, OSError):
                raise SubmissionRefused(f"could not submit the job: {error.strerror or error}",
                                        every_member=error.filename is None) from None
            reason = sbatch_reason(str(error) or printed.getvalue())
            hint = (f" (it asked for {gpus} GPU(s); --gpus-per-member 0 submits CPU jobs)"
                    if gpus > 0 and "gres" in reason.lower() else "")
            raise SubmissionRefused(f"sbatch refused the job: {reason}{hint}", refuses_every_member(reason)) from None
        if self.local:
            handle: Any = LocalJobHandle(job, run_dir)
        else:
            self.queue.follow(str(job.job_id))
            handle = SlurmJobHandle(str(job.job_id), run_dir, self.queue)
        self.handles.append(handle)
        return handle

    def adopt(self, member: Member, job: Optional[str], run_dir: RunDir) -> Optional[SlurmJobHandle]:
        """The member's job from an earlier sweep when Slurm still queues or runs it (so it is not submitted
        a second time); None otherwise."""
        job_id = job_number(job)
        if self.local or job_id is None:
            return None
        self.queue.follow(job_id)
        self.queue.refresh(force=True)
        if self.queue.error is not None:
            raise SubmissionRefused(f"cannot tell whether its Slurm job {job_id} is still queued or running "
                                    f"({self.queue.error}); not submitting it again", every_member=True,
                                    advice="run the sweep again once squeue answers")
        state = self.queue.states.get(job_id)
        if state is None or not state.alive:
            self.queue.jobs.remove(job_id)
            self.queue.states.pop(job_id, None)
            return None
        handle = SlurmJobHandle(job_id, run_dir, self.queue)
        self.handles.append(handle)
        return handle

    def live_states(self) -> Dict[str, JobState]:
        """The followed jobs' Slurm states (for the table's queued and running)."""
        return {} if self.local else dict(self.queue.states)

    def close(self) -> None:
        """Jobs keep running when the sweep command stops: `mlparse sweep SUITE --status` follows them."""
