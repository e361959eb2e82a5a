"""What a run argument of ``mlparse compare`` names: a system (its runs), each run's task, gold file and scoring.

An argument is a run directory holding ``results.json`` (trained, ensemble or external: that run alone), a recipe
name (all complete seeds of its configuration under ``--runs-dir``), or a system as the report names its rows
(:mod:`mlparse.run_index.systems`).  A run's predictions are ``<split>.pred.trees`` / ``<split>.pred.conllu``; its
gold file is the recipe's split (trained runs; an ensemble's first member's recipe) or the file ``mlparse score``
recorded (external runs, :data:`EXTERNAL_FILE`).  Runs are compared only when their gold files' sha256 checksums
agree, and only when each gold file is still the one the run recorded (:mod:`mlparse.compare.gold`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from mlparse.compare.gold import GoldStatus, gold_status
from mlparse.data.manifest import sha256_file
from mlparse.results import COMPLETE, RunResults
from mlparse.run_dir import EXTERNAL_FILE, RECIPE_FILE, RESULTS_FILE, RunDir  # EXTERNAL_FILE: an external run's
# scoring record (written by ``mlparse score``): task, gold file and checksum per split, evalb parameter file,
# dependency convention, family and language


class CompareError(ValueError):
    """A run that cannot be compared, with a message for the user (names the file)."""


sha256_of = sha256_file  # the sha256 of a file's bytes (hex), as manifests record it


def scoring_recipe(task: str, family: str, language: str, gold: Dict[str, str], evalb_params: Optional[str] = None,
                   dependency_scoring: str = "conll18", predicted_tags: bool = False):  # type: ignore[no-untyped-def]
    """A recipe that scores like a trained run on that data: the catalog's evalb parameter file for the family
    and language (unless ``evalb_params``), the dependency convention, ``gold`` split paths (split -> file)."""
    from mlparse.config import recipe_from_yaml_text

    data: Dict[str, Any] = {"family": family, "language": language, **gold}
    if evalb_params:
        data["evalb_params"] = evalb_params
    from mlparse.config.kinds import builtin_kind_for

    recipe: Dict[str, Any] = {"name": "external", "data": data, "model": {"kind": builtin_kind_for(task)},
                              "eval": {"dependency_scoring": dependency_scoring}}
    if predicted_tags:
        recipe["span"] = {"predict_tags": True}
    return recipe_from_yaml_text(json.dumps(recipe), "external scoring")


@dataclass
class RunRef:
    """One run to compare."""

    label: str  # recipe/run-id, as the report names runs
    path: Path
    results: RunResults
    task: str  # constituency | dependency
    config: Any  # RecipeConfig: how the run is scored

    @property
    def external(self) -> bool:
        """Predictions scored by ``mlparse score`` (no recipe); a peer trained by ``mlparse run`` has its recipe."""
        return self.results.model == "external" and (self.path / EXTERNAL_FILE).is_file()

    def suffix(self) -> str:
        """The suffix of its predictions and gold files (its task's)."""
        from mlparse.tasks import task_class

        return str(task_class(self.task).suffix)

    def pred(self, split: str) -> Path:
        return RunDir(self.path).pred(split, self.suffix())

    def gold(self, split: str) -> Path:
        return Path(self.config.data.split_path(split, self.suffix()))

    def gold_sha256(self, split: str) -> str:
        path = self.gold(split)
        if not path.is_file():
            raise CompareError(f"{self.path}: the gold {split} file {path} is not there (run from the folder the "
                               "run was made in, or prepare the data again)")
        return sha256_of(path)

    def gold_status(self, split: str, rescore: bool = False) -> GoldStatus:
        """The gold file of ``split`` now against the checksum the run recorded (see :mod:`mlparse.compare.gold`)."""
        return gold_status(self.label, self.results.gold, split, self.gold(split), self.gold_sha256(split), rescore)


def _read_results(path: Path) -> RunResults:
    try:
        data = json.loads((path / RESULTS_FILE).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise CompareError(f"{path / RESULTS_FILE}:{error.lineno}: invalid JSON ({error.msg})") from None
    except OSError as error:
        raise CompareError(f"{path / RESULTS_FILE}: cannot read ({error.strerror or error})") from None
    if not isinstance(data, dict):
        raise CompareError(f"{path / RESULTS_FILE}: not a JSON object")
    return RunResults.from_json_dict(data)


def _recipe_of(path: Path, results: RunResults):  # type: ignore[no-untyped-def]
    from mlparse.config import recipe_from_yaml_text

    recipe = path / RECIPE_FILE
    if not recipe.is_file() and results.members:  # an ensemble: its members were trained on the same data
        recipe = Path(str(results.members[0].get("run_dir", ""))) / RECIPE_FILE
    if not recipe.is_file():
        raise CompareError(f"{path}: no {RECIPE_FILE} (nor an ensemble member's): cannot tell the gold file")
    try:
        return recipe_from_yaml_text(recipe.read_text(encoding="utf-8"), str(recipe))
    except (OSError, ValueError) as error:
        raise CompareError(f"{recipe}: {error}") from None


def _external_config(path: Path):  # type: ignore[no-untyped-def]
    record = path / EXTERNAL_FILE
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        gold = {split: entry["path"] for split, entry in data["gold"].items()}
        return data["task"], scoring_recipe(data["task"], data.get("family", ""), data.get("language", ""), gold,
                                            data.get("evalb_params"), data.get("dependency_scoring", "conll18"),
                                            bool(data.get("predicted_tags", False)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise CompareError(f"{record}: not a readable external-run record ({error})") from None


def load_ref(path: Path) -> RunRef:
    """The run in directory ``path``."""
    results = _read_results(path)
    if results.status != COMPLETE:
        raise CompareError(f"{path}: the run is {results.status}, not complete")
    from mlparse.tasks import find_task

    label = f"{results.recipe or path.parent.name}/{results.run_id or path.name}"
    if results.model == "external" and (path / EXTERNAL_FILE).is_file():  # mlparse score's; a peer's run has a recipe
        task, config = _external_config(path)
    else:
        task, config = results.task, _recipe_of(path, results)
    task_type = find_task(task)
    if task_type is None or not task_type.compared:
        raise CompareError(f"{path}: {task} runs are not compared yet (constituency and dependency runs are)")
    return RunRef(label, path, results, task, config)


@dataclass
class SystemRef:
    """What one argument of ``mlparse compare`` stands for: a system's name and the runs compared for it."""

    name: str
    runs: List[RunRef]
    configuration: bool = False  # a recipe or a system named as the report names rows (all its complete seeds)


def _systems(runs_dir: Path) -> List[Any]:
    from mlparse.run_index.collect import collect_runs
    from mlparse.run_index.configurations import distinct_runs
    from mlparse.run_index.systems import index_systems

    return index_systems(distinct_runs(collect_runs(runs_dir), []))


def resolve(argument: str, runs_dir: Path) -> SystemRef:
    """A run directory (that run), or a recipe name or system name (every complete seed of that configuration)."""
    path = Path(argument)
    if (path / RESULTS_FILE).is_file():
        ref = load_ref(path)
        return SystemRef(ref.label, [ref])
    if path.is_dir() and "/" in argument:  # a folder, not a name
        raise CompareError(f"{path}: no {RESULTS_FILE} (not a run directory)")
    if not Path(runs_dir).is_dir():
        raise CompareError(f"{argument}: neither a run directory nor a recipe; no runs folder {runs_dir}")
    from mlparse.run_index.systems import matching_systems

    systems = _systems(Path(runs_dir))
    found = matching_systems(systems, argument)
    if not found:
        raise CompareError(f"{argument}: neither a run directory, nor a recipe or a system with complete runs under "
                           f"{runs_dir}")
    if len(found) > 1:
        listed = "; ".join(f"{system.name!r} ({len(system.runs)} run{'s' if len(system.runs) > 1 else ''})"
                           for system in found)
        raise CompareError(f"{argument}: {len(found)} configurations have complete runs under {runs_dir}: {listed}; "
                           "give one by its name, as the report names its rows")
    system = found[0]
    return SystemRef(system.name, [load_ref(run.run_dir) for run in system.runs], configuration=True)
