"""Report plots as PNG bytes (matplotlib, Agg backend): dev-score curves (F1 or LAS) and per-language bars."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from mlparse.run_index.collect import RunRecord
from mlparse.report.leaderboard import MEASURED, METRIC_NAMES, PUBLISHED, Leaderboard, LeaderboardRow
from mlparse.report.model import Report, language_label
from mlparse.results import LogEntry


@dataclass
class Plot:
    name: str  # file stem, e.g. "dev-f1-constituency-spmrl", "dev-las-dependency-ud-conll18"
    title: str
    png: bytes
    description: str = ""  # what the figure shows, in words (the page's alt text): every bar of a bar plot
    series: List[str] = field(default_factory=list)  # the legend's entries, in order


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    # No timestamp/software metadata: the same report gives the same bytes.
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def _slug(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def metric_name(metric: str) -> str:
    """``f1`` → ``F1``, ``las`` → ``LAS``; a log line without a metric says ``score``."""
    return METRIC_NAMES.get(metric, metric.upper() if metric else "score")


CurveGroup = Tuple[str, str, Optional[str], Optional[str], str]  # task, dataset, scoring convention, evalb file, metric


def _zoom_limits(curves: Sequence[Tuple[RunRecord, List[LogEntry]]]) -> Optional[Tuple[float, float]]:
    """Y limits around where the runs converge: from the lowest best dev score of the complete runs (all runs
    when none is complete) minus 3 points, to the highest best plus 0.5.  None when that is no zoom at all."""
    complete = [entries for record, entries in curves if record.state == "complete"] or [e for _, e in curves]
    bests = [max(entry.dev_score for entry in entries) for entries in complete]
    everything = [entry.dev_score for _, entries in curves for entry in entries]
    low, high = min(bests) - 3.0, max(bests) + 0.5
    if low <= min(everything):
        return None
    return low, high


def _curve_groups(report: Report) -> Dict[CurveGroup, List[Tuple[RunRecord, List[LogEntry]]]]:
    """Log entries by (task, dataset, scoring, evalb parameters, metric): one figure each, so that a y axis holds
    one metric, scored one way."""
    groups: Dict[CurveGroup, List[Tuple[RunRecord, List[LogEntry]]]] = {}
    for record in report.records:
        results = record.results
        task, dataset = (results.task, results.dataset or "?") if results else ("unknown", "?")
        by_metric: Dict[str, List[LogEntry]] = {}
        for entry in record.log:
            by_metric.setdefault(entry.metric, []).append(entry)
        for metric, entries in by_metric.items():
            groups.setdefault((task, dataset, record.scoring, record.evalb_params, metric), []).append((record, entries))
    return groups


def run_names(report: Report) -> Dict[str, str]:
    """Each run's name in the plots: its system, what differs from its recipe, and its seed (not its run id)."""
    from mlparse.run_index.configurations import Configurations
    from mlparse.run_index.seeds import seed_of
    from mlparse.run_index.systems import system_name

    configurations = Configurations(report.records)
    names = {}
    for record in report.records:
        if record.results is None:
            names[record.label] = record.label
            continue
        name = configurations.name(record, system_name(record))
        seed = seed_of(record)
        names[record.label] = f"{name}, seed {seed}" if seed is not None else name
    return names


def _x_values(entries: List[LogEntry], axis: str) -> List[float]:
    """Where the evaluations go on the x axis: optimizer steps, or minutes of training (entries with a time)."""
    if axis == "minutes":
        return [(entry.elapsed_seconds or 0.0) / 60.0 for entry in entries]
    return [entry.step for entry in entries]


