"""Host work overlapped with the device: the next batch prepared, the last one decoded, in one worker thread.

Training prepares the next sub-batch's inputs (indices, padding, the copy to the device: the parser's
``make_batch``) while the current one runs forward and backward; parsing decodes sub-batch k on the host
(backtracking, building trees) while the network runs on sub-batch k+1.  On a GPU the host work then
hides behind the device's; on a CPU it still runs beside torch's own threads.

The results are those of doing the same work in order: the worker runs the given functions on the given
items and nothing else (no random numbers are drawn in them), and results are taken in order.  The
worker lives for one ``with`` block; leaving it, normally or by an exception (``KeyboardInterrupt``
included), waits for the item in hand and joins the thread, so none is left behind.

Switched off by ``train.overlap: false`` in a recipe, or for every command by the environment variable
``MLPARSE_OVERLAP=0``: everything then runs in the calling thread, in the same order.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, TypeVar

import torch

T = TypeVar("T")
R = TypeVar("R")

#: Environment variable that switches the overlap off for every command when set to 0 (or false, off, no).
ENVIRONMENT_SWITCH = "MLPARSE_OVERLAP"

#: Name of the worker thread (tests look for it).
THREAD_NAME = "mlparse-overlap"


def overlap_enabled(wanted: bool = True) -> bool:
    """``wanted`` unless the environment switches the overlap off (``MLPARSE_OVERLAP=0``)."""
    return wanted and os.environ.get(ENVIRONMENT_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")


class HostWorker:
    """One worker thread for host work beside the device (or, switched off, the calling thread).

    The worker inherits the caller's grad mode and CUDA device: both are per thread, and work submitted
    from a ``torch.no_grad()`` block must not record a graph in the worker, nor a DDP rank's worker open
    a context on GPU 0.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = overlap_enabled(enabled)
        self._pool: Optional[ThreadPoolExecutor] = None

    def __enter__(self) -> "HostWorker":
        if self.enabled:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=THREAD_NAME)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Drop what has not started, wait for the item in hand, join the thread."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, function: Callable[..., R], *args: Any) -> "Future[R]":
        """``function(*args)`` in the worker (switched off: now, in this thread), as a future."""
        grad = torch.is_grad_enabled()
        if self._pool is None:
            done: Future = Future()
            try:
                done.set_result(function(*args))
            except BaseException as error:  # raised again by .result(), as from the worker
                done.set_exception(error)
            return done

        cuda_device = torch.cuda.current_device() if torch.cuda.is_initialized() else None

        def run() -> R:
            if cuda_device is not None:
                torch.cuda.set_device(cuda_device)
            with torch.set_grad_enabled(grad):
                return function(*args)

        return self._pool.submit(run)

    def ahead(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``function(item)`` for each item, in order, the next one computed while the caller uses the last
        (switched off: each computed when the caller asks for it, as a plain loop would)."""
        if self._pool is None:
            yield from (function(item) for item in items)
            return
        pending: Optional[Future] = None
        for item in items:
            following = self.submit(function, item)
            if pending is not None:
                yield pending.result()
            pending = following
        if pending is not None:
            yield pending.result()


def decoded_behind(network: Callable[[T], Any], decode: Callable[[T, Any], List[R]], items: Sequence[T],
                   enabled: bool = True) -> List[List[R]]:
    """``decode(item, network(item))`` for each item, in order: the network runs in the calling thread on item
    k+1 while the worker decodes item k."""
    out: List[List[R]] = []
    with HostWorker(enabled) as worker:
        pending: Optional[Future] = None
        for item in items:
            scores = network(item)
            if pending is not None:
                out.append(pending.result())
            pending = worker.submit(decode, item, scores)
        if pending is not None:
            out.append(pending.result())
    return out


def live_workers() -> List[threading.Thread]:
    """Worker threads of this module still alive (none outside a ``with`` block)."""
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_NAME) and t.is_alive()]
