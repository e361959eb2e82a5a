"""Ensembles of trained parsers: the members' scores averaged, then decoded once.

An :class:`EnsembleParser` holds trained parsers of one kind and task on one device.  A batch of
sentences goes through every member (each indexes the words with its own vocabulary), the
members' scores are combined by the kind's :meth:`~mlparse.models.base.Parser.average_scores`, and
the combination is decoded once, by the first member's decoder reading the ensemble's label lists:

- dependency (``biaffine``): the average of the members' arc probabilities, decoded by MST or
  Eisner, then for each decoded head the average of the members' relation probabilities (Li et al.
  2019, §3.2: "the averaged probability as the final probability of a dependency").  That is the
  default ``mode="probability"``: ``log(1/M · Σ_m p_m)``.  ``mode="log-probability"`` averages the
  logarithms instead (a normalised product of experts, Hinton 2002); the decoders take the
  logarithm of either;
- constituency (``span``): the average of the span-score charts ``s(i, j, l)``, decoded by CKY (the
  scores are not probabilities; ``mode`` applies only to the tagging head's tag distributions);
- a joint parser averages both through its own :meth:`average_scores`.

Output inventories (span labels, relations) must be the same lists up to order, or, when the
members were trained on subsets of one training file (jack-knifed folds: a rare label may fall
wholly in one held-out fold), their union (``union=True``): a member that lacks a relation gives
it probability 0; a span label's score is averaged over the members that have it.  Anything else
is refused (:class:`EnsembleError`, naming the members and what differs).

Shapes: B sentences; L_m labels of member m; U labels of the ensemble (the union).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
from torch import Tensor, nn

from mlparse.models.base import Parser

#: How distributions (arcs, relations, tags) are averaged.
AVERAGING_MODES = ("probability", "log-probability")


class EnsembleError(ValueError):
    """Members that cannot be ensembled, with a message naming them and what differs."""


def _scatter(values: Tensor, index: Optional[Tensor], size: int, fill: float) -> Tensor:
    """``values: Tensor[..., L_m]`` placed at positions ``index: LongTensor[L_m]`` of a ``Tensor[..., size]``
    filled with ``fill`` (``index`` None: the identity, ``L_m == size``)."""
    if index is None:
        return values
    out = values.new_full(values.shape[:-1] + (size,), fill)
    out[..., index] = values
    return out


def _counts(index_maps: Sequence[Optional[Tensor]], size: int, device: torch.device) -> Tensor:
    """``Tensor[size]``: how many members have each entry of the ensemble's list."""
    counts = torch.zeros(size, device=device)
    for index in index_maps:
        if index is None:
            counts += 1
        else:
            counts[index.to(device)] += 1
    return counts


def average_charts(charts: Sequence[Tensor], index_maps: Sequence[Optional[Tensor]], size: int) -> Tensor:
    """The mean of span-score charts ``Tensor[B, N+1, N+1, L_m]`` in the ensemble's labels: ``Tensor[B, N+1, N+1, U]``;
    each label's score is the mean over the members that have it."""
    device = charts[0].device
    total = sum(_scatter(c.float(), None if i is None else i.to(device), size, 0.0) for c, i in zip(charts, index_maps))
    return total / _counts(index_maps, size, device).clamp(min=1)  # type: ignore[operator]


def average_distributions(log_probs: Sequence[Tensor], index_maps: Sequence[Optional[Tensor]], size: int,
                          mode: str = "probability") -> Tensor:
    """Combine members' log-probabilities ``Tensor[..., L_m]`` (normalised over the last axis) into
    ``Tensor[..., U]`` log-scores.

    ``probability``: ``log(1/M · Σ_m p_m)``; an entry a member lacks has probability 0 there, so the
    result is again a distribution.  ``log-probability``: the mean of ``log p_m`` over the members that
    have the entry (not normalised; only its argmax and the decoders' sums matter)."""
    if mode not in AVERAGING_MODES:
        raise ValueError(f"unknown averaging {mode!r}; choose one of {', '.join(AVERAGING_MODES)}")
    device = log_probs[0].device
    maps = [None if i is None else i.to(device) for i in index_maps]
    if mode == "probability":
        stacked = torch.stack([_scatter(lp.float(), i, size, float("-inf")) for lp, i in zip(log_probs, maps)])
        return torch.logsumexp(stacked, dim=0) - math.log(len(log_probs))
    total = sum(_scatter(lp.float(), i, size, 0.0) for lp, i in zip(log_probs, maps))
    return total / _counts(maps, size, device).clamp(min=1)  # type: ignore[operator]


