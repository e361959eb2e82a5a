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

from mlparse.models.span_parser import LossOutput, Sentence, SentenceBatch, SpanParser
from mlparse.modules.span_scorer import dense_span_scores
from mlparse.structs.chart_tree import GoldSpans
from mlparse.trees.tree import Tree


def dense_forward(model: SpanParser, batch: SentenceBatch, golds: Optional[Sequence[GoldSpans]] = None,
                  decoder: str = "cython") -> Union[Tuple[Tensor, Optional[Tensor]], LossOutput]:
    """:meth:`SpanParser.forward` as it was: ``(dense scores [B, N+1, N+1, L], tag logits | None)``
    without ``golds``, the :class:`LossOutput` through the dense chart with them."""
    h, tag_logits = model.encode(batch)
    scores = dense_span_scores(model.scorer, h)
    if golds is None:
        return scores, tag_logits
    return model._loss_from_scores(batch, scores, tag_logits, list(golds), decoder)


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
