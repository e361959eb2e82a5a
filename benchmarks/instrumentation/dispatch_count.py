"""Device-independent cost measures: backend operations dispatched, and operations that make a GPU wait.

On a GPU every dispatched operation is (at least) one kernel launch, so the number of operations
a training update or a parsed batch dispatches bounds how fast it can go however fast the GPU
is; and an operation whose result the host must read (``.item()``, ``bool(tensor)``, a boolean
mask that decides a shape, ``nonzero``) stops the host until the GPU has caught up.  Both can
be counted on any machine, a CPU included, with a :class:`~torch.utils._python_dispatch.TorchDispatchMode`:

    with DispatchCounter() as counter:
        model(batch)
    counter.total, counter.host_syncs, counter.top(10)

Host copies of CPU tensors (``.cpu()``, ``.numpy()``) are not dispatched on a CPU; the counter sees
the operations that *force* a synchronisation on a GPU whatever the tensors' device.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Tuple

from torch.utils._python_dispatch import TorchDispatchMode

#: Operations that read a value or a data-dependent shape back to the host (a sync on CUDA).
SYNC_OPERATIONS = frozenset({
    "aten._local_scalar_dense",  # .item(), bool(t), int(t), float(t), t.tolist() element by element
    "aten.nonzero", "aten.nonzero_static", "aten.masked_select", "aten.unique", "aten._unique2", "aten.unique_consecutive",
    "aten.unique_dim", "aten.repeat_interleave", "aten.is_nonzero", "aten.equal",
})


def _name(func: Any) -> str:
    """``aten.addmm`` for the overload ``aten::addmm.default``."""
    schema = getattr(func, "_schema", None)
    if schema is not None:
        return schema.name.replace("::", ".")
    return str(func).split(".default")[0]


class DispatchCounter(TorchDispatchMode):
    """Counts the operations dispatched inside its ``with`` block, by name, and those that sync.

    ``total``: operations; ``host_syncs``: operations of :data:`SYNC_OPERATIONS`, plus boolean-mask
    indexing (``aten.index`` with a bool index, which computes ``nonzero`` internally); ``views``:
    operations that only make a view (``as_strided``, ``slice``, ``detach``: metadata, no kernel on a
    GPU), and ``computing``, the others (each a kernel launch on a GPU, allocations aside).
    """

    def __init__(self) -> None:
        super().__init__()
        self.counts: Counter = Counter()
        self.syncs: Counter = Counter()
        self.views = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        name = _name(func)
        self.counts[name] += 1
        if getattr(func, "is_view", False):
            self.views += 1
        if name in SYNC_OPERATIONS or (name in ("aten.index", "aten.index_put", "aten.index_put_")
                                       and _has_bool_index(args)):
            self.syncs[name] += 1
        return func(*args, **(kwargs or {}))

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def computing(self) -> int:
        """Operations that are not views: on a GPU, the ones that launch kernels."""
        return self.total - self.views

    @property
    def host_syncs(self) -> int:
        return sum(self.syncs.values())

    def top(self, k: int = 10) -> List[Tuple[str, int]]:
        return self.counts.most_common(k)

    def summary(self) -> Dict[str, Any]:
        return {"operations": self.total, "computing": self.computing, "host_syncs": self.host_syncs, "sync_operations": dict(self.syncs),
                "top": self.top(10)}


def _has_bool_index(args: Tuple[Any, ...]) -> bool:
    import torch

    if len(args) < 2 or not isinstance(args[1], (list, tuple)):
        return False
    return any(isinstance(index, torch.Tensor) and index.dtype == torch.bool for index in args[1])
