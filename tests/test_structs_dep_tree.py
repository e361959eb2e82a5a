"""Head-array helpers (well-formedness, projectivity, scores) and the brute-force enumeration."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from mlparse.structs.dep_brute_force import all_tree_scores, all_trees
from mlparse.structs.dep_tree import check_arc_scores, is_projective, is_well_formed, tree_problem, tree_score


@pytest.mark.parametrize(
    ("heads", "problem"),
    [
        ([-1], "at least one word"),
        ([0, 0], "heads[0] is 0"),
        ([-1, 0, 3], "not a position in 0..2"),
        ([-1, 0, -1], "not a position in 0..2"),
        ([-1, 0, 2], "word 2 is its own head"),
        ([-1, 0, 0], "2 dependents [1, 2]"),
        ([-1, 2, 1], "0 dependents"),
        ([-1, 0, 3, 4, 2], "words [2, 3, 4] form a cycle"),
        ([-1, 3, 0, 4, 3], "words [3, 4] form a cycle"),
    ],
)
def test_tree_problem_names_the_defect(heads: list, problem: str) -> None:
    message = tree_problem(heads)
    assert message is not None and problem in message
    assert not is_well_formed(np.asarray(heads))


@pytest.mark.parametrize("heads", [[-1, 0], [-1, 0, 1], [-1, 2, 0], [-1, 3, 3, 0, 3], [-1, 3, 1, 0, 1]])
def test_well_formed_trees(heads: list) -> None:
    assert tree_problem(heads) is None
    assert is_well_formed(np.asarray(heads, dtype=np.int64))


def test_projectivity_by_hand() -> None:
    assert is_projective([-1, 2, 0, 2])  # 1 <- 2 -> 3
    assert is_projective([-1, 0, 3, 1])  # 1 -> 3 -> 2: word 2 lies under the arc 1 -> 3 and below it
    assert not is_projective([-1, 3, 0, 2])  # 3 -> 1 spans word 2, the root's dependent
    assert not is_projective([-1, 0, 4, 1, 1])  # 4 -> 2 spans word 3, a sibling of 4
    with pytest.raises(ValueError, match="not a well-formed tree"):
        is_projective([-1, 0, 0])


def test_enumeration_counts_and_shapes() -> None:
    """Cayley: n^(n-1) single-rooted trees; projective ones: C(3n-2, n-1) / n."""
    for n in range(1, 8):
        trees = all_trees(n)
        projective = all_trees(n, projective=True)
        assert trees.shape == (n ** (n - 1), n + 1)
        assert projective.shape == (comb(3 * n - 2, n - 1) // n, n + 1)
        weights = (n + 2) ** np.arange(n + 1)  # one integer per head array
        codes, projective_codes = (trees + 1) @ weights, (projective + 1) @ weights
        assert len(np.unique(codes)) == len(trees)
        assert np.isin(projective_codes, codes).all()


def test_enumerated_trees_are_well_formed_and_projectivity_agrees() -> None:
    """``is_projective`` (dominance) and the enumeration's filter (no crossing arcs) agree on every tree."""
    for n in range(1, 7):
        projective = {tuple(t) for t in all_trees(n, projective=True).tolist()}
        for heads in all_trees(n).tolist():
            assert is_well_formed(heads)
            assert is_projective(heads) == (tuple(heads) in projective), heads


def test_tree_score_and_vectorised_scores_agree() -> None:
    rng = np.random.default_rng(3)
    for n in range(1, 6):
        scores = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        by_tree = [tree_score(scores, heads) for heads in all_trees(n)]
        assert all_tree_scores(scores).tolist() == by_tree
    scores = np.arange(16, dtype=np.float64).reshape(4, 4)
    assert tree_score(scores, [-1, 2, 0, 2]) == scores[2, 1] + scores[0, 2] + scores[2, 3]


def test_check_arc_scores() -> None:
    scores = np.zeros((5, 5), dtype=np.float32)
    assert check_arc_scores(scores) == 4
    assert check_arc_scores(scores, 2) == 2
    scores[:, 0] = np.nan  # arcs into the root are never read
    scores[3, 3] = np.inf  # nor self-loops
    scores[4, :] = np.nan  # nor padding beyond the length
    assert check_arc_scores(scores, 3) == 3
    with pytest.raises(ValueError, match=r"scores\[4, 1\] is nan"):
        check_arc_scores(scores)
    with pytest.raises(ValueError, match="shape"):
        check_arc_scores(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="not in 1..4"):
        check_arc_scores(scores, 5)
    with pytest.raises(ValueError, match="not in 1..0"):
        check_arc_scores(np.zeros((1, 1)))
    with pytest.raises(ValueError, match="real numbers"):
        check_arc_scores(np.zeros((3, 3), dtype=complex))
    assert check_arc_scores(np.full((3, 3), np.nan), finite=False) == 2
