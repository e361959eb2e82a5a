"""Words ↔ subwords for a pretrained encoder: alignment, sliding windows and pooling (no ``transformers`` here).

A sentence of n words becomes P subwords (each word at least one: a word the tokenizer turns into
nothing gets the tokenizer's unk token, so that it has a defined, contextual vector).  The encoder
reads windows of at most ``size`` subwords, each wrapped in the model's special tokens; a sentence
longer than one window is read in windows that overlap by ``overlap`` subwords (never truncated), and
each subword takes its vector from the window where it is most central (the largest distance to
either end of the window; the earlier window on a tie).  Pooling then turns the subword vectors of a
word into one vector: its first, its last or the mean of its subwords.

Shapes: B sentences, N = most words, P = most subwords of a sentence, W windows in the batch,
S = longest window with its special tokens, H = the encoder's hidden size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import torch
from torch import Tensor

from mlparse.modules.transfer import to_device

POOLINGS = ("first", "last", "mean")


@dataclass
class SubwordBatch:
    """What the encoder reads and how its outputs go back to words.

    ``ids: LongTensor[W, S]`` window token ids (special tokens included, right-padded with ``pad_id``),
    ``attention: LongTensor[W, S]`` (1 on real tokens); ``source: LongTensor[B, P]`` the flat index
    ``w * S + s`` of the window position each subword is read from; ``word_of: LongTensor[B, P]`` the
    word (0-based) of each subword, -1 on padding; ``first, last: LongTensor[B, N]`` each word's first and
    last subword (0 on padding words); ``lengths``: words per sentence.
    """

    ids: Tensor
    attention: Tensor
    source: Tensor
    word_of: Tensor
    first: Tensor
    last: Tensor
    lengths: List[int]
    word_mask: Optional[Tensor] = None  # BoolTensor[B, N]: real words (None: made from lengths when needed)

    def to(self, device: torch.device) -> "SubwordBatch":
        """On ``device``, copied without waiting (pinned memory on a GPU; the trainer's worker makes batches)."""
        mask = self.word_mask if self.word_mask is not None else word_mask_of(self.lengths, self.first.shape[1])
        moved = (move(t, device) for t in (self.ids, self.attention, self.source, self.word_of, self.first, self.last))
        return SubwordBatch(*moved, lengths=self.lengths, word_mask=move(mask, device))


def word_mask_of(lengths: Sequence[int], width: int) -> Tensor:
    """``BoolTensor[B, width]``: word k of sentence b is real when k < n_b (on the host)."""
    return torch.arange(width).unsqueeze(0) < torch.tensor(list(lengths), dtype=torch.long).unsqueeze(1)


def move(tensor: Tensor, device: torch.device) -> Tensor:
    """A host tensor on ``device`` as :func:`mlparse.modules.transfer.to_device` puts arrays there (through pinned
    memory without waiting on CUDA, as it is on the CPU)."""
    if tensor.device == device:
        return tensor
    return to_device(tensor.numpy(), device)


def plan_windows(count: int, size: int, overlap: int) -> List[Tuple[int, int]]:
    """Windows ``[start, end)`` over ``count`` subwords: at most ``size`` each, consecutive ones sharing
    ``overlap`` subwords (the last one may share more: it ends at ``count`` and is as long as the others).

    One window ``[0, count)`` when the sentence fits.
    """
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"windows need size >= 1 and 0 <= overlap < size, got size {size}, overlap {overlap}")
    if count <= size:
        return [(0, count)]
    stride = size - overlap
    windows = []
    start = 0
    while start + size < count:
        windows.append((start, start + size))
        start += stride
    windows.append((count - size, count))
    return windows


def central_window(count: int, windows: Sequence[Tuple[int, int]]) -> List[int]:
    """For each of ``count`` subwords, the window (an index into ``windows``) where it is most central:
    the largest ``min(i - start, end - 1 - i)``, the earlier window on a tie."""
    best: List[int] = []
    for i in range(count):
        choice, margin = -1, -1
        for k, (start, end) in enumerate(windows):
            if start <= i < end:
                m = min(i - start, end - 1 - i)
                if m > margin:
                    choice, margin = k, m
        if choice < 0:
            raise ValueError(f"subword {i} lies in no window")
        best.append(choice)
    return best


