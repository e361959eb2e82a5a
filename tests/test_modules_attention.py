"""Tests for mlparse.modules.attention: factored q.k, ablation, windows, masking."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from mlparse.modules.attention import AttentionWindow, FactoredMultiHeadAttention, allowed_pairs

D_CONTENT, D_POSITION, HEADS, D_K, D_V = 16, 16, 2, 8, 8


def make_mask(lengths: list[int], total: int) -> torch.Tensor:
    mask = torch.zeros(len(lengths), total, dtype=torch.bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = True
    return mask


@pytest.fixture
def attention() -> FactoredMultiHeadAttention:
    torch.manual_seed(1)
    return FactoredMultiHeadAttention(D_CONTENT, D_POSITION, HEADS, D_K, D_V, attention_dropout=0.0).eval()


def test_output_shape_factored_and_unfactored() -> None:
    x = torch.randn(3, 6, D_CONTENT + D_POSITION)
    mask = make_mask([6, 4, 3], 6)
    for factored in (True, False):
        module = FactoredMultiHeadAttention(D_CONTENT, D_POSITION, HEADS, D_K, D_V, factored=factored)
        assert module(x, mask).shape == (3, 6, D_CONTENT + D_POSITION)


def test_logits_are_sum_of_content_and_position_dot_products(attention: FactoredMultiHeadAttention) -> None:
    torch.manual_seed(2)
    x = torch.randn(1, 5, D_CONTENT + D_POSITION)
    mask = make_mask([5], 5)
    x_c, x_p = x[0, :, :D_CONTENT], x[0, :, D_CONTENT:]
    half = D_K // 2
    got = attention.attention_logits(x, mask)[0]
    for head in range(HEADS):
        rows = slice(head * half, (head + 1) * half)
        # Per-head block matrices, read straight from the weights (nn.Linear stores [out, in]).
        wq_c, wk_c = attention.w_q_content.weight[rows], attention.w_k_content.weight[rows]
        wq_p, wk_p = attention.w_q_position.weight[rows], attention.w_k_position.weight[rows]
        content_term = (x_c @ wq_c.T) @ (x_c @ wk_c.T).T
        position_term = (x_p @ wq_p.T) @ (x_p @ wk_p.T).T
        expected = (content_term + position_term) / math.sqrt(D_K)
        torch.testing.assert_close(got[head], expected, rtol=1e-5, atol=1e-5)


def test_logits_equal_block_diagonal_full_matrix(attention: FactoredMultiHeadAttention) -> None:
    """Same logits from the dense d_model x d_k matrix with zero off-diagonal blocks."""
    torch.manual_seed(3)
    x = torch.randn(1, 4, D_CONTENT + D_POSITION)
    mask = make_mask([4], 4)
    half = D_K // 2
    got = attention.attention_logits(x, mask)[0]
    for head in range(HEADS):
        rows = slice(head * half, (head + 1) * half)
        dense_q = torch.zeros(D_K, D_CONTENT + D_POSITION)
        dense_k = torch.zeros(D_K, D_CONTENT + D_POSITION)
        dense_q[:half, :D_CONTENT] = attention.w_q_content.weight[rows]
        dense_q[half:, D_CONTENT:] = attention.w_q_position.weight[rows]
        dense_k[:half, :D_CONTENT] = attention.w_k_content.weight[rows]
        dense_k[half:, D_CONTENT:] = attention.w_k_position.weight[rows]
        q, k = x[0] @ dense_q.T, x[0] @ dense_k.T
        torch.testing.assert_close(got[head], q @ k.T / math.sqrt(D_K), rtol=1e-5, atol=1e-5)


def test_content_queries_ignore_position_half(attention: FactoredMultiHeadAttention) -> None:
    x = torch.randn(2, 5, D_CONTENT + D_POSITION)
    y = x.clone()
    y[..., D_CONTENT:] = torch.randn(2, 5, D_POSITION)
    half = D_K // 2
    qx, kx, vx = attention.project_qkv(x)
    qy, ky, vy = attention.project_qkv(y)
    torch.testing.assert_close(qx[..., :half], qy[..., :half])
    torch.testing.assert_close(kx[..., :half], ky[..., :half])
    torch.testing.assert_close(vx[..., : D_V // 2], vy[..., : D_V // 2])
    assert not torch.allclose(qx[..., half:], qy[..., half:])


@pytest.mark.parametrize("part", ["content", "position"])
def test_ablation_equals_zeroed_query_weights(attention: FactoredMultiHeadAttention, part: str) -> None:
    torch.manual_seed(4)
    x = torch.randn(2, 6, D_CONTENT + D_POSITION)
    mask = make_mask([6, 4], 6)
    zeroed = copy.deepcopy(attention)
    with torch.no_grad():
        getattr(zeroed, f"w_q_{part}").weight.zero_()
    expected = zeroed(x, mask)
    torch.testing.assert_close(attention(x, mask, ablate={part}), expected)
    attention.ablate = frozenset({part})
    torch.testing.assert_close(attention(x, mask), expected)
    assert not torch.allclose(attention(x, mask, ablate=set()), expected)


def test_ablating_both_parts_gives_uniform_attention(attention: FactoredMultiHeadAttention) -> None:
    attention.record_attention = True
    x = torch.randn(2, 6, D_CONTENT + D_POSITION)
    mask = make_mask([6, 3], 6)
    attention(x, mask, ablate={"content", "position"})
    probs = attention.last_attention
    assert probs is not None
    torch.testing.assert_close(probs[0], torch.full((HEADS, 6, 6), 1 / 6))
    torch.testing.assert_close(probs[1, :, :3, :3], torch.full((HEADS, 3, 3), 1 / 3))
    assert bool((probs[1, :, :3, 3:] == 0).all())


def test_ablation_rejected_in_unfactored_mode_and_unknown_part() -> None:
    module = FactoredMultiHeadAttention(D_CONTENT, D_POSITION, HEADS, D_K, D_V, factored=False)
    x, mask = torch.randn(1, 4, D_CONTENT + D_POSITION), make_mask([4], 4)
    with pytest.raises(ValueError, match="factored"):
        module(x, mask, ablate={"content"})
    factored = FactoredMultiHeadAttention(D_CONTENT, D_POSITION, HEADS, D_K, D_V)
    with pytest.raises(ValueError, match="unknown attention ablation"):
        factored(x, mask, ablate={"contnet"})


def test_sdpa_and_explicit_paths_agree(attention: FactoredMultiHeadAttention) -> None:
    x = torch.randn(3, 7, D_CONTENT + D_POSITION)
    mask = make_mask([7, 5, 2], 7)
    window = AttentionWindow(2, relaxed=True)
    fast = attention(x, mask, window=window)
    attention.use_sdpa = False
    slow = attention(x, mask, window=window)
    torch.testing.assert_close(fast[mask], slow[mask], rtol=1e-5, atol=1e-6)


def test_padding_keys_get_no_attention(attention: FactoredMultiHeadAttention) -> None:
    torch.manual_seed(5)
    short = torch.randn(1, 4, D_CONTENT + D_POSITION)
    padded = torch.cat([short, 100 * torch.randn(1, 3, D_CONTENT + D_POSITION)], dim=1)
    alone = attention(short, make_mask([4], 4))
    batched = attention(padded, make_mask([4], 7))
    torch.testing.assert_close(batched[:, :4], alone, rtol=1e-5, atol=1e-6)


def test_strict_window_blocks_distant_pairs(attention: FactoredMultiHeadAttention) -> None:
    attention.record_attention = True
    x = torch.randn(1, 8, D_CONTENT + D_POSITION)
    attention(x, make_mask([8], 8), window=AttentionWindow(1))
    probs = attention.last_attention[0]  # type: ignore[index]
    distance = (torch.arange(8).unsqueeze(0) - torch.arange(8).unsqueeze(1)).abs()
    assert bool((probs[:, distance > 1] == 0).all())
    assert bool((probs[:, distance <= 1] > 0).all())


def test_relaxed_window_opens_start_first_last_stop() -> None:
    mask = make_mask([8, 6], 8)  # first sentence: n = 6 words, second: n = 4
    allowed = allowed_pairs(mask, AttentionWindow(1, relaxed=True))
    for b, n_real in enumerate([8, 6]):
        glob = {0, 1, n_real - 2, n_real - 1}
        for i in range(8):
            for j in range(8):
                expect = j < n_real and (abs(i - j) <= 1 or i in glob or j in glob)
                if i >= n_real:
                    continue  # padding queries: unspecified, only must not be empty
                assert bool(allowed[b, i, j]) == expect, (b, i, j)
        assert bool(allowed[b].any(dim=-1).all())


def test_wide_window_changes_nothing(attention: FactoredMultiHeadAttention) -> None:
    x = torch.randn(2, 6, D_CONTENT + D_POSITION)
    mask = make_mask([6, 4], 6)
    torch.testing.assert_close(attention(x, mask, window=AttentionWindow(6)), attention(x, mask))
    assert not torch.allclose(attention(x, mask, window=AttentionWindow(1))[mask], attention(x, mask)[mask])


def test_negative_window_rejected() -> None:
    with pytest.raises(ValueError):
        AttentionWindow(-1)


def test_training_on_a_cpu_draws_the_attention_dropout_mask_of_element_dropout() -> None:
    """On a CPU in training the attention probabilities go through ``element_dropout`` (numpy's masks, 4-5x faster
    to draw than SDPA's bernoulli_): the output is the hand-computed softmax, masked and scaled, times the values;
    the rate dropped is the one asked; without dropout the fused SDPA path gives the same output as the explicit."""
    from mlparse.modules.dropout import kept_on_cpu

    torch.manual_seed(4)
    module = FactoredMultiHeadAttention(D_CONTENT, D_POSITION, HEADS, D_K, D_V, attention_dropout=0.3).train()
    x = torch.randn(3, 7, D_CONTENT + D_POSITION)
    mask = make_mask([7, 5, 2], 7)
    q, k, v, allowed = module._prepare(x, mask, None, None)
    torch.manual_seed(9)
    got = module._attend(q, k, v, allowed)
    torch.manual_seed(9)
    keep = torch.from_numpy(kept_on_cpu((3, HEADS, 7, 7), 0.3)).float()
    probs = torch.softmax(module._masked_logits(q, k, allowed), dim=-1)
    torch.testing.assert_close(got, torch.matmul(probs * keep / 0.7, v))
    assert 0.25 < 1 - keep.mean().item() < 0.35
    torch.manual_seed(9)
    assert not torch.allclose(module._attend(q, k, v, allowed), torch.matmul(probs, v))  # something was dropped
    module.attention_dropout = 0.0  # no dropout: SDPA, the same numbers as the explicit path
    fused = module._attend(q, k, v, allowed)
    module.use_sdpa = False
    torch.testing.assert_close(fused, module._attend(q, k, v, allowed))
