"""Sinusoidal position encodings (Vaswani et al. 2017), as Li et al. (2019) use them (Eq. 8).

``table[p, 2j] = sin(p / 10000^(2j/d))`` and ``table[p, 2j+1] = cos(p / 10000^(2j/d))``.  The
table is fixed (no parameters); the learned table of Kitaev & Klein is the alternative, which
Li et al. report as slightly worse (their footnote 1).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def sinusoidal_table(length: int, dim: int) -> Tensor:
    """Position encodings ``Tensor[length, dim]`` (``dim`` even)."""
    if dim <= 0 or dim % 2:
        raise ValueError(f"sinusoidal positions need an even, positive dimension, got {dim}")
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)  # [L, 1]
    frequency = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))  # [dim/2]
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table
