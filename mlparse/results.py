"""The ``results.json`` schema shared by the trainer (writer) and the report (reader).

A run directory ``runs/<recipe>/<run-id>/`` holds ``results.json`` (this
schema, written atomically when the run finishes or fails) and ``log.jsonl``
(one :class:`LogEntry` per dev evaluation, appended while training).  While a
run is in progress ``results.json`` exists with ``status == "running"``.

Bump :data:`SCHEMA_VERSION` when a field changes meaning; readers must accept
older versions and missing fields (the report shows what it can).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any, Dict, List, Optional

SCHEMA_VERSION = 1

#: Run states, in ``RunResults.status``.
RUNNING, COMPLETE, FAILED = "running", "complete", "failed"
#: A run whose process ended without finishing it (Ctrl-C, SIGTERM; or ``running`` in results.json with no live
#: holder of its lock, as the run index reads it): the same command resumes it.
INTERRUPTED = "interrupted"


#: What the report adds to the system name of a run trained with ``--until-converged`` that met its stopping rule
#: (``RunResults.convergence``, mlparse/train/convergence.py).
CONVERGED_LABEL = "trained to convergence"


@dataclass
class SplitScores:
    """Scores on one split (dev or test), from the evalb port (strict) or UAS/LAS."""

    recall: Optional[float] = None  # LR, percent
    precision: Optional[float] = None  # LP, percent
    f1: Optional[float] = None  # percent
    complete_match: Optional[float] = None  # percent of sentences
    tagging_accuracy: Optional[float] = None  # percent; only when tags are predicted
    uas: Optional[float] = None  # dependency runs: F1 of the CoNLL 2018 metrics (or the PTB convention's UAS/LAS)
    las: Optional[float] = None
    clas: Optional[float] = None  # CLAS, MLAS, BLEX: only over UD relations (RunResults.dependency_scoring says why not)
    mlas: Optional[float] = None
    blex: Optional[float] = None
    scorer: Optional[str] = None  # e.g. "evalb COLLINS.prm", "depeval conll18-v1.2+depeval-1.0 (conll18)"
    sentences: int = 0
    error_sentences: int = 0
    skip_sentences: int = 0


@dataclass
class RunResults:
    """Everything a finished (or failed, or running) run reports."""

    schema_version: int = SCHEMA_VERSION
    mlparse_version: str = ""
    status: str = RUNNING  # running | complete | failed
    error: Optional[str] = None  # message when status == failed
    recipe: str = ""  # recipe name, e.g. "hebrew"
    recipe_hash: str = ""  # sha256 of the resolved recipe
    run_id: str = ""
    task: str = "constituency"  # constituency | dependency | joint (both: F1 and UAS/LAS)
    model: str = "span"  # span | label-attention | biaffine
    system: str = ""  # display name, e.g. "mlparse span (CharLSTM)"
    dataset: str = ""  # treebank family and set, e.g. "ptb", "ptb-sample", "spmrl", "free"
    language: str = ""  # e.g. "english", "hebrew"
    dev: Optional[SplitScores] = None
    test: Optional[SplitScores] = None
    parse_sentences_per_second: Optional[float] = None  # dev + test with the best checkpoint, after an untimed warm-up
    training_seconds: Optional[float] = None
    epochs: Optional[float] = None
    best_step: Optional[int] = None
    stop_reason: Optional[str] = None  # why training ended: max_epochs | max_updates | patience | max_minutes
    # POS tags the model got as input on dev and test (models with model.use_tags): gold | predicted;
    # None for models without tag input, and in files written before it was recorded
    eval_tags: Optional[str] = None
    eval_tag_files: Dict[str, str] = field(default_factory=dict)  # split -> tag file, when predicted
    # the POS tags the parser read (models with model.use_tags): {"source": gold | jackknife | files, "folds": k
    # (jackknife), "accuracy": {"train": %, "dev": %, "test": %} (predicted tags against the data's), "folder": the
    # tagged files (jackknife)}; None for models without tag input and in files written before it was recorded
    input_tags: Optional[Dict[str, Any]] = None
    hardware: Dict[str, Any] = field(default_factory=dict)  # device, gpu name, cpu count
    versions: Dict[str, str] = field(default_factory=dict)  # python, torch, mlparse
    started_at: Optional[str] = None  # ISO 8601
    finished_at: Optional[str] = None
    notes: List[str] = field(default_factory=list)  # what the user should know, e.g. training trees left out on purpose
    # ensembles (mlparse ensemble): one MemberSummary dict per member (run directory, run id, recipe, system,
    # dev/test scores), and how distributions were averaged; empty / None for a single run
    members: List[Dict[str, Any]] = field(default_factory=list)
    averaging: Optional[str] = None
    # dependency and joint runs: how UAS/LAS were counted (convention; PTB: punct_tags, punct_column,
    # punct_source) and whether CLAS/MLAS/BLEX mean something (ud_relations, content_metrics, absent_reason);
    # mlparse.tasks.dependency_protocol.DependencyProtocol; None for other runs and in older files
    dependency_scoring: Optional[Dict[str, Any]] = None
    # split -> {"path", "sha256"} of the gold file the predictions were scored on, checked by `mlparse compare`, the
    # report's marks and `mlparse analyze errors` (gold_checksum); a task that reads several files for a split (joint:
    # .trees and .conllu) adds "files": [{"path", "sha256"}, ...] for all of them.  Written by every run (trained,
    # ensemble, external); empty in trained and ensemble runs made before it was recorded
    gold: Dict[str, Any] = field(default_factory=dict)
    # the rule and counts of a dev split carved from train by `mlparse prepare ud` (manifest ud.dev_carved); None
    # where the data has its own dev split
    dev_carved: Optional[Dict[str, Any]] = None
    # UD runs: {split: {"sentences": n, "words": w}} of the prepared splits (the report's CoNLL 2018 size groups)
    data_sizes: Dict[str, Dict[str, int]] = field(default_factory=dict)
    # jack-knifing runs: how the run's time budget was split between its taggers and its parser
    # (mlparse.train.run_budget.BudgetSplit.record: minutes in all, taggers, side_by_side, tagger_minutes,
    # parser_minutes, tagger_phase_minutes); None for other runs and in older files
    budget: Optional[Dict[str, Any]] = None
    # the training-time bound in minutes (--max-minutes, else train.max_minutes) the run trained under: the last
    # one given, or a larger one the run had already trained under before it was resumed; None: none (or older
    # files).  A reused jack-knifing tagger shows the bound it actually had (mlparse.train.jackknife)
    max_minutes: Optional[float] = None
    # runs of another toolkit's parser (model.kind: external, mlparse/external/): the system, the version the recipe
    # names and the one installed, its Python, its folder and log in the run directory, its training attempts and
    # whether the budget stopped it; None for mlparse's own parsers
    external: Optional[Dict[str, Any]] = None
    # what the budget's clock measured, the same fields for every system (mlparse.budget_rule.ClockRecord)
    clock: Optional[Dict[str, Any]] = None
    # runs trained with --until-converged (mlparse/train/convergence.py): the stopping rule, whether it was met,
    # epochs and hours; None for budget runs and in older files
    convergence: Optional[Dict[str, Any]] = None

    def to_json_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def record_dependency_scoring(self, protocol: Optional[Dict[str, Any]]) -> None:
        """Keep the dependency scoring record of a scored split (dev, then test); a split whose relations are
        not UD's wins, so that the record explains every absent CLAS/MLAS/BLEX."""
        if protocol is None:
            return
        if self.dependency_scoring is None or not protocol.get("ud_relations", True):
            self.dependency_scoring = dict(protocol)
        if protocol.get("punct_source") == "default (PTB)":
            note = (f"PTB scoring left out the PTB punctuation tags ({' '.join(protocol.get('punct_tags') or [])} in "
                    f"{(protocol.get('punct_column') or 'xpos').upper()}): the treebank catalog names no punctuation "
                    f"for {self.dataset}/{self.language}; set eval.punct_tags (and eval.punct_column) if its "
                    "punctuation is tagged otherwise (CTB: PU)")
            if note not in self.notes:
                self.notes.append(note)

    @classmethod
    def from_json_dict(cls, data: Dict[str, Any]) -> "RunResults":
        """Tolerant load: unknown keys are ignored, missing ones take defaults."""
        known = {f for f in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in normalize_model(data).items() if k in known}
        if not isinstance(kwargs.get("gold", {}), dict):
            kwargs["gold"] = {}
        for split in ("dev", "test"):
            value = kwargs.get(split)
            if isinstance(value, dict):
                split_known = set(SplitScores.__dataclass_fields__)
                kwargs[split] = SplitScores(**{k: v for k, v in value.items() if k in split_known})
            elif value is not None:
                kwargs[split] = None
        if not isinstance(kwargs.get("input_tags"), (dict, type(None))):
            kwargs["input_tags"] = None
        if not isinstance(kwargs.get("eval_tag_files", {}), dict):
            kwargs["eval_tag_files"] = {}
        if not isinstance(kwargs.get("data_sizes", {}), dict):
            kwargs["data_sizes"] = {}
        if not isinstance(kwargs.get("dev_carved"), (dict, type(None))):
            kwargs["dev_carved"] = None
        if not isinstance(kwargs.get("members", []), list):
            kwargs["members"] = []
        kwargs["members"] = [m for m in kwargs.get("members", []) if isinstance(m, dict)]
        if not isinstance(kwargs.get("dependency_scoring"), (dict, type(None))):
            kwargs["dependency_scoring"] = None
        if not isinstance(kwargs.get("budget"), (dict, type(None))):
            kwargs["budget"] = None
        if not isinstance(kwargs.get("external"), (dict, type(None))):
            kwargs["external"] = None
        if "notes" in kwargs:
            notes = kwargs["notes"]
            kwargs["notes"] = [note for note in notes if isinstance(note, str)] if isinstance(notes, list) else []
        return cls(**kwargs)


