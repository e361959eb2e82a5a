"""Packages that carry their tagger (issue 23 §6): a parser trained on predicted tags parses words and raw
text through ``mlparse.load`` (tagging first, as in training); a constituency package writes real
part-of-speech tags (its bundled tagger's) instead of ``UNK``; the model card says where the tags come from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import mlparse
from mlparse.api import InputError
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.package import PackageError, export_package
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import SENTENCES
from helpers.run_fixtures import TINY_TREES, write_tiny_recipe
from helpers.tagger_fixtures import TINY_TAGGER, jackknife_recipe


@pytest.fixture(scope="module")
def jackknifed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("jack")
    config = jackknife_recipe(tmp, folds=2, sentences=SENTENCES, max_epochs=30)
    results = run_recipe(config, RunOptions(runs_dir=tmp / "runs"))
    assert results.input_tags["tagger_run_dir"]
    return RunDir.for_recipe(tmp / "runs", config).path


def test_a_package_of_a_parser_on_predicted_tags_carries_its_tagger_and_parses_words(jackknifed_run: Path,
                                                                                    tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    result = CliRunner().invoke(app, ["export", str(jackknifed_run), str(out)])
    assert result.exit_code == 0, result.output
    assert "with its tagger" in result.output
    info = json.loads((out / "package.json").read_text())
    assert info["tagger"] == "tagger" and info["tags"] == "bundled tagger"
    assert json.loads((out / "tagger" / "package.json").read_text())["kind"] == "tagger"
    assert "the tagger bundled in `tagger/` tags raw text and words first" in (out / "README.md").read_text()
    # the run directory it came from may go: the package needs nothing else
    parser = mlparse.load(out, device="cpu")
    assert parser.tagger is not None and parser.tagger.kind == "tagger"
    words = "John saw a cat .".split()
    tagged = parser.tagger.predict([words])[0]
    assert tagged == ["PROPN", "VERB", "DET", "NOUN", "PUNCT"]  # the training tags of these words
    sentence = parser.parse(words)  # no tags given: tagged first, then parsed
    assert [token["form"] for token in sentence] == words
    # the parser read the tagger's tags: the same parse as with those tags given
    assert parser.parse(words, output="prediction") == parser.parse(list(zip(words, tagged)), output="prediction")
    assert len(list(parser.parse_sents([words, ["the", "dog", "barks"]]))) == 2


def test_without_a_tagger_a_tag_reading_parser_still_asks_for_tags(jackknifed_run: Path, tmp_path: Path) -> None:
    parser = mlparse.load(jackknifed_run, device="cpu")  # a run directory finds its tagger run too
    assert parser.tagger is not None
    parser.tagger = None
    with pytest.raises(InputError, match="takes POS tags as input and carries no tagger"):
        parser.parse(["the", "dog"])


def pos_tagger_run(tmp: Path) -> Path:
    data = tmp / "tagger-data"
    data.mkdir()
    for split in ("train", "dev", "test"):
        (data / f"{split}.trees").write_text("\n".join(TINY_TREES) + "\n", encoding="utf-8")
    recipe = yaml.safe_load(yaml.safe_dump(TINY_TAGGER))
    recipe["data"].update({s: str(data / f"{s}.trees") for s in ("train", "dev", "test")})
    recipe["tagger"]["column"] = "pos"
    recipe["train"]["max_epochs"] = 30
    path = tmp / "pos-tagger.yaml"
    path.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    config = load_recipe(path)
    assert run_recipe(config, RunOptions(runs_dir=tmp / "runs")).dev.tagging_accuracy == 100.0
    return RunDir.for_recipe(tmp / "runs", config).path


def test_a_constituency_package_writes_its_bundled_taggers_tags_not_unk(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 2}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run = RunDir.for_recipe(tmp_path / "runs", config).path
    plain = export_package(run, tmp_path / "plain")
    assert plain.tags == "none" and "placeholder `UNK`" in (tmp_path / "plain" / "README.md").read_text()
    words = "John saw a cat .".split()
    assert set(mlparse.load(tmp_path / "plain", device="cpu").parse(words, output="tree").tags()) == {"UNK"}
    tagger = pos_tagger_run(tmp_path)
    info = export_package(run, tmp_path / "with-tagger", tagger=tagger)
    assert info.tags == "bundled tagger" and info.tagger == "tagger"
    tree = mlparse.load(tmp_path / "with-tagger", device="cpu").parse(words, output="tree")
    assert tree.tags() == ["NNP", "VBD", "DT", "NN", "."] and tree.words() == words
    # a given tag still wins over the tagger's
    tree = mlparse.load(tmp_path / "with-tagger", device="cpu").parse([("John", "NN"), ("saw", "VBD")], output="tree")
    assert tree.tags() == ["NN", "VBD"]
    with pytest.raises(PackageError, match="not a tagger"):
        export_package(run, tmp_path / "wrong", tagger=run)


def test_raw_text_and_the_spacy_component_tag_first(jackknifed_run: Path, tmp_path: Path) -> None:
    spacy = pytest.importorskip("spacy")
    import mlparse.integrations.spacy_component  # noqa: F401  (the entry point does this when mlparse is installed)

    out = tmp_path / "pkg"
    export_package(jackknifed_run, out)
    parser = mlparse.load(out, device="cpu")
    sentence = parser.parse("John saw a cat.")  # raw text: spaCy's tokenizer, the bundled tagger, the parser
    assert [token["form"] for token in sentence] == ["John", "saw", "a", "cat", "."]
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("mlparse", config={"model": str(out), "device": "cpu"})
    doc = nlp("John saw a cat. the dog barks.")
    assert len(list(doc.sents)) == 2 and all(token.dep_ for token in doc)


def test_the_spacy_component_writes_the_pipelines_tags_into_trees(tmp_path: Path) -> None:
    spacy = pytest.importorskip("spacy")
    import mlparse.integrations.spacy_component  # noqa: F401

    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run = RunDir.for_recipe(tmp_path / "runs", config).path
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")

    @spacy.Language.component("fixed_tags")
    def fixed_tags(doc):  # a stand-in for a statistical tagger before the parser
        for token in doc:
            token.tag_ = "NN" if token.text != "." else "."
        return doc

    nlp.add_pipe("fixed_tags")
    nlp.add_pipe("mlparse", config={"model": str(run), "device": "cpu"})
    doc = nlp("dog barks .")
    parse = list(doc.sents)[0]._.parse_string
    assert "(NN dog)" in parse and "(NN barks)" in parse and "UNK" not in parse


def test_mlparse_parse_tags_tokenized_text_with_the_carried_tagger(jackknifed_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    export_package(jackknifed_run, out)
    source = tmp_path / "input.txt"
    source.write_text("John saw a cat .\n\nthe dog barks\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["parse", "--model", str(out), "--input", str(source), "--format", "text"])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines() if line and not line.startswith("#")]
    assert [row[1] for row in rows] == "John saw a cat . the dog barks".split()
    assert [row[3] for row in rows[:5]] == ["PROPN", "VERB", "DET", "NOUN", "PUNCT"]  # the tags the parser read
    assert all(row[6].isdigit() for row in rows)


def test_mlparse_parse_writes_the_carried_taggers_tags_into_trees(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    out = tmp_path / "pkg"
    export_package(RunDir.for_recipe(tmp_path / "runs", config).path, out, tagger=pos_tagger_run(tmp_path))
    source = tmp_path / "input.txt"
    source.write_text("John saw a cat .\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["parse", "--model", str(out), "--input", str(source), "--format", "text"])
    assert result.exit_code == 0, result.output
    assert "(NNP John)" in result.stdout and "(VBD saw)" in result.stdout and "UNK" not in result.stdout
