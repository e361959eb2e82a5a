"""Dropout variants used by the parsers and the tagger.

The reference implementation of Kitaev & Klein (2018) applies *feature dropout* to
embeddings, ReLU activations and residual branches: a feature (coordinate) is dropped for
a whole sentence at once, i.e. the same mask is shared by every position of that sentence.
Ordinary element-wise dropout is available as the alternative ``kind="element"``
(:class:`ElementDropout`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch
from torch import Tensor, nn

DropoutKind = Literal["feature", "element"]
DROPOUT_KINDS: tuple[str, ...] = ("feature", "element")


class _Dropout(nn.Module):
    """What both kinds share: ``p`` checked, the input returned as is in eval mode or with ``p == 0``, zeros with
    ``p == 1``; otherwise :meth:`drop` (kept values scaled by ``1 / (1 - p)``)."""

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
        return self.drop(x)

    def drop(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def on_rows(self, rows: Tensor, batch: int, length: int, sentences: Tensor, positions: Tensor) -> Tensor:
        """Dropout on the words of a padded batch ``[batch, length, D]`` given as rows ``Tensor[N, D]``
        (``sentences[N]``: each row's batch row, ``positions[N]``: its flat position ``b * length + t``): the
        masks of :meth:`forward` on the padded batch, drawn in the same way (so the same ones after the same
        seed), on the rows only."""
        if not self.training or self.p == 0.0:
            return rows
        if self.p == 1.0:
            return torch.zeros_like(rows)
        return self.drop_rows(rows, batch, length, sentences, positions)

    def drop_rows(self, rows: Tensor, batch: int, length: int, sentences: Tensor, positions: Tensor) -> Tensor:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return f"p={self.p}"


class FeatureDropout(_Dropout):
    """Drop each feature with probability ``p``, with one mask per sentence.

    Input ``x: Tensor[B, T, D]`` (or ``[B, D]``) -> same shape. The mask has shape
    ``[B, 1, D]`` and is broadcast over the T positions of a sentence. Kept features are
    scaled by ``1 / (1 - p)``; in eval mode (or with ``p == 0``) the input is returned as is.
    """

    def drop(self, x: Tensor) -> Tensor:
        if x.dim() == 2:
            shape = x.shape
        else:
            shape = (x.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1],)
        keep = torch.empty(shape, dtype=x.dtype, device=x.device).bernoulli_(1.0 - self.p)
        return scaled_by_mask(x, keep, self.p)

    def drop_rows(self, rows: Tensor, batch: int, length: int, sentences: Tensor, positions: Tensor) -> Tensor:
        keep = torch.empty((batch, 1, rows.shape[1]), dtype=rows.dtype, device=rows.device).bernoulli_(1.0 - self.p)
        return scaled_by_mask(rows, keep.view(batch, rows.shape[1]).index_select(0, sentences), self.p)


class ElementDropout(_Dropout):
    """Drop each element with probability ``p`` (``torch.nn.Dropout``'s behaviour), with masks drawn faster on a CPU.

    Input ``x: Tensor`` of any shape -> same shape; kept elements are scaled by ``1 / (1 - p)``. On a CPU the mask
    is :func:`kept_on_cpu`'s (numpy's PCG64, 5-6 times as fast to draw as torch's ``bernoulli_``), the dropout
    :func:`element_dropout`; on other devices (and inside a compiled graph) ``torch.nn.functional.dropout``.
    """

    def drop(self, x: Tensor) -> Tensor:
        return element_dropout(x, self.p)

    def drop_rows(self, rows: Tensor, batch: int, length: int, sentences: Tensor, positions: Tensor) -> Tensor:
        shape = (batch, length, rows.shape[1])
        if rows.device.type != "cpu":
            keep = nn.functional.dropout(rows.new_ones(shape), self.p, True)
            return rows * keep.view(batch * length, -1).index_select(0, positions)
        kept = kept_on_cpu(shape, self.p).reshape(batch * length, -1)[positions.numpy()]
        return scaled_by_mask(rows, torch.from_numpy(kept).to(rows.dtype), self.p)


def kept_on_cpu(shape: tuple, p: float) -> np.ndarray:
    """A dropout mask of ``shape`` for a CPU tensor: ``bool ndarray``, True where kept. 16-bit integers from numpy's
    PCG64, kept where at least ``round(p * 65536)`` (dropped with probability ``p`` to within ``2**-17``); the
    generator is seeded from torch's, so ``torch.manual_seed`` and a checkpoint's saved RNG state decide the mask.
    torch draws a CPU mask (``bernoulli_``) with its one-thread Mersenne twister at about 4.8 ns an element, this at
    0.8-0.9 (``benchmarks/dropout_masks.py``, 2026-11-29, the 2-core Intel machine: docs/benchmarks.md, "Training
    speed")."""
    # read through numpy: a CPU tensor on every machine, since this path runs for CPU tensors only (a GPU's masks are
    # torch's own), so nothing waits for a device here and the counters of would-be GPU syncs rightly ignore it
    seed = int(torch.randint(0, 2 ** 62, (1,)).numpy()[0])
    draws = np.random.Generator(np.random.PCG64(seed)).integers(0, 65536, shape, dtype=np.uint16)
    return draws >= round(p * 65536)


def element_dropout(x: Tensor, p: float) -> Tensor:
    """Element-wise dropout of ``x`` (any shape, training mode): ``torch.nn.functional.dropout(x, p, True)``'s
    distribution, with the mask of :func:`kept_on_cpu` when ``x`` is on a CPU (torch's own inside a compiled
    graph, which numpy cannot enter); ``x`` itself when ``p == 0``."""
    if p == 0.0:
        return x
    if p == 1.0:
        return torch.zeros_like(x)
    if x.device.type != "cpu" or torch.compiler.is_compiling():
        return nn.functional.dropout(x, p, True)
    return scaled_by_mask(x, torch.from_numpy(kept_on_cpu(tuple(x.shape), p)).to(x.dtype), p)


def scaled_by_mask(x: Tensor, keep: Tensor, p: float) -> Tensor:
    """``x * keep / (1 - p)`` (``keep``: 0/1 in ``x``'s dtype, broadcast to ``x``). In float32 and float64 the mask is
    scaled first (one multiplication of the whole tensor instead of two); in a 16-bit dtype the scale itself would be
    rounded (1/0.9 to 1.109375 in bfloat16, a bias of every kept value), so each product is divided instead."""
    if x.dtype in (torch.float32, torch.float64):
        return x * keep.mul_(1.0 / (1.0 - p))
    return x * keep / (1.0 - p)


def make_dropout(p: float, kind: DropoutKind = "feature") -> "_Dropout":
    """A dropout module of the given kind: ``"feature"`` (per sentence) or ``"element"``."""
    if kind == "feature":
        return FeatureDropout(p)
    if kind == "element":
        return ElementDropout(p)
    raise ValueError(f"unknown dropout kind {kind!r}; valid kinds: {', '.join(DROPOUT_KINDS)}")
