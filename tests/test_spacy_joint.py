"""The spaCy component over a joint (span + dependency) model: it writes the model's trees, as for a
constituency model (the joint task's parse output is trees), and they are the trees ``mlparse.load`` gives."""

from __future__ import annotations

from pathlib import Path

import pytest

import mlparse
from helpers.joint_fixtures import write_joint_recipe
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe


def test_the_spacy_component_with_a_joint_model_writes_its_trees(tmp_path: Path) -> None:
    spacy = pytest.importorskip("spacy")
    import mlparse.integrations.spacy_component  # noqa: F401  (the entry point does this when mlparse is installed)

    config = load_recipe(write_joint_recipe(tmp_path, train={"max_epochs": 2}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run = RunDir.for_recipe(tmp_path / "runs", config).path
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("mlparse", config={"model": str(run), "device": "cpu"})
    doc = nlp("the dog barks . a cat saw the dog .")
    sents = list(doc.sents)
    assert len(sents) == 2 and doc._.mlparse_parse is not None
    parser = mlparse.load(run, device="cpu")
    trees = list(parser.parse_sents([[t.text for t in sent] for sent in sents], output="tree"))
    for sent, tree in zip(sents, trees):
        below = tree.children[0] if len(tree.children) == 1 else tree
        assert sent._.parse_string == below.to_bracketed()
