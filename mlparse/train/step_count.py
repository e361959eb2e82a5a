"""Operations dispatched and host synchronisations of one training update and of one parsed batch.

The device-independent measures of issue 16 (:class:`~mlparse.train.dispatch_count.DispatchCounter`):
on a GPU every dispatched operation is at least one kernel launch, and every host synchronisation
stalls the step until the GPU has caught up, so both bound the speed whatever the GPU.  Used by
``benchmarks/gpu_suite.py`` and by the test that keeps host synchronisations out of the training step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Sequence

import torch

from mlparse.data.batching import pack_by_tokens
from mlparse.models.base import Parser
from mlparse.train.dispatch_count import DispatchCounter


@dataclass
class DispatchFigures:
    """Counts of one measured piece of work."""

    operations: int  # backend operations dispatched (kernel launches on a GPU, at least)
    computing: int  # of them, those that are not views (the kernel launches on a GPU, allocations aside)
    host_syncs: int  # of them, operations that make the host wait for the device
    subbatches: int  # forward passes it took
    sync_operations: Dict[str, int]  # host_syncs by operation name


def count_update(trainer: Any, batch: Sequence[int]) -> DispatchFigures:
    """Counts of one :meth:`~mlparse.train.trainer.Trainer.train_step` over the sentence indices ``batch``
    (forward, backward and optimizer step of every sub-batch).  Counted with ``train.overlap`` off: a
    dispatch mode sees only its own thread, and the overlap makes batches in another."""
    groups = pack_by_tokens(trainer.train_lengths, trainer.train_budget, trainer.train_cost, indices=list(batch))
    overlap, trainer.config.train.overlap = trainer.config.train.overlap, False
    try:
        with DispatchCounter() as counter:
            trainer.train_step(batch)
    finally:
        trainer.config.train.overlap = overlap
    return DispatchFigures(counter.total, counter.computing, counter.host_syncs, len(groups), dict(counter.syncs))


@torch.no_grad()
def count_parse(model: Parser, examples: Sequence[Any], decoder: str) -> DispatchFigures:
    """Counts of parsing ``examples`` as one sub-batch (network, decoding and building the predictions)."""
    was_training = model.training
    model.eval()
    try:
        with DispatchCounter() as counter:
            model.predict(list(examples), decoder=decoder)
    finally:
        model.train(was_training)
    return DispatchFigures(counter.total, counter.computing, counter.host_syncs, 1, dict(counter.syncs))
