"""Dropout variants used by the span parser.

The reference implementation of Kitaev & Klein (2018) applies *feature dropout* to
embeddings, ReLU activations and residual branches: a feature (coordinate) is dropped for
a whole sentence at once, i.e. the same mask is shared by every position of that sentence.
Ordinary element-wise dropout is available as the alternative ``kind="element"``.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn

DropoutKind = Literal["feature", "element"]
DROPOUT_KINDS: tuple[str, ...] = ("feature", "element")


class FeatureDropout(nn.Module):
    """Drop each feature with probability ``p``, with one mask per sentence.

    Input ``x: Tensor[B, T, D]`` (or ``[B, D]``) -> same shape. The mask has shape
    ``[B, 1, D]`` and is broadcast over the T positions of a sentence. Kept features are
    scaled by ``1 / (1 - p)``; in eval mode (or with ``p == 0``) the input is returned as is.
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return torch.zeros_like(x)
        if x.dim() == 2:
            shape = x.shape
        else:
            shape = (x.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1],)
        keep = torch.empty(shape, dtype=x.dtype, device=x.device).bernoulli_(1.0 - self.p)
        return x * keep / (1.0 - self.p)

    def extra_repr(self) -> str:
        return f"p={self.p}"


def make_dropout(p: float, kind: DropoutKind = "feature") -> nn.Module:
    """A dropout module of the given kind: ``"feature"`` (per sentence) or ``"element"``."""
    if kind == "feature":
        return FeatureDropout(p)
    if kind == "element":
        return nn.Dropout(p)
    raise ValueError(f"unknown dropout kind {kind!r}; valid kinds: {', '.join(DROPOUT_KINDS)}")
