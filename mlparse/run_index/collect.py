"""Find run folders and load their ``results.json`` / ``log.jsonl`` tolerantly.

Every run folder becomes a :class:`RunRecord` whatever shape it is in: complete,
still running, failed, written by an older mlparse, unreadable or invalid.  Problems
become ``warnings`` on the record (naming the file, and the line for ``log.jsonl``);
nothing raises.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import yaml

from mlparse.run_lock import held_by_a_live_process
from mlparse.results import (COMPLETE, FAILED, INTERRUPTED, RUNNING, SCHEMA_VERSION, LogEntry, RunResults, SplitScores,
                              normalize_model)
from mlparse.run_dir import LOG_FILE, RECIPE_FILE, RESULTS_FILE
from mlparse.tasks import dev_metric, find_task

#: The scoring convention of a dependency run whose scorer and recipe say nothing about it.
UNKNOWN_SCORING = "unknown"

#: States beyond the three written by the trainer.
UNREADABLE = "unreadable"  # not valid JSON, or not a JSON object, or unreadable bytes
NO_RESULTS = "no-results"  # log.jsonl without results.json (a run that has not written it yet)
UNKNOWN = "unknown"  # a status string this version does not know
KNOWN_STATES = (COMPLETE, RUNNING, FAILED, INTERRUPTED)

_STRING_FIELDS = ("mlparse_version", "status", "error", "recipe", "recipe_hash", "run_id", "task", "model",
                  "system", "dataset", "language", "started_at", "finished_at", "eval_tags", "averaging")
_NUMBER_FIELDS = ("parse_sentences_per_second", "training_seconds", "epochs")
_INT_FIELDS = ("schema_version", "best_step")
_DICT_FIELDS = ("hardware", "versions", "eval_tag_files", "gold", "input_tags", "budget")
_STRING_LIST_FIELDS = ("notes",)
_OBJECT_LIST_FIELDS = ("members",)  # an ensemble's members (RunResults.members)
_SPLIT_NUMBER_FIELDS = ("recall", "precision", "f1", "complete_match", "tagging_accuracy", "uas", "las", "clas")
_SPLIT_STRING_FIELDS = ("scorer",)
_SPLIT_INT_FIELDS = ("sentences", "error_sentences", "skip_sentences")


@dataclass
class RunRecord:
    """One run folder as found on disk."""

    run_dir: Path
    recipe: str
    run_id: str
    state: str  # complete | running | failed | unreadable | no-results | unknown
    results: Optional[RunResults] = None
    log: List[LogEntry] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)  # problems worth telling the user about
    notes: List[str] = field(default_factory=list)  # informational (older schema, defaults taken)
    modified: float = 0.0  # mtime of results.json (or log.jsonl), a fallback for ordering
    # dependency runs: the scoring convention (conll18 | ptb | unknown), from the scorer that results.json
    # records, else from the run's recipe.yaml (eval.dependency_scoring); None for other tasks
    scoring: Optional[str] = None
    # runs evalb scores (constituency, joint): the name of the evalb parameter file (COLLINS.prm, spmrl.prm) that
    # results.json's scorer names; None for other tasks and for runs whose results.json does not record it
    evalb_params: Optional[str] = None

    @property
    def label(self) -> str:
        return f"{self.recipe}/{self.run_id}"

    @property
    def error(self) -> Optional[str]:
        return self.results.error if self.results is not None else None

    def split(self, name: str) -> Optional[SplitScores]:
        if self.results is None:
            return None
        return self.results.dev if name == "dev" else self.results.test if name == "test" else None

    def sort_time(self) -> float:
        """When the run finished (or started), as a POSIX time; falls back to the file's mtime."""
        if self.results is not None:
            for stamp in (self.results.finished_at, self.results.started_at):
                parsed = _parse_time(stamp)
                if parsed is not None:
                    return parsed
        return self.modified


