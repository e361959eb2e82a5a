"""Paired randomization and bootstrap over per-sentence statistics (mlparse/compare/resampling.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evalb.results import SummaryBlock
from mlparse.compare.resampling import bootstrap, holm, randomization, swap_differences
from mlparse.compare.statistics import SentenceStats


def _stats(seed: int, n: int, metric: str = "f1") -> tuple:
    rng = np.random.default_rng(seed)
    gold = rng.integers(3, 15, n)
    test_a, test_b = gold + rng.integers(-2, 3, n), gold + rng.integers(-2, 3, n)
    matched_a = np.maximum(np.minimum(gold, test_a) - rng.integers(0, 4, n), 0)
    matched_b = np.maximum(np.minimum(gold, test_b) - rng.integers(0, 2, n), 0)
    return (SentenceStats(metric, np.stack([matched_a, gold, test_a], 1)),
            SentenceStats(metric, np.stack([matched_b, gold, test_b], 1)))


def _evalb_f1(rows) -> float:  # the scorer's own summary object, from Python integers
    block = SummaryBlock(matched_brackets=int(sum(r[0] for r in rows)), gold_brackets=int(sum(r[1] for r in rows)),
                         test_brackets=int(sum(r[2] for r in rows)))
    return block.fmeasure


def _exact_p(a: SentenceStats, b: SentenceStats) -> float:
    """The exact permutation test by brute force: every one of the 2^n swaps, scored by evalb's SummaryBlock."""
    rows_a, rows_b = a.counts.tolist(), b.counts.tolist()
    observed = abs(_evalb_f1(rows_b) - _evalb_f1(rows_a))
    hits = 0
    for mask in itertools.product((0, 1), repeat=len(rows_a)):
        new_a = [rb if m else ra for ra, rb, m in zip(rows_a, rows_b, mask)]
        new_b = [ra if m else rb for ra, rb, m in zip(rows_a, rows_b, mask)]
        hits += abs(_evalb_f1(new_b) - _evalb_f1(new_a)) >= observed - 1e-9
    return hits / 2 ** len(rows_a)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomization_equals_the_exact_permutation_test(seed: int) -> None:
    a, b = _stats(seed, 10)
    exact = _exact_p(a, b)
    every = np.array(list(itertools.product((0, 1), repeat=10)), dtype=np.uint8)
    vectorised = np.abs(swap_differences(a, b, every))
    observed = abs(b.corpus_score() - a.corpus_score())
    assert np.count_nonzero(vectorised >= observed - 1e-9) / 2 ** 10 == exact  # the same statistic, all swaps
    sampled = randomization(a, b, samples=40_000, seed=seed)
    assert abs(sampled.p_value - exact) < 0.015  # Monte Carlo error of 40,000 shuffles: about 0.0025


def test_identical_outputs_give_p_one() -> None:
    a, _ = _stats(3, 200)
    for test in (randomization, bootstrap):
        result = test(a, SentenceStats("f1", a.counts.copy()), samples=500, seed=1)
        assert result.p_value == 1.0 and result.delta == 0.0


def test_a_copy_that_differs_in_one_sentence() -> None:
    a, _ = _stats(4, 300)
    counts = a.counts.copy()
    counts[17, 0] -= 1  # one bracket fewer matched in one sentence
    b = SentenceStats("f1", counts)
    result = randomization(a, b, samples=2000, seed=3)
    assert result.delta < 0 and result.delta == pytest.approx(b.corpus_score() - a.corpus_score())
    # a shuffle either keeps sentence 17 (the same difference) or swaps it (the difference negated): every
    # shuffle is as extreme as the observed one, so a one-sentence difference is never significant
    assert result.p_value == 1.0


def test_a_clear_difference_is_significant_and_the_interval_excludes_zero() -> None:
    a, _ = _stats(5, 400)
    counts = a.counts.copy()
    counts[:, 0] = counts[:, 1]  # B matches every gold bracket
    counts[:, 2] = counts[:, 1]
    b = SentenceStats("f1", counts)
    assert randomization(a, b, samples=1000, seed=0).p_value == pytest.approx(1 / 1001)
    boot = bootstrap(a, b, samples=1000, seed=0)
    low, high = boot.ci95
    assert 0 < low < boot.delta < high
    assert boot.p_value == pytest.approx(1 / 1001)


def test_bootstrap_interval_matches_a_plain_loop() -> None:
    a, b = _stats(6, 50)
    result = bootstrap(a, b, samples=300, seed=9)
    rng = np.random.default_rng(9)  # the same draws, one sample at a time, scored by evalb's SummaryBlock
    drawn = rng.integers(0, 50, size=(300, 50))
    deltas = [_evalb_f1(b.counts[row].tolist()) - _evalb_f1(a.counts[row].tolist()) for row in drawn]
    assert result.ci95 == pytest.approx(tuple(np.percentile(deltas, [2.5, 97.5])), abs=1e-9)


def test_determinism_under_a_seed() -> None:
    a, _ = _stats(7, 500)
    counts = a.counts.copy()
    counts[::9, 0] = np.maximum(counts[::9, 0] - 1, 0)  # a small difference: p well inside (0, 1)
    counts[4::13, 0] = np.minimum(counts[4::13, 0] + 1, counts[4::13, 1])
    b = SentenceStats("f1", counts)
    for test in (randomization, bootstrap):
        first, again, other = test(a, b, 3000, seed=11), test(a, b, 3000, seed=11), test(a, b, 3000, seed=12)
        assert first == again
        assert (first.p_value, first.ci95) != (other.p_value, other.ci95)


def test_dependency_metric_uses_depeval_formula() -> None:
    from depeval import Metric

    counts = np.array([[3, 4, 4], [5, 6, 5], [0, 2, 3]])
    stats = SentenceStats("las", counts)
    assert stats.corpus_score() == 100.0 * Metric.of(8, 12, 12).f1
    assert stats.score(counts.sum(axis=0)) == stats.corpus_score()


def test_holm() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([0.2]) == [0.2]
