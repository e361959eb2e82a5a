"""Run directories ``runs/<recipe>/<run-id>/``: their layout (file names, paths), results.json and log.jsonl.

The trainer writes run directories through :class:`RunDir`; the report (:mod:`mlparse.run_index.collect`)
reads them by the same names.  A run directory holds::

    recipe.yaml          the resolved recipe
    results.json         the run's status and scores (:class:`mlparse.results.RunResults`)
    log.jsonl            one line per dev check (:data:`LOG_KEYS`)
    ensemble.yaml        ensembles only (instead of recipe.yaml and checkpoints): the members, the averaging
    fold.json            jack-knifed runs only: the fold left out (:mod:`mlparse.train.folds`)
    checkpoints/         last.pt, best.pt (:class:`CheckpointFiles`)
    <split>.pred.trees   predictions (.conllu for dependency runs), <split>.evalb / .depeval reports
    run.lock             held by the process that trains the run (:mod:`mlparse.run_lock`)
    profile.txt          ``mlparse run --profile N`` only: the profiler's summary (:mod:`mlparse.train.profiling`)
    external.json        external runs only (``mlparse score``): what was scored (:mod:`mlparse.compare.external`)
    analysis/            what ``mlparse analyze`` wrote: ``errors-<split>.json`` (read by the report), probes, heads

Environment facts recorded in results.json (hardware, versions, times) are in :mod:`mlparse.train.environment`.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List

from mlparse.config import RecipeConfig
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.results import RunResults


#: The files and folder of a run directory.
RECIPE_FILE = "recipe.yaml"
RESULTS_FILE = "results.json"
LOG_FILE = "log.jsonl"
CHECKPOINTS_DIR = "checkpoints"
ENSEMBLE_FILE = "ensemble.yaml"  # ensemble run directories: the members and the averaging (mlparse ensemble)
FOLD_FILE = "fold.json"  # jack-knifed runs: the fold left out (mlparse/train/folds.py)
LOCK_NAME = "run.lock"  # held by the process that trains the run (mlparse/run_lock.py)
PROFILE_FILE = "profile.txt"  # mlparse run --profile N (mlparse/train/profiling.py)
EXTERNAL_FILE = "external.json"  # external runs (mlparse score): the predictions and gold scored
ANALYSIS_DIR = "analysis"  # what mlparse analyze writes into a run directory
BEST_CHECKPOINT = "best.pt"  # in checkpoints/: the training state at the best dev check
LAST_CHECKPOINT = "last.pt"  # in checkpoints/: the training state after the latest dev check

#: The keys of a log.jsonl line (:class:`mlparse.results.LogEntry`): one dev check.
LOG_KEYS = ("step", "epoch", "dev_score", "metric", "lr", "train_loss", "elapsed_seconds", "best", "subbatch_tokens")


def run_id_for(config: RecipeConfig) -> str:
    """A run id derived from the resolved recipe: the same recipe (and overrides) resumes the same run."""
    return config.hash()[:12]


@dataclass(frozen=True)
class CheckpointFiles:
    """The checkpoints of one run, in ``folder``: ``last.pt`` (the full training state after the latest
    dev check) and ``best.pt`` (the same content, at the best dev check): either one can resume a run.
    The format of the files is :mod:`mlparse.train.checkpoint`'s."""

    folder: Path

    @property
    def best(self) -> Path:
        return self.folder / BEST_CHECKPOINT

    @property
    def last(self) -> Path:
        return self.folder / LAST_CHECKPOINT


@dataclass(frozen=True)
class RunDir:
    path: Path

    @classmethod
    def for_recipe(cls, runs_dir: Path, config: RecipeConfig) -> "RunDir":
        return cls(Path(runs_dir) / config.name / run_id_for(config))

    @property
    def recipe(self) -> Path:
        return self.path / RECIPE_FILE

    @property
    def results(self) -> Path:
        return self.path / RESULTS_FILE

    @property
    def log(self) -> Path:
        return self.path / LOG_FILE

    @property
    def fold(self) -> Path:
        """A jack-knifed run's fold assignment (:func:`mlparse.train.folds.fold_record`)."""
        return self.path / FOLD_FILE

    @property
    def checkpoints(self) -> CheckpointFiles:
        return CheckpointFiles(self.path / CHECKPOINTS_DIR)

    @property
    def best(self) -> Path:
        return self.checkpoints.best

    @property
    def last(self) -> Path:
        return self.checkpoints.last

    def pred(self, split: str, suffix: str = ".trees") -> Path:
        """The predictions on ``split``; ``suffix`` is the task's (``.trees``, ``.conllu``)."""
        return self.path / f"{split}.pred{suffix}"

    def gold(self, split: str, suffix: str = ".trees") -> Path:
        """An external run's gold file as scored, where ``mlparse score`` normalized the file it was given."""
        return self.path / f"{split}.gold{suffix}"

    def report(self, split: str, suffix: str = ".evalb") -> Path:
        """The scorer's report on ``split``: ``.evalb`` (constituency) or ``.depeval`` (dependency)."""
        return self.path / f"{split}{suffix}"

    def evalb(self, split: str) -> Path:
        return self.report(split, ".evalb")

    @property
    def analysis(self) -> Path:
        """The folder ``mlparse analyze`` writes into when no ``--output-dir`` is given."""
        return self.path / ANALYSIS_DIR

    def errors(self, split: str) -> Path:
        """The error breakdown of ``split`` that ``mlparse analyze errors RUN`` writes and the report plots."""
        return self.analysis / f"errors-{split}.json"

    @property
    def lock(self) -> Path:
        """The lock file held by the process that trains this run (:mod:`mlparse.run_lock`)."""
        return self.path / LOCK_NAME

    def remove_leftovers(self) -> int:
        """Delete the temporary files of writes that a killed run left half done (``.last.pt.*.tmp`` and the
        like: up to a checkpoint's size each); only under the run's lock.  Returns how many there were."""
        names = [p.name for p in (self.recipe, self.results, self.log, self.fold)] + [PROFILE_FILE] + [
            path.name for split in ("dev", "test") for path in (self.pred(split), self.pred(split, ".conllu"),
                                                                self.evalb(split), self.report(split, ".depeval"))]
        folders = {self.path: names, self.checkpoints.folder: [self.best.name, self.last.name]}
        removed = 0
        for folder, targets in folders.items():
            if not folder.is_dir():
                continue
            for entry in folder.iterdir():
                if entry.suffix == ".tmp" and any(entry.name.startswith(f".{name}.") for name in targets):
                    entry.unlink()
                    removed += 1
        return removed

    def clear(self) -> None:
        """Delete everything in the run directory but its lock file (``--fresh``, under the lock)."""
        for entry in self.path.iterdir():
            if entry.name == LOCK_NAME:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()

    # -- writing ---------------------------------------------------------------
    def write_results(self, results: RunResults) -> None:
        atomic_write_json(self.results, results.to_json_dict())

    def read_results(self) -> RunResults | None:
        if not self.results.is_file():
            return None
        try:
            return RunResults.from_json_dict(json.loads(self.results.read_text(encoding="utf-8")))
        except (ValueError, TypeError):
            return None

    def write_log(self, entries: List[Dict[str, Any]]) -> None:
        """Rewrite log.jsonl from the entries kept in the training state (so a resumed run never duplicates lines)."""
        known = LOG_KEYS
        lines = [json.dumps({k: v for k, v in e.items() if k in known}, ensure_ascii=False) for e in entries]
        atomic_write_text(self.log, "".join(line + "\n" for line in lines))