def _parse_time(stamp: Optional[str]) -> Optional[float]:
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _clean_fields(data: Dict[str, Any], where: str, problems: List[str],
                  strings: Tuple[str, ...], numbers: Tuple[str, ...], ints: Tuple[str, ...],
                  dicts: Tuple[str, ...] = (), string_lists: Tuple[str, ...] = (),
                  object_lists: Tuple[str, ...] = ()) -> Dict[str, Any]:
    """Drop values of the wrong type, saying so; keep the rest unchanged."""
    clean = dict(data)
    for name, value in data.items():
        if value is None:
            continue
        if name in strings and not isinstance(value, str):
            problems.append(f"{where}{name}: expected a string, got {value!r}; ignored")
        elif name in numbers and not _is_number(value):
            problems.append(f"{where}{name}: expected a number, got {value!r}; ignored")
        elif name in ints and not (_is_number(value) and float(value).is_integer()):
            problems.append(f"{where}{name}: expected an integer, got {value!r}; ignored")
        elif name in dicts and not isinstance(value, dict):
            problems.append(f"{where}{name}: expected an object, got {value!r}; ignored")
        elif name in string_lists and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            problems.append(f"{where}{name}: expected a list of strings, got {value!r}; ignored")
        elif name in object_lists and not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
            problems.append(f"{where}{name}: expected a list of objects, got {value!r}; ignored")
        else:
            if name in ints:
                clean[name] = int(value)
            continue
        del clean[name]
    return clean


def parse_results(data: Any, path: Path) -> Tuple[Optional[RunResults], List[str], List[str]]:
    """Validate a decoded ``results.json``; returns (results or None, warnings, notes)."""
    warnings: List[str] = []
    notes: List[str] = []
    if not isinstance(data, dict):
        warnings.append(f"{path}: expected a JSON object, found {type(data).__name__}")
        return None, warnings, notes
    data = normalize_model(data)  # an external run's {"kind": "external", "name": ...}
    known = {f.name for f in fields(RunResults)}
    unknown = sorted(set(data) - known)
    version = data.get("schema_version")
    if version is None:
        notes.append("no schema_version (written by an older mlparse); missing fields are left empty")
    elif _is_number(version) and version > SCHEMA_VERSION:
        warnings.append(f"{path}: schema_version {version} is newer than this mlparse reads ({SCHEMA_VERSION})")
    elif _is_number(version) and version < SCHEMA_VERSION:
        notes.append(f"schema_version {version} (older); missing fields are left empty")
    if unknown:
        notes.append(f"fields not known to this version, not shown: {', '.join(unknown)}")
    clean = _clean_fields({k: v for k, v in data.items() if k in known}, f"{path}: ", warnings,
                          _STRING_FIELDS, _NUMBER_FIELDS, _INT_FIELDS, _DICT_FIELDS, _STRING_LIST_FIELDS,
                          _OBJECT_LIST_FIELDS)
    for split in ("dev", "test"):
        value = clean.get(split)
        if value is None:
            continue
        if not isinstance(value, dict):
            warnings.append(f"{path}: {split}: expected an object of scores, got {value!r}; ignored")
            clean[split] = None
            continue
        split_known = {f.name for f in fields(SplitScores)}
        split_clean = _clean_fields({k: v for k, v in value.items() if k in split_known}, f"{path}: {split}.",
                                    warnings, _SPLIT_STRING_FIELDS, _SPLIT_NUMBER_FIELDS, _SPLIT_INT_FIELDS)
        clean[split] = split_clean
    if "schema_version" not in clean:
        clean["schema_version"] = 0  # unknown / older than versioning
    if "status" not in clean:
        # Older results files predate the status field; scores mean the run finished.
        has_scores = any(isinstance(clean.get(s), dict) and clean[s] for s in ("dev", "test"))
        clean["status"] = COMPLETE if has_scores else RUNNING
        notes.append(f"no status field; taken as {clean['status']!r}")
    return RunResults.from_json_dict(clean), warnings, notes


