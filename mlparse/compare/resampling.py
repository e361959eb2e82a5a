"""Paired significance tests over per-sentence statistics, vectorised with NumPy.

* :func:`randomization`: paired approximate randomization, two-sided (Noreen 1989; the test of Bikel's
  parsing comparator).  Each shuffle exchanges the two systems' outputs of every sentence with
  probability 1/2; ``r`` counts the shuffles whose absolute score difference is at least the observed
  one, and ``p = (r + 1) / (R + 1)``.
* :func:`bootstrap`: the paired bootstrap (Koehn 2004; Berg-Kirkpatrick et al. 2012).  Each sample
  draws ``n`` sentences with replacement, the same ones for both systems; the 95% interval of the
  difference is the 2.5th and 97.5th percentile of the sampled differences, and the two-sided p-value
  counts the samples whose difference strays from the observed one by at least the observed one
  (the null hypothesis shifted to the observed mean, as Berg-Kirkpatrick et al.).
* :func:`holm`: Holm-Bonferroni adjustment of several p-values.

Every resample's score is recomputed from summed counts through the scorer's own formula
(:meth:`~mlparse.compare.statistics.SentenceStats.score`).  Samples are drawn in fixed-size chunks from
``numpy.random.default_rng(seed)``, so the same seed gives the same result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np

from mlparse.compare.statistics import SentenceStats

#: Resamples drawn per matrix product (memory: CHUNK x sentences bytes of swap bits, 8x that as float64).
CHUNK = 1024
#: Differences this close to the observed one count as "at least as large" (float rounding).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class TestResult:
    """One paired test of B against A.  Scores in percent; ``delta = score_b - score_a`` (unrounded)."""

    method: str  # randomization | bootstrap
    samples: int
    seed: int
    score_a: float
    score_b: float
    delta: float
    p_value: float
    ci95: Optional[Tuple[float, float]] = None  # bootstrap only


def _check(a: SentenceStats, b: SentenceStats) -> None:
    if a.metric != b.metric:
        raise ValueError(f"cannot compare {a.metric} with {b.metric}")
    if a.counts.shape != b.counts.shape:
        raise ValueError(f"the two systems have {a.sentences} and {b.sentences} sentences: not paired")


def _chunks(samples: int) -> Iterator[int]:
    left = samples
    while left > 0:
        yield min(CHUNK, left)
        left -= CHUNK


def swap_differences(a: SentenceStats, b: SentenceStats, swaps: np.ndarray) -> np.ndarray:
    """Score differences (B' - A') after exchanging, per row of ``swaps``, the sentences marked 1.

    ``swaps``: shape ``(R, n)``, 0/1 (or bool).  Returns float64 of shape ``(R,)``.
    """
    moved = swaps.astype(np.float64) @ (b.counts - a.counts).astype(np.float64)  # (R, 3)
    return a.score(b.totals() - moved) - a.score(a.totals() + moved)


def randomization(a: SentenceStats, b: SentenceStats, samples: int = 10_000, seed: int = 0) -> TestResult:
    """Paired approximate randomization test, two-sided (see the module text)."""
    _check(a, b)
    if samples < 1:
        raise ValueError("samples must be at least 1")
    score_a, score_b = a.corpus_score(), b.corpus_score()
    observed = abs(score_b - score_a)
    rng = np.random.default_rng(seed)
    n = a.sentences
    at_least = 0
    for size in _chunks(samples):
        bits = rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8)
        swaps = np.unpackbits(bits, axis=1, count=n)
        at_least += int(np.count_nonzero(np.abs(swap_differences(a, b, swaps)) >= observed - TOLERANCE))
    return TestResult("randomization", samples, seed, score_a, score_b, score_b - score_a,
                      (at_least + 1) / (samples + 1))


def resample_weights(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    """``size`` bootstrap samples of ``n`` sentences: how often each sentence is drawn, shape ``(size, n)``."""
    drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
    return np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n)


def bootstrap(a: SentenceStats, b: SentenceStats, samples: int = 10_000, seed: int = 0) -> TestResult:
    """Paired bootstrap with a 95% percentile interval of ``score_b - score_a`` (see the module text)."""
    _check(a, b)
    if samples < 1:
        raise ValueError("samples must be at least 1")
    score_a, score_b = a.corpus_score(), b.corpus_score()
    delta = score_b - score_a
    rng = np.random.default_rng(seed)
    n = a.sentences
    ca, cb = a.counts.astype(np.float64), b.counts.astype(np.float64)
    deltas: List[np.ndarray] = []
    for size in _chunks(samples):
        weights = resample_weights(rng, size, n).astype(np.float64)
        deltas.append(a.score(weights @ cb) - a.score(weights @ ca))
    sampled = np.concatenate(deltas)
    at_least = int(np.count_nonzero(np.abs(sampled - delta) >= abs(delta) - TOLERANCE))
    low, high = np.percentile(sampled, [2.5, 97.5])
    return TestResult("bootstrap", samples, seed, score_a, score_b, delta, (at_least + 1) / (samples + 1),
                      (float(low), float(high)))


def holm(p_values: Sequence[float]) -> List[float]:
    """Holm-Bonferroni adjusted p-values, in the order given (step-down, monotone, capped at 1)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda k: p_values[k])
    adjusted = [0.0] * m
    running = 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[k]))
        adjusted[k] = running
    return adjusted


METHODS = {"randomization": randomization, "bootstrap": bootstrap}
