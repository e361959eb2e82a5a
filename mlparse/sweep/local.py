"""``--launcher local``: members as local ``mlparse run`` processes, one after another, or one per GPU group.

With visible GPUs, member processes run side by side, each seeing only its own GPUs through
``CUDA_VISIBLE_DEVICES`` (``gpus_per_member`` of them; more than one trains under torchrun through
``mlparse run --gpus``).  Without a GPU they run one at a time.  A member's output goes to
``sweep.log`` in its run directory.

A member whose run another process of this machine still trains (its run lock is held: a sweep killed
with ``kill -9`` leaves its member running, or somebody runs it by hand) is followed, not started again
(:meth:`LocalLauncher.adopt`), and it holds a slot until its lock is free: the GPU group it sees, or the one
CPU slot, so that the promise of one member per GPU group (one at a time without GPUs) holds across
sweeps.  Ended before its run finished, the member is started again by the sweep.  :meth:`LocalLauncher.close`
stops the processes the sweep started, not those it only followed.
"""

from __future__ import annotations

import os
import subprocess
from collections import deque
from pathlib import Path
from typing import Deque, List, Optional

from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.sweep.driver import Outcome, exit_reason
from mlparse.sweep.suite import Member
from mlparse.run_lock import Holder, RunLocked, check_free

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


def environment_gpus(pid: int) -> Optional[List[str]]:
    """The ``CUDA_VISIBLE_DEVICES`` of process ``pid`` of this machine, as a list; None when it cannot be read
    or is not set."""
    try:
        data = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for entry in data.split(b"\0"):
        if entry.startswith(b"CUDA_VISIBLE_DEVICES="):
            value = entry.split(b"=", 1)[1].decode("utf-8", "replace")
            return [item.strip() for item in value.split(",") if item.strip()]
    return None


#: The slot of an adopted process when every slot was taken (more processes run than there are slots).
OVERBOOKED = object()
#: The slot of an adopted process on another machine (a shared disk): none of this machine's.
ELSEWHERE = object()


class AdoptedHandle:
    """A member's run that a process this sweep did not start still trains (its run lock is held): followed until
    the lock is free, holding ``slot`` meanwhile (a GPU group, None for the CPU slot, :data:`OVERBOOKED` when every
    slot was taken, :data:`ELSEWHERE` for a process on another machine).  ``adopted``: the driver starts the member again
    when its run has not finished."""

    adopted = True

    def __init__(self, run_dir: RunDir, holder: Optional[Holder], slot: object, pool: "LocalLauncher") -> None:
        self.run_dir, self.holder, self.slot, self.pool = run_dir, holder, slot, pool
        self.held = True
        self.job = f"pid {holder.pid}" if holder is not None else "another process"
        where = f" on {holder.host}" if holder is not None and not holder.here else ""
        self.note = (f"its run is still being trained by {self.job}{where} (left running by an earlier sweep?): "
                     "followed until it ends, holding its slot, and not started a second time")
        self.reason = f"{self.job}{where}, not started by this sweep: holds its slot until it ends"

    def done(self) -> bool:
        try:
            check_free(self.run_dir.path)
        except RunLocked:
            return False
        if self.held:
            self.pool.release(self.slot)
            self.held = False
        return True

    def outcome(self) -> Outcome:
        results = self.run_dir.read_results()
        if results is not None and results.status == COMPLETE:
            return Outcome(0)
        return Outcome(1, f"{self.job}, not started by this sweep, ended before its run finished")


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
        self.overbooked = 0  # adopted processes running without a slot: no member starts until they end

    def gpus_for(self, member: Member) -> int:
        return self.gpus_per_member

    def adopt(self, member: Member, job: Optional[str], run_dir: RunDir) -> Optional[AdoptedHandle]:
        """The member's run when another process holds its lock (see the module doc), holding a slot; else None."""
        try:
            check_free(run_dir.path)
            return None
        except RunLocked as error:
            holder = error.holder
        if holder is not None and not holder.here:  # trains on another machine: followed, holding no slot here
            return AdoptedHandle(run_dir, holder, ELSEWHERE, self)
        return AdoptedHandle(run_dir, holder, self._take_slot(holder), self)

    def _take_slot(self, holder: Optional[Holder]) -> object:
        """The free slot an adopted process uses: the GPU group it sees, else the first free one; :data:`OVERBOOKED`
        (counted in ``overbooked``) when none is free."""
        if not self.free:
            self.overbooked += 1
            return OVERBOOKED
        seen = environment_gpus(holder.pid) if holder is not None else None
        slot = next((group for group in self.free if group is not None and group == seen), self.free[0])
        self.free.remove(slot)
        return slot

    def release(self, slot: object) -> None:
        """An adopted process ended: its slot is free again (or one process fewer runs without a slot)."""
        if slot is OVERBOOKED:
            self.overbooked -= 1
        elif slot is not ELSEWHERE:
            self.free.append(slot)  # type: ignore[arg-type]

    def start(self, member: Member, argv: List[str], run_dir: RunDir) -> Optional[ProcessHandle]:
        if not self.free or self.overbooked:
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
