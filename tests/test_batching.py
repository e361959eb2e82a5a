"""Token-budget batching and epoch shuffling."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from mlparse.data.batching import epoch_batches, map_in_batches, pack_by_tokens, padded_tokens


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=60), min_size=0, max_size=80), st.integers(min_value=1, max_value=400))
def test_pack_covers_every_item_once_within_budget(lengths: list, budget: int) -> None:
    groups = pack_by_tokens(lengths, budget)
    flat = [i for g in groups for i in g]
    assert sorted(flat) == list(range(len(lengths)))
    for group in groups:
        cost = len(group) * max(padded_tokens(lengths[i]) for i in group)
        assert cost <= budget or len(group) == 1  # an over-long sentence gets a group of its own


def test_pack_sorts_by_length_and_respects_subset() -> None:
    lengths = [5, 30, 6, 29, 7, 31]
    groups = pack_by_tokens(lengths, 70, indices=[0, 1, 2, 3])
    assert groups == [[1, 3], [2, 0]]  # 2*32=64 <= 70; then the short ones together


def test_map_in_batches_returns_original_order() -> None:
    rng = random.Random(0)
    items = [f"s{i}" for i in range(50)]
    lengths = [rng.randint(1, 40) for _ in items]
    calls = []

    def function(group: list) -> list:
        calls.append(len(group))
        return [item.upper() for item in group]

    assert map_in_batches(items, lengths, 100, function) == [item.upper() for item in items]
    assert len(calls) > 1 and sum(calls) == len(items)


def test_epoch_batches_are_reproducible_and_differ_between_epochs() -> None:
    first = epoch_batches(103, 10, seed=1, epoch=0)
    assert first == epoch_batches(103, 10, seed=1, epoch=0)
    assert [len(b) for b in first] == [10] * 10 + [3]
    assert sorted(i for b in first for i in b) == list(range(103))
    assert first != epoch_batches(103, 10, seed=1, epoch=1)
    assert first != epoch_batches(103, 10, seed=2, epoch=0)


def test_bucket_batches_cover_every_item_once_and_are_reproducible() -> None:
    rng = random.Random(4)
    lengths = [rng.randint(1, 80) for _ in range(1234)]
    first = epoch_batches(len(lengths), 8, seed=1, epoch=0, lengths=lengths)
    assert sorted(i for b in first for i in b) == list(range(len(lengths)))
    assert first == epoch_batches(len(lengths), 8, seed=1, epoch=0, lengths=lengths)
    assert first != epoch_batches(len(lengths), 8, seed=1, epoch=1, lengths=lengths)
    assert first != epoch_batches(len(lengths), 8, seed=2, epoch=0, lengths=lengths)
    # pools of 8 * BUCKET_POOL_BATCHES = 400 items: 400, 400, 400, 34 -> every batch full but the last of each pool
    assert sum(len(b) < 8 for b in first) <= 4


def test_bucket_batches_hold_similar_lengths_in_a_random_order() -> None:
    """Padding (the batch's longest minus each member's length) falls far below shuffled batches', while the
    order of batches is not sorted by length."""
    rng = random.Random(5)
    lengths = [rng.randint(1, 80) for _ in range(2000)]

    def padding(batches: list) -> int:
        return sum(max(lengths[i] for i in b) * len(b) - sum(lengths[i] for i in b) for b in batches)

    shuffled = epoch_batches(len(lengths), 32, seed=1, epoch=0)
    buckets = epoch_batches(len(lengths), 32, seed=1, epoch=0, lengths=lengths)
    assert padding(buckets) * 10 < padding(shuffled)
    longest = [max(lengths[i] for i in b) for b in buckets]
    assert longest != sorted(longest) and longest != sorted(longest, reverse=True)


def test_bucket_batches_need_one_length_per_item() -> None:
    import pytest

    with pytest.raises(ValueError, match="3 lengths for 4 items"):
        epoch_batches(4, 2, seed=1, epoch=0, lengths=[1, 2, 3])
