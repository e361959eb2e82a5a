"""What a breakdown reads from a run directory: its predictions, the gold file, the scoring convention.

Any run directory with ``results.json`` and ``<split>.pred.trees`` (or ``.pred.conllu``) will do, a
trained run or an external one (``mlparse score``): the breakdown needs no model.  The gold file is,
in this order, the one given on the command line, the recipe's prepared split (``recipe.yaml``; as
``mlparse compare`` reads it), or the one ``results.json`` records (``gold``: a path or
``{"path": …, "sha256": …}``, top level or per split: external runs).  When ``results.json`` records the gold file's sha256, the file found must have it, unless the
user asks to re-score against the file as it is now (:mod:`mlparse.compare.gold`); a run that records none is read
with a note that its gold cannot be checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from depeval import PTB_PUNCT_TAGS

from mlparse.compare.gold import GoldStatus
from mlparse.compare.runs import sha256_of
from mlparse.results import gold_checksum
from mlparse.run_dir import RECIPE_FILE, RESULTS_FILE, RunDir
from mlparse.tasks import find_task, task_class


class InputError(ValueError):
    """A run directory that cannot be analysed (the message names the file)."""


@dataclass
class RunInputs:
    """One run's side of a breakdown."""

    run: Path
    system: str
    task: str  # constituency | dependency
    pred: Path
    gold: Path
    evalb_params: str  # constituency: the parameter file (name shipped with evalb, or a path)
    ptb_punct: Optional[str]  # dependency: the punctuation column under the PTB convention, None for CoNLL 2018
    punct_tags: Tuple[str, ...] = PTB_PUNCT_TAGS  # dependency, PTB convention: the tags left out
    notes: Tuple[str, ...] = ()  # what the user should know: gold that cannot be checked, or was re-scored




def _read_results(run: Path) -> Dict[str, Any]:
    path = run / RESULTS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{run}: no {RESULTS_FILE} (not a run directory written by mlparse run or mlparse score)") from None
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: cannot read it ({error})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a results object")
    return data


def _recorded_gold(data: Dict[str, Any], split: str) -> tuple:
    """(path or None, sha256 or None) that results.json records for ``split``."""
    places = []
    split_scores = data.get(split)
    if isinstance(split_scores, dict):
        places += [split_scores.get("gold"), split_scores.get("gold_file")]
    recorded = data.get("gold")
    if isinstance(recorded, dict) and isinstance(recorded.get(split), dict):  # mlparse score: split -> {path, sha256}
        places.append(recorded[split])
    places += [recorded, data.get("gold_file")]
    sha = data.get("gold_sha256") if isinstance(data.get("gold_sha256"), str) else None
    for place in places:
        if isinstance(place, str) and place:
            return place, sha
        if isinstance(place, dict):
            path = place.get("path") or place.get("file")
            if isinstance(path, str) and path:
                return path, place.get("sha256") if isinstance(place.get("sha256"), str) else sha
    return None, sha


def _task(data: Dict[str, Any], run: Path, split: str, wanted: Optional[str]) -> str:
    task = wanted or data.get("task") or ""
    owner = find_task(task)
    if owner is not None:  # a joint run is scored as two tasks: its trees unless asked otherwise
        task = owner.views()[0]
    task_type = find_task(task)
    if task_type is None or not task_type.compared:
        has_trees = RunDir(run).pred(split).is_file()
        task = "constituency" if has_trees else "dependency"
    return task


def _system(data: Dict[str, Any], run: Path) -> str:
    model = data.get("model")
    if isinstance(model, dict) and model.get("name"):
        return str(model["name"])
    system = data.get("system") or data.get("recipe") or run.name
    run_id = data.get("run_id")
    return f"{system} [{run_id}]" if run_id else str(system)


