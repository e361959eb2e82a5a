"""ElementDropout: torch.nn.Dropout's behaviour with masks drawn from numpy on a CPU, decided by torch's seed."""

from __future__ import annotations

import pytest
import torch

from mlparse.modules.dropout import ElementDropout, make_dropout


def test_drops_at_the_rate_asked_and_scales_what_it_keeps() -> None:
    torch.manual_seed(0)
    dropout = ElementDropout(0.33).train()
    x = torch.ones(1000, 1000)
    out = dropout(x)
    dropped = (out == 0).float().mean().item()
    assert abs(dropped - 0.33) < 0.003  # 1e6 draws: the standard error is 0.0005
    assert torch.allclose(out[out != 0], torch.full_like(out[out != 0], 1 / 0.67))
    assert abs(out.mean().item() - 1.0) < 0.01  # unbiased, as inverted dropout is


def test_masks_follow_torch_seed_and_differ_between_calls() -> None:
    dropout = ElementDropout(0.5).train()
    x = torch.ones(64, 50)
    torch.manual_seed(3)
    first, second = dropout(x), dropout(x)
    torch.manual_seed(3)
    assert torch.equal(dropout(x), first) and torch.equal(dropout(x), second)
    assert not torch.equal(first, second)


def test_masks_are_independent_of_position() -> None:
    """No pattern along either axis: every row and every column drops about half."""
    torch.manual_seed(1)
    out = ElementDropout(0.5).train()(torch.ones(2000, 2000))
    kept = (out != 0).float()
    assert kept.mean(0).min() > 0.45 and kept.mean(0).max() < 0.55
    assert kept.mean(1).min() > 0.45 and kept.mean(1).max() < 0.55


def test_gradient_is_the_scaled_mask_and_eval_is_identity() -> None:
    torch.manual_seed(2)
    dropout = ElementDropout(0.25).train()
    x = torch.randn(8, 7, 5, requires_grad=True)
    out = dropout(x)
    out.sum().backward()
    mask = (out != 0).to(x.dtype) / 0.75
    assert torch.allclose(x.grad, mask)
    assert torch.allclose(out, x.detach() * mask)
    dropout.eval()
    assert dropout(x) is x
    assert ElementDropout(0.0).train()(x) is x
    assert torch.equal(ElementDropout(1.0).train()(x), torch.zeros_like(x))


def test_make_dropout_element_kind_and_bad_probability() -> None:
    assert isinstance(make_dropout(0.1, "element"), ElementDropout)
    with pytest.raises(ValueError):
        ElementDropout(1.5)


@pytest.mark.parametrize("kind", ["feature", "element"])
def test_kept_values_are_scaled_without_bias_in_bfloat16(kind: str) -> None:
    """In a 16-bit dtype the scale 1 / (1 - p) is not rounded once for all (1/0.9 would be 1.109375 in bfloat16, 0.16%
    low for every kept value): each product is divided, so the rounding averages out."""
    torch.manual_seed(5)
    x = torch.randn(400, 50, 100).to(torch.bfloat16)
    out = make_dropout(0.1, kind).train()(x)
    kept = out != 0
    ratio = (out[kept].float().abs().sum() / x[kept].float().abs().sum()).item()
    assert abs(ratio * 0.9 - 1.0) < 5e-4, ratio
    assert out.dtype == torch.bfloat16
