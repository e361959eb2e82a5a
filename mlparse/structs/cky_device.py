"""Loss-augmented CKY that never waits for the host: the chart, its backtrack and the hinge's span lists as
tensors of shapes fixed by the padded length N, so a training step can be compiled as one graph
(``torch.compile(fullgraph=True)``) and replayed (CUDA graphs) per length bucket.

:mod:`mlparse.structs.cky_torch` decodes a batch on the device too, but reads the best splits back to the host to
walk the tree, and makes the predicted span list there: one wait for the device per sub-batch, and shapes that
change with every tree. Here:

- :func:`inside` fills the chart width by width with gathers and one indexed write per width (no strided
  ``out=`` views, which tracing does not follow), the same float64 sums in the same order as
  :func:`mlparse.structs.cky.decode`, so the trees are the same, ties included (leftmost split, lowest label);
- :func:`backtrack` marks the tree's spans top-down, one scatter per width, from ``(0, n_b)`` of every sentence
  (the lengths are a tensor: no Python int of the batch enters the graph);
- :func:`tree_slots` lists the marked spans in a fixed number of slots per sentence (a binary tree over n words
  has 2n - 1 spans; N words of padding give ``2N - 1`` slots, the unused ones masked).

Spans beyond a sentence's length are scored too (from padding positions) but never reach its tree: the chart
entry of ``(0, n_b)`` depends only on spans inside it.
"""

from __future__ import annotations

from typing import Tuple

import torch
from torch import Tensor

from mlparse.structs.cky_torch import best_labels


def inside(value: Tensor) -> Tuple[Tensor, Tensor]:
    """The CKY chart over the best label values.

    Args:
        value: float64 ``[B, N+1, N+1]``, the best label value of each span ``(i, j)``, ``i < j``.

    Returns:
        ``(chart, split)``: float64 ``[B, N+1, N+1]`` best subtree score of every span, and long
        ``[B, N+1, N+1]`` its best split as an offset from i minus one (leftmost on ties; 0 for width 1).
    """
    batch, side = value.shape[0], value.shape[1]
    padded = side - 1
    device = value.device
    chart = value.clone()
    split = torch.zeros((batch, side, side), dtype=torch.long, device=device)
    for width in range(2, padded + 1):
        starts = torch.arange(padded - width + 1, device=device)  # i
        offsets = torch.arange(1, width, device=device)  # m: split point k = i + m
        left_i = starts[:, None].expand(-1, width - 1)
        mid = starts[:, None] + offsets[None, :]
        ends = (starts + width)[:, None].expand(-1, width - 1)
        both = chart[:, left_i, mid] + chart[:, mid, ends]  # [B, starts, splits]
        best, arg = torch.max(both, dim=-1)  # first maximum: the leftmost split
        rows, cols = starts, starts + width
        chart[:, rows, cols] = value[:, rows, cols] + best  # label value + best split: the reference's order
        split[:, rows, cols] = arg
    return chart, split


def backtrack(split: Tensor, lengths: Tensor) -> Tensor:
    """The spans of each sentence's best tree.

    Args:
        split: long ``[B, N+1, N+1]`` from :func:`inside`; lengths: long ``[B]``, 1 <= n_b <= N.

    Returns:
        long ``[B, N+1, N+1]``: 1 on the 2n_b - 1 spans of the tree over ``(0, n_b)``, 0 elsewhere.
    """
    batch, side = split.shape[0], split.shape[1]
    padded = side - 1
    device = split.device
    chosen = torch.zeros((batch, side * side), dtype=torch.long, device=device)
    chosen.scatter_(1, lengths.view(batch, 1), torch.ones((batch, 1), dtype=torch.long, device=device))  # (0, n_b)
    for width in range(padded, 1, -1):
        starts = torch.arange(padded - width + 1, device=device)
        ends = starts + width
        on = chosen[:, starts * side + ends]  # [B, starts]: is (i, i+w) in the tree
        middle = starts + split[:, starts, ends] + 1  # [B, starts]: its split point k
        children = torch.cat([starts * side + middle, middle * side + ends], dim=1)  # (i, k) and (k, j)
        chosen.scatter_add_(1, children, torch.cat([on, on], dim=1))  # a tree's children are distinct spans
    return chosen.view(batch, side, side)


def tree_slots(chosen: Tensor, count: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """The marked spans of each sentence in ``2N - 1`` slots, in (i, j) order.

    Args:
        chosen: 0/1 ``[B, N+1, N+1]`` (:func:`backtrack`'s tree, or gold spans) with at most ``2N - 1`` ones a row;
        count: long ``[B]``, the ones of each row (``2 n_b - 1`` for a tree): the slots used.

    Returns:
        ``(batch, left, right, used)``, each ``[B * (2N - 1)]``: the span of each slot and whether it is one.
    """
    batch, side = chosen.shape[0], chosen.shape[1]
    slots = 2 * (side - 1) - 1
    order = torch.argsort(chosen.reshape(batch, -1), dim=1, descending=True, stable=True)[:, :slots]
    used = torch.arange(slots, device=chosen.device)[None, :] < count[:, None]
    rows = torch.arange(batch, device=chosen.device)[:, None].expand(-1, slots)
    return rows.reshape(-1), (order // side).reshape(-1), (order % side).reshape(-1), used.reshape(-1)


def decode(scores: Tensor, lengths: Tensor, gold: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """Loss-augmented best trees of a batch, on the device.

    Args:
        scores: ``[B, N+1, N+1, L]`` label scores (no gradient needed); lengths: long ``[B]``;
        gold: long ``[B, N+1, N+1]`` gold labels (0, EMPTY, off the gold spans).

    Returns:
        ``(chosen, labels, hamming)``: the tree's spans (long 0/1 ``[B, N+1, N+1]``), the label of every span
        (long ``[B, N+1, N+1]``, read on the tree's spans), and the Hamming cost of each tree (long ``[B]``:
        its spans whose label differs from the gold one).
    """
    value, labels = best_labels(scores, gold)
    _, split = inside(value)
    chosen = backtrack(split, lengths)
    hamming = (chosen * (labels != gold).long()).sum(dim=(1, 2))
    return chosen, labels, hamming
