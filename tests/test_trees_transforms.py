"""Tree transforms on hand-built trees: expected outputs, purity, edge cases."""

import pytest

from mlparse.trees import (
    EMPTY_LABEL,
    Leaf,
    Tree,
    binarize,
    collapse_unary,
    ensure_top,
    expand_unary,
    is_cess_empty,
    is_psd_empty,
    is_ptb_empty,
    map_labels,
    map_leaves,
    parse_bracketed,
    remove_leaves,
    split_lemma,
    strip_empty_elements,
    strip_function_tag,
    strip_functional_tags,
    strip_spmrl_features,
    strip_top,
    unbinarize,
)


def t(text: str) -> Tree:
    (tree,) = parse_bracketed(text).trees
    return tree


PTB = (
    "( (S (NP-SBJ-1 (NNP Pierre)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board))"
    " (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB go)))) (SBAR (-NONE- 0) (S (-NONE- *T*-2)))))"
    " (. .)) )"
)


def test_strip_ptb_empty_elements_prunes_emptied_constituents() -> None:
    tree = t(PTB)
    before = tree.to_bracketed()
    stripped = strip_empty_elements(tree)
    assert stripped == t(
        "( (S (NP-SBJ-1 (NNP Pierre)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board))"
        " (S (VP (TO to) (VP (VB go)))))) (. .)) )"
    )
    assert tree.to_bracketed() == before  # input untouched


def test_strip_empty_returns_none_when_nothing_is_left() -> None:
    assert strip_empty_elements(t("( (S (NP-SBJ (-NONE- *)) (VP (-NONE- *T*-1))) )")) is None


def test_ptb_empty_predicate() -> None:
    assert is_ptb_empty(Leaf("-NONE-", "*U*"))
    assert not is_ptb_empty(Leaf("CD", "0"))


@pytest.mark.parametrize(
    "tag, word",
    [
        ("NP-SBJ", "*T*-1"), ("NP-SBJ", "*pro*"), ("NP-SBJ", "*con*"), ("NP", "*exp*"),
        ("NP", "*ICH*-3"), ("NP-OB1", "*が*"), ("NP-SBJ", "*speaker*"), ("NP-SBJ", "*"),
        ("NP-SBJ", "*-4"), ("P", "***"), ("NP", "*XXX*-laga"), ("NP", "*T*"),
        ("WNP-1", "0"), ("C", "0"), ("WADVP-2", "0"), ("P", "0"), ("-NONE-", "x"),
    ],
)
def test_psd_empty_elements(tag: str, word: str) -> None:
    assert is_psd_empty(Leaf(tag, word))


@pytest.mark.parametrize(
    "tag, word",
    [("N-N", "menn-maður"), ("NUM-N", "0-0"), (".", ".-."), ("NUM", "10"), ("N", "a*b"), ("ID", "1150.X,.1")],
)
def test_psd_non_empty_leaves(tag: str, word: str) -> None:
    assert not is_psd_empty(Leaf(tag, word))


def test_cess_empty() -> None:
    assert is_cess_empty(Leaf("sn.e-SUJ", "*0*"))
    assert not is_cess_empty(Leaf("Fz", "*"))


def test_strip_psd_empties_and_id_leaves() -> None:
    tree = t(
        "( (IP-MAT (NP-SBJ (PRO-N hann-hann)) (CP-REL (WNP-1 0) (C 0) (IP-SUB (NP-SBJ *T*-1)))"
        " (VBDI kom-koma)) (ID 1150.X,.1))"
    )
    no_empty = strip_empty_elements(tree, is_psd_empty)
    assert no_empty == t("( (IP-MAT (NP-SBJ (PRO-N hann-hann)) (VBDI kom-koma)) (ID 1150.X,.1))")
    no_id = remove_leaves(no_empty, lambda leaf: leaf.tag in ("ID", "CODE"))
    assert no_id == t("( (IP-MAT (NP-SBJ (PRO-N hann-hann)) (VBDI kom-koma)))")
    assert remove_leaves(t("( (CODE {COM:x}) (ID 1.X,.2))"), lambda leaf: leaf.tag in ("ID", "CODE")) is None


