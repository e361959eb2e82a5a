"""Model packages (mlparse export), mlparse.load and its parser object, the spaCy component.

Tiny span and dependency models are trained once per module (a few seconds each).  The nltk and
spaCy parts are skipped when those optional packages are absent (CI installs only ``.[dev]``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import pytest
from typer.testing import CliRunner

import mlparse
from mlparse.api import EmptySentence, InputError, MissingExtra, SentenceTooLong
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.package import PACKAGE_FORMAT_VERSION, IncompatiblePackage, ModelNotFound, NotAModel
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.trees.reader import parse_bracketed
from helpers.dep_fixtures import write_dep_recipe
from helpers.run_fixtures import train_tiny_span_run

REPO = Path(__file__).resolve().parents[1]

#: Sentences of mixed lengths (more than the tiny trees hold), one with brackets.
WORDS = ["the", "dog", "barks", "a", "cat", "saw", "John", "big", "mat", "on", "it", "is", "red", "he", "runs", "fast", "."]


def sentences(count: int) -> List[List[str]]:
    """``count`` sentences of lengths 1..25 in a scrambled order, deterministic."""
    out = []
    for k in range(count):
        length = 1 + (k * 7) % 25
        out.append([WORDS[(k + 3 * i) % len(WORDS)] for i in range(length)])
    return out


@pytest.fixture(scope="module")
def span_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny_span_run(tmp_path_factory.mktemp("span"))


@pytest.fixture(scope="module")
def span_package(span_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("packages") / "span-model"
    result = CliRunner().invoke(app, ["export", str(span_run), str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def dep_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("dep")
    config = load_recipe(write_dep_recipe(tmp, model={"use_tags": False}, train={"max_epochs": 20}))
    run_recipe(config, RunOptions(runs_dir=tmp / "runs"))
    return RunDir.for_recipe(tmp / "runs", config).path


def cli_trees(model: Path, text: str, tmp_path: Path) -> List[str]:
    source = tmp_path / "input.txt"
    source.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["parse", "--model", str(model), "--input", str(source), "--format", "text"])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


# -- the package ------------------------------------------------------------------------------------

def test_a_package_is_self_contained_and_gives_the_trees_of_mlparse_parse(span_run: Path, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    result = CliRunner().invoke(app, ["export", str(span_run), str(package)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in package.iterdir()) == ["README.md", "model.pt", "package.json", "recipe.yaml", "spec.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["pkg"]  # the temporary folder was renamed, nothing left beside
    info = json.loads((package / "package.json").read_text())
    results = json.loads((span_run / "results.json").read_text())
    assert (info["kind"], info["task"], info["dataset"], info["language"]) == ("span", "constituency", "tiny", "english")
    assert info["mlparse_version"] == mlparse.__version__ and info["format_version"] == PACKAGE_FORMAT_VERSION
    assert info["dev"]["f1"] == results["dev"]["f1"] and info["test"]["f1"] == results["test"]["f1"]
    assert info["metric"] == "f1" and info["parse_budget"] == 5000
    assert (package / "recipe.yaml").read_text() == (span_run / "recipe.yaml").read_text()
    assert json.loads((package / "spec.json").read_text())["kind"] == "span"
    card = (package / "README.md").read_text()
    assert f"F1 {results['dev']['f1']:.2f}" in card and "mlparse.load(" in card and "tiny" in card

    text = "\n".join(" ".join(words) for words in sentences(40)) + "\n"
    expected = cli_trees(span_run, text, tmp_path)
    moved = tmp_path / "elsewhere"
    shutil.move(str(span_run), moved)  # the package needs no run directory
    try:
        parser = mlparse.load(package, device="cpu")
        got = [tree.to_bracketed() for tree in parser.parse_sents([line.split() for line in text.splitlines()], output="tree")]
        assert got == expected
        assert cli_trees(package, text, tmp_path) == expected  # mlparse parse --model PACKAGE too
    finally:
        shutil.move(str(moved), span_run)
    assert mlparse.load(span_run, device="cpu").parse(["the", "dog"], output="tree").to_bracketed() == \
        parser.parse(["the", "dog"], output="tree").to_bracketed()  # a run directory loads as well


@pytest.mark.treebanks
def test_the_package_parses_the_ptb_sample_dev_set_as_mlparse_parse_does(span_package: Path, span_run: Path,
                                                                         treebanks: Path, tmp_path: Path) -> None:
    from mlparse.data.prepare import prepare_family

    prepare_family("ptb-sample", source=treebanks / "ptb-sample", languages=["english"], out=tmp_path / "data")
    dev = parse_bracketed((tmp_path / "data" / "ptb-sample" / "english" / "dev.trees").read_text(encoding="utf-8")).trees
    words = [[leaf.word for leaf in tree.leaves()] for tree in dev]
    assert len(words) == 273
    raw = [[{"-LRB-": "(", "-RRB-": ")"}.get(word, word) for word in sentence] for sentence in words]
    assert raw != words  # the dev set has brackets: given as "(" they come back as -LRB-, as the CLI writes them
    kept = [sentence for sentence in raw if len(sentence) <= 38]  # the tiny model's position table
    expected = cli_trees(span_run, "".join(" ".join(sentence) + "\n" for sentence in kept), tmp_path)
    got = [tree.to_bracketed() for tree in mlparse.load(span_package, device="cpu").parse_sents(kept, output="tree")]
    assert got == expected and len(got) == len(kept) > 200


def test_export_refuses_what_it_cannot_export_in_one_line(span_run: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["export", str(tmp_path / "missing"), str(tmp_path / "out")])
    assert result.exit_code == 1 and "run directory not found" in result.output
    (tmp_path / "plain").mkdir()
    result = runner.invoke(app, ["export", str(tmp_path / "plain"), str(tmp_path / "out")])
    assert result.exit_code == 1 and "not a finished run directory" in result.output
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("x")
    result = runner.invoke(app, ["export", str(span_run), str(tmp_path / "taken")])
    assert result.exit_code == 1 and "already exists" in result.output
    assert (tmp_path / "taken" / "file").read_text() == "x"
    assert not (tmp_path / "out").exists() and "Traceback" not in result.output


def test_a_package_of_a_newer_format_is_refused_naming_both_versions(span_package: Path, tmp_path: Path) -> None:
    newer = tmp_path / "newer"
    shutil.copytree(span_package, newer)
    info = json.loads((newer / "package.json").read_text())
    info.update(format_version=PACKAGE_FORMAT_VERSION + 1, mlparse_version="9.4.0")
    (newer / "package.json").write_text(json.dumps(info))
    with pytest.raises(IncompatiblePackage) as error:
        mlparse.load(newer)
    assert "mlparse 9.4.0" in str(error.value) and f"this mlparse {mlparse.__version__}" in str(error.value)
    result = CliRunner().invoke(app, ["parse", "--model", str(newer), "--input", str(newer / "README.md")])
    assert result.exit_code == 1 and "mlparse 9.4.0" in result.output and "Traceback" not in result.output


def test_a_path_that_is_not_a_model_says_so(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound, match="does not exist"):
        mlparse.load(tmp_path / "nothing")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "notes.txt").write_text("hello")
    with pytest.raises(NotAModel, match="not an mlparse model"):
        mlparse.load(tmp_path / "folder")
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "package.json").write_text(json.dumps({"format": "mlparse-package", "format_version": 1}))
    (fake / "model.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(NotAModel, match="model.pt"):
        mlparse.load(fake)


def test_import_mlparse_stays_light() -> None:
    code = "import sys, mlparse; assert 'torch' not in sys.modules; assert callable(mlparse.load); assert 'torch' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# -- parsing ----------------------------------------------------------------------------------------

def test_parse_sents_keeps_order_across_batches_and_streams(span_package: Path) -> None:
    parser = mlparse.load(span_package, device="cpu")
    inputs = sentences(120)
    alone = [parser.parse(words, output="tree").to_bracketed() for words in inputs]
    batched = [tree.to_bracketed() for tree in parser.parse_sents(iter(inputs), batch_size=40, output="tree")]
    assert batched == alone
    assert [tree.words() for tree in parser.parse_sents(inputs, batch_size=40, output="tree")] == inputs

    read = []

    def stream() -> Any:
        for k, words in enumerate(inputs):
            read.append(k)
            yield words
        yield []  # empty: refused with its index, after everything before it was yielded

    out = []
    with pytest.raises(EmptySentence, match="sentence 120: empty") as error:
        for tree in parser.parse_sents(stream(), batch_size=40, output="tree"):
            out.append(tree.to_bracketed())
            if len(out) == 1:
                first_seen = len(read)
    assert error.value.index == 120 and out == alone
    assert first_seen < len(inputs)  # the first tree came before the whole input was read


def test_input_errors_name_the_sentence(span_package: Path) -> None:
    parser = mlparse.load(span_package, device="cpu")
    assert parser.max_words == 38  # model.max_len 40, less the start and stop positions
    with pytest.raises(SentenceTooLong) as error:
        list(parser.parse_sents([["a"], ["b", "c"], ["w"] * 39], output="tree"))
    assert (error.value.index, error.value.length, error.value.maximum) == (2, 39, 38)
    assert str(error.value) == "sentence 2: 39 words, longer than this model's maximum of 38 words"
    assert len(parser.parse(["w"] * 38, output="tree").leaves()) == 38
    with pytest.raises(EmptySentence, match="sentence 1: empty"):
        list(parser.parse_sents([["a"], []], output="tree"))
    with pytest.raises(InputError, match="sentence 0: word 2 .* white space"):
        parser.parse(["a", "b c"], output="tree")
    with pytest.raises(InputError, match="sentence 0: give a string"):
        parser.parse([1, 2], output="tree")
    with pytest.raises(ValueError, match="batch_size"):
        list(parser.parse_sents([["a"]], batch_size=0))
    with pytest.raises(ValueError, match="output 'conllu'"):
        parser.parse(["a"], output="conllu")


def test_brackets_are_escaped_in_and_tags_are_used(span_package: Path) -> None:
    parser = mlparse.load(span_package, device="cpu")
    tree = parser.parse(["(", "the", "dog", ")", "-LRB-", "a(b)"], output="tree")
    assert tree.words() == ["-LRB-", "the", "dog", "-RRB-", "-LRB-", "a-LRB-b-RRB-"]
    assert parse_bracketed(tree.to_bracketed()).trees[0].words() == tree.words()  # the tree reads back
    tagged = parser.parse([("the", "DT"), ("dog", "NN")], output="tree")
    assert tagged.words() == ["the", "dog"] and tagged.tags() == ["DT", "NN"]  # a model without a tag head keeps them


def test_missing_extras_are_named(span_package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parser = mlparse.load(span_package, device="cpu")
    monkeypatch.setitem(sys.modules, "nltk", None)
    monkeypatch.setitem(sys.modules, "spacy", None)
    with pytest.raises(MissingExtra, match=r"pip install 'mlparse\[nltk\]'"):
        parser.parse(["the", "dog"])
    with pytest.raises(MissingExtra, match=r"pip install 'mlparse\[spacy\]'"):
        parser.parse("The dog barks.", output="tree")
    assert parser.parse(["the", "dog"], output="tree").words() == ["the", "dog"]  # pre-tokenized input needs neither


def test_the_nltk_tree_is_the_mlparse_tree(span_package: Path) -> None:
    nltk = pytest.importorskip("nltk")
    parser = mlparse.load(span_package, device="cpu")
    inputs = sentences(10) + [["(", "hello", ")"]]
    for words, tree, own in zip(inputs, parser.parse_sents(inputs), parser.parse_sents(inputs, output="tree")):
        assert isinstance(tree, nltk.Tree) and tree.label() == "TOP"
        assert tree.pformat(margin=10**9) == own.to_bracketed()
    assert tree.leaves() == ["-LRB-", "hello", "-RRB-"]
    assert nltk.Tree.fromstring(tree.pformat(margin=10**9)) == tree


def test_raw_text_is_tokenized_by_spacy(span_package: Path) -> None:
    pytest.importorskip("spacy")
    parser = mlparse.load(span_package, device="cpu")
    tree = parser.parse("The dog (a cat) barks.", output="tree")
    assert tree.words() == ["The", "dog", "-LRB-", "a", "cat", "-RRB-", "barks", "."]
    with pytest.raises(EmptySentence, match="sentence 1"):
        list(parser.parse_sents(["a dog", "   "], output="tree"))


# -- dependency models ------------------------------------------------------------------------------

def assert_tree(heads: List[int]) -> None:
    """``heads[i]`` (1-based, 0 = root) of word i + 1 form one tree: one root, every word reaches it."""
    assert sum(head == 0 for head in heads) == 1
    for start in range(1, len(heads) + 1):
        seen, word = set(), start
        while word != 0:
            assert word not in seen, f"cycle through word {word}: {heads}"
            seen.add(word)
            word = heads[word - 1]


def test_a_dependency_package_gives_conllu_token_lists_whose_heads_form_trees(dep_run: Path, tmp_path: Path) -> None:
    import conllu

    package = tmp_path / "dep-pkg"
    result = CliRunner().invoke(app, ["export", str(dep_run), str(package)])
    assert result.exit_code == 0, result.output
    info = json.loads((package / "package.json").read_text())
    assert (info["kind"], info["task"], info["metric"]) == ("biaffine", "dependency", "las")
    assert info["dev"]["las"] == json.loads((dep_run / "results.json").read_text())["dev"]["las"]
    parser = mlparse.load(package, device="cpu")
    inputs = [words for words in sentences(30)] + [["the", "dog", "barks", "."]]
    token_lists = list(parser.parse_sents(inputs, batch_size=30))
    assert all(isinstance(tokens, conllu.TokenList) for tokens in token_lists)
    for words, tokens in zip(inputs, token_lists):
        assert [token["form"] for token in tokens] == words
        assert_tree([token["head"] for token in tokens])
    text = "\n".join(" ".join(words) for words in inputs) + "\n"
    cli = CliRunner().invoke(app, ["parse", "--model", str(dep_run), "--input", "-"], input=text)
    assert cli.exit_code == 0, cli.output
    expected = [[(token["head"], token["deprel"]) for token in sentence] for sentence in conllu.parse(cli.stdout)]
    assert [[(token["head"], token["deprel"]) for token in tokens] for tokens in token_lists] == expected
    assert [(t["form"], t["head"]) for t in token_lists[-1]] == [("the", 2), ("dog", 3), ("barks", 0), (".", 3)]
    with pytest.raises(SentenceTooLong, match="sentence 1: 50 words"):
        list(parser.parse_sents([["a"], ["w"] * 50]))


# -- spaCy ------------------------------------------------------------------------------------------

def spacy_pipeline(model: Path) -> Any:
    spacy = pytest.importorskip("spacy")
    import mlparse.integrations.spacy_component  # noqa: F401  (the entry point does this when mlparse is installed)

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("mlparse", config={"model": str(model), "device": "cpu"})
    return nlp


def test_the_spacy_entry_point_names_the_factory() -> None:
    pytest.importorskip("spacy")
    import importlib
    import tomllib

    from spacy.language import Language

    target = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]["spacy_factories"]["mlparse"]
    module, name = target.split(":")
    factory = getattr(importlib.import_module(module), name)
    assert Language.get_factory_meta("mlparse").factory == "mlparse" and Language.has_factory("mlparse")
    assert factory.__name__ == "make_component"


def test_the_spacy_component_adds_benepar_attributes_matching_the_trees(span_package: Path) -> None:
    nlp = spacy_pipeline(span_package)
    parser = mlparse.load(span_package, device="cpu")
    doc = nlp("The dog saw a big cat on the mat. He runs fast (really). It is red.")
    sents = list(doc.sents)
    assert len(sents) == 3
    trees = list(parser.parse_sents([[t.text for t in sent] for sent in sents], output="tree"))
    for sent, tree in zip(sents, trees):
        below = tree.children[0] if len(tree.children) == 1 else tree
        assert sent._.parse_string == below.to_bracketed()
        expected_labels = []
        node = tree
        while not node.is_leaf and len(node.children) == 1 and not node.children[0].is_leaf:
            node = node.children[0]
            expected_labels.append(node.label)
        if len(tree.children) > 1:
            node, expected_labels = tree, []
        assert sent._.labels == tuple(expected_labels)
        assert sent._.parent is None
        children = list(sent._.children)
        assert children and "".join(c.text_with_ws for c in children) == sent.text_with_ws
        assert len(children) == len(node.children)
        for child, subtree in zip(children, node.children):
            assert child._.parent == sent
            assert child._.parse_string == subtree.to_bracketed() or subtree.to_bracketed().startswith(f"({subtree.label} ")
            for grandchild in child._.children:
                assert grandchild._.parent == child
        for token in sent:
            word_span = doc[token.i:token.i + 1]
            assert isinstance(word_span._.labels, tuple)
    leaf_words = [w for tree in trees for w in tree.words()]
    assert "-LRB-" in leaf_words and "(" in [t.text for t in doc]  # tokens keep their text, the tree escapes
    assert "(UNK -LRB-)" in sents[1]._.parse_string
    not_a_constituent = [doc[i:j] for i in range(len(sents[0])) for j in range(i + 2, len(sents[0]) + 1)
                         if (i, j) not in doc._.mlparse_parse.labels]
    with pytest.raises(ValueError, match="not a constituent"):
        not_a_constituent[0]._.labels


def test_the_spacy_component_with_a_dependency_model_sets_trees(dep_run: Path) -> None:
    nlp = spacy_pipeline(dep_run)
    text = "the dog barks . he runs fast .  a cat saw John ."  # two spaces: a white-space token
    with nlp.select_pipes(disable=["mlparse"]):
        boundaries = [(s.start, s.end) for s in nlp(text).sents]
    doc = nlp(text)
    sents = list(doc.sents)
    assert [(s.start, s.end) for s in sents] == boundaries and len(sents) == 3  # the sentencizer's boundaries kept
    assert any(token.is_space for token in sents[2]) and all(token.head.i in range(s.start, s.end) for s in sents for token in s)
    for sent in sents:
        words = [token for token in sent if not token.is_space]
        number = {token.i: k for k, token in enumerate(words, start=1)}
        heads = [0 if token.head == token else number[token.head.i] for token in words]
        assert_tree(heads)
        assert all(token.head in sent for token in sent) and all(token.dep_ for token in sent)
    assert [(t.text, t.head.text) for t in sents[0]] == [("the", "dog"), ("dog", "barks"), ("barks", "barks"), (".", "barks")]


def test_the_spacy_component_needs_sentence_boundaries(span_package: Path) -> None:
    spacy = pytest.importorskip("spacy")
    import mlparse.integrations.spacy_component  # noqa: F401

    nlp = spacy.blank("en")
    nlp.add_pipe("mlparse", config={"model": str(span_package), "device": "cpu"})
    with pytest.raises(ValueError, match="needs sentence boundaries: add a sentencizer"):
        nlp("The dog barks.")
    assert len(nlp("")) == 0  # an empty document has nothing to parse
    with pytest.raises(Exception, match="does not exist"):
        spacy.blank("en").add_pipe("mlparse", config={"model": str(span_package.parent / "missing")})
