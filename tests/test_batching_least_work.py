"""``pack_least_work``: the least-cost partition of a batch into sub-batches, against every partition of small sets."""

from __future__ import annotations

from typing import Iterator, List

from hypothesis import given, settings
from hypothesis import strategies as st

from mlparse.data.batching import pack_by_tokens, pack_least_work, padded_tokens


def set_partitions(items: List[int]) -> Iterator[List[List[int]]]:
    """Every partition of ``items`` into non-empty groups (Bell(n) of them)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first]] + partition
        for k in range(len(partition)):
            yield partition[:k] + [[first] + partition[k]] + partition[k + 1:]


def total_cost(groups: List[List[int]], lengths: List[int], overhead: float) -> float:
    return sum(len(g) * max(padded_tokens(lengths[i]) for i in g) + overhead for g in groups)


def feasible(groups: List[List[int]], lengths: List[int], budget: int) -> bool:
    return all(len(g) == 1 or len(g) * max(padded_tokens(lengths[i]) for i in g) <= budget for g in groups)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=7),
       st.integers(min_value=1, max_value=200), st.sampled_from([0.0, 3.0, 20.0, 160.0]))
def test_least_work_is_the_cheapest_of_every_partition(lengths: list, budget: int, overhead: float) -> None:
    groups = pack_least_work(lengths, budget, overhead=overhead)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert feasible(groups, lengths, budget)
    cheapest = min(total_cost(p, lengths, overhead) for p in set_partitions(list(range(len(lengths))))
                   if feasible(p, lengths, budget))
    assert abs(total_cost(groups, lengths, overhead) - cheapest) < 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=80), min_size=0, max_size=120),
       st.integers(min_value=1, max_value=3000), st.floats(min_value=0.0, max_value=500.0))
def test_least_work_covers_every_item_once_within_budget(lengths: list, budget: int, overhead: float) -> None:
    groups = pack_least_work(lengths, budget, overhead=overhead)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert feasible(groups, lengths, budget)
    for group in groups:  # longest first within a group
        assert [lengths[i] for i in group] == sorted((lengths[i] for i in group), reverse=True)


def test_least_work_never_costs_more_than_filling() -> None:
    lengths = [3, 41, 7, 12, 12, 60, 5, 18, 25, 9] * 30
    for overhead in (0.0, 40.0, 160.0, 1000.0):
        least = pack_least_work(lengths, 5000, overhead=overhead)
        filled = pack_by_tokens(lengths, 5000)
        assert total_cost(least, lengths, overhead) <= total_cost(filled, lengths, overhead)


def test_a_large_overhead_gives_the_fewest_groups_and_none_gives_no_padding() -> None:
    lengths = [10, 10, 20, 20, 20, 30]
    assert pack_least_work(lengths, 10_000, overhead=1e6) == [[5, 2, 3, 4, 0, 1]]  # one group, longest first
    assert pack_least_work(lengths, 10_000, overhead=0.0) == [[5], [2, 3, 4], [0, 1]]  # one group per length
    assert pack_least_work(lengths, 10_000, overhead=0.0, indices=[0, 5]) == [[5], [0]]


def test_an_item_over_the_budget_gets_a_group_of_its_own() -> None:
    groups = pack_least_work([100, 2, 3], 20, overhead=50.0)
    assert groups == [[0], [2, 1]]