def dev_curve_plots(report: Report) -> List[Plot]:
    """One figure per (task, dataset, scoring, evalb parameters, metric): the dev score (F1, LAS) against optimizer steps, or
    against minutes of training (``report.curve_x``), one line per run with a log, named by system,
    differing settings and seed (:func:`run_names`).  With minutes, evaluations without a time are left out.

    A second panel zooms in on the top of the curves, where runs of one data set differ by tenths
    of a point; runs that are not complete are drawn dashed; a star marks each run's best evaluation.
    """
    plt = _pyplot()
    plots = []
    axis = getattr(report, "curve_x", "step")
    names = run_names(report)
    for (task, dataset, scoring, params, metric), curves in sorted(_curve_groups(report).items(),
                                                                   key=lambda item: tuple(k or "" for k in item[0])):
        name = metric_name(metric)
        rules = [rule for rule in (scoring, params) if rule]
        where = f"{task}, {dataset}" + (f" ({', '.join(rules)})" if rules else "")
        if axis == "minutes":  # evaluations without a time (older logs) cannot be placed
            curves = [(record, [e for e in entries if e.elapsed_seconds is not None]) for record, entries in curves]
            curves = [(record, entries) for record, entries in curves if entries]
            if not curves:
                continue
        zoom = _zoom_limits(curves)
        if zoom is None:
            figure, full = plt.subplots(figsize=(7, 4))
            panels = [full]
        else:
            figure, (full, close) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1]})
            panels = [full, close]
        for record, entries in curves:
            steps = _x_values(entries, axis)
            scores = [entry.dev_score for entry in entries]
            label = names.get(record.label, record.label)
            label = f"{label} ({record.state})" if record.state != "complete" else label
            style = "-" if record.state == "complete" else "--"
            best = max(range(len(scores)), key=scores.__getitem__)
            color = None
            for axes in panels:
                (line,) = axes.plot(steps, scores, marker=".", linewidth=1.2, linestyle=style, color=color,
                                    label=label if axes is full else None)
                color = line.get_color()
                axes.plot([steps[best]], [scores[best]], marker="*", markersize=11, color=color)
        for axes in panels:
            axes.set_xlabel("minutes of training" if axis == "minutes" else "optimizer step")
            axes.grid(alpha=0.3)
        full.set_ylabel(f"dev {name}")
        full.legend(fontsize=8, loc="lower right")
        if zoom is None:
            full.set_title(f"Dev {name} during training — {where}")
        else:
            full.set_title("all evaluations", fontsize=10)
            close.set_ylim(*zoom)
            points = [(x, entry.dev_score) for _, entries in curves for x, entry in zip(_x_values(entries, axis), entries)]
            inside = [x for x, score in points if score >= zoom[0]]
            last = max(x for x, _ in points)
            margin = 0.04 * max(1 if axis == "step" else 0.1, last - min(inside))
            close.set_xlim(min(inside) - margin, last + margin)  # only the steps the zoom shows
            close.set_title(f"zoom: dev {name} {zoom[0]:.1f}–{zoom[1]:.1f} (★ best)", fontsize=10)
            figure.suptitle(f"Dev {name} during training — {where}")
        figure.tight_layout()
        plots.append(Plot(_slug("dev", metric or "score", task, dataset, scoring or "", params or "",
                                "minutes" if axis == "minutes" else ""),
                          f"Dev {name} during training ({where})", _png(figure)))
        plt.close(figure)
    return plots


#: Colours of the systems in a bar plot, in row order (a qualitative palette: colour-blind safe, Okabe and Ito),
#: then matplotlib's tab20 beyond them.
SYSTEM_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")


def _colour(index: int) -> str:
    if index < len(SYSTEM_COLOURS):
        return SYSTEM_COLOURS[index]
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    return to_hex(colormaps["tab20"]((index - len(SYSTEM_COLOURS)) % 20))


def series_name(row: LeaderboardRow) -> str:
    """A leaderboard row's name in a bar plot's legend: the system, and what kind of number it is."""
    if row.kind == PUBLISHED:
        source = row.citation.short() if row.citation is not None else row.source
        return f"{row.system} (published, {source})"
    if row.external:
        return f"{row.system} (external, measured)"
    return f"{row.system} (measured)"


