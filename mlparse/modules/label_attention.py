"""The Label Attention Layer (Mrini et al. 2020, §2, Figures 1-4) and the per-head span split (§3.1).

Shapes: B sentences, T positions (start, words, stop, padding), ``d_model`` input features, H heads
of ``d`` features each (query, key, value and output of a head: §4 uses 128).

For head i and the words X (``[T, d_model]``):

- attention weights ``a_i = softmax(q_i K_i^T / sqrt(d))`` with a learned query *vector* ``q_i``
  (Eq. 1) and ``K_i = X W_i^K`` (Eq. 2): ``[T]``, one distribution over the words per head;
- context vector ``c_i = a_i V_i`` with ``V_i = X W_i^V`` (Eqs. 3-4): ``[d]``;
- one residual connection per head: the context vector (brought to ``d_model`` by the output
  matrix ``W^O``, residual dropout on it) is added to every word, ``u_{i,t} = x_t + W^O c_i``;
- that matrix of word vectors is projected to ``d`` features (``P``) and then normalised:
  ``z_{i,t} = LayerNorm(P u_{i,t})``;
- the heads' outputs are concatenated, ``y_t = [z_{1,t}; ...; z_{H,t}]`` (``[H * d]``): head i owns
  the slice ``i*d : (i+1)*d`` of every word vector (Figure 4);
- optionally the position-wise feed-forward layer, ``LayerNorm(y + FF(y))``, which mixes the slices.

The ablations of Tables 1-2 are switches of :class:`LabelAttentionLayer`:
``feed_forward`` (PFL), ``residual_dropout`` (RD; 0 switches it off), ``query="matrix"`` (a query
matrix ``W_i^Q`` per head: every word gets its own attention distribution and context vector, as in
self-attention; the slices and residuals stay per head) and ``combine="projection"`` (the heads'
context vectors are concatenated and projected by one matrix to ``d_model``, added to the word with
one residual for all heads and normalised, as in self-attention; output ``d_model``, no per-head
slices).  The layer is not factored into content and position halves: it reads the whole vector
the factored encoder gives.

Span vectors (§3.1): the forward and backward halves are taken inside every head's slice, not over
the whole word vector: :func:`headwise_fencepost_vectors`, used by :class:`HeadwiseSpanScorer`.
"""

from __future__ import annotations

import math
from typing import Optional

import torch
from torch import Tensor, nn

from mlparse.modules.dropout import ElementDropout, make_dropout
from mlparse.modules.span_scorer import SpanScorer

QUERY_KINDS = ("vector", "matrix")
COMBINE_KINDS = ("concat", "projection")


