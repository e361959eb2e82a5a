"""Host arrays to the device: through pinned memory and without waiting, on a GPU."""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def to_device(array: np.ndarray, device: torch.device) -> Tensor:
    """``array`` as a tensor on ``device`` (same shape and dtype).

    On CUDA the array is copied into pinned (page-locked) host memory and from there to the GPU with
    ``non_blocking=True``: the host goes on at once (the copy is queued on the current stream, before
    the work that reads it, and the caching host allocator keeps the pinned buffer until it is done).
    On the CPU the tensor shares the array's memory (no copy at all).  Elsewhere (MPS, say) it is an
    ordinary copy: a non-blocking copy from unpinned memory there may read the array after it is freed.
    """
    tensor = torch.from_numpy(array)
    if device.type == "cpu":
        return tensor
    if device.type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)
