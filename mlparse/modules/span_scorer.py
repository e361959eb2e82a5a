"""Span label scores from encoder outputs (Stern et al. 2017; Kitaev & Klein 2018, §2.3).

Forward/backward split. Every encoder output ``h_t`` (``d_model`` features, content then
position when factored) is split by parity: ``f_t = h_t[0::2]`` (even coordinates) and
``b_t = h_t[1::2]`` (odd coordinates), each of size ``d_model / 2``. With even
``d_content`` the even coordinates hold half of the content features and half of the
position features, and so do the odd ones (footnote 2 of the paper); this is why parity
is used instead of the first/second half.

Fenceposts. A sentence of n words occupies positions ``0 .. n+1`` (start token, words
``1..n``, stop token). Fencepost k (``0 <= k <= n``) lies between position k and k + 1 and
is represented by ``[f_k ; b_{k+1}]``. A span ``(i, j)``, ``0 <= i < j <= n``, covers words
``i+1 .. j`` and is represented by the difference of its fenceposts,
``v = [f_j - f_i ; b_{j+1} - b_{i+1}]``.

Scores: ``s(i, j, .) = M2 relu(LayerNorm(M1 v + c1)) + c2`` over the ``n_labels - 1``
non-empty labels, with the empty label (index 0) fixed at 0. Because ``M1 v`` is linear in
``v``, it is computed as ``g_j - g_i`` with ``g_k = M1 [f_k ; b_{k+1}]``, which gives the
same numbers with far less memory.

Only spans ``i < j <= n_b`` go through the label MLP: :func:`span_indices` lists them
sentence by sentence as a packed ``[S]`` index (``S = sum_b n_b (n_b + 1) / 2``), never the
lower triangle or the padding of a ``[B, N+1, N+1]`` square. :meth:`SpanScorer.chart`
scatters their scores into the dense chart the decoders read; without gradient it scores
them in chunks of :data:`CHART_CHUNK_SPANS`, so that its transient activations do not grow
with the sentence. :func:`dense_span_scores` keeps the former computation over the whole
square, as the reference for tests and benchmarks.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor, nn

from mlparse.modules.transfer import to_device

#: Spans scored at once when no gradient is kept (parsing; the decoder's chart during training):
#: bounds the transient ``[chunk, d_hidden]`` activations whatever the length of the sentences.
CHART_CHUNK_SPANS = 4096


def fencepost_vectors(h: Tensor) -> Tensor:
    """Fencepost representations ``[f_k ; b_{k+1}]``.

    Input ``h: Tensor[B, T, d_model]`` (T = N + 2, start/stop included; d_model even).
    Output ``Tensor[B, T - 1, d_model]``: row k is fencepost k. For a sentence of
    ``n_b < N`` words, rows ``n_b + 1 ..`` touch padding and are meaningless.
    """
    if h.shape[-1] % 2:
        raise ValueError(f"span scoring splits d_model in two halves; it must be even, got {h.shape[-1]}")
    forward = h[:, :-1, 0::2]
    backward = h[:, 1:, 1::2]
    return torch.cat([forward, backward], dim=-1)


def span_indices(lengths: Sequence[int], device: torch.device | str = "cpu") -> Tuple[Tensor, Tensor, Tensor]:
    """Every span ``(i, j)``, ``0 <= i < j <= n_b``, of every sentence: the packed upper triangles.

    Input: the sentence lengths ``n_b`` (B of them). Output ``(batch, left, right)``, three
    ``LongTensor[S]`` with ``S = sum_b n_b (n_b + 1) / 2``, ordered by sentence, then by ``i``,
    then by ``j``.
    """
    counts = np.asarray([int(n) for n in lengths], dtype=np.int64)
    padded = int(counts.max(initial=0))
    # chosen on the host (numpy) from the host list: the number of spans S is a shape, and computing it
    # on the device would make the host wait for it
    left, right = np.triu_indices(padded + 1, k=1)  # by i, then j
    batch, pair = np.nonzero(right[None, :] <= counts[:, None])  # [B, pairs] -> S hits, by sentence then pair
    table = to_device(np.stack([batch, left[pair], right[pair]]).astype(np.int64), torch.device(device))  # one copy
    return table[0], table[1], table[2]


class SpanScorer(nn.Module):
    """Label scores for the spans of a batch of sentences.

    Args:
        d_model: size of the encoder outputs (must be even).
        d_hidden: hidden size of the label MLP. Table 8 of the paper does not list it; 250 is
            the value used by the authors' released implementation.
        n_labels: label-set size *including* the empty label at index 0.

    Inputs: ``h: Tensor[B, T, d_model]`` encoder outputs, T = N + 2, and optionally the
    sentence lengths ``n_b`` (default: every sentence has N words).
    Output: the chart ``Tensor[B, N+1, N+1, n_labels]`` (float32; float64 for float64 inputs);
    ``[b, i, j, l]`` is ``s(i, j, l)`` for the fencepost span (i, j) with ``i < j <= n_b``, and 0
    elsewhere (those entries are not spans and no decoder reads them). ``[..., 0]`` is exactly 0.
    Only the spans ``i < j <= n_b`` are scored (see :meth:`chart`).
    """

    def __init__(self, d_model: int, d_hidden: int = 250, n_labels: int = 2) -> None:
        super().__init__()
        if d_model % 2:
            raise ValueError(f"SpanScorer needs an even d_model, got {d_model}")
        if n_labels < 2:
            raise ValueError(f"n_labels counts the empty label too and must be >= 2, got {n_labels}")
        self.d_model = d_model
        self.d_hidden = d_hidden
        self.n_labels = n_labels
        self.hidden = nn.Linear(d_model, d_hidden, bias=False)  # M1 (bias c1 kept apart)
        self.hidden_bias = nn.Parameter(torch.zeros(d_hidden))  # c1
        self.norm = nn.LayerNorm(d_hidden)
        self.output = nn.Linear(d_hidden, n_labels - 1)  # M2, c2

    def _label_scores(self, pre: Tensor) -> Tensor:
        """``pre = M1 v`` [..., d_hidden] -> scores [..., n_labels] with a zero empty label."""
        scores = self.output(torch.relu(self.norm(pre + self.hidden_bias)))
        empty = scores.new_zeros(scores.shape[:-1] + (1,))
        return torch.cat([empty, scores], dim=-1)

    def project(self, h: Tensor) -> Tensor:
        """``g_k = M1 [f_k ; b_{k+1}]`` of every fencepost: ``Tensor[B, T, d_model]`` -> ``Tensor[B, N+1, d_hidden]``."""
        return self.hidden(fencepost_vectors(h))

    def scores_at(self, projected: Tensor, batch_index: Tensor, left: Tensor, right: Tensor) -> Tensor:
        """Scores of the listed spans from fencepost projections.

        Inputs: ``projected: Tensor[B, N+1, d_hidden]`` (:meth:`project`); ``batch_index, left,
        right: LongTensor[S]`` with ``left < right``. Output ``Tensor[S, n_labels]``.
        """
        return self._label_scores(projected[batch_index, right] - projected[batch_index, left])

    def chart(self, projected: Tensor, lengths: Optional[Sequence[int]] = None) -> Tensor:
        """The dense chart ``Tensor[B, N+1, N+1, n_labels]`` from ``projected: Tensor[B, N+1, d_hidden]``.

        The label MLP sees only the ``S`` spans of :func:`span_indices`. With gradient (grad
        mode on and ``projected`` requiring grad) they go through it at once and the chart is
        differentiable; otherwise in chunks of :data:`CHART_CHUNK_SPANS`, written into the chart
        as they come, so the only memory that grows with the sentences is the chart itself.
        """
        batch_size, fenceposts = projected.shape[:2]
        sizes = [fenceposts - 1] * batch_size if lengths is None else [int(n) for n in lengths]
        if len(sizes) != batch_size or not all(1 <= n < fenceposts for n in sizes):
            raise ValueError(f"lengths {sizes} do not fit a batch of {batch_size} sentences of at most {fenceposts - 1} words")
        batch, left, right = span_indices(sizes, projected.device)
        dtype = torch.float64 if projected.dtype == torch.float64 else torch.float32
        shape = (batch_size, fenceposts, fenceposts, self.n_labels)
        if torch.is_grad_enabled() and projected.requires_grad:
            values = self.scores_at(projected, batch, left, right).to(dtype)
            return values.new_zeros(shape).index_put((batch, left, right), values)
        chart = torch.zeros(shape, dtype=dtype, device=projected.device)
        with torch.no_grad():
            for start in range(0, batch.numel(), CHART_CHUNK_SPANS):
                rows = slice(start, start + CHART_CHUNK_SPANS)
                chart[batch[rows], left[rows], right[rows]] = self.scores_at(
                    projected, batch[rows], left[rows], right[rows]).to(dtype)
        return chart

    def forward(self, h: Tensor, lengths: Optional[Sequence[int]] = None) -> Tensor:
        return self.chart(self.project(h), lengths)

    def score_spans(self, h: Tensor, batch_index: Tensor, left: Tensor, right: Tensor) -> Tensor:
        """Scores of selected spans only (e.g. gold spans).

        Inputs: ``h: Tensor[B, T, d_model]``; ``batch_index, left, right: LongTensor[S]`` with
        ``0 <= left < right <= n_b``. Output ``Tensor[S, n_labels]``, equal to
        ``forward(h)[batch_index, left, right]``.
        """
        return self.scores_at(self.project(h), batch_index, left, right)


def dense_span_scores(scorer: SpanScorer, h: Tensor) -> Tensor:
    """The former computation, kept as the reference of tests and benchmarks: the label MLP over the
    whole ``[B, N+1, N+1, d_hidden]`` square, lower triangle and padding included.

    Input ``h: Tensor[B, T, d_model]``; output ``Tensor[B, N+1, N+1, n_labels]`` in the dtype of the
    computation, equal to :meth:`SpanScorer.forward` on the spans ``i < j`` (garbage elsewhere).
    """
    projected = scorer.project(h)  # g: [B, N+1, d_hidden]
    pre = projected.unsqueeze(1) - projected.unsqueeze(2)  # [b, i, j] = g_j - g_i
    return scorer._label_scores(pre)
