"""Measured memory of a piece of torch work: the autograd graph it builds, the peak of its allocations.

What the cost model (:mod:`mlparse.models.memory`) is checked against, in tests and in
``benchmarks/span_memory.py``. ``tracemalloc`` does not see torch's allocations; on the CPU
the peak comes from ``torch.profiler`` with ``profile_memory`` (its running total of the
bytes allocated since the profiler started), on CUDA from the caching allocator's statistics.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Callable, Dict, Iterable, Tuple, TypeVar

import torch
from torch.profiler import ProfilerActivity, profile

R = TypeVar("R")


def saved_tensor_bytes(function: Callable[[], R], exclude: Iterable[torch.Tensor] = ()) -> Tuple[float, R]:
    """Run ``function``; return the bytes of the distinct storages autograd saved for backward meanwhile
    (``exclude``: tensors not to count, e.g. the parameters), and what ``function`` returned."""
    skip = {tensor.untyped_storage().data_ptr() for tensor in exclude}
    seen: Dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        address = storage.data_ptr()
        if address not in skip:
            seen[address] = max(seen.get(address, 0), storage.nbytes())
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        result = function()
    return float(sum(seen.values())), result


def peak_allocated_bytes(function: Callable[[], R], device: torch.device = torch.device("cpu")) -> Tuple[float, R]:
    """Run ``function``; return the peak of torch's allocations on ``device`` meanwhile, in bytes above
    what was allocated when it started, and what ``function`` returned."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        result = function()
        torch.cuda.synchronize(device)
        return float(torch.cuda.max_memory_allocated(device) - before), result
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = function()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as handle:
            events = json.load(handle)["traceEvents"]
    totals = [event["args"]["Total Allocated"] for event in events
              if event.get("name") == "[memory]" and event["args"].get("Device Type", 0) == 0]
    return float(max([0] + totals)), result
