"""Denormal floats flushed to zero on a CPU: a product that meets them runs up to 180 times slower.

A float32 below 1.2e-38 is *denormal* (subnormal); x86 cores compute with such numbers in microcode. A BiLSTM
biaffine parser's relation scorer (zero-initialised, Dozat & Manning) produced them in its first updates on UD
English-EWT: its 5-GFLOP gradient products took 290 ms instead of 28 (torch.profiler, the quiet 2-core machine,
2026-11-28), and a 2,000 x 2,000 product of denormal inputs took 2.3 s on one thread against 18 ms flushed.

:func:`flushing_denormals` sets the core's flush-to-zero and denormals-are-zero modes for a run. They are a
thread's own, and torch's OpenMP pool threads take them from the thread that starts them: so a run sets them
before its first parallel operation (:func:`mlparse.train.runner.run_planned`), and in a process where the pool
started earlier (a library user's) they reach the calling thread only. Numbers this small are below anything a
parser's scores or gradients carry (GPUs flush them in most kernels too).

After the run the calling thread gets its floating-point environment back exactly (glibc's ``fegetenv`` /
``fesetenv``; elsewhere: the mode turned off again unless it was on before), so Python and numpy code on it (a
hypothesis test, say) sees IEEE arithmetic. Pool threads started during the run keep flushing: nothing reaches
into them from Python, so a parallel torch operation on denormal numbers after a run in the same process may
flush the share of them those threads compute. A command-line run ends with its process.
"""

from __future__ import annotations

import ctypes
from contextlib import contextmanager
from typing import Iterator, Optional

import numpy as np


def flushing_now() -> bool:
    """Whether this thread flushes denormal floats (a denormal float32 read as zero)."""
    with np.errstate(all="ignore"):
        return float(np.float32(1e-39) * np.float32(1.0)) == 0.0


class _Environment:
    """The calling thread's floating-point environment through glibc (``fegetenv``/``fesetenv``: the SSE
    control register with both flush modes included); ``available`` is False where that C library is not."""

    def __init__(self) -> None:
        try:
            self._libc = ctypes.CDLL(None)
            self._libc.fegetenv
            self._libc.fesetenv
            self.available = True
        except (OSError, AttributeError):
            self.available = False

    def save(self) -> Optional[ctypes.Array]:
        if not self.available:
            return None
        saved = ctypes.create_string_buffer(FENV_BYTES)
        return saved if self._libc.fegetenv(saved) == 0 else None

    def restore(self, saved: ctypes.Array) -> bool:
        return self._libc.fesetenv(saved) == 0


#: Bytes kept for a ``fenv_t`` (32 on x86-64 glibc, 8 on aarch64), with room to spare.
FENV_BYTES = 256


@contextmanager
def flushing_denormals() -> Iterator[bool]:
    """Denormal floats flushed to zero on this thread, and on the pool threads started meanwhile, inside the
    block; yields False where the CPU has no such mode (then nothing changes). This thread's floating-point
    environment before the block is restored after it (see the module docstring for the pool threads)."""
    import torch

    environment = _Environment()
    saved = environment.save()
    before = flushing_now()
    supported = bool(torch.set_flush_denormal(True))
    try:
        yield supported
    finally:
        if supported and not (saved is not None and environment.restore(saved)) and not before:
            torch.set_flush_denormal(False)
