"""The exact joint span + dependency decoder (reference, Cython) against brute force, CKY and Eisner."""

from __future__ import annotations

import logging
from math import comb
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest

from mlparse.structs import joint as joint_module
from mlparse.structs.chart_tree import is_binary_bracketing
from mlparse.structs.cky import decode
from mlparse.structs.dep_brute_force import all_trees
from mlparse.structs.dep_tree import tree_score
from mlparse.structs.eisner import decode_eisner
from mlparse.structs.joint import (
    JointGold,
    JointTree,
    compiled_available,
    decode_joint,
    decode_joint_compiled,
    decode_separate,
)
from mlparse.structs.joint_brute_force import brute_force_joint, headed_trees
from mlparse.structs.joint_reference import decode_joint_reference
from mlparse.structs.joint_tree import headed_tree_problem, joint_score
from mlparse.structs.mst import decode_mst

Gold = Tuple[Dict[Tuple[int, int], int], np.ndarray]


def random_scores(rng: np.random.Generator, n: int, num_labels: int, ties: bool, dtype=np.float32):
    """Span scores (n+1, n+1, L) and arc scores (n+1, n+1): normal floats, or small integers (ties everywhere)."""
    if ties:
        spans = rng.integers(-2, 3, size=(n + 1, n + 1, num_labels))
        arcs = rng.integers(-2, 3, size=(n + 1, n + 1))
    else:
        spans = rng.normal(size=(n + 1, n + 1, num_labels))
        arcs = rng.normal(size=(n + 1, n + 1))
    return spans.astype(dtype), arcs.astype(dtype)


def random_gold(rng: np.random.Generator, n: int, num_labels: int) -> Gold:
    """A random headed binary tree as gold, its spans labelled at random (EMPTY included)."""
    trees = headed_trees(n)
    spans, heads = trees[int(rng.integers(len(trees)))]
    return {span: int(rng.integers(num_labels)) for span in spans}, heads


def exact_decoders(spans: np.ndarray, arcs: np.ndarray, gold: Optional[Gold] = None, length=None) -> List[JointTree]:
    trees = [decode_joint_reference(spans, arcs, length, gold)]
    if compiled_available():
        trees.append(decode_joint_compiled(spans, arcs, length, gold))
    return trees


def assert_same_tree(a: JointTree, b: JointTree) -> None:
    assert a.score == b.score
    assert a.spans == b.spans
    assert a.heads.tolist() == b.heads.tolist()
    assert a == b


def test_joint_trees_compare_by_value() -> None:
    tree = JointTree(spans=[(0, 2, 1), (0, 1, 0), (1, 2, 0)], heads=np.array([-1, 0, 1]), score=1.5)
    assert tree == JointTree(spans=list(tree.spans), heads=tree.heads.copy(), score=1.5)
    assert tree != JointTree(spans=tree.spans, heads=np.array([-1, 2, 0]), score=1.5)
    assert tree != JointTree(spans=tree.spans, heads=tree.heads, score=2.5)
    assert tree != JointTree(spans=[(0, 2, 0), (0, 1, 0), (1, 2, 0)], heads=tree.heads, score=1.5)
    assert tree.length == 2


def catalan(m: int) -> int:
    return comb(2 * m, m) // (m + 1)


def test_compiled_decoder_is_built() -> None:
    # The build step (setup.py build_ext / pip install -e .) must produce the extension.
    assert compiled_available()


def test_brute_force_enumerates_every_headed_tree_once() -> None:
    for n in range(1, 7):
        trees = headed_trees(n)
        assert len(trees) == catalan(n - 1) * 2 ** (n - 1)
        keys = {(spans, tuple(heads.tolist())) for spans, heads in trees}
        assert len(keys) == len(trees)
        for spans, heads in trees:
            assert headed_tree_problem([(i, j, 0) for i, j in spans], heads) is None
        # The dependency sides are exactly the projective single-rooted trees.
        projective = {tuple(row) for row in all_trees(n, projective=True).tolist()}
        assert {tuple(heads.tolist()) for _, heads in trees} == projective


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("augmented", [False, True])
def test_decoders_equal_brute_force(ties: bool, augmented: bool) -> None:
    rng = np.random.default_rng(11 + 2 * ties + augmented)
    for n in range(1, 7):
        for case in range(12 if n < 6 else 5):
            num_labels = int(rng.integers(1, 6))
            dtype = np.float64 if case % 3 == 0 else np.float32
            spans, arcs = random_scores(rng, n, num_labels, ties, dtype)
            gold = random_gold(rng, n, num_labels) if augmented else None
            expected = brute_force_joint(spans, arcs, gold)
            assert headed_tree_problem(expected.spans, expected.heads) is None
            trees = exact_decoders(spans, arcs, gold)
            for tree in trees:
                assert tree.score == pytest.approx(expected.score, abs=1e-9), (n, case)
                assert headed_tree_problem(tree.spans, tree.heads) is None, (n, case)
                assert joint_score(spans, arcs, tree.spans, tree.heads, gold) == pytest.approx(tree.score, abs=1e-9)
            assert_same_tree(trees[0], trees[-1])


