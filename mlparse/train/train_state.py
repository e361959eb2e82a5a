"""What a training run carries from update to update and tells its caller: the state a resumed run needs
(:class:`TrainState`, saved in every checkpoint), the progress of an update (:class:`StepInfo`) and the callbacks
that receive it (:class:`Reporter`; the CLI renders them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class TrainState:
    """Everything besides weights and optimizer that a resumed run needs."""

    step: int = 0  # optimizer updates so far
    epoch: int = 0  # current epoch (0-based)
    batch_in_epoch: int = 0  # next batch of the current epoch
    checks: int = 0
    checks_since_best: int = 0
    best_score: float = float("-inf")  # of the task's main metric (F1, LAS)
    best_step: int = 0
    training_seconds: float = 0.0
    train_sentences: int = 0
    train_tokens: int = 0
    done: bool = False
    stop_reason: str = ""
    log: List[Dict[str, Any]] = field(default_factory=list)
    recent_loss: float = 0.0
    #: the time budget in minutes that stopped training (stop_reason max_minutes): training ends a little before it
    #: (mlparse.budget_rule), so only a larger budget trains on; None: not stopped by one (or an older checkpoint)
    stopped_at_budget: Optional[float] = None

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "TrainState":
        """A saved state; states saved before scores were metric-neutral say ``best_f1`` and log ``dev_f1``."""
        data = dict(data)
        if "best_f1" in data:
            data["best_score"] = data.pop("best_f1")
        data["log"] = [normalized_log_entry(entry) for entry in data.get("log", [])]
        return cls(**data)


def normalized_log_entry(entry: Dict[str, Any]) -> Dict[str, Any]:
    """A log entry with ``dev_score`` and ``metric`` (entries written before say ``dev_f1``)."""
    if "dev_score" in entry or "dev_f1" not in entry:
        return entry
    out = {key: value for key, value in entry.items() if key != "dev_f1"}
    out["dev_score"], out["metric"] = entry["dev_f1"], "f1"
    return out


@dataclass
class StepInfo:
    """Passed to the progress callback after every update."""

    step: int
    epoch: float
    loss: float
    lr: float
    sentences_per_second: float
    tokens_per_second: float
    dev_score: Optional[float]
    best_score: Optional[float]
    metric: str = "F1"  # how the task's main metric is written: F1, LAS


class Reporter:
    """Progress callbacks (no-op); the CLI renders them with rich."""

    def on_step(self, info: StepInfo) -> None:  # pragma: no cover - trivial
        pass

    def on_eval(self, info: StepInfo, improved: bool, lr_decayed: bool) -> None:  # pragma: no cover - trivial
        pass

    def on_note(self, message: str) -> None:  # pragma: no cover - trivial
        """Something the user should know about the run (training sentences left out on purpose, say)."""
        pass
