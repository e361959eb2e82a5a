"""Render a :class:`Report` in one format and write it (and its plots) atomically."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional

from mlparse.io_utils import atomic_write_bytes, atomic_write_text
from mlparse.report.model import Report

if TYPE_CHECKING:  # matplotlib is imported on use only
    from mlparse.report.plots import Plot

FORMATS = ("table", "markdown", "csv", "json", "html")


def default_plots_dir(out: Path) -> Path:
    """``report.html`` → ``report_plots/`` beside it."""
    return out.with_name(f"{out.stem}_plots")


def report_plots(report: Report) -> List["Plot"]:
    """Every plot of the report: per-language bars per leaderboard, dev curves (:mod:`mlparse.report.plots`), then
    the breakdowns that ``mlparse analyze errors`` wrote for the runs shown (:mod:`mlparse.report.breakdown_plots`)."""
    from mlparse.report.breakdown_plots import breakdown_plots
    from mlparse.report.plots import bar_plot, dev_curve_plots

    bars = [plot for plot in (bar_plot(board) for board in report.leaderboards) if plot is not None]
    return bars + dev_curve_plots(report) + breakdown_plots(report)


def write_plots(report: Report, plots_dir: Path, plots=None) -> Dict[str, Path]:
    """Write every plot as ``<plots_dir>/<name>.png``; returns title → path."""
    written = {}
    for plot in plots if plots is not None else report_plots(report):
        path = plots_dir / f"{plot.name}.png"
        atomic_write_bytes(path, plot.png)
        written[plot.title] = path
    return written


def render(report: Report, fmt: str, plots_dir: Optional[Path] = None, out: Optional[Path] = None) -> str:
    """The report as text in ``fmt``; writes PNGs to ``plots_dir`` when given (html: embedded anyway)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "html":
        from mlparse.report.render_html import render_html

        plots = report_plots(report)
        if plots_dir is not None:
            write_plots(report, plots_dir, plots)
        return render_html(report, plots)
    if plots_dir is not None:
        paths = write_plots(report, plots_dir)
    else:
        paths = {}
    if fmt == "markdown":
        from mlparse.report.render_markdown import render_markdown

        base = out.parent if out is not None else Path.cwd()
        relative = {title: Path(os.path.relpath(path, base)) for title, path in paths.items()}
        return render_markdown(report, relative)
    if fmt == "csv":
        from mlparse.report.render_csv import render_csv

        return render_csv(report)
    if fmt == "json":
        from mlparse.report.render_json import render_json

        return render_json(report)
    from mlparse.report.render_text import render_text

    return render_text(report)


def write_report(report: Report, fmt: str, out: Path, plots_dir: Optional[Path] = None) -> List[Path]:
    """Write the report to ``out`` atomically; html gets its PNGs in ``<stem>_plots/`` unless told otherwise."""
    if fmt == "html" and plots_dir is None:
        plots_dir = default_plots_dir(out)
    text = render(report, fmt, plots_dir=plots_dir, out=out)
    atomic_write_text(out, text)
    written = [out]
    if plots_dir is not None and plots_dir.is_dir():
        written += sorted(plots_dir.glob("*.png"))
    return written
