"""Writer: one tree per line, atomic, refuses trees that would not read back."""

from pathlib import Path

import pytest

from mlparse.trees import Leaf, Tree, check_writable, format_tree, parse_bracketed, read_bracketed_file, write_trees

TREES = [
    Tree("", [Tree("S", [Tree("NP", [Leaf("-LRB-", "-LRB-"), Leaf("NN", "dog"), Leaf("-RRB-", "-RRB-")])])]),
    Tree("TOP", [Tree("IP-MAT", [Leaf("N-N", "þjóð-þjóð"), Leaf("PU", "。")]), Leaf("ID", "1.X,.1")]),
]


def test_format_tree_is_one_line() -> None:
    assert format_tree(TREES[0]) == "( (S (NP (-LRB- -LRB-) (NN dog) (-RRB- -RRB-))))"


def test_write_then_read_is_identity(tmp_path: Path) -> None:
    path = tmp_path / "out" / "trees.txt"
    assert write_trees(path, iter(TREES)) == 2
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") == 2 and text.endswith("\n")
    result = read_bracketed_file(path)
    assert result.trees == TREES
    assert result.lines == [1, 2]


@pytest.mark.parametrize(
    "tree, reason",
    [
        (Tree("S", [Leaf("NN", "a(b")]), "word 'a(b' contains whitespace or a bracket"),
        (Tree("S", [Leaf("NN", "new york")]), "word 'new york' contains whitespace or a bracket"),
        (Tree("S", [Leaf("N N", "x")]), "tag 'N N' contains whitespace or a bracket"),
        (Tree("S)", [Leaf("NN", "x")]), "label 'S)' contains whitespace or a bracket"),
        (Tree("S", [Leaf("NN", "")]), "leaf (NN ) has an empty word"),
        (Tree("S", [Leaf("", "x")]), "leaf ( x) has an empty tag (it would read back as a label)"),
        (Tree("S", [Tree("NP", [])]), "node (NP) has no children"),
    ],
)
def test_unwritable_trees_are_refused(tree: Tree, reason: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_writable(tree, 4)
    assert str(caught.value) == f"cannot write tree 5: {reason}: {tree.to_bracketed()}"


def test_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "trees.txt"
    write_trees(path, TREES)
    before = path.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="cannot write tree 3"):
        write_trees(path, TREES + [Tree("S", [Leaf("NN", "a b")])])
    assert path.read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trees.txt"]


def test_empty_labels_round_trip_but_empty_tags_do_not() -> None:
    tree = Tree("", [Tree("", [Leaf("B", "x"), Leaf("A", "y")])])
    check_writable(tree)
    assert parse_bracketed(format_tree(tree)).trees == [tree]
    with pytest.raises(ValueError, match="empty tag"):
        check_writable(Tree("S", [Leaf("", "x")]))
