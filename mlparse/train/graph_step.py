"""``train.step: graph`` with ``train.compile`` on: a span or biaffine parser's forward and loss compiled as one graph
per length bucket, so a GPU runs a sub-batch's forward, decoding and loss (and, through AOTAutograd, its backward)
without the host in between; on CUDA with ``encoder-graphs`` the graphs are replayed as CUDA graphs.

What makes that possible: the span parser's loss-augmented CKY, its backtrack and the span lists live on the device
in shapes fixed by the padded length (:mod:`mlparse.structs.cky_device`; the biaffine loss decodes nothing); the
CharLSTM runs in fixed shapes too
(``CharLSTM.static_shapes``); the words axis T is padded up to a bucket of :data:`mlparse.train.compile.BUCKETS`
and the characters axis C to a multiple of :data:`CHAR_STEP`, and the batch axis is marked dynamic, so a whole
epoch compiles a handful of graphs. Padding positions are masked out of attention, never reach a sentence's
tree (its chart entry ``(0, n_b)`` reads spans inside it only) and carry no gold span or tag.

What stays outside the graph: making the batch and its targets on the host (ahead, in the overlap worker), the
optimizer step (fused Adam on CUDA: one launch per parameter group), and reading the update's summed loss once.
The joint parser, the tagger, a pretrained encoder and the BiLSTM encoder train eagerly with ``train.step: graph``
(the joint parser's hinge still decodes on the device; :func:`graph_step_for` says why).

``GraphStep.__call__(batch, targets) -> LossOutput``, the eager forward's result. A parser that can be compiled so
has three methods: ``graph_unsupported()`` (None, or why this model cannot: a pretrained encoder, a BiLSTM encoder
that packs by lengths on the host), ``graph_tensors(batch, targets, positions, chars)`` (its inputs and targets
padded to ``positions`` and ``chars``, the batch axis first) and ``graph_loss(*tensors) -> (loss, parts)``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

import torch
from torch import Tensor

from mlparse.models.base import LossOutput
from mlparse.train.compile import BACKEND_VARIABLE, bucket

#: The characters axis is padded up to a multiple of this.
CHAR_STEP = 8


@dataclass
class GraphStep:
    """The compiled loss of a parser; call it as the model is called in training."""

    model: Any
    compiled: Callable[..., Tuple[Tensor, Dict[str, Tensor]]]
    backend: str

    def __call__(self, batch: Any, targets: Any) -> LossOutput:
        positions = bucket(batch.mask.shape[1])
        chars = -(-batch.chars.shape[2] // CHAR_STEP) * CHAR_STEP
        tensors = self.model.graph_tensors(batch, targets, positions, chars)  # padded, the batch axis first
        for tensor in tensors:
            torch._dynamo.maybe_mark_dynamic(tensor, 0)
        loss, parts = self.compiled(*tensors)
        return LossOutput(loss=loss, sentences=len(batch.lengths), parts={k: v.detach() for k, v in parts.items()})


def graph_step_for(model: Any, config: Any, device: torch.device) -> Tuple[Optional[GraphStep], str]:
    """The compiled step of ``model`` under ``config`` (``train.step: graph`` and ``train.compile`` not off), or None
    with the reason it trains eagerly."""
    if config.train.step != "graph" or config.train.compile == "off":
        return None, "train.step: graph compiles the step only with train.compile: encoder or encoder-graphs"
    unsupported = model.graph_unsupported() if hasattr(model, "graph_unsupported") else "it has no graph_loss"
    if unsupported:
        return None, f"the {config.model.kind} parser's step is not compiled as one graph: {unsupported}"
    backend = os.environ.get(BACKEND_VARIABLE, "inductor")
    options: dict = {"backend": backend, "fullgraph": True, "dynamic": None}
    if config.train.compile == "encoder-graphs" and device.type == "cuda" and backend == "inductor":
        options["mode"] = "reduce-overhead"

    def loss(*tensors: Tensor) -> Tuple[Tensor, Dict[str, Tensor]]:
        return model.graph_loss(*tensors)

    if any(isinstance(module, torch.nn.LSTM) for module in model.modules()):
        torch._dynamo.config.allow_rnn = True  # a CharLSTM's nn.LSTM in the graph (its static_shapes pass)
    return (GraphStep(model, torch.compile(loss, **options), backend),
            f"the {config.model.kind} parser's forward and loss compiled as one graph per length bucket ({backend})")
