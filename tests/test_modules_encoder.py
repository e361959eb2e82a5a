"""Tests for mlparse.modules.encoder: shapes, padding invariance, factoring, analysis hooks."""

from __future__ import annotations

import pytest
import torch

from mlparse.modules import AttentionWindow, FeatureDropout, PartitionedTransformerEncoder

D_CONTENT = D_POSITION = 16
D_MODEL = D_CONTENT + D_POSITION


def make_encoder(factored: bool = True, seed: int = 0, **kwargs: object) -> PartitionedTransformerEncoder:
    torch.manual_seed(seed)
    return PartitionedTransformerEncoder(
        n_layers=2, d_content=D_CONTENT, d_position=D_POSITION, n_heads=2, d_k=8, d_v=8, d_ff=32,
        factored=factored, **kwargs,  # type: ignore[arg-type]
    )


def make_mask(lengths: list[int], total: int) -> torch.Tensor:
    mask = torch.zeros(len(lengths), total, dtype=torch.bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = True
    return mask


@pytest.mark.parametrize("factored", [True, False])
def test_shape_and_padding_zeroed(factored: bool) -> None:
    encoder = make_encoder(factored)
    mask = make_mask([7, 4, 3], 7)
    out = encoder(torch.randn(3, 7, D_MODEL), mask)
    assert out.shape == (3, 7, D_MODEL)
    assert bool((out[~mask] == 0).all())


@pytest.mark.parametrize("factored", [True, False])
@pytest.mark.parametrize("partitioned_layer_norm", [True, False])
def test_padding_invariance(factored: bool, partitioned_layer_norm: bool) -> None:
    encoder = make_encoder(factored, partitioned_layer_norm=partitioned_layer_norm).eval()
    torch.manual_seed(7)
    short = torch.randn(1, 4, D_MODEL)
    longer = torch.randn(1, 9, D_MODEL)
    batch = torch.cat([torch.cat([short, 50 * torch.randn(1, 5, D_MODEL)], dim=1), longer])
    alone = encoder(short, make_mask([4], 4))
    together = encoder(batch, make_mask([4, 9], 9))
    torch.testing.assert_close(together[0, :4], alone[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(together[1], encoder(longer, make_mask([9], 9))[0], rtol=1e-5, atol=1e-5)


def test_padding_invariance_with_window() -> None:
    encoder = make_encoder().eval()
    encoder.set_window(AttentionWindow(1, relaxed=False))
    short = torch.randn(1, 3, D_MODEL)
    batch = torch.cat([short, torch.randn(1, 5, D_MODEL)], dim=1)
    torch.testing.assert_close(
        encoder(batch, make_mask([3], 8))[0, :3], encoder(short, make_mask([3], 3))[0], rtol=1e-5, atol=1e-5
    )


def test_factored_halves_stay_apart_under_ablation() -> None:
    """With per-half LayerNorm and position attention ablated everywhere, the content half
    of the output cannot depend on the position half of the input (and vice versa)."""
    encoder = make_encoder(partitioned_layer_norm=True).eval()
    mask = make_mask([6], 6)
    x = torch.randn(1, 6, D_MODEL)
    y = x.clone()
    y[..., D_CONTENT:] = torch.randn(1, 6, D_POSITION)
    encoder.set_ablation({0: {"position"}, 1: {"position"}})
    torch.testing.assert_close(encoder(x, mask)[..., :D_CONTENT], encoder(y, mask)[..., :D_CONTENT])
    encoder.set_ablation(None)  # full attention: position now steers content through q.k
    assert not torch.allclose(encoder(x, mask)[..., :D_CONTENT], encoder(y, mask)[..., :D_CONTENT])

    z = x.clone()
    z[..., :D_CONTENT] = torch.randn(1, 6, D_CONTENT)
    encoder.set_ablation({0: {"content"}, 1: {"content"}})
    torch.testing.assert_close(encoder(x, mask)[..., D_CONTENT:], encoder(z, mask)[..., D_CONTENT:])


def test_unfactored_mixes_halves() -> None:
    encoder = make_encoder(factored=False, partitioned_layer_norm=True).eval()
    mask = make_mask([5], 5)
    x = torch.randn(1, 5, D_MODEL)
    y = x.clone()
    y[..., D_CONTENT:] += 1.0
    assert not torch.allclose(encoder(x, mask)[..., :D_CONTENT], encoder(y, mask)[..., :D_CONTENT])


def test_factored_has_fewer_parameters() -> None:
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(make_encoder(True)) < count(make_encoder(False))


def test_set_ablation_validates_and_resets() -> None:
    encoder = make_encoder()
    encoder.set_ablation({1: {"content"}})
    assert encoder.layers[0].attention.ablate == frozenset()
    assert encoder.layers[1].attention.ablate == frozenset({"content"})
    encoder.set_ablation({})
    assert encoder.layers[1].attention.ablate == frozenset()
    with pytest.raises(ValueError, match="out of range"):
        encoder.set_ablation({2: {"content"}})
    with pytest.raises(ValueError, match="unknown"):
        encoder.set_ablation({0: {"words"}})
    with pytest.raises(ValueError, match="factored"):
        make_encoder(factored=False).set_ablation({0: {"content"}})


def test_record_attention_maps() -> None:
    encoder = make_encoder().eval()
    encoder.record_attention(True)
    mask = make_mask([5, 3], 5)
    encoder(torch.randn(2, 5, D_MODEL), mask)
    maps = encoder.attention_maps()
    assert len(maps) == 2 and all(m is not None and m.shape == (2, 2, 5, 5) for m in maps)
    for m in maps:
        torch.testing.assert_close(m.sum(-1)[mask.unsqueeze(1).expand(2, 2, 5)], torch.ones(2 * 2 * 5 - 2 * 2))
    encoder.record_attention(False)
    assert encoder.attention_maps() == [None, None]


def test_deterministic_with_seed_in_training_mode() -> None:
    mask = make_mask([6, 4], 6)
    outs = []
    for _ in range(2):
        encoder = make_encoder(seed=11).train()
        torch.manual_seed(12)
        outs.append(encoder(torch.randn(2, 6, D_MODEL), mask))
    torch.testing.assert_close(outs[0], outs[1], rtol=0, atol=0)


def test_dropout_active_only_in_training() -> None:
    encoder = make_encoder()
    mask = make_mask([6], 6)
    x = torch.randn(1, 6, D_MODEL)
    encoder.eval()
    torch.testing.assert_close(encoder(x, mask), encoder(x, mask), rtol=0, atol=0)
    encoder.train()
    torch.manual_seed(0)
    first = encoder(x, mask)
    assert not torch.allclose(first, encoder(x, mask))


@pytest.mark.parametrize("factored", [True, False])
def test_gradient_reaches_every_parameter(factored: bool) -> None:
    encoder = make_encoder(factored).train()
    mask = make_mask([6, 4], 6)
    encoder(torch.randn(2, 6, D_MODEL), mask).pow(2).sum().backward()
    missing = [name for name, p in encoder.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
    assert missing == []


def test_feature_dropout_shares_mask_over_positions() -> None:
    torch.manual_seed(0)
    dropout = FeatureDropout(0.5).train()
    out = dropout(torch.ones(4, 10, 32))
    dropped = out == 0
    assert bool((dropped == dropped[:, :1]).all())  # same features dropped at every position
    assert 0 < int(dropped[:, 0].sum()) < 4 * 32
    torch.testing.assert_close(out[~dropped], torch.full_like(out[~dropped], 2.0))
    assert torch.equal(dropout.eval()(torch.ones(2, 3, 4)), torch.ones(2, 3, 4))


def test_bad_input_shape_message() -> None:
    with pytest.raises(ValueError, match="encoder input"):
        make_encoder()(torch.randn(1, 4, D_MODEL + 1), make_mask([4], 4))


# -- parsing on the real positions alone (PackedPositions) ------------------------------------------

def _padded_batch(lengths: list[int], seed: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(seed)
    mask = make_mask(lengths, max(lengths))
    return torch.randn(len(lengths), max(lengths), D_MODEL) * mask.unsqueeze(-1), mask


@pytest.mark.parametrize("factored", [True, False])
@pytest.mark.parametrize("hooks", ["none", "window", "relaxed window", "ablation"])
def test_packed_inference_gives_the_padded_numbers(factored: bool, hooks: str, one_thread: None) -> None:
    encoder = make_encoder(factored).eval()
    if hooks == "window":
        encoder.set_window(AttentionWindow(2))
    elif hooks == "relaxed window":
        encoder.set_window(AttentionWindow(1, relaxed=True))
    elif hooks == "ablation" and factored:
        encoder.set_ablation({0: {"content"}, 1: {"position"}})
    x, mask = _padded_batch([9, 2, 5, 1, 9, 3])
    assert encoder.packs(mask)
    with torch.no_grad():
        packed = encoder(x, mask)
        encoder.pack_positions = False
        assert not encoder.packs(mask)
        padded = encoder(x, mask)
    assert torch.equal(packed, padded)  # the same code path for every position, not merely close


def test_packing_is_for_cpu_inference_with_enough_padding() -> None:
    encoder = make_encoder()
    _, mask = _padded_batch([9, 2, 5])
    assert not encoder.packs(mask)  # training: feature dropout draws one mask per sentence
    encoder.eval()
    assert encoder.packs(mask)
    _, full = _padded_batch([9, 9, 9, 8])  # 1 padding position in 36
    assert not encoder.packs(full)


def test_packed_inference_records_the_same_attention_of_real_positions(one_thread: None) -> None:
    encoder = make_encoder().eval()
    x, mask = _padded_batch([6, 3, 2])
    encoder.record_attention(True)
    with torch.no_grad():
        packed_out = encoder(x, mask)
        packed_maps = encoder.attention_maps()
        encoder.pack_positions = False
        padded_out = encoder(x, mask)
    assert torch.equal(packed_out, padded_out)
    for packed, padded in zip(packed_maps, encoder.attention_maps()):  # [B, H, T, T]; padding rows attend to nothing used
        assert torch.equal(packed.transpose(1, 2)[mask], padded.transpose(1, 2)[mask])


def test_packed_positions_round_trip() -> None:
    from mlparse.modules.attention import PackedPositions

    x, mask = _padded_batch([4, 1, 3])
    packed = PackedPositions.of(mask)
    assert packed.count == 8 and packed.pack(x).shape == (1, 8, D_MODEL)
    assert torch.equal(packed.unpack(packed.pack(x)), x)
