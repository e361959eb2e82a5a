"""A run's data: the prepared split files made sure of, and read and checked before any training.

:func:`ensure_prepared` prepares a catalog family's splits when they are missing (or half-written by an
interrupted ``mlparse prepare``); :func:`load_splits` reads train, dev and test as the run's task reads them,
with the training sentences a recipe leaves out counted in the run's notes (never dropped silently);
:func:`check_lengths` names the file and line of the first sentence longer than the parser takes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

from mlparse.config import RecipeConfig
from mlparse.run_dir import FOLD_FILE
from mlparse.tasks import DataError, Task
from mlparse.train.folds import training_indices
from mlparse.train.run_plan import RunError

#: Families that ``mlparse demo`` prepares (the WSJ sample, or a synthetic treebank without it).
DEMO_FAMILIES = ("ptb-sample", "synthetic")


def ensure_prepared(config: RecipeConfig) -> None:
    """Prepare the data set when a split file is missing and the family is in the catalog."""
    missing = [s for s in ("train", "dev", "test") if not config.split_path(s).is_file()]
    if not missing and _complete_preparation(config):
        return
    problem = f"prepared data not found ({config.split_path(missing[0])})" if missing else ""
    if not missing:  # split files without manifest.json: a `mlparse prepare` stopped while renaming its files
        missing = ["train", "dev", "test"]
        problem = (f"{config.split_path('train').parent} has split files but no manifest.json "
                   "(an interrupted `mlparse prepare`?)")
    if any(getattr(config.data, s) for s in missing):
        raise RunError(f"split file(s) not found: {', '.join(str(config.split_path(s)) for s in missing)}")
    from mlparse.data.prepare import prepare_family  # heavy: only when data must be prepared

    try:
        prepare_family(config.data.family, languages=[config.data.language], out=Path(config.data.root))
    except Exception as error:  # the prepare pipeline's own errors carry user-facing messages
        hint = ("`mlparse demo` writes the demo data" if config.data.family in DEMO_FAMILIES
                else f"run `mlparse prepare {config.data.family} --source ...` to point at the treebank")
        raise RunError(f"{problem} and preparing it failed: {error}\n{hint}") from None
    still = [s for s in missing if not config.split_path(s).is_file()]
    if still:
        raise RunError(f"`mlparse prepare {config.data.family}` did not produce {config.split_path(still[0])}")


def _complete_preparation(config: RecipeConfig) -> bool:
    """Are catalog-derived split files backed by their manifest.json?

    ``mlparse prepare`` removes the manifest before renaming the new split files into place and
    writes it last, so split files without it may mix two preparations.  Explicit split paths
    (``data.train`` ...) and families outside the catalog are taken as they are.
    """
    if any(getattr(config.data, s) for s in ("train", "dev", "test")):
        return True
    from mlparse.data.catalog import family_names

    if config.data.family not in family_names():
        return True
    return (config.split_path("train").parent / "manifest.json").is_file()


def load_splits(config: RecipeConfig, task: Task, notes: Optional[List[str]] = None,
                input_tags: Optional[Dict[str, List[List[str]]]] = None) -> tuple:
    """Train, dev and test splits as ``task`` reads them, checked before any training (readable, well formed).

    Training sentences left out by ``data.folds``/``data.fold`` (jack-knifing, :mod:`mlparse.train.folds`),
    ``data.max_train_length`` / ``data.max_train_sentences`` are counted in ``notes`` (never dropped silently).  Lengths against the parser's limit are checked
    by :func:`check_lengths` once the parser exists.  ``input_tags`` (split -> the tags of each of its
    sentences, checked against them already: jack-knifed tags) are what the parser reads instead of the
    data's own tags, in training too."""
    try:
        train, dev, test = (task.read_split(config.split_path(s)) for s in ("train", "dev", "test"))
    except DataError as error:
        raise RunError(str(error)) from None
    for name, split in (("train", train), ("dev", dev), ("test", test)):
        if input_tags is not None:
            split.input_tags = input_tags[name]
            if hasattr(split, "input_tag_column"):
                split.input_tag_column = config.biaffine.tag_column
    lengths = [task.length(e) for e in train.examples]
    d = config.data
    candidates = training_indices(d, len(lengths))  # jack-knifing: fold d.fold of the whole file is left out
    if d.folds is not None and notes is not None:
        notes.append(f"jack-knifed: training on {len(candidates):,} of the {len(lengths):,} sentences of {train.path}, "
                     f"fold {d.fold} of {d.folds} left out ({d.folds_by()} assignment; "
                     f"the held-out sentences are listed in {FOLD_FILE})")
    keep = candidates
    if d.max_train_length:
        keep = [k for k in keep if lengths[k] <= d.max_train_length]
    if d.max_train_sentences:
        keep = keep[: d.max_train_sentences]
    if not keep:
        raise RunError(f"{train.path}: no training sentence left after data.max_train_length={d.max_train_length}")
    if notes is not None and len(keep) < len(candidates):
        longer = sum(1 for k in candidates if d.max_train_length and lengths[k] > d.max_train_length)
        reasons = ([f"{longer} longer than data.max_train_length={d.max_train_length}"] if longer else []) + (
            [f"the rest beyond data.max_train_sentences={d.max_train_sentences}"]
            if d.max_train_sentences and len(candidates) - longer > len(keep) else [])
        notes.append(f"training on {len(keep):,} of the {len(candidates):,} sentences of {train.path}"
                     f"{' outside its held-out fold' if d.folds is not None else ''} ({'; '.join(reasons)})")
    if len(keep) < len(lengths):
        train = train.subset(keep)
    return train, dev, test


def check_lengths(task: Task, splits: Dict[str, Any], max_words: int) -> None:
    """A clear error, naming file and line, for the first sentence longer than the parser takes."""
    advice = {"train": "raise model.max_len or set data.max_train_length",
              "dev": "raise model.max_len (dev and test sentences are never dropped)",
              "test": "raise model.max_len (dev and test sentences are never dropped)"}
    for name, split in splits.items():
        lengths = [task.length(e) for e in split.examples]
        for index, length in enumerate(lengths):
            if length > max_words:
                longer = sum(1 for n in lengths if n > max_words)
                raise RunError(f"{split.where(index)}: sentence of {length} words is longer than the model allows "
                               f"({max_words} words; {longer} sentence(s) of this file are longer); {advice[name]}")
