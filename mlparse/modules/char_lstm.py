"""CharLSTM: a bidirectional LSTM over the characters of each word (Kitaev & Klein 2018, §5.1)."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence


class CharLSTM(nn.Module):
    """Word vectors from a BiLSTM run independently over each word's characters.

    The output for a word is ``[h_fwd_final ; h_bwd_final]``: the last state of the forward
    LSTM and the last state of the backward LSTM (which has read the word right to left).
    Each direction has ``d_out // 2`` hidden units, so the output has size ``d_out``
    (``d_out`` must be even). Embedding dropout (``char_dropout``, Table 8: 0.2) is
    applied to the character embeddings at the LSTM input.

    Args:
        num_chars: size of the character vocabulary; index 0 is padding.
        d_char_emb: character embedding size (Table 8: 64).
        d_out: output size (d_content in the parser).
        char_dropout: dropout probability on the character embeddings.

    Inputs:
        chars: ``LongTensor[B, T, C]`` character ids, 0 = padding.
        char_lengths: ``LongTensor[B, T]`` number of characters of each word; positions
            with length 0 (padding positions) get an all-zero output vector.

    Output: ``Tensor[B, T, d_out]``.
    """

    def __init__(
        self,
        num_chars: int,
        d_char_emb: int = 64,
        d_out: int = 512,
        char_dropout: float = 0.2,
    ) -> None:
        super().__init__()
        if d_out % 2 != 0:
            raise ValueError(f"CharLSTM d_out must be even (two directions), got {d_out}")
        self.num_chars = num_chars
        self.d_char_emb = d_char_emb
        self.d_out = d_out
        self.embedding = nn.Embedding(num_chars, d_char_emb, padding_idx=0)
        self.char_dropout = nn.Dropout(char_dropout)
        self.lstm = nn.LSTM(d_char_emb, d_out // 2, num_layers=1, bidirectional=True, batch_first=True)

    def forward(self, chars: Tensor, char_lengths: Tensor) -> Tensor:
        if chars.dim() != 3:
            raise ValueError(f"chars must be [B, T, C], got shape {tuple(chars.shape)}")
        batch, length, n_chars = chars.shape
        if char_lengths.shape != (batch, length):
            raise ValueError(
                f"char_lengths must be [B, T] = {(batch, length)}, got {tuple(char_lengths.shape)}"
            )
        if bool((char_lengths > n_chars).any()):
            raise ValueError("a char_lengths entry exceeds the character dimension C of chars")
        flat_chars = chars.reshape(batch * length, n_chars)
        flat_lengths = char_lengths.reshape(batch * length)
        present = flat_lengths > 0
        out = chars.new_zeros((batch * length, self.d_out), dtype=self.embedding.weight.dtype)
        if bool(present.any()):
            words = flat_chars[present]
            lengths = flat_lengths[present]
            emb = self.char_dropout(self.embedding(words))
            packed = pack_padded_sequence(emb, lengths.cpu(), batch_first=True, enforce_sorted=False)
            _, (h_n, _) = self.lstm(packed)
            # h_n: [2, M, d_out/2] (forward final, backward final), in the original word order.
            word_vectors = torch.cat([h_n[0], h_n[1]], dim=-1)
            out = out.index_put((present.nonzero(as_tuple=True)[0],), word_vectors.to(out.dtype))
        return out.view(batch, length, self.d_out)