def read_log(path: Path) -> Tuple[List[LogEntry], List[str]]:
    """Read ``log.jsonl``; bad lines are skipped with a warning naming ``file:line``.

    A line's score is ``dev_score`` with its ``metric``, or in files written before those keys,
    ``dev_f1`` (metric ``f1``).  A ``dev_score`` line without a usable ``metric`` gets ``""``, which
    :func:`load_run` replaces by the dev metric of the run's task.
    """
    entries: List[LogEntry] = []
    warnings: List[str] = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return entries, [f"{path}: cannot read: {error}"]
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            last = number == len(lines) and not text.endswith("\n")
            reason = "incomplete last line (still being written?)" if last else f"invalid JSON ({error.msg})"
            warnings.append(f"{path}:{number}: {reason}; line skipped")
            continue
        if not isinstance(data, dict):
            warnings.append(f"{path}:{number}: expected a JSON object; line skipped")
            continue
        step = data.get("step")
        if "dev_score" in data:
            score, metric = data.get("dev_score"), data.get("metric")
            if metric is not None and not (isinstance(metric, str) and metric):
                warnings.append(f"{path}:{number}: metric: expected a name such as 'f1' or 'las', got {metric!r}; "
                                "taken as the task's")
            metric = metric if isinstance(metric, str) else ""
        else:
            score, metric = data.get("dev_f1"), "f1"  # written before dev_score and metric
        if not (_is_number(step) and _is_number(score)):
            warnings.append(f"{path}:{number}: needs numeric 'step' and 'dev_score' (or 'dev_f1' in older logs); "
                            "line skipped")
            continue
        epoch, lr = data.get("epoch"), data.get("lr")
        loss, elapsed = data.get("train_loss"), data.get("elapsed_seconds")
        entries.append(LogEntry(
            step=int(step),
            epoch=float(epoch) if _is_number(epoch) else math.nan,
            dev_score=float(score),
            lr=float(lr) if _is_number(lr) else math.nan,
            train_loss=float(loss) if _is_number(loss) else None,
            elapsed_seconds=float(elapsed) if _is_number(elapsed) else None,
            best=bool(data.get("best", False)),
            metric=metric,
            subbatch_tokens=_budgets(data.get("subbatch_tokens")),
        ))
    return entries, warnings


def _budgets(value: Any) -> Optional[Dict[str, int]]:
    """The ``subbatch_tokens`` of a log line, ``{"train": n, "eval": m}``; None when absent or not of that form."""
    if not isinstance(value, dict):
        return None
    budgets = {key: int(number) for key, number in value.items()
               if isinstance(key, str) and _is_number(number)}
    return budgets or None


def scoring_convention(scorer: Optional[str]) -> Optional[str]:
    """The convention a scorer string ends with: ``"depeval … (conll18)"`` → ``"conll18"``; None if none."""
    match = re.search(r"\(([^()\s]+)\)\s*$", scorer or "")
    return match.group(1) if match else None


