"""Plots of the breakdowns that ``mlparse analyze errors RUN`` left in a run directory (``analysis/errors-SPLIT.json``).

For each run shown on the leaderboards that has one: constituency, the bracket errors per error class
(Kummerfeld et al. 2012) beside F1 by sentence length; dependency, LAS recall by arc length beside LAS F1
of the ten most frequent relations.  The figure is named by the run's system, differing settings and
seed, like the dev curves.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from mlparse.report.model import Report
from mlparse.report.plots import Plot, _png, _pyplot, _slug, run_names
from mlparse.run_dir import RunDir
from mlparse.tasks import find_task



def _table(data: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    return next((t for t in data.get("tables", []) if isinstance(t, dict) and t.get("name") == name), None)


def _bars(axes, table: Optional[Dict[str, Any]], column: str, title: str, limit: Optional[int] = None,
          horizontal: bool = False) -> None:  # type: ignore[no-untyped-def]
    rows = [r for r in (table or {}).get("rows", []) if isinstance(r, dict) and r.get(column) is not None
            and (r.get("gold") or r.get(column))]
    rows = rows[:limit] if limit else rows
    keys = [str(r.get("key")) for r in rows]
    values = [float(r[column]) for r in rows]
    if horizontal:
        axes.barh(keys[::-1], values[::-1], color="#2b6cb0")
    else:
        axes.bar(keys, values, color="#2b6cb0")
        axes.tick_params(axis="x", rotation=30)
    axes.set_title(title, fontsize=10)
    axes.grid(alpha=0.3, axis="x" if horizontal else "y")


def breakdown_plots(report: Report) -> List[Plot]:
    """One figure per shown run with a breakdown file for the report's split."""
    shown = set(report.selected)
    names = run_names(report)
    plots = []
    plt = None
    for record in report.records:
        path = RunDir(record.run_dir).errors(report.split)
        if record.label not in shown or not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            record.warnings.append(f"{path}: cannot read the breakdown ({error}); not plotted")
            continue
        owner = find_task(data.get("task")) if isinstance(data, dict) else None
        if owner is None or not owner.compared:  # breakdowns are of the tasks mlparse compare takes
            continue
        plt = plt or _pyplot()
        figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
        name = names.get(record.label, record.label)
        if owner.scorer == "evalb":
            _bars(left, _table(data, "error_classes"), "errors", "bracket errors by class (Kummerfeld et al. 2012)",
                  horizontal=True)
            _bars(right, _table(data, "sentence_length"), "f1", "F1 by sentence length (words)")
        else:
            _bars(left, _table(data, "arc_length"), "recall", "LAS recall by arc length")
            _bars(right, _table(data, "relations"), "f1", "LAS F1 of the 10 most frequent relations", limit=10)
        figure.suptitle(f"{name}: {report.split} breakdown")
        figure.tight_layout()
        plots.append(Plot(_slug("errors", report.split, name), f"Breakdown of {name} ({report.split})", _png(figure)))
        plt.close(figure)
    return plots
