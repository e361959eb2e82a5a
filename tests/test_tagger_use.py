"""A trained tagger used as a model: ``mlparse.load(...).parse`` and ``mlparse parse`` give CoNLL-U with its tags
in its own column (no heads); the spaCy component refuses it with a message."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import mlparse
from helpers.dep_fixtures import SENTENCES, conllu_text
from helpers.tagger_fixtures import TINY_TAGGER
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.trees.dependency import read_conllu


@pytest.fixture(scope="module")
def tagger_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tagger")
    data = tmp / "data"
    data.mkdir()
    for split in ("train", "dev", "test"):
        (data / f"{split}.conllu").write_text(conllu_text(SENTENCES), encoding="utf-8")
    recipe = yaml.safe_load(yaml.safe_dump(TINY_TAGGER))
    recipe["data"].update({s: str(data / f"{s}.conllu") for s in ("train", "dev", "test")})
    recipe["train"]["max_epochs"] = 30
    path = tmp / "tagger.yaml"
    path.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    config = load_recipe(path)
    assert run_recipe(config, RunOptions(runs_dir=tmp / "runs")).dev.tagging_accuracy == 100.0
    return RunDir.for_recipe(tmp / "runs", config).path


def gold_tags(k: int) -> list:
    return SENTENCES[k][1].split()


def test_the_api_gives_the_tags_in_conllu_and_as_a_list(tagger_run: Path) -> None:
    loaded = mlparse.load(tagger_run, device="cpu")
    words = SENTENCES[0][0].split()
    sentence = loaded.parse(words)
    assert [token["form"] for token in sentence] == words
    assert [token["upos"] for token in sentence] == gold_tags(0)  # the tagger fits its training sentences
    assert all(token["head"] is None for token in sentence)
    assert loaded.parse(words, output="prediction") == gold_tags(0)


def test_mlparse_parse_tags_tokenized_text_and_conllu(tagger_run: Path, tmp_path: Path) -> None:
    text = tmp_path / "words.txt"
    text.write_text("".join(f"{words}\n" for words, *_ in SENTENCES[:2]), encoding="utf-8")
    for source in (text, tmp_path / "gold.conllu"):
        if source.suffix == ".conllu":
            source.write_text(conllu_text(SENTENCES[:2]), encoding="utf-8")
        out = tmp_path / f"{source.stem}.tagged.conllu"
        result = CliRunner().invoke(app, ["parse", "--model", str(tagger_run), "--input", str(source),
                                          "--output", str(out)])
        assert result.exit_code == 0, result.output
        tagged = read_conllu(out).sentences
        assert [list(s.words) for s in tagged] == [SENTENCES[k][0].split() for k in range(2)]
        assert [list(s.upos) for s in tagged] == [gold_tags(k) for k in range(2)]


def test_the_spacy_component_refuses_a_tagger(tagger_run: Path) -> None:
    spacy = pytest.importorskip("spacy")
    import mlparse.integrations.spacy_component  # noqa: F401

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    with pytest.raises(ValueError, match="tagging model, not a parser"):
        nlp.add_pipe("mlparse", config={"model": str(tagger_run), "device": "cpu"})
