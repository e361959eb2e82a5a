"""Batched CKY in torch: whole batches on the GPU (or CPU), one loop over span widths.

Functions over tensors only (no ``nn.Module``).  The loop runs over span
widths; each step is vectorised over the batch and the start positions.  The
trees are bit-identical to :func:`mlparse.structs.cky.decode` (same tie rules,
float64 accumulation in the same order; see :mod:`mlparse.structs.chart_tree`).

Chart layout inside the loop: one float64 chart ``(B, N+1, N+1)``; the spans of
one width, their left children and their right children over every split point
are strided views of it (:func:`chart_in_place`), so a width costs three device
operations and nothing is copied.

Training (hinge loss with autograd)::

    loss, trees = hinge_loss_batch(scores, lengths, golds)
    loss.backward()
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from torch import Tensor

from mlparse.structs.chart_tree import EMPTY, ChartTree, GoldSpans, IndexedSpan, hamming_cost

Lengths = Union[Tensor, Sequence[int]]


def _check(scores: Tensor, lengths: Lengths) -> List[int]:
    if scores.dim() != 4 or scores.shape[1] != scores.shape[2]:
        raise ValueError(f"scores must have shape (B, N+1, N+1, L), got {tuple(scores.shape)}")
    sizes = [int(x) for x in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]
    if len(sizes) != scores.shape[0]:
        raise ValueError(f"{len(sizes)} lengths for a batch of {scores.shape[0]} sentences")
    padded = scores.shape[1] - 1
    for b, n in enumerate(sizes):
        if not 1 <= n <= padded:
            raise ValueError(f"sentence {b}: length {n} is not in 1..{padded}")
    return sizes


def best_labels(scores: Tensor, gold: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """Best label per span.

    Args:
        scores: (B, N+1, N+1, L) label scores; label 0 (EMPTY) counts 0.
        gold: optional (B, N+1, N+1) long gold labels (0 off the gold tree) for
            Hamming-augmented decoding.

    Returns:
        (value float64 (B, N+1, N+1), label long (B, N+1, N+1)).
    """
    if not scores.is_floating_point():
        scores = scores.float()
    if gold is None:
        if scores.shape[-1] == 1:
            zeros = scores.new_zeros(scores.shape[:-1], dtype=torch.float64)
            return zeros, zeros.long()
        value, index = scores[..., 1:].max(dim=-1)  # first maximum: lowest index on ties
        take = value > 0
        return torch.where(take, value.double(), 0.0), torch.where(take, index + 1, 0)
    gold = gold.long().unsqueeze(-1)
    masked = scores.clone()
    masked[..., 0] = 0.0
    gold_value = masked.gather(-1, gold).squeeze(-1).double()
    masked.scatter_(-1, gold, float("-inf"))
    other_value, other_label = masked.max(dim=-1)
    augmented = other_value.double() + 1.0
    gold = gold.squeeze(-1)
    take_other = (augmented > gold_value) | ((augmented == gold_value) & (other_label < gold))
    return torch.where(take_other, augmented, gold_value), torch.where(take_other, other_label, gold)


@torch.no_grad()
def decode_batch(scores: Tensor, lengths: Lengths, gold: Optional[Tensor] = None) -> List[ChartTree]:
    """Best binary bracketing of every sentence in a batch.

    Args:
        scores: (B, N+1, N+1, L) label scores, padded to the longest sentence N.
        lengths: (B,) sentence lengths, 1 <= n_b <= N.
        gold: optional (B, N+1, N+1) long gold labels (see :func:`gold_label_tensor`)
            for loss-augmented decoding.

    Returns:
        One ChartTree per sentence (spans in pre-order, score as a Python float).
    """
    sizes = _check(scores, lengths)
    label_value, label_index = best_labels(scores.detach(), gold)
    chart, split = chart_in_place(label_value)
    labels_np, split_np, roots = read_tables(label_index, split, chart[:, 0, :])
    return [_backtrack(labels_np[b], split_np[b], n, float(roots[b, n])) for b, n in enumerate(sizes)]


def read_tables(labels: Tensor, split: Tensor, roots: Tensor) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The long tables ``labels, split: [B, N+1, N+1]`` and the float64 root scores ``roots: [B, N+1]`` on
    the host, in one copy (one wait for the device instead of three): the root scores travel as their
    int64 bit patterns."""
    if (labels.dtype, split.dtype, roots.dtype) != (torch.int64, torch.int64, torch.float64):
        raise TypeError(f"read_tables wants int64 tables and float64 roots, got {labels.dtype}, {split.dtype}, {roots.dtype}")
    packed = torch.cat([labels.reshape(-1), split.reshape(-1), roots.contiguous().view(torch.int64).reshape(-1)])
    host = packed.cpu().numpy()
    cells = labels.numel()
    return (host[:cells].reshape(labels.shape), host[cells:2 * cells].reshape(split.shape),
            host[2 * cells:].view(np.float64).reshape(roots.shape))