@pytest.mark.parametrize(
    "label, expected",
    [
        ("NP-SBJ-1", "NP"), ("NP=2", "NP"), ("PP-LOC-CLR", "PP"), ("S-TPC-2", "S"), ("NP-SBJ=2", "NP"),
        ("-NONE-", "-NONE-"), ("-LRB-", "-LRB-"), ("NP;*SBJ*", "NP"), ("PP;*OB1*", "PP"), ("", ""),
        ("S", "S"), ("WHNP-1", "WHNP"), ("IP-MAT-SPE", "IP"),
    ],
)
def test_strip_function_tag(label: str, expected: str) -> None:
    assert strip_function_tag(label) == expected


def test_strip_functional_tags_leaves_pos_tags_alone() -> None:
    tree = t("( (IP-MAT (NP-SBJ-1 (NS-N menn-maður)) (-LRB- -LRB-) (NP=2 (N-A x))) )")
    assert strip_functional_tags(tree) == t("( (IP (NP (NS-N menn-maður)) (-LRB- -LRB-) (NP (N-A x))) )")


def test_strip_spmrl_features_on_labels_and_tags() -> None:
    tree = t("(ROOT (SENT##x=1## (NP-SUJ##case=nom|num=sg## (NN##case=nom|num=sg## Haus)) (PONCT .)))")
    assert strip_spmrl_features(tree) == t("(ROOT (SENT (NP-SUJ (NN Haus)) (PONCT .)))")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("( (S (X a)) )", "(TOP (S (X a)))"),
        ("(ROOT (S (X a)))", "(TOP (S (X a)))"),
        ("(VROOT (S (X a)) (X b))", "(TOP (S (X a)) (X b))"),
        ("(TOP (S (X a)))", "(TOP (S (X a)))"),
        ("(S (X a))", "(TOP (S (X a)))"),
        ("( (IP-MAT (X a)) (ID 1.X,.1))", "(TOP (IP-MAT (X a)) (ID 1.X,.1))"),
    ],
)
def test_ensure_top(text: str, expected: str) -> None:
    assert ensure_top(t(text)).to_bracketed() == expected


def test_ensure_top_does_not_share_nodes() -> None:
    tree = t("(ROOT (S (X a)))")
    top = ensure_top(tree)
    top.children[0].children[0].tag = "Y"
    assert tree == t("(ROOT (S (X a)))")


def test_strip_top() -> None:
    assert strip_top(t("(TOP (S (X a)))")) == t("(S (X a))")
    assert strip_top(t("(TOP (S (X a)) (X b))")) == [t("(S (X a))"), Leaf("X", "b")]
    assert strip_top(t("(TOP (X a))")) == [Leaf("X", "a")]
    assert strip_top(t("(S (X a))")) == t("(S (X a))")


def test_collapse_unary_chains() -> None:
    tree = t("(TOP (S (VP (VB go) (NP (NP (NN x))))))")
    collapsed = collapse_unary(tree)
    assert collapsed.to_bracketed() == "(TOP (S::VP (VB go) (NP::NP (NN x))))"
    assert expand_unary(collapsed) == tree
    assert collapse_unary(t("(TOP (S (X (Y (Z (W a))))))")).to_bracketed() == "(TOP (S::X::Y::Z (W a)))"


def test_collapse_keeps_the_root_and_preterminal_parents() -> None:
    # the root never joins the chain; a node over one leaf is not collapsed
    assert collapse_unary(t("(S (VP (VB go)))")).to_bracketed() == "(S (VP (VB go)))"
    assert collapse_unary(t("(TOP (NP (NN x)))")).to_bracketed() == "(TOP (NP (NN x)))"


