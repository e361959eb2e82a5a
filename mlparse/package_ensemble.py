"""Ensembles (``mlparse ensemble``) as models: loaded from their run directory or package, exported as one package.

The loader and exporter of single parsers (:mod:`mlparse.package`) are handed in (``load_member``,
``export_member``), since an ensemble's members are loaded and exported as ordinary packages and
:mod:`mlparse.package` hands an ensemble's folder to this module.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import yaml

from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.package_info import (CARD_FILE, DEFAULT_PARSE_BUDGET, INFO_FILE, NotAModel, PackageError, PackageInfo,
                                  model_card, read_info, scores_of)
from mlparse.run_dir import ENSEMBLE_FILE, RunDir

# An ensemble run directory holds ``ensemble.yaml`` (the members' run directories and the averaging) and
# ``results.json``; its members are ordinary finished runs, each loaded as :func:`mlparse.package.load_package`
# loads a run directory, then put into one :class:`~mlparse.models.ensemble.EnsembleParser` on the device.
# A member's run directory is looked for where ``ensemble.yaml`` recorded it: its absolute path, then the
# path as written (relative to the working directory of ``mlparse ensemble``), then that path relative to
# the runs folder that holds the ensemble (``RUNS/<name>/<id>``: two levels up) and to the folder above it,
# then the member's ``<name>/<id>`` in that runs folder: a runs folder moved or copied as a whole still
# loads.  A candidate whose ``results.json`` names another run id is not the member.
#
# ``mlparse export ENSEMBLE_RUN_DIR OUT`` (:func:`export_ensemble`) writes one package: ``package.json`` of
# kind ``ensemble``, ``ensemble.yaml`` (the averaging and each member's package folder), and each member as an
# ordinary package under ``members/<k>/``; ``mlparse.load(OUT)`` loads it without the run directories.

#: Where an ensemble package keeps its members, one package each (``members/0``, ``members/1``, ...).
MEMBERS_DIR = "members"


def is_ensemble_dir(folder: Path) -> bool:
    """Is ``folder`` an ensemble's run directory or package (it has ``ensemble.yaml``)?"""
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
        if RunDir(candidate).checkpoints.folder.is_dir() and _run_id(candidate) in (None, entry.get("run_id")):
            return candidate
    raise PackageError(f"{ensemble}: member {written} not found (looked in {', '.join(str(c) for c in candidates)}); "
                       "the members' run directories must stay where mlparse ensemble found them, or move with the "
                       "runs folder")


