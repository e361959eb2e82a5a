"""CKY decoders (reference, Cython, batched torch) against brute force and each other."""

from __future__ import annotations

import logging
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
import torch

from mlparse.structs import cky as cky_module
from mlparse.structs.brute_force import all_labeled_trees, brute_force_best_score, brute_force_decode, label_value
from mlparse.structs.chart_tree import (
    ChartTree,
    gold_score,
    hamming_cost,
    is_binary_bracketing,
    span_score,
)
from mlparse.structs.cky import compiled_available, decode, decode_compiled, hinge_loss
from mlparse.structs.cky_reference import decode_reference
from mlparse.structs.cky_torch import decode_batch, gold_label_tensor, hinge_loss_batch

Gold = Dict[Tuple[int, int], int]


def random_scores(rng: np.random.Generator, n: int, num_labels: int, ties: bool) -> np.ndarray:
    """Float scores (ties unlikely) or small integers (ties everywhere), float32."""
    shape = (n + 1, n + 1, num_labels)
    if ties:
        return rng.integers(-2, 3, size=shape).astype(np.float32)
    return rng.normal(size=shape).astype(np.float32)


def random_gold(rng: np.random.Generator, n: int, num_labels: int) -> Gold:
    """Labelled spans of a random binary bracketing (some labels EMPTY, so the tree looks n-ary)."""
    gold: Gold = {}

    def visit(i: int, j: int) -> None:
        label = int(rng.integers(0, num_labels))
        if label or rng.random() < 0.2:
            gold[i, j] = label
        if j - i >= 2:
            k = int(rng.integers(i + 1, j))
            visit(i, k)
            visit(k, j)

    visit(0, n)
    return gold


def torch_decode(scores: np.ndarray, gold: Optional[Gold]) -> ChartTree:
    n = scores.shape[0] - 1
    gold_tensor = None if gold is None else gold_label_tensor([gold], n)
    return decode_batch(torch.from_numpy(scores)[None], [n], gold_tensor)[0]


def all_decoders(scores: np.ndarray, gold: Optional[Gold]) -> List[ChartTree]:
    trees = [decode_reference(scores, gold), torch_decode(scores, gold)]
    if compiled_available():
        trees.append(decode_compiled(scores, gold))
    return trees


def test_compiled_decoder_is_built() -> None:
    # The build step (setup.py build_ext / pip install -e .) must produce the extension.
    assert compiled_available()


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("augmented", [False, True])
def test_decoders_equal_brute_force(ties: bool, augmented: bool) -> None:
    rng = np.random.default_rng(1 + 2 * ties + augmented)
    for n in range(1, 8):
        for _ in range(6):
            num_labels = int(rng.integers(1, 7))
            scores = random_scores(rng, n, num_labels, ties)
            gold = random_gold(rng, n, num_labels) if augmented else None
            expected = brute_force_decode(scores, gold)
            for tree in all_decoders(scores, gold):
                assert tree.spans == expected.spans, (n, num_labels, tree, expected)
                assert tree.score == pytest.approx(expected.score, abs=1e-9)


@pytest.mark.parametrize("augmented", [False, True])
def test_best_score_over_every_labelling(augmented: bool) -> None:
    """Enumerate labels too (tiny n, L): the decoded tree is optimal and scored correctly."""
    rng = np.random.default_rng(7)
    for n in range(1, 4):
        for num_labels in range(1, 4):
            for ties in (False, True):
                scores = random_scores(rng, n, num_labels, ties)
                gold = random_gold(rng, n, num_labels) if augmented else None
                best = brute_force_best_score(scores, gold)
                tree = decode(scores, gold)
                rescored = sum(label_value(scores, i, j, l, gold) for i, j, l in tree.spans)
                assert tree.score == pytest.approx(best, abs=1e-9)
                assert rescored == pytest.approx(best, abs=1e-9)


def test_labelling_ties_pick_lowest_index() -> None:
    scores = np.zeros((3, 3, 4), dtype=np.float32)
    scores[0, 2, 2] = scores[0, 2, 3] = 1.0  # labels 2 and 3 tie on the root
    scores[0, 1, 1] = 0.0  # ties with EMPTY: EMPTY wins
    for tree in all_decoders(scores, None):
        assert tree.spans == [(0, 2, 2), (0, 1, 0), (1, 2, 0)]
    best_trees = [t for t in all_labeled_trees(scores) if t.score == 1.0]
    assert any(t.spans == [(0, 2, 2), (0, 1, 0), (1, 2, 0)] for t in best_trees)


