"""The time budget of a jack-knifing run: the taggers and the parser share it, and the run ends within it.

``mlparse run RECIPE --max-minutes M`` (or ``train.max_minutes``) of a recipe with ``data.tags: jackknife``
bounds the whole run, its taggers included.  The split is fixed when the run starts, from M, the number of
taggers and how many train side by side (:func:`BudgetSplit.plan`), so the same command on the same machine
gives every tagger the same bound (and so finds the same tags again, from the same tagger runs: a finished tagger
trained earlier under a larger bound is reused as it is, and the tags' manifest records the bound it had,
:func:`mlparse.train.jackknife.bounds_note`):

- the taggers (``tagger.folds`` fold taggers and the tagger of dev and test) get ``tagger.budget_share`` of
  M, in rounds of ``side_by_side`` taggers: each tagger's training is bounded by that share over the rounds
  (and by ``tagger.max_minutes`` when it is smaller);
- the parser gets the rest, ``(1 - share) * M`` of training, and the run's deadline, ``M`` minutes after the
  command started: its training, last dev check and model included, ends before it, so taggers that overran
  their share shorten the parser, not the run's training.  Dev and test are parsed after it, outside the
  budget, as for every system (:mod:`mlparse.budget_rule`; the same holds for a peer, ``model.kind: external``).

``results.json``'s ``budget`` records the split and the minutes each part took (:meth:`BudgetSplit.record`).
A time bound makes the taggers' tags depend on the machine's speed and load; without one each tagger stops
on its own patience (counted in dev checks, so in updates) and the tags are the same on any machine of the
same kind.  ``tagger.budget_share: 0`` gives the whole budget to the parser (``mlparse sweep`` does this: its
taggers are members of their own, bounded by ``tagger.max_minutes``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional

from mlparse.config import RecipeConfig
from mlparse.results import RunResults

#: Decimals kept of a tagger's bound in minutes: the bound enters the tag folder's key, so it must come out the
#: same from the same budget.
MINUTES_DECIMALS = 4


@dataclass(frozen=True)
class BudgetSplit:
    """How a jack-knifing run trains: ``taggers`` tagger runs, ``side_by_side`` at a time with
    ``threads_each`` torch threads each, then the parser; under a budget of ``minutes`` (None: no budget)
    each tagger's training is bounded by ``tagger_minutes`` and the parser's by ``parser_minutes``
    (None: no bound but their patience, or ``tagger.max_minutes``)."""

    minutes: Optional[float]
    taggers: int
    side_by_side: int
    threads_each: int
    share: float
    tagger_minutes: Optional[float]
    parser_minutes: Optional[float]

    @classmethod
    def plan(cls, minutes: Optional[float], taggers: int, side_by_side: int, threads_each: int, share: float,
             tagger_max_minutes: Optional[float] = None) -> "BudgetSplit":
        """The split of ``minutes`` (None: no budget): ``share`` of it to the taggers, in
        ``ceil(taggers / side_by_side)`` rounds, each tagger's bound at most ``tagger_max_minutes``; the rest
        to the parser.  ``share`` 0 leaves the taggers at ``tagger_max_minutes`` and gives the parser all of it."""
        side_by_side = max(1, min(side_by_side, taggers))
        rounds = math.ceil(taggers / side_by_side)
        if minutes is None:
            return cls(None, taggers, side_by_side, threads_each, share, tagger_max_minutes, None)
        each: Optional[float] = tagger_max_minutes
        if share > 0:
            slot = round(share * minutes / rounds, MINUTES_DECIMALS)
            each = slot if tagger_max_minutes is None else min(slot, tagger_max_minutes)
        return cls(minutes, taggers, side_by_side, threads_each, share, each, minutes * (1.0 - share))

    @property
    def rounds(self) -> int:
        return math.ceil(self.taggers / self.side_by_side)

    def describe(self) -> str:
        """What the run will train and how its budget is split, in one sentence (printed when it starts)."""
        how = (f"{self.side_by_side} side by side, {self.threads_each} torch thread{'s' if self.threads_each > 1 else ''}"
               f" each" if self.side_by_side > 1 else
               f"one after the other, {self.threads_each} torch thread{'s' if self.threads_each > 1 else ''} each")
        start = f"this run trains {self.taggers} taggers ({how}), then the parser"
        if self.minutes is None:
            bound = ("each until its patience runs out" if self.tagger_minutes is None
                     else f"each for at most {self.tagger_minutes:g} minutes (tagger.max_minutes)")
            return f"{start}; no time budget: the taggers train {bound}, the parser until its own stop"
        if self.share <= 0:
            taggers = ("until their patience runs out" if self.tagger_minutes is None
                       else f"for at most {self.tagger_minutes:g} minutes each (tagger.max_minutes)")
            return (f"{start}; its {self.minutes:g} minutes go to the parser (tagger.budget_share: 0), the taggers "
                    f"train {taggers}")
        return (f"{start}; its {self.minutes:g} minutes in all: {self.share * self.minutes:.2f} for the taggers "
                f"(tagger.budget_share {self.share:g}: {self.rounds} round{'s' if self.rounds > 1 else ''} of at most "
                f"{self.tagger_minutes:.2f} minutes of training each; finished taggers are reused), "
                f"{self.parser_minutes:.2f} for the parser, whose training ends before the {self.minutes:g} minutes "
                "are up (dev and test are parsed after, outside the budget)")

    def after_taggers(self, seconds: float) -> str:
        """What is left for the parser once the taggers and their tagging took ``seconds`` (a budgeted run)."""
        assert self.minutes is not None
        left = self.minutes - seconds / 60.0
        planned = self.share * self.minutes
        if left <= 0:
            return (f"the taggers and their tagging took {seconds / 60:.2f} minutes, the whole budget of "
                    f"{self.minutes:g}: the parser trains one update and makes its last dev check, late")
        return (f"the taggers and their tagging took {seconds / 60:.2f} minutes ({planned:.2f} planned): the parser "
                f"trains for at most {min(left, self.parser_minutes or left):.2f} minutes, its last dev check "
                f"included")

    def record(self, tagger_seconds: Optional[float] = None) -> Dict[str, Any]:
        """``results.json``'s ``budget``: the split, and the minutes the taggers took (training, tagging) when known."""
        return {"minutes": self.minutes, "taggers": self.taggers, "side_by_side": self.side_by_side,
                "threads_each": self.threads_each, "tagger_share": self.share,
                "tagger_minutes": self.tagger_minutes, "parser_minutes": self.parser_minutes,
                "tagger_phase_minutes": None if tagger_seconds is None else round(tagger_seconds / 60.0, 3)}


