"""Property tests over random trees: inverses, write/read identity, idempotence, purity."""

from typing import List

from hypothesis import given, settings
from hypothesis import strategies as st

from mlparse.trees import (
    Leaf,
    Node,
    Tree,
    binarize,
    collapse_unary,
    ensure_top,
    expand_unary,
    format_tree,
    is_psd_empty,
    parse_bracketed,
    strip_empty_elements,
    strip_functional_tags,
    strip_spmrl_features,
    unbinarize,
)

# Atoms as the reader sees them: no whitespace, no brackets; a few awkward characters on purpose.
atom = st.text(alphabet="abcXYZ-=;*#|.,:$0'`þ。「ñ", min_size=1, max_size=6)
label = st.text(alphabet="SNPVX-=;#|:0", min_size=1, max_size=6)


def leaf_strategy() -> st.SearchStrategy[Leaf]:
    return st.builds(Leaf, atom, atom)


def tree_strategy(labels: st.SearchStrategy[str] = label) -> st.SearchStrategy[Tree]:
    """Random trees; internal nodes have 1-5 children, labels never empty (the root may be)."""
    nodes = st.recursive(
        leaf_strategy(),
        lambda children: st.builds(Tree, labels, st.lists(children, min_size=1, max_size=5)),
        max_leaves=20,
    )
    return st.builds(Tree, st.one_of(labels, st.just("")), st.lists(nodes, min_size=1, max_size=4))


def no_join(tree: Tree) -> bool:
    return all("::" not in node.label for node in tree.subtrees())


def snapshot(tree: Tree) -> str:
    return tree.to_bracketed()


@settings(max_examples=100, deadline=None)
@given(tree_strategy())
def test_binarize_inverse(tree: Tree) -> None:
    before = snapshot(tree)
    binary = binarize(tree)
    assert snapshot(tree) == before
    for node in binary.subtrees():
        assert len(node.children) <= 2
    assert binary.leaves() == tree.leaves()
    assert unbinarize(binary) == tree


@settings(max_examples=100, deadline=None)
@given(tree_strategy(st.text(alphabet="SNPVX-=;#|0", min_size=1, max_size=6)))
def test_collapse_unary_inverse(tree: Tree) -> None:
    before = snapshot(tree)
    collapsed = collapse_unary(tree)
    assert snapshot(tree) == before
    for node in list(collapsed.subtrees())[1:]:
        # no internal node below the root keeps a single internal-node child
        assert not (len(node.children) == 1 and isinstance(node.children[0], Tree))
    assert expand_unary(collapsed) == tree


@settings(max_examples=100, deadline=None)
@given(tree_strategy())
def test_write_read_identity(tree: Tree) -> None:
    text = format_tree(tree)
    assert "\n" not in text
    assert parse_bracketed(text).trees == [tree]


@settings(max_examples=40, deadline=None)
@given(st.lists(tree_strategy(), min_size=1, max_size=4), st.sampled_from(["\n", "\r\n", "\n\n", " "]))
def test_several_trees_read_back(trees: List[Tree], separator: str) -> None:
    result = parse_bracketed(separator.join(format_tree(t) for t in trees))
    assert result.trees == trees


@settings(max_examples=100, deadline=None)
@given(tree_strategy())
def test_strip_transforms_are_idempotent_and_pure(tree: Tree) -> None:
    before = snapshot(tree)
    for transform in (strip_functional_tags, strip_spmrl_features, ensure_top):
        once = transform(tree)
        assert transform(once) == once
        assert once.leaves() == tree.leaves() or transform is strip_spmrl_features
    stripped = strip_empty_elements(tree, is_psd_empty)
    if stripped is not None:
        assert strip_empty_elements(stripped, is_psd_empty) == stripped
        assert not any(is_psd_empty(leaf) for leaf in stripped.leaves())
        assert [leaf for leaf in tree.leaves() if not is_psd_empty(leaf)] == stripped.leaves()
    else:
        assert all(is_psd_empty(leaf) for leaf in tree.leaves())
    assert snapshot(tree) == before


@settings(max_examples=60, deadline=None)
@given(tree_strategy())
def test_spans_survive_binarization_modulo_empty_nodes(tree: Tree) -> None:
    spans = [s for s in tree.labeled_spans(include_root=False)]
    binary_spans = [s for s in binarize(tree).labeled_spans(include_root=False) if s[2] != ""]
    assert sorted(spans) == sorted(binary_spans)


def render(tree: Tree, spaces: List[str]) -> str:
    """Bracketed text with the i-th gap filled by spaces[i % len(spaces)] (newlines, tabs, CRLF...)."""
    parts: List[str] = []
    gap = [0]

    def space() -> str:
        gap[0] += 1
        return spaces[gap[0] % len(spaces)]

    stack: List[object] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
        elif isinstance(node, Leaf):
            parts.append("(" + space().lstrip() + node.tag + (space() or " ") + node.word + space() + ")")
        else:
            parts.append("(" + node.label + space())
            stack.append(")")
            for child in reversed(node.children):
                stack.append(child)
                stack.append(space() or " ")
    return "".join(parts)


def read_both(text: str, **options):
    """(compiled result or error type, pure-Python result or error type)."""
    from mlparse.trees import reader

    outcomes = []
    for compiled in (True, False):
        saved = reader.USE_COMPILED
        reader.USE_COMPILED = compiled
        try:
            result = parse_bracketed(text, **options)
            outcomes.append((result.trees, result.lines, result.repairs))
        except ValueError as error:
            outcomes.append(str(error))
        finally:
            reader.USE_COMPILED = saved
    return outcomes


@settings(max_examples=100, deadline=None)
@given(
    st.lists(tree_strategy(), min_size=1, max_size=3),
    st.lists(st.sampled_from(["", " ", "\n", "\t", "\r\n", "  \n\t", "\u3000"]), min_size=1, max_size=5),
)
def test_compiled_and_pure_readers_agree_on_any_layout(trees: List[Tree], spaces: List[str]) -> None:
    text = "\n".join(render(tree, spaces) for tree in trees)
    compiled, pure = read_both(text)
    assert compiled == pure
    assert pure[0] == trees


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="(( ))ab\n\t", max_size=30),
    st.sampled_from(["error", "first", "last"]),
    st.sampled_from(["error", "leaf"]),
    st.booleans(),
)
def test_compiled_and_pure_readers_agree_on_garbage(text: str, leaf_atoms: str, childless: str, tolerant: bool) -> None:
    compiled, pure = read_both(text, leaf_atoms=leaf_atoms, childless=childless, tolerant=tolerant)
    assert compiled == pure


@settings(max_examples=100, deadline=None)
@given(tree_strategy())
def test_recursive_and_iterative_rebuild_agree(tree: Tree) -> None:
    from mlparse.trees.transforms import _rebuild_iterative, _rebuild_recursive

    def leaf_fn(leaf: Leaf):
        return None if "a" in leaf.word else Leaf(leaf.tag, leaf.word)

    def node_fn(node: Tree, children: List[Node]):
        if not children:
            return None
        return children if "S" in node.label else Tree(node.label, children)

    assert _rebuild_iterative(tree, leaf_fn, node_fn) == _rebuild_recursive(tree, leaf_fn, node_fn)
