"""Runs of one recipe that differ only by seed, grouped; their mean, sample standard deviation and n.

Which recipe keys count as "only the seed" is :data:`SEED_KEYS`: two runs belong to one group when their
recipe names match, the hash of their resolved recipes (``recipe.yaml``) with those keys set to one
fixed value is the same (:func:`seedless_hash`; the run id's hash, minus the seed), and they ran under the
same time budget (:func:`recorded_budget`).  The budget is not part of the run id (a run given more time
resumes its folder), but a 5-minute and a 60-minute run are two configurations, not two seeds of one: their
scores are never pooled.  A run whose ``recipe.yaml`` cannot be read forms a group of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from mlparse.run_index.collect import RunRecord
from mlparse.results import COMPLETE
from mlparse.run_dir import RECIPE_FILE

#: The recipe keys (section, key) whose values differ between the seeds of one experiment.
SEED_KEYS = (("train", "seed"),)


def seedless_hash(record: RunRecord) -> Optional[str]:
    """The hash of the run's resolved recipe with :data:`SEED_KEYS` held fixed; None if it cannot be read."""
    from mlparse.config import ConfigError
    from mlparse.config.loading import recipe_from_yaml_text

    try:
        config = recipe_from_yaml_text((record.run_dir / RECIPE_FILE).read_text(encoding="utf-8"),
                                       str(record.run_dir / RECIPE_FILE))
    except (OSError, UnicodeDecodeError, ValueError, TypeError, ConfigError, AttributeError):
        return None
    for section, key in SEED_KEYS:
        setattr(getattr(config, section), key, 0)
    return config.hash()


def recorded_budget(record: RunRecord) -> Optional[float]:
    """The time budget (minutes) the run trained under; None for none.  ``results.json`` records it
    (``max_minutes``: ``--max-minutes``, else ``train.max_minutes``); files written before it was recorded give a
    jack-knifing run's budget in all (``budget.minutes``), else the ``train.max_minutes`` of ``recipe.yaml``."""
    import yaml

    results = record.results
    minutes = getattr(results, "max_minutes", None) if results is not None else None
    budget = getattr(results, "budget", None) if results is not None else None
    if minutes is None and isinstance(budget, dict):
        minutes = budget.get("minutes")
    if minutes is None:
        try:
            data = yaml.safe_load((record.run_dir / RECIPE_FILE).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            return None
        train = data.get("train") if isinstance(data, dict) else None
        minutes = train.get("max_minutes") if isinstance(train, dict) else None
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)):
        return None
    return float(minutes)


def configuration_key(record: RunRecord) -> Optional[str]:
    """The key of the run's seed group: :func:`seedless_hash`, with the budget when it has one; None if unreadable."""
    key = seedless_hash(record)
    if key is None:
        return None
    budget = recorded_budget(record)
    return key if budget is None else f"{key}+max_minutes={budget:g}"


def seed_of(record: RunRecord) -> Optional[int]:
    """The run's ``train.seed`` from its ``recipe.yaml`` (None if unreadable)."""
    import yaml

    try:
        data = yaml.safe_load((record.run_dir / RECIPE_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    seed = data.get("train", {}).get("seed") if isinstance(data, dict) and isinstance(data.get("train"), dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


@dataclass
class SeedGroup:
    """Runs of one recipe differing only by seed.  ``runs``: its complete runs, or (when none is complete) its
    latest run, which then stands for the group with its state."""

    recipe: str
    key: str  # the seedless hash and budget (configuration_key), or the run directory for a run of its own
    runs: List[RunRecord] = field(default_factory=list)
    seeds: Dict[str, Optional[int]] = field(default_factory=dict)  # run label -> seed

    @property
    def complete(self) -> List[RunRecord]:
        return [run for run in self.runs if run.state == COMPLETE]

    @property
    def representative(self) -> RunRecord:
        """The latest run: its system name, data set and (when no run is complete) state stand for the group."""
        return max(self.runs, key=lambda run: run.sort_time())


def group_by_seed(records: Sequence[RunRecord]) -> List[SeedGroup]:
    """Every run with results, in groups; ordered by recipe, then by key."""
    groups: Dict[tuple, SeedGroup] = {}
    for record in records:
        if record.results is None:
            continue
        key = configuration_key(record) or f"run:{record.run_dir.as_posix()}"
        group = groups.setdefault((record.recipe, key), SeedGroup(record.recipe, key))
        group.runs.append(record)
        group.seeds[record.label] = seed_of(record)
    return [groups[key] for key in sorted(groups)]


def mean_std(values: Sequence[float]) -> tuple:
    """(mean, sample standard deviation (n − 1; None for fewer than two values), n); (None, None, 0) when empty."""
    n = len(values)
    if n == 0:
        return None, None, 0
    mean = sum(values) / n
    if n < 2:
        return mean, None, n
    return mean, math.sqrt(sum((value - mean) ** 2 for value in values) / (n - 1)), n
