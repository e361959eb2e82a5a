"""``mlparse run``'s dispatch: a recipe goes to mlparse's trainer, or, for a kind that runs another toolkit's parser
(``model.kind: external``), to :mod:`mlparse.external`.

It sits above both, so that neither imports the other: :mod:`mlparse.train.runner` opens every run the same way
(:func:`~mlparse.train.runner.run_held`: the lock, ``results.json``, the data, jack-knifed tags, the threads) and
trains mlparse's parsers; :mod:`mlparse.external.runner` runs a peer in a run opened that way.  Both follow one
budget rule (:mod:`mlparse.budget_rule`).  Commands and library callers that may meet either kind call
:func:`run_recipe` or :func:`run_planned` here.
"""

from __future__ import annotations

from typing import Optional

from mlparse.config import RecipeConfig, kinds
from mlparse.results import RunResults
from mlparse.train import runner as trainer_runner
from mlparse.train.run_plan import RunError, RunPlan
from mlparse.train.runner import RunOptions
from mlparse.train.trainer import Reporter


def run_recipe(config: RecipeConfig, options: RunOptions, reporter: Optional[Reporter] = None) -> RunResults:
    """Run ``config`` of any kind in ``options.runs_dir`` (the plan for the process the environment describes)."""
    return run_planned(RunPlan.for_recipe(config, options.runs_dir), options, reporter)


def run_planned(plan: RunPlan, options: RunOptions, reporter: Optional[Reporter] = None) -> RunResults:
    """Run ``plan.config``: another toolkit's parser through :mod:`mlparse.external` (its Python checked before
    anything is prepared), any other kind through mlparse's trainer."""
    if not kinds.declaration(plan.config.model.kind).runs_outside:
        return trainer_runner.run_planned(plan, options, reporter)
    from mlparse.external.runner import check_peer, run_opened

    if plan.dist.active:
        raise RunError(f"{plan.config.model.kind} runs another toolkit's parser in one process of its own; "
                       "run it without --gpus")
    check_peer(plan.config)  # a missing peer is said before anything is done
    return trainer_runner.run_held(plan, options, reporter, run_opened)
