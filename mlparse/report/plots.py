"""Report plots as PNG bytes (matplotlib, Agg backend): dev-score curves (F1 or LAS) and per-language bars."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from mlparse.run_index.collect import RunRecord
from mlparse.report.leaderboard import MEASURED, METRIC_NAMES, PUBLISHED, Cell, Leaderboard
from mlparse.report.model import Report, language_label
from mlparse.results import LogEntry


@dataclass
class Plot:
    name: str  # file stem, e.g. "dev-f1-constituency-spmrl", "dev-las-dependency-ud-conll18"
    title: str
    png: bytes


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


CurveGroup = Tuple[str, str, Optional[str], str]  # task, dataset, scoring convention, metric


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
    """Log entries by (task, dataset, scoring, metric): one figure each, so that a y axis holds one metric."""
    groups: Dict[CurveGroup, List[Tuple[RunRecord, List[LogEntry]]]] = {}
    for record in report.records:
        results = record.results
        task, dataset = (results.task, results.dataset or "?") if results else ("unknown", "?")
        by_metric: Dict[str, List[LogEntry]] = {}
        for entry in record.log:
            by_metric.setdefault(entry.metric, []).append(entry)
        for metric, entries in by_metric.items():
            groups.setdefault((task, dataset, record.scoring, metric), []).append((record, entries))
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
    """One figure per (task, dataset, scoring, metric): the dev score (F1, LAS) against optimizer steps, or
    against minutes of training (``report.curve_x``), one line per run with a log, named by system,
    differing settings and seed (:func:`run_names`).  With minutes, evaluations without a time are left out.

    A second panel zooms in on the top of the curves, where runs of one data set differ by tenths
    of a point; runs that are not complete are drawn dashed; a star marks each run's best evaluation.
    """
    plt = _pyplot()
    plots = []
    axis = getattr(report, "curve_x", "step")
    names = run_names(report)
    for (task, dataset, scoring, metric), curves in sorted(_curve_groups(report).items(),
                                                           key=lambda item: tuple(k or "" for k in item[0])):
        name = metric_name(metric)
        where = f"{task}, {dataset}" + (f" ({scoring})" if scoring else "")
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
        plots.append(Plot(_slug("dev", metric or "score", task, dataset, scoring or "",
                                "minutes" if axis == "minutes" else ""),
                          f"Dev {name} during training ({where})", _png(figure)))
        plt.close(figure)
    return plots


def bar_plot(board: Leaderboard) -> Optional[Plot]:
    """Per language: the best measured score beside the best published one (None without measured values).

    Each bar carries its value; the y axis does not start at zero (scores sit within a few points of each
    other), which the printed values make explicit.  A measured score from a run that is not complete is
    drawn pale and labelled with the run state; a language with no measured score says why when it can.
    """
    measured = board.measured_rows()
    if not any(cell.value is not None for row in measured for cell in row.cells.values()):
        return None
    plt = _pyplot()

    def best_cell(kind: str, language: str, final: bool) -> Optional[Cell]:
        cells = [row.cells[language] for row in board.rows
                 if row.kind == kind and language in row.cells and row.cells[language].value is not None
                 and (row.cells[language].state is None) == final]
        return max(cells, key=lambda cell: cell.value) if cells else None  # type: ignore[arg-type,return-value]

    def best(kind: str, language: str, final: bool) -> Optional[float]:
        cell = best_cell(kind, language, final)
        return cell.value if cell is not None else None

    def state(language: str) -> Optional[str]:
        states = [row.cells[language].state for row in measured if language in row.cells]
        return next((s for s in states if s), None)

    languages = board.languages
    final = [best(MEASURED, language, True) for language in languages]
    provisional = [best(MEASURED, language, False) if final[i] is None else None
                   for i, language in enumerate(languages)]
    theirs = [best(PUBLISHED, language, True) for language in languages]
    paired = any(v is not None for v in theirs)
    figure, axes = plt.subplots(figsize=(max(4.0, 0.95 * len(languages) + 2), 3.8))
    width = 0.38 if paired else 0.5
    xs = list(range(len(languages)))
    ours_x = [x - width / 2 for x in xs] if paired else xs
    present = [v for v in final + provisional + theirs if v is not None]
    bottom, top = max(0.0, min(present) - 5), min(100.0, max(present) + 2)
    # a mean over seeds carries an error bar of one standard deviation
    spreads = [cell.std if cell is not None and cell.n > 1 else None
               for cell in (best_cell(MEASURED, language, True) for language in languages)]
    seeded = any(spread is not None for spread in spreads)
    axes.bar(ours_x, [v if v is not None else 0 for v in final], width,
             label="mlparse (measured, mean ± sd over seeds)" if seeded else "mlparse (measured)", color="#2b6cb0",
             yerr=[spread or 0.0 for spread in spreads] if seeded else None, capsize=3 if seeded else 0,
             error_kw={"elinewidth": 1, "ecolor": "#1a202c"})
    if any(v is not None for v in provisional):
        axes.bar(ours_x, [v if v is not None else 0 for v in provisional], width, color="#2b6cb0", alpha=0.35,
                 label="mlparse (run not complete)")
    if paired:
        axes.bar([x + width / 2 for x in xs], [v if v is not None else 0 for v in theirs], width,
                 label="best published", color="#a0aec0", hatch="//", edgecolor="white")
    for i, language in enumerate(languages):
        ours = final[i] if final[i] is not None else provisional[i]
        if ours is not None:
            label = f"{ours:.2f}" if final[i] is not None else f"{ours:.2f} ({state(language) or 'provisional'})"
            if final[i] is not None and spreads[i] is not None:
                label += f" ± {spreads[i]:.2f}"
            axes.text(ours_x[i], ours + 0.15 + (spreads[i] or 0.0 if final[i] is not None else 0.0), label, ha="center", va="bottom", fontsize=7,
                      color="#1a365d", rotation=90 if paired else 0)
        elif state(language):
            axes.text(ours_x[i], bottom + 0.3, state(language), ha="center", va="bottom", fontsize=7,
                      color="#b7791f", rotation=90)
        if paired and theirs[i] is not None:
            axes.text(xs[i] + width / 2, theirs[i] + 0.15, f"{theirs[i]:.2f}", ha="center", va="bottom",
                      fontsize=7, color="#4a5568", rotation=90)
    axes.set_ylim(bottom, top + (2.5 if paired else 1.0))  # room for the value labels
    axes.set_xlim(-0.7, len(languages) - 0.3)
    axes.set_xticks(xs)
    axes.set_xticklabels([language_label(language) for language in languages], rotation=30, ha="right")
    axes.set_ylabel(metric_name(board.metric))
    # The legend sits between the title and the axes, where it can cover no bar and no label.
    axes.set_title(board.title, pad=24)
    handles = axes.get_legend_handles_labels()[0]
    axes.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(handles), frameon=False,
                borderaxespad=0.2, handlelength=1.5, columnspacing=1.0)
    axes.grid(axis="y", alpha=0.3)
    plot = Plot(_slug("bars", board.task, board.dataset, board.scoring or "", board.split, board.metric), board.title,
                _png(figure))
    plt.close(figure)
    return plot
