"""The BiLSTM encoder's padded training path on a CPU (each direction over the padded rows, the backward one over
each row reversed within its length) gives the packed computation's outputs and gradients."""

from __future__ import annotations

import pytest
import torch

from mlparse.modules.bilstm_encoder import BiLSTMEncoder


def run(encoder: BiLSTMEncoder, x: torch.Tensor, lengths: list, padded: bool, seed: int):  # type: ignore[no-untyped-def]
    encoder.padded_on_cpu = padded
    encoder.zero_grad()
    leaf = x.clone().requires_grad_(True)
    mask = torch.arange(x.shape[1])[None, :] < torch.tensor(lengths)[:, None]
    torch.manual_seed(seed)  # the same dropout masks: both paths draw them in the same order and shapes
    out = encoder(leaf, mask, lengths)
    weights = torch.linspace(-1.0, 1.0, out.numel()).reshape(out.shape)
    (out * weights).sum().backward()
    grads = {name: p.grad.clone() for name, p in encoder.named_parameters()}
    return out.detach(), leaf.grad.clone(), grads


@pytest.mark.parametrize("dropout_kind", ["feature", "element"])
@pytest.mark.parametrize("dropout", [0.0, 0.33])
def test_padded_training_equals_packed(dropout_kind: str, dropout: float, one_thread: None) -> None:
    torch.manual_seed(0)
    encoder = BiLSTMEncoder(12, 8, num_layers=2, dropout=dropout, dropout_kind=dropout_kind)  # type: ignore[arg-type]
    lengths = [5, 9, 1, 9, 3]  # unsorted, a one-word row, two rows without padding
    x = torch.randn(len(lengths), 9, 12)
    packed_out, packed_input_grad, packed_grads = run(encoder, x, lengths, padded=False, seed=7)
    padded_out, padded_input_grad, padded_grads = run(encoder, x, lengths, padded=True, seed=7)
    assert torch.allclose(padded_out, packed_out, atol=1e-6)
    assert torch.allclose(padded_input_grad, packed_input_grad, atol=1e-6)
    assert padded_out[2, 1:].abs().max() == 0 and packed_input_grad[0, 5:].abs().max() == 0  # padding: nothing
    for name, grad in packed_grads.items():
        assert torch.allclose(padded_grads[name], grad, atol=1e-5), name


def test_the_padded_path_runs_only_with_gradient_on_a_cpu() -> None:
    encoder = BiLSTMEncoder(4, 3, num_layers=1, dropout=0.0)
    calls = []
    original = encoder._padded
    encoder._padded = lambda *args: calls.append(1) or original(*args)  # type: ignore[method-assign]
    x, mask = torch.randn(2, 3, 4), torch.tensor([[True, True, True], [True, False, False]])
    with torch.no_grad():
        encoder(x, mask, [3, 1])
    assert calls == []
    encoder(x, mask, [3, 1])
    assert calls == [1]
