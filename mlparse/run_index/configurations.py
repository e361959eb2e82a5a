"""A leaderboard row is a configuration: runs named by what differs from their recipe, each run counted once.

* :func:`distinct_runs`: a run id found in two folders (a copied or moved run directory) is one run; the
  complete copy that finished last is kept, and a warning names both folders.
* :func:`settings_difference`: the recipe keys (``section.key``) whose values in a run's resolved
  ``recipe.yaml`` differ from the recipe it was made from: the bundled recipe of that name when there
  is one, else the first-started configuration of that recipe name among the runs.  The seed keys
  (:data:`mlparse.run_index.seeds.SEED_KEYS`), run-time-only keys and where the data lives are left out; the
  time budget is not (runs with other budgets are other configurations, :mod:`mlparse.run_index.seeds`): a
  run's ``train.max_minutes`` is the budget it ran under (:func:`~mlparse.run_index.seeds.recorded_budget`).
* :func:`configuration_name`: the system name with that difference, ``mlparse span (CharLSTM)
  (model.factored: false)``, the name of the row and of the run's lines in the plots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import yaml

from mlparse.run_index.collect import RunRecord
from mlparse.run_index.seeds import recorded_budget
from mlparse.results import COMPLETE
from mlparse.run_dir import RECIPE_FILE

#: Keys that never make a configuration: the seed, run-time-only settings, where the data lives, text (the time
#: budget, run-time-only for the run id, does make one).
#: A fold member (jack-knifed taggers, ``--folds`` ensembles) is named by its fold, not by these keys.
FOLD_KEYS = frozenset({"data.fold", "data.folds"})
IGNORED_KEYS = frozenset({"train.seed", "train.num_threads", "train.overlap", "data.root", "description", "name"})
#: At most this many differences are spelled out in a name (then ``…``).
MAX_SHOWN = 4


def distinct_runs(records: Sequence[RunRecord], warnings: List[str]) -> List[RunRecord]:
    """``records`` with each run id once (see the module text); order kept."""
    by_id: Dict[str, List[RunRecord]] = {}
    for record in records:
        by_id.setdefault(f"{record.recipe}/{record.run_id}", []).append(record)
    keep = set()
    for label, copies in by_id.items():
        best = max(copies, key=lambda r: (r.state == COMPLETE, r.sort_time(), r.run_dir.as_posix()))
        keep.add(id(best))
        if len(copies) > 1:
            others = ", ".join(str(r.run_dir) for r in copies if r is not best)
            warnings.append(f"run {label} is in {len(copies)} folders ({best.run_dir}, {others}): counted once, "
                            f"from {best.run_dir}")
    return [record for record in records if id(record) in keep]


def _flat(data: Any, prefix: str = "") -> Dict[str, Any]:
    if isinstance(data, dict):
        out: Dict[str, Any] = {}
        for key, value in data.items():
            out.update(_flat(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: data}


def _resolved(record: RunRecord) -> Optional[Dict[str, Any]]:
    """The run's resolved recipe as flat ``section.key`` → value (None when unreadable)."""
    from mlparse.config import ConfigError
    from mlparse.config.loading import recipe_from_yaml_text

    try:
        config = recipe_from_yaml_text((record.run_dir / RECIPE_FILE).read_text(encoding="utf-8"),
                                       str(record.run_dir / RECIPE_FILE))
    except (OSError, UnicodeDecodeError, ValueError, TypeError, ConfigError, AttributeError, yaml.YAMLError):
        return None
    return _flat(config.to_dict())


def _bundled(name: str) -> Optional[Dict[str, Any]]:
    from mlparse.config import ConfigError
    from mlparse.config.loading import bundled_recipe_names, load_recipe

    for candidate in bundled_recipe_names():  # "free-faroese" is recipes/free/faroese.yaml
        if name not in (candidate, candidate.replace("/", "-"), candidate.rsplit("/", 1)[-1]):
            continue
        try:
            config = load_recipe(candidate)
        except (ConfigError, OSError, ValueError):
            continue
        if config.name == name:
            return _flat(config.to_dict())
    return None


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "none"
    if isinstance(value, str) and ("/" in value or value.endswith((".prm", ".yaml"))):
        return Path(value).name or value
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class Configurations:
    """Names runs by what differs from their recipe (results cached per run directory and recipe name)."""

    def __init__(self, records: Sequence[RunRecord]) -> None:
        self._records = list(records)
        self._bases: Dict[str, Optional[Dict[str, Any]]] = {}
        self._settings: Dict[str, Optional[Dict[str, Any]]] = {}

    def settings(self, record: RunRecord) -> Optional[Dict[str, Any]]:
        key = record.run_dir.as_posix()
        if key not in self._settings:
            settings = _resolved(record)
            if settings is not None:
                settings["train.max_minutes"] = recorded_budget(record)
            self._settings[key] = settings
        return self._settings[key]

    def base(self, recipe: str) -> Optional[Dict[str, Any]]:
        if recipe not in self._bases:
            base = _bundled(recipe)
            if base is None:  # not a bundled recipe: the first configuration that ran under this name
                runs = sorted((r for r in self._records if r.recipe == recipe), key=lambda r: (r.sort_time(), r.modified, r.label))  # stamps are whole seconds
                base = next((s for s in map(self.settings, runs) if s is not None), None)
            self._bases[recipe] = base
        return self._bases[recipe]

    def difference(self, record: RunRecord) -> List[str]:
        """``["model.factored: false", …]``: the settings of ``record`` that its recipe does not have."""
        mine, base = self.settings(record), self.base(record.recipe)
        if mine is None or base is None:
            return []
        # a run trained to convergence has no time budget, and its name says "trained to convergence" already
        converged = isinstance(getattr(record.results, "convergence", None), dict)
        out = []
        for key, value in sorted(mine.items()):
            if key in IGNORED_KEYS or key in FOLD_KEYS or (key in base and base[key] == value) or (
                    key not in base and value is None) or (converged and key == "train.max_minutes" and value is None):
                continue
            out.append(f"{key}: {_shown(value)}")
        if isinstance(mine.get("data.folds"), int) and isinstance(mine.get("data.fold"), int):
            out.insert(0, f"fold {mine['data.fold'] + 1} of {mine['data.folds']}")  # a jack-knifed fold member
        return out

    def name(self, record: RunRecord, system: str) -> str:
        """``system (what differs)``; ``system`` alone for a run of the recipe as it is."""
        diff = self.difference(record)
        if not diff:
            return system
        shown = diff[:MAX_SHOWN] + (["…"] if len(diff) > MAX_SHOWN else [])
        return f"{system} ({', '.join(shown)})"