class LabelAttentionLayer(nn.Module):
    """Label attention over encoder outputs (see the module docstring).

    Args:
        d_model: size of the input word vectors.
        n_heads: H (112 for English, 64 for Chinese in the paper).
        d_head: d, the size of a head's query, key, value and output (128 in the paper).
        query: ``vector`` (label attention) or ``matrix`` (the Table 2 ablation).
        combine: ``concat`` (label attention) or ``projection`` (the Table 2 ablation).
        feed_forward: the position-wise feed-forward layer after the heads (Table 1).
        d_ff: its hidden size.
        residual_dropout: dropout on each head's residual branch (and the feed-forward's); 0: none.
        attention_dropout: dropout on the attention weights.
        relu_dropout: dropout on the feed-forward hidden layer.

    Input ``x: Tensor[B, T, d_model]``, ``mask: BoolTensor[B, T]`` (True on real positions).
    Output ``Tensor[B, T, d_out]`` with ``d_out = H * d`` (concat) or ``d_model`` (projection); padding
    positions are 0.  With ``record_attention`` set, :attr:`last_attention` keeps the attention weights,
    ``[B, H, T]`` (query vectors) or ``[B, H, T, T]`` (query matrices, ``[b, i, t, s]``: word t to word s).
    """

    def __init__(self, d_model: int, n_heads: int, d_head: int, query: str = "vector", combine: str = "concat",
                 feed_forward: bool = True, d_ff: int = 2048, residual_dropout: float = 0.0,
                 attention_dropout: float = 0.0, relu_dropout: float = 0.1) -> None:
        super().__init__()
        if query not in QUERY_KINDS:
            raise ValueError(f"query must be one of {', '.join(QUERY_KINDS)}, got {query!r}")
        if combine not in COMBINE_KINDS:
            raise ValueError(f"combine must be one of {', '.join(COMBINE_KINDS)}, got {combine!r}")
        if n_heads < 1 or d_head < 1:
            raise ValueError(f"a label attention layer needs heads and head sizes >= 1, got {n_heads} x {d_head}")
        self.d_model, self.n_heads, self.d_head = d_model, n_heads, d_head
        self.query_kind, self.combine = query, combine
        scale = 1.0 / math.sqrt(d_model)
        if query == "vector":
            self.query = nn.Parameter(torch.randn(n_heads, d_head) / math.sqrt(d_head))  # q_i
        else:
            self.query = nn.Parameter(torch.randn(n_heads, d_model, d_head) * scale)  # W_i^Q
        self.key = nn.Parameter(torch.randn(n_heads, d_model, d_head) * scale)  # W_i^K
        self.value = nn.Parameter(torch.randn(n_heads, d_model, d_head) * scale)  # W_i^V
        self.attention_dropout = ElementDropout(attention_dropout)  # nn.Dropout's distribution, CPU masks drawn faster
        if not 0.0 <= residual_dropout < 1.0:
            raise ValueError(f"residual dropout is a probability in [0, 1), got {residual_dropout}")
        self.residual_p = float(residual_dropout)
        self.sentence_dropout = make_dropout(residual_dropout, "feature")  # one residual for the whole vector, as K&K
        if combine == "concat":
            self.output = nn.Linear(d_head, d_model, bias=False)  # W^O: a context vector -> a word vector
            self.reduce = nn.Linear(d_model, d_head, bias=False)  # P: projection before LayerNorm
            self.norm = nn.LayerNorm(d_head)
            self.d_out = n_heads * d_head
        else:
            self.output = nn.Linear(n_heads * d_head, d_model, bias=False)  # one projection of all heads
            self.norm = nn.LayerNorm(d_model)
            self.d_out = d_model
        self.feed_forward: Optional[nn.Module] = None
        if feed_forward:
            self.feed_forward = nn.Sequential(nn.Linear(self.d_out, d_ff), nn.ReLU(), make_dropout(relu_dropout, "feature"),
                                              nn.Linear(d_ff, self.d_out))
            self.feed_forward_norm = nn.LayerNorm(self.d_out)
        self.record_attention = False
        self.last_attention: Optional[Tensor] = None

    # -- pieces -------------------------------------------------------------------
    def head_dropout(self, residual: Tensor) -> Tensor:
        """Residual dropout with one mask per sentence and head, shared by the sentence's words:
        ``residual: Tensor[B, H, ..., D]`` -> same shape (each head's residual is dropped on its own)."""
        if not self.training or self.residual_p == 0.0:
            return residual
        shape = residual.shape[:2] + (1,) * (residual.dim() - 3) + residual.shape[-1:]
        keep = torch.empty(shape, dtype=residual.dtype, device=residual.device).bernoulli_(1.0 - self.residual_p)
        return residual * keep / (1.0 - self.residual_p)

    def attention(self, x: Tensor, mask: Tensor) -> Tensor:
        """Attention weights: ``[B, H, T]`` (query vectors) or ``[B, H, T, T]`` (query matrices); keys on
        padding get 0."""
        keys = torch.einsum("btm,hmd->bhtd", x, self.key)  # K_i: [B, H, T, d]
        if self.query_kind == "vector":
            logits = torch.einsum("hd,bhtd->bht", self.query, keys)
            blocked = ~mask[:, None, :]
        else:
            queries = torch.einsum("btm,hmd->bhtd", x, self.query)  # [B, H, T, d]
            logits = queries @ keys.transpose(-1, -2)  # [B, H, T, T]
            blocked = ~mask[:, None, None, :]
        logits = logits / math.sqrt(self.d_head)
        return torch.softmax(logits.masked_fill(blocked, float("-inf")), dim=-1)

    def contexts(self, x: Tensor, weights: Tensor) -> Tensor:
        """Context vectors ``c_i = a_i V_i``: ``[B, H, d]`` (query vectors) or ``[B, H, T, d]`` (query matrices)."""
        values = torch.einsum("btm,hmd->bhtd", x, self.value)  # V_i: [B, H, T, d]
        weights = self.attention_dropout(weights)
        if self.query_kind == "vector":
            return torch.einsum("bht,bhtd->bhd", weights, values)
        return weights @ values

    def head_outputs(self, x: Tensor, contexts: Tensor) -> Tensor:
        """Concat mode: every head's normalised word vectors ``z: Tensor[B, T, H, d]`` from the inputs
        ``x: [B, T, d_model]`` and the contexts of :meth:`contexts`.  ``P(x + W^O c) = P x + P W^O c``."""
        residual = self.head_dropout(self.output(contexts))  # [B, H, d_model] or [B, H, T, d_model]
        base = self.reduce(x).unsqueeze(2)  # [B, T, 1, d]
        added = self.reduce(residual)
        added = added.unsqueeze(1) if self.query_kind == "vector" else added.transpose(1, 2)  # [B, 1|T, H, d]
        return self.norm(base + added)

    # -- the layer ----------------------------------------------------------------
    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"label attention input must be [B, T, {self.d_model}], got {tuple(x.shape)}")
        weights = self.attention(x, mask)
        if self.record_attention:
            self.last_attention = weights.detach()
        contexts = self.contexts(x, weights)
        batch, length = x.shape[:2]
        if self.combine == "concat":
            y = self.head_outputs(x, contexts).reshape(batch, length, self.d_out)
        else:
            if self.query_kind == "vector":
                joined = contexts.reshape(batch, 1, -1)  # [B, 1, H * d]: the same for every word
            else:
                joined = contexts.transpose(1, 2).reshape(batch, length, -1)  # [B, T, H * d]
            y = self.norm(x + self.sentence_dropout(self.output(joined)))
        if self.feed_forward is not None:
            y = self.feed_forward_norm(y + self.sentence_dropout(self.feed_forward(y)))
        return y * mask.unsqueeze(-1).to(y.dtype)