def _recipe_scoring(run_dir: Path) -> Optional[str]:
    """``eval.dependency_scoring`` of the run's resolved recipe, when it can be read."""
    try:
        recipe = yaml.safe_load((run_dir / RECIPE_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    section = recipe.get("eval") if isinstance(recipe, dict) else None
    value = section.get("dependency_scoring") if isinstance(section, dict) else None
    return value if isinstance(value, str) and value else None


def _dependency_scoring(record: "RunRecord") -> str:
    """The scoring convention of a dependency run; a warning when its dev and test scorers disagree."""
    return _scorer_part(record, scoring_convention, "under different conventions") \
        or _recipe_scoring(record.run_dir) or UNKNOWN_SCORING


def evalb_params_of(scorer: Optional[str]) -> Optional[str]:
    """The parameter file an evalb scorer string names: ``"evalb spmrl.prm"`` → ``"spmrl.prm"``, also at the start of
    a joint run's ``"evalb COLLINS.prm + depeval …"``; None for any other scorer."""
    match = re.match(r"evalb (.+?)(?: \+ depeval\b.*)?$", (scorer or "").strip())
    return match.group(1).strip() if match else None


def _evalb_params(record: "RunRecord") -> Optional[str]:
    """The evalb parameter file of a run evalb scores; a warning when its dev and test were scored with different
    files (the test one is used); None when results.json names none (written before the scorer was recorded)."""
    return _scorer_part(record, evalb_params_of, "with different evalb parameter files")


def _scorer_part(record: "RunRecord", part_of: Callable[[Optional[str]], Optional[str]], differing: str) -> Optional[str]:
    """What ``part_of`` reads from the scorer string of the run's dev and test scores (a scoring convention, an evalb
    parameter file): the one value, or the test one with a warning when they differ; None when neither names one."""
    found = {split: part_of(scores.scorer) for split in ("dev", "test")
             for scores in [record.split(split)] if scores is not None and scores.scorer}
    named = sorted({value for value in found.values() if value})
    if len(named) > 1:
        record.warnings.append(f"{record.run_dir / RESULTS_FILE}: dev and test were scored {differing} "
                               f"({found['dev']} and {found['test']}); the test one is used")
        return found["test"]
    return named[0] if named else None


def load_run(run_dir: Path, runs_dir: Optional[Path] = None) -> RunRecord:
    """Load one run folder (``results.json`` and ``log.jsonl``, either may be missing)."""
    relative = run_dir.relative_to(runs_dir) if runs_dir is not None and run_dir != runs_dir else Path(run_dir.name)
    parts = relative.parts
    recipe = parts[0] if len(parts) >= 2 else (run_dir.parent.name or "?")
    run_id = "/".join(parts[1:]) if len(parts) >= 2 else run_dir.name
    record = RunRecord(run_dir=run_dir, recipe=recipe, run_id=run_id, state=NO_RESULTS)
    results_path = run_dir / RESULTS_FILE
    log_path = run_dir / LOG_FILE
    if log_path.is_file():
        record.log, log_warnings = read_log(log_path)
        record.warnings.extend(log_warnings)
        record.modified = log_path.stat().st_mtime
    if not results_path.is_file():
        record.warnings.append(f"{run_dir}: no {RESULTS_FILE} (run not started properly, or still starting)")
        return record
    record.modified = results_path.stat().st_mtime
    try:
        data = json.loads(results_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        record.state = UNREADABLE
        record.warnings.append(f"{results_path}:{error.lineno}:{error.colno}: invalid JSON ({error.msg})")
        return record
    except (OSError, UnicodeDecodeError) as error:
        record.state = UNREADABLE
        record.warnings.append(f"{results_path}: cannot read: {error}")
        return record
    results, warnings, notes = parse_results(data, results_path)
    record.warnings.extend(warnings)
    record.notes.extend(notes)
    if results is None:
        record.state = UNREADABLE
        return record
    record.results = results
    results.recipe = results.recipe or record.recipe
    results.run_id = results.run_id or record.run_id
    record.recipe, record.run_id = results.recipe, results.run_id
    if results.status in KNOWN_STATES:
        record.state = results.status
    else:
        record.state = UNKNOWN
        record.warnings.append(f"{results_path}: unknown status {results.status!r}")
    if record.state == RUNNING and not held_by_a_live_process(run_dir):  # killed, or its machine went down
        record.state = INTERRUPTED
        record.notes.append(f"{results_path} says running, but no live process holds its lock: interrupted (the "
                            "same mlparse run command resumes it)")
    if record.state == FAILED and not results.error:
        record.notes.append("failed without an error message")
    owner = find_task(results.task)
    if owner is not None and owner.has_dependency_convention:  # dependency and joint runs
        record.scoring = _dependency_scoring(record)
    if owner is not None and owner.scorer == "evalb":  # constituency and joint runs
        record.evalb_params = _evalb_params(record)
    task_metric = dev_metric(results.task)
    for entry in record.log:
        entry.metric = entry.metric or task_metric
    return record


def find_run_dirs(runs_dir: Path) -> List[Path]:
    """Folders under ``runs_dir`` holding ``results.json`` or ``log.jsonl``, sorted by path."""
    found = {path.parent for pattern in (RESULTS_FILE, LOG_FILE) for path in runs_dir.rglob(pattern)
             if path.is_file()}
    return sorted(found, key=lambda path: path.as_posix())


def collect_runs(runs_dir: Path) -> List[RunRecord]:
    """Every run under ``runs_dir`` (layout ``<recipe>/<run-id>/``), sorted by recipe then run id."""
    runs_dir = Path(runs_dir)
    records = [load_run(run_dir, runs_dir) for run_dir in find_run_dirs(runs_dir)]
    return sorted(records, key=lambda record: (record.recipe, record.run_id, record.run_dir.as_posix()))
