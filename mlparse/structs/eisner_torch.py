"""Batched Eisner decoding in torch (GPU or CPU): one loop over span widths.

Functions over tensors only (no ``nn.Module``).  The chart loop runs over span
widths, each step vectorised over the batch and all spans of that width; the
back-tracking loop runs over derivation depth (at most 2N steps), each step
expanding every open span of every sentence at once.  No Python loop visits
sentences.  The heads are identical to :func:`mlparse.structs.eisner.decode_eisner`:
same recurrences, ties (smallest split, smallest root dependent) and float64
arithmetic order (see :mod:`mlparse.structs.eisner_reference`).

Chart layout: ``by_start[b, s, w]`` is the span (s, s+w) and ``by_end[b, t, N-w]``
the span (t-w, t) (widths reversed), so the children of all spans of one width
are plain slices, in ascending split order.
Padding (words beyond a sentence's length) never enters that sentence's spans.
"""

from __future__ import annotations

from typing import Sequence, Union

import torch
from torch import Tensor

from mlparse.structs.dep_tree import NO_HEAD, ROOT

Lengths = Union[Tensor, Sequence[int]]

# Span kinds in back-tracking; children of (kind, s, t) split at k are
# (FIRST_CHILD[kind], s, k) and (SECOND_CHILD[kind], k + SECOND_OFFSET[kind], t).
COMPLETE_RIGHT, COMPLETE_LEFT, INCOMPLETE_RIGHT, INCOMPLETE_LEFT = range(4)
_FIRST_CHILD = (INCOMPLETE_RIGHT, COMPLETE_LEFT, COMPLETE_RIGHT, COMPLETE_RIGHT)
_SECOND_CHILD = (COMPLETE_RIGHT, INCOMPLETE_LEFT, COMPLETE_LEFT, COMPLETE_LEFT)
_SECOND_OFFSET = (0, 0, 1, 1)
_SPLIT_TABLE = (1, 2, 0, 0)  # which split table: 0 incomplete, 1 complete right, 2 complete left


def _check(scores: Tensor, lengths: Lengths) -> Tensor:
    if scores.dim() != 3 or scores.shape[1] != scores.shape[2] or scores.shape[1] < 2:
        raise ValueError(f"arc scores must have shape (B, N+1, N+1) with N >= 1, got {tuple(scores.shape)}")
    if not scores.is_floating_point():
        raise ValueError(f"arc scores must be floating point, got {scores.dtype}")
    sizes = torch.as_tensor(lengths, dtype=torch.long).to(scores.device).reshape(-1)
    if sizes.numel() != scores.shape[0]:
        raise ValueError(f"{sizes.numel()} lengths for a batch of {scores.shape[0]} sentences")
    padded = scores.shape[1] - 1
    bad = (sizes < 1) | (sizes > padded)
    if bool(bad.any()):
        b = int(bad.nonzero()[0, 0])
        raise ValueError(f"sentence {b}: length {int(sizes[b])} is not in 1..{padded}")
    return sizes


