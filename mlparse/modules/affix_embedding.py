"""Embeddings of a word's affix and shape features (:mod:`mlparse.data.affixes`), concatenated."""

from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor, nn


class AffixEmbedding(nn.Module):
    """A table per feature; a word's vector is the concatenation of its F features' vectors.

    The tables are rows of one embedding (feature k's ids are offset by the sizes of the tables before
    it), so a batch costs one lookup and one gradient, not F. ``forward(ids: LongTensor[..., F]) ->
    Tensor[..., F * d_emb]``. Padding ids (0) have rows like any other: the encoder masks padded positions.
    """

    def __init__(self, sizes: Sequence[int], d_emb: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(int(sum(sizes)), d_emb)
        offsets = torch.tensor([0, *list(sizes)[:-1]], dtype=torch.long).cumsum(0)
        self.register_buffer("offsets", offsets, persistent=False)
        self.d_out = d_emb * len(sizes)

    def forward(self, ids: Tensor) -> Tensor:
        vectors = self.embedding(ids + self.offsets)  # [..., F, d_emb]
        return vectors.flatten(-2)
