"""Step registry: pipeline step name (the catalog's ``pipeline:`` entries) → transform.

Every step is built once from its options (``make(options) -> apply``); ``apply(tree)``
returns the new tree, or ``None`` when nothing is left; the exclusion reason then names
what was removed ("nothing left after removing CODE/ID leaves").  The transforms themselves live in
:mod:`mlparse.trees.transforms`; this module names them, reads their options, and runs a
whole pipeline either step by step (:func:`run_pipeline`, the reference) or in one in-place
pass (:func:`run_fused`, what ``prepare`` uses; tested equal to the reference).

=========================  ====================================================================
``drop_leaves``            ``{tags: [ID, CODE]}``: remove leaves with these POS tags, prune
``strip_empty``            ``{kind: ptb|psd|cess}``: remove empty elements, prune
``split_lemma``            ``{sep: "-"}``: ``word-lemma`` leaves keep the word (last ``sep``)
``strip_functional_tags``  ``NP-SBJ-1`` → ``NP``, ``NP=2`` → ``NP``, ``NP;*SBJ*`` → ``NP``
``strip_spmrl_features``   ``NN##case=nom##`` → ``NN`` (labels and POS tags)
``map_labels``             ``{pattern, replace, tags: false}``: regex substitution on labels
``ensure_top``             ``{label: TOP}``: relabel a ROOT/VROOT/empty root, or wrap
=========================  ====================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from mlparse.data.specs import CatalogError, StepSpec
from mlparse.trees import transforms as T
from mlparse.trees.tree import Leaf, Node, Tree

Apply = Callable[[Tree], Optional[Tree]]
LeafFilter = Callable[[Leaf], bool]
LeafMap = Callable[[Leaf], Leaf]
LabelMap = Callable[[str], str]


@dataclass(frozen=True)
class Step:
    """A built pipeline step.

    ``apply`` is the reference: the pure transform of :mod:`mlparse.trees.transforms`.
    The other fields describe the same step for :func:`run_fused`, which runs a whole
    pipeline in one in-place pass: at most one of ``leaf_filter`` (drop matching leaves,
    then prune), ``leaf_map``/``label_map`` (rewrite leaves / phrase labels) and
    ``root_label`` (ensure_top) is the step's effect.
    """

    name: str
    description: str
    apply: Apply
    empty_reason: str = ""  # what a leaf filter removes ("ID/CODE leaves"), for exclusion reasons
    leaf_filter: Optional[LeafFilter] = None
    leaf_map: Optional[LeafMap] = None
    label_map: Optional[LabelMap] = None
    root_label: Optional[str] = None


def _options(name: str, options: Mapping[str, Any], allowed: Tuple[str, ...]) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise CatalogError(f"step {name!r}: unknown option(s) {', '.join(unknown)}; valid: {', '.join(allowed) or 'none'}")


def _drop_leaves(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ("tags",))
    tags = frozenset(options.get("tags") or ())
    if not tags:
        raise CatalogError("step 'drop_leaves' needs a non-empty 'tags' list")

    def predicate(leaf: Leaf) -> bool:
        return leaf.tag in tags

    return Step(
        name, "", lambda tree: T.remove_leaves(tree, predicate),
        empty_reason=f"{'/'.join(sorted(tags))} leaves",
        leaf_filter=predicate,
    )


EMPTY_KINDS: Dict[str, LeafFilter] = {
    "ptb": T.is_ptb_empty,
    "psd": T.is_psd_empty,
    "cess": T.is_cess_empty,
}


def _strip_empty(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ("kind",))
    kind = options.get("kind", "ptb")
    if kind not in EMPTY_KINDS:
        raise CatalogError(f"step 'strip_empty': kind must be one of {', '.join(EMPTY_KINDS)}, not {kind!r}")
    predicate = EMPTY_KINDS[kind]
    return Step(
        name, "", lambda tree: T.strip_empty_elements(tree, predicate),
        empty_reason=f"empty elements ({kind})",
        leaf_filter=predicate,
    )


def _split_lemma(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ("sep",))
    sep = str(options.get("sep", "-"))

    def split(leaf: Leaf) -> Leaf:
        return T.split_lemma(leaf, sep)

    return Step(name, "", lambda tree: T.map_leaves(tree, split), leaf_map=split)


def _strip_functional_tags(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ())
    return Step(name, "", T.strip_functional_tags, label_map=T.strip_function_tag)


def _strip_spmrl_features(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ())
    feature = T.strip_spmrl_feature
    return Step(
        name, "", T.strip_spmrl_features,
        label_map=feature, leaf_map=lambda leaf: Leaf(feature(leaf.tag), leaf.word),
    )


def _map_labels(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ("pattern", "replace", "tags"))
    if "pattern" not in options:
        raise CatalogError("step 'map_labels' needs a 'pattern' (a regular expression)")
    try:
        regex = re.compile(str(options["pattern"]))
    except re.error as error:
        raise CatalogError(f"step 'map_labels': bad pattern {options['pattern']!r}: {error}") from None
    replace = str(options.get("replace", ""))
    cache: Dict[str, str] = {}

    def relabel(label: str) -> str:
        out = cache.get(label)
        if out is None:
            out = regex.sub(replace, label) or label  # never produce an empty label
            cache[label] = out
        return out

    include_tags = bool(options.get("tags", False))
    return Step(
        name, "", lambda tree: T.map_labels(tree, relabel, include_tags=include_tags),
        label_map=relabel,
        leaf_map=(lambda leaf: Leaf(relabel(leaf.tag), leaf.word)) if include_tags else None,
    )


def _ensure_top(name: str, options: Mapping[str, Any]) -> Step:
    _options(name, options, ("label",))
    label = str(options.get("label", "TOP"))
    return Step(name, "", lambda tree: T.ensure_top(tree, label), root_label=label)


STEPS: Dict[str, Callable[[str, Mapping[str, Any]], Step]] = {
    "drop_leaves": _drop_leaves,
    "strip_empty": _strip_empty,
    "split_lemma": _split_lemma,
    "strip_functional_tags": _strip_functional_tags,
    "strip_spmrl_features": _strip_spmrl_features,
    "map_labels": _map_labels,
    "ensure_top": _ensure_top,
}


def build_pipeline(specs: Tuple[StepSpec, ...]) -> List[Step]:
    """Build the steps of a catalog pipeline (unknown names or options raise CatalogError)."""
    steps = []
    for spec in specs:
        if spec.name not in STEPS:
            raise CatalogError(f"unknown pipeline step {spec.name!r}; known: {', '.join(sorted(STEPS))}")
        step = STEPS[spec.name](spec.name, spec.options)
        steps.append(replace(step, description=spec.describe()))
    for index, step in enumerate(steps):
        if step.root_label is not None and index != len(steps) - 1:
            raise CatalogError(f"step {step.name!r} must be the last step of a pipeline")
    return steps


def run_pipeline(steps: List[Step], tree: Tree) -> Tuple[Optional[Tree], str]:
    """Reference: apply the pure transforms one after the other; ``(tree, "")`` or ``(None, reason)``."""
    current: Optional[Tree] = tree
    for step in steps:
        current = step.apply(current)  # type: ignore[arg-type]
        if current is None:
            return None, f"nothing left after removing {step.empty_reason or step.description}"
    return current, ""


def run_fused(steps: List[Step], tree: Tree) -> Tuple[Optional[Tree], str]:
    """The same result as :func:`run_pipeline` in one pass that rewrites ``tree`` in place.

    For trees fresh from a reader (nobody else holds them) this avoids rebuilding the
    tree once per step.  Leaves go through the leaf filters and maps in pipeline order;
    phrase labels through the label maps in order; constituents left without children
    are pruned (pruning does not depend on labels, so doing it once at the end gives
    what the steps give one by one); finally the root gets ``ensure_top``'s label.
    """
    leaf_ops = [(step.leaf_filter, step.leaf_map, step) for step in steps if step.leaf_filter or step.leaf_map]
    label_maps = [step.label_map for step in steps if step.label_map]
    root_label = steps[-1].root_label if steps else None
    fired: List[Step] = []
    order: List[Tree] = []
    stack: List[Tree] = [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        for child in node.children:
            if type(child) is Tree:
                stack.append(child)
    for node in reversed(order):  # every node after all of its descendants
        kept: List[Node] = []
        for child in node.children:
            if type(child) is Leaf:
                leaf: Optional[Leaf] = child
                for keep_out, rewrite, step in leaf_ops:
                    if keep_out is not None and keep_out(leaf):  # type: ignore[arg-type]
                        if step not in fired:
                            fired.append(step)
                        leaf = None
                        break
                    if rewrite is not None:
                        leaf = rewrite(leaf)  # type: ignore[arg-type]
                if leaf is not None:
                    kept.append(leaf)
            elif child.children:  # type: ignore[union-attr]
                kept.append(child)
        node.children = kept
        label = node.label
        for relabel in label_maps:
            label = relabel(label)
        node.label = label
    if not tree.children:
        removed = [step.empty_reason or step.description for step in steps if step in fired]
        return None, f"nothing left after removing {' and '.join(removed)}" if removed else "the tree has no leaves"
    if root_label is not None:
        if tree.label in T.ROOT_LABELS or tree.label == root_label:
            tree.label = root_label
        else:
            tree = Tree(root_label, [tree])
    return tree, ""
