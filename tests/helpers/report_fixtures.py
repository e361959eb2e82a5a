"""Helpers for the report tests (no tests here): write run folders the way the trainer does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from mlparse.results import RUNNING, LogEntry, RunResults, SplitScores
from mlparse.run_lock import RunLock
from mlparse.tasks import dev_metric


#: The locks of the "running" runs written here, held by this process until it ends (as a training holds its own).
HELD_LOCKS: List[RunLock] = []


def log_lines(scores: List[float], metric: str = "f1", legacy: bool = False) -> List[str]:
    """``log.jsonl`` lines of a dev curve: ``dev_score`` and ``metric``, or (``legacy``) ``dev_f1`` alone,
    as files written before ``dev_score`` existed."""
    lines = []
    for i, score in enumerate(scores):
        data = LogEntry(step=100 * (i + 1), epoch=(i + 1) / 4, dev_score=score, lr=1e-3, metric=metric).to_json_dict()
        if legacy:
            del data["dev_score"], data["metric"]
            data["dev_f1"] = score
        lines.append(json.dumps(data))
    return lines


def write_run(runs: Path, recipe: str, run_id: str, *, dataset: str = "spmrl", language: str = "hebrew",
              status: str = "complete", system: str = "mlparse span", dev: Optional[Dict[str, Any]] = None,
              test: Optional[Dict[str, Any]] = None, log: Optional[List[float]] = None, legacy_log: bool = False,
              **fields: Any) -> Path:
    """A results.json (via the schema dataclass) and optionally a log.jsonl with the given dev curve (in the
    task's dev metric; ``legacy_log``: the older ``dev_f1`` lines)."""
    folder = runs / recipe / run_id
    folder.mkdir(parents=True, exist_ok=True)
    results = RunResults(status=status, recipe=recipe, run_id=run_id, system=system, dataset=dataset,
                         language=language, dev=SplitScores(**dev) if dev else None,
                         test=SplitScores(**test) if test else None, **fields)
    (folder / "results.json").write_text(json.dumps(results.to_json_dict()), encoding="utf-8")
    if status == RUNNING:  # a run that trains holds its lock (without a live holder it reads as interrupted)
        lock = RunLock(folder)
        lock.acquire()
        HELD_LOCKS.append(lock)
    if log:
        lines = log_lines(log, dev_metric(results.task), legacy=legacy_log)
        (folder / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def write_raw(runs: Path, recipe: str, run_id: str, text: str, name: str = "results.json") -> Path:
    folder = runs / recipe / run_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


SMALL_PUBLISHED_YAML = """\
papers:
  doe2020: {short: Doe 2020, authors: Jane Doe, year: 2020, title: A Parser, venue: ACL 2020}
tables:
  - id: doe2020-table2
    paper: doe2020
    table: 2
    caption: Test F1
    task: constituency
    split: test
    columns:
      - {dataset: spmrl, language: hebrew, metric: f1}
      - {dataset: spmrl, language: polish, metric: f1}
    rows:
      - {system: Old system, values: [90.0, 93.5]}
      - {system: Other, values: [89.5, null], notes: {hebrew: predicted tags}}
"""


#: The scorer names of depeval's two conventions, and the system name of the biaffine parser's runs.
CONLL18 = "depeval conll18-v1.2+depeval-1.0 (conll18)"
PTB = "depeval conll18-v1.2+depeval-1.0 (ptb)"
BIAFFINE = "mlparse biaffine (self-attentive, words + tags)"


def dependency_run(runs: Path, recipe: str, language: str, *, scorer: str = CONLL18, dataset: str = "ud",
                   dev=None, test=None, **fields):
    """A dependency run as the biaffine parser writes it (constituency fields null)."""
    return write_run(runs, recipe, "r1", task="dependency", model="biaffine", dataset=dataset, language=language,
                     system=fields.pop("system", BIAFFINE),
                     dev=dict(dev, scorer=scorer) if dev else None, test=dict(test, scorer=scorer) if test else None,
                     **fields)
