"""The Tree/Leaf model: reading methods, writing, copy and equality (also on very deep trees)."""

from typing import List

from hypothesis import given, settings
from hypothesis import strategies as st

from mlparse.trees import Leaf, Tree

atoms = st.text(alphabet="abXY-0", min_size=0, max_size=3)
random_trees = st.builds(
    Tree,
    atoms,
    st.lists(
        st.recursive(
            st.builds(Leaf, atoms, atoms),
            lambda children: st.builds(Tree, atoms, st.lists(children, min_size=1, max_size=4)),
            max_leaves=15,
        ),
        min_size=1,
        max_size=3,
    ),
)

DOG = Tree("", [Tree("S", [Tree("NP", [Leaf("DT", "the"), Leaf("NN", "dog")]), Tree("VP", [Leaf("VBZ", "barks")])])])


def test_reading_methods() -> None:
    assert DOG.words() == ["the", "dog", "barks"]
    assert DOG.tags() == ["DT", "NN", "VBZ"]
    assert len(DOG) == 3
    assert [node.label for node in DOG.subtrees()] == ["", "S", "NP", "VP"]
    assert DOG.labeled_spans() == [(0, 3, ""), (0, 3, "S"), (0, 2, "NP"), (2, 3, "VP")]
    assert DOG.labeled_spans(include_root=False) == [(0, 3, "S"), (0, 2, "NP"), (2, 3, "VP")]
    assert DOG.to_bracketed() == "( (S (NP (DT the) (NN dog)) (VP (VBZ barks))))"
    assert str(DOG) == DOG.to_bracketed()


def test_copy_is_deep_and_equal() -> None:
    copy = DOG.copy()
    assert copy == DOG and copy is not DOG
    copy.children[0].children[0].children[0].word = "a"
    assert DOG.words()[0] == "the"
    assert copy != DOG


def test_equality_distinguishes_structure() -> None:
    assert Tree("S", [Leaf("A", "a")]) != Tree("S", [Tree("A", [Leaf("A", "a")])])
    assert Tree("S", [Tree("A", [Leaf("A", "a")])]) != Tree("S", [Leaf("A", "a")])
    assert Tree("S", [Leaf("A", "a")]) != Tree("S", [Leaf("A", "a"), Leaf("B", "b")])
    assert Tree("S", [Leaf("A", "a")]) != Tree("T", [Leaf("A", "a")])
    assert Tree("S", [Leaf("A", "a")]) != "(S (A a))"
    assert hash(DOG) == hash(DOG.copy())


def test_very_deep_tree_methods_do_not_recurse() -> None:
    node: Tree = Tree("X", [Leaf("A", "a")])
    for _ in range(20000):
        node = Tree("X", [node, Leaf("B", "b")])
    copy = node.copy()
    assert copy == node
    assert len(node.labeled_spans()) == 20001
    assert node.to_bracketed().count("(") == 20001 + 20001
    assert len(node) == 20001


def reference_spans(tree: Tree) -> List[tuple]:
    """Recursive reference for labeled_spans (fine for small trees)."""
    spans: List[tuple] = []

    def visit(node: Tree, start: int) -> int:
        index = len(spans)
        spans.append(None)
        position = start
        for child in node.children:
            position = position + 1 if isinstance(child, Leaf) else visit(child, position)
        spans[index] = (start, position, node.label)
        return position

    visit(tree, 0)
    return spans


def reference_bracketed(node) -> str:
    if isinstance(node, Leaf):
        return f"({node.tag} {node.word})"
    return "(" + node.label + "".join(" " + reference_bracketed(c) for c in node.children) + ")"


@settings(max_examples=100, deadline=None)
@given(random_trees)
def test_iterative_methods_match_recursive_references(tree: Tree) -> None:
    assert tree.labeled_spans() == reference_spans(tree)
    assert tree.to_bracketed() == reference_bracketed(tree)
    assert tree.copy() == tree
