"""CharLSTM: a bidirectional LSTM over the characters of each word (Kitaev & Klein 2018, §5.1)."""

from __future__ import annotations

from typing import Optional

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence

from mlparse.modules.dropout import ElementDropout
from mlparse.modules.packed_lstm import PackedLayout, packed_bidirectional_layer
from mlparse.modules.transfer import to_device


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
        host_lengths: the same numbers on the host (``int64 ndarray[B, T]``), optional. The words to
            run and the lengths ``pack_padded_sequence`` wants are chosen on the host, so given them
            the forward pass never waits for the device; without them ``char_lengths`` is copied to the
            host once (a synchronisation on a GPU).

    Output: ``Tensor[B, T, d_out]``.

    Parsing on the CPU runs the LSTM once per distinct word of the batch (:meth:`shares_words`): the same
    numbers, for about a third of the work on running text.

    ``static_shapes`` (set for ``train.step: graph``): in training, every position runs in shapes fixed by
    ``[B, T, C]`` with nothing read on the host (:meth:`_static_states`), so the pass can be compiled as one graph;
    the same vectors as the packed pass, for twice its LSTM work.
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
        self.char_dropout = ElementDropout(char_dropout)  # nn.Dropout's distribution, its CPU masks drawn faster
        self.lstm = nn.LSTM(d_char_emb, d_out // 2, num_layers=1, bidirectional=True, batch_first=True)
        self.share_words = True  # inference on the CPU runs each distinct word once (see shares_words)
        self.static_shapes = False  # training in fixed shapes, no host read (train.step: graph; _static_states)
        self.packed_on_cpu = True  # the packed kernel on a CPU (_packed_final_states); False: nn.LSTM (tests' reference)

    def forward(self, chars: Tensor, char_lengths: Tensor, host_lengths: Optional[np.ndarray] = None) -> Tensor:
        if chars.dim() != 3:
            raise ValueError(f"chars must be [B, T, C], got shape {tuple(chars.shape)}")
        batch, length, n_chars = chars.shape
        if char_lengths.shape != (batch, length):
            raise ValueError(
                f"char_lengths must be [B, T] = {(batch, length)}, got {tuple(char_lengths.shape)}"
            )
        if self.static_shapes and self.training:
            return self._static_states(chars, char_lengths)
        flat_host = np.asarray(char_lengths.cpu() if host_lengths is None else host_lengths).reshape(batch * length)
        if (flat_host > n_chars).any():
            raise ValueError("a char_lengths entry exceeds the character dimension C of chars")
        present = np.flatnonzero(flat_host)  # the words, as indices of the B * T positions
        out = chars.new_zeros((batch * length, self.d_out), dtype=self.embedding.weight.dtype)
        if not present.size:
            return out.view(batch, length, self.d_out)
        if self.shares_words(chars):
            # each distinct word once: its vector depends on its characters alone
            flat_chars = chars.reshape(batch * length, n_chars).numpy()
            _, first, inverse = np.unique(flat_chars[present], axis=0, return_index=True, return_inverse=True)
            distinct = present[first]
            by_length = np.argsort(-flat_host[distinct], kind="stable")
            rank = np.empty_like(by_length)
            rank[by_length] = np.arange(by_length.size)
            vectors = self._final_states(chars, flat_host, distinct[by_length])
            row_of_word = torch.from_numpy(rank[inverse.reshape(-1)])
            return out.index_put((torch.from_numpy(present),), vectors[row_of_word].to(out.dtype)).view(batch, length, self.d_out)
        # longest first, chosen on the host: packing then neither sorts nor permutes states on the device
        order = present[np.argsort(-flat_host[present], kind="stable")]
        vectors = self._final_states(chars, flat_host, order)
        index = to_device(order.astype(np.int64), chars.device)
        return out.index_put((index,), vectors.to(out.dtype)).view(batch, length, self.d_out)

    def shares_words(self, chars: Tensor) -> bool:
        """Does :meth:`forward` run each distinct word of the batch once?  Out of training on the CPU (the
        characters are on the host already): a word's vector depends on its characters alone, so copies of
        it get the same vector.  Training keeps every occurrence (dropout draws a mask for each).
        ``share_words = False`` turns it off (the tests' reference)."""
        return self.share_words and not self.training and chars.device.type == "cpu"

    def _final_states(self, chars: Tensor, flat_lengths: np.ndarray, order: np.ndarray) -> Tensor:
        """``[h_fwd_final ; h_bwd_final]`` of the words at the flat positions ``order`` (longest first):
        ``Tensor[len(order), d_out]``, in that order."""
        batch, length, n_chars = chars.shape
        index = to_device(order.astype(np.int64), chars.device)
        words = chars.reshape(batch * length, n_chars).index_select(0, index)
        lengths = torch.from_numpy(flat_lengths[order].astype(np.int64))  # on the host, as packing wants
        if chars.device.type == "cpu" and self.packed_on_cpu:  # dropout drawn on the characters, applied packed
            return self._packed_final_states(self.embedding(words), flat_lengths[order])
        emb = self.char_dropout(self.embedding(words))
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=True)
        # the zero initial state, given: left to torch it reads the packed batch size back from a tensor
        zeros = emb.new_zeros((2, order.size, self.d_out // 2))
        _, (h_n, _) = self.lstm(packed, (zeros, zeros))
        # h_n: [2, M, d_out/2] (forward final, backward final), in the order of ``order``
        return torch.cat([h_n[0], h_n[1]], dim=-1)

    def _packed_final_states(self, emb: Tensor, lengths: np.ndarray) -> Tensor:
        """:meth:`_final_states` by the packed CPU kernel (:mod:`mlparse.modules.packed_lstm`: both directions in
        one loop over the real characters, a backward pass written by hand), the same numbers to rounding:
        ``emb: Tensor[M, C, d_char_emb]`` (the words' characters' embeddings), ``lengths``: their character
        counts (host) -> ``Tensor[M, d_out]``, the forward state at each word's last character beside the backward
        state at its first. Character dropout is applied here to the real characters, with the masks the padded
        ``emb`` would get (the same after the same seed)."""
        layout = PackedLayout.of(lengths, emb.shape[1])
        packed = layout.drop(self.char_dropout, layout.pack(emb))  # [N, d_char_emb]
        rows = packed_bidirectional_layer(self.lstm, packed, layout)  # [N, d_out], forward rows
        starts = np.arange(lengths.size, dtype=np.int64) * emb.shape[1]
        hidden = self.d_out // 2
        last = layout.unpack.index_select(0, torch.from_numpy(starts + lengths.astype(np.int64) - 1))
        first = layout.unpack.index_select(0, torch.from_numpy(starts))
        return torch.cat([rows.index_select(0, last)[:, :hidden], rows.index_select(0, first)[:, hidden:]], dim=-1)

    def _static_states(self, chars: Tensor, char_lengths: Tensor) -> Tensor:
        """``[h_fwd_final ; h_bwd_final]`` of every position, ``Tensor[B, T, d_out]`` (0 where the length is 0), in
        shapes fixed by ``chars: LongTensor[B, T, C]``: one LSTM call over the words as they are (the forward
        direction's state at the last character) and right-aligned within C (the backward direction's state once
        it has read back to the first character), stacked as ``[2 B T, C, d_char_emb]``."""
        batch, length, n_chars = chars.shape
        count = batch * length
        lengths = char_lengths.reshape(count)
        emb = self.char_dropout(self.embedding(chars.reshape(count, n_chars)))  # one dropout mask per character
        positions = torch.arange(n_chars, device=chars.device)
        shift = n_chars - lengths  # where a right-aligned word starts
        source = (positions[None, :] - shift[:, None]).clamp(min=0)
        right = emb.gather(1, source[:, :, None].expand(-1, -1, emb.shape[-1]))
        right = right * (positions[None, :] >= shift[:, None]).to(emb.dtype)[:, :, None]
        hidden = self.d_out // 2
        zeros = emb.new_zeros((2, 2 * count, hidden))
        states, _ = self.lstm(torch.cat([emb, right], dim=0), (zeros, zeros))  # [2 B T, C, d_out]
        rows = torch.arange(count, device=chars.device)
        forward = states[rows, (lengths - 1).clamp(min=0), :hidden]
        backward = states[rows + count, shift.clamp(max=n_chars - 1), hidden:]
        vectors = torch.cat([forward, backward], dim=-1) * (lengths > 0).to(emb.dtype)[:, None]
        return vectors.view(batch, length, self.d_out)
