"""Tests for SpanScorer (paper formula by hand), fenceposts, TagHead, and the whole stack."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from mlparse.modules import (
    LexicalConfig,
    LexicalEmbedding,
    PartitionedTransformerEncoder,
    SpanScorer,
    TagHead,
    fencepost_vectors,
)

D_MODEL, HIDDEN, LABELS = 12, 7, 5


def paper_score(scorer: SpanScorer, h: torch.Tensor, i: int, j: int) -> torch.Tensor:
    """s(i, j, .) straight from the paper: v = [f_j - f_i ; b_{j+1} - b_{i+1}] for one sentence h [T, d]."""
    f, b = h[:, 0::2], h[:, 1::2]
    v = torch.cat([f[j] - f[i], b[j + 1] - b[i + 1]])
    hidden = scorer.hidden.weight @ v + scorer.hidden_bias
    normed = F.layer_norm(hidden, (HIDDEN,), scorer.norm.weight, scorer.norm.bias, scorer.norm.eps)
    labels = scorer.output.weight @ torch.relu(normed) + scorer.output.bias
    return torch.cat([torch.zeros(1), labels])


@pytest.fixture
def scorer() -> SpanScorer:
    torch.manual_seed(0)
    module = SpanScorer(D_MODEL, HIDDEN, LABELS)
    with torch.no_grad():  # non-trivial LayerNorm affine parameters and hidden bias
        module.norm.weight.uniform_(0.5, 1.5)
        module.norm.bias.uniform_(-0.5, 0.5)
        module.hidden_bias.uniform_(-0.5, 0.5)
    return module


def test_chart_matches_paper_formula(scorer: SpanScorer) -> None:
    torch.manual_seed(1)
    lengths = [5, 3]  # words per sentence; T = 5 + 2
    h = torch.randn(2, 7, D_MODEL)
    chart = scorer(h)
    assert chart.shape == (2, 6, 6, LABELS)
    assert bool((chart[..., 0] == 0).all())
    for b, n in enumerate(lengths):
        for i in range(n + 1):
            for j in range(i + 1, n + 1):
                torch.testing.assert_close(chart[b, i, j], paper_score(scorer, h[b], i, j), rtol=1e-4, atol=1e-5)


def test_valid_spans_ignore_padding(scorer: SpanScorer) -> None:
    torch.manual_seed(2)
    short = torch.randn(1, 4, D_MODEL)  # 2 words
    padded = torch.cat([short, torch.randn(1, 3, D_MODEL)], dim=1)
    alone, batched = scorer(short), scorer(padded)
    for i in range(3):
        for j in range(i + 1, 3):
            torch.testing.assert_close(batched[0, i, j], alone[0, i, j])


def test_score_spans_equals_chart_entries(scorer: SpanScorer) -> None:
    h = torch.randn(3, 6, D_MODEL)
    batch_index = torch.tensor([0, 1, 2, 2])
    left = torch.tensor([0, 1, 0, 2])
    right = torch.tensor([4, 3, 1, 4])
    chart = scorer(h)
    torch.testing.assert_close(scorer.score_spans(h, batch_index, left, right), chart[batch_index, left, right])


def test_fenceposts_use_even_forward_and_odd_next_backward() -> None:
    h = torch.arange(2 * 4 * 6, dtype=torch.float32).view(2, 4, 6)
    fp = fencepost_vectors(h)
    assert fp.shape == (2, 3, 6)
    torch.testing.assert_close(fp[1, 2], torch.cat([h[1, 2, [0, 2, 4]], h[1, 3, [1, 3, 5]]]))


def test_scorer_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="even"):
        SpanScorer(7, 4, 3)
    with pytest.raises(ValueError, match="empty label"):
        SpanScorer(8, 4, 1)


def test_tag_head_logits_and_masked_loss() -> None:
    torch.manual_seed(0)
    for d_hidden in (None, 6):
        head = TagHead(D_MODEL, n_tags=4, d_hidden=d_hidden)
        h = torch.randn(2, 5, D_MODEL)
        logits = head(h)
        assert logits.shape == (2, 5, 4)
        gold = torch.randint(0, 4, (2, 5))
        words = torch.tensor([[False, True, True, True, False], [False, True, False, False, False]])
        expected = sum(
            -torch.log_softmax(logits[b, t], -1)[gold[b, t]] for b in range(2) for t in range(5) if words[b, t]
        )
        torch.testing.assert_close(TagHead.loss(logits, gold, words), expected)


def test_full_stack_gradients_and_determinism() -> None:
    """Embedding -> encoder -> span scorer + tag head: every parameter gets a gradient,
    and two runs with the same seed give identical results (training mode, CPU)."""
    config = LexicalConfig(
        num_words=10, num_tags=5, num_chars=8, use_tags=True, char_model="lstm",
        d_content=16, d_position=16, max_len=12, d_char_emb_lstm=4,
    )
    mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    words = torch.tensor([[2, 3, 4, 5, 6, 7], [2, 8, 9, 7, 0, 0]])
    tags = torch.tensor([[1, 2, 3, 4, 2, 1], [1, 3, 3, 1, 0, 0]])
    chars = torch.randint(1, 8, (2, 6, 3)) * mask.unsqueeze(-1)
    char_lengths = mask.long() * 3
    results = []
    for _ in range(2):
        torch.manual_seed(5)
        embedding = LexicalEmbedding(config)
        encoder = PartitionedTransformerEncoder(2, 16, 16, n_heads=2, d_k=8, d_v=8, d_ff=32)
        scorer = SpanScorer(32, 10, 4)
        tagger = TagHead(32, 5)
        modules = [embedding, encoder, scorer, tagger]
        h = encoder(embedding(mask, words, tags, chars, char_lengths), mask)
        chart = scorer(h)
        loss = chart[0, 0, 4].sum() + chart[1, 1, 2].sum() + chart[0, 2, 3, 2] + TagHead.loss(tagger(h), tags, mask)
        loss.backward()
        missing = [
            n for m in modules for n, p in m.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)
        ]
        assert missing == []
        results.append(chart.detach())
    torch.testing.assert_close(results[0], results[1], rtol=0, atol=0)
