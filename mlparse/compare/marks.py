"""The report's significance marks: leaderboard cells significantly worse than their column's best run.

For every language column of a leaderboard, the measured cells of complete runs are tested against the
column's best one with the paired randomization test (:func:`mlparse.compare.resampling.randomization`,
:data:`SAMPLES` shuffles, :data:`SEED`), on the run's predictions of the leaderboard's split against the
same gold file (sha256).  A cell whose run has no predictions, or another gold file, is left untested
(``Cell.significance`` stays None); published rows have no predictions and are never tested.  A mean over
seeds is tested seed by seed against the best cell's best seed, and marked only when every seed's run is
significantly worse (``Cell.significance`` is then the largest of their p-values).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: The test behind a mark.
SAMPLES = 10_000
SEED = 12345
ALPHA = 0.05
#: The mark and its legend (renderers print the legend under a leaderboard that has tested cells).
MARK = "▾"
LEGEND = (f"{MARK} significantly worse than the column's best run (paired randomization, {SAMPLES:,} shuffles, "
          f"p < {ALPHA}, same gold file, against the best cell's best seed; a mean over seeds only when every "
          f"seed is); cells without predictions, and published rows, are not tested")

#: Leaderboard metric -> the metric of mlparse.compare.statistics.
_METRICS = {"f1": "f1", "recall": "lr", "precision": "lp", "uas": "uas", "las": "las", "clas": "clas", "mlas": "mlas",
            "blex": "blex"}


def _stats(run_dir: Path, split: str, metric: str, cache: Dict[Any, Any]) -> Optional[Any]:
    """(gold sha256, SentenceStats) of a run, or None when it cannot be tested."""
    from mlparse.compare.comparison import metric_rows
    from mlparse.compare.runs import CompareError, load_ref
    from mlparse.compare.statistics import stats_from_rows

    key = (run_dir, split, metric)
    if key not in cache:
        try:
            ref = load_ref(run_dir)
            if not ref.pred(split).is_file():
                raise CompareError("no predictions")
            cache[key] = (ref.gold_sha256(split), stats_from_rows(metric, metric_rows(ref, split, metric)))
        except (CompareError, OSError, ValueError, KeyError):
            cache[key] = None
    return cache[key]


def _seed_runs(cell: Any) -> List[Tuple[str, float]]:
    """(run label, score) of every seed behind a cell; the cell's own run when it lists none."""
    seeds = [(s.run, s.value) for s in getattr(cell, "seeds", []) if s.run and s.value is not None]
    return seeds or [(cell.run, cell.value)]


def mark_leaderboards(boards: Sequence[Any], records: Sequence[Any], split: str, samples: int = SAMPLES,
                      seed: int = SEED) -> int:
    """Set ``Cell.significance`` (p-value against the column's best run) and ``Cell.worse`` on every tested cell
    of ``boards``; returns how many cells were tested.  ``records``: the report's runs (to find run folders)."""
    from mlparse.compare.resampling import randomization

    folders = {record.label: record.run_dir for record in records}
    cache: Dict[Any, Any] = {}
    tested = 0
    for board in boards:
        metric = _METRICS.get(board.metric)
        if metric is None:
            continue
        for language in board.languages:
            cells = [row.cells[language] for row in board.measured_rows() if language in row.cells]
            cells = [c for c in cells if c.state is None and c.value is not None and c.run in folders]
            if len(cells) < 2:
                continue
            best = max(cells, key=lambda c: c.value)
            best_run = max(_seed_runs(best), key=lambda seed: seed[1])[0]
            best_stats = _stats(folders.get(best_run, folders[best.run]), split, metric, cache)
            if best_stats is None:
                continue
            for cell in cells:
                if cell is best:
                    continue
                p_values = []
                for run, _ in _seed_runs(cell):
                    other = _stats(folders[run], split, metric, cache) if run in folders else None
                    if other is None or other[0] != best_stats[0]:
                        p_values = []
                        break
                    result = randomization(best_stats[1], other[1], samples, seed)
                    p_values.append(result.p_value if result.delta < 0 else 1.0)
                if p_values:
                    cell.significance = max(p_values)
                    cell.worse = cell.significance < ALPHA
                    tested += 1
    return tested


def legend_lines(board: Any) -> List[str]:
    """The legend under a leaderboard when any of its cells was tested."""
    tested = any(getattr(cell, "significance", None) is not None for row in board.rows for cell in row.cells.values())
    return [LEGEND] if tested else []
