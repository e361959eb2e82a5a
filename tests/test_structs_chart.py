"""Tree <-> chart conversion: gold spans, label vocabulary, and the decode round trip."""

from __future__ import annotations

import random
from typing import Dict, List, Tuple

import numpy as np
import pytest
import torch

from mlparse.structs.chart import LabelVocab, UnknownLabelError, gold_spans, tree_from_chart
from mlparse.structs.chart_tree import ChartTree
from mlparse.structs.cky import decode
from mlparse.structs.cky_reference import decode_reference
from mlparse.structs.cky_torch import decode_batch
from mlparse.trees.tree import Leaf, Node, Tree

PHRASES = ["S", "NP", "VP", "PP", "SBAR", "ADJP"]


def t(text: str) -> Tree:
    """Tiny bracket parser for hand-written fixtures (leaves are ``(TAG word)``)."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    stack: List[List] = []
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            items = stack.pop()
            node: Node = Leaf(items[0], items[1]) if len(items) == 2 and isinstance(items[1], str) else Tree(items[0], items[1:])
            if not stack:
                return node  # type: ignore[return-value]
            stack[-1].append(node)
        else:
            stack[-1].append(token)
    raise ValueError(text)


def random_tree(rng: random.Random, words: int) -> Tree:
    """A random TOP tree: n-ary nodes, unary chains, one-word phrases, leaves beside phrases."""
    counter = iter(range(10_000))

    def leaf() -> Leaf:
        return Leaf(rng.choice(["NN", "VB", "DT", "IN"]), f"w{next(counter)}")

    def phrase(size: int) -> Node:
        if size == 1 and rng.random() < 0.5:
            return leaf()
        if size == 1:
            node: Node = leaf()
        else:
            parts, left = [], size
            while left:
                part = rng.randint(1, left) if len(parts) or left == 1 else rng.randint(1, left - 1)
                parts.append(part)
                left -= part
            node = Tree(rng.choice(PHRASES), [phrase(part) for part in parts])
        for _ in range(rng.choice([1, 1, 1, 2, 3])):  # unary chains above the node
            node = Tree(rng.choice(PHRASES), [node])
        return node

    children: List[Node] = [phrase(words)]
    if words >= 2 and rng.random() < 0.2:  # several children under TOP
        cut = rng.randint(1, words - 1)
        children = [phrase(cut), phrase(words - cut)]
    return Tree("TOP", children)


def one_hot_scores(gold: Dict[Tuple[int, int], int], n: int, num_labels: int) -> np.ndarray:
    scores = np.zeros((n + 1, n + 1, num_labels), dtype=np.float32)
    for (i, j), label in gold.items():
        scores[i, j, label] = 1.0
    return scores


def test_gold_spans_of_hand_written_trees() -> None:
    tree = t("(TOP (S (NP (NN dog)) (VP (VBZ barks) (ADVP (RB loudly))) (. .)))")
    vocab = LabelVocab.from_trees([tree])
    assert vocab.labels == ["", "ADVP", "NP", "S", "VP"]
    names = {span: vocab.label(index) for span, index in gold_spans(tree, vocab).items()}
    assert names == {(0, 4): "S", (0, 1): "NP", (1, 3): "VP", (2, 3): "ADVP"}

    chain = t("(TOP (S (VP (VB Go) (NP (PRP it)))))")
    one_word = t("(TOP (S (VP (VB Go))))")
    vocab = LabelVocab.from_trees([chain, one_word])
    assert {s: vocab.label(i) for s, i in gold_spans(chain, vocab).items()} == {(0, 2): "S::VP", (1, 2): "NP"}
    assert {s: vocab.label(i) for s, i in gold_spans(one_word, vocab).items()} == {(0, 1): "S::VP"}


def test_root_with_several_children_leaves_the_sentence_span_empty() -> None:
    tree = t("(TOP (NP (NN a) (NN b)) (VP (VB c)) (. .))")
    vocab = LabelVocab.from_trees([tree])
    gold = gold_spans(tree, vocab)
    assert (0, 4) not in gold
    assert set(gold) == {(0, 2), (2, 3)}
    assert tree_from_chart(decode(one_hot_scores(gold, 4, len(vocab))), vocab, tree.leaves()) == tree


def test_unknown_label_policy() -> None:
    train = t("(TOP (S (NP (NN a)) (VP (VB b))))")
    dev = t("(TOP (S (NP (NN a)) (FRAG (VB b))))")
    vocab = LabelVocab.from_trees([train])
    with pytest.raises(UnknownLabelError, match="FRAG"):
        gold_spans(dev, vocab)
    assert gold_spans(dev, vocab, unknown="empty") == {(0, 2): vocab.index("S"), (0, 1): vocab.index("NP")}
    with pytest.raises(ValueError, match="unknown must be"):
        gold_spans(dev, vocab, unknown="skip")


def test_tree_must_be_top_rooted_and_labelled() -> None:
    vocab = LabelVocab(["", "S"])
    with pytest.raises(ValueError, match="ensure_top"):
        gold_spans(t("(S (NN a))"), vocab)
    with pytest.raises(ValueError, match="empty label"):
        gold_spans(Tree("TOP", [Tree("", [Leaf("NN", "a"), Leaf("NN", "b")])]), vocab)


def test_label_vocab_rules() -> None:
    vocab = LabelVocab(["", "NP", "S::VP"])
    assert len(vocab) == 3 and vocab.index("S::VP") == 2 and vocab.label(0) == ""
    assert LabelVocab(vocab.to_list()) == vocab
    assert "NP" in vocab and "VP" not in vocab
    with pytest.raises(ValueError, match="index 0"):
        LabelVocab(["NP", ""])
    with pytest.raises(ValueError, match="duplicate"):
        LabelVocab(["", "NP", "NP"])
    with pytest.raises(ValueError, match="label index"):
        vocab.label(3)


def test_round_trip_through_every_decoder_on_random_trees() -> None:
    rng = random.Random(3)
    trees = [random_tree(rng, rng.randint(1, 25)) for _ in range(150)]
    vocab = LabelVocab.from_trees(trees)
    charts: List[np.ndarray] = []
    for tree in trees:
        n = len(tree.leaves())
        gold = gold_spans(tree, vocab)
        scores = one_hot_scores(gold, n, len(vocab))
        charts.append(scores)
        decoded = decode(scores)
        assert {(i, j): l for i, j, l in decoded.spans if l} == gold
        assert tree_from_chart(decoded, vocab, tree.leaves()) == tree
        assert tree_from_chart(decode_reference(scores), vocab, tree.leaves()) == tree
        assert tree_from_chart(list(gold_spans_items(gold)), vocab, tree.leaves()) == tree
    padded = max(c.shape[0] for c in charts)
    batch = np.zeros((len(charts), padded, padded, len(vocab)), dtype=np.float32)
    for b, chart in enumerate(charts):
        batch[b, : chart.shape[0], : chart.shape[0]] = chart
    lengths = [c.shape[0] - 1 for c in charts]
    for tree, decoded in zip(trees, decode_batch(torch.from_numpy(batch), lengths)):
        assert tree_from_chart(decoded, vocab, tree.leaves()) == tree


def gold_spans_items(gold: Dict[Tuple[int, int], int]):
    return ((i, j, l) for (i, j), l in gold.items())


def test_round_trip_keeps_predicted_leaves() -> None:
    tree = t("(TOP (S (NP (DT the) (NN dog)) (VP (VBZ barks))))")
    vocab = LabelVocab.from_trees([tree])
    predicted_leaves = [Leaf("DT", "the"), Leaf("JJ", "dog"), Leaf("NNS", "barks")]
    rebuilt = tree_from_chart(decode(one_hot_scores(gold_spans(tree, vocab), 3, len(vocab))), vocab, predicted_leaves)
    assert rebuilt.to_bracketed() == "(TOP (S (NP (DT the) (JJ dog)) (VP (NNS barks))))"


def test_tree_from_chart_rejects_bad_spans() -> None:
    vocab = LabelVocab(["", "NP"])
    leaves = [Leaf("NN", "a"), Leaf("NN", "b"), Leaf("NN", "c")]
    with pytest.raises(ValueError, match="crosses"):
        tree_from_chart([(0, 2, 1), (1, 3, 1)], vocab, leaves)
    with pytest.raises(ValueError, match="inside"):
        tree_from_chart([(0, 4, 1)], vocab, leaves)
    with pytest.raises(ValueError, match="twice"):
        tree_from_chart([(0, 2, 1), (0, 2, 0)], vocab, leaves)
    with pytest.raises(ValueError, match="label index"):
        tree_from_chart(ChartTree(spans=[(0, 1, 5)], score=0.0), vocab, leaves[:1])


@pytest.mark.treebanks
def test_round_trip_on_ptb_sample(treebanks) -> None:
    from mlparse.trees.reader import read_bracketed_file
    from mlparse.trees.transforms import ensure_top, strip_empty_elements, strip_functional_tags

    files = sorted((treebanks / "ptb-sample" / "wsj" / "01").glob("wsj_016*.mrg"))
    assert files, "ptb-sample wsj_016x files not found"
    trees = []
    for path in files:
        for raw in read_bracketed_file(path):
            stripped = strip_empty_elements(raw)
            if stripped is not None:
                trees.append(ensure_top(strip_functional_tags(stripped)))
    vocab = LabelVocab.from_trees(trees)
    assert len(trees) > 50
    for tree in trees:
        gold = gold_spans(tree, vocab)
        scores = one_hot_scores(gold, len(tree.leaves()), len(vocab))
        assert tree_from_chart(decode(scores), vocab, tree.leaves()) == tree


def random_span_set(rng: random.Random, n: int, num_labels: int) -> List[Tuple[int, int, int]]:
    """A random non-crossing set of labelled spans over n words (any arity, EMPTY labels included)."""
    spans: List[Tuple[int, int, int]] = []

    def grow(i: int, j: int) -> None:
        if rng.random() < 0.8:
            spans.append((i, j, rng.randrange(num_labels)))
        if j - i < 2:
            return
        cuts = sorted(rng.sample(range(i + 1, j), rng.randint(1, min(3, j - i - 1))))
        for a, b in zip([i] + cuts, cuts + [j]):
            grow(a, b)

    grow(0, n)
    rng.shuffle(spans)  # the builder must not rely on the input order
    return spans


def test_one_pass_builder_equals_unbinarize_then_expand() -> None:
    from mlparse.structs.chart import tree_from_chart_reference

    rng = random.Random(7)
    vocab = LabelVocab(["", "NP", "S::VP", "VP", "A::B::C", "PP"])
    for _ in range(600):
        n = rng.randint(1, 14)
        leaves = [Leaf(f"T{k}", f"w{k}") for k in range(n)]
        spans = random_span_set(rng, n, len(vocab))
        assert tree_from_chart(spans, vocab, leaves) == tree_from_chart_reference(spans, vocab, leaves), spans


def test_one_pass_builder_rejects_what_the_reference_rejects() -> None:
    from mlparse.structs.chart import tree_from_chart_reference

    vocab = LabelVocab(["", "NP"])
    leaves = [Leaf("NN", "a"), Leaf("NN", "b"), Leaf("NN", "c")]
    for bad in ([(0, 2, 1), (1, 3, 1)], [(0, 4, 1)], [(0, 2, 1), (0, 2, 0)], [(1, 1, 1)], [(0, 1, 2)]):
        messages = []
        for build in (tree_from_chart, tree_from_chart_reference):
            with pytest.raises(ValueError) as error:
                build(bad, vocab, leaves)
            messages.append(str(error.value).split(" is not in ")[0])
        assert messages[0] == messages[1]


def test_one_pass_builder_rebuilds_every_wsj_sample_tree(treebanks) -> None:  # type: ignore[no-untyped-def]
    from mlparse.trees import ensure_top, read_bracketed_file, strip_empty_elements, strip_functional_tags

    prepared = [ensure_top(strip_functional_tags(strip_empty_elements(tree)))
                for path in sorted((treebanks / "ptb-sample" / "wsj").glob("*/wsj_*.mrg"))
                for tree in read_bracketed_file(path).trees]
    assert len(prepared) == 3914
    vocab = LabelVocab.from_trees(prepared)
    for tree in prepared:
        spans = [(i, j, label) for (i, j), label in gold_spans(tree, vocab).items()]
        assert tree_from_chart(spans, vocab, tree.leaves()) == tree
