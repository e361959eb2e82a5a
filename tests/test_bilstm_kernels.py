"""The BiLSTM encoder's three CPU kernels (packed: both directions in one loop over the real words with a backward
pass written by hand; padded: oneDNN's layer over the padded rows; torch: ``nn.LSTM`` over the packed batch) give
the same outputs and gradients, dropout included; the packed layer equals ``nn.LSTM`` in float64 to rounding."""

from __future__ import annotations

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import numpy as np

from mlparse.modules.bilstm_encoder import BiLSTMEncoder, packed_pays
from mlparse.modules.packed_lstm import PackedLayout, packed_bidirectional_layer


def run(encoder: BiLSTMEncoder, x: torch.Tensor, lengths: list, kernel: str, seed: int):  # type: ignore[no-untyped-def]
    encoder.cpu_kernel = kernel  # type: ignore[assignment]
    encoder.zero_grad()
    leaf = x.clone().requires_grad_(True)
    mask = torch.arange(x.shape[1])[None, :] < torch.tensor(lengths)[:, None]
    torch.manual_seed(seed)  # the same dropout masks: every kernel draws them in the same order and shapes
    out = encoder(leaf, mask, lengths)
    weights = torch.linspace(-1.0, 1.0, out.numel()).reshape(out.shape)
    (out * weights).sum().backward()
    grads = {name: p.grad.clone() for name, p in encoder.named_parameters()}
    return out.detach(), leaf.grad.clone(), grads


@pytest.mark.parametrize("kernel", ["padded", "packed", "auto"])
@pytest.mark.parametrize("dropout_kind", ["feature", "element"])
@pytest.mark.parametrize("dropout", [0.0, 0.33])
def test_every_kernel_equals_the_packed_nn_lstm(kernel: str, dropout_kind: str, dropout: float,
                                                one_thread: None) -> None:
    torch.manual_seed(0)
    encoder = BiLSTMEncoder(12, 8, num_layers=2, dropout=dropout, dropout_kind=dropout_kind)  # type: ignore[arg-type]
    lengths = [5, 9, 1, 9, 3]  # unsorted, a one-word row, two rows without padding
    x = torch.randn(len(lengths), 9, 12)
    reference_out, reference_input_grad, reference_grads = run(encoder, x, lengths, "torch", seed=7)
    out, input_grad, grads = run(encoder, x, lengths, kernel, seed=7)
    assert torch.allclose(out, reference_out, atol=1e-6)
    assert torch.allclose(input_grad, reference_input_grad, atol=1e-6)
    assert out[2, 1:].abs().max() == 0 and input_grad[0, 5:].abs().max() == 0  # padding: nothing
    for name, grad in reference_grads.items():
        assert torch.allclose(grads[name], grad, atol=1e-5), name
    if dropout:  # the masks really differ with another seed: the equality above is not dropout switched off
        assert not torch.allclose(run(encoder, x, lengths, kernel, seed=8)[0], out, atol=1e-3)


def test_without_gradient_the_packed_kernel_still_runs_and_padded_falls_back_to_torch() -> None:
    torch.manual_seed(0)
    encoder = BiLSTMEncoder(4, 3, num_layers=2, dropout=0.0).eval()
    x, lengths = torch.randn(3, 6, 4), [6, 2, 4]
    mask = torch.arange(6)[None, :] < torch.tensor(lengths)[:, None]
    outputs = {}
    for kernel in ("packed", "padded", "torch"):
        encoder.cpu_kernel = kernel  # type: ignore[assignment]
        with torch.no_grad():
            outputs[kernel] = encoder(x, mask, lengths)
    assert torch.allclose(outputs["packed"], outputs["torch"], atol=1e-6)
    assert torch.equal(outputs["padded"], outputs["torch"])


@pytest.mark.parametrize("lengths", [[5, 4, 4, 2, 1], [1], [3, 7, 7, 1, 2, 6], [2, 2, 2]])
def test_the_packed_layer_is_nn_lstm_to_rounding_in_float64(lengths: list) -> None:
    torch.manual_seed(len(lengths))
    length = max(lengths) + 1  # one padded column at least
    lstm = torch.nn.LSTM(6, 3, bidirectional=True, batch_first=True).double()
    x = torch.randn(len(lengths), length, 6, dtype=torch.float64, requires_grad=True)
    packed = pack_padded_sequence(x, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
    reference, _ = pad_packed_sequence(lstm(packed)[0], batch_first=True, total_length=length)
    weights = torch.randn_like(reference)
    expected = torch.autograd.grad((reference * weights).sum(), [x, *lstm.parameters()])
    layout = PackedLayout.of(lengths, length)
    out = layout.unpack_rows(packed_bidirectional_layer(lstm, layout.pack(x), layout))
    got = torch.autograd.grad((out * weights).sum(), [x, *lstm.parameters()])
    assert torch.allclose(out, reference, atol=1e-12)
    for a, b in zip(got, expected):
        assert torch.allclose(a, b, atol=1e-12)


def test_the_layout_orders_rows_time_major_longest_first() -> None:
    lengths = [2, 3, 1]
    layout = PackedLayout.of(lengths, 4)
    assert layout.steps == ((0, 3), (3, 2), (5, 1)) and layout.words == 6
    # step 0: sentences 1, 0, 2 (longest first); step 1: 1, 0; step 2: 1
    assert layout.sentences.tolist() == [1, 0, 2, 1, 0, 1]
    assert layout.positions.tolist() == [4, 0, 8, 5, 1, 6]
    assert layout.previous_rows.tolist() == [6, 6, 6, 0, 1, 3]
    # the backward direction reads each sentence from its end: its row k holds the word of forward row b_f[k]
    assert layout.backward_from_forward.tolist() == [5, 4, 2, 3, 1, 0]  # (s1, t2), (s0, t1), (s2, t0), ...
    assert torch.equal(layout.backward_from_forward[layout.forward_from_backward], torch.arange(6))
    x = torch.arange(12.0).view(3, 4, 1)
    assert torch.equal(layout.unpack_rows(layout.pack(x)).squeeze(-1),
                       torch.tensor([[0.0, 1, 0, 0], [4, 5, 6, 0], [8, 0, 0, 0]]))
    with pytest.raises(ValueError, match="between 1 and 4"):
        PackedLayout.of([0, 2], 4)


def test_auto_runs_the_packed_kernel_on_many_rows_or_much_padding_else_the_padded_one() -> None:
    assert not packed_pays(np.array([20] * 32), 20)  # the tagger's bucketed batches: padded
    assert not packed_pays(np.array([20] * 31 + [24]), 24)  # little padding
    assert packed_pays(np.array([20] * 64), 20)  # many rows
    assert packed_pays(np.array([5, 30, 12]), 30)  # a shuffled batch: mostly padding
    encoder = BiLSTMEncoder(4, 3, num_layers=1, dropout=0.0)
    chosen = []
    encoder._packed = lambda *args: chosen.append("packed") or torch.zeros(1)  # type: ignore[method-assign]
    encoder._padded = lambda *args: chosen.append("padded") or torch.zeros(1)  # type: ignore[method-assign]
    for lengths in ([3, 3], [1, 3]):
        x = torch.randn(2, 3, 4)
        encoder(x, torch.arange(3)[None, :] < torch.tensor(lengths)[:, None], lengths)
    assert chosen == ["padded", "packed"]
