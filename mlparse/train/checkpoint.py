"""Checkpoints written atomically: ``torch.save`` to a temporary file beside the target, fsync, ``os.replace``.

A process killed at any moment (SIGKILL included) leaves either the previous
checkpoint or the new one, never a truncated file.  RNG states (Python,
NumPy, torch CPU and CUDA) are captured so that a resumed run continues with
the same random stream.  :class:`CheckpointFiles` names the two files a run keeps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Union

import numpy as np
import torch

from mlparse.io_utils import atomic_write_binary


@dataclass(frozen=True)
class CheckpointFiles:
    """The checkpoints of one run, in ``folder``: ``best.pt`` (the weights of the best dev check)
    and ``last.pt`` (the full training state after the latest check, for resuming)."""

    folder: Path

    @property
    def best(self) -> Path:
        return self.folder / "best.pt"

    @property
    def last(self) -> Path:
        return self.folder / "last.pt"


def save_atomic(obj: Any, path: Union[str, Path]) -> None:
    """``torch.save`` through :func:`mlparse.io_utils.atomic_write_binary`."""
    atomic_write_binary(path, lambda handle: torch.save(obj, handle))


def load(path: Union[str, Path], map_location: Union[str, torch.device] = "cpu") -> Dict[str, Any]:
    return torch.load(Path(path), map_location=map_location, weights_only=False)


def rng_state() -> Dict[str, Any]:
    state: Dict[str, Any] = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: Dict[str, Any]) -> None:
    """Restore :func:`rng_state`.  Generator states must be CPU byte tensors: a checkpoint loaded with
    ``map_location="cuda"`` carries them on the GPU, so they are brought back first."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"].cpu())
    if "cuda" in state and torch.cuda.is_available():
        saved = [s.cpu() for s in state["cuda"]]
        if len(saved) == torch.cuda.device_count():
            torch.cuda.set_rng_state_all(saved)
        else:  # resumed on a machine with another number of GPUs: restore what matches
            for index, generator_state in enumerate(saved[: torch.cuda.device_count()]):
                torch.cuda.set_rng_state(generator_state, index)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
