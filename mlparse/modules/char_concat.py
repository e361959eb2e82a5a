"""CharConcat: concatenated embeddings of a word's first and last letters (Kitaev & Klein 2018, §5.1).

A word is represented by its first ``n`` and its last ``n`` letters (``n = 8`` in the paper),
each embedded (32 features in the paper) and concatenated: ``2 * 8 * 32 = 512`` features, the
content input size of the base model, so the vector replaces the tag embedding without any
projection. Short words fill their empty slots with the embedding of a learned padding letter
(character id 0); words longer than ``2 * n`` letters lose their middle.

When the packed vector is smaller than the model's content input (a smaller model, e.g. the
demo's ``d_model``), it is zero-filled at the end up to that size: no parameters are added and
the last features carry no letter information. A packed vector larger than the content input
is refused (:class:`CharConcat` raises ``ValueError``; recipes are checked before training).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

#: Character id of the padding letter that fills the slots of short words (``CHAR_PAD`` in the vocabulary).
PAD_LETTER = 0


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
    prefix = ids[:n_chars] + [PAD_LETTER] * max(0, n_chars - len(ids))
    rev = ids[::-1]
    suffix = rev[:n_chars] + [PAD_LETTER] * max(0, n_chars - len(ids))
    return prefix, suffix


def prefix_suffix_from_chars(
    chars: Tensor, char_lengths: Tensor, n_chars: int = 8, skip_boundary_markers: bool = False
) -> tuple[Tensor, Tensor]:
    """Tensor version of :func:`prefix_suffix_ids` for a whole batch.

    Inputs: ``chars: LongTensor[B, T, C]`` (0 = pad), ``char_lengths: LongTensor[B, T]``.
    With ``skip_boundary_markers`` the first and last character of every word (begin/end
    of word markers) are dropped first, so that they take no slot.
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
    """Word vectors made by concatenating embeddings of the first and last ``n_chars`` letters.

    With ``n_chars = 8`` and ``d_char_emb = 32`` the packed vector has ``2 * 8 * 32 = 512``
    features: 8 prefix letter embeddings in reading order, then 8 suffix letter embeddings
    starting from the word's last letter (see :func:`prefix_suffix_ids`). Empty slots of short
    words hold the embedding of the padding letter (id 0), learned like any other letter.

    Args:
        num_chars: character vocabulary size; index 0 is the padding letter.
        d_char_emb: letter embedding size (Table 8: 32).
        n_chars: letters taken from each end (8 in the paper).
        d_out: output size; ``None`` (or ``2 * n_chars * d_char_emb``) gives the packed vector as
            it is; a larger ``d_out`` zero-fills the features after it; a smaller one is an error.
        skip_boundary_markers: ``forward_chars`` drops each word's first and last character
            id (use when the character ids carry begin/end-of-word markers, as the parser's do).

    Inputs (``forward``): ``prefix, suffix: LongTensor[B, T, n_chars]`` as built by
    :func:`prefix_suffix_ids` / :func:`prefix_suffix_from_chars`. ``forward_chars`` accepts
    ``chars: LongTensor[B, T, C]`` and ``char_lengths: LongTensor[B, T]`` instead.

    Output: ``Tensor[B, T, d_out]``.
    """

    def __init__(
        self, num_chars: int, d_char_emb: int = 32, n_chars: int = 8, d_out: int | None = None,
        skip_boundary_markers: bool = False,
    ) -> None:
        super().__init__()
        self.skip_boundary_markers = skip_boundary_markers
        self.num_chars = num_chars
        self.d_char_emb = d_char_emb
        self.n_chars = n_chars
        self.d_packed = 2 * n_chars * d_char_emb
        self.d_out = self.d_packed if d_out is None else d_out
        if self.d_out < self.d_packed:
            raise ValueError(
                f"CharConcat packs 2 x {n_chars} letters x {d_char_emb} features = {self.d_packed} features, "
                f"more than its output size {self.d_out}; use fewer letters or smaller letter embeddings"
            )
        self.embedding = nn.Embedding(num_chars, d_char_emb)

    def forward(self, prefix: Tensor, suffix: Tensor) -> Tensor:
        if prefix.shape != suffix.shape or prefix.shape[-1] != self.n_chars:
            raise ValueError(
                f"prefix and suffix must both be [B, T, {self.n_chars}], "
                f"got {tuple(prefix.shape)} and {tuple(suffix.shape)}"
            )
        ids = torch.cat([prefix, suffix], dim=-1)  # [B, T, 2n]
        packed = self.embedding(ids).flatten(start_dim=-2)  # [B, T, 2n * d]
        if self.d_out > self.d_packed:
            packed = torch.nn.functional.pad(packed, (0, self.d_out - self.d_packed))
        return packed

    def forward_chars(self, chars: Tensor, char_lengths: Tensor) -> Tensor:
        """Same as ``forward`` after extracting prefixes/suffixes from ``chars`` [B, T, C].

        When the module was built with ``skip_boundary_markers=True``, the first and last
        character of each word (begin/end-of-word markers) are ignored.
        """
        prefix, suffix = prefix_suffix_from_chars(chars, char_lengths, self.n_chars, self.skip_boundary_markers)
        return self.forward(prefix, suffix)