def test_ties_go_to_the_smallest_split_and_the_smallest_head() -> None:
    # All trees score 0: the leftmost split, the first root word and the first hooked head win,
    # which makes the right-branching bracketing with the chain 1 <- 0, 2 <- 1, 3 <- 2, ...
    n = 7
    for tree in exact_decoders(np.zeros((n + 1, n + 1, 3), dtype=np.float32), np.zeros((n + 1, n + 1))):
        assert tree.score == 0.0
        assert tree.spans == [span for i in range(n - 1) for span in ((i, n, 0), (i, i + 1, 0))] + [(n - 1, n, 0)]
        assert tree.heads.tolist() == [-1] + list(range(n))


def test_reference_and_compiled_agree_on_longer_sentences() -> None:
    rng = np.random.default_rng(5)
    for n in (9, 17, 30):
        spans, arcs = random_scores(rng, n, 7, ties=n == 17)
        reference, compiled = exact_decoders(spans, arcs)
        assert_same_tree(reference, compiled)
        assert headed_tree_problem(compiled.spans, compiled.heads) is None
        assert joint_score(spans, arcs, compiled.spans, compiled.heads) == pytest.approx(compiled.score, abs=1e-9)


def test_zero_arc_scores_give_the_cky_tree() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 5, 12, 20):
        spans, _ = random_scores(rng, n, int(rng.integers(1, 9)), ties=False)
        chart = decode(spans)
        for tree in exact_decoders(spans, np.zeros((n + 1, n + 1), dtype=np.float32)):
            assert tree.score == chart.score
            assert tree.spans == chart.spans


@pytest.mark.parametrize("constant", [0.0, 0.75, -1.5])
def test_constant_span_scores_give_the_eisner_tree(constant: float) -> None:
    rng = np.random.default_rng(int(constant * 4) + 20)
    for n in (1, 3, 8, 15, 22):
        spans = np.zeros((n + 1, n + 1, 2), dtype=np.float32)
        spans[:, :, 1] = constant  # every span: max(0, constant), whatever the bracketing
        arcs = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        heads = decode_eisner(arcs)
        expected = (2 * n - 1) * max(constant, 0.0) + tree_score(arcs, heads)
        for tree in exact_decoders(spans, arcs):
            assert tree.heads.tolist() == heads.tolist()
            assert tree.score == pytest.approx(expected, abs=1e-9)


def test_length_decodes_the_prefix_of_padded_arrays() -> None:
    rng = np.random.default_rng(3)
    padded = 9
    for n in (1, 4, 9):
        spans, arcs = random_scores(rng, padded, 4, ties=False)
        spans[:, n + 1 :] = 50.0  # padding that would win if it were read
        arcs[n + 1 :, :] = 50.0
        arcs[:, n + 1 :] = 50.0
        expected = decode_joint_reference(spans[: n + 1, : n + 1].copy(), arcs[: n + 1, : n + 1].copy())
        for tree in exact_decoders(spans, arcs, length=n):
            assert_same_tree(tree, expected)
            assert len(tree.heads) == n + 1


def test_loss_augmented_decoding_adds_both_hamming_costs() -> None:
    n, num_labels = 5, 3
    rng = np.random.default_rng(8)
    gold = random_gold(rng, n, num_labels)
    zero_spans = np.zeros((n + 1, n + 1, num_labels), dtype=np.float32)
    zero_arcs = np.zeros((n + 1, n + 1), dtype=np.float32)
    for tree in exact_decoders(zero_spans, zero_arcs, JointGold(*gold)):
        # With nothing scored, the decoder buys every cost it can: 2n - 1 spans (L >= 2) plus wrong heads.
        wrong_heads = sum(1 for d in range(1, n + 1) if tree.heads[d] != gold[1][d])
        assert tree.score == 2 * n - 1 + wrong_heads
        assert wrong_heads == max(
            sum(1 for d in range(1, n + 1) if heads[d] != gold[1][d]) for _, heads in headed_trees(n)
        )
    # A model that scores the gold tree far above the rest still decodes it, costs 0.
    spans = np.full((n + 1, n + 1, num_labels), -5.0, dtype=np.float32)
    arcs = np.full((n + 1, n + 1), -5.0, dtype=np.float32)
    for (i, j), label in gold[0].items():
        spans[i, j, label] = 5.0
    arcs[gold[1][1:], np.arange(1, n + 1)] = 5.0
    for tree in exact_decoders(spans, arcs, gold):
        assert tree.heads.tolist() == gold[1].tolist()
        assert {(i, j): label for i, j, label in tree.spans} == gold[0]


