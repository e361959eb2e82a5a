"""Which checkpoint a run resumes from, and what to say about the other one.

Both ``last.pt`` and ``best.pt`` hold the full training state (weights, optimizer, schedule,
trainer state with its log, random states) of the dev check they were written at; ``best.pt``
is a copy of ``last.pt`` made right after it at an improving check.  So:

- the newer good file (more dev checks) is resumed from: normally ``last.pt``; ``best.pt`` when
  ``last.pt`` is truncated or corrupted (the updates after the best check are trained again,
  to the same result on the CPU);
- a run killed between the two writes leaves a ``last.pt`` whose state says its own check is the
  best while ``best.pt`` is older: ``best.pt`` is rewritten from it (``repair_best``), so that the
  resumed run's log, schedule and final scores are those of an uninterrupted run;
- a damaged ``best.pt`` that ``last.pt`` cannot stand in for (the best check was earlier) is
  reported as lost (``best_lost``): training goes on, and the next improving check writes it again;
- a file that would need code to run to be read is never fallen back from: it stops the resume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from mlparse.train import checkpoint


class ResumeError(ValueError):
    """The run cannot resume (unreadable checkpoints, or trained on other data); the message says what to do."""


@dataclass
class Found:
    """One checkpoint file: its content in the current format, or why it is unusable (None, None: absent)."""

    path: Path
    data: Optional[Dict[str, Any]] = None
    problem: Optional[checkpoint.CheckpointError] = None

    @property
    def exists(self) -> bool:
        return self.data is not None or self.problem is not None

    @property
    def training(self) -> bool:
        """Does it hold a full training state (format 2, or a format-1 last.pt)?"""
        return self.data is not None and isinstance(self.data.get("state"), dict)

    @property
    def step(self) -> Optional[int]:
        if self.data is None:
            return None
        return int(self.data["state"]["step"]) if self.training else int(self.data.get("step", -1))

    @property
    def checks(self) -> int:
        return int(self.data["state"].get("checks", 0)) if self.training else -1  # type: ignore[index]


@dataclass
class ResumePlan:
    source: Path
    data: Dict[str, Any]
    notes: List[str] = field(default_factory=list)
    repair_best: bool = False  # rewrite best.pt as a copy of the source
    best_lost: bool = False  # the best check's weights are gone (damaged best.pt, later last.pt)
    legacy_best: Optional[Tuple[int, float]] = None  # (step, dev F1) of a format-1 best.pt newer than last.pt


def read(path: Path, trust: bool = False, warn: Optional[checkpoint.Warn] = None) -> Found:
    """Load ``path`` for resuming: absent, good, or damaged.  A file that is refused (it would need code to
    run) or written by a newer mlparse raises ResumeError: nothing is fallen back from it."""
    if not path.exists():
        return Found(path)
    try:
        return Found(path, data=checkpoint.load(path, map_location="cpu", trust=trust, warn=warn))
    except checkpoint.CorruptCheckpoint as error:
        return Found(path, problem=error)
    except checkpoint.CheckpointError as error:
        raise ResumeError(f"cannot resume: {error}") from None


def plan_resume(files: checkpoint.CheckpointFiles, trust: bool = False,
                warn: Optional[checkpoint.Warn] = None) -> Optional[ResumePlan]:
    """The checkpoint to resume from and what to do about ``best.pt``; None when there is nothing to resume."""
    last, best = read(files.last, trust, warn), read(files.best, trust, warn)
    candidates = [found for found in (last, best) if found.training]
    if not candidates:
        damaged = [found for found in (last, best) if found.problem is not None]
        if not damaged:
            return None  # nothing written yet (or only a format-1 best.pt, which the first check replaces)
        parts = [f"{found.path} {found.problem.reason}" for found in damaged]  # type: ignore[union-attr]
        if best.data is not None:
            parts.append(f"{best.path} holds no training state (a best.pt of the old format)")
        elif not best.exists:
            parts.append(f"there is no {best.path} to fall back on")
        raise ResumeError("cannot resume: " + "; ".join(parts) + ". --fresh starts the run over")
    source = max(candidates, key=lambda found: (found.checks, found is last))
    state = source.data["state"]  # type: ignore[index]
    plan = ResumePlan(source.path, source.data)  # type: ignore[arg-type]
    if source is best:
        why = last.problem.reason if last.problem is not None else "is missing" if not last.exists else "is older"
        plan.notes.append(f"{last.path} {why}; resuming from {best.path} instead (step {state['step']}, the best "
                          "dev check); the updates after it are trained again")
        return plan
    best_step = int(state.get("best_step", 0))
    if best.data is not None and best.step == best_step:
        return plan  # the two agree
    if best.data is not None and not best.training and (best.step or 0) > state["step"]:
        plan.legacy_best = (int(best.step or 0), float(best.data.get("dev_f1", float("-inf"))))
        return plan  # format 1 wrote best.pt first: a run killed between the writes left it newer
    if best_step == state["step"] and state["checks"] > 0:
        # last.pt's own check is the best; best.pt is older (killed between the two writes), damaged or missing
        plan.repair_best = True
        if best.problem is not None:
            plan.notes.append(f"{best.path} {best.problem.reason}; rewritten from {last.path}, which holds the same "
                              f"dev check (step {state['step']})")
        return plan
    if best_step > 0 and best.data is None:
        why = best.problem.reason if best.problem is not None else "is missing"
        plan.best_lost = True
        best_score = state.get("best_score", state.get("best_f1", float("-inf")))
        plan.notes.append(f"{best.path} {why}: the weights of the best dev check so far (step {best_step}, dev score "
                          f"{best_score:.2f}) are lost. Training resumes from {last.path} (step {state['step']}); "
                          f"best.pt is written again at the next check that beats {best_score:.2f}, "
                          "otherwise the final scores are those of last.pt")
    return plan
