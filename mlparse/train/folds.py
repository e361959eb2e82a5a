"""Jack-knifed folds of a training file: which sentences a fold member trains on.

With ``data.folds: N`` and ``data.fold: k`` a run trains on every sentence of the training file
outside fold k, (N-1)/N of it.  ``data.fold_assignment``:

- ``blocks``: fold k is the k-th of N contiguous blocks of the file, sentences ``floor(k n / N)`` up to
  ``floor((k+1) n / N)`` (their sizes differ by at most one).  A treebank keeps a document's sentences
  together, so a block holds out whole documents (but the two it cuts at its ends): the standard PTB
  jack-knifing, and the default for the folds of jack-knifed tags, whose held-out words are then as new
  to a fold tagger as dev's are to the tagger of dev and test;
- ``modulo``: sentence i (0-based, in file order) is in fold ``i mod N``: each fold holds out every N-th
  sentence, whose neighbours, from the same documents, the other folds train on;
- ``permutation``: sentence i is in fold ``pi(i) mod N`` for a permutation pi of 0..n-1 drawn with
  ``data.fold_seed`` (numpy's PCG64), the same for every member, so the folds still partition;
- ``auto`` (the default): ``blocks`` for the taggers of ``data.tags: jackknife``, ``modulo`` for a run's own
  fold (``data.folds``, ``mlparse ensemble --folds``), as before ``blocks`` existed
  (:meth:`mlparse.config.DataConfig.folds_by`).

Folds are taken on the whole training file, before ``data.max_train_length`` and
``data.max_train_sentences``; the run records its assignment in ``RUN_DIR/fold.json``
(:func:`fold_record`).
"""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np


def fold_of(n: int, folds: int, assignment: str = "modulo", seed: int = 1) -> np.ndarray:
    """``int64 ndarray[n]``: the fold (0..folds-1) of each of the n training sentences (``assignment``: blocks,
    modulo or permutation; ``auto`` is resolved by the recipe, :meth:`mlparse.config.DataConfig.folds_by`)."""
    if folds < 2:
        raise ValueError(f"jack-knifing needs at least 2 folds, got {folds}")
    if assignment == "blocks":
        return (np.arange(n, dtype=np.int64) * folds) // max(1, n)
    if assignment == "modulo":
        return np.arange(n, dtype=np.int64) % folds
    if assignment == "permutation":
        return np.random.Generator(np.random.PCG64(seed)).permutation(n).astype(np.int64) % folds
    raise ValueError(f"unknown fold assignment {assignment!r}; choose blocks, modulo or permutation")


def kept_indices(n: int, folds: int, fold: int, assignment: str = "modulo", seed: int = 1) -> List[int]:
    """The sentences (indices, in file order) that the member of ``fold`` trains on: every one outside it."""
    return [int(i) for i in np.flatnonzero(fold_of(n, folds, assignment, seed) != fold)]


def fold_record(train_file: str, n: int, folds: int, fold: int, assignment: str, seed: int) -> Dict[str, Any]:
    """What ``RUN_DIR/fold.json`` holds: the settings, and the held-out sentence indices (0-based, file order)."""
    held_out = [int(i) for i in np.flatnonzero(fold_of(n, folds, assignment, seed) == fold)]
    return {"train_file": train_file, "train_sentences": n, "folds": folds, "fold": fold, "assignment": assignment,
            "seed": seed if assignment == "permutation" else None, "held_out": held_out,
            "trained_on": n - len(held_out)}


def training_indices(data: Any, n: int) -> List[int]:
    """The sentences of a training file of n sentences that a run with the data settings ``data``
    (:class:`mlparse.config.DataConfig`) trains on before its length and count limits: those outside
    its held-out fold (``data.folds``, ``data.fold``), or all of them."""
    if data.folds is not None and data.fold is not None:
        return kept_indices(n, data.folds, data.fold, data.folds_by(), data.fold_seed)
    return list(range(n))
