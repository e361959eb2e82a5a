"""Whether the model a peer's training left may be used (:mod:`mlparse.budget_rule`: no grace at the bound).

A peer stopped at its budget gets SIGINT; one that was writing its model just then leaves a file that exists
but may be cut, and every prediction from it would fail (or worse, load half a model).  A model is accepted when

- the training ended on its own (its own stopping rule: the save was complete when it exited), or
- it was stopped at its bound and the model's last write came before the stop signal (a save that ended
  before the bound), or the peer closed the save and exited normally after the signal (a peer that saves on
  SIGINT: complete, but written after the bound, which the run's ``clock`` records);

and, where the recipe gives one, the peer's own load check (``external.model_check``) loads it.  A model
written while the peer was being stopped, by a peer that then died of the signal, is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from mlparse.external.process import Outcome


@dataclass(frozen=True)
class ModelVerdict:
    """``accepted``, or why not (``reason``); ``written_at``: the model's last write (time.time(); None: none)."""

    accepted: bool
    reason: str = ""
    written_at: Optional[float] = None


def last_write(model: Path) -> Optional[float]:
    """When ``model`` (a file, or a folder of files) was last written, as ``time.time()``; None when it is not there
    or a folder holds no file."""
    if model.is_file():
        return model.stat().st_mtime
    if not model.is_dir():
        return None
    times = [os.stat(os.path.join(folder, name)).st_mtime for folder, _, names in os.walk(model) for name in names]
    return max(times) if times else None


def judge_model(model: Path, outcome: Optional[Outcome]) -> ModelVerdict:
    """The verdict on ``model`` after the training attempt that ended with ``outcome`` (None: the training finished
    in an earlier command and its model was accepted then: only its presence counts)."""
    written = last_write(model)
    if written is None:
        return ModelVerdict(False, "missing")
    if outcome is None or not outcome.stopped or outcome.stopped_at is None:
        return ModelVerdict(True, written_at=written)
    if written < outcome.stopped_at:
        return ModelVerdict(True, written_at=written)
    if outcome.returncode == 0:  # it saved on the signal and exited normally: complete, after the bound
        return ModelVerdict(True, written_at=written)
    after = written - outcome.stopped_at
    return ModelVerdict(False, f"it was written {after:.1f} s after the stop signal ({outcome.how}) and the training "
                               f"did not end normally (exit status {outcome.returncode}): the save may be cut",
                        written)
