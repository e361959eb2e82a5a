"""Tests over the run scores of groups of seeds: Welch's t-test (scipy) and Almost Stochastic Order (deepsig; Dror et
al. 2019), each corrected over the systems compared with one reference.

Both come from maintained packages that mlparse depends on; where one cannot be imported the result names it
(``missing``) instead of a number.  ASO gives ε_min, an upper bound of the violation ratio of "B is stochastically
better than A"; B is taken as better when ε_min is below a threshold, :data:`DEFAULT_ASO_THRESHOLD` unless
configured (deepsig's authors now recommend 0.2: at 0.5 the test finds too many differences that are not there).
Several systems against one reference are corrected by Holm's step-down: Welch's p-values directly
(:func:`mlparse.compare.resampling.holm`); ASO through deepsig's ``num_comparisons`` (a Bonferroni adjustment of its
confidence level): the comparison with the smallest ε_min is made again as one of ``m``, the next as one of ``m - 1``,
and so on, each corrected ε_min at least the one before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

#: B is "almost stochastically better" than A when its ε_min is below this.
DEFAULT_ASO_THRESHOLD = 0.2
#: deepsig's confidence level for one comparison.
ASO_CONFIDENCE = 0.95


@dataclass(frozen=True)
class SeedGroupTest:
    """Two groups of per-run scores (percent), one run per seed.

    ``welch_p``: two-sided p-value of Welch's t-test (unequal variances), ``welch_p_holm`` corrected over the
    comparisons made together; ``aso_eps_min``: deepsig's ε_min for "B is better than A" at one comparison's confidence
    level, ``aso_eps_min_holm`` corrected.  None where the package is missing (``missing`` names it), and
    ``welch_p`` where neither group varies.
    """

    scores_a: Sequence[float]
    scores_b: Sequence[float]
    aso_threshold: float = DEFAULT_ASO_THRESHOLD
    welch_p: Optional[float] = None
    welch_p_holm: Optional[float] = None
    aso_eps_min: Optional[float] = None
    aso_eps_min_holm: Optional[float] = None
    missing: Optional[str] = None

    @property
    def aso_b_better(self) -> Optional[bool]:
        """Whether B almost stochastically dominates A (corrected ε_min below the threshold); None without ASO."""
        return None if self.aso_eps_min_holm is None else self.aso_eps_min_holm < self.aso_threshold

    def to_json(self) -> dict:
        return {"scores_a": list(self.scores_a), "scores_b": list(self.scores_b), "welch_p": self.welch_p,
                "welch_p_holm": self.welch_p_holm, "aso_eps_min_b_over_a": self.aso_eps_min,
                "aso_eps_min_holm": self.aso_eps_min_holm, "aso_threshold": self.aso_threshold,
                "aso_confidence": ASO_CONFIDENCE, "aso_b_better": self.aso_b_better, "missing": self.missing}


def _welch(scores_a: Sequence[float], scores_b: Sequence[float]) -> Optional[float]:
    from scipy.stats import ttest_ind

    p = float(ttest_ind(list(scores_b), list(scores_a), equal_var=False).pvalue)
    return None if p != p else p  # NaN: no variance in either group


def _aso(scores_a: Sequence[float], scores_b: Sequence[float], comparisons: int, seed: int, iterations: int) -> float:
    from deepsig import aso

    return float(aso(list(scores_b), list(scores_a), confidence_level=ASO_CONFIDENCE, num_comparisons=comparisons,
                     seed=seed, show_progress=False, num_bootstrap_iterations=iterations))


def _holm_aso(pairs: Sequence[Tuple[Sequence[float], Sequence[float]]], first: Sequence[float], seed: int,
              iterations: int) -> List[float]:
    """Holm's step-down over ASO's ε_min (see the module text); ``first``: each pair's ε_min at one comparison."""
    m = len(pairs)
    order = sorted(range(m), key=lambda k: first[k])
    corrected = [0.0] * m
    running = 0.0
    for rank, k in enumerate(order):
        eps = first[k] if m - rank == 1 else _aso(pairs[k][0], pairs[k][1], m - rank, seed, iterations)
        running = max(running, eps)
        corrected[k] = running
    return corrected


def seed_group_tests(pairs: Sequence[Tuple[Sequence[float], Sequence[float]]], seed: int, aso_iterations: int = 1000,
                     aso_threshold: float = DEFAULT_ASO_THRESHOLD) -> List[Optional[SeedGroupTest]]:
    """Welch and ASO of B over A for every (scores A, scores B) of ``pairs``, corrected over those with at least two
    runs on both sides (the others get None); ``aso_iterations``: deepsig's bootstrap iterations."""
    tested = [k for k, (a, b) in enumerate(pairs) if len(a) >= 2 and len(b) >= 2]
    out: List[Optional[SeedGroupTest]] = [None] * len(pairs)
    if not tested:
        return out
    from mlparse.compare.resampling import holm

    chosen = [(list(pairs[k][0]), list(pairs[k][1])) for k in tested]
    try:
        welch = [_welch(a, b) for a, b in chosen]
    except ImportError:
        for k, (a, b) in zip(tested, chosen):
            out[k] = SeedGroupTest(a, b, aso_threshold, missing="scipy (pip install scipy)")
        return out
    present = [p for p in welch if p is not None]
    adjusted = iter(holm(present))
    welch_holm = [next(adjusted) if p is not None else None for p in welch]
    try:
        first = [_aso(a, b, 1, seed, aso_iterations) for a, b in chosen]
    except ImportError:
        for k, (a, b), p, p_holm in zip(tested, chosen, welch, welch_holm):
            out[k] = SeedGroupTest(a, b, aso_threshold, p, p_holm, missing="deepsig (pip install deepsig)")
        return out
    corrected = _holm_aso(chosen, first, seed, aso_iterations)
    for k, (a, b), p, p_holm, eps, eps_holm in zip(tested, chosen, welch, welch_holm, first, corrected):
        out[k] = SeedGroupTest(a, b, aso_threshold, p, p_holm, eps, eps_holm)
    return out
