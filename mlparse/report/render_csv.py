"""CSV report in long ("tidy") form: one score per line, stable order, fixed decimals.

Columns: section, task, dataset, split, language, system, kind, source, metric, value, state, note.
``section`` is ``leaderboard`` (including the ``average`` language, the ``delta`` kind and, below a
mean over seeds, one ``seed`` line per seed with its run) or ``run`` (every run folder's scores, their
scorer, speed, training time and hardware).
A dependency leaderboard's ``dataset`` carries its scoring convention, ``ud (conll18)`` or
``ptb-sd (ptb)``: scores counted differently are different columns.
"""

from __future__ import annotations

import csv
import io
from typing import List, Optional

from mlparse.report.details import SPLIT_METRICS
from mlparse.report.model import Report, fmt_hardware

HEADER = ["section", "task", "dataset", "split", "language", "system", "kind", "source", "metric", "value",
          "state", "note"]


def _number(value: Optional[float], decimals: int = 2) -> str:
    return "" if value is None else f"{value:.{decimals}f}"


def csv_rows(report: Report) -> List[List[str]]:
    rows: List[List[str]] = []
    for board in report.leaderboards:
        base = ["leaderboard", board.task, board.dataset_key, board.split]
        for row in board.rows:
            source = row.citation.short() if row.citation is not None else row.source
            for language in board.languages:
                cell = row.cells.get(language)
                if cell is None:
                    continue
                spread = (f"mean of {cell.n} seeds, standard deviation {_number(cell.std)}"
                          if cell.n > 1 and cell.std is not None else "")
                rows.append(base + [language, row.system, row.kind, cell.run or source, board.metric,
                                    _number(cell.value), cell.state or "", cell.note or spread])
                if len(cell.seeds) > 1:  # every seed's own score below the mean
                    for score in cell.seeds:
                        rows.append(base + [language, row.system, "seed", score.run, board.metric,
                                            _number(score.value), "",
                                            f"seed {score.seed}" if score.seed is not None else ""])
            if board.show_average and row.average is not None:
                rows.append(base + ["average", row.system, row.kind, source, board.metric, _number(row.average), ""])
        for language in board.languages:
            if language in board.delta:
                rows.append(base + [language, "Δ best measured − best published", "delta", "", board.metric,
                                    _number(board.delta[language]), ""])
        if board.delta_average is not None:
            rows.append(base + ["average", "Δ best measured − best published", "delta", "", board.metric,
                                _number(board.delta_average), ""])
    for record in report.records:
        results = record.results
        task = results.task if results else ""
        dataset = results.dataset if results else ""
        language = results.language if results else ""
        system = results.system if results else ""
        base = ["run", task, dataset]
        wrote = False
        for split in ("dev", "test"):
            scores = record.split(split)
            for metric, _ in SPLIT_METRICS:
                value = getattr(scores, metric, None) if scores is not None else None
                if value is not None:
                    rows.append(base + [split, language, system, "measured", record.label, metric,
                                        _number(value), record.state])
                    wrote = True
            if scores is not None and scores.scorer:
                rows.append(base + [split, language, system, "measured", record.label, "scorer", scores.scorer,
                                    record.state])
        if results is not None:
            extras = [("parse_sentences_per_second", _number(results.parse_sentences_per_second, 1)),
                      ("training_seconds", _number(results.training_seconds, 0)),
                      ("hardware", fmt_hardware(results.hardware) if results.hardware else "")]
            for metric, value in extras:
                if value:
                    rows.append(base + ["", language, system, "measured", record.label, metric, value, record.state])
                    wrote = True
        # every run folder appears, with its state, its problems and its training notes
        training_notes = results.notes if results is not None else []
        if not wrote or record.error or record.warnings or training_notes:
            rows.append(base + ["", language, system, "measured", record.label, "", "", record.state,
                                "; ".join(([record.error] if record.error else []) + record.warnings + training_notes)])
    width = len(HEADER)
    return [row + [""] * (width - len(row)) for row in rows]


def render_csv(report: Report) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(csv_rows(report))
    return buffer.getvalue()
