"""`mlparse prepare` writes the dependency version (<split>.conllu) of treebanks with heads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from depeval.api import evaluate_files
from mlparse.cli import app
from mlparse.data.catalog import CatalogError, parse_family
from mlparse.data.dependencies import conllu_block, head_source, sentence_dependencies
from mlparse.data.formats import MarkedHeads
from mlparse.data.manifest import HeadsInfo, Manifest
from mlparse.data.prepare import prepare_family
from mlparse.structs.dep_tree import is_projective, tree_problem
from mlparse.trees.dependency import ConlluDocument, parse_conllu, read_conllu
from mlparse.trees.head_table import bundled_head_table
from mlparse.trees.heads import TreeDependencies, tree_dependencies
from mlparse.trees.reader import parse_bracketed, read_bracketed_file

FIXTURE = Path(__file__).parent / "fixtures" / "ptb_ldc" / "treebank_3"
SPLITS = ("train", "dev", "test")
runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exit_code == 0, result.output
    return result


def word_lines(path: Path):
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_ptb_fixture_gets_a_conllu_beside_each_trees_file(tmp_path):
    result = invoke("prepare", "ptb", "--source", str(FIXTURE), "--out", str(tmp_path))
    assert "dependency version: train.conllu, dev.conllu, test.conllu (heads: collins-ptb, relations: derived)" \
        in result.output
    folder = tmp_path / "ptb" / "english"
    # wsj_2301 (test): "A dog -LRB- Rex -RRB- barked ." and "Thanks ."; worked out by hand from the
    # Collins rules: NP takes its rightmost noun, Rex (brackets are punctuation); S takes VP; FRAG its
    # rightmost child that is not punctuation
    assert word_lines(folder / "test.conllu") == [
        ["1", "A", "_", "DT", "DT", "_", "4", "NP/NNP/DT", "_", "_"],
        ["2", "dog", "_", "NN", "NN", "_", "4", "NP/NNP/NN", "_", "_"],
        ["3", "-LRB-", "_", "-LRB-", "-LRB-", "_", "4", "NP/NNP/-LRB-", "_", "_"],
        ["4", "Rex", "_", "NNP", "NNP", "_", "6", "S/VP/NP", "_", "_"],
        ["5", "-RRB-", "_", "-RRB-", "-RRB-", "_", "4", "NP/NNP/-RRB-", "_", "_"],
        ["6", "barked", "_", "VBD", "VBD", "_", "0", "root", "_", "_"],
        ["7", ".", "_", ".", ".", "_", "6", "S/VP/.", "_", "_"],
        ["1", "Thanks", "_", "NNS", "NNS", "_", "0", "root", "_", "_"],
        ["2", ".", "_", ".", ".", "_", "1", "FRAG/NP/.", "_", "_"],
    ]
    text = (folder / "test.conllu").read_text(encoding="utf-8")
    assert text.endswith("\t_\n\n") and "\n\n1\tThanks" in text  # one blank line after each sentence
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["heads"] == {"table": "collins-ptb", "relations": "derived"}
    assert {split: manifest["splits"][split]["dependencies"] for split in SPLITS} == {
        split: f"{split}.conllu" for split in SPLITS}
    assert Manifest.from_json(manifest).heads == HeadsInfo("collins-ptb", "derived")


def test_every_ptb_sample_tree_gives_a_projective_tree_with_one_root(tmp_path, treebanks):
    prepare_family("ptb-sample", source=treebanks, out=tmp_path)
    folder = tmp_path / "ptb-sample" / "english"
    table = bundled_head_table("collins-ptb")
    total = 0
    for split in SPLITS:
        trees = read_bracketed_file(folder / f"{split}.trees").trees
        document = read_conllu(folder / f"{split}.conllu")  # the project's reader reads it back
        assert len(document.sentences) == len(trees) > 0
        for tree, sentence in zip(trees, document.sentences):
            heads = [-1, *sentence.heads]
            assert tree_problem(heads) is None, (sentence.line, tree_problem(heads))
            assert is_projective(heads), sentence.line
            assert sentence.heads.count(0) == 1
            assert list(sentence.words) == tree.words()
            assert list(sentence.upos) == list(sentence.xpos) == tree.tags()
            assert (heads, ["", *sentence.deprels]) == tuple(tree_dependencies(tree, table))
        total += len(trees)
    assert total == 3914  # every tree of the sample
    scores = evaluate_files(folder / "dev.conllu", folder / "dev.conllu")  # depeval reads and scores it
    assert scores.uas.f1 == scores.las.f1 == 1.0
    assert scores.las.correct == len(word_lines(folder / "dev.conllu"))


SINICA = "\n".join([
    # written for this test in ICG notation (not from the treebank); modulo-10 split by tree:
    # trees 0-7 train, 8 dev, 9 test
    *[f"#{k}:{k}.[{k}] S(agent:NP(Head:Nba:甲{k})|Head:VA11:走)#。(PERIODCATEGORY)" for k in range(1, 9)],
    "#9:9.[9] VP(Head:VH11(Head:VH11:高|Head:VH11:大)|degree:Dfa:很)#",
    "#10:10.[10] S(agent:NP(property:Nab:石頭|property:Nab:橋)|Head:VA11:倒)#。(PERIODCATEGORY)",
]) + "\n"


def test_sinica_dependency_version_keeps_the_treebanks_heads_and_roles(tmp_path):
    source = tmp_path / "src"
    (source / "zh-sinica").mkdir(parents=True)
    (source / "zh-sinica" / "parsed").write_text(SINICA, encoding="utf-8")
    result = invoke("prepare", "free", "--language", "chinese", "--source", str(source), "--out", str(tmp_path))
    assert "(heads: treebank, relations: treebank); 1 phrase(s) mark no head" in result.output
    assert "1 mark several" in result.output
    folder = tmp_path / "free" / "chinese"
    assert word_lines(folder / "dev.conllu") == [
        ["1", "高", "_", "VH11", "VH11", "_", "0", "root", "_", "_"],
        ["2", "大", "_", "VH11", "VH11", "_", "1", "Head", "_", "_"],
        ["3", "很", "_", "Dfa", "Dfa", "_", "1", "degree", "_", "_"],
    ]
    assert [line[6:8] for line in word_lines(folder / "test.conllu")] == [
        ["2", "property"], ["3", "agent"], ["0", "root"], ["3", "punct"]]
    assert len(read_conllu(folder / "train.conllu").sentences) == 8
    assert (folder / "test.trees").read_text() == \
        "(TOP (S (NP (Nab 石頭) (Nab 橋)) (VA11 倒)) (PERIODCATEGORY 。))\n"  # the trees are as before
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["heads"] == {"table": "treebank", "relations": "treebank",
                                 "phrases_without_head": 1, "phrases_with_several_heads": 1}
    assert manifest["splits"]["dev"]["dependencies"] == "dev.conllu"


ICON = "(S (NP (NNO uji)) (VP (VBI jalan)))\n"


def test_a_family_without_heads_writes_no_conllu_and_an_unchanged_manifest(tmp_path):
    source = tmp_path / "src" / "id-icon"
    source.mkdir(parents=True)
    for split in SPLITS:
        (source / f"{split}.txt").write_text(ICON, encoding="utf-8")
    folder = tmp_path / "out" / "free" / "indonesian"
    folder.mkdir(parents=True)
    (folder / "dev.conllu").write_text("left by an earlier preparation\n")
    result = invoke("prepare", "free", "-l", "indonesian", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert "dependency version" not in result.output
    assert sorted(path.name for path in folder.iterdir()) == ["dev.trees", "manifest.json", "test.trees", "train.trees"]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert "heads" not in manifest and all("dependencies" not in stats for stats in manifest["splits"].values())
    assert set(manifest) == {
        "family", "language", "mlparse_version", "created", "source_root", "format", "reader_options",
        "output_format", "evalb_param", "split_definition", "missing_splits", "transforms", "splits", "repairs",
        "exclusions", "source_files", "notes", "manifest_version"}
    assert Manifest.from_json(manifest).heads is None


def _minimal(**language):
    body = {"reader": {"format": "bracketed"}, "split": {"scheme": "files", "train": "x"}, **language}
    return {"family": "t", "languages": {"xx": body}}


def test_the_catalogs_heads_key_is_checked():
    assert parse_family(_minimal(heads="collins-ptb"), Path("t.yaml")).languages["xx"].heads == "collins-ptb"
    assert parse_family(_minimal(), Path("t.yaml")).languages["xx"].heads is None
    with pytest.raises(CatalogError, match="unknown head table 'kollins'; bundled: collins-ptb"):
        parse_family(_minimal(heads="kollins"), Path("t.yaml"))
    with pytest.raises(CatalogError, match="heads: treebank needs a format that marks heads \\(sinica\\)"):
        parse_family(_minimal(heads="treebank"), Path("t.yaml"))
    with pytest.raises(CatalogError, match="not output: conllu"):
        parse_family(_minimal(heads="collins-ptb", reader={"format": "conllu"}, output="conllu"), Path("t.yaml"))
    with pytest.raises(CatalogError, match="heads must be a head table's name"):
        parse_family(_minimal(heads=["collins-ptb"]), Path("t.yaml"))


def test_treebank_heads_that_no_longer_fit_the_prepared_tree_are_refused():
    spec = parse_family({"family": "t", "languages": {"zh": {
        "reader": {"format": "sinica"}, "split": {"scheme": "files", "train": "x"}, "heads": "treebank"}}},
        Path("t.yaml")).languages["zh"]
    source = head_source(spec)
    tree = parse_bracketed("(TOP (S (Nab x) (VA11 y)))").trees[0]
    fits = MarkedHeads(TreeDependencies([-1, 2, 0], ["", "agent", "root"]))
    assert sentence_dependencies(tree, source, fits) == fits.dependencies
    longer = MarkedHeads(TreeDependencies([-1, 2, 0, 2], ["", "agent", "root", "punct"]))
    with pytest.raises(ValueError, match="marks heads for 3 words, the prepared tree has 2"):
        sentence_dependencies(tree, source, longer)
    block = conllu_block(tree, fits.dependencies)
    document = parse_conllu(block + "\n")
    assert isinstance(document, ConlluDocument) and document.sentences[0].deprels == ("agent", "root")
    tree.children[0].children[0].word = "x\ty"
    with pytest.raises(ValueError, match="cannot write the word 'x.ty' in a CoNLL-U column"):
        conllu_block(tree, fits.dependencies)
