"""``mlparse.load`` of an ensemble's run directory (``mlparse ensemble``): its members loaded and averaged.

An ensemble run directory holds ``ensemble.yaml`` (the members' run directories and the averaging) and
``results.json``; its members are ordinary finished runs, each loaded as :func:`mlparse.package.load_package`
loads a run directory, then put into one :class:`~mlparse.models.ensemble.EnsembleParser` on the device.
A member's run directory is looked for where ``ensemble.yaml`` recorded it: its absolute path, then the
path as written (relative to the working directory of ``mlparse ensemble``), then that path relative to
the runs folder that holds the ensemble (``RUNS/<name>/<id>``: two levels up) and to the folder above it,
then the member's ``<name>/<id>`` in that runs folder: a runs folder moved or copied as a whole still loads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import yaml

from mlparse.package import DEFAULT_PARSE_BUDGET, NotAModel, PackageError, PackageInfo, load_package
from mlparse.run_dir import ENSEMBLE_FILE


def is_ensemble_dir(folder: Path) -> bool:
    """Is ``folder`` an ensemble's run directory (it has ``ensemble.yaml``)?"""
    return (folder / ENSEMBLE_FILE).is_file()


def read_definition(folder: Path) -> Dict[str, Any]:
    """``ensemble.yaml`` of ``folder``, checked: a mapping with a non-empty ``members`` list."""
    path = folder / ENSEMBLE_FILE
    try:
        definition = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise NotAModel(f"{path}: cannot read the ensemble's definition: {str(error).splitlines()[0]}") from None
    members = definition.get("members") if isinstance(definition, dict) else None
    if not isinstance(members, list) or not members or not all(isinstance(m, dict) and m.get("run_dir") for m in members):
        raise NotAModel(f"{path}: not an ensemble definition (no list of members with their run_dir)")
    return definition


def member_folder(entry: Dict[str, Any], ensemble: Path) -> Path:
    """Where member ``entry`` of the ensemble in ``ensemble`` is (see the module docstring)."""
    written = Path(str(entry["run_dir"]))
    candidates: List[Path] = []
    if entry.get("path"):
        candidates.append(Path(str(entry["path"])))
    candidates.append(written)
    folder = ensemble.resolve()
    if not written.is_absolute():
        candidates += [folder.parents[k] / written for k in (1, 2) if k < len(folder.parents)]
    if len(written.parts) >= 2 and len(folder.parents) > 1:  # RUNS/<name>/<id> beside the ensemble's
        candidates.append(folder.parents[1] / written.parts[-2] / written.parts[-1])
    for candidate in candidates:
        if (candidate / "checkpoints").is_dir() and _run_id(candidate) in (None, entry.get("run_id")):
            return candidate
    raise PackageError(f"{ensemble}: member {written} not found (looked in {', '.join(str(c) for c in candidates)}); "
                       "the members' run directories must stay where mlparse ensemble found them, or move with the "
                       "runs folder")


def _run_id(folder: Path) -> Optional[str]:
    """The run id ``results.json`` of ``folder`` records (None: none readable); a candidate whose id differs
    from the member's is another run, not the member moved."""
    try:
        value = json.loads((folder / "results.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None
    return str(value) if value else None


def load_ensemble(folder: Path, device: Any = None) -> Tuple[Any, PackageInfo]:
    """The :class:`~mlparse.models.ensemble.EnsembleParser` of the ensemble run directory ``folder`` (eval mode,
    on ``device``) and its description (the first member's dataset and language; the members' smallest parse
    budget)."""
    from mlparse.models.ensemble import AVERAGING_MODES, EnsembleError, EnsembleParser

    definition = read_definition(folder)
    average = str(definition.get("average", "probability"))
    if average not in AVERAGING_MODES:
        raise NotAModel(f"{folder / ENSEMBLE_FILE}: unknown averaging {average!r} (one of {', '.join(AVERAGING_MODES)})")
    members, names, infos = [], [], []
    for entry in definition["members"]:
        where = member_folder(entry, folder)
        parser, info = load_package(where, device)
        members.append(parser)
        names.append(str(entry["run_dir"]))
        infos.append(info)
    try:
        ensemble = EnsembleParser(members, names, mode=average, union=bool(definition.get("union_of_labels", False)))
    except EnsembleError as error:
        raise PackageError(f"{folder}: {error}") from None
    first = infos[0]
    info = PackageInfo(kind=ensemble.kind, task=ensemble.task, dataset=first.dataset, language=first.language,
                       recipe=str(definition.get("name", "")), run_id=folder.name,
                       system=f"ensemble of {len(members)}: {first.system or first.kind}",
                       parse_budget=_smallest_budget(infos))
    return ensemble.eval(), info


def _smallest_budget(infos: List[PackageInfo]) -> int:
    """The members' smallest parse budget (each member's whole batch is held until the scores are averaged;
    the ensemble's cost model adds the members' costs up)."""
    budgets: List[Optional[int]] = [info.parse_budget for info in infos]
    chosen = [b for b in budgets if isinstance(b, int) and b > 0]
    return min(chosen) if chosen else DEFAULT_PARSE_BUDGET