def _run_id(folder: Path) -> Optional[str]:
    """The run id ``results.json`` of ``folder`` records (None: none readable); a candidate whose id differs
    from the member's is another run, not the member moved."""
    try:
        value = json.loads(RunDir(folder).results.read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None
    return str(value) if value else None


def is_ensemble_package(folder: Path) -> bool:
    """Is ``folder`` a package written by :func:`export_ensemble`?"""
    return (folder / INFO_FILE).is_file() and (folder / ENSEMBLE_FILE).is_file() and (folder / MEMBERS_DIR).is_dir()


def load_ensemble(folder: Path, load_member: Callable[..., Tuple[Any, PackageInfo]], device: Any = None,
                  trust: bool = False, warn: Any = None) -> Tuple[Any, PackageInfo]:
    """The :class:`~mlparse.models.ensemble.EnsembleParser` of the ensemble run directory or ensemble package
    ``folder`` (eval mode, on ``device``) and its description (a package's own; for a run directory the first
    member's dataset and language and the members' smallest parse budget). ``load_member``: the loader of one
    member (:func:`mlparse.package.load_package`)."""
    from mlparse.models.ensemble import AVERAGING_MODES, EnsembleError, EnsembleParser

    definition = read_definition(folder)
    average = str(definition.get("average", "probability"))
    if average not in AVERAGING_MODES:
        raise NotAModel(f"{folder / ENSEMBLE_FILE}: unknown averaging {average!r} (one of {', '.join(AVERAGING_MODES)})")
    packaged = is_ensemble_package(folder)
    members, names, infos = [], [], []
    for entry in definition["members"]:
        where = folder / str(entry["package"]) if packaged and entry.get("package") else member_folder(entry, folder)
        parser, info = load_member(where, device, trust=trust, warn=warn, quantize=False)  # the whole ensemble, later
        members.append(parser)
        names.append(str(entry["run_dir"]))
        infos.append(info)
    try:
        ensemble = EnsembleParser(members, names, mode=average, union=bool(definition.get("union_of_labels", False)))
    except EnsembleError as error:
        raise PackageError(f"{folder}: {error}") from None
    if packaged:
        info = read_info(folder)
    else:
        first = infos[0]
        info = PackageInfo(kind=ensemble.kind, task=ensemble.task, dataset=first.dataset, language=first.language,
                           recipe=str(definition.get("name", "")), run_id=folder.name,
                           system=f"ensemble of {len(members)}: {first.system or first.kind}",
                           parse_budget=_smallest_budget(infos))
    return ensemble.eval(), info


def export_ensemble(run: Path, out: Path, export_member: Callable[[Path, Path], PackageInfo],
                    quantization: str = "") -> PackageInfo:
    """Write the package of the ensemble run directory ``run`` to ``out`` (see the module docstring): every
    member exported as a package of its own under ``members/<k>/``, the whole written beside ``out`` and
    renamed into place, so that a failure leaves no half package. ``export_member``: the exporter of one member
    (:func:`mlparse.package.export_package`)."""
    from mlparse.results import RunResults
    from mlparse.tasks import dev_metric
    from mlparse.train.environment import now_iso

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise PackageError(f"{out} already exists; give a new folder (or remove it first)")
    definition = read_definition(run)
    results = RunResults()
    if RunDir(run).results.is_file():
        try:
            results = RunResults.from_json_dict(json.loads(RunDir(run).results.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as error:
            raise PackageError(f"{RunDir(run).results}: not readable as results ({error})") from None
    sources = [member_folder(entry, run) for entry in definition["members"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    temporary.mkdir()
    try:
        infos = [export_member(source, temporary / MEMBERS_DIR / str(k)) for k, source in enumerate(sources)]
        first = infos[0]
        packaged = {**definition, "members": [
            {**{key: entry[key] for key in ("run_dir", "recipe", "run_id") if key in entry},
             "package": f"{MEMBERS_DIR}/{k}"} for k, entry in enumerate(definition["members"])]}
        info = PackageInfo(
            kind="ensemble", task=first.task, dataset=first.dataset, language=first.language,
            recipe=str(definition.get("name", "")), run_id=results.run_id or run.name,
            system=results.system or f"ensemble of {len(infos)}", metric=dev_metric(first.task, ""),
            dev=scores_of(results.dev), test=scores_of(results.test), parse_budget=_smallest_budget(infos),
            exported_at=now_iso(), quantization=quantization)
        atomic_write_text(temporary / ENSEMBLE_FILE, yaml.safe_dump(packaged, sort_keys=False, allow_unicode=True))
        atomic_write_json(temporary / INFO_FILE, asdict(info))
        atomic_write_text(temporary / CARD_FILE, model_card(info, members=len(infos),
                                                          average=str(definition.get("average", "probability"))))
        if out.is_dir():
            out.rmdir()  # empty (checked above)
        os.rename(temporary, out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return info


def _smallest_budget(infos: List[PackageInfo]) -> int:
    """The members' smallest parse budget (each member's whole batch is held until the scores are averaged;
    the ensemble's cost model adds the members' costs up)."""
    budgets: List[Optional[int]] = [info.parse_budget for info in infos]
    chosen = [b for b in budgets if isinstance(b, int) and b > 0]
    return min(chosen) if chosen else DEFAULT_PARSE_BUDGET