def cpu_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def side_by_side(wanted: Optional[int], taggers: int, threads_each: int, gpus: int) -> int:
    """How many of ``taggers`` tagger runs train at once: ``wanted`` (``tagger.side_by_side``) when given, else one
    per GPU (``gpus`` > 0: the parser's device is CUDA), else the CPU cores over ``threads_each``; at least 1,
    at most ``taggers``."""
    if wanted is not None:
        slots = wanted
    elif gpus > 0:
        slots = gpus
    else:
        slots = cpu_cores() // max(1, threads_each)
    return max(1, min(slots, taggers))


#: Minutes of training per tagger below which ``tagger.side_by_side: null`` trains the taggers one after the other
#: in the parser's process: a process of its own starts by importing torch (10 to 20 seconds on the loaded 2-core
#: machine, 2026-11), more than a short tagger gains from running beside another.
SIDE_BY_SIDE_MIN_MINUTES = 1.0


def split_for(config: RecipeConfig, minutes: Optional[float], gpus: int) -> BudgetSplit:
    """The :class:`BudgetSplit` of the jack-knifing recipe ``config`` under ``minutes`` (None: no budget), its
    taggers side by side on ``gpus`` GPUs (0: on the CPU) unless a budget leaves each less than
    :data:`SIDE_BY_SIDE_MIN_MINUTES` (and ``tagger.side_by_side`` does not choose).  Raises what loading the tagger
    recipe raises."""
    from mlparse.train.jackknife import tagger_config, tagger_threads

    threads = tagger_threads(tagger_config(config, None))  # one recipe built, not tagger.folds + 1
    taggers = config.tagger.folds + 1
    slots = side_by_side(config.tagger.side_by_side, taggers, threads, gpus)
    t = config.tagger
    split = BudgetSplit.plan(minutes, taggers, slots, threads, t.budget_share, t.max_minutes)
    short = split.tagger_minutes is not None and split.tagger_minutes < SIDE_BY_SIDE_MIN_MINUTES
    if short and slots > 1 and t.side_by_side is None:
        split = BudgetSplit.plan(minutes, taggers, 1, threads, t.budget_share, t.max_minutes)
    return split


def extends_budget(previous: RunResults, budget_minutes: Optional[float]) -> bool:
    """Does a finished run that its time budget stopped get more time now (None: no budget)?  A jack-knifing run
    records its budget in all (``budget.minutes``, :meth:`BudgetSplit.record`), which a larger one extends;
    other runs compare the budget with the bound they stopped at (``max_minutes``; files without one: with their
    training time).  A run stops a little before its bound (:mod:`mlparse.budget_rule`), so the same budget never
    extends it."""
    if previous.stop_reason != "max_minutes":
        return False
    recorded = previous.budget.get("minutes") if isinstance(previous.budget, dict) else None
    if isinstance(recorded, (int, float)) and not isinstance(recorded, bool):
        return budget_minutes is None or budget_minutes > recorded
    bound = previous.max_minutes  # the bound it stopped at: its training ends a little before it (budget_rule)
    if isinstance(bound, (int, float)) and not isinstance(bound, bool):
        return budget_minutes is None or budget_minutes > bound
    return budget_minutes is None or budget_minutes * 60.0 > (previous.training_seconds or 0.0)
