"""A peer's training across attempts (``RUN_DIR/peer/state.json``) and what its model was trained under.

A kill, a resume, a restart and a budget that changed between two commands all meet here: the state counts the
attempts and the minutes they trained (an attempt cut by a SIGKILL counts until its log's last write), and
records the conditions of the training (the budget, the sha256 of the files the peer read, the recipe), so that a
model is reused only under the conditions it was trained under.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional

from mlparse.external.peer_files import PeerFiles
from mlparse.io_utils import atomic_write_json


@dataclass
class PeerState:
    """``RUN_DIR/peer/state.json``: the peer's training across attempts (a kill, a resume)."""

    attempts: int = 0
    training_seconds: float = 0.0
    trained: bool = False
    stopped: bool = False  # stopped at the budget (a finished training, its best model kept by the peer)
    how: str = ""  # the signal that stopped it
    running_since: Optional[float] = None  # time.time() when the attempt now under way started (None: none is)
    trained_under: Dict[str, Any] = field(default_factory=dict)  # budget, inputs' sha256 and recipe of the training
    # the budget's clock (mlparse.budget_rule): the attempts' seconds before the last one, when the last one started
    # (time.time()) and when the model it left was written, in clock seconds (None: not known)
    clock_before: float = 0.0
    attempt_started_at: float = 0.0
    last_model_seconds: Optional[float] = None

    @classmethod
    def read(cls, path: Path, log: Optional[Path] = None) -> "PeerState":
        """The state on disk; an attempt that was under way when mlparse was killed counts until ``log``'s last
        write (the peer's output), so that its minutes count against the budget."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            state = cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})
        except (OSError, ValueError, TypeError):
            return cls()
        if state.running_since is not None:
            try:
                last = log.stat().st_mtime if log is not None else state.running_since
            except OSError:
                last = state.running_since
            state.training_seconds += max(0.0, last - state.running_since)
            state.running_since = None
        return state

    def write(self, path: Path) -> None:
        atomic_write_json(path, {k: getattr(self, k) for k in self.__dataclass_fields__})


def training_conditions(config: Any, minutes: Optional[float], files: PeerFiles) -> Dict[str, Any]:
    """What a peer's model was trained under: the budget in minutes, the sha256 of the files it trained on (the tag
    protocol's tags in them) and the recipe's hash. A model made under other conditions is not reused."""
    from mlparse.data.manifest import sha256_file

    return {"minutes": minutes, "train_sha256": sha256_file(files.train), "dev_sha256": sha256_file(files.dev),
            "recipe": config.hash()}


def stale(state: PeerState, now: Dict[str, Any]) -> bool:
    """Is what the peer trained (or began to train) not to be reused under the conditions ``now``? A finished
    training under any other condition; an unfinished one on other inputs or another recipe (one that was only
    interrupted resumes or restarts with the budget it has left, as before)."""
    before = state.trained_under
    if state.trained:
        return before != now
    inputs = ("train_sha256", "dev_sha256", "recipe")
    return bool(state.attempts) and any(before.get(key) != now.get(key) for key in inputs)


def differences(before: Dict[str, Any], now: Dict[str, Any]) -> str:
    """The conditions that changed, in words: ``a budget of 20 minutes (now 40)``, ``other training files``."""
    out = []
    if before.get("minutes") != now.get("minutes"):
        was, new = before.get("minutes"), now.get("minutes")
        out.append(f"{'no time budget' if was is None else f'a budget of {was:g} minutes'} "
                   f"(now {'none' if new is None else f'{new:g} minutes'})")
    if (before.get("train_sha256"), before.get("dev_sha256")) != (now.get("train_sha256"), now.get("dev_sha256")):
        out.append("other input files (other tags)")
    if before.get("recipe") != now.get("recipe"):
        out.append("another recipe")
    return ", ".join(out) or "other conditions"
