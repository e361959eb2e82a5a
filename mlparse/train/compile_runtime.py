"""What a compiled training (``train.compile`` on, ``train.step: graph``) needs around ``torch.compile``: a compile
cache that outlives the process, a recompile limit above the length buckets, and a time budget that holds while
a graph compiles.

- **Cache** (:func:`use_persistent_cache`): inductor keeps compiled graphs (its FX graph and AOTAutograd caches)
  under ``TORCHINDUCTOR_CACHE_DIR``, by default a folder of ``/tmp`` that a reboot or a cleaner empties. mlparse
  points it at ``$XDG_CACHE_HOME/mlparse/torchinductor`` (``~/.cache/...``) unless the user set it, so the second
  run of a recipe reads its graphs instead of compiling them again (measured on the 2-core machine: a small graph
  16 s cold, 3.5 s from the cache, measured once beside another process: docs/gpu.md).
- **Recompile limit** (:func:`raise_recompile_limit`): torch compiles a function again for each new shape, up to
  ``torch._dynamo.config.recompile_limit`` (8), then runs it eagerly without a word. A training with
  ``model.max_len`` 300 pads to 12 length buckets, and training and parsing compile apart, so the limit is raised
  above what the buckets need.
- **Budget** (:class:`BudgetAlarm`): the trainer looks at the clock between updates, but the first update of a
  length bucket compiles its graph, which on a CPU can take minutes (inductor generating code). Armed around an
  update, the alarm raises :class:`BudgetReached` in the main thread when the budget ends inside it; the trainer
  drops that update and stops, saying so. The optimizer step is shielded (:meth:`BudgetAlarm.shielded`): the alarm
  waits until it is done, so an update is either made whole or not at all.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, MutableMapping, Optional

from mlparse.train.compile import BUCKETS

#: The variable inductor reads for its cache folder.
CACHE_VARIABLE = "TORCHINDUCTOR_CACHE_DIR"


def persistent_cache_dir(environ: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/mlparse/torchinductor``, ``~/.cache/mlparse/torchinductor`` without XDG_CACHE_HOME."""
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "mlparse" / "torchinductor"


def use_persistent_cache(environ: Optional[MutableMapping[str, str]] = None) -> str:
    """Point inductor's cache at :func:`persistent_cache_dir` unless ``TORCHINDUCTOR_CACHE_DIR`` is set (a user's
    choice is kept); returns the folder in use. Call it before the first compilation."""
    environ = os.environ if environ is None else environ
    if not environ.get(CACHE_VARIABLE):
        folder = persistent_cache_dir(environ)
        folder.mkdir(parents=True, exist_ok=True)
        environ[CACHE_VARIABLE] = str(folder)
    return environ[CACHE_VARIABLE]


def buckets_up_to(positions: int) -> int:
    """How many length buckets (:data:`mlparse.train.compile.BUCKETS`) a sentence axis of at most ``positions``
    positions can be padded to: each is one graph."""
    return sum(1 for size in BUCKETS if size < positions) + 1


def raise_recompile_limit(max_positions: int, config: Any = None) -> int:
    """Raise torch's recompile limit (never lower it) to twice the buckets up to ``max_positions`` (training and
    parsing graphs), plus a margin of 4; returns the limit in force. ``config``: ``torch._dynamo.config`` (tests
    pass a stand-in)."""
    if config is None:
        import torch._dynamo.config as config  # type: ignore[no-redef]
    wanted = 2 * buckets_up_to(max_positions) + 4
    names = [name for name in ("recompile_limit", "cache_size_limit") if hasattr(config, name)]
    for name in names:
        if getattr(config, name) < wanted:
            setattr(config, name, wanted)
    return max(getattr(config, name) for name in names) if names else wanted


class BudgetReached(BaseException):
    """The time budget ended inside an update (a :class:`BaseException`, as KeyboardInterrupt, so that no
    ``except Exception`` inside torch takes it for a compile error)."""


class BudgetAlarm:
    """Raises :class:`BudgetReached` in the main thread when ``seconds`` pass inside :meth:`armed`.

    Works only in the main thread of a process with ``signal.setitimer`` (Linux, macOS); elsewhere it is inert
    (:attr:`usable` False) and the trainer's between-update checks alone hold the budget. The SIGALRM handler that
    was there before is put back on leaving :meth:`armed`."""

    def __init__(self) -> None:
        self.usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        self._shielded = False
        self._pending = False
        self.fired = False

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self._shielded:
            self._pending = True  # raised when the shielded part ends
            return
        self.fired = True
        raise BudgetReached()

    @contextmanager
    def armed(self, seconds: Optional[float]) -> Iterator[None]:
        """Within this block, :class:`BudgetReached` is raised once ``seconds`` have passed (None, or an unusable
        alarm: nothing happens). ``seconds`` <= 0 raises at once."""
        if seconds is None or not self.usable:
            yield
            return
        if seconds <= 0:
            self.fired = True
            raise BudgetReached()
        previous = signal.signal(signal.SIGALRM, self._on_alarm)
        self._pending = False
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    @contextmanager
    def shielded(self) -> Iterator[None]:
        """An alarm that comes inside this block waits for its end (the optimizer step and the state's counts)."""
        self._shielded = True
        try:
            yield
        finally:
            self._shielded = False
        if self._pending:
            self._pending = False
            self.fired = True
            raise BudgetReached()


def compile_record(compile_seconds: float) -> dict:
    """results.json's ``hardware.compile``: graphs compiled in this process, the wall seconds of the updates that
    compiled them, inductor's cache hits and misses, and the cache folder."""
    from torch._dynamo.utils import counters

    from mlparse.train.compile import compiled_graphs

    inductor = counters["inductor"]
    return {"graphs": compiled_graphs(), "compile_seconds": round(compile_seconds, 1),
            "cache_hits": int(inductor.get("fxgraph_cache_hit", 0)),
            "cache_misses": int(inductor.get("fxgraph_cache_miss", 0)),
            "cache_dir": os.environ.get(CACHE_VARIABLE, "")}
