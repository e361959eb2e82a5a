"""mlparse's side of the one budget rule (:mod:`mlparse.budget_rule`): when training must stop so that its last dev
check and model end inside the time bound, from the times the trainer measures.

The trainer tells the clock what each update and each dev check took (:meth:`TrainingClock.note_update`,
:meth:`TrainingClock.note_check`) and asks it, after every update, whether to stop (:meth:`TrainingClock.must_stop`):
one more update, a check due now and the last check must still fit, at the longest of the last
:data:`RECENT_TIMES` updates and checks (times vary).  Before the first check has been measured, a check is
estimated at the update's speed per sentence over dev (training does more per sentence than parsing: an
overestimate, so that a first check late in a short budget is paid for), and a check due now is not counted twice
(it measures itself).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import List, Optional

from mlparse.budget_rule import must_stop

#: How many of the last updates and dev checks the stop plans with (the longest of them).
RECENT_TIMES = 8


@dataclass
class TrainingClock:
    """The bound (``max_minutes`` of training clock; ``deadline``: a ``time.monotonic()`` by which training must end;
    None: none) and the times measured so far; ``dev_sentences`` is what a dev check parses."""

    max_minutes: Optional[float]
    deadline: Optional[float]
    dev_sentences: int
    update_seconds: float = 0.0  # the last update's
    update_sentences: int = 0  # the last update's sentences (before the first dev check, its cost's estimate)
    check_seconds: float = 0.0  # the last dev check's, its checkpoints included
    save_seconds: float = 0.0  # the last checkpoint's
    #: the clock when this process's first update started and when its last model was written (None until then)
    startup_seconds: Optional[float] = None
    last_model_seconds: Optional[float] = None
    recent_updates: List[float] = field(default_factory=list)
    recent_checks: List[float] = field(default_factory=list)

    @property
    def bounded(self) -> bool:
        return self.max_minutes is not None or self.deadline is not None

    def note_update(self, seconds: float, sentences: int) -> None:
        self.update_seconds, self.update_sentences = seconds, sentences
        self.recent_updates = (self.recent_updates + [seconds])[-RECENT_TIMES:]

    def note_check(self, seconds: float) -> None:
        self.check_seconds = seconds
        self.recent_checks = (self.recent_checks + [seconds])[-RECENT_TIMES:]

    def check_estimate(self) -> float:
        """What a dev check and the checkpoints after it take, in seconds (see the module text)."""
        if self.recent_checks or self.check_seconds > 0:
            return max(self.recent_checks, default=self.check_seconds)
        if self.update_sentences > 0:
            return self.update_seconds / self.update_sentences * self.dev_sentences + self.save_seconds
        return 0.0

    def must_stop(self, training_seconds: float, check_due: bool = False) -> bool:
        """Must training stop now, at ``training_seconds`` of clock, so that its last dev check and model end inside
        the bound and before the deadline? (``check_due``: a scheduled dev check comes now.)"""
        check = self.check_estimate()
        update = max(self.recent_updates, default=self.update_seconds)
        check_due = check_due and bool(self.recent_checks or self.check_seconds > 0)
        if self.max_minutes is not None and must_stop(training_seconds, self.max_minutes * 60.0, update, check,
                                                      check_due):
            return True
        return self.deadline is not None and must_stop(time.monotonic(), self.deadline, update, check, check_due)

    def extends(self, stopped_at_budget: Optional[float], training_seconds: float) -> bool:
        """Does this clock's budget go past the one that stopped a resumed training (``stopped_at_budget``; None: a
        checkpoint from before the budget was recorded, whose training time is compared with the budget)?"""
        if stopped_at_budget is None:
            return not self.must_stop(training_seconds)
        return self.max_minutes is None or self.max_minutes > stopped_at_budget

    def alarm_seconds(self, elapsed: float, now: float) -> Optional[float]:
        """How long the update starting now (``elapsed`` seconds of clock, ``now`` on ``time.monotonic()``) may take
        before a budget alarm stops it, leaving room for a measured last check; None: no bound."""
        measured_check = max(self.recent_checks, default=0.0)
        left = None
        if self.max_minutes is not None:
            left = self.max_minutes * 60.0 - elapsed - measured_check
        if self.deadline is not None:
            to_deadline = self.deadline - now - measured_check
            left = to_deadline if left is None else min(left, to_deadline)
        return left
