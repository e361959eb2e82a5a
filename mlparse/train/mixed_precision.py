"""bf16 autocast over a whole training update, each weight cast once per update rather than once per sub-batch.

Under ``torch.autocast`` a float32 weight that a bf16 operation reads is cast to bf16, and the cast
is cached (leaf tensors that require grad) until the outermost autocast block is left.  With one
autocast block per sub-batch the cache was dropped after each, so every weight was cast again for
every sub-batch of an update: one more kernel per weight and sub-batch on a GPU.  An update's weights
do not change until the optimizer steps after its last sub-batch, so :class:`UpdateAutocast` holds one
outer block for the whole update: forward passes run inside :meth:`UpdateAutocast.forward` (autocast on),
backward passes inside :meth:`UpdateAutocast.backward` (autocast off, as torch recommends, yet nested
in the outer block, so the cache survives).  The casts, and so the gradients, are those of per-sub-batch
blocks, bit for bit (tested on the CPU, whose autocast caches the same way).

Where a weight is still cast more than once per update: a weight first used without gradient (the span
scorer's label layer scores the decoder's chart under ``no_grad``) is cached from then on only by torch
versions that cache such casts with their gradient history (2.13, which the install pins, does; older
ones cast it again with gradient); a gradient-checkpointed pretrained encoder recomputes in autograd's
thread, whose own autocast block empties the (process-wide) cache when it ends; a ``torch.compile``'d
encoder does not use the cache; the Label Attention Layer's query vectors reach their product through
einsum's views, which are not cached.  Each of these costs speed only, not correctness.

    with UpdateAutocast("cuda", enabled=True) as precision:
        for inputs in subbatches:
            with precision.forward():
                loss = model(inputs)
            with precision.backward():
                loss.backward()
    optimizer.step()  # after the block: the cache is gone before the weights change
"""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager, Optional

import torch


class UpdateAutocast:
    """One autocast block around an update's sub-batches (see the module docstring); ``enabled=False``:
    nothing at all (float32)."""

    def __init__(self, device_type: str, enabled: bool, dtype: torch.dtype = torch.bfloat16) -> None:
        self.device_type = device_type
        self.enabled = enabled
        self.dtype = dtype
        self._outer: Optional[torch.autocast] = None

    def __enter__(self) -> "UpdateAutocast":
        if self.enabled:
            self._outer = torch.autocast(device_type=self.device_type, dtype=self.dtype)
            self._outer.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        outer, self._outer = self._outer, None
        if outer is not None:
            outer.__exit__(*exc)  # the outermost block: the cached casts go

    def forward(self) -> ContextManager[Any]:
        """A forward pass: autocast on (the outer block's casts reused)."""
        if not self.enabled:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device_type, dtype=self.dtype)

    def backward(self) -> ContextManager[Any]:
        """A backward pass: autocast off, nested in the outer block so that its cache is kept."""
        if not self.enabled:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device_type, enabled=False)
