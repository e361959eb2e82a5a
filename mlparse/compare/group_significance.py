"""One system against another, where a system is a group of runs that differ only by seed.

A paired test over sentences (:mod:`mlparse.compare.resampling`) sees one source of noise: which sentences the
test set holds.  Two seeds of one configuration differ by more than that (training is random too), so that test
finds "significant" differences between seeds of one system, and between any two groups of seeds whose means
differ by the usual seed-to-seed spread.  Summing the seeds' per-sentence counts does not help: it shrinks the
difference and the sentence noise alike.  :func:`group_test` therefore compares the **seed means** with a t-test
whose variance holds both sources:

* the seeds': the sample variance of each group's run scores over its number of runs (Welch), which says how far
  another draw of seeds could move each mean;
* the sentences': the variance of the difference of the two means over paired bootstrap samples of the test
  sentences (every run of both groups scored on the same resampled sentences; :func:`sentence_variance`), which
  says how far another test set could move it.

``t = (mean_b - mean_a) / sqrt(s_a²/m + s_b²/k + v_sentences)``, two-sided, with the Welch–Satterthwaite degrees
of freedom of the seed terms (the bootstrap term counted as known).  The seed variance measured on one test set
already holds some sentence noise, so the sum counts that part twice: the test errs on the side of not marking.

The t-test takes the seed scores to be normal.  They need not be: six seeds of the demo recipe after 300 updates
scored 52.76, 52.76, 53.00, 54.97, 55.30 and 56.02 (two clusters), and the t-test puts the three low seeds against
the three high ones at p = 0.00015.  So the t-test is joined by the exact permutation test over seeds
(:mod:`mlparse.compare.seed_permutation`: every way of dealing the ``m + k`` run scores into groups of ``m`` and
``k``; the share whose difference of means is at least the observed one, two-sided), which assumes nothing about
their distribution, and the p-value is the larger of the two (an intersection-union test: B is called different
only when both say so).  The exact test needs seeds: :func:`~mlparse.compare.seed_permutation.permutation_floor`
gives the smallest p it can reach for ``m`` and ``k`` runs, which ``mlparse compare`` and the report print.

* Two groups (``m, k >= 2``): the t-test above and the permutation test.
* One side a single run, the other a group of ``m >= 2``: the run is taken as one more draw of the group's
  seed distribution (its unknown seed variance is the group's): variance ``s²(1 + 1/m) + v_sentences``,
  ``m - 1`` degrees of freedom (a prediction-interval test), and the same rule as between groups: the larger p
  of that t-test and the permutation test (1 run against ``m``: ``m + 1`` dealings).  A system with fewer runs
  is not tested more leniently: a single run against ``m`` seeds cannot go below ``1 / (m + 1)``.
* Both single runs: there is no seed variance to estimate; the paired test over sentences
  (:func:`~mlparse.compare.resampling.randomization` or :func:`~mlparse.compare.resampling.bootstrap`) is all
  that can be done, and the result says so.

The t distribution comes from scipy (a dependency of mlparse); :class:`MissingPackage` names it where it cannot be
imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from mlparse.compare.resampling import CHUNK, METHODS, resample_weights
from mlparse.compare.seed_permutation import MAX_PERMUTATIONS, seed_permutation_p  # noqa: F401 (re-exported)
from mlparse.compare.statistics import SentenceStats

#: What a :class:`GroupTest` was: groups on both sides, a single run against a group, two single runs.
GROUPS, RUN_AGAINST_GROUP, SINGLE_RUNS = "groups", "run-vs-group", "single-runs"
#: The ``method`` of a test with seeds on at least one side.
METHOD_NAMES = {GROUPS: "t-test and exact permutation over seeds",
                RUN_AGAINST_GROUP: "t-test (the run as one more seed) and exact permutation over seeds"}


class MissingPackage(ImportError):
    """A package a test needs cannot be imported; the message names it and how to install it."""


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (scipy); the normal tail for ``df`` = inf."""
    try:
        from scipy.stats import norm, t as student
    except ImportError:
        raise MissingPackage("the seed-group tests need scipy, which mlparse depends on: pip install scipy") from None
    return float(norm.sf(t) if math.isinf(df) else student.sf(t, df))


