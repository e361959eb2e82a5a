"""Running a sweep: skip finished members, prepare data once, launch the rest, keep the state file and table.

Each member is an ordinary ``mlparse run`` process (``python -m mlparse run RECIPE --set ... --runs-dir ...``),
so it has the usual run id, resume and lock, and a member that fails (bad data, out of memory, killed)
ends only its own process.  The launcher (:mod:`mlparse.sweep.local`, :mod:`mlparse.sweep.slurm`) decides
where the processes run; this module decides which members run and records what happened.
"""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Protocol, Sequence, Tuple

from mlparse.results import COMPLETE, FAILED, RUNNING
from mlparse.run_dir import RunDir
from mlparse.sweep.prepare import prepare_treebanks
from mlparse.sweep.slurm_queue import job_number
from mlparse.sweep.status import QUEUED, MemberStatus, SweepState, member_statuses, read_member
from mlparse.sweep.suite import Member

#: How often the live table is refreshed from the run directories (seconds).
REFRESH_SECONDS = 2.0


def member_argv(member: Member, runs_dir: Path, max_minutes: Optional[float], gpus: int = 1) -> List[str]:
    """The ``mlparse run`` command line of a member (run by the launcher in its own process)."""
    argv = [sys.executable, "-m", "mlparse", "run", member.recipe, "--runs-dir", str(runs_dir)]
    for override in member.overrides:
        argv += ["--set", override]
    if member.tagger is not None:  # a tagger of the recipe's jack-knifing, with its own budget (tagger.max_minutes)
        return argv + ["--tagger", member.tagger]
    if member.config.data.tags == "jackknife":  # its taggers are members of their own: the budget is the parser's
        argv += ["--set", "tagger.budget_share=0"]
    if max_minutes is not None:
        argv += ["--max-minutes", format(max_minutes, "g")]
    if gpus > 1:
        argv += ["--gpus", str(gpus)]
    return argv


def is_finished(member: Member, runs_dir: Path, max_minutes: Optional[float]) -> bool:
    """A complete run that the budget would not train further (as ``mlparse run`` decides)."""
    from mlparse.train.run_budget import extends_budget

    previous = RunDir.for_recipe(runs_dir, member.config).read_results()
    if previous is None or previous.status != COMPLETE:
        return False
    if member.tagger is not None:  # the sweep's budget is the parsers'; a tagger has tagger.max_minutes
        max_minutes = None
    budget = max_minutes if max_minutes is not None else member.config.train.max_minutes
    return not extends_budget(previous, budget)


class SubmissionRefused(Exception):
    """The launcher could not submit a member (``sbatch`` refused it): one line saying why.  ``every_member``:
    the refusal concerns what all members share (partition, resources), so the sweep stops submitting."""

    def __init__(self, reason: str, every_member: bool = True,
                 advice: str = "the same settings would be refused for every member: fix them and run the sweep "
                               "again") -> None:
        super().__init__(reason)
        self.reason, self.every_member, self.advice = reason, every_member, advice


class SweepStopped(Exception):
    """The sweep stopped before submitting every member (a refusal that would hit them all)."""


@dataclass
class Outcome:
    """How a member's process ended: its exit status (negative: killed by that signal) and a reason."""

    returncode: int
    reason: Optional[str] = None


class Handle(Protocol):
    """A launched member: ``done()`` without blocking, then ``outcome()``."""

    job: str

    def done(self) -> bool: ...

    def outcome(self) -> Outcome: ...


class Launcher(Protocol):
    name: str
    #: True when the launcher can start a member before the members it waits for (``Member.after``) end, given
    #: their jobs (``start(..., after=[job ids])``: Slurm's ``--dependency=afterok``); else the driver starts it
    #: once they are complete.
    dependencies: bool

    def start(self, member: Member, argv: List[str], run_dir: RunDir) -> Optional[Handle]:
        """Start the member (its run directory is created), or return None when no slot is free now (the
        driver asks again later); raises :class:`SubmissionRefused` when the member cannot be started.
        A launcher with ``dependencies`` also takes ``after``: the job ids the member's job must wait for."""

    def gpus_for(self, member: Member) -> int:
        """GPUs of the member's process (0: CPU)."""

    def close(self) -> None: ...


