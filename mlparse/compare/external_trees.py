"""Bracketed trees from elsewhere, read as mlparse's own: other parsers' output and gold files given by path.

* **Predictions** (:func:`read_predicted_trees`).  Parsers wrap their trees in a root of their own:
  ``(S1 …)`` (BLLIP / Charniak), ``(ROOT …)`` (Stanford CoreNLP, spaCy-benepar), ``(TOP …)``, ``(VROOT …)``
  or an unlabelled ``( (S …))`` (the PTB's own files, the Berkeley parser).  Such a wrapper is replaced by
  mlparse's ``TOP`` root by the rule of :mod:`mlparse.compare.root_wrappers`, keeping everything under it, so
  the tree is the one a trained run writes for the same parse; a tree without one is put under ``TOP``, as a
  trained run's is.  The wrappers removed are counted, so that ``mlparse score`` can say what it did.
* **A gold file** (:func:`read_gold_trees`).  Its trees go through the same rule first, so that a wrapper is
  never a bracket on one side only.  A file whose trees are all ``TOP``-rooted is then read as a
  prepared split.  Any other (``(ROOT …)`` trees, raw PTB ``.mrg`` files with empty elements ``-NONE-``,
  function tags and co-indices) goes through the pipeline ``mlparse prepare`` runs for the data: the
  catalog's for the family and language when the catalog describes them, else the PTB's
  (:data:`PTB_PIPELINE`).  How many trees each step changed is noted.  A tree that the pipeline empties
  (prepare leaves such trees out) is an error naming its line, since the predictions are paired with the
  gold trees by position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

from mlparse.compare.root_wrappers import WrapperCounts, is_wrapper, unwrap_root, wrapper_name
from mlparse.structs.chart import TOP
from mlparse.tasks.base import DataError
from mlparse.trees.tree import Tree

#: What ``mlparse prepare`` does to the Penn Treebank (treebanks/ptb.yaml): the normalization of a gold file
#: whose data the catalog does not describe.
PTB_PIPELINE = (("strip_empty", {"kind": "ptb"}), ("strip_functional_tags", {}), ("ensure_top", {}))
#: How the note says what a step did (other steps are named as the catalog writes them).
STEP_EFFECTS = {"strip_empty": "empty elements removed", "strip_functional_tags": "function tags stripped",
                "strip_spmrl_features": "features stripped", "drop_leaves": "leaves dropped",
                "split_lemma": "lemmas split off", "ensure_top": "put under a TOP root"}


@dataclass
class PredictedTrees:
    """Predicted trees under ``TOP`` roots; ``wrappers`` counts the root wrappers taken off or kept."""

    trees: List[Tree]
    lines: List[int]  # 1-based line where each tree starts
    wrappers: WrapperCounts = field(default_factory=WrapperCounts)

    def notes(self) -> List[str]:
        """One line per kind of wrapper removed or kept (none when every tree came as mlparse writes it)."""
        return self.wrappers.removed_notes("trees") + self.wrappers.kept_notes("predicted trees")


def read_predicted_trees(path: Path) -> PredictedTrees:
    """Every tree of ``path`` (one or several lines each) under a ``TOP`` root (see the module text)."""
    trees, lines = _read(path)
    out = PredictedTrees([], lines)
    out.trees = [out.wrappers.add(unwrap_root(tree)) for tree in trees]
    return out


@dataclass
class GoldTrees:
    """A gold file's trees as a prepared split has them; ``notes`` say what was normalized (empty: nothing)."""

    trees: List[Tree]
    lines: List[int]
    notes: List[str] = field(default_factory=list)
    normalized: bool = False


def read_gold_trees(path: Path, family: str = "", language: str = "") -> GoldTrees:
    """The trees of a gold file, without root wrappers, normalized as ``mlparse prepare`` would unless they are
    prepared already."""
    trees, lines = _read(path)
    if not trees:
        raise DataError(f"{path}: no trees (an empty gold file)")
    first_root = _first_root(trees)
    wrappers = WrapperCounts()
    unwrapped = [wrappers.add(unwrap_root(tree)) for tree in trees]
    kept = wrappers.kept_notes(f"gold trees in {path}")
    if first_root is None:  # a prepared split: nothing but wrappers under TOP to take off
        notes = [f"the gold file {path}: {note}" for note in wrappers.removed_notes("trees")]
        return GoldTrees(unwrapped, lines, notes + kept, bool(wrappers.removed))
    from mlparse.data.steps import run_pipeline

    steps, source = _pipeline(family, language)
    changed = [0] * len(steps)
    out: List[Tree] = []
    for tree, line in zip(unwrapped, lines):
        current: Optional[Tree] = tree
        for index, step in enumerate(steps):
            before = current.to_bracketed()  # type: ignore[union-attr]
            current, reason = run_pipeline([step], current)  # type: ignore[arg-type]
            if current is None:
                raise DataError(f"{path}:{line}: {reason} ({source}), which leaves this tree out of a prepared split; "
                                "remove it from the gold file and from the predictions")
            changed[index] += current.to_bracketed() != before
        out.append(current)  # type: ignore[arg-type]
    done = [f"root wrapper {wrapper_name(labels)} replaced by TOP in {count:,}"
            for labels, count in wrappers.removed.items()]
    bare = sum(not is_wrapper(tree.label) for tree in trees)
    done += [f"put under a TOP root in {bare:,}"] if bare else []
    done += [f"{STEP_EFFECTS.get(step.name, step.description)} in {count:,}" for step, count in zip(steps, changed)
             if count]
    notes = [f"the gold file {path} is not a prepared split ({first_root}); normalized as {source}: "
             f"{', '.join(done) or 'no tree changed'} of {len(trees):,} trees"]
    return GoldTrees(out, lines, notes + kept, True)


def _first_root(trees: List[Tree]) -> Optional[str]:
    """How the note names the first root that is not mlparse's ``TOP`` (None: every root is ``TOP``)."""
    label = next((tree.label for tree in trees if tree.label != TOP), None)
    if label is None:
        return None
    return f"roots such as {wrapper_name((label,))}" if is_wrapper(label) else f"a tree rooted in {label}"


def _pipeline(family: str, language: str) -> Tuple[list, str]:
    """The steps ``mlparse prepare`` runs for ``family``/``language`` (the PTB's where the catalog has no such
    data), and how the note names them."""
    from mlparse.data.catalog import family_names, load_family
    from mlparse.data.specs import CatalogError, StepSpec
    from mlparse.data.steps import build_pipeline

    try:
        spec = load_family(family).languages.get(language) if family in family_names() else None
    except CatalogError:
        spec = None
    if spec is not None and spec.output == "trees" and spec.pipeline:
        return build_pipeline(spec.pipeline), f"`mlparse prepare {family}` does for {language}"
    return (build_pipeline(tuple(StepSpec(name, dict(options)) for name, options in PTB_PIPELINE)),
            "`mlparse prepare ptb` does")


def _read(path: Path) -> Tuple[List[Tree], List[int]]:
    from mlparse.trees.errors import TreeReadError
    from mlparse.trees.reader import read_bracketed_file

    try:
        result = read_bracketed_file(path)
    except TreeReadError as error:
        raise DataError(str(error)) from None
    except OSError as error:
        raise DataError(f"{path}: cannot read ({error.strerror or error})") from None
    return list(result.trees), list(result.lines)
