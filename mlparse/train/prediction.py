"""Parsing many sentences with a parser: sub-batches under a memory budget, decoded on the host while the
network runs on the next (:mod:`mlparse.train.overlap`). The trainer's dev checks, a run's final parse of
dev and test, ensembles and jack-knifing taggers all parse through :func:`predict_in_batches`.
"""

from __future__ import annotations

from typing import Any, List, Sequence

import torch

from mlparse.config import RecipeConfig
from mlparse.data.batching import pack_by_tokens
from mlparse.models.base import Parser
from mlparse.train.overlap import decoded_behind


def resolve_decoder(config: RecipeConfig, device: torch.device) -> str:
    """The chart decoder of ``train.decoder`` on ``device``: ``auto`` is ``torch`` on a GPU, ``cython`` elsewhere."""
    choice = config.train.decoder
    if choice == "auto":
        return "torch" if device.type == "cuda" else "cython"
    return choice


def predict_in_batches(model: Parser, inputs: Sequence[Any], lengths: Sequence[int], budget: int,
                       decoder: str, overlap: bool = True) -> List[Any]:
    """Predictions for ``inputs`` (sentences of ``lengths`` words) in sub-batches under ``budget``
    token-equivalents of the parser's parsing memory; in input order.

    ``overlap``: sub-batch k is decoded on the host while the network runs on sub-batch k+1
    (:mod:`mlparse.train.overlap`); the same predictions as one after the other.
    """
    if len(inputs) != len(lengths):
        raise ValueError(f"{len(inputs)} inputs but {len(lengths)} lengths")
    was_training = model.training
    model.eval()

    def network(group: List[Any]) -> Any:
        batch = model.make_batch(group)
        return batch, model.scores(batch)

    def decode(group: List[Any], scored: Any) -> List[Any]:
        return model.decode(scored[0], scored[1], group, decoder)

    try:
        with torch.no_grad():
            groups = pack_by_tokens(list(lengths), budget, model.memory_cost(training=False, decoder=decoder))
            decoded = decoded_behind(network, decode, [[inputs[i] for i in group] for group in groups], overlap)
        results: List[Any] = [None] * len(inputs)
        for group, outputs in zip(groups, decoded):
            for index, output in zip(group, outputs):
                results[index] = output
        return results
    finally:
        model.train(was_training)
