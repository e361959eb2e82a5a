"""Report plots as PNG bytes (matplotlib, Agg backend): dev-F1 curves and per-language bars."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import List, Optional

from mlparse.report.leaderboard import MEASURED, PUBLISHED, Leaderboard
from mlparse.report.model import Report


@dataclass
class Plot:
    name: str  # file stem, e.g. "dev-f1-constituency-spmrl"
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


def dev_curve_plots(report: Report) -> List[Plot]:
    """One figure per (task, dataset): dev F1 against optimizer steps, one line per run with a log."""
    plt = _pyplot()
    groups: dict = {}
    for record in report.records:
        if not record.log:
            continue
        results = record.results
        key = (results.task, results.dataset or "?") if results else ("unknown", "?")
        groups.setdefault(key, []).append(record)
    plots = []
    for (task, dataset), records in sorted(groups.items()):
        figure, axes = plt.subplots(figsize=(7, 4))
        for record in records:
            steps = [entry.step for entry in record.log]
            scores = [entry.dev_f1 for entry in record.log]
            label = f"{record.label} ({record.state})" if record.state != "complete" else record.label
            (line,) = axes.plot(steps, scores, marker=".", linewidth=1.2, label=label)
            best = max(range(len(scores)), key=scores.__getitem__)
            axes.plot([steps[best]], [scores[best]], marker="*", markersize=11, color=line.get_color())
        axes.set_xlabel("optimizer step")
        axes.set_ylabel("dev F1")
        axes.set_title(f"Dev F1 during training — {task}, {dataset}")
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8, loc="lower right")
        plots.append(Plot(_slug("dev-f1", task, dataset), f"Dev F1 during training ({task}, {dataset})",
                          _png(figure)))
        plt.close(figure)
    return plots


def bar_plot(board: Leaderboard) -> Optional[Plot]:
    """Per language: the best measured score beside the best published one (None without measured values)."""
    measured = board.measured_rows()
    if not any(cell.value is not None for row in measured for cell in row.cells.values()):
        return None
    plt = _pyplot()

    def best(kind: str, language: str) -> Optional[float]:
        values = [row.cells[language].value for row in board.rows
                  if row.kind == kind and language in row.cells and row.cells[language].value is not None]
        return max(values) if values else None  # type: ignore[type-var]

    languages = board.languages
    ours = [best(MEASURED, language) for language in languages]
    theirs = [best(PUBLISHED, language) for language in languages]
    figure, axes = plt.subplots(figsize=(max(4.0, 0.9 * len(languages) + 2), 3.8))
    width = 0.38
    xs = range(len(languages))
    axes.bar([x - width / 2 for x in xs], [v if v is not None else 0 for v in ours], width,
             label="mlparse (measured)", color="#2b6cb0")
    if any(v is not None for v in theirs):
        axes.bar([x + width / 2 for x in xs], [v if v is not None else 0 for v in theirs], width,
                 label="best published", color="#a0aec0", hatch="//", edgecolor="white")
    present = [v for v in ours + theirs if v is not None]
    axes.set_ylim(max(0.0, min(present) - 5), min(100.0, max(present) + 2))
    axes.set_xticks(list(xs))
    axes.set_xticklabels([language.capitalize() for language in languages], rotation=30, ha="right")
    axes.set_ylabel(board.metric.upper() if board.metric != "f1" else "F1")
    axes.set_title(board.title)
    axes.legend(fontsize=8)
    axes.grid(axis="y", alpha=0.3)
    plot = Plot(_slug("bars", board.task, board.dataset, board.split, board.metric), board.title, _png(figure))
    plt.close(figure)
    return plot


def report_plots(report: Report) -> List[Plot]:
    """Every plot of the report: per-language bars per leaderboard, then dev curves."""
    bars = [plot for plot in (bar_plot(board) for board in report.leaderboards) if plot is not None]
    return bars + dev_curve_plots(report)