def headwise_fencepost_vectors(h: Tensor, n_heads: int) -> Tensor:
    """Fencepost vectors ``[f_k ; b_{k+1}]`` with the forward/backward split taken inside each head's slice.

    Input ``h: Tensor[B, T, H * d]`` (head i owns features ``i*d : (i+1)*d``; ``d`` even).  The forward
    half of a word is the first ``d/2`` features of every head, the backward half the last ``d/2``
    (§3.1).  Output ``Tensor[B, T - 1, H * d]``: row k is ``[f_k ; b_{k+1}]``, each ``[H, d/2]``
    flattened head by head, so that head i's part of a span vector is ``f[i*d/2 : (i+1)*d/2]`` and
    ``b[i*d/2 : (i+1)*d/2]``.
    """
    batch, length, width = h.shape
    if width % n_heads or (width // n_heads) % 2:
        raise ValueError(f"a per-head split needs {n_heads} heads of an even size; got {width} features")
    per_head = h.reshape(batch, length, n_heads, width // n_heads)
    half = width // n_heads // 2
    forward = per_head[:, :-1, :, :half].reshape(batch, length - 1, -1)
    backward = per_head[:, 1:, :, half:].reshape(batch, length - 1, -1)
    return torch.cat([forward, backward], dim=-1)


def head_span_vectors(h: Tensor, n_heads: int, left: Tensor, right: Tensor, batch_index: Tensor) -> Tensor:
    """Each head's part of the span vectors of the listed spans (Figure 6).

    Inputs ``h: Tensor[B, T, H * d]``, ``batch_index, left, right: LongTensor[S]`` (fenceposts, left < right).
    Output ``Tensor[S, H, d]``: ``[f_j - f_i ; b_{j+1} - b_{i+1}]`` restricted to each head's features.
    """
    fence = headwise_fencepost_vectors(h, n_heads)  # [B, T-1, H*d]
    span = fence[batch_index, right] - fence[batch_index, left]  # [S, H*d]
    half = span.shape[-1] // 2
    forward = span[:, :half].reshape(span.shape[0], n_heads, -1)
    backward = span[:, half:].reshape(span.shape[0], n_heads, -1)
    return torch.cat([forward, backward], dim=-1)


class HeadwiseSpanScorer(SpanScorer):
    """:class:`SpanScorer` whose fencepost vectors split every head's slice in two (§3.1) instead of the
    parity split of Kitaev & Klein; ``n_heads=None`` keeps the parity split (a projection-combined layer
    has no per-head slices).  Inputs and outputs as :class:`SpanScorer`."""

    def __init__(self, d_model: int, d_hidden: int, n_labels: int, n_heads: Optional[int]) -> None:
        super().__init__(d_model, d_hidden, n_labels)
        self.n_heads = n_heads

    def project(self, h: Tensor) -> Tensor:
        """``Tensor[B, T, d_model]`` -> ``Tensor[B, N+1, d_hidden]``."""
        if self.n_heads is None:
            return super().project(h)
        return self.hidden(headwise_fencepost_vectors(h, self.n_heads))
