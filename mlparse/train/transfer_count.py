"""Device-independent measure of the host waits that a dispatch counter cannot see: copies between host and device.

:class:`~mlparse.train.dispatch_count.DispatchCounter` sees operations that read a value back
(``.item()``, ``nonzero``), but on a CPU a copy to "the device" dispatches nothing, and on a GPU
two kinds of copy stall the step as surely:

- an *upload* that is not ``non_blocking`` (``tensor.to(device)``, ``torch.tensor(data, device=...)``):
  torch copies and then synchronises the stream, so the host waits for every kernel queued before it;
- a *read* of device memory (``tensor.cpu()``, ``.tolist()``, ``.item()``, ``bool(tensor)``): the host
  waits for the value.

:class:`TransferCounter`, a :class:`~torch.overrides.TorchFunctionMode`, counts the calls that ask for
them, made by code outside torch, whatever the device the code runs on: an upload names a device and is not ``non_blocking``
(``.to(x.device)`` of a tensor already there counts too, so code should not ask for it); a read is one
of the calls above (``.numpy()`` is left out: it is only possible on host tensors).  Like a dispatch
mode it sees only its own thread.

    with TransferCounter() as transfers:
        trainer.train_step(batch)
    transfers.blocking_uploads, transfers.host_reads, transfers.where
"""

from __future__ import annotations

import traceback
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import torch
from torch.overrides import TorchFunctionMode

#: Calls that read a tensor's memory back to the host (a wait when it is on a GPU).
READS = frozenset({"cpu", "tolist", "item", "__bool__", "__float__", "__int__", "__index__"})

#: Factory functions that copy host data (their first argument) to the ``device`` they are given.
FROM_HOST_DATA = frozenset({"tensor", "as_tensor"})


def _name(func: Any) -> str:
    return getattr(func, "__name__", str(func))


def _blocking_move(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> bool:
    """Does this call copy a tensor to a named device without ``non_blocking``?"""
    if name in FROM_HOST_DATA:
        return kwargs.get("device") is not None
    if name == "cuda":
        return not kwargs.get("non_blocking", any(isinstance(a, bool) and a for a in args[1:]))
    if name != "to":
        return False
    target: Optional[Any] = kwargs.get("device")
    non_blocking = bool(kwargs.get("non_blocking", False))
    for value in args[1:]:
        if isinstance(value, bool):
            non_blocking = non_blocking or value
        elif isinstance(value, (torch.device, str)) or (isinstance(value, int) and not isinstance(value, bool)):
            target = value
        elif isinstance(value, torch.Tensor):
            target = value.device
    return target is not None and not non_blocking


def _caller() -> Optional[str]:
    """``file.py:line function`` of the frame that made the call, or None when torch's own Python code
    made it (``clip_grad_norm_`` moving norms between devices, say: not a copy the caller asked for)."""
    frame = traceback.extract_stack()[-3]  # [-1]: this function, [-2]: __torch_function__, [-3]: the call
    parts = Path(frame.filename).parts
    if "torch" in parts:
        return None
    return f"{_short_path(parts)}:{frame.lineno} {frame.name}"


def _short_path(parts: Tuple[str, ...]) -> str:
    """``mlparse/models/span_parser.py`` or ``transformers/masking_utils.py`` (from the package down), else the
    file name: enough to tell mlparse's own copies from a library's."""
    for anchor in ("site-packages", "dist-packages"):
        if anchor in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(anchor):])
    if "mlparse" in parts[:-1]:
        return "/".join(parts[len(parts) - 1 - parts[-2::-1].index("mlparse") - 1:])
    return parts[-1]


class TransferCounter(TorchFunctionMode):
    """Counts blocking uploads and host reads inside its ``with`` block (see the module docstring);
    ``where``: each counted call's site, ``("upload" | "read", "mlparse/models/x.py:line function")``.
    :meth:`own` counts those of mlparse's own code (a library's, such as a transformer's masks, aside)."""

    def __init__(self) -> None:
        super().__init__()
        self.blocking_uploads = 0
        self.host_reads = 0
        self.where: Counter = Counter()

    def __torch_function__(self, func: Any, types: Any, args: Tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        name = _name(func)
        kind = ("upload" if _blocking_move(name, args, kwargs)
                else "read" if name in READS and args and isinstance(args[0], torch.Tensor) else None)
        if kind is not None:
            site = _caller()
            if site is not None:
                if kind == "upload":
                    self.blocking_uploads += 1
                else:
                    self.host_reads += 1
                self.where[(kind, site)] += 1
        return func(*args, **kwargs)

    def own(self, kind: str) -> int:
        """Counted ``kind`` (``upload`` or ``read``) calls made by mlparse's own code."""
        return sum(n for (k, site), n in self.where.items() if k == kind and site.startswith("mlparse/"))
