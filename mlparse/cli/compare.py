"""``mlparse compare A B [C ...]``: systems (all seeds of a configuration, or single runs) against the first, on the same gold split."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.errors import fail


#: The largest --seed and --aso-iterations: ASO seeds numpy's legacy generator (0 to 2**32 - 1) with the seed plus
#: the number of each bootstrap iteration, so the two together stay within that range.
MAX_SEED = 2 ** 31 - 1
MAX_ASO_ITERATIONS = 2 ** 31


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
    runs: List[str] = typer.Argument(..., help="Systems: a recipe name or a system as the report names its rows (all "
                                     "complete seeds of that configuration under --runs-dir), or a run directory "
                                     "(trained, ensemble or external: that run alone); each is compared with the first."),
    split: str = typer.Option("test", "--split", help="The split whose predictions are compared."),
    metric: Optional[Metric] = typer.Option(None, "--metric", help="Default: f1 (constituency), las (dependency)."),
    method: Method = typer.Option(Method.randomization, "--method", help="The paired test over sentences between two "
                                  "single runs and of --per-pair: approximate randomization or the bootstrap (with a "
                                  "95% interval of the difference)."),
    samples: int = typer.Option(10_000, "--samples", min=2, help="Shuffles or bootstrap samples."),
    seed: int = typer.Option(12345, "--seed", min=0, max=MAX_SEED, help="Seed of the resampling and of ASO (recorded "
                             "in the output)."),
    output_format: Format = typer.Option(Format.table, "--format", help="table, json or markdown."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where recipe and system names are found."),
    per_pair: bool = typer.Option(False, "--per-pair", help="Also the paired test of every run of B against every run "
                                  "of A (Holm-corrected over the pairs)."),
    aso_threshold: float = typer.Option(0.2, "--aso-threshold", min=0.0, max=1.0, help="Seed groups: B is almost "
                                        "stochastically better than A where ASO's ε_min is below this."),
    aso_iterations: int = typer.Option(1000, "--aso-iterations", min=10, max=MAX_ASO_ITERATIONS, help="Seed groups: "
                                       "deepsig's bootstrap iterations for Almost Stochastic Order."),
    rescore: bool = typer.Option(False, "--rescore", help="Score runs whose gold file has changed since they were "
                                 "scored against the file as it is now, instead of refusing them."),
) -> None:
    """Is B better than A?  Every seed of both: a t-test on the seed means with the seeds' and the test sentences'
    variance (two single runs: a paired test on per-sentence statistics from the scorers themselves); with more
    than two systems, Holm-corrected; Welch's t-test and ASO over seeds are printed apart, as diagnostics."""
    from mlparse.compare.comparison import CompareOptions, compare
    from mlparse.compare.group_significance import MissingPackage
    from mlparse.compare.render import RENDERERS
    from mlparse.compare.runs import CompareError, resolve

    options = CompareOptions(split=split, metric=metric.value if metric else None, method=method.value,
                             samples=samples, seed=seed, aso_iterations=aso_iterations, aso_threshold=aso_threshold,
                             per_pair=per_pair, rescore=rescore)
    try:
        systems = [resolve(run, runs_dir) for run in runs]
        result = compare(systems, options)
    except (CompareError, MissingPackage) as error:
        fail(error)
    except OSError as error:
        fail(f"{getattr(error, 'filename', '') or ''}: cannot read ({error.strerror or error})")
    sys.stdout.write(RENDERERS[output_format.value](result))
    sys.stdout.flush()
