"""``mlparse run RECIPE``: train and evaluate a recipe into runs/<recipe>/<run-id>/ (resumable)."""

from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.text import Text

from mlparse.cli.app import app
from mlparse.cli.budget import checked_minutes
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message, print_error, print_warning
from mlparse.io_utils import WriteError

console = CliConsole(stderr=True)


class RichReporter:
    """A rich progress bar over epochs showing loss, dev F1 and throughput."""

    def __init__(self, max_epochs: int) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("[bold]epoch {task.completed:.2f}/{task.total:g}"), BarColumn(bar_width=12),
            TimeElapsedColumn(), TextColumn("{task.fields[status]}"), console=console, transient=False,
        )
        self.task = self.progress.add_task("train", total=max_epochs, status="starting")
        self.dev = "-"

    def __enter__(self) -> "RichReporter":
        self.progress.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.progress.stop()

    def _status(self, info) -> str:  # type: ignore[no-untyped-def]
        return (f"step {info.step} loss {info.loss:.2f} dev {info.metric} {self.dev} lr {info.lr:.1e} "
                f"{info.sentences_per_second:.0f} sent/s {info.tokens_per_second:.0f} tok/s")

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        self.progress.update(self.task, completed=info.epoch, status=self._status(info))

    def on_note(self, message: str) -> None:
        console.print(Text(f"note: {message}"), soft_wrap=True)

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        self.dev = f"{info.dev_score:.2f}" + ("*" if improved else f" (best {info.best_score:.2f})")
        if lr_decayed:
            console.print(f"step {info.step}: dev {info.metric} has not improved; learning rate now {info.lr:.2e}",
                          highlight=False)
        self.progress.update(self.task, completed=info.epoch, status=self._status(info))


def _launch_distributed(processes: int) -> int:
    """Re-run this command under torchrun with ``processes`` workers (one per GPU, or gloo on CPU).

    torchrun runs in this process so that a failed worker (which has printed its own error)
    ends the command with that worker's exit status, without the launcher's traceback.
    """
    import logging

    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import main as torchrun

    arguments = ["--standalone", f"--nproc_per_node={processes}", "-m", "mlparse", *sys.argv[1:]]
    console.print(f"launching {processes} processes: torchrun {' '.join(arguments)}", highlight=False, soft_wrap=True)
    logging.getLogger("torch.distributed.elastic").setLevel(logging.CRITICAL)
    try:
        torchrun(arguments)
    except ChildFailedError as error:
        codes = [failure.exitcode for failure in error.failures.values() if failure.exitcode and failure.exitcode > 0]
        return codes[0] if codes else 1
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the launcher itself failed (rendezvous, a signal)
        print_error(f"torchrun failed: {type(error).__name__}: {error}")
        return 1
    return 0


def _check_processes(plan, gpus: int) -> None:  # type: ignore[no-untyped-def]
    """Refuse what cannot work before any process starts: CUDA asked for but absent, more GPUs than exist.
    ``plan.device`` (the :class:`~mlparse.train.run_plan.RunPlan`'s, resolved here) says which."""
    import torch

    from mlparse.train.run_plan import RunError

    if gpus < 1:
        raise RunError(f"--gpus must be at least 1, got {gpus}")
    try:
        device = plan.device
    except RunError as error:
        raise RunError(f"{error} (use --set train.device=cpu)") from None
    if gpus > 1 and device.type == "cuda" and gpus > torch.cuda.device_count():
        raise RunError(f"--gpus {gpus} but only {torch.cuda.device_count()} CUDA device(s) are visible")


def _one_tagger(config, which: str, max_minutes: Optional[float]):  # type: ignore[no-untyped-def]
    """``--tagger FOLD|all``: the tagger run of ``config``'s jack-knifing and its time budget (``tagger.max_minutes``
    unless --max-minutes is given), exactly as the parser's run trains it (mlparse/train/jackknife.py)."""
    from mlparse.config import ConfigError
    from mlparse.tasks.base import DataError
    from mlparse.train.jackknife import tagger_configs, tagger_index, tagger_role

    try:
        index = tagger_index(config, which)
        chosen = tagger_configs(config)[index]
    except (DataError, ConfigError) as error:
        fail(error, 2)
    console.print(f"{tagger_role(index, config.tagger.folds)} of {config.name}", highlight=False, soft_wrap=True)
    return chosen, max_minutes if max_minutes is not None else config.tagger.max_minutes


def kinds_runs_outside(config) -> bool:  # type: ignore[no-untyped-def]
    """Is ``config``'s parser another toolkit's, run by its own commands (no checkpoints of mlparse's)?"""
    from mlparse.config import kinds

    return bool(kinds.declaration(config.model.kind).runs_outside)


