"""Tests over groups of seeds: Welch's t-test (scipy) and Almost Stochastic Order (deepsig; Dror et al. 2019).

Both come from maintained packages in the optional extra ``mlparse[stats]``; without them the result says
which package is missing instead of a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence


@dataclass(frozen=True)
class GroupTest:
    """Two groups of per-run scores (percent), one run per seed.

    ``welch_p``: two-sided p-value of Welch's t-test (unequal variances); ``aso_eps_min_b_over_a``: deepsig's
    violation ratio for "B is better than A" (below 0.5: B almost stochastically dominates A).  None when a group
    has fewer than two runs or the package is missing (``missing`` names it); ``welch_p`` is None too when neither
    group varies.
    """

    scores_a: Sequence[float]
    scores_b: Sequence[float]
    welch_p: Optional[float] = None
    aso_eps_min_b_over_a: Optional[float] = None
    missing: Optional[str] = None

    def to_json(self) -> dict:
        return {"scores_a": list(self.scores_a), "scores_b": list(self.scores_b), "welch_p": self.welch_p,
                "aso_eps_min_b_over_a": self.aso_eps_min_b_over_a, "missing": self.missing}


def compare_groups(scores_a: Sequence[float], scores_b: Sequence[float], seed: int,
                   aso_iterations: int = 1000) -> GroupTest:
    """Welch's t-test and ASO of B over A (see :class:`GroupTest`); ``aso_iterations``: deepsig's bootstrap
    iterations (its default, 1000, takes seconds)."""
    if len(scores_a) < 2 or len(scores_b) < 2:
        return GroupTest(list(scores_a), list(scores_b))
    try:
        from scipy.stats import ttest_ind
    except ImportError:
        return GroupTest(list(scores_a), list(scores_b), missing="scipy (pip install 'mlparse[stats]')")
    welch: Optional[float] = float(ttest_ind(scores_b, scores_a, equal_var=False).pvalue)
    welch = None if welch != welch else welch  # NaN: no variance in either group
    try:
        from deepsig import aso
    except ImportError:
        return GroupTest(list(scores_a), list(scores_b), welch, missing="deepsig (pip install 'mlparse[stats]')")
    eps = float(aso(list(scores_b), list(scores_a), seed=seed, show_progress=False,
                    num_bootstrap_iterations=aso_iterations))
    return GroupTest(list(scores_a), list(scores_b), welch, eps)
