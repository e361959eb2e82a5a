"""The tiny hand-written treebank of ``helpers/run_fixtures.py`` is well formed."""

from __future__ import annotations

from helpers.run_fixtures import TINY_TREES, tiny_trees


def test_fixture_trees_are_top_rooted() -> None:
    trees = tiny_trees()
    assert len(trees) == len(TINY_TREES)
    assert all(tree.label == "TOP" for tree in trees)
    assert [tree.to_bracketed() for tree in trees] == TINY_TREES
