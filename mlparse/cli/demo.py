"""``mlparse demo``: the toolkit's main job on a default that needs no licensed data.

Find the WSJ sample (or generate the synthetic treebank), prepare it, train the small demo
recipe for a few minutes on whatever device there is, and print dev and test scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from mlparse.cli.app import app
from mlparse.cli.budget import checked_minutes
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message
from mlparse.cli.prepare import RichProgress
from mlparse.data.catalog import CatalogError
from mlparse.data.demo_data import DemoData, find_and_prepare
from mlparse.data.issues import PrepareError
from mlparse.data.prepare import load_manifest
from mlparse.data.splits import SplitError

console = CliConsole()
errors = CliConsole(stderr=True)


def manifest_table(prepared_dir: Path) -> Table:
    manifest = load_manifest(prepared_dir)
    table = Table(title=f"{manifest.family}/{manifest.language} ({prepared_dir})")
    for column in ("split", "sentences", "tokens", "max len", "labels", "labels (unary chains collapsed)", "POS tags"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, stats in manifest.splits.items():
        table.add_row(split, f"{stats.sentences:,}", f"{stats.tokens:,}", str(stats.max_length),
                      str(len(stats.labels)), str(len(stats.collapsed_labels)), str(len(stats.pos)))
    return table


def scores_table(results) -> Table:  # type: ignore[no-untyped-def]
    """Dev and test scores of a finished run (a :class:`mlparse.results.RunResults`)."""
    table = Table(title=f"{results.system} on {results.dataset}/{results.language}")
    for column in ("split", "sentences", "LR", "LP", "F1", "complete match"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split in ("dev", "test"):
        scores = getattr(results, split)
        if scores is None:
            continue
        table.add_row(split, f"{scores.sentences:,}", *(f"{value:.2f}" if value is not None else "-" for value in
                                                         (scores.recall, scores.precision, scores.f1,
                                                          scores.complete_match)))
    return table


def _say_where(data: DemoData) -> None:
    for place in data.looked_in:
        console.print(f"[dim]not found: {place}[/]", highlight=False)
    if data.synthetic:
        console.print("[yellow]No WSJ sample found.[/] Using a synthetic treebank generated from mlparse's small "
                      "English grammar instead.", highlight=False)
    else:
        console.print(f"WSJ sample: {load_manifest(data.prepared_dir).source_root}", highlight=False)


@app.command(
    "demo",
    help=(
        "The main job on free data: prepare the WSJ sample (from --source, $MLPARSE_DATA, ../shared/treebanks/"
        "ptb-sample or ~/nltk_data/corpora/treebank/combined; else a synthetic treebank), train the small "
        "demo recipe for a few minutes, and print dev and test scores."
    ),
)
def demo_command(
    source: Optional[Path] = typer.Option(None, "--source", "-s", help="Folder holding the WSJ sample."),
    out: Path = typer.Option(Path("data"), "--out", "-o", help="Where prepared data goes."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where the demo run directory goes."),
    minutes: Optional[float] = typer.Option(None, "--minutes", help="Training time budget (default: the recipe's)."),
    prepare_only: bool = typer.Option(False, "--prepare-only", help="Prepare the data and stop."),
    fresh: bool = typer.Option(False, "--fresh", help="Train again even if a finished demo run exists."),
) -> None:
    checked_minutes(minutes, "--minutes")
    try:
        data = find_and_prepare(source, out, progress=RichProgress(console))
    except (CatalogError, PrepareError, SplitError) as error:
        fail(error, 2)
    except OSError as error:
        fail(os_error_message(error, "cannot read or write"), 1)
    _say_where(data)
    console.print(manifest_table(data.prepared_dir))
    if prepare_only:
        return

    from mlparse.cli.run import reporter_for, write_failure_message
    from mlparse.io_utils import WriteError
    from mlparse.config import ConfigError, load_recipe
    from mlparse.tasks.evalb_scoring import EvaluationError
    from mlparse.train.run_plan import RunPlan
    from mlparse.run_dispatch import run_planned
    from mlparse.train.runner import RunError, RunOptions

    recipe = "demo-synthetic" if data.synthetic else "demo"
    try:
        config = load_recipe(recipe, [f"data.root={out}"])
    except ConfigError as error:
        fail(error, 2)
    budget = minutes if minutes is not None else config.train.max_minutes
    plan = RunPlan.for_recipe(config, runs_dir)
    run_dir = plan.run_dir
    previous = run_dir.read_results()
    if previous is not None and previous.status == "complete" and not fresh:
        console.print(f"A finished demo run exists in {run_dir.path}: showing its results (--fresh trains again).",
                      highlight=False)
    console.print(f"training recipe '{recipe}' for at most {budget:g} minutes; run directory {run_dir.path}",
                  highlight=False)
    try:
        with reporter_for(config) as reporter:
            results = run_planned(plan, RunOptions(runs_dir=runs_dir, max_minutes=budget, fresh=fresh), reporter)
    except (RunError, EvaluationError, ValueError) as error:
        fail(error, 1)
    except WriteError as error:
        fail(write_failure_message(error), 1)
    except OSError as error:
        fail(os_error_message(error, "cannot read or write"), 1)
    console.print(scores_table(results))
    speed = results.parse_sentences_per_second
    console.print(f"trained {results.training_seconds or 0:.0f} s ({results.epochs or 0:.1f} epochs); parsing "
                  f"{speed or 0:.0f} sentences/s on {results.hardware.get('device', '?')}; results in "
                  f"{run_dir.results}", highlight=False)
    console.print("Compare runs with `mlparse report`; train a language with `mlparse run recipes/<language>.yaml`.")