def merge_inventories(names: Sequence[str], inventories: Sequence[Dict[str, List[str]]], union: bool) -> Dict[str, List[str]]:
    """The ensemble's output lists: the first member's, then (``union``) entries only later members have.

    Raises :class:`EnsembleError` when members name different inventories, or (without ``union``) when
    their entries differ, naming the members and the entries."""
    first = inventories[0]
    merged = {name: list(entries) for name, entries in first.items()}
    for member, inventory in zip(names[1:], inventories[1:]):
        if set(inventory) != set(first):
            raise EnsembleError(f"cannot ensemble {names[0]} and {member}: their outputs differ "
                                f"({', '.join(sorted(first))} against {', '.join(sorted(inventory))})")
        for name, entries in inventory.items():
            mine, theirs = set(first[name]), set(entries)
            if mine != theirs and not union:
                raise EnsembleError(
                    f"cannot ensemble {names[0]} and {member}: their {name} differ ({_differences(names[0], mine, member, theirs)}); "
                    "members must be trained on the same data (jack-knifed folds of one training file may differ in rare "
                    "labels, whose union is then used)")
            merged[name] += [entry for entry in entries if entry not in set(merged[name])]
    return merged


def _differences(a: str, mine: set, b: str, theirs: set) -> str:
    def listed(items: set) -> str:
        items_list = sorted(items)
        shown = ", ".join(repr(x) for x in items_list[:5])
        return shown + (f" and {len(items_list) - 5} more" if len(items_list) > 5 else "")

    parts = []
    if mine - theirs:
        parts.append(f"only {a} has {listed(mine - theirs)}")
    if theirs - mine:
        parts.append(f"only {b} has {listed(theirs - mine)}")
    return "; ".join(parts)


class EnsembleParser(Parser):
    """Trained parsers of one kind whose averaged scores are decoded once (see the module docstring).

    ``members``: the parsers (on one device); ``names``: how messages name them (their run directories);
    ``mode``: an entry of :data:`AVERAGING_MODES`; ``union``: allow differing label lists (jack-knifed
    members of one training file).  ``make_batch`` gives one batch per member, ``scores`` the combined
    scores, ``decode`` the predictions, as for a single parser of the members' kind.
    """

    kind = "ensemble"

    def __init__(self, members: Sequence[Parser], names: Optional[Sequence[str]] = None, mode: str = "probability",
                 union: bool = False) -> None:
        super().__init__()
        if not members:
            raise EnsembleError("an ensemble needs at least one member")
        if mode not in AVERAGING_MODES:
            raise EnsembleError(f"unknown averaging {mode!r}; choose one of {', '.join(AVERAGING_MODES)}")
        names = list(names) if names is not None else [f"member {k + 1}" for k in range(len(members))]
        first = members[0]
        for name, member in zip(names[1:], members[1:]):
            if (member.task, member.kind) != (first.task, first.kind):
                raise EnsembleError(f"cannot ensemble {names[0]} ({first.kind} parser, {first.task}) and {name} "
                                    f"({member.kind} parser, {member.task}): members must be parsers of one kind and task")
            if member.device() != first.device():
                raise EnsembleError(f"{names[0]} is on {first.device()} but {name} on {member.device()}: "
                                    "an ensemble parses on one device")
        own = [member.output_inventories() for member in members]
        self.inventories = merge_inventories(names, own, union)
        self.sizes = {name: len(entries) for name, entries in self.inventories.items()}
        self.index_maps: List[Dict[str, Tensor]] = []
        for inventory in own:
            self.index_maps.append({
                name: torch.tensor([self.inventories[name].index(entry) for entry in entries], dtype=torch.long)
                for name, entries in inventory.items()})
        self.names, self.mode = names, mode
        self.members = nn.ModuleList(members)
        self.task = first.task  # type: ignore[misc]
        self._decoder = [first.with_inventories(self.inventories)]  # a list: the view is not a submodule of its own

    # -- data ------------------------------------------------------------------
    @property
    def max_words(self) -> int:
        return min(member.max_words for member in self.members)  # type: ignore[attr-defined]

    def device(self) -> torch.device:
        return self.members[0].device()  # type: ignore[operator]

    def make_batch(self, examples: Sequence[Any]) -> List[Any]:
        """One batch per member (each indexes the examples with its own vocabularies)."""
        return [member.make_batch(examples) for member in self.members]  # type: ignore[operator]

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        """The members' costs added up: their scores are all held until they are averaged."""
        costs = [member.memory_cost(training, decoder) for member in self.members]  # type: ignore[operator]
        return lambda n: sum(cost(n) for cost in costs)

    def position_bytes(self, training: bool, decoder: str) -> Optional[float]:
        sizes = [member.position_bytes(training, decoder) for member in self.members]  # type: ignore[operator]
        return None if any(size is None for size in sizes) else max(sizes)  # type: ignore[type-var]

    # -- scoring and decoding ------------------------------------------------------
    def scores(self, batch: List[Any]) -> Any:
        """Every member's scores of its batch, combined in the ensemble's label lists."""
        each = [member.scores(member_batch) for member, member_batch in zip(self.members, batch)]  # type: ignore[operator]
        return type(self.members[0]).average_scores(each, self.index_maps, self.sizes, self.mode)  # type: ignore[attr-defined]

    def decode(self, batch: List[Any], scores: Any, examples: Sequence[Any], decoder: str = "auto") -> List[Any]:
        return self._decoder[0].decode(batch[0], scores, examples, decoder)

    def spec(self) -> Dict[str, Any]:
        return {"kind": self.kind, "members": [member.spec() for member in self.members],  # type: ignore[operator]
                "names": list(self.names), "mode": self.mode}