def build_batch(pieces: Sequence[Sequence[Sequence[int]]], prefix: Sequence[int], suffix: Sequence[int], size: int,
                overlap: int, pad_id: int) -> SubwordBatch:
    """The :class:`SubwordBatch` of sentences given as subword ids per word (``pieces[b][k]``: the ids of word
    k of sentence b, each non-empty), windows of ``size`` subwords wrapped as ``prefix + window + suffix``."""
    rows: List[List[int]] = []
    sources: List[List[int]] = []
    words_of: List[List[int]] = []
    firsts: List[List[int]] = []
    lasts: List[List[int]] = []
    placed: List[Tuple[int, List[int]]] = []  # (sentence, window row per subword) until S is known
    for b, sentence in enumerate(pieces):
        flat = [i for word in sentence for i in word]
        owner = [k for k, word in enumerate(sentence) for _ in word]
        if any(len(word) == 0 for word in sentence):
            raise ValueError("every word needs at least one subword (give an empty word the unk token)")
        windows = plan_windows(len(flat), size, overlap)
        base = len(rows)
        for start, end in windows:
            rows.append([*prefix, *flat[start:end], *suffix])
        chosen = central_window(len(flat), windows)
        placed.append((b, [base + k for k in chosen]))
        sources.append([len(prefix) + i - windows[k][0] for i, k in enumerate(chosen)])  # position in its window
        words_of.append(owner)
        first, last, at = [], [], 0
        for word in sentence:
            first.append(at)
            last.append(at + len(word) - 1)
            at += len(word)
        firsts.append(first)
        lasts.append(last)
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for w, row in enumerate(rows):
        ids[w, :len(row)] = torch.tensor(row, dtype=torch.long)
        attention[w, :len(row)] = 1
    most_pieces = max(len(s) for s in sources)
    most_words = max(len(s) for s in pieces)
    source = torch.zeros((len(pieces), most_pieces), dtype=torch.long)
    word_of = torch.full((len(pieces), most_pieces), -1, dtype=torch.long)
    first_t = torch.zeros((len(pieces), most_words), dtype=torch.long)
    last_t = torch.zeros((len(pieces), most_words), dtype=torch.long)
    for (b, window_rows), offsets, owner, first, last in zip(placed, sources, words_of, firsts, lasts):
        source[b, :len(offsets)] = torch.tensor([r * width + o for r, o in zip(window_rows, offsets)], dtype=torch.long)
        word_of[b, :len(owner)] = torch.tensor(owner, dtype=torch.long)
        first_t[b, :len(first)] = torch.tensor(first, dtype=torch.long)
        last_t[b, :len(last)] = torch.tensor(last, dtype=torch.long)
    return SubwordBatch(ids, attention, source, word_of, first_t, last_t, lengths=[len(s) for s in pieces])


def gather_subwords(hidden: Tensor, batch: SubwordBatch) -> Tensor:
    """Each sentence's subword vectors ``Tensor[B, P, H]`` from the window outputs ``hidden: Tensor[W, S, H]``
    (padding subwords get window position 0's vector; pooling ignores them)."""
    flat = hidden.reshape(-1, hidden.shape[-1])
    return flat[batch.source.reshape(-1)].reshape(*batch.source.shape, hidden.shape[-1])


def pool_words(subwords: Tensor, batch: SubwordBatch, pooling: str) -> Tensor:
    """Word vectors ``Tensor[B, N, H]`` from subword vectors ``subwords: Tensor[B, P, H]``: each word's first
    or last subword, or the mean of its subwords; padding words are 0."""
    B, N = batch.first.shape
    word_mask = batch.word_mask if batch.word_mask is not None else move(word_mask_of(batch.lengths, N), subwords.device)
    if pooling in ("first", "last"):
        index = (batch.first if pooling == "first" else batch.last).unsqueeze(-1).expand(-1, -1, subwords.shape[-1])
        words = subwords.gather(1, index)
    elif pooling == "mean":
        owner = batch.word_of.clamp(min=0)
        real = (batch.word_of >= 0).to(subwords.dtype).unsqueeze(-1)  # [B, P, 1]
        sums = subwords.new_zeros(B, N, subwords.shape[-1]).scatter_add(
            1, owner.unsqueeze(-1).expand(-1, -1, subwords.shape[-1]), subwords * real)
        counts = subwords.new_zeros(B, N, 1).scatter_add(1, owner.unsqueeze(-1), real)
        words = sums / counts.clamp(min=1.0)
    else:
        raise ValueError(f"subword pooling must be one of {', '.join(POOLINGS)}, got {pooling!r}")
    return words * word_mask.unsqueeze(-1).to(words.dtype)
