"""``mlparse run --profile N``: a torch profiler summary of the first N training updates of a session.

The summary (operations by total time, CPU and, on a GPU, CUDA; with the counts that are kernel
launches there) is written atomically to ``<run dir>/profile.txt`` once the N updates are done, or
when training ends first.  Updates are profiled as they come, resumed runs included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import torch
from torch.profiler import ProfilerActivity, profile

from mlparse.io_utils import atomic_write_text
from mlparse.run_dir import PROFILE_FILE  # noqa: F401  (the run directory names its files; here for callers)

#: Rows of the summary table.
ROWS = 40


class UpdateProfiler:
    """Wraps ``trainer.train_step`` so that its first ``updates`` calls run under the torch profiler."""

    def __init__(self, trainer: Any, updates: int, path: Path, device: torch.device) -> None:
        if updates < 1:
            raise ValueError(f"--profile takes a number of updates, at least 1, got {updates}")
        self.trainer, self.updates, self.path, self.device = trainer, updates, path, device
        self.done = 0
        self.profiler: Optional[profile] = None
        self.seconds = 0.0
        self._step: Callable[[Sequence[int]], float] = trainer.train_step
        trainer.train_step = self.step

    def step(self, batch: Sequence[int]) -> float:
        if self.done >= self.updates:
            return self._step(batch)
        if self.profiler is None:
            cuda = self.device.type == "cuda"
            self.profiler = profile(activities=[ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else []))
            self.profiler.__enter__()
        loss = self._step(batch)
        self.done += 1
        if self.done == self.updates:
            self.finish()
        return loss

    def finish(self) -> Optional[Path]:
        """Stop profiling and write the summary (a no-op when nothing was profiled or it is written)."""
        if self.profiler is None:
            return None
        profiler, self.profiler = self.profiler, None
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        profiler.__exit__(None, None, None)
        profiled, self.done = self.done, self.updates  # no profiling after this
        sort = "device_time_total" if self.device.type == "cuda" else "cpu_time_total"
        averages = profiler.key_averages()
        calls = sum(event.count for event in averages)
        head = (f"torch profiler: {profiled} training update(s) on {self.device}, sorted by {sort}; "
                f"{calls} profiled calls in all\n\n")
        atomic_write_text(self.path, head + averages.table(sort_by=sort, row_limit=ROWS) + "\n")
        return self.path
