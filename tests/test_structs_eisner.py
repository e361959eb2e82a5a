"""Eisner decoders (Cython, pure Python, batched torch) against brute force and each other."""

from __future__ import annotations

import logging
from typing import List

import numpy as np
import pytest
import torch

from mlparse.structs import eisner as eisner_module
from mlparse.structs.dep_brute_force import all_tree_scores
from mlparse.structs.dep_tree import is_projective, tree_score
from mlparse.structs.eisner import compiled_available, decode_eisner, decode_eisner_compiled
from mlparse.structs.eisner_reference import decode_eisner_reference
from mlparse.structs.eisner_torch import decode_batch
from mlparse.structs.mst import decode_mst

# Random cases per length for the brute-force comparison (n = 7 has 3,876 projective trees).
CASES = {1: 3, 2: 30, 3: 60, 4: 60, 5: 60, 6: 40, 7: 40}


def random_scores(rng: np.random.Generator, n: int, ties: bool) -> np.ndarray:
    """Float scores (ties unlikely) or small integers (ties everywhere), float32 (n+1, n+1)."""
    if ties:
        return rng.integers(-2, 3, size=(n + 1, n + 1)).astype(np.float32)
    return rng.normal(size=(n + 1, n + 1)).astype(np.float32)


def random_projective_tree(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random projective single-rooted tree: each interval picks a head, its sides hang from it."""
    heads = np.full(n + 1, -1, dtype=np.int64)
    stack = [(1, n, 0)]
    while stack:
        low, high, head = stack.pop()
        if low > high:
            continue
        middle = int(rng.integers(low, high + 1))
        heads[middle] = head
        stack += [(low, middle - 1, middle), (middle + 1, high, middle)]
    return heads


def test_compiled_decoder_is_built() -> None:
    assert compiled_available()


def batch_decode(charts: List[np.ndarray]) -> List[np.ndarray]:
    """The torch decoder on a list of charts of one length, as one batch."""
    n = charts[0].shape[0] - 1
    heads = decode_batch(torch.from_numpy(np.stack(charts)), [n] * len(charts))
    return list(heads.numpy())


@pytest.mark.parametrize("ties", [False, True])
def test_decoders_reach_the_brute_force_maximum(ties: bool) -> None:
    rng = np.random.default_rng(200 + ties)
    beats_projective = 0
    for n, cases in CASES.items():
        charts = [random_scores(rng, n, ties) for _ in range(cases)]
        for scores, batched in zip(charts, batch_decode(charts)):
            best = all_tree_scores(scores, projective=True).max()
            reference = decode_eisner_reference(scores)
            assert is_projective(reference), (scores, reference)
            assert tree_score(scores, reference) == pytest.approx(best, abs=1e-9), (scores, reference)
            assert decode_eisner_compiled(scores).tolist() == reference.tolist()  # same rules, same ties
            assert batched.tolist() == reference.tolist()
            if n < 7:
                beats_projective += bool(all_tree_scores(scores).max() > best + 1e-9)
    assert beats_projective >= 20  # the non-projective optimum was often out of reach


@pytest.mark.parametrize("ties", [False, True])
def test_decoders_identical_on_longer_sentences(ties: bool) -> None:
    rng = np.random.default_rng(17 + ties)
    lengths = [int(n) for n in rng.integers(8, 45, size=10)]
    padded = max(lengths)
    charts = [random_scores(rng, n, ties) for n in lengths]
    batch = np.zeros((len(charts), padded + 1, padded + 1), dtype=np.float32)
    for b, scores in enumerate(charts):
        batch[b, : scores.shape[0], : scores.shape[0]] = scores
    batched = decode_batch(torch.from_numpy(batch), lengths).numpy()
    for b, (n, scores) in enumerate(zip(lengths, charts)):
        reference = decode_eisner_reference(scores)
        assert is_projective(reference)
        assert decode_eisner(scores).tolist() == reference.tolist()
        assert decode_eisner(scores.astype(np.float64)).tolist() == reference.tolist()
        assert batched[b, : n + 1].tolist() == reference.tolist()
        assert tree_score(scores, reference) <= tree_score(scores, decode_mst(scores)) + 1e-9


def test_planted_projective_tree_is_recovered_and_matches_mst() -> None:
    rng = np.random.default_rng(19)
    for _ in range(12):
        n = int(rng.integers(2, 60))
        planted = random_projective_tree(rng, n)
        scores = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        scores[planted[1:], np.arange(1, n + 1)] += 10.0
        assert decode_eisner_reference(scores).tolist() == planted.tolist()
        assert decode_eisner(scores).tolist() == planted.tolist()
        assert decode_mst(scores).tolist() == planted.tolist()


def test_batched_decoder_ignores_padding() -> None:
    """Mixed lengths in one padded batch; the padding holds garbage that must not matter."""
    rng = np.random.default_rng(23)
    lengths = [1, 2, 5, 17, 30, 30, 9]
    padded = max(lengths)
    batch = rng.integers(-3, 4, size=(len(lengths), padded + 1, padded + 1)).astype(np.float32)
    expected = [decode_eisner_reference(batch[b, : n + 1, : n + 1].copy()) for b, n in enumerate(lengths)]
    for b, n in enumerate(lengths):
        batch[b, n + 1 :, :] = 1e30 if b % 2 else np.nan
        batch[b, :, n + 1 :] = 1e30 if b % 2 else np.nan
        batch[b, :, 0] = np.nan
        np.fill_diagonal(batch[b], 1e30)
    heads = decode_batch(torch.from_numpy(batch), torch.tensor(lengths))
    assert heads.dtype == torch.long and heads.shape == (len(lengths), padded + 1)
    for b, n in enumerate(lengths):
        assert heads[b, : n + 1].tolist() == expected[b].tolist()
        assert (heads[b, n + 1 :] == -1).all()
        assert decode_eisner(batch[b], length=n).tolist() == expected[b].tolist()


def test_batched_decoder_on_cuda_matches_cpu() -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(29)
    lengths = torch.tensor([3, 40, 25, 1])
    scores = torch.from_numpy(rng.normal(size=(4, 41, 41)).astype(np.float32))
    on_gpu = decode_batch(scores.cuda(), lengths.cuda())
    assert on_gpu.device.type == "cuda"
    assert on_gpu.cpu().tolist() == decode_batch(scores, lengths).tolist()


def test_integer_strided_and_read_only_input() -> None:
    rng = np.random.default_rng(2)
    scores = rng.integers(-9, 10, size=(12, 12))
    expected = decode_eisner_reference(scores.astype(np.float64))
    assert decode_eisner(scores).tolist() == expected.tolist()
    big = np.zeros((24, 24), dtype=np.float32)
    big[::2, ::2] = scores
    assert decode_eisner(big[::2, ::2]).tolist() == expected.tolist()
    big.setflags(write=False)  # e.g. a numpy view of a tensor that must not be written
    assert decode_eisner(big[::2, ::2]).tolist() == expected.tolist()


def test_invalid_inputs_raise_clear_errors() -> None:
    for decode in (decode_eisner_reference, decode_eisner):
        with pytest.raises(ValueError, match="shape"):
            decode(np.zeros((3, 4)))
        with pytest.raises(ValueError, match="not in 1..2"):
            decode(np.zeros((3, 3)), length=3)
        scores = np.zeros((3, 3))
        scores[2, 1] = np.nan
        with pytest.raises(ValueError, match="must be finite"):
            decode(scores)
    with pytest.raises(ValueError, match="shape"):
        decode_batch(torch.zeros(2, 3, 4), [1, 2])
    with pytest.raises(ValueError, match="2 lengths for a batch of 3"):
        decode_batch(torch.zeros(3, 4, 4), [1, 2])
    with pytest.raises(ValueError, match="sentence 1: length 4 is not in 1..3"):
        decode_batch(torch.zeros(2, 4, 4), [1, 4])
    with pytest.raises(ValueError, match="floating point"):
        decode_batch(torch.zeros(1, 4, 4, dtype=torch.long), [3])


def test_fallback_to_reference(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    scores = np.random.default_rng(4).normal(size=(8, 8))
    expected = decode_eisner_compiled(scores)
    monkeypatch.setattr(eisner_module.DECODER, "core", None)
    monkeypatch.setattr(eisner_module.DECODER, "warned", False)
    with caplog.at_level(logging.WARNING, logger="mlparse.structs.eisner"):
        assert decode_eisner(scores).tolist() == expected.tolist()
        assert decode_eisner(scores).tolist() == expected.tolist()
    assert sum("pure-Python" in r.message for r in caplog.records) == 1
    assert not eisner_module.compiled_available()
    with pytest.raises(RuntimeError, match="not built"):
        decode_eisner_compiled(scores)
