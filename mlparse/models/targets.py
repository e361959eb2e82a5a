"""Gold targets as device tensors, made before the forward pass (in the trainer's worker thread).

A parser's loss needs its gold targets on the device: the gold spans' indices, the gold label chart
of loss-augmented decoding, the tag loss's word mask, gold heads and relations.  Building them
inside ``forward`` put a host loop and a host-to-device copy on the step's critical path, and on a
GPU a copy that is not ``non_blocking`` waits for every kernel queued before it.  Here they are
built on the host with numpy and sent through :func:`~mlparse.modules.transfer.to_device` (pinned
memory, ``non_blocking``), by :meth:`Parser.make_targets
<mlparse.models.base.Parser.make_targets>`, which the trainer calls next to ``make_batch`` in its
worker thread (:mod:`mlparse.train.overlap`).

Shapes: B sentences of at most N words; span charts are ``[B, N+1, N+1]`` over fenceposts, dependency
positions ``T = N + 1`` (the root, then the words).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

import numpy as np
import torch
from torch import Tensor

from mlparse.modules.transfer import to_device
from mlparse.structs.chart_tree import EMPTY, GoldSpans

#: The target of positions that are not words (cross_entropy's ignore_index).
IGNORED = -100

#: Columns of a span table: the sentence b, fenceposts i < j, the label, and the slot of the sentence's
#: sum (b for a predicted span, B + b for a gold one), so that one ``index_add`` gives both sums.
SPAN_COLUMNS = 5


@dataclass
class SpanTargets:
    """The gold targets of a span sub-batch.

    golds: the gold span dictionaries, on the host (the Cython loss-augmented decoder and the Hamming
        costs read them).
    table: ``LongTensor[S, 5]`` on the device, one row ``(b, i, j, label, B + b)`` per gold span whose
        label is not EMPTY (EMPTY scores 0 and adds nothing), by sentence.
    labels: ``LongTensor[B, N+1, N+1]`` on the device, the gold label of each span (0 elsewhere), for
        loss-augmented decoding by the batched torch decoder; None when the decoder runs on the host.
    word_mask: ``BoolTensor[B, N+2]`` on the device, the words (not start, stop or padding) for the tag
        loss; None without a tagging head.
    lengths: ``LongTensor[B]`` on the device, the sentence lengths, with ``labels`` (the decoder that never
        waits for the host reads them, :mod:`mlparse.structs.cky_device`); None without ``labels``.
    """

    golds: List[GoldSpans]
    table: Tensor
    labels: Optional[Tensor]
    word_mask: Optional[Tensor]
    lengths: Optional[Tensor] = None


@dataclass
class DependencyTargets:
    """The gold targets of a dependency sub-batch, on the device.

    heads: ``LongTensor[B, T]``, the gold head of each word (positions 1..n_b), 0 (the root) elsewhere.
    targets: ``LongTensor[2, B, T]``, the gold heads and the gold relation ids of the words,
        :data:`IGNORED` at the root and the padding (no boolean selection, which would make the host wait).
    tags: ``LongTensor[B, T]``, the gold tag ids of the words for a tagging head, :data:`IGNORED` at the root and
        the padding; None without one.
    """

    heads: Tensor
    targets: Tensor
    tags: Optional[Tensor] = None


@dataclass
class JointTargets:
    """The span and the dependency targets of a joint sub-batch."""

    spans: SpanTargets
    dependency: DependencyTargets


def span_rows(span_lists: Sequence[Sequence[Any]]) -> np.ndarray:
    """``int64[S, 5]``: ``(b, i, j, label, slot)`` of the non-EMPTY spans of each sentence's list of
    ``(i, j, label)``, with slot b (see :data:`SPAN_COLUMNS`)."""
    rows = [(b, i, j, label, b) for b, spans in enumerate(span_lists) for i, j, label in spans if label != EMPTY]
    return np.asarray(rows, dtype=np.int64).reshape(-1, SPAN_COLUMNS)


def gold_label_array(golds: Sequence[GoldSpans], padded: int) -> np.ndarray:
    """``int64[B, N+1, N+1]`` gold labels (N = ``padded``), 0 (EMPTY) off the gold spans."""
    out = np.zeros((len(golds), padded + 1, padded + 1), dtype=np.int64)
    rows = [(b, i, j, label) for b, gold in enumerate(golds) for (i, j), label in gold.items()]
    if rows:
        index = np.asarray(rows, dtype=np.int64)
        out[index[:, 0], index[:, 1], index[:, 2]] = index[:, 3]
    return out


def word_mask_array(lengths: Sequence[int], width: int) -> np.ndarray:
    """``bool[B, width]``: positions 1..n_b, the words between the start (0) and stop (n_b + 1) tokens."""
    positions = np.arange(width)[None, :]
    counts = np.asarray(lengths, dtype=np.int64)[:, None]
    return (positions >= 1) & (positions <= counts)


def span_targets(golds: Sequence[GoldSpans], lengths: Sequence[int], device: torch.device,
                 decoder_labels: bool, tag_mask: bool) -> SpanTargets:
    """:class:`SpanTargets` of sentences of ``lengths`` words; ``decoder_labels``: include the gold label chart
    (the batched torch decoder reads it); ``tag_mask``: include the tag loss's word mask."""
    golds = list(golds)
    count = len(golds)
    table = span_rows([[(i, j, label) for (i, j), label in gold.items()] for gold in golds])
    table[:, 4] += count
    padded = max(lengths)
    return SpanTargets(
        golds=golds, table=to_device(table, device),
        labels=to_device(gold_label_array(golds, padded), device) if decoder_labels else None,
        word_mask=to_device(word_mask_array(lengths, padded + 2), device) if tag_mask else None,
        lengths=to_device(np.asarray(lengths, dtype=np.int64), device) if decoder_labels else None)


def dependency_targets(golds: Sequence[Any], width: int, device: torch.device) -> DependencyTargets:
    """:class:`DependencyTargets` over ``width`` positions (root + the longest sentence's words) from golds
    with ``heads`` and ``relations`` (indices) of words 1..n, and ``tags`` (indices) where every gold has them."""
    heads = np.zeros((len(golds), width), dtype=np.int64)
    targets = np.full((2, len(golds), width), IGNORED, dtype=np.int64)
    with_tags = bool(golds) and all(getattr(gold, "tags", None) is not None for gold in golds)
    tags = np.full((len(golds), width), IGNORED, dtype=np.int64) if with_tags else None
    for b, gold in enumerate(golds):
        n = len(gold.heads)
        heads[b, 1:n + 1] = gold.heads
        targets[0, b, 1:n + 1] = gold.heads
        targets[1, b, 1:len(gold.relations) + 1] = gold.relations
        if tags is not None:
            tags[b, 1:len(gold.tags) + 1] = gold.tags
    return DependencyTargets(heads=to_device(heads, device), targets=to_device(targets, device),
                             tags=to_device(tags, device) if tags is not None else None)