def test_split_ties_pick_leftmost() -> None:
    scores = np.zeros((4, 4, 2), dtype=np.float32)  # every bracketing scores 0
    for tree in all_decoders(scores, None):
        assert tree.spans == [(0, 3, 0), (0, 1, 0), (1, 3, 0), (1, 2, 0), (2, 3, 0)]


@pytest.mark.parametrize("ties", [False, True])
def test_decoders_identical_on_larger_sentences(ties: bool) -> None:
    rng = np.random.default_rng(11 + ties)
    for trial in range(12):
        n = int(rng.integers(8, 41))
        num_labels = int(rng.integers(1, 40))
        scores = random_scores(rng, n, num_labels, ties)
        for gold in (None, random_gold(rng, n, num_labels)):
            trees = all_decoders(scores, gold)
            assert is_binary_bracketing(trees[0].spans, n)
            for tree in trees[1:]:
                assert tree == trees[0]  # same spans, bit-identical score
            cost = 0 if gold is None else hamming_cost(trees[0].spans, gold)
            assert trees[0].score == pytest.approx(span_score(scores, trees[0].spans) + cost, abs=1e-6)


@pytest.mark.parametrize("ties", [False, True])
def test_batched_decoder_matches_single_sentences(ties: bool) -> None:
    """Mixed lengths in one padded batch; padding holds garbage that must be ignored."""
    rng = np.random.default_rng(23 + ties)
    lengths = [1, 2, 5, 17, 30, 30, 9]
    num_labels, padded = 25, max(lengths)
    batch = random_scores(rng, padded, num_labels, ties)[None].repeat(len(lengths), 0)
    batch = batch + rng.integers(-3, 4, size=batch.shape).astype(np.float32)
    golds = [random_gold(rng, n, num_labels) for n in lengths]
    for gold in (None, golds):
        gold_tensor = None if gold is None else gold_label_tensor(gold, padded)
        trees = decode_batch(torch.from_numpy(batch), torch.tensor(lengths), gold_tensor)
        for b, n in enumerate(lengths):
            single = batch[b, : n + 1, : n + 1]
            one_gold = None if gold is None else gold[b]
            assert trees[b] == decode_reference(single, one_gold)
            assert trees[b] == decode(batch[b], one_gold, length=n)  # padded array + length


def test_batched_decoder_launches_three_operations_per_width() -> None:
    """Each width of the loop adds children, takes the max over split points and adds the label values:
    three operations that compute (kernel launches on a GPU), whatever the batch; the rest are views."""
    from benchmarks.instrumentation.dispatch_count import DispatchCounter

    rng = np.random.default_rng(4)
    computing = {}
    for padded in (10, 30):
        scores = torch.from_numpy(random_scores(rng, padded, 6, ties=True))[None].repeat(3, 1, 1, 1)
        gold = gold_label_tensor([random_gold(rng, n, 6) for n in (padded, padded - 4, 3)], padded)
        with DispatchCounter() as counter:
            decode_batch(scores, [padded, padded - 4, 3], gold)
        computing[padded] = counter.computing
    assert (computing[30] - computing[10]) / 20 == 3