def bar_plot(board: Leaderboard) -> Optional[Plot]:
    """Every system of the leaderboard, grouped by language: one bar per row (published, then measured), one colour
    per system, named in the legend (:func:`series_name`); None without a measured value.

    Published bars are hatched with lines, external systems' with dots; a mean over seeds carries an error bar of one standard deviation; a measured score of
    a run that is not complete is drawn pale and labelled with the run state.  Each bar carries its value, with the
    significance mark of :mod:`mlparse.compare.marks` (the cell's ``worse``) where the table has it.  The y axis does
    not start at zero (scores sit within a few points of each other), which the printed values make explicit.
    """
    from mlparse.compare.marks import MARK

    rows = [row for row in board.rows if any(cell.value is not None for cell in row.cells.values())]
    if not any(row.kind == MEASURED for row in rows):
        return None
    plt = _pyplot()
    languages = board.languages
    width = 0.8 / len(rows)
    figure, axes = plt.subplots(figsize=(max(5.0, len(languages) * (0.32 * len(rows) + 0.6) + 2.0), 4.2))
    present = [cell.value for row in rows for cell in row.cells.values() if cell.value is not None]
    bottom, top = max(0.0, min(present) - 5), min(100.0, max(present) + 2)
    marked = False
    for index, row in enumerate(rows):
        colour = _colour(index)
        xs = [k - 0.4 + width * (index + 0.5) for k in range(len(languages))]
        cells = [row.cells.get(language) for language in languages]
        heights = [cell.value if cell is not None and cell.value is not None else 0.0 for cell in cells]
        spreads = [cell.std if cell is not None and cell.n > 1 and cell.std is not None and cell.state is None else 0.0
                   for cell in cells]
        final = [cell is not None and cell.state is None for cell in cells]
        hatch = "//" if row.kind == PUBLISHED else ".." if row.external else None
        axes.bar([x for x, f in zip(xs, final) if f], [h for h, f in zip(heights, final) if f], width * 0.92,
                 color=colour, label=series_name(row), hatch=hatch, edgecolor="white" if hatch else colour,
                 yerr=[e for e, f in zip(spreads, final) if f] if any(spreads) else None, capsize=2,
                 error_kw={"elinewidth": 0.8, "ecolor": "#1a202c"})
        pale = [(x, h) for x, h, f, cell in zip(xs, heights, final, cells) if not f and cell is not None and h]
        if pale:
            axes.bar([x for x, _ in pale], [h for _, h in pale], width * 0.92, color=colour, alpha=0.35)
        for x, height, spread, cell, done in zip(xs, heights, spreads, cells, final):
            if cell is None:
                continue
            if cell.value is None:
                if cell.state:
                    axes.text(x, bottom + 0.3, cell.state, ha="center", va="bottom", fontsize=6, color="#b7791f",
                              rotation=90)
                continue
            label = f"{height:.2f}"
            if cell.worse:
                label += f" {MARK}"
                marked = True
            if not done:
                label += f" ({cell.state})"
            axes.text(x, height + spread + 0.01 * (top - bottom), label, ha="center", va="bottom", fontsize=6.5, rotation=90,
                      color="#1a202c")
    axes.set_ylim(bottom, top + 0.2 * (top - bottom))  # room for the value labels, written upwards over each bar
    axes.set_yticks([tick for tick in axes.get_yticks() if bottom <= tick <= 100.0])
    axes.set_xlim(-0.6, len(languages) - 0.4)
    axes.set_xticks(list(range(len(languages))))
    axes.set_xticklabels([language_label(language) for language in languages], rotation=30 if len(languages) > 3 else 0,
                         ha="right" if len(languages) > 3 else "center")
    axes.set_ylabel(metric_name(board.metric))
    axes.set_title(board.title)
    axes.grid(axis="y", alpha=0.3)
    handles, labels = axes.get_legend_handles_labels()
    notes = []
    if any(row.kind == MEASURED and any(c.n > 1 for c in row.cells.values()) for row in rows):
        notes.append("measured: mean ± sd over seeds")
    if marked:
        notes.append(f"{MARK}: significantly worse than the column's best system (see the table's legend)")
    # Below the axes, where it can cover no bar and no label; one column per few systems.
    axes.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.14 if len(languages) > 3 else -0.08),
                ncol=1 if len(rows) <= 4 else 2, frameon=False, title="; ".join(notes) or None, title_fontsize=7)
    description = f"{board.title}: " + "; ".join(
        f"{series_name(row)}: " + ", ".join(
            f"{language_label(language)} {row.cells[language].value:.2f}"
            + (f" {MARK}" if row.cells[language].worse else "")
            for language in languages if language in row.cells and row.cells[language].value is not None)
        for row in rows)
    plot = Plot(_slug("bars", board.task, board.dataset, board.scoring or "", board.evalb_params or "", board.split,
                      board.metric), board.title,
                _png(figure), description=description, series=[series_name(row) for row in rows])
    plt.close(figure)
    return plot
