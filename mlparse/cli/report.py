"""``mlparse report``: leaderboards of runs beside published scores, in several formats."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.errors import fail, os_error_message, print_warning


class Format(str, Enum):
    table = "table"
    markdown = "markdown"
    csv = "csv"
    json = "json"
    html = "html"


class Split(str, Enum):
    dev = "dev"
    test = "test"


class Select(str, Enum):
    latest = "latest"
    best = "best"
    all_seeds = "all-seeds"


class CurveX(str, Enum):
    step = "step"
    minutes = "minutes"


class Published(str, Enum):
    matching = "matching"
    all = "all"
    none = "none"


@app.command()
def report(
    runs_dir: Path = typer.Argument(Path("runs"), help="Folder of runs: <recipe>/<run-id>/results.json."),
    format: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write to this file instead of the terminal."),
    split: Split = typer.Option(Split.test, "--split", help="Which split the leaderboards show."),
    select: Select = typer.Option(Select.latest, "--select",
                                  help="Runs differing only by seed are one configuration, shown as mean ± "
                                  "standard deviation (n) and named by what differs from its recipe: latest: every "
                                  "configuration; best: per recipe, the one best on dev (mean); all-seeds: every "
                                  "configuration, one row per seed."),
    published: Published = typer.Option(Published.matching, "--published",
                                        help="Published rows: for data sets with runs, all tables, or none."),
    plots: Optional[Path] = typer.Option(None, "--plots",
                                         help="Also write the PNG plots to this folder (html: <out>_plots/)."),
    curve_x: CurveX = typer.Option(CurveX.step, "--curve-x",
                                   help="The dev curves' x axis: optimizer steps, or minutes of training."),
    rescore: bool = typer.Option(False, "--rescore", help="Significance marks: test runs whose gold file has changed "
                                 "since they were scored against the file as it is now, instead of leaving them "
                                 "untested with a warning."),
) -> None:
    """Collect every results.json under RUNS_DIR and print or write the leaderboards."""
    from rich.text import Text

    from mlparse.cli.consoles import CliConsole
    from mlparse.report.model import build_report
    from mlparse.report.output import render, write_report
    from mlparse.report.published import PublishedDataError

    errors = CliConsole(stderr=True)
    if not runs_dir.is_dir():
        fail(f"runs folder not found: {runs_dir}" + (" (it is a file)" if runs_dir.exists() else ""), 2)
    if out is not None and out.is_dir():
        fail(f"--out {out} is a folder; give a file name, e.g. {out / ('leaderboard.' + _SUFFIX[format.value])}", 2)
    if plots is not None and plots.exists() and not plots.is_dir():
        fail(f"--plots {plots} is a file; give a folder", 2)
    try:
        result = build_report(runs_dir, split=split.value, select=select.value, published_mode=published.value,
                              curve_x=curve_x.value, rescore=rescore)
    except PublishedDataError as error:
        fail(error, 2)
    if out is not None or format != Format.table:  # the terminal table shows them itself
        for warning in result.all_warnings():
            print_warning(warning, errors)
    try:
        if out is not None:
            written = write_report(result, format.value, out, plots_dir=plots)
            errors.print(Text(f"wrote {', '.join(str(path) for path in written)}"), soft_wrap=True)
            return
        if format == Format.table:
            from mlparse.report.render_text import print_report

            if plots is not None:
                from mlparse.report.output import write_plots

                write_plots(result, plots)
            print_report(result, CliConsole())
            return
        sys.stdout.write(render(result, format.value, plots_dir=plots))
    except OSError as error:
        fail(os_error_message(error, "cannot write", out if out is not None else plots), 1)


#: File suffix per format, for the --out hint.
_SUFFIX = {"table": "txt", "markdown": "md", "csv": "csv", "json": "json", "html": "html"}