def exit_reason(returncode: int, log_tail: Sequence[str] = ()) -> str:
    """Why a member's process failed: the last ``error:`` line it printed, else its signal or exit status."""
    errors = [line.strip() for line in log_tail if line.strip().startswith("error:")]
    if errors:
        return errors[-1][len("error:"):].strip()
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint = " (out of memory?)" if -returncode == signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    tail = [line.strip() for line in log_tail if line.strip()]
    return f"exit status {returncode}" + (f": {tail[-1][:300]}" if tail else "")


@dataclass
class SweepRun:
    """One invocation of ``mlparse sweep``: the members, where runs go, the budget and the state file."""

    suite: str
    members: List[Member]
    runs_dir: Path
    max_minutes: Optional[float]
    launcher: Launcher
    announce: Callable[[str], None] = print
    on_refresh: Callable[[List[MemberStatus]], None] = lambda rows: None
    state: SweepState = field(init=False)

    def __post_init__(self) -> None:
        self.state = SweepState.read(self.runs_dir, self.suite)
        self.state.suite, self.state.launcher = self.suite, self.launcher.name

    def rows(self) -> List[MemberStatus]:
        live = getattr(self.launcher, "live_states", None)
        return member_statuses(self.members, self.runs_dir, self.state, live() if live is not None else None)

    def _record(self, member: Member, state: str, reason: Optional[str] = None, job: Optional[str] = None) -> None:
        self.state.record(member.label, state, reason, job, str(RunDir.for_recipe(self.runs_dir, member.config).path))
        self.state.write(self.runs_dir)

    def run(self) -> List[MemberStatus]:
        """Run every unfinished member; returns the final rows."""
        todo: List[Member] = []
        for member in self.members:
            if is_finished(member, self.runs_dir, self.max_minutes):
                self._record(member, COMPLETE)
            else:
                todo.append(member)
                self._record(member, QUEUED)
        skipped = len(self.members) - len(todo)
        if skipped:
            self.announce(f"{skipped} member(s) already complete: skipped")
        failed_data = prepare_treebanks(todo, self.announce)
        pending = []
        for member in todo:
            reason = failed_data.get(member.treebank)
            if reason is not None:
                self._record(member, FAILED, reason)
            else:
                pending.append(member)
        running: Dict[str, tuple] = {}
        last_refresh = 0.0
        try:
            pending = self._adopt(pending, running)
            while pending or running:
                self._start_ready(pending, running)
                if pending and not running:  # nothing left that they could wait for (cannot happen: a guard)
                    for member in pending:
                        self._record(member, FAILED, "not run: a member it waits for never ran")
                    pending = []
                for label, (member, handle) in list(running.items()):
                    if handle.done():
                        del running[label]
                        if getattr(handle, "adopted", False) and self._start_again(member):
                            pending.insert(0, member)
                            continue
                        self._finish(member, handle.outcome())
                if time.monotonic() - last_refresh >= REFRESH_SECONDS or not (pending or running):
                    self.on_refresh(self.rows())
                    last_refresh = time.monotonic()
                if pending or running:
                    time.sleep(0.2)
        finally:
            self.launcher.close()
        rows = self.rows()
        self.on_refresh(rows)
        return rows

    def _start_ready(self, pending: List[Member], running: Dict[str, tuple]) -> None:
        """Start the pending members, in order, whose ``after`` members allow it, until no slot is free; a member
        whose ``after`` member failed fails without starting."""
        for member in list(pending):
            if member not in pending:  # a refusal that hit every member emptied the list
                break
            waits, blocked = self._waits(member)
            if blocked is not None:
                pending.remove(member)
                self._record(member, FAILED, blocked)
                continue
            if waits is None:
                continue
            run_dir = RunDir.for_recipe(self.runs_dir, member.config)
            argv = member_argv(member, self.runs_dir, self.max_minutes, self._gpus(member))
            try:
                handle = (self.launcher.start(member, argv, run_dir, after=waits) if waits  # type: ignore[call-arg]
                          else self.launcher.start(member, argv, run_dir))
            except SubmissionRefused as refusal:
                pending.remove(member)
                self._refused(member, refusal, pending)
                continue
            if handle is None:
                break
            pending.remove(member)
            running[member.label] = (member, handle)
            self._record(member, RUNNING, job=handle.job)

    def _waits(self, member: Member) -> Tuple[Optional[List[str]], Optional[str]]:
        """(the job ids ``member`` must wait for when it may start now, else None; why it cannot run at all, else
        None), from the recorded states of its ``after`` members."""
        jobs: List[str] = []
        for label in member.after:
            entry = self.state.members.get(label) or {}
            state = entry.get("state")
            if state == COMPLETE:
                continue
            if state == FAILED:
                return None, f"not run: {label} failed ({entry.get('reason') or 'no reason recorded'})"
            job = job_number(entry.get("job")) if state == RUNNING else None
            if job is None or not getattr(self.launcher, "dependencies", False):
                return None, None  # wait for it
            jobs.append(job)
        return jobs, None

    def _gpus(self, member: Member) -> int:
        gpus_for = getattr(self.launcher, "gpus_for", None)
        return gpus_for(member) if gpus_for is not None else 1

    def _adopt(self, pending: List[Member], running: Dict[str, tuple]) -> List[Member]:
        """Members whose job from an earlier sweep is still queued or running (Slurm), or whose run another process
        still trains (local), are followed, not started again."""
        adopt = getattr(self.launcher, "adopt", None)
        if adopt is None:
            return pending
        left: List[Member] = []
        for index, member in enumerate(pending):
            recorded = self.state.members.get(member.label) or {}
            try:
                handle = adopt(member, recorded.get("job"), RunDir.for_recipe(self.runs_dir, member.config))
            except SubmissionRefused as refusal:
                self._refused(member, refusal, left + pending[index + 1:])
                continue
            if handle is None:
                left.append(member)
            else:
                note = getattr(handle, "note", None) or f"{handle.job} is still queued or running; following it"
                self.announce(f"{member.label}: {note}")
                running[member.label] = (member, handle)
                self._record(member, RUNNING, getattr(handle, "reason", None), job=handle.job)
        return left

    def _start_again(self, member: Member) -> bool:
        """An adopted process (one this sweep did not start) ended: True, with the member queued again, when its
        run is neither finished nor failed (killed, or stopped by a smaller budget than this sweep's)."""
        if is_finished(member, self.runs_dir, self.max_minutes) or read_member(member, self.runs_dir).state == FAILED:
            return False
        self.announce(f"{member.label}: the process this sweep followed ended before its run finished; starting it")
        self._record(member, QUEUED)
        return True

    def _refused(self, member: Member, refusal: SubmissionRefused, pending: List[Member]) -> None:
        """A member that could not be submitted fails with the reason; a refusal that would hit every member
        stops the sweep before the rest (recorded as not submitted) and raises :class:`SweepStopped`."""
        self._record(member, FAILED, refusal.reason)
        if not refusal.every_member:
            self.announce(f"{member.label}: not submitted: {refusal.reason}")
            return
        for other in pending:
            self._record(other, FAILED, f"not submitted: {member.label} was refused ({refusal.reason})")
        rest = f"; the other {len(pending)} member(s) were not submitted" if pending else ""
        del pending[:]
        raise SweepStopped(f"{member.label}: {refusal.reason}{rest} ({refusal.advice})")

    def _finish(self, member: Member, outcome: Outcome) -> None:
        status = read_member(member, self.runs_dir)
        if outcome.returncode == 0 and status.state == COMPLETE:
            self._record(member, COMPLETE)
        elif status.state == FAILED:  # the run recorded its own error in results.json
            self._record(member, FAILED, status.reason)
        else:
            blocked = self._waits(member)[1]  # a job Slurm cancelled because a member it waited for failed
            self._record(member, FAILED, blocked or outcome.reason or exit_reason(outcome.returncode))
