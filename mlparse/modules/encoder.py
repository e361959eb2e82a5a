"""The self-attentive encoder: a stack of (attention, feed-forward) layers, optionally factored.

Each sublayer computes ``LayerNorm(x + Dropout(SubLayer(x)))`` (post-norm, §2.2 of
Kitaev & Klein 2018). In factored mode the feed-forward sublayer is two independent
networks, ``d_content -> d_ff/2 -> d_content`` and ``d_position -> d_ff/2 -> d_position``,
and attention is :class:`FactoredMultiHeadAttention`, so content and position stay in
their own halves of the vector throughout.

LayerNorm: by default (``partitioned_layer_norm=False``) one LayerNorm normalises the
whole ``d_model`` vector, as the reference implementation does; with
``partitioned_layer_norm=True`` the content and position halves are normalised separately,
so not even normalisation statistics are shared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet

import torch
from torch import Tensor, nn

from mlparse.modules.attention import AttentionWindow, FactoredMultiHeadAttention, PackedPositions, check_ablation
from mlparse.modules.dropout import DropoutKind, make_dropout

#: The share of padding positions from which the encoder computes on the real positions alone at inference
#: (:meth:`PartitionedTransformerEncoder.packs`).
PACK_PADDING = 0.1


class HalfwiseModule(nn.Module):
    """One module over the whole ``[content ; position]`` vector, or one per half.

    ``build(d)`` makes a module mapping ``Tensor[..., d]`` to ``Tensor[..., d]``. When
    ``split`` is True it is built twice, as ``content`` (``d = d_content``) and ``position``
    (``d = d_position``), each applied to its own half; otherwise once, as ``joint``
    (``d = d_content + d_position``). Input/output ``Tensor[..., d_content + d_position]``.
    """

    def __init__(self, d_content: int, d_position: int, split: bool, build: Callable[[int], nn.Module]) -> None:
        super().__init__()
        self.d_content = d_content
        self.split = split
        if split:
            self.content = build(d_content)
            self.position = build(d_position)
        else:
            self.joint = build(d_content + d_position)

    def forward(self, x: Tensor) -> Tensor:
        if not self.split:
            return self.joint(x)
        return torch.cat([self.content(x[..., : self.d_content]), self.position(x[..., self.d_content :])], dim=-1)


class PartitionedLayerNorm(HalfwiseModule):
    """LayerNorm over ``[content ; position]``: joint, or separately per half.

    Input/output ``Tensor[..., d_content + d_position]``.
    """

    def __init__(self, d_content: int, d_position: int, partitioned: bool) -> None:
        super().__init__(d_content, d_position, partitioned and d_position > 0, nn.LayerNorm)
        self.partitioned = self.split


class PositionwiseFeedForward(HalfwiseModule):
    """``W2 relu(W1 x + b1) + b2`` at every position, block-diagonal when factored.

    Factored: the content half goes through ``d_content -> d_ff/2 -> d_content`` and the
    position half through ``d_position -> d_ff/2 -> d_position``. Unfactored:
    ``d_model -> d_ff -> d_model``. ReLU dropout is applied to the hidden activations.

    Input ``Tensor[B, T, d_model]`` -> ``Tensor[B, T, d_model]`` (sublayer output, before residual).
    """

    def __init__(
        self,
        d_content: int,
        d_position: int,
        d_ff: int = 2048,
        relu_dropout: float = 0.1,
        factored: bool = True,
        dropout_kind: DropoutKind = "feature",
    ) -> None:
        if factored and d_ff % 2:
            raise ValueError(f"factored feed-forward needs an even d_ff, got {d_ff}")
        d_hidden = d_ff // 2 if factored else d_ff

        def mlp(d: int) -> nn.Module:
            return nn.Sequential(
                nn.Linear(d, d_hidden), nn.ReLU(), make_dropout(relu_dropout, dropout_kind), nn.Linear(d_hidden, d)
            )

        super().__init__(d_content, d_position, factored, mlp)
        self.factored = factored


class EncoderLayer(nn.Module):
    """One encoder layer: ``x = Norm(x + Dropout(attention(x)))``, then the same around ``feed_forward``.

    The two sublayers are built by the caller; ``d_content``/``d_position`` are read from
    ``attention``. ``partitioned_layer_norm`` normalises the two halves separately (factored
    attention only; otherwise one LayerNorm covers the whole vector).

    Inputs ``x: Tensor[B, T, d_model]``, ``mask: BoolTensor[B, T]`` -> ``Tensor[B, T, d_model]``.
    """

    def __init__(
        self,
        attention: FactoredMultiHeadAttention,
        feed_forward: PositionwiseFeedForward,
        residual_dropout: float = 0.2,
        partitioned_layer_norm: bool = False,
        dropout_kind: DropoutKind = "feature",
    ) -> None:
        super().__init__()
        d_content, d_position = attention.d_content, attention.d_position
        split_norm = attention.factored and partitioned_layer_norm
        self.attention = attention
        self.attention_residual_dropout = make_dropout(residual_dropout, dropout_kind)
        self.attention_norm = PartitionedLayerNorm(d_content, d_position, split_norm)
        self.feed_forward = feed_forward
        self.feed_forward_residual_dropout = make_dropout(residual_dropout, dropout_kind)
        self.feed_forward_norm = PartitionedLayerNorm(d_content, d_position, split_norm)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        x = self.attention_norm(x + self.attention_residual_dropout(self.attention(x, mask)))
        return self.feed_forward_norm(x + self.feed_forward_residual_dropout(self.feed_forward(x)))

    def forward_packed(self, x: Tensor, packed: PackedPositions) -> Tensor:
        """:meth:`forward` at the real positions only: ``x: Tensor[1, M, d_model]`` -> ``Tensor[1, M, d_model]``
        (:class:`~mlparse.modules.attention.PackedPositions`).

        Every sublayer but attention works position by position, so only attention sees the padded layout.
        """
        x = self.attention_norm(x + self.attention_residual_dropout(self.attention.forward_packed(x, packed)))
        return self.feed_forward_norm(x + self.feed_forward_residual_dropout(self.feed_forward(x)))


class PartitionedTransformerEncoder(nn.Module):
    """Stack of ``n_layers`` :class:`EncoderLayer` (Table 8: 8 layers, 8 heads, d_k = d_v = 64, d_ff = 2048).

    Args: the sizes and dropouts of :class:`FactoredMultiHeadAttention` and
    :class:`PositionwiseFeedForward`, ``residual_dropout`` and ``partitioned_layer_norm`` of
    :class:`EncoderLayer`; ``d_model = d_content + d_position``.
    ``dropout_kind`` selects per-sentence feature dropout (reference implementation) or
    element-wise dropout for the residual and ReLU dropouts; attention dropout is always
    element-wise.

    Inputs: ``x: Tensor[B, T, d_model]``, ``mask: BoolTensor[B, T]`` (True on real positions).
    Output: ``Tensor[B, T, d_model]``; padding positions are set to 0. Real positions do not
    depend on padding (keys on padding are masked out of every attention).

    Analysis hooks: :meth:`set_ablation` and :meth:`set_window` configure the attention of
    chosen layers; :meth:`record_attention` keeps each layer's attention probabilities.

    Parsing on the CPU computes on the real positions alone when a batch holds enough padding
    (:meth:`packs`); every position gets the same numbers as in the padded layout.
    """

    def __init__(
        self,
        n_layers: int = 8,
        d_content: int = 512,
        d_position: int = 512,
        n_heads: int = 8,
        d_k: int = 64,
        d_v: int = 64,
        d_ff: int = 2048,
        attention_dropout: float = 0.2,
        relu_dropout: float = 0.1,
        residual_dropout: float = 0.2,
        factored: bool = True,
        partitioned_layer_norm: bool = False,
        dropout_kind: DropoutKind = "feature",
    ) -> None:
        super().__init__()
        self.d_content = d_content
        self.d_position = d_position
        self.d_model = d_content + d_position
        self.factored = factored
        self.pack_positions = True  # inference on the CPU skips padding (see packs)
        self.layers = nn.ModuleList(
            EncoderLayer(
                FactoredMultiHeadAttention(
                    d_content, d_position, n_heads=n_heads, d_k=d_k, d_v=d_v,
                    attention_dropout=attention_dropout, factored=factored,
                ),
                PositionwiseFeedForward(
                    d_content, d_position, d_ff=d_ff, relu_dropout=relu_dropout, factored=factored,
                    dropout_kind=dropout_kind,
                ),
                residual_dropout=residual_dropout,
                partitioned_layer_norm=partitioned_layer_norm,
                dropout_kind=dropout_kind,
            )
            for _ in range(n_layers)
        )

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"encoder input must be [B, T, {self.d_model}], got {tuple(x.shape)}")
        if mask.shape != x.shape[:2]:
            raise ValueError(f"mask must be [B, T] = {tuple(x.shape[:2])}, got {tuple(mask.shape)}")
        if self.packs(mask):
            packed = PackedPositions.of(mask)
            h = packed.pack(x)
            for layer in self.layers:
                h = layer.forward_packed(h, packed)
            return packed.unpack(h)
        keep = mask.unsqueeze(-1).to(x.dtype)
        x = x * keep
        for layer in self.layers:
            x = layer(x, mask)
        return x * keep

    def packs(self, mask: Tensor) -> bool:
        """Does :meth:`forward` run on the real positions alone (``PackedPositions``)?

        On the CPU, out of training, when at least :data:`PACK_PADDING` of the positions are padding: each
        real position then gets the padded computation's outputs (the same weights on the same rows; only
        attention is laid out padded), while the matrix products skip the padding.  Training keeps the padded
        layout (feature dropout draws one mask per sentence), and so do GPUs and ``torch.compile`` (a
        data-dependent number of positions).  ``pack_positions = False`` turns it off (the tests' reference).
        """
        if not self.pack_positions or self.training or mask.device.type != "cpu" or torch.compiler.is_compiling():
            return False
        return int(mask.sum()) <= (1.0 - PACK_PADDING) * mask.numel()

    # --- analysis hooks -------------------------------------------------------------------

    def set_ablation(self, per_layer: Mapping[int, AbstractSet[str]] | None) -> None:
        """Drop attention parts in chosen layers, e.g. ``{0: {"content"}, 5: {"position"}}``.

        Layers not named (or ``None``) are restored to full attention.
        """
        per_layer = dict(per_layer or {})
        for index in per_layer:
            if not 0 <= index < len(self.layers):
                raise ValueError(f"layer {index} out of range: the encoder has {len(self.layers)} layers")
        for index, layer in enumerate(self.layers):
            parts = check_ablation(per_layer.get(index))
            if parts and not self.factored:
                raise ValueError("attention ablation needs a factored encoder")
            layer.attention.ablate = parts

    def set_window(self, window: AttentionWindow | None, layers: list[int] | None = None) -> None:
        """Apply an attention window to the given layers (all when ``layers`` is None)."""
        chosen = range(len(self.layers)) if layers is None else layers
        for index in chosen:
            self.layers[index].attention.window = window

    def record_attention(self, enabled: bool = True) -> None:
        """Keep ``layers[i].attention.last_attention`` ([B, H, T, T]) after each forward."""
        for layer in self.layers:
            layer.attention.record_attention = enabled
            if not enabled:
                layer.attention.last_attention = None

    def attention_maps(self) -> list[Tensor | None]:
        """The recorded attention probabilities of every layer (``None`` where not recorded)."""
        return [layer.attention.last_attention for layer in self.layers]
