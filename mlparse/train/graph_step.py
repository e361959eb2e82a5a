"""``train.step: graph`` with ``train.compile`` on: a span parser's forward and hinge loss compiled as one graph per
length bucket, so a GPU runs a sub-batch's forward, decoding and loss (and, through AOTAutograd, its backward)
without the host in between; on CUDA with ``encoder-graphs`` the graphs are replayed as CUDA graphs.

What makes that possible: the loss-augmented CKY, its backtrack and the span lists live on the device in shapes
fixed by the padded length (:mod:`mlparse.structs.cky_device`); the CharLSTM runs in fixed shapes too
(``CharLSTM.static_shapes``); the words axis T is padded up to a bucket of :data:`mlparse.train.compile.BUCKETS`
and the characters axis C to a multiple of :data:`CHAR_STEP`, and the batch axis is marked dynamic, so a whole
epoch compiles a handful of graphs. Padding positions are masked out of attention, never reach a sentence's
tree (its chart entry ``(0, n_b)`` reads spans inside it only) and carry no gold span or tag.

What stays outside the graph: making the batch and its targets on the host (ahead, in the overlap worker), the
optimizer step (fused Adam on CUDA: one launch per parameter group), and reading the update's summed loss once.
Other kinds (biaffine, joint, tagger) and span parsers with a pretrained encoder train eagerly with
``train.step: graph`` (the joint parser's hinge still decodes on the device; :func:`graph_step_for` says why).

``GraphStep.__call__(batch: SentenceBatch, targets: SpanTargets) -> LossOutput``, the eager forward's result; the
graph is the parser's own ``graph_loss`` (a parser class that has one says ``compiles_as_one_graph = True``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

from mlparse.models.base import LossOutput
from mlparse.train.compile import BACKEND_VARIABLE, bucket

#: The characters axis is padded up to a multiple of this.
CHAR_STEP = 8


@dataclass
class GraphStep:
    """The compiled loss of a span parser; call it as the model is called in training."""

    model: Any
    compiled: Callable[..., Tuple[Tensor, Tensor, Tensor]]
    backend: str

    def __call__(self, batch: Any, targets: Any) -> LossOutput:
        if targets.labels is None or targets.lengths is None:
            raise ValueError("train.step: graph needs the device decoder's targets (SpanParser.make_targets)")
        positions = batch.mask.shape[1]
        padded = bucket(positions)
        chars = batch.chars.shape[2]
        char_padded = -(-chars // CHAR_STEP) * CHAR_STEP
        grow = padded - positions
        mask = F.pad(batch.mask, (0, grow), value=False)
        words, tags, char_lengths = (F.pad(t, (0, grow)) for t in (batch.words, batch.tags, batch.char_lengths))
        all_chars = F.pad(batch.chars, (0, char_padded - chars, 0, grow))
        labels = F.pad(targets.labels, (0, grow, 0, grow))  # [B, N+1, N+1] -> [B, N'+1, N'+1]
        word_mask = targets.word_mask if targets.word_mask is not None else torch.zeros_like(batch.mask)
        word_mask = F.pad(word_mask, (0, grow), value=False)
        for tensor in (mask, words, tags, char_lengths, all_chars, labels, targets.lengths, word_mask):
            torch._dynamo.maybe_mark_dynamic(tensor, 0)
        total, hinge, tag = self.compiled(mask, words, tags, all_chars, char_lengths, labels, targets.lengths, word_mask)
        parts = {"hinge": hinge.detach()}
        if self.model.tagger is not None:
            parts["tag"] = tag.detach()
        return LossOutput(loss=total, sentences=len(batch.lengths), parts=parts)


def graph_step_for(model: Any, config: Any, device: torch.device) -> Tuple[Optional[GraphStep], str]:
    """The compiled step of ``model`` under ``config`` (``train.step: graph`` and ``train.compile`` not off), or None
    with the reason it trains eagerly."""
    if config.train.step != "graph" or config.train.compile == "off":
        return None, "train.step: graph compiles the step only with train.compile: encoder or encoder-graphs"
    if not getattr(type(model), "compiles_as_one_graph", False):
        return None, f"the {config.model.kind} parser's step is not compiled as one graph yet (it trains eagerly)"
    if getattr(model, "pretrained", None) is not None:
        return None, "a span parser with a pretrained encoder is not compiled as one graph (subword batches vary)"
    backend = os.environ.get(BACKEND_VARIABLE, "inductor")
    options: dict = {"backend": backend, "fullgraph": True, "dynamic": None}
    if config.train.compile == "encoder-graphs" and device.type == "cuda" and backend == "inductor":
        options["mode"] = "reduce-overhead"

    def loss(*tensors: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        return model.graph_loss(*tensors)

    if getattr(model.embedding, "char_lstm", None) is not None:
        torch._dynamo.config.allow_rnn = True  # the CharLSTM's nn.LSTM in the graph (its static_shapes pass)

    return GraphStep(model, torch.compile(loss, **options), backend), f"the span parser's step compiled as one graph ({backend})"
