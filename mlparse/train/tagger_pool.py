"""Jack-knifing taggers side by side, each an ordinary ``mlparse run`` in a process of its own.

A parser run with ``data.tags: jackknife`` needs ``tagger.folds + 1`` tagger runs, independent of each other.
Where the machine has room, this module trains several at once: one per GPU, or on a CPU as many as its cores
hold at the threads one tagger uses (:func:`mlparse.train.run_budget.side_by_side`; ``tagger.side_by_side``
chooses); finished tagger runs are reused without starting anything, and with a single slot the taggers train one
after the other in the parser's own process (:func:`train_taggers`).  Side by side, each tagger is
``python -m mlparse run TAGGER.yaml`` (its resolved recipe, written to a temporary folder), so it has the usual
run directory, run id, lock, resume and errors, exactly as the parser's own process or ``mlparse sweep`` would
train it; its torch threads are its recipe's (:func:`mlparse.train.jackknife.tagger_threads`), the same
wherever it runs, so side by side or one after the other it gives the same tags.

This module starts processes and waits for them; it imports no torch and nothing of the runner.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mlparse.config import RecipeConfig
from mlparse.io_utils import atomic_write_text
from mlparse.results import COMPLETE, FAILED, RunResults
from mlparse.run_dir import RunDir
from mlparse.train.run_budget import extends_budget
from mlparse.run_lock import wait_until_free
from mlparse.train.threads import SHARING_VARIABLE

#: Trains one tagger in this process (the runner's ``run_planned`` of its plan): its results and run directory.
RunOne = Callable[[RecipeConfig, str], Tuple[RunResults, Path]]

#: How often the pool looks at its processes (seconds).
POLL_SECONDS = 0.5
#: Lines of a failed tagger's output that its error keeps when its results.json says nothing.
ERROR_LINES = 3


def train_taggers(taggers: Sequence[RecipeConfig], roles: Sequence[str], runs_dir: Path, slots: int, run_one: RunOne,
                  gpus: int = 0, trust_checkpoint: bool = False,
                  note: Callable[[str], None] = lambda text: None) -> List[Tuple[RunResults, Path]]:
    """Each tagger's results and run directory, in order: a finished run as it is (:func:`finished_run`), the others
    trained ``slots`` at a time in processes of their own (:func:`train_side_by_side`), or, with one slot or one
    tagger to train, one after the other by ``run_one`` in this process."""
    out: Dict[int, Tuple[RunResults, Path]] = {}
    for index, tagger in enumerate(taggers):
        done = finished_run(tagger, runs_dir)
        if done is not None:
            out[index] = done
    todo = [index for index in range(len(taggers)) if index not in out]
    if slots > 1 and len(todo) > 1:
        trained = train_side_by_side([taggers[i] for i in todo], [roles[i] for i in todo], runs_dir,
                                     min(slots, len(todo)), gpus, trust_checkpoint, note)
    else:
        trained = [run_one(taggers[i], roles[i]) for i in todo]
    out.update(zip(todo, trained))
    return [out[index] for index in range(len(taggers))]


def finished_run(config: RecipeConfig, runs_dir: Path) -> Optional[Tuple[RunResults, Path]]:
    """The results and folder of the complete run of ``config`` that its time bound (``train.max_minutes``) would not
    train further, else None (a run to train, resume or extend)."""
    run_dir = RunDir.for_recipe(runs_dir, config)
    previous = run_dir.read_results()
    if previous is None or previous.status != COMPLETE or extends_budget(previous, config.train.max_minutes):
        return None
    return previous, run_dir.path


@dataclass
class _Running:
    """A tagger process: which tagger (its index), its slot (and so its GPU), its process, its output file."""

    index: int
    slot: int
    process: "subprocess.Popen[bytes]"
    output: Path
    started: float


def train_side_by_side(taggers: Sequence[RecipeConfig], roles: Sequence[str], runs_dir: Path, slots: int,
                       gpus: int = 0, trust_checkpoint: bool = False,
                       note: Callable[[str], None] = lambda text: None) -> List[Tuple[RunResults, Path]]:
    """Train ``taggers`` (with ``roles``, their roles in words), ``slots`` at a time, each in a process of its own
    (on GPU ``slot % gpus`` when ``gpus`` > 0); returns each one's results and run directory, in order.  A tagger
    that fails gets a failed :class:`RunResults` with its error; once one has failed no other is started (those
    running finish, so that the next attempt reuses them)."""
    results: Dict[int, Tuple[RunResults, Path]] = {}
    pending = list(range(len(taggers)))
    running: List[_Running] = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="mlparse-taggers-") as scratch:
        try:
            while pending or running:
                while pending and not failed and len(running) < slots:
                    index = pending.pop(0)
                    slot = _free_slot(running, slots)
                    running.append(_start(taggers[index], index, roles[index], runs_dir, Path(scratch), slot, slots, gpus,
                                          trust_checkpoint, note))
                if failed and not running:
                    break
                time.sleep(POLL_SECONDS)
                for job in [job for job in running if job.process.poll() is not None]:
                    running.remove(job)
                    outcome = _finished(taggers[job.index], job, runs_dir)
                    results[job.index] = outcome
                    done, path = outcome
                    minutes = (time.monotonic() - job.started) / 60.0
                    if done.status == FAILED:
                        failed = True
                        note(f"the {roles[job.index]} failed after {minutes:.1f} minutes ({path}): {done.error}")
                    else:
                        accuracy = done.dev.tagging_accuracy if done.dev is not None else None
                        note(f"the {roles[job.index]} finished in {minutes:.1f} minutes"
                             + (f": dev accuracy {accuracy:.2f}" if accuracy is not None else "")
                             + (f" (stopped by {done.stop_reason})" if done.stop_reason else ""))
        except BaseException:  # KeyboardInterrupt included: the taggers' own checkpoints let the same command resume
            for job in running:
                if job.process.poll() is None:
                    job.process.terminate()
            for job in running:
                try:
                    job.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    job.process.kill()
            raise
    skipped = RunResults(status=FAILED, error="not started: another tagger failed")
    return [results.get(i, (skipped, RunDir.for_recipe(runs_dir, taggers[i]).path)) for i in range(len(taggers))]


def _free_slot(running: Sequence[_Running], slots: int) -> int:
    """The lowest slot number (0 .. slots-1) no running tagger holds: the process's GPU, when there are GPUs."""
    held = {job.slot for job in running}
    return next(slot for slot in range(slots) if slot not in held)


