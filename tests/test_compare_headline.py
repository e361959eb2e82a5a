"""``mlparse compare`` names one headline test per comparison and prints the other tests as diagnostics, apart from
it; the caption and the report's legend print the permutation test's floors as the code computes them.  Built from
simulated per-sentence counts (no training)."""

from __future__ import annotations

import json

import numpy as np

from mlparse.compare.comparison import Comparison, CompareOptions, CompareResult
from mlparse.compare.group_significance import group_test
from mlparse.compare.marks import ALPHA, legend_lines
from mlparse.compare.render import to_json, to_markdown, to_table
from mlparse.compare.seed_groups import seed_group_tests
from mlparse.compare.seed_permutation import fewest_seeds_below, permutation_floor
from mlparse.compare.statistics import SentenceStats
from mlparse.report.leaderboard import Cell, Leaderboard, LeaderboardRow


def _runs(rng: np.random.Generator, seeds: int, quality: float) -> list:
    gold = np.full(120, 20)
    p = np.linspace(0.5, 0.9, 120)
    runs = []
    for _ in range(seeds):
        shift = quality + rng.normal(0.0, 0.02)
        matched = rng.binomial(gold, np.clip(p + shift, 0.0, 1.0))
        runs.append(SentenceStats("f1", np.stack([matched, gold, gold], axis=1).astype(np.int64)))
    return runs


def _result() -> CompareResult:
    rng = np.random.default_rng(3)
    a, b, c = _runs(rng, 3, 0.0), _runs(rng, 3, 0.08), _runs(rng, 1, 0.08)
    options = CompareOptions(samples=200, seed=7, aso_iterations=20)
    tests = [group_test(a, b, 200, 7), group_test(a, c, 200, 7)]
    groups = seed_group_tests([(t.scores_a, t.scores_b) for t in tests], 7, 20)
    comparisons = [Comparison("A", name, ["a"] * 3, ["r"] * t.runs_b, "test", "f1", t, p_holm, g)
                   for name, t, p_holm, g in zip(("B", "C"), tests, (0.2, 0.3), groups)]
    return CompareResult(comparisons, [], options)


def test_one_headline_test_per_comparison_and_the_others_as_diagnostics() -> None:
    result = _result()
    table = to_table(result)
    main, diagnostics = table.split("diagnostics (not tests to choose from")
    head = next(line for line in main.splitlines() if line.startswith("A "))
    assert "headline test" in head and f"at {ALPHA:g}" in head
    assert "Welch" not in head and "ASO" not in head  # not beside the headline
    assert "Welch p (Holm)" in diagnostics and "permutation p (its floor)" in diagnostics
    assert "no difference" in main  # the verdict comes from the headline p alone (0.2, 0.3 here)
    data = json.loads(to_json(result))
    for row, comparison in zip(data["comparisons"], result.comparisons):
        assert row["headline"]["p"] == comparison.p_holm and row["headline"]["verdict"] == "no difference"
        assert row["headline"]["permutation_floor"] == permutation_floor(comparison.test.runs_a,
                                                                         comparison.test.runs_b).p
    assert "Diagnostics (not tests to choose from" in to_markdown(result)


def test_the_verdict_follows_the_headline_p() -> None:
    comparison = _result().comparisons[0]
    significant = Comparison(comparison.a, comparison.b, comparison.runs_a, comparison.runs_b, "test", "f1",
                             comparison.test, ALPHA / 2)
    assert significant.verdict() == ("B better" if comparison.test.delta > 0 else "B worse")


def test_the_caption_and_the_legend_print_the_computed_floors() -> None:
    table = to_table(_result())
    fewest = fewest_seeds_below(ALPHA)
    for floor in (permutation_floor(3, 3), permutation_floor(1, 3)):
        assert floor.text() in table
    assert all(f"{f.m} + {f.k} (p ≥ {f.p:.4g})" in table for f in fewest)
    cells = {"en": Cell(value=80.0, significance=0.3, worse=False, significance_test="groups",
                        significance_runs=[3, 4])}
    other = {"en": Cell(value=70.0, significance=0.4, worse=False, significance_test="run-vs-group",
                        significance_runs=[3, 1])}
    board = Leaderboard("constituency", "test", "x", "f1", ["en"],
                        [LeaderboardRow("s", "measured", "r", cells), LeaderboardRow("t", "measured", "q", other)])
    legend = " ".join(legend_lines(board))
    assert permutation_floor(3, 4).text() in legend and permutation_floor(1, 3).text() in legend
    assert all(f"{f.m} + {f.k} (p ≥ {f.p:.4g})" in legend for f in fewest)
    assert "4 + 4 or 3 + 5" not in legend  # the hand-written figure it replaced
