"""Auxiliary part-of-speech tagging head over encoder outputs."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


#: The target of positions that are not words (never a tag id: those are >= 0).
IGNORED_TAG = -100


class TagHead(nn.Module):
    """Tag logits from encoder outputs.

    ``d_hidden=None``: a single linear layer. Otherwise ``Linear -> LayerNorm -> ReLU -> Linear``.

    Input ``h: Tensor[B, T, d_model]`` -> ``Tensor[B, T, n_tags]`` logits (start/stop and
    padding positions get logits too; the caller masks them, see :meth:`loss`).
    """

    def __init__(self, d_model: int, n_tags: int, d_hidden: int | None = None) -> None:
        super().__init__()
        if n_tags < 1:
            raise ValueError(f"n_tags must be >= 1, got {n_tags}")
        self.n_tags = n_tags
        if d_hidden is None:
            self.net: nn.Module = nn.Linear(d_model, n_tags)
        else:
            self.net = nn.Sequential(
                nn.Linear(d_model, d_hidden), nn.LayerNorm(d_hidden), nn.ReLU(), nn.Linear(d_hidden, n_tags)
            )

    def forward(self, h: Tensor) -> Tensor:
        return self.net(h)

    @staticmethod
    def loss(logits: Tensor, gold: Tensor, word_mask: Tensor, reduction: str = "sum") -> Tensor:
        """Cross-entropy over the positions where ``word_mask`` ([B, T] bool) is True.

        ``logits: Tensor[B, T, n_tags]``, ``gold: LongTensor[B, T]``; ``reduction`` is
        ``"sum"`` or ``"mean"`` over the selected positions.
        """
        # positions outside the mask are ignored rather than selected: selecting them by a boolean mask
        # would give a shape that the host must wait for
        ignored = gold.masked_fill(~word_mask, IGNORED_TAG)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ignored.reshape(-1), ignore_index=IGNORED_TAG,
                               reduction=reduction)