def _start(tagger: RecipeConfig, index: int, role: str, runs_dir: Path, scratch: Path, slot: int, slots: int,
           gpus: int, trust_checkpoint: bool, note: Callable[[str], None]) -> _Running:
    """Start ``mlparse run --wait`` of ``tagger`` (its resolved recipe in ``scratch``) once no other process holds its
    run; a process that takes the run's lock before this one's does is waited for, not a failure."""
    run_dir = RunDir.for_recipe(runs_dir, tagger)
    wait_until_free(run_dir.path, f"the {role}", note)  # parsers on the same data share their taggers
    recipe = scratch / f"tagger-{index}.yaml"
    atomic_write_text(recipe, tagger.to_yaml())
    # --wait: another parser's process may take the tagger's lock between the look above and this process's lock
    # (taken once it has imported torch, seconds later); waiting for it, not refused, this one then reuses the run
    argv = [sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(runs_dir), "--wait"]
    if trust_checkpoint:
        argv.append("--trust-checkpoint")
    env = dict(os.environ)
    threads = str(tagger.train.num_threads or 1)
    env.update(OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    env[SHARING_VARIABLE] = str(slots)  # trainings side by side: none of them adapts its threads to the others
    if gpus > 0:
        env["CUDA_VISIBLE_DEVICES"] = _gpu(slot % gpus, env.get("CUDA_VISIBLE_DEVICES"))
    output = scratch / f"tagger-{index}.out"
    with open(output, "wb") as sink:  # the process's own output, read back only for an error
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    job = _Running(index, slot, process, output, time.monotonic())
    note(f"jack-knifing: {role}, in process {process.pid}" + (f" on GPU {slot % gpus}" if gpus > 0 else ""))
    return job


def _gpu(index: int, visible: Optional[str]) -> str:
    """The ``CUDA_VISIBLE_DEVICES`` of a process on this process's GPU ``index`` (of those it sees)."""
    if visible:
        devices = [d.strip() for d in visible.split(",") if d.strip()]
        if index < len(devices):
            return devices[index]
    return str(index)


def _finished(tagger: RecipeConfig, job: _Running, runs_dir: Path) -> Tuple[RunResults, Path]:
    """A tagger process that ended: its run's results, or a failed result with the process's last words."""
    run_dir = RunDir.for_recipe(runs_dir, tagger)
    results = run_dir.read_results()
    if job.process.returncode == 0 and results is not None:
        return results, run_dir.path
    if results is not None and results.status == FAILED and results.error:
        return results, run_dir.path
    try:
        lines = [line for line in job.output.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        lines = []
    said = " / ".join(line.strip() for line in lines[-ERROR_LINES:]) or f"exit status {job.process.returncode}"
    return RunResults(status=FAILED, error=said), run_dir.path
