"""``train.compile``: the transformer encoder through ``torch.compile``, over length buckets.

A compiled graph is specialised to the shapes it saw; the encoder's input ``[B, T, d_model]`` changes
with every sub-batch.  The sentence axis T is padded up to the next *bucket* (:data:`BUCKETS`: 16, 24,
32, 40, 48, 64, 80, 104, ... positions: less than a third of padding, or 8 positions), the mask keeps the padding out of attention and
of the output (which is cut back to T), so the same few shapes recur; the batch axis B is marked
dynamic, so one graph serves every sub-batch size.  Counted on the demo, a whole epoch compiles a
handful of graphs instead of one per sub-batch.

``train.compile``:

- ``off`` (default): the encoder runs eagerly, as before (hash-neutral: run ids unchanged);
- ``encoder``: ``torch.compile`` of the encoder's forward (inductor; fused kernels, fewer launches);
- ``encoder-graphs``: on CUDA also CUDA graphs (``mode="reduce-overhead"``), which replay a whole
  graph's launches as one; on a CPU the same as ``encoder``.

The weights stay the encoder's own (only the instance's ``forward`` is replaced), so checkpoints and
run directories are those of an uncompiled run; outputs equal the uncompiled encoder's within float
tolerance (fused kernels add in another order).  ``MLPARSE_COMPILE_BACKEND`` picks another
``torch.compile`` backend (``eager``, ``aot_eager``: tests use them to check the wiring in seconds).
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from typing import Any, Callable, List, Optional

import torch
import torch.nn.functional as F
from torch import Tensor, nn

#: Values of ``train.compile``.
COMPILE_CHOICES = ("off", "encoder", "encoder-graphs")

#: Environment variable naming the torch.compile backend (default: inductor).
BACKEND_VARIABLE = "MLPARSE_COMPILE_BACKEND"


def _buckets(limit: int = 4096) -> List[int]:
    out, size = [], 16
    while size <= limit:
        out.append(size)
        size += max(8, (size // 3) // 8 * 8)  # steps of at most a third, multiples of 8
    return out


#: Padded sentence-axis sizes (start/stop positions included): 16, 24, 32, 40, 48, 64, 80, 104, ...
BUCKETS: List[int] = _buckets()


def bucket(positions: int) -> int:
    """The smallest bucket holding ``positions`` (itself beyond the last bucket)."""
    k = bisect.bisect_left(BUCKETS, positions)
    return BUCKETS[k] if k < len(BUCKETS) else positions


@dataclass
class CompiledEncoder:
    """The encoder's compiled forward over length buckets; ``encoder.forward`` calls it.

    ``__call__(x: Tensor[B, T, d_model], mask: BoolTensor[B, T]) -> Tensor[B, T, d_model]``.
    """

    compiled: Callable[[Tensor, Tensor], Tensor]
    mode: str
    backend: str

    def __call__(self, x: Tensor, mask: Tensor) -> Tensor:
        positions = x.shape[1]
        padded = bucket(positions)
        if padded != positions:
            x = F.pad(x, (0, 0, 0, padded - positions))
            mask = F.pad(mask, (0, padded - positions), value=False)
        torch._dynamo.maybe_mark_dynamic(x, 0)
        torch._dynamo.maybe_mark_dynamic(mask, 0)
        return self.compiled(x, mask)[:, :positions]


def compiled_graphs() -> int:
    """Graphs torch.compile has compiled in this process so far (recompilations included)."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def compile_encoder(model: nn.Module, mode: str, device: torch.device) -> Optional[CompiledEncoder]:
    """Compile ``model.encoder`` as ``mode`` (a value of :data:`COMPILE_CHOICES`) says; None for ``off``.

    Raises ValueError (with a message for the user) when the parser has no transformer encoder.
    """
    if mode not in COMPILE_CHOICES:
        raise ValueError(f"train.compile must be one of {', '.join(COMPILE_CHOICES)}, got {mode!r}")
    if mode == "off":
        return None
    from mlparse.modules.encoder import PartitionedTransformerEncoder

    encoder = getattr(model, "encoder", None)
    if not isinstance(encoder, PartitionedTransformerEncoder):
        raise ValueError(f"train.compile: {mode} compiles the transformer encoder, and this parser has "
                         f"{'none' if encoder is None else 'a ' + type(encoder).__name__}; use train.compile: off")
    backend = os.environ.get(BACKEND_VARIABLE, "inductor")
    options: dict = {"backend": backend, "dynamic": None}
    if mode == "encoder-graphs" and device.type == "cuda" and backend == "inductor":
        options["mode"] = "reduce-overhead"
    eager_forward: Any = type(encoder).forward.__get__(encoder)  # the class's forward, not a replaced one
    wrapper = CompiledEncoder(torch.compile(eager_forward, **options), mode, backend)
    encoder.forward = wrapper  # type: ignore[method-assign]  # nn.Module.__call__ finds it first
    return wrapper


def uncompile_encoder(model: nn.Module) -> None:
    """Give ``model.encoder`` its eager forward back (no-op when it was not compiled)."""
    encoder = getattr(model, "encoder", None)
    if encoder is not None and isinstance(encoder.__dict__.get("forward"), CompiledEncoder):
        del encoder.forward
