"""Denormal floats flushed to zero on a CPU: a product that meets them runs up to 180 times slower.

A float32 below 1.2e-38 is *denormal* (subnormal); x86 cores compute with such numbers in microcode. A BiLSTM
biaffine parser's relation scorer (zero-initialised, Dozat & Manning) produced them in its first updates on UD
English-EWT: its 5-GFLOP gradient products took 290 ms instead of 28 (torch.profiler, the quiet 2-core machine,
2026-11-28), and a 2,000 x 2,000 product of denormal inputs took 2.3 s on one thread against 18 ms flushed.

:func:`flushing_denormals` sets the core's flush-to-zero and denormals-are-zero modes for a run. They are a
thread's own: torch's OpenMP pool threads take them from the thread that starts them, so a run sets them before its
first parallel operation (:func:`mlparse.train.runner.run_planned`), and in a process where the pool started
earlier (a library user's) they reach the calling thread only. Numbers this small are below anything a parser's
scores or gradients carry (GPUs flush them in most kernels too). The calling thread's mode is restored after the
run: other code of the process (hypothesis, say) may count on IEEE arithmetic.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numpy as np


def flushing_now() -> bool:
    """Whether this thread flushes denormal floats (a denormal float32 read as zero)."""
    with np.errstate(all="ignore"):
        return float(np.float32(1e-39) * np.float32(1.0)) == 0.0


@contextmanager
def flushing_denormals() -> Iterator[bool]:
    """Denormal floats flushed to zero on this thread, and on the pool threads started meanwhile, inside the
    block; yields False where the CPU has no such mode (then nothing changes). The thread's mode before the
    block is restored after it."""
    import torch

    before = flushing_now()
    supported = bool(torch.set_flush_denormal(True))
    try:
        yield supported
    finally:
        if supported and not before:
            torch.set_flush_denormal(False)
