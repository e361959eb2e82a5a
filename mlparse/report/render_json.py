"""JSON report: everything the other formats show, machine-readable, with stable key order."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any, Dict

from mlparse.compare.marks import legend_lines
from mlparse.report.macro import macro_json
from mlparse.report.model import Report


def _finite(value: Any) -> Any:
    """NaN/inf are not JSON; log entries use NaN for missing values."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def report_dict(report: Report) -> Dict[str, Any]:
    citations = [{"number": n, "paper": c.paper.short, "reference": c.paper.reference(), "table": c.table,
                  "split": c.split, "caption": c.caption, "metrics": list(c.metrics), "id": c.table_id}
                 for n, c in enumerate(report.citations, 1)]
    boards = []
    for board in report.leaderboards:
        boards.append({
            "task": board.task, "dataset": board.dataset, "scoring": board.scoring,
            "evalb_params": board.evalb_params, "split": board.split,
            "metric": board.metric,
            "languages": board.languages,
            "rows": [{
                "system": row.system, "kind": row.kind, "external": row.external, "source": row.source,
                "group": row.group,
                "citation": report.citation_number(row.citation) if row.citation is not None else None,
                "scores": {language: asdict(cell) for language, cell in row.cells.items()},
                "average": row.average,
            } for row in board.rows],
            "delta": board.delta, "delta_average": board.delta_average, "legend": legend_lines(board),
        })
    runs = [{
        "recipe": record.recipe, "run_id": record.run_id, "dir": record.run_dir.as_posix(), "state": record.state,
        "selected": record.label in report.selected, "scoring": record.scoring,
        "evalb_params": record.evalb_params,
        "results": record.results.to_json_dict() if record.results is not None else None,
        "log": [entry.to_json_dict() for entry in record.log],
        "warnings": record.warnings, "notes": record.notes,
    } for record in report.records]
    return _finite({
        "generator": report.generator, "runs_dir": report.runs_dir.as_posix(), "split": report.split,
        "select": report.select, "leaderboards": boards, "runs": runs, "citations": citations,
        "warnings": report.warnings, "macro_averages": macro_json(report),
    })


def render_json(report: Report) -> str:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
