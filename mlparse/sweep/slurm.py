"""``--launcher slurm``: one Slurm job per member through submitit (``pip install mlparse[slurm]``).

Each job runs the member's ``mlparse run`` command (``--gpus N`` for a member of N GPUs, which starts
torchrun inside the job); the job's resources come from the suite's ``slurm:`` section and the command's
flags.  submitit's own files (job script, stdout/stderr, pickled result) go to ``submitit/`` in the
member's run directory, the member's output to ``sweep.log`` beside it.  ``slurm.cluster: local`` runs
the same jobs as local processes through submitit's local executor (how the tests exercise this path).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from mlparse.run_dir import RunDir
from mlparse.sweep.driver import Outcome, exit_reason
from mlparse.sweep.local import MEMBER_LOG, log_tail
from mlparse.sweep.suite import Member, SlurmSettings

#: submitit's files, in the member's run directory.
SUBMITIT_DIR = "submitit"


class SlurmUnavailable(RuntimeError):
    """submitit is not installed."""


@dataclass
class MemberJob:
    """What a job runs: the member's command, its output appended to ``log`` (picklable for submitit)."""

    argv: List[str]
    log: str

    def __call__(self) -> Dict[str, Any]:
        with open(self.log, "ab") as output:
            code = subprocess.call(self.argv, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        reason = None if code == 0 else exit_reason(code, log_tail(Path(self.log)))
        return {"returncode": code, "reason": reason}


class JobHandle:
    def __init__(self, job: Any) -> None:
        self.job_object = job
        self.job = f"job {job.job_id}"

    def done(self) -> bool:
        return bool(self.job_object.done())

    def outcome(self) -> Outcome:
        try:
            result = self.job_object.result()
        except Exception as error:  # the job itself failed: cancelled, timed out, node failure
            lines = [line for line in str(error).strip().splitlines() if line.strip()]
            return Outcome(1, f"Slurm job {self.job_object.job_id} failed: {lines[-1] if lines else type(error).__name__}")
        return Outcome(int(result["returncode"]), result["reason"])


def job_parameters(settings: SlurmSettings, name: str) -> Dict[str, Any]:
    """submitit parameters of one member's job (cluster-specific ones prefixed, as submitit expects)."""
    parameters: Dict[str, Any] = {"name": name, "timeout_min": int(settings.time_minutes), "nodes": 1,
                                  "tasks_per_node": 1, "gpus_per_node": int(settings.gpus_per_member),
                                  "cpus_per_task": int(settings.cpus_per_task)}
    if settings.mem_gb is not None:
        parameters["mem_gb"] = settings.mem_gb
    if settings.partition:
        parameters["slurm_partition"] = settings.partition
    return parameters


class SlurmLauncher:
    """Submits every member at once; Slurm (or submitit's local executor) decides when each runs."""

    name = "slurm"

    def __init__(self, settings: SlurmSettings) -> None:
        try:
            import submitit
        except ImportError:
            raise SlurmUnavailable("--launcher slurm needs submitit: pip install 'mlparse[slurm]'") from None
        self.submitit = submitit
        self.settings = settings
        self.gpus_per_member = max(1, int(settings.gpus_per_member))
        self.handles: List[JobHandle] = []

    def start(self, member: Member, argv: List[str], run_dir: RunDir) -> Optional[JobHandle]:
        run_dir.path.mkdir(parents=True, exist_ok=True)
        executor = self.submitit.AutoExecutor(folder=run_dir.path / SUBMITIT_DIR, cluster=self.settings.cluster)
        executor.update_parameters(**job_parameters(self.settings, member.label.replace(" ", "-")))
        job = executor.submit(MemberJob(argv, str(run_dir.path / MEMBER_LOG)))
        handle = JobHandle(job)
        self.handles.append(handle)
        return handle

    def close(self) -> None:
        """Jobs keep running when the sweep command stops: `mlparse sweep SUITE --status` follows them."""
