"""Bracketed trees from elsewhere, read as mlparse's own: other parsers' output and gold files given by path.

* **Predictions** (:func:`read_predicted_trees`).  Parsers wrap their trees in a root of their own:
  ``(S1 …)`` (BLLIP / Charniak), ``(ROOT …)`` (Stanford CoreNLP, spaCy-benepar), ``(TOP …)``, ``(VROOT …)``
  or an unlabelled ``( (S …))`` (the PTB's own files, the Berkeley parser).  Such a wrapper
  (:data:`ROOT_WRAPPERS`) is replaced by mlparse's ``TOP`` root, keeping everything under it, so the tree is
  the one a trained run writes for the same parse; a tree without one is put under ``TOP``, as a trained
  run's is.  The wrappers removed are counted, so that ``mlparse score`` can say what it did.
* **A gold file** (:func:`read_gold_trees`).  A file whose trees are all ``TOP``-rooted is read as a
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
from typing import Dict, List, Optional, Tuple

from mlparse.structs.chart import TOP
from mlparse.tasks.base import DataError
from mlparse.trees.tree import Tree

#: Root labels that wrap a parse rather than belong to it ("" is the unlabelled ``( (S …))``).
ROOT_WRAPPERS = ("", "ROOT", "TOP", "S1", "VROOT")
#: What ``mlparse prepare`` does to the Penn Treebank (treebanks/ptb.yaml): the normalization of a gold file
#: whose data the catalog does not describe.
PTB_PIPELINE = (("strip_empty", {"kind": "ptb"}), ("strip_functional_tags", {}), ("ensure_top", {}))
#: How the note says what a step did (other steps are named as the catalog writes them).
STEP_EFFECTS = {"strip_empty": "empty elements removed", "strip_functional_tags": "function tags stripped",
                "strip_spmrl_features": "features stripped", "drop_leaves": "leaves dropped",
                "split_lemma": "lemmas split off", "ensure_top": "root set to TOP"}


def wrapper_name(label: str) -> str:
    """How the output names a root wrapper: ``(S1 …)``, or ``( …)`` for an unlabelled root."""
    return f"({label} …)" if label else "( …)"


@dataclass
class PredictedTrees:
    """Predicted trees under ``TOP`` roots; ``removed`` counts the root wrappers taken off, by label."""

    trees: List[Tree]
    lines: List[int]  # 1-based line where each tree starts
    removed: Dict[str, int] = field(default_factory=dict)

    def notes(self) -> List[str]:
        """One line per kind of wrapper removed (none when every tree came as mlparse writes it)."""
        return [f"removed the root wrapper {wrapper_name(label)} of {count:,} of {len(self.trees):,} trees: it is "
                f"the parser's root, not a constituent (trees are scored under mlparse's TOP root, as a trained "
                f"run's)" for label, count in self.removed.items()]


def as_top_rooted(tree: Tree) -> Tuple[Tree, Optional[str]]:
    """``tree`` under a ``TOP`` root and the wrapper label it replaced (None: no wrapper, or ``TOP`` itself)."""
    if tree.label in ROOT_WRAPPERS:
        removed = tree.label if tree.label != TOP else None
        tree.label = TOP
        return tree, removed
    return Tree(TOP, [tree]), None


def read_predicted_trees(path: Path) -> PredictedTrees:
    """Every tree of ``path`` (one or several lines each) under a ``TOP`` root (see the module text)."""
    trees, lines = _read(path)
    out = PredictedTrees([], lines)
    for tree in trees:
        rooted, removed = as_top_rooted(tree)
        out.trees.append(rooted)
        if removed is not None:
            out.removed[removed] = out.removed.get(removed, 0) + 1
    return out


@dataclass
class GoldTrees:
    """A gold file's trees as a prepared split has them; ``notes`` say what was normalized (empty: nothing)."""

    trees: List[Tree]
    lines: List[int]
    notes: List[str] = field(default_factory=list)

    @property
    def normalized(self) -> bool:
        return bool(self.notes)


def read_gold_trees(path: Path, family: str = "", language: str = "") -> GoldTrees:
    """The trees of a gold file, normalized as ``mlparse prepare`` would unless they are prepared already."""
    trees, lines = _read(path)
    if not trees:
        raise DataError(f"{path}: no trees (an empty gold file)")
    if all(tree.label == TOP for tree in trees):
        return GoldTrees(trees, lines)
    from mlparse.data.steps import run_pipeline

    steps, source = _pipeline(family, language)
    changed = [0] * len(steps)
    out: List[Tree] = []
    for tree, line in zip(trees, lines):
        current: Optional[Tree] = tree
        for index, step in enumerate(steps):
            before = current.to_bracketed()  # type: ignore[union-attr]
            current, reason = run_pipeline([step], current)  # type: ignore[arg-type]
            if current is None:
                raise DataError(f"{path}:{line}: {reason} ({source}), which leaves this tree out of a prepared split; "
                                "remove it from the gold file and from the predictions")
            changed[index] += current.to_bracketed() != before
        out.append(current)  # type: ignore[arg-type]
    done = [f"{STEP_EFFECTS.get(step.name, step.description)} in {count:,}" for step, count in zip(steps, changed)
            if count]
    notes = [f"the gold file {path} is not a prepared split ({_first_root(trees)}); normalized as {source}: "
             f"{', '.join(done)} of {len(trees):,} trees"]
    return GoldTrees(out, lines, notes)


def _first_root(trees: List[Tree]) -> str:
    label = next(tree.label for tree in trees if tree.label != TOP)
    return f"roots such as {wrapper_name(label)}" if label in ROOT_WRAPPERS else f"a tree rooted in {label}"


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
