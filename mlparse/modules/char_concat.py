"""CharConcat: concatenated embeddings of a word's first and last characters (Kitaev & Klein 2018, §5.1)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


def prefix_suffix_ids(char_ids: Sequence[int], n_chars: int = 8) -> tuple[list[int], list[int]]:
    """Split one word's character ids into a prefix and a reversed suffix, both padded with 0.

    ``prefix`` holds the first ``n_chars`` characters in reading order; ``suffix`` holds the
    last ``n_chars`` characters read from the end of the word (``suffix[0]`` is the last
    character, ``suffix[1]`` the one before it, ...). Short words are padded with 0 on the
    right of both lists, so position k of the suffix is always "k-th character from the end".

    >>> prefix_suffix_ids([5, 6, 7], n_chars=4)
    ([5, 6, 7, 0], [7, 6, 5, 0])
    """
    ids = list(char_ids)
    prefix = ids[:n_chars] + [0] * max(0, n_chars - len(ids))
    rev = ids[::-1]
    suffix = rev[:n_chars] + [0] * max(0, n_chars - len(ids))
    return prefix, suffix


def prefix_suffix_from_chars(
    chars: Tensor, char_lengths: Tensor, n_chars: int = 8, skip_boundary_markers: bool = False
) -> tuple[Tensor, Tensor]:
    """Tensor version of :func:`prefix_suffix_ids` for a whole batch.

    Inputs: ``chars: LongTensor[B, T, C]`` (0 = pad), ``char_lengths: LongTensor[B, T]``.
    With ``skip_boundary_markers`` the first and last character of every word (begin/end
    of word markers) are dropped first.
    Outputs: ``prefix, suffix: LongTensor[B, T, n_chars]``; entries past a word's length are 0.
    """
    if skip_boundary_markers:
        chars = chars[..., 1:]
        char_lengths = (char_lengths - 2).clamp(min=0)
    batch, length, max_chars = chars.shape
    k = torch.arange(n_chars, device=chars.device)
    lengths = char_lengths.unsqueeze(-1)  # [B, T, 1]
    valid = k < lengths  # [B, T, n]
    padded = chars
    if max_chars < n_chars:
        padded = torch.nn.functional.pad(chars, (0, n_chars - max_chars))
    prefix = padded[..., :n_chars] * valid
    suffix_index = (lengths - 1 - k).clamp(min=0)  # [B, T, n]
    suffix = torch.gather(padded, -1, suffix_index) * valid
    return prefix, suffix


class CharConcat(nn.Module):
    """Word vectors made by concatenating embeddings of the first and last ``n_chars`` characters.

    With ``n_chars = 8`` and ``d_char_emb = 32`` the output has ``2 * 8 * 32 = 512``
    features: 8 prefix character embeddings in reading order, then 8 suffix character
    embeddings starting from the word's last character (see :func:`prefix_suffix_ids`).
    Padding (id 0) embeds to the zero vector. Words longer than ``2 * n_chars`` lose their
    middle characters.

    Args:
        num_chars: character vocabulary size; index 0 is padding.
        d_char_emb: character embedding size (Table 8: 32).
        n_chars: characters taken from each end (8 in the paper).
        skip_boundary_markers: ``forward_chars`` drops each word's first and last character
            id (use when the character ids carry begin/end-of-word markers).

    Inputs (``forward``): ``prefix, suffix: LongTensor[B, T, n_chars]`` as built by
    :func:`prefix_suffix_ids` / :func:`prefix_suffix_from_chars`. ``forward_chars`` accepts
    ``chars: LongTensor[B, T, C]`` and ``char_lengths: LongTensor[B, T]`` instead.

    Output: ``Tensor[B, T, 2 * n_chars * d_char_emb]``.
    """

    def __init__(
        self, num_chars: int, d_char_emb: int = 32, n_chars: int = 8, skip_boundary_markers: bool = False
    ) -> None:
        super().__init__()
        self.skip_boundary_markers = skip_boundary_markers
        self.num_chars = num_chars
        self.d_char_emb = d_char_emb
        self.n_chars = n_chars
        self.d_out = 2 * n_chars * d_char_emb
        self.embedding = nn.Embedding(num_chars, d_char_emb, padding_idx=0)

    def forward(self, prefix: Tensor, suffix: Tensor) -> Tensor:
        if prefix.shape != suffix.shape or prefix.shape[-1] != self.n_chars:
            raise ValueError(
                f"prefix and suffix must both be [B, T, {self.n_chars}], "
                f"got {tuple(prefix.shape)} and {tuple(suffix.shape)}"
            )
        ids = torch.cat([prefix, suffix], dim=-1)  # [B, T, 2n]
        emb = self.embedding(ids)  # [B, T, 2n, d]
        return emb.flatten(start_dim=-2)

    def forward_chars(self, chars: Tensor, char_lengths: Tensor) -> Tensor:
        """Same as ``forward`` after extracting prefixes/suffixes from ``chars`` [B, T, C].

        When the module was built with ``skip_boundary_markers=True``, the first and last
        character of each word (begin/end-of-word markers) are ignored.
        """
        prefix, suffix = prefix_suffix_from_chars(chars, char_lengths, self.n_chars, self.skip_boundary_markers)
        return self.forward(prefix, suffix)