@torch.no_grad()
def decode_batch(scores: Tensor, lengths: Lengths) -> Tensor:
    """Best projective tree with exactly one root dependent for every sentence of a batch.

    Args:
        scores: (B, N+1, N+1) float arc scores, ``scores[b, h, d]`` = score of the arc
            head h -> dependent d (head first; position 0 is the root), padded to the
            longest sentence N.  Only ``scores[b, :n_b+1, 1:n_b+1]`` off the diagonal
            is read for sentence b; it must be finite.
        lengths: (B,) sentence lengths, 1 <= n_b <= N.

    Returns:
        long (B, N+1) heads on the scores' device: ``heads[b, d]`` for d in 1..n_b,
        -1 at d = 0 and on the padding d > n_b.
    """
    sizes = _check(scores, lengths)
    scores = scores.detach().double()
    device = scores.device
    batch, padded = scores.shape[0], scores.shape[1] - 1
    shape = (batch, padded + 1, padded + 1)
    # Uninitialised tables: every entry is written before it is read, except width 0 of the
    # complete spans (score 0), set here.
    tables = scores.new_empty((6,) + shape)
    right_by_start, right_by_end = tables[0], tables[1]  # complete, head s / head t-w
    left_by_start, left_by_end = tables[2], tables[3]  # complete, head s+w / head t
    inc_right_by_start, inc_left_by_end = tables[4], tables[5]  # arc s -> s+w / arc t -> t-w
    tables[:4, :, :, 0] = 0.0  # width 0 of by_start (of by_end: width N, never read)
    tables[:4, :, :, padded] = 0.0  # width 0 of by_end (of by_start: width N, never read)
    splits = torch.empty((3,) + shape, dtype=torch.long, device=device)  # [table, b, s, w] = split k - s
    for width in range(1, padded):
        count = padded - width  # spans (s, s+width) for s = 1..count, t = s+width
        rows, cols = slice(1, count + 1), slice(1 + width, padded + 1)
        shorter = slice(padded - width + 1, padded + 1)  # by_end widths w-1 .. 0, reversed
        # split k = s+m, m = 0..w-1: complete_right(s, s+m) + complete_left(s+m+1, t) (width w-1-m)
        inner, offset = (right_by_start[:, rows, :width] + left_by_end[:, cols, shorter]).max(dim=-1)
        inc_right_by_start[:, rows, width] = inner + scores.diagonal(width, 1, 2)[:, 1:]  # scores[s, s+w]
        inc_left_by_end[:, cols, padded - width] = inner + scores.diagonal(-width, 1, 2)[:, 1:]  # scores[t, t-w]
        splits[0, :, rows, width] = offset
        # complete_right: k = s+m, m = 1..w: incomplete_right(s, s+m) + complete_right(s+m, t) (width w-m)
        value, offset = (inc_right_by_start[:, rows, 1 : width + 1] + right_by_end[:, cols, shorter]).max(dim=-1)
        right_by_start[:, rows, width] = value
        right_by_end[:, cols, padded - width] = value
        splits[1, :, rows, width] = offset + 1
        # complete_left: k = s+m, m = 0..w-1: complete_left(s, s+m) + incomplete_left(s+m, t) (width w-m)
        # (incomplete_left by_end widths w .. 1, reversed)
        value, offset = (left_by_start[:, rows, :width] + inc_left_by_end[:, cols, padded - width : padded]).max(-1)
        left_by_start[:, rows, width] = value
        left_by_end[:, cols, padded - width] = value
        splits[2, :, rows, width] = offset

    # The root's dependent r in 1..n_b: (complete_left(1, r) + complete_right(r, n_b)) + scores[0, r].
    words = torch.arange(1, padded + 1, device=device).expand(batch, padded)
    inside = words <= sizes[:, None]
    right_rows = right_by_end[torch.arange(batch, device=device), sizes]  # [b, N-w] = complete_right(n_b-w, n_b)
    to_end = right_rows.gather(1, (padded - sizes[:, None] + words).clamp(max=padded))
    total = (left_by_start[:, 1, :padded] + to_end) + scores[:, ROOT, 1:]
    total = torch.where(inside, total, torch.full_like(total, float("-inf")))
    root_dependent = total.argmax(dim=-1) + 1  # first maximum: smallest r

    # Back-track all sentences at once; column N+1 of ``heads`` takes the writes of complete spans.
    heads = torch.full((batch, padded + 2), NO_HEAD, dtype=torch.long, device=device)
    batch_index = torch.arange(batch, device=device)
    heads[batch_index, root_dependent] = ROOT
    table = torch.tensor([_FIRST_CHILD, _SECOND_CHILD, _SECOND_OFFSET, _SPLIT_TABLE], device=device)
    open_spans = torch.stack(  # rows: kind, sentence, start, end
        [
            torch.cat([torch.full_like(sizes, COMPLETE_LEFT), torch.full_like(sizes, COMPLETE_RIGHT)]),
            torch.cat([batch_index, batch_index]),
            torch.cat([torch.ones_like(sizes), root_dependent]),
            torch.cat([root_dependent, sizes]),
        ]
    )
    while True:
        open_spans = open_spans[:, open_spans[2] < open_spans[3]]
        if open_spans.shape[1] == 0:
            break
        kind, owner, start, end = open_spans
        dependent = torch.where(kind == INCOMPLETE_RIGHT, end, torch.where(kind == INCOMPLETE_LEFT, start, padded + 1))
        heads[owner, dependent] = start + end - dependent  # the other end of an incomplete span
        first_child, second_child, second_offset, split_table = table[:, kind]
        split = start + splits[split_table, owner, start, end - start]
        open_spans = torch.cat(
            [
                torch.stack([first_child, owner, start, split]),
                torch.stack([second_child, owner, split + second_offset, end]),
            ],
            dim=1,
        )
    return heads[:, : padded + 1]
