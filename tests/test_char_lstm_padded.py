"""The CharLSTM's padded training path on a CPU (groups of words of similar lengths through the fused LSTM kernel,
the backward direction over each word reversed within its length) gives the packed computation's vectors and
gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mlparse.modules.char_lstm import CharLSTM


def words_of(lengths: np.ndarray, seed: int) -> tuple:
    """``chars: LongTensor[B, T, C]`` of random characters with ``lengths: [B, T]`` characters each (0: no word)."""
    rng = np.random.default_rng(seed)
    width = int(lengths.max())
    chars = np.zeros(lengths.shape + (width,), dtype=np.int64)
    for index in np.ndindex(lengths.shape):
        chars[index][:lengths[index]] = rng.integers(1, 20, size=lengths[index])
    return torch.from_numpy(chars), torch.from_numpy(lengths.astype(np.int64))


def run(lstm: CharLSTM, chars: torch.Tensor, lengths: torch.Tensor, padded: bool) -> tuple:
    lstm.padded_on_cpu = padded
    lstm.zero_grad()
    torch.manual_seed(3)  # the same dropout mask: both paths draw it once, over the same embedded characters
    out = lstm(chars, lengths)
    weights = torch.linspace(-1.0, 1.0, out.numel()).reshape(out.shape)
    (out * weights).sum().backward()
    return out.detach(), {name: p.grad.clone() for name, p in lstm.named_parameters()}


@pytest.mark.parametrize("dropout", [0.0, 0.2])
def test_padded_training_equals_packed(dropout: float, one_thread: None) -> None:
    torch.manual_seed(0)
    lstm = CharLSTM(20, d_char_emb=6, d_out=10, char_dropout=dropout).train()
    rng = np.random.default_rng(1)
    lengths = rng.integers(1, 14, size=(4, 9))
    lengths[0, 6:] = 0  # padding positions: no word
    lengths[1, 0] = 40  # one long word: a group of its own
    chars, char_lengths = words_of(lengths, 2)
    packed_out, packed_grads = run(lstm, chars, char_lengths, padded=False)
    padded_out, padded_grads = run(lstm, chars, char_lengths, padded=True)
    assert torch.allclose(padded_out, packed_out, atol=1e-6)
    assert padded_out[0, 6:].abs().max() == 0
    for name, grad in packed_grads.items():
        assert torch.allclose(padded_grads[name], grad, atol=1e-5), name


def test_the_padded_path_runs_only_in_training_on_a_cpu() -> None:
    lstm = CharLSTM(20, d_char_emb=4, d_out=6, char_dropout=0.0)
    calls = []
    original = lstm._padded_final_states
    lstm._padded_final_states = lambda *args: calls.append(1) or original(*args)  # type: ignore[method-assign]
    chars, lengths = words_of(np.array([[3, 1, 0]]), 0)
    with torch.no_grad():
        lstm(chars, lengths)
    assert calls == []
    lstm(chars, lengths)
    assert calls == [1]
