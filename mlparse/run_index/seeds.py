"""Runs of one recipe that differ only by seed, grouped; their mean, sample standard deviation and n.

Which recipe keys count as "only the seed" is :data:`SEED_KEYS`: two runs belong to one group when their
recipe names match and the hash of their resolved recipes (``recipe.yaml``) with those keys set to one
fixed value is the same (:func:`seedless_hash`; the run id's hash, minus the seed).  A run whose
``recipe.yaml`` cannot be read forms a group of its own.
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
    key: str  # the seedless hash, or the run directory for a run that forms its own group
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
        key = seedless_hash(record) or f"run:{record.run_dir.as_posix()}"
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
