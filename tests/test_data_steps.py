"""Pipeline steps: the fused in-place pass gives exactly what the pure transforms give one by one."""

import pytest

from mlparse.data.catalog import StepSpec, load_family
from mlparse.data.formats import FORMATS
from mlparse.data.sources import find_files
from mlparse.data.steps import build_pipeline, run_fused, run_pipeline
from mlparse.trees.reader import parse_bracketed
from mlparse.trees.tree import Leaf, Tree


def one(text: str, **kw) -> Tree:
    return parse_bracketed(text, **kw).trees[0]


PSD_PIPELINE = (
    StepSpec("drop_leaves", {"tags": ["ID", "CODE"]}),
    StepSpec("strip_empty", {"kind": "psd"}),
    StepSpec("split_lemma", {"sep": "-"}),
    StepSpec("strip_functional_tags"),
    StepSpec("ensure_top"),
)

PSD = [
    "( (IP-MAT (NP-SBJ (PRO-N hann-hann)) (VBDI kom-koma) (NP-OB1 *T*-1) (CP-REL (WNP-1 0) (C 0))) (ID X,.1))",
    "( (CODE {COM:x}) (ID X,.2))",
    "( (IP-MAT (NP-SBJ *pro*)) (ID X,.3))",
    "( (IP-MAT (, ,-,) (NP (N-N maður-maður))) (CODE <p>) (ID X,.4))",
]


@pytest.mark.parametrize("text", PSD)
def test_fused_equals_sequential_on_psd(text):
    steps = build_pipeline(PSD_PIPELINE)
    reference, reason = run_pipeline(steps, one(text))
    fused, fused_reason = run_fused(steps, one(text))
    assert fused == reference
    assert (reason == "") == (fused_reason == "")


def test_psd_results_and_exclusion_reasons():
    steps = build_pipeline(PSD_PIPELINE)
    tree, _ = run_fused(steps, one(PSD[0]))
    assert tree.to_bracketed() == "(TOP (IP (NP (PRO-N hann)) (VBDI kom)))"
    assert run_fused(steps, one(PSD[1])) == (None, "nothing left after removing CODE/ID leaves")
    assert run_pipeline(steps, one(PSD[1])) == (None, "nothing left after removing CODE/ID leaves")
    assert run_fused(steps, one(PSD[2])) == (None, "nothing left after removing CODE/ID leaves and empty elements (psd)")
    assert run_pipeline(steps, one(PSD[2])) == (None, "nothing left after removing empty elements (psd)")


def test_spmrl_and_map_labels_steps():
    steps = build_pipeline((
        StepSpec("strip_spmrl_features"),
        StepSpec("map_labels", {"pattern": "^.*\\+(?=.)", "replace": "", "tags": True}),
        StepSpec("strip_functional_tags"),
        StepSpec("ensure_top"),
    ))
    text = "(VROOT (S##a=b## (NP-SB (ART##case=nom## Der) (H+n Hund))) ($. .))"
    reference, _ = run_pipeline(steps, one(text))
    fused, _ = run_fused(steps, one(text))
    assert fused == reference
    assert fused.to_bracketed() == "(TOP (S (NP (ART Der) (n Hund))) ($. .))"


def test_ensure_top_wraps_a_bare_root():
    steps = build_pipeline((StepSpec("ensure_top"),))
    assert run_fused(steps, one("(S (NN x))"))[0] == Tree("TOP", [Tree("S", [Leaf("NN", "x")])])
    assert run_fused(steps, one("(ROOT (NN x))"))[0] == Tree("TOP", [Leaf("NN", "x")])


@pytest.mark.slow
def test_fused_equals_sequential_on_real_treebanks(treebanks):
    """The first 600 trees of every free treebank through its catalog pipeline both ways."""
    family = load_family("free")
    for spec in family.languages.values():
        root = treebanks / spec.folder
        pattern = spec.files or spec.split.options["train"]
        steps = build_pipeline(spec.pipeline)
        trees = []
        for path in find_files(root, pattern):
            trees.extend(FORMATS[spec.reader.format](path, path.name, spec.reader.options).trees)
            if len(trees) >= 600:
                break
        for tree in trees[:600]:
            reference, _ = run_pipeline(steps, tree)
            fused, _ = run_fused(steps, tree.copy())
            assert fused == reference, (spec.name, tree.to_bracketed()[:200])
