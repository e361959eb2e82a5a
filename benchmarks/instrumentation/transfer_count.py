"""Device-independent measure of the host waits that a dispatch counter cannot see: copies between host and device.

:class:`~benchmarks.instrumentation.dispatch_count.DispatchCounter` sees operations that read a value back
(``.item()``, ``nonzero``), but on a CPU a copy to "the device" dispatches nothing, and on a GPU
two kinds of copy stall the step as surely:

- an *upload* that is not ``non_blocking`` (``tensor.to(device)``, ``torch.tensor(data, device=...)``):
  torch copies and then synchronises the stream, so the host waits for every kernel queued before it;
- a *read* of device memory (``tensor.cpu()``, ``.tolist()``, ``.item()``, ``bool(tensor)``): the host
  waits for the value.

:class:`TransferCounter`, a :class:`~torch.overrides.TorchFunctionMode`, counts the calls that ask for
them, whatever the device the code runs on.  An upload is ``Tensor.to`` (any of its overloads) or
``.cuda()`` naming a device without ``non_blocking``, ``torch.tensor``/``torch.as_tensor`` with a
``device``, or ``new_tensor``; ``.to(x.device)`` of a tensor already there counts too, so code should
not ask for it.  ``dst.copy_(host)`` and ``.to("cpu")`` of a device tensor (a read) are seen only where
the tensors are on a device.  A read is one of the calls above (``.numpy()`` is left out: it is only
possible on host tensors).  Calls made inside torch's own Python code are listed apart in ``where``
("... inside torch", at the nearest frame outside torch), not counted: they are not copies the caller
asked for (``clip_grad_norm_`` moves its norms between devices; an ``.to`` of a tensor already on its
device copies nothing).  Like a dispatch mode it sees only its own thread.

    with TransferCounter() as transfers:
        trainer.train_step(batch)
    transfers.blocking_uploads, transfers.host_reads, transfers.where
"""

from __future__ import annotations

import os
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


def _target_of_to(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[Optional[Any], bool]:
    """``(device named or None, non_blocking)`` of ``Tensor.to(*args, **kwargs)`` (``args[0]`` the tensor),
    by its three overloads: ``to(device, dtype, non_blocking, copy)``, ``to(dtype, non_blocking, copy)`` and
    ``to(other, non_blocking, copy)``."""
    rest = args[1:]
    target: Optional[Any] = kwargs.get("device")
    flags: Tuple[Any, ...] = ()
    if rest:
        first = rest[0]
        if isinstance(first, torch.Tensor):
            target, flags = first.device, rest[1:]
        elif isinstance(first, torch.dtype):
            flags = rest[1:]
        elif isinstance(first, (torch.device, str)) or (isinstance(first, int) and not isinstance(first, bool)):
            target, flags = first, rest[2:]
    non_blocking = bool(kwargs.get("non_blocking", flags[0] if flags else False))
    return target, non_blocking


def _kind(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Optional[str]:
    """``"upload"``, ``"read"`` or None (neither) for the call ``name(*args, **kwargs)``."""
    source = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if name in FROM_HOST_DATA:
        return "upload" if kwargs.get("device") is not None else None
    if name == "new_tensor":  # host data on the tensor's device
        return "upload" if source is not None else None
    if name == "copy_":
        src = args[1] if len(args) > 1 and isinstance(args[1], torch.Tensor) else None
        blocking = not (kwargs.get("non_blocking") or (len(args) > 2 and args[2]))
        if source is not None and src is not None and blocking and src.device.type == "cpu" and source.device.type != "cpu":
            return "upload"
        return None
    if name == "cuda":
        return "upload" if not kwargs.get("non_blocking", any(isinstance(a, bool) and a for a in args[1:])) else None
    if name == "to":
        target, non_blocking = _target_of_to(args, kwargs)
        if target is None:
            return None
        if source is not None and source.device.type != "cpu" and torch.device(target).type == "cpu":
            return "read"  # device memory to the host
        return None if non_blocking else "upload"
    if name in READS and source is not None:
        return "read"
    return None


#: torch's own Python code (its calls are listed apart: not copies the caller asked for).
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


def _site() -> Tuple[str, bool]:
    """``("path:line function", inside torch)`` of the frame that made the call; for a call made inside torch's
    own Python code (``clip_grad_norm_`` moving norms between devices, say), the nearest frame outside it."""
    stack = traceback.extract_stack()[:-2]  # [-1]: this function, [-2]: __torch_function__
    inside = os.path.abspath(stack[-1].filename).startswith(_TORCH_DIR)
    frame = next((f for f in reversed(stack) if not os.path.abspath(f.filename).startswith(_TORCH_DIR)), stack[-1])
    return f"{_short_path(Path(frame.filename).parts)}:{frame.lineno} {frame.name}", inside


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
        kind = _kind(_name(func), args, kwargs)
        if kind is not None:
            site, inside_torch = _site()
            if inside_torch:
                self.where[(f"{kind} inside torch", site)] += 1
            elif kind == "upload":
                self.blocking_uploads += 1
                self.where[(kind, site)] += 1
            else:
                self.host_reads += 1
                self.where[(kind, site)] += 1
        return func(*args, **kwargs)

    def own(self, kind: str) -> int:
        """Counted ``kind`` (``upload`` or ``read``) calls made by mlparse's own code."""
        return sum(n for (k, site), n in self.where.items() if k == kind and site.startswith("mlparse/"))
