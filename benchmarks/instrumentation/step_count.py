"""Operations dispatched and host synchronisations of one training update and of one parsed batch.

The device-independent measures of issue 16 (:class:`~benchmarks.instrumentation.dispatch_count.DispatchCounter`):
on a GPU every dispatched operation is at least one kernel launch, and every host synchronisation
stalls the step until the GPU has caught up, so both bound the speed whatever the GPU.  Copies
between host and device that make it wait are counted apart
(:class:`~benchmarks.instrumentation.transfer_count.TransferCounter`): uploads without ``non_blocking`` and reads
of device memory, which a dispatch counter on a CPU does not see.  Used by
``benchmarks/gpu_suite.py`` and by the test that keeps host synchronisations out of the training step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections import Counter
from typing import Any, Dict, Sequence, Tuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from mlparse.data.batching import pack_by_tokens
from mlparse.models.base import Parser
from benchmarks.instrumentation.dispatch_count import DispatchCounter
from mlparse.train.mixed_precision import UpdateAutocast
from benchmarks.instrumentation.transfer_count import TransferCounter


@dataclass
class DispatchFigures:
    """Counts of one measured piece of work."""

    operations: int  # backend operations dispatched (kernel launches on a GPU, at least)
    computing: int  # of them, those that are not views (the kernel launches on a GPU, allocations aside)
    host_syncs: int  # of them, operations that make the host wait for the device
    subbatches: int  # forward passes it took
    sync_operations: Dict[str, int]  # host_syncs by operation name
    blocking_uploads: int = 0  # mlparse's copies to the device that are not non_blocking (a full wait each on a GPU)
    host_reads: int = 0  # mlparse's reads of tensors back to the host (.cpu(), .item(), ...): a wait each on a GPU
    transfer_sites: Dict[str, int] = field(default_factory=dict)  # "upload|read path:line function" -> count,
    # libraries' included (a transformer's attention masks, say)


def count_update(trainer: Any, batch: Sequence[int]) -> DispatchFigures:
    """Counts of one :meth:`~mlparse.train.trainer.Trainer.train_step` over the sentence indices ``batch``
    (forward, backward and optimizer step of every sub-batch).  Counted with ``train.overlap`` off: a
    dispatch mode sees only its own thread, and the overlap makes batches in another."""
    groups = pack_by_tokens(trainer.train_lengths, trainer.train_budget, trainer.train_cost, indices=list(batch))
    overlap, trainer.config.train.overlap = trainer.config.train.overlap, False
    try:
        with TransferCounter() as transfers, DispatchCounter() as counter:
            trainer.train_step(batch)
    finally:
        trainer.config.train.overlap = overlap
    return _figures(counter, transfers, len(groups))


@torch.no_grad()
def count_parse(model: Parser, examples: Sequence[Any], decoder: str) -> DispatchFigures:
    """Counts of parsing ``examples`` as one sub-batch (network, decoding and building the predictions), as on a
    GPU: the encoders' CPU-only packing of real positions (``pack_positions``, which reads the mask's sum and
    never runs on a device) is turned off while counting."""
    was_training = model.training
    packing = [(module, module.pack_positions) for module in model.modules() if hasattr(module, "pack_positions")]
    model.eval()
    try:
        for module, _ in packing:
            module.pack_positions = False
        with TransferCounter() as transfers, DispatchCounter() as counter:
            model.predict(list(examples), decoder=decoder)
    finally:
        model.train(was_training)
        for module, before in packing:
            module.pack_positions = before
    return _figures(counter, transfers, 1)


def _figures(counter: DispatchCounter, transfers: TransferCounter, subbatches: int) -> DispatchFigures:
    return DispatchFigures(counter.total, counter.computing, counter.host_syncs, subbatches, dict(counter.syncs),
                           transfers.own("upload"), transfers.own("read"),
                           {f"{kind} {site}": n for (kind, site), n in transfers.where.items()})


@dataclass
class CastFigures:
    """Casts of the weights to the autocast dtype in one update."""

    weight_casts: int  # casts of parameters (kernel launches on a GPU)
    weights_cast: int  # distinct parameters cast at least once
    subbatches: int


class _WeightCastCounter(TorchDispatchMode):
    """Counts ``aten._to_copy`` of a parameter's memory to a lower float precision."""

    def __init__(self, parameters: Sequence[torch.Tensor]) -> None:
        super().__init__()
        self.storage = {p.data_ptr() for p in parameters}
        self.casts: Counter = Counter()

    def __torch_dispatch__(self, func: Any, types: Any, args: Tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.ops.aten._to_copy.default and args[0].data_ptr() in self.storage \
                and kwargs.get("dtype") in (torch.bfloat16, torch.float16):
            self.casts[args[0].data_ptr()] += 1
        return func(*args, **kwargs)


def count_weight_casts(trainer: Any, batch: Sequence[int], device_type: str = "cpu") -> CastFigures:
    """Weight casts of one :meth:`~mlparse.train.trainer.Trainer.train_step` under bf16 autocast on
    ``device_type`` (the CPU's autocast caches casts as CUDA's does, so a CPU measures what a GPU launches)."""
    groups = pack_by_tokens(trainer.train_lengths, trainer.train_budget, trainer.train_cost, indices=list(batch))
    precision, trainer.precision = trainer.precision, UpdateAutocast(device_type, True)
    overlap, trainer.config.train.overlap = trainer.config.train.overlap, False
    try:
        with _WeightCastCounter(list(trainer.model.parameters())) as counter:
            trainer.train_step(batch)
    finally:
        trainer.precision, trainer.config.train.overlap = precision, overlap
    return CastFigures(sum(counter.casts.values()), len(counter.casts), len(groups))
