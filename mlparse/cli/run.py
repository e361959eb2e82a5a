"""``mlparse run RECIPE``: train and evaluate a recipe into runs/<recipe>/<run-id>/ (resumable)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from mlparse.cli.app import app

console = Console(stderr=True)


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
        return (f"step {info.step} loss {info.loss:.2f} dev F1 {self.dev} lr {info.lr:.1e} "
                f"{info.sentences_per_second:.0f} sent/s {info.tokens_per_second:.0f} tok/s")

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        self.progress.update(self.task, completed=info.epoch, status=self._status(info))

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        self.dev = f"{info.dev_f1:.2f}" + ("*" if improved else f" (best {info.best_f1:.2f})")
        if lr_decayed:
            console.print(f"step {info.step}: dev F1 has not improved; learning rate now {info.lr:.2e}")
        self.progress.update(self.task, completed=info.epoch, status=self._status(info))


def _launch_distributed(processes: int) -> int:
    """Re-run this command under torchrun with ``processes`` workers (one per GPU, or gloo on CPU)."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={processes}",
               "-m", "mlparse", *sys.argv[1:]]
    console.print(f"launching {processes} processes: {' '.join(command[1:])}")
    return subprocess.call(command)


@app.command("run")
def run_command(
    recipe: str = typer.Argument(..., help="Recipe YAML (recipes/hebrew.yaml) or a bundled recipe name (hebrew, free/icelandic)."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where run directories go."),
    max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Bound the training time (minutes)."),
    gpus: int = typer.Option(1, "--gpus", help="Processes for DistributedDataParallel (GPUs; gloo on CPU)."),
    fresh: bool = typer.Option(False, "--fresh", help="Delete an existing run directory and start over."),
    overrides: List[str] = typer.Option([], "--set", help="Override a recipe key, e.g. --set train.lr=0.001 (repeatable)."),
) -> None:
    """Train and evaluate RECIPE; an existing run directory for the same resolved recipe is resumed."""
    if gpus > 1 and "LOCAL_RANK" not in os.environ:
        raise typer.Exit(_launch_distributed(gpus))
    from mlparse.config import ConfigError, load_recipe

    try:
        config = load_recipe(recipe, overrides)
    except ConfigError as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2)
    from mlparse.train.evaluate import EvaluationError
    from mlparse.train.runner import RunError, RunOptions, run_recipe
    from mlparse.train.run_dir import RunDir

    main = os.environ.get("RANK", "0") == "0"
    run_dir = RunDir.for_recipe(runs_dir, config)
    if main:
        console.print(f"run directory: {run_dir.path}")
    options = RunOptions(runs_dir=runs_dir, max_minutes=max_minutes, fresh=fresh)
    try:
        if main:
            with reporter_for(config) as reporter:
                results = run_recipe(config, options, reporter)  # type: ignore[arg-type]
        else:
            results = run_recipe(config, options, None)
    except (RunError, EvaluationError, ValueError) as error:
        console.print(f"[red]error:[/red] {error}", highlight=False)
        raise typer.Exit(1)
    finally:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()
    if not main:
        return
    for split in ("dev", "test"):
        scores = getattr(results, split)
        if scores is not None:
            console.print(f"{split}: F1 {scores.f1:.2f}  LP {scores.precision or 0:.2f}  LR {scores.recall or 0:.2f}  "
                          f"complete match {scores.complete_match or 0:.2f}  ({scores.sentences} sentences)")
    console.print(f"parse speed {results.parse_sentences_per_second} sentences/s; training {results.training_seconds} s")
    console.print(f"results: {run_dir.results}")


class _PlainReporter:
    """Without a terminal: one line per dev check."""

    def __enter__(self) -> "_PlainReporter":
        return self

    def __exit__(self, *args: object) -> None:
        pass

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        pass

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        console.print(f"epoch {info.epoch:.2f} step {info.step}: loss {info.loss:.3f} dev F1 {info.dev_f1:.2f}"
                      f"{' (best)' if improved else ''} lr {info.lr:.2e} {info.sentences_per_second:.1f} sent/s",
                      highlight=False)


def reporter_for(config):  # type: ignore[no-untyped-def]
    """A context manager yielding the training reporter: a live rich display on a terminal, else plain lines."""
    if sys.stderr.isatty():
        return RichReporter(config.train.max_epochs)
    return _PlainReporter()