def test_collapse_refuses_labels_with_the_joiner() -> None:
    with pytest.raises(ValueError, match="joiner"):
        collapse_unary(t("(TOP (S (A::B (X a))))"))


def test_collapse_refuses_joins_that_would_split_differently() -> None:
    with pytest.raises(ValueError, match="split back"):
        collapse_unary(t("(TOP (: (0 (X a))))"))
    with pytest.raises(ValueError, match="split back"):
        collapse_unary(t("(TOP (A: (B (X a))))"))
    assert expand_unary(collapse_unary(t("(TOP (A (:B (X a))))"))) == t("(TOP (A (:B (X a))))")


def test_expand_unary_custom_joiner_and_root() -> None:
    assert expand_unary(t("(S+VP (V go))"), join="+") == t("(S (VP (V go)))")


def test_binarize_right_branching() -> None:
    tree = t("(TOP (X (A a) (B b) (C c) (D d)))")
    binary = binarize(tree)
    assert binary.to_bracketed() == "(TOP (X (A a) ( (B b) ( (C c) (D d)))))"
    assert unbinarize(binary) == tree
    assert all(len(node.children) <= 2 for node in binary.subtrees())
    assert binarize(t("(S (X a) (Y b))")) == t("(S (X a) (Y b))")


def test_binarize_keeps_an_unlabelled_root_but_refuses_empty_labels_below() -> None:
    tree = t("( (A a) (B b) (C c))")
    assert binarize(tree).to_bracketed() == "( (A a) ( (B b) (C c)))"
    assert unbinarize(binarize(tree)) == tree
    with pytest.raises(ValueError, match="empty label"):
        binarize(t("(TOP ( (A a) (B b)))"))


def test_empty_label_constant() -> None:
    assert EMPTY_LABEL == ""


def test_map_labels_and_leaves() -> None:
    tree = t("(IP (NP (N-N menn-maður) (. .-.)) (CODE {COM:x}))")
    assert map_labels(tree, str.lower) == t("(ip (np (N-N menn-maður) (. .-.)) (CODE {COM:x}))")
    assert map_labels(tree, str.lower, include_tags=True) == t("(ip (np (n-n menn-maður) (. .-.)) (code {COM:x}))")
    assert map_leaves(tree, split_lemma) == t("(IP (NP (N-N menn) (. .)) (CODE {COM:x}))")


def test_map_leaves_with_identity_still_copies() -> None:
    tree = t("(S (X a))")
    mapped = map_leaves(tree, lambda leaf: leaf)
    assert mapped == tree and mapped.children[0] is not tree.children[0]


def test_split_lemma() -> None:
    assert split_lemma(Leaf("N", "tungur$-tunga")) == Leaf("N", "tungur$")
    assert split_lemma(Leaf("ADJ", "fimm-tíu-fimmtíu")) == Leaf("ADJ", "fimm-tíu")
    assert split_lemma(Leaf(",", ",")) == Leaf(",", ",")
    assert split_lemma(Leaf("X", "-x")) == Leaf("X", "-x")  # nothing before the dash: kept whole


def test_transforms_work_on_trees_deeper_than_the_recursion_limit() -> None:
    import sys

    depth = sys.getrecursionlimit() + 500
    tree: Tree = Tree("X", [Leaf("A", "a"), Leaf("B", "b"), Leaf("C", "c")])
    for _ in range(depth):
        tree = Tree("S-SBJ", [tree, Leaf("-NONE-", "*")])
    top = ensure_top(tree)
    assert unbinarize(binarize(top)) == top
    assert expand_unary(collapse_unary(top)) == top
    stripped = strip_empty_elements(strip_functional_tags(top))
    assert stripped is not None
    collapsed = collapse_unary(stripped)
    assert collapsed.children[0].label == "::".join(["S"] * depth + ["X"])
    assert stripped.labeled_spans()[-1] == (0, 3, "X")