@dataclass(frozen=True)
class GroupTest:
    """B against A; scores in percent.  ``score_a``/``score_b``: the mean of each group's run scores (each run's
    score recomputed from its per-sentence counts, the value of its ``results.json``); ``delta = score_b - score_a``.

    ``kind`` is :data:`GROUPS`, :data:`RUN_AGAINST_GROUP` or :data:`SINGLE_RUNS`; ``method`` names the test: with
    seeds on one side at least, ``p_value`` is the larger of ``p_t`` (the t-test) and ``p_seeds`` (the exact
    permutation test over seeds).  ``seed_variance`` and ``sentence_variance`` are the two parts
    of the squared standard error (None for single runs), ``df`` the degrees of freedom (inf: the normal).
    """

    kind: str
    method: str
    runs_a: int
    runs_b: int
    scores_a: Sequence[float]
    scores_b: Sequence[float]
    score_a: float
    score_b: float
    delta: float
    p_value: float
    samples: int
    seed: int
    t: Optional[float] = None
    df: Optional[float] = None
    seed_variance: Optional[float] = None
    sentence_variance: Optional[float] = None
    p_t: Optional[float] = None  # with seeds: the t-test's p-value, and the exact permutation test's over seeds
    p_seeds: Optional[float] = None
    ci95: Optional[Tuple[float, float]] = None  # two single runs compared by the paired bootstrap

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "kind": self.kind, "method": self.method, "runs_a": self.runs_a, "runs_b": self.runs_b,
            "scores_a": [round(s, 4) for s in self.scores_a], "scores_b": [round(s, 4) for s in self.scores_b],
            "score_a": round(self.score_a, 4), "score_b": round(self.score_b, 4), "delta": round(self.delta, 4),
            "p_value": self.p_value, "samples": self.samples, "seed": self.seed}
        if self.ci95 is not None:
            out["ci95"] = [round(self.ci95[0], 4), round(self.ci95[1], 4)]
        if self.t is not None:
            out.update(t=round(self.t, 4), df=None if self.df is None or math.isinf(self.df) else round(self.df, 3),
                       seed_variance=self.seed_variance, sentence_variance=self.sentence_variance)
        if self.p_seeds is not None:
            out.update(p_t=self.p_t, p_seeds=self.p_seeds)
        return out


def sentence_variance(a: Sequence[SentenceStats], b: Sequence[SentenceStats], samples: int, seed: int) -> float:
    """The variance of ``mean(B scores) - mean(A scores)`` over paired bootstrap samples of the sentences: each sample
    draws ``n`` sentences with replacement, the same for every run of both groups, and rescores every run on them
    through the scorer's formula (:meth:`SentenceStats.score`)."""
    runs = list(a) + list(b)
    n = runs[0].sentences
    for run in runs:
        if run.counts.shape != runs[0].counts.shape or run.metric != runs[0].metric:
            raise ValueError("the runs are not paired: different sentences or metrics")
    rng = np.random.default_rng(seed)
    counts = [run.counts.astype(np.float64) for run in runs]
    differences: List[np.ndarray] = []
    for start in range(0, samples, CHUNK):
        weights = resample_weights(rng, min(CHUNK, samples - start), n).astype(np.float64)  # (size, n)
        scores = np.stack([runs[0].score(weights @ c) for c in counts])  # (runs, size)
        scores = np.nan_to_num(scores, nan=0.0)  # a resample without a counted item scores 0, as the scorers do
        differences.append(scores[len(a):].mean(axis=0) - scores[:len(a)].mean(axis=0))
    sampled = np.concatenate(differences)
    return float(sampled.var(ddof=1)) if sampled.size > 1 else 0.0


def _sample_variance(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def _p_two_sided(delta: float, seed_parts: Sequence[tuple], v_sentences: float) -> tuple:
    """(t, df, p) for ``delta`` with variance ``sum(part) + v_sentences``; ``seed_parts``: (variance part, its df)."""
    variance = sum(part for part, _ in seed_parts) + v_sentences
    if variance <= 0.0:
        return (0.0 if delta == 0 else math.copysign(math.inf, delta)), math.inf, 1.0 if delta == 0 else 0.0
    denominator = sum(part * part / df for part, df in seed_parts if part > 0)
    df = variance * variance / denominator if denominator > 0 else math.inf
    t = delta / math.sqrt(variance)
    return t, df, min(1.0, 2.0 * student_t_sf(abs(t), df))


def group_test(a: Sequence[SentenceStats], b: Sequence[SentenceStats], samples: int = 10_000, seed: int = 0,
               single_method: str = "randomization") -> GroupTest:
    """System B (its runs' per-sentence counts) against system A (see the module text).  ``samples``: bootstrap
    samples of the sentence variance, or of the paired test between two single runs (``single_method``)."""
    if not a or not b:
        raise ValueError("each side needs at least one run")
    if samples < 2:
        raise ValueError("samples must be at least 2")
    scores_a = [run.corpus_score() for run in a]
    scores_b = [run.corpus_score() for run in b]
    mean_a, mean_b = sum(scores_a) / len(a), sum(scores_b) / len(b)
    if len(a) == 1 and len(b) == 1:
        paired = METHODS[single_method](a[0], b[0], samples, seed)
        return GroupTest(SINGLE_RUNS, single_method, 1, 1, scores_a, scores_b, paired.score_a, paired.score_b,
                         paired.delta, paired.p_value, samples, seed, ci95=paired.ci95)
    v_sentences = sentence_variance(a, b, samples, seed)
    if len(a) > 1 and len(b) > 1:
        kind = GROUPS
        parts = [(_sample_variance(scores_a) / len(a), len(a) - 1), (_sample_variance(scores_b) / len(b), len(b) - 1)]
    else:
        kind = RUN_AGAINST_GROUP
        group = scores_a if len(a) > 1 else scores_b
        parts = [(_sample_variance(group) * (1.0 + 1.0 / len(group)), len(group) - 1)]
    delta = mean_b - mean_a
    t, df, p_t = _p_two_sided(delta, parts, v_sentences)
    p_seeds = seed_permutation_p(scores_a, scores_b, seed)
    return GroupTest(kind, METHOD_NAMES[kind], len(a), len(b), scores_a, scores_b, mean_a, mean_b, delta,
                     max(p_t, p_seeds), samples, seed, t, df, sum(part for part, _ in parts), v_sentences, p_t=p_t,
                     p_seeds=p_seeds)
