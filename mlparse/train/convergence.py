"""``mlparse run RECIPE --until-converged``: training until dev stops improving, with no time budget.

The stopping rule is the recipe's own: the dev score has not improved for ``train.patience_epochs`` epochs (its
checks ``train.evals_per_epoch`` times an epoch), at most ``train.max_epochs`` epochs, the learning rate decayed on
plateaus as the recipe says. What the flag changes is the time: ``train.max_minutes`` and ``tagger.max_minutes``
are lifted (neither is part of the run id, so the run is the same run as a budget run of the recipe, resumed where
that one stopped), and jack-knifing taggers train to their own patience too. ``results.json`` records the rule and
whether it was met (:func:`convergence_record`); the report names such runs apart from budget runs.

Another toolkit's parser (``model.kind: external``) stops on its own rule, which its recipe's files and commands
set (SuPar's patience, Stanza's steps without gain): the flag lifts the budget alone, and the record states the
peer's rule in the words of ``external.stopping``; such a run has converged when the peer ended its training
itself rather than being stopped.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, Optional

from mlparse.config import kinds
from mlparse.results import CONVERGED_LABEL  # noqa: F401  (the report's label of such runs)

#: ``results.stop_reason`` of another toolkit's parser that ended its training by its own rule (mlparse/external/)
PEER_OWN_STOP = "the peer's own stopping rule"


def _runs_outside(config: Any) -> bool:
    return kinds.declaration(config.model.kind).runs_outside


def until_converged(config: Any) -> Any:
    """A copy of the :class:`~mlparse.config.RecipeConfig` ``config`` without time bounds (``train.max_minutes``,
    ``tagger.max_minutes``). ValueError when the recipe has no patience to stop on (another toolkit's parser has its
    own)."""
    if not _runs_outside(config) and (not config.train.patience_epochs or config.train.patience_epochs <= 0):
        raise ValueError(f"--until-converged stops when dev has not improved for train.patience_epochs epochs, and "
                         f"{config.name} sets none: --set train.patience_epochs=N")
    out = copy.deepcopy(config)
    out.train.max_minutes = None
    if getattr(out, "tagger", None) is not None:
        out.tagger.max_minutes = None
    return out


def convergence_rule(config: Any) -> str:
    if _runs_outside(config):
        e = config.external
        words = e.stopping.strip() or "as its recipe sets it; external.stopping does not say"
        return f"{e.system or 'the peer'}'s own stopping rule: {words}; no time bound"
    t = config.train
    return (f"dev not improved for {t.patience_epochs:g} epochs (train.patience_epochs; checked "
            f"{t.evals_per_epoch} times an epoch), at most {t.max_epochs} epochs (train.max_epochs), no time bound")


def convergence_record(config: Any, stop_reason: Optional[str] = None, epochs: Optional[float] = None,
                       training_seconds: Optional[float] = None) -> Dict[str, Any]:
    """results.json's ``convergence``: the rule, its numbers, and once training ended whether it met the rule
    (``converged``: stopped by its patience; False when the epoch bound came first; None while it runs).  Another
    toolkit's parser: no patience or epoch bound of mlparse's (``None``), converged when it stopped by its own rule."""
    outside = _runs_outside(config)
    record: Dict[str, Any] = {"rule": convergence_rule(config),
                              "patience_epochs": None if outside else config.train.patience_epochs,
                              "max_epochs": None if outside else config.train.max_epochs, "converged": None}
    if stop_reason is not None:
        record["converged"] = stop_reason == (PEER_OWN_STOP if outside else "patience")
        record["stop_reason"] = stop_reason
    if epochs is not None:
        record["epochs"] = round(epochs, 2)
    if training_seconds is not None:
        record["hours"] = round(training_seconds / 3600.0, 3)
    return record