def test_batched_decoder_gives_max_outputs_of_one_layout() -> None:
    """CUDA's ``torch.max(..., out=(values, indices))`` refuses outputs of different strides (the CPU takes
    any), which the GPU path met on an H200: every such call of the decoder passes outputs laid out alike."""
    from torch.overrides import TorchFunctionMode

    seen = []

    class MaxOutputs(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            kwargs = kwargs or {}
            if func is torch.max and kwargs.get("out") is not None:
                values, indices = kwargs["out"]
                seen.append((values.shape == indices.shape, values.stride() == indices.stride()))
            return func(*args, **kwargs)

    rng = np.random.default_rng(5)
    scores = torch.from_numpy(random_scores(rng, 12, 4, ties=False))[None].repeat(2, 1, 1, 1)
    with MaxOutputs():
        decode_batch(scores, [12, 7])
    assert seen and all(same_shape and same_strides for same_shape, same_strides in seen)


def test_empty_label_column_is_ignored() -> None:
    rng = np.random.default_rng(5)
    scores = random_scores(rng, 12, 6, ties=False)
    garbage = scores.copy()
    garbage[..., 0] = rng.normal(scale=100.0, size=garbage.shape[:2])
    gold = random_gold(rng, 12, 6)
    for g in (None, gold):
        expected = decode_reference(np.where(np.arange(6) == 0, 0.0, scores).astype(np.float32), g)
        for tree in all_decoders(garbage, g):
            assert tree == expected


def test_float64_input_agrees() -> None:
    rng = np.random.default_rng(9)
    scores = rng.normal(size=(15, 15, 8))
    assert decode(scores) == decode_reference(scores)
    assert decode_batch(torch.from_numpy(scores)[None], [14])[0] == decode_reference(scores)


def test_hinge_loss_against_brute_force() -> None:
    rng = np.random.default_rng(13)
    for n in range(1, 8):
        num_labels = 4
        scores = random_scores(rng, n, num_labels, ties=False)
        gold = random_gold(rng, n, num_labels)
        result = hinge_loss(scores, gold)
        expected = brute_force_decode(scores, gold)
        assert result.predicted.spans == expected.spans
        assert result.augmented_score == pytest.approx(expected.score, abs=1e-9)
        assert result.gold_score == pytest.approx(sum(float(scores[i, j, l]) for (i, j), l in gold.items() if l))
        assert result.loss == pytest.approx(max(0.0, expected.score - result.gold_score), abs=1e-9)
        assert result.loss >= 0.0
        assert result.hamming == hamming_cost(expected.spans, gold)


def test_hinge_loss_zero_when_gold_wins_by_margin() -> None:
    rng = np.random.default_rng(17)
    n, num_labels = 9, 5
    gold = random_gold(rng, n, num_labels)
    scores = np.full((n + 1, n + 1, num_labels), -2.0, dtype=np.float32)
    for (i, j), label in gold.items():
        scores[i, j, label] = 2.0
    result = hinge_loss(scores, gold)
    assert result.loss == 0.0
    assert result.hamming == 0
    assert {(i, j): l for i, j, l in result.predicted.spans if l} == {k: v for k, v in gold.items() if v}


def test_torch_hinge_loss_and_gradient() -> None:
    rng = np.random.default_rng(19)
    lengths, num_labels = [3, 7, 11], 6
    padded = max(lengths)
    base = torch.tensor(rng.normal(size=(len(lengths), padded + 1, padded + 1, num_labels)), dtype=torch.float32)
    scores = base.clone().requires_grad_(True)
    golds = [random_gold(rng, n, num_labels) for n in lengths]
    loss, trees = hinge_loss_batch(scores, lengths, golds)
    loss.backward()
    expected_loss = 0.0
    expected_grad = np.zeros(base.shape, dtype=np.float64)
    for b, n in enumerate(lengths):
        single = base[b].numpy()
        result = hinge_loss(single, golds[b], length=n)
        assert trees[b] == result.predicted
        expected_loss += result.loss
        if result.loss > 0:
            for i, j, l in result.predicted.labeled_spans():
                expected_grad[b, i, j, l] += 1.0
            for (i, j), l in golds[b].items():
                if l:
                    expected_grad[b, i, j, l] -= 1.0
    assert loss.item() == pytest.approx(expected_loss, rel=1e-5)
    assert scores.grad is not None
    np.testing.assert_allclose(scores.grad.numpy(), expected_grad)


def test_gold_score_and_hamming_helpers() -> None:
    scores = np.arange(3 * 3 * 3, dtype=np.float32).reshape(3, 3, 3)
    gold = {(0, 2): 1, (0, 1): 2, (1, 2): 0}
    assert gold_score(scores, gold) == float(scores[0, 2, 1] + scores[0, 1, 2])
    assert hamming_cost([(0, 2, 1), (0, 1, 1), (1, 2, 2)], gold) == 2


def test_fallback_to_reference(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(29)
    scores = random_scores(rng, 10, 5, ties=True)
    monkeypatch.setattr(cky_module, "_cky_core", None)
    monkeypatch.setattr(cky_module, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="mlparse.structs.cky"):
        first = decode(scores)
        second = decode(scores)
    assert first == second == decode_reference(scores)
    assert sum("pure-Python" in r.message for r in caplog.records) == 1
    with pytest.raises(RuntimeError, match="build_ext"):
        decode_compiled(scores)


def test_invalid_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"shape \(n\+1, n\+1, L\)"):
        decode(np.zeros((3, 4, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="length"):
        decode(np.zeros((3, 3, 2), dtype=np.float32), length=3)
    with pytest.raises(ValueError, match="gold span"):
        decode(np.zeros((3, 3, 2), dtype=np.float32), gold={(1, 4): 1})
    with pytest.raises(ValueError, match="gold label"):
        decode(np.zeros((3, 3, 2), dtype=np.float32), gold={(0, 2): 5})
    with pytest.raises(ValueError, match="length"):
        decode_batch(torch.zeros(2, 4, 4, 3), [3, 0])
