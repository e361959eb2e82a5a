"""The taggers of jack-knifing members as sweep members of their own.

A member whose recipe has ``data.tags: jackknife`` needs ``tagger.folds`` fold taggers and a tagger on all of
train (:mod:`mlparse.train.jackknife`).  Run inside the parser's process they train one after the other;
here each becomes a member of the sweep, ``mlparse run RECIPE --set ... --tagger FOLD|all``, that the
launcher runs side by side with the others (local: as slots allow; Slurm: jobs of their own).  The parser
member waits for them (``after``): the local launcher starts it once they are complete, the Slurm launcher
submits it with ``--dependency=afterok:`` on their jobs.  A tagger member is the very run the parser's
process would train (the same recipe, run id and run directory), so the parser then finds the taggers
finished, makes its tag folder from their checkpoints without training them again, and trains.  Taggers
shared by several members (seeds of one recipe, parsers on the same data) are one member.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from mlparse.config import ConfigError
from mlparse.run_dir import RunDir, run_id_for
from mlparse.sweep.suite import Member
from mlparse.tasks.base import DataError


def tagger_label(name: str, index: int, folds: int) -> str:
    """``tagger-ud-UD_English-EWT fold tagger 1 of 10 (fold 0 held out)`` (``--tagger 0``; the parser's log names
    it the same way), ``tagger-ud-UD_English-EWT all of train`` (``--tagger all``)."""
    return f"{name} fold tagger {index + 1} of {folds} (fold {index} held out)" if index < folds else f"{name} all of train"


def with_taggers(members: List[Member]) -> List[Member]:
    """``members``, after the tagger members of those that jack-knife their tags (each tagger run once), with
    every jack-knifing member's ``after`` naming its taggers.  Raises :class:`ConfigError` for a tagger recipe
    that cannot be loaded (named with the member)."""
    from mlparse.train.jackknife import ALL, tagger_configs

    taggers: Dict[str, Member] = {}  # run directory -> tagger member
    labels: Dict[str, str] = {}  # label -> run directory
    parsers: List[Member] = []
    for member in members:
        if member.tagger is not None or member.config.data.tags != "jackknife":
            parsers.append(member)
            continue
        try:
            configs = tagger_configs(member.config)
        except (ConfigError, DataError) as error:
            raise ConfigError(f"member '{member.label}': its taggers: {error}") from None
        folds = member.config.tagger.folds
        needs = []
        for index, config in enumerate(configs):
            where = str(RunDir.for_recipe(Path("."), config).path)
            if where not in taggers:
                label = tagger_label(config.name, index, folds)
                if labels.get(label, where) != where:  # another tagger recipe on the same data and folds
                    label = f"{label} ({run_id_for(config)})"
                labels[label] = where
                taggers[where] = Member(recipe=member.recipe, overrides=member.overrides, seed=None, config=config,
                                        line=member.line, tagger=str(index) if index < folds else ALL, name=label)
            needs.append(taggers[where].label)
        parsers.append(Member(recipe=member.recipe, overrides=member.overrides, seed=member.seed, config=member.config,
                              line=member.line, after=tuple(needs)))
    return [*taggers.values(), *parsers]