@app.command("run")
def run_command(
    recipe: str = typer.Argument(..., help="Recipe YAML (recipes/hebrew.yaml), a bundled recipe name (hebrew, free/icelandic), or ud/<treebank> (the generic UD recipe for any prepared treebank, e.g. ud/UD_Finnish-TDT)."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where run directories go: <runs-dir>/<recipe name>/<run id>/."),
    max_minutes: Optional[float] = typer.Option(
        None, "--max-minutes", help="Bound the training time (minutes; overrides train.max_minutes). The best "
        "checkpoint so far is then scored on dev and test; 0 trains one update. A recipe with jack-knifed tags "
        "(data.tags: jackknife) ends within these minutes in all, its taggers included (tagger.budget_share)."),
    gpus: int = typer.Option(1, "--gpus", help="Processes for DistributedDataParallel under torchrun: one per GPU, "
                             "or CPU processes talking over gloo when there is no GPU."),
    fresh: bool = typer.Option(False, "--fresh", help="Delete an existing run directory of this recipe and start over."),
    overrides: List[str] = typer.Option([], "--set", help="Override a recipe key, e.g. --set train.lr=0.001 (repeatable; "
                                        "values are read as YAML)."),
    trust_checkpoint: bool = typer.Option(
        False, "--trust-checkpoint", help="Read a checkpoint that is not plain data (mlparse's old format) by "
        "unpickling it in full, which runs any code it carries: only for files you trust. `mlparse upgrade` "
        "converts old checkpoints instead."),
    profile: int = typer.Option(0, "--profile", min=0, help="Profile the first N training updates with the torch "
                                "profiler and write a summary of where the time goes to RUN_DIR/profile.txt."),
    tagger: Optional[str] = typer.Option(
        None, "--tagger", metavar="FOLD|all", help="Run only one tagger of RECIPE's jack-knifing (data.tags: "
        "jackknife): the fold tagger of FOLD (0 .. tagger.folds-1), or all (the tagger of dev and test); the same "
        "run the parser's run trains or reuses (mlparse sweep runs them side by side)."),
    until_converged: bool = typer.Option(
        False, "--until-converged", help="Train until dev stops improving: no time bound (train.max_minutes and "
        "tagger.max_minutes lifted), the recipe's train.patience_epochs stops it (at most train.max_epochs). "
        "results.json records the rule and whether it was met; the report names such runs. Resumable as any run."),
    wait: bool = typer.Option(
        False, "--wait", help="When another process trains this run (it holds RUN_DIR/run.lock), wait until it "
        "finishes, then resume or reuse the run, instead of refusing at once. Jack-knifing parsers start their "
        "tagger processes with it, so that parsers on the same data share their taggers."),
) -> None:
    """Train and evaluate RECIPE; running the same recipe again resumes it.

    Everything goes to RUNS_DIR/<name>/<run id>/: the resolved recipe, log.jsonl, checkpoints,
    predicted trees, evalb reports and results.json.  The run id is a hash of the resolved recipe
    (overrides included), so the same command resumes an interrupted run, or shows the results of
    a finished one (--fresh trains again); a run stopped by its time budget trains on when given a
    larger --max-minutes.  One run trains at a time: a second launch of it is refused while the
    first holds RUN_DIR/run.lock.  Data problems (unreadable trees, a dev or test sentence
    longer than the model allows, a missing evalb parameter file) are reported before training.
    """
    import time

    started = time.monotonic()  # a jack-knifing run's budget counts from here, its taggers included
    checked_minutes(max_minutes, "--max-minutes")
    from mlparse.config import ConfigError, load_recipe

    try:
        config = load_recipe(recipe, overrides)
    except ConfigError as error:
        from mlparse.train.ensemble_run import is_ensemble_recipe

        if is_ensemble_recipe(Path(recipe)):
            fail(f"{recipe} is an ensemble recipe (it has an ensemble: section): run it with `mlparse ensemble {recipe}`", 2)
        fail(error, 2)
    if until_converged:
        if max_minutes is not None:
            fail("--until-converged trains without a time bound: leave out --max-minutes", 2)
        from mlparse.train.convergence import until_converged as without_bounds

        try:
            config = without_bounds(config)
        except ValueError as error:
            fail(error, 2)
    if tagger is not None:
        config, max_minutes = _one_tagger(config, tagger, max_minutes)
    if kinds_runs_outside(config):  # another toolkit's parser: its Python and checkout, before anything is prepared
        from mlparse.external.commands import PeerMissing, check_setup

        try:
            check_setup(config)
        except PeerMissing as error:
            fail(error, 1)
    from mlparse.run_lock import RunLocked
    from mlparse.train.run_plan import RunPlan

    plan = RunPlan.for_recipe(config, runs_dir)  # the run directory, this process, its lock and device: once
    run_dir, main = plan.run_dir, plan.dist.is_main
    try:  # before torch loads (seconds): a second launch of a training run is refused at once (--wait: waits, later)
        if not wait:
            plan.check_free()
    except RunLocked as error:
        fail(error, 1)
    from mlparse.tasks.evalb_scoring import EvaluationError
    from mlparse.run_dispatch import run_planned
    from mlparse.train.runner import RunError, RunOptions

    if not plan.dist.launched:
        try:
            _check_processes(plan, gpus)
        except RunError as error:
            fail(error, 2)
        if gpus > 1:
            raise typer.Exit(_launch_distributed(gpus))
    if main:
        console.print(f"run directory: {run_dir.path}", highlight=False, soft_wrap=True)
    options = RunOptions(runs_dir=runs_dir, max_minutes=max_minutes, fresh=fresh, trust_checkpoint=trust_checkpoint,
                         warn=print_warning, profile=profile, started=started,
                         wait_for_lock="the process that trains this run" if wait else None,
                         until_converged=until_converged)
    try:
        if main:
            with reporter_for(config) as reporter:
                results = run_planned(plan, options, reporter)  # type: ignore[arg-type]
        else:
            results = run_planned(plan, options, None)
    except (RunError, EvaluationError, ValueError) as error:
        if not main:  # every process meets the same problem; process 0 reports it
            raise typer.Exit(1)
        fail(error, 1)
    except WriteError as error:
        if not main:
            raise typer.Exit(1)
        fail(write_failure_message(error), 1)
    except OSError as error:
        if not main:
            raise typer.Exit(1)
        fail(os_error_message(error, "cannot read or write"), 1)
    except KeyboardInterrupt:
        if main:
            if kinds_runs_outside(config):  # another toolkit's parser keeps its own checkpoints in RUN_DIR/peer
                print_error(f"interrupted; the same command resumes the peer's training where its recipe can "
                            f"(external.resume), else restarts it ({run_dir.path / 'peer'})")
            else:
                print_error(f"interrupted; the same command resumes from the last dev check ({run_dir.last})")
        raise typer.Exit(130)
    except RuntimeError as error:
        if main:
            raise
        # under DDP, a collective operation fails here when another process has stopped
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        fail(f"process {plan.dist.rank} stopped ({first[:200]})", 1)
    finally:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()
    if not main:
        return
    from mlparse.tasks import task_class

    for split in ("dev", "test"):
        scores = getattr(results, split)
        if scores is not None:
            console.print(f"{split}: {task_class(results.task).summary(scores)}")  # the task's summary line
    console.print(f"parse speed {results.parse_sentences_per_second} sentences/s; training {results.training_seconds} s")
    console.print(f"results: {run_dir.results}", highlight=False, soft_wrap=True)


def write_failure_message(error: WriteError) -> str:
    """One line for a run stopped by a failed write: the file, the cause, and that the same command resumes."""
    once = {errno.ENOSPC: "once there is space", errno.EDQUOT: "once there is space within the quota",
            errno.EROFS: "once the file system is writable again",
            errno.EACCES: "once mlparse may write there", errno.EPERM: "once mlparse may write there"}
    return (f"cannot write {error.filename}: {error.strerror}. The run stopped; what it wrote before is intact, and "
            f"the same command resumes from its last good checkpoint {once.get(error.errno or 0, 'once that is fixed')}")


class _PlainReporter:
    """Without a terminal: one line per dev check."""

    def __enter__(self) -> "_PlainReporter":
        return self

    def __exit__(self, *args: object) -> None:
        pass

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        pass

    def on_note(self, message: str) -> None:
        console.print(Text(f"note: {message}"), soft_wrap=True)

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        console.print(f"epoch {info.epoch:.2f} step {info.step}: loss {info.loss:.3f} dev {info.metric} {info.dev_score:.2f}"
                      f"{' (best)' if improved else ''} lr {info.lr:.2e} {info.sentences_per_second:.1f} sent/s",
                      highlight=False)


def reporter_for(config):  # type: ignore[no-untyped-def]
    """A context manager yielding the training reporter: a live rich display on a terminal, else plain lines."""
    if sys.stderr.isatty():
        return RichReporter(config.train.max_epochs)
    return _PlainReporter()