def chart_in_place(chart: Tensor) -> Tuple[Tensor, Tensor]:
    """The CKY chart over the best label values, computed in place.

    Args:
        chart: float64 (B, N+1, N+1); ``chart[b, i, j]`` holds the best label value of the span (i, j)
            on entry and the best score of a subtree over (i, j) on return (for i < j).

    Returns:
        ``(chart, split)``: the same tensor, and long (B, N+1, N+1) ``split[b, i, j]``, the best split
        point of (i, j) as an offset from i minus one (leftmost on ties; for j - i >= 2).

    Every span (i, i+w) of one width and its children are strided views of the one chart, so a width
    costs three device operations (an add of left and right children over all split points, a max,
    the label value added in place) and no copy: the row of (i, i+m) over m is ``chart`` at
    ``i(N+2) + m``, that of (i+m, i+w) at ``i(N+2) + m(N+1) + w``, the target (i, i+w) at ``i(N+2) + w``.
    Same sums in the same order as :func:`mlparse.structs.cky.decode`, so the trees are bit-identical.
    """
    batch, side = chart.shape[0], chart.shape[1]
    padded = side - 1
    split = torch.zeros((batch, side, side), dtype=torch.long, device=chart.device)
    if not chart.is_contiguous():
        chart = chart.contiguous()
    plane, diagonal = side * side, side + 1  # strides: one sentence, one start position (i to i+1, same width)
    base = chart.storage_offset()
    # The best split's value of each span, laid out as ``split`` is: CUDA's max with ``out=`` wants its values
    # and indices with the same strides (the CPU does not care).
    values = torch.empty_like(chart)
    for width in range(2, padded + 1):
        starts, splits = padded - width + 1, width - 1
        left = chart.as_strided((batch, starts, splits), (plane, diagonal, 1), base + 1)
        right = chart.as_strided((batch, starts, splits), (plane, diagonal, side), base + side + width)
        target = chart.as_strided((batch, starts), (plane, diagonal), base + width)
        best, _ = torch.max(left + right, dim=-1,  # first maximum: the leftmost split
                            out=(values.as_strided((batch, starts), (plane, diagonal), width),
                                 split.as_strided((batch, starts), (plane, diagonal), width)))
        target.add_(best)  # label value + best split: the reference's order of operations
    return chart, split


def _backtrack(labels: np.ndarray, split: np.ndarray, n: int, score: float) -> ChartTree:
    """Spans in pre-order from label[i, j] and split[i, j] (the split point's offset from i, minus one)."""
    labels_list = labels.tolist()
    split_list = split.tolist()
    spans: List[IndexedSpan] = []
    stack = [(0, n)]
    while stack:
        i, j = stack.pop()
        spans.append((i, j, labels_list[i][j]))
        if j - i >= 2:
            k = i + split_list[i][j] + 1
            stack.append((k, j))
            stack.append((i, k))
    return ChartTree(spans=spans, score=score)


def gold_label_tensor(golds: Sequence[GoldSpans], padded: int, device: Union[str, torch.device] = "cpu") -> Tensor:
    """Gold labels as a long tensor (B, N+1, N+1), 0 (EMPTY) off the gold spans."""
    rows = [(b, i, j, label) for b, gold in enumerate(golds) for (i, j), label in gold.items()]
    out = np.zeros((len(golds), padded + 1, padded + 1), dtype=np.int64)
    if rows:
        index = np.asarray(rows, dtype=np.int64)
        out[index[:, 0], index[:, 1], index[:, 2]] = index[:, 3]
    return torch.from_numpy(out).to(device)


def span_index_tensors(
    span_lists: Sequence[Sequence[IndexedSpan]], device: Union[str, torch.device] = "cpu"
) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """Index tensors (batch, start, end, label) of every non-EMPTY span.

    ``scores[batch, start, end, label]`` gathers the label scores of the spans
    with autograd; EMPTY spans are left out because they score 0 by definition.
    """
    rows = [(b, i, j, l) for b, spans in enumerate(span_lists) for i, j, l in spans if l != EMPTY]
    if not rows:
        empty = torch.zeros(0, dtype=torch.long, device=device)
        return empty, empty, empty, empty
    table = torch.tensor(rows, dtype=torch.long, device=device)
    return table[:, 0], table[:, 1], table[:, 2], table[:, 3]


def gold_span_lists(golds: Sequence[GoldSpans]) -> List[List[IndexedSpan]]:
    """Gold dictionaries as span lists (for :func:`span_index_tensors`)."""
    return [[(i, j, l) for (i, j), l in gold.items()] for gold in golds]


def sum_span_scores(scores: Tensor, span_lists: Sequence[Sequence[IndexedSpan]]) -> Tensor:
    """Per-sentence sum of the spans' label scores, (B,), differentiable w.r.t. ``scores``."""
    batch, start, end, label = span_index_tensors(span_lists, scores.device)
    out = scores.new_zeros(scores.shape[0])
    return out.index_add(0, batch, scores[batch, start, end, label])


def hinge_loss_batch(scores: Tensor, lengths: Lengths, golds: Sequence[GoldSpans]) -> Tuple[Tensor, List[ChartTree]]:
    """Summed structured hinge loss of a batch, differentiable w.r.t. ``scores``.

    loss_b = max(0, s(pred_b) + Hamming(pred_b, gold_b) - s(gold_b)), where pred_b is
    the loss-augmented best tree.  Returns (loss scalar, predicted trees).
    """
    padded = scores.shape[1] - 1
    trees = decode_batch(scores, lengths, gold=gold_label_tensor(golds, padded, scores.device))
    predicted = sum_span_scores(scores, [tree.spans for tree in trees])
    gold_total = sum_span_scores(scores, gold_span_lists(golds))
    hamming = torch.tensor(
        [float(hamming_cost(tree.spans, gold)) for tree, gold in zip(trees, golds)],
        dtype=scores.dtype,
        device=scores.device,
    )
    return torch.clamp(predicted + hamming - gold_total, min=0.0).sum(), trees
