"""Packed span scoring (upper triangles only, gradient on the chosen spans) equals the dense computation."""

from __future__ import annotations

import random
from typing import List

import pytest
import torch

from benchmarks.instrumentation.dense_reference import dense_forward, dense_loss, dense_parse
from benchmarks.instrumentation.memory_meter import saved_tensor_bytes
from mlparse.modules import span_scorer
from mlparse.modules.span_scorer import SpanScorer, dense_span_scores, span_indices
from mlparse.structs.chart import gold_spans
from mlparse.tasks.treebank import sentence_of
from helpers.span_fixtures import make_model, random_gold


def valid_spans(lengths: List[int], fenceposts: int) -> torch.Tensor:
    """BoolTensor[B, N+1, N+1]: True at the spans i < j <= n_b."""
    i = torch.arange(fenceposts).view(1, -1, 1)
    j = torch.arange(fenceposts).view(1, 1, -1)
    n = torch.tensor(lengths).view(-1, 1, 1)
    return (i < j) & (j <= n)


def random_scorer(seed: int) -> SpanScorer:
    torch.manual_seed(seed)
    scorer = SpanScorer(16, 12, 7)
    with torch.no_grad():  # non-trivial LayerNorm affine parameters and hidden bias
        scorer.norm.weight.uniform_(0.5, 1.5)
        scorer.norm.bias.uniform_(-0.5, 0.5)
        scorer.hidden_bias.uniform_(-0.5, 0.5)
    return scorer


def test_span_indices_list_each_sentences_upper_triangle() -> None:
    lengths = [3, 1, 2]
    batch, left, right = span_indices(lengths)
    expected = [(b, i, j) for b, n in enumerate(lengths) for i in range(n + 1) for j in range(i + 1, n + 1)]
    assert list(zip(batch.tolist(), left.tolist(), right.tolist())) == expected


@pytest.mark.parametrize("chunk", [4096, 5])
@pytest.mark.parametrize("grad", [True, False])
def test_packed_chart_equals_dense_scores_on_spans_and_is_zero_elsewhere(chunk: int, grad: bool, monkeypatch) -> None:
    monkeypatch.setattr(span_scorer, "CHART_CHUNK_SPANS", chunk)  # 5: many chunks, boundaries inside sentences
    scorer = random_scorer(3)
    lengths = [6, 2, 4]
    h = torch.randn(3, 8, 16, requires_grad=grad)
    with torch.set_grad_enabled(grad):
        chart = scorer(h, lengths)
    dense = dense_span_scores(scorer, h).detach()
    valid = valid_spans(lengths, 7)
    assert chart.shape == dense.shape == (3, 7, 7, 7) and chart.requires_grad == grad
    torch.testing.assert_close(chart.detach()[valid], dense[valid], rtol=1e-6, atol=1e-6)
    assert bool((chart.detach()[~valid] == 0).all())  # no score off the spans: they were never computed


def test_gradient_of_the_packed_chart_equals_the_dense_one() -> None:
    scorer = random_scorer(4)
    lengths = [5, 3]
    weights = torch.randn(2, 6, 6, 7) * valid_spans(lengths, 6).unsqueeze(-1)
    grads = []
    for compute in (lambda h: scorer(h, lengths), lambda h: dense_span_scores(scorer, h)):
        scorer.zero_grad()
        h = torch.randn(2, 7, 16, generator=torch.Generator().manual_seed(9)).requires_grad_(True)
        (compute(h) * weights).sum().backward()
        grads.append([h.grad] + [p.grad.clone() for p in scorer.parameters()])
    for packed, dense in zip(*grads):
        torch.testing.assert_close(packed, dense, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("decoder", ["cython", "torch"])
@pytest.mark.parametrize("variant", [{}, {"predict_tags": True, "d_tag_hidden": 16}, {"factored": False}])
def test_loss_gradients_and_trees_equal_the_dense_computation(decoder: str, variant: dict) -> None:
    model, trees, labels = make_model(**variant)
    sentences = [sentence_of(t) for t in trees]
    golds = [gold_spans(t, labels) for t in trees]
    results = []
    for loss_of in (model.loss, lambda s, g, d: dense_loss(model, s, g, d)):
        model.zero_grad()
        out = loss_of(sentences, golds, decoder)
        out.loss.backward()
        results.append((out, {name: p.grad.clone() for name, p in model.named_parameters()}))
    (packed, packed_grads), (dense, dense_grads) = results
    assert packed.loss.item() > 0 and packed.sentences == dense.sentences
    assert packed.loss.item() == pytest.approx(dense.loss.item(), rel=1e-6)
    assert (packed.part("hinge"), packed.part("tag")) == pytest.approx((dense.part("hinge"), dense.part("tag")), rel=1e-6)
    scale = max(float(grad.abs().max()) for grad in dense_grads.values())  # rounding noise is relative to this
    for name, grad in packed_grads.items():
        torch.testing.assert_close(grad, dense_grads[name], rtol=1e-5, atol=1e-6 * scale)
    model.eval()
    assert [t.to_bracketed() for t in model.parse(sentences, decoder)] == [
        t.to_bracketed() for t in dense_parse(model, sentences, decoder)]


@pytest.mark.parametrize("decoder", ["cython", "torch"])
def test_random_sentences_and_golds_give_the_dense_loss_scores_and_trees(decoder: str) -> None:
    model, _, labels = make_model(max_len=64)
    rng = random.Random(5)
    words = model.vocab.words.to_list()[4:] + ["unseen", "zzz"]
    lengths = [rng.randint(1, 40) for _ in range(6)]
    sentences = [[("NN", rng.choice(words)) for _ in range(n)] for n in lengths]
    golds = [random_gold(n, len(labels), rng) for n in lengths]
    packed = model.loss(sentences, golds, decoder).loss.item()
    assert packed == pytest.approx(dense_loss(model, sentences, golds, decoder).loss.item(), rel=1e-6)
    model.eval()
    with torch.no_grad():
        batch = model.make_batch(sentences)
        chart, _ = model(batch)
        dense, _ = dense_forward(model, batch)
    valid = valid_spans(lengths, max(lengths) + 1)
    torch.testing.assert_close(chart[valid], dense[valid], rtol=1e-5, atol=1e-6)
    assert [t.to_bracketed() for t in model.parse(sentences, decoder)] == [
        t.to_bracketed() for t in dense_parse(model, sentences, decoder)]


def test_training_graph_keeps_no_square_of_span_activations() -> None:
    """The dense loss keeps two [N+1, N+1, d_hidden] activations for backward (LayerNorm input, ReLU output);
    the packed one keeps them for the predicted and gold spans only."""
    model, _, labels = make_model(max_len=80, d_label_hidden=64)
    length = 60
    sentence = [("NN", "word")] * length
    gold = random_gold(length, len(labels), random.Random(1))
    graphs = []
    for loss_of in (lambda: model.loss([sentence], [gold]).loss, lambda: dense_loss(model, [sentence], [gold]).loss):
        graph, _ = saved_tensor_bytes(loss_of, exclude=model.parameters())
        graphs.append(graph)
    packed, dense = graphs
    square = (length + 1) ** 2 * model.span_config.d_label_hidden * 4  # one [N+1, N+1, d_hidden] float32 tensor
    assert dense - packed >= 1.5 * square
