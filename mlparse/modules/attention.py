"""Multi-head self-attention, factored into content and position parts (Kitaev & Klein 2018, §2.2.1, §3).

In factored mode an input vector ``x = [x_c ; x_p]`` (content first, then position) is
only ever multiplied by block-diagonal matrices. For every head, the query is
``q = [x_c W_Q^c ; x_p W_Q^p]`` with ``d_k / 2`` coordinates per half, likewise the key
and the value (``d_v / 2`` per half), so that ``q . k = q_c . k_c + q_p . k_p``. The
attended content values are projected back to the content half of the output (``W_O^c``)
and the attended position values to the position half (``W_O^p``).

Test-time analysis (§4 of the paper) is built in:

* ``ablate``: a set drawn from ``{"content", "position"}``; the named part of ``q . k`` is
  dropped (both: all logits are 0, attention is uniform over the allowed keys). Values are
  untouched. Only meaningful in factored mode.
* ``window``: an :class:`AttentionWindow`; *strict* lets position i attend to j only when
  ``|i - j| <= size``; *relaxed* also lets the start token, the first word, the last word
  and the stop token of each sentence attend to and be attended by every position (the four
  "global" positions of the paper's Table 2).

Both can be set as module attributes (``module.ablate``, ``module.window``) or passed to
``forward`` for a single call.
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from mlparse.modules.dropout import element_dropout

ABLATION_PARTS: frozenset[str] = frozenset({"content", "position"})


@dataclass(frozen=True)
class AttentionWindow:
    """Restrict attention to a window of ``size`` positions on each side.

    ``relaxed=False`` (strict): i may attend to j only if ``|i - j| <= size``.
    ``relaxed=True``: additionally, the start token (position 0), the first word (1), the
    last word (n) and the stop token (n + 1) of each sentence attend to, and are attended
    by, every real position.
    """

    size: int
    relaxed: bool = False

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError(f"attention window size must be >= 0, got {self.size}")


def check_ablation(ablate: AbstractSet[str] | None) -> frozenset[str]:
    """Validate an ablation set and return it frozen (``None`` -> empty set)."""
    parts = frozenset(ablate or ())
    unknown = parts - ABLATION_PARTS
    if unknown:
        raise ValueError(
            f"unknown attention ablation {sorted(unknown)}; valid parts: {sorted(ABLATION_PARTS)}"
        )
    return parts


@dataclass(frozen=True)
class PackedPositions:
    """The real positions of a padded batch, for computing on them alone.

    ``mask: BoolTensor[B, T]`` (True on real positions); ``batch`` and ``position``: ``LongTensor[M]``,
    the batch row and the position of each of its M True entries, in row-major order.  The packed form
    of a padded ``Tensor[B, T, ...]`` is ``Tensor[1, M, ...]``: one row holding every real position, so
    that position-wise modules (linear layers, LayerNorm) take the same code path as on the padded batch
    and give each position the same numbers.
    """

    mask: Tensor
    batch: Tensor
    position: Tensor

    @classmethod
    def of(cls, mask: Tensor) -> "PackedPositions":
        batch, position = mask.nonzero(as_tuple=True)
        return cls(mask, batch, position)

    @property
    def count(self) -> int:
        """M, the number of real positions."""
        return int(self.batch.numel())

    def pack(self, padded: Tensor) -> Tensor:
        """``Tensor[B, T, ...]`` -> ``Tensor[1, M, ...]`` (the real positions)."""
        return padded[self.batch, self.position].unsqueeze(0)

    def unpack(self, packed: Tensor) -> Tensor:
        """``Tensor[1, M, ...]`` -> ``Tensor[B, T, ...]`` with zeros at padding."""
        batch, length = self.mask.shape
        padded = packed.new_zeros((batch, length) + tuple(packed.shape[2:]))
        padded[self.batch, self.position] = packed[0]
        return padded


def allowed_pairs(mask: Tensor, window: AttentionWindow | None = None) -> Tensor:
    """Which (query, key) pairs may attend.

    Input ``mask: BoolTensor[B, T]`` (True on real positions, start/stop included).
    Output ``BoolTensor[B, T, T]``: ``[b, i, j]`` is True when query i may attend to key j.
    Keys on padding are never allowed. Query rows that would have no allowed key at all
    (possible only for padding queries under a window) allow every real key instead, so
    that softmax stays finite; those rows are padding and are ignored downstream.
    """
    batch, length = mask.shape
    allowed = mask.unsqueeze(1).expand(batch, length, length)
    if window is not None:
        pos = torch.arange(length, device=mask.device)
        near = (pos.unsqueeze(0) - pos.unsqueeze(1)).abs() <= window.size  # [T, T]
        near = near.unsqueeze(0).expand(batch, length, length)
        if window.relaxed:
            n_real = mask.sum(dim=1)  # n + 2
            last = (n_real - 1).unsqueeze(1)  # stop token index n + 1
            pos_b = pos.unsqueeze(0)
            is_global = (pos_b <= 1) | (pos_b >= last - 1)  # start, first word, last word, stop
            is_global = is_global & mask
            near = near | is_global.unsqueeze(2) | is_global.unsqueeze(1)
        allowed = allowed & near
    empty_row = ~allowed.any(dim=-1, keepdim=True)
    allowed = allowed | (empty_row & mask.unsqueeze(1))
    return allowed


class FactoredMultiHeadAttention(nn.Module):
    """Multi-head self-attention over ``[content ; position]`` vectors.

    Args:
        d_content: size of the content half of the model vectors.
        d_position: size of the position half (in unfactored mode the model size is simply
            ``d_content + d_position``; ``d_position`` may then be 0).
        n_heads: number of heads (Table 8: 8).
        d_k: query/key size per head (64); split ``d_k/2`` content + ``d_k/2`` position when factored.
        d_v: value size per head (64); split likewise.
        attention_dropout: dropout on the attention probabilities (0.2).
        factored: block-diagonal projections (True) or ordinary multi-head attention (False).

    The heads' outputs are concatenated and projected (equivalent to the paper's sum of
    per-head ``W_O`` projections). Logits are scaled by ``1 / sqrt(d_k)``.

    Inputs: ``x: Tensor[B, T, d_model]``, ``mask: BoolTensor[B, T]``.
    Output: ``Tensor[B, T, d_model]`` (the sublayer output, before residual and LayerNorm).
    When ``record_attention`` is True, the attention probabilities of the last call are kept
    in ``last_attention: Tensor[B, n_heads, T, T]`` (before attention dropout).
    """

    def __init__(
        self,
        d_content: int,
        d_position: int,
        n_heads: int = 8,
        d_k: int = 64,
        d_v: int = 64,
        attention_dropout: float = 0.2,
        factored: bool = True,
    ) -> None:
        super().__init__()
        if factored and (d_k % 2 or d_v % 2):
            raise ValueError(f"factored attention needs even d_k and d_v, got d_k={d_k}, d_v={d_v}")
        if factored and (d_content <= 0 or d_position <= 0):
            raise ValueError("factored attention needs d_content > 0 and d_position > 0")
        self.d_content = d_content
        self.d_position = d_position
        self.d_model = d_content + d_position
        self.n_heads = n_heads
        self.d_k = d_k
        self.d_v = d_v
        self.factored = factored
        self.attention_dropout = attention_dropout
        self.scale = 1.0 / math.sqrt(d_k)
        self.ablate: frozenset[str] = frozenset()
        self.window: AttentionWindow | None = None
        self.record_attention = False
        self.last_attention: Tensor | None = None
        self.use_sdpa = True
        if factored:
            hk, hv = n_heads * (d_k // 2), n_heads * (d_v // 2)
            self.w_q_content = nn.Linear(d_content, hk, bias=False)
            self.w_k_content = nn.Linear(d_content, hk, bias=False)
            self.w_v_content = nn.Linear(d_content, hv, bias=False)
            self.w_q_position = nn.Linear(d_position, hk, bias=False)
            self.w_k_position = nn.Linear(d_position, hk, bias=False)
            self.w_v_position = nn.Linear(d_position, hv, bias=False)
            self.w_o_content = nn.Linear(hv, d_content, bias=False)
            self.w_o_position = nn.Linear(hv, d_position, bias=False)
        else:
            self.w_q = nn.Linear(self.d_model, n_heads * d_k, bias=False)
            self.w_k = nn.Linear(self.d_model, n_heads * d_k, bias=False)
            self.w_v = nn.Linear(self.d_model, n_heads * d_v, bias=False)
            self.w_o = nn.Linear(n_heads * d_v, self.d_model, bias=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Xavier-normal initialisation of every projection."""
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_normal_(module.weight)

    def _heads(self, y: Tensor, d: int) -> Tensor:
        """[B, T, H * d] -> [B, H, T, d]."""
        batch, length, _ = y.shape
        return y.view(batch, length, self.n_heads, d).transpose(1, 2)

    def _project_halves(self, x_c: Tensor, x_p: Tensor, w_content: nn.Linear, w_position: nn.Linear, d: int) -> Tensor:
        """Factored projection: ``[x_c W^c ; x_p W^p]`` per head, ``Tensor[B, H, T, 2 * d]``.

        ``x_c: Tensor[B, T, d_content]``, ``x_p: Tensor[B, T, d_position]``; ``d`` is the
        per-head size of each half.
        """
        return torch.cat([self._heads(w_content(x_c), d), self._heads(w_position(x_p), d)], dim=-1)

    def project_qkv(self, x: Tensor, ablate: AbstractSet[str] = frozenset()) -> tuple[Tensor, Tensor, Tensor]:
        """Per-head queries, keys and values.

        Input ``x: Tensor[B, T, d_model]``. Output ``q, k: Tensor[B, H, T, d_k]`` and
        ``v: Tensor[B, H, T, d_v]``. In factored mode the first half of each head's last
        dimension is the content part and the second half the position part. Ablated parts
        are zeroed in ``q`` only (which drops them from ``q . k``).
        """
        if x.shape[-1] != self.d_model:
            raise ValueError(f"attention input has {x.shape[-1]} features, expected d_model={self.d_model}")
        if not self.factored:
            if ablate:
                raise ValueError("attention ablation needs a factored model (content and position kept apart)")
            return (
                self._heads(self.w_q(x), self.d_k),
                self._heads(self.w_k(x), self.d_k),
                self._heads(self.w_v(x), self.d_v),
            )
        x_c, x_p = x[..., : self.d_content], x[..., self.d_content :]
        hk, hv = self.d_k // 2, self.d_v // 2
        q_c, q_p = self._heads(self.w_q_content(x_c), hk), self._heads(self.w_q_position(x_p), hk)
        if "content" in ablate:
            q_c = torch.zeros_like(q_c)
        if "position" in ablate:
            q_p = torch.zeros_like(q_p)
        q = torch.cat([q_c, q_p], dim=-1)
        k = self._project_halves(x_c, x_p, self.w_k_content, self.w_k_position, hk)
        v = self._project_halves(x_c, x_p, self.w_v_content, self.w_v_position, hv)
        return q, k, v

    def _prepare(
        self, x: Tensor, mask: Tensor, ablate: AbstractSet[str] | None, window: AttentionWindow | None
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """``q, k, v`` (see :meth:`project_qkv`) and the allowed pairs ``BoolTensor[B, 1, T, T]``.

        ``ablate``/``window`` default to the module attributes when None.
        """
        parts = check_ablation(self.ablate if ablate is None else ablate)
        q, k, v = self.project_qkv(x, parts)
        allowed = allowed_pairs(mask, self.window if window is None else window).unsqueeze(1)
        return q, k, v, allowed

    def _masked_logits(self, q: Tensor, k: Tensor, allowed: Tensor) -> Tensor:
        """``q . k / sqrt(d_k)``: ``Tensor[B, H, T, T]``, disallowed pairs = -inf."""
        logits = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return logits.masked_fill(~allowed, float("-inf"))

    def attention_logits(
        self,
        x: Tensor,
        mask: Tensor,
        ablate: AbstractSet[str] | None = None,
        window: AttentionWindow | None = None,
    ) -> Tensor:
        """Scaled logits ``q . k / sqrt(d_k)``: ``Tensor[B, H, T, T]``, disallowed pairs = -inf."""
        q, k, _, allowed = self._prepare(x, mask, ablate, window)
        return self._masked_logits(q, k, allowed)

    def forward(
        self,
        x: Tensor,
        mask: Tensor,
        ablate: AbstractSet[str] | None = None,
        window: AttentionWindow | None = None,
    ) -> Tensor:
        q, k, v, allowed = self._prepare(x, mask, ablate, window)
        return self._combine(self._attend(q, k, v, allowed))

    def forward_packed(
        self,
        x: Tensor,
        packed: PackedPositions,
        ablate: AbstractSet[str] | None = None,
        window: AttentionWindow | None = None,
    ) -> Tensor:
        """:meth:`forward` at the real positions only: ``x: Tensor[1, M, d_model]`` holds them (``packed``) and the
        output ``Tensor[1, M, d_model]`` is what :meth:`forward` gives there.

        The projections see the M real positions alone; queries, keys and values are then laid out as
        :meth:`forward` lays them out (``[B, H, T, d]``, zeros at padding, which no query attends to), so the
        attention itself is the same computation.
        """
        if x.dim() != 3 or x.shape[0] != 1 or x.shape[-1] != self.d_model:
            raise ValueError(f"packed attention input must be [1, M, {self.d_model}], got {tuple(x.shape)}")
        parts = check_ablation(self.ablate if ablate is None else ablate)
        batch, length = packed.mask.shape
        heads = []
        for rows, d in zip(self._project_rows(x[0], parts), (self.d_k, self.d_k, self.d_v)):
            padded = rows.new_zeros((batch, self.n_heads, length, d))
            padded[packed.batch, :, packed.position] = rows  # [M, H, d] into [B, H, T, d]
            heads.append(padded)
        allowed = allowed_pairs(packed.mask, self.window if window is None else window).unsqueeze(1)
        out = self._attend(heads[0], heads[1], heads[2], allowed)
        return self._combine_heads(out[packed.batch, :, packed.position].unsqueeze(0))  # [1, M, H, d_v] -> [1, M, d_model]

    def _project_rows(self, x: Tensor, ablate: AbstractSet[str]) -> tuple[Tensor, Tensor, Tensor]:
        """Per-head queries, keys and values of positions ``x: Tensor[M, d_model]``: ``Tensor[M, H, d_k]`` (twice)
        and ``Tensor[M, H, d_v]``, halves and ablation as in :meth:`project_qkv`."""
        if not self.factored:
            if ablate:
                raise ValueError("attention ablation needs a factored model (content and position kept apart)")
            return (self.w_q(x).unflatten(-1, (self.n_heads, self.d_k)),
                    self.w_k(x).unflatten(-1, (self.n_heads, self.d_k)),
                    self.w_v(x).unflatten(-1, (self.n_heads, self.d_v)))
        x_c, x_p = x[..., : self.d_content], x[..., self.d_content :]
        hk, hv = self.d_k // 2, self.d_v // 2

        def halves(w_content: nn.Linear, w_position: nn.Linear, d: int, drop: AbstractSet[str] = frozenset()) -> Tensor:
            content = w_content(x_c).unflatten(-1, (self.n_heads, d))
            position = w_position(x_p).unflatten(-1, (self.n_heads, d))
            if "content" in drop:
                content = torch.zeros_like(content)
            if "position" in drop:
                position = torch.zeros_like(position)
            return torch.cat([content, position], dim=-1)

        return (halves(self.w_q_content, self.w_q_position, hk, ablate),
                halves(self.w_k_content, self.w_k_position, hk),
                halves(self.w_v_content, self.w_v_position, hv))

    def _attend(self, q: Tensor, k: Tensor, v: Tensor, allowed: Tensor) -> Tensor:
        """Attention of ``q, k: Tensor[B, H, T, d_k]`` over ``v: Tensor[B, H, T, d_v]`` where ``allowed``
        (``BoolTensor[B, 1, T, T]``): ``Tensor[B, H, T, d_v]``."""
        p_drop = self.attention_dropout if self.training else 0.0
        numpy_mask = p_drop > 0.0 and q.device.type == "cpu" and not torch.compiler.is_compiling()
        if self.use_sdpa and not self.record_attention and not numpy_mask:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, dropout_p=p_drop, scale=self.scale)
        # training on a CPU: SDPA would draw its mask with bernoulli_, 5-6x slower than element_dropout
        probs = torch.softmax(self._masked_logits(q, k, allowed), dim=-1)
        if self.record_attention:
            self.last_attention = probs.detach()
        return torch.matmul(element_dropout(probs, p_drop), v)

    def _combine(self, out: Tensor) -> Tensor:
        """[B, H, T, d_v] -> [B, T, d_model] through the output projection(s)."""
        return self._combine_heads(out.transpose(1, 2))

    def _combine_heads(self, out: Tensor) -> Tensor:
        """[..., H, d_v] -> [..., d_model] through the output projection(s)."""
        if not self.factored:
            return self.w_o(out.flatten(-2))
        hv = self.d_v // 2
        return torch.cat([self.w_o_content(out[..., :hv].flatten(-2)), self.w_o_position(out[..., hv:].flatten(-2))], dim=-1)

    def extra_repr(self) -> str:
        return (
            f"d_content={self.d_content}, d_position={self.d_position}, n_heads={self.n_heads}, "
            f"d_k={self.d_k}, d_v={self.d_v}, factored={self.factored}"
        )
