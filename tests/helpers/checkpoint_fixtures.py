"""Hand-made checkpoint files for the safety and recovery tests: crafted pickles, the old format, damage.

Not a test module by itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict

import numpy as np
import torch


class RunsACommand:
    """Unpickling this runs ``touch <marker>``: what a malicious model file would do (with a worse command)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.marker}",))


def _save(data: Any, path: Path) -> None:
    """``torch.save`` to a new file at ``path`` (best.pt and last.pt may be hard links of one file)."""
    if path.exists():
        path.unlink()
    torch.save(data, path)


def write_crafted(target: Path, marker: Path, like: Path) -> None:
    """Replace ``target`` by a copy of checkpoint ``like`` (loaded in full, any format) whose spec carries
    a :class:`RunsACommand`: a file that looks like a checkpoint and creates ``marker`` when unpickled."""
    data: Dict[str, Any] = torch.load(like, map_location="cpu", weights_only=False)
    data["spec"] = {**data["spec"], "payload": RunsACommand(marker)}
    _save(data, target)


def to_format_1(path: Path) -> None:
    """Rewrite a current checkpoint as mlparse's first format wrote it: no format fields, NumPy's random
    state as a pickled uint32 array; a best.pt held only the weights, the step and the dev F1."""
    data: Dict[str, Any] = torch.load(path, map_location="cpu", weights_only=True)
    spec = {key: value for key, value in data["spec"].items() if key not in ("versions", "kind")}
    state = dict(data["state"])  # the first format's names: best_f1, and dev_f1 in the log
    state["best_f1"] = state.pop("best_score")
    state["log"] = [{**{k: v for k, v in entry.items() if k not in ("dev_score", "metric")}, "dev_f1": entry["dev_score"]}
                    for entry in state["log"]]
    if path.name == "best.pt":
        old: Dict[str, Any] = {"spec": spec, "model": data["model"], "step": state["step"],
                               "dev_f1": state["best_f1"]}
    else:
        name, key, position, has_gauss, cached = data["rng"]["numpy"]
        rng = {**data["rng"], "numpy": (name, key.numpy().astype(np.uint32), position, has_gauss, cached)}
        old = {"spec": spec, "model": data["model"], "optimizer": data["optimizer"], "schedule": data["schedule"],
               "state": state, "rng": rng, "recipe_hash": data["recipe_hash"]}
    _save(old, path)


def truncate(path: Path) -> None:
    """Cut the file in half, as an interrupted copy or a full disk would."""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data[: len(data) // 2])