def test_separate_decoding_is_cky_plus_mst_and_bounds_the_joint_score() -> None:
    rng = np.random.default_rng(13)
    for n in (1, 4, 10, 18):
        spans, arcs = random_scores(rng, n, 5, ties=False)
        separate = decode_separate(spans, arcs)
        projective = decode_separate(spans, arcs, projective=True)
        chart = decode(spans)
        assert separate.spans == projective.spans == chart.spans
        assert separate.heads.tolist() == decode_mst(arcs).tolist()
        assert projective.heads.tolist() == decode_eisner(arcs).tolist()
        assert separate.score == pytest.approx(chart.score + tree_score(arcs, separate.heads), abs=1e-9)
        # Each drops a constraint of the joint problem, so its optimum is at least the joint one.
        joint = decode_joint(spans, arcs)
        assert joint.score <= projective.score + 1e-9 <= separate.score + 2e-9


def test_headed_tree_problem_names_what_is_wrong() -> None:
    spans = [(0, 3, 0), (0, 1, 0), (1, 3, 0), (1, 2, 0), (2, 3, 0)]
    assert headed_tree_problem(spans, [-1, 3, 3, 0]) is None  # 3 heads (1, 3) and the root span
    assert headed_tree_problem(spans, [-1, 0, 3, 1]) is None  # 1 heads the root span, 3 hangs from it
    # Every span has one word headed outside it, but word 1 (the left child's head) hangs from 2,
    # not from 3, the head of the root span: not a headed tree.
    assert "depends on 2, not on 3" in headed_tree_problem(spans, [-1, 2, 3, 0])
    assert "2 words headed outside it [2, 3]" in headed_tree_problem(spans, [-1, 0, 1, 1])
    assert "bracketing" in headed_tree_problem(spans[:-1], [-1, 3, 3, 0])
    assert "dependents" in headed_tree_problem(spans, [-1, 0, 0, 2])


def test_fallback_to_reference(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(29)
    spans, arcs = random_scores(rng, 8, 4, ties=True)
    monkeypatch.setattr(joint_module, "_joint_core", None)
    monkeypatch.setattr(joint_module, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="mlparse.structs.joint"):
        first = decode_joint(spans, arcs)
        second = decode_joint(spans, arcs)
    assert_same_tree(first, second)
    assert_same_tree(first, decode_joint_reference(spans, arcs))
    assert sum("pure-Python" in r.message for r in caplog.records) == 1
    with pytest.raises(RuntimeError, match="build_ext"):
        decode_joint_compiled(spans, arcs)


@pytest.mark.parametrize("decoder", [decode_joint, decode_joint_reference, decode_separate])
def test_invalid_inputs_raise_clear_errors(decoder) -> None:
    spans = np.zeros((4, 4, 2), dtype=np.float32)
    arcs = np.zeros((4, 4), dtype=np.float32)
    with pytest.raises(ValueError, match="different lengths"):
        decoder(spans, np.zeros((5, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="length"):
        decoder(spans, arcs, length=4)
    bad = arcs.copy()
    bad[0, 2] = np.nan
    with pytest.raises(ValueError, match=r"scores\[0, 2\] is nan"):
        decoder(spans, bad)
    with pytest.raises(ValueError, match="gold heads are not a tree"):
        decoder(spans, arcs, gold=({}, [-1, 0, 0, 0]))
    with pytest.raises(ValueError, match="gold span"):
        decoder(spans, arcs, gold=({(0, 5): 1}, [-1, 0, 1, 2]))
    assert is_binary_bracketing(decoder(spans, arcs).spans, 3)


def test_arrays_of_any_memory_layout_decode_alike() -> None:
    """Transposed (Fortran-ordered) views and strided slices give the tree of their C-ordered copies."""
    rng = np.random.default_rng(11)
    spans = rng.normal(size=(8, 8, 3))
    arcs = rng.normal(size=(8, 8))
    expected = decode_joint(np.ascontiguousarray(spans), np.ascontiguousarray(arcs))
    fortran_arcs = np.asfortranarray(arcs)
    transposed_arcs = np.ascontiguousarray(arcs.T).T  # a view with C-contiguous storage read column-wise
    fortran_spans = np.asfortranarray(spans)
    strided_spans = np.repeat(spans, 2, axis=2)[:, :, ::2]
    layouts = ((spans, fortran_arcs), (spans, transposed_arcs), (fortran_spans, arcs), (strided_spans, arcs))
    for span_scores, arc_scores in layouts:
        assert decode_joint(span_scores, arc_scores) == expected
        assert decode_joint_reference(span_scores, arc_scores) == expected
