"""``mlparse compare A B [C ...]``: paired significance tests between runs on the same gold split."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.errors import fail


class Metric(str, Enum):
    f1 = "f1"
    lr = "lr"
    lp = "lp"
    uas = "uas"
    las = "las"
    clas = "clas"
    mlas = "mlas"
    blex = "blex"


class Method(str, Enum):
    randomization = "randomization"
    bootstrap = "bootstrap"


class Format(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


@app.command("compare")
def compare_command(
    runs: List[str] = typer.Argument(..., help="Run directories (trained, ensemble or external) or recipe names "
                                     "(their latest complete run); each is compared with the first."),
    split: str = typer.Option("test", "--split", help="The split whose predictions are compared."),
    metric: Optional[Metric] = typer.Option(None, "--metric", help="Default: f1 (constituency), las (dependency)."),
    method: Method = typer.Option(Method.randomization, "--method", help="Paired approximate randomization or the "
                                  "paired bootstrap (with a 95% interval of the difference)."),
    samples: int = typer.Option(10_000, "--samples", min=1, help="Shuffles or bootstrap samples."),
    seed: int = typer.Option(12345, "--seed", help="Seed of the resampling (recorded in the output)."),
    output_format: Format = typer.Option(Format.table, "--format", help="table, json or markdown."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where recipe names and seed groups are found."),
    aso_iterations: int = typer.Option(1000, "--aso-iterations", min=10, help="Seed groups: deepsig's bootstrap "
                                       "iterations for Almost Stochastic Order."),
) -> None:
    """Is B better than A?  Paired tests on per-sentence statistics from the scorers themselves; with more than
    two runs, Holm-Bonferroni adjusted; runs that come in groups of seeds also get Welch's t-test and ASO."""
    from mlparse.compare.comparison import CompareOptions, compare, repeated_runs
    from mlparse.compare.render import RENDERERS
    from mlparse.compare.runs import CompareError, resolve

    options = CompareOptions(split=split, metric=metric.value if metric else None, method=method.value,
                             samples=samples, seed=seed, runs_dir=runs_dir,
                             aso_iterations=aso_iterations)
    try:
        refs = [resolve(run, runs_dir) for run in runs]
        comparisons = compare(refs, options)
    except CompareError as error:
        fail(error)
    except OSError as error:
        fail(f"{getattr(error, 'filename', '') or ''}: cannot read ({error.strerror or error})")
    for note in repeated_runs(refs):
        typer.echo(f"note: {note}", err=True)
    sys.stdout.write(RENDERERS[output_format.value](comparisons))
    sys.stdout.flush()
