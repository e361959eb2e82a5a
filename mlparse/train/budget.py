"""``subbatch_tokens: auto``: sub-batch budgets sized for the device's free memory.

A budget counts token-equivalents of the parser's cost model (:mod:`mlparse.models.memory`):
one token-equivalent is what one position's activations take, ``Parser.position_bytes``.
On CUDA ``auto`` is therefore ``SAFETY_FRACTION * free / position_bytes``, where ``free`` is
what the driver reports free (``torch.cuda.mem_get_info``) once the model is on the device,
less what the optimizer will still allocate in training (gradients and Adam's two moments:
three times the parameters).  On a CPU, ``auto`` keeps the budgets recipes had before
(:data:`CPU_BUDGETS`): a CPU gains nothing from bigger sub-batches, and its memory is shared.
A number in the recipe is used as given on every device.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

import torch

AUTO = "auto"
from mlparse.config.hashing import AUTO_BUDGETS_ON_CPU

#: What ``auto`` means on a CPU: the defaults of ``train.subbatch_tokens`` / ``eval.subbatch_tokens`` before ``auto``.
CPU_BUDGETS = {section: number for (section, _key), number in AUTO_BUDGETS_ON_CPU.items()}
#: The share of the free device memory a sub-batch may fill (the rest: the allocator's fragmentation,
#: cuDNN/cuBLAS workspaces, and the cost model's error, which is measured on CPU peaks).
SAFETY_FRACTION = 0.7
#: Bytes per parameter that training allocates after the budget is chosen: its gradient and Adam's two moments.
TRAINING_BYTES_PER_PARAMETER_BYTE = 3


def free_device_memory(device: torch.device) -> int:
    """Free bytes on a CUDA ``device``, as the driver reports them."""
    free, _total = torch.cuda.mem_get_info(device)
    return int(free)


def resolve_budget(value: Union[int, str], phase: str, device: torch.device, position_bytes: Optional[float],
                   parameter_bytes: int = 0,
                   free_memory: Optional[Callable[[torch.device], int]] = None) -> int:
    """The budget, in token-equivalents, of ``train.subbatch_tokens`` (``phase="train"``) or
    ``eval.subbatch_tokens`` (``"eval"``) on ``device``.

    ``value``: the recipe's number (returned as is) or ``"auto"``; ``position_bytes``: bytes of one
    token-equivalent for this phase (None: unknown, the CPU budget is kept); ``parameter_bytes``: the model's parameters, whose gradients and
    optimizer state training allocates later.  Never below 1.
    """
    if value != AUTO:
        return int(value)
    if device.type != "cuda" or not position_bytes:
        return CPU_BUDGETS[phase]
    free = (free_memory or free_device_memory)(device)  # looked up now: tests replace free_device_memory
    if phase == "train":
        free -= TRAINING_BYTES_PER_PARAMETER_BYTE * parameter_bytes
    return max(1, int(SAFETY_FRACTION * max(0, free) / position_bytes))


def parameter_bytes(model: torch.nn.Module) -> int:
    """Bytes of ``model``'s parameters."""
    return sum(p.numel() * p.element_size() for p in model.parameters())
