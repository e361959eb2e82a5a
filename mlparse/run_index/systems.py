"""Systems: the configurations of a runs folder (groups of runs that differ only by seed), each with its complete
runs and the name the report gives its row.

A system's name is its runs' system name (``mlparse span (CharLSTM)``, an ensemble's "…, ensemble of N", an
external run's ``--name``) followed by what differs from its recipe (:class:`~mlparse.run_index.configurations.
Configurations`).  ``mlparse compare`` resolves a recipe name or such a name to a system and compares all its
complete seeds; the report's significance marks test systems, never seeds of one system against each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from mlparse.run_index.collect import RunRecord
from mlparse.results import CONVERGED_LABEL
from mlparse.run_index.configurations import Configurations
from mlparse.run_index.seeds import group_by_seed


def system_name(record: RunRecord) -> str:
    """The system name a run reports; an ensemble's says ``ensemble of N`` (its members are in its results.json)."""
    results = record.results
    assert results is not None
    name = results.system or f"mlparse {results.model}"
    if results.members and "ensemble of" not in name:
        name += f", ensemble of {len(results.members)}"
    convergence = getattr(results, "convergence", None)
    if isinstance(convergence, dict) and convergence.get("converged") and CONVERGED_LABEL not in name:
        name += f", {CONVERGED_LABEL}"
    return name


@dataclass
class System:
    """One configuration: its complete runs (ordered by seed, then label) under the report's row name."""

    name: str
    recipe: str
    key: str  # the seed group's key (mlparse.run_index.seeds.SeedGroup.key)
    runs: List[RunRecord] = field(default_factory=list)
    seeds: Dict[str, Optional[int]] = field(default_factory=dict)  # run label -> seed

    @property
    def external(self) -> bool:
        """Predictions of another parser scored by ``mlparse score``."""
        return any(run.results is not None and run.results.model == "external" for run in self.runs)

    def labels(self) -> List[str]:
        return [run.label for run in self.runs]


def index_systems(records: Sequence[RunRecord], configurations: Optional[Configurations] = None) -> List[System]:
    """Every configuration with at least one complete run, ordered by recipe and key (``records``: as collected,
    each run id once: :func:`mlparse.run_index.configurations.distinct_runs`)."""
    configurations = configurations or Configurations(records)
    out = []
    for group in group_by_seed(records):
        complete = sorted(group.complete, key=lambda run: (group.seeds.get(run.label) or 0, run.label))
        if not complete:
            continue
        latest = max(complete, key=lambda run: run.sort_time())
        name = configurations.name(latest, system_name(latest))
        out.append(System(name, group.recipe, group.key, complete, {run.label: group.seeds.get(run.label)
                                                                      for run in complete}))
    return out


def system_of_runs(systems: Sequence[System]) -> Dict[str, System]:
    """Run label -> the system it belongs to."""
    return {label: system for system in systems for label in system.labels()}


def matching_systems(systems: Sequence[System], name: str) -> List[System]:
    """The systems ``name`` stands for: those of the recipe ``name``, else those whose row name is ``name``."""
    by_recipe = [system for system in systems if system.recipe == name]
    return by_recipe or [system for system in systems if system.name == name]
