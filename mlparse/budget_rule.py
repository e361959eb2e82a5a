"""One budget rule for every system a run trains: mlparse's own parsers and another toolkit's (``model.kind:
external``), so that "20 minutes" in a table means the same thing in every row.

The rule (docs/comparing.md, "One clock for every system"):

- **What the clock covers.** It starts when the system starts to build its training: for mlparse when the
  run begins to read its training data (vocabularies, the model, a pretrained encoder's loading and the
  checkpoint resumed from are inside), for a peer when its training command is started (its interpreter's
  start, imports and data loading inside).  It stops when the last model the run uses is written.  Under
  jack-knifing the taggers come before both clocks start (their share of the budget is their own).  Each
  attempt of a resumed run counts its start-up again, for both.
- **At the bound: no grace.**  mlparse stops training early enough that its last dev check and the model it
  writes end inside the bound (:func:`must_stop`: one more update, a scheduled check and the last check would
  not fit); a peer is stopped by SIGINT at the bound and keeps what it had saved before it.  A model written
  after the bound (a peer that saves on SIGINT, a check that took longer than measured) is recorded as
  ``over_bound_seconds``; a peer's model file written while it was being stopped and not closed by a normal
  exit is refused (it may be cut: :mod:`mlparse.external.peer_model`).
- **Prediction is outside the budget for every system**, jack-knifing runs included: dev and test are
  parsed after training, timed apart (``parse_sentences_per_second``).
- **Threads**: every system gets the number :func:`mlparse.train.threads.choose_threads` decides at its start
  from the same sample (``{threads}`` for a peer); mlparse lowers it while other processes take cores
  (recorded per thread count), a peer cannot: on a quiet machine, the protocol of a comparison, both keep
  what they started with.

``results.json`` records what the clock measured as ``clock`` (:class:`ClockRecord`), the same fields for
every system.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, Optional

#: The rule's name in results.json (a later rule gets another name; runs under different rules do not share a table
#: row's meaning).
RULE = "one-clock-1"
#: What results.json's ``clock.prediction`` says: dev and test are parsed outside the budget.
PREDICTION_OUTSIDE = "outside the budget"


@dataclass
class ClockRecord:
    """What one system's clock measured (``results.json`` ``clock``), in seconds on the clock's own scale
    (attempts added up).

    ``startup_seconds`` is the part before the first update (None: not separable, a peer's); ``last_model_seconds``
    when the model the run uses was written (None: unknown, a peer whose recipe names no ``external.model``);
    ``over_bound_seconds`` how far past the bound that was (0 inside it; None: unknown)."""

    rule: str
    budget_minutes: Optional[float]
    clock_seconds: float
    startup_seconds: Optional[float]
    last_model_seconds: Optional[float]
    over_bound_seconds: Optional[float]
    threads: int
    prediction: str = PREDICTION_OUTSIDE

    @classmethod
    def measured(cls, budget_minutes: Optional[float], clock_seconds: float, startup_seconds: Optional[float],
                 last_model_seconds: Optional[float], threads: int) -> "ClockRecord":
        """The record of a training under ``budget_minutes`` (None: no budget); the overrun is computed here."""
        over: Optional[float] = None  # unknown when the model's time is (a peer whose recipe names no model file)
        if last_model_seconds is not None:
            over = 0.0 if budget_minutes is None else round(max(0.0, last_model_seconds - budget_minutes * 60.0), 3)
        return cls(RULE, budget_minutes, round(clock_seconds, 3),
                   None if startup_seconds is None else round(startup_seconds, 3),
                   None if last_model_seconds is None else round(last_model_seconds, 3), over, threads)

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


def must_stop(elapsed: float, bound: float, update_seconds: float, check_seconds: float, check_due: bool) -> bool:
    """Must mlparse stop training now (and make its last check) to end inside ``bound`` seconds?

    ``elapsed``: the clock now, after an update; ``update_seconds`` the last update's time, ``check_seconds`` what
    a dev check and the save after it take; ``check_due``: a scheduled check comes now.  Going on means (the
    scheduled check,) one more update and then at least the last check: if that would end past the bound, the
    run stops now and its check is the last one (it ends inside the bound when the times hold)."""
    going_on = (check_seconds if check_due else 0.0) + update_seconds + check_seconds
    return elapsed + going_on >= bound
