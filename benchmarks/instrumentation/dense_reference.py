"""The span parser's former dense computation, kept as the reference of tests and benchmarks.

Before span scores were packed (:meth:`mlparse.modules.span_scorer.SpanScorer.chart`), the
label MLP ran over the whole ``[B, N+1, N+1, d_hidden]`` square, lower triangle and padding
included, and the hinge loss took its gradient through that dense chart. These functions
compute exactly that with a model's own weights, so that the packed computation can be
checked against it (scores, trees, losses, gradients) and their memory compared
(``benchmarks/span_memory.py``). Nothing in training or parsing calls them.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import torch
from torch import Tensor

from mlparse.models.base import LossOutput
from mlparse.models.span_parser import Sentence, SentenceBatch, SpanParser
from mlparse.modules.span_scorer import dense_span_scores
from mlparse.structs import cky, cky_torch
from mlparse.structs.chart_tree import ChartTree, GoldSpans, hamming_cost
from mlparse.trees.tree import Tree


def dense_forward(model: SpanParser, batch: SentenceBatch, golds: Optional[Sequence[GoldSpans]] = None,
                  decoder: str = "cython") -> Union[Tuple[Tensor, Optional[Tensor]], LossOutput]:
    """:meth:`SpanParser.forward` as it was: ``(dense scores [B, N+1, N+1, L], tag logits | None)``
    without ``golds``, the :class:`LossOutput` through the dense chart with them."""
    h, tag_logits = model.encode(batch)
    scores = dense_span_scores(model.scorer, h)
    if golds is None:
        return scores, tag_logits
    return dense_loss_from_scores(model, batch, scores, tag_logits, list(golds), decoder)


def dense_loss_from_scores(model: SpanParser, batch: SentenceBatch, scores: Tensor, tag_logits: Optional[Tensor],
                           golds: Sequence[GoldSpans], decoder: str) -> LossOutput:
    """The loss over a differentiable dense chart ``scores [B, N+1, N+1, L]``: loss-augmented CKY (batched torch
    or per sentence in Cython) and the hinge through the chart, plus the model's tag loss."""
    scores = scores.float()
    if decoder == "torch":
        hinge, _ = cky_torch.hinge_loss_batch(scores, batch.lengths, list(golds))
    else:
        hinge = dense_hinge_cython(scores, batch.lengths, golds)
    return model._loss_output(batch, hinge, tag_logits)


def dense_hinge_cython(scores: Tensor, lengths: Sequence[int], golds: Sequence[GoldSpans]) -> Tensor:
    """Summed hinge loss through the dense chart ``scores [B, N+1, N+1, L]``, each sentence decoded (loss-augmented)
    by the Cython CKY."""
    array = scores.detach().cpu().numpy()
    predicted: List[ChartTree] = [cky.decode(array[b], gold=golds[b], length=n) for b, n in enumerate(lengths)]
    pred_sum = cky_torch.sum_span_scores(scores, [tree.spans for tree in predicted])
    gold_sum = cky_torch.sum_span_scores(scores, cky_torch.gold_span_lists(golds))
    hamming = torch.tensor([float(hamming_cost(t.spans, g)) for t, g in zip(predicted, golds)],
                           dtype=scores.dtype, device=scores.device)
    return torch.clamp(pred_sum + hamming - gold_sum, min=0.0).sum()


def dense_loss(model: SpanParser, sentences: Sequence[Sentence], golds: Sequence[GoldSpans],
               decoder: str = "cython") -> LossOutput:
    """:meth:`SpanParser.loss` through the dense chart."""
    out = dense_forward(model, model.make_batch(sentences), list(golds), decoder)
    assert isinstance(out, LossOutput)
    return out


def dense_parse(model: SpanParser, sentences: Sequence[Sentence], decoder: str = "cython") -> List[Tree]:
    """:meth:`SpanParser.parse` through the dense chart (no gradient)."""
    with torch.no_grad():
        batch = model.make_batch(sentences)
        scores, tag_logits = dense_forward(model, batch)  # type: ignore[misc]
        return model._trees_from_scores(sentences, batch, scores, tag_logits, decoder)
