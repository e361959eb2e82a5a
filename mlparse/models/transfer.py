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
    Elsewhere the tensor shares the array's memory (CPU) or is copied without waiting where the
    backend can.
    """
    tensor = torch.from_numpy(array)
    if device.type == "cuda":
        tensor = tensor.pin_memory()
    return tensor.to(device, non_blocking=True)