def gold_checksum(gold: Dict[str, Any], split: str, name: str) -> Optional[str]:
    """The sha256 that a run's ``gold`` record (:attr:`RunResults.gold`) holds for its ``split`` file named ``name``
    (``test.trees``: the file name, so that data moved to another folder still matches); None when the run recorded
    none (runs made before mlparse recorded it) or the record cannot be read."""
    entry = gold.get(split) if isinstance(gold, dict) else None
    if not isinstance(entry, dict):
        return None
    files = entry.get("files") if isinstance(entry.get("files"), list) else [entry]
    for item in files:
        if isinstance(item, dict) and isinstance(item.get("path"), str) and isinstance(item.get("sha256"), str):
            if PurePath(item["path"]).name == name:
                return item["sha256"]
    return None


def normalize_model(data: Dict[str, Any]) -> Dict[str, Any]:
    """An external run writes ``"model": {"kind": "external", "name": NAME}`` (``mlparse score``): read as model
    ``external`` and, when no system is named, system NAME.  Other files are returned as they are."""
    model = data.get("model")
    if not isinstance(model, dict):
        return data
    out = dict(data)
    out["model"] = str(model.get("kind", ""))
    if not out.get("system") and isinstance(model.get("name"), str):
        out["system"] = model["name"]
    return out


