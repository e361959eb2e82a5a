"""The span parser's training loss in shapes fixed by the padded length, with nothing read back to the host
(``train.step: graph``; :mod:`mlparse.train.graph_step` compiles it as one graph per length bucket).

:func:`hinge_on_device` is the summed structured hinge loss of ``SpanParser._hinge`` with the loss-augmented tree
found by :mod:`mlparse.structs.cky_device`; :func:`padded_span_tensors` pads a sub-batch and its targets to a
bucket's sizes.
"""

from __future__ import annotations

from typing import Any, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

from mlparse.structs import cky_device


def hinge_on_device(scorer: Any, projected: Tensor, gold: Tensor, lengths: Tensor) -> Tensor:
    """The summed hinge loss over fencepost projections ``projected: Tensor[B, N+1, d_hidden]`` (``scorer``: the
    parser's :class:`~mlparse.modules.span_scorer.SpanScorer`), ``gold: LongTensor[B, N+1, N+1]`` the gold labels (0
    off the gold spans) and ``lengths: LongTensor[B]``.

    The chart covers every span of the padding (a sentence's tree never reaches past its length); the predicted and
    the gold spans are scored again with gradient in ``2N - 1`` slots per sentence each, the unused slots and EMPTY
    labels counting 0. Same value and gradients as the host decoder's loss."""
    count, side = projected.shape[0], projected.shape[1]
    with torch.no_grad():  # every span (i < j) of the padding, one label MLP call: [B, N+1, N+1, L]
        left_all, right_all = torch.triu_indices(side, side, offset=1, device=projected.device)
        rows_all = torch.arange(count, device=projected.device).repeat_interleave(left_all.numel())
        left_all, right_all = left_all.repeat(count), right_all.repeat(count)
        spans_all = scorer.scores_at(projected, rows_all, left_all, right_all)
        chart = spans_all.new_zeros((count, side, side, spans_all.shape[-1]))
        chart[rows_all, left_all, right_all] = spans_all
        chosen, labels, hamming = cky_device.decode(chart, lengths, gold)
        del chart
        gold_spans = (gold != 0).long()
        predicted_slots = cky_device.tree_slots(chosen, 2 * lengths - 1)
        gold_slots = cky_device.tree_slots(gold_spans, gold_spans.sum(dim=(1, 2)))
    batch = torch.cat([predicted_slots[0], gold_slots[0] + count])
    left = torch.cat([predicted_slots[1], gold_slots[1]])
    right = torch.cat([predicted_slots[2], gold_slots[2]])
    used = torch.cat([predicted_slots[3], gold_slots[3]])
    slot_labels = torch.cat([labels[predicted_slots[0], predicted_slots[1], predicted_slots[2]],
                             gold[gold_slots[0], gold_slots[1], gold_slots[2]]])
    values = scorer.scores_at(projected, torch.remainder(batch, count), left, right).float()
    values = values.gather(1, slot_labels[:, None]).squeeze(1)
    values = torch.where(used & (slot_labels != 0), values, torch.zeros_like(values))
    sums = values.new_zeros(2 * count).index_add(0, batch, values)  # predicted sums, then gold sums
    return torch.clamp(sums[:count] + hamming.to(sums.dtype) - sums[count:], min=0.0).sum()


def padded_span_tensors(batch: Any, targets: Any, positions: int, chars: int) -> Tuple[Tensor, ...]:
    """``SpanParser.graph_loss``'s inputs: a ``SentenceBatch`` and its ``SpanTargets`` (with the device decoder's
    labels and lengths) padded to ``positions`` positions of the words axis and ``chars`` characters: mask, words,
    tags, chars, char_lengths, labels ``[B, N'+1, N'+1]``, lengths, the tag loss's word mask."""
    grow = max(0, positions - batch.mask.shape[1])
    word_mask = targets.word_mask if targets.word_mask is not None else torch.zeros_like(batch.mask)
    return (F.pad(batch.mask, (0, grow), value=False), F.pad(batch.words, (0, grow)), F.pad(batch.tags, (0, grow)),
            F.pad(batch.chars, (0, max(0, chars - batch.chars.shape[2]), 0, grow)), F.pad(batch.char_lengths, (0, grow)),
            F.pad(targets.labels, (0, grow, 0, grow)), targets.lengths, F.pad(word_mask, (0, grow), value=False))