def run_inputs(run: Path, split: str = "test", *, gold: Optional[Path] = None, task: Optional[str] = None,
               evalb_params: Optional[str] = None, rescore: bool = False) -> RunInputs:
    """Everything a breakdown of ``run`` on ``split`` reads (see the module text); :class:`InputError` otherwise."""
    if not run.is_dir():
        raise InputError(f"{run}: not a run directory")
    data = _read_results(run)
    kind = _task(data, run, split, task)
    suffix = task_class(kind).suffix
    pred = RunDir(run).pred(split, suffix)
    if not pred.is_file():
        raise InputError(f"{run}: no predictions {pred.name} (a run writes them when it finishes)")
    config = _recipe(run)
    recorded, sha = _recorded_gold(data, split)
    if gold is None and recorded and config is None:  # an external run; a trained run's gold is its recipe's split
        gold = Path(recorded)
    if gold is None and config is not None:
        gold = config.data.split_path(split, suffix)
    if gold is None:
        raise InputError(f"{run}: neither results.json nor recipe.yaml names the gold file of {split}: give --gold")
    if not gold.is_file():
        raise InputError(f"{run}: the gold file {gold} is not there (give --gold)")
    recorded_sha = gold_checksum(data.get("gold") or {}, split, gold.name) or sha
    status = GoldStatus(str(run), split, gold, sha256_of(gold), recorded_sha, rescore)
    refusal = status.refusal()
    if refusal is not None:
        raise InputError(refusal)
    params = evalb_params or _params(data, config)
    ptb, tags = _punctuation(data, config, split)
    notes = tuple(note for note in [status.note()] if note)
    return RunInputs(run, _system(data, run), kind, pred, gold, params, ptb, tags, notes)


def _punctuation(data: Dict[str, Any], config, split: str) -> Tuple[Optional[str], Tuple[str, ...]]:  # type: ignore[no-untyped-def]
    """(column, tags) of the punctuation the run's UAS/LAS left out, or (None, …) under CoNLL 2018: as
    results.json's ``dependency_scoring`` records it, else as the recipe resolves it, else PTB's tags in XPOS."""
    recorded = data.get("dependency_scoring")
    if isinstance(recorded, dict) and recorded.get("convention") in ("ptb", "conll18"):
        if recorded["convention"] == "conll18":
            return None, PTB_PUNCT_TAGS
        tags = recorded.get("punct_tags")
        return (str(recorded.get("punct_column") or "xpos"),
                tuple(str(t) for t in tags) if isinstance(tags, list) and tags else PTB_PUNCT_TAGS)
    scorer = str((data.get(split) or {}).get("scorer") or "") if isinstance(data.get(split), dict) else ""
    if not (scorer.endswith("(ptb)") or (config is not None and not scorer and config.eval.dependency_scoring == "ptb")):
        return None, PTB_PUNCT_TAGS
    if config is not None:
        from mlparse.tasks.dependency_protocol import resolve_punctuation

        punctuation = resolve_punctuation(config)
        return punctuation.column, tuple(punctuation.tags)
    return "xpos", PTB_PUNCT_TAGS


def _recipe(run: Path):  # type: ignore[no-untyped-def]
    path = run / RECIPE_FILE
    if not path.is_file():
        return None
    from mlparse.config import ConfigError, recipe_from_yaml_text

    try:
        return recipe_from_yaml_text(path.read_text(encoding="utf-8"), source=str(path))
    except (ConfigError, OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: {error}") from None


def _params(data: Dict[str, Any], config) -> str:  # type: ignore[no-untyped-def]
    if config is not None:
        return config.data.evalb_params
    recorded = data.get("evalb_params")
    if isinstance(recorded, str) and recorded:
        return recorded
    for split in ("test", "dev"):
        scores = data.get(split)
        scorer = scores.get("scorer") if isinstance(scores, dict) else None
        if isinstance(scorer, str) and scorer.startswith("evalb "):
            return scorer.split(" ", 1)[1].split(" + ")[0].strip()
    return "COLLINS.prm"
