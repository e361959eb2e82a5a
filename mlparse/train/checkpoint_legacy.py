"""mlparse's first checkpoint format, and its conversion to the current one (``mlparse upgrade``).

Format 1 had no ``format`` field.  ``last.pt`` held ``spec, model, optimizer, schedule, state,
rng, recipe_hash``, with NumPy's random state pickled as a ``uint32`` array (the only object in it
that is not a tensor or plain data); ``best.pt`` held ``spec, model, step, dev_f1`` (plain data,
but no training state).  Converting turns the array into an int64 tensor and adds the format
fields; nothing else changes, so the converted file resumes exactly where the old one would have.
Rewriting a file in the current format is :func:`mlparse.train.checkpoint.upgrade_file`.
"""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
import torch


#: The pickled globals a format-1 checkpoint names (NumPy 1 and 2 spell the reconstructor differently).
OLD_FORMAT_GLOBALS = frozenset({
    "numpy.ndarray", "numpy.dtype", "numpy.dtypes.UInt32DType",
    "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct",
})


def old_format_globals() -> List[Any]:
    """What ``torch.serialization.safe_globals`` must allow to read a format-1 file: building a NumPy
    array (shape, dtype, bytes) and nothing else; no function that could run a command."""
    try:
        from numpy._core.multiarray import _reconstruct  # NumPy 2
    except ImportError:  # pragma: no cover - NumPy 1
        from numpy.core.multiarray import _reconstruct  # type: ignore[no-redef]
    allowed: List[Any] = [np.ndarray, np.dtype, (_reconstruct, "numpy.core.multiarray._reconstruct"),
                          (_reconstruct, "numpy._core.multiarray._reconstruct")]
    uint32 = getattr(getattr(np, "dtypes", None), "UInt32DType", None)
    if uint32 is not None:
        allowed.append((uint32, "numpy.dtypes.UInt32DType"))
    return allowed


def convert(data: Dict[str, Any]) -> Dict[str, Any]:
    """A format-1 checkpoint (as unpickled) in format 2, but for the ``format`` fields, which the caller
    (:func:`mlparse.train.checkpoint.as_current`) sets: this module imports nothing of the current format."""
    out = dict(data)
    out["spec"] = {**data["spec"], "versions": dict(data["spec"].get("versions") or {})}
    rng = data.get("rng")
    if isinstance(rng, dict) and isinstance(rng.get("numpy"), tuple):
        name, key, position, has_gauss, cached_gaussian = rng["numpy"]
        out["rng"] = {**rng, "numpy": (str(name), torch.from_numpy(np.asarray(key, dtype=np.int64)), int(position),
                                       int(has_gauss), float(cached_gaussian))}
    out["upgraded_from"] = 1  # the format fields are the current module's (mlparse.train.checkpoint.as_current)
    return out
