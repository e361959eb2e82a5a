"""The exact permutation test over seeds, and the smallest p-value it can give for a number of seeds.

:func:`seed_permutation_p` deals the ``m + k`` run scores of two systems into groups of ``m`` and ``k`` in every
possible way (``C(m + k, m)`` dealings) and counts those whose |difference of means| is at least the observed one.
It assumes nothing about the distribution of the seed scores, but it needs seeds: however far apart the two
systems are, the observed dealing is among the counted ones, so p cannot go below ``1 / C(m + k, m)``, and
where ``m = k`` the mirrored dealing (the two groups swapped) has the same |difference|, so it cannot go below
``2 / C(m + k, m)``.  :func:`permutation_floor` does not write these down: it runs the test on two groups set as
far apart as they can be and reports what it gives, so the figures printed by ``mlparse compare``, the report's
legend and ``docs/commands/compare.md`` (:func:`floor_table`) are the code's own.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

#: Above this many ways of dealing the seeds into two groups, the permutation test draws this many at random.
MAX_PERMUTATIONS = 20_000


def dealings(m: int, k: int) -> int:
    """How many dealings :func:`seed_permutation_p` counts for ``m`` and ``k`` runs (the observed one included)."""
    exact = math.comb(m + k, m)
    return exact if exact <= MAX_PERMUTATIONS else MAX_PERMUTATIONS + 1


def seed_permutation_p(scores_a: Sequence[float], scores_b: Sequence[float], seed: int = 0) -> float:
    """Two-sided p-value of the permutation test over seeds: the share of the ways of dealing all run scores into
    groups of ``len(scores_a)`` and ``len(scores_b)`` whose |difference of means| is at least the observed one (the
    observed dealing included); exact up to :data:`MAX_PERMUTATIONS` dealings, else that many drawn at random
    (``seed``) plus the observed one."""
    values = np.asarray(list(scores_a) + list(scores_b), dtype=np.float64)
    m, total = len(scores_a), len(values)
    observed = abs(float(np.mean(values[m:]) - np.mean(values[:m])))
    if math.comb(total, m) <= MAX_PERMUTATIONS:
        groups = np.zeros((math.comb(total, m), total), dtype=bool)
        for row, chosen in enumerate(itertools.combinations(range(total), m)):
            groups[row, list(chosen)] = True
    else:
        rng = np.random.default_rng(seed)
        order = np.argsort(rng.random((MAX_PERMUTATIONS, total)), axis=1)
        groups = np.zeros((MAX_PERMUTATIONS + 1, total), dtype=bool)
        np.put_along_axis(groups[:-1], order[:, :m], True, axis=1)
        groups[-1, :m] = True  # the observed dealing
    sum_a = groups @ values
    differences = (values.sum() - sum_a) / (total - m) - sum_a / m
    scale = max(1.0, observed)
    return float(np.count_nonzero(np.abs(differences) >= observed - 1e-9 * scale)) / len(groups)


@dataclass(frozen=True)
class PermutationFloor:
    """The smallest two-sided p-value of :func:`seed_permutation_p` for ``m`` runs against ``k``: ``p``, which is
    ``counted`` of ``dealings`` dealings."""

    m: int
    k: int
    p: float
    dealings: int

    @property
    def counted(self) -> int:
        return round(self.p * self.dealings)

    def text(self) -> str:
        """``3 + 4 seeds: p ≥ 0.0286 (1/35)``."""
        return f"{self.m} + {self.k} seeds: p ≥ {self.p:.4g} ({self.counted}/{self.dealings})"


def permutation_floor(m: int, k: int, seed: int = 0) -> PermutationFloor:
    """What :func:`seed_permutation_p` gives ``m`` runs against ``k`` when every run of one system scores above every
    run of the other (distinct scores, the two groups far apart): the smallest p-value it can give."""
    if m < 1 or k < 1 or m + k < 3:
        raise ValueError(f"the permutation test over seeds needs 1 + 2 runs or more, got {m} + {k}")
    low = [float(i) for i in range(m)]
    high = [1000.0 * (m + k) + 3.0 * j for j in range(k)]  # no dealing but the observed (and its mirror) as far apart
    return PermutationFloor(m, k, seed_permutation_p(low, high, seed), dealings(m, k))


def fewest_seeds_below(alpha: float, limit: int = 40) -> List[PermutationFloor]:
    """The splits ``m + k`` (``m <= k``) of the smallest number of runs in all whose floor is below ``alpha``."""
    for total in range(3, limit + 1):
        found = [floor for floor in (permutation_floor(m, total - m) for m in range(1, total // 2 + 1))
                 if floor.p < alpha]
        if found:
            return found
    raise ValueError(f"no split of up to {limit} runs can go below p = {alpha}")


def fewest_equal_seeds(alpha: float, tests: int = 1, limit: int = 40) -> PermutationFloor:
    """The floor of the fewest seeds a system, the same number for every system, with which a test against the
    column's best system can go below ``alpha`` after Holm's correction over ``tests`` tests (the smallest corrected
    p is ``tests`` times the smallest p): the first ``n + n`` whose floor times ``tests`` is below ``alpha``."""
    for n in range(2, limit + 1):
        floor = permutation_floor(n, n)
        if tests * floor.p < alpha:
            return floor
    raise ValueError(f"no number of seeds up to {limit} a system can go below p = {alpha} over {tests} tests")


def unreachable_text(sizes: Sequence[Tuple[int, int]], tests: int, alpha: float) -> Optional[str]:
    """Where no test over seeds of the sizes ``(m, k)`` can go below ``alpha`` after Holm's correction over ``tests``
    tests (the smallest corrected p is ``tests`` times the smallest floor): why, and the fewest seeds a system with
    which it can (:func:`fewest_equal_seeds`); None where it can."""
    if not sizes:
        return None
    floor = min((permutation_floor(min(m, k), max(m, k)) for m, k in sizes), key=lambda f: f.p)
    if tests * floor.p < alpha:
        return None
    fewest = fewest_equal_seeds(alpha, tests)
    corrected = f", {min(1.0, tests * floor.p):.4g} after Holm's correction over {tests} tests" if tests > 1 else ""
    needed = f", {tests * fewest.p:.4g} after the correction" if tests > 1 else ""
    return (f"the permutation test over seeds cannot go below p = {floor.p:.4g} with {floor.m} + {floor.k} seeds"
            f"{corrected}; {fewest.m} seeds a system are the fewest with which it can (p ≥ {fewest.p:.4g}{needed})")


def floors_text(sizes: Sequence[Tuple[int, int]], alpha: float) -> str:
    """One sentence of the floors of the sizes compared (each ``(m, k)`` once, smaller first) and the fewest seeds
    that can go below ``alpha``: what the caption of ``mlparse compare`` and the report's legend print."""
    shown = sorted({(min(m, k), max(m, k)) for m, k in sizes if m + k >= 3})
    fewest = fewest_seeds_below(alpha)
    parts = [permutation_floor(m, k).text() for m, k in shown]
    least = " or ".join(f"{f.m} + {f.k} (p ≥ {f.p:.4g})" for f in fewest)
    return (f"the smallest p the permutation test over seeds can give (two-sided; m = k: the swapped dealing ties): "
            f"{'; '.join(parts)}; the fewest seeds that can go below {alpha:g} are {fewest[0].m + fewest[0].k}, "
            f"dealt {least}")


def floor_table(largest: int = 6) -> str:
    """A Markdown table of the floors for 1 to ``largest`` runs a side (two single runs: the paired test over
    sentences instead), as ``docs/commands/compare.md`` shows it."""
    head = "| runs of A \\ of B | " + " | ".join(str(k) for k in range(1, largest + 1)) + " |"
    lines = [head, "|---|" + "---:|" * largest]
    for m in range(1, largest + 1):
        cells = ["paired test" if m + k < 3 else f"{permutation_floor(m, k).p:.4f}" for k in range(1, largest + 1)]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
