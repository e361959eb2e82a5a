"""Per-sentence sufficient statistics and the corpus metric recomputed from their totals.

A :class:`SentenceStats` holds one row of counts per gold sentence, as the scorer itself gives them:

* constituency (evalb port): ``(matched, gold, test)`` brackets after the parameter file's deletions
  (:meth:`evalb.EvalbResult.sentence_counts`); metrics ``f1``, ``lr``, ``lp``;
* dependency (depeval): ``(correct, gold_total, system_total)`` words (:func:`depeval.sentence_counts`);
  metrics ``uas``, ``las``, ``clas``, ``mlas``, ``blex``.

:meth:`SentenceStats.score` turns totals (of any shape ``(..., 3)``) into the metric in percent through
the scorer's own formula (:func:`evalb.bracket_scores`, :func:`depeval.ratios`), so a resample's score is
the score the scorer would print for those sentences.  No second implementation of a metric.  Where the
formula is undefined (no bracket matched: precision and recall 0, so ``2PR/(P+R)`` is 0/0; evalb prints
``-nan``) the score is 0, as ``results.json`` records it (:func:`mlparse.tasks.evalb_scoring.score_lines`),
so that a system with no matched bracket scores 0 in ``mlparse compare`` too and two such systems do not differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

#: Metrics per task, and the column of the scorer's tuple they read.
CONSTITUENCY_METRICS = {"lr": 0, "lp": 1, "f1": 2}  # evalb.bracket_scores -> (recall, precision, F-measure)
DEPENDENCY_METRICS = {"uas": "UAS", "las": "LAS", "clas": "CLAS", "mlas": "MLAS", "blex": "BLEX"}
METRICS = tuple(CONSTITUENCY_METRICS) + tuple(DEPENDENCY_METRICS)


def metric_task(metric: str) -> str:
    """``constituency`` or ``dependency``: the task whose scorer computes ``metric``."""
    if metric in CONSTITUENCY_METRICS:
        return "constituency"
    if metric in DEPENDENCY_METRICS:
        return "dependency"
    raise ValueError(f"unknown metric {metric!r}; metrics: {', '.join(METRICS)}")


@dataclass(frozen=True)
class SentenceStats:
    """Counts per sentence for one metric.

    ``counts``: int64 array of shape ``(n_sentences, 3)`` (see the module text for the columns).
    """

    metric: str
    counts: np.ndarray

    @property
    def sentences(self) -> int:
        return int(self.counts.shape[0])

    def totals(self) -> np.ndarray:
        """Column sums, shape ``(3,)``: the corpus counts."""
        return self.counts.sum(axis=0)

    def score(self, totals: np.ndarray) -> np.ndarray:
        """The metric in percent for totals of shape ``(..., 3)`` (float64 of shape ``(...)``).

        Each element is exactly what the scorer computes (before rounding) from those counts; 0 where that is
        undefined (a zero denominator: the scorers' own rule for a ratio, and ``results.json``'s for F1).
        """
        totals = np.asarray(totals, dtype=np.float64)
        a, b, c = totals[..., 0], totals[..., 1], totals[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.metric in CONSTITUENCY_METRICS:
                from evalb import bracket_scores

                value = np.asarray(bracket_scores(a, b, c)[CONSTITUENCY_METRICS[self.metric]], dtype=np.float64)
            else:
                from depeval import ratios

                value = 100.0 * np.asarray(ratios(a, b, c)[2], dtype=np.float64)
        return np.where(np.isnan(value), 0.0, value)

    def corpus_score(self) -> float:
        """The corpus metric in percent, as the scorer computes it (Python scalars, not arrays); 0 where that is
        undefined, as :meth:`score`."""
        matched, gold, test = (int(v) for v in self.totals())
        if self.metric in CONSTITUENCY_METRICS:
            from evalb import bracket_scores

            value = float(bracket_scores(matched, gold, test)[CONSTITUENCY_METRICS[self.metric]])
        else:
            from depeval import ratios

            value = 100.0 * ratios(matched, gold, test)[2]
        return 0.0 if value != value else value


def stats_from_rows(metric: str, rows: Sequence[Tuple[int, int, int]]) -> SentenceStats:
    """A :class:`SentenceStats` from the scorer's per-sentence tuples."""
    counts = np.asarray(list(rows), dtype=np.int64).reshape(-1, 3)
    return SentenceStats(metric, counts)


def stats_by_metric(rows_by_metric: Dict[str, List[Tuple[int, int, int]]]) -> Dict[str, SentenceStats]:
    """Every metric of a task's per-sentence counts (:meth:`mlparse.tasks.base.Task.sentence_counts`)."""
    return {metric: stats_from_rows(metric, rows) for metric, rows in rows_by_metric.items()}
