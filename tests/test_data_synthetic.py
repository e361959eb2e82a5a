"""The synthetic PCFG treebank: deterministic, well-formed, and written like prepared data."""

import json

from mlparse.data.synthetic import generate_treebank, write_synthetic_treebank
from mlparse.trees.reader import read_bracketed_file
from mlparse.trees.tree import Leaf


def test_same_seed_same_trees_other_seed_other_trees():
    first = [t.to_bracketed() for t in generate_treebank(50, seed=7)]
    assert first == [t.to_bracketed() for t in generate_treebank(50, seed=7)]
    assert first != [t.to_bracketed() for t in generate_treebank(50, seed=8)]


def test_trees_are_normalized_sentences():
    for tree in generate_treebank(200, seed=3):
        assert tree.label == "TOP" and tree.children[0].label == "S"
        assert tree.leaves()[-1] == Leaf(".", ".")
        assert all(node.children for node in tree.subtrees())


def test_written_treebank_matches_its_manifest(tmp_path):
    manifest = write_synthetic_treebank(tmp_path, sizes=(30, 5, 6), seed=1)
    on_disk = json.loads((tmp_path / "manifest.json").read_text())
    for split, size in (("train", 30), ("dev", 5), ("test", 6)):
        trees = read_bracketed_file(tmp_path / f"{split}.trees").trees
        assert len(trees) == size == on_disk["splits"][split]["sentences"]
        assert sum(len(t) for t in trees) == manifest.splits[split].tokens