@dataclass
class MemberSummary:
    """One member of an ensemble, as its ``results.json`` names it (``RunResults.members``)."""

    run_dir: str
    run_id: str
    recipe: str
    recipe_hash: str
    system: str
    dev: Optional[SplitScores] = None
    test: Optional[SplitScores] = None

    def to_json_dict(self) -> Dict[str, Any]:
        return asdict(self)




@dataclass
class LogEntry:
    """One line of ``log.jsonl``: a dev evaluation during training.

    Lines carry ``dev_score`` and ``metric`` (``"f1"`` for constituency runs, ``"las"`` for dependency
    runs).  Files written before that carry ``dev_f1`` alone: readers take it as ``dev_score`` with
    metric ``f1`` (:func:`mlparse.run_index.collect.read_log`).  ``dev_f1`` stays a field so that such
    lines, and writers that still produce them, keep their score; it is never the place to read a
    score from.
    """

    step: int  # optimizer updates so far
    epoch: float  # fractional epoch
    dev_score: float  # the task's dev metric (``metric``), percent
    lr: float
    train_loss: Optional[float] = None
    elapsed_seconds: Optional[float] = None
    best: bool = False  # this evaluation produced the new best checkpoint
    metric: str = "f1"  # f1 | las (the metric of the run's task: mlparse.tasks.dev_metric)
    dev_f1: Optional[float] = None  # older lines only: the dev F1, read as dev_score with metric f1
    subbatch_tokens: Optional[Dict[str, int]] = None  # the budgets used, {"train": …, "eval": …} (lines since subbatch_tokens: auto)

    def to_json_dict(self) -> Dict[str, Any]:
        """The line as written from now on (no ``dev_f1``)."""
        data = asdict(self)
        del data["dev_f1"]
        return data
