"""MST decoders (Cython and pure Python) against brute force and each other."""

from __future__ import annotations

import logging
from typing import List

import numpy as np
import pytest

from mlparse.structs import mst as mst_module
from mlparse.structs.dep_brute_force import all_tree_scores
from mlparse.structs.dep_tree import is_projective, is_well_formed, tree_score
from mlparse.structs.mst import compiled_available, decode_mst, decode_mst_compiled
from mlparse.structs.mst_reference import decode_mst_reference

# Random cases per length for the brute-force comparison (n = 7 has 117,649 trees).
CASES = {1: 3, 2: 40, 3: 80, 4: 80, 5: 60, 6: 40, 7: 15}


def random_scores(rng: np.random.Generator, n: int, ties: bool) -> np.ndarray:
    """Float scores (ties unlikely) or small integers (ties everywhere), float32 (n+1, n+1)."""
    if ties:
        return rng.integers(-2, 3, size=(n + 1, n + 1)).astype(np.float32)
    return rng.normal(size=(n + 1, n + 1)).astype(np.float32)


def random_tree(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random single-rooted tree (usually non-projective): words attach to earlier words of a permutation."""
    order = rng.permutation(np.arange(1, n + 1))
    heads = np.full(n + 1, -1, dtype=np.int64)
    heads[order[0]] = 0
    for index in range(1, n):
        heads[order[index]] = order[rng.integers(0, index)]
    return heads


def mst_decoders(scores: np.ndarray) -> List[np.ndarray]:
    out = [decode_mst_reference(scores)]
    if compiled_available():
        out.append(decode_mst_compiled(scores))
    return out


def test_compiled_decoder_is_built() -> None:
    assert compiled_available()


@pytest.mark.parametrize("ties", [False, True])
def test_decoders_reach_the_brute_force_maximum(ties: bool) -> None:
    rng = np.random.default_rng(100 + ties)
    several_root_arcs_win = 0
    for n, cases in CASES.items():
        for _ in range(cases):
            scores = random_scores(rng, n, ties)
            best = all_tree_scores(scores).max()
            reference, *others = mst_decoders(scores)
            assert is_well_formed(reference), (scores, reference)
            assert tree_score(scores, reference) == pytest.approx(best, abs=1e-9), (scores, reference)
            for heads in others:
                assert heads.tolist() == reference.tolist()  # same steps, same ties
            # Would the unconstrained greedy choice take several root arcs?  (Then the constraint matters.)
            greedy = scores.copy()
            np.fill_diagonal(greedy, -np.inf)
            several_root_arcs_win += int((greedy[:, 1:].argmax(axis=0) == 0).sum() >= 2)
    assert several_root_arcs_win >= 20  # the single-root constraint was exercised


def test_single_root_even_when_the_root_arcs_dominate() -> None:
    """Every word prefers the root; the best tree keeps the best root arc and chains the rest."""
    n = 5
    scores = np.zeros((n + 1, n + 1), dtype=np.float64)
    scores[0, 1:] = [10.0, 9.0, 8.0, 11.0, 7.0]
    scores[4, 1:] = [1.0, 2.0, 3.0, 0.0, 4.0]  # word 4 is the best other head for everyone
    for heads in mst_decoders(scores):
        assert heads.tolist() == [-1, 4, 4, 4, 0, 4]
        assert tree_score(scores, heads) == all_tree_scores(scores).max()


def test_nested_cycles() -> None:
    """Two 2-cycles whose contractions form a cycle again; the root enters at its best point."""
    scores = np.full((5, 5), -5.0)
    scores[2, 1] = scores[1, 2] = 4.0  # cycle {1, 2}
    scores[4, 3] = scores[3, 4] = 4.0  # cycle {3, 4}
    scores[1, 3] = 2.0  # {1, 2} -> {3, 4}
    scores[4, 2] = 2.0  # {3, 4} -> {1, 2}
    scores[0, 1:] = [-1.0, -2.0, -3.0, -0.5]
    best = all_tree_scores(scores).max()
    for heads in mst_decoders(scores):
        assert tree_score(scores, heads) == best
        assert heads.tolist() == [-1, 2, 4, 4, 0]


@pytest.mark.parametrize("ties", [False, True])
def test_twins_identical_on_longer_sentences(ties: bool) -> None:
    rng = np.random.default_rng(7 + ties)
    for _ in range(25):
        n = int(rng.integers(8, 90))
        scores = random_scores(rng, n, ties)
        reference = decode_mst_reference(scores)
        assert is_well_formed(reference)
        assert decode_mst(scores).tolist() == reference.tolist()
        assert decode_mst(scores.astype(np.float64)).tolist() == reference.tolist()


def test_planted_tree_is_recovered() -> None:
    rng = np.random.default_rng(11)
    non_projective = 0
    for _ in range(20):
        n = int(rng.integers(2, 70))
        planted = random_tree(rng, n)
        scores = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        scores[planted[1:], np.arange(1, n + 1)] += 10.0
        for heads in mst_decoders(scores):
            assert heads.tolist() == planted.tolist()
        non_projective += not is_projective(planted)
    assert non_projective >= 10


def test_padding_is_ignored() -> None:
    rng = np.random.default_rng(5)
    for n in (1, 2, 9, 30):
        padded = rng.normal(size=(41, 41)).astype(np.float32)
        expected = decode_mst_reference(padded[: n + 1, : n + 1].copy())
        padded[n + 1 :, :] = np.nan  # never read
        padded[: n + 1, n + 1 :] = 1e30
        np.fill_diagonal(padded, np.inf)
        padded[:, 0] = np.nan
        for decode in (decode_mst_reference, decode_mst_compiled):
            assert decode(padded, length=n).tolist() == expected.tolist()


def test_integer_strided_and_read_only_input() -> None:
    rng = np.random.default_rng(2)
    scores = rng.integers(-9, 10, size=(12, 12))
    expected = decode_mst_reference(scores.astype(np.float64))
    assert decode_mst(scores).tolist() == expected.tolist()
    big = np.zeros((24, 24), dtype=np.float32)
    big[::2, ::2] = scores
    assert decode_mst(big[::2, ::2]).tolist() == expected.tolist()
    big.setflags(write=False)  # e.g. a numpy view of a tensor that must not be written
    assert decode_mst(big[::2, ::2]).tolist() == expected.tolist()


def test_invalid_inputs_raise_clear_errors() -> None:
    for decode in (decode_mst_reference, decode_mst):
        with pytest.raises(ValueError, match="shape"):
            decode(np.zeros((3, 3, 2)))
        with pytest.raises(ValueError, match="not in 1..2"):
            decode(np.zeros((3, 3)), length=0)
        scores = np.zeros((3, 3))
        scores[0, 2] = np.inf
        with pytest.raises(ValueError, match="must be finite"):
            decode(scores)


def test_fallback_to_reference(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    scores = np.random.default_rng(4).normal(size=(8, 8))
    expected = decode_mst_compiled(scores)
    monkeypatch.setattr(mst_module.DECODER, "core", None)
    monkeypatch.setattr(mst_module.DECODER, "warned", False)
    with caplog.at_level(logging.WARNING, logger="mlparse.structs.mst"):
        assert decode_mst(scores).tolist() == expected.tolist()
        assert decode_mst(scores).tolist() == expected.tolist()
    assert sum("pure-Python" in r.message for r in caplog.records) == 1
    assert not mst_module.compiled_available()
    with pytest.raises(RuntimeError, match="not built"):
        decode_mst_compiled(scores)
