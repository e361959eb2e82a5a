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
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


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


class SpanScorer(nn.Module):
    """Label scores for every span of every sentence in a batch.

    Args:
        d_model: size of the encoder outputs (must be even).
        d_hidden: hidden size of the label MLP. Table 8 of the paper does not list it; 250 is
            the value used by the authors' released implementation.
        n_labels: label-set size *including* the empty label at index 0.

    Inputs: ``h: Tensor[B, T, d_model]`` encoder outputs, T = N + 2.
    Output: ``Tensor[B, N+1, N+1, n_labels]``; ``[b, i, j, l]`` is ``s(i, j, l)`` for the
    fencepost span (i, j). ``[..., 0]`` is exactly 0 everywhere. Entries with ``i >= j`` or
    ``j > n_b`` (sentence b has ``n_b`` words) are meaningless and must be ignored by the
    caller (e.g. the CKY decoder).
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

    def forward(self, h: Tensor) -> Tensor:
        projected = self.hidden(fencepost_vectors(h))  # g: [B, N+1, d_hidden]
        pre = projected.unsqueeze(1) - projected.unsqueeze(2)  # [b, i, j] = g_j - g_i
        return self._label_scores(pre)

    def score_spans(self, h: Tensor, batch_index: Tensor, left: Tensor, right: Tensor) -> Tensor:
        """Scores of selected spans only (e.g. gold spans).

        Inputs: ``h: Tensor[B, T, d_model]``; ``batch_index, left, right: LongTensor[S]`` with
        ``0 <= left < right <= n_b``. Output ``Tensor[S, n_labels]``, equal to
        ``forward(h)[batch_index, left, right]``.
        """
        projected = self.hidden(fencepost_vectors(h))
        pre = projected[batch_index, right] - projected[batch_index, left]
        return self._label_scores(pre)
