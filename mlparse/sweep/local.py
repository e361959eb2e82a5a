"""``--launcher local``: members as local ``mlparse run`` processes, one after another, or one per GPU group.

With visible GPUs, member processes run side by side, each seeing only its own GPUs through
``CUDA_VISIBLE_DEVICES`` (``gpus_per_member`` of them; more than one trains under torchrun through
``mlparse run --gpus``).  Without a GPU they run one at a time.  A member's output goes to
``sweep.log`` in its run directory.
"""

from __future__ import annotations

import os
import subprocess
from collections import deque
from pathlib import Path
from typing import Deque, List, Optional

from mlparse.run_dir import RunDir
from mlparse.sweep.driver import Outcome, exit_reason
from mlparse.sweep.suite import Member

#: The member's output, beside its run's files.
MEMBER_LOG = "sweep.log"


def visible_gpus() -> List[str]:
    """The GPUs this process may hand out: CUDA_VISIBLE_DEVICES when set, else every device torch sees."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [item.strip() for item in listed.split(",") if item.strip() and item.strip() != "-1"]
    try:
        import torch
    except ImportError:
        return []
    return [str(index) for index in range(torch.cuda.device_count())] if torch.cuda.is_available() else []


def gpu_groups(gpus: List[str], per_member: int) -> List[List[str]]:
    """Disjoint groups of ``per_member`` GPUs (leftovers unused); [] without GPUs."""
    per_member = max(1, per_member)
    return [gpus[start:start + per_member] for start in range(0, len(gpus) - per_member + 1, per_member)]


def log_tail(path: Path, lines: int = 40) -> List[str]:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16384))
            return handle.read().decode("utf-8", "replace").splitlines()[-lines:]
    except OSError:
        return []


class ProcessHandle:
    """A member process and the slot (GPU group, or None on CPU) it holds until it ends."""

    def __init__(self, process: subprocess.Popen, log: Path, slot: Optional[List[str]], pool: "LocalLauncher") -> None:
        self.process, self.log, self.slot, self.pool = process, log, slot, pool
        self.held = True
        self.job = f"pid {process.pid}"

    def done(self) -> bool:
        if self.process.poll() is None:
            return False
        if self.held:
            self.pool.free.append(self.slot)
            self.held = False
        return True

    def outcome(self) -> Outcome:
        code = self.process.wait()
        return Outcome(code, None if code == 0 else exit_reason(code, log_tail(self.log)))


class LocalLauncher:
    """Member processes on this machine: one per free GPU group, or one at a time without GPUs."""

    name = "local"
    dependencies = False  # a member waiting for others (a parser for its taggers) starts once they are complete

    def __init__(self, gpus_per_member: int = 1, gpus: Optional[List[str]] = None) -> None:
        self.cpu_only = gpus_per_member == 0  # members see no GPU, one at a time
        self.gpus_per_member = max(1, gpus_per_member)
        groups = [] if self.cpu_only else gpu_groups(visible_gpus() if gpus is None else gpus, self.gpus_per_member)
        self.free: Deque[Optional[List[str]]] = deque(groups or [None])
        if not groups:
            self.gpus_per_member = 1  # on CPU one process per member (`mlparse run --gpus` would start gloo workers)
        self.handles: List[ProcessHandle] = []

    def gpus_for(self, member: Member) -> int:
        return self.gpus_per_member

    def start(self, member: Member, argv: List[str], run_dir: RunDir) -> Optional[ProcessHandle]:
        if not self.free:
            return None
        group = self.free.popleft()
        run_dir.path.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        if group is not None:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(group)
        elif self.cpu_only:
            env["CUDA_VISIBLE_DEVICES"] = ""
        log = run_dir.path / MEMBER_LOG
        with open(log, "ab") as output:
            process = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=env)
        handle = ProcessHandle(process, log, group, self)
        self.handles.append(handle)
        return handle

    def close(self) -> None:
        """Stop members still running (the sweep was interrupted): each resumes when the sweep runs again."""
        for handle in self.handles:
            if handle.process.poll() is None:
                handle.process.terminate()  # the next sweep resumes it from its last checkpoint
        for handle in self.handles:
            try:
                handle.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                handle.process.kill()
