"""The Label Attention Layer (Mrini et al. 2020, §2): Eqs. 1-4 with per-head residuals, per-head slices
(Figure 4), the per-head forward/backward split of span vectors (§3.1) and the Table 1-2 ablation switches."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from mlparse.modules.label_attention import (COMBINE_KINDS, QUERY_KINDS, HeadwiseSpanScorer, LabelAttentionLayer,
                                             head_span_vectors, headwise_fencepost_vectors)
from mlparse.modules.span_scorer import fencepost_vectors

D_MODEL, HEADS, D_HEAD = 12, 3, 4


def layer(**settings) -> LabelAttentionLayer:
    torch.manual_seed(0)
    options = dict(query="vector", combine="concat", feed_forward=False, d_ff=16, residual_dropout=0.0,
                   attention_dropout=0.0, relu_dropout=0.0)
    options.update(settings)
    return LabelAttentionLayer(D_MODEL, HEADS, D_HEAD, **options).double()


def inputs(batch: int = 2, length: int = 6):
    torch.manual_seed(1)
    x = torch.randn(batch, length, D_MODEL, dtype=torch.float64)
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[1, length - 2:] = False
    return x, mask


@pytest.mark.parametrize("query,combine,feed_forward,dropout",
                         list(itertools.product(QUERY_KINDS, COMBINE_KINDS, (True, False), (0.0, 0.3))))
def test_every_ablation_builds_and_trains_a_step(query: str, combine: str, feed_forward: bool, dropout: float) -> None:
    lal = layer(query=query, combine=combine, feed_forward=feed_forward, residual_dropout=dropout).train()
    x, mask = inputs()
    y = lal(x, mask)
    assert y.shape == (2, 6, HEADS * D_HEAD if combine == "concat" else D_MODEL) and lal.d_out == y.shape[-1]
    assert torch.all(y[1, -2:] == 0)  # padding
    before = {name: p.detach().clone() for name, p in lal.named_parameters()}
    optimizer = torch.optim.SGD(lal.parameters(), lr=0.1)
    (y * torch.randn_like(y)).sum().backward()
    optimizer.step()
    changed = {name for name, p in lal.named_parameters() if not torch.equal(p, before[name])}
    assert {"query", "key", "value", "output.weight"} <= changed
    assert all(torch.isfinite(p).all() for p in lal.parameters())


def test_the_output_follows_equations_1_to_4_with_one_residual_per_head() -> None:
    lal = layer().eval()
    x, mask = inputs()
    y = lal(x, mask)
    for b in range(2):
        n = int(mask[b].sum())
        words = x[b, :n]
        for i in range(HEADS):
            keys = words @ lal.key[i]  # K_i = W_i^K X
            values = words @ lal.value[i]  # V_i = W_i^V X
            a = torch.softmax(keys @ lal.query[i] / math.sqrt(D_HEAD), dim=0)  # Eq. 1
            c = a @ values  # Eq. 3
            u = words + lal.output(c)  # the context vector added to every word
            z = lal.norm(lal.reduce(u))  # projected, then normalised
            assert torch.allclose(y[b, :n, i * D_HEAD:(i + 1) * D_HEAD], z, atol=1e-10)


def _slice_gradients(lal: LabelAttentionLayer, target: slice) -> torch.Tensor:
    """|d sum(y[..., target]) / d parameter| summed per head, for the query, key and value of every head: [H]."""
    x, mask = inputs()
    lal.zero_grad()
    lal(x, mask)[..., target].sum().backward()
    total = torch.zeros(HEADS, dtype=torch.float64)
    for parameter in (lal.query, lal.key, lal.value):
        total += parameter.grad.abs().reshape(HEADS, -1).sum(-1)
    return total


def test_each_head_writes_its_own_slice_of_the_word_vector() -> None:
    lal = layer(feed_forward=False).eval()
    for i in range(HEADS):
        gradients = _slice_gradients(lal, slice(i * D_HEAD, (i + 1) * D_HEAD))
        assert gradients[i] > 0
        assert all(gradients[k] == 0 for k in range(HEADS) if k != i), gradients


def test_the_feed_forward_layer_and_the_projection_mix_the_heads() -> None:
    for lal in (layer(feed_forward=True).eval(), layer(combine="projection").eval()):
        gradients = _slice_gradients(lal, slice(0, D_HEAD))
        assert all(gradients > 0), gradients


def test_query_vectors_give_one_distribution_per_head_and_query_matrices_one_per_word() -> None:
    x, mask = inputs()
    vector, matrix = layer(query="vector").eval(), layer(query="matrix").eval()
    for lal in (vector, matrix):
        lal.record_attention = True
        lal(x, mask)
    assert vector.last_attention.shape == (2, HEADS, 6)
    assert matrix.last_attention.shape == (2, HEADS, 6, 6)
    assert torch.allclose(vector.last_attention.sum(-1), torch.ones(2, HEADS, dtype=torch.float64))
    assert torch.all(vector.last_attention[1, :, -2:] == 0) and torch.all(matrix.last_attention[1, :, :, -2:] == 0)
    rows = matrix.last_attention[0, 0]
    assert not torch.allclose(rows[0], rows[1])  # word-to-word: each word its own distribution
    # with query vectors, a word's slice depends on the other words only through the head's context vector:
    # the same context is added to every word, so two words with equal inputs get equal outputs
    same = x.clone()
    same[0, 2] = same[0, 1]
    out = vector(same, mask)
    assert torch.allclose(out[0, 1], out[0, 2])


def test_padding_does_not_change_the_real_positions() -> None:
    for query, combine in itertools.product(QUERY_KINDS, COMBINE_KINDS):
        lal = layer(query=query, combine=combine, feed_forward=True).eval()
        x, mask = inputs()
        other = x.clone()
        other[1, -2:] = torch.randn(2, D_MODEL, dtype=torch.float64) * 10
        assert torch.allclose(lal(x, mask)[1, :4], lal(other, mask)[1, :4])


def test_residual_dropout_drops_each_heads_residual_with_its_own_mask_shared_by_the_words() -> None:
    lal = layer(residual_dropout=0.5).train()
    torch.manual_seed(3)
    masks = lal.head_dropout(torch.ones(4, HEADS, 7, 50, dtype=torch.float64))
    assert torch.equal(masks, masks[:, :, :1].expand_as(masks))  # the same for every word of a sentence
    assert not torch.equal(masks[:, 0], masks[:, 1])  # each head its own
    assert set(masks.unique().tolist()) == {0.0, 2.0}
    x, mask = inputs()
    assert not torch.allclose(lal(x, mask), lal(x, mask))  # training: random
    lal.eval()
    assert torch.equal(lal(x, mask), lal(x, mask))
    off = layer(residual_dropout=0.0).train()
    assert torch.equal(off(x, mask), off(x, mask))  # Table 1, RD off: nothing random left


def test_span_halves_are_split_inside_each_head() -> None:
    batch, length, d = 1, 5, 4
    h = torch.arange(batch * length * HEADS * d, dtype=torch.float64).reshape(batch, length, HEADS * d)
    fence = headwise_fencepost_vectors(h, HEADS)
    assert fence.shape == (batch, length - 1, HEADS * d)
    for k in range(length - 1):
        forward = torch.cat([h[0, k, i * d: i * d + d // 2] for i in range(HEADS)])
        backward = torch.cat([h[0, k + 1, i * d + d // 2:(i + 1) * d] for i in range(HEADS)])
        assert torch.equal(fence[0, k], torch.cat([forward, backward]))
    assert not torch.equal(fence, fencepost_vectors(h))  # not the parity split of Kitaev & Klein
    left, right, rows = torch.tensor([0, 1]), torch.tensor([3, 2]), torch.tensor([0, 0])
    per_head = head_span_vectors(h, HEADS, left, right, rows)
    for s in range(2):
        i, j = int(left[s]), int(right[s])
        for head in range(HEADS):
            lo, mid, hi = head * d, head * d + d // 2, (head + 1) * d
            expected = torch.cat([h[0, j, lo:mid] - h[0, i, lo:mid], h[0, j + 1, mid:hi] - h[0, i + 1, mid:hi]])
            assert torch.equal(per_head[s, head], expected)


def test_the_headwise_span_scorer_uses_the_per_head_split() -> None:
    torch.manual_seed(0)
    scorer = HeadwiseSpanScorer(HEADS * 4, 8, 3, HEADS)
    h = torch.randn(1, 5, HEADS * 4)
    assert torch.allclose(scorer.project(h), scorer.hidden(headwise_fencepost_vectors(h, HEADS)))
    parity = HeadwiseSpanScorer(HEADS * 4, 8, 3, None)
    parity.load_state_dict(scorer.state_dict())
    assert torch.allclose(parity.project(h), scorer.hidden(fencepost_vectors(h)))
    with pytest.raises(ValueError, match="even size"):
        headwise_fencepost_vectors(torch.zeros(1, 3, 9), 3)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="query must be one of"):
        LabelAttentionLayer(8, 2, 4, query="both")
    with pytest.raises(ValueError, match="combine must be one of"):
        LabelAttentionLayer(8, 2, 4, combine="sum")
    with pytest.raises(ValueError, match="residual dropout"):
        LabelAttentionLayer(8, 2, 4, residual_dropout=1.0)
